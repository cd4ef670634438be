/*
 * view.c: a message as lines with roles (see view.h), and those lines as
 * the plain text of "steedmail --view". It owns the layout and nothing
 * else: parsing is mime-parse.c's, decoding mime-body.c's, the verdicts
 * come through the hooks. Callers: message.c, tests.
 *
 * The one rule here: every byte that came from the message reaches out
 * through view_safe(), which is strsafe() with VIEW_MARK's character
 * escaped too (STRSAFE_MARK), so that only this file can start a line
 * with the mark. What
 * the view adds on its own (labels, part numbers, sizes) is its own text.
 *
 * A legacy display element (RFC 9788 4.5.3), the copy of the protected
 * header fields a sender puts where a reader without protected headers
 * shows it (the top of a text part marked hp-legacy-display="1", a div
 * of that class in HTML, or, in the scheme before it, a text/rfc822-headers
 * part ahead of the text), is left out when the protected header fields
 * it repeats are shown above (view_hooks.headers_part), and shown as
 * text like any other when they are not.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr-show.h"
#include "charset.h"
#include "html-text.h"
#include "mime-body.h"
#include "mime-cte.h"
#include "mime-parse.h"
#include "rfc2047.h"
#include "strsafe.h"
#include "view.h"
#include "xmalloc.h"

#define VIEW_MAX_HEADER		2000		/* bytes of a header shown */
#define VIEW_MAX_TEXT		(4UL * 1024 * 1024)	/* bytes of text */

struct view_ctx {
	struct view_lines	 *lines;
	struct buf		  cur;		/* the line being made */
	enum view_role		  role;		/* its role */
	const struct mime_part	 *part;		/* the part being drawn */
	int			  inner;	/* boundaries we are inside */
	view_status_fn		  status;
	view_inner_fn		  inner_fn;
	const struct mime_part	 *prot;		/* headers_part */
	void			 *arg;
	int			  brief;
	size_t			  body;		/* lines before the body */
	struct mime_part	**atts;
	size_t			  natts;
};

static const char *view_headers[] = { "Date", "From", "Sender", "Reply-To",
    "To", "Cc", "Subject" };

static void	view_part(struct view_ctx *, struct mime_part *);

/* Append untrusted bytes, terminal-safe and unable to forge a view line. */
static void
view_safe(struct buf *out, const char *s, size_t len, int flags)
{
	strsafe_add(out, s, len, flags | STRSAFE_MARK);
}

static void
view_safe_str(struct buf *out, const char *s)
{
	view_safe(out, s, strlen(s), 0);
}

/* How many quote levels ("> > ") a text line starts with. */
static int
view_quote(const char *s)
{
	int	n = 0;

	for (;; s++) {
		if (*s == '>')
			n++;
		else if (*s != ' ' || n == 0)
			break;
	}
	return n;
}

static void
view_push(struct view_ctx *c, enum view_role role, const char *s,
    size_t len)
{
	struct view_lines	*l = c->lines;
	struct view_line	*v;

	if (l->n == l->cap) {
		l->cap = l->cap == 0 ? 64 : l->cap * 2;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	v = &l->v[l->n++];
	v->role = role;
	v->inner = c->inner;
	v->part = c->part;
	v->text = xmalloc(len + 1);
	memcpy(v->text, s, len);
	v->text[len] = '\0';
	v->quote = role == VIEW_TEXT ? view_quote(v->text) : 0;
}

/* Start a line; the caller adds the rest, and view_end() ends it. */
static void
view_begin(struct view_ctx *c, enum view_role role)
{
	buf_reset(&c->cur);
	c->role = role;
}

static void
view_end(struct view_ctx *c)
{
	view_push(c, c->role, c->cur.data != NULL ? c->cur.data : "",
	    c->cur.len);
	buf_reset(&c->cur);
}

/* A whole line of the view's own text. */
static void
view_line(struct view_ctx *c, enum view_role role, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	view_push(c, role, s, strlen(s));
	free(s);
}

/* Text from a message, made safe, one line for each line it holds. */
static void
view_text_lines(struct view_ctx *c, const char *s, size_t len)
{
	struct buf	 t;
	const char	*p, *q, *end;

	buf_init(&t);
	view_safe(&t, s, len, STRSAFE_KEEP_NL);
	p = t.data;
	end = t.data + t.len;
	while (p < end) {
		if ((q = memchr(p, '\n', end - p)) == NULL)
			q = end;
		view_push(c, VIEW_TEXT, p, q - p);
		p = q + 1;
	}
	if (t.data != NULL)
		explicit_bzero(t.data, t.cap);
	buf_free(&t);
}

/* How many of the len bytes at s to show so as to keep about max. */
static size_t
view_cut(const char *s, size_t len, size_t max)
{
	size_t	i = 0, n;

	if (len <= max)
		return len;
	while (i < max) {
		if ((n = charset_utf8_seq(s + i, len - i)) == 0)
			n = 1;
		if (i + n > max)
			break;
		i += n;
	}
	return i;
}

/* Is this one of the address fields addr-show.c shows? */
static int
view_is_addr(const char *name)
{
	return strcmp(name, "From") == 0 || strcmp(name, "Sender") == 0 ||
	    strcmp(name, "Reply-To") == 0;
}

/* The same addresses, in any case and order? (one list each: ", ") */
static int
view_same_addrs(const char *a, const char *b)
{
	size_t	la, lb;

	if (a == NULL || b == NULL)
		return a == b;
	la = strlen(a);
	lb = strlen(b);
	return la == lb && strncasecmp(a, b, la) == 0;
}

/*
 * An address field as addr-show.c shows it: one line for all its
 * occurrences, the addresses whole; then, when the field may mislead,
 * steedmail's warning with its real addresses. Sender and Reply-To only
 * when their addresses are not From's (or they may mislead).
 */
static void
view_addr_field(struct view_ctx *c, const char *name,
    const struct mime_header *h, struct addr_show *from)
{
	struct addr_show	 a;
	char			*w;

	if (!addr_show_field(h, name, &a))
		return;
	if (strcmp(name, "From") != 0 && !(a.flags & ADDR_SHOW_WARN) &&
	    view_same_addrs(a.addrs, from->addrs)) {
		addr_show_free(&a);
		return;
	}
	view_begin(c, VIEW_HEADER);
	buf_addf(&c->cur, "%s: ", name);
	view_safe_str(&c->cur, a.text);
	view_end(c);
	if ((w = addr_show_warning(name, &a)) != NULL) {
		view_begin(c, VIEW_NOTE);
		buf_adds(&c->cur, "warning: ");
		view_safe_str(&c->cur, w);
		view_end(c);
		free(w);
	}
	if (strcmp(name, "From") == 0) {
		addr_show_free(from);
		*from = a;
	} else
		addr_show_free(&a);
}

/*
 * The chosen header fields, in a fixed order, every occurrence; a field
 * that prot (if not NULL) has is taken from prot instead of h.
 */
static void
view_header_block(struct view_ctx *c, const struct mime_header *h,
    const struct mime_header *prot)
{
	const struct mime_header	*from;
	const struct mime_field		*f;
	struct addr_show		 sender;
	struct buf			 d;
	char				*v;
	size_t				 i, len, n;

	memset(&sender, 0, sizeof sender);
	for (i = 0; i < sizeof view_headers / sizeof *view_headers; i++) {
		f = NULL;
		from = h;
		if (prot != NULL && mime_header_find(prot, view_headers[i],
		    NULL) != NULL)
			from = prot;
		if (view_is_addr(view_headers[i])) {
			view_addr_field(c, view_headers[i], from, &sender);
			continue;
		}
		while ((f = mime_header_find(from, view_headers[i], f)) !=
		    NULL) {
			v = mime_header_unfold(f, &len);
			buf_init(&d);
			if (strcmp(view_headers[i], "Date") == 0)
				buf_add(&d, v, len);	/* no words there */
			else
				rfc2047_decode(&d, v, len);
			free(v);
			n = view_cut(d.data, d.len, VIEW_MAX_HEADER);
			view_begin(c, VIEW_HEADER);
			buf_addf(&c->cur, "%s: ", view_headers[i]);
			view_safe(&c->cur, d.data, n, 0);
			if (n < d.len)
				buf_adds(&c->cur, " [...]");
			view_end(c);
			buf_free(&d);
		}
	}
	addr_show_free(&sender);
}

/* "part 1.2: text/plain" and what else is known, as a view line. */
static void
view_part_line(struct view_ctx *c, const struct mime_part *p,
    const char *what)
{
	view_begin(c, VIEW_PART);
	buf_adds(&c->cur, "part ");
	view_safe_str(&c->cur, *p->section == '\0' ? "-" : p->section);
	buf_adds(&c->cur, ": ");
	view_safe_str(&c->cur, p->type);
	buf_addc(&c->cur, '/');
	view_safe_str(&c->cur, p->subtype);
	if (p->charset != NULL) {
		buf_adds(&c->cur, ", charset ");
		view_safe_str(&c->cur, p->charset);
	}
	if (p->filename != NULL) {
		buf_adds(&c->cur, ", \"");
		view_safe_str(&c->cur, p->filename);
		buf_addc(&c->cur, '"');
	}
	if (what != NULL) {
		buf_adds(&c->cur, ", ");
		buf_adds(&c->cur, what);
	}
	view_end(c);
}

static void
view_note(struct view_ctx *c, const char *note)
{
	view_begin(c, VIEW_NOTE);
	buf_adds(&c->cur, "note: ");
	view_safe_str(&c->cur, note);
	view_end(c);
}

/* Notes on what the parser found wrong with a part. */
static void
view_flag_notes(struct view_ctx *c, const struct mime_part *p)
{
	if (p->flags & MIME_PART_BAD_TYPE)
		view_note(c, "unreadable Content-Type: taken as text/plain");
	if (p->flags & MIME_PART_NO_BOUNDARY)
		view_note(c, "multipart without a usable boundary: its body "
		    "is shown as it is");
	if (p->flags & MIME_PART_NO_PARTS)
		view_note(c, "the multipart boundary never occurs: the body "
		    "is shown as it is");
	if (p->flags & MIME_PART_UNCLOSED)
		view_note(c, "the multipart has no closing boundary: the "
		    "message may be incomplete");
	if (p->flags & MIME_PART_BAD_HEADER)
		view_note(c, "too many header fields: the rest were ignored");
}

static void
view_status(struct view_ctx *c, const struct mime_part *p)
{
	char	*s;

	if (c->status == NULL || (s = c->status(p, c->arg)) == NULL)
		return;
	view_begin(c, VIEW_BANNER);
	view_safe_str(&c->cur, s);
	view_end(c);
	free(s);
}

/* Is this a part to show as text? */
static int
view_is_text(const struct mime_part *p)
{
	if (p->cte == MIME_CTE_OTHER)
		return 0;
	if (mime_part_is(p, "multipart", NULL))
		return 1;	/* a multipart we could not split */
	return mime_part_is(p, "text", "plain") &&
	    p->disposition != MIME_DISP_ATTACHMENT;
}

/*
 * Is this an HTML part to show as text: not an attachment, and no
 * text/plain alternative next to it (then that is shown instead)?
 */
static int
view_is_html(const struct mime_part *p)
{
	const struct mime_part	*sib;

	if (p->cte == MIME_CTE_OTHER || !mime_part_is(p, "text", "html") ||
	    p->disposition == MIME_DISP_ATTACHMENT)
		return 0;
	if (p->parent == NULL ||
	    !mime_part_is(p->parent, "multipart", "alternative"))
		return 1;
	TAILQ_FOREACH(sib, &p->parent->children, entry) {
		if (mime_part_is(sib, "text", "plain"))
			return 0;
	}
	return 1;
}

/* Legacy display elements (RFC 9788 4.5.3). */

/* Does p carry the parameter name, with value (NULL: any)? */
static int
view_param_is(const struct mime_part *p, const char *name, const char *value)
{
	char	*v;
	int	 yes;

	if ((v = mime_part_param(p, name)) == NULL)
		return 0;
	yes = value == NULL || strcasecmp(v, value) == 0;
	free(v);
	return yes;
}

/* Is p inside the part the protected header fields shown are on? */
static int
view_legacy_covered(const struct view_ctx *c, const struct mime_part *p)
{
	const struct mime_part	*q;

	if (c->prot == NULL)
		return 0;
	for (q = p; q != NULL; q = q->parent) {
		if (q == c->prot)
			return 1;
		/* a message attached inside has headers of its own */
		if (q != p && mime_part_is(q, "message", NULL))
			return 0;
	}
	return 0;
}

/*
 * A whole part that is a legacy display element: text/rfc822-headers (or
 * text/plain) marked protected-headers or hp-legacy-display, first in a
 * multipart/mixed, not an attachment, not the payload itself.
 */
static int
view_legacy_part(const struct view_ctx *c, const struct mime_part *p)
{
	if (!mime_part_is(p, "text", "rfc822-headers") &&
	    !mime_part_is(p, "text", "plain"))
		return 0;
	if (p == c->prot || p->parent == NULL ||
	    !mime_part_is(p->parent, "multipart", "mixed") ||
	    TAILQ_FIRST(&p->parent->children) != p ||
	    p->disposition == MIME_DISP_ATTACHMENT || p->cte == MIME_CTE_OTHER)
		return 0;
	return view_param_is(p, "protected-headers", NULL) ||
	    view_param_is(p, "hp-legacy-display", "1");
}

/*
 * How many bytes at the top of the len at s are a legacy display element:
 * header fields ("Name: value", continuation lines), then an empty line.
 * 0 when the text does not start so (then nothing is left out).
 */
static size_t
view_legacy_len(const char *s, size_t len)
{
	const char	*p = s, *end = s + len, *nl, *q;
	size_t		 fields = 0;

	while (p < end) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (nl == p)		/* the empty line ends it */
			return fields > 0 ? (size_t)(nl + 1 - s) : 0;
		if (*p == ' ' || *p == '\t') {
			if (fields == 0)
				return 0;
		} else {
			for (q = p; q < nl && *q > ' ' && *q < 0x7f &&
			    *q != ':'; q++)
				;
			if (q == p || q == nl || *q != ':')
				return 0;
			fields++;
		}
		p = nl + 1;
	}
	/* nothing but header fields: all of it */
	return fields > 0 ? len : 0;
}

/*
 * The first <div class="header-protection-legacy-display">, with what it
 * holds, cut out of the HTML in b (RFC 9788 4.5.3.3).
 */
static void
view_legacy_html(struct buf *b)
{
	const char	*s = b->data, *end, *p, *gt, *start = NULL;
	int		 depth = 0;

	if (s == NULL)
		return;
	end = s + b->len;
	for (p = s; p < end; p++) {
		if (*p != '<')
			continue;
		if ((gt = memchr(p, '>', end - p)) == NULL)
			return;
		if (end - p > 4 && strncasecmp(p, "<div", 4) == 0 &&
		    (p[4] == '>' || p[4] == ' ' || p[4] == '\t' ||
		    p[4] == '\n' || p[4] == '/')) {
			if (start != NULL)
				depth++;
			else if (memmem(p, gt - p,
			    "header-protection-legacy-display", 32) != NULL) {
				start = p;
				depth = 1;
			}
		} else if (start != NULL && end - p > 5 &&
		    strncasecmp(p, "</div", 5) == 0 && --depth == 0) {
			memmove((char *)start, gt + 1, end - (gt + 1));
			b->len -= gt + 1 - start;
			b->data[b->len] = '\0';
			return;
		}
		p = gt;
	}
}

/* HTML as text (html-text.c): never rendered, nothing fetched. */
static void
view_html(struct view_ctx *c, struct mime_part *p)
{
	struct buf	 h, t;
	char		*note;

	buf_init(&h);
	buf_init(&t);
	mime_body_text(p, VIEW_MAX_TEXT, &h, &note);
	view_part_line(c, p, NULL);
	view_flag_notes(c, p);
	view_note(c, "HTML shown as text");
	if (note != NULL) {
		view_note(c, note);
		free(note);
	}
	if (view_param_is(p, "hp-legacy-display", "1") &&
	    view_legacy_covered(c, p))
		view_legacy_html(&h);
	if (h.len != 0 && html_text(h.data, h.len, VIEW_MAX_TEXT, &t))
		view_note(c, "the HTML is long: only the start of its text "
		    "is shown");
	if (t.len == 0)
		view_line(c, VIEW_NOTE, "(empty)");
	else
		view_text_lines(c, t.data, t.len);
	if (h.data != NULL)
		explicit_bzero(h.data, h.cap);
	if (t.data != NULL)
		explicit_bzero(t.data, t.cap);
	buf_free(&h);
	buf_free(&t);
}

static void
view_text(struct view_ctx *c, struct mime_part *p)
{
	struct buf	 t;
	char		*note;
	size_t		 skip = 0;

	buf_init(&t);
	mime_body_text(p, VIEW_MAX_TEXT, &t, &note);
	/* the legacy display element at its top, when it is repeated */
	if (t.len > 0 && view_legacy_covered(c, p) &&
	    (view_param_is(p, "hp-legacy-display", "1") ||
	    view_legacy_part(c, p))) {
		skip = view_legacy_len(t.data, t.len);
		/* a part of its own: all of it (not even listed), or none */
		if (view_legacy_part(c, p) && skip != t.len)
			skip = 0;
		else if (view_legacy_part(c, p)) {
			explicit_bzero(t.data, t.cap);
			buf_free(&t);
			free(note);
			return;
		}
	}
	if (!c->brief || c->lines->n != c->body)
		view_part_line(c, p, NULL);
	view_flag_notes(c, p);
	if (note != NULL) {
		view_note(c, note);
		free(note);
	}
	if (t.len - skip == 0)
		view_line(c, VIEW_NOTE, "(empty)");
	else
		view_text_lines(c, t.data + skip, t.len - skip);
	if (t.data != NULL)
		explicit_bzero(t.data, t.cap);
	buf_free(&t);
}

static void
view_message(struct view_ctx *c, struct mime_part *p)
{
	struct mime_part	*inner = TAILQ_FIRST(&p->children);

	view_part_line(c, p, "attached message:");
	view_header_block(c, &inner->header, NULL);
	view_part(c, inner);
	c->part = p;
	view_begin(c, VIEW_BOUNDARY);
	buf_adds(&c->cur, "end of attached message ");
	view_safe_str(&c->cur, p->section);
	view_end(c);
}

static void	view_attachments(struct view_ctx *);

/* Content shown in place of part p, between two view lines. */
static void
view_inner(struct view_ctx *c, struct mime_part *p, struct mime_part *in)
{
	struct mime_part	**atts = c->atts;
	size_t			  natts = c->natts;
	const char		 *name = *p->section == '\0' ? "-" : p->section;
	int			  lines = !c->brief || *p->section != '\0';

	if (lines) {
		view_begin(c, VIEW_BOUNDARY);
		buf_adds(&c->cur, "part ");
		view_safe_str(&c->cur, name);
		buf_adds(&c->cur, ": ");
		view_safe_str(&c->cur, p->type);
		buf_addc(&c->cur, '/');
		view_safe_str(&c->cur, p->subtype);
		buf_adds(&c->cur, ", its content follows");
		view_end(c);
	} else
		c->body = c->lines->n;
	c->atts = NULL;
	c->natts = 0;
	c->inner++;
	view_part(c, in);
	view_attachments(c);
	c->inner--;
	free(c->atts);
	c->atts = atts;
	c->natts = natts;
	c->part = p;
	if (!lines)
		return;
	view_begin(c, VIEW_BOUNDARY);
	buf_adds(&c->cur, "end of the content of part ");
	view_safe_str(&c->cur, name);
	view_end(c);
}

static void
view_part(struct view_ctx *c, struct mime_part *p)
{
	struct mime_part	*child, *in;

	c->part = p;
	view_status(c, p);
	if (c->inner_fn != NULL && (in = c->inner_fn(p, c->arg)) != NULL) {
		view_inner(c, p, in);
		return;
	}
	if (p->flags & MIME_PART_TOO_DEEP) {
		view_part_line(c, p, "nested too deeply, not shown");
		return;
	}
	if (mime_part_is(p, "message", NULL) && p->nchildren > 0) {
		view_message(c, p);
		return;
	}
	if (p->nchildren > 0) {
		view_flag_notes(c, p);
		TAILQ_FOREACH(child, &p->children, entry)
			view_part(c, child);
		c->part = p;
		if (p->flags & MIME_PART_CUT)
			view_line(c, VIEW_NOTE, "(more parts not shown: a "
			    "message may hold at most %d)", MIME_MAX_PARTS);
		return;
	}
	if (view_is_text(p) || (mime_part_is(p, "text", "rfc822-headers") &&
	    view_legacy_part(c, p))) {
		view_text(c, p);
		return;
	}
	if (view_is_html(p)) {
		view_html(c, p);
		return;
	}
	c->atts = xreallocarray(c->atts, c->natts + 1, sizeof *c->atts);
	c->atts[c->natts++] = p;
}

static void
view_size(struct buf *out, size_t n)
{
	if (n < 1024)
		buf_addf(out, "%zu B", n);
	else if (n < 1024 * 1024)
		buf_addf(out, "%.1f KB", n / 1024.0);
	else
		buf_addf(out, "%.1f MB", n / (1024.0 * 1024));
}

static void
view_attachments(struct view_ctx *c)
{
	struct mime_part	*p;
	size_t			 i, size;
	int			 flags;

	if (c->natts == 0)
		return;
	c->part = NULL;
	view_line(c, VIEW_ATTACHMENT, "attachments:");
	for (i = 0; i < c->natts; i++) {
		c->part = p = c->atts[i];
		flags = mime_cte_decoded_size(p->cte, p->body, p->bodylen,
		    &size);
		view_begin(c, VIEW_ATTACHMENT);
		buf_adds(&c->cur, "  ");
		view_safe_str(&c->cur, p->section);
		buf_adds(&c->cur, "  ");
		view_safe_str(&c->cur, p->type);
		buf_addc(&c->cur, '/');
		view_safe_str(&c->cur, p->subtype);
		buf_adds(&c->cur, "  ");
		view_size(&c->cur, size);
		if (p->filename != NULL) {
			buf_adds(&c->cur, "  \"");
			view_safe_str(&c->cur, p->filename);
			buf_addc(&c->cur, '"');
		}
		if (mime_part_is(p, "text", "html"))
			buf_adds(&c->cur, "  (HTML, not shown)");
		if (flags & MIME_CTE_UNKNOWN)
			buf_adds(&c->cur, "  (unknown transfer encoding)");
		else if (flags & (MIME_CTE_TRUNCATED | MIME_CTE_NO_PADDING))
			buf_adds(&c->cur, "  (base64 data ends early)");
		if (p->flags & MIME_PART_BAD_HEADER)
			buf_adds(&c->cur, "  (too many header fields)");
		view_end(c);
	}
}

void
view_lines(struct mime_msg *m, const struct view_hooks *h,
    struct view_lines *out)
{
	struct view_ctx	c;
	size_t		i;

	memset(&c, 0, sizeof c);
	c.lines = out;
	buf_init(&c.cur);
	c.status = h->status;
	c.inner_fn = h->inner;
	c.prot = h->headers != NULL ? h->headers_part : NULL;
	c.arg = h->arg;
	c.brief = h->brief;
	if (m->len == 0) {
		view_line(&c, VIEW_NOTE, "(empty message)");
		return;
	}
	view_header_block(&c, &m->root->header, h->headers);
	view_push(&c, VIEW_SPACE, "", 0);
	for (i = 0; i < h->nnotes; i++) {
		view_begin(&c, h->notes[i].role);
		view_safe_str(&c.cur, h->notes[i].text);
		view_end(&c);
	}
	c.body = out->n;
	view_part(&c, m->root);
	view_attachments(&c);
	c.part = NULL;
	if (m->cut)
		view_line(&c, VIEW_NOTE, "note: the message has more than %d "
		    "parts; the rest are not shown", MIME_MAX_PARTS);
	free(c.atts);
	buf_free(&c.cur);
}

int
view_role_chrome(enum view_role r)
{
	return r != VIEW_HEADER && r != VIEW_SPACE && r != VIEW_TEXT;
}

const char *
view_role_name(enum view_role r)
{
	switch (r) {
	case VIEW_HEADER:	return "header";
	case VIEW_SPACE:	return "space";
	case VIEW_TEXT:		return "text";
	case VIEW_BANNER:	return "banner";
	case VIEW_PART:		return "part";
	case VIEW_BOUNDARY:	return "boundary";
	case VIEW_ATTACHMENT:	return "attachment";
	default:		return "note";
	}
}

void
view_lines_render(const struct view_lines *l, struct buf *out)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (view_role_chrome(l->v[i].role))
			buf_adds(out, VIEW_MARK);
		buf_adds(out, l->v[i].text);
		buf_addc(out, '\n');
	}
}

void
view_lines_free(struct view_lines *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		explicit_bzero(l->v[i].text, strlen(l->v[i].text));
		free(l->v[i].text);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void
view_render_msg(struct mime_msg *m, struct buf *out, view_status_fn status,
    void *arg)
{
	struct view_hooks	h;

	memset(&h, 0, sizeof h);
	h.status = status;
	h.arg = arg;
	view_render_hooks(m, out, &h);
}

void
view_render_hooks(struct mime_msg *m, struct buf *out,
    const struct view_hooks *h)
{
	struct view_lines	l;

	memset(&l, 0, sizeof l);
	view_lines(m, h, &l);
	view_lines_render(&l, out);
	view_lines_free(&l);
}

int
view_render(const char *raw, size_t len, struct buf *out, char **cause)
{
	struct mime_msg	*m;

	if ((m = mime_parse_copy(raw, len, cause)) == NULL)
		return -1;
	view_render_msg(m, out, NULL, NULL);
	mime_msg_free(m);
	return 0;
}
