/*
 * color.h: the `color` lines of the configuration, read into what they
 * ask for: an object (what is drawn), a foreground and a background (the
 * terminal's default, one of 256 numbered colours, or a direct #rrggbb
 * one) and attributes. The names of the objects are mutt's where mutt has
 * them, steedmail's own for the rest (the security bars; each trust state
 * and each protection verdict by its token in verdict.h, trust-known,
 * protection-bad-signature); the interface (ui/tui-color.c) maps each
 * object to what it draws. Never touches the terminal.
 */
#ifndef STEED_COLOR_H
#define STEED_COLOR_H

#include <stddef.h>
#include <stdint.h>

struct verdict_word;

enum color_obj {
	COLOR_NORMAL,
	COLOR_INDEX,		/* a row of the index */
	COLOR_INDEX_NEW,	/* mutt's `color index ... ~N` */
	COLOR_INDEX_FLAGGED,	/* ~F */
	COLOR_INDEX_DELETED,	/* ~D */
	COLOR_INDICATOR,	/* the cursor row */
	COLOR_TITLE,		/* the top bar */
	COLOR_STATUS,		/* the bottom bar */
	COLOR_MESSAGE,		/* an informational message */
	COLOR_ERROR,
	COLOR_HEADER,		/* a header field's value */
	COLOR_HEADER_NAME,	/* its name */
	COLOR_QUOTED,		/* quote levels 1, 2, 3 and deeper */
	COLOR_QUOTED1,
	COLOR_QUOTED2,
	COLOR_SIGNATURE,	/* body text after "-- " */
	COLOR_URL,
	COLOR_ATTACHMENT,	/* part and attachment lines */
	COLOR_NOTE,		/* steedmail's notes on a message */
	COLOR_TREE,		/* thread lines */
	COLOR_TILDE,		/* the pager's lines past the end */
	COLOR_SECURITY_GOOD,	/* the security bars, by their verdict */
	COLOR_SECURITY_WARN,
	COLOR_SECURITY_BAD,
	COLOR_BOUNDARY,		/* where protected content begins, ends */
	COLOR_VERDICT,		/* trust-TOKEN, protection-TOKEN: the
				   indicator of one word of verdict.h */
	COLOR_OBJ_COUNT
};

/*
 * What an object may be given. Chrome (the bars and boundaries only
 * steedmail draws) is always drawn in reverse video; text from a message
 * (or a header) is never, so no `color` line may give it reverse or
 * standout, and a message cannot imitate the chrome.
 */
enum color_class {
	COLOR_CLASS_CHROME,
	COLOR_CLASS_TEXT,
	COLOR_CLASS_OTHER
};

enum color_kind {
	COLOR_DEFAULT,		/* the terminal's own */
	COLOR_NUMBER,		/* 0-255 (0-7: the 8 basic colours) */
	COLOR_RGB		/* 0xrrggbb */
};

struct color_value {
	enum color_kind	 kind;
	uint32_t	 v;
};

#define COLOR_A_BOLD		0x01
#define COLOR_A_UNDERLINE	0x02
#define COLOR_A_REVERSE		0x04
#define COLOR_A_STANDOUT	0x08
#define COLOR_A_BLINK		0x10
#define COLOR_A_DIM		0x20
#define COLOR_A_ITALIC		0x40

struct color_line {
	enum color_obj		 obj;
	const struct verdict_word *word;	/* COLOR_VERDICT's */
	struct color_value	 fg, bg;
	unsigned		 attrs;		/* COLOR_A_* */
};

/*
 * Read "OBJECT FG BG [ATTR...]" (or mutt's "OBJECT [ATTR...] FG BG").
 * Colours: default, black, red, green, yellow, blue, magenta, cyan, white
 * (bright...: the bright eight, 8-15), colorN (0-255), #rrggbb. Returns 0
 * and *out; 1 with *why for a line to skip (an object steedmail does not
 * draw, a mutt pattern it does not know): a warning, not an error; -1
 * with *why (allocated) for a line that is wrong.
 */
int		 color_parse(const char *line, struct color_line *out,
		     char **why);
const char	*color_obj_name(enum color_obj);
enum color_class color_obj_class(enum color_obj);
/* The nearest of the 256 colours (16-255) to a direct one, and of the
 * basic 8 to any. */
int		 color_to_256(uint32_t rgb);
/* A colour's 0xrrggbb (xterm's values for the numbered ones). */
uint32_t	 color_rgb(const struct color_value *);
int		 color_to_8(const struct color_value *);

#endif
