/*
 * test-smtp-ehlo.c: the extensions and AUTH mechanisms an EHLO reply names
 * (smtp_session_extensions()), as Postfix, old servers and hostile ones
 * say them; and the words of a reply as the user sees them.
 */
#include <stdlib.h>

#include <libetpan/libetpan.h>

#include "smtp-session.h"
#include "tap.h"

static mailsmtp	smtp;

static void
ext(const char *reply)
{
	smtp.esmtp = smtp.auth = -1;
	smtp.smtp_max_msg_size = 1;
	smtp_session_extensions(&smtp, reply);
}

int
main(void)
{
	char	*w;

	ext("mail.steed.test\nPIPELINING\nSIZE 10240000\nVRFY\nETRN\n"
	    "STARTTLS\nAUTH PLAIN LOGIN\nENHANCEDSTATUSCODES\n8BITMIME\n"
	    "DSN\nSMTPUTF8\nCHUNKING");
	TAP_OK(smtp.esmtp == (MAILSMTP_ESMTP | MAILSMTP_ESMTP_PIPELINING |
	    MAILSMTP_ESMTP_SIZE | MAILSMTP_ESMTP_ETRN |
	    MAILSMTP_ESMTP_STARTTLS | MAILSMTP_ESMTP_8BITMIME |
	    MAILSMTP_ESMTP_DSN), "Postfix's extensions, each read");
	TAP_OK(smtp.auth == (MAILSMTP_AUTH_CHECKED | MAILSMTP_AUTH_PLAIN |
	    MAILSMTP_AUTH_LOGIN), "AUTH PLAIN LOGIN: both mechanisms");
	TAP_OK(smtp.smtp_max_msg_size == 10240000, "SIZE's limit");

	ext("smtp.office365.com\nSIZE 157286400\nAUTH LOGIN XOAUTH2");
	TAP_OK(smtp.auth == (MAILSMTP_AUTH_CHECKED | MAILSMTP_AUTH_LOGIN |
	    SMTP_SESSION_AUTH_XOAUTH2), "Exchange Online's AUTH LOGIN "
	    "XOAUTH2: XOAUTH2 noted beside libetpan's flags");
	ext("smtp.gmail.com\nAUTH LOGIN PLAIN XOAUTH2 PLAIN-CLIENTTOKEN "
	    "OAUTHBEARER XOAUTH");
	TAP_OK(smtp.auth == (MAILSMTP_AUTH_CHECKED | MAILSMTP_AUTH_LOGIN |
	    MAILSMTP_AUTH_PLAIN | SMTP_SESSION_AUTH_XOAUTH2 |
	    SMTP_SESSION_AUTH_OAUTHBEARER), "Gmail's: both OAuth2 mechanisms");

	ext("x\nAUTH=LOGIN");
	TAP_OK(smtp.auth == (MAILSMTP_AUTH_CHECKED | MAILSMTP_AUTH_LOGIN),
	    "AUTH=LOGIN, as old servers say it");
	ext("x\nauth\tcram-md5\tX-UNKNOWN\tplain ");
	TAP_OK(smtp.auth == (MAILSMTP_AUTH_CHECKED | MAILSMTP_AUTH_CRAM_MD5 |
	    MAILSMTP_AUTH_PLAIN), "tabs, lower case, an unknown mechanism: "
	    "the known ones read, and the reading ends");
	ext("x\nAUTH LOGY\xbe\xbe\t22YYYY");
	TAP_OK(smtp.auth == MAILSMTP_AUTH_CHECKED,
	    "an unknown mechanism before a tab (libetpan's reader never "
	    "ends there): nothing, and it ends");
	ext("x\nAUTH PLAINX LOGINS");
	TAP_OK(smtp.auth == MAILSMTP_AUTH_CHECKED,
	    "a mechanism is a whole word: PLAINX is not PLAIN");
	ext("x\nSTARTTLSX\nXSTARTTLS\n STARTTLS");
	TAP_OK(smtp.esmtp == MAILSMTP_ESMTP,
	    "an extension is a whole keyword at the start of its line");
	ext("mail.steed.test STARTTLS AUTH PLAIN");
	TAP_OK(smtp.esmtp == MAILSMTP_ESMTP &&
	    smtp.auth == MAILSMTP_AUTH_CHECKED,
	    "the greeting line names no extension");
	ext("x\nSIZE");
	TAP_OK((smtp.esmtp & MAILSMTP_ESMTP_SIZE) &&
	    smtp.smtp_max_msg_size == 0, "SIZE without a limit");
	ext("");
	TAP_OK(smtp.esmtp == MAILSMTP_ESMTP &&
	    smtp.auth == MAILSMTP_AUTH_CHECKED && smtp.smtp_max_msg_size == 0,
	    "an empty reply: what was known before is forgotten");

	w = smtp_session_words(550, "no\x1b[31m such\r\nuser");
	TAP_STR(w, "550 no^[[31m such  user",
	    "a reply's words: control bytes escaped, line ends made spaces");
	free(w);
	w = smtp_session_words(421, "");
	TAP_STR(w, "421 (no reason given)", "a reply without words");
	free(w);
	return TAP_DONE();
}
