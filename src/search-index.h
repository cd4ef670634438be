/*
 * search-index.h: the full-text index, one SQLite FTS5 database per
 * account under the cache directory (ACCOUNT.search), over what the body
 * cache (body-cache.h) holds: senders, recipients, Subject and text
 * (search-text.h). It is built incrementally, from the newest body it
 * has read on, in transactions that each record how far they got, so a
 * kill loses at most the batch under way and the next update resumes;
 * a file of another schema, corrupt or not ours is dropped and built
 * again from the body cache. Decrypted text goes in only when the
 * index is opened with decrypted set (the setting index-decrypted);
 * opened with the other choice than it was built with, the file is
 * dropped and built again, so turning the setting off forgets every
 * decrypted word. Queries are those of search-query.h.
 */
#ifndef STEED_SEARCH_INDEX_H
#define STEED_SEARCH_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct body_cache;
struct cache;
struct search_query;
struct search_index;

struct search_index *search_index_open(const char *id, int decrypted,
	    char **cause);
struct search_index *search_index_open_path(const char *path, int decrypted,
	    char **cause);
void	 search_index_close(struct search_index *);

/*
 * Index every message of bc stored since the last update; *added says
 * how many. With decrypted set, an encrypted message is opened
 * (message.h, never prompting: the GnuPG home must be set) and what it
 * decrypts is indexed too. Stops early, keeping what it did, when
 * fe_cancelled(). Returns 0 or -1.
 */
int	 search_index_update(struct search_index *, struct body_cache *bc,
	    size_t *added, char **cause);

/*
 * The UIDs of mailbox (under uidvalidity) whose messages match q, at
 * most limit of them (0: all), those stored last first; *uids allocated.
 */
int	 search_index_query(struct search_index *, const char *mailbox,
	    uint32_t uidvalidity, const struct search_query *q, size_t limit,
	    uint32_t **uids, size_t *n, char **cause);

/*
 * What --search and the interface do: index what bc holds beyond what is
 * indexed (bc NULL: nothing), read query, and find the UIDs of folder
 * (under the UIDVALIDITY the header cache c holds) that match, ascending
 * in an allocated *uids. -1 and *cause for a query that cannot be read
 * (saying why), a folder never synced, or a database error.
 */
int	 search_index_find(struct search_index *, struct body_cache *bc,
	    struct cache *c, const char *folder, const char *query,
	    uint32_t **uids, size_t *n, char **cause);

/* How many messages are indexed, and how many with decrypted text. */
int	 search_index_stats(struct search_index *, uint64_t *docs,
	    uint64_t *decrypted, char **cause);

#endif
