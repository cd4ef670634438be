/*
 * view.c: the plain-text rendering of a message (see view.h). It owns the
 * layout of "steedmail --view" and nothing else: parsing is mime-parse.c's,
 * decoding mime-body.c's.
 *
 * The one rule here: every byte that came from the message reaches out
 * through view_safe(), which is strsafe() plus the escaping of VIEW_MARK's
 * character, so that only this file can start a line with the mark. What
 * the view adds on its own (labels, part numbers, sizes) is its own text.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "charset.h"
#include "mime-body.h"
#include "mime-parse.h"
#include "rfc2047.h"
#include "strsafe.h"
#include "view.h"
#include "xmalloc.h"

#define VIEW_MARK_CHAR		"\xe2\x94\x83"	/* U+2503 */
#define VIEW_MAX_HEADER		2000		/* bytes of a header shown */
#define VIEW_MAX_TEXT		(4UL * 1024 * 1024)	/* bytes of text */

struct view_ctx {
	struct buf		 *out;
	view_status_fn		  status;
	view_inner_fn		  inner;
	void			 *arg;
	struct mime_part	**atts;
	size_t			  natts;
};

static const char *view_headers[] = { "Date", "From", "To", "Cc", "Subject" };

static void	view_part(struct view_ctx *, struct mime_part *);

/* Append untrusted bytes, terminal-safe and unable to forge a view line. */
static void
view_safe(struct buf *out, const char *s, size_t len, int flags)
{
	struct buf	 tmp;
	const char	*p, *q, *end;

	buf_init(&tmp);
	strsafe_add(&tmp, s, len, flags);
	if (tmp.len == 0) {
		buf_free(&tmp);
		return;
	}
	p = tmp.data;
	end = tmp.data + tmp.len;
	/* The mark's first byte, 0xE2, starts many characters; check all. */
	while (p < end) {
		q = memchr(p, VIEW_MARK_CHAR[0], end - p);
		if (q == NULL || end - q < 3) {
			buf_add(out, p, end - p);
			break;
		}
		if (memcmp(q, VIEW_MARK_CHAR, 3) != 0) {
			buf_add(out, p, q + 1 - p);
			p = q + 1;
			continue;
		}
		buf_add(out, p, q - p);
		buf_adds(out, "<U+2503>");
		p = q + 3;
	}
	buf_free(&tmp);
}

static void
view_safe_str(struct buf *out, const char *s)
{
	view_safe(out, s, strlen(s), 0);
}

/* Start a view line; the caller adds the rest and the newline. */
static void
view_mark(struct view_ctx *c)
{
	buf_adds(c->out, VIEW_MARK);
}

/* A whole view line of the view's own text. */
static void
view_line(struct view_ctx *c, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	view_mark(c);
	buf_adds(c->out, s);
	buf_addc(c->out, '\n');
	free(s);
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

/*
 * The chosen header fields, in a fixed order, every occurrence; a field
 * that prot (if not NULL) has is taken from prot instead of h.
 */
static void
view_header_block(struct view_ctx *c, const struct mime_header *h,
    const struct mime_header *prot)
{
	const struct mime_field	*f;
	struct buf		 d;
	char			*v;
	size_t			 i, len, n;

	const struct mime_header *from;

	for (i = 0; i < sizeof view_headers / sizeof *view_headers; i++) {
		f = NULL;
		from = h;
		if (prot != NULL && mime_header_find(prot, view_headers[i],
		    NULL) != NULL)
			from = prot;
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
			buf_addf(c->out, "%s: ", view_headers[i]);
			view_safe(c->out, d.data, n, 0);
			if (n < d.len)
				buf_adds(c->out, " [...]");
			buf_addc(c->out, '\n');
			buf_free(&d);
		}
	}
}

/* "part 1.2: text/plain" and what else is known, as a view line. */
static void
view_part_line(struct view_ctx *c, const struct mime_part *p,
    const char *what)
{
	view_mark(c);
	buf_adds(c->out, "part ");
	view_safe_str(c->out, *p->section == '\0' ? "-" : p->section);
	buf_adds(c->out, ": ");
	view_safe_str(c->out, p->type);
	buf_addc(c->out, '/');
	view_safe_str(c->out, p->subtype);
	if (p->charset != NULL) {
		buf_adds(c->out, ", charset ");
		view_safe_str(c->out, p->charset);
	}
	if (p->filename != NULL) {
		buf_adds(c->out, ", \"");
		view_safe_str(c->out, p->filename);
		buf_addc(c->out, '"');
	}
	if (what != NULL) {
		buf_adds(c->out, ", ");
		buf_adds(c->out, what);
	}
	buf_addc(c->out, '\n');
}

static void
view_note(struct view_ctx *c, const char *note)
{
	view_mark(c);
	buf_adds(c->out, "note: ");
	view_safe_str(c->out, note);
	buf_addc(c->out, '\n');
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
	view_mark(c);
	view_safe_str(c->out, s);
	buf_addc(c->out, '\n');
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

static void
view_text(struct view_ctx *c, struct mime_part *p)
{
	struct buf	 t;
	char		*note;

	buf_init(&t);
	mime_body_text(p, VIEW_MAX_TEXT, &t, &note);
	view_part_line(c, p, NULL);
	view_flag_notes(c, p);
	if (note != NULL) {
		view_note(c, note);
		free(note);
	}
	if (t.len == 0)
		view_line(c, "(empty)");
	else {
		view_safe(c->out, t.data, t.len, STRSAFE_KEEP_NL);
		if (t.data[t.len - 1] != '\n')
			buf_addc(c->out, '\n');
	}
	buf_free(&t);
}

static void
view_message(struct view_ctx *c, struct mime_part *p)
{
	struct mime_part	*inner = TAILQ_FIRST(&p->children);

	view_part_line(c, p, "attached message:");
	view_header_block(c, &inner->header, NULL);
	view_part(c, inner);
	view_mark(c);
	buf_adds(c->out, "end of attached message ");
	view_safe_str(c->out, p->section);
	buf_addc(c->out, '\n');
}

static void	view_attachments(struct view_ctx *);

/* Content shown in place of part p, between two view lines. */
static void
view_inner(struct view_ctx *c, struct mime_part *p, struct mime_part *in)
{
	struct mime_part	**atts = c->atts;
	size_t			  natts = c->natts;
	const char		 *name = *p->section == '\0' ? "-" : p->section;

	view_mark(c);
	buf_adds(c->out, "part ");
	view_safe_str(c->out, name);
	buf_adds(c->out, ": ");
	view_safe_str(c->out, p->type);
	buf_addc(c->out, '/');
	view_safe_str(c->out, p->subtype);
	buf_adds(c->out, ", its content follows\n");
	c->atts = NULL;
	c->natts = 0;
	view_part(c, in);
	view_attachments(c);
	free(c->atts);
	c->atts = atts;
	c->natts = natts;
	view_mark(c);
	buf_adds(c->out, "end of the content of part ");
	view_safe_str(c->out, name);
	buf_addc(c->out, '\n');
}

static void
view_part(struct view_ctx *c, struct mime_part *p)
{
	struct mime_part	*child, *in;

	view_status(c, p);
	if (c->inner != NULL && (in = c->inner(p, c->arg)) != NULL) {
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
		if (p->flags & MIME_PART_CUT)
			view_line(c, "(more parts not shown: a message may "
			    "hold at most %d)", MIME_MAX_PARTS);
		return;
	}
	if (view_is_text(p)) {
		view_text(c, p);
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
	struct buf		 d;
	size_t			 i;
	int			 flags;

	if (c->natts == 0)
		return;
	view_line(c, "attachments:");
	for (i = 0; i < c->natts; i++) {
		p = c->atts[i];
		buf_init(&d);
		flags = mime_body_decode(p, &d);
		view_mark(c);
		buf_adds(c->out, "  ");
		view_safe_str(c->out, p->section);
		buf_adds(c->out, "  ");
		view_safe_str(c->out, p->type);
		buf_addc(c->out, '/');
		view_safe_str(c->out, p->subtype);
		buf_adds(c->out, "  ");
		view_size(c->out, d.len);
		if (p->filename != NULL) {
			buf_adds(c->out, "  \"");
			view_safe_str(c->out, p->filename);
			buf_addc(c->out, '"');
		}
		if (mime_part_is(p, "text", "html"))
			buf_adds(c->out, "  (HTML, not shown)");
		if (flags & MIME_CTE_UNKNOWN)
			buf_adds(c->out, "  (unknown transfer encoding)");
		else if (flags & (MIME_CTE_TRUNCATED | MIME_CTE_NO_PADDING))
			buf_adds(c->out, "  (base64 data ends early)");
		if (p->flags & MIME_PART_BAD_HEADER)
			buf_adds(c->out, "  (too many header fields)");
		buf_addc(c->out, '\n');
		buf_free(&d);
	}
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
	struct view_ctx	c;
	size_t		i;

	memset(&c, 0, sizeof c);
	c.out = out;
	c.status = h->status;
	c.inner = h->inner;
	c.arg = h->arg;
	if (m->len == 0) {
		view_line(&c, "(empty message)");
		return;
	}
	view_header_block(&c, &m->root->header, h->headers);
	buf_addc(out, '\n');
	for (i = 0; i < h->nnotes; i++) {
		view_mark(&c);
		view_safe_str(out, h->notes[i]);
		buf_addc(out, '\n');
	}
	view_part(&c, m->root);
	view_attachments(&c);
	if (m->cut)
		view_line(&c, "note: the message has more than %d parts; the "
		    "rest are not shown", MIME_MAX_PARTS);
	free(c.atts);
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
