/*
 * dns-rdata.c: what a DNS answer holds, for the lookup (dns-lookup.c) and
 * the cache of answers (dns-cache.c) alike: one record's data read and
 * checked, and a status's name. Declared in dns-lookup.h.
 */
#include <stdlib.h>
#include <string.h>

#include "dns-lookup.h"
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
