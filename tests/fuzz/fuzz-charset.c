/*
 * fuzz-charset.c: charset_to_utf8() with the charset name and the text
 * both from the input ("NAME\0TEXT"), as a message declares them. The
 * promise checked: whatever the name and bytes, the output is valid UTF-8.
 */
#include "fuzz.h"

#include "buf.h"
#include "charset.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct buf	 out;
	char		*s, *name, *text, *cause = NULL;
	size_t		 tlen, bad;

	s = fuzz_str(data, len);
	name = fuzz_split(s, len, &text, &tlen);
	buf_init(&out);
	if (charset_to_utf8(name, text, tlen, &out, &bad, &cause) == 0) {
		FUZZ_ASSERT(charset_utf8_valid(out.data, out.len));
		FUZZ_ASSERT(charset_supported(name));
	} else {
		FUZZ_ASSERT(out.len == 0 && cause != NULL);
		free(cause);
	}
	buf_free(&out);
	free(s);
	return 0;
}
