/*
 * test-imap-pre.c: what an IMAP server says before login, read by
 * steedmail's own code. The line parser (imap-resp.c) on every
 * resp-text-code of RFC 3501 and RFC 9051, on the RFCs' own example
 * greetings and answers, and on what a lying server sends (the BADCHARSET
 * greeting that crashed libetpan's parser among them); then the dialogue
 * (imap-pre.c) over a socket pair: the server's lines written in advance,
 * the client's commands read back to check the tags, the quoting and the
 * literal of a LOGIN.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libetpan/libetpan.h>

#include "imap-pre.h"
#include "imap-resp.h"
#include "tap.h"

/* Does the line parse? */
static int
good(const char *line)
{
	struct imap_resp	 r;
	char			*why = NULL;
	int			 rc;

	rc = imap_resp_parse(line, strlen(line), &r, &why);
	imap_resp_clear(&r);
	if (rc == -1) {
		printf("# %s: %s\n", line, why);
		free(why);
	}
	return rc == 0;
}

static void
parser(void)
{
	struct imap_resp	 r;
	char			*why = NULL;
	const char		*ok[] = {
		/* RFC 3501's and RFC 9051's own examples */
		"* OK IMAP4rev1 Service Ready",
		"* OK [CAPABILITY IMAP4rev2 STARTTLS AUTH=GSSAPI] Server ready",
		"* PREAUTH IMAP4rev1 server logged in as Smith",
		"* BYE Autologout; idle for too long",
		"* CAPABILITY IMAP4rev1 STARTTLS AUTH=GSSAPI LOGINDISABLED",
		"abcd OK CAPABILITY completed",
		"a002 OK Begin TLS negotiation now",
		"a001 OK LOGIN completed",
		"a001 NO [AUTHENTICATIONFAILED] Authentication failed",
		"+ ",
		"+",
		"+ YGgGCSqGSIb3EgECAgIAb1kwV6ADAgEFoQMCAQ+iSzBJoAMCAQGiQgRA",
		"* OK [ALERT] System shutdown in 10 minutes",
		"* OK [UNSEEN 12] Message 12 is first unseen",
		"* OK [UIDVALIDITY 3857529045] UIDs valid",
		"* OK [UIDNEXT 4392] Predicted next UID",
		"* OK [PERMANENTFLAGS (\\Deleted \\Seen \\*)] Limited",
		"* OK [PERMANENTFLAGS ()] No permanent flags permitted",
		"A142 OK [READ-WRITE] SELECT completed",
		"A932 OK [READ-ONLY] EXAMINE completed",
		"A003 NO [TRYCREATE] No such mailbox",
		"A1 NO [BADCHARSET] charset not known",
		"A1 NO [BADCHARSET (UTF-8 \"US-ASCII\")] charset not known",
		"* NO [PARSE] a header could not be read",
		"A003 OK [APPENDUID 38505 3955] APPEND completed",
		"A004 OK [COPYUID 38505 304,319:320 3956:3958] Done",
		"A1 NO [UIDNOTSTICKY] Non-persistent UIDs",
		"A1 OK [CLOSED] Previous mailbox is now closed",
		"A1 NO [UNAVAILABLE] Database down",
		"A1 NO [AUTHORIZATIONFAILED] No such authorization-ID",
		"A1 NO [EXPIRED] That password isn't valid any more",
		"A1 NO [PRIVACYREQUIRED] Connection is not private",
		"A1 NO [CONTACTADMIN] You need to talk to the admin",
		"A1 NO [NOPERM] Access denied",
		"A1 NO [INUSE] Mailbox in use",
		"A1 NO [EXPUNGEISSUED] Someone else expunged",
		"A1 NO [CORRUPTION] Cannot open mailbox",
		"A1 NO [SERVERBUG] This should not happen",
		"A1 NO [CLIENTBUG] Message deleted 3 times",
		"A1 NO [CANNOT] Cannot do that",
		"A1 NO [LIMIT] At most 32 flags",
		"A1 NO [OVERQUOTA] Sorry",
		"A1 NO [ALREADYEXISTS] Mailbox exists",
		"A1 NO [NONEXISTENT] No such mailbox",
		"A1 OK [NOTSAVED] Search done",
		"A1 OK [HASCHILDREN] Has children",
		"A1 NO [UNKNOWN-CTE] Cannot decode",
		"* OK [HIGHESTMODSEQ 715194045007] Highest",
		"* OK [X-EXTENSION some words] unknown codes are skipped",
		"* OK",
		"A1 OK",
		"* 3 EXISTS",
		"* ENABLED CONDSTORE",
		"* ID (\"name\" \"Dovecot\")",
		"* OK Dovecot ready. \xc3\xa4 8-bit text is text",
	};
	const char		*bad[] = {
		"* OK [BADCHARSET (\\HasNoChildren) \"/\" INBOX]",
		"\a* PREAUTH [BADCHARSET (\\HasNoChildren) \"/\" INBOX]",
		"* OK [BADCHARSET ()] empty",
		"* OK [BADCHARSET (UTF-8] unclosed",
		"* OK [CAPABILITY IMAP4rev1 (x)] list in a list",
		"* OK [UIDNEXT] no number",
		"* OK [UIDNEXT 0] zero",
		"* OK [UIDVALIDITY 99999999999] too large",
		"* OK [PERMANENTFLAGS \\Seen] no list",
		"* OK [ALERT no end",
		"* OK [ALERT]no space",
		"* OK []",
		"* OK [ALERT ]",
		"A1 BYE tagged bye",
		"A1 PREAUTH tagged preauth",
		"A1 FOO what",
		"* CAPABILITY IMAP4rev1 (x)",
		"* LIST () \"/\" {5}",
		"* ID {12+}",
		"",
		"*",
		"(",
		"A1",
		"A1OK",
		"* OK [ALERT] a \"quoted\" \\ text is fine, but NUL is not",
	};
	size_t			 i;
	char			 nul[] = "* OK a\0b";

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
		TAP_OK(good(ok[i]), "parses: %s", ok[i]);
	for (i = 0; i < sizeof bad / sizeof bad[0] - 1; i++)
		TAP_OK(!good(bad[i]), "refused: %s", bad[i][0] == '\a' ?
		    "BEL* PREAUTH [BADCHARSET ...]" : bad[i]);
	TAP_OK(good(bad[i]), "a quote and a backslash in text are text");
	TAP_OK(imap_resp_parse(nul, sizeof nul - 1, &r, &why) == -1,
	    "a NUL in a line is refused");
	imap_resp_clear(&r);
	free(why);

	TAP_OK(imap_resp_parse(ok[1], strlen(ok[1]), &r, &why) == 0 &&
	    r.kind == IMAP_RESP_COND && r.cond == IMAP_RESP_OK && !r.tagged &&
	    strcmp(r.code, "CAPABILITY") == 0 && r.ncaps == 3 &&
	    strcmp(r.caps[0], "IMAP4REV2") == 0 &&
	    strcmp(r.caps[2], "AUTH=GSSAPI") == 0, "greeting capabilities");
	imap_resp_clear(&r);
	TAP_OK(imap_resp_parse(ok[8], strlen(ok[8]), &r, &why) == 0 &&
	    r.tagged && strcmp(r.tag, "a001") == 0 && r.cond == IMAP_RESP_NO &&
	    strcmp(r.code, "AUTHENTICATIONFAILED") == 0 &&
	    strncmp(r.text, "[AUTHENTICATIONFAILED] Auth", 27) == 0,
	    "tagged NO: tag, code and the text as shown");
	imap_resp_clear(&r);
	why = NULL;
	imap_resp_parse(bad[0], strlen(bad[0]), &r, &why);
	imap_resp_clear(&r);
	TAP_STR(why, "a BADCHARSET code that is not a list of charsets",
	    "what is wrong with the BADCHARSET greeting");
	free(why);
}

/*
 * A dialogue: the server's lines written to one end of a socket pair
 * beforehand, imap-pre on the other. Returns the pre and keeps the
 * server's end in *fd.
 */
static struct imap_pre *
talk(const char *server, int *fd)
{
	int		 sv[2];
	mailstream	*s;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		abort();
	if (write(sv[1], server, strlen(server)) != (ssize_t)strlen(server))
		abort();
	shutdown(sv[1], SHUT_WR);
	if ((s = mailstream_socket_open_timeout(sv[0], 5)) == NULL)
		abort();
	*fd = sv[1];
	return imap_pre_new(s, "imap.example.org");
}

/* What the client wrote, after the pre is freed. */
static char *
said(int fd)
{
	static char	buf[4096];
	ssize_t		n, got = 0;

	while ((n = read(fd, buf + got, sizeof buf - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return buf;
}

static void
dialogue(void)
{
	struct imap_pre	*p;
	mailimap	*imap;
	char		*cause = NULL;
	int		 fd, rc;

	p = talk("* OK [BADCHARSET (\\HasNoChildren) \"/\" INBOX]\r\n", &fd);
	TAP_OK(imap_pre_greeting(p, &cause) == -1, "BADCHARSET greeting: "
	    "refused");
	TAP_STR(cause, "the server imap.example.org sent a malformed "
	    "greeting: a BADCHARSET code that is not a list of charsets",
	    "... in these words");
	free(cause);
	cause = NULL;
	imap_pre_free(p);
	TAP_STR(said(fd), "", "... and nothing was sent");

	p = talk("* OK hi\r\n1 OK [BADCHARSET (\\HasNoChildren) \"/\" INBOX] "
	    "x\r\n", &fd);
	TAP_OK(imap_pre_greeting(p, &cause) == 0, "plain greeting");
	TAP_OK(imap_pre_capability(p, &cause) == -1, "the same code in a "
	    "tagged answer: refused");
	TAP_STR(cause, "the server imap.example.org sent a malformed answer "
	    "to CAPABILITY: a BADCHARSET code that is not a list of charsets",
	    "... in these words");
	free(cause);
	cause = NULL;
	imap_pre_free(p);
	said(fd);

	p = talk("* BYE [UNAVAILABLE] too many connections\r\n", &fd);
	TAP_OK(imap_pre_greeting(p, &cause) == -1, "BYE greeting");
	TAP_STR(cause, "the server imap.example.org refused the connection: "
	    "[UNAVAILABLE] too many connections", "... says the server's "
	    "words");
	free(cause);
	cause = NULL;
	imap_pre_free(p);
	said(fd);

	p = talk("* OK hi\r\n", &fd);
	imap_pre_greeting(p, &cause);
	TAP_OK(imap_pre_capability(p, &cause) == -1, "closed after the "
	    "greeting");
	TAP_STR(cause, "connection to imap.example.org lost during "
	    "CAPABILITY (closed, or no answer in time)", "... said as lost");
	free(cause);
	cause = NULL;
	imap_pre_free(p);
	said(fd);

	p = talk("* OK ready\r\n* CAPABILITY IMAP4rev1\r\n1 OK done\r\n", &fd);
	imap_pre_greeting(p, &cause);
	imap_pre_capability(p, &cause);
	TAP_OK(imap_pre_offers(p, "imap4rev1") && !imap_pre_offers(p,
	    "STARTTLS"), "capabilities asked for and read");
	imap_pre_free(p);
	TAP_STR(said(fd), "1 CAPABILITY\r\n", "CAPABILITY with tag 1");

	p = talk("* OK [CAPABILITY IMAP4rev1 STARTTLS] hi\r\n"
	    "1 OK begin TLS\r\n", &fd);
	imap_pre_greeting(p, &cause);
	TAP_OK(imap_pre_capability(p, &cause) == 0 && imap_pre_offers(p,
	    "STARTTLS"), "capabilities from the greeting, not asked");
	TAP_OK(imap_pre_starttls(p, &cause) == IMAP_PRE_OK, "STARTTLS agreed");
	imap_pre_forget(p);
	TAP_OK(!imap_pre_offers(p, "STARTTLS"), "capabilities forgotten");
	imap_pre_free(p);
	TAP_STR(said(fd), "1 STARTTLS\r\n", "STARTTLS sent, nothing else");

	/* LOGIN with a quoted user and a password as a literal */
	p = talk("* OK [CAPABILITY IMAP4rev1] hi\r\n+ go on\r\n"
	    "* OK [ALERT] expires soon\r\n"
	    "1 OK [CAPABILITY IMAP4rev1 MOVE AUTH=PLAIN] welcome\r\n", &fd);
	imap_pre_greeting(p, &cause);
	rc = imap_pre_login(p, "al\"ice", "p\xc3\xa4ss", &cause);
	TAP_OK(rc == IMAP_PRE_OK, "LOGIN with a literal");
	TAP_OK(imap_pre_offers(p, "MOVE"), "the capabilities of the answer");
	imap = imap_pre_handoff(p, &cause);
	TAP_OK(imap->imap_state == MAILIMAP_STATE_AUTHENTICATED &&
	    imap->imap_tag == 1, "handed over logged in, after tag 1");
	TAP_OK(mailimap_has_extension(imap, "MOVE") &&
	    mailimap_has_authentication(imap, "PLAIN"),
	    "libetpan sees the capabilities");
	mailstream_close(imap->imap_stream);
	imap->imap_stream = NULL;
	mailimap_free(imap);
	TAP_STR(said(fd), "1 LOGIN \"al\\\"ice\" {5}\r\np\xc3\xa4ss\r\n",
	    "LOGIN: the user quoted, the password a literal");

	/* AUTHENTICATE PLAIN refused */
	p = talk("* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] hi\r\n+ \r\n"
	    "1 NO [AUTHENTICATIONFAILED] Authentication failed.\r\n", &fd);
	imap_pre_greeting(p, &cause);
	TAP_OK(imap_pre_login(p, "alice", "pw", &cause) == IMAP_PRE_NO,
	    "AUTHENTICATE PLAIN refused");
	TAP_STR(imap_pre_words(p), "[AUTHENTICATIONFAILED] Authentication "
	    "failed.", "... with the server's words");
	imap_pre_free(p);
	TAP_STR(said(fd), "1 AUTHENTICATE PLAIN\r\nAGFsaWNlAHB3\r\n",
	    "AUTHENTICATE PLAIN, the credentials after the +");

	/* OAuth2: OAUTHBEARER on the command line (SASL-IR) */
	p = talk("* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=OAUTHBEARER] hi\r\n"
	    "1 OK [CAPABILITY IMAP4rev1 MOVE] welcome\r\n", &fd);
	imap_pre_greeting(p, &cause);
	rc = imap_pre_auth_oauth(p, "OAUTHBEARER", "al,ice", "imap.example",
	    993, "tok", &cause);
	TAP_OK(rc == IMAP_PRE_OK && imap_pre_offers(p, "MOVE"),
	    "OAUTHBEARER with SASL-IR: logged in, the answer's capabilities");
	imap_pre_free(p);
	TAP_STR(said(fd), "1 AUTHENTICATE OAUTHBEARER bixhPWFsPTJDaWNlLAFob3N0"
	    "PWltYXAuZXhhbXBsZQFwb3J0PTk5MwFhdXRoPUJlYXJlciB0b2sBAQ==\r\n",
	    "OAUTHBEARER: the GS2 header (',' escaped), host, port, token");

	/* refused: the server's JSON, the dummy response, then NO */
	p = talk("* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=OAUTHBEARER] hi\r\n"
	    "+ eyJzdGF0dXMiOiJpbnZhbGlkX3Rva2VuIiwic2NvcGUiOiJtYWlsIn0=\r\n"
	    "1 NO [AUTHENTICATIONFAILED] Authentication failed.\r\n", &fd);
	imap_pre_greeting(p, &cause);
	rc = imap_pre_auth_oauth(p, "OAUTHBEARER", "al,ice", "imap.example",
	    993, "tok", &cause);
	TAP_OK(rc == IMAP_PRE_NO, "OAUTHBEARER refused");
	TAP_STR(imap_pre_words(p), "[AUTHENTICATIONFAILED] Authentication "
	    "failed. (the server says of the token: status invalid_token, "
	    "scope mail)", "... with the server's words and its JSON's");
	imap_pre_free(p);
	{
		char	*out = said(fd);

		TAP_OK(strlen(out) > 6 && strcmp(out + strlen(out) - 6,
		    "AQ==\r\n") == 0, "the dummy response ^A after the "
		    "challenge");
	}

	/* XOAUTH2 without SASL-IR: the response after the "+" */
	p = talk("* OK [CAPABILITY IMAP4rev1 AUTH=XOAUTH2] hi\r\n+ \r\n"
	    "1 OK [CAPABILITY IMAP4rev1] welcome\r\n", &fd);
	imap_pre_greeting(p, &cause);
	rc = imap_pre_auth_oauth(p, "XOAUTH2", "alice", "imap.example", 993,
	    "tok", &cause);
	TAP_OK(rc == IMAP_PRE_OK, "XOAUTH2 without SASL-IR: logged in");
	imap_pre_free(p);
	TAP_STR(said(fd), "1 AUTHENTICATE XOAUTH2\r\n"
	    "dXNlcj1hbGljZQFhdXRoPUJlYXJlciB0b2sBAQ==\r\n",
	    "XOAUTH2: user and token after the +");

	/* a server whose error is not JSON: its words alone */
	p = talk("* OK [CAPABILITY IMAP4rev1 SASL-IR] hi\r\n+ bm90IGpzb24=\r\n"
	    "1 NO no\r\n", &fd);
	imap_pre_greeting(p, &cause);
	rc = imap_pre_auth_oauth(p, "OAUTHBEARER", "a", "h", 1, "t", &cause);
	TAP_OK(rc == IMAP_PRE_NO, "a challenge that is not JSON: refused");
	TAP_STR(imap_pre_words(p), "no", "... with the server's words alone");
	imap_pre_free(p);
	said(fd);

	/* an answer with another tag, an endless run of untagged lines */
	p = talk("* OK hi\r\n7 OK done\r\n", &fd);
	imap_pre_greeting(p, &cause);
	TAP_OK(imap_pre_capability(p, &cause) == -1 && strstr(cause,
	    "malformed answer to CAPABILITY: an answer to a command that was "
	    "not sent") != NULL, "an answer with a tag never sent");
	free(cause);
	cause = NULL;
	imap_pre_free(p);
	said(fd);

	{
		char	many[100 * 16 + 64];
		int	i;

		strcpy(many, "* OK hi\r\n");
		for (i = 0; i < 100; i++)
			strcat(many, "* 1 EXISTS\r\n");
		p = talk(many, &fd);
		imap_pre_greeting(p, &cause);
		TAP_OK(imap_pre_capability(p, &cause) == -1 && strstr(cause,
		    "more than 64 lines") != NULL, "no answer after 64 lines");
		free(cause);
		cause = NULL;
		imap_pre_free(p);
		said(fd);
	}
	{
		static char	long_line[20000];

		memset(long_line, 'x', sizeof long_line - 3);
		memcpy(long_line, "* OK ", 5);
		strcpy(long_line + sizeof long_line - 3, "\r\n");
		p = talk(long_line, &fd);
		TAP_OK(imap_pre_greeting(p, &cause) == -1 && strstr(cause,
		    "malformed greeting: a line longer than 16384 bytes") !=
		    NULL, "a greeting line too long");
		free(cause);
		cause = NULL;
		imap_pre_free(p);
		said(fd);
	}
}

static int
status_ok(const char *line)
{
	char	*why = NULL;
	int	 rc;

	rc = imap_resp_check_status(line, strlen(line), NULL, &why);
	free(why);
	return rc == 0;
}

/* The check of status lines after login, under libetpan's parser. */
static void
status(void)
{
	TAP_OK(!status_ok("1 OK [PERMANENTFLAGS ("), "after login: "
	    "\"[PERMANENTFLAGS (\" at a line's end (libetpan's parser dies "
	    "on it) is refused");
	TAP_OK(!status_ok("* OK [BADCHARSET (\\HasNoChildren) \"/\" INBOX]"),
	    "after login: the BADCHARSET greeting line is refused");
	TAP_OK(!status_ok("A7 no [UIDNEXT x] y"), "a status word in "
	    "lower case is still checked");
	TAP_OK(status_ok("* OK [PERMANENTFLAGS (\\Answered \\Flagged "
	    "\\Deleted \\Seen \\Draft $Forwarded \\*)] Flags permitted."),
	    "Dovecot's PERMANENTFLAGS passes");
	TAP_OK(status_ok("* OK [HIGHESTMODSEQ 4294967300] Highest"),
	    "a 64-bit HIGHESTMODSEQ passes (any code without a grammar)");
	TAP_OK(status_ok("A4 OK [COPYUID 38505 304,319:320 3956:3958] Done"),
	    "COPYUID passes");
	TAP_OK(status_ok("* 12 FETCH (FLAGS (\\Seen) UID 4)"), "a FETCH line "
	    "is not a status line: not checked here");
	TAP_OK(status_ok("* LIST (\\Noselect) \"/\" OK"), "nor a LIST line");
	TAP_OK(status_ok("+ OK [idling") && status_ok("+ idling") &&
	    status_ok("+") && status_ok("+ YGgGCSqGSIb3EgECAgIAb1kwV6ADAgEF"),
	    "a continuation request without a code passes");
	TAP_OK(!status_ok("+[PERMANENTFLAGS (") && !status_ok("+ [ALERT]"),
	    "one with a code is held to its grammar, as libetpan reads one "
	    "there too");
	TAP_OK(status_ok("+ [ALERT] go on"), "... and passes when it keeps it");
	TAP_OK(!status_ok("\t+[PERMANENTFLAGS (") && !status_ok(" + x"),
	    "a continuation request after blanks is refused (libetpan skips "
	    "them and reads its code)");
	TAP_OK(!status_ok("4 OK [PARSE]") && !status_ok("* OK [ALERT] ") &&
	    !status_ok("2 OK [BADCHARSET (\"\")] "), "after login: a code with "
	    "no text after it is refused (libetpan reads the text through a "
	    "NULL)");
	TAP_OK(!status_ok("4 OK      [PERMANENTFLAGS ( x") &&
	    !status_ok("4 OK \t[PERMANENTFLAGS (\\Seen x"), "a code after "
	    "several blanks is still held to its grammar (libetpan skips "
	    "them)");
	TAP_OK(!status_ok("4 OK [PARSE]  ") && !status_ok("4 OK [PARSE] \t"),
	    "nor with only blanks after it");
	TAP_OK(status_ok("4 OK [PARSE] x") && status_ok("4 OK") &&
	    status_ok("4 OK "), "a code with text, and no code, pass");
}

int
main(void)
{
	parser();
	status();
	dialogue();
	return TAP_DONE();
}
