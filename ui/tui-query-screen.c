/*
 * tui-query-screen.c: the Q screen: what query-command answers for what
 * was asked (tui-query.c runs it), a match a row with its name and third
 * column; Enter writes a new message to the one under the cursor.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrbook.h"
#include "buf.h"
#include "draft.h"
#include "tui.h"
#include "xmalloc.h"

struct tui_query_screen {
	struct tui_account	*ta;
	struct tui_query	*q;
	int			 shown;		/* the answer was drawn */
	size_t			 cur, top;
	char			 title[96];
};

static int
tqs_rows(struct tui_query_screen *qs, const struct addrbook_entry **e)
{
	const char	*msg = NULL, *cause = NULL;
	int		 n;

	n = tui_query_result(qs->q, e, &msg, &cause);
	return n < 0 ? 0 : n;
}

static void
tqs_draw(struct tui_screen *sc)
{
	struct tui_query_screen		*qs = sc->data;
	const struct addrbook_entry	*e = NULL;
	size_t				 n, i;
	int				 y, rows = tui_rows(), attr;

	n = (size_t)tqs_rows(qs, &e);
	if (qs->cur >= n && n > 0)
		qs->cur = n - 1;
	if (qs->cur < qs->top)
		qs->top = qs->cur;
	if (rows > 0 && qs->cur >= qs->top + (size_t)rows)
		qs->top = qs->cur - (size_t)rows + 1;
	for (y = 0; y < rows; y++) {
		i = qs->top + (size_t)y;
		if (i >= n) {
			tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "",
			    tui_attr(TC_NORMAL));
			continue;
		}
		attr = tui_attr(i == qs->cur ? TC_SELECTED : TC_NORMAL);
		tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "", attr);
		tui_put(TUI_FIRST_ROW + y, 1, 36, e[i].addr, attr);
		if (COLS > 39)
			tui_put(TUI_FIRST_ROW + y, 38, COLS > 62 ? 24 :
			    COLS - 39, e[i].name != NULL ? e[i].name : "",
			    attr);
		if (COLS > 64)
			tui_put(TUI_FIRST_ROW + y, 63, COLS - 64,
			    e[i].other != NULL ? e[i].other : "", attr);
	}
}

static void
tqs_status(struct tui_screen *sc, struct buf *b)
{
	struct tui_query_screen		*qs = sc->data;
	const struct addrbook_entry	*e;
	const char			*msg = NULL, *cause = NULL;
	int				 n;

	if (!tui_query_done(qs->q)) {
		buf_adds(b, " looking up...  q: back");
		return;
	}
	n = tui_query_result(qs->q, &e, &msg, &cause);
	if (n < 0) {
		buf_addf(b, " %s  q: back", cause != NULL ? cause : "failed");
		return;
	}
	buf_addf(b, " %d match%s", n, n == 1 ? "" : "es");
	if (msg != NULL)
		buf_addf(b, " (%s)", msg);
	buf_adds(b, "  Enter: write to  q: back");
}

/* A new message to the address under the cursor. */
static void
tqs_write(struct tui_query_screen *qs)
{
	const struct addrbook_entry	*e;
	struct addrbook_entry		 one;
	struct tui_screen		*s;
	struct draft			*d;
	char				*to;
	int				 n;

	n = tqs_rows(qs, &e);
	if ((size_t)n <= qs->cur)
		return;
	one = e[qs->cur];
	one.alias = NULL;
	to = addrbook_format(&one);
	d = draft_new(tui_account_config(qs->ta));
	draft_add(d, DRAFT_TO, to);
	free(to);
	if ((s = tui_compose_new(qs->ta, d, NULL, 1)) != NULL)
		tui_push(s);
}

static int
tqs_action(struct tui_screen *sc, enum tui_action a, int key)
{
	struct tui_query_screen		*qs = sc->data;
	const struct addrbook_entry	*e;
	size_t				 n, page;

	(void)key;
	n = (size_t)tqs_rows(qs, &e);
	page = tui_rows() > 1 ? (size_t)tui_rows() - 1 : 1;
	switch (a) {
	case TA_UP:
		if (qs->cur > 0)
			qs->cur--;
		break;
	case TA_DOWN:
		if (qs->cur + 1 < n)
			qs->cur++;
		break;
	case TA_PAGE_UP:
		qs->cur = qs->cur > page ? qs->cur - page : 0;
		break;
	case TA_PAGE_DOWN:
		qs->cur = qs->cur + page < n ? qs->cur + page :
		    (n > 0 ? n - 1 : 0);
		break;
	case TA_TOP:
		qs->cur = 0;
		break;
	case TA_BOTTOM:
		qs->cur = n > 0 ? n - 1 : 0;
		break;
	case TA_SELECT:
		tqs_write(qs);
		break;
	default:
		return 0;
	}
	tui_dirty();
	return 1;
}

/* The answer came (a TE_DONE of a background thread): draw it. */
static void
tqs_event(struct tui_screen *sc, struct tui_event *ev)
{
	struct tui_query_screen	*qs = sc->data;

	if (ev->kind == TE_DONE && ev->acct == NULL && !qs->shown &&
	    tui_query_done(qs->q)) {
		qs->shown = 1;
		tui_dirty();
	}
}

static void
tqs_free(struct tui_screen *sc)
{
	struct tui_query_screen	*qs = sc->data;

	tui_query_unref(qs->q);
	free(qs);
	free(sc);
}

struct tui_screen *
tui_query_new(struct tui_account *ta)
{
	struct tui_query_screen	*qs;
	struct tui_screen	*sc;
	char			*what;

	if (tui.cf->query_command == NULL) {
		tui_error("no query-command in the configuration");
		return NULL;
	}
	what = tui_prompt("Query:", NULL, 0, NULL, NULL);
	if (what == NULL || *what == '\0') {
		free(what);
		return NULL;
	}
	qs = xcalloc(1, sizeof *qs);
	qs->ta = ta;
	qs->q = tui_query_start(what);
	snprintf(qs->title, sizeof qs->title, "query: %.80s", what);
	free(what);

	sc = xcalloc(1, sizeof *sc);
	sc->title = qs->title;
	sc->map = TM_GENERIC;
	sc->draw = tqs_draw;
	sc->action = tqs_action;
	sc->event = tqs_event;
	sc->status = tqs_status;
	sc->free = tqs_free;
	sc->data = qs;
	return sc;
}
