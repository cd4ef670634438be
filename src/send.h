/*
 * send.h: sending what the outbox holds. For each queued message: submit
 * it (unless the server already accepted it), record the acceptance, save
 * a copy to the account's Sent mailbox, and only then remove it. What
 * happened to each message comes back in a report for the caller to show.
 */
#ifndef STEED_SEND_H
#define STEED_SEND_H

#include <stddef.h>

#include "config.h"

enum send_status {
	SEND_DONE,		/* sent and saved in Sent */
	SEND_QUEUED,		/* not sent: will be tried again */
	SEND_UNSAVED,		/* sent; the copy to Sent will be retried */
	SEND_REFUSED		/* refused for good; moved to outbox/failed */
};

struct send_item {
	char		*id;
	enum send_status status;
	char		*text;	/* what happened, in plain words */
};

struct send_report {
	struct send_item *items;
	size_t		  n;
};

/* Flush the whole outbox (only id, if it is not NULL). */
int	send_flush(struct config *, const char *only_id, struct send_report *,
	    char **cause);
void	send_report_free(struct send_report *);
/* Test hook: die here if STEEDMAIL_CRASH_AT names this step. */
void	send_crash_point(const char *step);

#endif
