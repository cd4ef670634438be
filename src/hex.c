/*
 * hex.c: bytes as hexadecimal digits and back.
 */
#include "buf.h"
#include "hex.h"

static const char	hex_upper[] = "0123456789ABCDEF";
static const char	hex_lower[] = "0123456789abcdef";

void
hex_add(struct buf *b, const void *p, size_t len, int upper)
{
	const unsigned char	*s = p;
	const char		*digits = upper ? hex_upper : hex_lower;
	size_t			 i;

	for (i = 0; i < len; i++) {
		buf_addc(b, digits[s[i] >> 4]);
		buf_addc(b, digits[s[i] & 0xf]);
	}
}

char *
hex_encode(const void *p, size_t len, int upper)
{
	struct buf	b;

	buf_init(&b);
	hex_add(&b, p, len, upper);
	return buf_take(&b);
}

int
hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
