/*
 * smtp-words.c: what a submission or IMAP server's refusal means, in
 * words, for the refusals people meet with the large providers: a
 * message too large, too many recipients, a sending limit reached, an
 * app password wanted, SMTP AUTH switched off by an administrator. One
 * table: the enhanced status code (RFC 3463) or the provider's own
 * words that mark each, and the sentence. Read by smtp-submit.c (a
 * refused or deferred message) and by the logins (smtp-session.c,
 * imap-session.c). Knows nothing of the connection; never prints.
 *
 * The providers' own words come from their public help pages on these
 * errors (Google: "Gmail SMTP errors and codes"; Microsoft: "Sending
 * limits in Exchange Online" and "Enable or disable SMTP AUTH").
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "smtp-words.h"

struct smtp_words {
	const char	*mark;		/* in the reply, any case */
	const char	*sentence;
};

static const struct smtp_words smtp_words_table[] = {
	/* the message */
	{ "5.3.4", "the message is larger than the server takes: make it "
	  "smaller (fewer or smaller attachments)" },
	{ "5.2.3", "the message is larger than the server takes: make it "
	  "smaller (fewer or smaller attachments)" },
	{ "exceeded Google's message size", "the message is larger than "
	  "Google takes (25 MB, attachments counted after encoding): make "
	  "it smaller" },
	/* the recipients */
	{ "4.5.3", "too many recipients for one message: the server takes "
	  "fewer; send it in parts" },
	{ "5.5.3", "too many recipients for one message: the server takes "
	  "fewer; send it in parts" },
	{ "too many recipients", "too many recipients for one message: the "
	  "server takes fewer; send it in parts" },
	/* how much, how often */
	{ "5.4.5", "the provider's sending limit for the day is reached: "
	  "it takes more mail later (the outbox keeps it)" },
	{ "SubmissionQuotaExceeded", "the sending limit of the Microsoft "
	  "365 mailbox is reached (messages per minute, recipients per "
	  "day): it takes more mail later (the outbox keeps it)" },
	{ "5.7.708", "Microsoft refuses mail from this account for now "
	  "(its traffic looked unusual): an administrator can see why" },
	{ "too much mail", "the server's limit on how much mail may come "
	  "this fast is reached: it takes more later (the outbox keeps "
	  "it)" },
	{ "rate limit", "the server's limit on how much mail may come this "
	  "fast is reached: it takes more later (the outbox keeps it)" },
	/* the login */
	{ "5.7.9", "the provider wants an app password (or OAuth2 sign-in, "
	  "auth = oauth2) instead of the account's password" },
	{ "Application-specific password", "the provider wants an app "
	  "password (or OAuth2 sign-in, auth = oauth2) instead of the "
	  "account's password" },
	{ "SmtpClientAuthentication is disabled", "SMTP AUTH is switched "
	  "off for this Microsoft 365 organisation or mailbox: an "
	  "administrator must allow it" },
	{ "5.7.139", "Microsoft 365 refused the login (SMTP AUTH switched "
	  "off, or a security default): an administrator must allow it" },
	{ "5.7.57", "Microsoft 365 takes mail only after a login: the "
	  "account's login was not accepted for sending" },
};

/* Is c part of a number ("10.5.3.4" holds no 5.3.4)? */
static int
smtp_words_numeric(char c)
{
	return (c >= '0' && c <= '9') || c == '.';
}

/* Does reply hold mark, a status code standing alone? */
static int
smtp_words_has(const char *reply, size_t len, const char *mark)
{
	size_t		 n = strlen(mark);
	const char	*p;
	int		 code = mark[0] >= '0' && mark[0] <= '9';

	for (p = reply; p + n <= reply + len; p++) {
		if (strncasecmp(p, mark, n) != 0)
			continue;
		if (!code || ((p == reply || !smtp_words_numeric(p[-1])) &&
		    !(p[n] >= '0' && p[n] <= '9') &&
		    !(p[n] == '.' && p[n + 1] >= '0' && p[n + 1] <= '9')))
			return 1;
	}
	return 0;
}

const char *
smtp_words_explain(const char *reply)
{
	size_t	i, len;

	if (reply == NULL)
		return NULL;
	len = strlen(reply);
	for (i = 0; i < sizeof smtp_words_table / sizeof smtp_words_table[0];
	    i++)
		if (smtp_words_has(reply, len, smtp_words_table[i].mark))
			return smtp_words_table[i].sentence;
	return NULL;
}
