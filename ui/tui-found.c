/*
 * tui-found.c: a search across every folder of an account, and the
 * screen of what it found. It owns the one search under way (its job on
 * the account's worker, a TJ_CALL running session_search_folders(), the
 * same search as `--search QUERY --all-folders`) and the results screen:
 * a row per message found, with its folder (its name shown as the folders
 * screen shows it), date, sender and Subject read from the header cache
 * through index.h on the interface thread's own handle; a message whose
 * headers were never fetched (the server found it) shows its folder and
 * UID. Enter opens a message in the pager (TJ_OPEN on its folder).
 *
 * Called by the loop: tui_found_start() for the key (search-folders),
 * tui_found_event() for every worker event. It never waits on the worker:
 * progress comes as events, the result as the job's TE_DONE. Folder
 * names, senders and subjects are drawn through tui_put(), never raw.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "addr-show.h"
#include "index.h"
#include "imap-ops.h"
#include "search-query.h"
#include "session.h"
#include "session-search.h"
#include "tui.h"
#include "xmalloc.h"

/* What the worker found: the job's payload (ev->data). */
struct found_result {
	char			*query;
	struct session_hit	*hits;
	size_t			 n;
	unsigned		 who;		/* SESSION_FOUND_* */
};

/* The search under way (one at a time: a new one replaces it). */
static struct {
	struct tui_account	*ta;
	uint64_t		 job;
	char			*query;
} found_wait;

/* A folder's part of the results: its rows as the header cache has them. */
struct found_folder {
	char			*name;		/* as the server names it */
	char			*shown;		/* as the folders screen shows
						   it */
	struct index_row	*rows;		/* the cached ones, by date */
	size_t			 nrows;
};

/* One row of the screen. */
struct found_row {
	struct found_folder	*folder;
	uint32_t		 uid;
	struct index_row	*r;		/* NULL: headers not cached */
	int			 opened;	/* read here: no longer new */
};

struct found {
	struct tui_account	*ta;
	char			*query;
	struct found_folder	*folders;
	size_t			 nfolders;
	struct found_row	*rows;
	size_t			 n;
	size_t			 cursor, top;
	int			 folder_w;	/* the longest folder name's
						   width */
	uint64_t		 open_job;
	size_t			 open_row;
	char			 title[128];
};

static void
found_result_free(void *arg)
{
	struct found_result	*fr = arg;

	if (fr == NULL)
		return;
	session_search_hits_free(fr->hits, fr->n);
	free(fr->query);
	free(fr);
}

/* ---- the search, on the worker ------------------------------------------ */

/* The TJ_CALL: session_search_folders() on the worker's session. */
static int
found_call(struct session *s, void *arg, struct tui_event *ev)
{
	struct found_result	*fr = xcalloc(1, sizeof *fr);
	int			 rc;

	fr->query = arg;
	rc = session_search_folders(s, fr->query, &fr->hits, &fr->n,
	    &fr->who, &ev->cause);
	ev->data = fr;
	ev->discard = found_result_free;
	return rc;
}

void
tui_found_start(struct tui_account *ta)
{
	struct tui_job		 j;
	struct search_query	 q;
	char			*a, *cause = NULL;

	a = tui_prompt("Search every folder for: ", NULL, 0, NULL, NULL);
	if (a == NULL || *a == '\0') {
		free(a);
		return;
	}
	/* a query that cannot be read is said at once, with no job */
	if (search_query_parse(a, &q, &cause) == -1) {
		tui_error("search: %s", cause != NULL ? cause :
		    "the query cannot be read");
		free(cause);
		free(a);
		return;
	}
	search_query_free(&q);
	memset(&j, 0, sizeof j);
	j.kind = TJ_CALL;
	j.fn = found_call;
	j.fn_arg = xstrdup(a);
	free(found_wait.query);
	found_wait.ta = ta;
	found_wait.query = a;
	found_wait.job = tui_submit(ta, &j);
	tui_message("searching every folder for \"%s\"... (^C stops)", a);
}

/* ---- the screen ---------------------------------------------------------- */

static int
found_uid_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A folder's hits (uids, ascending) as rows: the cached ones from the
 * header cache, by date, then those whose headers it lacks, by UID.
 */
static void
found_add_folder(struct found *f, struct found_folder *ff,
    const uint32_t *uids, size_t n)
{
	struct cache		*c = tui_account_cache(f->ta);
	struct index		*ix = NULL;
	struct index_view	 v;
	char			*cause = NULL, *done;
	size_t			 i;
	uint32_t		*at;

	memset(&v, 0, sizeof v);
	v.sort = INDEX_SORT_DATE;
	v.uids = uids;
	v.nuids = n;
	if (c != NULL && (ix = index_open(c, ff->name, &cause)) != NULL) {
		index_readonly(ix);
		if (index_page(ix, &v, 0, n, tui_account_trust(f->ta),
		    &ff->rows, &ff->nrows, &cause) == -1) {
			free(cause);
			cause = NULL;
			ff->rows = NULL;
			ff->nrows = 0;
		}
		index_close(ix);
	}
	free(cause);
	done = xcalloc(n + 1, 1);
	f->rows = xreallocarray(f->rows, f->n + n + 1, sizeof *f->rows);
	for (i = 0; i < ff->nrows; i++) {
		if ((at = bsearch(&ff->rows[i].uid, uids, n, sizeof *uids,
		    found_uid_cmp)) == NULL || done[at - uids])
			continue;
		done[at - uids] = 1;
		memset(&f->rows[f->n], 0, sizeof *f->rows);
		f->rows[f->n].folder = ff;
		f->rows[f->n].uid = ff->rows[i].uid;
		f->rows[f->n++].r = &ff->rows[i];
	}
	for (i = 0; i < n; i++) {
		if (done[i] || (i > 0 && uids[i] == uids[i - 1]))
			continue;
		memset(&f->rows[f->n], 0, sizeof *f->rows);
		f->rows[f->n].folder = ff;
		f->rows[f->n++].uid = uids[i];
	}
	free(done);
}

static void
found_date(time_t t, char *out, size_t len)
{
	struct tm	tm, now;
	time_t		n = time(NULL);

	localtime_r(&t, &tm);
	localtime_r(&n, &now);
	if (t == 0)
		snprintf(out, len, "%6s", "");
	else if (tm.tm_year == now.tm_year && tm.tm_yday == now.tm_yday)
		strftime(out, len, " %H:%M", &tm);
	else if (tm.tm_year == now.tm_year)
		strftime(out, len, "%b %d", &tm);
	else
		strftime(out, len, "  %Y", &tm);
}

/* The folder column: the longest name, within reason for the width. */
static int
found_folder_width(const struct found *f)
{
	int	w = f->folder_w;

	if (w > COLS / 4)
		w = COLS / 4;
	return w < 6 ? 6 : w;
}

static void
found_draw_row(struct found *f, int y, struct found_row *fr, int sel)
{
	const struct index_row	*r = fr->r;
	msg_flags		 fl = r != NULL ? msg_flags_of(r->flags) : 0;
	char			 date[32], *who, uid[48];
	int			 base, x, sw, warn, fw = found_folder_width(f);

	if (fr->opened)
		fl |= MSG_SEEN;
	if (sel)
		base = tui_attr(TC_SELECTED);
	else if (r != NULL && !(fl & MSG_SEEN))
		base = tui_attr(TC_NEW);
	else
		base = tui_attr(TC_INDEX);
	tui_putfill(y, 0, COLS, "", base);
	if (r != NULL)
		tui_put(y, 1, 1, (fl & MSG_DELETED) ? tui_glyph(TG_DELETED) :
		    !(fl & MSG_SEEN) ? tui_glyph(TG_NEW) : " ", base);
	x = 3;
	tui_put(y, x, fw, fr->folder->shown, base);
	x += fw + 2;
	if (x >= COLS)
		return;
	if (r == NULL) {
		snprintf(uid, sizeof uid, "UID %u (headers not fetched yet)",
		    (unsigned)fr->uid);
		tui_put(y, x, COLS - x, uid, sel ? base : tui_attr(TC_NOTE));
		return;
	}
	found_date(r->date, date, sizeof date);
	x += tui_put(y, x, COLS - x, date, base) + 1;
	if (x >= COLS)
		return;
	sw = COLS - x < 60 ? (COLS - x) / 3 : 20;
	who = addr_show_sender(r->from_name, r->from_addr, &warn);
	tui_put(y, x, sw, who, warn && !sel ? tui_attr(TC_IND_BAD) : base);
	free(who);
	x += sw + 1;
	if (x >= COLS)
		return;
	/* a sealed row's words are steedmail's, drawn as its own notes */
	if (r->sealed)
		tui_put(y, x, COLS - x, INDEX_SEALED_SUBJECT, sel ? base :
		    tui_attr(TC_NOTE));
	else
		tui_put(y, x, COLS - x, r->subject != NULL ? r->subject :
		    "(no subject)", base);
}

static void
found_clamp(struct found *f)
{
	size_t	rows = (size_t)(tui_rows() > 0 ? tui_rows() : 1);

	if (f->n == 0) {
		f->cursor = f->top = 0;
		return;
	}
	if (f->cursor >= f->n)
		f->cursor = f->n - 1;
	if (f->cursor < f->top)
		f->top = f->cursor;
	if (f->cursor >= f->top + rows)
		f->top = f->cursor - rows + 1;
}

static void
found_draw(struct tui_screen *s)
{
	struct found	*f = s->data;
	int		 rows = tui_rows(), y;
	size_t		 i;

	found_clamp(f);
	for (y = 0; y < rows; y++) {
		i = f->top + (size_t)y;
		if (i >= f->n) {
			tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "",
			    tui_attr(TC_NORMAL));
			continue;
		}
		found_draw_row(f, TUI_FIRST_ROW + y, &f->rows[i],
		    i == f->cursor);
	}
}

static void
found_status(struct tui_screen *s, struct buf *b)
{
	struct found	*f = s->data;

	buf_addf(b, " %zu/%zu  %zu found in %zu folder%s for \"%s\"",
	    f->n > 0 ? f->cursor + 1 : 0, f->n, f->n, f->nfolders,
	    f->nfolders == 1 ? "" : "s", f->query);
}

static void
found_move(struct found *f, long by)
{
	if (f->n == 0)
		return;
	if (by < 0 && (size_t)-by > f->cursor)
		f->cursor = 0;
	else if (by > 0 && f->cursor + (size_t)by >= f->n)
		f->cursor = f->n - 1;
	else
		f->cursor = (size_t)((long)f->cursor + by);
	tui_dirty();
}

static void
found_open(struct found *f)
{
	struct found_row	*fr;
	struct tui_job		 j;

	if (f->n == 0)
		return;
	fr = &f->rows[f->cursor];
	memset(&j, 0, sizeof j);
	j.kind = TJ_OPEN;
	j.folder = fr->folder->name;
	j.uid = fr->uid;
	f->open_job = tui_submit(f->ta, &j);
	f->open_row = f->cursor;
	tui_message("opening the message...");
}

static int
found_action(struct tui_screen *s, enum tui_action a, int key)
{
	struct found	*f = s->data;
	long		 page = tui_rows();

	(void)key;
	switch (a) {
	case TA_UP:
		found_move(f, -1);
		return 1;
	case TA_DOWN:
		found_move(f, 1);
		return 1;
	case TA_PAGE_UP:
		found_move(f, -page);
		return 1;
	case TA_PAGE_DOWN:
		found_move(f, page);
		return 1;
	case TA_HALF_UP:
		found_move(f, -page / 2);
		return 1;
	case TA_HALF_DOWN:
		found_move(f, page / 2);
		return 1;
	case TA_TOP:
		found_move(f, -(long)f->n);
		return 1;
	case TA_BOTTOM:
		found_move(f, (long)f->n);
		return 1;
	case TA_SELECT:
		found_open(f);
		return 1;
	default:
		return 0;
	}
}

static void
found_event(struct tui_screen *s, struct tui_event *ev)
{
	struct found		*f = s->data;
	struct found_row	*fr;
	struct tui_screen	*p;

	if (ev->acct != f->ta || ev->kind != TE_DONE || ev->job == 0 ||
	    ev->job != f->open_job)
		return;
	f->open_job = 0;
	if (ev->result != IMAP_OPS_OK || ev->msg == NULL) {
		tui_error("cannot open the message: %s", ev->cause != NULL ?
		    ev->cause : "failed");
		return;
	}
	tui_message_clear_if("opening the message...");
	if (f->open_row >= f->n)
		return;
	fr = &f->rows[f->open_row];
	fr->opened = 1;
	/* no index below to step through: j and k say so */
	if ((p = tui_pager_new(f->ta, fr->folder->name, fr->uid, ev->msg,
	    NULL)) != NULL) {
		ev->msg = NULL;
		tui_push(p);
	}
}

/* The message under the cursor, for reply and forward (tui-write.c). */
static int
found_current(struct tui_screen *s, const char **folder, uint32_t *uid)
{
	struct found	*f = s->data;

	if (f->n == 0)
		return 0;
	*folder = f->rows[f->cursor].folder->name;
	*uid = f->rows[f->cursor].uid;
	return 1;
}

static void
found_free(struct tui_screen *s)
{
	struct found	*f = s->data;
	size_t		 i;

	for (i = 0; i < f->nfolders; i++) {
		free(f->folders[i].name);
		free(f->folders[i].shown);
		free(f->folders[i].rows);
	}
	free(f->folders);
	free(f->rows);
	free(f->query);
	free(f);
	free(s);
}

/* The screen of fr's hits (hits by folder, then UID, as the engine gives
 * them). */
static struct tui_screen *
found_new(struct tui_account *ta, const struct found_result *fr)
{
	struct tui_screen	*s;
	struct found		*f = xcalloc(1, sizeof *f);
	struct found_folder	*ff;
	uint32_t		*uids;
	size_t			 i, j, k;
	int			 w;

	f->ta = ta;
	f->query = xstrdup(fr->query);
	/* the folders first: the rows point into this array */
	for (i = 0, k = 0; i < fr->n; i++)
		if (i == 0 || strcmp(fr->hits[i].folder,
		    fr->hits[i - 1].folder) != 0)
			k++;
	f->folders = xcalloc(k + 1, sizeof *f->folders);
	for (i = 0; i < fr->n; i = j) {
		for (j = i; j < fr->n && strcmp(fr->hits[j].folder,
		    fr->hits[i].folder) == 0; j++)
			;
		ff = &f->folders[f->nfolders++];
		ff->name = xstrdup(fr->hits[i].folder);
		/* names are UTF-8 above the wire (imap-name.h) */
		ff->shown = xstrdup(ff->name);
		if ((w = tui_width(ff->shown)) > f->folder_w)
			f->folder_w = w;
		uids = xcalloc(j - i, sizeof *uids);
		for (k = i; k < j; k++)
			uids[k - i] = fr->hits[k].uid;
		qsort(uids, j - i, sizeof *uids, found_uid_cmp);
		found_add_folder(f, ff, uids, j - i);
		free(uids);
	}
	snprintf(f->title, sizeof f->title, "Search: %s", f->query);

	s = xcalloc(1, sizeof *s);
	s->title = f->title;
	s->map = TM_GENERIC;
	s->draw = found_draw;
	s->action = found_action;
	s->event = found_event;
	s->status = found_status;
	s->free = found_free;
	s->current = found_current;
	s->data = f;
	return s;
}

/* ---- the search's answer --------------------------------------------------- */

static void
found_done(struct tui_event *ev)
{
	struct found_result	*fr = ev->data;
	const char		*by;

	free(found_wait.query);
	found_wait.query = NULL;
	found_wait.job = 0;
	if (ev->result == SESSION_CANCELLED) {
		tui_message("search stopped");
		return;
	}
	if (ev->result != IMAP_OPS_OK || fr == NULL) {
		tui_error("search: %s", ev->cause != NULL ? ev->cause :
		    "failed");
		return;
	}
	by = (fr->who & SESSION_FOUND_SERVER) == 0 ? "the cached mail" :
	    (fr->who & SESSION_FOUND_CACHE) != 0 ?
	    "the cached mail and the server" : "the server";
	if (fr->n == 0) {
		if (ev->cause != NULL)
			tui_error("nothing found in any folder for \"%s\"; only "
			    "the cached mail was searched: %s", fr->query,
			    ev->cause);
		else
			tui_message("nothing found in any folder for \"%s\"",
			    fr->query);
		return;
	}
	tui_push(found_new(ev->acct, fr));
	if (ev->cause != NULL)
		tui_error("only the cached mail was searched: %s", ev->cause);
	else
		tui_message("%zu found in %s for \"%s\"", fr->n, by,
		    fr->query);
}

void
tui_found_event(struct tui_event *ev)
{
	if (found_wait.job == 0 || ev->acct != found_wait.ta)
		return;
	if (ev->kind == TE_PROGRESS && ev->what != NULL &&
	    strcmp(ev->what, SESSION_SEARCH_PROGRESS) == 0 && ev->total > 0) {
		tui_message("searching %llu folders for \"%s\"... %llu done "
		    "(^C stops)", (unsigned long long)ev->total,
		    found_wait.query, (unsigned long long)ev->done);
		return;
	}
	if (ev->kind == TE_DONE && ev->job == found_wait.job)
		found_done(ev);
}
