/*
 * tui-keys.c: the interface's keys. It owns the names of keys, maps and
 * actions, the default bindings of each screen's map and the changes made
 * to them by `bind MAP KEY ACTION` lines (steedmail.conf(5)), which
 * tui_main() applies once with tui_keys_load(). The main loop asks it which
 * action a key means on a screen; the help screen lists the bindings
 * through tui_key_each(). It only translates: it never draws (a bad bind
 * line goes to tui_error()) and never runs an action.
 *
 * A map's own bindings come before the generic map's; an action of TA_NONE
 * (`noop`) in a map hides the generic binding of that key. Bindings live
 * on the interface thread only.
 */
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui.h"
#include "xmalloc.h"

#define CTRL(c)		((c) & 0x1f)
#define KEY_ESC		27

struct tui_binding {
	int		 key;
	enum tui_action	 action;
};

struct tui_keymap {
	struct tui_binding *list;
	size_t		 n;
};

static struct tui_keymap tui_keymaps[TM_COUNT];
static int	tui_keys_ready;

static const char *tui_map_names[TM_COUNT] = {
	[TM_GENERIC] = "generic",
	[TM_FOLDERS] = "folders",
	[TM_INDEX] = "index",
	[TM_PAGER] = "pager",
	[TM_ATTACH] = "attach",
	[TM_TRUST] = "trust",
	[TM_HELP] = "help",
	[TM_COMPOSE] = "compose",
	[TM_OUTBOX] = "outbox",
	[TM_DRAFTS] = "drafts",
};

static const struct {
	const char	*name;
	const char	*help;
} tui_actions[TA_COUNT] = {
	[TA_NONE] = { "noop", "nothing (unbinds the key)" },
	[TA_QUIT] = { "quit", "leave steedmail" },
	[TA_BACK] = { "back", "back to the screen below" },
	[TA_HELP] = { "help", "this screen's keys" },
	[TA_REDRAW] = { "redraw", "draw the screen again" },
	[TA_SHELL] = { "shell", "run a shell, come back when it exits" },
	[TA_UP] = { "previous-entry", "move up one entry" },
	[TA_DOWN] = { "next-entry", "move down one entry" },
	[TA_PAGE_UP] = { "previous-page", "one page up" },
	[TA_PAGE_DOWN] = { "next-page", "one page down" },
	[TA_HALF_UP] = { "half-up", "half a page up" },
	[TA_HALF_DOWN] = { "half-down", "half a page down" },
	[TA_TOP] = { "first-entry", "to the top" },
	[TA_BOTTOM] = { "last-entry", "to the bottom" },
	[TA_SELECT] = { "select-entry", "open what the cursor is on" },
	[TA_SEARCH] = { "search", "search for text" },
	[TA_SEARCH_NEXT] = { "search-next", "the next match" },
	[TA_SEARCH_PREV] = { "search-previous", "the previous match" },
	[TA_FOLDERS] = { "folders", "the folders of every account" },
	[TA_CHANGE_FOLDER] = { "change-folder", "open a folder by name" },
	[TA_NEXT_ACCOUNT] = { "next-account", "show the next account" },
	[TA_ADD_ACCOUNT] = { "add-account", "set up another account" },
	[TA_SYNC] = { "sync", "fetch new mail now" },
	[TA_CANCEL] = { "cancel", "stop the operation in progress" },
	[TA_OUTBOX] = { "outbox", "mail waiting to be sent" },
	[TA_QUERY] = { "query", "look addresses up (query-command)" },
	[TA_READ] = { "mark-read", "mark the message read" },
	[TA_UNREAD] = { "toggle-new", "mark the message new, or read" },
	[TA_FLAG] = { "flag", "flag the message, or unflag it" },
	[TA_DELETE] = { "delete", "mark the message deleted" },
	[TA_UNDELETE] = { "undelete", "take the deleted mark away" },
	[TA_EXPUNGE] = { "expunge", "remove the deleted messages for good" },
	[TA_MOVE] = { "move", "move the message to another folder" },
	[TA_COPY] = { "copy", "copy the message to another folder" },
	[TA_TRUST] = { "sender-key", "the sender's key and its trust" },
	[TA_TRUST_LIST] = { "trust-list", "every correspondent's key" },
	[TA_REPLY] = { "reply", "reply to the sender" },
	[TA_GROUP_REPLY] = { "group-reply", "reply to every recipient" },
	[TA_FORWARD] = { "forward", "forward the message" },
	[TA_COMPOSE] = { "compose", "write a new message" },
	[TA_RECALL] = { "recall", "go on with a draft" },
	[TA_SORT] = { "sort", "choose the order: date, from, thread..." },
	[TA_SORT_REVERSE] = { "sort-reverse", "reverse the order" },
	[TA_THREAD_TOGGLE] = { "collapse-thread",
	    "collapse or expand this thread" },
	[TA_THREADS_ALL] = { "collapse-all", "collapse or expand every "
	    "thread" },
	[TA_TAG] = { "tag-entry", "tag the message, or untag it" },
	[TA_TAG_PATTERN] = { "tag-pattern", "tag the messages matching an "
	    "expression" },
	[TA_UNTAG_PATTERN] = { "untag-pattern", "untag the messages matching "
	    "an expression" },
	[TA_TAG_PREFIX] = { "tag-prefix", "the next action is for every "
	    "tagged message" },
	[TA_LIMIT] = { "limit", "show only messages matching an expression" },
	[TA_SEARCH_BODY] = { "search-bodies", "search the text: the cached "
	    "mail's index, and the server" },
	[TA_NEXT_NEW] = { "next-new", "the next new message" },
	[TA_SEARCH_FOLDERS] = { "search-folders", "search the text of every "
	    "folder of the account" },
	[TA_LINE_UP] = { "previous-line", "one line up" },
	[TA_LINE_DOWN] = { "next-line", "one line down" },
	[TA_NEXT_MESSAGE] = { "next-message", "the next message" },
	[TA_PREV_MESSAGE] = { "previous-message", "the previous message" },
	[TA_RAW] = { "raw", "the message's raw source" },
	[TA_HEADERS] = { "headers", "all headers, or the chosen ones" },
	[TA_DETAILS] = { "security-details", "every part's security, the key, "
	    "the evidence" },
	[TA_ATTACHMENTS] = { "attachments", "the list of attachments" },
	[TA_SAVE] = { "save", "save to a file" },
	[TA_OPEN] = { "open", "open with its mailcap viewer" },
	[TA_PIPE] = { "pipe", "pipe to a command" },
	[TA_NEXT_PART] = { "next-part", "the next part of the message" },
	[TA_VERIFY] = { "verify", "compare fingerprints, mark it verified" },
	[TA_ACCEPT] = { "accept", "accept the changed key" },
	[TA_REJECT] = { "reject", "reject the changed key" },
	[TA_LIST_REPLY] = { "list-reply", "reply to the mailing list" },
	[TA_SEND] = { "send", "send the message" },
	[TA_POSTPONE] = { "postpone", "keep it as a draft for later" },
	[TA_ABORT] = { "abort", "throw the message away (asks first)" },
	[TA_EDIT] = { "edit", "edit the text in $EDITOR" },
	[TA_EDIT_FROM] = { "edit-from", "choose the sending account" },
	[TA_EDIT_TO] = { "edit-to", "edit the To recipients" },
	[TA_EDIT_CC] = { "edit-cc", "edit the Cc recipients" },
	[TA_EDIT_BCC] = { "edit-bcc", "edit the Bcc recipients" },
	[TA_EDIT_SUBJECT] = { "edit-subject", "edit the subject" },
	[TA_ATTACH_FILE] = { "attach-file", "attach a file" },
	[TA_DETACH] = { "detach", "remove the attachment" },
	[TA_ATTACH_RENAME] = { "attachment-name",
	    "change the attachment's shown name" },
	[TA_ATTACH_TYPE] = { "attachment-type",
	    "change the attachment's type" },
	[TA_TOGGLE_ENCRYPT] = { "toggle-encrypt",
	    "encrypt: as the policy says, always, never" },
	[TA_TOGGLE_SIGN] = { "toggle-sign", "sign or not" },
	[TA_TOGGLE_SMIME] = { "toggle-smime", "S/MIME or OpenPGP" },
	[TA_RETRY] = { "retry", "try sending it again now" },
};

/* Named keys, for parsing and printing; the first name of a key is the
 * one shown. */
static const struct {
	const char	*name;
	int		 key;
} tui_key_names[] = {
	{ "<Up>", KEY_UP },
	{ "<Down>", KEY_DOWN },
	{ "<Left>", KEY_LEFT },
	{ "<Right>", KEY_RIGHT },
	{ "<PageUp>", KEY_PPAGE },
	{ "<PageDown>", KEY_NPAGE },
	{ "<Home>", KEY_HOME },
	{ "<End>", KEY_END },
	{ "<Enter>", '\n' },
	{ "<Return>", '\n' },
	{ "<Tab>", '\t' },
	{ "<BackSpace>", KEY_BACKSPACE },
	{ "<Escape>", KEY_ESC },
	{ "<Esc>", KEY_ESC },
	{ "<Space>", ' ' },
	{ "<Delete>", KEY_DC },
	{ "<Insert>", KEY_IC },
};

/* The bindings steedmail starts with; doc/steedmail.1 lists them. */
static const struct {
	enum tui_map	 map;
	int		 key;
	enum tui_action	 action;
} tui_key_defaults[] = {
	{ TM_GENERIC, 'q', TA_BACK },
	{ TM_GENERIC, KEY_ESC, TA_BACK },
	{ TM_GENERIC, 'i', TA_BACK },
	{ TM_GENERIC, '?', TA_HELP },
	{ TM_GENERIC, CTRL('l'), TA_REDRAW },
	{ TM_GENERIC, '!', TA_SHELL },
	{ TM_GENERIC, 'k', TA_UP },
	{ TM_GENERIC, KEY_UP, TA_UP },
	{ TM_GENERIC, 'j', TA_DOWN },
	{ TM_GENERIC, KEY_DOWN, TA_DOWN },
	{ TM_GENERIC, KEY_PPAGE, TA_PAGE_UP },
	{ TM_GENERIC, '-', TA_PAGE_UP },
	{ TM_GENERIC, KEY_NPAGE, TA_PAGE_DOWN },
	{ TM_GENERIC, ' ', TA_PAGE_DOWN },
	{ TM_GENERIC, CTRL('u'), TA_HALF_UP },
	{ TM_GENERIC, CTRL('d'), TA_HALF_DOWN },
	{ TM_GENERIC, KEY_HOME, TA_TOP },
	{ TM_GENERIC, '=', TA_TOP },
	{ TM_GENERIC, KEY_END, TA_BOTTOM },
	{ TM_GENERIC, '*', TA_BOTTOM },
	{ TM_GENERIC, '\n', TA_SELECT },
	{ TM_GENERIC, '/', TA_SEARCH },
	{ TM_GENERIC, 'n', TA_SEARCH_NEXT },
	{ TM_GENERIC, 'y', TA_FOLDERS },
	{ TM_GENERIC, 'c', TA_CHANGE_FOLDER },
	{ TM_GENERIC, '\t', TA_NEXT_ACCOUNT },
	{ TM_GENERIC, 'G', TA_SYNC },
	{ TM_GENERIC, CTRL('c'), TA_CANCEL },
	{ TM_GENERIC, 'O', TA_OUTBOX },
	{ TM_GENERIC, 'w', TA_OUTBOX },
	{ TM_GENERIC, 'Q', TA_QUERY },
	{ TM_GENERIC, 'm', TA_COMPOSE },
	{ TM_GENERIC, 'R', TA_RECALL },

	{ TM_INDEX, 'q', TA_QUIT },
	{ TM_INDEX, KEY_ESC, TA_NONE },
	{ TM_INDEX, 'i', TA_NONE },
	{ TM_INDEX, 'N', TA_UNREAD },
	{ TM_INDEX, 'F', TA_FLAG },
	{ TM_INDEX, 'd', TA_DELETE },
	{ TM_INDEX, 'u', TA_UNDELETE },
	{ TM_INDEX, '$', TA_EXPUNGE },
	{ TM_INDEX, 's', TA_MOVE },
	{ TM_INDEX, 'C', TA_COPY },
	{ TM_INDEX, 'o', TA_SORT },
	{ TM_INDEX, 'O', TA_SORT_REVERSE },
	{ TM_INDEX, 'z', TA_THREAD_TOGGLE },
	{ TM_INDEX, 'Z', TA_THREADS_ALL },
	{ TM_INDEX, 't', TA_TAG },
	{ TM_INDEX, 'T', TA_TAG_PATTERN },
	{ TM_INDEX, CTRL('t'), TA_UNTAG_PATTERN },
	{ TM_INDEX, ';', TA_TAG_PREFIX },
	{ TM_INDEX, 'l', TA_LIMIT },
	{ TM_INDEX, 'B', TA_SEARCH_BODY },
	{ TM_INDEX, 'X', TA_SEARCH_FOLDERS },
	{ TM_INDEX, 'K', TA_TRUST },
	{ TM_INDEX, 'W', TA_TRUST_LIST },
	{ TM_INDEX, 'r', TA_REPLY },
	{ TM_INDEX, 'g', TA_GROUP_REPLY },
	{ TM_INDEX, 'f', TA_FORWARD },
	{ TM_INDEX, 'L', TA_LIST_REPLY },

	{ TM_PAGER, '\n', TA_LINE_DOWN },
	{ TM_PAGER, KEY_DOWN, TA_LINE_DOWN },
	{ TM_PAGER, KEY_BACKSPACE, TA_LINE_UP },
	{ TM_PAGER, KEY_UP, TA_LINE_UP },
	{ TM_PAGER, 'j', TA_NEXT_MESSAGE },
	{ TM_PAGER, 'k', TA_PREV_MESSAGE },
	{ TM_PAGER, 'h', TA_HEADERS },
	{ TM_PAGER, 'S', TA_DETAILS },
	{ TM_PAGER, 'e', TA_RAW },
	{ TM_PAGER, 'v', TA_ATTACHMENTS },
	{ TM_PAGER, '|', TA_PIPE },
	{ TM_PAGER, 'K', TA_TRUST },
	{ TM_PAGER, 'N', TA_UNREAD },
	{ TM_PAGER, 'F', TA_FLAG },
	{ TM_PAGER, 'd', TA_DELETE },
	{ TM_PAGER, 'u', TA_UNDELETE },
	{ TM_PAGER, 's', TA_MOVE },
	{ TM_PAGER, 't', TA_TAG },
	{ TM_PAGER, 'C', TA_COPY },
	{ TM_PAGER, 'r', TA_REPLY },
	{ TM_PAGER, 'g', TA_GROUP_REPLY },
	{ TM_PAGER, 'f', TA_FORWARD },
	{ TM_PAGER, 'L', TA_LIST_REPLY },

	{ TM_ATTACH, '\n', TA_OPEN },
	{ TM_ATTACH, 'm', TA_OPEN },
	{ TM_ATTACH, 's', TA_SAVE },
	{ TM_ATTACH, '|', TA_PIPE },

	{ TM_FOLDERS, 'A', TA_ADD_ACCOUNT },

	{ TM_TRUST, 'v', TA_VERIFY },
	{ TM_TRUST, 'a', TA_ACCEPT },
	{ TM_TRUST, 'x', TA_REJECT },
	/* compose: the header letters are mutt's */
	{ TM_COMPOSE, 'y', TA_SEND },
	{ TM_COMPOSE, 'P', TA_POSTPONE },
	{ TM_COMPOSE, 'q', TA_ABORT },
	{ TM_COMPOSE, 'e', TA_EDIT },
	{ TM_COMPOSE, '\n', TA_EDIT },
	{ TM_COMPOSE, 'F', TA_EDIT_FROM },
	{ TM_COMPOSE, 't', TA_EDIT_TO },
	{ TM_COMPOSE, 'c', TA_EDIT_CC },
	{ TM_COMPOSE, 'b', TA_EDIT_BCC },
	{ TM_COMPOSE, 's', TA_EDIT_SUBJECT },
	{ TM_COMPOSE, 'a', TA_ATTACH_FILE },
	{ TM_COMPOSE, 'D', TA_DETACH },
	{ TM_COMPOSE, 'N', TA_ATTACH_RENAME },
	{ TM_COMPOSE, 'T', TA_ATTACH_TYPE },
	{ TM_COMPOSE, 'E', TA_TOGGLE_ENCRYPT },
	{ TM_COMPOSE, 'S', TA_TOGGLE_SIGN },
	{ TM_COMPOSE, 'M', TA_TOGGLE_SMIME },
	{ TM_COMPOSE, 'm', TA_NONE },
	{ TM_COMPOSE, 'R', TA_NONE },
	{ TM_OUTBOX, 'r', TA_RETRY },
	{ TM_OUTBOX, 'e', TA_EDIT },
	{ TM_OUTBOX, 'd', TA_DELETE },
	{ TM_DRAFTS, '\n', TA_SELECT },
	{ TM_DRAFTS, 'd', TA_DELETE },
};

/* One code per key: what terminals send for Enter and BackSpace varies. */
static int
tui_key_canon(int key)
{
	switch (key) {
	case '\r':
	case KEY_ENTER:
		return '\n';
	case 0x7f:
	case '\b':
		return KEY_BACKSPACE;
	}
	return key;
}

static void
tui_key_set(enum tui_map map, int key, enum tui_action action)
{
	struct tui_keymap	*km = &tui_keymaps[map];
	size_t			 i;

	key = tui_key_canon(key);
	for (i = 0; i < km->n; i++) {
		if (km->list[i].key == key) {
			km->list[i].action = action;
			return;
		}
	}
	km->list = xreallocarray(km->list, km->n + 1, sizeof *km->list);
	km->list[km->n].key = key;
	km->list[km->n].action = action;
	km->n++;
}

static void
tui_key_init(void)
{
	size_t	i;

	if (tui_keys_ready)
		return;
	tui_keys_ready = 1;
	for (i = 0; i < sizeof tui_key_defaults / sizeof tui_key_defaults[0];
	    i++)
		tui_key_set(tui_key_defaults[i].map, tui_key_defaults[i].key,
		    tui_key_defaults[i].action);
}

/* The binding of key in map itself, or NULL. */
static const struct tui_binding *
tui_key_find(enum tui_map map, int key)
{
	struct tui_keymap	*km = &tui_keymaps[map];
	size_t			 i;

	for (i = 0; i < km->n; i++)
		if (km->list[i].key == key)
			return &km->list[i];
	return NULL;
}

enum tui_action
tui_key_action(enum tui_map map, int key)
{
	const struct tui_binding *b;

	tui_key_init();
	if ((int)map < 0 || map >= TM_COUNT)
		return TA_NONE;
	key = tui_key_canon(key);
	if ((b = tui_key_find(map, key)) == NULL && map != TM_GENERIC)
		b = tui_key_find(TM_GENERIC, key);
	return b != NULL ? b->action : TA_NONE;
}

void
tui_key_each(enum tui_map map, void (*fn)(enum tui_map, int,
    enum tui_action, void *), void *arg)
{
	struct tui_keymap	*km;
	size_t			 i;

	tui_key_init();
	if ((int)map < 0 || map >= TM_COUNT)
		return;
	km = &tui_keymaps[map];
	for (i = 0; i < km->n; i++)
		if (km->list[i].action != TA_NONE)
			fn(map, km->list[i].key, km->list[i].action, arg);
	if (map == TM_GENERIC)
		return;
	km = &tui_keymaps[TM_GENERIC];
	for (i = 0; i < km->n; i++) {
		if (km->list[i].action == TA_NONE ||
		    tui_key_find(map, km->list[i].key) != NULL)
			continue;
		fn(TM_GENERIC, km->list[i].key, km->list[i].action, arg);
	}
}

const char *
tui_map_name(enum tui_map map)
{
	if ((int)map < 0 || map >= TM_COUNT)
		return "?";
	return tui_map_names[map];
}

const char *
tui_action_name(enum tui_action action)
{
	if ((int)action < 0 || action >= TA_COUNT || tui_actions[action].name ==
	    NULL)
		return "?";
	return tui_actions[action].name;
}

const char *
tui_action_help(enum tui_action action)
{
	if ((int)action < 0 || action >= TA_COUNT || tui_actions[action].help ==
	    NULL)
		return "";
	return tui_actions[action].help;
}

const char *
tui_key_name(int key)
{
	static char	buf[16];
	size_t		i;

	key = tui_key_canon(key);
	for (i = 0; i < sizeof tui_key_names / sizeof tui_key_names[0]; i++)
		if (tui_key_names[i].key == key)
			return tui_key_names[i].name;
	if (key >= KEY_F(1) && key <= KEY_F(12))
		snprintf(buf, sizeof buf, "<F%d>", key - KEY_F0);
	else if (key >= 0 && key < 0x20)
		snprintf(buf, sizeof buf, "^%c", key + '@');
	else if (key > 0x20 && key < 0x7f)
		snprintf(buf, sizeof buf, "%c", key);
	else
		snprintf(buf, sizeof buf, "<%d>", key);
	return buf;
}

/* A key's code from its name; -1 if it is none. */
static int
tui_key_parse(const char *s)
{
	size_t	i;
	char	*end;
	long	n;

	if (s[0] != '\0' && s[1] == '\0')
		return isprint((unsigned char)s[0]) ? s[0] : -1;
	if (s[0] == '^' && s[2] == '\0') {
		if (s[1] == '?')
			return KEY_BACKSPACE;
		if (toupper((unsigned char)s[1]) >= '@' &&
		    toupper((unsigned char)s[1]) <= '_')
			return tui_key_canon(CTRL(toupper((unsigned char)s[1])));
		return -1;
	}
	for (i = 0; i < sizeof tui_key_names / sizeof tui_key_names[0]; i++)
		if (strcasecmp(tui_key_names[i].name, s) == 0)
			return tui_key_names[i].key;
	if ((s[0] == '<' && (s[1] == 'F' || s[1] == 'f') &&
	    s[2] >= '1' && s[2] <= '9')) {
		n = strtol(s + 2, &end, 10);
		if (strcmp(end, ">") == 0 && n >= 1 && n <= 12)
			return KEY_F(n);
	}
	return -1;
}

static int
tui_key_parse_map(const char *s)
{
	int	m;

	for (m = 0; m < TM_COUNT; m++)
		if (strcmp(tui_map_names[m], s) == 0)
			return m;
	return -1;
}

static int
tui_key_parse_action(const char *s)
{
	int	a;

	for (a = 0; a < TA_COUNT; a++)
		if (tui_actions[a].name != NULL &&
		    strcmp(tui_actions[a].name, s) == 0)
			return a;
	return -1;
}

int
tui_key_bind(const char *value, char **cause)
{
	char	*copy, *word[4], *last;
	int	 n, map, key, action;

	tui_key_init();
	copy = xstrdup(value);
	n = 0;
	for (word[n] = strtok_r(copy, " \t", &last); word[n] != NULL;
	    word[n] = strtok_r(NULL, " \t", &last)) {
		if (++n == 4)
			break;
	}
	if (n != 3) {
		*cause = xasprintf("bind %s: expected MAP KEY ACTION", value);
		goto fail;
	}
	if ((map = tui_key_parse_map(word[0])) == -1) {
		*cause = xasprintf("bind %s: unknown map \"%s\"", value,
		    word[0]);
		goto fail;
	}
	if ((key = tui_key_parse(word[1])) == -1) {
		*cause = xasprintf("bind %s: unknown key \"%s\"", value,
		    word[1]);
		goto fail;
	}
	if ((action = tui_key_parse_action(word[2])) == -1) {
		*cause = xasprintf("bind %s: unknown action \"%s\"", value,
		    word[2]);
		goto fail;
	}
	tui_key_set(map, key, action);
	free(copy);
	return 0;

fail:
	free(copy);
	return -1;
}

/* The configuration's bind lines, in order; a bad one is shown, and the
 * others still apply. */
void
tui_keys_load(struct config *cf)
{
	char	*cause, *first = NULL;
	size_t	 i, bad = 0;

	tui_key_init();
	for (i = 0; i < cf->nbinds; i++) {
		cause = NULL;
		if (tui_key_bind(cf->binds[i], &cause) == 0)
			continue;
		if (bad++ == 0)
			first = cause;
		else
			free(cause);
	}
	if (bad == 1)
		tui_error("%s: %s", cf->path, first);
	else if (bad > 1)
		tui_error("%s: %s (and %zu more bad bind lines)", cf->path,
		    first, bad - 1);
	free(first);
}
