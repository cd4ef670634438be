/*
 * draft-protect.c: a draft made into the message to send (draft.h):
 * built, then signed and encrypted as the user's options, the settings
 * and the encryption policy (policy.h) say. STEED: mail is signed
 * whenever the account has a key, encrypted whenever the policy finds a
 * key for every recipient, and a reply to encrypted mail is encrypted or
 * refused (policy_must(), the one place for that rule). Callers: the
 * send command, later the composer. It never prints: the policy's
 * warnings go to fe_notice(), "send in clear?" to fe_confirm(), the line
 * saying what was done comes back in struct draft_protection.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto-out.h"
#include "crypto.h"
#include "draft.h"
#include "frontend.h"
#include "mime-build.h"
#include "ownkey.h"
#include "xmalloc.h"

void
draft_policy_in(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, struct policy_in *in)
{
	memset(in, 0, sizeof *in);
	in->cf = cf;
	policy_mode(cf->encrypt, &in->mode);
	policy_fallback_mode(cf->fallback, &in->fallback);
	in->require = o->encrypt || o->require;
	in->never = o->never;
	in->replying_encrypted = d->from_encrypted;
	in->forwarding = d->forwarding;
	in->smime = o->smime;
	in->use_dns = 1;
	in->batch = !o->can_ask;
}

int
draft_must_encrypt(const struct draft *d, const struct config *cf,
    const struct draft_opts *o)
{
	struct policy_in	in;

	draft_policy_in(d, cf, o, &in);
	return policy_must(&in);
}

int
draft_may_ask(const struct draft *d, const struct config *cf,
    const struct draft_opts *o)
{
	struct policy_in	in;

	draft_policy_in(d, cf, o, &in);
	return !in.never && !policy_must(&in) &&
	    in.mode == POLICY_OPPORTUNISTIC && in.fallback == POLICY_ASK;
}

/* "send in clear?", naming the recipients without a key and why. */
static int
draft_ask(const struct policy_result *res)
{
	struct buf	 q;
	size_t		 i;
	int		 yes;

	buf_init(&q);
	buf_adds(&q, "this message cannot be encrypted to every recipient:\n");
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr != NULL)
			continue;
		buf_addf(&q, "  %s: %s\n", res->rcpts[i].addr,
		    policy_rcpt_reason(&res->rcpts[i]));
	}
	buf_adds(&q, "send in clear?");
	yes = fe_confirm("%s", q.data);
	buf_free(&q);
	return yes;
}

/*
 * The encryption policy for d's recipients, asking through fe_confirm()
 * when fallback = ask and somebody can answer. Returns 0 (p->policy set:
 * encrypt, or send in clear), 1 refused (or held: a bogus DNS answer,
 * which is never asked about here: the compose screen asks from its
 * preview), 2 to wait for DNS, -1 with *cause.
 */
static int
draft_decide(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, int keyring, struct draft_protection *p,
    char **cause)
{
	struct policy_in	  in;
	struct policy_result	 *res = &p->policy;
	char			**addrs, *why = NULL;
	size_t			  n = 0, i;
	int			  rc, must;

	draft_policy_in(d, cf, o, &in);
	in.home_empty = !keyring;
	must = policy_must(&in);
	addrs = xcalloc(d->nto + d->ncc + d->nbcc + 1, sizeof *addrs);
	for (i = 0; i < d->nto; i++)
		addrs[n++] = d->to[i];
	for (i = 0; i < d->ncc; i++)
		addrs[n++] = d->cc[i];
	for (i = 0; i < d->nbcc; i++)
		addrs[n++] = d->bcc[i];
	rc = policy_decide(&in, addrs, n, res, &why);
	free(addrs);
	/*
	 * No keys can be known (there is no trust store, and none can be
	 * made): what a missing key means, for all. A store that exists but
	 * cannot be read (a full disk, a lock) may hold keys: nothing goes.
	 */
	if (rc == -1 && !must && in.mode == POLICY_OPPORTUNISTIC &&
	    in.fallback == POLICY_PLAINTEXT && !trust_store_exists()) {
		memset(res, 0, sizeof *res);
		res->action = POLICY_CLEAR;
		res->line = xasprintf("sent in clear: %s", why);
		free(why);
		p->decided = 1;
		return 0;
	}
	if (rc == -1) {
		*cause = xasprintf("cannot decide whether to encrypt, nothing "
		    "was sent: %s", why);
		free(why);
		return -1;
	}
	p->decided = 1;
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].warning != NULL)
			fe_notice(FE_WARNING, "%s", res->rcpts[i].warning);
	}
	if (res->action == POLICY_ASK_USER)
		policy_answer(res, o->can_ask, o->can_ask && draft_ask(res));
	if (res->action == POLICY_WAIT)
		return 2;
	return res->action == POLICY_REFUSE_SEND ||
	    res->action == POLICY_HOLD ? 1 : 0;
}

/* Sign and perhaps encrypt m into msg, with the keys found. */
static int
draft_sign(const struct draft *d, const struct draft_opts *o,
    const struct mime_out *m, int want, int encrypt, struct buf *msg,
    struct draft_protection *p, char **cause)
{
	struct ownkey		 pgp, smime;
	struct crypto_out	 co;
	struct policy_result	*res = &p->policy;
	struct buf		 out;
	const char		**fprs = NULL;
	char			*why = NULL;
	int			 have = 0, rc = -1;
	size_t			 i;

	memset(&pgp, 0, sizeof pgp);
	memset(&smime, 0, sizeof smime);
	switch (ownkey_openpgp(d->a, (want || encrypt) && !o->smime, &pgp,
	    &why)) {
	case -1:
		if ((want || encrypt) && !o->smime) {
			*cause = xasprintf("no key to sign with, nothing was "
			    "sent: %s", why);
			goto out;
		}
		break;
	case 0:
		have = 1;
		break;
	}
	if (!want && !encrypt && !have) {
		rc = 0;
		goto out;
	}
	free(why);
	why = NULL;
	if ((want || encrypt) && o->smime && ownkey_smime(d->a, 1, &smime,
	    &why) == -1) {
		*cause = xasprintf("no S/MIME certificate to sign with, "
		    "nothing was sent: %s", why);
		goto out;
	}
	if (encrypt) {
		fprs = xcalloc(res->n + 1, sizeof *fprs);
		for (i = 0; i < res->n; i++)
			fprs[i] = res->rcpts[i].fpr;
	}
	memset(&co, 0, sizeof co);
	co.proto = o->smime ? GPGME_PROTOCOL_CMS : GPGME_PROTOCOL_OpenPGP;
	/*
	 * The account has a key: sign (STEED), unless told not to. The
	 * Autocrypt header goes out all the same. Encryption signs inside
	 * whatever nosign says (crypto-out.h: encrypt implies sign).
	 */
	co.sign = !o->nosign || encrypt;
	co.encrypt = encrypt;
	co.signer = o->smime ? smime.fpr : pgp.fpr;
	co.autocrypt = have ? pgp.fpr : NULL;
	co.rcpt_fprs = fprs;
	buf_init(&out);
	if (crypto_out_build(m, &co, &out, &why) == -1) {
		buf_free(&out);
		if (!want && !encrypt) {
			/* Signing was not asked for: send it plain. */
			rc = 0;
			goto out;
		}
		*cause = xasprintf("cannot %s the message, nothing was sent: "
		    "%s", co.encrypt ? "encrypt" : "sign", why);
		goto out;
	}
	buf_free(msg);
	*msg = out;
	p->signed_ = co.sign;
	p->encrypted = encrypt;
	rc = 0;
out:
	free(why);
	free(fprs);
	ownkey_free(&pgp);
	ownkey_free(&smime);
	return rc;
}

int
draft_protect(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, struct buf *msg, struct draft_protection *p,
    int *bad_input, char **cause)
{
	struct mime_out		 m;
	struct policy_in	 in;
	char			*why = NULL;
	int			 want = o->sign || o->encrypt, keyring, must;
	int			 clear, smime_clear, rc = -1;

	memset(p, 0, sizeof *p);
	*bad_input = 0;
	draft_mime(d, &m);
	if (mime_build(&m, msg, cause) == -1) {
		*bad_input = 1;
		goto out;
	}
	draft_policy_in(d, cf, o, &in);
	keyring = ownkey_have_keyring(cf);
	must = policy_must(&in);
	/* S/MIME is chosen per message; it encrypts when asked or bound to. */
	smime_clear = o->smime && !must && !o->never;
	clear = o->never || smime_clear || (in.mode == POLICY_NEVER && !must);
	if (want || must) {
		if (crypto_init(cf->gnupg_home, cause) == -1)
			goto out;
	} else if ((!clear || keyring) &&
	    crypto_init(cf->gnupg_home, &why) == -1) {
		if (!clear && (in.mode != POLICY_OPPORTUNISTIC ||
		    in.fallback != POLICY_PLAINTEXT)) {
			*cause = xasprintf("cannot look for the recipients' "
			    "keys, nothing was sent: %s", why);
			goto out;
		}
		/* No gpg: plain mail still goes, and says so. */
		if (!clear)
			p->line = xasprintf("sent in clear: %s", why);
		rc = 0;
		if (!clear)
			goto out;
		keyring = 0;
	}
	if (smime_clear) {
		p->policy.action = POLICY_CLEAR;
		p->policy.line = xstrdup("sent in clear: --smime encrypts "
		    "only with --encrypt or --require-encryption");
	} else if ((rc = draft_decide(d, cf, o, keyring, p, cause)) != 0) {
		if (rc > 0)
			p->line = xstrdup(p->policy.line);
		goto out;
	}
	rc = 0;
	if (want || p->policy.action == POLICY_ENCRYPT || keyring)
		rc = draft_sign(d, o, &m, want, p->policy.action ==
		    POLICY_ENCRYPT, msg, p, cause);
	if (rc == 0 && p->policy.line != NULL)
		p->line = xstrdup(p->policy.line);
out:
	free(why);
	draft_mime_free(&m);
	return rc;
}

void
draft_protection_free(struct draft_protection *p)
{
	policy_result_free(&p->policy);
	free(p->line);
	memset(p, 0, sizeof *p);
}
