/*
 * charset.c: conversion of text in a declared charset to UTF-8 (see
 * charset.h). Called by the MIME code for bodies, encoded words and RFC
 * 2231 parameters. UTF-8 and US-ASCII are checked here, strictly; every
 * other charset goes through iconv. Nothing is ever dropped silently: a
 * byte that does not belong becomes U+FFFD and is counted.
 *
 * The charset name comes from the message, so it is checked before iconv
 * sees it: only a short run of the characters charset names are made of,
 * and never a '/', which glibc would read as a conversion option such as
 * //IGNORE.
 */
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "charset.h"
#include "hex.h"
#include "strsafe.h"
#include "xmalloc.h"

#define CHARSET_NAME_MAX	64

/*
 * Names mail uses that iconv does not know, or knows as something
 * narrower than what senders mean. ISO-8859-1 is read as Windows-1252, as
 * every browser and most mail readers do: mail labelled Latin-1 with bytes
 * 0x80-0x9F nearly always means the Windows quotes and dashes, not C1
 * controls.
 */
static const struct {
	const char	*name;
	const char	*iconv;
} charset_aliases[] = {
	{ "iso-8859-1",		"WINDOWS-1252" },
	{ "iso8859-1",		"WINDOWS-1252" },
	{ "iso_8859-1",		"WINDOWS-1252" },
	{ "latin1",		"WINDOWS-1252" },
	{ "l1",			"WINDOWS-1252" },
	{ "ks_c_5601-1987",	"CP949" },
	{ "ks_c_5601",		"CP949" },
	{ "gb2312",		"GBK" },
	{ "x-gbk",		"GBK" },
	{ "x-sjis",		"SHIFT_JIS" },
	{ "shift-jis",		"SHIFT_JIS" },
	{ "x-euc-jp",		"EUC-JP" },
	{ "x-mac-roman",	"MACINTOSH" },
	{ "x-cp1252",		"WINDOWS-1252" },
};

/* Labels that say "I do not know" and must never be guessed at. */
static const char *charset_unknowns[] = {
	"unknown", "unknown-8bit", "x-unknown", "x-user-defined", "8bit",
	"default", "none",
};

size_t
charset_utf8_seq(const char *s, size_t len)
{
	uint32_t	cp;

	return strsafe_utf8_decode(s, len, &cp);
}

int
charset_utf8_valid(const char *p, size_t len)
{
	size_t	i = 0, n;

	while (i < len) {
		if ((n = charset_utf8_seq(p + i, len - i)) == 0)
			return 0;
		i += n;
	}
	return 1;
}

void
charset_escape_8bit(struct buf *out, const char *p, size_t len)
{
	size_t			 i, start = 0;

	for (i = 0; i < len; i++) {
		if ((unsigned char)p[i] < 0x80)
			continue;
		buf_add(out, p + start, i - start);
		buf_add(out, "\\x", 2);
		hex_add(out, p + i, 1, 1);
		start = i + 1;
	}
	buf_add(out, p + start, len - start);
}

/* Lower-case copy of a plausible charset name, or NULL. */
static char *
charset_canon(const char *name)
{
	char	*s;
	size_t	 i, len;

	len = strlen(name);
	if (len == 0 || len > CHARSET_NAME_MAX)
		return NULL;
	s = xstrdup(name);
	for (i = 0; i < len; i++) {
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = s[i] - 'A' + 'a';
		else if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    strchr("-_.:+()", s[i]) != NULL)) {
			free(s);
			return NULL;
		}
	}
	return s;
}

static int
charset_is_ascii_name(const char *c)
{
	return (strcmp(c, "us-ascii") == 0 || strcmp(c, "ascii") == 0 ||
	    strcmp(c, "us") == 0 || strcmp(c, "ansi_x3.4-1968") == 0 ||
	    strcmp(c, "iso646-us") == 0 || strcmp(c, "csascii") == 0);
}

static int
charset_is_utf8_name(const char *c)
{
	return (strcmp(c, "utf-8") == 0 || strcmp(c, "utf8") == 0 ||
	    strcmp(c, "x-utf-8") == 0 || strcmp(c, "unicode-1-1-utf-8") == 0);
}

int
charset_is_utf8(const char *charset)
{
	char	*c;
	int	 yes;

	if ((c = charset_canon(charset)) == NULL)
		return 0;
	yes = charset_is_utf8_name(c) || charset_is_ascii_name(c);
	free(c);
	return yes;
}

/* The name to give iconv for a canonical name, or NULL if none. */
static const char *
charset_iconv_name(const char *c)
{
	size_t	i;

	for (i = 0; i < sizeof charset_unknowns / sizeof *charset_unknowns;
	    i++) {
		if (strcmp(c, charset_unknowns[i]) == 0)
			return NULL;
	}
	for (i = 0; i < sizeof charset_aliases / sizeof *charset_aliases;
	    i++) {
		if (strcmp(c, charset_aliases[i].name) == 0)
			return charset_aliases[i].iconv;
	}
	return c;
}

/* UTF-8 to UTF-8: copy valid sequences, replace every bad byte. */
static size_t
charset_from_utf8(const char *in, size_t len, struct buf *out)
{
	size_t	i = 0, start = 0, n, bad = 0;

	while (i < len) {
		if ((n = charset_utf8_seq(in + i, len - i)) != 0) {
			i += n;
			continue;
		}
		buf_add(out, in + start, i - start);
		buf_adds(out, CHARSET_REPLACEMENT);
		bad++;
		start = ++i;
	}
	buf_add(out, in + start, len - start);
	return bad;
}

static size_t
charset_from_ascii(const char *in, size_t len, struct buf *out)
{
	size_t	i, start = 0, bad = 0;

	for (i = 0; i < len; i++) {
		if ((unsigned char)in[i] < 0x80)
			continue;
		buf_add(out, in + start, i - start);
		buf_adds(out, CHARSET_REPLACEMENT);
		bad++;
		start = i + 1;
	}
	buf_add(out, in + start, len - start);
	return bad;
}

static size_t
charset_from_iconv(iconv_t cd, const char *in, size_t len, struct buf *out)
{
	char	 obuf[4096], *ip = (char *)in, *op;
	size_t	 ileft = len, oleft, r, bad = 0;

	while (ileft > 0) {
		op = obuf;
		oleft = sizeof obuf;
		r = iconv(cd, &ip, &ileft, &op, &oleft);
		buf_add(out, obuf, op - obuf);
		if (r != (size_t)-1)
			continue;
		if (errno == E2BIG)
			continue;
		buf_adds(out, CHARSET_REPLACEMENT);
		bad++;
		if (errno != EILSEQ)	/* EINVAL: cut short at the end */
			break;
		ip++;
		ileft--;
	}
	op = obuf;
	oleft = sizeof obuf;
	if (iconv(cd, NULL, NULL, &op, &oleft) != (size_t)-1)
		buf_add(out, obuf, op - obuf);
	return bad;
}

int
charset_to_utf8(const char *charset, const char *in, size_t len,
    struct buf *out, size_t *nbad, char **cause)
{
	char		*c;
	const char	*name;
	iconv_t		 cd;
	struct buf	 conv;
	size_t		 bad;

	buf_init(&conv);
	if ((c = charset_canon(charset)) == NULL) {
		*cause = xasprintf("unknown charset %.*s", CHARSET_NAME_MAX,
		    charset);
		return -1;
	}
	if (charset_is_utf8_name(c))
		bad = charset_from_utf8(in, len, out);
	else if (charset_is_ascii_name(c))
		bad = charset_from_ascii(in, len, out);
	else {
		if ((name = charset_iconv_name(c)) == NULL ||
		    (cd = iconv_open("UTF-8", name)) == (iconv_t)-1) {
			*cause = xasprintf("unknown charset %s", c);
			free(c);
			return -1;
		}
		bad = charset_from_iconv(cd, in, len, &conv);
		iconv_close(cd);
		/* iconv may be asked for UTF-8 or UCS-4 under a name of
		 * its own ("utf(8", "ucs-4"), and hands those bytes back
		 * unchecked: what it returns is checked as input is */
		bad += charset_from_utf8(conv.data, conv.len, out);
		buf_free(&conv);
	}
	free(c);
	if (nbad != NULL)
		*nbad = bad;
	return 0;
}

int
charset_supported(const char *charset)
{
	char		*c;
	const char	*name;
	iconv_t		 cd;
	int		 yes = 0;

	if ((c = charset_canon(charset)) == NULL)
		return 0;
	if (charset_is_utf8_name(c) || charset_is_ascii_name(c))
		yes = 1;
	else if ((name = charset_iconv_name(c)) != NULL &&
	    (cd = iconv_open("UTF-8", name)) != (iconv_t)-1) {
		iconv_close(cd);
		yes = 1;
	}
	free(c);
	return yes;
}
