/*
 * strsafe.c: terminal-safe rendering of untrusted text (see strsafe.h).
 * It decodes UTF-8 strictly (no overlong forms, no surrogates, nothing
 * above U+10FFFF) so that no byte sequence can smuggle a control character
 * past it.
 */
#include <stdint.h>
#include <string.h>

#include "strsafe.h"
#include "xmalloc.h"

size_t
strsafe_utf8_decode(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char	*p = (const unsigned char *)s;
	uint32_t		 c, min;
	size_t			 n, i;

	if (len == 0)
		return 0;
	c = p[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2; c &= 0x1f; min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3; c &= 0x0f; min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4; c &= 0x07; min = 0x10000;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

int
strsafe_dangerous(uint32_t c)
{
	if (c >= 0x80 && c <= 0x9f)		/* C1 controls */
		return 1;
	if (c == 0x061c || c == 0x200e || c == 0x200f)	/* ALM, LRM, RLM */
		return 1;
	if (c >= 0x202a && c <= 0x202e)		/* LRE RLE PDF LRO RLO */
		return 1;
	if (c >= 0x2066 && c <= 0x2069)		/* LRI RLI FSI PDI */
		return 1;
	if (c == 0x2028 || c == 0x2029)		/* line, paragraph sep. */
		return 1;
	return 0;
}

size_t
strsafe_add(struct buf *out, const char *in, size_t len, int flags)
{
	const unsigned char	*p = (const unsigned char *)in;
	size_t			 i = 0, n, escaped = 0;
	uint32_t		 c;

	while (i < len) {
		if ((n = strsafe_utf8_decode(in + i, len - i, &c)) == 0) {
			buf_addf(out, "\\x%02X", p[i]);
			escaped++;
			i++;
			continue;
		}
		if ((c == '\t' || c == '\n') && (flags & STRSAFE_KEEP_NL))
			buf_addc(out, (char)c);
		else if (c == '\t' && (flags & STRSAFE_KEEP_TAB))
			buf_addc(out, (char)c);
		else if (c < 0x20) {
			buf_addc(out, '^');
			buf_addc(out, (char)(c + 0x40));
			escaped++;
		} else if (c == 0x7f) {
			buf_adds(out, "^?");
			escaped++;
		} else if (strsafe_dangerous(c) ||
		    (c == 0x2503 && (flags & STRSAFE_MARK))) {
			buf_addf(out, "<U+%04X>", (unsigned)c);
			escaped++;
		} else
			buf_add(out, p + i, n);
		i += n;
	}
	return escaped;
}

char *
strsafe(const char *in, int flags)
{
	struct buf	b;

	buf_init(&b);
	strsafe_add(&b, in, strlen(in), flags);
	return buf_take(&b);
}
