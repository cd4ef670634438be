/*
 * command.c: running the configuration's commands (command.h) for the
 * interface's worker threads, which must never wait on them longer than
 * they allow. Between fork() and exec only async-signal-safe calls are
 * made: the process has other threads, and one may hold a lock.
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

#include "buf.h"
#include "clock.h"
#include "frontend.h"
#include "command.h"
#include "xmalloc.h"

extern char	**environ;

static void
command_quote(struct buf *b, const char *v)
{
	buf_addc(b, '\'');
	for (; *v != '\0'; v++) {
		if (*v == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *v);
	}
	buf_addc(b, '\'');
}

char *
command_expand(const char *tmpl, const struct command_var *vars, size_t n)
{
	struct buf	 b;
	const char	*p;
	size_t		 i;

	buf_init(&b);
	for (p = tmpl; *p != '\0'; p++) {
		if (*p != '%' || p[1] == '\0') {
			buf_addc(&b, *p);
			continue;
		}
		if (p[1] == '%') {
			buf_addc(&b, '%');
			p++;
			continue;
		}
		for (i = 0; i < n; i++)
			if (vars[i].letter == p[1])
				break;
		if (i == n) {
			buf_addc(&b, *p);
			continue;
		}
		command_quote(&b, vars[i].value != NULL ? vars[i].value : "");
		p++;
	}
	buf_addc(&b, '\0');
	return buf_take(&b);
}

/* The environment and env, for execve(): made before fork(). */
static char **
command_env(char *const env[], size_t n)
{
	char	**e;
	size_t	  have = 0, i, k = 0;

	while (environ != NULL && environ[have] != NULL)
		have++;
	e = xcalloc(have + n + 1, sizeof *e);
	for (i = 0; i < have; i++)
		e[k++] = environ[i];
	for (i = 0; i < n; i++)
		e[k++] = env[i];
	return e;
}

/* In the child: standard input (and output unless keep_out) on
 * /dev/null. Async-signal-safe. */
static void
command_child_fds(int keep_out)
{
	int	fd;

	if ((fd = open("/dev/null", O_RDWR)) == -1)
		_exit(127);
	dup2(fd, STDIN_FILENO);
	if (!keep_out)
		dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

int
command_spawn(const char *cmd, char *const env[], size_t n, char **cause)
{
	char		**e = command_env(env, n);
	char		*argv[] = { "sh", "-c", (char *)cmd, NULL };
	pid_t		 pid;
	int		 status;

	switch (pid = fork()) {
	case -1:
		*cause = xasprintf("cannot start %s: %s", cmd,
		    strerror(errno));
		free(e);
		return -1;
	case 0:
		/* the grandchild runs the command; init reaps it */
		setsid();
		switch (fork()) {
		case -1:
			_exit(1);
		case 0:
			signal(SIGPIPE, SIG_DFL);
			command_child_fds(0);
			execve("/bin/sh", argv, e);
			_exit(127);
		}
		_exit(0);
	}
	free(e);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*cause = xasprintf("cannot start %s", cmd);
		return -1;
	}
	return 0;
}

int
command_read(const char *cmd, size_t max, int timeout, struct buf *out,
    char **cause)
{
	struct pollfd	 pfd;
	char		 chunk[4096];
	long long	 deadline = clock_ms() + (long long)timeout * 1000;
	ssize_t		 r;
	pid_t		 pid;
	int		 p[2], status, why = 0;

	if (pipe2(p, O_CLOEXEC) == -1) {
		*cause = xasprintf("cannot run %s: %s", cmd, strerror(errno));
		return -1;
	}
	switch (pid = fork()) {
	case -1:
		*cause = xasprintf("cannot run %s: %s", cmd, strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	case 0:
		signal(SIGPIPE, SIG_DFL);
		/* a group of its own, so that a stop kills what it started */
		setpgid(0, 0);
		if (dup2(p[1], STDOUT_FILENO) == -1)
			_exit(127);
		command_child_fds(1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	setpgid(pid, pid);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		if (fe_cancelled()) {
			why = 1;
			break;
		}
		if (clock_ms() >= deadline) {
			why = 2;
			break;
		}
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if ((r = read(p[0], chunk, sizeof chunk)) == -1 &&
		    errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (out->len < max)
			buf_add(out, chunk, (size_t)r > max - out->len ?
			    max - out->len : (size_t)r);
	}
	close(p[0]);
	if (why != 0)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (why == 1) {
		*cause = xstrdup("stopped");
		return -1;
	}
	if (why == 2) {
		*cause = xasprintf("%s did not finish within %d s", cmd,
		    timeout);
		return -1;
	}
	if (WIFSIGNALED(status)) {
		*cause = xasprintf("%s was killed by signal %d", cmd,
		    WTERMSIG(status));
		return -1;
	}
	return WEXITSTATUS(status);
}
