/*
 * cli-flag.c: the commands that change messages on the server, for
 * scripts: --flag, --move and --delete. Silent when all went as asked;
 * a note on standard error when the server could only do part of it, or
 * when a flag change had to be saved for later. Argument handling and
 * output; the work is the account's session's (session.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cli.h"
#include "session.h"
#include "xmalloc.h"

/*
 * op on uid of folder, through the one set of mailbox operations: silent
 * when it was done as asked, else what happened on standard error.
 */
static int
cmd_flag_apply(struct session *s, const char *folder,
    const struct session_op *op, uint32_t uid)
{
	struct session_op_result	 res;
	char				*said;
	int				 rc;

	rc = session_apply(s, folder, op, &uid, 1, &res);
	if (res.done != 1) {
		said = session_op_said(op, folder, &res);
		cmd_error("%s: UID %u: %s", folder, uid, said);
		free(said);
	}
	session_op_result_free(&res);
	session_close(s);
	return cmd_exit(rc);
}

int
cmd_flag(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_op	 op;
	char			*cause = NULL;
	uint32_t		 uid;
	int			 rc;

	if (ctx->argc < 2 || ctx->argc > 3) {
		cmd_error("usage: steedmail --flag UID FLAGS [FOLDER]");
		return EX_USAGE;
	}
	if ((uid = cmd_uid("--flag", ctx->argv[0])) == 0)
		return EX_USAGE;
	memset(&op, 0, sizeof op);
	op.kind = SESSION_OP_FLAG;
	if (msg_flags_parse(ctx->argv[1], &op.add, &op.remove, &cause) == -1) {
		cmd_error("--flag: %s", cause);
		free(cause);
		return EX_USAGE;
	}
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	return cmd_flag_apply(s, ctx->argc > 2 ? ctx->argv[2] : "INBOX", &op,
	    uid);
}

int
cmd_move(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_op	 op;
	uint32_t		 uid;
	int			 rc;

	if (ctx->argc < 2 || ctx->argc > 3) {
		cmd_error("usage: steedmail --move UID TOFOLDER [FOLDER]");
		return EX_USAGE;
	}
	if ((uid = cmd_uid("--move", ctx->argv[0])) == 0)
		return EX_USAGE;
	memset(&op, 0, sizeof op);
	op.kind = SESSION_OP_MOVE;
	op.to = ctx->argv[1];
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		return cmd_down(s, "nothing was moved");
	return cmd_flag_apply(s, ctx->argc > 2 ? ctx->argv[2] : "INBOX", &op,
	    uid);
}

int
cmd_delete(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_op	 op;
	uint32_t		 uid;
	int			 rc;

	if (ctx->argc < 1 || ctx->argc > 2) {
		cmd_error("usage: steedmail --delete UID [FOLDER]");
		return EX_USAGE;
	}
	if ((uid = cmd_uid("--delete", ctx->argv[0])) == 0)
		return EX_USAGE;
	memset(&op, 0, sizeof op);
	op.kind = SESSION_OP_DELETE;
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		return cmd_down(s, "nothing was deleted");
	return cmd_flag_apply(s, ctx->argc > 1 ? ctx->argv[1] : "INBOX", &op,
	    uid);
}
