/*
 * crypto-in-text.c: the wording of crypto-in's verdicts: each
 * signature's sentence, what parts nothing covers say, and the message's
 * one-sentence summary with its "signed" state. Called by crypto-in.c
 * once the walk is done. It decides nothing: it words what is recorded.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
crypto_in_who(const struct crypto_in_sig *s)
{
	if (s->signer != NULL)
		return s->signer;
	return s->fpr != NULL ? s->fpr : "an unknown key";
}

/* "good signature by alice@example.org (key ABCD...)" and the like. */
char *
crypto_in_sig_sentence(const struct crypto_in_sig *s)
{
	const char	*fpr = s->fpr != NULL ? s->fpr : "unknown";
	const char	*proto = crypto_in_proto_label(s->proto);
	char		 d[16], k[16];

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
		if (s->time == CRYPTO_IN_TIME_FUTURE)
			return xasprintf("signature (%s) by %s (key %s) DATED "
			    "IN THE FUTURE, %s: it does not count", proto,
			    crypto_in_who(s), fpr, crypto_in_date(s->created,
			    d, sizeof d));
		if (s->time == CRYPTO_IN_TIME_BEFORE_KEY)
			return xasprintf("signature (%s) by %s (key %s) dated "
			    "%s, BEFORE ITS %s (%s): it does not count", proto,
			    crypto_in_who(s), fpr, crypto_in_date(s->created,
			    d, sizeof d), s->proto == CRYPTO_IN_SMIME ?
			    "CERTIFICATE WAS VALID" : "KEY WAS MADE",
			    crypto_in_date(s->key_created, k, sizeof k));
		return xasprintf("the signature (%s) could not be checked: "
		    "%s", proto, s->reason != NULL ? s->reason : "error");
	}
}

void
crypto_in_coverage(const struct crypto_in *ci, const struct mime_part *p,
    int *sig, int *enc, int *weak)
{
	const struct mime_part		*x, *prev = NULL;
	const struct crypto_in_part	*e;

	*sig = *enc = *weak = 0;
	for (x = p; x != NULL; prev = x, x = crypto_in_up(ci, x)) {
		/* A signature on a multipart/signed covers its first part
		 * only: not the signature, nor anything added after it. */
		if (crypto_in_good_over(ci, x) && (prev == NULL ||
		    prev->parent != x || !mime_part_is(x, "multipart",
		    "signed") || prev == TAILQ_FIRST(&x->children)))
			*sig = 1;
		if ((e = crypto_in_find(ci, x)) == NULL || !e->decrypted ||
		    x == p)
			continue;
		if (e->no_integrity)
			*weak = 1;
		else
			*enc = 1;
	}
}

/*
 * Is p the signature of a multipart/signed: its second part, of a
 * signature's type? Anything else in there (a part added after the
 * signature, or in its place) is a part like any other, and says what
 * covers it.
 */
static int
crypto_in_is_sigpart(const struct mime_part *p)
{
	const struct mime_part	*first;

	if (p->parent == NULL || !mime_part_is(p->parent, "multipart",
	    "signed"))
		return 0;
	first = TAILQ_FIRST(&p->parent->children);
	if (first == NULL || p != TAILQ_NEXT(first, entry))
		return 0;
	return mime_part_is(p, "application", "pgp-signature") ||
	    mime_part_is(p, "application", "pkcs7-signature") ||
	    mime_part_is(p, "application", "x-pkcs7-signature");
}

static void
crypto_in_leaves_of(struct crypto_in *ci, struct mime_part *r)
{
	struct mime_part		*p;
	const struct crypto_in_part	*e;
	int				 sig, enc, weak;

	for (p = r; p != NULL; p = mime_part_next(p)) {
		if (p->nchildren > 0 || ((e = crypto_in_find(ci, p)) != NULL &&
		    (e->inner != NULL || e->status != NULL)))
			continue;
		if (crypto_in_is_sigpart(p))
			continue;	/* the signature itself */
		if (p->parent != NULL && mime_part_is(p->parent, "multipart",
		    "encrypted"))
			continue;	/* the ciphertext, said above */
		crypto_in_coverage(ci, p, &sig, &enc, &weak);
		if (!sig && !enc && weak)
			crypto_in_status(ci, p, "NOT PROTECTED: decrypted, but "
			    "nothing protects its integrity, it may have been "
			    "altered; not signed");
		else if (!sig && !enc)
			crypto_in_status(ci, p, "not signed, not encrypted");
		else if (!sig && ci->nsigs > 0)
			crypto_in_status(ci, p, "not signed");
	}
}

/* Parts no signature or decryption covers say so (when any is there). */
void
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
void
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
		if (ci->decrypted && ci->integrity == CRYPTO_IN_INTEGRITY_NONE)
			buf_addf(&b, "encrypted (%s) WITHOUT INTEGRITY "
			    "PROTECTION and decrypted: it may have been "
			    "altered; ", crypto_in_proto_label(ci->encryption));
		else if (ci->decrypted)
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
	} else if (root != NULL && root->status == CRYPTO_IN_ERROR) {
		ci->signed_state = "invalid";
		buf_addf(&b, "the signature does not count: %s",
		    root->reason != NULL ? root->reason : "it could not be "
		    "checked");
	} else if (root != NULL) {
		ci->signed_state = "invalid";
		buf_addf(&b, "the signature is %s",
		    crypto_in_status_name(root->status));
	} else if (part != NULL) {
		ci->signed_state = "partly";
		if (part->status == CRYPTO_IN_GOOD)
			buf_addf(&b, "part %s is signed by %s, the rest is "
			    "not", part->name, crypto_in_who(part));
		else if (part->status == CRYPTO_IN_ERROR)
			buf_addf(&b, "part %s has a signature that does not "
			    "count (%s), the rest is not signed", part->name,
			    part->reason != NULL ? part->reason :
			    "it could not be checked");
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
