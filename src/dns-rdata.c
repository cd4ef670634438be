/*
 * dns-rdata.c: what a DNS answer holds, for the lookup (dns-lookup.c) and
 * the cache of answers (dns-cache.c) alike: one record's data read and
 * checked, a status's name, and a record described as people read it.
 * Declared in dns-lookup.h.
 */
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>

#include "buf.h"
#include "dns-lookup.h"
#include "hex.h"
#include "keydata.h"
#include "strsafe.h"
#include "xmalloc.h"

const char *
dns_status_name(enum dns_status s)
{
	switch (s) {
	case DNS_SECURE:	return "secure";
	case DNS_INSECURE:	return "insecure";
	case DNS_BOGUS:		return "bogus";
	case DNS_NONE:		return "none";
	case DNS_SERVFAIL:	return "servfail";
	case DNS_TIMEOUT:	return "timeout";
	case DNS_ERROR:		return "error";
	}
	return "error";
}

int
dns_parse_rdata(enum dns_type type, const unsigned char *p, size_t len,
    struct dns_record *r, char **cause)
{
	memset(r, 0, sizeof *r);
	if (type == DNS_SMIMEA) {
		/* RFC 8162 section 2 (the TLSA format of RFC 6698 2.1). */
		if (len < 4) {
			*cause = xasprintf("SMIMEA record of %zu octets is "
			    "too short", len);
			return -1;
		}
		r->usage = p[0];
		r->selector = p[1];
		r->mtype = p[2];
		p += 3;
		len -= 3;
		if ((r->mtype == 1 && len != 32) ||
		    (r->mtype == 2 && len != 64)) {
			*cause = xasprintf("SMIMEA record: matching type %u "
			    "with %zu octets of data", r->mtype, len);
			return -1;
		}
	} else if (len == 0) {
		*cause = xstrdup("empty OPENPGPKEY record");
		return -1;
	}
	r->data = xmalloc(len);
	memcpy(r->data, p, len);
	r->len = len;
	return 0;
}

/*
 * The fingerprints of the keys in an OPENPGPKEY record, into b: computed
 * from the key packets (keydata.h), so describing it starts no gpg.
 */
static void
dns_describe_openpgp(struct buf *b, const struct dns_record *rec)
{
	char	**fprs, *cause = NULL;
	size_t	  n, i;

	if (keydata_fingerprints(rec->data, rec->len, &fprs, &n,
	    &cause) == -1) {
		buf_adds(b, "(no OpenPGP key in the record: ");
		strsafe_add(b, cause, strlen(cause), 0);
		buf_addc(b, ')');
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_addc(b, ',');
		buf_adds(b, fprs[i]);
		free(fprs[i]);
	}
	free(fprs);
	if (n == 0)
		buf_adds(b, "(no OpenPGP key in the record)");
}

/* An SMIMEA record: a certificate's SHA-1 fingerprint, or its fields. */
static void
dns_describe_smimea(struct buf *b, const struct dns_record *rec)
{
	gnutls_datum_t	 der;
	unsigned char	 fpr[20];
	size_t		 n = sizeof fpr;

	der.data = rec->data;
	der.size = (unsigned)rec->len;
	if (rec->selector == 0 && rec->mtype == 0 &&
	    gnutls_fingerprint(GNUTLS_DIG_SHA1, &der, fpr, &n) == 0) {
		buf_addf(b, "usage %u cert ", rec->usage);
		hex_add(b, fpr, n, 1);
		return;
	}
	buf_addf(b, "usage %u selector %u mtype %u ", rec->usage,
	    rec->selector, rec->mtype);
	hex_add(b, rec->data, rec->len, 0);
}

void
dns_record_describe(struct buf *b, enum dns_type type,
    const struct dns_record *rec)
{
	if (type == DNS_SMIMEA)
		dns_describe_smimea(b, rec);
	else
		dns_describe_openpgp(b, rec);
}
