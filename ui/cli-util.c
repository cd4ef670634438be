/*
 * cli-util.c: what every batch command shares: printing a line made
 * terminal-safe, saying what went wrong on standard error, finding the account the command line names, reading a
 * UID operand, and opening the account's session with the exit code
 * each outcome means.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "cli.h"
#include "config.h"
#include "log.h"
#include "session.h"
#include "strsafe.h"
#include "xmalloc.h"

/*
 * The one way the batch commands print a line: prefix (steedmail's own
 * words, shown as they are), then the formatted text made terminal-safe
 * (it may hold bytes from a message or a server). Returns the text
 * before it was made safe, for the caller to log or free.
 */
static char *
cmd_vprint(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char	*text, *safe;

	text = xvasprintf(fmt, ap);
	safe = strsafe(text, 0);
	fprintf(f, "%s%s\n", prefix, safe);
	free(safe);
	return text;
}

void
cmd_print(FILE *f, const char *prefix, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	free(cmd_vprint(f, prefix, fmt, ap));
	va_end(ap);
}

void
cmd_error(const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = cmd_vprint(stderr, "steedmail: ", fmt, ap);
	va_end(ap);
	log_msg(LOG_INFO, "error shown: %s", msg);
	free(msg);
}

struct account *
cmd_account(struct cmd_ctx *ctx)
{
	struct account	*a;
	char		*cause = NULL;

	if ((a = config_account(ctx->cf, ctx->account, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
	}
	return a;
}

uint32_t
cmd_uid(const char *what, const char *arg)
{
	unsigned long	 uid;
	char		*end;

	uid = strtoul(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || uid == 0 ||
	    uid > 0xffffffffUL) {
		cmd_error("%s: \"%s\" is not a UID", what, arg);
		return 0;
	}
	return (uint32_t)uid;
}

/* Most UIDs one operand may name: a range is not a way to run out of memory. */
#define CMD_UIDS_MAX	1000000

/* One UID of a list, up to the end or a ',' or ':'. */
static int
cmd_uids_one(const char **p, uint32_t *uid)
{
	unsigned long	 v;
	char		*end;

	if (**p < '0' || **p > '9')
		return -1;
	v = strtoul(*p, &end, 10);
	if (v == 0 || v > 0xffffffffUL || (*end != '\0' && *end != ',' &&
	    *end != ':'))
		return -1;
	*uid = (uint32_t)v;
	*p = end;
	return 0;
}

int
cmd_uids(const char *what, const char *arg, uint32_t **uids, size_t *n)
{
	const char	*p = arg;
	uint32_t	 lo, hi, u;

	*uids = NULL;
	*n = 0;
	for (;;) {
		if (cmd_uids_one(&p, &lo) == -1)
			goto bad;
		hi = lo;
		if (*p == ':' && (p++, cmd_uids_one(&p, &hi) == -1 || hi < lo))
			goto bad;
		if (hi - lo >= CMD_UIDS_MAX - *n) {
			cmd_error("%s: \"%s\" names more than %d UIDs", what,
			    arg, CMD_UIDS_MAX);
			goto fail;
		}
		*uids = xreallocarray(*uids, *n + (hi - lo) + 1,
		    sizeof **uids);
		for (u = lo;; u++) {
			(*uids)[(*n)++] = u;
			if (u == hi)
				break;
		}
		if (*p == '\0')
			return 0;
		p++;			/* the ',' */
	}

bad:
	cmd_error("%s: \"%s\" is not a UID, nor a list of them (3,7,10:12)",
	    what, arg);
fail:
	free(*uids);
	*uids = NULL;
	*n = 0;
	return -1;
}

int
cmd_exit(int result)
{
	switch (result) {
	case IMAP_OPS_OK:
		return EX_OK;
	case IMAP_OPS_LOST:
	case IMAP_CONN_SAVED:
	case SESSION_CANCELLED:
		return EX_TEMPFAIL;
	case IMAP_CONN_LOCAL:
		return EX_IOERR;
	default:
		return EX_UNAVAILABLE;
	}
}

int
cmd_open(struct cmd_ctx *ctx, struct session **sp)
{
	char	*cause = NULL;
	size_t	 n;
	int	 rc;

	if ((rc = session_open(ctx->cf, ctx->account, sp, &cause)) !=
	    IMAP_OPS_OK) {
		cmd_error("%s", cause);
		free(cause);
		switch (rc) {
		case SESSION_NO_ACCOUNT:
			return EX_USAGE;
		case SESSION_NO_CACHE:
			return EX_CANTCREAT;
		default:
			return EX_CONFIG;
		}
	}
	if ((n = session_replayed(*sp)) > 0)
		fprintf(stderr, "steedmail: %zu saved flag change%s sent to "
		    "the server\n", n, n == 1 ? "" : "s");
	return EX_OK;
}

int
cmd_down(struct session *s, const char *what)
{
	if (what != NULL)
		cmd_error("%s; %s", session_down(s), what);
	else
		cmd_error("%s", session_down(s));
	session_close(s);
	return EX_TEMPFAIL;
}
