/*
 * test-autocrypt-header.c: the Autocrypt header's layout: attribute
 * order, prefer-encrypt only when asked, keydata folded into lines of a
 * space and at most 76 base64 characters, CRLF ends, no line over 78.
 */
#include <stdlib.h>
#include <string.h>

#include "autocrypt-header.h"
#include "buf.h"
#include "mime-cte.h"
#include "tap.h"

/* The keydata of a header, unfolded and decoded. */
static int
unfold_decode(const char *h, struct buf *key)
{
	const char	*p;
	struct buf	 b64;
	int		 rc;

	if ((p = strstr(h, "keydata=")) == NULL)
		return -1;
	buf_init(&b64);
	for (p += 8; *p != '\0'; p++)
		if (*p != ' ' && *p != '\r' && *p != '\n')
			buf_addc(&b64, *p);
	rc = mime_cte_base64_decode(key, b64.data ? b64.data : "", b64.len);
	buf_free(&b64);
	return rc;
}

static int
lines_ok(const char *h)
{
	const char	*p = h, *e;
	int		 first = 1;

	while (*p != '\0') {
		if ((e = strstr(p, "\r\n")) == NULL)
			return 0;
		if (e - p > 78 || (!first && (*p != ' ' || e - p > 77)))
			return 0;
		if (memchr(p, '\n', e - p) != NULL)
			return 0;
		first = 0;
		p = e + 2;
	}
	return 1;
}

int
main(void)
{
	unsigned char	 key[1000];
	struct buf	 out, dec;
	size_t		 i;

	for (i = 0; i < sizeof key; i++)
		key[i] = (unsigned char)(i * 7 + 3);

	buf_init(&out);
	autocrypt_header_format(&out, "Autocrypt", "alice@steed.test", 1,
	    key, sizeof key);
	TAP_OK(strncmp(out.data, "Autocrypt: addr=alice@steed.test; "
	    "prefer-encrypt=mutual; keydata=\r\n ", 68) == 0,
	    "addr, prefer-encrypt=mutual, keydata in this order");
	TAP_OK(lines_ok(out.data), "folded: CRLF, continuation lines start "
	    "with a space, none over 78");
	buf_init(&dec);
	TAP_OK(unfold_decode(out.data, &dec) == 0 && dec.len == sizeof key &&
	    memcmp(dec.data, key, sizeof key) == 0,
	    "keydata unfolds and decodes to the key");
	TAP_OK(out.len > 2 && strcmp(out.data + out.len - 2, "\r\n") == 0 &&
	    strstr(out.data, "\r\n\r\n") == NULL, "ends in one CRLF, no "
	    "empty line");
	buf_free(&dec);

	buf_reset(&out);
	autocrypt_header_format(&out, "Autocrypt-Gossip", "bob@steed.test", 0,
	    key, 57);
	TAP_OK(strncmp(out.data, "Autocrypt-Gossip: addr=bob@steed.test; "
	    "keydata=\r\n ", 50) == 0 && strstr(out.data, "prefer-encrypt")
	    == NULL, "gossip: no prefer-encrypt");
	TAP_OK(lines_ok(out.data) && strchr(out.data + 50, '\n') ==
	    out.data + out.len - 1, "a key of 57 bytes is one line of 76");
	buf_free(&out);
	return TAP_DONE();
}
