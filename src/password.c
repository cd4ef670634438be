/*
 * password.c: where an account's password comes from (see password.h).
 * Owns the child running a password-command and the terminal while a
 * password is typed. Called by whoever opens an IMAP or SMTP session.
 *
 * The password never appears in an argument vector or the environment:
 * the command writes it to a pipe we read. Every buffer that held it is
 * wiped. The one thing printed here is the prompt, on /dev/tty, and only
 * when no password is configured; an interface that owns the terminal
 * asks by itself and never gets here.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "password.h"
#include "xmalloc.h"

#define PASSWORD_MAX	1024

static volatile sig_atomic_t password_signal;

static long long
password_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
		if (password_now_ms() >= deadline) {
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
	deadline = password_now_ms() + (long long)timeout * 1000;
	pfd.fd = p[0];
	pfd.events = POLLIN;
	while ((left = deadline - password_now_ms()) > 0) {
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

static void
password_on_signal(int sig)
{
	password_signal = sig;
}

static void
password_write(int fd, const char *s)
{
	size_t	len = strlen(s);
	ssize_t	n;

	while (len > 0) {
		n = write(fd, s, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/*
 * Read a line from the terminal with echo off. A signal (^C, ^Z) ends the
 * prompt, restores the terminal and is then delivered as usual.
 */
static char *
password_prompt(const struct account *a, char **cause)
{
	static const int sigs[] = {
		SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU
	};
	struct sigaction sa, saved[sizeof sigs / sizeof sigs[0]];
	struct termios	 old, noecho;
	char		 buf[PASSWORD_MAX], c, *prompt, *pw = NULL;
	size_t		 len = 0, i;
	ssize_t		 n;
	int		 fd, sig;

	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd == -1 || tcgetattr(fd, &old) == -1) {
		if (fd != -1)
			close(fd);
		*cause = xasprintf("no password for account %s: set "
		    "password-command", a->id);
		return NULL;
	}

	password_signal = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = password_on_signal;	/* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, &saved[i]);

	prompt = xasprintf("Password for %s (account %s): ", a->user, a->id);
	password_write(fd, prompt);
	free(prompt);
	noecho = old;
	noecho.c_lflag &= ~(tcflag_t)ECHO;
	tcsetattr(fd, TCSAFLUSH, &noecho);
	while (password_signal == 0) {
		n = read(fd, &c, 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n != 1 || c == '\n' || c == '\r')
			break;
		if (len < sizeof buf)
			buf[len++] = c;
	}
	c = '\0';
	tcsetattr(fd, TCSAFLUSH, &old);
	password_write(fd, "\n");
	close(fd);

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &saved[i], NULL);
	if ((sig = password_signal) != 0) {
		*cause = xasprintf("password prompt for account %s "
		    "interrupted", a->id);
		raise(sig);
	} else if (len == 0)
		*cause = xasprintf("no password given for account %s", a->id);
	else
		pw = xstrndup(buf, len);
	explicit_bzero(buf, sizeof buf);
	return pw;
}

char *
password_get(const struct account *a, char **cause)
{
	if (a->password_command != NULL)
		return password_run(a->id, a->password_command,
		    PASSWORD_COMMAND_TIMEOUT, cause);
	if (a->password != NULL)
		return xstrdup(a->password);
	return password_prompt(a, cause);
}
