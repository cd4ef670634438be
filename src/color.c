/*
 * color.c: reading one `color` line of the configuration (config.c calls
 * it for each, so that a wrong one is an error with its file and line;
 * the interface reads them again when it starts). One table of object
 * names, with the class that decides which attributes an object may
 * take; doc/steedmail.conf.5 lists the same names.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "color.h"
#include "hex.h"
#include "verdict.h"
#include "xmalloc.h"

struct color_name {
	const char	*name;
	enum color_obj	 obj;
};

static const struct {
	const char	*name;
	enum color_class cls;
} color_objs[COLOR_OBJ_COUNT] = {
	[COLOR_NORMAL] =	{ "normal", COLOR_CLASS_TEXT },
	[COLOR_INDEX] =		{ "index", COLOR_CLASS_TEXT },
	[COLOR_INDEX_NEW] =	{ "index-new", COLOR_CLASS_TEXT },
	[COLOR_INDEX_FLAGGED] =	{ "index-flagged", COLOR_CLASS_TEXT },
	[COLOR_INDEX_DELETED] =	{ "index-deleted", COLOR_CLASS_TEXT },
	[COLOR_INDICATOR] =	{ "indicator", COLOR_CLASS_OTHER },
	[COLOR_TITLE] =		{ "title", COLOR_CLASS_CHROME },
	[COLOR_STATUS] =	{ "status", COLOR_CLASS_CHROME },
	[COLOR_MESSAGE] =	{ "message", COLOR_CLASS_OTHER },
	[COLOR_ERROR] =		{ "error", COLOR_CLASS_OTHER },
	[COLOR_HEADER] =	{ "header", COLOR_CLASS_TEXT },
	[COLOR_HEADER_NAME] =	{ "header-name", COLOR_CLASS_TEXT },
	[COLOR_QUOTED] =	{ "quoted", COLOR_CLASS_TEXT },
	[COLOR_QUOTED1] =	{ "quoted1", COLOR_CLASS_TEXT },
	[COLOR_QUOTED2] =	{ "quoted2", COLOR_CLASS_TEXT },
	[COLOR_SIGNATURE] =	{ "signature", COLOR_CLASS_TEXT },
	[COLOR_URL] =		{ "url", COLOR_CLASS_TEXT },
	[COLOR_ATTACHMENT] =	{ "attachment", COLOR_CLASS_TEXT },
	[COLOR_NOTE] =		{ "note", COLOR_CLASS_OTHER },
	[COLOR_TREE] =		{ "tree", COLOR_CLASS_OTHER },
	[COLOR_TILDE] =		{ "tilde", COLOR_CLASS_OTHER },
	[COLOR_SECURITY_GOOD] =	{ "security-good", COLOR_CLASS_CHROME },
	[COLOR_SECURITY_WARN] =	{ "security-warn", COLOR_CLASS_CHROME },
	[COLOR_SECURITY_BAD] =	{ "security-bad", COLOR_CLASS_CHROME },
	[COLOR_BOUNDARY] =	{ "boundary", COLOR_CLASS_CHROME },
	[COLOR_VERDICT] =	{ "trust-/protection-", COLOR_CLASS_OTHER },
};

/* mutt's other names for the same objects. */
static const struct color_name color_aliases[] = {
	{ "hdrdefault", COLOR_HEADER },
	{ "quoted3", COLOR_QUOTED2 }, { "quoted4", COLOR_QUOTED2 },
	{ "quoted5", COLOR_QUOTED2 }, { "quoted6", COLOR_QUOTED2 },
	{ "quoted7", COLOR_QUOTED2 }, { "quoted8", COLOR_QUOTED2 },
	{ "quoted9", COLOR_QUOTED2 },
};

/* mutt's and NeoMutt's objects that steedmail has nothing to draw for:
 * a theme that sets them still loads. */
static const char *color_ignored[] = {
	"markers", "search", "bold", "underline", "body", "prompt",
	"progress", "options", "attach_headers", "compose_header",
	"compose_security_encrypt", "compose_security_sign",
	"compose_security_both", "compose_security_none", "index_author",
	"index_collapsed", "index_date", "index_flags", "index_label",
	"index_number", "index_size", "index_subject", "index_tag",
	"index_tags", "sidebar_divider", "sidebar_flagged",
	"sidebar_highlight", "sidebar_indicator", "sidebar_new",
	"sidebar_ordinary", "sidebar_spoolfile", "sidebar_unread",
	"stripe_even", "stripe_odd", "warning",
};

static const char *color_basic[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"
};

static const struct {
	const char	*name;
	unsigned	 attr;
} color_attrs[] = {
	{ "bold", COLOR_A_BOLD },
	{ "underline", COLOR_A_UNDERLINE },
	{ "reverse", COLOR_A_REVERSE },
	{ "standout", COLOR_A_STANDOUT },
	{ "blink", COLOR_A_BLINK },
	{ "dim", COLOR_A_DIM },
	{ "italic", COLOR_A_ITALIC },
	{ "none", 0 },
	{ "normal", 0 },
};

#define COLOR_WORDS	16

const char *
color_obj_name(enum color_obj o)
{
	if ((unsigned)o >= COLOR_OBJ_COUNT)
		return "?";
	return color_objs[o].name;
}

enum color_class
color_obj_class(enum color_obj o)
{
	if ((unsigned)o >= COLOR_OBJ_COUNT)
		return COLOR_CLASS_OTHER;
	return color_objs[o].cls;
}

/* trust-TOKEN or protection-TOKEN: the word of verdict.h, or NULL. */
static const struct verdict_word *
color_find_verdict(const char *w)
{
	const struct verdict_word	*v;
	int				 i;

	if (strncasecmp(w, "trust-", 6) == 0) {
		w += 6;
		for (i = TRUST_NONE; i <= TRUST_VERIFIED; i++) {
			v = verdict_trust((enum trust_state)i);
			if (strcasecmp(w, v->token) == 0)
				return v;
		}
		v = verdict_dns_bogus();
		return strcasecmp(w, v->token) == 0 ? v : NULL;
	}
	if (strncasecmp(w, "protection-", 11) == 0) {
		w += 11;
		for (i = 0; i < VERDICT_PROTECTION_COUNT; i++) {
			v = verdict_protection((enum verdict_protection)i);
			if (strcasecmp(w, v->token) == 0)
				return v;
		}
	}
	return NULL;
}

/* 0 and *o for a name of the table or an alias; -1 otherwise. */
static int
color_find_obj(const char *w, enum color_obj *o)
{
	size_t	i;

	for (i = 0; i < COLOR_OBJ_COUNT; i++) {
		if (i != COLOR_VERDICT &&
		    strcasecmp(w, color_objs[i].name) == 0) {
			*o = (enum color_obj)i;
			return 0;
		}
	}
	for (i = 0; i < sizeof color_aliases / sizeof *color_aliases; i++) {
		if (strcasecmp(w, color_aliases[i].name) == 0) {
			*o = color_aliases[i].obj;
			return 0;
		}
	}
	return -1;
}

static int
color_find_attr(const char *w, unsigned *a)
{
	size_t	i;

	for (i = 0; i < sizeof color_attrs / sizeof *color_attrs; i++) {
		if (strcasecmp(w, color_attrs[i].name) == 0) {
			*a |= color_attrs[i].attr;
			return 0;
		}
	}
	return -1;
}

/* One colour word; 0 and *v, -1 when it is none. A bright colour is the
 * bright eight's (8-15). */
static int
color_value(const char *w, struct color_value *v)
{
	const char	*p;
	char		*end;
	unsigned long	 n;
	size_t		 i;
	int		 bright = 0, d;

	if (strcasecmp(w, "default") == 0) {
		v->kind = COLOR_DEFAULT;
		v->v = 0;
		return 0;
	}
	if (w[0] == '#') {
		v->v = 0;
		for (p = w + 1; *p != '\0'; p++) {
			if ((d = hex_value((unsigned char)*p)) == -1)
				return -1;
			v->v = (v->v << 4) | (uint32_t)d;
		}
		if (p - w != 7)
			return -1;
		v->kind = COLOR_RGB;
		return 0;
	}
	if (strncasecmp(w, "bright", 6) == 0) {
		bright = 1;
		w += 6;
	}
	v->kind = COLOR_NUMBER;
	for (i = 0; i < 8; i++) {
		if (strcasecmp(w, color_basic[i]) == 0) {
			v->v = (uint32_t)i + (bright ? 8 : 0);
			return 0;
		}
	}
	if (strncasecmp(w, "color", 5) != 0 ||
	    !isdigit((unsigned char)w[5]))
		return -1;
	n = strtoul(w + 5, &end, 10);
	if (*end != '\0' || n > 255)
		return -1;
	v->v = (uint32_t)n;
	if (bright && n < 8)
		v->v += 8;
	return 0;
}

/* mutt's index patterns steedmail knows: the rows it colours itself. */
static int
color_index_pattern(const char *pat, enum color_obj *o)
{
	if (strcmp(pat, "~N") == 0)
		*o = COLOR_INDEX_NEW;
	else if (strcmp(pat, "~F") == 0)
		*o = COLOR_INDEX_FLAGGED;
	else if (strcmp(pat, "~D") == 0)
		*o = COLOR_INDEX_DELETED;
	else
		return -1;
	return 0;
}

static size_t
color_split(char *s, char **w, size_t max)
{
	size_t	n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return n;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
		if (*s != '\0')
			*s++ = '\0';
	}
}

int
color_parse(const char *line, struct color_line *out, char **why)
{
	char		*copy = xstrdup(line), *w[COLOR_WORDS];
	size_t		 n, i = 1, k;
	unsigned	 attrs = 0;
	int		 rc = -1;

	*why = NULL;
	memset(out, 0, sizeof *out);
	n = color_split(copy, w, COLOR_WORDS);
	if (n == 0) {
		*why = xstrdup("expected OBJECT FOREGROUND BACKGROUND "
		    "[ATTRIBUTES]");
		goto out;
	}
	if (n > COLOR_WORDS) {
		*why = xstrdup("too many words");
		goto out;
	}
	if ((out->word = color_find_verdict(w[0])) != NULL)
		out->obj = COLOR_VERDICT;
	else if (color_find_obj(w[0], &out->obj) == -1) {
		for (k = 0; k < sizeof color_ignored / sizeof *color_ignored;
		    k++) {
			if (strcasecmp(w[0], color_ignored[k]) == 0 ||
			    strncasecmp(w[0], "sidebar_", 8) == 0) {
				*why = xasprintf("steedmail draws no %.64s; "
				    "line ignored", w[0]);
				rc = 1;
				goto out;
			}
		}
		*why = xasprintf("unknown object \"%.64s\"", w[0]);
		goto out;
	}
	/* mutt's attributes before the colours */
	while (i < n && color_find_attr(w[i], &attrs) == 0)
		i++;
	if (i + 2 > n) {
		*why = xstrdup("expected a foreground and a background "
		    "colour");
		goto out;
	}
	if (color_value(w[i], &out->fg) == -1 ||
	    color_value(w[i + 1], &out->bg) == -1) {
		*why = xasprintf("bad colour \"%.64s\" (default, a colour's "
		    "name, colorN from 0 to 255, or #rrggbb)",
		    color_value(w[i], &out->fg) == -1 ? w[i] : w[i + 1]);
		goto out;
	}
	for (i += 2; i < n && color_find_attr(w[i], &attrs) == 0; i++)
		;
	if (i < n) {
		/* a pattern: only mutt's ~N, ~F, ~D after index */
		if (i + 1 == n && out->obj == COLOR_INDEX &&
		    color_index_pattern(w[i], &out->obj) == 0)
			;
		else if (out->obj == COLOR_INDEX || out->obj == COLOR_HEADER) {
			*why = xasprintf("no patterns but ~N, ~F and ~D after "
			    "index; line ignored");
			rc = 1;
			goto out;
		} else {
			*why = xasprintf("unknown attribute \"%.64s\"", w[i]);
			goto out;
		}
	}
	if (color_obj_class(out->obj) == COLOR_CLASS_TEXT &&
	    (attrs & (COLOR_A_REVERSE | COLOR_A_STANDOUT))) {
		*why = xasprintf("%s is text from messages, which is never "
		    "drawn in reverse video or standout: those mark "
		    "steedmail's own bars", color_obj_name(out->obj));
		goto out;
	}
	out->attrs = attrs;
	rc = 0;
out:
	free(copy);
	return rc;
}

static const int	color_level[6] = { 0, 95, 135, 175, 215, 255 };

static uint32_t
color_rgb_of(uint32_t n)
{
	static const uint32_t	basic[16] = {
		0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd,
		0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00,
		0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff
	};
	uint32_t		g;

	if (n < 16)
		return basic[n];
	if (n >= 232) {
		g = 8 + 10 * (n - 232);
		return (g << 16) | (g << 8) | g;
	}
	n -= 16;
	return ((uint32_t)color_level[n / 36] << 16) |
	    ((uint32_t)color_level[(n / 6) % 6] << 8) |
	    (uint32_t)color_level[n % 6];
}

static long
color_dist(uint32_t a, uint32_t b)
{
	long	dr = (long)((a >> 16) & 0xff) - (long)((b >> 16) & 0xff);
	long	dg = (long)((a >> 8) & 0xff) - (long)((b >> 8) & 0xff);
	long	db = (long)(a & 0xff) - (long)(b & 0xff);

	return dr * dr + dg * dg + db * db;
}

int
color_to_256(uint32_t rgb)
{
	long	best = -1, d;
	int	i, pick = 16;

	for (i = 16; i < 256; i++) {
		d = color_dist(rgb, color_rgb_of((uint32_t)i));
		if (best == -1 || d < best) {
			best = d;
			pick = i;
		}
	}
	return pick;
}

uint32_t
color_rgb(const struct color_value *v)
{
	return v->kind == COLOR_RGB ? v->v : color_rgb_of(v->v);
}

int
color_to_8(const struct color_value *v)
{
	uint32_t	rgb;

	if (v->kind == COLOR_DEFAULT)
		return -1;
	if (v->kind == COLOR_NUMBER && v->v < 16)
		return (int)(v->v & 7);
	rgb = v->kind == COLOR_RGB ? v->v : color_rgb_of(v->v);
	/* red, green and blue bits, as curses numbers the eight */
	return (((rgb >> 16) & 0xff) >= 0x80 ? 1 : 0) |
	    (((rgb >> 8) & 0xff) >= 0x80 ? 2 : 0) |
	    ((rgb & 0xff) >= 0x80 ? 4 : 0);
}
