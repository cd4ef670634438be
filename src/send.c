/*
 * send.c: the outbox flush of send.h.
 *
 * Connections are opened lazily, once per account and flush, and a failed
 * connection is not retried within the same flush: every other message of
 * that account stays queued with the same reason. The order of the steps
 * is what makes the outbox safe: the acceptance is written to disk right
 * after the server's reply and before anything else, so a crash after it
 * can only repeat the copy to Sent, which is checked by Message-ID first.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "draft.h"
#include "imap-mailbox.h"
#include "imap-role.h"
#include "imap-session.h"
#include "log.h"
#include "oauth2.h"
#include "outbox.h"
#include "password.h"
#include "send.h"
#include "smtp-session.h"
#include "smtp-submit.h"
#include "xmalloc.h"

/*
 * Fault injection for the tests of the outbox: with STEEDMAIL_CRASH_AT set
 * to a step's name, the process kills itself there, as a crash or a power
 * cut would. Steps: queued, accepted, appended, saved; and synced (after
 * --sync stored the envelopes, before its trust step: ui/cli-mail.c).
 */
void
send_crash_point(const char *step)
{
	const char	*at = getenv("STEEDMAIL_CRASH_AT");

	if (at != NULL && strcmp(at, step) == 0)
		raise(SIGKILL);
}

struct send_conn {
	const struct account	*a;
	char			*password;
	char			*password_error;
	mailsmtp		*smtp;
	char			*smtp_error;
	int			 smtp_login;	/* smtp_error: the server
						   refused the login */
	mailimap		*imap;
	char			*imap_error;
	char			*sent;		/* name of the Sent mailbox */
	struct send_conn	*next;
};

struct send_ctx {
	struct config		*cf;
	int			 flags;		/* SEND_LOOK_AGAIN ... */
	char			*dir;
	struct send_conn	*conns;
	struct send_report	*rep;
};

static void
send_add(struct send_ctx *ctx, const char *id, enum send_status st,
    char *text)
{
	struct send_report	*r = ctx->rep;

	r->items = xreallocarray(r->items, r->n + 1, sizeof *r->items);
	r->items[r->n].id = xstrdup(id);
	r->items[r->n].status = st;
	r->items[r->n].text = text;
	r->items[r->n].login_refused = 0;
	r->n++;
	log_msg(LOG_INFO, "send: %s: %s", id, text);
}

static struct send_conn *
send_conn(struct send_ctx *ctx, const struct account *a)
{
	struct send_conn	*c;

	for (c = ctx->conns; c != NULL; c = c->next)
		if (c->a == a)
			return c;
	c = xcalloc(1, sizeof *c);
	c->a = a;
	c->next = ctx->conns;
	ctx->conns = c;
	return c;
}

static const char *
send_ca_file(struct send_ctx *ctx, const struct account *a)
{
	return a->ca_file != NULL ? a->ca_file : ctx->cf->ca_file;
}

static const char *
send_password(struct send_ctx *ctx, struct send_conn *c)
{
	if (c->password == NULL && c->password_error == NULL)
		c->password = password_get(ctx->cf, c->a, &c->password_error);
	return c->password;
}

/*
 * An OAuth2 account's server refused its access token: a fresh one in
 * place of the one in hand. 0, or -1 with the reason as the smtp error.
 */
static int
send_token(struct send_ctx *ctx, struct send_conn *c)
{
	char	*token, *why = NULL;

	if ((token = oauth2_access(ctx->cf, c->a, OAUTH2_FORCE, &why)) ==
	    NULL) {
		free(c->smtp_error);
		c->smtp_error = why;
		return -1;
	}
	freezero_str(c->password);
	c->password = token;
	return 0;
}

static mailsmtp *
send_smtp(struct send_ctx *ctx, struct send_conn *c, const char **why)
{
	enum smtp_session_stage	 stage;
	const char		*pw;

	if (c->smtp == NULL && c->smtp_error == NULL) {
		if ((pw = send_password(ctx, c)) == NULL) {
			*why = c->password_error;
			return NULL;
		}
		c->smtp = smtp_session_open_stage(c->a,
		    send_ca_file(ctx, c->a), pw, &stage, &c->smtp_error);
		if (c->smtp == NULL && stage == SMTP_SESSION_LOGIN &&
		    oauth2_account(c->a) && send_token(ctx, c) == 0) {
			/* refused before its time: once more, fresh */
			free(c->smtp_error);
			c->smtp_error = NULL;
			c->smtp = smtp_session_open(c->a,
			    send_ca_file(ctx, c->a), c->password,
			    &c->smtp_error);
		}
		c->smtp_login = c->smtp == NULL && stage == SMTP_SESSION_LOGIN;
	}
	*why = c->smtp_error;
	return c->smtp;
}

static mailimap *
send_imap(struct send_ctx *ctx, struct send_conn *c, const char **why)
{
	const char	*pw;

	if (c->imap == NULL && c->imap_error == NULL) {
		if ((pw = send_password(ctx, c)) == NULL) {
			*why = c->password_error;
			return NULL;
		}
		c->imap = imap_session_open(c->a, send_ca_file(ctx, c->a), pw,
		    &c->imap_error);
		if (c->imap != NULL) {
			c->sent = imap_role_folder(c->imap, c->a,
			    IMAP_ROLE_SENT, &c->imap_error);
			if (c->sent == NULL) {
				imap_session_close(c->imap);
				c->imap = NULL;
			}
		}
	}
	*why = c->imap_error;
	return c->imap;
}

/* The Message-ID header of a message we built ourselves, or NULL. */
static char *
send_msgid(const char *msg, size_t len)
{
	const char	*p = msg, *end = msg + len, *eol;

	while (p < end && *p != '\r' && *p != '\n') {
		eol = memchr(p, '\n', end - p);
		if (eol == NULL)
			eol = end;
		if (eol - p > 11 && strncasecmp(p, "Message-ID:", 11) == 0) {
			const char *v = p + 11, *e = eol;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == '\r' || e[-1] == ' '))
				e--;
			return xstrndup(v, e - v);
		}
		p = eol + 1;
	}
	return NULL;
}

static void
send_submit(struct send_ctx *ctx, struct send_conn *c,
    struct outbox_entry *e, const struct buf *msg)
{
	struct smtp_submit_result	 res;
	mailsmtp			*smtp;
	const char			*why;
	char				*cause = NULL, *where;

	if ((smtp = send_smtp(ctx, c, &why)) == NULL) {
		send_add(ctx, e->id, SEND_QUEUED, xasprintf("queued: %s", why));
		/* not a server out of reach: the login must be put right */
		ctx->rep->items[ctx->rep->n - 1].login_refused = c->smtp_login;
		return;
	}
	smtp_submit(smtp, e->from, e->rcpts, e->nrcpts, msg->data, msg->len,
	    &res);
	switch (res.status) {
	case SMTP_SUBMIT_ACCEPTED:
		if (outbox_mark_accepted(ctx->dir, e, res.reply, &cause) == -1) {
			send_add(ctx, e->id, SEND_UNSAVED, xasprintf("sent, but "
			    "%s; it may be sent a second time", cause));
			free(cause);
		}
		send_crash_point("accepted");
		break;
	case SMTP_SUBMIT_TEMPFAIL:
		send_add(ctx, e->id, SEND_QUEUED,
		    xasprintf("queued: %s", res.what));
		if (res.code == 0) {	/* connection lost: stop using it */
			smtp_session_close(c->smtp);
			c->smtp = NULL;
			c->smtp_error = xstrdup(res.what);
		}
		break;
	case SMTP_SUBMIT_REFUSED:
		where = outbox_fail(ctx->dir, e, res.what, &cause);
		if (where == NULL) {
			send_add(ctx, e->id, SEND_REFUSED, xasprintf("%s (and "
			    "it stays in the outbox: %s)", res.what, cause));
			free(cause);
		} else {
			send_add(ctx, e->id, SEND_REFUSED, xasprintf("%s; the "
			    "message is kept in %s", res.what, where));
			free(where);
		}
		break;
	}
	smtp_submit_result_free(&res);
}

#define SEND_COPY_AUTO	0	/* append to Sent, unless Gmail keeps one */
#define SEND_COPY_ALWAYS 1
#define SEND_COPY_NEVER	2

/* The account's sent-copy setting. */
static int
send_copy(const struct account *a)
{
	if (a->sent_copy != NULL && strcmp(a->sent_copy, "yes") == 0)
		return SEND_COPY_ALWAYS;
	if (a->sent_copy != NULL && strcmp(a->sent_copy, "no") == 0)
		return SEND_COPY_NEVER;
	return SEND_COPY_AUTO;
}

/* Why no copy was appended to Sent (send_save()'s *no_copy). */
#define SEND_NO_COPY_SERVER	1	/* the server keeps one (Gmail) */
#define SEND_NO_COPY_SETTING	2	/* sent-copy = no */

/*
 * Keep a copy of what was sent in the Sent folder, unless the server
 * keeps one itself or the account asks for none (*no_copy then says
 * which).
 */
static void
send_save(struct send_ctx *ctx, struct send_conn *c, struct outbox_entry *e,
    const struct buf *msg, int recovering, int *no_copy)
{
	mailimap	*imap;
	const char	*why;
	char		*cause = NULL, *msgid;
	int		 found = 0;

	if (send_copy(c->a) == SEND_COPY_NEVER) {
		*no_copy = SEND_NO_COPY_SETTING;
		goto saved;
	}
	if ((imap = send_imap(ctx, c, &why)) == NULL) {
		send_add(ctx, e->id, SEND_UNSAVED, xasprintf("sent; not yet "
		    "saved in Sent: %s", why));
		return;
	}
	if (send_copy(c->a) == SEND_COPY_AUTO &&
	    imap_session_offers(imap, "X-GM-EXT-1")) {
		/* Gmail puts what its submission server sends in Sent Mail
		 * itself: a copy of ours would be a second one */
		log_msg(LOG_INFO, "send: %s: the server is Gmail's, which "
		    "keeps its own copy of sent mail: none appended", e->id);
		*no_copy = SEND_NO_COPY_SERVER;
		goto saved;
	}
	/* After a crash, the copy may already be there. */
	if (recovering && (msgid = send_msgid(msg->data, msg->len)) != NULL) {
		found = imap_mailbox_has_msgid(imap, c->sent, msgid, &cause);
		free(msgid);
		if (found == -1) {
			free(cause);
			cause = NULL;
			found = 0;
		}
	}
	if (!found && imap_mailbox_append(imap, c->sent, msg->data, msg->len,
	    1, &cause) == -1) {
		send_add(ctx, e->id, SEND_UNSAVED, xasprintf("sent; not yet "
		    "saved in Sent: %s", cause));
		free(cause);
		return;
	}
	send_crash_point("appended");
saved:
	if (outbox_mark_saved(ctx->dir, e, &cause) == -1) {
		send_add(ctx, e->id, SEND_UNSAVED, xasprintf("sent and saved, "
		    "but %s", cause));
		free(cause);
	}
}

/*
 * A held entry: decided again when the flush looks again. 1 when it is
 * queued now (and goes on as any other; *how says how it was protected),
 * 0 when it was reported.
 */
static int
send_held(struct send_ctx *ctx, struct outbox_entry *e, char **how)
{
	char	*line = NULL;

	if (!(ctx->flags & SEND_LOOK_AGAIN)) {
		send_add(ctx, e->id, SEND_HELD, draft_held_text(ctx->cf, e,
		    NULL));
		return 0;
	}
	switch (draft_release(ctx->cf, ctx->dir, e, (ctx->flags &
	    SEND_CAN_ASK) != 0, &line)) {
	case DRAFT_RELEASED:
		log_msg(LOG_INFO, "send: %s: decided: %s", e->id,
		    line != NULL ? line : "");
		*how = line;
		return 1;
	case DRAFT_STILL_HELD:
	case DRAFT_RELEASE_ERROR:
		send_add(ctx, e->id, SEND_HELD, draft_held_text(ctx->cf, e,
		    line));
		break;
	case DRAFT_GIVEN_UP:
		send_add(ctx, e->id, SEND_REFUSED, line);
		line = NULL;
		break;
	}
	free(line);
	return 0;
}

static void
send_one(struct send_ctx *ctx, struct outbox_entry *e)
{
	struct account		*a;
	struct send_conn	*c;
	struct buf		 msg;
	char			*cause = NULL, *how = NULL;
	int			 recovering = e->accepted, no_copy = 0;

	if (e->held && !send_held(ctx, e, &how))
		return;
	if ((a = config_account(ctx->cf, e->account, &cause)) == NULL) {
		send_add(ctx, e->id, SEND_QUEUED, xasprintf("queued: %s", cause));
		free(cause);
		free(how);
		return;
	}
	c = send_conn(ctx, a);
	buf_init(&msg);
	if (outbox_read(ctx->dir, e, &msg, &cause) == -1) {
		send_add(ctx, e->id, SEND_QUEUED, xasprintf("queued: %s", cause));
		free(cause);
		free(how);
		buf_free(&msg);
		return;
	}
	if (!e->accepted)
		send_submit(ctx, c, e, &msg);
	if (e->accepted && !e->saved)
		send_save(ctx, c, e, &msg, recovering, &no_copy);
	if (e->accepted && e->saved) {
		send_crash_point("saved");
		if (outbox_remove(ctx->dir, e, &cause) == -1) {
			send_add(ctx, e->id, SEND_UNSAVED, xasprintf("sent and "
			    "saved, but %s", cause));
			free(cause);
		} else if (no_copy == SEND_NO_COPY_SERVER)
			send_add(ctx, e->id, SEND_DONE, xasprintf("%s%ssent; "
			    "the server keeps the copy in Sent itself",
			    how != NULL ? how : "", how != NULL ? "; " : ""));
		else if (no_copy == SEND_NO_COPY_SETTING)
			send_add(ctx, e->id, SEND_DONE, xasprintf("%s%ssent; "
			    "no copy kept in Sent (sent-copy = no)",
			    how != NULL ? how : "", how != NULL ? "; " : ""));
		else if (how != NULL)
			send_add(ctx, e->id, SEND_DONE, xasprintf("%s; sent "
			    "and saved in Sent", how));
		else
			send_add(ctx, e->id, SEND_DONE, xstrdup(recovering ?
			    "sent earlier; now saved in Sent" :
			    "sent and saved in Sent"));
	}
	free(how);
	buf_free(&msg);
}

int
send_flush(struct config *cf, const char *only_id, int flags,
    struct send_report *rep, char **cause)
{
	struct send_ctx		  ctx;
	struct outbox_entry	**v;
	struct send_conn	 *c, *next;
	size_t			  n, i;
	int			  lock;

	memset(&ctx, 0, sizeof ctx);
	memset(rep, 0, sizeof *rep);
	ctx.cf = cf;
	ctx.flags = flags;
	ctx.rep = rep;
	if ((ctx.dir = outbox_dir(cause)) == NULL)
		return -1;
	if ((lock = outbox_lock(ctx.dir, cause)) == -1) {
		free(ctx.dir);
		return -1;
	}
	if (outbox_list(ctx.dir, &v, &n, cause) == -1) {
		outbox_unlock(lock);
		free(ctx.dir);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (only_id == NULL || strcmp(v[i]->id, only_id) == 0)
			send_one(&ctx, v[i]);
	outbox_free_entries(v, n);

	for (c = ctx.conns; c != NULL; c = next) {
		next = c->next;
		if (c->smtp != NULL)
			smtp_session_close(c->smtp);
		if (c->imap != NULL)
			imap_session_close(c->imap);
		freezero_str(c->password);
		free(c->password_error);
		free(c->smtp_error);
		free(c->imap_error);
		free(c->sent);
		free(c);
	}
	outbox_unlock(lock);
	free(ctx.dir);
	return 0;
}

void
send_report_free(struct send_report *rep)
{
	size_t	i;

	for (i = 0; i < rep->n; i++) {
		free(rep->items[i].id);
		free(rep->items[i].text);
	}
	free(rep->items);
	memset(rep, 0, sizeof *rep);
}
