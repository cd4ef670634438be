/*
 * ownkey-export.c: the account's keys as they leave the home: exported
 * (for --export-key, a key server, a friend) and as the DNS records that
 * publish them (OPENPGPKEY, SMIMEA). Callers: the key and DNS batch
 * commands, the setup wizard. It finds keys but never makes one, and
 * never prints: formatting the records is the caller's.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "ownkey.h"
#include "xmalloc.h"

int
ownkey_export(gpgme_protocol_t proto, const char *fpr, int armor,
    char **data, size_t *len, char **cause)
{
	gpgme_ctx_t	 g;
	gpgme_data_t	 d;
	gpgme_error_t	 err;
	char		*mem;

	*data = NULL;
	*len = 0;
	if ((g = crypto_ctx(proto, cause)) == NULL)
		return -1;
	gpgme_set_armor(g, armor);
	if ((err = gpgme_data_new(&d)) != 0) {
		*cause = xasprintf("cannot export %s: %s", fpr,
		    gpgme_strerror(err));
		crypto_release(g);
		return -1;
	}
	err = gpgme_op_export(g, fpr, proto == GPGME_PROTOCOL_OpenPGP ?
	    GPGME_EXPORT_MODE_MINIMAL : 0, d);
	crypto_release(g);
	mem = gpgme_data_release_and_get_mem(d, len);
	if (err != 0 || mem == NULL || *len == 0) {
		*cause = xasprintf("cannot export %s: %s", fpr, err != 0 ?
		    gpgme_strerror(err) : "nothing exported");
		gpgme_free(mem);
		*len = 0;
		return -1;
	}
	*data = xmalloc(*len + 1);
	memcpy(*data, mem, *len);
	(*data)[*len] = '\0';
	gpgme_free(mem);
	return 0;
}

int
ownkey_record(const struct account *a, enum dns_type type,
    struct ownkey_record *r, char **cause)
{
	/* Usage 3 (DANE-EE), selector 0, matching type 0: the certificate. */
	static const unsigned char dane_ee[3] = { 3, 0, 0 };
	struct ownkey	 k;
	gpgme_protocol_t proto;
	char		*data;
	size_t		 len, plen;
	int		 rc;

	memset(r, 0, sizeof *r);
	proto = type == DNS_SMIMEA ? GPGME_PROTOCOL_CMS :
	    GPGME_PROTOCOL_OpenPGP;
	rc = type == DNS_SMIMEA ? ownkey_smime(a, 0, &k, cause) :
	    ownkey_openpgp(a, 0, &k, cause);
	if (rc != 0)
		return rc;
	if (ownkey_export(proto, k.fpr, 0, &data, &len, cause) == -1) {
		ownkey_free(&k);
		return -1;
	}
	r->owner[0] = dns_owner_name(a->address, type, 0);
	r->owner[1] = dns_owner_name(a->address, type, 1);
	if (r->owner[0] == NULL || r->owner[1] == NULL) {
		*cause = xasprintf("%s cannot be published in DNS",
		    a->address);
		free(data);
		ownkey_free(&k);
		ownkey_record_free(r);
		return -1;
	}
	if (strcmp(r->owner[0], r->owner[1]) == 0) {
		free(r->owner[1]);
		r->owner[1] = NULL;
	}
	r->type = type;
	r->fpr = k.fpr;
	k.fpr = NULL;
	plen = type == DNS_SMIMEA ? sizeof dane_ee : 0;
	r->len = plen + len;
	r->rdata = xmalloc(r->len);
	memcpy(r->rdata, dane_ee, plen);
	memcpy(r->rdata + plen, data, len);
	free(data);
	ownkey_free(&k);
	return 0;
}

void
ownkey_record_free(struct ownkey_record *r)
{
	free(r->fpr);
	free(r->owner[0]);
	free(r->owner[1]);
	free(r->rdata);
	memset(r, 0, sizeof *r);
}
