/*
 * test-smtp-words.c: the refusals of the large providers in words
 * (smtp_words_explain()), on replies as Postfix, Gmail and Exchange
 * Online word them; codes inside other numbers are not taken; and the
 * SASL pieces of an OAuth2 login (sasl.h): OAUTHBEARER's and XOAUTH2's
 * messages, a server's error challenge.
 */
#include <stdlib.h>
#include <string.h>

#include "sasl.h"
#include "smtp-words.h"
#include "tap.h"
#include "xmalloc.h"

/* Does the sentence for reply hold want (NULL: no sentence)? */
static int
says(const char *reply, const char *want)
{
	const char	*s = smtp_words_explain(reply);

	if (want == NULL)
		return s == NULL;
	return s != NULL && strstr(s, want) != NULL;
}

int
main(void)
{
	char	*s;

	TAP_OK(says("552 5.3.4 Error: message file too big", "larger than "
	    "the server takes"), "Postfix: a message too big");
	TAP_OK(says("552-5.2.3 Your message exceeded Google's message size "
	    "limits.", "larger than"), "Gmail: a message too big");
	TAP_OK(says("452 4.5.3 Error: too many recipients", "too many "
	    "recipients"), "Postfix: too many recipients");
	TAP_OK(says("550-5.4.5 Daily user sending limit exceeded.",
	    "limit for the day"), "Gmail: the daily sending limit");
	TAP_OK(says("554 5.2.0 STOREDRV.Submission.Exception:"
	    "SubmissionQuotaExceededException; Failed to process message",
	    "Microsoft 365"), "Exchange Online: the submission quota");
	TAP_OK(says("450 4.7.1 Error: too much mail from 127.0.0.1",
	    "how much mail may come this fast"), "Postfix: a rate limit");
	TAP_OK(says("534-5.7.9 Application-specific password required.",
	    "app password"), "Gmail: an app password wanted");
	TAP_OK(says("535 5.7.139 Authentication unsuccessful, "
	    "SmtpClientAuthentication is disabled for the Tenant.",
	    "SMTP AUTH is switched off"), "Exchange Online: SMTP AUTH off");
	TAP_OK(says("[ALERT] Application-specific password required: "
	    "https://support.google.com/accounts/answer/185833 (Failure)",
	    "app password"), "Gmail's IMAP: an app password wanted");
	TAP_OK(says("550 5.1.1 <x@example.org>: Recipient address rejected",
	    NULL), "a refusal not in the table: no sentence");
	TAP_OK(says("451 4.3.0 Error: queue file write error for 10.5.3.4",
	    NULL), "a code inside an address is not a code");
	TAP_OK(says("552 5.3.4.", "larger"), "a code at the end of a "
	    "sentence is one");
	TAP_OK(says(NULL, NULL), "no reply: no sentence");

	s = sasl_oauthbearer("a,b=c", "imap.example", 993, "T");
	TAP_STR(s, "bixhPWE9MkNiPTNEYywBaG9zdD1pbWFwLmV4YW1wbGUBcG9ydD05OTMB"
	    "YXV0aD1CZWFyZXIgVAEB", "OAUTHBEARER: ',' and '=' escaped in "
	    "the name");
	free(s);
	s = sasl_xoauth2("alice@example.org", "T");
	TAP_STR(s, "dXNlcj1hbGljZUBleGFtcGxlLm9yZwFhdXRoPUJlYXJlciBUAQE=",
	    "XOAUTH2: user, token, two ^A");
	free(s);
	s = sasl_oauth_error("eyJzdGF0dXMiOiI0MDEiLCJzY2hlbWVzIjoiQmVhcmVyIn0=");
	TAP_STR(s, "status 401", "an error challenge: its status");
	free(s);
	s = sasl_oauth_error("eyJzdGF0dXMiOiJcdTAwMWJbMm0iLCJzY29wZSI6MX0=");
	TAP_OK(s != NULL && strchr(s, '\033') == NULL, "an escape in the "
	    "status is made safe; a scope that is not a string is left out");
	free(s);
	TAP_OK(sasl_oauth_error("bm90IGpzb24=") == NULL &&
	    sasl_oauth_error("!!!") == NULL && sasl_oauth_error("") == NULL,
	    "not JSON, not base64, nothing: no words");
	return TAP_DONE();
}
