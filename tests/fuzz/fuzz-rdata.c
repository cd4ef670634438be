/*
 * fuzz-rdata.c: the RDATA of DNS records as a resolver hands them over:
 * OPENPGPKEY (RFC 7929) and SMIMEA (RFC 8162), the first input byte
 * choosing which, the rest the record; an OPENPGPKEY record's key read
 * on as OpenPGP packets, as the lookup does.
 */
#include "fuzz.h"

#include "dns-lookup.h"
#include "keydata.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct dns_record	 r;
	enum dns_type		 type;
	char			*cause = NULL;
	int			 npub, nsec;

	if (len < 1)
		return 0;
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
