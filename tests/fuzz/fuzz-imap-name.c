/*
 * fuzz-imap-name.c: mailbox names through the codec of src/imap-name.h,
 * as LIST hands them over (the wire form) and as a person types them
 * (UTF-8). Promises checked: what decodes encodes back to the same bytes,
 * what encodes decodes back to the same name, an encoded name is
 * printable US-ASCII only, and a name shown decoded is terminal-safe
 * once through strsafe().
 */
#include "fuzz.h"

#include "imap-name.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char		*s, *d, *e, *safe;
	const char	*p;

	s = fuzz_str(data, len);
	if ((d = imap_name_decode(s)) != NULL) {
		e = imap_name_encode(d, NULL);
		FUZZ_ASSERT(e != NULL && strcmp(e, s) == 0);
		free(e);
		safe = strsafe(d, 0);
		FUZZ_ASSERT(fuzz_terminal_safe(safe, strlen(safe)));
		free(safe);
		free(d);
	}
	if ((e = imap_name_encode(s, NULL)) != NULL) {
		for (p = e; *p != '\0'; p++)
			FUZZ_ASSERT(*p >= 0x20 && *p <= 0x7e);
		d = imap_name_decode(e);
		FUZZ_ASSERT(d != NULL && strcmp(d, s) == 0);
		free(d);
		free(e);
	}
	free(s);
	return 0;
}
