/*
 * imap-conn.h: an IMAP connection to one account that outlives drops. It
 * holds what it takes to log in again (the account, the CA file and a
 * copy of the password, scrubbed from the log and wiped on close), the
 * session and the selected mailbox. An operation that finds the
 * connection lost reconnects once (log in, select again, check that the
 * mailbox's UIDVALIDITY did not change) and tries again.
 *
 * Flag changes go through the header cache's pending table: recorded, and
 * shown in the cached flags, before they are sent; forgotten once the
 * server has them. What could not be sent is sent by the next open.
 *
 * Used by session.c, for the batch commands and the per-account worker.
 * The operations block; none of them prints: what went wrong but did not
 * stop them (a reconnection that failed, saved flag changes dropped) is a
 * warning through fe_notice() (frontend.h), as it happens.
 */
#ifndef STEED_IMAP_CONN_H
#define STEED_IMAP_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <libetpan/libetpan.h>

#include "buf.h"
#include "cache.h"
#include "config.h"
#include "imap-idle.h"
#include "imap-mailbox.h"
#include "imap-ops.h"
#include "imap-sync.h"

struct imap_conn;

/* imap_conn_flag(): the change is saved, and will be sent later. */
#define IMAP_CONN_SAVED		1
/* The header cache failed (a class beside those of imap-ops.h). */
#define IMAP_CONN_LOCAL		(-4)

/*
 * A connection for account a (which must outlive it), not yet open. The
 * password is copied; ca_file is the global setting (the account's own
 * wins, see imap_session_open). The cache is the account's header cache,
 * owned by the caller.
 */
struct imap_conn *imap_conn_new(const struct account *a, const char *ca_file,
		    const char *password, struct cache *);

/*
 * Connect and log in, then send the flag changes saved by earlier runs.
 * Returns IMAP_OPS_OK, or IMAP_OPS_LOST and a cause when the server
 * cannot be reached or refused the login (the connection then stays down:
 * later operations fail at once, and imap_conn_flag() saves changes).
 */
int		 imap_conn_open(struct imap_conn *, char **cause);
/* Log out, wipe the password, free. NULL is fine. */
void		 imap_conn_close(struct imap_conn *);

/* The session (NULL while down), for what has no operation here. */
mailimap	*imap_conn_session(struct imap_conn *);
/* Saved flag changes sent by imap_conn_open(). */
size_t		 imap_conn_replayed(const struct imap_conn *);
/* How often the connection was made again after a drop. */
unsigned	 imap_conn_reconnects(const struct imap_conn *);

/*
 * The operations. Each returns IMAP_OPS_OK or a class of imap-ops.h (or
 * IMAP_CONN_LOCAL) with a cause; IMAP_OPS_LOST means the server could not
 * be reached even after reconnecting.
 */
int	 imap_conn_select(struct imap_conn *, const char *mailbox,
	    char **cause);
int	 imap_conn_sync(struct imap_conn *, const char *mailbox,
	    struct imap_sync_stats *, char **cause);
int	 imap_conn_fetch(struct imap_conn *, const char *mailbox, uint32_t uid,
	    const char *part, struct buf *out, char **cause);
/*
 * Add and remove flags of uid. When the server cannot be
 * reached, the change is kept in the cache and IMAP_CONN_SAVED returned,
 * with the reason as cause (not when the mailbox, or offline the UID, is
 * not in the cache: then IMAP_OPS_LOST and nothing is kept).
 */
int	 imap_conn_flag(struct imap_conn *, const char *mailbox, uint32_t uid,
	    msg_flags add, msg_flags remove, char **cause);
int	 imap_conn_move(struct imap_conn *, const char *mailbox, uint32_t uid,
	    const char *to, enum imap_ops_how *how, char **cause);
/*
 * Move uid to the \Trash mailbox, or in it, flag it deleted and expunge
 * it (with UIDPLUS; else it stays flagged). *trash gets the mailbox's
 * name, for the caller to free.
 */
int	 imap_conn_delete(struct imap_conn *, const char *mailbox,
	    uint32_t uid, enum imap_ops_how *how, char **trash, char **cause);
/*
 * Copy uid to mailbox to. Not tried again on a new connection once the
 * COPY was sent (a second could make two copies).
 */
int	 imap_conn_copy(struct imap_conn *, const char *mailbox, uint32_t uid,
	    const char *to, char **cause);
/* EXPUNGE: remove every message of mailbox flagged deleted. */
/* A failed connection is not tried again by this connection's calls
 * (a batch command says why and ends); this forgets it, so the next call
 * connects again: for a program that keeps running. */
void	 imap_conn_retry(struct imap_conn *);
/* Never connect: every operation fails as lost, saying why (--offline). */
void	 imap_conn_offline(struct imap_conn *, const char *why);
/* The UIDs of mailbox's messages whose text has every word (UID SEARCH
 * TEXT, on the server); *uids allocated. */
int	 imap_conn_search(struct imap_conn *, const char *mailbox,
	    const char *words, uint32_t **uids, size_t *n, char **cause);
int	 imap_conn_expunge(struct imap_conn *, const char *mailbox,
	    char **cause);
/* The mailboxes with their counts (imap_mailbox_list()). */
int	 imap_conn_folders(struct imap_conn *, struct imap_folder **,
	    size_t *n, char **cause);
/* imap_idle_wait() on mailbox, across one reconnection. */
int	 imap_conn_idle(struct imap_conn *, const char *mailbox,
	    const struct imap_idle_how *, unsigned *events, char **cause);

#endif
