/*
 * smtp-submit.c: the SMTP transaction of smtp-submit.h.
 *
 * Outgoing messages are built 7-bit clean (quoted-printable or base64), so
 * BODY=8BITMIME is never needed. A message larger than the server's SIZE
 * is refused here, before it is uploaded. What a refusal means goes with
 * it in words when smtp-words.c knows it. A connection that breaks after the data
 * was sent but before the server's reply arrived is reported as "try
 * later": SMTP gives no way to ask whether the server kept the message,
 * and a duplicate is better than a loss.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "smtp-submit.h"
#include "smtp-words.h"
#include "strsafe.h"
#include "xmalloc.h"

/* The server's last reply, bounded and terminal-safe. */
static char *
smtp_submit_reply(mailsmtp *s)
{
	const char	*r = s->response != NULL ? s->response : "";
	struct buf	 b;
	size_t		 n = strnlen(r, 512), i, start;

	/* A multi-line reply comes joined with newlines: one line of it. */
	while (n > 0 && (r[n - 1] == '\n' || r[n - 1] == '\r'))
		n--;
	buf_init(&b);
	for (i = start = 0; i <= n; i++) {
		if (i < n && r[i] != '\n' && r[i] != '\r')
			continue;
		if (i > start) {
			if (b.len > 0)
				buf_addc(&b, ' ');
			strsafe_add(&b, r + start, i - start, 0);
		}
		start = i + 1;
	}
	return buf_take(&b);
}

static void
smtp_submit_fail(mailsmtp *s, int err, const char *step, const char *rcpt,
    struct smtp_submit_result *res)
{
	const char	*words;
	char		*what;

	res->code = s->response_code;
	res->reply = smtp_submit_reply(s);
	if (rcpt != NULL)
		res->rcpt = strsafe(rcpt, 0);
	if ((err == MAILSMTP_ERROR_STREAM || res->code == 0) &&
	    strcmp(step, "the end of DATA") == 0) {
		/* the server may have it: sent again, a copy may come twice
		 * (doc/sending.md) */
		res->status = SMTP_SUBMIT_TEMPFAIL;
		res->what = xstrdup("the connection to the submission server "
		    "was lost after the whole message was sent, before the "
		    "server answered (it may have arrived, and a second copy "
		    "may follow)");
	} else if (err == MAILSMTP_ERROR_STREAM || res->code == 0) {
		res->status = SMTP_SUBMIT_TEMPFAIL;
		res->what = xasprintf("connection to the submission server "
		    "lost during %s", step);
	} else if (res->code >= 400 && res->code < 500) {
		res->status = SMTP_SUBMIT_TEMPFAIL;
		res->what = xasprintf("server said try later at %s%s%s: %s",
		    step, rcpt ? " " : "", rcpt ? res->rcpt : "", res->reply);
	} else {
		res->status = SMTP_SUBMIT_REFUSED;
		if (rcpt != NULL)
			res->what = xasprintf("server refused recipient %s: "
			    "%d %s", res->rcpt, res->code, res->reply);
		else
			res->what = xasprintf("server refused the message at "
			    "%s: %d %s", step, res->code, res->reply);
	}
	if ((words = smtp_words_explain(res->reply)) != NULL) {
		what = xasprintf("%s (that is: %s)", res->what, words);
		free(res->what);
		res->what = what;
	}
	log_msg(LOG_INFO, "smtp: %s", res->what);
	mailsmtp_reset(s);
}

void
smtp_submit(mailsmtp *s, const char *from, char *const *rcpts, size_t nrcpts,
    const char *msg, size_t len, struct smtp_submit_result *res)
{
	size_t	i;
	int	err;

	memset(res, 0, sizeof *res);
	if (s->smtp_max_msg_size != 0 && len > s->smtp_max_msg_size) {
		/* it would be refused after the upload, and every time */
		res->status = SMTP_SUBMIT_REFUSED;
		res->reply = xasprintf("SIZE %zu", s->smtp_max_msg_size);
		res->what = xasprintf("the message is %.1f MB, more than the "
		    "%.1f MB the submission server takes (its EHLO said %s): "
		    "make it smaller (fewer or smaller attachments); not sent",
		    len / 1048576.0, s->smtp_max_msg_size / 1048576.0,
		    res->reply);
		log_msg(LOG_INFO, "smtp: %s", res->what);
		return;
	}
	if ((err = mailsmtp_mail(s, from)) != MAILSMTP_NO_ERROR) {
		smtp_submit_fail(s, err, "MAIL FROM", NULL, res);
		return;
	}
	for (i = 0; i < nrcpts; i++) {
		err = mailsmtp_rcpt(s, rcpts[i]);
		if (err != MAILSMTP_NO_ERROR) {
			smtp_submit_fail(s, err, "RCPT TO", rcpts[i], res);
			return;
		}
	}
	if ((err = mailsmtp_data(s)) != MAILSMTP_NO_ERROR) {
		smtp_submit_fail(s, err, "DATA", NULL, res);
		return;
	}
	if ((err = mailsmtp_data_message(s, msg, len)) != MAILSMTP_NO_ERROR) {
		smtp_submit_fail(s, err, "the end of DATA", NULL, res);
		return;
	}
	res->status = SMTP_SUBMIT_ACCEPTED;
	res->code = s->response_code;
	res->reply = smtp_submit_reply(s);
	res->what = xasprintf("accepted: %s", res->reply);
	log_msg(LOG_INFO, "smtp: %s", res->what);
}

void
smtp_submit_result_free(struct smtp_submit_result *res)
{
	free(res->reply);
	free(res->rcpt);
	free(res->what);
	memset(res, 0, sizeof *res);
}
