/*
 * dns-sighting.c: OPENPGPKEY answers into sightings of the trust store
 * (dns-sighting.h). Callers: policy.c when sending, sync-trust.c for the
 * senders of received mail. The key data passes keydata.c's checks
 * before gpg sees it, and a key without a user ID of the address is not
 * sighted: a domain's record speaks for its own addresses only.
 */
#include <stdlib.h>

#include <gpgme.h>

#include "crypto.h"
#include "dns-sighting.h"
#include "keydata.h"
#include "log.h"
#include "xmalloc.h"

/* Does key have a valid user ID of addr? */
static int
dns_sighting_uid(gpgme_key_t key, const char *addr)
{
	gpgme_user_id_t	uid;

	for (uid = key->uids; uid != NULL; uid = uid->next) {
		if (!uid->revoked && !uid->invalid &&
		    crypto_uid_is(uid->email, addr))
			return 1;
	}
	return 0;
}

/* One record's key into the home; its fingerprint if it is addr's. */
static char *
dns_sighting_key(gpgme_ctx_t ctx, const struct dns_record *rec,
    const char *addr)
{
	gpgme_key_t	 key;
	char		*fpr, *cause = NULL;
	int		 ours;

	if ((fpr = keydata_import(rec->data, rec->len, &cause)) == NULL) {
		log_msg(LOG_INFO, "dns: the key of %s: %s", addr, cause);
		free(cause);
		return NULL;
	}
	if (crypto_key(ctx, fpr, 0, &key) != 0) {
		free(fpr);
		return NULL;
	}
	ours = dns_sighting_uid(key, addr);
	gpgme_key_unref(key);
	if (!ours) {
		log_msg(LOG_INFO, "dns: the key %s of %s's record has no user "
		    "ID of the address", fpr, addr);
		free(fpr);
		return NULL;
	}
	return fpr;
}

void
dns_sighting_import(gpgme_ctx_t ctx, const char *addr,
    const struct dns_result *r, char ***fprs, size_t *n)
{
	char	*fpr;
	size_t	 i;

	*fprs = NULL;
	*n = 0;
	if (r->status != DNS_SECURE && r->status != DNS_INSECURE)
		return;
	for (i = 0; i < r->nrecords; i++) {
		if ((fpr = dns_sighting_key(ctx, &r->records[i], addr)) == NULL)
			continue;
		*fprs = xreallocarray(*fprs, *n + 1, sizeof **fprs);
		(*fprs)[(*n)++] = fpr;
	}
}

int
dns_sighting_openpgp(struct trust_store *ts, gpgme_ctx_t ctx,
    const char *addr, const struct dns_result *r, time_t now)
{
	char	**fprs, *cause = NULL;
	size_t	  i, n;
	int	  ok = 0;

	dns_sighting_import(ctx, addr, r, &fprs, &n);
	for (i = 0; i < n; i++) {
		if (trust_store_sighting(ts, addr, fprs[i], "openpgp",
		    r->status == DNS_SECURE ? TRUST_SRC_DNS_SECURE :
		    TRUST_SRC_DNS_INSECURE, now, &cause) == -1) {
			log_msg(LOG_INFO, "dns: %s: %s", addr, cause);
			free(cause);
			cause = NULL;
		} else
			ok++;
		free(fprs[i]);
	}
	free(fprs);
	return ok;
}
