/*
 * keys.c: setup_keys(), the secret keys the user already has (setup.h,
 * step 3), so that the wizard can offer one of them instead of making a
 * new key: in the GnuPG home cf uses, including those whose secret part
 * is on a smartcard (gpgme marks their subkeys is_cardkey). Only keys
 * that can sign and are not revoked, expired, disabled or invalid; those
 * with a user ID holding the address first.
 *
 * Blocks (gpg lists the keys); never prints.
 */
#include <stdlib.h>
#include <string.h>

#include <gpgme.h>

#include "crypto.h"
#include "setup-int.h"
#include "xmalloc.h"

static int
keys_usable(gpgme_key_t k)
{
	return k->secret && k->can_sign && !k->revoked && !k->expired &&
	    !k->disabled && !k->invalid && k->fpr != NULL;
}

/* Fill one entry from k. */
static void
keys_fill(struct setup_key *sk, gpgme_key_t k, const char *address)
{
	gpgme_user_id_t	 u, pick = NULL;
	gpgme_subkey_t	 s;

	memset(sk, 0, sizeof *sk);
	sk->fpr = xstrdup(k->fpr);
	for (u = k->uids; u != NULL; u = u->next) {
		if (u->revoked || u->invalid)
			continue;
		if (address != NULL && u->email != NULL &&
		    crypto_uid_is(u->email, address)) {
			pick = u;
			sk->has_address = 1;
			break;
		}
		if (pick == NULL)
			pick = u;
	}
	sk->uid = xstrdup(pick != NULL && pick->uid != NULL ? pick->uid : "");
	for (s = k->subkeys; s != NULL; s = s->next)
		if (s->is_cardkey)
			sk->card = 1;
}

int
setup_keys(const struct config *cf, const char *address,
    struct setup_key **keys, size_t *n, char **cause)
{
	struct setup_key	*v = NULL, t;
	gpgme_ctx_t		 ctx;
	gpgme_key_t		 k;
	gpgme_error_t		 err;
	size_t			 nv = 0, i, j;

	*keys = NULL;
	*n = 0;
	if (crypto_init(cf != NULL ? cf->gnupg_home : NULL, cause) == -1)
		return -1;
	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return -1;
	if ((err = gpgme_op_keylist_start(ctx, NULL, 1)) != 0) {
		*cause = crypto_error("listing the secret keys", err);
		crypto_release(ctx);
		return -1;
	}
	while ((err = gpgme_op_keylist_next(ctx, &k)) == 0) {
		if (keys_usable(k)) {
			v = xreallocarray(v, nv + 1, sizeof *v);
			keys_fill(&v[nv++], k, address);
		}
		gpgme_key_unref(k);
	}
	gpgme_op_keylist_end(ctx);
	crypto_release(ctx);
	if (gpgme_err_code(err) != GPG_ERR_EOF) {
		*cause = crypto_error("listing the secret keys", err);
		setup_keys_free(v, nv);
		return -1;
	}
	/* Those with the address first, otherwise in gpg's order. */
	for (i = 1; i < nv; i++)
		for (j = i; j > 0 && v[j].has_address &&
		    !v[j - 1].has_address; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*keys = v;
	*n = nv;
	return 0;
}

void
setup_keys_free(struct setup_key *keys, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(keys[i].fpr);
		free(keys[i].uid);
	}
	free(keys);
}
