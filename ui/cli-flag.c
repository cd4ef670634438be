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
 * op on the messages uids of folder, through the one set of mailbox operations: silent
 * when it was done as asked, else what happened on standard error.
 */
static int
cmd_flag_apply(struct session *s, const char *folder,
    const struct session_op *op, uint32_t *uids, size_t n)
{
	struct session_op_result	 res;
	char				*said;
	int				 rc;

	rc = session_apply(s, folder, op, uids, n, &res);
	if (res.done != n) {
		said = session_op_said(op, folder, &res);
		if (n == 1)
			cmd_error("%s: UID %u: %s", folder, uids[0], said);
		else
			cmd_error("%s: %s", folder, said);
		free(said);
	}
	session_op_result_free(&res);
	session_close(s);
	free(uids);
	return cmd_exit(rc);
}

int
cmd_flag(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_op	 op;
	char			*cause = NULL;
	uint32_t		*uids;
	size_t			 n;
	int			 rc;

	if (ctx->argc < 2 || ctx->argc > 3) {
		cmd_error("usage: steedmail --flag UIDS FLAGS [FOLDER]");
		return EX_USAGE;
	}
	if (cmd_uids("--flag", ctx->argv[0], &uids, &n) == -1)
		return EX_USAGE;
	memset(&op, 0, sizeof op);
	op.kind = SESSION_OP_FLAG;
	if (msg_flags_parse(ctx->argv[1], &op.add, &op.remove, &cause) == -1) {
		cmd_error("--flag: %s", cause);
		free(cause);
		free(uids);
		return EX_USAGE;
	}
	if ((rc = cmd_open(ctx, &s)) != EX_OK) {
		free(uids);
		return rc;
	}
	return cmd_flag_apply(s, ctx->argc > 2 ? ctx->argv[2] : "INBOX", &op,
	    uids, n);
}

int
cmd_move(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_op	 op;
	uint32_t		*uids;
	size_t			 n;
	int			 rc;

	if (ctx->argc < 2 || ctx->argc > 3) {
		cmd_error("usage: steedmail --move UIDS TOFOLDER [FOLDER]");
		return EX_USAGE;
	}
	if (cmd_uids("--move", ctx->argv[0], &uids, &n) == -1)
		return EX_USAGE;
	memset(&op, 0, sizeof op);
	op.kind = SESSION_OP_MOVE;
	op.to = ctx->argv[1];
	if ((rc = cmd_open(ctx, &s)) != EX_OK) {
		free(uids);
		return rc;
	}
	if (session_down(s) != NULL) {
		free(uids);
		return cmd_down(s, "nothing was moved");
	}
	return cmd_flag_apply(s, ctx->argc > 2 ? ctx->argv[2] : "INBOX", &op,
	    uids, n);
}

int
cmd_delete(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_op	 op;
	uint32_t		*uids;
	size_t			 n;
	int			 rc;

	if (ctx->argc < 1 || ctx->argc > 2) {
		cmd_error("usage: steedmail --delete UIDS [FOLDER]");
		return EX_USAGE;
	}
	if (cmd_uids("--delete", ctx->argv[0], &uids, &n) == -1)
		return EX_USAGE;
	memset(&op, 0, sizeof op);
	op.kind = SESSION_OP_DELETE;
	if ((rc = cmd_open(ctx, &s)) != EX_OK) {
		free(uids);
		return rc;
	}
	if (session_down(s) != NULL) {
		free(uids);
		return cmd_down(s, "nothing was deleted");
	}
	return cmd_flag_apply(s, ctx->argc > 1 ? ctx->argv[1] : "INBOX", &op,
	    uids, n);
}
