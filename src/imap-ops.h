/*
 * imap-ops.h: what can be done to messages of the selected mailbox of a
 * logged-in IMAP session: change their flags, copy, move and expunge them
 * by UID. Also the conversion between flag sets (msg-flags.h) and
 * libetpan's flag lists.
 *
 * Every operation returns one of the classes below, so that the caller can
 * tell a connection worth re-opening from a server that said no.
 */
#ifndef STEED_IMAP_OPS_H
#define STEED_IMAP_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <libetpan/libetpan.h>

#include "msg-flags.h"

/* Results of the operations here and in imap-conn.h. */
enum imap_ops_status {
	IMAP_OPS_OK = 0,
	IMAP_OPS_REFUSED = -1,		/* the server said NO or BAD (its
					   words are in the cause), or the
					   message or mailbox is not there */
	IMAP_OPS_LOST = -2,		/* the connection is gone (closed,
					   timed out, BYE, or out of step):
					   reconnect and try again */
	IMAP_OPS_UNSUPPORTED = -3	/* the server lacks an extension
					   this needs */
};

/* How a message left its mailbox (imap_ops_move and friends). */
enum imap_ops_how {
	IMAP_OPS_MOVED,			/* it is in the other mailbox only */
	IMAP_OPS_COPIED_KEPT,		/* copied; the original is flagged
					   \Deleted but still there */
	IMAP_OPS_EXPUNGED,		/* removed for good */
	IMAP_OPS_MARKED			/* flagged \Deleted, not expunged */
};

/* IMAP system flags for a set (keywords are never sent). */
struct mailimap_flag_list *imap_ops_flag_list(msg_flags);
/* The set of an IMAP flag list (keywords and others are left out). */
msg_flags imap_ops_flag_set(const struct mailimap_flag_list *);

/*
 * The class of libetpan's error err from doing what (e.g. "UID STORE"),
 * with a cause naming it and, for a refusal, the server's words.
 */
int	 imap_ops_error(mailimap *, int err, const char *what, char **cause);

/* UID STORE +FLAGS.SILENT add, then -FLAGS.SILENT remove (either 0). */
int	 imap_ops_store(mailimap *, uint32_t uid, msg_flags add,
	    msg_flags remove, char **cause);
/*
 * The flags of uid as the server has them now, into flags. Returns
 * IMAP_OPS_OK, or IMAP_OPS_REFUSED with a cause when there is no such
 * message, or another class.
 */
int	 imap_ops_get_flags(mailimap *, uint32_t uid, msg_flags *flags,
	    char **cause);
int	 imap_ops_copy(mailimap *, uint32_t uid, const char *to,
	    char **cause);
/*
 * Move uid to mailbox to: UID MOVE (RFC 6851) if offered; else UID COPY,
 * \Deleted and, with UIDPLUS (RFC 4315), UID EXPUNGE of that UID alone.
 * Without UIDPLUS the original is left flagged \Deleted, because a plain
 * EXPUNGE would also remove every other message flagged so. *how says
 * which it was. Once the copy is made, no failure is IMAP_OPS_LOST: a
 * retry would copy the message twice.
 */
int	 imap_ops_move(mailimap *, uint32_t uid, const char *to,
	    enum imap_ops_how *how, char **cause);
/* UID EXPUNGE of these UIDs; IMAP_OPS_UNSUPPORTED without UIDPLUS. */
int	 imap_ops_expunge(mailimap *, const uint32_t *uids, size_t n,
	    char **cause);
/* NOOP: is the connection still there? */
int	 imap_ops_noop(mailimap *, char **cause);

#endif
