/*
 * session.h: one account, open, for whoever drives it: the batch commands
 * (ui/cli-*.c), the interface's per-account worker, the setup wizard.
 *
 * A session holds the account's configuration, its header cache and its
 * IMAP connection (imap-conn.h: reconnects after a drop, replays the flag
 * changes saved while the server could not be reached). Opening asks for
 * the password through the front end (fe_secret(), frontend.h) when none
 * is configured. A server that cannot be reached does not fail the open:
 * session_down() says why, the cache can still be read, and flag changes
 * are saved for later.
 *
 * Threads: one session per account, driven by one thread at a time (the
 * interface's worker for that account), which has installed its own
 * front-end hooks (fe_set()): warnings, progress and the cancel flag are
 * that thread's. Another thread asks a long call (sync, the trust step,
 * IDLE) to stop by setting the hooks' cancel flag; the call then returns
 * SESSION_CANCELLED at the next step, leaving the cache consistent and
 * the resume points where the work stopped. The interface thread reads
 * the header cache through a cache handle of its own (cache_open()),
 * never through session_cache(), which belongs to the driving thread.
 * The trust step never prompts (crypto_set_no_prompt() on the driving
 * thread only).
 *
 * Nothing here prints; results come back as classes with a cause.
 */
#ifndef STEED_SESSION_H
#define STEED_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "cache.h"
#include "config.h"
#include "imap-conn.h"
#include "imap-mailbox.h"
#include "msg-flags.h"
#include "sync-trust.h"

/*
 * Results: the classes of imap-ops.h (IMAP_OPS_OK, IMAP_OPS_REFUSED,
 * IMAP_OPS_LOST, IMAP_OPS_UNSUPPORTED) and imap-conn.h (IMAP_CONN_SAVED,
 * IMAP_CONN_LOCAL), and these.
 */
#define SESSION_CANCELLED	(-10)	/* stopped as asked (fe_cancelled) */
#define SESSION_NO_ACCOUNT	(-11)	/* no such account configured */
#define SESSION_NO_CACHE	(-12)	/* the header cache cannot be opened */
#define SESSION_NO_PASSWORD	(-13)	/* no password, none given */

struct message;
struct session;

/*
 * Open account id (NULL: the default) of cf, which must outlive the
 * session: the cache, the password, the connection, then the saved flag
 * changes. Returns IMAP_OPS_OK and *sp, or a SESSION_NO_* class and a
 * cause. A server out of reach is not a failure (session_down()).
 */
int		 session_open(struct config *cf, const char *id,
		     struct session **sp, char **cause);
/* Log out and free. NULL is fine. */
void		 session_close(struct session *);

const struct account *session_account(const struct session *);
/* The header cache, for the thread that drives the session. */
struct cache	*session_cache(struct session *);
/* --offline's reason ("started with --offline: ..."), or NULL. */
const char	*session_offline(const struct session *);
/* Did the last session_fetch() read the body cache (no server asked)? */
int		 session_cached(const struct session *);
/* The body cache, or NULL (for the full-text index, search-index.h). */
struct body_cache *session_bodies(struct session *);
/*
 * After a sync: the messages of folder that arrived in the last
 * body-prefetch-days days (of its newest 2000) and are not in the body
 * cache, fetched into it, the newest first; *fetched says how many.
 * Nothing when the setting is 0 (the default) or the session is
 * offline. Stops at fe_cancelled() (SESSION_CANCELLED) or when the
 * server is lost; -1 and a cause for a setting it cannot read.
 */
int	 session_prefetch(struct session *, const char *folder,
	    size_t *fetched, char **cause);
/*
 * The full-text index (search-index.h) brought up to date with the body
 * cache; a sync does it too. A failure is only logged.
 */
void	 session_index(struct session *);
/*
 * The UIDs (ascending, *uids allocated) of folder's messages that match
 * query (search-query.h) in the full-text index, brought up to date
 * first; no server is asked. -1 and a cause (a query that cannot be
 * read says why).
 */
int	 session_search_text(struct session *, const char *folder,
	    const char *query, uint32_t **uids, size_t *n, char **cause);
/*
 * Why the server could not be reached at open, or NULL. With the
 * configuration's offline set (--offline), no password is asked, no
 * connection is ever tried, and this says so.
 */
const char	*session_down(const struct session *);
/* Saved flag changes sent to the server when it was opened. */
size_t		 session_replayed(const struct session *);
/* Reconnections after a drop so far. */
unsigned	 session_reconnects(const struct session *);

/* The mailboxes with their counts (LIST + STATUS); free with
 * imap_mailbox_list_free(). */
int	 session_folders(struct session *, struct imap_folder **, size_t *n,
	    char **cause);

/*
 * What a sync found; the trust step (session_trust()) continues from it.
 */
struct session_sync {
	struct imap_sync_stats	 st;
	uint32_t		 trust_first;	/* first UID the trust step
						   has not seen, or 0 */
};

/*
 * Bring the folder's header cache up to date, reporting progress
 * ("fetching headers", done, total). Returns IMAP_OPS_OK, or
 * SESSION_CANCELLED (what was fetched is kept; the next sync goes on
 * from there), or another class and a cause.
 */
int	 session_sync(struct session *, const char *folder,
	    struct session_sync *, char **cause);
/*
 * The trust step for what sync found new (sync-trust.h): from the first
 * message no sync has given the trust store yet, which is also where an
 * interrupted step resumes. Marks the folder's trust step done unless it
 * was cancelled. What went wrong is a warning (fe_notice()); the sync
 * stands whatever happens. Returns IMAP_OPS_OK with *ts filled (all zero:
 * nothing to do), or SESSION_CANCELLED.
 */
int	 session_trust(struct session *, const char *folder,
	    const struct session_sync *, struct sync_trust_stats *ts);
/*
 * The trust step on the new messages an earlier one left behind (older
 * than the newest sync-trust-limit of their sync; kept pending in the
 * header cache until looked at, even across runs): the newest first, at
 * most most of them (0: every one). *more says whether some are still
 * pending. Returns IMAP_OPS_OK, SESSION_CANCELLED (what is not done stays
 * pending), or IMAP_OPS_LOST when the step could not go on (said in a
 * warning; what is not done stays pending).
 */
int	 session_trust_more(struct session *, const char *folder,
	    unsigned most, struct sync_trust_stats *ts, int *more);

/*
 * Message uid of folder, opened (message.h) by a front end: what its
 * protected header says goes into the header cache (cache-protected.h),
 * unless cache-protected-headers is no. Returns 1 when the cache changed
 * (a new index snapshot shows it), else 0; a failure is only logged.
 */
int	 session_opened(struct session *, const char *folder, uint32_t uid,
	    const struct message *);

/*
 * One message by UID (part NULL: all of it), raw, into out. A whole
 * message is read from the body cache (body-cache.h) when it is there,
 * and kept there once fetched; with the server out of reach, a part of a
 * message kept whole is cut from it. A message that is neither cached
 * nor reachable: IMAP_OPS_LOST, and the cause says so.
 */
int	 session_fetch(struct session *, const char *folder, uint32_t uid,
	    const char *part, struct buf *out, char **cause);

/*
 * The mailbox operations, the same for the index, the pager and the batch
 * commands: one operation on some messages of folder, by UID. What the
 * server confirmed is in the header cache when it returns (a moved or
 * expunged message's row is gone, flags are the server's), so a front
 * end shows the cache and never its own guess.
 */
enum session_op_kind {
	SESSION_OP_FLAG,	/* add, then remove flags */
	SESSION_OP_MOVE,	/* to another folder (imap_ops_move()) */
	SESSION_OP_COPY,	/* to another folder */
	SESSION_OP_DELETE	/* to the trash; in the trash, expunged */
};

struct session_op {
	enum session_op_kind	 kind;
	msg_flags		 add;		/* SESSION_OP_FLAG */
	msg_flags		 remove;
	const char		*to;		/* MOVE, COPY */
};

/* What became of the messages: each is counted once. */
struct session_op_result {
	size_t		 done;		/* as asked */
	size_t		 saved;		/* flag changes kept for when the
					   server can be reached again */
	size_t		 kept;		/* copied, the original left flagged
					   deleted (neither MOVE nor UIDPLUS) */
	size_t		 marked;	/* flagged deleted, not expunged */
	size_t		 refused;	/* the server said no */
	size_t		 left;		/* not tried: the connection was lost
					   or the cache failed */
	size_t		 gone;		/* of done, those that left folder */
	int		 rc;		/* the first failure's class, or
					   IMAP_OPS_OK (IMAP_CONN_SAVED when
					   changes were saved) */
	char		*cause;		/* its words */
	char		*trash;		/* DELETE: the trash's name */
};

/*
 * Do op to the n messages of uids in folder, one after the other. A
 * refusal for one message does not stop the others; a lost connection or
 * a failing cache stops the rest (counted in left). Returns res->rc.
 */
int	 session_apply(struct session *, const char *folder,
	    const struct session_op *, const uint32_t *uids, size_t n,
	    struct session_op_result *res);
void	 session_op_result_free(struct session_op_result *);
/*
 * What happened, in one sentence for a person ("3 messages moved to
 * Archive"; what was only partly done or refused, and why). Allocated.
 */
char	*session_op_said(const struct session_op *, const char *folder,
	    const struct session_op_result *);
/* Add and remove flags of one message (session_apply() for one). */
int	 session_flag(struct session *, const char *folder, uint32_t uid,
	    msg_flags add, msg_flags remove, char **cause);
/* Try the server again on the next call, even after it could not be
 * reached (a running interface; a batch command gives up instead). */
void	 session_retry(struct session *);
/* Search the bodies on the server: the UIDs whose text has every word
 * (*uids allocated, ascending). */
int	 session_search(struct session *, const char *folder,
	    const char *words, uint32_t **uids, size_t *n, char **cause);
int	 session_expunge(struct session *, const char *folder, char **cause);
/*
 * The UIDs (ascending, *uids allocated) of the messages in folder with a
 * header field name holding value (SEARCH HEADER; "" matches any value).
 */
int	 session_search_header(struct session *, const char *folder,
	    const char *name, const char *value, uint32_t **uids, size_t *n,
	    char **cause);
/* APPEND msg to folder with these flags. */
int	 session_append(struct session *, const char *folder, const char *msg,
	    size_t len, msg_flags, char **cause);

/*
 * The account's Drafts mailbox: the one flagged \Drafts (RFC 6154), else
 * one named "Drafts", made when there is none. session_draft_append()
 * puts a copy of a postponed draft there, flagged \Draft and \Seen;
 * session_draft_remove() removes the copies with that Message-ID (flagged
 * deleted, then expunged by UID where the server has UIDPLUS), *removed
 * says how many there were. The local draft file is the one that counts:
 * these copies are for other programs and other machines.
 */
int	 session_draft_append(struct session *, const char *msg, size_t len,
	    char **cause);
int	 session_draft_remove(struct session *, const char *msgid,
	    size_t *removed, char **cause);

/*
 * Wait up to timeout seconds for a change in folder (imap-idle.h):
 * IMAP_OPS_OK with *events (0: none in time), SESSION_CANCELLED, or
 * another class and a cause. With synced, the folder was synced just
 * before: what the server said since (new mail told in the answer to
 * another command) is a change too.
 */
int	 session_idle(struct session *, const char *folder, int timeout,
	    int synced, unsigned *events, char **cause);

#endif
