/*
 * cli-flag.c: the commands that change messages on the server, for
 * scripts: --flag, --move and --delete. Silent when all went as asked;
 * a note on standard error when the server could only do part of it, or
 * when a flag change had to be saved for later. Argument handling and
 * output; the work is the account's session's (session.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "cli.h"
#include "session.h"
#include "xmalloc.h"

/* A move that could only copy. */
static void
cmd_flag_kept(const char *to, const char *from)
{
	cmd_error("copied to %s; the original in %s is flagged deleted but "
	    "still there: the server offers neither MOVE nor UIDPLUS, and "
	    "expunging would remove every message flagged deleted", to, from);
}

int
cmd_flag(struct cmd_ctx *ctx)
{
	struct session	*s;
	const char	*folder;
	char		 add[IMAP_OPS_FLAGS_SIZE], remove[IMAP_OPS_FLAGS_SIZE];
	char		*cause = NULL;
	uint32_t	 uid;
	int		 rc;

	if (ctx->argc < 2 || ctx->argc > 3) {
		cmd_error("usage: steedmail --flag UID FLAGS [FOLDER]");
		return EX_USAGE;
	}
	if ((uid = cmd_uid("--flag", ctx->argv[0])) == 0)
		return EX_USAGE;
	if (imap_ops_flags_parse(ctx->argv[1], add, remove, &cause) == -1) {
		cmd_error("--flag: %s", cause);
		free(cause);
		return EX_USAGE;
	}
	folder = ctx->argc > 2 ? ctx->argv[2] : "INBOX";
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	rc = session_flag(s, folder, uid, add, remove, &cause);
	if (rc == IMAP_CONN_SAVED)
		cmd_error("%s: UID %u: the change is saved and will be sent "
		    "when the server can be reached (%s)", folder, uid,
		    cause);
	else if (rc != IMAP_OPS_OK)
		cmd_error("%s: %s", folder, cause);
	free(cause);
	session_close(s);
	return cmd_exit(rc);
}

int
cmd_move(struct cmd_ctx *ctx)
{
	struct session		*s;
	enum imap_ops_how	 how;
	const char		*to, *folder;
	char			*cause = NULL;
	uint32_t		 uid;
	int			 rc;

	if (ctx->argc < 2 || ctx->argc > 3) {
		cmd_error("usage: steedmail --move UID TOFOLDER [FOLDER]");
		return EX_USAGE;
	}
	if ((uid = cmd_uid("--move", ctx->argv[0])) == 0)
		return EX_USAGE;
	to = ctx->argv[1];
	folder = ctx->argc > 2 ? ctx->argv[2] : "INBOX";
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		return cmd_down(s, "nothing was moved");
	rc = session_move(s, folder, uid, to, &how, &cause);
	if (rc != IMAP_OPS_OK)
		cmd_error("%s: %s", folder, cause);
	else if (how == IMAP_OPS_COPIED_KEPT)
		cmd_flag_kept(to, folder);
	free(cause);
	session_close(s);
	return cmd_exit(rc);
}

int
cmd_delete(struct cmd_ctx *ctx)
{
	struct session		*s;
	enum imap_ops_how	 how;
	const char		*folder;
	char			*trash = NULL, *cause = NULL;
	uint32_t		 uid;
	int			 rc;

	if (ctx->argc < 1 || ctx->argc > 2) {
		cmd_error("usage: steedmail --delete UID [FOLDER]");
		return EX_USAGE;
	}
	if ((uid = cmd_uid("--delete", ctx->argv[0])) == 0)
		return EX_USAGE;
	folder = ctx->argc > 1 ? ctx->argv[1] : "INBOX";
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		return cmd_down(s, "nothing was deleted");
	rc = session_delete(s, folder, uid, &how, &trash, &cause);
	if (rc != IMAP_OPS_OK)
		cmd_error("%s: %s", folder, cause);
	else if (how == IMAP_OPS_MARKED)
		cmd_error("%s: UID %u is flagged deleted but still there: the "
		    "server does not offer UIDPLUS, and expunging would remove "
		    "every message flagged deleted", folder, uid);
	else if (how == IMAP_OPS_COPIED_KEPT)
		cmd_flag_kept(trash, folder);
	free(trash);
	free(cause);
	session_close(s);
	return cmd_exit(rc);
}
