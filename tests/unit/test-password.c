/*
 * test-password.c: password.c, running real password commands: the first
 * line is the password, failures and time-outs give a cause, with no
 * password and no front end the cause says what to set, and with a front
 * end's secret hook the person is asked through it. password-file.c, in a
 * GnuPG home of its own with a key made for it: the password kept
 * encrypted to the key (0600, not in clear) and read back through
 * password_get(); a taken name gets another; a file that is missing or
 * not OpenPGP gives a cause.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "crypto.h"
#include "frontend.h"
#include "ownkey.h"
#include "password.h"
#include "tap.h"
#include "xmalloc.h"

/* Run command; return the password or "cause: ..." (allocated). */
static char *
run(const char *command, int timeout)
{
	char	*pw, *cause = NULL, *s;

	if ((pw = password_run("t", command, timeout, &cause)) != NULL) {
		s = xstrdup(pw);
		freezero_str(pw);
		free(cause);
		return s;
	}
	s = xasprintf("cause: %s", cause != NULL ? cause : "(none)");
	free(cause);
	return s;
}

static void
check(const char *command, const char *want, const char *what)
{
	char	*got;

	got = run(command, 5);
	TAP_STR(got, want, "%s", what);
	free(got);
}

/* password_get with no password and no controlling terminal. */
static void
test_no_tty(void)
{
	struct account	 a;
	char		*pw, *cause = NULL, buf[256];
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2];

	memset(&a, 0, sizeof a);
	a.id = "work";
	a.user = "me@example.org";
	if (pipe(p) == -1 || (pid = fork()) == -1)
		fatal("pipe or fork");
	if (pid == 0) {
		close(p[0]);
		setsid();	/* no controlling terminal: /dev/tty fails */
		pw = password_get(NULL, &a, &cause);
		dprintf(p[1], "%s", pw != NULL ? "got a password" : cause);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, NULL, 0);
	TAP_STR(buf, "no password for account work: set password-command",
	    "no password and no terminal");

	a.password = "from-config";
	pw = password_get(NULL, &a, &cause);
	TAP_STR(pw, "from-config", "password setting");
	free(pw);

	a.password = NULL;
	a.password_command = "echo from-command";
	pw = password_get(NULL, &a, &cause);
	TAP_STR(pw, "from-command", "password-command");
	free(pw);
}

/* The front end's secret hook: answers from arg, records the prompt. */
static char	*hook_prompt;

static char *
hook_secret(void *arg, const char *prompt, char **cause)
{
	free(hook_prompt);
	hook_prompt = xstrdup(prompt);
	if (arg == NULL) {
		*cause = xstrdup("the person said no");
		return NULL;
	}
	return xstrdup(arg);
}

/* With no password configured, password_get asks the front end. */
static void
test_hook(void)
{
	struct fe_hooks	 h;
	struct account	 a;
	char		*pw, *cause = NULL;

	memset(&a, 0, sizeof a);
	a.id = "work";
	a.user = "me@example.org";
	memset(&h, 0, sizeof h);
	h.secret = hook_secret;
	h.arg = "typed-in";
	fe_set(&h);
	pw = password_get(NULL, &a, &cause);
	TAP_STR(pw, "typed-in", "no password configured: the hook's answer");
	TAP_STR(hook_prompt, "Password for me@example.org (account work): ",
	    "the prompt names the user and the account");
	free(pw);

	h.arg = NULL;
	pw = password_get(NULL, &a, &cause);
	TAP_OK(pw == NULL, "the hook gives none: no password");
	TAP_STR(cause, "no password for account work: the person said no",
	    "the cause names the account and the hook's reason");
	free(cause);

	a.password = "from-config";
	free(hook_prompt);
	hook_prompt = NULL;
	pw = password_get(NULL, &a, &cause);
	TAP_OK(hook_prompt == NULL, "a configured password: nobody is asked");
	free(pw);
	fe_set(NULL);
}

/* A file of the text s at path. */
static void
put(const char *path, const char *s)
{
	FILE	*f;

	if ((f = fopen(path, "w")) != NULL) {
		fputs(s, f);
		fclose(f);
	}
}

static void
test_file(void)
{
	struct account	 a;
	struct ownkey	 k;
	struct stat	 sb;
	char		 dir[] = "/tmp/test-password.XXXXXX", *home, *data;
	char		*path, *path2, *pw, *cause = NULL, *cmd;
	FILE		*f;
	char		 line[256];
	int		 clear = 0;

	if (mkdtemp(dir) == NULL)
		return;
	home = xasprintf("%s/gnupg", dir);
	data = xasprintf("%s/data", dir);
	setenv("XDG_DATA_HOME", data, 1);
	memset(&a, 0, sizeof a);
	a.id = "carol";
	a.name = "Carol";
	a.address = "carol@example.org";
	memset(&k, 0, sizeof k);
	if (crypto_library_init(&cause) == -1 ||
	    crypto_init(home, &cause) == -1 ||
	    ownkey_openpgp(&a, 1, &k, &cause) == -1) {
		TAP_OK(0, "a key to keep a password with (%s)", cause);
		free(cause);
		goto out;
	}
	path = password_file_path("carol", &cause);
	TAP_OK(path != NULL && strstr(path, "/data/steedmail/"
	    "password-carol.asc") != NULL, "the file: password-carol.asc in "
	    "the data directory (%s)", path != NULL ? path : cause);
	if (path == NULL)
		goto out;
	TAP_OK(password_file_write(path, k.fpr, "pass word 1", &cause) == 0,
	    "the password is written, encrypted to the key (%s)",
	    cause != NULL ? cause : "no error");
	TAP_OK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600,
	    "... mode 0600");
	if ((f = fopen(path, "r")) != NULL) {
		while (fgets(line, sizeof line, f) != NULL)
			if (strstr(line, "pass word 1") != NULL)
				clear = 1;
		fclose(f);
	}
	TAP_OK(!clear, "... and not in clear in it");

	a.password_file = path;
	pw = password_get(NULL, &a, &cause);
	TAP_STR(pw, "pass word 1", "password_get() reads it back through gpg");
	free(pw);
	path2 = password_file_path("carol", &cause);
	TAP_OK(path2 != NULL && strstr(path2, "password-carol-2.asc") != NULL,
	    "a name taken: another one (%s)", path2);
	free(path2);

	put(path, "not OpenPGP at all\n");
	pw = password_get(NULL, &a, &cause);
	TAP_OK(pw == NULL && cause != NULL && strncmp(cause, "cannot "
	    "decrypt the password of account carol: ", 41) == 0,
	    "a file that is not OpenPGP: a cause (%s)", cause);
	free(cause);
	cause = NULL;
	a.password_file = "/nonexistent/password.asc";
	pw = password_get(NULL, &a, &cause);
	TAP_OK(pw == NULL && cause != NULL &&
	    strstr(cause, "cannot read /nonexistent/password.asc") != NULL,
	    "a file that is not there: a cause (%s)", cause);
	free(cause);
	free(path);
out:
	ownkey_free(&k);
	cmd = xasprintf("gpgconf --homedir %s --kill all >/dev/null 2>&1; "
	    "rm -rf %s", home, dir);
	if (system(cmd) != 0)
		TAP_OK(0, "cleaning %s", dir);
	free(cmd);
	free(home);
	free(data);
}

int
main(void)
{
	char	*got;
	time_t	 t0;

	signal(SIGPIPE, SIG_IGN);

	check("echo secret", "secret", "first line of output");
	check("printf 'one\\ntwo\\n'", "one", "only the first line");
	check("printf 'crlf\\r\\n'", "crlf", "CR LF stripped");
	check("printf 'no newline'", "no newline", "no final newline");
	check("printf ' sp ace \\n'", " sp ace ", "spaces kept");
	check("yes longer-than-a-pipe | head -c 300000", "longer-than-a-pipe",
	    "much output, drained");
	check("echo \"$0\"", "sh", "run by /bin/sh -c");
	check("exit 3", "cause: password-command for account t failed "
	    "(exit status 3)", "exit status in the cause");
	check("echo pw; exit 1", "cause: password-command for account t "
	    "failed (exit status 1)", "output but failed: no password");
	check("kill -9 $$", "cause: password-command for account t was "
	    "killed by signal 9", "killed by a signal");
	check("true", "cause: password-command for account t printed no "
	    "password", "no output");
	check("echo", "cause: password-command for account t printed no "
	    "password", "empty line");
	check("no-such-command-here 2>/dev/null", "cause: password-command "
	    "for account t failed (exit status 127)", "command not found");

	t0 = time(NULL);
	got = run("sleep 20", 1);
	TAP_STR(got, "cause: password-command for account t did not finish "
	    "within 1 s", "time-out");
	TAP_OK(time(NULL) - t0 <= 3, "time-out kept");
	free(got);

	t0 = time(NULL);
	got = run("sleep 5 & echo bg", 10);
	TAP_STR(got, "bg", "a child left running does not hold us up");
	TAP_OK(time(NULL) - t0 <= 3, "returned at once");
	free(got);

	test_no_tty();
	test_hook();
	test_file();
	return TAP_DONE();
}
