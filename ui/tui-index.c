/*
 * tui-index.c: the index screen: one folder's messages, a row each, read
 * from the interface thread's own header cache handle through index.h
 * (sorted, threaded, limited, searched there) one screenful at a time,
 * with the flags, the security and trust indicators and the sender. What
 * needs the server (sync, opening a message, flags, moves, body search)
 * is a job for the account's worker; the screen never waits for it.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "addr-show.h"
#include "cache.h"
#include "index.h"
#include "imap-ops.h"
#include "message.h"
#include "session.h"
#include "strsafe.h"
#include "tui.h"
#include "xmalloc.h"

/* A flag change made here, shown until the server has answered it. */
struct overlay {
	uint32_t	 uid;
	msg_flags	 flags;
	uint64_t	 job;		/* the flag job, or 0 */
	long		 done_at;	/* loads started when it ended, or -1 */
};

/* The stored thread order, brought up to date on a thread of its own. */
struct load {
	char			*account;
	char			*folder;
	int			 more;		/* the thread order is not
						   up to date yet */
};

struct ixs {
	struct tui_account	*ta;
	char			*folder;
	struct index		*ix;
	struct index_view	 v;
	char			*limit;
	char			*search;	/* the last / expression */
	uint32_t		*uids;		/* a body search's result */
	size_t			 nuids;
	char			*body_words;
	uint32_t		*found;		/* / in the text: its matches */
	size_t			 nfound;
	uint64_t		 find_job;	/* / in the text, under way */

	size_t			 count;		/* rows in the view */
	size_t			 cur;		/* the cursor's row */
	size_t			 top;		/* the first row on screen */
	uint32_t		 cur_uid;	/* to find it again */
	int			 placed;	/* the cursor was put somewhere */

	struct index_row	*rows;		/* what is on the screen */
	size_t			 nrows, rows_top, rows_gen;
	size_t			 gen;		/* changes with the view */

	struct overlay		*ov;
	size_t			 nov;

	uint32_t		*tagged;	/* ascending */
	size_t			 ntagged;
	int			 prefix;	/* ';': the next action is for
						   the tagged messages */
	uint64_t		 op_job;	/* the last operation asked for */
	int			 op_tagged;	/* ... on the tagged messages */

	uint64_t		 sync_job, open_job, search_job;
	uint64_t		 load_job;	/* the thread order being made */
	long			 loads;		/* such jobs asked for */
	long			 load_no;	/* the one running */
	int			 load_again;	/* changed meanwhile */
	int			 synced;
	char			 title[256];
};

static void	ixs_load(struct ixs *);

static int
ixs_view_ok(struct ixs *s)
{
	char	*cause = NULL;

	if (s->ix == NULL)
		return 0;
	if (index_count(s->ix, &s->v, &s->count, &cause) == -1) {
		tui_error("%s", cause != NULL ? cause : "index error");
		free(cause);
		/* drop the limit that does not work */
		free(s->limit);
		s->limit = NULL;
		s->v.limit = NULL;
		if (index_count(s->ix, &s->v, &s->count, &cause) == -1) {
			free(cause);
			s->count = 0;
			return 0;
		}
	}
	return 1;
}

static void
ixs_clamp(struct ixs *s)
{
	int	rows = tui_rows();

	if (s->count == 0) {
		s->cur = s->top = 0;
		return;
	}
	if (s->cur >= s->count)
		s->cur = s->count - 1;
	if (s->cur < s->top)
		s->top = s->cur;
	if (rows > 0 && s->cur >= s->top + (size_t)rows)
		s->top = s->cur - (size_t)rows + 1;
	if (rows > 0 && s->top + (size_t)rows > s->count)
		s->top = s->count > (size_t)rows ? s->count - (size_t)rows : 0;
}

/* Put the cursor back on the message it was on, or on the newest. */
static void
ixs_place(struct ixs *s)
{
	size_t	off;

	s->gen++;
	if (!ixs_view_ok(s))
		return;
	if (s->placed && s->cur_uid != 0 &&
	    index_find(s->ix, &s->v, s->cur_uid, &off) == 0)
		s->cur = off;
	else if (!s->placed || s->cur >= s->count) {
		/* the newest is last, as in mutt; reverse views start at
		 * the top */
		s->cur = s->v.reverse || s->count == 0 ? 0 : s->count - 1;
		if (s->count > 0)
			s->placed = 1;
	}
	{
		int rows = tui_rows();

		/* the cursor's page, the cursor near its bottom */
		if (s->cur >= s->top + (size_t)rows || s->cur < s->top)
			s->top = s->cur + 1 > (size_t)rows ?
			    s->cur + 1 - (size_t)rows : 0;
	}
	ixs_clamp(s);
}

/*
 * The stored thread order brought up to date, on a thread of its own
 * with its own cache handle: the groups of the messages that came or
 * went threaded again (thread-store.h), after every change, so that
 * the thread sort costs a page whenever it is asked for. A part at a
 * time: the interface shows each (the newest threads come first) and
 * asks for the next.
 */
static void *
ixs_load_run(void *arg)
{
	struct load	*l = arg;
	struct cache	*c;
	char		*cause = NULL;
	int		 rc;

	if ((c = cache_open(l->account, &cause)) != NULL) {
		if ((rc = index_thread_some(c, l->folder, &cause)) == -1) {
			free(cause);
			cause = NULL;
		}
		l->more = rc == 1;
		cache_close(c);
	}
	free(cause);
	return l;
}

static void
ixs_load_discard(void *arg)
{
	struct load	*l = arg;

	free(l->account);
	free(l->folder);
	free(l);
}

/* Bring the stored thread order up to date, on a thread of its own. */
static void
ixs_reload(struct ixs *s)
{
	struct load	*l;

	if (s->load_job != 0) {
		s->load_again = 1;
		return;
	}
	l = xcalloc(1, sizeof *l);
	l->account = xstrdup(tui_account_config(s->ta)->id);
	l->folder = xstrdup(s->folder);
	s->load_no = ++s->loads;
	s->load_job = tui_background(ixs_load_run, l, ixs_load_discard);
}

/* Tags of messages no longer in the folder (expunged, moved) are gone. */
static void
ixs_prune_tags(struct ixs *s)
{
	struct cache		*c = tui_account_cache(s->ta);
	struct cache_mailbox	 mb;
	char			 letters[MSG_FLAGS_SIZE], *cause = NULL;
	size_t			 i, k;
	int			 rc;

	if (s->ntagged == 0 || c == NULL ||
	    cache_mailbox_find(c, s->folder, &mb, &cause) != 1) {
		free(cause);
		return;
	}
	for (i = k = 0; i < s->ntagged; i++) {
		rc = cache_get_flags(c, &mb, s->tagged[i], letters, &cause);
		free(cause);
		cause = NULL;
		if (rc != 0)		/* there, or the cache cannot say */
			s->tagged[k++] = s->tagged[i];
	}
	s->ntagged = k;
}

/* What the cache holds now: read again, the cursor where it was. */
static void
ixs_refresh(struct ixs *s)
{
	if (s->ix == NULL)
		return;
	ixs_prune_tags(s);
	index_refresh(s->ix);
	ixs_place(s);
	tui_dirty();
}

/* The thread order is up to date: show it, the cursor where it was. */
static void
ixs_take(struct ixs *s, struct load *l)
{
	size_t	i, k;

	ixs_load_discard(l);
	/* flag changes the cache was read after are in it */
	for (i = k = 0; i < s->nov; i++) {
		if (s->ov[i].done_at >= 0 && s->ov[i].done_at < s->load_no)
			continue;
		s->ov[k++] = s->ov[i];
	}
	s->nov = k;
	ixs_refresh(s);
}

/*
 * The index, read from the interface's own cache handle page by page:
 * the first screen at once, at any size; the thread order is brought up
 * to date from a thread of its own.
 */
static void
ixs_load(struct ixs *s)
{
	struct cache	*c = tui_account_cache(s->ta);
	char		*cause = NULL;
	struct index	*ix;

	if (c == NULL)
		return;
	if ((ix = index_open(c, s->folder, &cause)) == NULL) {
		tui_error("%s", cause != NULL ? cause : "index error");
		free(cause);
		return;
	}
	index_readonly(ix);
	index_close(s->ix);
	s->ix = ix;
	ixs_place(s);
	ixs_reload(s);
}

/* The rows on screen, read again only when the view or the top moved. */
static void
ixs_rows(struct ixs *s)
{
	char			*cause = NULL;
	int			 rows = tui_rows();

	if (s->rows != NULL && s->rows_top == s->top && s->rows_gen == s->gen)
		return;
	free(s->rows);
	s->rows = NULL;
	s->nrows = 0;
	if (s->ix == NULL || rows <= 0)
		return;
	if (index_page(s->ix, &s->v, s->top, (size_t)rows,
	    tui_account_trust(s->ta), &s->rows, &s->nrows, &cause) == -1) {
		/* without the trust store, still the rows */
		free(cause);
		cause = NULL;
		if (index_page(s->ix, &s->v, s->top, (size_t)rows, NULL,
		    &s->rows, &s->nrows, &cause) == -1) {
			tui_error("%s", cause != NULL ? cause : "index error");
			free(cause);
		}
	}
	s->rows_top = s->top;
	s->rows_gen = s->gen;
}

static msg_flags
ixs_flags(struct ixs *s, const struct index_row *r)
{
	size_t	i;

	for (i = 0; i < s->nov; i++)
		if (s->ov[i].uid == r->uid)
			return s->ov[i].flags;
	return msg_flags_of(r->flags);
}

static void
ixs_set_overlay(struct ixs *s, uint32_t uid, msg_flags flags, uint64_t job)
{
	size_t	i;

	for (i = 0; i < s->nov; i++)
		if (s->ov[i].uid == uid)
			break;
	if (i == s->nov) {
		s->ov = xreallocarray(s->ov, s->nov + 1, sizeof *s->ov);
		s->nov++;
	}
	s->ov[i].uid = uid;
	s->ov[i].job = job;
	s->ov[i].done_at = job == 0 ? s->loads : -1;
	s->ov[i].flags = flags;
}

/* The server answered job: the cache holds what it confirmed. */
static void
ixs_drop_overlays(struct ixs *s, uint64_t job)
{
	size_t	i, k;

	for (i = k = 0; i < s->nov; i++)
		if (s->ov[i].job != job)
			s->ov[k++] = s->ov[i];
	s->nov = k;
}

/* Tags: a set of UIDs, ascending. */

static int
uid_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
ixs_is_tagged(const struct ixs *s, uint32_t uid)
{
	return s->ntagged > 0 && bsearch(&uid, s->tagged, s->ntagged,
	    sizeof *s->tagged, uid_cmp) != NULL;
}

static void
ixs_tag(struct ixs *s, uint32_t uid, int on)
{
	size_t	lo = 0, hi = s->ntagged, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->tagged[mid] < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->ntagged && s->tagged[lo] == uid) {
		if (!on) {
			memmove(s->tagged + lo, s->tagged + lo + 1,
			    (s->ntagged - lo - 1) * sizeof *s->tagged);
			s->ntagged--;
		}
		return;
	}
	if (!on)
		return;
	s->tagged = xreallocarray(s->tagged, s->ntagged + 1,
	    sizeof *s->tagged);
	memmove(s->tagged + lo + 1, s->tagged + lo,
	    (s->ntagged - lo) * sizeof *s->tagged);
	s->tagged[lo] = uid;
	s->ntagged++;
}

static void
ixs_date(time_t t, char *out, size_t len)
{
	struct tm	tm, now;
	time_t		n = time(NULL);

	localtime_r(&t, &tm);
	localtime_r(&n, &now);
	if (t == 0)
		strncpy(out, "      ", len);
	else if (tm.tm_year == now.tm_year && tm.tm_yday == now.tm_yday)
		strftime(out, len, " %H:%M", &tm);
	else if (tm.tm_year == now.tm_year)
		strftime(out, len, "%b %d", &tm);
	else
		strftime(out, len, "  %Y", &tm);
}

/* The part of s at its end that takes at most w columns. */
static const char *
ixs_tail(const char *s, int w)
{
	uint32_t	c;
	size_t		n, len = strlen(s);

	while (*s != '\0' && tui_width(s) > w) {
		if ((n = strsafe_utf8_decode(s, len, &c)) == 0)
			n = 1;
		s += n;
		len -= n;
	}
	return s;
}

/*
 * The sender column at y, x, fw columns wide: what addr_show_sender()
 * decides (the name, or the address when the name may mislead, or "no
 * address"), marked when it must be. An address is never cut: the
 * column grows for it, up to the row's end, and a longer one keeps its
 * end (the domain). Returns the columns taken.
 */
static int
ixs_sender(int y, int x, int fw, const struct index_row *r, int sel,
    int base)
{
	const char	*show;
	char		*t;
	int		 warn, w, attr;

	t = addr_show_sender(r->from_name, r->from_addr, &warn);
	attr = warn && !sel ? tui_attr(TC_IND_BAD) : base;
	show = t;
	if (r->from_addr != NULL && strcmp(t, r->from_addr) == 0 &&
	    (w = tui_width(t)) > fw) {
		fw = w < COLS - x ? w : COLS - x;
		if (w > fw && fw > 1) {
			tui_put(y, x, 1, tui_utf8 ? "\xe2\x80\xa6" : "<", attr);
			show = ixs_tail(t, fw - 1);
			tui_putfill(y, x + 1, fw - 1, show, attr);
			free(t);
			return fw;
		}
	}
	tui_putfill(y, x, fw, show, attr);
	free(t);
	return fw;
}

static void
ixs_draw_row(struct ixs *s, int y, const struct index_row *r, int sel)
{
	msg_flags	 fl = ixs_flags(s, r);
	int		 base, x = 0, w, fw;
	const struct verdict_word *vw;
	char		 date[32];
	struct buf	 b;
	uint32_t	 d;

	if (sel)
		base = tui_attr(TC_SELECTED);
	else if (fl & MSG_DELETED)
		base = tui_attr(TC_DELETED);
	else if (fl & MSG_FLAGGED)
		base = tui_attr(TC_FLAGGED);
	else if (!(fl & MSG_SEEN))
		base = tui_attr(TC_NEW);
	else
		base = tui_attr(TC_INDEX);
	tui_putfill(y, 0, COLS, "", base);

	/* tagged, then new or deleted, flagged, replied or attachment */
	if (ixs_is_tagged(s, r->uid))
		tui_put(y, 0, 1, tui_glyph(TG_TAGGED), base);
	x = 1;
	tui_put(y, x++, 1, (fl & MSG_DELETED) ? tui_glyph(TG_DELETED) :
	    !(fl & MSG_SEEN) ? tui_glyph(TG_NEW) : " ", base);
	tui_put(y, x++, 1, (fl & MSG_FLAGGED) ? tui_glyph(TG_FLAGGED) :
	    " ", base);
	tui_put(y, x++, 1, (fl & MSG_ANSWERED) ? tui_glyph(TG_REPLIED) :
	    (r->hints & CACHE_HINT_ATTACH) ? tui_glyph(TG_ATTACHMENT) : " ",
	    base);
	x++;
	/* security: the protection, then the sender's trust */
	vw = NULL;
	if (r->hints & CACHE_HINT_ENCRYPTED)
		vw = verdict_protection(VERDICT_ENCRYPTED);
	else if (r->hints & CACHE_HINT_SIGNED)
		vw = verdict_protection(VERDICT_SIGNED);
	if (vw != NULL)
		tui_put(y, x, 1, tui_verdict_glyph(vw), sel ? base :
		    tui_verdict_attr(vw));
	x++;
	/* a bogus DNS answer for the sender outweighs the rest */
	vw = r->dns_bogus ? verdict_dns_bogus() : verdict_trust(r->trust);
	if (vw->utf8 != NULL)
		tui_put(y, x, 1, tui_verdict_glyph(vw), sel ? base |
		    (int)A_BOLD : tui_verdict_attr(vw));
	x += 2;
	ixs_date(r->date, date, sizeof date);
	x += tui_put(y, x, 6, date, base) + 1;
	x = 15;
	fw = COLS >= 100 ? 24 : 20;
	if (COLS - x < fw + 10)
		fw = (COLS - x) / 3;
	x += ixs_sender(y, x, fw, r, sel, base) + 1;
	if (x >= COLS)
		return;
	/* the thread's tree, then the subject */
	buf_init(&b);
	if (r->depth > 0) {
		for (d = 1; d < r->depth && d < 8; d++)
			buf_adds(&b, "  ");
		buf_adds(&b, tui_glyph((r->tflags & INDEX_ROW_ORPHAN) ?
		    TG_TREE_ORPHAN : (r->tflags & INDEX_ROW_LAST) ?
		    TG_TREE_LAST : TG_TREE_BRANCH));
		w = tui_put(y, x, COLS - x, b.data, sel ? base :
		    tui_attr(TC_TREE));
		x += w;
	}
	buf_reset(&b);
	if (r->hidden > 0) {
		buf_addf(&b, "%s%u ", tui_glyph(TG_COLLAPSED),
		    (unsigned)r->hidden + 1);
		x += tui_put(y, x, COLS - x, b.data, sel ? base :
		    tui_attr(TC_TREE));
	}
	/* a sealed row's words are steedmail's, drawn as its own notes */
	if (x < COLS && r->sealed)
		tui_put(y, x, COLS - x, INDEX_SEALED_SUBJECT, sel ? base :
		    tui_attr(TC_NOTE));
	else if (x < COLS)
		tui_put(y, x, COLS - x, r->subject != NULL ? r->subject :
		    "(no subject)", base);
	buf_free(&b);
}

static void
ixs_draw(struct tui_screen *sc)
{
	struct ixs	*s = sc->data;
	size_t		 i;
	int		 rows = tui_rows();

	ixs_clamp(s);
	ixs_rows(s);
	if (s->count == 0) {
		const char *what = s->ix == NULL ? "reading the header cache" :
		    (s->v.limit != NULL || s->v.uids != NULL) ?
		    "no message matches the limit (l, then Enter, shows all)" :
		    s->synced ? "no messages in this folder" :
		    "no messages here yet: fetching...";

		tui_put(TUI_FIRST_ROW + 1, 2, COLS - 2, what,
		    tui_attr(TC_NOTE));
		return;
	}
	for (i = 0; i < s->nrows && (int)i < rows; i++)
		ixs_draw_row(s, TUI_FIRST_ROW + (int)i, &s->rows[i],
		    s->top + i == s->cur);
	if (s->cur >= s->top && s->cur - s->top < s->nrows)
		s->cur_uid = s->rows[s->cur - s->top].uid;
}

static void
ixs_status(struct tui_screen *sc, struct buf *b)
{
	struct ixs	*s = sc->data;

	buf_addf(b, " %s  %zu/%zu", s->folder,
	    s->count ? s->cur + 1 : 0, s->count);
	if (s->ix != NULL && s->count != index_total(s->ix))
		buf_addf(b, " of %zu", index_total(s->ix));
	buf_addf(b, "  sort: %s%s", s->v.reverse ? "-" : "",
	    index_sort_name(s->v.sort));
	if (s->limit != NULL)
		buf_addf(b, "  limit: %s", s->limit);
	if (s->body_words != NULL)
		buf_addf(b, "  text: %s", s->body_words);
	if (s->ntagged > 0)
		buf_addf(b, "  tagged: %zu", s->ntagged);
}

static const struct index_row *
ixs_current(struct ixs *s)
{
	ixs_rows(s);
	if (s->count == 0 || s->cur < s->top || s->cur - s->top >= s->nrows)
		return NULL;
	return &s->rows[s->cur - s->top];
}

static void
ixs_move(struct ixs *s, long by)
{
	if (s->count == 0)
		return;
	if (by < 0 && (size_t)-by > s->cur)
		s->cur = 0;
	else if (by > 0 && s->cur + (size_t)by >= s->count)
		s->cur = s->count - 1;
	else
		s->cur = (size_t)((long)s->cur + by);
	s->placed = 1;
	ixs_clamp(s);
	tui_dirty();
}

static void
ixs_page(struct ixs *s, int dir)
{
	size_t	rows = (size_t)tui_rows();

	if (s->count == 0 || rows == 0)
		return;
	if (dir > 0) {
		if (s->top + rows < s->count) {
			s->top += rows;
			if (s->top + rows > s->count)
				s->top = s->count - rows;
			s->cur = s->cur + rows < s->count ? s->cur + rows :
			    s->count - 1;
			if (s->cur < s->top)
				s->cur = s->top;
		} else
			s->cur = s->count - 1;
	} else {
		s->top = s->top > rows ? s->top - rows : 0;
		s->cur = s->cur > rows ? s->cur - rows : 0;
	}
	s->placed = 1;
	ixs_clamp(s);
	tui_dirty();
}

/*
 * The server is asked to change the flags of these messages; those on the
 * screen show the change at once, until its answer is in the cache.
 */
static uint64_t
ixs_flag_job(struct ixs *s, const uint32_t *uids, size_t n, msg_flags add,
    msg_flags remove)
{
	struct tui_job	 j;
	uint64_t	 job;
	size_t		 i, k;

	memset(&j, 0, sizeof j);
	j.kind = TJ_FLAG;
	j.folder = s->folder;
	j.uids = (uint32_t *)uids;
	j.nuids = n;
	j.add = add;
	j.remove = remove;
	job = tui_submit(s->ta, &j);

	ixs_rows(s);
	for (i = 0; i < n; i++) {
		for (k = 0; k < s->nrows; k++) {
			if (s->rows[k].uid == uids[i]) {
				ixs_set_overlay(s, uids[i], (ixs_flags(s,
				    &s->rows[k]) | add) & ~remove, job);
				break;
			}
		}
	}
	tui_dirty();
	return job;
}

static void
ixs_sync(struct ixs *s)
{
	struct tui_job	j;

	memset(&j, 0, sizeof j);
	j.kind = TJ_SYNC;
	j.folder = s->folder;
	s->sync_job = tui_submit(s->ta, &j);
}

static void
ixs_open(struct ixs *s, uint32_t uid)
{
	struct tui_job	j;

	memset(&j, 0, sizeof j);
	j.kind = TJ_OPEN;
	j.folder = s->folder;
	j.uid = uid;
	s->open_job = tui_submit(s->ta, &j);
	tui_message("opening the message...");
}

static void
ixs_set_view(struct ixs *s)
{
	s->v.limit = s->limit;
	s->v.uids = s->uids;
	s->v.nuids = s->nuids;
	ixs_place(s);
	/* the stored thread order, brought up to date if need be */
	if (s->v.sort == INDEX_SORT_THREAD)
		ixs_reload(s);
	tui_dirty();
}

static void
ixs_sort(struct ixs *s)
{
	char			*a;
	struct index_view	 v = s->v;

	a = tui_prompt("Sort by (date, arrival, from, subject, size, "
	    "thread; -date reverses): ", NULL, 0, NULL, NULL);
	if (a == NULL)
		return;
	if (*a != '\0' && index_sort_parse(a, &v) == -1)
		tui_error("no such sort: %s", a);
	else if (*a != '\0') {
		s->v.sort = v.sort;
		s->v.reverse = v.reverse;
		s->placed = 1;
		ixs_set_view(s);
	}
	free(a);
}

/* Not the header language's own (~ terms, ! negation): words, for the
 * full-text index when no header has them. */
static int
ixs_textual(const char *expr)
{
	return strchr(expr, '~') == NULL && strchr(expr, '!') == NULL;
}

/* The query of B, / or l to the full-text index (tui-worker.c). */
static uint64_t
ixs_text_job(struct ixs *s, const char *q)
{
	struct tui_job	 j;

	memset(&j, 0, sizeof j);
	j.kind = TJ_SEARCH;
	j.folder = s->folder;
	j.arg = (char *)q;
	return tui_submit(s->ta, &j);
}

static void
ixs_limit(struct ixs *s)
{
	struct index_view	 v = s->v;
	size_t			 n;
	char			*a, *cause = NULL;

	a = tui_prompt("Limit to (~f ~s ~t ~N ~F ~D, words, !; empty: all): ",
	    s->limit, 0, NULL, NULL);
	if (a == NULL)
		return;
	/*
	 * Words no header of the whole folder matches: the text of the
	 * cached mail, with the language of --search, as B does.
	 */
	v.limit = a;
	v.uids = NULL;
	v.nuids = 0;
	if (*a != '\0' && ixs_textual(a) && s->ix != NULL &&
	    index_count(s->ix, &v, &n, &cause) == 0 && n == 0) {
		free(s->body_words);
		s->body_words = a;
		free(s->limit);
		s->limit = NULL;
		s->search_job = ixs_text_job(s, a);
		tui_message("no header matches; searching the text...");
		return;
	}
	free(cause);
	free(s->limit);
	s->limit = *a != '\0' ? a : NULL;
	if (*a == '\0') {
		free(a);
		free(s->uids);
		s->uids = NULL;
		s->nuids = 0;
		free(s->body_words);
		s->body_words = NULL;
	}
	ixs_set_view(s);
}

/*
 * / found nothing in the headers but the text has matches: the nearest
 * of them after (dir 1) or before (-1) the cursor, going round the end.
 */
static void
ixs_found(struct ixs *s, int dir)
{
	size_t	i, off, d, best = SIZE_MAX, at = 0;

	for (i = 0; i < s->nfound && s->count > 0; i++) {
		if (index_find(s->ix, &s->v, s->found[i], &off) == -1)
			continue;
		d = dir > 0 ? (off + s->count - s->cur - 1) % s->count :
		    (s->cur + s->count - off - 1) % s->count;
		if (d < best) {
			best = d;
			at = off;
		}
	}
	if (best == SIZE_MAX) {
		tui_message("not found: %s", s->search);
		return;
	}
	s->cur = at;
	s->placed = 1;
	ixs_clamp(s);
	tui_message("found in the text of %zu message%s; n goes on",
	    s->nfound, s->nfound == 1 ? "" : "s");
	tui_dirty();
}

static void
ixs_search(struct ixs *s, int again, int dir)
{
	char	*a, *cause = NULL;
	size_t	 off;
	int	 r;

	if (!again || s->search == NULL) {
		a = tui_prompt("Search for: ", NULL, 0, NULL, NULL);
		if (a == NULL || *a == '\0') {
			free(a);
			return;
		}
		free(s->search);
		s->search = a;
	}
	if (s->ix == NULL)
		return;
	r = index_search(s->ix, &s->v, s->search, s->cur, dir, &off, &cause);
	if (r == 1 && !again && ixs_textual(s->search)) {
		/* no header has it: the text of the cached mail may */
		free(s->found);
		s->found = NULL;
		s->nfound = 0;
		s->find_job = ixs_text_job(s, s->search);
		tui_message("not in the headers; searching the text...");
		return;
	}
	if (r == 1 && s->found != NULL) {
		ixs_found(s, dir);
		return;
	}
	if (r == -1) {
		tui_error("%s", cause != NULL ? cause : "bad search");
		free(cause);
	} else if (r == 1)
		tui_message("not found: %s", s->search);
	else {
		if ((dir > 0 && off <= s->cur) || (dir < 0 && off >= s->cur))
			tui_message("search went round the end");
		s->cur = off;
		s->placed = 1;
		ixs_clamp(s);
	}
	tui_dirty();
}

static void
ixs_search_body(struct ixs *s)
{
	struct tui_job	 j;
	char		*a = tui_prompt("Search the text (words, \"a phrase\", "
	    "pre*, from: to: subject: date:, OR, -): ", NULL, 0, NULL, NULL);

	if (a == NULL || *a == '\0') {
		free(a);
		return;
	}
	free(s->body_words);
	s->body_words = a;
	memset(&j, 0, sizeof j);
	j.kind = TJ_SEARCH;
	j.folder = s->folder;
	j.arg = a;
	s->search_job = tui_submit(s->ta, &j);
	tui_message("searching...");
}

static uint64_t
ixs_move_to(struct ixs *s, const uint32_t *uids, size_t n, int copy)
{
	struct tui_job	 j;
	uint64_t	 job;
	char		*to = tui_prompt_folder(copy ? "Copy to folder: " :
	    "Move to folder: ", s->ta);

	if (to == NULL || *to == '\0') {
		free(to);
		return 0;
	}
	memset(&j, 0, sizeof j);
	j.kind = copy ? TJ_COPY : TJ_MOVE;
	j.folder = s->folder;
	j.uids = (uint32_t *)uids;
	j.nuids = n;
	j.arg = to;
	job = tui_submit(s->ta, &j);
	tui_message("%s to %s...", copy ? "copying" : "moving", to);
	free(to);
	return job;
}

static void
ixs_change_folder(struct tui_screen *sc)
{
	struct ixs		*s = sc->data;
	struct tui_account	*ta = s->ta;
	char			*f = tui_prompt_folder("Open folder: ", ta);

	if (f == NULL || *f == '\0') {
		free(f);
		return;
	}
	/* in place of this index, as mutt's change-folder */
	while (tui.top != NULL && tui.top != sc)
		tui_pop();
	tui_pop();
	tui_push(tui_index_new(ta, f));
	free(f);
}

/* Does every one of these messages have flag (the cache's flags)? */
static int
ixs_all_have(struct ixs *s, const uint32_t *uids, size_t n, msg_flags flag)
{
	struct cache		*c = tui_account_cache(s->ta);
	struct cache_mailbox	 mb;
	char			 letters[MSG_FLAGS_SIZE], *cause = NULL;
	size_t			 i;

	if (c == NULL || cache_mailbox_find(c, s->folder, &mb, &cause) != 1) {
		free(cause);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (cache_get_flags(c, &mb, uids[i], letters, &cause) != 1 ||
		    !(msg_flags_of(letters) & flag)) {
			free(cause);
			return 0;
		}
	}
	return 1;
}

/*
 * A mailbox operation (mark read or new, flag, delete, undelete, move,
 * copy) on the message under the cursor, or after ';' on the tagged ones.
 * N and F toggle: on several messages they add the flag unless every one
 * has it already.
 */
static void
ixs_operate(struct ixs *s, enum tui_action a, int tagged)
{
	const struct index_row	*r = NULL;
	const uint32_t		*uids;
	uint32_t		 one;
	size_t			 n;
	msg_flags		 f;
	uint64_t		 job = 0;

	if (tagged) {
		uids = s->tagged;
		n = s->ntagged;
	} else {
		if ((r = ixs_current(s)) == NULL) {
			tui_message("no message here");
			return;
		}
		one = r->uid;
		uids = &one;
		n = 1;
	}
	switch (a) {
	case TA_READ:
		job = ixs_flag_job(s, uids, n, MSG_SEEN, 0);
		break;
	case TA_UNREAD:
	case TA_FLAG:
		f = a == TA_FLAG ? MSG_FLAGGED : MSG_SEEN;
		if (r != NULL ? (ixs_flags(s, r) & f) != 0 :
		    ixs_all_have(s, uids, n, f))
			job = ixs_flag_job(s, uids, n, 0, f);
		else
			job = ixs_flag_job(s, uids, n, f, 0);
		break;
	case TA_DELETE:
		job = ixs_flag_job(s, uids, n, MSG_DELETED, 0);
		if (!tagged)
			ixs_move(s, 1);
		break;
	case TA_UNDELETE:
		job = ixs_flag_job(s, uids, n, 0, MSG_DELETED);
		break;
	case TA_MOVE:
	case TA_COPY:
		job = ixs_move_to(s, uids, n, a == TA_COPY);
		break;
	default:
		break;
	}
	if (job != 0) {
		s->op_job = job;
		s->op_tagged = tagged;
	}
}

/* T and ^T: tag or untag every message the expression matches. */
static void
ixs_tag_pattern(struct ixs *s, int on)
{
	struct index_view	 v = s->v;
	struct index_row	*rows = NULL;
	size_t			 n = 0, i, k, count;
	char			*a, *cause = NULL;

	a = tui_prompt(on ? "Tag messages matching (~f ~s ~t ~N ~F ~D, "
	    "words, !): " : "Untag messages matching (~f ~s ~t ~N ~F ~D, "
	    "words, !): ", NULL, 0, NULL, NULL);
	if (a == NULL || *a == '\0' || s->ix == NULL) {
		free(a);
		return;
	}
	v.limit = a;
	if (index_count(s->ix, &v, &count, &cause) == -1 ||
	    (count > 0 && index_page(s->ix, &v, 0, count, NULL, &rows, &n,
	    &cause) == -1)) {
		tui_error("%s: %s", on ? "tag" : "untag", cause != NULL ?
		    cause : "the expression cannot be read");
		free(cause);
		free(a);
		return;
	}
	for (i = 0, k = 0; i < n; i++) {
		if (ixs_is_tagged(s, rows[i].uid) != on) {
			ixs_tag(s, rows[i].uid, on);
			k++;
		}
	}
	free(rows);
	tui_message("%s %zu message%s matching %s; %zu tagged in all",
	    on ? "tagged" : "untagged", k, k == 1 ? "" : "s", a, s->ntagged);
	free(a);
	tui_dirty();
}

/*
 * $: the messages marked deleted, as the cache knows them, counted in the
 * question; none, and nothing is asked. The server removes those it has
 * flagged deleted (imap_conn_expunge()), and says how many.
 */
static void
ixs_expunge(struct ixs *s)
{
	struct index_view	 v = s->v;
	struct tui_job		 j;
	size_t			 n = 0, pending = 0, i;
	char			*cause = NULL;
	int			 yes;

	/* a d whose answer has not come: the expunge comes after it */
	for (i = 0; i < s->nov; i++)
		if (s->ov[i].job != 0 && (s->ov[i].flags & MSG_DELETED))
			pending++;
	v.limit = "~D";
	v.uids = NULL;
	v.nuids = 0;
	if (s->ix == NULL || index_count(s->ix, &v, &n, &cause) == -1) {
		free(cause);
		pending++;		/* not known: ask without a number */
	}
	if (n == 0 && pending == 0) {
		tui_message("nothing in %s is marked deleted (d marks one)",
		    s->folder);
		return;
	}
	if (pending > 0)
		yes = tui_yesno("Remove the messages marked deleted from %s "
		    "for good?", s->folder);
	else
		yes = tui_yesno("Remove the %zu message%s marked deleted from "
		    "%s for good?", n, n == 1 ? "" : "s", s->folder);
	if (!yes)
		return;
	memset(&j, 0, sizeof j);
	j.kind = TJ_EXPUNGE;
	j.folder = s->folder;
	s->op_job = tui_submit(s->ta, &j);
	s->op_tagged = 0;
	tui_message("expunging %s...", s->folder);
}

static int
ixs_action(struct tui_screen *sc, enum tui_action a, int key)
{
	struct ixs		*s = sc->data;
	const struct index_row	*r;
	struct tui_screen	*t;
	char			*cause = NULL;
	int			 rows = tui_rows();
	int			 prefix = s->prefix;

	(void)key;
	s->prefix = 0;
	switch (a) {
	case TA_UP:
		ixs_move(s, -1);
		return 1;
	case TA_DOWN:
		ixs_move(s, 1);
		return 1;
	case TA_PAGE_DOWN:
		ixs_page(s, 1);
		return 1;
	case TA_PAGE_UP:
		ixs_page(s, -1);
		return 1;
	case TA_HALF_DOWN:
		ixs_move(s, rows / 2);
		return 1;
	case TA_HALF_UP:
		ixs_move(s, -(rows / 2));
		return 1;
	case TA_TOP:
		ixs_move(s, -(long)s->count);
		return 1;
	case TA_BOTTOM:
		ixs_move(s, (long)s->count);
		return 1;
	case TA_SELECT:
		if ((r = ixs_current(s)) != NULL)
			ixs_open(s, r->uid);
		return 1;
	case TA_SORT:
		ixs_sort(s);
		return 1;
	case TA_SORT_REVERSE:
		s->v.reverse = !s->v.reverse;
		s->placed = 1;
		ixs_set_view(s);
		return 1;
	case TA_THREAD_TOGGLE:
	case TA_THREADS_ALL:
		if (s->v.sort != INDEX_SORT_THREAD) {
			tui_message("threads are shown in the thread sort: "
			    "o, then thread");
			return 1;
		}
		if ((r = ixs_current(s)) == NULL)
			return 1;
		if (index_collapse(s->ix, &s->v, a == TA_THREADS_ALL ?
		    INDEX_ALL_THREADS : r->thread, -1, &cause) == -1) {
			tui_error("%s", cause);
			free(cause);
		}
		/* the cursor stays on its thread's first message */
		if (a == TA_THREADS_ALL || r->depth > 0) {
			uint32_t	th = r->thread;
			size_t		off, i;

			s->gen++;
			ixs_view_ok(s);
			s->cur = s->cur < s->count ? s->cur : s->count > 0 ?
			    s->count - 1 : 0;
			/*
			 * The row the cursor was on may be folded away: the
			 * thread's row is its earliest message's (th), else
			 * the first row of the thread above the cursor.
			 */
			if (index_find(s->ix, &s->v, th, &off) == 0 ||
			    index_find(s->ix, &s->v, s->cur_uid, &off) == 0)
				s->cur = off;
			for (i = 0; s->cur > 0 && i < 1000; i++) {
				const struct index_row	*p;

				ixs_clamp(s);
				ixs_rows(s);
				if ((p = ixs_current(s)) == NULL ||
				    (p->thread == th && p->depth == 0))
					break;
				s->cur--;
			}
		}
		s->gen++;
		ixs_view_ok(s);
		ixs_clamp(s);
		tui_dirty();
		return 1;
	case TA_LIMIT:
		ixs_limit(s);
		return 1;
	case TA_SEARCH:
		ixs_search(s, 0, 1);
		return 1;
	case TA_SEARCH_NEXT:
		ixs_search(s, 1, 1);
		return 1;
	case TA_SEARCH_PREV:
		ixs_search(s, 1, -1);
		return 1;
	case TA_SEARCH_BODY:
		ixs_search_body(s);
		return 1;
	case TA_SYNC:
		ixs_sync(s);
		tui_message("fetching new mail...");
		return 1;
	case TA_CHANGE_FOLDER:
		ixs_change_folder(sc);
		return 1;
	case TA_TRUST_LIST:
		if ((t = tui_trust_list_new(s->ta)) != NULL)
			tui_push(t);
		return 1;
	case TA_EXPUNGE:
		ixs_expunge(s);
		return 1;
	default:
		break;
	}
	switch (a) {

	case TA_TAG_PREFIX:
		if (s->ntagged == 0)
			tui_message("no message is tagged: t tags one, T those "
			    "matching an expression");
		else {
			s->prefix = 1;
			tui_message("for the %zu tagged: d u N F s C, or the "
			    "key of what to do", s->ntagged);
		}
		return 1;
	case TA_TAG_PATTERN:
	case TA_UNTAG_PATTERN:
		ixs_tag_pattern(s, a == TA_TAG_PATTERN);
		return 1;
	case TA_TRUST:
		if ((r = ixs_current(s)) == NULL)
			tui_message("no message here");
		else if (r->from_addr == NULL)
			tui_message("this message has no sender address");
		else if ((t = tui_trust_new(s->ta, r->from_addr)) != NULL)
			tui_push(t);
		return 1;
	case TA_TAG:
		if ((r = ixs_current(s)) == NULL) {
			tui_message("no message here");
			return 1;
		}
		ixs_tag(s, r->uid, !ixs_is_tagged(s, r->uid));
		ixs_move(s, 1);
		tui_dirty();
		return 1;
	case TA_READ:
	case TA_UNREAD:
	case TA_FLAG:
	case TA_DELETE:
	case TA_UNDELETE:
	case TA_MOVE:
	case TA_COPY:
		ixs_operate(s, a, prefix);
		return 1;
	default:
		return 0;
	}
}

/*
 * The server's answer to the last operation asked for here: said on the
 * message line (a flag change on one message only when it failed). The
 * cache holds the outcome, and the rows show it.
 */
static void
ixs_op_done(struct ixs *s, const struct tui_event *ev)
{
	const char	*said = ev->text != NULL ? ev->text : ev->cause;

	if (ev->result != IMAP_OPS_OK) {
		tui_error("%s", said != NULL ? said : "failed");
		return;
	}
	if (said != NULL && (ev->jkind != TJ_FLAG || s->op_tagged))
		tui_message("%s", said);
	ixs_refresh(s);
}

static void
ixs_event(struct tui_screen *sc, struct tui_event *ev)
{
	struct ixs		*s = sc->data;
	struct tui_screen	*p;

	if (ev->kind == TE_DONE && ev->job != 0 && ev->job == s->load_job) {
		s->load_job = 0;
		if (ev->data != NULL) {
			if (((struct load *)ev->data)->more)
				s->load_again = 1;
			ixs_take(s, ev->data);
			ev->data = NULL;
		}
		if (s->load_again) {
			s->load_again = 0;
			ixs_reload(s);
		}
		tui_dirty();
		return;
	}
	if (ev->acct != s->ta)
		return;
	if (ev->kind == TE_CHANGED && ev->folder != NULL &&
	    strcmp(ev->folder, s->folder) == 0) {
		s->synced = 1;
		ixs_refresh(s);
		ixs_reload(s);
		return;
	}
	/* the rows of a cold cache as they come */
	if (ev->kind == TE_PROGRESS && ev->done > 0) {
		if (s->ix == NULL)
			ixs_load(s);
		else
			ixs_refresh(s);
		return;
	}
	if (ev->kind != TE_DONE)
		return;
	if (ev->job == 0)
		return;
	if (ev->jkind == TJ_FLAG) {
		ixs_drop_overlays(s, ev->job);
		ixs_refresh(s);
	}
	if (ev->job == s->op_job) {
		s->op_job = 0;
		ixs_op_done(s, ev);
		return;
	}
	if (ev->job == s->open_job) {
		s->open_job = 0;
		if (ev->result != IMAP_OPS_OK || ev->msg == NULL) {
			tui_error("cannot open the message: %s",
			    ev->cause != NULL ? ev->cause : "failed");
			return;
		}
		tui_message_clear_if("opening the message...");
		p = tui_pager_new(s->ta, s->folder, s->cur_uid, ev->msg, sc);
		if (p != NULL) {
			ev->msg = NULL;
			tui_push(p);
		}
		/* it is read now */
		{
			const struct index_row	*r = ixs_current(s);

			if (r != NULL && !(ixs_flags(s, r) & MSG_SEEN))
				ixs_set_overlay(s, r->uid, ixs_flags(s, r) |
				    MSG_SEEN, 0);
		}
		return;
	}
	if (ev->job == s->find_job) {
		s->find_job = 0;
		if (ev->result != IMAP_OPS_OK) {
			tui_error("search: %s", ev->cause != NULL ? ev->cause :
			    "failed");
			return;
		}
		free(s->found);
		s->found = ev->uids;
		s->nfound = ev->nuids;
		ev->uids = NULL;
		if (s->nfound == 0)
			tui_message("not found: %s", s->search);
		else
			ixs_found(s, 1);
		return;
	}
	if (ev->job == s->search_job) {
		s->search_job = 0;
		if (ev->result != IMAP_OPS_OK) {
			tui_error("search: %s", ev->cause != NULL ?
			    ev->cause : "failed");
			return;
		}
		free(s->uids);
		s->uids = ev->uids;
		s->nuids = ev->nuids;
		ev->uids = NULL;
		if (s->uids == NULL)
			s->uids = xcalloc(1, sizeof *s->uids);
		qsort(s->uids, s->nuids, sizeof *s->uids, uid_cmp);
		tui_message("%zu found in %s for \"%s\"; l, then Enter, "
		    "shows all again", s->nuids, ev->text != NULL ? ev->text :
		    "the text", s->body_words);
		s->placed = 0;
		ixs_set_view(s);
		return;
	}
	if (ev->job == s->sync_job) {
		s->sync_job = 0;
		s->synced = 1;
		if (ev->result == SESSION_CANCELLED)
			tui_message("stopped; what was fetched is kept, and G "
			    "fetches the rest");
		else if (ev->result != IMAP_OPS_OK)
			tui_error("%s: %s", s->folder, ev->cause != NULL ?
			    ev->cause : "sync failed");
		return;
	}
	if (ev->folder != NULL && strcmp(ev->folder, s->folder) == 0 &&
	    ev->result != IMAP_OPS_OK && (ev->jkind == TJ_FLAG ||
	    ev->jkind == TJ_MOVE || ev->jkind == TJ_COPY ||
	    ev->jkind == TJ_EXPUNGE))
		tui_error("%s", ev->text != NULL ? ev->text : ev->cause != NULL ?
		    ev->cause : "failed");
}

static void
ixs_free(struct tui_screen *sc)
{
	struct ixs	*s = sc->data;

	index_close(s->ix);
	free(s->rows);
	free(s->ov);
	free(s->tagged);
	free(s->folder);
	free(s->limit);
	free(s->search);
	free(s->uids);
	free(s->body_words);
	free(s->found);
	free(s);
	free(sc);
}

static uint32_t
ixs_step(struct tui_screen *sc, uint32_t uid, int dir)
{
	struct ixs		*s;
	size_t			 off;
	struct index_row	*rows = NULL;
	size_t			 n = 0;
	uint32_t		 next = 0;
	char			*cause = NULL;

	if (sc == NULL || (s = sc->data) == NULL || s->ix == NULL)
		return 0;
	if (index_find(s->ix, &s->v, uid, &off) == -1)
		return 0;
	if ((dir < 0 && off == 0) || (dir > 0 && off + 1 >= s->count))
		return 0;
	off = dir < 0 ? off - 1 : off + 1;
	if (index_page(s->ix, &s->v, off, 1, NULL, &rows, &n, &cause) == 0 &&
	    n == 1) {
		next = rows[0].uid;
		s->cur = off;
		s->cur_uid = next;
		s->placed = 1;
		ixs_clamp(s);
	}
	free(cause);
	free(rows);
	return next;
}

/* t in the pager: the message shown tagged here, or untagged. */
static int
ixs_tag_hook(struct tui_screen *sc, uint32_t uid)
{
	struct ixs	*s = sc->data;
	int		 on = !ixs_is_tagged(s, uid);

	ixs_tag(s, uid, on);
	return on;
}

/* The message under the cursor, for reply and forward (tui-write.c). */
static int
ixs_current_hook(struct tui_screen *sc, const char **folder, uint32_t *uid)
{
	struct ixs		*s = sc->data;
	const struct index_row	*r;

	if ((r = ixs_current(s)) == NULL)
		return 0;
	*folder = s->folder;
	*uid = r->uid;
	return 1;
}

struct tui_screen *
tui_index_new(struct tui_account *ta, const char *folder)
{
	struct tui_screen	*sc = xcalloc(1, sizeof *sc);
	struct ixs		*s = xcalloc(1, sizeof *s);

	s->ta = ta;
	s->folder = xstrdup(folder);
	s->v.sort = INDEX_SORT_DATE;
	snprintf(s->title, sizeof s->title, "%s", folder);
	sc->title = s->title;
	sc->map = TM_INDEX;
	sc->draw = ixs_draw;
	sc->action = ixs_action;
	sc->event = ixs_event;
	sc->status = ixs_status;
	sc->free = ixs_free;
	sc->step = ixs_step;
	sc->tag = ixs_tag_hook;
	sc->current = ixs_current_hook;
	sc->data = s;
	/* what the cache has now, then what the server has */
	ixs_load(s);
	ixs_sync(s);
	tui_watch(ta, folder);
	return sc;
}
