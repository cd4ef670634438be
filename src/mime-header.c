/*
 * mime-header.c: splitting a header into fields (see mime-header.h). Used
 * by mime-parse.c for the message and every part. It only finds where each
 * field starts and ends; understanding the values is left to libetpan and
 * the RFC 2047 and 2231 decoders, after the value has been unfolded.
 *
 * It reads line by line, once, whatever the bytes are: LF or CRLF line
 * ends, 8-bit bytes, NUL bytes, lines of any length. A field name is a run
 * of visible bytes before a colon (8-bit bytes are let through so that a
 * header in a broken encoding still splits into fields).
 *
 * mime_header_parsable() is the one gate in front of libetpan's header
 * value parsers, for mime-parse.c and addr-list.c alike.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mime-header.h"
#include "xmalloc.h"

/* Is the line at p (length len, no line break) "Name: ..."? */
static size_t
mime_header_name(const char *p, size_t len)
{
	size_t		i;
	unsigned char	c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)p[i];
		if (c == ':')
			return i;
		if (c <= 0x20 || c == 0x7f)
			return 0;
	}
	return 0;
}

size_t
mime_header_parse(struct mime_header *h, const char *buf, size_t len,
    int skip_from)
{
	const char		*nl;
	size_t			 pos = 0, end, next, n, cap = 0;
	struct mime_field	*f = NULL, *last = NULL;

	memset(h, 0, sizeof *h);
	if (skip_from && len >= 5 && memcmp(buf, "From ", 5) == 0) {
		nl = memchr(buf, '\n', len);
		pos = nl == NULL ? len : (size_t)(nl - buf) + 1;
	}
	while (pos < len) {
		if ((nl = memchr(buf + pos, '\n', len - pos)) == NULL)
			end = next = len;
		else {
			end = nl - buf;
			next = end + 1;
		}
		if (end > pos && buf[end - 1] == '\r')
			end--;
		if (end == pos)			/* the empty line */
			return next;
		if (buf[pos] == ' ' || buf[pos] == '\t') {
			/* A continuation; before any field there is none. */
			if (last != NULL)
				last->valuelen = end - (last->value - buf);
			pos = next;
			continue;
		}
		if ((n = mime_header_name(buf + pos, end - pos)) == 0)
			return pos;		/* not a header line: body */
		last = NULL;
		if (h->nfields == MIME_HEADER_MAX_FIELDS)
			h->truncated = 1;
		else {
			if (h->nfields == cap) {
				cap = cap == 0 ? 16 : cap * 2;
				h->fields = xreallocarray(h->fields, cap,
				    sizeof *h->fields);
			}
			f = &h->fields[h->nfields++];
			f->name = buf + pos;
			f->namelen = n;
			f->value = buf + pos + n + 1;
			f->valuelen = end - (pos + n + 1);
			last = f;
		}
		pos = next;
	}
	return len;
}

void
mime_header_free(struct mime_header *h)
{
	free(h->fields);
	memset(h, 0, sizeof *h);
}

const struct mime_field *
mime_header_find(const struct mime_header *h, const char *name,
    const struct mime_field *prev)
{
	size_t	i, len = strlen(name);

	i = prev == NULL ? 0 : (size_t)(prev - h->fields) + 1;
	for (; i < h->nfields; i++) {
		if (h->fields[i].namelen == len &&
		    strncasecmp(h->fields[i].name, name, len) == 0)
			return &h->fields[i];
	}
	return NULL;
}

char *
mime_header_unfold(const struct mime_field *f, size_t *lenp)
{
	const char	*v = f->value;
	size_t		 i, n = 0, len = f->valuelen;
	char		*out;

	while (len > 0 && (*v == ' ' || *v == '\t' || *v == '\r' ||
	    *v == '\n')) {
		v++;
		len--;
	}
	out = xmalloc(len + 1);
	for (i = 0; i < len; i++) {
		if (v[i] == '\n')
			continue;
		if (v[i] == '\r' && i + 1 < len && v[i + 1] == '\n')
			continue;
		out[n++] = v[i];
	}
	while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t'))
		n--;
	out[n] = '\0';
	if (lenp != NULL)
		*lenp = n;
	return out;
}

char *
mime_header_get(const struct mime_header *h, const char *name, size_t *len)
{
	const struct mime_field	*f;

	if ((f = mime_header_find(h, name, NULL)) == NULL)
		return NULL;
	return mime_header_unfold(f, len);
}

/*
 * libetpan's RFC 5322 and MIME value parsers recurse once per nested
 * comment (mailimf_comment_parse), with no limit: a value of 200,000 '('
 * overflows the stack. Counting nesting the way libetpan would means
 * agreeing with it on every quoted string and quoted-pair ("(\)" nests in a
 * comment, and "\)" closes nothing), so the gate counts every '(' in
 * the value instead: libetpan can never nest deeper than that, however it
 * reads the rest. Real values hold a handful. The length bound keeps the
 * parsers' other costs small (some constructs take time that grows faster
 * than the length).
 */
int
mime_header_parsable(const char *v, size_t len)
{
	size_t	i, parens = 0;

	if (len > MIME_HEADER_PARSE_MAX || memchr(v, '\0', len) != NULL)
		return 0;
	for (i = 0; i < len; i++) {
		if (v[i] == '(' && ++parens > MIME_HEADER_PARSE_PARENS)
			return 0;
	}
	return 1;
}
