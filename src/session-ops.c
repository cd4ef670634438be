/*
 * session-ops.c: the mailbox operations of session.h (flag, move, copy,
 * delete) on any number of messages, and what they did, in words. The
 * index, the pager, tagging and the batch commands all come here, so a key
 * and a command do the same thing on the server. Each message goes through
 * imap-conn.c, which keeps the header cache in step with what the server
 * confirmed. Never prints.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "imap-conn.h"
#include "session.h"
#include "session-int.h"
#include "xmalloc.h"

/* One message; its outcome counted in res. Returns its class. */
static int
session_apply_one(struct session *s, const char *folder,
    const struct session_op *op, uint32_t uid, struct session_op_result *res,
    char **cause)
{
	enum imap_ops_how	 how = IMAP_OPS_MOVED;
	char			*trash = NULL;
	int			 rc;

	switch (op->kind) {
	case SESSION_OP_FLAG:
		rc = imap_conn_flag(s->conn, folder, uid, op->add, op->remove,
		    cause);
		if (rc == IMAP_CONN_SAVED) {
			res->saved++;
			return rc;
		}
		break;
	case SESSION_OP_MOVE:
		rc = imap_conn_move(s->conn, folder, uid, op->to, &how, cause);
		break;
	case SESSION_OP_COPY:
		rc = imap_conn_copy(s->conn, folder, uid, op->to, cause);
		how = IMAP_OPS_COPIED_KEPT;
		break;
	case SESSION_OP_DELETE:
		rc = imap_conn_delete(s->conn, folder, uid, &how, &trash,
		    cause);
		if (trash != NULL && res->trash == NULL)
			res->trash = trash;
		else
			free(trash);
		break;
	default:
		*cause = xstrdup("no such operation");
		return IMAP_OPS_REFUSED;
	}
	if (rc != IMAP_OPS_OK)
		return rc;
	if (op->kind == SESSION_OP_FLAG || op->kind == SESSION_OP_COPY) {
		res->done++;
		return rc;
	}
	switch (how) {
	case IMAP_OPS_MOVED:
	case IMAP_OPS_EXPUNGED:
		res->done++;
		res->gone++;
		break;
	case IMAP_OPS_COPIED_KEPT:
		res->kept++;
		break;
	case IMAP_OPS_MARKED:
		res->marked++;
		break;
	}
	return rc;
}

int
session_apply(struct session *s, const char *folder,
    const struct session_op *op, const uint32_t *uids, size_t n,
    struct session_op_result *res)
{
	size_t	 i;
	char	*cause;
	int	 rc;

	memset(res, 0, sizeof *res);
	res->rc = IMAP_OPS_OK;
	for (i = 0; i < n; i++) {
		cause = NULL;
		rc = session_apply_one(s, folder, op, uids[i], res, &cause);
		if (rc == IMAP_OPS_OK || (rc == IMAP_CONN_SAVED &&
		    res->rc != IMAP_OPS_OK)) {
			free(cause);
			continue;
		}
		if (rc == IMAP_CONN_SAVED || res->rc == IMAP_OPS_OK ||
		    res->rc == IMAP_CONN_SAVED) {
			free(res->cause);
			res->cause = cause;
			res->rc = rc;
		} else
			free(cause);
		if (rc == IMAP_CONN_SAVED)
			continue;
		if (rc == IMAP_OPS_REFUSED) {
			res->refused++;
			continue;
		}
		/* lost, or the cache failed: the rest is not tried */
		res->left += n - i;
		break;
	}
	return res->rc;
}

void
session_op_result_free(struct session_op_result *res)
{
	free(res->cause);
	free(res->trash);
	res->cause = res->trash = NULL;
}

/* "1 message" or "3 messages". */
static void
session_op_count(struct buf *b, size_t n)
{
	buf_addf(b, "%zu message%s", n, n == 1 ? "" : "s");
}

static const char *
session_op_verb(const struct session_op *op)
{
	switch (op->kind) {
	case SESSION_OP_FLAG:
		if (op->add == MSG_DELETED && op->remove == 0)
			return "marked deleted";
		if (op->remove == MSG_DELETED && op->add == 0)
			return "undeleted";
		if (op->add == MSG_SEEN && op->remove == 0)
			return "marked read";
		if (op->remove == MSG_SEEN && op->add == 0)
			return "marked new";
		if (op->add == MSG_FLAGGED && op->remove == 0)
			return "flagged";
		if (op->remove == MSG_FLAGGED && op->add == 0)
			return "unflagged";
		return "changed";
	case SESSION_OP_MOVE:
		return "moved to";
	case SESSION_OP_COPY:
		return "copied to";
	case SESSION_OP_DELETE:
		return "moved to";
	}
	return "done";
}

char *
session_op_said(const struct session_op *op, const char *folder,
    const struct session_op_result *res)
{
	struct buf	 b;
	const char	*to = op->kind == SESSION_OP_DELETE ? res->trash :
	    op->kind == SESSION_OP_FLAG ? NULL : op->to;
	const char	*sep = "";

	buf_init(&b);
	if (res->done > 0) {
		session_op_count(&b, res->done);
		if (op->kind == SESSION_OP_DELETE && res->gone > 0 &&
		    (to == NULL || strcmp(to, folder) == 0))
			buf_adds(&b, " deleted for good");
		else if (op->kind != SESSION_OP_FLAG)
			buf_addf(&b, " %s %s", session_op_verb(op),
			    to != NULL ? to : "the trash");
		else
			buf_addf(&b, " %s", session_op_verb(op));
		sep = "; ";
	}
	if (res->kept > 0) {
		buf_adds(&b, sep);
		session_op_count(&b, res->kept);
		buf_addf(&b, " copied to %s, the original%s in %s flagged "
		    "deleted but still there: the server offers neither MOVE "
		    "nor UIDPLUS, and expunging would remove every message "
		    "flagged deleted", to != NULL ? to : "the trash",
		    res->kept == 1 ? "" : "s", folder);
		sep = "; ";
	}
	if (res->marked > 0) {
		buf_adds(&b, sep);
		session_op_count(&b, res->marked);
		buf_addf(&b, " flagged deleted but still in %s: the server "
		    "does not offer UIDPLUS, and expunging would remove every "
		    "message flagged deleted", folder);
		sep = "; ";
	}
	if (res->saved > 0) {
		buf_adds(&b, sep);
		session_op_count(&b, res->saved);
		buf_adds(&b, ": the change is saved and will be sent when the "
		    "server can be reached");
		if (res->rc == IMAP_CONN_SAVED && res->cause != NULL)
			buf_addf(&b, " (%s)", res->cause);
		sep = "; ";
	}
	if (res->refused > 0 || res->left > 0) {
		buf_adds(&b, sep);
		if (res->refused > 0) {
			session_op_count(&b, res->refused);
			buf_adds(&b, " refused");
		}
		if (res->left > 0) {
			buf_adds(&b, res->refused > 0 ? ", " : "");
			session_op_count(&b, res->left);
			buf_adds(&b, " not done");
		}
		if (res->cause != NULL && res->rc != IMAP_CONN_SAVED)
			buf_addf(&b, ": %s", res->cause);
		sep = "; ";
	}
	if (*sep == '\0')
		buf_adds(&b, "nothing to do");
	return buf_take(&b);
}

int
session_flag(struct session *s, const char *folder, uint32_t uid,
    msg_flags add, msg_flags remove, char **cause)
{
	return imap_conn_flag(s->conn, folder, uid, add, remove, cause);
}
