/*
 * tui-draw.c: text on the curses screen. Every string drawn by the
 * interface passes through tui_put(), which first makes it terminal-safe
 * with strsafe(), the one function the whole program uses for that:
 * controls, escape sequences, invalid bytes, bidirectional overrides and
 * anything the terminal could take as a command are drawn as the same
 * visible stand-ins on every screen and in every batch command (ESC as
 * ^[, BEL ^G, CR ^M, BS ^H, RLO <U+202E>, a stray byte \xHH), so no byte
 * from a message or a server is ever sent to the terminal as it came.
 * Also the indicator glyphs with their ASCII forms for a locale that is
 * not UTF-8; the colours, a verdict's tone's too, are tui-color.c's.
 */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "buf.h"
#include "strsafe.h"
#include "tui.h"

int	tui_utf8;

struct tui_glyph_form {
	const char	*utf8;
	const char	*ascii;
	const char	*name;
};

/* Each form is one column wide; no UTF-8 form is an ASCII letter, so the
 * two sets are told apart at a glance. */
static const struct tui_glyph_form glyphs[TG_COUNT] = {
	[TG_NEW] =		{ "N", "N", "new" },
	[TG_REPLIED] =		{ "r", "r", "replied" },
	[TG_FLAGGED] =		{ "!", "!", "flagged" },
	[TG_DELETED] =		{ "D", "D", "deleted" },
	[TG_TAGGED] =		{ "*", "*", "tagged" },
	[TG_ATTACHMENT] =	{ "+", "+", "has attachments" },
	[TG_TREE_BRANCH] =	{ "\xe2\x94\x9c\xe2\x94\x80>", "|->", "reply" },
	[TG_TREE_LAST] =	{ "\xe2\x94\x94\xe2\x94\x80>", "`->", "last reply" },
	[TG_TREE_VERT] =	{ "\xe2\x94\x82 ", "| ", "thread goes on" },
	[TG_TREE_ORPHAN] =	{ "*->", "*->", "parent missing" },
	[TG_COLLAPSED] =	{ "\xe2\x96\xb8", ">", "collapsed thread" },
};

const char *
tui_glyph(enum tui_glyph g)
{
	if ((unsigned)g >= TG_COUNT)
		return "?";
	return tui_utf8 ? glyphs[g].utf8 : glyphs[g].ascii;
}

const char *
tui_glyph_name(enum tui_glyph g)
{
	if ((unsigned)g >= TG_COUNT)
		return "";
	return glyphs[g].name;
}

const char *
tui_verdict_glyph(const struct verdict_word *w)
{
	if (w->utf8 == NULL)
		return "";
	return tui_utf8 ? w->utf8 : w->ascii;
}

/*
 * One code point from s (at most n bytes): its value and length, or -1
 * for a byte that does not start valid, shortest-form UTF-8 (length 1).
 */
static long
utf8_next(const unsigned char *s, size_t n, size_t *len)
{
	unsigned long	 c;
	size_t		 need, i;

	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		c = s[0] & 0x07;
	} else
		return -1;
	if (n < need + 1)
		return -1;
	for (i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((need == 2 && c < 0x800) || (need == 3 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return -1;
	*len = need + 1;
	return (long)c;
}

/*
 * Characters that would change how the terminal or the line behaves: a
 * second line of defence only, since layout() lays out what strsafe()
 * gave, in which none is left.
 */
static int
is_hostile(unsigned long c)
{
	if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
		return 1;
	/* bidirectional embeddings, overrides and isolates; line and
	 * paragraph separators */
	if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
	    c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f ||
	    c == 0x061c)
		return 1;
	/* the view's own mark, and the replacement itself is fine */
	if (c == 0x2503)
		return 1;
	return 0;
}

/*
 * Lay text out into cells: at most width columns. With out NULL only
 * counts. Each cell is a base character and its combining marks.
 */
static int
layout_safe(const char *text, int width, int y, int x, attr_t attr,
    int draw)
{
	const unsigned char	*s = (const unsigned char *)text;
	size_t			 n = strlen(text), len;
	int			 used = 0, w, have_base = 0;
	wchar_t			 cell[8];
	int			 ncell = 0;
	long			 c;
	cchar_t			 cc;

#define FLUSH() do {							\
	if (draw && ncell > 0) {					\
		cell[ncell] = L'\0';					\
		if (setcchar(&cc, cell, attr, PAIR_NUMBER(attr), NULL) == OK) \
			mvadd_wch(y, x + used - cellw, &cc);		\
	}								\
	ncell = 0;							\
} while (0)

	int	cellw = 0;

	if (text == NULL || width <= 0)
		return 0;
	while (n > 0) {
		c = utf8_next(s, n, &len);
		s += len;
		n -= len;
		if (c == '\t') {
			/* to the next multiple of 8 from where text began */
			int	to = (used / 8 + 1) * 8;

			FLUSH();
			while (used < to && used < width) {
				cell[0] = L' ';
				ncell = 1;
				used++;
				cellw = 1;
				FLUSH();
			}
			have_base = 0;
			continue;
		}
		if (c < 0 || is_hostile((unsigned long)c) ||
		    (!tui_utf8 && c >= 0x80)) {
			/* a visible stand-in, never the byte itself */
			c = tui_utf8 ? 0xfffd : '?';
			w = 1;
		} else if (tui_utf8) {
			w = wcwidth((wchar_t)c);
			if (w < 0) {
				c = 0xfffd;
				w = 1;
			}
		} else
			w = 1;
		if (w == 0) {
			/* a combining mark: onto the cell before, if any */
			if (have_base && ncell < 6) {
				cell[ncell++] = (wchar_t)c;
				continue;
			}
			if (have_base)
				continue;
			c = tui_utf8 ? 0xfffd : '?';
			w = 1;
		}
		FLUSH();
		if (used + w > width)
			break;
		cell[0] = (wchar_t)c;
		ncell = 1;
		used += w;
		cellw = w;
		have_base = 1;
	}
	FLUSH();
#undef FLUSH
	return used;
}

/* The text made terminal-safe (TABs kept for the columns), laid out. */
static int
layout(const char *text, int width, int y, int x, attr_t attr, int draw)
{
	struct buf	 b;
	int		 used;

	if (text == NULL || width <= 0)
		return 0;
	buf_init(&b);
	strsafe_add(&b, text, strlen(text), STRSAFE_KEEP_TAB | STRSAFE_MARK);
	used = layout_safe(b.data != NULL ? b.data : "", width, y, x, attr,
	    draw);
	/* it may have been decrypted text (the pager's) */
	if (b.data != NULL)
		explicit_bzero(b.data, b.cap);
	buf_free(&b);
	return used;
}

int
tui_put(int y, int x, int width, const char *text, int attr)
{
	return layout(text, width, y, x, (attr_t)attr, 1);
}

int
tui_putfill(int y, int x, int width, const char *text, int attr)
{
	int	used = layout(text, width, y, x, (attr_t)attr, 1), i;

	for (i = used; i < width; i++)
		mvaddch(y, x + i, ' ' | (chtype)attr);
	return width > used ? width : used;
}

int
tui_width(const char *text)
{
	return layout(text, 1 << 30, 0, 0, 0, 0);
}

void
tui_bar(int y, const char *text, int attr)
{
	tui_putfill(y, 0, COLS, text, attr);
}
