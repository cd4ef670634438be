/*
 * tui-pager.c: the pager, the screen of one opened message. It owns the
 * message (message.h) and its raw bytes once the index hands them over,
 * the lines of the mode shown (tui-pager-lines.c: the display model, all
 * headers, or the raw source, cut into rows), the scroll position and the
 * search. Called by the index
 * (tui_pager_new()); it steps through the index's view for j and k, and
 * pushes the attachments (tui-attach.c) and the sender's key screen.
 *
 * It never draws but through tui-draw.c, never decides anything about
 * security (the model's verdicts are the engine's; it only chooses their
 * colours) and never waits on the server: opening the next message and
 * changing flags are the worker's jobs. Body text never starts in the
 * first column: that column and the bars are steedmail's own, so nothing
 * in a message can draw a line that looks like them.
 */
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "cache.h"
#include "crypto-in.h"
#include "message.h"
#include "mime-parse.h"
#include "tui.h"
#include "tui-pager.h"
#include "xmalloc.h"

#define PAGER_URL_MAX	2048	/* bytes of an address highlighted */

struct pager {
	struct tui_account	*acct;
	char			*folder;
	uint32_t		 uid;
	struct message		*msg;		/* with the raw bytes */
	struct tui_screen	*index;
	char			 title[128];

	struct pager_lines	 l;
	size_t			 top;

	char			*search;
	size_t			 match;		/* source line of the last */
	int			 have_match;

	uint64_t		 job;		/* the last flag, move... job */
	uint64_t		 open_job;	/* j, k: the next message */
	uint32_t		 open_uid;	/* its UID */
	int			 seen, flagged, deleted;
};

/* Cut the lines for the screen's width again, the top kept in range. */
static void
pager_rewrap(struct pager *p)
{
	pager_lines_wrap(&p->l, COLS);
	if (p->top >= p->l.nrows)
		p->top = p->l.nrows > 0 ? p->l.nrows - 1 : 0;
}

/* ---- drawing ---------------------------------------------------------- */

static int
pager_tone_attr(enum pager_tone t)
{
	switch (t) {
	case PAGER_GOOD:
		return tui_attr(TC_BANNER_GOOD);
	case PAGER_BAD:
		return tui_attr(TC_BANNER_BAD);
	default:
		return tui_attr(TC_BANNER_WARN);
	}
}

/* A piece of a line, at most len bytes, as a C string (static). */
static const char *
pager_piece(const char *s, size_t len)
{
	static struct buf	b;

	buf_reset(&b);
	buf_add(&b, s, len);
	buf_addc(&b, '\0');
	return b.data;
}

/* Where an address (http://, https://, mailto:, www.) of line begins at
 * or after from and before to; its end (at most PAGER_URL_MAX bytes on,
 * before lend) in *uend. */
static const char *
pager_url(const char *line, const char *from, const char *to,
    const char *lend, const char **uend)
{
	static const char	*pfx[] = { "https://", "http://", "mailto:",
				    "www." };
	const char		*p, *q, *max;
	size_t			 i, n;

	for (p = from; p < to; p++) {
		if (strchr("hHmMwW", *p) == NULL)
			continue;
		for (i = 0; i < sizeof pfx / sizeof *pfx; i++) {
			n = strlen(pfx[i]);
			if ((size_t)(lend - p) <= n ||
			    strncasecmp(p, pfx[i], n) != 0)
				continue;
			if (p > line && isalnum((unsigned char)p[-1]))
				continue;
			max = lend - p > PAGER_URL_MAX ? p + PAGER_URL_MAX :
			    lend;
			for (q = p + n; q < max && (unsigned char)*q > ' ' &&
			    strchr("<>\"'()[]{}", *q) == NULL; q++)
				;
			while (q > p + n && strchr(".,;:!?", q[-1]) != NULL)
				q--;
			*uend = q;
			return p;
		}
	}
	return NULL;
}

/* Body text of row r at y from column x, addresses in their colour. */
static void
pager_text(struct pager *p, const struct pager_row *r, int y, int x,
    int attr)
{
	const char	*line = p->l.src[r->src].text, *s, *e, *u, *ue, *lend;
	int		 w = COLS - x;

	s = line + r->off;
	e = s + r->len;
	lend = e + strnlen(e, PAGER_URL_MAX);
	/* From a little before the row, so that an address the row's start
	 * cuts is seen. */
	u = pager_url(line, r->off > PAGER_URL_MAX ? s - PAGER_URL_MAX : line,
	    e, lend, &ue);
	while (s < e && w > 0) {
		while (u != NULL && ue <= s)
			u = pager_url(line, ue, e, lend, &ue);
		if (u == NULL || u >= e) {
			x += tui_put(y, x, w, pager_piece(s, e - s), attr);
			break;
		}
		if (u > s) {
			x += tui_put(y, x, w, pager_piece(s, u - s), attr);
			w = COLS - x;
			s = u;
		}
		ue = ue > e ? e : ue;
		x += tui_put(y, x, w, pager_piece(s, ue - s),
		    tui_attr(TC_URL));
		w = COLS - x;
		s = ue;
	}
	if (x < COLS)
		tui_putfill(y, x, COLS - x, "", tui_attr(TC_NORMAL));
}

static void
pager_draw_boundary(struct pager *p, const struct pager_row *r, int y)
{
	const struct pager_src	*s = &p->l.src[r->src];
	static const char	 fill[] = "===================================="
				    "============================================"
				    "============================================";
	int			 attr = tui_attr(TC_BOUNDARY), x;

	x = tui_put(y, 0, COLS, "==[ ", attr);
	x += tui_put(y, x, COLS - x, pager_piece(s->text + r->off, r->len),
	    attr);
	x += tui_put(y, x, COLS - x, " ]", attr);
	while (x < COLS)
		x += tui_put(y, x, COLS - x, fill, attr);
}

/* The search's matches in body row r at y, drawn over in bold: never in
 * reverse, which only steedmail's bars have. */
static void
pager_mark(struct pager *p, const struct pager_row *r, int y)
{
	const char	*t = p->l.src[r->src].text + r->off, *m;
	char		*row;
	size_t		 n;
	int		 x;

	if (p->search == NULL || (n = strlen(p->search)) == 0)
		return;
	row = xstrndup(t, r->len);
	for (m = strcasestr(row, p->search); m != NULL;
	    m = strcasestr(m + n, p->search)) {
		x = PAGER_MARGIN + tui_width(pager_piece(row, m - row));
		if (x >= COLS)
			break;
		tui_put(y, x, COLS - x, pager_piece(m, n),
		    tui_attr(TC_NEW) | A_UNDERLINE);
	}
	free(row);
}

static void
pager_draw_row(struct pager *p, const struct pager_row *r, int y)
{
	const struct pager_src	*s = &p->l.src[r->src];
	const char		*t = s->text + r->off, *colon;
	int			 attr, x;

	switch (s->role) {
	case VIEW_BANNER:
		tui_bar(y, pager_piece(t, r->len), pager_tone_attr(s->tone));
		return;
	case VIEW_BOUNDARY:
		pager_draw_boundary(p, r, y);
		return;
	default:
		break;
	}

	/* The margin: inside content shown in place of a part a bar in its
	 * tone; the mark of a wrapped line. */
	if (s->inner > 0)
		tui_put(y, 0, 1, tui_utf8 ? "\xe2\x96\x8c" : "|",
		    pager_tone_attr(s->tone));
	else
		tui_put(y, 0, 1, " ", tui_attr(TC_NORMAL));
	/* Part lines and notes: from the second column inside, the first
	 * outside; never where body text starts. */
	x = s->inner > 0 ? 1 : 0;
	switch (s->role) {
	case VIEW_PART:
	case VIEW_ATTACHMENT:
		tui_putfill(y, x, COLS - x, pager_piece(t, r->len),
		    tui_attr(TC_PART));
		return;
	case VIEW_NOTE:
		tui_putfill(y, x, COLS - x, pager_piece(t, r->len),
		    tui_attr(TC_NOTE));
		return;
	default:
		break;
	}
	tui_put(y, 1, 1, r->cont ? "+" : " ", tui_attr(TC_NOTE));
	x = PAGER_MARGIN;

	if (s->role == VIEW_HEADER) {
		colon = r->cont ? NULL : memchr(t, ':', r->len);
		if (colon != NULL) {
			x += tui_put(y, x, COLS - x,
			    pager_piece(t, colon + 1 - t),
			    tui_attr(TC_HEADER_NAME));
			tui_putfill(y, x, COLS - x,
			    pager_piece(colon + 1, t + r->len - colon - 1),
			    tui_attr(TC_HEADER));
		} else
			tui_putfill(y, x, COLS - x, pager_piece(t, r->len),
			    tui_attr(TC_HEADER));
		pager_mark(p, r, y);
		return;
	}
	if (s->sig)
		attr = tui_attr(TC_SIGNATURE);
	else if (s->quote >= 3)
		attr = tui_attr(TC_QUOTE3);
	else if (s->quote == 2)
		attr = tui_attr(TC_QUOTE2);
	else if (s->quote == 1)
		attr = tui_attr(TC_QUOTE1);
	else
		attr = tui_attr(TC_NORMAL);
	if (p->l.mode == PAGER_RAW)
		attr = tui_attr(TC_NORMAL);
	pager_text(p, r, y, x, attr);
	pager_mark(p, r, y);
}

static void
pager_draw(struct tui_screen *sc)
{
	struct pager	*p = sc->data;
	size_t		 i;
	int		 y, rows = tui_rows();

	if (p->l.cols != COLS)
		pager_rewrap(p);
	for (y = 0; y < rows; y++) {
		i = p->top + y;
		if (i < p->l.nrows)
			pager_draw_row(p, &p->l.rows[i], TUI_FIRST_ROW + y);
		else
			tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "~",
			    tui_attr(TC_TILDE));
	}
}

/* ---- the status bar ----------------------------------------------------- */

/* Where the top row is: inside protected content, and which. */
static const char *
pager_where(struct pager *p)
{
	const struct pager_src	*s;

	if (p->l.mode == PAGER_RAW)
		return "raw source";
	if (p->top >= p->l.nrows)
		return NULL;
	s = &p->l.src[p->l.rows[p->top].src];
	if (s->inner == 0)
		return NULL;
	switch (s->tone) {
	case PAGER_GOOD:
		return "in protected content";
	case PAGER_BAD:
		return "in content NOT PROTECTED";
	default:
		return "in decrypted or verified content";
	}
}

static void
pager_status(struct tui_screen *sc, struct buf *out)
{
	struct pager		*p = sc->data;
	const struct message	*m = p->msg;
	const struct verdict_word *w = verdict_protection(message_verdict(m));
	const char		*where;
	size_t			 pct;

	if (w->utf8 != NULL)
		buf_addf(out, "%s ", tui_verdict_glyph(w));
	buf_adds(out, w->word);
	if (m->have_trust && m->trust.state != TRUST_UNSIGNED &&
	    m->trust.state != TRUST_NONE)
		buf_addf(out, " | %s", verdict_trust(m->trust.state)->word);
	if (m->dns_bogus != 0)
		buf_addf(out, " | %s", verdict_dns_bogus()->word);
	if ((where = pager_where(p)) != NULL)
		buf_addf(out, " | %s", where);
	pct = p->l.nrows <= (size_t)tui_rows() ? 100 :
	    (p->top + tui_rows()) * 100 / p->l.nrows;
	buf_addf(out, " | %zu%%", pct > 100 ? 100 : pct);
}

/* ---- actions ------------------------------------------------------------ */

static void
pager_scroll(struct pager *p, long by)
{
	long	top = (long)p->top + by, max;

	max = (long)p->l.nrows - 1;
	if (max < 0)
		max = 0;
	if (top > max)
		top = max;
	if (top < 0)
		top = 0;
	p->top = (size_t)top;
	tui_dirty();
}

/* The first row of source line i at or after byte off. */
static size_t
pager_row_of(struct pager *p, size_t i, size_t off)
{
	size_t	r;

	for (r = 0; r < p->l.nrows; r++) {
		if (p->l.rows[r].src == i &&
		    off < p->l.rows[r].off + p->l.rows[r].len)
			return r;
		if (p->l.rows[r].src > i)
			return r > 0 ? r - 1 : 0;
	}
	return p->l.nrows > 0 ? p->l.nrows - 1 : 0;
}

static void
pager_find(struct pager *p, int again)
{
	const char	*hit;
	size_t		 i, from, n;

	if (p->search == NULL || *p->search == '\0') {
		tui_error("no search: / asks for one");
		return;
	}
	if (p->l.cols != COLS)
		pager_rewrap(p);
	from = p->l.nrows > 0 ? p->l.rows[p->top].src : 0;
	if (again && p->have_match && p->match >= from)
		from = p->match + 1;
	for (n = 0; n < p->l.nsrc; n++) {
		i = (from + n) % p->l.nsrc;
		if ((hit = strcasestr(p->l.src[i].text, p->search)) != NULL) {
			if (i < from)
				tui_message("search wrapped to the top");
			p->match = i;
			p->have_match = 1;
			p->top = pager_row_of(p, i, hit - p->l.src[i].text);
			tui_dirty();
			return;
		}
	}
	tui_error("not found: %s", p->search);
}

static void
pager_title(struct pager *p)
{
	snprintf(p->title, sizeof p->title, "%s: message %u%s", p->folder,
	    p->uid, p->l.mode == PAGER_RAW ? " (raw source)" :
	    p->l.mode == PAGER_DETAILS ? " (security details)" :
	    p->l.mode == PAGER_HEADERS ? " (all headers)" : "");
}

static void
pager_set_mode(struct pager *p, enum pager_mode mode)
{
	p->l.mode = p->l.mode == mode ? PAGER_MESSAGE : mode;
	p->top = 0;
	p->have_match = 0;
	pager_lines_load(&p->l, p->msg, p->l.mode);
	pager_title(p);
	tui_dirty();
}

/* The message's flags as the cache has them. */
static void
pager_flags(struct pager *p)
{
	struct cache		*c = tui_account_cache(p->acct);
	struct cache_mailbox	 mb;
	char			 flags[MSG_FLAGS_SIZE], *cause = NULL;

	p->seen = 1;		/* opening it read it */
	p->flagged = p->deleted = 0;
	if (c == NULL || cache_mailbox_find(c, p->folder, &mb, &cause) != 1 ||
	    cache_get_flags(c, &mb, p->uid, flags, &cause) != 1) {
		free(cause);
		return;
	}
	p->flagged = (msg_flags_of(flags) & MSG_FLAGGED) != 0;
	p->deleted = (msg_flags_of(flags) & MSG_DELETED) != 0;
}

static void
pager_job(struct pager *p, enum tui_job_kind kind, const char *arg,
    msg_flags add, msg_flags remove)
{
	struct tui_job	j;
	uint32_t	uid = p->uid;

	memset(&j, 0, sizeof j);
	j.kind = kind;
	j.folder = p->folder;
	j.uids = &uid;
	j.nuids = 1;
	j.uid = uid;
	j.arg = (char *)arg;
	j.add = add;
	j.remove = remove;
	p->job = tui_submit(p->acct, &j);
}

static void
pager_flag(struct pager *p, msg_flags f, int *state, int set)
{
	if (set == -1)
		set = !*state;
	pager_job(p, TJ_FLAG, NULL, set ? f : 0, set ? 0 : f);
	*state = set;
}

/* Open the message after (dir 1) or before (dir -1) this one. */
static int
pager_step(struct pager *p, int dir)
{
	struct tui_job	j;
	uint32_t	uid;

	if (p->index == NULL ||
	    (uid = tui_index_step(p->index, p->uid, dir)) == 0) {
		tui_message(dir > 0 ? "this is the last message" :
		    "this is the first message");
		return 0;
	}
	memset(&j, 0, sizeof j);
	j.kind = TJ_OPEN;
	j.folder = p->folder;
	j.uid = uid;
	p->open_job = tui_submit(p->acct, &j);
	p->open_uid = uid;
	tui_message("opening message %u ...", uid);
	return 1;
}

static void
pager_move(struct pager *p, enum tui_job_kind kind)
{
	char	*to;

	to = tui_prompt_folder(kind == TJ_MOVE ? "Move to folder: " :
	    "Copy to folder: ", p->acct);
	if (to == NULL)
		return;
	if (*to != '\0') {
		pager_job(p, kind, to, 0, 0);
		if (kind == TJ_MOVE && !pager_step(p, 1))
			tui_message("moved to %s", to);
	}
	free(to);
}

static int
pager_action(struct tui_screen *sc, enum tui_action a, int key)
{
	struct pager	*p = sc->data;
	char		*s;
	int		 half = tui_rows() / 2 > 0 ? tui_rows() / 2 : 1;

	(void)key;
	switch (a) {
	case TA_QUIT:
	case TA_BACK:
		tui_pop();
		return 1;
	case TA_UP:
	case TA_LINE_UP:
		pager_scroll(p, -1);
		return 1;
	case TA_DOWN:
	case TA_LINE_DOWN:
	case TA_SELECT:
		pager_scroll(p, 1);
		return 1;
	case TA_PAGE_UP:
		pager_scroll(p, -(tui_rows() - 1));
		return 1;
	case TA_PAGE_DOWN:
		if (p->top + tui_rows() >= p->l.nrows) {
			tui_message("end of the message");
			return 1;
		}
		pager_scroll(p, tui_rows() - 1);
		return 1;
	case TA_HALF_UP:
		pager_scroll(p, -half);
		return 1;
	case TA_HALF_DOWN:
		pager_scroll(p, half);
		return 1;
	case TA_TOP:
		pager_scroll(p, -(long)p->l.nrows);
		return 1;
	case TA_BOTTOM:
		p->top = p->l.nrows > (size_t)tui_rows() ?
		    p->l.nrows - tui_rows() : 0;
		tui_dirty();
		return 1;
	case TA_SEARCH:
		s = tui_prompt("Search: ", p->search, 0, NULL, NULL);
		if (s == NULL)
			return 1;
		free(p->search);
		p->search = s;
		p->have_match = 0;
		pager_find(p, 0);
		return 1;
	case TA_SEARCH_NEXT:
		pager_find(p, 1);
		return 1;
	case TA_NEXT_MESSAGE:
		pager_step(p, 1);
		return 1;
	case TA_PREV_MESSAGE:
		pager_step(p, -1);
		return 1;
	case TA_HEADERS:
		pager_set_mode(p, PAGER_HEADERS);
		return 1;
	case TA_RAW:
		pager_set_mode(p, PAGER_RAW);
		return 1;
	case TA_DETAILS:
		pager_set_mode(p, PAGER_DETAILS);
		return 1;
	case TA_ATTACHMENTS:
		tui_push(tui_attach_new(p->acct, p->msg));
		return 1;
	case TA_PIPE:
		tui_pager_pipe("the message", p->msg->mime->buf,
		    p->msg->mime->len);
		return 1;
	case TA_TRUST:
		if (p->msg->ci->from == NULL) {
			tui_error("the message has no sender address");
			return 1;
		}
		tui_push(tui_trust_new(p->acct, p->msg->ci->from));
		return 1;
	case TA_READ:
		pager_flag(p, MSG_SEEN, &p->seen, 1);
		tui_message("marked read");
		return 1;
	case TA_UNREAD:
		pager_flag(p, MSG_SEEN, &p->seen, -1);
		tui_message(p->seen ? "marked read" : "marked new");
		return 1;
	case TA_FLAG:
		pager_flag(p, MSG_FLAGGED, &p->flagged, -1);
		tui_message(p->flagged ? "flagged" : "flag removed");
		return 1;
	case TA_DELETE:
		pager_flag(p, MSG_DELETED, &p->deleted, 1);
		if (!pager_step(p, 1))
			tui_message("marked deleted; $ in the index removes it "
			    "for good");
		return 1;
	case TA_UNDELETE:
		pager_flag(p, MSG_DELETED, &p->deleted, 0);
		tui_message("undeleted");
		return 1;
	case TA_TAG:
		switch (tui_index_tag(p->index, p->uid)) {
		case 1:
			tui_message("tagged (; in the index acts on every "
			    "tagged message)");
			break;
		case 0:
			tui_message("untagged");
			break;
		default:
			tui_message("no index to tag it in");
			break;
		}
		return 1;
	case TA_MOVE:
		pager_move(p, TJ_MOVE);
		return 1;
	case TA_COPY:
		pager_move(p, TJ_COPY);
		return 1;
	default:
		return 0;
	}
}

/* ---- events ------------------------------------------------------------- */

static void
pager_event(struct tui_screen *sc, struct tui_event *ev)
{
	struct pager	*p = sc->data;

	if (ev->kind != TE_DONE || ev->acct != p->acct || ev->job == 0)
		return;
	if (ev->job == p->job) {
		p->job = 0;
		if (ev->result != 0)
			tui_error("%s", ev->text != NULL ? ev->text :
			    ev->cause != NULL ? ev->cause : "failed");
		else if (ev->jkind != TJ_FLAG && ev->text != NULL)
			tui_message("%s", ev->text);
		return;
	}
	if (ev->job != p->open_job)
		return;
	p->open_job = 0;
	if (ev->result != 0 || ev->msg == NULL) {
		tui_error("cannot open the message: %s", ev->cause != NULL ?
		    ev->cause : "no message");
		return;
	}
	if (tui.top != sc) {
		/* Its attachments or a key screen are on top, holding the
		 * message shown: this one can wait for j or k again. */
		return;
	}
	message_free(p->msg);
	p->msg = ev->msg;
	ev->msg = NULL;
	p->uid = p->open_uid;
	p->l.mode = PAGER_MESSAGE;
	p->top = 0;
	p->have_match = 0;
	pager_flags(p);
	pager_lines_load(&p->l, p->msg, p->l.mode);
	pager_title(p);
	tui_message(" ");
	tui_dirty();
}

static void
pager_free(struct tui_screen *sc)
{
	struct pager	*p = sc->data;

	pager_lines_clear(&p->l);
	message_free(p->msg);
	free(p->folder);
	free(p->search);
	free(p);
	free(sc);
}

/* The message shown, for reply and forward (tui-write.c). */
static int
pager_current(struct tui_screen *sc, const char **folder, uint32_t *uid)
{
	struct pager	*p = sc->data;

	*folder = p->folder;
	*uid = p->uid;
	return 1;
}

/* ... and opened, so that they need no second fetch nor decryption. */
static const struct message *
pager_opened(struct tui_screen *sc)
{
	struct pager	*p = sc->data;

	return p->msg;
}

struct tui_screen *
tui_pager_new(struct tui_account *acct, const char *folder, uint32_t uid,
    struct message *msg, struct tui_screen *index)
{
	struct tui_screen	*sc;
	struct pager		*p;

	p = xcalloc(1, sizeof *p);
	p->acct = acct;
	p->folder = xstrdup(folder);
	p->uid = uid;
	p->msg = msg;
	p->index = index;
	pager_flags(p);
	pager_lines_load(&p->l, p->msg, p->l.mode);
	pager_title(p);

	sc = xcalloc(1, sizeof *sc);
	sc->title = p->title;
	sc->map = TM_PAGER;
	sc->draw = pager_draw;
	sc->action = pager_action;
	sc->event = pager_event;
	sc->status = pager_status;
	sc->free = pager_free;
	sc->current = pager_current;
	sc->opened = pager_opened;
	sc->data = p;
	return sc;
}
