/*
 * fuzz-rfc2047.c: RFC 2047 encoded words in a header value, decoded, then
 * made terminal-safe as every header shown is; and the encoder's promise
 * that what it writes decodes back to the text it was given.
 */
#include "fuzz.h"

#include "charset.h"
#include "rfc2047.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char	*s, *dec, *safe, *enc, *back;

	s = fuzz_str(data, len);
	dec = rfc2047_decode_str(s);
	safe = strsafe(dec, 0);
	FUZZ_ASSERT(fuzz_terminal_safe(safe, strlen(safe)));
	free(safe);
	free(dec);

	/* what we write, we read back the same */
	if (strlen(s) == len && charset_utf8_valid(s, len) &&
	    strpbrk(s, "\r\n") == NULL) {
		enc = rfc2047_encode(s, len % 40, (int)(len & 1));
		FUZZ_ASSERT(strpbrk(enc, "\r\n") == NULL);
		back = rfc2047_decode_str(enc);
		FUZZ_ASSERT(strcmp(back, s) == 0);
		free(back);
		free(enc);
	}
	free(s);
	return 0;
}
