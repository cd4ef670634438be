/*
 * tui-pager-lines.c: the lines the pager shows and their rows: from the
 * message's display model (or its raw header block, or its raw source),
 * each line with its role and the tone of its bar or margin, then cut
 * into rows of the screen's width. Called by tui-pager.c, which draws the
 * rows. It decides no verdict: the tones only follow the model's.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "crypto-in.h"
#include "message.h"
#include "mime-parse.h"
#include "strsafe.h"
#include "tui.h"
#include "tui-pager.h"
#include "xmalloc.h"

static void
pager_lines_add(struct pager_lines *p, enum view_role role, int quote, int inner,
    enum pager_tone tone, const char *text, int own)
{
	struct pager_src	*s;

	p->src = xreallocarray(p->src, p->nsrc + 1, sizeof *p->src);
	s = &p->src[p->nsrc++];
	s->role = role;
	s->quote = quote;
	s->inner = inner;
	s->tone = tone;
	s->sig = 0;
	s->text = text;
	s->own = own;
}

void
pager_lines_clear(struct pager_lines *p)
{
	size_t	i;

	for (i = 0; i < p->nsrc; i++) {
		if (p->src[i].own) {
			explicit_bzero((char *)p->src[i].text,
			    strlen(p->src[i].text));
			free((char *)p->src[i].text);
		}
	}
	free(p->src);
	free(p->rows);
	p->src = NULL;
	p->rows = NULL;
	p->nsrc = p->nrows = p->rowcap = 0;
	p->cols = 0;
}

static enum pager_tone
pager_lines_tone_of(enum message_protection prot)
{
	switch (prot) {
	case MESSAGE_SIGNED:
	case MESSAGE_ENCRYPTED:
	case MESSAGE_SIGNED_ENCRYPTED:
		return PAGER_GOOD;
	case MESSAGE_UNPROTECTED:
		return PAGER_BAD;
	default:
		return PAGER_WARN;
	}
}

/* How a part is protected: what is shown in its place, if anything. */
static enum message_protection
pager_lines_protection(const struct message *m, const struct mime_part *part,
    int *found)
{
	size_t	i;

	*found = 0;
	for (i = 0; i < m->nparts; i++) {
		if (m->parts[i].part != part)
			continue;
		*found = 1;
		if (i + 1 < m->nparts &&
		    m->parts[i + 1].depth > m->parts[i].depth &&
		    m->parts[i + 1].inner > m->parts[i].inner)
			return m->parts[i + 1].protection;
		return m->parts[i].protection;
	}
	return MESSAGE_CLEAR;
}

/* A signature on part that failed, or decryption that failed there. */
static int
pager_lines_part_bad(const struct message *m, const struct mime_part *part)
{
	const struct crypto_in	*ci = m->ci;
	size_t			 i;

	for (i = 0; i < ci->nsigs; i++) {
		if (ci->sigs[i].part == part &&
		    ci->sigs[i].status != CRYPTO_IN_GOOD)
			return 1;
	}
	for (i = 0; i < ci->nparts; i++) {
		if (ci->parts[i].part == part && ci->parts[i].no_integrity)
			return 1;
	}
	return 0;
}

/* The message as a whole: its first banner. */
static enum pager_tone
pager_lines_message_tone(const struct message *m)
{
	const struct crypto_in	*ci = m->ci;
	size_t			 i;
	int			 good = 0;

	for (i = 0; i < ci->nsigs; i++) {
		if (ci->sigs[i].status != CRYPTO_IN_GOOD)
			return PAGER_BAD;
		good = 1;
	}
	if (ci->integrity == CRYPTO_IN_INTEGRITY_FAILED ||
	    ci->integrity == CRYPTO_IN_INTEGRITY_NONE ||
	    (ci->encryption != CRYPTO_IN_NONE && !ci->decrypted))
		return PAGER_BAD;
	if (ci->decrypted || good)
		return PAGER_GOOD;
	return PAGER_WARN;
}

static enum pager_tone
pager_lines_verdict_tone(enum verdict_tone t)
{
	switch (t) {
	case VERDICT_GOOD:
		return PAGER_GOOD;
	case VERDICT_BAD:
		return PAGER_BAD;
	default:
		return PAGER_WARN;
	}
}

/*
 * The tone of view line l: its bar's colour, or the margin's inside. The
 * lines above the body are the message's own: in the brief model its
 * security line and the warning after it, in the details the protection
 * line, then the sender's trust line (top counts them).
 */
static enum pager_tone
pager_lines_tone(const struct pager_lines *p, const struct view_line *l,
    enum pager_tone inside, int top)
{
	const struct message	*m = p->msg;
	enum message_protection	 prot;
	enum verdict_tone	 t;
	char			*line, *warning;
	int			 found;

	if (l->part == NULL && (l->role == VIEW_BANNER || (l->role ==
	    VIEW_NOTE && p->mode != PAGER_DETAILS && top == 1))) {
		if (p->mode == PAGER_DETAILS && top == 1 && m->have_trust)
			return pager_lines_verdict_tone(
			    verdict_trust(m->trust.state)->tone);
		if (p->mode == PAGER_DETAILS)
			return pager_lines_message_tone(m);
		line = message_security(m, &t, &warning);
		free(line);
		free(warning);
		if (l->role == VIEW_NOTE)
			return t == VERDICT_BAD ? PAGER_BAD : PAGER_WARN;
		return pager_lines_verdict_tone(t);
	}
	if (l->role == VIEW_BANNER) {
		if (pager_lines_part_bad(m, l->part))
			return PAGER_BAD;
		return pager_lines_tone_of(pager_lines_protection(m, l->part, &found));
	}
	if (l->inner == 0)
		return PAGER_WARN;
	if (l->part != NULL) {
		prot = pager_lines_protection(m, l->part, &found);
		if (found && l->role != VIEW_BOUNDARY)
			return pager_lines_tone_of(prot);
	}
	return inside;
}

/* The raw header block, a line each, made safe. */
static void
pager_lines_raw(struct pager_lines *p, int headers_only)
{
	const char	*s = p->msg->mime->buf, *end, *q;
	struct buf	 b;
	size_t		 n;

	if (s == NULL)
		return;
	end = s + p->msg->mime->len;
	while (s < end) {
		if ((q = memchr(s, '\n', end - s)) == NULL)
			q = end;
		n = q - s;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (headers_only && n == 0)
			break;
		buf_init(&b);
		strsafe_add(&b, s, n, 0);
		buf_addc(&b, '\0');
		pager_lines_add(p, headers_only ? VIEW_HEADER : VIEW_TEXT, 0, 0,
		    PAGER_WARN, buf_take(&b), 1);
		s = q + 1;
	}
}

/* Under the trust banner: why the sender's state is what it is. */
static void
pager_lines_evidence(struct pager_lines *p, enum pager_tone tone)
{
	const char	*ev = p->msg->trust.evidence;
	struct buf	 b;

	if (ev == NULL || *ev == '\0')
		return;
	buf_init(&b);
	buf_adds(&b, "trust evidence: ");
	strsafe_add(&b, ev, strlen(ev), 0);
	buf_addc(&b, '\0');
	pager_lines_add(p, VIEW_BANNER, 0, 0, tone, buf_take(&b), 1);
}

void
pager_lines_load(struct pager_lines *p, struct message *msg,
    enum pager_mode mode)
{
	const struct view_lines	*vl;
	const struct view_line	*l;
	enum pager_tone		 inside = PAGER_WARN, tone;
	const void		*sigpart = NULL;
	size_t			 i;
	int			 headers_done = 0, top = 0, sig = 0;

	pager_lines_clear(p);
	p->msg = msg;
	p->mode = mode;
	if (p->mode == PAGER_RAW) {
		pager_lines_raw(p, 0);
		return;
	}
	vl = p->mode == PAGER_DETAILS ? message_lines(p->msg) :
	    message_brief(p->msg);
	for (i = 0; i < vl->n; i++) {
		l = &vl->v[i];
		if (l->role == VIEW_HEADER && p->mode == PAGER_HEADERS) {
			if (!headers_done)
				pager_lines_raw(p, 1);
			headers_done = 1;
			continue;
		}
		tone = pager_lines_tone(p, l, inside, top);
		if (l->role == VIEW_BOUNDARY && i + 1 < vl->n &&
		    vl->v[i + 1].inner > l->inner)
			inside = pager_lines_tone(p, &vl->v[i + 1], inside, -1);
		if (l->inner > 0 && l->role != VIEW_BANNER)
			tone = l->role == VIEW_BOUNDARY ? inside : tone;
		pager_lines_add(p, l->role, l->quote, l->inner, tone, l->text, 0);
		/* a text part's signature: from its "-- " line to its end */
		if (l->role == VIEW_TEXT && strcmp(l->text, "-- ") == 0) {
			sig = 1;
			sigpart = l->part;
		} else if (l->role != VIEW_TEXT || l->part != sigpart)
			sig = 0;
		p->src[p->nsrc - 1].sig = sig;
		if (l->part == NULL && (l->role == VIEW_BANNER ||
		    l->role == VIEW_NOTE) && top >= 0) {
			if (p->mode == PAGER_DETAILS && top == 1 &&
			    p->msg->have_trust)
				pager_lines_evidence(p, tone);
			top++;
		}
		if (l->role != VIEW_BANNER && l->role != VIEW_NOTE &&
		    l->role != VIEW_HEADER && l->role != VIEW_SPACE)
			top = -1;	/* the body has begun */
	}
}

/* ---- rows ------------------------------------------------------------- */

/* Columns the character at s (len bytes of it) takes. */
static int
pager_lines_charw(const char *s, size_t len, size_t *n)
{
	char		one[8];
	uint32_t	cp;

	if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) {
		*n = 1;
		return 1;
	}
	if ((*n = strsafe_utf8_decode(s, len, &cp)) == 0)
		*n = 1;
	memcpy(one, s, *n);
	one[*n] = '\0';
	return tui_width(one);
}

static void
pager_lines_row(struct pager_lines *p, size_t src, size_t off, size_t len, int cont)
{
	struct pager_row	*r;

	if (p->nrows == p->rowcap) {
		p->rowcap = p->rowcap == 0 ? 256 : p->rowcap * 2;
		p->rows = xreallocarray(p->rows, p->rowcap, sizeof *p->rows);
	}
	r = &p->rows[p->nrows++];
	r->src = src;
	r->off = off;
	r->len = len;
	r->cont = cont;
}

/* Columns a source line has for its text. */
static int
pager_lines_width(const struct pager_src *s, int cols)
{
	int	w;

	switch (s->role) {
	case VIEW_HEADER:
	case VIEW_SPACE:
	case VIEW_TEXT:
		w = cols - PAGER_MARGIN;
		break;
	case VIEW_BOUNDARY:
		w = cols - 8;		/* "==[ " and " ]==" */
		break;
	default:
		w = cols - 1;
		break;
	}
	return w < 8 ? 8 : w;
}

void
pager_lines_wrap(struct pager_lines *p, int cols)
{
	const char	*t;
	size_t		 i, len, off, start, n, brk;
	int		 w, used, cw, brkused;

	p->nrows = 0;
	p->cols = cols;
	for (i = 0; i < p->nsrc; i++) {
		t = p->src[i].text;
		len = strlen(t);
		w = pager_lines_width(&p->src[i], p->cols);
		start = off = brk = 0;
		used = brkused = 0;
		while (off < len) {
			cw = pager_lines_charw(t + off, len - off, &n);
			if (used + cw > w && off > start) {
				/* After the row's last blank, if it has one
				 * far enough in; else where the width ends. */
				if (brk > start && brkused > w / 2 &&
				    p->mode != PAGER_RAW) {
					used -= brkused;
					pager_lines_row(p, i, start, brk - start,
					    start != 0);
					start = brk;
				} else {
					pager_lines_row(p, i, start, off - start,
					    start != 0);
					start = off;
					used = 0;
				}
				brk = start;
				brkused = 0;
			}
			used += cw;
			off += n;
			if (t[off - n] == ' ') {
				brk = off;
				brkused = used;
			}
		}
		if (off > start || start == 0)
			pager_lines_row(p, i, start, off - start, start != 0);
	}
}

