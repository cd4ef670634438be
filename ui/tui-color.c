/*
 * tui-color.c: the colour and attribute of everything the interface
 * draws: the default table, then the configuration's `color` lines
 * (read by color.h) over it, with 8, 256 or direct colours as the
 * terminal has them; none with NO_COLOR or a terminal without colours
 * (then attributes only, and no `color` line applies).
 *
 * The chrome that message text must never imitate (the title and status
 * bars, the security bars, the boundaries of protected content) is
 * always drawn in reverse video; a `color` line sets its colours with
 * foreground and background swapped under that attribute, so that they
 * show as written. color_parse() refuses reverse and standout for every
 * object that draws text from a message, so a body can never be drawn
 * as a bar is.
 */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"
#include "config.h"
#include "tui.h"
#include "verdict.h"

int	tui_colors;

struct tui_style {
	short	fg, bg;
	attr_t	attr;		/* with colours */
	attr_t	mono;		/* without */
};

static const struct tui_style styles[TC_COUNT] = {
	[TC_NORMAL] =		{ -1, -1, A_NORMAL, A_NORMAL },
	[TC_TITLE] =		{ COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE },
	[TC_STATUS] =		{ COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_REVERSE },
	[TC_SELECTED] =		{ COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[TC_ERROR] =		{ COLOR_RED, -1, A_BOLD, A_BOLD },
	[TC_HEADER_NAME] =	{ COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[TC_HEADER] =		{ -1, -1, A_NORMAL, A_NORMAL },
	[TC_QUOTE1] =		{ COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[TC_QUOTE2] =		{ COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[TC_QUOTE3] =		{ COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL },
	[TC_URL] =		{ COLOR_BLUE, -1, A_UNDERLINE, A_UNDERLINE },
	[TC_BANNER_GOOD] =	{ COLOR_BLACK, COLOR_GREEN, A_BOLD,
				  A_REVERSE | A_BOLD },
	[TC_BANNER_WARN] =	{ COLOR_BLACK, COLOR_YELLOW, A_BOLD,
				  A_REVERSE | A_BOLD },
	[TC_BANNER_BAD] =	{ COLOR_WHITE, COLOR_RED, A_BOLD,
				  A_REVERSE | A_BOLD | A_BLINK },
	[TC_BOUNDARY] =		{ COLOR_BLACK, COLOR_WHITE, A_NORMAL,
				  A_REVERSE },
	[TC_PART] =		{ COLOR_CYAN, -1, A_NORMAL, A_DIM },
	[TC_NOTE] =		{ COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[TC_NEW] =		{ -1, -1, A_BOLD, A_BOLD },
	[TC_FLAGGED] =		{ COLOR_RED, -1, A_BOLD, A_BOLD },
	[TC_DELETED] =		{ COLOR_BLACK, -1, A_BOLD, A_DIM },
	[TC_IND_GOOD] =		{ COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[TC_IND_WARN] =		{ COLOR_YELLOW, -1, A_BOLD, A_NORMAL },
	[TC_IND_BAD] =		{ COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[TC_TREE] =		{ COLOR_BLUE, -1, A_NORMAL, A_NORMAL },
	[TC_INDEX] =		{ -1, -1, A_NORMAL, A_NORMAL },
	[TC_MESSAGE] =		{ -1, -1, A_NORMAL, A_NORMAL },
	[TC_SIGNATURE] =	{ -1, -1, A_NORMAL, A_NORMAL },
	[TC_TILDE] =		{ COLOR_BLUE, -1, A_NORMAL, A_NORMAL },
};

/* What each object of a color line sets. */
static const enum tui_color tui_color_of[COLOR_OBJ_COUNT] = {
	[COLOR_NORMAL] = TC_NORMAL,
	[COLOR_INDEX] = TC_INDEX,
	[COLOR_INDEX_NEW] = TC_NEW,
	[COLOR_INDEX_FLAGGED] = TC_FLAGGED,
	[COLOR_INDEX_DELETED] = TC_DELETED,
	[COLOR_INDICATOR] = TC_SELECTED,
	[COLOR_TITLE] = TC_TITLE,
	[COLOR_STATUS] = TC_STATUS,
	[COLOR_MESSAGE] = TC_MESSAGE,
	[COLOR_ERROR] = TC_ERROR,
	[COLOR_HEADER] = TC_HEADER,
	[COLOR_HEADER_NAME] = TC_HEADER_NAME,
	[COLOR_QUOTED] = TC_QUOTE1,
	[COLOR_QUOTED1] = TC_QUOTE2,
	[COLOR_QUOTED2] = TC_QUOTE3,
	[COLOR_SIGNATURE] = TC_SIGNATURE,
	[COLOR_URL] = TC_URL,
	[COLOR_ATTACHMENT] = TC_PART,
	[COLOR_NOTE] = TC_NOTE,
	[COLOR_TREE] = TC_TREE,
	[COLOR_TILDE] = TC_TILDE,
	[COLOR_SECURITY_GOOD] = TC_BANNER_GOOD,
	[COLOR_SECURITY_WARN] = TC_BANNER_WARN,
	[COLOR_SECURITY_BAD] = TC_BANNER_BAD,
	[COLOR_BOUNDARY] = TC_BOUNDARY,
	[COLOR_VERDICT] = TC_NORMAL,	/* tui_verdict_attr() */
};

/* A style in use: from the table, then the color lines. */
struct tui_now {
	int	 fg, bg;	/* curses colour numbers; -1 the default */
	attr_t	 attr;
	int	 set;		/* by a color line */
	short	 pair;
};

static struct tui_now	now[TC_COUNT];

/* The verdicts (verdict.h) a color line gave a colour of their own; the
 * others keep their tone's. Their pairs follow the table's. */
#define TUI_VERDICTS	32
static struct {
	const struct verdict_word *w;
	struct tui_now		 s;
} verdicts[TUI_VERDICTS];
static size_t	nverdicts;

static int
tui_color_chrome(enum tui_color c)
{
	return c == TC_TITLE || c == TC_STATUS || c == TC_BANNER_GOOD ||
	    c == TC_BANNER_WARN || c == TC_BANNER_BAD || c == TC_BOUNDARY;
}

/* A colour of a color line as this terminal has it; *bold for one of
 * the bright eight on a terminal of eight. */
static int
tui_color_number(const struct color_value *v, int *bold)
{
	if (v->kind == COLOR_DEFAULT)
		return -1;
	if (tui_colors == TUI_COLORS_DIRECT) {
		if (v->kind == COLOR_RGB)
			return (int)v->v;
		if (v->v < 8)
			return (int)v->v;
		return (int)color_rgb(v);
	}
	if (tui_colors == 256) {
		if (v->kind == COLOR_RGB)
			return color_to_256(v->v);
		return (int)v->v;
	}
	if (v->kind == COLOR_NUMBER && v->v >= 8 && v->v < 16)
		*bold = 1;
	return color_to_8(v);
}

static attr_t
tui_color_attrs(unsigned a)
{
	attr_t	r = A_NORMAL;

	if (a & COLOR_A_BOLD)
		r |= A_BOLD;
	if (a & COLOR_A_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & COLOR_A_REVERSE)
		r |= A_REVERSE;
	if (a & COLOR_A_STANDOUT)
		r |= A_STANDOUT;
	if (a & COLOR_A_BLINK)
		r |= A_BLINK;
	if (a & COLOR_A_DIM)
		r |= A_DIM;
#ifdef A_ITALIC
	if (a & COLOR_A_ITALIC)
		r |= A_ITALIC;
#endif
	return r;
}

static void
tui_color_apply(const struct color_line *cl)
{
	struct tui_now	*to = &now[tui_color_of[cl->obj]];
	size_t		 i;
	int		 bold = 0;

	if (cl->obj == COLOR_VERDICT) {
		for (i = 0; i < nverdicts; i++)
			if (verdicts[i].w == cl->word)
				break;
		if (i == TUI_VERDICTS)
			return;
		if (i == nverdicts)
			verdicts[nverdicts++].w = cl->word;
		to = &verdicts[i].s;
	}
	to->fg = tui_color_number(&cl->fg, &bold);
	to->bg = tui_color_number(&cl->bg, &bold);
	to->attr = tui_color_attrs(cl->attrs) | (bold ? A_BOLD : 0);
	to->set = 1;
}

static void
tui_color_pair(short pair, int fg, int bg)
{
#if defined(NCURSES_EXT_COLORS)
	init_extended_pair(pair, fg, bg);
#else
	init_pair(pair, (short)fg, (short)bg);
#endif
}

static void
tui_color_pairs(void)
{
	int	i, fg, bg;

	for (i = 0; i < TC_COUNT; i++) {
		fg = now[i].fg;
		bg = now[i].bg;
		if (tui_color_chrome(i)) {
			/* reverse video, the colours swapped under it */
			now[i].attr |= A_REVERSE;
			fg = now[i].bg;
			bg = now[i].fg;
		}
		if (fg == -1 && bg == -1 && !tui_color_chrome(i)) {
			now[i].pair = 0;
			continue;
		}
		now[i].pair = (short)(i + 1);
		tui_color_pair(now[i].pair, fg, bg);
	}
	for (i = 0; i < (int)nverdicts; i++) {
		verdicts[i].s.pair = (short)(TC_COUNT + 1 + i);
		tui_color_pair(verdicts[i].s.pair, verdicts[i].s.fg,
		    verdicts[i].s.bg);
	}
}

void
tui_draw_init(void)
{
	const char	*nc = getenv("NO_COLOR");
	int		 i;

	tui_colors = 0;
	nverdicts = 0;
	for (i = 0; i < TC_COUNT; i++) {
		now[i].fg = styles[i].fg;
		now[i].bg = styles[i].bg;
		now[i].attr = styles[i].attr;
		now[i].set = 0;
		now[i].pair = 0;
	}
	if ((nc != NULL && *nc != '\0') || !has_colors() ||
	    start_color() != OK)
		return;
	use_default_colors();
	if (COLORS >= 0x1000000)
		tui_colors = TUI_COLORS_DIRECT;
	else
		tui_colors = COLORS >= 256 ? 256 : 8;
	tui_color_pairs();
}

void
tui_color_load(const struct config *cf)
{
	struct color_line	 cl;
	char			*why;
	size_t			 i;

	if (!tui_colors)
		return;
	for (i = 0; i < cf->ncolors; i++) {
		/* config_load() has read each already */
		if (color_parse(cf->colors[i], &cl, &why) != 0) {
			free(why);
			continue;
		}
		tui_color_apply(&cl);
	}
	tui_color_pairs();
}

int
tui_attr(enum tui_color c)
{
	if ((unsigned)c >= TC_COUNT)
		c = TC_NORMAL;
	if (!tui_colors)
		return (int)styles[c].mono;
	return (int)(now[c].attr | COLOR_PAIR(now[c].pair));
}

/* A verdict's tone as an indicator's and as a banner's attribute. */
int
tui_tone_ind(enum verdict_tone t)
{
	switch (t) {
	case VERDICT_GOOD:
		return tui_attr(TC_IND_GOOD);
	case VERDICT_WARN:
		return tui_attr(TC_IND_WARN);
	case VERDICT_BAD:
		return tui_attr(TC_IND_BAD);
	default:
		return tui_attr(TC_NORMAL);
	}
}

int
tui_tone_banner(enum verdict_tone t)
{
	switch (t) {
	case VERDICT_GOOD:
		return tui_attr(TC_BANNER_GOOD);
	case VERDICT_BAD:
		return tui_attr(TC_BANNER_BAD);
	default:
		return tui_attr(TC_BANNER_WARN);
	}
}

int
tui_verdict_attr(const struct verdict_word *w)
{
	size_t	i;

	if (tui_colors) {
		for (i = 0; i < nverdicts; i++)
			if (verdicts[i].w == w)
				return (int)(verdicts[i].s.attr |
				    COLOR_PAIR(verdicts[i].s.pair));
	}
	return tui_tone_ind(w->tone);
}
