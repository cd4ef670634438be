/*
 * send.h: sending what the outbox holds. For each queued message: submit
 * it (unless the server already accepted it), record the acceptance, save
 * a copy to the account's Sent mailbox, and only then remove it. What
 * happened to each message comes back in a report for the caller to show.
 * A message held for DNS (draft-hold.c) is decided first, and goes on
 * from there once it is.
 */
#ifndef STEED_SEND_H
#define STEED_SEND_H

#include <stddef.h>

#include "config.h"

enum send_status {
	SEND_DONE,		/* sent and saved in Sent */
	SEND_QUEUED,		/* not sent: will be tried again */
	SEND_UNSAVED,		/* sent; the copy to Sent will be retried */
	SEND_REFUSED,		/* refused for good; moved to outbox/failed */
	SEND_HELD		/* waits for DNS (draft-hold.c): looked at
				   again by a flush with SEND_LOOK_AGAIN */
};

struct send_item {
	char		*id;
	enum send_status status;
	char		*text;	/* what happened, in plain words */
	int		 login_refused;	/* SEND_QUEUED because the server
					   refused the login (the password,
					   the token): it will not go by
					   itself */
};

struct send_report {
	struct send_item *items;
	size_t		  n;
};

/*
 * Flush the whole outbox (only id, if it is not NULL). A message held for
 * DNS is decided again only with SEND_LOOK_AGAIN (--flush, r on the outbox
 * screen: it may cost a lookup's deadline each); otherwise it is reported
 * as held. SEND_CAN_ASK: a person can answer fe_confirm() (fallback = ask,
 * a message that has waited dns-wait).
 */
#define SEND_LOOK_AGAIN	0x1
#define SEND_CAN_ASK	0x2
int	send_flush(struct config *, const char *only_id, int flags,
	    struct send_report *, char **cause);
void	send_report_free(struct send_report *);
/* Test hook: die here if STEEDMAIL_CRASH_AT names this step. */
void	send_crash_point(const char *step);

#endif
