/*
 * body-cache.h: the body cache, one SQLite database per account under the
 * cache directory (ACCOUNT.bodies). It keeps each message fetched whole
 * exactly as the server sent it, so an encrypted message stays ciphertext
 * at rest, keyed by mailbox, UIDVALIDITY and UID; reading a cached message
 * needs no network. Its size is bounded (the setting body-cache-size):
 * storing past the bound evicts the messages stored longest ago first.
 * The full-text index (search-index.h) reads what is stored here. A file
 * that is corrupt or not ours is thrown away and rebuilt: it only saves
 * fetching again.
 */
#ifndef STEED_BODY_CACHE_H
#define STEED_BODY_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define BODY_CACHE_DEFAULT	(512ULL * 1024 * 1024)	/* bytes */

struct body_cache;

/* One stored message, for body_cache_each(). */
struct body_cache_entry {
	int64_t		 id;		/* grows with every message stored */
	const char	*mailbox;
	uint32_t	 uidvalidity;
	uint32_t	 uid;
	const char	*raw;		/* as fetched */
	size_t		 len;
};

/* Open (creating or rebuilding) the body cache of account id; limit in
 * bytes (0: store nothing, read what is there). */
struct body_cache *body_cache_open(const char *id, uint64_t limit,
	    char **cause);
/* The same at an explicit path (tests). */
struct body_cache *body_cache_open_path(const char *path, uint64_t limit,
	    char **cause);
void		 body_cache_close(struct body_cache *);
/* The file's path (the full-text index attaches it). */
const char	*body_cache_path(const struct body_cache *);

/* The message uid of mailbox under uidvalidity, appended to out: 1 if
 * cached, 0 if not, -1 on a database error. */
int	 body_cache_get(struct body_cache *, const char *mailbox,
	    uint32_t uidvalidity, uint32_t uid, struct buf *out,
	    char **cause);
/* 1 if the message is stored, 0 if not, -1 (nothing is read). */
int	 body_cache_has(struct body_cache *, const char *mailbox,
	    uint32_t uidvalidity, uint32_t uid, char **cause);
/*
 * Store a message (replacing an earlier copy), then evict the oldest
 * ones until the cache fits its limit again. A message larger than the
 * limit is not stored (0). Returns 1 if stored, 0 if not, -1.
 */
int	 body_cache_put(struct body_cache *, const char *mailbox,
	    uint32_t uidvalidity, uint32_t uid, const char *raw, size_t len,
	    char **cause);
/* Forget one message (expunged); 0 or -1. */
int	 body_cache_delete(struct body_cache *, const char *mailbox,
	    uint32_t uidvalidity, uint32_t uid, char **cause);
/* The highest id ever given (0: none): it only grows while the file
 * lives, so a smaller one than before means the cache was made anew. */
int	 body_cache_last_id(struct body_cache *, int64_t *, char **cause);
/* How many messages and bytes are stored. */
int	 body_cache_stats(struct body_cache *, uint64_t *count,
	    uint64_t *bytes, char **cause);
/* fn for every message stored with an id above after, oldest first;
 * stops when fn returns non-zero (which is then returned). */
int	 body_cache_each(struct body_cache *, int64_t after,
	    int (*fn)(const struct body_cache_entry *, void *), void *arg,
	    char **cause);

/* A size setting ("512M", "2G", "100k", "0") in bytes; -1 and *cause. */
int	 body_cache_size_parse(const char *, uint64_t *, char **cause);

#endif
