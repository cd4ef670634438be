/*
 * crypto-in.c: the verdicts of crypto-in.h.
 *
 * Every verdict comes from gpgme's result structures: the status, summary
 * and validity of each signature, the key's user IDs looked up by its
 * fingerprint, the decryption result. Nothing in the message's text is
 * ever read as a verdict, and gpg's own messages are never looked at.
 *
 * Rules this file keeps (doc/crypto.md, "Incoming"):
 * - Only the top of a message is decrypted: its root, or what a signature
 *   at the root covers, or the root of content already decrypted.
 *   Ciphertext further down (quoted, forwarded, attached) stays closed,
 *   so a message cannot make steedmail decrypt someone else's old mail
 *   and show it as part of a new one.
 * - Decryption that fails for any reason yields no plaintext at all: gpg
 *   writes plaintext before it finds out that the integrity check failed,
 *   and that output is thrown away unread (EFAIL). OpenPGP without MDC is
 *   refused. S/MIME enveloped data has no integrity protection of its
 *   own; its content is shown only when a good signature covers all of it.
 * - A signature covers exactly the part it signs; the part's raw bytes,
 *   as they are in the message, with line ends made CRLF, are what is
 *   checked. A signature whose key has no user ID with the sender's
 *   address is "by someone else", whatever else it is.
 * - Plaintext is wiped when no longer needed and never logged.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gpgme.h>

#include "addr-list.h"
#include "autocrypt-parse.h"
#include "buf.h"
#include "crypto.h"
#include "crypto-in.h"
#include "log.h"
#include "mime-body.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "xmalloc.h"

static const char *crypto_in_prot_fields[] = {
	"Subject", "From", "To", "Cc", "Date", "Reply-To"
};

static void	crypto_in_walk(struct crypto_in *, struct mime_part *, int top,
		    int depth);

static void
crypto_in_warn(struct crypto_in *ci, const char *fmt, ...)
{
	va_list	ap;

	ci->warnings = xreallocarray(ci->warnings, ci->nwarnings + 1,
	    sizeof *ci->warnings);
	va_start(ap, fmt);
	ci->warnings[ci->nwarnings++] = xvasprintf(fmt, ap);
	va_end(ap);
}

/* The entry for part p, made if missing. Pointers into ci->parts move. */
static struct crypto_in_part *
crypto_in_entry(struct crypto_in *ci, const struct mime_part *p)
{
	size_t	i;

	for (i = 0; i < ci->nparts; i++) {
		if (ci->parts[i].part == p)
			return &ci->parts[i];
	}
	ci->parts = xreallocarray(ci->parts, ci->nparts + 1,
	    sizeof *ci->parts);
	memset(&ci->parts[ci->nparts], 0, sizeof *ci->parts);
	ci->parts[ci->nparts].part = p;
	return &ci->parts[ci->nparts++];
}

static struct crypto_in_part *
crypto_in_find(const struct crypto_in *ci, const struct mime_part *p)
{
	size_t	i;

	for (i = 0; i < ci->nparts; i++) {
		if (ci->parts[i].part == p)
			return &ci->parts[i];
	}
	return NULL;
}

/* Add a sentence to the status line of part p. */
static void
crypto_in_status(struct crypto_in *ci, const struct mime_part *p,
    const char *fmt, ...)
{
	struct crypto_in_part	*e = crypto_in_entry(ci, p);
	va_list			 ap;
	char			*s, *t;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (e->status == NULL) {
		e->status = s;
		return;
	}
	t = xasprintf("%s; %s", e->status, s);
	free(e->status);
	free(s);
	e->status = t;
}

static const struct mime_part *
crypto_in_tree_root(const struct mime_part *p)
{
	while (p->parent != NULL)
		p = p->parent;
	return p;
}

/* The part whose content the tree of p is shown for, or NULL. */
static const struct mime_part *
crypto_in_host(const struct crypto_in *ci, const struct mime_part *p)
{
	const struct mime_part	*r = crypto_in_tree_root(p);
	size_t			 i;

	for (i = 0; i < ci->nparts; i++) {
		if (ci->parts[i].inner != NULL &&
		    ci->parts[i].inner->root == r)
			return ci->parts[i].part;
	}
	return NULL;
}

char *
crypto_in_name(const struct crypto_in *ci, const struct mime_part *p)
{
	const struct mime_part	*r = crypto_in_tree_root(p), *host;
	char			*hn, *s;

	host = crypto_in_host(ci, r);
	if (p == r)
		return host != NULL ? crypto_in_name(ci, host) :
		    xstrdup("root");
	if (host == NULL)
		return xstrdup(p->section);
	hn = crypto_in_name(ci, host);
	if (strcmp(hn, "root") == 0)
		s = xstrdup(p->section);
	else
		s = xasprintf("%s/%s", hn, p->section);
	free(hn);
	return s;
}

/* The parent of p, across the boundary of content shown for a part. */
static const struct mime_part *
crypto_in_up(const struct crypto_in *ci, const struct mime_part *p)
{
	return p->parent != NULL ? p->parent : crypto_in_host(ci, p);
}

const char *
crypto_in_status_name(enum crypto_in_sigstatus s)
{
	switch (s) {
	case CRYPTO_IN_GOOD:		return "good";
	case CRYPTO_IN_BAD:		return "bad";
	case CRYPTO_IN_EXPIRED:		return "expired";
	case CRYPTO_IN_REVOKED:		return "revoked";
	case CRYPTO_IN_UNKNOWN_KEY:	return "unknown-key";
	default:			return "error";
	}
}

const char *
crypto_in_integrity_name(enum crypto_in_integrity i)
{
	switch (i) {
	case CRYPTO_IN_INTEGRITY_OK:		return "ok";
	case CRYPTO_IN_INTEGRITY_FAILED:	return "failed";
	case CRYPTO_IN_INTEGRITY_NONE:		return "none";
	case CRYPTO_IN_INTEGRITY_UNKNOWN:	return "unknown";
	default:				return "n/a";
	}
}

const char *
crypto_in_proto_name(enum crypto_in_proto p)
{
	switch (p) {
	case CRYPTO_IN_OPENPGP:	return "openpgp";
	case CRYPTO_IN_SMIME:	return "smime";
	default:		return "none";
	}
}

static const char *
crypto_in_proto_label(enum crypto_in_proto p)
{
	return p == CRYPTO_IN_SMIME ? "S/MIME" : "OpenPGP";
}

static gpgme_protocol_t
crypto_in_gpgme_proto(enum crypto_in_proto p)
{
	return p == CRYPTO_IN_SMIME ? GPGME_PROTOCOL_CMS :
	    GPGME_PROTOCOL_OpenPGP;
}

/* The len bytes at s with every bare LF made CRLF (RFC 3156, 5751). */
static void
crypto_in_crlf(struct buf *out, const char *s, size_t len)
{
	size_t	i, start = 0;

	for (i = 0; i < len; i++) {
		if (s[i] != '\n' || (i > 0 && s[i - 1] == '\r'))
			continue;
		buf_add(out, s + start, i - start);
		buf_add(out, "\r\n", 2);
		start = i + 1;
	}
	buf_add(out, s + start, len - start);
}

/* Wipe and free a buffer that held plaintext. */
static void
crypto_in_wipe(struct buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->cap);
	buf_free(b);
}

/* Move gpgme's output into a buf, wiping gpgme's copy. */
static void
crypto_in_take(gpgme_data_t d, struct buf *out)
{
	char	*mem;
	size_t	 n = 0;

	mem = gpgme_data_release_and_get_mem(d, &n);
	if (mem == NULL)
		return;
	buf_add(out, mem, n);
	explicit_bzero(mem, n);
	gpgme_free(mem);
}

static void
crypto_in_drop(gpgme_data_t d)
{
	char	*mem;
	size_t	 n = 0;

	if ((mem = gpgme_data_release_and_get_mem(d, &n)) != NULL) {
		explicit_bzero(mem, n);
		gpgme_free(mem);
	}
}

static const char *
crypto_in_validity(gpgme_validity_t v)
{
	switch (v) {
	case GPGME_VALIDITY_UNDEFINED:	return "undefined";
	case GPGME_VALIDITY_NEVER:	return "never";
	case GPGME_VALIDITY_MARGINAL:	return "marginal";
	case GPGME_VALIDITY_FULL:	return "full";
	case GPGME_VALIDITY_ULTIMATE:	return "ultimate";
	default:			return "unknown";
	}
}

static enum crypto_in_sigstatus
crypto_in_sigstat(gpgme_signature_t s)
{
	switch (gpgme_err_code(s->status)) {
	case GPG_ERR_BAD_SIGNATURE:
		return CRYPTO_IN_BAD;
	case GPG_ERR_NO_PUBKEY:
		return CRYPTO_IN_UNKNOWN_KEY;
	case GPG_ERR_CERT_REVOKED:
		return CRYPTO_IN_REVOKED;
	case GPG_ERR_SIG_EXPIRED:
	case GPG_ERR_KEY_EXPIRED:
	case GPG_ERR_CERT_EXPIRED:
		return CRYPTO_IN_EXPIRED;
	case GPG_ERR_NO_ERROR:
		break;
	default:
		return CRYPTO_IN_ERROR;
	}
	if (s->summary & GPGME_SIGSUM_RED &&
	    s->validity != GPGME_VALIDITY_NEVER)
		return CRYPTO_IN_BAD;
	if (s->summary & GPGME_SIGSUM_KEY_REVOKED)
		return CRYPTO_IN_REVOKED;
	if (s->summary & (GPGME_SIGSUM_KEY_EXPIRED | GPGME_SIGSUM_SIG_EXPIRED))
		return CRYPTO_IN_EXPIRED;
	if (s->summary & GPGME_SIGSUM_KEY_MISSING)
		return CRYPTO_IN_UNKNOWN_KEY;
	return CRYPTO_IN_GOOD;
}

/* The addresses of the key's valid user IDs, into the signature. */
static void
crypto_in_key_uids(struct crypto_in_sig *sig, gpgme_key_t key)
{
	gpgme_user_id_t	 u;
	char		*a;
	size_t		 n;

	for (u = key->uids; u != NULL; u = u->next) {
		/* A revoked key's user IDs all come out revoked, and still
		 * say whose key it was. */
		if ((u->revoked && !(key->revoked &&
		    sig->status == CRYPTO_IN_REVOKED)) || u->invalid ||
		    u->email == NULL || strchr(u->email, '@') == NULL)
			continue;
		/* gpgsm gives a certificate's addresses as "<addr>". */
		a = addr_list_lower(u->email);
		if ((n = strlen(a)) >= 2 && a[0] == '<' && a[n - 1] == '>') {
			memmove(a, a + 1, n - 2);
			a[n - 2] = '\0';
		}
		sig->uids = xreallocarray(sig->uids, sig->nuids + 1,
		    sizeof *sig->uids);
		sig->uids[sig->nuids++] = a;
	}
}

static struct crypto_in_sig *
crypto_in_sig_new(struct crypto_in *ci, enum crypto_in_proto proto,
    const struct mime_part *covered)
{
	struct crypto_in_sig	*sig;

	ci->sigs = xreallocarray(ci->sigs, ci->nsigs + 1, sizeof *ci->sigs);
	sig = &ci->sigs[ci->nsigs++];
	memset(sig, 0, sizeof *sig);
	sig->proto = proto;
	sig->part = covered;
	sig->validity = "unknown";
	return sig;
}

/* Record the signatures of a verify result as covering part covered. */
static void
crypto_in_sigs(struct crypto_in *ci, gpgme_ctx_t ctx,
    enum crypto_in_proto proto, const struct mime_part *covered,
    int want_one)
{
	gpgme_verify_result_t	 vr = gpgme_op_verify_result(ctx);
	gpgme_signature_t	 s;
	gpgme_key_t		 key;
	struct crypto_in_sig	*sig;

	if (vr == NULL || vr->signatures == NULL) {
		if (want_one) {
			sig = crypto_in_sig_new(ci, proto, covered);
			sig->status = CRYPTO_IN_ERROR;
			sig->reason = xstrdup("no signature found");
		}
		return;
	}
	for (s = vr->signatures; s != NULL; s = s->next) {
		sig = crypto_in_sig_new(ci, proto, covered);
		sig->status = crypto_in_sigstat(s);
		sig->validity = crypto_in_validity(s->validity);
		if (sig->status == CRYPTO_IN_ERROR)
			sig->reason = xstrdup(gpgme_strerror(s->status));
		if (sig->status == CRYPTO_IN_EXPIRED) {
			sig->key_expired = (s->summary &
			    GPGME_SIGSUM_KEY_EXPIRED) ||
			    gpgme_err_code(s->status) == GPG_ERR_KEY_EXPIRED ||
			    gpgme_err_code(s->status) == GPG_ERR_CERT_EXPIRED;
			sig->reason = xstrdup(sig->key_expired ?
			    "the key has expired" : "the signature has expired");
		} else if (sig->status == CRYPTO_IN_REVOKED)
			sig->reason = xstrdup("the key was revoked");
		if (s->fpr != NULL)
			sig->fpr = xstrdup(s->fpr);
		key = NULL;
		if (s->fpr != NULL && sig->status != CRYPTO_IN_UNKNOWN_KEY &&
		    crypto_key(ctx, s->fpr, 0, &key) == 0) {
			if (key->subkeys != NULL && key->subkeys->fpr != NULL) {
				free(sig->fpr);
				sig->fpr = xstrdup(key->subkeys->fpr);
			}
			crypto_in_key_uids(sig, key);
			gpgme_key_unref(key);
		}
	}
}

/* A context, or NULL after recording a signature error for covered. */
static gpgme_ctx_t
crypto_in_ctx(struct crypto_in *ci, enum crypto_in_proto proto,
    char **cause)
{
	gpgme_ctx_t	ctx;

	(void)ci;
	if ((ctx = crypto_ctx(crypto_in_gpgme_proto(proto), cause)) == NULL)
		return NULL;
	return ctx;
}

static void
crypto_in_sig_error(struct crypto_in *ci, enum crypto_in_proto proto,
    const struct mime_part *covered, char *cause)
{
	struct crypto_in_sig	*sig = crypto_in_sig_new(ci, proto, covered);

	sig->status = CRYPTO_IN_ERROR;
	sig->reason = cause;
}

/* Parse content and keep it as shown in place of host. */
static struct mime_msg *
crypto_in_keep(struct crypto_in *ci, const struct mime_part *host,
    struct buf *content, int decrypted)
{
	struct crypto_in_part	*e;
	struct mime_msg		*m;
	char			*cause = NULL;

	if ((m = mime_parse_copy(content->data != NULL ? content->data : "",
	    content->len, &cause)) == NULL) {
		crypto_in_status(ci, host, "its content cannot be shown: %s",
		    cause);
		free(cause);
		return NULL;
	}
	e = crypto_in_entry(ci, host);
	e->inner = m;
	e->decrypted = decrypted;
	return m;
}

/* Record what decrypting at the top came to; the worst result wins. */
static void
crypto_in_top(struct crypto_in *ci, enum crypto_in_proto proto,
    enum crypto_in_integrity integ, const char *why)
{
	if (ci->encryption == CRYPTO_IN_NONE) {
		ci->encryption = proto;
		ci->integrity = integ;
		ci->decrypted = why == NULL;
	} else if (integ != CRYPTO_IN_INTEGRITY_OK) {
		if (ci->integrity == CRYPTO_IN_INTEGRITY_OK)
			ci->integrity = integ;
		ci->decrypted = 0;
	}
	if (why != NULL && ci->not_decrypted == NULL)
		ci->not_decrypted = xstrdup(why);
}

/* Has the key of any recipient been found? */
static int
crypto_in_have_seckey(gpgme_decrypt_result_t dr)
{
	gpgme_recipient_t	r;

	if (dr == NULL)
		return 0;
	for (r = dr->recipients; r != NULL; r = r->next) {
		if (gpgme_err_code(r->status) != GPG_ERR_NO_SECKEY)
			return 1;
	}
	return 0;
}

/*
 * OpenPGP data without MDC or AEAD: gpgme flags legacy ciphers, and names
 * the mode of any cipher "PGPCFB" when neither protection was there.
 */
static int
crypto_in_nomdc(gpgme_decrypt_result_t dr)
{
	size_t	n;

	if (dr == NULL)
		return 0;
	if (dr->legacy_cipher_nomdc)
		return 1;
	if (dr->symkey_algo == NULL || (n = strlen(dr->symkey_algo)) < 7)
		return 0;
	return strcmp(dr->symkey_algo + n - 7, ".PGPCFB") == 0;
}

/*
 * Decrypt the len bytes at data for part host (at the top), verifying any
 * signature made with the encryption. On success the plaintext is in
 * *plain and 0 is returned; on any failure nothing is kept.
 */
static int
crypto_in_decrypt(struct crypto_in *ci, const struct mime_part *host,
    enum crypto_in_proto proto, const char *data, size_t len,
    struct buf *plain)
{
	gpgme_ctx_t		 ctx;
	gpgme_data_t		 in = NULL, out = NULL;
	gpgme_decrypt_result_t	 dr;
	gpgme_error_t		 err;
	enum crypto_in_integrity integ;
	const char		*label = crypto_in_proto_label(proto);
	char			*cause = NULL, *why;

	if ((ctx = crypto_in_ctx(ci, proto, &cause)) == NULL) {
		crypto_in_status(ci, host, "encrypted (%s), not decrypted: %s",
		    label, cause);
		crypto_in_top(ci, proto, CRYPTO_IN_INTEGRITY_UNKNOWN, cause);
		free(cause);
		return -1;
	}
	if ((err = gpgme_data_new_from_mem(&in, data, len, 0)) != 0 ||
	    (err = gpgme_data_new(&out)) != 0) {
		why = crypto_error("gpgme", err);
		crypto_in_status(ci, host, "encrypted (%s), not decrypted: %s",
		    label, why);
		crypto_in_top(ci, proto, CRYPTO_IN_INTEGRITY_UNKNOWN, why);
		free(why);
		goto fail;
	}
	err = gpgme_op_decrypt_verify(ctx, in, out);
	dr = gpgme_op_decrypt_result(ctx);
	if (proto == CRYPTO_IN_OPENPGP && crypto_in_nomdc(dr)) {
		crypto_in_status(ci, host, "encrypted (%s), NOT SHOWN: it has "
		    "no integrity protection, so it may have been changed "
		    "on the way", label);
		crypto_in_top(ci, proto, CRYPTO_IN_INTEGRITY_NONE,
		    "no integrity protection");
		goto fail;
	}
	if (err != 0) {
		if (gpgme_err_code(err) == GPG_ERR_NO_SECKEY ||
		    !crypto_in_have_seckey(dr)) {
			integ = CRYPTO_IN_INTEGRITY_UNKNOWN;
			why = xstrdup("no secret key for it");
		} else if (gpgme_err_code(err) == GPG_ERR_BAD_DATA ||
		    gpgme_err_code(err) == GPG_ERR_DECRYPT_FAILED ||
		    gpgme_err_code(err) == GPG_ERR_CHECKSUM) {
			integ = CRYPTO_IN_INTEGRITY_FAILED;
			why = xasprintf("the integrity check failed or the "
			    "ciphertext is damaged (%s)", gpgme_strerror(err));
		} else {
			integ = CRYPTO_IN_INTEGRITY_UNKNOWN;
			why = xstrdup(gpgme_strerror(err));
		}
		crypto_in_status(ci, host, "encrypted (%s), NOT SHOWN: %s",
		    label, why);
		crypto_in_top(ci, proto, integ, why);
		free(why);
		goto fail;
	}
	crypto_in_take(out, plain);
	out = NULL;
	gpgme_data_release(in);
	integ = proto == CRYPTO_IN_SMIME ? CRYPTO_IN_INTEGRITY_NONE :
	    CRYPTO_IN_INTEGRITY_OK;
	if (proto == CRYPTO_IN_OPENPGP) {
		crypto_in_status(ci, host, "encrypted (%s) and decrypted, "
		    "integrity protected", label);
		crypto_in_top(ci, proto, integ, NULL);
	}
	crypto_in_sigs(ci, ctx, proto, host, 0);
	gpgme_release(ctx);
	log_msg(LOG_INFO, "crypto-in: decrypted %zu bytes (%s)", plain->len,
	    label);
	return 0;

fail:
	if (out != NULL)
		crypto_in_drop(out);
	if (in != NULL)
		gpgme_data_release(in);
	gpgme_release(ctx);
	return -1;
}

/* Is a good signature covering exactly p recorded? */
static int
crypto_in_good_over(const struct crypto_in *ci, const struct mime_part *p)
{
	size_t	i;

	for (i = 0; i < ci->nsigs; i++) {
		if (ci->sigs[i].part == p &&
		    ci->sigs[i].status == CRYPTO_IN_GOOD)
			return 1;
	}
	return 0;
}

/*
 * Does a good signature cover all of the tree at root r: on r itself, or
 * on r's only content down a chain of signed layers?
 */
static int
crypto_in_fully_signed(const struct crypto_in *ci, const struct mime_part *r)
{
	const struct crypto_in_part	*e;
	int				 n;

	for (n = 0; r != NULL && n < 2 * CRYPTO_IN_MAX_DEPTH + 2; n++) {
		if (crypto_in_good_over(ci, r))
			return 1;
		if ((e = crypto_in_find(ci, r)) != NULL && e->inner != NULL)
			r = e->inner->root;
		else
			return 0;
	}
	return 0;
}

static void
crypto_in_forget(struct crypto_in *ci, size_t nsigs, size_t nparts)
{
	size_t	i, j;

	for (i = nsigs; i < ci->nsigs; i++) {
		free(ci->sigs[i].name);
		free(ci->sigs[i].fpr);
		free(ci->sigs[i].signer);
		free(ci->sigs[i].from);
		free(ci->sigs[i].reason);
		for (j = 0; j < ci->sigs[i].nuids; j++)
			free(ci->sigs[i].uids[j]);
		free(ci->sigs[i].uids);
	}
	ci->nsigs = nsigs;
	for (i = nparts; i < ci->nparts; i++) {
		free(ci->parts[i].status);
		mime_msg_free(ci->parts[i].inner);
	}
	ci->nparts = nparts;
}

/* multipart/encrypted (RFC 3156 section 4). */
static void
crypto_in_pgpmime(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct mime_part	*ver, *data;
	struct buf		 cipher, plain;
	struct mime_msg		*m;
	char			*proto;

	proto = mime_part_param(p, "protocol");
	if (proto == NULL || strcasecmp(proto, "application/pgp-encrypted")) {
		crypto_in_status(ci, p, "encrypted with an unknown protocol: "
		    "not opened");
		free(proto);
		return;
	}
	free(proto);
	if (!top) {
		crypto_in_status(ci, p, "encrypted part not opened: not at "
		    "the top of the message");
		crypto_in_warn(ci, "an encrypted part below the top of the "
		    "message was not opened");
		return;
	}
	ver = TAILQ_FIRST(&p->children);
	data = ver != NULL ? TAILQ_NEXT(ver, entry) : NULL;
	if (data == NULL || !mime_part_is(ver, "application",
	    "pgp-encrypted") || !mime_part_is(data, "application",
	    "octet-stream")) {
		crypto_in_status(ci, p, "encrypted (OpenPGP), not decrypted: "
		    "its parts are not as RFC 3156 has them");
		crypto_in_top(ci, CRYPTO_IN_OPENPGP,
		    CRYPTO_IN_INTEGRITY_UNKNOWN, "malformed PGP/MIME");
		return;
	}
	buf_init(&cipher);
	buf_init(&plain);
	mime_body_decode(data, &cipher);
	if (crypto_in_decrypt(ci, p, CRYPTO_IN_OPENPGP, cipher.data != NULL ?
	    cipher.data : "", cipher.len, &plain) == 0 &&
	    (m = crypto_in_keep(ci, p, &plain, 1)) != NULL)
		crypto_in_walk(ci, m->root, 1, depth + 1);
	crypto_in_wipe(&plain);
	buf_free(&cipher);
}

/* multipart/signed (RFC 3156 section 5, RFC 8551 section 3.5). */
static void
crypto_in_detached(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct mime_part	*body, *sigp, *c;
	enum crypto_in_proto	 pr;
	struct buf		 text, sig;
	gpgme_ctx_t		 ctx;
	gpgme_data_t		 dt = NULL, ds = NULL;
	gpgme_error_t		 err;
	char			*proto, *cause = NULL;

	proto = mime_part_param(p, "protocol");
	if (proto != NULL && strcasecmp(proto,
	    "application/pgp-signature") == 0)
		pr = CRYPTO_IN_OPENPGP;
	else if (proto != NULL && (strcasecmp(proto,
	    "application/pkcs7-signature") == 0 || strcasecmp(proto,
	    "application/x-pkcs7-signature") == 0))
		pr = CRYPTO_IN_SMIME;
	else
		pr = CRYPTO_IN_NONE;
	free(proto);
	body = TAILQ_FIRST(&p->children);
	sigp = body != NULL ? TAILQ_NEXT(body, entry) : NULL;
	if (pr == CRYPTO_IN_NONE) {
		crypto_in_status(ci, p, "signed with an unknown protocol: "
		    "not checked");
	} else if (sigp == NULL || TAILQ_NEXT(sigp, entry) != NULL ||
	    (pr == CRYPTO_IN_OPENPGP && !mime_part_is(sigp, "application",
	    "pgp-signature")) || (pr == CRYPTO_IN_SMIME &&
	    !mime_part_is(sigp, "application", "pkcs7-signature") &&
	    !mime_part_is(sigp, "application", "x-pkcs7-signature"))) {
		crypto_in_sig_error(ci, pr, p, xstrdup("the signed parts are "
		    "not as the standard has them"));
	} else if ((ctx = crypto_in_ctx(ci, pr, &cause)) == NULL) {
		crypto_in_sig_error(ci, pr, p, cause);
	} else {
		buf_init(&text);
		buf_init(&sig);
		crypto_in_crlf(&text, body->raw, body->rawlen);
		mime_body_decode(sigp, &sig);
		if ((err = gpgme_data_new_from_mem(&dt, text.data != NULL ?
		    text.data : "", text.len, 0)) != 0 ||
		    (err = gpgme_data_new_from_mem(&ds, sig.data != NULL ?
		    sig.data : "", sig.len, 0)) != 0 ||
		    (err = gpgme_op_verify(ctx, ds, dt, NULL)) != 0)
			crypto_in_sig_error(ci, pr, p,
			    crypto_error("cannot check the signature", err));
		else
			crypto_in_sigs(ci, ctx, pr, p, 1);
		gpgme_data_release(dt);
		gpgme_data_release(ds);
		gpgme_release(ctx);
		buf_free(&text);
		buf_free(&sig);
	}
	TAILQ_FOREACH(c, &p->children, entry) {
		if (c == sigp && pr != CRYPTO_IN_NONE)
			continue;
		crypto_in_walk(ci, c, top && c == body, depth);
	}
}

/* application/pkcs7-mime: enveloped or signed data (RFC 8551 3.2). */
static void
crypto_in_pkcs7(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct buf		 der, plain;
	struct mime_msg		*m;
	gpgme_ctx_t		 ctx;
	gpgme_data_t		 in = NULL, out = NULL;
	gpgme_error_t		 err;
	char			*type, *cause = NULL;
	size_t			 nsigs = ci->nsigs, nparts = ci->nparts;
	int			 opaque;

	type = mime_part_param(p, "smime-type");
	opaque = type != NULL && strcasecmp(type, "signed-data") == 0;
	if (type != NULL && !opaque && strcasecmp(type, "enveloped-data")) {
		crypto_in_status(ci, p, "S/MIME content of type %s: not "
		    "opened", type);
		free(type);
		return;
	}
	free(type);
	buf_init(&der);
	buf_init(&plain);
	mime_body_decode(p, &der);
	if (opaque) {
		if ((ctx = crypto_in_ctx(ci, CRYPTO_IN_SMIME, &cause)) ==
		    NULL) {
			crypto_in_sig_error(ci, CRYPTO_IN_SMIME, p, cause);
			goto done;
		}
		if ((err = gpgme_data_new_from_mem(&in, der.data != NULL ?
		    der.data : "", der.len, 0)) != 0 ||
		    (err = gpgme_data_new(&out)) != 0 ||
		    (err = gpgme_op_verify(ctx, in, NULL, out)) != 0) {
			crypto_in_sig_error(ci, CRYPTO_IN_SMIME, p,
			    crypto_error("cannot check the signature", err));
			if (out != NULL)
				crypto_in_drop(out);
		} else {
			crypto_in_sigs(ci, ctx, CRYPTO_IN_SMIME, p, 1);
			crypto_in_take(out, &plain);
			if ((m = crypto_in_keep(ci, p, &plain, 0)) != NULL)
				crypto_in_walk(ci, m->root, top, depth + 1);
		}
		if (in != NULL)
			gpgme_data_release(in);
		gpgme_release(ctx);
		goto done;
	}
	if (!top) {
		crypto_in_status(ci, p, "encrypted part not opened: not at "
		    "the top of the message");
		crypto_in_warn(ci, "an encrypted part below the top of the "
		    "message was not opened");
		goto done;
	}
	if (crypto_in_decrypt(ci, p, CRYPTO_IN_SMIME, der.data != NULL ?
	    der.data : "", der.len, &plain) == -1 ||
	    (m = crypto_in_keep(ci, p, &plain, 1)) == NULL)
		goto done;
	crypto_in_walk(ci, m->root, 1, depth + 1);
	if (!crypto_in_fully_signed(ci, p)) {
		/* S/MIME enveloped data alone can be changed unnoticed. */
		crypto_in_forget(ci, nsigs, nparts);
		crypto_in_status(ci, p, "encrypted (S/MIME), NOT SHOWN: it "
		    "has no integrity protection (no signature covers all "
		    "of it), so it may have been changed on the way");
		crypto_in_top(ci, CRYPTO_IN_SMIME, CRYPTO_IN_INTEGRITY_NONE,
		    "no integrity protection");
		goto done;
	}
	crypto_in_status(ci, p, "encrypted (S/MIME) and decrypted, integrity "
	    "protected by the signature inside");
	crypto_in_top(ci, CRYPTO_IN_SMIME, CRYPTO_IN_INTEGRITY_OK, NULL);
done:
	crypto_in_wipe(&plain);
	crypto_in_wipe(&der);
}

/* Offset of the line starting with mark at or after from, or len. */
static size_t
crypto_in_line(const char *s, size_t len, size_t from, const char *mark)
{
	size_t		 n = strlen(mark);
	const char	*q;

	while (from < len) {
		if (len - from >= n && memcmp(s + from, mark, n) == 0)
			return from;
		if ((q = memchr(s + from, '\n', len - from)) == NULL)
			break;
		from = q - s + 1;
	}
	return len;
}

static int
crypto_in_blank(const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		if (strchr(" \t\r\n", s[i]) == NULL)
			return 0;
	}
	return 1;
}

/* Keep inline plaintext as a text/plain part in the part's charset. */
static struct mime_msg *
crypto_in_keep_text(struct crypto_in *ci, struct mime_part *p,
    struct buf *text, int decrypted)
{
	struct buf	 b;
	struct mime_msg	*m;
	const char	*cs = p->charset;

	if (cs == NULL || *cs == '\0' || strlen(cs) > 40 ||
	    cs[strspn(cs, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")] != '\0')
		cs = "utf-8";
	buf_init(&b);
	buf_addf(&b, "Content-Type: text/plain; charset=\"%s\"\r\n"
	    "Content-Transfer-Encoding: 8bit\r\n\r\n", cs);
	buf_add(&b, text->data != NULL ? text->data : "", text->len);
	m = crypto_in_keep(ci, p, &b, decrypted);
	crypto_in_wipe(&b);
	return m;
}

/* A text/plain part holding an armored OpenPGP block. */
static void
crypto_in_inline(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct buf	 body, plain;
	size_t		 b, e, end;
	int		 enc;
	gpgme_ctx_t	 ctx;
	gpgme_data_t	 in = NULL, out = NULL;
	gpgme_error_t	 err;
	char		*cause = NULL;
	const char	*endmark;

	buf_init(&body);
	buf_init(&plain);
	mime_body_decode(p, &body);
	if (body.len == 0)
		goto done;
	if ((b = crypto_in_line(body.data, body.len, 0,
	    "-----BEGIN PGP MESSAGE-----")) < body.len) {
		enc = 1;
		endmark = "-----END PGP MESSAGE-----";
	} else if ((b = crypto_in_line(body.data, body.len, 0,
	    "-----BEGIN PGP SIGNED MESSAGE-----")) < body.len) {
		enc = 0;
		endmark = "-----END PGP SIGNATURE-----";
	} else
		goto done;
	if ((e = crypto_in_line(body.data, body.len, b, endmark)) ==
	    body.len) {
		crypto_in_status(ci, p, "holds the start of an OpenPGP block "
		    "but not its end: not opened");
		goto done;
	}
	end = e + strlen(endmark);
	while (end < body.len && body.data[end] != '\n')
		end++;
	if (!crypto_in_blank(body.data, b) ||
	    !crypto_in_blank(body.data + end, body.len - end))
		crypto_in_warn(ci, "part %s has text outside its OpenPGP "
		    "block; only the block is shown", *p->section ?
		    p->section : "1");
	if (enc) {
		if (!top) {
			crypto_in_status(ci, p, "encrypted part not opened: "
			    "not at the top of the message");
			crypto_in_warn(ci, "an encrypted part below the top "
			    "of the message was not opened");
			goto done;
		}
		if (crypto_in_decrypt(ci, p, CRYPTO_IN_OPENPGP,
		    body.data + b, end - b, &plain) == 0)
			crypto_in_keep_text(ci, p, &plain, 1);
		goto done;
	}
	if ((ctx = crypto_in_ctx(ci, CRYPTO_IN_OPENPGP, &cause)) == NULL) {
		crypto_in_sig_error(ci, CRYPTO_IN_OPENPGP, p, cause);
		goto done;
	}
	if ((err = gpgme_data_new_from_mem(&in, body.data + b, end - b,
	    0)) != 0 || (err = gpgme_data_new(&out)) != 0 ||
	    (err = gpgme_op_verify(ctx, in, NULL, out)) != 0) {
		crypto_in_sig_error(ci, CRYPTO_IN_OPENPGP, p,
		    crypto_error("cannot check the signature", err));
		if (out != NULL)
			crypto_in_drop(out);
	} else {
		crypto_in_sigs(ci, ctx, CRYPTO_IN_OPENPGP, p, 1);
		crypto_in_take(out, &plain);
		crypto_in_keep_text(ci, p, &plain, 0);
	}
	if (in != NULL)
		gpgme_data_release(in);
	gpgme_release(ctx);
done:
	(void)depth;
	crypto_in_wipe(&plain);
	crypto_in_wipe(&body);
}

/*
 * Walk part p. top: p is at the top of the message, where encrypted
 * content is opened.
 */
static void
crypto_in_walk(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct mime_part	*c;

	if (depth > CRYPTO_IN_MAX_DEPTH) {
		if (mime_part_is(p, "multipart", "encrypted") ||
		    mime_part_is(p, "multipart", "signed") ||
		    mime_part_is(p, "application", "pkcs7-mime") ||
		    mime_part_is(p, "application", "x-pkcs7-mime"))
			crypto_in_status(ci, p, "not opened: more than %d "
			    "layers of encryption and signatures",
			    CRYPTO_IN_MAX_DEPTH);
		return;
	}
	if (mime_part_is(p, "multipart", "encrypted")) {
		crypto_in_pgpmime(ci, p, top, depth);
		return;
	}
	if (mime_part_is(p, "multipart", "signed")) {
		crypto_in_detached(ci, p, top, depth);
		return;
	}
	if (mime_part_is(p, "application", "pkcs7-mime") ||
	    mime_part_is(p, "application", "x-pkcs7-mime")) {
		crypto_in_pkcs7(ci, p, top, depth);
		return;
	}
	if (mime_part_is(p, "text", "plain") && p->nchildren == 0 &&
	    p->disposition != MIME_DISP_ATTACHMENT) {
		crypto_in_inline(ci, p, top && p->parent == NULL, depth);
		return;
	}
	TAILQ_FOREACH(c, &p->children, entry)
		crypto_in_walk(ci, c, 0, depth);
}

/* The From a signature on p is held against: its own message's. */
static char *
crypto_in_sig_from(const struct crypto_in *ci, const struct mime_part *p)
{
	const struct mime_part	*x;

	for (x = p; x != NULL; x = crypto_in_up(ci, x)) {
		if (x->parent != NULL && mime_part_is(x->parent, "message",
		    NULL))
			return addr_list_from(&x->header);
	}
	return ci->from != NULL ? xstrdup(ci->from) : NULL;
}

static int
crypto_in_has_prot(const struct mime_header *h)
{
	size_t	i;

	for (i = 0; i < sizeof crypto_in_prot_fields /
	    sizeof *crypto_in_prot_fields; i++) {
		if (mime_header_find(h, crypto_in_prot_fields[i], NULL) !=
		    NULL)
			return 1;
	}
	return 0;
}

/*
 * Protected headers (RFC 9788): the deepest entity, down the layers at
 * the top, that carries header fields, provided a decryption or a good
 * signature above it vouches for them.
 */
static void
crypto_in_protected(struct crypto_in *ci)
{
	struct mime_part		*x = ci->msg->root;
	const struct crypto_in_part	*e;
	int				 ok = 0, n;

	for (n = 0; x != NULL && n < 2 * CRYPTO_IN_MAX_DEPTH + 2; n++) {
		if (x != ci->msg->root && ok && crypto_in_has_prot(&x->header))
			ci->protected = &x->header;
		e = crypto_in_find(ci, x);
		if (e != NULL && e->inner != NULL) {
			if (e->decrypted || crypto_in_good_over(ci, x))
				ok = 1;
			x = e->inner->root;
		} else if (mime_part_is(x, "multipart", "signed") &&
		    x->nchildren > 0) {
			if (crypto_in_good_over(ci, x))
				ok = 1;
			x = TAILQ_FIRST(&x->children);
		} else
			break;
	}
}

static const char *
crypto_in_who(const struct crypto_in_sig *s)
{
	if (s->signer != NULL)
		return s->signer;
	return s->fpr != NULL ? s->fpr : "an unknown key";
}

/* "good signature by alice@example.org (key ABCD...)" and the like. */
static char *
crypto_in_sig_sentence(const struct crypto_in_sig *s)
{
	const char	*fpr = s->fpr != NULL ? s->fpr : "unknown";
	const char	*proto = crypto_in_proto_label(s->proto);

	switch (s->status) {
	case CRYPTO_IN_GOOD:
		if (!s->matches_from)
			return xasprintf("signed (%s) by someone else: %s "
			    "(key %s), not by the sender %s", proto,
			    s->signer != NULL ? s->signer : "no address",
			    fpr, s->from != NULL ? s->from : "(none)");
		return xasprintf("good signature (%s) by %s (key %s%s)",
		    proto, s->signer, fpr,
		    strcmp(s->validity, "full") == 0 ||
		    strcmp(s->validity, "ultimate") == 0 ? "" :
		    ", not verified");
	case CRYPTO_IN_BAD:
		return xasprintf("BAD signature (%s), key %s: the part was "
		    "changed after signing, or the signature is forged",
		    proto, fpr);
	case CRYPTO_IN_EXPIRED:
		if (s->key_expired)
			return xasprintf("EXPIRED key: the signature (%s) by %s "
			    "(key %s) does not count, the key has expired",
			    proto, crypto_in_who(s), fpr);
		return xasprintf("EXPIRED signature (%s) by %s (key %s): it "
		    "does not count any more", proto, crypto_in_who(s), fpr);
	case CRYPTO_IN_REVOKED:
		return xasprintf("REVOKED key: the signature (%s) by %s (key "
		    "%s) does not count, the key was revoked", proto,
		    crypto_in_who(s), fpr);
	case CRYPTO_IN_UNKNOWN_KEY:
		return xasprintf("signed (%s) with an unknown key %s: cannot "
		    "be checked", proto, fpr);
	default:
		return xasprintf("the signature (%s) could not be checked: "
		    "%s", proto, s->reason != NULL ? s->reason : "error");
	}
}

/* Names, senders and the match with From, once all is known. */
static void
crypto_in_finish_sigs(struct crypto_in *ci)
{
	struct crypto_in_sig	*s;
	size_t			 i, j;
	char			*line;

	for (i = 0; i < ci->nsigs; i++) {
		s = &ci->sigs[i];
		s->name = crypto_in_name(ci, s->part);
		s->from = crypto_in_sig_from(ci, s->part);
		for (j = 0; j < s->nuids; j++) {
			if (addr_list_same(s->uids[j], s->from)) {
				s->matches_from = 1;
				s->signer = xstrdup(s->uids[j]);
				break;
			}
		}
		if (s->signer == NULL && s->nuids > 0)
			s->signer = xstrdup(s->uids[0]);
		if (s->status == CRYPTO_IN_GOOD && !s->matches_from)
			crypto_in_warn(ci, "part %s is signed by someone else: "
			    "%s, not by the sender %s", s->name,
			    s->signer != NULL ? s->signer : "no address",
			    s->from != NULL ? s->from : "(none)");
		line = crypto_in_sig_sentence(s);
		crypto_in_status(ci, s->part, "%s", line);
		free(line);
	}
}

/* Is p covered by a good signature or decryption, up to the top? */
static void
crypto_in_coverage(const struct crypto_in *ci, const struct mime_part *p,
    int *sig, int *enc)
{
	const struct mime_part		*x;
	const struct crypto_in_part	*e;

	*sig = *enc = 0;
	for (x = p; x != NULL; x = crypto_in_up(ci, x)) {
		if (crypto_in_good_over(ci, x))
			*sig = 1;
		if ((e = crypto_in_find(ci, x)) != NULL && e->decrypted &&
		    x != p)
			*enc = 1;
	}
}

static void
crypto_in_leaves_of(struct crypto_in *ci, struct mime_part *r)
{
	struct mime_part		*p;
	const struct crypto_in_part	*e;
	int				 sig, enc;

	for (p = r; p != NULL; p = mime_part_next(p)) {
		if (p->nchildren > 0 || ((e = crypto_in_find(ci, p)) != NULL &&
		    (e->inner != NULL || e->status != NULL)))
			continue;
		if (p->parent != NULL && mime_part_is(p->parent, "multipart",
		    "signed") && p != TAILQ_FIRST(&p->parent->children))
			continue;	/* the signature itself */
		if (p->parent != NULL && mime_part_is(p->parent, "multipart",
		    "encrypted"))
			continue;	/* the ciphertext, said above */
		crypto_in_coverage(ci, p, &sig, &enc);
		if (!sig && !enc)
			crypto_in_status(ci, p, "not signed, not encrypted");
		else if (!sig && ci->nsigs > 0)
			crypto_in_status(ci, p, "not signed");
	}
}

/* Parts no signature or decryption covers say so (when any is there). */
static void
crypto_in_leaves(struct crypto_in *ci)
{
	size_t	i, n = ci->nparts;

	if (ci->nparts == 0 && ci->nsigs == 0)
		return;
	crypto_in_leaves_of(ci, ci->msg->root);
	for (i = 0; i < n; i++) {
		if (ci->parts[i].inner != NULL)
			crypto_in_leaves_of(ci, ci->parts[i].inner->root);
	}
}

/* The message-level verdict and its sentence. */
static void
crypto_in_verdict(struct crypto_in *ci)
{
	const struct crypto_in_sig	*s, *root = NULL, *part = NULL;
	struct buf			 b;
	size_t				 i;

	for (i = 0; i < ci->nsigs; i++) {
		s = &ci->sigs[i];
		if (strcmp(s->name, "root") == 0) {
			if (root == NULL || (s->status == CRYPTO_IN_GOOD &&
			    (root->status != CRYPTO_IN_GOOD ||
			    (s->matches_from && !root->matches_from))))
				root = s;
		} else if (part == NULL)
			part = s;
	}
	buf_init(&b);
	if (ci->encryption != CRYPTO_IN_NONE) {
		if (ci->decrypted)
			buf_addf(&b, "encrypted (%s) and decrypted; ",
			    crypto_in_proto_label(ci->encryption));
		else
			buf_addf(&b, "encrypted (%s), not decrypted: %s; ",
			    crypto_in_proto_label(ci->encryption),
			    ci->not_decrypted != NULL ? ci->not_decrypted :
			    "unknown");
	}
	if (root != NULL && root->status == CRYPTO_IN_GOOD &&
	    root->matches_from) {
		ci->signed_state = "yes";
		buf_addf(&b, "signed by %s", root->signer);
	} else if (root != NULL && root->status == CRYPTO_IN_GOOD) {
		ci->signed_state = "someone-else";
		buf_addf(&b, "signed by someone else: %s, not by the sender "
		    "%s", root->signer != NULL ? root->signer : "no address",
		    root->from != NULL ? root->from : "(none)");
	} else if (root != NULL && root->status == CRYPTO_IN_UNKNOWN_KEY) {
		ci->signed_state = "unverified";
		buf_addf(&b, "signed with an unknown key %s", root->fpr ?
		    root->fpr : "");
	} else if (root != NULL) {
		ci->signed_state = "invalid";
		buf_addf(&b, "the signature is %s",
		    crypto_in_status_name(root->status));
	} else if (part != NULL) {
		ci->signed_state = "partly";
		if (part->status == CRYPTO_IN_GOOD)
			buf_addf(&b, "part %s is signed by %s, the rest is "
			    "not", part->name, crypto_in_who(part));
		else
			buf_addf(&b, "part %s has a signature that is %s, the "
			    "rest is not signed", part->name,
			    crypto_in_status_name(part->status));
	} else {
		ci->signed_state = "no";
		buf_adds(&b, "not signed");
	}
	ci->summary = buf_take(&b);
}

/* Autocrypt and gossip (autocrypt-parse.c), with what only we know. */
static void
crypto_in_autocrypt(struct crypto_in *ci)
{
	const struct mime_header	*outer = &ci->msg->root->header;
	const struct crypto_in_part	*e;
	const struct mime_part		*in;
	char				*from, **rcpt = NULL;
	size_t				 n = 0, i;

	from = addr_list_from(outer);
	autocrypt_parse_header(&ci->autocrypt, outer, from,
	    mime_part_is(ci->msg->root, "multipart", "report"));
	free(from);
	/* Gossip: encrypted with integrity, and signed by the sender. */
	if (ci->encryption == CRYPTO_IN_NONE || !ci->decrypted ||
	    ci->integrity != CRYPTO_IN_INTEGRITY_OK ||
	    strcmp(ci->signed_state, "yes") != 0 ||
	    (e = crypto_in_find(ci, ci->msg->root)) == NULL ||
	    e->inner == NULL)
		return;
	addr_list_get(ci->protected != NULL ? ci->protected : outer, "To",
	    &rcpt, &n);
	addr_list_get(ci->protected != NULL ? ci->protected : outer, "Cc",
	    &rcpt, &n);
	in = e->inner->root;
	autocrypt_parse_gossip(&ci->autocrypt, &in->header, rcpt, n);
	if (mime_part_is(in, "multipart", "signed") && in->nchildren > 0)
		autocrypt_parse_gossip(&ci->autocrypt,
		    &TAILQ_FIRST(&in->children)->header, rcpt, n);
	for (i = 0; i < ci->autocrypt.nwarnings; i++)
		crypto_in_warn(ci, "%s", ci->autocrypt.warnings[i]);
	addr_list_free(rcpt, n);
}

struct crypto_in *
crypto_in_analyse(struct mime_msg *m, int autocrypt)
{
	struct crypto_in	*ci = xcalloc(1, sizeof *ci);
	char			*pfrom, *ofrom;

	ci->msg = m;
	ci->from = addr_list_from(&m->root->header);
	crypto_in_walk(ci, m->root, 1, 0);
	crypto_in_protected(ci);
	if (ci->protected != NULL) {
		ofrom = ci->from;
		pfrom = addr_list_from(ci->protected);
		if (pfrom != NULL) {
			if (ofrom != NULL && !addr_list_same(pfrom, ofrom))
				crypto_in_warn(ci, "the protected From (%s) "
				    "differs from the outer From (%s); the "
				    "protected one is used", pfrom, ofrom);
			free(ofrom);
			ci->from = pfrom;
		}
	}
	crypto_in_finish_sigs(ci);
	crypto_in_leaves(ci);
	crypto_in_verdict(ci);
	if (autocrypt)
		crypto_in_autocrypt(ci);
	return ci;
}

void
crypto_in_free(struct crypto_in *ci)
{
	size_t	i;

	if (ci == NULL)
		return;
	crypto_in_forget(ci, 0, 0);
	free(ci->sigs);
	free(ci->parts);
	for (i = 0; i < ci->nwarnings; i++)
		free(ci->warnings[i]);
	free(ci->warnings);
	free(ci->from);
	free(ci->not_decrypted);
	free(ci->summary);
	autocrypt_result_free(&ci->autocrypt);
	free(ci);
}

char *
crypto_in_view_status(const struct mime_part *p, void *arg)
{
	struct crypto_in		*ci = arg;
	const struct crypto_in_part	*e = crypto_in_find(ci, p);
	char				*name, *s;

	if (e == NULL || e->status == NULL)
		return NULL;
	name = crypto_in_name(ci, p);
	s = xasprintf("security of part %s: %s", name, e->status);
	free(name);
	return s;
}

struct mime_part *
crypto_in_view_inner(const struct mime_part *p, void *arg)
{
	struct crypto_in		*ci = arg;
	const struct crypto_in_part	*e = crypto_in_find(ci, p);

	return e != NULL && e->inner != NULL ? e->inner->root : NULL;
}

struct crypto_in *
crypto_in_analyse_import(struct mime_msg *m)
{
	struct crypto_in	*ci;
	size_t			 i;

	ci = crypto_in_analyse(m, 1);
	for (i = 0; i < ci->nsigs && ci->autocrypt.nkeys > 0; i++) {
		if (ci->sigs[i].status == CRYPTO_IN_UNKNOWN_KEY) {
			crypto_in_free(ci);
			return crypto_in_analyse(m, 1);
		}
	}
	return ci;
}
