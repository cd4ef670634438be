/*
 * tui-help.c: the help screen. It owns a list of lines made when it
 * opens: the bindings of one screen's map, then those of the generic map
 * that still reach it (tui_key_each()), each as its keys, action name and
 * one-line description; and, for the index and the pager, the legend of
 * the indicator glyphs in their colours and in the locale's form (UTF-8 or
 * ASCII). The main loop pushes it on `?`. It scrolls and draws through
 * tui-draw.c; it never reads a message or the network.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "tui.h"
#include "xmalloc.h"

enum tui_help_kind {
	TUI_HELP_BLANK,
	TUI_HELP_HEADING,
	TUI_HELP_BINDING,
	TUI_HELP_GLYPH
};

struct tui_help_line {
	enum tui_help_kind kind;
	char		*text;		/* a heading, or a binding's keys */
	enum tui_action	 action;
	enum tui_glyph	 glyph;
	const struct verdict_word *word; /* or the glyph of a verdict */
};

struct tui_help {
	enum tui_map	 map;
	struct tui_help_line *lines;
	size_t		 n;
	size_t		 top;		/* first line shown */
	char		 title[64];
};

/* The colour each indicator is drawn in, on the index and in the legend. */
static const enum tui_color tui_help_glyph_color[TG_COUNT] = {
	[TG_NEW] = TC_NEW,
	[TG_REPLIED] = TC_NORMAL,
	[TG_FLAGGED] = TC_FLAGGED,
	[TG_DELETED] = TC_DELETED,
	[TG_TAGGED] = TC_NORMAL,
	[TG_ATTACHMENT] = TC_NORMAL,
	[TG_TREE_BRANCH] = TC_TREE,
	[TG_TREE_LAST] = TC_TREE,
	[TG_TREE_VERT] = TC_TREE,
	[TG_TREE_ORPHAN] = TC_TREE,
	[TG_COLLAPSED] = TC_TREE,
};

/* Columns of a binding line: keys, action, description. */
#define TUI_HELP_KEYS_X		1
#define TUI_HELP_KEYS_W		18
#define TUI_HELP_NAME_X		20
#define TUI_HELP_NAME_W		16
#define TUI_HELP_TEXT_X		37
/* Columns of a legend line: the glyph, its meaning. */
#define TUI_HELP_GLYPH_X	2
#define TUI_HELP_GLYPH_W	5
#define TUI_HELP_LEGEND_X	8

static struct tui_help_line *
tui_help_add(struct tui_help *h, enum tui_help_kind kind, const char *text)
{
	struct tui_help_line	*l;

	h->lines = xreallocarray(h->lines, h->n + 1, sizeof *h->lines);
	l = &h->lines[h->n++];
	memset(l, 0, sizeof *l);
	l->kind = kind;
	l->text = text != NULL ? xstrdup(text) : NULL;
	return l;
}

/* One binding from tui_key_each(): its keys join those of the same
 * action in the same section, else it starts a line. */
struct tui_help_collect {
	struct tui_help	*h;
	enum tui_map	 section;	/* the map of the last heading */
	size_t		 first;		/* its first line */
};

static void
tui_help_binding(enum tui_map map, int key, enum tui_action action,
    void *arg)
{
	struct tui_help_collect	*c = arg;
	struct tui_help		*h = c->h;
	struct tui_help_line	*l;
	char			 heading[64];
	size_t			 i;

	if (h->n == 0 || map != c->section) {
		if (h->n != 0)
			tui_help_add(h, TUI_HELP_BLANK, NULL);
		if (map == TM_GENERIC && h->map != TM_GENERIC)
			snprintf(heading, sizeof heading, "Keys of every "
			    "screen (generic)");
		else
			snprintf(heading, sizeof heading, "Keys of this "
			    "screen (%s)", tui_map_name(map));
		tui_help_add(h, TUI_HELP_HEADING, heading);
		c->section = map;
		c->first = h->n;
	}
	for (i = c->first; i < h->n; i++) {
		l = &h->lines[i];
		if (l->kind == TUI_HELP_BINDING && l->action == action) {
			l->text = xreallocarray(l->text, strlen(l->text) +
			    strlen(tui_key_name(key)) + 2, 1);
			strcat(l->text, " ");
			strcat(l->text, tui_key_name(key));
			return;
		}
	}
	l = tui_help_add(h, TUI_HELP_BINDING, tui_key_name(key));
	l->action = action;
}

static void
tui_help_legend(struct tui_help *h)
{
	const struct verdict_word *w;
	struct tui_help_line	*l;
	size_t			 i;
	int			 g;

	tui_help_add(h, TUI_HELP_BLANK, NULL);
	tui_help_add(h, TUI_HELP_HEADING, "Indicators");
	/* the legend of src/verdict.c, then the screens' own glyphs */
	for (i = 0; (w = verdict_legend(i)) != NULL; i++) {
		l = tui_help_add(h, TUI_HELP_GLYPH, NULL);
		l->word = w;
	}
	for (g = 0; g < TG_COUNT; g++) {
		l = tui_help_add(h, TUI_HELP_GLYPH, NULL);
		l->glyph = g;
	}
}

static void
tui_help_draw(struct tui_screen *s)
{
	struct tui_help		*h = s->data;
	struct tui_help_line	*l;
	int			 rows = tui_rows(), y;
	size_t			 i;

	for (y = 0; y < rows; y++) {
		i = h->top + y;
		if (i >= h->n) {
			tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "",
			    tui_attr(TC_NORMAL));
			continue;
		}
		l = &h->lines[i];
		tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "", tui_attr(TC_NORMAL));
		switch (l->kind) {
		case TUI_HELP_BLANK:
			break;
		case TUI_HELP_HEADING:
			tui_put(TUI_FIRST_ROW + y, 0, COLS, l->text,
			    tui_attr(TC_HEADER_NAME));
			break;
		case TUI_HELP_BINDING:
			tui_put(TUI_FIRST_ROW + y, TUI_HELP_KEYS_X,
			    TUI_HELP_KEYS_W, l->text, tui_attr(TC_NORMAL));
			tui_put(TUI_FIRST_ROW + y, TUI_HELP_NAME_X,
			    TUI_HELP_NAME_W, tui_action_name(l->action),
			    tui_attr(TC_HEADER));
			if (COLS > TUI_HELP_TEXT_X)
				tui_put(TUI_FIRST_ROW + y, TUI_HELP_TEXT_X,
				    COLS - TUI_HELP_TEXT_X,
				    tui_action_help(l->action),
				    tui_attr(TC_NORMAL));
			break;
		case TUI_HELP_GLYPH:
			if (l->word != NULL) {
				tui_put(TUI_FIRST_ROW + y, TUI_HELP_GLYPH_X,
				    TUI_HELP_GLYPH_W,
				    tui_verdict_glyph(l->word),
				    tui_verdict_attr(l->word));
				tui_put(TUI_FIRST_ROW + y, TUI_HELP_LEGEND_X,
				    COLS - TUI_HELP_LEGEND_X, l->word->word,
				    tui_attr(TC_NORMAL));
				break;
			}
			tui_put(TUI_FIRST_ROW + y, TUI_HELP_GLYPH_X,
			    TUI_HELP_GLYPH_W, tui_glyph(l->glyph),
			    tui_attr(tui_help_glyph_color[l->glyph]));
			tui_put(TUI_FIRST_ROW + y, TUI_HELP_LEGEND_X,
			    COLS - TUI_HELP_LEGEND_X,
			    tui_glyph_name(l->glyph), tui_attr(TC_NORMAL));
			break;
		}
	}
}

static void
tui_help_scroll(struct tui_help *h, long by)
{
	long	top = (long)h->top + by, last;

	last = (long)h->n - tui_rows();
	if (top > last)
		top = last;
	if (top < 0)
		top = 0;
	h->top = (size_t)top;
	tui_dirty();
}

static int
tui_help_action(struct tui_screen *s, enum tui_action action, int key)
{
	struct tui_help	*h = s->data;
	long		 page = tui_rows();

	(void)key;
	switch (action) {
	case TA_UP:
	case TA_LINE_UP:
		tui_help_scroll(h, -1);
		return 1;
	case TA_DOWN:
	case TA_LINE_DOWN:
	case TA_SELECT:
		tui_help_scroll(h, 1);
		return 1;
	case TA_PAGE_UP:
		tui_help_scroll(h, -page);
		return 1;
	case TA_PAGE_DOWN:
		tui_help_scroll(h, page);
		return 1;
	case TA_HALF_UP:
		tui_help_scroll(h, -page / 2);
		return 1;
	case TA_HALF_DOWN:
		tui_help_scroll(h, page / 2);
		return 1;
	case TA_TOP:
		tui_help_scroll(h, -(long)h->n);
		return 1;
	case TA_BOTTOM:
		tui_help_scroll(h, (long)h->n);
		return 1;
	case TA_HELP:
		return 1;		/* already here */
	default:
		return 0;
	}
}

static void
tui_help_event(struct tui_screen *s, struct tui_event *ev)
{
	(void)s;
	(void)ev;
}

static void
tui_help_status(struct tui_screen *s, struct buf *b)
{
	struct tui_help	*h = s->data;
	size_t		 last = h->top + tui_rows();

	if (last > h->n)
		last = h->n;
	buf_addf(b, "help: %s keys, lines %zu-%zu of %zu",
	    tui_map_name(h->map), h->n == 0 ? 0 : h->top + 1, last, h->n);
}

static void
tui_help_free(struct tui_screen *s)
{
	struct tui_help	*h = s->data;
	size_t		 i;

	for (i = 0; i < h->n; i++)
		free(h->lines[i].text);
	free(h->lines);
	free(h);
	free(s);
}

struct tui_screen *
tui_help_new(enum tui_map map)
{
	struct tui_screen	*s;
	struct tui_help		*h;
	struct tui_help_collect	 c;

	h = xcalloc(1, sizeof *h);
	h->map = map;
	snprintf(h->title, sizeof h->title, "Help: the keys of the %s screen",
	    map == TM_GENERIC ? "every" : tui_map_name(map));
	memset(&c, 0, sizeof c);
	c.h = h;
	tui_key_each(map, tui_help_binding, &c);
	if (map == TM_INDEX || map == TM_PAGER)
		tui_help_legend(h);

	s = xcalloc(1, sizeof *s);
	s->title = h->title;
	s->map = TM_HELP;
	s->draw = tui_help_draw;
	s->action = tui_help_action;
	s->event = tui_help_event;
	s->status = tui_help_status;
	s->free = tui_help_free;
	s->data = h;
	return s;
}
