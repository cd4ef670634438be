/*
 * imap-idle.h: waiting for a change in the selected mailbox of a logged-in
 * IMAP session: IDLE (RFC 2177) where the server offers it, renewed well
 * within the 30 minutes after which servers may drop an idle client, and
 * NOOP at intervals where it does not. It reports what libetpan saw
 * (EXISTS, EXPUNGE, FETCH) and parses nothing itself.
 */
#ifndef STEED_IMAP_IDLE_H
#define STEED_IMAP_IDLE_H

#include <libetpan/libetpan.h>

/* What changed. */
#define IMAP_IDLE_EXISTS	0x1	/* new mail: an EXISTS counting more
					   messages than the expunges left */
#define IMAP_IDLE_EXPUNGE	0x2	/* messages were expunged */
#define IMAP_IDLE_FETCH		0x4	/* flags (or other data) changed */

#define IMAP_IDLE_RENEW		(29 * 60)	/* seconds per IDLE command */
#define IMAP_IDLE_POLL		60		/* seconds between NOOPs */

struct imap_idle_how {
	int	timeout;	/* seconds to wait in all; 0: look once */
	int	renew;		/* 0: IMAP_IDLE_RENEW */
	int	poll;		/* 0: IMAP_IDLE_POLL */
	int	synced;		/* the mailbox was synced into the header
				   cache before: a count of messages
				   other than the cache's is a change
				   (imap_conn_idle()) */
};

/*
 * Wait until the server reports a change in the selected mailbox, or the
 * time is up, or fe_cancelled() (frontend.h) says to stop. Returns
 * IMAP_OPS_OK with *events set (0: nothing happened in time, or asked to
 * stop), or another class of imap-ops.h with a cause. Never waits much
 * longer than how->timeout: each read is also bounded by the session's
 * own timeout.
 */
int	imap_idle_wait(mailimap *, const struct imap_idle_how *how,
	    unsigned *events, char **cause);

#endif
