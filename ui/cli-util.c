/*
 * cli-util.c: what every batch command shares: saying what went wrong on
 * standard error, and finding the account the command line names.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "config.h"
#include "log.h"
#include "strsafe.h"
#include "xmalloc.h"

void
cmd_error(const char *fmt, ...)
{
	va_list	 ap;
	char	*msg, *safe;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	safe = strsafe(msg, 0);
	fprintf(stderr, "steedmail: %s\n", safe);
	log_msg(LOG_INFO, "error shown: %s", msg);
	free(safe);
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
