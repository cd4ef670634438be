/*
 * log.c: the debug log of log.h. Lines are time-stamped, made terminal-safe
 * (a log is often read with cat or less), and scrubbed of every registered
 * secret. With no log open, log_msg() costs one comparison.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "strsafe.h"
#include "xmalloc.h"

#define LOG_MAX_SECRETS	16

static FILE	*log_file;
static int	 log_lvl = -1;
static char	*log_secrets[LOG_MAX_SECRETS];

int
log_open(const char *path, int level, char **cause)
{
	int	fd;

	log_close();
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd == -1 || (log_file = fdopen(fd, "a")) == NULL) {
		*cause = xasprintf("cannot open debug log %s: %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	log_lvl = level;
	log_msg(LOG_ERROR, "debug log opened at level %d", level);
	return 0;
}

void
log_close(void)
{
	if (log_file != NULL)
		fclose(log_file);
	log_file = NULL;
	log_lvl = -1;
}

int
log_level(void)
{
	return log_lvl;
}

void
log_secret_add(const char *secret)
{
	int	i;

	if (secret == NULL || *secret == '\0')
		return;
	for (i = 0; i < LOG_MAX_SECRETS; i++) {
		if (log_secrets[i] == NULL) {
			log_secrets[i] = xstrdup(secret);
			return;
		}
	}
	/* Full: refuse to log at all rather than risk a leak. */
	log_close();
}

void
log_secret_remove(const char *secret)
{
	int	i;

	for (i = 0; i < LOG_MAX_SECRETS; i++) {
		if (log_secrets[i] != NULL &&
		    strcmp(log_secrets[i], secret) == 0) {
			freezero_str(log_secrets[i]);
			log_secrets[i] = NULL;
		}
	}
}

/* Replace every occurrence of every secret in s by asterisks, in place. */
static void
log_scrub(char *s)
{
	char	*p;
	size_t	 n;
	int	 i;

	for (i = 0; i < LOG_MAX_SECRETS; i++) {
		if (log_secrets[i] == NULL)
			continue;
		n = strlen(log_secrets[i]);
		p = s;
		while ((p = strstr(p, log_secrets[i])) != NULL) {
			memset(p, '*', n);
			p += n;
		}
	}
}

void
log_msg(int level, const char *fmt, ...)
{
	va_list		 ap;
	struct buf	 b;
	char		*line, stamp[32];
	struct timespec	 now;
	struct tm	 tm;

	if (log_file == NULL || level > log_lvl)
		return;
	va_start(ap, fmt);
	line = xvasprintf(fmt, ap);
	va_end(ap);
	log_scrub(line);

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
	buf_init(&b);
	buf_addf(&b, "%s.%03ld [%ld] ", stamp, now.tv_nsec / 1000000,
	    (long)getpid());
	strsafe_add(&b, line, strlen(line), 0);
	buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, log_file);
	fflush(log_file);
	buf_free(&b);
	free(line);
}
