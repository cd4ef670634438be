/*
 * test-hooks.c: the configuration's commands (command.h): %-sequences
 * quoted for the shell, a command started and left, a command's output
 * read with its bounds; query-command's output (addrbook-query.h); and
 * `source FILE` in the configuration.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addrbook-query.h"
#include "buf.h"
#include "command.h"
#include "config.h"
#include "tap.h"

static char	dir[] = "/tmp/steed-hooks-XXXXXX";

static void
put(const char *name, const char *text, int mode)
{
	char	 path[256];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static int
wait_file(const char *path, int secs)
{
	struct timespec	ts = { 0, 50 * 1000 * 1000 };
	int		i;

	for (i = 0; i < secs * 20; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

#define ACCT "[account a]\naddress = a@b.example\n" \
    "imap = imaps://imap.b.example\nsmtp = smtp://smtp.b.example\n"

int
main(void)
{
	struct command_var	 v[2] = { { 'f', "it's; rm -rf ~" },
				    { 'n', "3" } };
	struct config		*cf;
	struct buf		 b;
	char			*s, *cause = NULL, path[256], *env[1];
	FILE			*f;
	int			 rc;

	if (mkdtemp(dir) == NULL)
		return 1;

	s = command_expand("notify %f has %n (%x, 100%%)", v, 2);
	TAP_STR(s, "notify 'it'\\''s; rm -rf ~' has '3' (%x, 100%)",
	    "values are one quoted word each; %% and unknown sequences");
	free(s);

	/* the shell reads the quoted word back as it was */
	snprintf(path, sizeof path, "%s/arg", dir);
	s = command_expand("printf '%%s' %f >", v, 2);
	buf_init(&b);
	{
		char	*cmd = NULL;

		cmd = malloc(strlen(s) + strlen(path) + 2);
		sprintf(cmd, "%s%s", s, path);
		rc = command_read(cmd, 100, 5, &b, &cause);
		free(cmd);
	}
	free(s);
	f = fopen(path, "r");
	{
		char	got[64] = "";

		if (f != NULL) {
			if (fgets(got, sizeof got, f) == NULL)
				got[0] = '\0';
			fclose(f);
		}
		TAP_STR(got, "it's; rm -rf ~", "the shell gets the value back");
	}

	buf_reset(&b);
	rc = command_read("printf 'one\\ttwo\\n'; exit 3", 100, 5, &b, &cause);
	TAP_OK(rc == 3 && b.len == 8 && memcmp(b.data, "one\ttwo\n", 8) == 0,
	    "output and exit status");
	buf_reset(&b);
	rc = command_read("yes | head -c 100000", 1000, 5, &b, &cause);
	TAP_OK(rc == 0 && b.len == 1000, "output kept to max, the rest read");
	buf_reset(&b);
	rc = command_read("sleep 30", 100, 1, &b, &cause);
	TAP_OK(rc == -1 && cause != NULL && strstr(cause, "within 1 s"),
	    "a command that does not end is stopped: %s", cause);
	free(cause);
	cause = NULL;
	buf_free(&b);

	snprintf(path, sizeof path, "%s/spawned", dir);
	env[0] = "STEED_NEW=7";
	{
		char	cmd[512];

		snprintf(cmd, sizeof cmd, "sleep 0.3; echo \"$STEED_NEW\" >%s",
		    path);
		rc = command_spawn(cmd, env, 1, &cause);
	}
	TAP_OK(rc == 0 && access(path, F_OK) == -1,
	    "command_spawn does not wait for the command");
	TAP_OK(wait_file(path, 5) == 0, "... which runs, with its environment");

	/* query-command: mutt's form, khard's and abook's */
	{
		static const char out[] =
		    "Searching 2 address books... 3 found\n"
		    "ann@one.test\tAnn One\thome\n"
		    "bob@two.test\r\n"
		    "not an address\tX\n"
		    "ANN@one.test\tAgain\n"
		    "carl@three.test\t\tfriend\n";
		struct addrbook_entry	*e;
		struct config		 qc;
		char			*msg;
		size_t			 n;
		int			 r;

		n = addrbook_query_parse(out, sizeof out - 1, &e, &msg);
		TAP_OK(n == 3 && msg != NULL && strcmp(msg,
		    "Searching 2 address books... 3 found") == 0,
		    "the first line is the message; bad and repeated "
		    "addresses are skipped");
		TAP_OK(n == 3 && strcmp(e[0].addr, "ann@one.test") == 0 &&
		    strcmp(e[0].name, "Ann One") == 0 &&
		    strcmp(e[0].other, "home") == 0 &&
		    strcmp(e[0].source, "query") == 0,
		    "address, name and the third column");
		TAP_OK(n == 3 && strcmp(e[1].addr, "bob@two.test") == 0 &&
		    e[1].name == NULL && e[2].name == NULL &&
		    strcmp(e[2].other, "friend") == 0,
		    "an address alone (CRLF too), an empty name");
		addrbook_free(e, n);
		free(msg);

		memset(&qc, 0, sizeof qc);
		qc.query_command = "printf 'found\\n%%s@q.test\\tQ\\n' %s";
		r = addrbook_query(&qc, "o'neil", &e, &msg, &cause);
		TAP_OK(r == 1 && strcmp(e[0].addr, "o'neil@q.test") == 0,
		    "%%s is what was typed, one word for the shell");
		addrbook_free(e, r > 0 ? (size_t)r : 0);
		free(msg);
		qc.query_command = "echo";
		r = addrbook_query(&qc, "x@y.test", &e, &msg, &cause);
		TAP_OK(r == 0 && msg != NULL && strcmp(msg, "x@y.test") == 0,
		    "without %%s the query goes after the command");
		free(msg);
		addrbook_free(e, 0);
		qc.query_command = "echo 'No matches'; exit 1";
		r = addrbook_query(&qc, "z", &e, &msg, &cause);
		TAP_OK(r == 0 && msg != NULL, "exit 1 with a message: none");
		free(msg);
		qc.query_command = "exit 2";
		r = addrbook_query(&qc, "z", &e, &msg, &cause);
		TAP_OK(r == -1 && cause != NULL && strstr(cause, "status 2"),
		    "a failure without a word is an error: %s", cause);
		free(cause);
		cause = NULL;
	}

	/* source */
	put("secrets", "password = s3cret\n", 0600);
	put("theme", "color indicator black cyan\ncolor = title white blue\n",
	    0644);
	snprintf(path, sizeof path, "%s/config", dir);
	{
		char	text[1024];

		snprintf(text, sizeof text, "source theme\n%s"
		    "source = %s/secrets\n", ACCT, dir);
		put("config", text, 0600);
	}
	cf = config_load(path, &cause);
	TAP_OK(cf != NULL && cf->ncolors == 2 && cf->accounts != NULL &&
	    cf->accounts->password != NULL &&
	    strcmp(cf->accounts->password, "s3cret") == 0 &&
	    cf->nwarnings == 0,
	    "source: a theme (relative name), a secrets file in a section");
	config_free(cf);

	put("secrets", "password = s3cret\n", 0644);
	cf = config_load(path, &cause);
	TAP_OK(cf != NULL && cf->nwarnings == 1 &&
	    strstr(cf->warnings[0], "/secrets holds a password") != NULL,
	    "a sourced password file others can read is warned of");
	config_free(cf);

	put("theme", "color nosuch red default\n", 0644);
	cf = config_load(path, &cause);
	TAP_OK(cf == NULL && cause != NULL && strstr(cause, "/theme:1: color:") &&
	    strstr(cause, "(sourced at ") && strstr(cause, "/config:1)"),
	    "an error in a sourced file names it, its line and where it was "
	    "sourced: %s", cause);
	free(cause);
	cause = NULL;

	put("theme", "source theme\n", 0644);
	cf = config_load(path, &cause);
	TAP_OK(cf == NULL && cause != NULL && strstr(cause, "deep"),
	    "a file that sources itself is an error");
	free(cause);
	cause = NULL;

	put("config", "source .\n", 0600);
	cf = config_load(path, &cause);
	TAP_OK(cf == NULL && cause != NULL && strstr(cause, "/config:1: source: ") &&
	    strstr(cause, "is a directory"), "a directory is refused at the "
	    "source line: %s", cause);
	free(cause);
	cause = NULL;

	put("config", "source missing\n", 0600);
	cf = config_load(path, &cause);
	TAP_OK(cf == NULL && cause != NULL && strstr(cause, ":1: source: ") &&
	    strstr(cause, "missing"), "a missing file is an error");
	free(cause);

	{
		char	cmd[300];

		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return TAP_DONE();
}
