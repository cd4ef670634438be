/*
 * cli-hooks.c: the batch front end's side of frontend.h. The engine asks
 * for secrets and confirmations, tells warnings and notices, reports
 * progress and hands the terminal to gpg through the hooks installed here
 * once, by main, for the main thread.
 *
 * Secrets and questions go to /dev/tty (standard input may be a message
 * body, standard output a pipe); without a terminal a secret is refused
 * and a question answered "no". Notices go to standard error as the
 * commands' own warnings do, "steedmail: warning: ...", made safe to show.
 * Progress is not shown: the commands say what was done when it is done.
 * The terminal gpg's pinentry may use is the first of standard
 * input, output and error that is one, unless GPG_TTY already says.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "frontend.h"
#include "strsafe.h"
#include "xmalloc.h"

#define CLI_HOOKS_SECRET_MAX	1024

static volatile sig_atomic_t	 cli_hooks_signal;
static char			*cli_hooks_tty;

static void
cli_hooks_on_signal(int sig)
{
	cli_hooks_signal = sig;
}

static void
cli_hooks_write(int fd, const char *s)
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
 * A line from the terminal, echo off when secret. A signal (^C, ^Z) ends
 * the prompt, restores the terminal and is then delivered as usual.
 * Returns the line (allocated, possibly empty), or NULL: no terminal (*why
 * "no terminal") or a signal (*why "interrupted").
 */
static char *
cli_hooks_ask(const char *prompt, int secret, const char **why)
{
	static const int sigs[] = {
		SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU
	};
	struct sigaction sa, saved[sizeof sigs / sizeof sigs[0]];
	struct termios	 old, noecho;
	char		 buf[CLI_HOOKS_SECRET_MAX], c, *line = NULL;
	size_t		 len = 0, i;
	ssize_t		 n;
	int		 fd, sig;

	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd == -1 || tcgetattr(fd, &old) == -1) {
		if (fd != -1)
			close(fd);
		*why = "no terminal";
		return NULL;
	}

	cli_hooks_signal = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = cli_hooks_on_signal;	/* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, &saved[i]);

	cli_hooks_write(fd, prompt);
	noecho = old;
	if (secret) {
		noecho.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(fd, TCSAFLUSH, &noecho);
	}
	while (cli_hooks_signal == 0) {
		n = read(fd, &c, 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n != 1 || c == '\n' || c == '\r')
			break;
		if (len < sizeof buf)
			buf[len++] = c;
	}
	c = '\0';
	if (secret) {
		tcsetattr(fd, TCSAFLUSH, &old);
		cli_hooks_write(fd, "\n");
	}
	close(fd);

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &saved[i], NULL);
	if ((sig = cli_hooks_signal) != 0) {
		*why = "interrupted";
		raise(sig);
	} else
		line = xstrndup(buf, len);
	explicit_bzero(buf, sizeof buf);
	return line;
}

static char *
cli_hooks_secret(void *arg, const char *prompt, char **cause)
{
	const char	*why = NULL;
	char		*pw, *safe;

	(void)arg;
	safe = strsafe(prompt, 0);
	pw = cli_hooks_ask(safe, 1, &why);
	free(safe);
	if (pw == NULL) {
		/* Without a terminal the one way is the configuration. */
		if (strcmp(why, "no terminal") == 0)
			*cause = xstrdup("set password-command");
		else
			*cause = xstrdup("the prompt was interrupted");
	} else if (*pw == '\0') {
		free(pw);
		pw = NULL;
		*cause = xstrdup("none given");
	}
	return pw;
}

static int
cli_hooks_confirm(void *arg, const char *question)
{
	const char	*why = NULL;
	char		*q, *safe, *line;
	size_t		 n;
	int		 yes;

	(void)arg;
	safe = strsafe(question, STRSAFE_KEEP_NL);
	q = xasprintf("steedmail: %s [y/N] ", safe);
	free(safe);
	line = cli_hooks_ask(q, 0, &why);
	free(q);
	if (line == NULL)
		return 0;
	n = strlen(line);
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	yes = strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0;
	free(line);
	return yes;
}

static void
cli_hooks_notice(void *arg, enum fe_level level, const char *text)
{
	(void)arg;
	if (level == FE_WARNING)
		cmd_error("warning: %s", text);
	else
		cmd_error("%s", text);
}

static const char *
cli_hooks_tty_begin(void *arg)
{
	const char	*tty;
	int		 fd;

	(void)arg;
	if ((tty = getenv("GPG_TTY")) != NULL)
		return tty;
	if (cli_hooks_tty != NULL)
		return cli_hooks_tty;
	/* -s reads the body from standard input; scripts redirect output. */
	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (isatty(fd) && (tty = ttyname(fd)) != NULL) {
			cli_hooks_tty = xstrdup(tty);
			return cli_hooks_tty;
		}
	}
	return NULL;
}

static const struct fe_hooks cli_hooks = {
	.secret = cli_hooks_secret,
	.confirm = cli_hooks_confirm,
	.notice = cli_hooks_notice,
	.progress = NULL,
	.tty_begin = cli_hooks_tty_begin,
	.tty_end = NULL,
	.cancel = NULL,
	.arg = NULL
};

void
cmd_hooks_install(void)
{
	fe_set(&cli_hooks);
}

void
cmd_hooks_remove(void)
{
	fe_set(NULL);
	free(cli_hooks_tty);
	cli_hooks_tty = NULL;
}
