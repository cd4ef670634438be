/*
 * password.c: where an account's password comes from (see password.h):
 * its password-command, its password-file (password-file.c), its password
 * setting, or the person. Owns the child running a password-command.
 * Called by whoever opens an IMAP or SMTP session (session.c, send.c).
 *
 * The password never appears in an argument vector or the environment:
 * the command writes it to a pipe we read. Every buffer that held it is
 * wiped. Nothing is printed here: when no password is configured, the
 * person is asked through the front end's secret hook (fe_secret()).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "crypto.h"
#include "frontend.h"
#include "oauth2.h"
#include "password.h"
#include "xmalloc.h"


/* The first line of what the command printed, or NULL if it is empty. */
static char *
password_first_line(char *buf, size_t len)
{
	size_t	n;

	for (n = 0; n < len && buf[n] != '\n'; n++)
		;
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	if (n == 0 || memchr(buf, '\0', n) != NULL)
		return NULL;
	return xstrndup(buf, n);
}

/* Wait for the child until the deadline; kill it after that. */
static int
password_reap(pid_t pid, long long deadline, int *status)
{
	struct timespec	ts = { 0, 10 * 1000 * 1000 };
	pid_t		r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r == -1 && errno != EINTR)
			return -1;
		if (clock_ms() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) == -1 && errno == EINTR)
				;
			return -1;
		}
		nanosleep(&ts, NULL);
	}
}

char *
password_run(const char *id, const char *command, int timeout, char **cause)
{
	struct pollfd	 pfd;
	char		 buf[PASSWORD_MAX], discard[256], *pw = NULL;
	size_t		 len = 0;
	long long	 deadline, left;
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2], r, status, exited = 0;

	if (pipe2(p, O_CLOEXEC) == -1) {
		*cause = xasprintf("cannot run password-command for account "
		    "%s: %s", id, strerror(errno));
		return NULL;
	}
	switch (pid = fork()) {
	case -1:
		*cause = xasprintf("cannot run password-command for account "
		    "%s: %s", id, strerror(errno));
		close(p[0]);
		close(p[1]);
		return NULL;
	case 0:
		signal(SIGPIPE, SIG_DFL);
		if (dup2(p[1], STDOUT_FILENO) == -1)
			_exit(127);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	close(p[1]);

	/*
	 * Read until end of file, or until the command has exited and the
	 * pipe is drained: something it started may keep the pipe open.
	 */
	deadline = clock_ms() + (long long)timeout * 1000;
	pfd.fd = p[0];
	pfd.events = POLLIN;
	while ((left = deadline - clock_ms()) > 0) {
		r = poll(&pfd, 1, left > 100 ? 100 : (int)left);
		if (r == -1 && errno != EINTR)
			break;
		if (r > 0) {
			/* Keep the first PASSWORD_MAX bytes, drain the rest. */
			if (len < sizeof buf)
				n = read(p[0], buf + len, sizeof buf - len);
			else
				n = read(p[0], discard, sizeof discard);
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (len < sizeof buf)
				len += (size_t)n;
			continue;
		}
		if (exited)
			break;
		if (waitpid(pid, &status, WNOHANG) == pid)
			exited = 1;
	}
	close(p[0]);
	explicit_bzero(discard, sizeof discard);

	if (!exited && password_reap(pid, deadline, &status) == -1)
		*cause = xasprintf("password-command for account %s did not "
		    "finish within %d s", id, timeout);
	else if (WIFSIGNALED(status))
		*cause = xasprintf("password-command for account %s was "
		    "killed by signal %d", id, WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		*cause = xasprintf("password-command for account %s failed "
		    "(exit status %d)", id, WEXITSTATUS(status));
	else if ((pw = password_first_line(buf, len)) == NULL)
		*cause = xasprintf("password-command for account %s printed "
		    "no password", id);
	explicit_bzero(buf, sizeof buf);
	return pw;
}

/*
 * Ask the person, through the front end (frontend.h): the batch commands
 * prompt on the terminal, the interface in a dialog.
 */
static char *
password_ask(const struct account *a, char **cause)
{
	const struct fe_hooks	*h = fe_get();
	char			*prompt, *pw, *why = NULL;

	if (h == NULL || h->secret == NULL) {
		*cause = xasprintf("no password for account %s: set "
		    "password-command", a->id);
		return NULL;
	}
	prompt = xasprintf("Password for %s (account %s): ", a->user, a->id);
	pw = fe_secret(prompt, &why);
	free(prompt);
	if (pw == NULL) {
		*cause = xasprintf("no password for account %s: %s", a->id,
		    why != NULL ? why : "none given");
		free(why);
	}
	return pw;
}

/* The account's password-file, decrypted in cf's GnuPG home. */
static char *
password_from_file(const struct config *cf, const struct account *a,
    char **cause)
{
	char	*pw, *why = NULL;

	if (crypto_init(cf != NULL ? cf->gnupg_home : NULL, &why) == -1 ||
	    (pw = password_file_read(a->password_file, &why)) == NULL) {
		*cause = xasprintf("cannot decrypt the password of account "
		    "%s: %s", a->id, why != NULL ? why : "no reason given");
		free(why);
		return NULL;
	}
	return pw;
}

char *
password_get(const struct config *cf, const struct account *a, char **cause)
{
	if (oauth2_account(a))
		return oauth2_access(cf, a, 0, cause);
	if (a->password_command != NULL)
		return password_run(a->id, a->password_command,
		    PASSWORD_COMMAND_TIMEOUT, cause);
	if (a->password_file != NULL)
		return password_from_file(cf, a, cause);
	if (a->password != NULL)
		return xstrdup(a->password);
	return password_ask(a, cause);
}
