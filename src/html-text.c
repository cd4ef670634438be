/*
 * html-text.c: the built-in HTML to text converter (html-text.h). It owns
 * nothing but its one pass over the bytes: a tag is read and forgotten,
 * the only state kept is whether text is inside <pre>, the address of the
 * link being read, and the list of addresses met so far. Called by view.c
 * for a text/html part that has no text/plain alternative.
 *
 * It must never fetch anything (images, styles, links: an address is only
 * ever listed as text), never recurse, and never let its memory grow with
 * anything but the text it writes, however the tags are nested or left
 * open. What it writes is not terminal-safe: view.c makes it so.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "html-text.h"
#include "hex.h"
#include "xmalloc.h"

#define HTML_NAME_MAX	16	/* a tag name longer is no tag we know */

struct html_ctx {
	struct buf	*out;
	size_t		 start;		/* out->len when we began */
	size_t		 max;
	int		 cut;
	int		 nl;		/* line breaks owed before the next
					   text (at most 2) */
	int		 sp;		/* a space owed */
	int		 pre;		/* <pre> elements we are inside */
	int		 written;	/* some text is out */
	struct buf	 href;		/* the open link's address */
	int		 inlink;
	struct buf	 links;		/* "[N] address" lines */
	int		 nlinks;
};

/* Elements whose content is not text to show. */
static const char *html_drop[] = {
	"script", "style", "head", "title", "template"
};

/* Elements that stand apart from the text around them by a blank line. */
static const char *html_para[] = {
	"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
	"table", "ul", "ol", "dl", "hr"
};

/* Elements that begin and end on a line of their own. */
static const char *html_line[] = {
	"div", "li", "tr", "dt", "dd", "section", "article", "header",
	"footer", "nav", "form", "center", "address", "main", "aside",
	"figure", "figcaption", "caption", "body", "html"
};

static const struct {
	const char	*name;
	uint32_t	 cp;
} html_entities[] = {
	{ "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' },
	{ "apos", '\'' }, { "nbsp", 0xa0 }, { "copy", 0xa9 },
	{ "reg", 0xae }, { "trade", 0x2122 }, { "mdash", 0x2014 },
	{ "ndash", 0x2013 }, { "hellip", 0x2026 }, { "laquo", 0xab },
	{ "raquo", 0xbb }, { "lsquo", 0x2018 }, { "rsquo", 0x2019 },
	{ "ldquo", 0x201c }, { "rdquo", 0x201d }, { "euro", 0x20ac },
	{ "pound", 0xa3 }, { "bull", 0x2022 }, { "middot", 0xb7 },
	{ "deg", 0xb0 }, { "times", 0xd7 }, { "shy", 0xad },
	{ "zwnj", 0x200c }, { "zwj", 0x200d }, { "auml", 0xe4 },
	{ "ouml", 0xf6 }, { "uuml", 0xfc }, { "Auml", 0xc4 },
	{ "Ouml", 0xd6 }, { "Uuml", 0xdc }, { "szlig", 0xdf },
	{ "eacute", 0xe9 }, { "egrave", 0xe8 }, { "agrave", 0xe0 },
	{ "ccedil", 0xe7 }
};

static int
html_in(const char *name, const char **list, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strcmp(name, list[i]) == 0)
			return 1;
	}
	return 0;
}
#define HTML_IN(name, list) html_in(name, list, sizeof list / sizeof *list)

static void
html_utf8(struct buf *out, uint32_t cp)
{
	char	s[4];

	if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		buf_addc(out, (char)cp);
	} else if (cp < 0x800) {
		s[0] = (char)(0xc0 | cp >> 6);
		s[1] = (char)(0x80 | (cp & 0x3f));
		buf_add(out, s, 2);
	} else if (cp < 0x10000) {
		s[0] = (char)(0xe0 | cp >> 12);
		s[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		s[2] = (char)(0x80 | (cp & 0x3f));
		buf_add(out, s, 3);
	} else {
		s[0] = (char)(0xf0 | cp >> 18);
		s[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		s[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		s[3] = (char)(0x80 | (cp & 0x3f));
		buf_add(out, s, 4);
	}
}

/*
 * The entity at p ('&'): its code point in *cp and its length, or 0 when
 * it is none we know (the '&' is then text).
 */
static size_t
html_entity(const char *p, const char *end, uint32_t *cp)
{
	const char	*q = p + 1;
	char		 name[12];
	uint32_t	 v = 0;
	size_t		 i, n = 0;
	int		 hex = 0, digits = 0;

	if (q < end && *q == '#') {
		q++;
		if (q < end && (*q == 'x' || *q == 'X')) {
			hex = 1;
			q++;
		}
		for (; q < end; q++, digits++) {
			if (hex && hex_value((unsigned char)*q) != -1)
				v = v * 16 + (uint32_t)hex_value((unsigned char)*q);
			else if (!hex && isdigit((unsigned char)*q))
				v = v * 10 + (uint32_t)(*q - '0');
			else
				break;
			if (v > 0x10ffff)
				v = 0x110000;	/* too high, however long */
		}
		if (digits == 0)
			return 0;
		*cp = v;
		if (q < end && *q == ';')
			q++;
		return q - p;
	}
	while (q < end && n < sizeof name - 1 &&
	    isalnum((unsigned char)*q))
		name[n++] = *q++;
	name[n] = '\0';
	if (n == 0 || q >= end || *q != ';')
		return 0;
	for (i = 0; i < sizeof html_entities / sizeof *html_entities; i++) {
		if (strcmp(name, html_entities[i].name) == 0) {
			*cp = html_entities[i].cp;
			return q + 1 - p;
		}
	}
	return 0;
}

/* An attribute's value with its entities decoded, at most max bytes. */
static void
html_decode(struct buf *out, const char *s, size_t len, size_t max)
{
	const char	*end = s + len;
	uint32_t	 cp;
	size_t		 n, start = out->len;

	while (s < end && out->len - start < max) {
		if (*s == '&' && (n = html_entity(s, end, &cp)) != 0) {
			html_utf8(out, cp);
			s += n;
		} else
			buf_addc(out, *s++);
	}
}

/* Text to show: first the breaks and the space owed. */
static void
html_emit(struct html_ctx *c, const char *s, size_t len)
{
	if (c->cut)
		return;
	if (c->written) {
		if (c->nl > 0)
			buf_add(c->out, "\n\n", c->nl);
		else if (c->sp)
			buf_addc(c->out, ' ');
	}
	c->nl = c->sp = 0;
	c->written = 1;
	buf_add(c->out, s, len);
	if (c->max != 0 && c->out->len - c->start >= c->max)
		c->cut = 1;
}

static void
html_break(struct html_ctx *c, int n)
{
	if (c->nl < n)
		c->nl = n;
	c->sp = 0;
}

/* The end of a link: its number after its text, its address listed. */
static void
html_link_end(struct html_ctx *c)
{
	char	num[32];

	if (!c->inlink)
		return;
	c->inlink = 0;
	if (c->href.len == 0 || c->nlinks >= HTML_TEXT_MAX_LINKS)
		return;
	c->nlinks++;
	snprintf(num, sizeof num, "[%d]", c->nlinks);
	if (c->written && c->nl == 0)
		c->sp = 1;
	html_emit(c, num, strlen(num));
	buf_addf(&c->links, "%s ", num);
	buf_add(&c->links, c->href.data, c->href.len);
	buf_addc(&c->links, '\n');
}

/* Where "</name" begins after p (any case), or NULL. */
static const char *
html_find_end(const char *p, const char *end, const char *name)
{
	size_t	n = strlen(name);

	for (; p < end; p++) {
		if ((p = memchr(p, '<', end - p)) == NULL)
			return NULL;
		if ((size_t)(end - p) < n + 2 || p[1] != '/' ||
		    strncasecmp(p + 2, name, n) != 0)
			continue;
		if ((size_t)(end - p) == n + 2 ||
		    !isalnum((unsigned char)p[n + 2]))
			return p;
	}
	return NULL;
}

/*
 * The attributes of a tag from p to its '>': the value of want (NULL for
 * none) into val. Returns the position after '>', or NULL when the tag
 * never ends.
 */
static const char *
html_attrs(const char *p, const char *end, const char *want,
    struct buf *val)
{
	const char	*name, *v;
	size_t		 nlen, vlen;
	char		 q;

	for (;;) {
		while (p < end && (isspace((unsigned char)*p) || *p == '/'))
			p++;
		if (p >= end)
			return NULL;
		if (*p == '>')
			return p + 1;
		name = p;
		while (p < end && !isspace((unsigned char)*p) && *p != '=' &&
		    *p != '>' && *p != '/')
			p++;
		nlen = p - name;
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end || *p != '=') {
			if (p == name)
				p++;	/* a lone '=' or the like */
			continue;
		}
		p++;
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p < end && (*p == '"' || *p == '\'')) {
			q = *p++;
			v = p;
			if ((p = memchr(p, q, end - p)) == NULL)
				return NULL;
			vlen = p++ - v;
		} else {
			v = p;
			while (p < end && !isspace((unsigned char)*p) &&
			    *p != '>')
				p++;
			vlen = p - v;
		}
		if (want != NULL && nlen == strlen(want) &&
		    strncasecmp(name, want, nlen) == 0) {
			buf_reset(val);
			html_decode(val, v, vlen, HTML_TEXT_MAX_URL);
		}
	}
}

/* What a tag does to the text. */
static void
html_tag(struct html_ctx *c, const char *name, int closing,
    struct buf *attr)
{
	if (strcmp(name, "br") == 0) {
		if (c->written && c->nl < 2)
			c->nl++;
		c->sp = 0;
	} else if (HTML_IN(name, html_para))
		html_break(c, 2);
	else if (HTML_IN(name, html_line))
		html_break(c, 1);
	else if (strcmp(name, "td") == 0 || strcmp(name, "th") == 0) {
		if (c->written && c->nl == 0)
			c->sp = 1;
	}
	if (strcmp(name, "pre") == 0) {
		if (!closing)
			c->pre++;
		else if (c->pre > 0)
			c->pre--;
	} else if (strcmp(name, "li") == 0 && !closing)
		html_emit(c, "* ", 2);
	else if (strcmp(name, "a") == 0) {
		html_link_end(c);
		if (!closing) {
			buf_reset(&c->href);
			if (attr->len != 0)
				buf_add(&c->href, attr->data, attr->len);
			c->inlink = 1;
		}
	} else if (strcmp(name, "img") == 0 && attr->len != 0) {
		if (c->written && c->nl == 0)
			c->sp = 1;
		html_emit(c, "[image: ", 8);
		html_emit(c, attr->data, attr->len);
		html_emit(c, "]", 1);
	}
}

/*
 * A markup construct at p ('<'): handled, and the position after it
 * returned; end when it never ends (the rest is dropped); NULL when '<'
 * is only text.
 */
static const char *
html_markup(struct html_ctx *c, const char *p, const char *end)
{
	const char	*q = p + 1, *e;
	char		 name[HTML_NAME_MAX + 1];
	struct buf	 attr;
	size_t		 n = 0;
	int		 closing = 0;

	if (q < end && *q == '!') {
		if (end - q >= 3 && q[1] == '-' && q[2] == '-') {
			for (e = q + 3; e + 2 < end; e++) {
				if (e[0] == '-' && e[1] == '-' && e[2] == '>')
					return e + 3;
			}
			return end;
		}
		return (e = memchr(q, '>', end - q)) != NULL ? e + 1 : end;
	}
	if (q < end && *q == '?')
		return (e = memchr(q, '>', end - q)) != NULL ? e + 1 : end;
	if (q < end && *q == '/') {
		closing = 1;
		q++;
	}
	if (q >= end || !isalpha((unsigned char)*q))
		return NULL;
	while (q < end && isalnum((unsigned char)*q)) {
		if (n < HTML_NAME_MAX)
			name[n++] = tolower((unsigned char)*q);
		q++;
	}
	name[n] = '\0';

	buf_init(&attr);
	e = html_attrs(q, end, closing ? NULL : strcmp(name, "a") == 0 ?
	    "href" : strcmp(name, "img") == 0 ? "alt" : NULL, &attr);
	if (e == NULL) {
		buf_free(&attr);
		return end;
	}
	if (!closing && HTML_IN(name, html_drop) && e[-2] != '/') {
		buf_free(&attr);
		html_break(c, 1);
		return (q = html_find_end(e, end, name)) != NULL ? q : end;
	}
	html_tag(c, name, closing, &attr);
	buf_free(&attr);
	return e;
}

/* Text between tags: whitespace folded (outside <pre>), entities decoded. */
static const char *
html_chars(struct html_ctx *c, const char *p, const char *end)
{
	char		 s[4];
	uint32_t	 cp;
	size_t		 n;
	struct buf	 e;

	for (; p < end && *p != '<' && !c->cut; p++) {
		if (*p == '&' && (n = html_entity(p, end, &cp)) != 0) {
			if (cp == 0xa0)
				html_emit(c, " ", 1);
			else {
				buf_init(&e);
				html_utf8(&e, cp);
				html_emit(c, e.data, e.len);
				buf_free(&e);
			}
			p += n - 1;
		} else if (*p == '\n' && c->pre) {
			c->nl = c->written && c->nl < 2 ? c->nl + 1 : c->nl;
		} else if (isspace((unsigned char)*p) && !c->pre) {
			if (c->written && c->nl == 0)
				c->sp = 1;
		} else if (*p != '\r') {
			s[0] = *p;
			html_emit(c, s, 1);
		}
	}
	return p;
}

int
html_text(const char *html, size_t len, size_t max, struct buf *out)
{
	struct html_ctx	 c;
	const char	*p = html, *end = html + len, *q;

	memset(&c, 0, sizeof c);
	c.out = out;
	c.start = out->len;
	c.max = max;
	buf_init(&c.href);
	buf_init(&c.links);
	while (p < end && !c.cut) {
		if (*p == '<') {
			if ((q = html_markup(&c, p, end)) != NULL) {
				p = q;
				continue;
			}
			html_emit(&c, "<", 1);
			p++;
			continue;
		}
		p = html_chars(&c, p, end);
	}
	html_link_end(&c);
	if (c.written)
		buf_addc(out, '\n');
	if (c.nlinks > 0 && !c.cut) {
		buf_adds(out, "\nlinks:\n");
		buf_add(out, c.links.data, c.links.len);
	}
	buf_free(&c.href);
	buf_free(&c.links);
	return c.cut;
}
