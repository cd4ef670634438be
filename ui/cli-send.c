/*
 * cli-send.c: "steedmail -s SUBJECT RCPT... < body" and "steedmail
 * --flush". Sending is always: build the message, put it in the outbox,
 * flush the outbox. Nothing touches the network before the message is
 * safely on disk, so whatever happens next, it is not lost.
 *
 * Exit codes (sysexits.h): 0 sent, or queued for later with a note on
 * stderr; 64 a bad command line; 65 a body that is not UTF-8 text; 66 an
 * attachment that cannot be read; 69 refused for good by the server, or
 * the message could not be signed or encrypted as asked (a key missing,
 * gpg failing: nothing was queued); 75 the message could not even be
 * queued (nothing was sent; try again).
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
#include "crypto-in.h"
#include "crypto-out.h"
#include "crypto.h"
#include "mime-body.h"
#include "mime-build.h"
#include "mime-parse.h"
#include "outbox.h"
#include "ownkey.h"
#include "paths.h"
#include "policy.h"
#include "send.h"
#include "strsafe.h"
#include "xmalloc.h"

#define CMD_SEND_BODY_MAX	(64u * 1024 * 1024)
#define CMD_SEND_REFS_MAX	30	/* message IDs kept in References */
#define CMD_SEND_ID_MAX		900	/* longer IDs fit on no header line */

/* What --reply FILE gives the reply. */
struct cmd_send_reply {
	char	*in_reply_to;	/* the Message-ID of FILE, or NULL */
	char	*references;	/* its References and Message-ID, or NULL */
	int	 encrypted;	/* FILE was encrypted */
};

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

static struct mime_addr *
cmd_send_addrs(char **v, size_t n)
{
	struct mime_addr	*a;
	size_t			 i;

	a = xcalloc(n + 1, sizeof *a);
	for (i = 0; i < n; i++)
		a[i].addr = v[i];
	return a;
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
 * The message IDs ("<...>") in a header value, appended to v; anything
 * else (comments, junk) is dropped.
 */
static void
cmd_send_ids(const char *s, char ***v, size_t *n)
{
	const char	*p, *e;
	size_t		 len;

	while (s != NULL && (p = strchr(s, '<')) != NULL) {
		for (e = p + 1; *e > ' ' && *e < 0x7f && *e != '<' &&
		    *e != '>'; e++)
			;
		len = e - p + 1;
		if (*e == '>' && e > p + 1 && len <= CMD_SEND_ID_MAX) {
			*v = xreallocarray(*v, *n + 1, sizeof **v);
			(*v)[(*n)++] = xstrndup(p, len);
		}
		s = *e == '>' ? e + 1 : e;
	}
}

/*
 * Is there encrypted content anywhere in m? crypto-in's verdict on the
 * top, and, since it opens encryption only there, any encrypted part
 * below it too: a reply to mail that had anything encrypted in it must
 * not be sent in clear.
 */
static int
cmd_send_was_encrypted(struct mime_msg *m)
{
	static const char	 armor[] = "-----BEGIN PGP MESSAGE-----";
	struct crypto_in	*ci;
	struct mime_part	*p;
	struct buf		 body;
	char			*st;
	size_t			 i;
	int			 yes;

	ci = crypto_in_analyse(m, 0);
	yes = ci->encryption != CRYPTO_IN_NONE;
	for (i = 0; i < ci->nparts; i++)
		yes |= ci->parts[i].decrypted;
	crypto_in_free(ci);
	for (p = m->root; p != NULL && !yes; p = mime_part_next(p)) {
		if (mime_part_is(p, "multipart", "encrypted") ||
		    mime_part_is(p, "application", "pgp-encrypted"))
			yes = 1;
		else if (mime_part_is(p, "application", "pkcs7-mime") ||
		    mime_part_is(p, "application", "x-pkcs7-mime")) {
			st = mime_part_param(p, "smime-type");
			yes = st == NULL || (strcasecmp(st, "signed-data") &&
			    strcasecmp(st, "certs-only"));
			free(st);
		} else if (mime_part_is(p, "text", NULL)) {
			buf_init(&body);
			mime_body_decode(p, &body);
			yes = body.len > 0 && memmem(body.data, body.len,
			    armor, sizeof armor - 1) != NULL;
			buf_free(&body);
		}
	}
	return yes;
}

/*
 * --reply FILE: In-Reply-To and References from FILE's Message-ID and
 * References (RFC 5322 3.6.4), and whether FILE was encrypted. Nothing
 * of its text is used. Returns an exit code after saying why.
 */
static int
cmd_send_reply(struct cmd_ctx *ctx, struct cmd_send_reply *r)
{
	struct buf	  raw, refs;
	struct mime_msg	 *m;
	char		**ids = NULL, **own = NULL, *v, *cause = NULL;
	size_t		  nids = 0, nown = 0, i, len;
	int		  rc;

	memset(r, 0, sizeof *r);
	if (strcmp(ctx->reply, "-") == 0) {
		cmd_error("--reply wants the file replied to; standard input "
		    "is the message body");
		return EX_USAGE;
	}
	buf_init(&raw);
	if ((rc = cmd_view_read(ctx->reply, &raw)) != EX_OK) {
		buf_free(&raw);
		return rc;
	}
	len = raw.len;
	if ((m = mime_parse(buf_take(&raw), len, &cause)) == NULL) {
		cmd_error("%s: %s", ctx->reply, cause);
		free(cause);
		return EX_DATAERR;
	}
	v = mime_header_get(&m->root->header, "Message-ID", NULL);
	cmd_send_ids(v, &own, &nown);
	free(v);
	v = mime_header_get(&m->root->header, "References", NULL);
	cmd_send_ids(v, &ids, &nids);
	free(v);
	if (nids == 0) {
		v = mime_header_get(&m->root->header, "In-Reply-To", NULL);
		cmd_send_ids(v, &ids, &nids);
		free(v);
		/* Only one ID there says which message it replied to. */
		for (i = 1; i < nids; i++)
			free(ids[i]);
		nids = nids > 1 ? 1 : nids;
	}
	if (nown > 0) {
		ids = xreallocarray(ids, nids + 1, sizeof *ids);
		ids[nids++] = xstrdup(own[0]);
		r->in_reply_to = xstrdup(own[0]);
	}
	/* A long thread: the first message and the latest ones. */
	buf_init(&refs);
	for (i = 0; i < nids; i++) {
		if (i == 0 || i + CMD_SEND_REFS_MAX - 1 >= nids)
			buf_addf(&refs, "%s%s", refs.len > 0 ? " " : "",
			    ids[i]);
		free(ids[i]);
	}
	for (i = 0; i < nown; i++)
		free(own[i]);
	free(ids);
	free(own);
	r->references = refs.len > 0 ? buf_take(&refs) : NULL;
	buf_free(&refs);
	cmd_crypto_init(ctx);
	r->encrypted = cmd_send_was_encrypted(m);
	mime_msg_free(m);
	return EX_OK;
}

static void
cmd_send_reply_free(struct cmd_send_reply *r)
{
	free(r->in_reply_to);
	free(r->references);
}

/* Write all of s to fd; -1 on failure. */
static int
cmd_send_write(int fd, const char *s, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, s, len)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		s += n;
		len -= n;
	}
	return 0;
}

/*
 * fallback = ask: the recipients without a key and why, then "send in
 * clear? [y/N]" on the terminal fd, and one line read back from it.
 * *asked is 0 when the question could not be put; returns 1 for yes.
 */
static int
cmd_send_ask(int fd, const struct policy_result *res, int *asked)
{
	struct buf	 q;
	char		 line[64], c, *safe;
	size_t		 i, n = 0;
	ssize_t		 r;

	*asked = 0;
	buf_init(&q);
	buf_adds(&q, "steedmail: this message cannot be encrypted to every "
	    "recipient:\n");
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr != NULL)
			continue;
		safe = strsafe(res->rcpts[i].addr, 0);
		buf_addf(&q, "  %s: ", safe);
		free(safe);
		safe = strsafe(policy_rcpt_reason(&res->rcpts[i]), 0);
		buf_addf(&q, "%s\n", safe);
		free(safe);
	}
	buf_adds(&q, "send in clear? [y/N] ");
	if (cmd_send_write(fd, q.data, q.len) == -1) {
		buf_free(&q);
		return 0;
	}
	buf_free(&q);
	*asked = 1;
	for (;;) {
		if ((r = read(fd, &c, 1)) == -1 && errno == EINTR)
			continue;
		if (r <= 0 || c == '\n')
			break;
		if (n < sizeof line - 1)
			line[n++] = c;
	}
	if (r <= 0)
		cmd_send_write(fd, "\n", 1);
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' ||
	    line[n - 1] == '\r'))
		n--;
	line[n] = '\0';
	return strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0;
}

/*
 * The encryption policy (policy.h) for the draft's recipients, asking on
 * the terminal when fallback = ask. Returns an exit code; res is set
 * (encrypt, or send in clear) when EX_OK.
 */
static int
cmd_send_policy(struct cmd_ctx *ctx, const struct mime_out *m, int keyring,
    int replying, struct policy_result *res)
{
	struct policy_in	  in;
	char			**addrs, *cause = NULL;
	size_t			  n = 0, i;
	int			  rc, tty = -1, asked, yes, must;

	memset(&in, 0, sizeof in);
	in.cf = ctx->cf;
	policy_mode(ctx->cf->encrypt, &in.mode);
	policy_fallback_mode(ctx->cf->fallback, &in.fallback);
	in.require = ctx->encrypt || ctx->require_encryption;
	in.never = ctx->no_encrypt;
	in.replying_encrypted = replying;
	in.smime = ctx->smime;
	in.use_dns = 1;
	in.home_empty = !keyring;
	must = in.require || replying || in.mode == POLICY_ALWAYS;
	/* Standard input is the body: the question goes to the terminal. */
	if (!in.never && !must && in.mode == POLICY_OPPORTUNISTIC &&
	    in.fallback == POLICY_ASK)
		tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	in.batch = tty == -1;
	addrs = xcalloc(m->nto + m->ncc + m->nbcc + 1, sizeof *addrs);
	for (i = 0; i < m->nto; i++)
		addrs[n++] = (char *)m->to[i].addr;
	for (i = 0; i < m->ncc; i++)
		addrs[n++] = (char *)m->cc[i].addr;
	for (i = 0; i < m->nbcc; i++)
		addrs[n++] = (char *)m->bcc[i].addr;
	rc = policy_decide(&in, addrs, n, res, &cause);
	free(addrs);
	if (rc == -1 && !must && in.mode == POLICY_OPPORTUNISTIC &&
	    in.fallback == POLICY_PLAINTEXT) {
		/* No keys can be known: what a missing key means, for all. */
		memset(res, 0, sizeof *res);
		res->action = POLICY_CLEAR;
		res->line = xasprintf("sent in clear: %s", cause);
		free(cause);
		if (tty != -1)
			close(tty);
		return EX_OK;
	}
	if (rc == -1) {
		cmd_error("cannot decide whether to encrypt, nothing was "
		    "sent: %s", cause);
		free(cause);
		if (tty != -1)
			close(tty);
		return EX_UNAVAILABLE;
	}
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].warning != NULL)
			cmd_error("warning: %s", res->rcpts[i].warning);
	}
	if (res->action == POLICY_ASK_USER) {
		yes = cmd_send_ask(tty, res, &asked);
		policy_answer(res, asked, yes);
	}
	if (tty != -1)
		close(tty);
	if (res->action != POLICY_REFUSE_SEND)
		return EX_OK;
	if (ctx->encrypt && !replying) {
		/* As --encrypt always said it. */
		struct buf	names;
		int		why = 0;
		buf_init(&names);
		for (i = 0; i < res->n; i++) {
			if (res->rcpts[i].fpr != NULL)
				continue;
			why |= res->rcpts[i].why != NULL ||
			    res->rcpts[i].dns_bogus;
			buf_addf(&names, "%s%s", names.len > 0 ? ", " : "",
			    res->rcpts[i].addr);
		}
		if (!why)
			cmd_error("no %s key for %s: not sent (add it with "
			    "steedmail --import-key)", ctx->smime ? "S/MIME" :
			    "OpenPGP", names.data);
		else
			cmd_error("%s", res->line);
		buf_free(&names);
	} else
		cmd_error("%s", res->line);
	policy_result_free(res);
	return EX_UNAVAILABLE;
}

/*
 * Sign or encrypt msg as the flags and the encryption policy say, and add
 * the Autocrypt header when the account has an OpenPGP key. STEED: mail
 * is signed whenever the account has a key, and encrypted whenever the
 * policy finds a key for every recipient. msg holds the plain message,
 * already checked; it is replaced only when the protected one is
 * complete. What was done goes to stderr in one line. Returns an exit
 * code after saying why.
 */
static int
cmd_send_protect(struct cmd_ctx *ctx, struct account *a,
    const struct mime_out *m, int replying, struct buf *msg)
{
	struct ownkey	 pgp, smime;
	struct crypto_out	 co;
	struct policy_result	 res;
	struct buf		 out;
	enum policy_encrypt	 mode;
	enum policy_fallback	 fallback;
	const char		**fprs = NULL;
	char			*cause = NULL;
	int			 want = ctx->sign || ctx->encrypt, have = 0;
	int			 keyring, must, clear, smime_clear, encrypt;
	int			 rc = EX_UNAVAILABLE;
	size_t			 i;

	memset(&pgp, 0, sizeof pgp);
	memset(&smime, 0, sizeof smime);
	memset(&res, 0, sizeof res);
	policy_mode(ctx->cf->encrypt, &mode);
	policy_fallback_mode(ctx->cf->fallback, &fallback);
	keyring = ownkey_have_keyring(ctx->cf);
	must = !ctx->no_encrypt && (ctx->encrypt || ctx->require_encryption ||
	    replying || mode == POLICY_ALWAYS);
	/* S/MIME is chosen per message; it encrypts when asked or bound to. */
	smime_clear = ctx->smime && !must && !ctx->no_encrypt;
	clear = ctx->no_encrypt || smime_clear || (mode == POLICY_NEVER &&
	    !must);
	if (want || must) {
		if (crypto_init(ctx->cf->gnupg_home, &cause) == -1) {
			cmd_error("%s", cause);
			free(cause);
			return EX_UNAVAILABLE;
		}
	} else if ((!clear || keyring) &&
	    crypto_init(ctx->cf->gnupg_home, &cause) == -1) {
		if (!clear && (mode != POLICY_OPPORTUNISTIC ||
		    fallback != POLICY_PLAINTEXT)) {
			cmd_error("cannot look for the recipients' keys, "
			    "nothing was sent: %s", cause);
			free(cause);
			return EX_UNAVAILABLE;
		}
		/* No gpg: plain mail still goes, and says so. */
		if (!clear)
			cmd_error("sent in clear: %s", cause);
		free(cause);
		if (!clear)
			return EX_OK;
		cause = NULL;
		keyring = 0;
	}
	if (smime_clear) {
		res.action = POLICY_CLEAR;
		res.line = xstrdup("sent in clear: --smime encrypts only with "
		    "--encrypt or --require-encryption");
	} else if ((rc = cmd_send_policy(ctx, m, keyring, replying, &res)) !=
	    EX_OK)
		return rc;
	rc = EX_UNAVAILABLE;
	encrypt = res.action == POLICY_ENCRYPT;
	if (encrypt) {
		fprs = xcalloc(res.n + 1, sizeof *fprs);
		for (i = 0; i < res.n; i++)
			fprs[i] = res.rcpts[i].fpr;
	}
	if (!want && !encrypt && !keyring) {
		rc = EX_OK;
		goto said;
	}
	switch (ownkey_openpgp(a, (want || encrypt) && !ctx->smime, &pgp,
	    &cause)) {
	case -1:
		if ((want || encrypt) && !ctx->smime) {
			cmd_error("no key to sign with, nothing was sent: %s",
			    cause);
			goto out;
		}
		free(cause);
		cause = NULL;
		break;
	case 0:
		have = 1;
		break;
	}
	if (!want && !encrypt && !have) {
		rc = EX_OK;
		goto said;
	}
	if ((want || encrypt) && ctx->smime && ownkey_smime(a, 1, &smime,
	    &cause) == -1) {
		cmd_error("no S/MIME certificate to sign with, nothing was "
		    "sent: %s", cause);
		goto out;
	}
	memset(&co, 0, sizeof co);
	co.proto = ctx->smime ? GPGME_PROTOCOL_CMS : GPGME_PROTOCOL_OpenPGP;
	co.sign = 1;		/* the account has a key: sign (STEED) */
	co.encrypt = encrypt;
	co.signer = ctx->smime ? smime.fpr : pgp.fpr;
	co.autocrypt = have ? pgp.fpr : NULL;
	co.rcpt_fprs = fprs;
	buf_init(&out);
	if (crypto_out_build(m, &co, &out, &cause) == -1) {
		buf_free(&out);
		if (!want && !encrypt) {
			/* Signing was not asked for: send it plain. */
			free(cause);
			cause = NULL;
			rc = EX_OK;
			goto said;
		}
		cmd_error("cannot %s the message, nothing was sent: %s",
		    co.encrypt ? "encrypt" : "sign", cause);
		goto out;
	}
	buf_free(msg);
	*msg = out;
	rc = EX_OK;
said:
	if (res.line != NULL)
		cmd_error("%s", res.line);
out:
	free(cause);
	free(fprs);
	policy_result_free(&res);
	ownkey_free(&pgp);
	ownkey_free(&smime);
	return rc;
}

/* Say what happened to the message id; return the exit code. */
static int
cmd_send_report(const struct send_report *rep, const char *id)
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
			cmd_error("%s%s%s; it stays in the outbox and is sent "
			    "by the next run or steedmail --flush",
			    id ? "" : it->id, id ? "" : ": ", it->text);
			if (id == NULL)
				rc = rc == EX_OK ? EX_TEMPFAIL : rc;
			break;
		case SEND_REFUSED:
			cmd_error("%s%s%s", id ? "" : it->id, id ? "" : ": ",
			    it->text);
			rc = EX_UNAVAILABLE;
			break;
		}
	}
	if (id != NULL && !found) {
		cmd_error("the message is queued; another steedmail is "
		    "sending the outbox");
	}
	if (others > 0)
		cmd_error("%zu older message%s in the outbox could not be "
		    "sent yet (see steedmail --flush)", others,
		    others == 1 ? "" : "s");
	return rc;
}

int
cmd_send(struct cmd_ctx *ctx)
{
	struct account		 *a;
	struct mime_out		  m;
	struct mime_addr	 *to, *cc, *bcc;
	struct cmd_send_reply	  reply;
	struct send_report	  rep;
	struct buf		  body, msg;
	char			**rcpts = NULL, *dir, *id = NULL;
	char			 *cause = NULL;
	size_t			  n = 0, i;
	int			  rc;

	if (ctx->argc == 0) {
		cmd_error("-s needs at least one recipient");
		return EX_USAGE;
	}
	if (strpbrk(ctx->subject, "\r\n") != NULL) {
		cmd_error("the subject contains a line break: refused");
		return EX_USAGE;
	}
	if (cmd_send_check_addrs(ctx->argv, ctx->argc, "recipient") == -1 ||
	    cmd_send_check_addrs(ctx->cc, ctx->ncc, "Cc") == -1 ||
	    cmd_send_check_addrs(ctx->bcc, ctx->nbcc, "Bcc") == -1)
		return EX_USAGE;
	for (i = 0; i < ctx->nattach; i++) {
		if (access(ctx->attach[i], R_OK) == -1) {
			cmd_error("cannot read attachment %s: %s",
			    ctx->attach[i], strerror(errno));
			return EX_NOINPUT;
		}
	}
	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	memset(&reply, 0, sizeof reply);
	if (ctx->reply != NULL && (rc = cmd_send_reply(ctx, &reply)) != EX_OK)
		return rc;

	buf_init(&body);
	if ((rc = cmd_send_read_body(&body)) != EX_OK) {
		buf_free(&body);
		cmd_send_reply_free(&reply);
		return rc;
	}

	memset(&m, 0, sizeof m);
	m.from.name = a->name;
	m.from.addr = a->address;
	m.to = to = cmd_send_addrs(ctx->argv, ctx->argc);
	m.nto = ctx->argc;
	m.cc = cc = cmd_send_addrs(ctx->cc, ctx->ncc);
	m.ncc = ctx->ncc;
	m.bcc = bcc = cmd_send_addrs(ctx->bcc, ctx->nbcc);
	m.nbcc = ctx->nbcc;
	m.subject = ctx->subject;
	m.body = body.data != NULL ? body.data : "";
	m.attachments = (const char * const *)ctx->attach;
	m.nattachments = ctx->nattach;
	m.in_reply_to = reply.in_reply_to;
	m.references = reply.references;
	buf_init(&msg);
	if (mime_build(&m, &msg, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		buf_free(&body);
		buf_free(&msg);
		free(to);
		free(cc);
		free(bcc);
		cmd_send_reply_free(&reply);
		return EX_DATAERR;
	}

	/*
	 * The encryption policy decides, per recipient, whether the message
	 * goes out signed and encrypted; it acts on msg before it is queued,
	 * so the outbox only ever holds what is sent.
	 */
	rc = cmd_send_protect(ctx, a, &m, reply.encrypted, &msg);
	buf_free(&body);
	free(to);
	free(cc);
	free(bcc);
	cmd_send_reply_free(&reply);
	if (rc != EX_OK) {
		buf_free(&msg);
		return rc;
	}

	for (i = 0; i < (size_t)ctx->argc; i++)
		rcpts = xreallocarray(rcpts, n + 1, sizeof *rcpts),
		rcpts[n++] = ctx->argv[i];
	for (i = 0; i < ctx->ncc; i++)
		rcpts = xreallocarray(rcpts, n + 1, sizeof *rcpts),
		rcpts[n++] = ctx->cc[i];
	for (i = 0; i < ctx->nbcc; i++)
		rcpts = xreallocarray(rcpts, n + 1, sizeof *rcpts),
		rcpts[n++] = ctx->bcc[i];

	if ((dir = outbox_dir(&cause)) == NULL ||
	    outbox_queue(dir, a->id, a->address, rcpts, n, msg.data, msg.len,
	    &id, &cause) == -1) {
		cmd_error("cannot queue the message, nothing was sent: %s",
		    cause);
		free(cause);
		free(dir);
		free(rcpts);
		buf_free(&msg);
		return EX_TEMPFAIL;
	}
	free(dir);
	free(rcpts);
	buf_free(&msg);
	send_crash_point("queued");

	if (send_flush(ctx->cf, NULL, &rep, &cause) == -1) {
		cmd_error("the message is queued but was not sent: %s", cause);
		free(cause);
		free(id);
		return EX_OK;
	}
	rc = cmd_send_report(&rep, id);
	send_report_free(&rep);
	free(id);
	return rc;
}

int
cmd_flush(struct cmd_ctx *ctx)
{
	struct send_report	 rep;
	char			*cause = NULL;
	int			 rc;

	if (send_flush(ctx->cf, NULL, &rep, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_TEMPFAIL;
	}
	if (rep.n == 0)
		printf("the outbox is empty\n");
	rc = cmd_send_report(&rep, NULL);
	send_report_free(&rep);
	return rc;
}
