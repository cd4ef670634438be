/*
 * cmd-send.c: "steedmail -s SUBJECT RCPT... < body" and "steedmail
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
 * --no-encrypt sends in clear. Mail is signed whenever the account has an
 * OpenPGP key (--sign makes one); encrypting makes one too. The message
 * carries an Autocrypt header whenever the account has a key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "account/keygen.h"
#include "addr.h"
#include "buf.h"
#include "cmd.h"
#include "crypto-out.h"
#include "crypto.h"
#include "mime-build.h"
#include "outbox.h"
#include "paths.h"
#include "policy.h"
#include "send.h"
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

/* Every recipient must have a key for --encrypt; name those without. */
static int
cmd_send_keys_missing(gpgme_protocol_t proto, const struct mime_out *m)
{
	struct buf	  names;
	const char	**missing;
	char		 *cause = NULL;
	size_t		  n, i;

	if (crypto_out_missing(proto, m, &missing, &n, &cause) == -1) {
		cmd_error("cannot look for the recipients' keys, nothing was "
		    "sent: %s", cause);
		free(cause);
		return -1;
	}
	if (n == 0)
		return 0;
	buf_init(&names);
	for (i = 0; i < n; i++)
		buf_addf(&names, "%s%s", i > 0 ? ", " : "", missing[i]);
	cmd_error("no %s key for %s: not sent (add it with steedmail "
	    "--import-key)", proto == GPGME_PROTOCOL_CMS ? "S/MIME" :
	    "OpenPGP", names.data);
	buf_free(&names);
	free(missing);
	return -1;
}

/*
 * Is there a keyring at all? A plain message from an account that never
 * had a key need not start gpg to find that out.
 */
static int
cmd_send_has_keyring(struct cmd_ctx *ctx)
{
	char	*data, *path, *cause = NULL;
	int	 yes;

	if (ctx->cf->gnupg_home != NULL)
		return 1;
	if ((data = paths_data_dir(&cause)) == NULL) {
		free(cause);
		return 0;
	}
	path = xasprintf("%s/gnupg/pubring.kbx", data);
	yes = access(path, F_OK) == 0;
	free(path);
	free(data);
	return yes;
}

/*
 * The encryption policy (policy.h) for the draft's recipients. Returns an
 * exit code; res is set when EX_OK.
 */
static int
cmd_send_policy(struct cmd_ctx *ctx, const struct mime_out *m, int keyring,
    struct policy_result *res)
{
	struct policy_in	  in;
	char			**addrs, *cause = NULL;
	size_t			  n = 0, i;
	int			  rc;

	memset(&in, 0, sizeof in);
	in.cf = ctx->cf;
	policy_mode(ctx->cf->encrypt, &in.mode);
	policy_fallback_mode(ctx->cf->fallback, &in.fallback);
	in.require = ctx->encrypt || ctx->require_encryption;
	in.never = ctx->no_encrypt;
	in.batch = 1;
	in.use_dns = 1;
	in.home_empty = !keyring;
	addrs = xcalloc(m->nto + m->ncc + m->nbcc + 1, sizeof *addrs);
	for (i = 0; i < m->nto; i++)
		addrs[n++] = (char *)m->to[i].addr;
	for (i = 0; i < m->ncc; i++)
		addrs[n++] = (char *)m->cc[i].addr;
	for (i = 0; i < m->nbcc; i++)
		addrs[n++] = (char *)m->bcc[i].addr;
	rc = policy_decide(&in, addrs, n, res, &cause);
	free(addrs);
	if (rc == -1 && !in.require && in.mode == POLICY_OPPORTUNISTIC &&
	    in.fallback == POLICY_PLAINTEXT) {
		/* No keys can be known: what a missing key means, for all. */
		memset(res, 0, sizeof *res);
		res->action = POLICY_CLEAR;
		res->line = xasprintf("sent in clear: %s", cause);
		free(cause);
		return EX_OK;
	}
	if (rc == -1) {
		cmd_error("cannot decide whether to encrypt, nothing was "
		    "sent: %s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].warning != NULL)
			cmd_error("warning: %s", res->rcpts[i].warning);
	}
	if (res->action != POLICY_REFUSE_SEND)
		return EX_OK;
	if (ctx->encrypt) {
		/* As --encrypt always said it. */
		struct buf	names;
		int		why = 0;
		buf_init(&names);
		for (i = 0; i < res->n; i++) {
			if (res->rcpts[i].fpr != NULL)
				continue;
			why |= res->rcpts[i].why != NULL;
			buf_addf(&names, "%s%s", names.len > 0 ? ", " : "",
			    res->rcpts[i].addr);
		}
		if (!why)
			cmd_error("no OpenPGP key for %s: not sent (add it "
			    "with steedmail --import-key)", names.data);
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
cmd_send_protect_as(struct cmd_ctx *ctx, struct account *a,
    const struct mime_out *m, struct buf *msg)
{
	struct keygen_key	 pgp, smime;
	struct crypto_out	 co;
	struct policy_result	 res;
	struct buf		 out;
	enum policy_encrypt	 mode;
	const char		**fprs = NULL;
	char			*cause = NULL;
	int			 want = ctx->sign || ctx->encrypt, have = 0;
	int			 keyring, use_policy, encrypt, asked;
	int			 rc = EX_UNAVAILABLE;
	size_t			 i;

	memset(&pgp, 0, sizeof pgp);
	memset(&smime, 0, sizeof smime);
	memset(&res, 0, sizeof res);
	policy_mode(ctx->cf->encrypt, &mode);
	keyring = cmd_send_has_keyring(ctx);
	/* S/MIME is encrypted only when asked; the policy is OpenPGP's. */
	use_policy = !ctx->smime && (!ctx->no_encrypt || ctx->encrypt) &&
	    (mode != POLICY_NEVER || ctx->encrypt || ctx->require_encryption);
	asked = want || ctx->require_encryption;
	if (!asked && !keyring && !use_policy)
		return EX_OK;
	if (asked && cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	if (!asked && crypto_init(ctx->cf->gnupg_home, &cause) == -1) {
		free(cause);	/* no gpg: plain mail still goes */
		return EX_OK;
	}
	encrypt = ctx->encrypt;
	if (use_policy) {
		if ((rc = cmd_send_policy(ctx, m, keyring, &res)) != EX_OK)
			return rc;
		rc = EX_UNAVAILABLE;
		encrypt = res.action == POLICY_ENCRYPT;
		if (encrypt) {
			fprs = xcalloc(res.n + 1, sizeof *fprs);
			for (i = 0; i < res.n; i++)
				fprs[i] = res.rcpts[i].fpr;
		}
	}
	switch (keygen_openpgp(a, (want || encrypt) && !ctx->smime, &pgp,
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
	if (want && ctx->smime && keygen_smime(a, 1, &smime, &cause) == -1) {
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
	if (co.encrypt && !use_policy &&
	    cmd_send_keys_missing(co.proto, m) == -1)
		goto out;
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
	if (use_policy && res.line != NULL)
		cmd_error("%s", res.line);
out:
	free(cause);
	free(fprs);
	policy_result_free(&res);
	keygen_key_free(&pgp);
	keygen_key_free(&smime);
	return rc;
}

static int
cmd_send_protect(struct cmd_ctx *ctx, struct account *a,
    const struct mime_out *m, struct buf *msg)
{
	int	rc;

	rc = cmd_send_protect_as(ctx, a, m, msg);
	if (rc == EX_OK && ctx->no_encrypt)
		cmd_error("sent in clear: --no-encrypt");
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

	buf_init(&body);
	if ((rc = cmd_send_read_body(&body)) != EX_OK) {
		buf_free(&body);
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
	buf_init(&msg);
	if (mime_build(&m, &msg, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		buf_free(&body);
		buf_free(&msg);
		free(to);
		free(cc);
		free(bcc);
		return EX_DATAERR;
	}

	/*
	 * The encryption policy decides, per recipient, whether the message
	 * goes out signed and encrypted; it acts on msg before it is queued,
	 * so the outbox only ever holds what is sent.
	 */
	rc = cmd_send_protect(ctx, a, &m, &msg);
	buf_free(&body);
	free(to);
	free(cc);
	free(bcc);
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
