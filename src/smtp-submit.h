/*
 * smtp-submit.h: one SMTP transaction (MAIL, RCPT..., DATA) on a session
 * that smtp-session.c opened and authenticated. The outcome is sorted into
 * the three cases the outbox acts on: accepted, try later, refused.
 */
#ifndef STEED_SMTP_SUBMIT_H
#define STEED_SMTP_SUBMIT_H

#include <stddef.h>

#include <libetpan/libetpan.h>

enum smtp_submit_status {
	SMTP_SUBMIT_ACCEPTED,	/* 2xx after DATA: the server has it */
	SMTP_SUBMIT_TEMPFAIL,	/* 4xx or a dropped connection: retry */
	SMTP_SUBMIT_REFUSED	/* 5xx: retrying will not help */
};

struct smtp_submit_result {
	enum smtp_submit_status	 status;
	int			 code;	/* the server's reply code, or 0 */
	char			*reply;	/* what the server said, made safe */
	char			*rcpt;	/* the recipient refused, if one was */
	char			*what;	/* a sentence for the user */
};

void	smtp_submit(mailsmtp *, const char *from, char *const *rcpts,
	    size_t nrcpts, const char *msg, size_t len,
	    struct smtp_submit_result *);
void	smtp_submit_result_free(struct smtp_submit_result *);

#endif
