/*
 * crypto-in-sig.c: signatures on incoming parts (multipart/signed, and the
 * signatures gpgme reports with a decryption or an opaque S/MIME
 * signature): their status, key and user IDs from gpgme's result
 * structures only, and the From each is held against. Called by the other
 * crypto-in files. It never reads a verdict from the message's text.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <gpgme.h>

#include "addr-list.h"
#include "autocrypt-parse.h"
#include "buf.h"
#include "crypto.h"
#include "crypto-in-int.h"
#include "log.h"
#include "mime-body.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "xmalloc.h"

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

/* When the subkey that made the signature (fpr or key ID) was made. */
static time_t
crypto_in_subkey_created(gpgme_key_t key, const char *fpr)
{
	gpgme_subkey_t	sk;
	size_t		n = strlen(fpr), m;

	for (sk = key->subkeys; sk != NULL; sk = sk->next) {
		if (sk->fpr != NULL && strcasecmp(sk->fpr, fpr) == 0)
			return sk->timestamp > 0 ? sk->timestamp : 0;
		if (sk->keyid != NULL && (m = strlen(sk->keyid)) >= n &&
		    n >= 16 && strcasecmp(sk->keyid + m - n, fpr) == 0)
			return sk->timestamp > 0 ? sk->timestamp : 0;
	}
	return 0;
}

/*
 * A signature whose date cannot be right does not count, whatever gpg
 * says of it: one dated in the future (beyond the clock skew allowed; a
 * signer's clock set ahead, or a date chosen so that the message sorts
 * first or outlives a key's revocation), or one dated before the key that
 * made it existed (gpg calls it a time conflict; gpgsm, of a certificate
 * not yet valid, may not). Its status becomes an error whose reason names
 * the date, so it is never shown as good, and never counts for trust.
 */
static void
crypto_in_sig_time(struct crypto_in_sig *sig, gpgme_error_t status,
    time_t now)
{
	char	d[16], k[16];
	int	conflict = gpgme_err_code(status) == GPG_ERR_TIME_CONFLICT;

	if (sig->status != CRYPTO_IN_GOOD && !conflict)
		return;
	if (sig->created != 0 && sig->created > now + CRYPTO_IN_CLOCK_SKEW) {
		sig->time = CRYPTO_IN_TIME_FUTURE;
		free(sig->reason);
		sig->reason = xasprintf("it is dated %s, in the future (more "
		    "than a day ahead of this computer's clock)",
		    crypto_in_date(sig->created, d, sizeof d));
	} else if (sig->created != 0 && sig->key_created > sig->created) {
		sig->time = CRYPTO_IN_TIME_BEFORE_KEY;
		free(sig->reason);
		sig->reason = xasprintf("it is dated %s, before its %s (%s)",
		    crypto_in_date(sig->created, d, sizeof d),
		    sig->proto == CRYPTO_IN_SMIME ? "certificate was valid" :
		    "key was made", crypto_in_date(sig->key_created, k,
		    sizeof k));
	} else if (conflict) {
		free(sig->reason);
		sig->reason = xstrdup("its date and its key's do not agree "
		    "(a time conflict)");
		return;
	} else
		return;
	sig->status = CRYPTO_IN_ERROR;
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
void
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
		sig->created = s->timestamp > 0 ? (time_t)s->timestamp : 0;
		key = NULL;
		if (s->fpr != NULL && sig->status != CRYPTO_IN_UNKNOWN_KEY &&
		    crypto_key(ctx, s->fpr, 0, &key) == 0) {
			sig->key_created = crypto_in_subkey_created(key,
			    s->fpr);
			if (key->subkeys != NULL && key->subkeys->fpr != NULL) {
				free(sig->fpr);
				sig->fpr = xstrdup(key->subkeys->fpr);
			}
			crypto_in_key_uids(sig, key);
			gpgme_key_unref(key);
		}
		crypto_in_sig_time(sig, s->status, time(NULL));
	}
}

void
crypto_in_sig_error(struct crypto_in *ci, enum crypto_in_proto proto,
    const struct mime_part *covered, char *cause)
{
	struct crypto_in_sig	*sig = crypto_in_sig_new(ci, proto, covered);

	sig->status = CRYPTO_IN_ERROR;
	sig->reason = cause;
}

/* Is a good signature covering exactly p recorded? */
int
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
int
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

/* multipart/signed (RFC 3156 section 5, RFC 8551 section 3.5). */
void
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
		crypto_release(ctx);
		buf_free(&text);
		buf_free(&sig);
	}
	TAILQ_FOREACH(c, &p->children, entry) {
		if (c == sigp && pr != CRYPTO_IN_NONE)
			continue;
		crypto_in_walk(ci, c, top && c == body, depth);
	}
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

/* Names, senders and the match with From, once all is known. */
void
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
