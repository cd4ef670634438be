/*
 * cli-send.c: "steedmail -s SUBJECT RCPT... < body", "--postpone",
 * "--resume FILE" and "--flush": the command line made into a draft
 * (src/draft.h), and what became of it said. Sending is always: build
 * the message, put it in the outbox, flush the outbox. Nothing touches
 * the network before the message is safely on disk, so whatever happens
 * next, it is not lost. Deciding, protecting, queueing, postponing and
 * resuming are the engine's (draft.h; outgoing_send() then send_flush(),
 * the sequence the compose screen runs too); this file handles arguments
 * and output.
 *
 * Exit codes (sysexits.h): 0 sent, or queued for later with a note on
 * stderr (a server that cannot be reached; a recipient whose key lookup
 * failed: the message is held in the outbox until DNS answers); 64 a bad
 * command line; 65 a body that is not UTF-8 text; 66 an attachment that
 * cannot be read; 69 refused for good by the server, or the message could
 * not be signed or encrypted as asked (a key missing, gpg failing, a
 * bogus DNS answer for a recipient's key: nothing was queued); 75 the
 * message could not even be queued (nothing was sent; try again).
 *
 * The encryption policy (policy.h, the settings encrypt and fallback)
 * decides whether the message is encrypted; --encrypt and
 * --require-encryption make it encrypt or refuse (69, nothing queued),
 * --no-encrypt sends in clear. With fallback = ask, the question is put on
 * /dev/tty (standard input is the body), and without a terminal the
 * message is refused. --reply FILE makes it a reply to the message in
 * FILE; a reply to encrypted mail is encrypted or refused, whatever the
 * settings, unless --no-encrypt says otherwise. Mail is signed whenever
 * the account has an OpenPGP key (--sign makes one); encrypting makes one
 * too. The message carries an Autocrypt header whenever the account has a
 * key.
 *
 * -s ... --postpone keeps the draft instead (doc/sending.md): its file
 * name on standard output, exit 0, or 69 when it cannot be kept (it would
 * be encrypted and gpg fails). --resume FILE sends it: 65 when FILE is
 * not a draft or cannot be decrypted, else as -s.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>
#include <unistd.h>

#include "addr.h"
#include "buf.h"
#include "cli.h"
#include "draft.h"
#include "mime-parse.h"
#include "outgoing.h"
#include "send.h"
#include "strsafe.h"
#include "xmalloc.h"

#define CMD_SEND_BODY_MAX	(64u * 1024 * 1024)

/* Every recipient must be one plain address; say which one is not. */
static int
cmd_send_check_addrs(char **v, size_t n, const char *what)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strpbrk(v[i], "\r\n") != NULL) {
			cmd_error("%s address contains a line break: refused",
			    what);
			return -1;
		}
		if (!addr_valid(v[i])) {
			cmd_error("%s \"%s\" is not a mail address "
			    "(local@domain)", what, v[i]);
			return -1;
		}
	}
	return 0;
}

static int
cmd_send_read_body(struct buf *body)
{
	char	chunk[65536];
	ssize_t	n;

	while ((n = read(STDIN_FILENO, chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			cmd_error("cannot read the message body: %s",
			    strerror(errno));
			return EX_IOERR;
		}
		if (body->len + n > CMD_SEND_BODY_MAX) {
			cmd_error("the message body is larger than %u MB; "
			    "attach large files with -a",
			    CMD_SEND_BODY_MAX / (1024 * 1024));
			return EX_DATAERR;
		}
		buf_add(body, chunk, n);
	}
	return EX_OK;
}

/*
 * Say what happened to the message id (NULL: every one); return the exit
 * code. line, for -s's message, is how it was protected ("sent in clear:
 * ..."): said as it is once the message went, and as what will happen
 * when it has not yet.
 */
static int
cmd_send_report(const struct send_report *rep, const char *id,
    const char *line)
{
	size_t	i, others = 0;
	int	rc = EX_OK, found = 0;

	for (i = 0; i < rep->n; i++) {
		const struct send_item *it = &rep->items[i];
		if (id != NULL && strcmp(it->id, id) != 0) {
			if (it->status != SEND_DONE)
				others++;
			continue;
		}
		found = 1;
		if (line != NULL && (it->status == SEND_DONE ||
		    it->status == SEND_UNSAVED))
			cmd_error("%s", line);
		switch (it->status) {
		case SEND_DONE:
			if (id == NULL)
				printf("%s: %s\n", it->id, it->text);
			break;
		case SEND_UNSAVED:
			cmd_error("%s%s%s", id ? "" : it->id, id ? "" : ": ",
			    it->text);
			break;
		case SEND_QUEUED:
			/*
			 * A refused login does not mend itself as a server
			 * out of reach does: not sent, and 75 even for -s
			 */
			if (it->login_refused)
				cmd_error("%s%s%s; not sent: it stays in the "
				    "outbox until the account's password (or "
				    "sign-in) is put right, then steedmail "
				    "--flush sends it", id ? "" : it->id,
				    id ? "" : ": ", it->text);
			else
				cmd_error("%s%s%s; it stays in the outbox and "
				    "is sent by the next run or steedmail "
				    "--flush", id ? "" : it->id,
				    id ? "" : ": ", it->text);
			if (line != NULL)
				cmd_error("not sent yet; once it is: %s", line);
			if (id == NULL || it->login_refused)
				rc = rc == EX_OK ? EX_TEMPFAIL : rc;
			break;
		case SEND_REFUSED:
			cmd_error("%s%s%s", id ? "" : it->id, id ? "" : ": ",
			    it->text);
			rc = EX_UNAVAILABLE;
			break;
		case SEND_HELD:
			/* -s said it already, when it held the message */
			if (id != NULL)
				break;
			cmd_error("%s: %s; it stays in the outbox", it->id,
			    it->text);
			rc = rc == EX_OK ? EX_TEMPFAIL : rc;
			break;
		}
	}
	if (id != NULL && !found) {
		cmd_error("the message is queued; another steedmail is "
		    "sending the outbox");
		if (line != NULL)
			cmd_error("once it is sent: %s", line);
	}
	if (others > 0)
		cmd_error("%zu older message%s in the outbox could not be "
		    "sent yet (see steedmail --flush)", others,
		    others == 1 ? "" : "s");
	return rc;
}

/*
 * Can fallback = ask put its question (fe_confirm(), on the terminal:
 * standard input is the body)?
 */
static int
cmd_send_can_ask(void)
{
	int	fd;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
		return 0;
	close(fd);
	return 1;
}

static void
cmd_send_opts(struct cmd_ctx *ctx, struct draft_opts *o)
{
	memset(o, 0, sizeof *o);
	o->sign = ctx->sign;
	o->encrypt = ctx->encrypt;
	o->require = ctx->require_encryption;
	o->never = ctx->no_encrypt;
	o->smime = ctx->smime;
}

/* A message file (--reply, --forward) parsed; NULL after saying why. */
static struct mime_msg *
cmd_send_message(const char *opt, const char *path, struct buf *raw,
    int *rc)
{
	struct mime_msg	*m;
	char		*cause = NULL;

	if (strcmp(path, "-") == 0) {
		cmd_error("%s wants a message file; standard input is the "
		    "message body", opt);
		*rc = EX_USAGE;
		return NULL;
	}
	if ((*rc = cmd_view_read(path, raw)) != EX_OK)
		return NULL;
	if ((m = mime_parse_copy(raw->data != NULL ? raw->data : "",
	    raw->len, &cause)) == NULL) {
		cmd_error("%s: %s", path, cause);
		free(cause);
		*rc = EX_DATAERR;
	}
	return m;
}

/*
 * --forward FILE (attached, as it came) or --forward-inline FILE (its
 * header and text in the body, below what was written): mail with
 * encrypted content is forwarded encrypted, or not at all.
 */
static int
cmd_send_forward(struct cmd_ctx *ctx, struct draft *d)
{
	struct buf	 raw;
	struct mime_msg	*m;
	char		*cause = NULL;
	int		 rc;

	buf_init(&raw);
	if ((m = cmd_send_message(ctx->forward_inline ? "--forward-inline" :
	    "--forward", ctx->forward, &raw, &rc)) == NULL) {
		buf_free(&raw);
		return rc;
	}
	cmd_crypto_init(ctx);
	rc = EX_OK;
	if (draft_forward(d, m, raw.data, raw.len, ctx->forward_inline ?
	    DRAFT_INLINE : 0, &cause) == -1) {
		cmd_error("%s: %s", ctx->forward, cause);
		free(cause);
		rc = EX_DATAERR;
	}
	mime_msg_free(m);
	buf_free(&raw);
	return rc;
}

/*
 * --reply FILE: the draft answers the message in FILE: In-Reply-To,
 * References, and the rule that a reply to encrypted mail is encrypted.
 * The recipients and the subject are the command line's; its text is
 * quoted only with --quote (draft.h says what is never quoted). Returns
 * an exit code after saying why.
 */
static int
cmd_send_reply(struct cmd_ctx *ctx, struct draft *d)
{
	struct buf	 raw;
	struct mime_msg	*m;
	char		*cause = NULL;
	int		 rc;

	buf_init(&raw);
	if ((m = cmd_send_message("--reply", ctx->reply, &raw, &rc)) ==
	    NULL) {
		buf_free(&raw);
		return rc;
	}
	cmd_crypto_init(ctx);
	rc = EX_OK;
	if (draft_reply(d, m, DRAFT_KEEP | (ctx->quote ? DRAFT_QUOTE : 0),
	    &cause) == -1) {
		cmd_error("%s: %s", ctx->reply, cause);
		free(cause);
		rc = EX_DATAERR;
	}
	mime_msg_free(m);
	buf_free(&raw);
	return rc;
}

/* The policy refused the message: say why, as each flag always said. */
static void
cmd_send_refused(struct cmd_ctx *ctx, const struct draft *d,
    const struct draft_protection *p)
{
	const struct policy_result	*res = &p->policy;
	struct buf			 names;
	size_t				 i;
	int				 why = 0;

	if (res->action == POLICY_HOLD) {
		cmd_error("%s; nothing was sent (--no-encrypt sends it in "
		    "clear)", p->line);
		return;
	}
	if (!ctx->encrypt || d->from_encrypted) {
		cmd_error("%s", p->line);
		return;
	}
	/* As --encrypt always said it. */
	buf_init(&names);
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr != NULL)
			continue;
		why |= res->rcpts[i].why != NULL || res->rcpts[i].dns_bogus;
		buf_addf(&names, "%s%s", names.len > 0 ? ", " : "",
		    res->rcpts[i].addr);
	}
	if (!why)
		cmd_error("no %s key for %s: not sent (add it with steedmail "
		    "--import-key)", ctx->smime ? "S/MIME" : "OpenPGP",
		    names.data);
	else
		cmd_error("%s", p->line);
	buf_free(&names);
}

/*
 * The outbox flushed after a send: what became of entry id is said.
 * A flush that cannot run leaves the message queued (exit 0); after a
 * hold that is all there is to say.
 */
static int
cmd_send_flush(struct cmd_ctx *ctx, const char *id, int held,
    const char *line)
{
	struct send_report	 rep;
	char			*cause = NULL;
	int			 rc;

	/* a held one was looked up just now: the others go */
	if (send_flush(ctx->cf, NULL, 0, &rep, &cause) == -1) {
		if (!held)
			cmd_error("the message is queued but was not sent: %s",
			    cause);
		if (line != NULL)
			cmd_error("once it is sent: %s", line);
		free(cause);
		return EX_OK;
	}
	rc = cmd_send_report(&rep, id, line);
	send_report_free(&rep);
	return rc;
}

/*
 * The draft protected as the flags, the settings and the encryption
 * policy say (draft.h), queued (or held for DNS: a recipient's key lookup
 * failed), and the outbox flushed, as outgoing.h orders it; what happened
 * is said. Returns the exit code; *queued is set once the outbox has it.
 */
static int
cmd_send_draft(struct cmd_ctx *ctx, const struct draft *d, int *queued)
{
	struct draft_opts	 o;
	struct outgoing_send	 s;
	char			*span;
	int			 rc = EX_OK;

	*queued = 0;
	cmd_send_opts(ctx, &o);
	o.can_ask = draft_may_ask(d, ctx->cf, &o) && cmd_send_can_ask();
	outgoing_send(d, ctx->cf, &o, 0, &s);
	switch (s.result) {
	case OUTGOING_UNBUILT:
		cmd_error("%s", s.cause);
		rc = s.bad_input ? EX_DATAERR : EX_UNAVAILABLE;
		break;
	case OUTGOING_REFUSED:
		cmd_send_refused(ctx, d, &s.p);
		rc = EX_UNAVAILABLE;
		break;
	case OUTGOING_UNHELD:
		cmd_error("%s; and it cannot be held in the outbox, nothing "
		    "was sent: %s", s.p.line, s.cause);
		rc = EX_TEMPFAIL;
		break;
	case OUTGOING_HELD:
		*queued = 1;
		span = draft_wait_words(ctx->cf);
		cmd_error("queued, not sent: %s; it is never sent in clear "
		    "because DNS failed: steedmail --flush looks again, for %s "
		    "(dns-wait)", s.p.line, span);
		free(span);
		rc = cmd_send_flush(ctx, s.id, 1, NULL);
		break;
	case OUTGOING_UNQUEUED:
		cmd_error("cannot queue the message, nothing was sent: %s",
		    s.cause);
		rc = EX_TEMPFAIL;
		break;
	case OUTGOING_QUEUED:
		/* how it goes ("sent in clear: ...") is said once it went,
		 * or as what will happen when it has not */
		*queued = 1;
		send_crash_point("queued");
		rc = cmd_send_flush(ctx, s.id, 0, s.p.line);
		break;
	}
	outgoing_send_free(&s);
	return rc;
}

/* The draft the command line describes; NULL after saying why (*rc). */
static struct draft *
cmd_send_make(struct cmd_ctx *ctx, int *rc)
{
	struct account	*a;
	struct draft	*d;
	struct buf	 body;
	size_t		 i;

	*rc = EX_USAGE;
	if (ctx->argc == 0) {
		cmd_error("-s needs at least one recipient");
		return NULL;
	}
	if (strpbrk(ctx->subject, "\r\n") != NULL) {
		cmd_error("the subject contains a line break: refused");
		return NULL;
	}
	if (cmd_send_check_addrs(ctx->argv, ctx->argc, "recipient") == -1 ||
	    cmd_send_check_addrs(ctx->cc, ctx->ncc, "Cc") == -1 ||
	    cmd_send_check_addrs(ctx->bcc, ctx->nbcc, "Bcc") == -1)
		return NULL;
	for (i = 0; i < ctx->nattach; i++) {
		if (access(ctx->attach[i], R_OK) == -1) {
			cmd_error("cannot read attachment %s: %s",
			    ctx->attach[i], strerror(errno));
			*rc = EX_NOINPUT;
			return NULL;
		}
	}
	if ((a = cmd_account(ctx)) == NULL)
		return NULL;
	d = draft_new(a);
	for (i = 0; i < (size_t)ctx->argc; i++)
		draft_add(d, DRAFT_TO, ctx->argv[i]);
	for (i = 0; i < ctx->ncc; i++)
		draft_add(d, DRAFT_CC, ctx->cc[i]);
	for (i = 0; i < ctx->nbcc; i++)
		draft_add(d, DRAFT_BCC, ctx->bcc[i]);
	for (i = 0; i < ctx->nattach; i++)
		draft_attach(d, ctx->attach[i]);
	if (ctx->reply != NULL && (*rc = cmd_send_reply(ctx, d)) != EX_OK) {
		draft_free(d);
		return NULL;
	}
	if (ctx->forward != NULL &&
	    (*rc = cmd_send_forward(ctx, d)) != EX_OK) {
		draft_free(d);
		return NULL;
	}
	/* -s "" with --forward: the forward's own "Fwd: SUBJECT". */
	if (ctx->forward == NULL || *ctx->subject != '\0')
		draft_set_subject(d, ctx->subject);
	buf_init(&body);
	if ((*rc = cmd_send_read_body(&body)) != EX_OK) {
		buf_free(&body);
		draft_free(d);
		return NULL;
	}
	if (d->body != NULL && ctx->forward != NULL) {
		/* --forward-inline: what was written, then the message. */
		buf_addc(&body, '\0');
		draft_set_body(d, xasprintf("%s\n%s", body.data, d->body));
	} else if (d->body != NULL) {
		/* --quote: the quote first, then what was written. */
		buf_addc(&body, '\0');
		draft_set_body(d, xasprintf("%s\n%s", d->body, body.data));
	} else
		draft_set_body(d, body.data != NULL ? buf_take(&body) : NULL);
	buf_free(&body);
	return d;
}

/*
 * --postpone: the draft kept in the drafts directory, encrypted to the
 * account's own key when the message would be encrypted; its file name
 * on standard output, for --resume.
 */
static int
cmd_send_postpone(struct cmd_ctx *ctx, struct draft *d)
{
	struct draft_opts	 o;
	char			*path = NULL, *cause = NULL;
	int			 rc, encrypted;

	cmd_send_opts(ctx, &o);
	rc = draft_postpone(d, ctx->cf, &o, &path, &encrypted, &cause);
	if (rc == -1) {
		cmd_error("cannot postpone the draft: %s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	cmd_error("draft postponed%s; send it with steedmail --resume FILE",
	    encrypted ? ", encrypted to your own key" : "");
	printf("%s\n", path);
	free(path);
	return fflush(stdout) == 0 ? EX_OK : EX_IOERR;
}

int
cmd_send(struct cmd_ctx *ctx)
{
	struct draft	*d;
	int		 rc, queued;

	if ((d = cmd_send_make(ctx, &rc)) == NULL)
		return rc;
	if (ctx->postpone)
		rc = cmd_send_postpone(ctx, d);
	else
		rc = cmd_send_draft(ctx, d, &queued);
	draft_free(d);
	return rc;
}

/*
 * --resume FILE: a postponed draft, sent as -s would have sent it; the
 * file is removed once the message is in the outbox.
 */
int
cmd_resume(struct cmd_ctx *ctx)
{
	struct account	*a;
	struct draft	*d;
	char		*cause = NULL;
	int		 rc, queued;

	if (ctx->argc != 0) {
		cmd_error("unexpected argument \"%s\"", ctx->argv[0]);
		return EX_USAGE;
	}
	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	cmd_crypto_init(ctx);
	if ((d = draft_resume(a, ctx->resume, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		return EX_DATAERR;
	}
	if (d->nto + d->ncc + d->nbcc == 0) {
		cmd_error("%s has no recipient", ctx->resume);
		draft_free(d);
		return EX_DATAERR;
	}
	rc = cmd_send_draft(ctx, d, &queued);
	draft_free(d);
	if (queued && draft_discard(ctx->resume, &cause) == -1) {
		cmd_error("warning: the draft stays: %s", cause);
		free(cause);
	}
	return rc;
}

int
cmd_flush(struct cmd_ctx *ctx)
{
	struct send_report	 rep;
	char			*cause = NULL;
	int			 rc;

	/* held messages are decided again; a person at a terminal may be
	 * asked about one that waited too long */
	if (send_flush(ctx->cf, NULL, SEND_LOOK_AGAIN | (cmd_send_can_ask() ?
	    SEND_CAN_ASK : 0), &rep, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_TEMPFAIL;
	}
	if (rep.n == 0)
		printf("the outbox is empty\n");
	rc = cmd_send_report(&rep, NULL, NULL);
	send_report_free(&rep);
	return rc;
}
