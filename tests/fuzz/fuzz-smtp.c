/*
 * fuzz-smtp.c: a submission server's replies, as a lying or broken server
 * would send them. The input is all the server says, read in chunks whose
 * size the first byte chooses, through a whole session as steedmail holds
 * it: the greeting (read by libetpan), EHLO (smtp_session_ehlo(): its
 * extensions and AUTH mechanisms), AUTH LOGIN's three replies
 * (smtp_session_command()), a transaction of two recipients
 * (smtp_submit(): MAIL, RCPT, DATA, the end of DATA, RSET after a refusal)
 * and QUIT. What steedmail would show of a reply (smtp_session_words(),
 * the result's reply and sentence) must be terminal-safe and bounded.
 */
#include "fuzz.h"
#include "fuzz-stream.h"

#include "buf.h"
#include "smtp-session.h"
#include "smtp-submit.h"

/* What is shown of a reply: safe for the terminal, and short. */
static void
check_shown(const char *s, size_t max)
{
	if (s == NULL)
		return;
	FUZZ_ASSERT(strlen(s) <= max);
	FUZZ_ASSERT(fuzz_terminal_safe(s, strlen(s)));
}

static void
check_words(int code, const char *text)
{
	char	*w = smtp_session_words(code, text);

	/* "CODE " (a lying server's code may be any int: 11 characters and
	 * a space), 200 bytes of text of at most 4 bytes each once made
	 * safe, "..." */
	check_shown(w, 12 + 200 * 4 + 3);
	free(w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const char	 msg[] = "From: a@example.org\r\n"
	    "To: b@example.org\r\nSubject: x\r\n\r\nbody\r\n";
	char			*rcpts[] = { "b@example.org", "c@example.org" };
	struct fuzz_feed	 f;
	mailstream		*st;
	mailsmtp		*smtp;
	struct buf		 words;
	struct smtp_submit_result res;
	char			*cause = NULL;
	int			 code, i;

	if (len < 1 || len > 65536)
		return 0;
	if ((st = fuzz_stream(&f, data, len)) == NULL)
		return 0;
	if ((smtp = mailsmtp_new(0, NULL)) == NULL) {
		mailstream_close(st);
		return 0;
	}
	/* on failure, mailsmtp_connect() closes the stream itself */
	if (mailsmtp_connect(smtp, st) != MAILSMTP_NO_ERROR) {
		check_words(smtp->response_code, smtp->response);
		mailsmtp_free(smtp);
		return 0;
	}
	check_words(smtp->response_code, smtp->response);
	if (smtp_session_ehlo(smtp, "example.org", &cause) == -1) {
		check_shown(cause, 64 + 4 + 200 * 4 + 3);
		free(cause);
		cause = NULL;
	} else {
		FUZZ_ASSERT(smtp->esmtp & MAILSMTP_ESMTP);
		FUZZ_ASSERT(smtp->auth & MAILSMTP_AUTH_CHECKED);
	}

	buf_init(&words);
	for (i = 0; i < 3 && smtp->stream != NULL; i++) {
		code = smtp_session_command(smtp, i == 0 ? "AUTH LOGIN" :
		    "dXNlcg==", &words);
		FUZZ_ASSERT(code >= -1 && code <= 999);
		if (words.len > 0)
			FUZZ_ASSERT(strlen(words.data) == words.len);
		check_words(code, words.data);
		if (code != 334)
			break;
	}
	buf_free(&words);

	if (smtp->stream != NULL) {
		smtp_submit(smtp, "a@example.org", rcpts, 2, msg,
		    sizeof msg - 1, &res);
		FUZZ_ASSERT(res.status == SMTP_SUBMIT_ACCEPTED ||
		    res.status == SMTP_SUBMIT_TEMPFAIL ||
		    res.status == SMTP_SUBMIT_REFUSED);
		FUZZ_ASSERT(res.what != NULL);
		check_shown(res.reply, 512 * 4);
		check_shown(res.rcpt, 64 * 1024);
		check_shown(res.what, 3 * 512 * 4 + 64 * 1024);
		smtp_submit_result_free(&res);
	}
	mailsmtp_free(smtp);
	return 0;
}
