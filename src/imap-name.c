/*
 * imap-name.c: the mailbox name codec of imap-name.h. Modified UTF-7
 * (RFC 3501 5.1.3) writes printable US-ASCII as itself, "&" as "&-", and
 * every run of other characters as "&", their UTF-16 in base64 with ","
 * for "/" and no padding, then "-". Used by every file that hands a
 * mailbox name to libetpan or reads one from it; nothing else encodes.
 *
 * The decoder is strict on purpose: a name it accepts is one the encoder
 * gives back byte for byte, so a name read from LIST and shown decoded is
 * the same mailbox when it is sent back. One that does not decode stays as
 * the server spelled it (imap_name_from_wire()).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "imap-name.h"
#include "xmalloc.h"

static const char imap_name_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,";

/* The next code point of a UTF-8 string, or -1 if it is not one. */
static long
imap_name_utf8(const unsigned char **pp)
{
	const unsigned char	*p = *pp;
	uint32_t		 cp, min;
	int			 n, i;

	if (p[0] < 0x80) {
		*pp = p + 1;
		return p[0];
	}
	if ((p[0] & 0xe0) == 0xc0) {
		n = 1;
		cp = p[0] & 0x1f;
		min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 2;
		cp = p[0] & 0x0f;
		min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 3;
		cp = p[0] & 0x07;
		min = 0x10000;
	} else
		return -1;
	for (i = 1; i <= n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;	/* also the terminating NUL */
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*pp = p + n + 1;
	return (long)cp;
}

/* The pending bits of an encoded run, and its closing "-". */
static void
imap_name_close(struct buf *b, uint32_t *bits, int *nbits)
{
	if (*nbits > 0)
		buf_addc(b, imap_name_b64[(*bits << (6 - *nbits)) & 0x3f]);
	buf_addc(b, '-');
	*bits = 0;
	*nbits = 0;
}

static void
imap_name_unit(struct buf *b, uint32_t unit, uint32_t *bits, int *nbits)
{
	*bits = (*bits << 16) | unit;
	*nbits += 16;
	while (*nbits >= 6) {
		*nbits -= 6;
		buf_addc(b, imap_name_b64[(*bits >> *nbits) & 0x3f]);
	}
	*bits &= (1u << *nbits) - 1;
}

char *
imap_name_encode(const char *name, char **cause)
{
	const unsigned char	*p = (const unsigned char *)name;
	struct buf		 b;
	uint32_t		 bits = 0;
	long			 cp;
	int			 nbits = 0, run = 0;

	buf_init(&b);
	while (*p != '\0') {
		if ((cp = imap_name_utf8(&p)) < 0) {
			if (cause != NULL)
				*cause = xstrdup("the folder name is not "
				    "valid UTF-8");
			buf_free(&b);
			return NULL;
		}
		if (cp >= 0x20 && cp <= 0x7e) {
			if (run)
				imap_name_close(&b, &bits, &nbits);
			run = 0;
			buf_addc(&b, (char)cp);
			if (cp == '&')
				buf_addc(&b, '-');
			continue;
		}
		if (!run)
			buf_addc(&b, '&');
		run = 1;
		if (cp >= 0x10000) {
			cp -= 0x10000;
			imap_name_unit(&b, 0xd800 | ((uint32_t)cp >> 10),
			    &bits, &nbits);
			imap_name_unit(&b, 0xdc00 | ((uint32_t)cp & 0x3ff),
			    &bits, &nbits);
		} else
			imap_name_unit(&b, (uint32_t)cp, &bits, &nbits);
	}
	if (run)
		imap_name_close(&b, &bits, &nbits);
	buf_addc(&b, '\0');
	return buf_take(&b);
}

static int
imap_name_b64_value(int c)
{
	const char	*at;

	if (c == '\0' || (at = strchr(imap_name_b64, c)) == NULL)
		return -1;
	return (int)(at - imap_name_b64);
}

/* A code point as UTF-8. */
static void
imap_name_put(struct buf *b, uint32_t cp)
{
	if (cp < 0x80)
		buf_addc(b, (char)cp);
	else if (cp < 0x800) {
		buf_addc(b, (char)(0xc0 | (cp >> 6)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addc(b, (char)(0xe0 | (cp >> 12)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(b, (char)(0xf0 | (cp >> 18)));
		buf_addc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/* One encoded run from just after its "&"; -1 if it is not one. */
static int
imap_name_run(struct buf *b, const char **pp)
{
	const char	*p = *pp;
	uint32_t	 bits = 0, unit, high = 0;
	int		 nbits = 0, v, units = 0;

	for (; *p != '-'; p++) {
		if ((v = imap_name_b64_value((unsigned char)*p)) < 0)
			return -1;
		bits = (bits << 6) | (uint32_t)v;
		if ((nbits += 6) < 16)
			continue;
		nbits -= 16;
		unit = (bits >> nbits) & 0xffff;
		bits &= (1u << nbits) - 1;
		units++;
		if (high != 0) {
			if (unit < 0xdc00 || unit > 0xdfff)
				return -1;
			imap_name_put(b, 0x10000 + ((high - 0xd800) << 10) +
			    (unit - 0xdc00));
			high = 0;
		} else if (unit >= 0xd800 && unit <= 0xdbff)
			high = unit;
		else if (unit >= 0xdc00 && unit <= 0xdfff)
			return -1;
		else if (unit == 0 || (unit >= 0x20 && unit <= 0x7e))
			return -1;	/* NUL, or printable: not encoded */
		else
			imap_name_put(b, unit);
	}
	/* what is left is padding: fewer than 6 bits, all zero */
	if (units == 0 || high != 0 || nbits >= 6 || bits != 0)
		return -1;
	*pp = p + 1;
	return 0;
}

char *
imap_name_decode(const char *wire)
{
	const char	*p = wire;
	struct buf	 b;
	int		 after_run = 0;

	buf_init(&b);
	while (*p != '\0') {
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			goto bad;
		if (*p != '&') {
			buf_addc(&b, *p++);
			after_run = 0;
			continue;
		}
		if (p[1] == '-') {
			buf_addc(&b, '&');
			p += 2;
			after_run = 0;
			continue;
		}
		/* two runs side by side are one run to an encoder */
		if (after_run)
			goto bad;
		p++;
		if (imap_name_run(&b, &p) == -1)
			goto bad;
		after_run = 1;
	}
	buf_addc(&b, '\0');
	return buf_take(&b);

bad:
	buf_free(&b);
	return NULL;
}

char *
imap_name_from_wire(const char *wire)
{
	char	*name;

	if ((name = imap_name_decode(wire)) != NULL)
		return name;
	return xstrdup(wire);
}
