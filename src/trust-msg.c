/*
 * trust-msg.c: received messages into the trust store (trust-msg.h).
 *
 * Only gpgme's verdicts count (crypto-in.c made them): the signature
 * that decides is a good one by a key with the From address that covers
 * the message (signed: yes), or a revoked or expired key's signature by
 * the sender (an expired signature by a key that has not expired says
 * nothing about the key). Everything else is "unsigned", and noted as an
 * unknown key when that is why. The key of the sender's own Autocrypt
 * header goes with the signature to trust_store_message(), which decides
 * both in one transaction (the message that brings a key is the one that
 * shows it); gossip and headers for other addresses are sightings after.
 * The signature's protocol goes with it: an S/MIME signature is judged
 * against the address's S/MIME pin, an OpenPGP one against its OpenPGP
 * pin, so one protocol's key never looks like a change of the other's.
 */
#include <stdlib.h>
#include <string.h>

#include <gpgme.h>

#include "crypto-in.h"
#include "crypto.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "trust-msg.h"
#include "xmalloc.h"

/* Is key fpr certified (a valid user ID signature) by the key by? */
static int
trust_msg_certified(const char *fpr, const char *by)
{
	gpgme_ctx_t	 ctx;
	gpgme_key_t	 key;
	gpgme_user_id_t	 uid;
	gpgme_key_sig_t	 ks;
	char		*cause = NULL;
	size_t		 n;
	int		 yes = 0;

	if (fpr == NULL || by == NULL || (n = strlen(by)) < 16)
		return 0;
	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, &cause)) == NULL) {
		free(cause);
		return 0;
	}
	gpgme_set_keylist_mode(ctx, GPGME_KEYLIST_MODE_LOCAL |
	    GPGME_KEYLIST_MODE_SIGS);
	if (crypto_key(ctx, fpr, 0, &key) == 0) {
		for (uid = key->uids; uid != NULL; uid = uid->next) {
			for (ks = uid->signatures; ks != NULL; ks = ks->next) {
				if (!ks->revoked && !ks->expired &&
				    !ks->invalid && ks->status == 0 &&
				    ks->keyid != NULL &&
				    strcasecmp(ks->keyid, by + n - 16) == 0)
					yes = 1;
			}
		}
		gpgme_key_unref(key);
	}
	crypto_release(ctx);
	return yes;
}

/* The signature that speaks for the sender, as trust-store.h wants it. */
static void
trust_msg_sig(struct trust_store *ts, const struct crypto_in *ci,
    struct trust_sig *ts_sig)
{
	const struct crypto_in_sig	*s;
	char				*pinned;
	size_t				 i;

	memset(ts_sig, 0, sizeof *ts_sig);
	ts_sig->status = TRUST_SIG_NONE;
	for (i = 0; i < ci->autocrypt.nkeys; i++) {
		if (ci->autocrypt.keys[i].source == AUTOCRYPT_HEADER &&
		    strcasecmp(ci->autocrypt.keys[i].addr, ci->from) == 0)
			ts_sig->claim = ci->autocrypt.keys[i].fpr;
	}
	for (i = 0; i < ci->nsigs; i++) {
		if (ci->sigs[i].status == CRYPTO_IN_UNKNOWN_KEY)
			ts_sig->unknown_key = 1;
	}
	for (i = 0; i < ci->nsigs; i++) {
		s = &ci->sigs[i];
		if (s->fpr == NULL || s->from == NULL ||
		    strcasecmp(s->from, ci->from) != 0)
			continue;
		if (s->status == CRYPTO_IN_GOOD && s->matches_from &&
		    strcmp(ci->signed_state, "yes") == 0)
			ts_sig->status = TRUST_SIG_GOOD;
		else if (s->status == CRYPTO_IN_REVOKED &&
		    (s->matches_from || (s->signer != NULL &&
		    strcasecmp(s->signer, ci->from) == 0)))
			ts_sig->status = TRUST_SIG_REVOKED;
		else if (s->status == CRYPTO_IN_EXPIRED && s->key_expired &&
		    (s->matches_from || (s->signer != NULL &&
		    strcasecmp(s->signer, ci->from) == 0)))
			ts_sig->status = TRUST_SIG_EXPIRED;
		else
			continue;
		ts_sig->fpr = s->fpr;
		ts_sig->proto = s->proto == CRYPTO_IN_SMIME ? "smime" :
		    "openpgp";
		break;
	}
	if (ts_sig->status == TRUST_SIG_GOOD && s->proto == CRYPTO_IN_OPENPGP) {
		pinned = trust_store_pinned(ts, ci->from, "openpgp");
		if (pinned != NULL && strcasecmp(pinned, s->fpr) != 0)
			ts_sig->certified_by_pinned =
			    trust_msg_certified(s->fpr, pinned);
		free(pinned);
	}
}

int
trust_msg_record(struct trust_store *ts, const struct crypto_in *ci,
    time_t now, struct trust_verdict *v, char **cause)
{
	const struct autocrypt_key	*k;
	struct trust_sig		 sig;
	char				*msgid, *key, *why = NULL;
	size_t				 i;
	int				 rc;

	if (ci->from == NULL) {
		*cause = xstrdup("the message has no single From address");
		return -1;
	}
	msgid = mime_header_get(&ci->msg->root->header, "Message-ID", NULL);
	key = trust_store_msgkey(msgid, ci->from, ci->msg->buf, ci->msg->len);
	free(msgid);
	trust_msg_sig(ts, ci, &sig);
	/* A good signature: the key is not expired now (it was renewed). */
	if (sig.status == TRUST_SIG_GOOD && trust_store_key_status(ts,
	    sig.fpr, 0, 0, now, cause) == -1) {
		free(key);
		return -1;
	}
	rc = trust_store_message(ts, key, ci->from, &sig, now, v, cause);
	free(key);
	if (rc == -1 || v->stored)
		return rc;
	for (i = 0; i < ci->autocrypt.nkeys; i++) {
		k = &ci->autocrypt.keys[i];
		if (k->fpr == sig.claim)
			continue;	/* decided with the message */
		if (trust_store_sighting(ts, k->addr, k->fpr, "openpgp",
		    k->source == AUTOCRYPT_GOSSIP ? TRUST_SRC_GOSSIP :
		    TRUST_SRC_AUTOCRYPT, now, &why) == -1) {
			free(why);	/* the message's own state stands */
			why = NULL;
		}
	}
	return 0;
}
