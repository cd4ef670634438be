/*
 * draft.c: the draft (draft.h) and how one starts: empty, or from an
 * opened message as a reply, a group reply or a forward. It reads the
 * message through mime-parse and crypto-in (what the message model will
 * hand it later) and decides what of it the draft may carry: the thread's
 * message IDs, the recipients, the subject, and the text under the
 * quoting rule of draft.h. Callers: ui/cli-send.c, later the composer.
 * Never prints, never touches the network.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr-list.h"
#include "addr.h"
#include "buf.h"
#include "crypto-in.h"
#include "draft.h"
#include "message.h"
#include "mime-build.h"
#include "mime-body.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "rfc2047.h"
#include "xmalloc.h"

#define DRAFT_REFS_MAX		30	/* message IDs kept in References */
#define DRAFT_ID_MAX		900	/* longer IDs fit on no header line */
#define DRAFT_QUOTE_MAX		(1024 * 1024)	/* text quoted, at most */
#define DRAFT_QUOTE_DEPTH	16	/* parts inside parts walked */

struct draft *
draft_new(const struct account *a)
{
	struct draft	*d;

	d = xcalloc(1, sizeof *d);
	d->a = a;
	return d;
}

static void
draft_strv_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
draft_free(struct draft *d)
{
	size_t	i;

	if (d == NULL)
		return;
	draft_strv_free(d->to, d->nto);
	draft_strv_free(d->cc, d->ncc);
	draft_strv_free(d->bcc, d->nbcc);
	draft_strv_free(d->attach, d->nattach);
	free(d->subject);
	free(d->body);
	for (i = 0; i < d->nblobs; i++) {
		free(d->blobs[i].name);
		free(d->blobs[i].type);
		free(d->blobs[i].data);
	}
	free(d->blobs);
	free(d->in_reply_to);
	free(d->references);
	free(d);
}

static void
draft_push(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

void
draft_add(struct draft *d, enum draft_field f, const char *addr)
{
	switch (f) {
	case DRAFT_TO:
		draft_push(&d->to, &d->nto, addr);
		break;
	case DRAFT_CC:
		draft_push(&d->cc, &d->ncc, addr);
		break;
	case DRAFT_BCC:
		draft_push(&d->bcc, &d->nbcc, addr);
		break;
	}
}

void
draft_set_subject(struct draft *d, const char *s)
{
	free(d->subject);
	d->subject = s != NULL ? xstrdup(s) : NULL;
}

void
draft_set_body(struct draft *d, char *body)
{
	free(d->body);
	d->body = body;
}

void
draft_attach(struct draft *d, const char *path)
{
	draft_push(&d->attach, &d->nattach, path);
}

void
draft_attach_data(struct draft *d, const char *name, const char *type,
    const void *data, size_t len)
{
	struct draft_blob	*b;

	d->blobs = xreallocarray(d->blobs, d->nblobs + 1, sizeof *d->blobs);
	b = &d->blobs[d->nblobs++];
	b->name = name != NULL ? xstrdup(name) : NULL;
	b->type = xstrdup(type);
	b->data = xmalloc(len + 1);
	memcpy(b->data, data, len);
	b->data[len] = '\0';
	b->len = len;
}

static struct mime_addr *
draft_mime_addrs(char **v, size_t n)
{
	struct mime_addr	*a;
	size_t			 i;

	a = xcalloc(n + 1, sizeof *a);
	for (i = 0; i < n; i++)
		a[i].addr = v[i];
	return a;
}

void
draft_mime(const struct draft *d, struct mime_out *m)
{
	struct mime_blob	*b;
	size_t			 i;

	memset(m, 0, sizeof *m);
	m->from.name = d->a->name;
	m->from.addr = d->a->address;
	m->to = draft_mime_addrs(d->to, d->nto);
	m->nto = d->nto;
	m->cc = draft_mime_addrs(d->cc, d->ncc);
	m->ncc = d->ncc;
	m->bcc = draft_mime_addrs(d->bcc, d->nbcc);
	m->nbcc = d->nbcc;
	m->subject = d->subject;
	m->body = d->body != NULL ? d->body : "";
	m->attachments = (const char * const *)d->attach;
	m->nattachments = d->nattach;
	b = xcalloc(d->nblobs + 1, sizeof *b);
	for (i = 0; i < d->nblobs; i++) {
		b[i].name = d->blobs[i].name;
		b[i].type = d->blobs[i].type;
		b[i].data = d->blobs[i].data;
		b[i].len = d->blobs[i].len;
	}
	m->blobs = b;
	m->nblobs = d->nblobs;
	m->in_reply_to = d->in_reply_to;
	m->references = d->references;
}

void
draft_mime_free(struct mime_out *m)
{
	free((void *)m->to);
	free((void *)m->cc);
	free((void *)m->bcc);
	free((void *)m->blobs);
	memset(m, 0, sizeof *m);
}

const char *
draft_bad_addr(const struct draft *d, enum draft_field *f)
{
	char * const	*v[3] = { d->to, d->cc, d->bcc };
	size_t		 n[3] = { d->nto, d->ncc, d->nbcc };
	size_t		 l, i;

	for (l = 0; l < 3; l++) {
		for (i = 0; i < n[l]; i++) {
			if (strpbrk(v[l][i], "\r\n") != NULL ||
			    !addr_valid(v[l][i])) {
				*f = (enum draft_field)l;
				return v[l][i];
			}
		}
	}
	return NULL;
}

/*
 * The message IDs ("<...>") in a header value, appended to v; anything
 * else (comments, junk) is dropped.
 */
static void
draft_ids(const char *s, char ***v, size_t *n)
{
	const char	*p, *e;
	size_t		 len;

	while (s != NULL && (p = strchr(s, '<')) != NULL) {
		for (e = p + 1; *e > ' ' && *e < 0x7f && *e != '<' &&
		    *e != '>'; e++)
			;
		len = e - p + 1;
		if (*e == '>' && e > p + 1 && len <= DRAFT_ID_MAX) {
			*v = xreallocarray(*v, *n + 1, sizeof **v);
			(*v)[(*n)++] = xstrndup(p, len);
		}
		s = *e == '>' ? e + 1 : e;
	}
}

/*
 * In-Reply-To and References from m's Message-ID and References (RFC
 * 5322 3.6.4); a long thread keeps its first message and the latest.
 */
static void
draft_thread(struct draft *d, const struct mime_header *h)
{
	struct buf	  refs;
	char		**ids = NULL, **own = NULL, *v;
	size_t		  nids = 0, nown = 0, i;

	v = mime_header_get(h, "Message-ID", NULL);
	draft_ids(v, &own, &nown);
	free(v);
	v = mime_header_get(h, "References", NULL);
	draft_ids(v, &ids, &nids);
	free(v);
	if (nids == 0) {
		v = mime_header_get(h, "In-Reply-To", NULL);
		draft_ids(v, &ids, &nids);
		free(v);
		/* Only one ID there says which message it replied to. */
		for (i = 1; i < nids; i++)
			free(ids[i]);
		nids = nids > 1 ? 1 : nids;
	}
	free(d->in_reply_to);
	d->in_reply_to = NULL;
	if (nown > 0) {
		ids = xreallocarray(ids, nids + 1, sizeof *ids);
		ids[nids++] = xstrdup(own[0]);
		d->in_reply_to = xstrdup(own[0]);
	}
	buf_init(&refs);
	for (i = 0; i < nids; i++) {
		if (i == 0 || i + DRAFT_REFS_MAX - 1 >= nids)
			buf_addf(&refs, "%s%s", refs.len > 0 ? " " : "",
			    ids[i]);
	}
	draft_strv_free(ids, nids);
	draft_strv_free(own, nown);
	free(d->references);
	d->references = refs.len > 0 ? buf_take(&refs) : NULL;
	buf_free(&refs);
}

/*
 * Is there encrypted content anywhere in m? crypto-in's verdict on the
 * top, and, since it opens encryption only there, any encrypted part
 * below it too: a reply to mail that had anything encrypted in it must
 * not be sent in clear.
 */
static int
draft_was_encrypted(struct mime_msg *m, const struct crypto_in *ci)
{
	static const char	 armor[] = "-----BEGIN PGP MESSAGE-----";
	struct mime_part	*p;
	struct buf		 body;
	char			*st;
	size_t			 i;
	int			 yes;

	yes = ci->encryption != CRYPTO_IN_NONE;
	for (i = 0; i < ci->nparts; i++)
		yes |= ci->parts[i].decrypted;
	for (p = m->root; p != NULL && !yes; p = mime_part_next(p)) {
		if (mime_part_is(p, "multipart", "encrypted") ||
		    mime_part_is(p, "application", "pgp-encrypted"))
			yes = 1;
		else if (mime_part_is(p, "application", "pkcs7-mime") ||
		    mime_part_is(p, "application", "x-pkcs7-mime")) {
			st = mime_part_param(p, "smime-type");
			yes = st == NULL || (strcasecmp(st, "signed-data") &&
			    strcasecmp(st, "certs-only"));
			free(st);
		} else if (mime_part_is(p, "text", NULL)) {
			buf_init(&body);
			mime_body_decode(p, &body);
			yes = body.len > 0 && memmem(body.data, body.len,
			    armor, sizeof armor - 1) != NULL;
			buf_free(&body);
		}
	}
	return yes;
}

/* The header the reader saw: the protected one when there is one. */
static const struct mime_header *
draft_header(struct mime_msg *m, const struct crypto_in *ci)
{
	return ci->protected != NULL ? ci->protected : &m->root->header;
}

static const struct crypto_in_part *
draft_ci_part(const struct crypto_in *ci, const struct mime_part *p)
{
	size_t	i;

	for (i = 0; i < ci->nparts; i++)
		if (ci->parts[i].part == p)
			return &ci->parts[i];
	return NULL;
}

/*
 * The text of p as the reader saw it, into out, with prefix before each
 * line: the content shown in a part's place is followed, except
 * plaintext decrypted anywhere but at the top of the message (top).
 */
static void
draft_text(const struct crypto_in *ci, const struct mime_part *p,
    const struct mime_part *top, const char *prefix, struct buf *out,
    int depth)
{
	const struct crypto_in_part	*cp;
	struct mime_part		*c;
	struct buf			 t;
	char				*note, *line, *end, *name;

	if (depth > DRAFT_QUOTE_DEPTH || out->len > DRAFT_QUOTE_MAX)
		return;
	if ((cp = draft_ci_part(ci, p)) != NULL && cp->inner != NULL) {
		if (cp->decrypted && p != top) {
			name = crypto_in_name(ci, p);
			buf_addf(out, "%s[encrypted part %s, decrypted for "
			    "reading only: not quoted]\n", prefix, name);
			free(name);
			return;
		}
		draft_text(ci, cp->inner->root, top, prefix, out, depth + 1);
		return;
	}
	if (mime_part_is(p, "multipart", "alternative")) {
		TAILQ_FOREACH(c, &p->children, entry) {
			if (mime_part_is(c, "text", "plain")) {
				draft_text(ci, c, top, prefix, out, depth + 1);
				return;
			}
		}
		return;
	}
	if (mime_part_is(p, "multipart", NULL)) {
		TAILQ_FOREACH(c, &p->children, entry)
			draft_text(ci, c, top, prefix, out, depth + 1);
		return;
	}
	if (!mime_part_is(p, "text", "plain") ||
	    p->disposition == MIME_DISP_ATTACHMENT)
		return;
	buf_init(&t);
	mime_body_text(p, DRAFT_QUOTE_MAX, &t, &note);
	free(note);
	buf_addc(&t, '\0');
	for (line = t.data; *line != '\0'; line = end + (*end != '\0')) {
		end = line + strcspn(line, "\n");
		buf_addf(out, "%s%.*s\n", prefix, (int)(end - line), line);
	}
	buf_free(&t);
}

/* A header value as UTF-8 text, for the body; "" when missing. */
static char *
draft_decoded(const struct mime_header *h, const char *name)
{
	char	*v, *d;

	if ((v = mime_header_get(h, name, NULL)) == NULL)
		return xstrdup("");
	d = rfc2047_decode_str(v);
	free(v);
	return d;
}

/* prefix and subject, unless it already starts with prefix. */
static void
draft_subject(struct draft *d, const struct mime_header *h,
    const char *prefix)
{
	char	*s;

	s = draft_decoded(h, "Subject");
	free(d->subject);
	if (strncasecmp(s, prefix, strlen(prefix)) == 0)
		d->subject = s;
	else {
		d->subject = xasprintf("%s %s", prefix, s);
		free(s);
	}
}

/* Add to f each address of v not already in the draft nor the sender. */
static void
draft_add_new(struct draft *d, enum draft_field f, char **v, size_t n)
{
	char * const	*lists[3] = { d->to, d->cc, d->bcc };
	size_t		 counts[3], l, i, j;
	int		 seen;

	for (i = 0; i < n; i++) {
		counts[0] = d->nto;
		counts[1] = d->ncc;
		counts[2] = d->nbcc;
		lists[0] = d->to;
		lists[1] = d->cc;
		lists[2] = d->bcc;
		seen = d->a != NULL && addr_list_same(v[i], d->a->address);
		for (l = 0; l < 3 && !seen; l++)
			for (j = 0; j < counts[l] && !seen; j++)
				seen = addr_list_same(v[i], lists[l][j]);
		if (!seen && addr_valid(v[i]))
			draft_add(d, f, v[i]);
	}
}

static int
draft_reply_ci(struct draft *d, struct mime_msg *m, struct crypto_in *ci,
    int flags)
{
	const struct mime_header	*h;
	struct buf			 body;
	char				**v = NULL, *from;
	size_t				  n = 0;

	h = draft_header(m, ci);
	draft_thread(d, &m->root->header);
	d->from_encrypted = draft_was_encrypted(m, ci);
	if (flags & DRAFT_KEEP)
		goto quote;
	draft_subject(d, h, "Re:");
	addr_list_get(h, "Reply-To", &v, &n);
	if (n == 0)
		addr_list_get(h, "From", &v, &n);
	draft_add_new(d, DRAFT_TO, v, n);
	addr_list_free(v, n);
	if (flags & DRAFT_GROUP) {
		v = NULL;
		n = 0;
		addr_list_get(h, "To", &v, &n);
		addr_list_get(h, "Cc", &v, &n);
		draft_add_new(d, DRAFT_CC, v, n);
		addr_list_free(v, n);
	}
quote:
	if (flags & DRAFT_QUOTE) {
		buf_init(&body);
		from = draft_decoded(h, "From");
		buf_addf(&body, "%s wrote:\n", *from != '\0' ? from :
		    "somebody");
		free(from);
		draft_text(ci, m->root, m->root, "> ", &body, 0);
		if (d->body != NULL)
			buf_addf(&body, "\n%s", d->body);
		draft_set_body(d, buf_take(&body));
		buf_free(&body);
	}
	return 0;
}

int
draft_reply(struct draft *d, struct mime_msg *m, int flags, char **cause)
{
	struct crypto_in	*ci;
	int			 rc;

	(void)cause;
	ci = crypto_in_analyse(m, 0);
	rc = draft_reply_ci(d, m, ci, flags);
	crypto_in_free(ci);
	return rc;
}

int
draft_reply_opened(struct draft *d, const struct message *msg, int flags,
    char **cause)
{
	(void)cause;
	return draft_reply_ci(d, msg->mime, msg->ci, flags);
}

static int
draft_forward_ci(struct draft *d, struct mime_msg *m, struct crypto_in *ci,
    const char *raw, size_t len, int flags)
{
	static const char	*fields[] = { "From", "Date", "Subject", "To",
				    "Cc" };
	const struct mime_header *h;
	struct buf		 body;
	char			*v;
	size_t			 i;

	h = draft_header(m, ci);
	d->from_encrypted = draft_was_encrypted(m, ci);
	d->forwarding = 1;
	draft_subject(d, h, "Fwd:");
	if (flags & DRAFT_INLINE) {
		buf_init(&body);
		if (d->body != NULL)
			buf_addf(&body, "%s\n", d->body);
		buf_adds(&body, "---------- Forwarded message ----------\n");
		for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
			v = draft_decoded(h, fields[i]);
			if (*v != '\0')
				buf_addf(&body, "%s: %s\n", fields[i], v);
			free(v);
		}
		buf_addc(&body, '\n');
		draft_text(ci, m->root, m->root, "", &body, 0);
		draft_set_body(d, buf_take(&body));
		buf_free(&body);
	} else
		draft_attach_data(d, "forwarded.eml", "message/rfc822", raw,
		    len);
	return 0;
}

int
draft_forward(struct draft *d, struct mime_msg *m, const char *raw,
    size_t len, int flags, char **cause)
{
	struct crypto_in	*ci;
	int			 rc;

	(void)cause;
	ci = crypto_in_analyse(m, 0);
	rc = draft_forward_ci(d, m, ci, raw, len, flags);
	crypto_in_free(ci);
	return rc;
}

int
draft_forward_opened(struct draft *d, const struct message *msg, int flags,
    char **cause)
{
	(void)cause;
	return draft_forward_ci(d, msg->mime, msg->ci, msg->mime->buf,
	    msg->mime->len, flags);
}

/* Does the line at p (up to its newline) end with "wrote:"? */
static int
draft_attribution(const char *p, size_t len)
{
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\r'))
		len--;
	return len >= 6 && memcmp(p + len - 6, "wrote:", 6) == 0;
}

void
draft_unquote(struct draft *d)
{
	struct buf	 b;
	const char	*p = d->body != NULL ? d->body : "", *nl, *next;
	size_t		 len;
	int		 seen = 0;

	buf_init(&b);
	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		next = nl != NULL ? nl + 1 : p + len;
		if (*p == '>') {
			seen = 1;
			p = next;
			continue;
		}
		/* the attribution the reply started its quote with */
		if (!seen && *next == '>' && draft_attribution(p, len)) {
			p = next;
			continue;
		}
		buf_add(&b, p, (size_t)(next - p));
		p = next;
	}
	draft_set_body(d, b.data != NULL ? buf_take(&b) : xstrdup(""));
}
