/*
 * test-config.c: the configuration parser, on files written here.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tap.h"

static char	path[] = "/tmp/steed-config-XXXXXX";

static size_t	textlen;	/* if set, the length of the next text */

static struct config *
load(const char *text, char **cause)
{
	FILE	*f;

	f = fopen(path, "w");
	fwrite(text, 1, textlen ? textlen : strlen(text), f);
	textlen = 0;
	fclose(f);
	chmod(path, 0600);
	*cause = NULL;
	return config_load(path, cause);
}

/* The error for text must be "path:LINE: ..." and contain want. */
static void
bad(const char *text, int line, const char *want)
{
	struct config	*cf;
	char		*cause, prefix[128];

	cf = load(text, &cause);
	snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
	TAP_OK(cf == NULL && cause != NULL &&
	    strncmp(cause, prefix, strlen(prefix)) == 0 &&
	    strstr(cause, want) != NULL, "error \"%s\" at line %d", want, line);
	if (cf == NULL && cause != NULL &&
	    (strncmp(cause, prefix, strlen(prefix)) != 0 ||
	    strstr(cause, want) == NULL))
		printf("#   got: %s\n", cause);
	config_free(cf);
	free(cause);
}

#define ACCT "[account a]\naddress = a@b.example\n" \
    "imap = imaps://imap.b.example\nsmtp = smtp://smtp.b.example\n"

int
main(void)
{
	struct config	*cf;
	struct account	*a;
	char		*cause;
	int		 fd;

	if ((fd = mkstemp(path)) == -1)
		return 1;
	close(fd);

	cf = load("# comment\n\n"
	    "default-account = work\n"
	    "[account home]\n"
	    "  name = \"  Alice Q. \\\"Liddell\\\" \"\n"
	    "address = alice@steed.test\n"
	    "imap = imap://[::1]:1143\n"
	    "smtp = smtps://smtp.steed.test\n"
	    "password = p#ss = word\r\n"
	    "[account work]\n"
	    "address = alice@work.example\n"
	    "imap = imaps://imap.work.example:10993\n"
	    "smtp = smtp://smtp.work.example\n"
	    "user = alice\n"
	    "cert-fingerprint = AB:cd:" "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789ab\n", &cause);
	TAP_OK(cf != NULL, "valid file loads%s%s", cause ? ": " : "",
	    cause ? cause : "");
	if (cf == NULL)
		return TAP_DONE();
	TAP_OK(cf->naccounts == 2, "two accounts");
	a = cf->accounts;
	TAP_STR(a->name, "  Alice Q. \"Liddell\" ", "quoted value unescaped");
	TAP_STR(a->password, "p#ss = word", "unquoted value keeps # and =, "
	    "CR stripped");
	TAP_STR(a->user, "alice@steed.test", "user defaults to address");
	TAP_OK(a->imap.tls == CONFIG_TLS_STARTTLS && a->imap.port == 1143,
	    "imap:// is STARTTLS, port given");
	TAP_STR(a->imap.host, "::1", "IPv6 literal host");
	TAP_OK(a->smtp.tls == CONFIG_TLS_IMPLICIT && a->smtp.port == 465,
	    "smtps:// defaults to 465");
	a = config_account(cf, NULL, &cause);
	TAP_OK(a != NULL && strcmp(a->id, "work") == 0,
	    "default-account selects work");
	TAP_OK(a != NULL && a->smtp.port == 587 && a->imap.port == 10993,
	    "smtp:// defaults to 587");
	TAP_STR(a ? a->cert_fingerprint : NULL, "abcd0123456789abcdef"
	    "0123456789abcdef0123456789abcdef0123456789ab",
	    "fingerprint normalised");
	TAP_OK(config_account(cf, "nope", &cause) == NULL &&
	    strstr(cause, "nope") != NULL, "unknown -A account refused");
	free(cause);
	config_free(cf);

	bad("foo = bar\n", 1, "unknown setting \"foo\"");
	bad("\n" ACCT "colour = red\n", 6, "unknown setting \"colour\"");
	bad("name = x\n", 1, "belongs in an [account NAME] section");
	bad(ACCT "default-account = a\n", 5, "is a global setting");
	bad(ACCT "address = c@d.example\n", 5, "set twice");
	bad("[account a]\naddress = a@b.example\nimap = imaps://x\n", 1,
	    "has no \"smtp\"");
	bad("[account a]\naddress = not-an-address\n", 2, "not a mail address");
	bad("[account a]\nimap = http://x\n", 2, "imaps:// or imap://");
	bad("[account a]\nimap = imaps://user@x\n", 2, "only scheme://host");
	bad("[account a]\nimap = imaps://x:99999\n", 2, "bad port");
	bad("[account a]\nimap = imaps://x:\n", 2, "bad port");
	bad("[account a]\nsmtp = smtps://\n", 2, "no host name");
	bad("[account a]\ncert-fingerprint = abcd\n", 2, "64 hex digits");
	bad("[account a]\nname = \"open\n", 2, "missing closing quote");
	bad("[account a]\nname = \"x\" y\n", 2, "text after closing quote");
	bad("[account a]\nname = a\x1b[31m\n", 2, "control characters");
	bad("[acount a]\n", 1, "unknown section");
	bad("[account a/b]\n", 1, "bad account name");
	bad(ACCT ACCT, 5, "defined twice");
	bad(ACCT "password = x\npassword-command = y\n", 1, "keep one");
	bad("default-account = zz\n" ACCT, 0, "no account named zz");
	bad("just words\n", 1, "expected \"key = value\"");
	textlen = sizeof "[account a]\nname = a\0b\n" - 1;
	bad("[account a]\nname = a\0b\n", 2, "NUL");
	bad("[account a]\nname =\n", 2, "empty value");

	cf = load("bind = index j previous-entry\n"
	    "bind = \"  pager <Space> noop\"\n"
	    "bind = whatever the interface makes of it\n" ACCT, &cause);
	TAP_OK(cf != NULL && cf->nbinds == 3 &&
	    strcmp(cf->binds[0], "index j previous-entry") == 0 &&
	    strcmp(cf->binds[1], "  pager <Space> noop") == 0 &&
	    strcmp(cf->binds[2], "whatever the interface makes of it") == 0,
	    "bind lines are kept in order, unchecked");
	config_free(cf);
	bad("bind = index j down\n" ACCT "bind = index k up\n", 6,
	    "global setting");
	bad("bind =\n", 1, "empty value");
	bad("bind = index \x1b j down\n", 1, "control characters");

	cf = load(ACCT "password = secret\n", &cause);
	chmod(path, 0644);
	config_free(cf);
	cf = config_load(path, &cause);
	TAP_OK(cf != NULL && cf->nwarnings == 1 &&
	    strstr(cf->warnings[0], "chmod 600") != NULL,
	    "password in a world-readable file is warned about");
	config_free(cf);

	cf = load("dns-wait = 36h\n" ACCT, &cause);
	TAP_OK(cf != NULL && config_dns_wait(cf) == 36 * 3600,
	    "dns-wait takes hours");
	config_free(cf);
	cf = load(ACCT, &cause);
	TAP_OK(cf != NULL && config_dns_wait(cf) == 2 * 24 * 3600,
	    "dns-wait is two days unless set");
	config_free(cf);
	{
		long long	 secs = 0;
		char		*why = NULL;

		TAP_OK(config_duration("90", &secs, &why) == 0 && secs == 90 &&
		    config_duration("30m", &secs, &why) == 0 && secs == 1800 &&
		    config_duration("2d", &secs, &why) == 0 &&
		    secs == 2 * 86400, "durations: seconds, m, d");
		TAP_OK(config_duration("0", &secs, &why) == -1, "0 is no "
		    "duration");
		free(why);
		why = NULL;
		TAP_OK(config_duration("3w", &secs, &why) == -1, "no weeks");
		free(why);
		why = NULL;
		TAP_OK(config_duration("366d", &secs, &why) == -1,
		    "at most a year");
		free(why);
	}
	bad("dns-wait = soon\n" ACCT, 1, "expected a duration");

	cf = config_load("/nonexistent/steed/config", &cause);
	TAP_OK(cf == NULL && strstr(cause, "No such file") != NULL,
	    "missing explicit file is an error");
	free(cause);

	unlink(path);
	return TAP_DONE();
}
