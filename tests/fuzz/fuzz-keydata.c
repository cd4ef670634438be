/*
 * fuzz-keydata.c: binary OpenPGP data as Autocrypt headers and DNS
 * OPENPGPKEY records carry it, read packet by packet (keydata_scan) and
 * hashed into fingerprints (keydata_fingerprints) without gpg.
 */
#include "fuzz.h"

#include "keydata.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char	*cause = NULL, **fprs;
	size_t	 n, i;
	int	 npub, nsec;

	if (keydata_scan(data, len, &npub, &nsec, &cause) == -1) {
		FUZZ_ASSERT(cause != NULL);
		free(cause);
	} else
		FUZZ_ASSERT(npub >= 0 && nsec >= 0);
	if (keydata_fingerprints(data, len, &fprs, &n, &cause) == -1) {
		free(cause);
		return 0;
	}
	for (i = 0; i < n; i++) {
		FUZZ_ASSERT(strcmp(fprs[i], "?") == 0 ||
		    strspn(fprs[i], "0123456789ABCDEF") == strlen(fprs[i]));
		free(fprs[i]);
	}
	free(fprs);
	return 0;
}
