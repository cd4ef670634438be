/*
 * fuzz-rdata.c: the RDATA of DNS records as a resolver hands them over:
 * OPENPGPKEY (RFC 7929), SMIMEA (RFC 8162), and the SRV (RFC 2782) and
 * MX records of account set-up, the first input byte choosing which, the
 * rest the record; an OPENPGPKEY record's key read on as OpenPGP packets,
 * as the lookup does. A host name that comes out is a C string of host
 * name characters only.
 */
#include "fuzz.h"

#include "dns-lookup.h"
#include "dns-query.h"
#include "keydata.h"

static void
check_host(const char *h)
{
	FUZZ_ASSERT(h != NULL && strlen(h) <= 255);
	FUZZ_ASSERT(strspn(h, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == strlen(h));
}

static void
srv_mx(int mx, const uint8_t *data, size_t len)
{
	struct dns_srv	 srv;
	struct dns_mx	 m;
	char		*cause = NULL;

	if (mx) {
		if (dns_mx_parse(data, len, &m, &cause) == -1) {
			FUZZ_ASSERT(cause != NULL);
			free(cause);
			return;
		}
		check_host(m.host);
		free(m.host);
		return;
	}
	if (dns_srv_parse(data, len, &srv, &cause) == -1) {
		FUZZ_ASSERT(cause != NULL);
		free(cause);
		return;
	}
	check_host(srv.target);
	free(srv.target);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct dns_record	 r;
	enum dns_type		 type;
	char			*cause = NULL;
	int			 npub, nsec;

	if (len < 1)
		return 0;
	if (data[0] & 2) {
		srv_mx(data[0] & 1, data + 1, len - 1);
		return 0;
	}
	type = (data[0] & 1) ? DNS_SMIMEA : DNS_OPENPGPKEY;
	memset(&r, 0, sizeof r);
	if (dns_parse_rdata(type, data + 1, len - 1, &r, &cause) == -1) {
		FUZZ_ASSERT(cause != NULL);
		free(cause);
		return 0;
	}
	FUZZ_ASSERT(r.data != NULL && r.len > 0 && r.len <= len - 1);
	if (type == DNS_OPENPGPKEY) {
		if (keydata_scan(r.data, r.len, &npub, &nsec, &cause) == -1)
			free(cause);
	}
	free(r.data);
	return 0;
}
