/*
 * fuzz-autocrypt.c: the value of an Autocrypt or Autocrypt-Gossip header
 * (autocrypt_parse_attrs: attributes, base64 keydata), then the key data
 * it carries read as OpenPGP packets, as the header path does before it
 * hands a key to gpg. A parsed address must be a C string of its own.
 */
#include "fuzz.h"

#include "autocrypt-parse.h"
#include "keydata.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct autocrypt_attrs	 a;
	char			*cause = NULL, **fprs;
	size_t			 n, i;
	int			 npub, nsec;

	memset(&a, 0, sizeof a);
	if (autocrypt_parse_attrs((const char *)data, len, &a, &cause) == -1) {
		FUZZ_ASSERT(cause != NULL);
		free(cause);
		return 0;
	}
	FUZZ_ASSERT(a.addr != NULL && strchr(a.addr, '@') != NULL);
	if (keydata_scan((unsigned char *)a.keydata.data, a.keydata.len,
	    &npub, &nsec, &cause) == 0 &&
	    keydata_fingerprints((unsigned char *)a.keydata.data,
	    a.keydata.len, &fprs, &n, &cause) == 0) {
		for (i = 0; i < n; i++)
			free(fprs[i]);
		free(fprs);
	} else
		free(cause);
	autocrypt_attrs_free(&a);
	return 0;
}
