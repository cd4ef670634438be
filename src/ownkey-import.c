/*
 * ownkey-import.c: keys and certificates the user hands in (see
 * ownkey.h), imported into steedmail's GnuPG home and seen in the trust
 * store for their addresses. Callers: --import-key, the setup wizard.
 * It never decides what a key is trusted for beyond the store's rules,
 * and never prints.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crypto.h"
#include "frontend.h"
#include "ownkey.h"
#include "trust-store.h"
#include "xmalloc.h"

/*
 * The imported key is seen, for every address of its valid user IDs
 * (source manual), so that the policy may use it.
 */
static void
ownkey_import_sighting(struct trust_store *ts, gpgme_key_t key)
{
	gpgme_user_id_t	 u;
	char		*a, *cause = NULL;
	size_t		 n;

	if (ts == NULL || key->subkeys == NULL || key->subkeys->fpr == NULL)
		return;
	for (u = key->uids; u != NULL; u = u->next) {
		if (u->revoked || u->invalid || u->email == NULL ||
		    strchr(u->email, '@') == NULL)
			continue;
		a = xstrdup(u->email);
		if ((n = strlen(a)) >= 2 && a[0] == '<' && a[n - 1] == '>') {
			memmove(a, a + 1, n - 2);	/* gpgsm: "<a@b>" */
			a[n - 2] = '\0';
		}
		if (trust_store_sighting(ts, a, key->subkeys->fpr,
		    key->protocol == GPGME_PROTOCOL_CMS ? "smime" : "openpgp",
		    TRUST_SRC_MANUAL, time(NULL), &cause) == -1) {
			fe_notice(FE_WARNING, "%s: %s", a, cause);
			free(cause);
			cause = NULL;
		}
		free(a);
	}
}

/* One entry for what gpg did with one key. */
static void
ownkey_import_one(gpgme_ctx_t g, gpgme_import_status_t st,
    struct trust_store *ts, struct ownkey_imported *k)
{
	gpgme_key_t	 key;
	int		 self = 0;

	memset(k, 0, sizeof *k);
	k->fpr = st->fpr != NULL ? xstrdup(st->fpr) : NULL;
	if (st->result != 0) {
		k->status = OWNKEY_IMPORT_FAILED;
		k->error = xstrdup(gpgme_strerror(st->result));
		return;
	}
	if (st->status & GPGME_IMPORT_SECRET)
		k->status = OWNKEY_IMPORT_SECRET;
	else if (st->status & GPGME_IMPORT_NEW)
		k->status = OWNKEY_IMPORT_NEW;
	else if (st->status == 0)
		k->status = OWNKEY_IMPORT_UNCHANGED;
	else
		k->status = OWNKEY_IMPORT_UPDATED;
	if (crypto_key(g, st->fpr, 0, &key) == 0) {
		if (key->uids != NULL && key->uids->uid != NULL)
			k->uid = xstrdup(key->uids->uid);
		/* Self-signed: the issuer is the subject. */
		self = key->protocol == GPGME_PROTOCOL_CMS &&
		    key->issuer_name != NULL && key->uids != NULL &&
		    key->uids->uid != NULL &&
		    strcmp(key->issuer_name, key->uids->uid) == 0;
		if (!(st->status & GPGME_IMPORT_SECRET))
			ownkey_import_sighting(ts, key);
		gpgme_key_unref(key);
	}
	if (self && (st->status & GPGME_IMPORT_NEW))
		ownkey_trust_cert(st->fpr, &k->warning);
}

int
ownkey_import(const void *data, size_t len, struct ownkey_import *r,
    char **cause)
{
	struct trust_store	*ts;
	gpgme_protocol_t	 proto = GPGME_PROTOCOL_OpenPGP;
	gpgme_import_result_t	 res;
	gpgme_import_status_t	 st;
	gpgme_ctx_t		 g;
	gpgme_data_t		 d;
	gpgme_error_t		 err;
	char			*why = NULL;
	int			 rc = -1;

	memset(r, 0, sizeof *r);
	if (len == 0 || gpgme_data_new_from_mem(&d, data, len, 0) != 0)
		return 1;
	switch (gpgme_data_identify(d, 0)) {
	case GPGME_DATA_TYPE_PGP_KEY:
	case GPGME_DATA_TYPE_PGP_OTHER:
		break;
	case GPGME_DATA_TYPE_X509_CERT:
	case GPGME_DATA_TYPE_CMS_OTHER:
	case GPGME_DATA_TYPE_CMS_SIGNED:
		proto = GPGME_PROTOCOL_CMS;
		break;
	default:
		gpgme_data_release(d);
		return 2;
	}
	if ((g = crypto_ctx(proto, cause)) == NULL) {
		gpgme_data_release(d);
		return -1;
	}
	if ((err = gpgme_op_import(g, d)) != 0 ||
	    (res = gpgme_op_import_result(g)) == NULL) {
		*cause = xasprintf("cannot import: %s", gpgme_strerror(err));
		goto out;
	}
	rc = 1;
	if (res->considered == 0)
		goto out;
	if ((ts = trust_store_open(NULL, &why)) == NULL) {
		fe_notice(FE_WARNING, "the trust store: %s", why);
		free(why);
	}
	for (st = res->imports; st != NULL; st = st->next) {
		r->keys = xreallocarray(r->keys, r->n + 1, sizeof *r->keys);
		ownkey_import_one(g, st, ts, &r->keys[r->n++]);
	}
	trust_store_close(ts);
	rc = 0;
out:
	crypto_release(g);
	gpgme_data_release(d);
	return rc;
}

void
ownkey_import_free(struct ownkey_import *r)
{
	size_t	i;

	for (i = 0; i < r->n; i++) {
		free(r->keys[i].fpr);
		free(r->keys[i].uid);
		free(r->keys[i].error);
		free(r->keys[i].warning);
	}
	free(r->keys);
	memset(r, 0, sizeof *r);
}

const char *
ownkey_import_word(enum ownkey_import_status s)
{
	switch (s) {
	case OWNKEY_IMPORT_NEW:		return "new";
	case OWNKEY_IMPORT_UPDATED:	return "updated";
	case OWNKEY_IMPORT_UNCHANGED:	return "unchanged";
	case OWNKEY_IMPORT_SECRET:	return "secret key";
	case OWNKEY_IMPORT_FAILED:	return "not imported";
	}
	return "?";
}
