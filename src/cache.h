/*
 * cache.h: the header cache, one SQLite database per account under the
 * cache directory. It holds, per mailbox and UIDVALIDITY, each message's
 * UID, flags, dates, size and the header fields the index shows, sorts,
 * threads and searches on (index.h), plus the mailbox's HIGHESTMODSEQ and
 * UIDNEXT, so that a warm open asks the server only for what changed.
 * Beside the fields of a message's own (outer) header it keeps, apart,
 * those of its protected header (RFC 9788) once the message was opened
 * (cache-protected.h): a value is in one table or the other, so none can
 * pass for the other kind. A cache that is corrupt, of another schema or
 * not ours is thrown away and rebuilt; losing it costs time, never mail.
 */
#ifndef STEED_CACHE_H
#define STEED_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct cache;

struct cache_mailbox {
	int64_t		id;
	uint32_t	uidvalidity;
	uint32_t	uidnext;
	uint64_t	highestmodseq;
	uint32_t	count;		/* messages cached */
	uint32_t	maxuid;		/* highest UID cached */
	uint32_t	trust_uid;	/* highest UID whose message a sync
					   has given the trust store */
	uint32_t	lowuid;		/* a sync that fetches the newest
					   first went down to this UID: the
					   server's UIDs below it are not
					   cached yet; 0: none is missing */
	uint32_t	evuid;		/* rows of UIDs from this one up were
					   stored with the trust step's hints
					   (CACHE_HINT_EVIDENCE) */
};

/* What the Content-Type of a message says about it (hints, not verdicts). */
#define CACHE_HINT_ATTACH	0x01	/* multipart/mixed */
#define CACHE_HINT_SIGNED	0x02	/* multipart/signed, pkcs7 signed-data */
#define CACHE_HINT_ENCRYPTED	0x04	/* multipart/encrypted, pkcs7 enveloped */
#define CACHE_HINT_SMIME	0x08	/* the protection above is S/MIME */
/*
 * For the trust step (sync-trust.h): the header fields show an Autocrypt
 * field or a Content-Type that can carry a signature or encryption
 * (imap-fetch.h); or they did not come, and nobody knows.
 */
#define CACHE_HINT_EVIDENCE	0x10
#define CACHE_HINT_NOFIELDS	0x20

/*
 * What a message's protected header (RFC 9788) gave, once it was opened
 * (cache_protected_put): the values the index uses instead of the outer
 * ones. how says what vouched for them; each value is NULL (sent 0) where
 * the protected header has no such field, and the outer one stands.
 */
#define CACHE_OPENED_DECRYPTED	0x01	/* it was decrypted (with integrity) */
#define CACHE_OPENED_SIGNED	0x02	/* a good signature covers them */

struct cache_protected {
	unsigned	 how;		/* CACHE_OPENED_*; 0: opened, but no
					   protected header is used (none, or
					   nothing vouches for it): no values */
	const char	*date;		/* as cache_msg's below */
	const char	*from;
	const char	*from_addr;
	const char	*rcpt;		/* from To and Cc */
	const char	*subject;
	const char	*message_id;
	const char	*in_reply_to;
	const char	*references;
	time_t		 sent;
};

struct cache_msg {
	uint32_t	 uid;
	char		 flags[8];	/* maildir letters: D F R S T */
	time_t		 internaldate;
	uint32_t	 size;
	const char	*date;		/* the Date header, as sent */
	const char	*from;		/* the From display name, decoded,
					   or the address when it has none */
	const char	*from_addr;	/* the first From address, as sent */
	const char	*rcpt;		/* To and Cc: "Name <addr>, ...",
					   decoded, bounded */
	const char	*subject;	/* decoded, UTF-8 */
	const char	*message_id;
	const char	*in_reply_to;
	const char	*references;	/* the last message-ids that fit */
	time_t		 sent;		/* the Date header; 0: not understood */
	unsigned	 hints;		/* CACHE_HINT_* */
	int		 stale;		/* stored by an older schema: the next
					   sync fetches its headers again */
	/* Read only (cache_each): what its protected header gave, or NULL
	   when it has not been opened with them cached. */
	const struct cache_protected *prot;
};

/* Open (creating or rebuilding) the cache for account id. */
struct cache	*cache_open(const char *id, char **cause);
/* The same at an explicit path (tests). */
struct cache	*cache_open_path(const char *path, char **cause);
void		 cache_close(struct cache *);

/*
 * The cached state of mailbox name. If uidvalidity differs from the cached
 * one, the mailbox's messages are dropped first (their UIDs mean nothing
 * now). Fills *mb; returns -1 on a database error.
 */
int	 cache_mailbox(struct cache *, const char *name, uint32_t uidvalidity,
	    struct cache_mailbox *mb, char **cause);
int	 cache_mailbox_update(struct cache *, struct cache_mailbox *,
	    char **cause);
/* The trust step of a sync (sync-trust.h) is done up to uid. */
int	 cache_mailbox_trusted(struct cache *, struct cache_mailbox *,
	    uint32_t uid, char **cause);
/*
 * The new messages the trust step has not looked at yet below its resume
 * point (older than the newest sync-trust-limit of a sync): a UID set as
 * IMAP writes one, "" when none; NULL and *cause on a database error.
 * Set replaces it (cleared with the mailbox's messages when UIDVALIDITY
 * changes).
 */
char	*cache_mailbox_pending(struct cache *, const struct cache_mailbox *,
	    char **cause);
int	 cache_mailbox_set_pending(struct cache *,
	    const struct cache_mailbox *, const char *set, char **cause);
/*
 * The cached state of mailbox name as it is, creating and dropping
 * nothing (for work without the server). Returns 1 and fills *mb if the
 * mailbox is cached, 0 if not, -1 on a database error.
 */
/* The same without counting its messages (cheap at any size): the
 * counts in *mb are those last stored. */
int	 cache_mailbox_peek(struct cache *, const char *name,
	    struct cache_mailbox *, char **cause);
int	 cache_mailbox_find(struct cache *, const char *name,
	    struct cache_mailbox *mb, char **cause);
/*
 * The names of the mailboxes the cache holds (each synced once), by
 * name, in an allocated *names of allocated strings. 0, or -1 and a
 * cause.
 */
int	 cache_mailbox_names(struct cache *, char ***names, size_t *n,
	    char **cause);

/*
 * The UIDs of first..last (ascending) whose header fields can carry
 * evidence for the trust step (CACHE_HINT_EVIDENCE), when the cache can
 * tell: every message of the range is cached (none below mb's lowuid)
 * and was stored with the hints (from its evuid up), and the header
 * fields of each came. Returns 1 and the UIDs in *uids (free them), 0
 * when the cache cannot tell (the server is to be asked), -1 on a
 * database error.
 */
int	 cache_evidence(struct cache *, const struct cache_mailbox *,
	    uint32_t first, uint32_t last, uint32_t **uids, size_t *n,
	    char **cause);

/* A write transaction, the write lock taken (waiting up to 5 s). */
int	 cache_begin(struct cache *, char **cause);
/* Is a handle of this process waiting in cache_begin()? A long writer
 * that works in many transactions (thread-store.c) lets it go first. */
int	 cache_writer_waiting(void);
int	 cache_commit(struct cache *, char **cause);
void	 cache_rollback(struct cache *);

int	 cache_put(struct cache *, const struct cache_mailbox *,
	    const struct cache_msg *, char **cause);
/*
 * For a sync about to store nnew messages into a cache that holds fewer
 * (a mailbox fetched for the first time): drop the indexes of the sorts
 * by arrival (UID), sender, subject and size, in the caller's
 * transaction, so that the
 * rows go in without them; 1 when dropped, 0 when not worth it, -1.
 * cache_index_build() makes them again (nothing when they are there),
 * in a transaction of the caller's or of its own; cache_open() does too
 * when no mailbox is in the middle of a sync going down (lowuid), as a
 * sync killed while it went down leaves them out.
 */
int	 cache_index_defer(struct cache *, size_t nnew, char **cause);
int	 cache_index_build(struct cache *, char **cause);
/* 1 if the cached flags of uid changed, 0 if they were so already (or
 * uid is not cached), -1 on a database error. */
int	 cache_set_flags(struct cache *, const struct cache_mailbox *,
	    uint32_t uid, const char *flags, char **cause);
int	 cache_delete(struct cache *, const struct cache_mailbox *,
	    uint32_t uid, char **cause);
/* Delete the cached UIDs first to last: how many there were, or -1. */
int	 cache_delete_range(struct cache *, const struct cache_mailbox *,
	    uint32_t first, uint32_t last, char **cause);
/* The cached Message-ID of uid in *msgid (to free): 1 if cached with one,
 * 0 if not, -1. */
int	 cache_get_message_id(struct cache *, const struct cache_mailbox *,
	    uint32_t uid, char **msgid, char **cause);
/* The cached flags of uid in flags[8]: 1 if cached, 0 if not, -1. */
int	 cache_get_flags(struct cache *, const struct cache_mailbox *,
	    uint32_t uid, char flags[8], char **cause);
/*
 * For address completion (addrbook.h): at most max senders of the newest
 * 10,000 cached messages of each mailbox, whose address or a word of whose display name
 * starts with prefix (ASCII case ignored), the most frequent first, then
 * the most recent. Read-only.
 */
struct cache_sender {
	char		*addr;		/* as sent */
	char		*name;		/* display name, decoded, or NULL */
	long		 count;		/* messages from it */
	time_t		 last;		/* the newest one's arrival */
};
int	 cache_senders(struct cache *, const char *prefix, size_t max,
	    struct cache_sender **, size_t *n, char **cause);
void	 cache_senders_free(struct cache_sender *, size_t n);
/* Delete every cached UID <= upto that is not in the sorted list uids. */
int	 cache_delete_missing(struct cache *, const struct cache_mailbox *,
	    const uint32_t *uids, size_t n, uint32_t upto, char **cause);
/* Leave out of the sorted list uids[*n] those that are cached. */
int	 cache_uncached(struct cache *, const struct cache_mailbox *,
	    uint32_t *uids, size_t *n, char **cause);
/* Recount count and maxuid of mb from the table. */
int	 cache_recount(struct cache *, struct cache_mailbox *, char **cause);

/*
 * Flag changes made here but not yet confirmed by the server. They are
 * recorded before they are sent and removed once the server has them, so
 * a dropped connection or a crash never loses one.
 */
struct cache_pending {
	int64_t		 id;
	const char	*mailbox;
	uint32_t	 uidvalidity;
	uint32_t	 uid;
	const char	*add;		/* maildir letters */
	const char	*remove;
};

/* Returns the new entry's id (> 0), or -1. */
int	 cache_pending_add(struct cache *, const char *mailbox,
	    uint32_t uidvalidity, uint32_t uid, const char *add,
	    const char *remove, char **cause);
int	 cache_pending_each(struct cache *,
	    int (*fn)(const struct cache_pending *, void *), void *arg,
	    char **cause);
int	 cache_pending_done(struct cache *, int64_t id, char **cause);
/*
 * Drop the pending changes of mailbox recorded under another UIDVALIDITY
 * than uidvalidity (their UIDs name other messages now, or none). Returns
 * how many were dropped, or -1.
 */
int	 cache_pending_drop(struct cache *, const char *mailbox,
	    uint32_t uidvalidity, char **cause);

/*
 * The UIDs of mb whose headers an older schema stored (cache_msg.stale),
 * ascending, in an allocated *uids (NULL when there are none).
 */
int	 cache_stale(struct cache *, const struct cache_mailbox *,
	    uint32_t **uids, size_t *n, char **cause);

/*
 * The protected header values of the cached message uid of mb (an opened
 * message's, cache-protected.h): stored, or replaced, only while the
 * message itself is cached, and dropped with it. Returns 1 when the row
 * changed, 0 when it was so already (or uid is not cached), -1.
 */
int	 cache_protected_put(struct cache *, const struct cache_mailbox *,
	    uint32_t uid, const struct cache_protected *, char **cause);
/*
 * 1 if uid of mb is cached, its Content-Type says encrypted, and no
 * protected header values are cached for it: opening it would tell more.
 * 0 if not, -1.
 */
int	 cache_protected_wanted(struct cache *, const struct cache_mailbox *,
	    uint32_t uid, char **cause);
/*
 * Forget every protected header value of every mailbox (the setting
 * cache-protected-headers = no), overwriting what they held in the file
 * (secure_delete) and emptying the journal. Returns how many messages
 * had some, or -1.
 */
int	 cache_protected_clear(struct cache *, char **cause);

/* Call fn for every cached message of mb, in UID order. */

int	 cache_each(struct cache *, const struct cache_mailbox *,
	    int (*fn)(const struct cache_msg *, void *), void *arg,
	    char **cause);
/* The same for the limit messages of highest UID, highest first. */
int	 cache_each_newest(struct cache *, const struct cache_mailbox *,
	    size_t limit, int (*)(const struct cache_msg *, void *), void *,
	    char **cause);
/* The same for the message uid only (nothing when it is not cached). */
int	 cache_each_uid(struct cache *, const struct cache_mailbox *,
	    uint32_t uid, int (*)(const struct cache_msg *, void *), void *,
	    char **cause);

/*
 * Does an encrypted message's outer Subject only stand in for the real
 * one (RFC 9788's "[...]", the "..." of steedmail and others, nothing)?
 */
int	 cache_placeholder(const char *subject);

/*
 * The database itself, for the index's queries (index.c), which read
 * the columns and tables kept for it: each message's sort keys (edate,
 * fkey, skey; schema 6), the mailbox's message count (nmsg) and senders
 * seen (schema 8), and the stored thread order with what it has still
 * to take in (thread, thread_todo, thread_dirty, tcount; schema 9,
 * thread-store.h; from schema 10 cache_put() notes a message stored in
 * thread_todo, not a trigger).
 */
struct sqlite3	*cache_sqlite(struct cache *);

#endif
