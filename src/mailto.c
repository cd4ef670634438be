/*
 * mailto.c: a mailto: URL (RFC 6068) made into the fields of a new
 * message (mailto.h). The URL comes from whoever wrote the link, so it is
 * taken as hostile: only the allow-list of mailto.h is kept (recipients
 * in the path, to and cc; subject, body, in-reply-to, references), every
 * other field is named in ignored and dropped, %-decoding must give UTF-8
 * without NUL, a header field may hold no line break or other control
 * character, and a body's CRLF become plain line ends. Caller:
 * ui/tui-write.c for `steedmail mailto:...`. Never prints.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "buf.h"
#include "charset.h"
#include "hex.h"
#include "addr-list.h"
#include "mailto.h"
#include "mime-header.h"
#include "xmalloc.h"

#define MAILTO_MAX_URL		(256 * 1024)	/* a body fits; no more */
#define MAILTO_MAX_RCPTS	100
#define MAILTO_MAX_IGNORED	32

/*
 * The len bytes at s %-decoded, allocated: NULL with *cause when a %
 * is not followed by two hex digits, a NUL is encoded, or the result is
 * not UTF-8. '+' stays '+' (RFC 6068 section 5).
 */
static char *
mailto_decode(const char *s, size_t len, const char *what, char **cause)
{
	struct buf	b;
	size_t		i;
	int		hi, lo;

	buf_init(&b);
	for (i = 0; i < len; i++) {
		if (s[i] != '%') {
			buf_addc(&b, s[i]);
			continue;
		}
		if (i + 2 >= len || (hi = hex_value((unsigned char)s[i + 1])) == -1 ||
		    (lo = hex_value((unsigned char)s[i + 2])) == -1) {
			*cause = xasprintf("bad %%-encoding in the %s", what);
			buf_free(&b);
			return NULL;
		}
		if (hi == 0 && lo == 0) {
			*cause = xasprintf("a NUL (%%00) in the %s", what);
			buf_free(&b);
			return NULL;
		}
		buf_addc(&b, (char)(hi << 4 | lo));
		i += 2;
	}
	if (!charset_utf8_valid(b.data != NULL ? b.data : "", b.len)) {
		*cause = xasprintf("the %s is not UTF-8", what);
		buf_free(&b);
		return NULL;
	}
	buf_addc(&b, '\0');
	return buf_take(&b);
}

/* A header field's value: no control character but tab. */
static int
mailto_header_ok(const char *s)
{
	for (; *s != '\0'; s++) {
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return 0;
	}
	return 1;
}

/*
 * The body: CRLF, and a CR or LF alone, become "\n"; no other control
 * character but tab. In place; 0, or -1.
 */
static int
mailto_body(char *s)
{
	char	*w = s;

	for (; *s != '\0'; s++) {
		if (*s == '\r') {
			if (s[1] == '\n')
				s++;
			*w++ = '\n';
			continue;
		}
		if (((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n') ||
		    *s == 0x7f)
			return -1;
		*w++ = *s;
	}
	*w = '\0';
	return 0;
}

/* "<a@b>" or "<a@b> <c@d>": message IDs, space-separated. */
static int
mailto_msgids(const char *s, int many)
{
	int	n = 0;

	for (;;) {
		while (*s == ' ')
			s++;
		if (*s == '\0')
			break;
		if (*s != '<' || (n > 0 && !many))
			return 0;
		for (s++; *s != '>'; s++) {
			if (*s == '\0' || *s == '<' || *s == ' ' || *s == '\t')
				return 0;
		}
		s++;
		n++;
		if (*s != '\0' && *s != ' ')
			return 0;
	}
	return n > 0;
}

static void
mailto_ignore(struct mailto *m, const char *name)
{
	size_t	i;

	for (i = 0; i < m->nignored; i++) {
		if (strcasecmp(m->ignored[i], name) == 0)
			return;
	}
	if (m->nignored >= MAILTO_MAX_IGNORED)
		return;
	m->ignored = xreallocarray(m->ignored, m->nignored + 1,
	    sizeof *m->ignored);
	m->ignored[m->nignored++] = xstrdup(name);
}

/* Comma-separated plain addresses (decoded) onto *v. */
static int
mailto_addrs(const char *s, char ***v, size_t *n, size_t *total,
    char **cause)
{
	const char	*p, *end;
	char		*a;
	size_t		 len;

	for (p = s; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		if ((end = strchr(p, ',')) == NULL)
			end = p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		len = end - p;
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 0)
			continue;
		a = xstrndup(p, len);
		if (!addr_valid(a)) {
			*cause = xasprintf("not a plain address: %s", a);
			free(a);
			return -1;
		}
		if (++*total > MAILTO_MAX_RCPTS) {
			free(a);
			*cause = xasprintf("more than %d recipients",
			    MAILTO_MAX_RCPTS);
			return -1;
		}
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		(*v)[(*n)++] = a;
	}
	return 0;
}

/* One string field (subject, body, ...): the first is taken. */
static int
mailto_field(struct mailto *m, const char *name, char **field, char *value,
    char **cause)
{
	if (*field != NULL) {
		mailto_ignore(m, name);		/* again: the first counts */
		free(value);
		return 0;
	}
	if (*value == '\0') {
		free(value);
		return 0;
	}
	if (strcmp(name, "body") == 0) {
		if (mailto_body(value) == -1) {
			*cause = xstrdup("a control character in the body");
			free(value);
			return -1;
		}
	} else if (!mailto_header_ok(value)) {
		*cause = xasprintf("a line break or control character in "
		    "the %s", name);
		free(value);
		return -1;
	} else if ((strcmp(name, "in-reply-to") == 0 &&
	    !mailto_msgids(value, 0)) || (strcmp(name, "references") == 0 &&
	    !mailto_msgids(value, 1))) {
		mailto_ignore(m, name);		/* not message IDs: dropped */
		free(value);
		return 0;
	}
	*field = value;
	return 0;
}

/* One name=value pair of the query, both still encoded. */
static int
mailto_pair(struct mailto *m, const char *pair, size_t len, size_t *total,
    char **cause)
{
	const char	*eq;
	char		*name, *value, *p;
	int		 rc = 0;

	if (len == 0)
		return 0;
	if ((eq = memchr(pair, '=', len)) == NULL)
		eq = pair + len;
	if ((name = mailto_decode(pair, eq - pair, "field name", cause)) ==
	    NULL)
		return -1;
	for (p = name; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			*cause = xstrdup("a control character in a field "
			    "name");
			free(name);
			return -1;
		}
	}
	if ((value = mailto_decode(eq < pair + len ? eq + 1 : eq,
	    eq < pair + len ? (size_t)(pair + len - eq - 1) : 0, name,
	    cause)) == NULL) {
		free(name);
		return -1;
	}
	for (p = name; *p != '\0'; p++) {
		if (*p >= 'A' && *p <= 'Z')
			*p += 'a' - 'A';
	}
	if (strcmp(name, "to") == 0 || strcmp(name, "cc") == 0) {
		if (!mailto_header_ok(value)) {
			*cause = xasprintf("a line break or control character "
			    "in %s", name);
			rc = -1;
		} else if (name[0] == 't')
			rc = mailto_addrs(value, &m->to, &m->nto, total, cause);
		else
			rc = mailto_addrs(value, &m->cc, &m->ncc, total, cause);
		free(value);
	} else if (strcmp(name, "subject") == 0)
		rc = mailto_field(m, name, &m->subject, value, cause);
	else if (strcmp(name, "body") == 0)
		rc = mailto_field(m, name, &m->body, value, cause);
	else if (strcmp(name, "in-reply-to") == 0)
		rc = mailto_field(m, name, &m->in_reply_to, value, cause);
	else if (strcmp(name, "references") == 0)
		rc = mailto_field(m, name, &m->references, value, cause);
	else {
		/* bcc, attach, from, reply-to, any header: never taken. */
		mailto_ignore(m, *name != '\0' ? name : "(empty)");
		free(value);
	}
	free(name);
	return rc;
}

int
mailto_parse(const char *url, struct mailto *m, char **cause)
{
	const char	*p, *q, *end, *amp;
	char		*path;
	size_t		 len, total = 0;

	memset(m, 0, sizeof *m);
	if (strncasecmp(url, "mailto:", 7) != 0) {
		*cause = xstrdup("not a mailto: URL");
		return -1;
	}
	if ((len = strlen(url)) > MAILTO_MAX_URL) {
		*cause = xasprintf("the mailto: URL is too long (%zu bytes, at "
		    "most %d)", len, MAILTO_MAX_URL);
		return -1;
	}
	p = url + 7;
	/* A fragment is not part of a mailto: URL's meaning. */
	if ((end = strchr(p, '#')) != NULL)
		mailto_ignore(m, "#fragment");
	else
		end = p + strlen(p);
	if ((q = memchr(p, '?', end - p)) == NULL)
		q = end;
	if ((path = mailto_decode(p, q - p, "address", cause)) == NULL)
		goto fail;
	if (!mailto_header_ok(path)) {
		free(path);
		*cause = xstrdup("a line break or control character in the "
		    "address");
		goto fail;
	}
	if (mailto_addrs(path, &m->to, &m->nto, &total, cause) == -1) {
		free(path);
		goto fail;
	}
	free(path);
	for (p = q < end ? q + 1 : end; p < end; p = amp + 1) {
		if ((amp = memchr(p, '&', end - p)) == NULL)
			amp = end;
		if (mailto_pair(m, p, amp - p, &total, cause) == -1)
			goto fail;
		if (amp == end)
			break;
	}
	return 0;
fail:
	mailto_free(m);
	return -1;
}

void
mailto_free(struct mailto *m)
{
	size_t	i;

	for (i = 0; i < m->nto; i++)
		free(m->to[i]);
	free(m->to);
	for (i = 0; i < m->ncc; i++)
		free(m->cc[i]);
	free(m->cc);
	for (i = 0; i < m->nignored; i++)
		free(m->ignored[i]);
	free(m->ignored);
	free(m->subject);
	free(m->body);
	free(m->in_reply_to);
	free(m->references);
	memset(m, 0, sizeof *m);
}

char *
mailto_list_post(const struct mime_header *h)
{
	struct mailto	 m;
	char		*v, *p, *end, *url, *cause = NULL, *addr = NULL;

	if ((v = mime_header_get(h, "List-Post", NULL)) == NULL)
		return NULL;
	if ((p = strcasestr(v, "<mailto:")) != NULL &&
	    (end = strchr(p, '>')) != NULL) {
		url = xstrndup(p + 1, end - p - 1);
		if (mailto_parse(url, &m, &cause) == 0) {
			if (m.nto > 0)
				addr = addr_list_lower(m.to[0]);
			mailto_free(&m);
		}
		free(cause);
		free(url);
	}
	free(v);
	return addr;
}
