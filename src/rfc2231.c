/*
 * rfc2231.c: parameter values with continuations and charsets (see
 * rfc2231.h). mime-parse.c reads filename, name and charset through it;
 * mime-build.c writes attachment names with it.
 *
 * libetpan hands over parameters one by one, as name and value; this file
 * puts the sections of one value back together. Sections are taken in
 * order from 0 and the first missing number ends the value (RFC 2231
 * section 3 does not allow gaps), so a hostile list of sections costs at
 * most RFC2231_MAX_SECTIONS look-ups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hex.h"
#include "charset.h"
#include "rfc2047.h"
#include "rfc2231.h"
#include "xmalloc.h"

/* The longest line rfc2231_encode writes. */
#define RFC2231_LINE	76

/*
 * Is pname an RFC 2231 form of name: "name*" (*section -1) or "name*N" or
 * "name*N*"? *ext says whether the value is percent-encoded.
 */
static int
rfc2231_match(const char *pname, const char *name, int *section, int *ext)
{
	size_t		 len = strlen(name);
	const char	*p;
	int		 n = 0, digits = 0;

	if (strncasecmp(pname, name, len) != 0 || pname[len] != '*')
		return 0;
	p = pname + len + 1;
	if (*p == '\0') {
		*section = -1;
		*ext = 1;
		return 1;
	}
	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return 0;		/* no leading zeros */
	while (*p >= '0' && *p <= '9') {
		n = n * 10 + (*p++ - '0');
		if (++digits > 3)
			return 0;
	}
	if (digits == 0)
		return 0;
	*ext = *p == '*';
	if (*ext)
		p++;
	if (*p != '\0')
		return 0;
	*section = n;
	return 1;
}

/* Percent-decode; a bad escape, or one that would make a NUL, stays. */
static void
rfc2231_unpercent(struct buf *out, const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	int			 hi, lo;

	for (; *p != '\0'; p++) {
		if (*p == '%' && (hi = hex_value(p[1])) != -1 &&
		    (lo = hex_value(p[2])) != -1 && (hi | lo) != 0) {
			buf_addc(out, (char)(hi << 4 | lo));
			p += 2;
		} else
			buf_addc(out, (char)*p);
	}
}

/* Split "charset'language'rest": the charset is copied, rest returned. */
static const char *
rfc2231_charset(const char *v, char **charset)
{
	const char	*q1, *q2;

	*charset = NULL;
	if ((q1 = strchr(v, '\'')) == NULL ||
	    (q2 = strchr(q1 + 1, '\'')) == NULL)
		return v;
	*charset = xstrndup(v, q1 - v);
	return q2 + 1;
}

/*
 * Turn the assembled bytes into UTF-8. Without a charset, bytes that are
 * already UTF-8 are taken as such (raw UTF-8 names are common).
 */
static char *
rfc2231_convert(struct buf *bytes, const char *charset, int *unknown)
{
	struct buf	 out;
	char		*cause;

	buf_init(&out);
	if (charset != NULL && *charset != '\0') {
		if (charset_to_utf8(charset, bytes->data, bytes->len, &out,
		    NULL, &cause) == 0)
			return buf_take(&out);
		free(cause);
	} else if (charset_utf8_valid(bytes->data, bytes->len))
		return buf_take(bytes);
	charset_escape_8bit(&out, bytes->data, bytes->len);
	if (unknown != NULL && out.len != bytes->len)
		*unknown = 1;
	return buf_take(&out);
}

char *
rfc2231_get(const struct rfc2231_param *params, size_t n, const char *name,
    int *unknown)
{
	const struct rfc2231_param	*single = NULL, *plain = NULL;
	const struct rfc2231_param	*sect[RFC2231_MAX_SECTIONS];
	int				 ext[RFC2231_MAX_SECTIONS];
	int				 s, e, i, last;
	size_t				 j;
	struct buf			 bytes;
	char				*charset = NULL, *v;
	const char			*rest;

	memset(sect, 0, sizeof sect);
	for (j = 0; j < n; j++) {
		if (strcasecmp(params[j].name, name) == 0) {
			if (plain == NULL)
				plain = &params[j];
		} else if (rfc2231_match(params[j].name, name, &s, &e)) {
			if (s == -1) {
				if (single == NULL)
					single = &params[j];
			} else if (s < RFC2231_MAX_SECTIONS &&
			    sect[s] == NULL) {
				sect[s] = &params[j];
				ext[s] = e;
			}
		}
	}
	if (sect[0] == NULL && single == NULL) {
		if (plain == NULL)
			return NULL;
		if (strstr(plain->value, "=?") != NULL)
			return rfc2047_decode_str(plain->value);
		return xstrdup(plain->value);
	}

	buf_init(&bytes);
	if (sect[0] == NULL) {
		rest = rfc2231_charset(single->value, &charset);
		rfc2231_unpercent(&bytes, rest);
	} else {
		for (last = 0; last < RFC2231_MAX_SECTIONS && sect[last];
		    last++)
			;
		for (i = 0; i < last; i++) {
			rest = sect[i]->value;
			if (i == 0 && ext[0])
				rest = rfc2231_charset(rest, &charset);
			if (ext[i])
				rfc2231_unpercent(&bytes, rest);
			else
				buf_adds(&bytes, rest);
		}
	}
	if (bytes.data == NULL)
		buf_adds(&bytes, "");
	v = rfc2231_convert(&bytes, charset, unknown);
	buf_free(&bytes);
	free(charset);
	return v;
}

/* RFC 2231 attribute-char: what may stand for itself in an ext-value. */
static int
rfc2231_attr_char(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("!#$&+-.^_`|~", c) != NULL;
}

static int
rfc2231_plain_ok(const char *name, const char *value)
{
	const unsigned char	*p;
	size_t			 len = 0;

	for (p = (const unsigned char *)value; *p != '\0'; p++) {
		if (*p < 0x20 || *p > 0x7e)
			return 0;
		len += (*p == '"' || *p == '\\') ? 2 : 1;
	}
	/* SP name = " value " ; */
	return 1 + strlen(name) + 2 + len + 2 <= RFC2231_LINE;
}

void
rfc2231_encode(struct buf *out, const char *name, const char *value)
{
	struct buf		 enc;
	const unsigned char	*p;
	size_t			 pos, take, room, head;
	int			 section;
	char			 label[32];

	if (rfc2231_plain_ok(name, value)) {
		buf_addf(out, ";\r\n %s=\"", name);
		for (p = (const unsigned char *)value; *p != '\0'; p++) {
			if (*p == '"' || *p == '\\')
				buf_addc(out, '\\');
			buf_addc(out, (char)*p);
		}
		buf_addc(out, '"');
		return;
	}

	buf_init(&enc);
	buf_adds(&enc, "utf-8''");
	for (p = (const unsigned char *)value; *p != '\0'; p++) {
		if (rfc2231_attr_char(*p))
			buf_addc(&enc, (char)*p);
		else
			buf_addf(&enc, "%%%02X", *p);
	}
	/* SP name *= value ; */
	if (1 + strlen(name) + 2 + enc.len + 1 <= RFC2231_LINE) {
		buf_addf(out, ";\r\n %s*=%s", name, enc.data);
		buf_free(&enc);
		return;
	}
	for (pos = 0, section = 0; pos < enc.len; section++) {
		snprintf(label, sizeof label, "*%d*=", section);
		head = 1 + strlen(name) + strlen(label);
		room = head + 1 + 3 < RFC2231_LINE ?
		    RFC2231_LINE - head - 1 : 3;
		take = enc.len - pos < room ? enc.len - pos : room;
		/* Never cut a %XX escape in two. */
		if (pos + take < enc.len) {
			if (take >= 1 && enc.data[pos + take - 1] == '%')
				take -= 1;
			else if (take >= 2 && enc.data[pos + take - 2] == '%')
				take -= 2;
		}
		buf_addf(out, ";\r\n %s%s", name, label);
		buf_add(out, enc.data + pos, take);
		pos += take;
	}
	buf_free(&enc);
}
