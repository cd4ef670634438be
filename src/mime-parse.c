/*
 * mime-parse.c: a raw message into a tree of MIME parts (see
 * mime-parse.h). Called by the view, and later by the pager and the
 * crypto code. It must never crash, hang or read out of bounds on any
 * input, and must never print.
 *
 * libetpan's mailmime_parse() is not used to build the tree, because on
 * hostile input it fails in ways a pre-check cannot prevent without
 * parsing the structure anyway (see doc/mime.md): it recurses once per
 * nesting level with no limit (a few megabytes of nested message/rfc822
 * parts overflow the stack), every level rescans everything below it
 * (quadratic time), mailmime_extract_boundary() writes out of bounds for
 * the boundary value "\"", and a delimiter matches any line that merely
 * starts with it. So the tree walk is done here: one level at a time, depth
 * capped at MIME_MAX_DEPTH, parts capped at MIME_MAX_PARTS, delimiters
 * matched exactly, each level's body scanned once.
 *
 * libetpan still reads what it is good at, one header value at a time:
 * Content-Type (mailmime_content_parse), Content-Transfer-Encoding
 * (mailmime_encoding_parse) and Content-Disposition
 * (mailmime_disposition_parse). Those parsers recurse once per nested
 * comment, so a value only reaches them after mime_header_parsable() has
 * checked its length, its number of '(' and that it holds no NUL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libetpan/libetpan.h>

#include "mime-parse.h"
#include "xmalloc.h"

/* Boundaries longer than this are not believed (RFC 2046 allows 70). */
#define MIME_BOUNDARY_MAX	200

enum {
	MIME_DEFAULT_TEXT,	/* text/plain; charset=us-ascii */
	MIME_DEFAULT_MESSAGE	/* message/rfc822, in multipart/digest */
};

static struct mime_part *mime_parse_entity(struct mime_msg *,
	    struct mime_part *, const char *, size_t, int, const char *, int,
	    int);

static char *
mime_parse_lower(const char *s)
{
	char	*l, *p;

	l = xstrdup(s);
	for (p = l; *p != '\0'; p++) {
		if (*p >= 'A' && *p <= 'Z')
			*p = *p - 'A' + 'a';
	}
	return l;
}

static void
mime_parse_add_param(struct rfc2231_param **list, size_t *n,
    const char *name, const char *value)
{
	if (name == NULL || value == NULL)
		return;
	*list = xreallocarray(*list, *n + 1, sizeof **list);
	(*list)[*n].name = xstrdup(name);
	(*list)[*n].value = xstrdup(value);
	(*n)++;
}

/* The type and subtype names libetpan parsed, or NULL. */
static const char *
mime_parse_type_name(struct mailmime_type *t)
{
	struct mailmime_discrete_type	*d;
	struct mailmime_composite_type	*c;

	if (t == NULL)
		return NULL;
	if (t->tp_type == MAILMIME_TYPE_DISCRETE_TYPE) {
		if ((d = t->tp_data.tp_discrete_type) == NULL)
			return NULL;
		switch (d->dt_type) {
		case MAILMIME_DISCRETE_TYPE_TEXT:	 return "text";
		case MAILMIME_DISCRETE_TYPE_IMAGE:	 return "image";
		case MAILMIME_DISCRETE_TYPE_AUDIO:	 return "audio";
		case MAILMIME_DISCRETE_TYPE_VIDEO:	 return "video";
		case MAILMIME_DISCRETE_TYPE_APPLICATION: return "application";
		case MAILMIME_DISCRETE_TYPE_EXTENSION:	 return d->dt_extension;
		}
		return NULL;
	}
	if (t->tp_type == MAILMIME_TYPE_COMPOSITE_TYPE) {
		if ((c = t->tp_data.tp_composite_type) == NULL)
			return NULL;
		switch (c->ct_type) {
		case MAILMIME_COMPOSITE_TYPE_MESSAGE:	return "message";
		case MAILMIME_COMPOSITE_TYPE_MULTIPART:	return "multipart";
		case MAILMIME_COMPOSITE_TYPE_EXTENSION:	return c->ct_token;
		}
	}
	return NULL;
}

/* Content-Type; RFC 2045 section 5.2 says what a missing one means. */
static void
mime_parse_type(struct mime_part *p, int deftype)
{
	struct mailmime_content		*ct = NULL;
	struct mailmime_parameter	*pa;
	clistiter			*it;
	const char			*type;
	char				*v;
	size_t				 len, idx = 0;

	if ((v = mime_header_get(&p->header, "content-type", &len)) != NULL) {
		if (!mime_header_parsable(v, len) ||
		    mailmime_content_parse(v, len, &idx, &ct) !=
		    MAILIMF_NO_ERROR)
			ct = NULL;
		if (ct != NULL && ((type = mime_parse_type_name(ct->ct_type)) ==
		    NULL || *type == '\0' || ct->ct_subtype == NULL ||
		    *ct->ct_subtype == '\0')) {
			mailmime_content_free(ct);
			ct = NULL;
		}
		if (ct == NULL) {
			p->flags |= MIME_PART_BAD_TYPE;
			deftype = MIME_DEFAULT_TEXT;
		}
		free(v);
	}
	if (ct == NULL) {
		if (deftype == MIME_DEFAULT_MESSAGE) {
			p->type = xstrdup("message");
			p->subtype = xstrdup("rfc822");
		} else {
			p->type = xstrdup("text");
			p->subtype = xstrdup("plain");
		}
		return;
	}
	p->type = mime_parse_lower(mime_parse_type_name(ct->ct_type));
	p->subtype = mime_parse_lower(ct->ct_subtype);
	if (ct->ct_parameters != NULL) {
		for (it = clist_begin(ct->ct_parameters); it != NULL;
		    it = clist_next(it)) {
			if ((pa = clist_content(it)) == NULL)
				continue;
			mime_parse_add_param(&p->params, &p->nparams,
			    pa->pa_name, pa->pa_value);
		}
	}
	mailmime_content_free(ct);
	p->charset = rfc2231_get(p->params, p->nparams, "charset", NULL);
}

static void
mime_parse_cte(struct mime_part *p)
{
	struct mailmime_mechanism	*m = NULL;
	char				*v;
	size_t				 len, idx = 0;

	p->cte = MIME_CTE_7BIT;
	if ((v = mime_header_get(&p->header, "content-transfer-encoding",
	    &len)) == NULL)
		return;
	if (!mime_header_parsable(v, len) ||
	    mailmime_encoding_parse(v, len, &idx, &m) != MAILIMF_NO_ERROR)
		m = NULL;
	p->cte = MIME_CTE_OTHER;
	if (m != NULL) {
		switch (m->enc_type) {
		case MAILMIME_MECHANISM_7BIT:
			p->cte = MIME_CTE_7BIT;
			break;
		case MAILMIME_MECHANISM_8BIT:
			p->cte = MIME_CTE_8BIT;
			break;
		case MAILMIME_MECHANISM_BINARY:
			p->cte = MIME_CTE_BINARY;
			break;
		case MAILMIME_MECHANISM_QUOTED_PRINTABLE:
			p->cte = MIME_CTE_QP;
			break;
		case MAILMIME_MECHANISM_BASE64:
			p->cte = MIME_CTE_BASE64;
			break;
		case MAILMIME_MECHANISM_TOKEN:
			if (m->enc_token != NULL)
				p->cte = mime_cte_from_name(m->enc_token);
			break;
		}
		mailmime_mechanism_free(m);
	}
	if (p->cte == MIME_CTE_OTHER)
		p->cte_name = xstrndup(v, 64);
	free(v);
}

static void
mime_parse_disposition(struct mime_part *p)
{
	struct mailmime_disposition		*d = NULL;
	struct mailmime_disposition_parm	*dp;
	clistiter				*it;
	char					*v, size[32];
	size_t					 len, idx = 0;

	if ((v = mime_header_get(&p->header, "content-disposition",
	    &len)) == NULL)
		return;
	if (!mime_header_parsable(v, len) ||
	    mailmime_disposition_parse(v, len, &idx, &d) != MAILIMF_NO_ERROR)
		d = NULL;
	free(v);
	if (d == NULL) {
		p->disposition = MIME_DISP_OTHER;
		return;
	}
	p->disposition = MIME_DISP_OTHER;
	if (d->dsp_type != NULL) {
		if (d->dsp_type->dsp_type == MAILMIME_DISPOSITION_TYPE_INLINE)
			p->disposition = MIME_DISP_INLINE;
		else if (d->dsp_type->dsp_type ==
		    MAILMIME_DISPOSITION_TYPE_ATTACHMENT)
			p->disposition = MIME_DISP_ATTACHMENT;
	}
	for (it = d->dsp_parms == NULL ? NULL : clist_begin(d->dsp_parms);
	    it != NULL; it = clist_next(it)) {
		if ((dp = clist_content(it)) == NULL)
			continue;
		switch (dp->pa_type) {
		case MAILMIME_DISPOSITION_PARM_FILENAME:
			mime_parse_add_param(&p->dparams, &p->ndparams,
			    "filename", dp->pa_data.pa_filename);
			break;
		case MAILMIME_DISPOSITION_PARM_SIZE:
			snprintf(size, sizeof size, "%zu",
			    dp->pa_data.pa_size);
			mime_parse_add_param(&p->dparams, &p->ndparams,
			    "size", size);
			break;
		case MAILMIME_DISPOSITION_PARM_PARAMETER:
			if (dp->pa_data.pa_parameter == NULL)
				break;
			mime_parse_add_param(&p->dparams, &p->ndparams,
			    dp->pa_data.pa_parameter->pa_name,
			    dp->pa_data.pa_parameter->pa_value);
			break;
		default:	/* dates: of no use here */
			break;
		}
	}
	mailmime_disposition_free(d);
}

/* The boundary parameter, if it is one we can use. */
static const char *
mime_parse_boundary(const struct mime_part *p)
{
	const char	*b = NULL;
	size_t		 i, len;

	for (i = 0; i < p->nparams; i++) {
		if (strcasecmp(p->params[i].name, "boundary") == 0) {
			b = p->params[i].value;
			break;
		}
	}
	if (b == NULL)
		return NULL;
	len = strlen(b);
	if (len == 0 || len > MIME_BOUNDARY_MAX || strpbrk(b, "\r\n") != NULL)
		return NULL;
	return b;
}

/*
 * Is there a delimiter line ("--boundary", or "--boundary--" if *close)
 * starting at s? Only white space may follow it on its line (RFC 2046
 * section 5.1.1). *after is where the next line starts.
 */
static int
mime_parse_is_delim(const char *b, size_t len, size_t s, const char *bnd,
    size_t blen, size_t *after, int *close)
{
	size_t	k;

	if (s > 0 && b[s - 1] != '\n')
		return 0;
	if (len - s < 2 + blen || b[s] != '-' || b[s + 1] != '-' ||
	    memcmp(b + s + 2, bnd, blen) != 0)
		return 0;
	k = s + 2 + blen;
	*close = 0;
	if (len - k >= 2 && b[k] == '-' && b[k + 1] == '-') {
		*close = 1;
		k += 2;
	}
	while (k < len && (b[k] == ' ' || b[k] == '\t'))
		k++;
	if (k < len && b[k] == '\r' && k + 1 < len && b[k + 1] == '\n')
		k++;
	if (k < len && b[k] != '\n')
		return 0;
	*after = k < len ? k + 1 : len;
	return 1;
}

/* Find the next delimiter line starting at or after pos. */
static int
mime_parse_find_delim(const char *b, size_t len, size_t pos, const char *bnd,
    size_t blen, size_t *start, size_t *after, int *close)
{
	const char	*q;

	if (mime_parse_is_delim(b, len, pos, bnd, blen, after, close)) {
		*start = pos;
		return 1;
	}
	/*
	 * memchr, not memmem: a sanitizer's memmem checks the whole rest of
	 * the buffer on every call, which makes a million near-delimiters
	 * quadratic.
	 */
	while (pos < len) {
		if ((q = memchr(b + pos, '\n', len - pos)) == NULL)
			return 0;
		pos = q - b + 1;
		if (mime_parse_is_delim(b, len, pos, bnd, blen, after, close)) {
			*start = pos;
			return 1;
		}
	}
	return 0;
}

static void
mime_parse_multipart(struct mime_msg *m, struct mime_part *p)
{
	const char		*bnd, *b = p->body;
	size_t			 blen, len = p->bodylen, start, after, begin;
	size_t			 end, n = 0;
	int			 close, deftype;
	char			*section;
	struct mime_part	*c;

	if ((bnd = mime_parse_boundary(p)) == NULL) {
		p->flags |= MIME_PART_NO_BOUNDARY;
		return;
	}
	blen = strlen(bnd);
	deftype = strcmp(p->subtype, "digest") == 0 ?
	    MIME_DEFAULT_MESSAGE : MIME_DEFAULT_TEXT;
	if (!mime_parse_find_delim(b, len, 0, bnd, blen, &start, &after,
	    &close) || close) {
		p->flags |= MIME_PART_NO_PARTS;
		return;
	}
	for (;;) {
		begin = after;
		if (!mime_parse_find_delim(b, len, begin, bnd, blen, &start,
		    &after, &close)) {
			p->flags |= MIME_PART_UNCLOSED;
			end = len;
		} else {
			/* The line break before a delimiter belongs to it. */
			end = start;
			if (end > begin && b[end - 1] == '\n')
				end--;
			if (end > begin && b[end - 1] == '\r')
				end--;
		}
		if (*p->section == '\0')
			section = xasprintf("%zu", ++n);
		else
			section = xasprintf("%s.%zu", p->section, ++n);
		c = mime_parse_entity(m, p, b + begin, end - begin,
		    p->depth + 1, section, 0, deftype);
		free(section);
		if (c == NULL) {
			p->flags |= MIME_PART_CUT;
			return;
		}
		if ((p->flags & MIME_PART_UNCLOSED) || close)
			return;
	}
}

static struct mime_part *
mime_parse_entity(struct mime_msg *m, struct mime_part *parent,
    const char *raw, size_t len, int depth, const char *section, int msgbody,
    int deftype)
{
	struct mime_part	*p;
	size_t			 off;

	if (m->nparts >= MIME_MAX_PARTS) {
		m->cut = 1;
		return NULL;
	}
	m->nparts++;
	p = xcalloc(1, sizeof *p);
	TAILQ_INIT(&p->children);
	p->parent = parent;
	p->depth = depth;
	p->section = xstrdup(section);
	p->raw = raw;
	p->rawlen = len;
	if (parent != NULL) {
		TAILQ_INSERT_TAIL(&parent->children, p, entry);
		parent->nchildren++;
	}

	off = mime_header_parse(&p->header, raw, len, parent == NULL);
	if (p->header.truncated)
		p->flags |= MIME_PART_BAD_HEADER;
	p->body = raw + off;
	p->bodylen = len - off;
	mime_parse_type(p, deftype);
	/*
	 * IMAP numbering: a multipart takes no number of its own (its parts
	 * are 1, 2, ...), and the body of a message that is not multipart
	 * is part 1 of that message.
	 */
	if (msgbody && strcmp(p->type, "multipart") != 0) {
		free(p->section);
		p->section = *section == '\0' ? xstrdup("1") :
		    xasprintf("%s.1", section);
	}
	mime_parse_cte(p);
	mime_parse_disposition(p);
	p->filename = rfc2231_get(p->dparams, p->ndparams, "filename", NULL);
	if (p->filename == NULL)
		p->filename = rfc2231_get(p->params, p->nparams, "name", NULL);

	if (strcmp(p->type, "multipart") == 0) {
		if (depth >= MIME_MAX_DEPTH)
			p->flags |= MIME_PART_TOO_DEEP;
		else
			mime_parse_multipart(m, p);
	} else if (strcmp(p->type, "message") == 0 &&
	    (strcmp(p->subtype, "rfc822") == 0 ||
	    strcmp(p->subtype, "global") == 0) &&
	    (p->cte == MIME_CTE_7BIT || p->cte == MIME_CTE_8BIT ||
	    p->cte == MIME_CTE_BINARY)) {
		if (depth >= MIME_MAX_DEPTH)
			p->flags |= MIME_PART_TOO_DEEP;
		else if (mime_parse_entity(m, p, p->body, p->bodylen,
		    depth + 1, p->section, 1, MIME_DEFAULT_TEXT) == NULL)
			p->flags |= MIME_PART_CUT;
	}

	return p;
}

struct mime_msg *
mime_parse(char *buf, size_t len, char **cause)
{
	struct mime_msg	*m;

	if (len > MIME_MAX_SIZE) {
		free(buf);
		*cause = xasprintf("message too large (%zu bytes, the limit "
		    "is %lu)", len, MIME_MAX_SIZE);
		return NULL;
	}
	m = xcalloc(1, sizeof *m);
	m->buf = buf;
	m->len = len;
	if (m->buf == NULL)
		m->buf = xstrdup("");
	m->root = mime_parse_entity(m, NULL, m->buf, len, 0, "", 1,
	    MIME_DEFAULT_TEXT);
	return m;
}

struct mime_msg *
mime_parse_copy(const char *buf, size_t len, char **cause)
{
	char	*copy;

	if (len > MIME_MAX_SIZE) {
		*cause = xasprintf("message too large (%zu bytes, the limit "
		    "is %lu)", len, MIME_MAX_SIZE);
		return NULL;
	}
	copy = xmalloc(len + 1);
	if (len > 0)
		memcpy(copy, buf, len);
	copy[len] = '\0';
	return mime_parse(copy, len, cause);
}

static void
mime_part_free(struct mime_part *p)
{
	struct mime_part	*c;
	size_t			 i;

	while ((c = TAILQ_FIRST(&p->children)) != NULL) {
		TAILQ_REMOVE(&p->children, c, entry);
		mime_part_free(c);
	}
	for (i = 0; i < p->nparams; i++) {
		free(p->params[i].name);
		free(p->params[i].value);
	}
	for (i = 0; i < p->ndparams; i++) {
		free(p->dparams[i].name);
		free(p->dparams[i].value);
	}
	free(p->params);
	free(p->dparams);
	mime_header_free(&p->header);
	free(p->section);
	free(p->type);
	free(p->subtype);
	free(p->charset);
	free(p->cte_name);
	free(p->filename);
	free(p);
}

void
mime_msg_free(struct mime_msg *m)
{
	if (m == NULL)
		return;
	if (m->root != NULL)
		mime_part_free(m->root);
	free(m->buf);
	free(m);
}

struct mime_part *
mime_part_next(struct mime_part *p)
{
	if (!TAILQ_EMPTY(&p->children))
		return TAILQ_FIRST(&p->children);
	while (p != NULL) {
		if (TAILQ_NEXT(p, entry) != NULL)
			return TAILQ_NEXT(p, entry);
		p = p->parent;
	}
	return NULL;
}

struct mime_part *
mime_msg_section(struct mime_msg *m, const char *section)
{
	struct mime_part	*p;

	for (p = m->root; p != NULL; p = mime_part_next(p)) {
		if (strcmp(p->section, section) == 0)
			return p;
	}
	return NULL;
}

int
mime_part_is(const struct mime_part *p, const char *type,
    const char *subtype)
{
	if (strcmp(p->type, type) != 0)
		return 0;
	return subtype == NULL || strcmp(p->subtype, subtype) == 0;
}

char *
mime_part_param(const struct mime_part *p, const char *name)
{
	return rfc2231_get(p->params, p->nparams, name, NULL);
}
