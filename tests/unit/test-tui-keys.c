/*
 * test-tui-keys.c: the interface's key names, default bindings, and what
 * `bind` lines do to them (ui/tui-keys.c), without a terminal. With
 * --defaults it prints the default bindings instead, "MAP KEY ACTION" a
 * line, for tests/shell/docs.sh to find each in steedmail(1); with
 * --shown MAP [BIND...], the bindings the help of MAP lists after those
 * bind lines, for tests/integration/tui-keys.sh.
 */
#include <curses.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ui/tui.h"
#include "tap.h"

#define CTRL(c)	((c) & 0x1f)

/* tui_keys_load() reports a bad bind line through the message line's
 * tui_error(); here the last such message is kept to be looked at. */
static char	errors[512];
static int	nerrors;

void
tui_error(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(errors, sizeof errors, fmt, ap);
	va_end(ap);
	nerrors++;
}

/* bind value; 0 if it worked, else -1 and the cause must contain want. */
static void
bind_bad(const char *value, const char *want)
{
	char	*cause = NULL;
	int	 r;

	r = tui_key_bind(value, &cause);
	TAP_OK(r == -1 && cause != NULL && strstr(cause, want) != NULL,
	    "\"%s\" is refused: %s", value, want);
	if (cause != NULL && strstr(cause, want) == NULL)
		printf("#   got: %s\n", cause);
	free(cause);
}

static void
bind_ok(const char *value)
{
	char	*cause = NULL;
	int	 r;

	r = tui_key_bind(value, &cause);
	TAP_OK(r == 0 && cause == NULL, "\"%s\" binds", value);
	if (cause != NULL)
		printf("#   got: %s\n", cause);
	free(cause);
}

struct count {
	int		 key;		/* count the bindings of this key */
	int		 seen;
	int		 total;
	enum tui_map	 from;		/* the map it came from */
};

static void
count_key(enum tui_map map, int key, enum tui_action action, void *arg)
{
	struct count	*c = arg;

	(void)action;
	c->total++;
	if (key == c->key) {
		c->seen++;
		c->from = map;
	}
}

static int
bindings(enum tui_map map, int key, enum tui_map *from)
{
	struct count	c;

	memset(&c, 0, sizeof c);
	c.key = key;
	tui_key_each(map, count_key, &c);
	if (from != NULL)
		*from = c.from;
	return c.seen;
}

static void
print_binding(enum tui_map map, int key, enum tui_action action, void *arg)
{
	if (arg == NULL || map == *(enum tui_map *)arg)
		printf("%s %s %s\n", tui_map_name(map), tui_key_name(key),
		    tui_action_name(action));
}

static int
print_shown(int argc, char **argv)
{
	enum tui_map	 map;
	char		*cause;
	int		 i;

	for (map = 0; map < TM_COUNT; map++)
		if (strcmp(tui_map_name(map), argv[2]) == 0)
			break;
	if (map == TM_COUNT)
		return 1;
	for (i = 3; i < argc; i++) {
		if (tui_key_bind(argv[i], &cause) == -1) {
			fprintf(stderr, "%s\n", cause);
			free(cause);
		}
	}
	tui_key_each(map, print_binding, NULL);
	return 0;
}

int
main(int argc, char **argv)
{
	int		 a, b, m, unnamed, same;
	enum tui_map	 from;
	struct config	 cf;
	char		*lines[] = { "trust V verify", "trust v noop",
			    "index <Nope> quit", "help Q back", "pager" };

	if (argc == 2 && strcmp(argv[1], "--defaults") == 0) {
		for (from = 0; from < TM_COUNT; from++)
			tui_key_each(from, print_binding, &from);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "--shown") == 0)
		return print_shown(argc, argv);

	/* names */
	TAP_STR(tui_key_name('j'), "j", "a letter is itself");
	TAP_STR(tui_key_name(CTRL('l')), "^L", "control keys are ^X");
	TAP_STR(tui_key_name(KEY_NPAGE), "<PageDown>", "named keys");
	TAP_STR(tui_key_name(' '), "<Space>", "space has a name");
	TAP_STR(tui_key_name('\r'), "<Enter>", "Return is Enter");
	TAP_STR(tui_key_name(KEY_ENTER), "<Enter>", "keypad Enter is Enter");
	TAP_STR(tui_key_name(0x7f), "<BackSpace>", "DEL is BackSpace");
	TAP_STR(tui_key_name(27), "<Escape>", "Escape");
	TAP_STR(tui_key_name(KEY_F(12)), "<F12>", "function keys");
	TAP_STR(tui_map_name(TM_ATTACH), "attach", "map names");
	TAP_STR(tui_action_name(TA_PAGE_DOWN), "next-page", "action names");
	TAP_STR(tui_action_name(TA_NONE), "noop", "the empty action");

	unnamed = same = 0;
	for (a = 0; a < TA_COUNT; a++) {
		if (strcmp(tui_action_name(a), "?") == 0 ||
		    *tui_action_help(a) == '\0')
			unnamed++;
		for (b = 0; b < a; b++)
			if (strcmp(tui_action_name(a), tui_action_name(b)) == 0)
				same++;
	}
	TAP_OK(unnamed == 0, "every action has a name and a description");
	TAP_OK(same == 0, "no two actions share a name");
	for (m = 0; m < TM_COUNT; m++)
		if (strcmp(tui_map_name(m), "?") == 0)
			break;
	TAP_OK(m == TM_COUNT, "every map has a name");

	/* the default table */
	TAP_OK(tui_key_action(TM_INDEX, 'q') == TA_QUIT, "q on the index quits");
	TAP_OK(tui_key_action(TM_PAGER, 'q') == TA_BACK,
	    "q elsewhere goes back");
	TAP_OK(tui_key_action(TM_INDEX, 27) == TA_NONE &&
	    tui_key_action(TM_INDEX, 'i') == TA_NONE &&
	    tui_key_action(TM_PAGER, 'i') == TA_BACK,
	    "Escape and i go back, except on the index");
	TAP_OK(tui_key_action(TM_INDEX, 'j') == TA_DOWN &&
	    tui_key_action(TM_INDEX, KEY_DOWN) == TA_DOWN,
	    "the index takes j and <Down> from the generic map");
	TAP_OK(tui_key_action(TM_PAGER, 'j') == TA_NEXT_MESSAGE &&
	    tui_key_action(TM_PAGER, KEY_DOWN) == TA_LINE_DOWN,
	    "the pager's own j and <Down> come first");
	TAP_OK(tui_key_action(TM_PAGER, '\r') == TA_LINE_DOWN &&
	    tui_key_action(TM_FOLDERS, KEY_ENTER) == TA_SELECT,
	    "Return and keypad Enter are <Enter>");
	TAP_OK(tui_key_action(TM_PAGER, 0x7f) == TA_LINE_UP &&
	    tui_key_action(TM_PAGER, '\b') == TA_LINE_UP,
	    "DEL and ^H are <BackSpace>");
	TAP_OK(tui_key_action(TM_INDEX, 'O') == TA_SORT_REVERSE &&
	    tui_key_action(TM_FOLDERS, 'O') == TA_OUTBOX,
	    "O reverses the index's order, and is the outbox elsewhere");
	TAP_OK(tui_key_action(TM_ATTACH, 'm') == TA_OPEN &&
	    tui_key_action(TM_TRUST, 'x') == TA_REJECT &&
	    tui_key_action(TM_HELP, CTRL('l')) == TA_REDRAW,
	    "attach, trust and help maps");
	TAP_OK(tui_key_action(TM_INDEX, 'V') == TA_NONE,
	    "an unbound key is no action");
	TAP_OK(tui_key_action(TM_INDEX, 'X') == TA_SEARCH_FOLDERS &&
	    tui_key_action(TM_PAGER, 'X') == TA_NONE,
	    "X searches every folder, from the index");
	TAP_OK(bindings(TM_INDEX, 'i', NULL) == 0 &&
	    bindings(TM_INDEX, 'j', &from) == 1 && from == TM_GENERIC &&
	    bindings(TM_PAGER, 'j', &from) == 1 && from == TM_PAGER,
	    "tui_key_each lists what the keys do, not what is hidden");

	/* rebinding */
	bind_ok("index j previous-entry");
	TAP_OK(tui_key_action(TM_INDEX, 'j') == TA_UP &&
	    tui_key_action(TM_FOLDERS, 'j') == TA_DOWN,
	    "a binding on a map changes that map only");
	TAP_OK(bindings(TM_INDEX, 'j', &from) == 1 && from == TM_INDEX,
	    "and the help lists the new binding once");
	bind_ok("generic <F5> sync");
	TAP_OK(tui_key_action(TM_PAGER, KEY_F(5)) == TA_SYNC,
	    "a generic binding reaches every map");
	bind_ok("pager\t^H   next-page");
	TAP_OK(tui_key_action(TM_PAGER, KEY_BACKSPACE) == TA_PAGE_DOWN,
	    "^H names <BackSpace>; words may be split by tabs and spaces");
	bind_ok("index <pagedown> last-entry");
	TAP_OK(tui_key_action(TM_INDEX, KEY_NPAGE) == TA_BOTTOM,
	    "key names are read in any case");

	/* unbinding */
	bind_ok("index d noop");
	TAP_OK(tui_key_action(TM_INDEX, 'd') == TA_NONE &&
	    tui_key_action(TM_PAGER, 'd') == TA_DELETE,
	    "noop unbinds a key on one map");
	bind_ok("pager G noop");
	TAP_OK(tui_key_action(TM_PAGER, 'G') == TA_NONE &&
	    tui_key_action(TM_INDEX, 'G') == TA_SYNC,
	    "noop on a map hides the generic binding there only");
	TAP_OK(bindings(TM_PAGER, 'G', NULL) == 0,
	    "an unbound key is not listed");
	bind_ok("generic ? noop");
	TAP_OK(tui_key_action(TM_TRUST, '?') == TA_NONE,
	    "noop on the generic map unbinds it everywhere");

	/* errors */
	bind_bad("index j", "expected MAP KEY ACTION");
	bind_bad("index j next-entry extra", "expected MAP KEY ACTION");
	bind_bad("", "expected MAP KEY ACTION");
	bind_bad("composer j next-entry", "unknown map \"composer\"");
	bind_bad("index jj next-entry", "unknown key \"jj\"");
	bind_bad("index <Nope> next-entry", "unknown key \"<Nope>\"");
	bind_bad("index <F13> next-entry", "unknown key \"<F13>\"");
	bind_bad("index ^1 next-entry", "unknown key \"^1\"");
	bind_bad("index j next_entry", "unknown action \"next_entry\"");
	TAP_OK(tui_key_action(TM_INDEX, 'j') == TA_UP,
	    "a refused line changes nothing");

	/* the configuration's lines */
	memset(&cf, 0, sizeof cf);
	cf.path = "steed.conf";
	cf.binds = lines;
	cf.nbinds = 2;
	tui_keys_load(&cf);
	TAP_OK(nerrors == 0 && tui_key_action(TM_TRUST, 'V') == TA_VERIFY &&
	    tui_key_action(TM_TRUST, 'v') == TA_NONE,
	    "tui_keys_load applies the bind lines in order");
	cf.nbinds = 5;
	tui_keys_load(&cf);
	TAP_OK(nerrors == 1 && strstr(errors, "steed.conf: bind index") !=
	    NULL && strstr(errors, "unknown key \"<Nope>\"") != NULL &&
	    strstr(errors, "and 1 more") != NULL,
	    "bad lines are reported once, the first in full");
	if (nerrors != 1 || strstr(errors, "and 1 more") == NULL)
		printf("#   got %d: %s\n", nerrors, errors);
	TAP_OK(tui_key_action(TM_HELP, 'Q') == TA_BACK,
	    "and the good lines around them still apply");

	return TAP_DONE();
}
