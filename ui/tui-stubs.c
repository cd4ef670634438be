/*
 * tui-stubs.c: weak stand-ins for the screens and the key table while
 * they are being written; each real definition replaces its stand-in.
 */
#include <curses.h>
#include <stdio.h>

#include "tui.h"

#define WEAK	__attribute__((weak))

WEAK void
tui_keys_load(struct config *cf)
{
	(void)cf;
}

WEAK enum tui_action
tui_key_action(enum tui_map map, int key)
{
	switch (key) {
	case 'q': return TA_QUIT;
	case '?': return TA_HELP;
	case 'j': case KEY_DOWN: return map == TM_PAGER ? TA_LINE_DOWN : TA_DOWN;
	case 'k': case KEY_UP: return map == TM_PAGER ? TA_LINE_UP : TA_UP;
	case ' ': case KEY_NPAGE: return TA_PAGE_DOWN;
	case '-': case KEY_PPAGE: return TA_PAGE_UP;
	case KEY_HOME: case '=': return TA_TOP;
	case KEY_END: case '*': return TA_BOTTOM;
	case '\r': case '\n': case KEY_ENTER: return TA_SELECT;
	case 't': return TA_THREAD_TOGGLE;
	case 'T': return TA_THREADS_ALL;
	case 'o': return TA_SORT;
	case 'O': return TA_SORT_REVERSE;
	case 'l': return TA_LIMIT;
	case '/': return TA_SEARCH;
	case 'n': return TA_SEARCH_NEXT;
	case 'B': return TA_SEARCH_BODY;
	case 'N': return TA_UNREAD;
	case 'F': return TA_FLAG;
	case 'd': return TA_DELETE;
	case 'u': return TA_UNDELETE;
	case '$': return TA_EXPUNGE;
	case 's': return TA_MOVE;
	case 'C': return TA_COPY;
	case 'G': return TA_SYNC;
	case 'K': return TA_TRUST;
	case 'W': return TA_TRUST_LIST;
	case 'y': return TA_FOLDERS;
	case 'c': return TA_CHANGE_FOLDER;
	case '\t': return TA_NEXT_ACCOUNT;
	case 3: return TA_CANCEL;
	case 12: return TA_REDRAW;
	case '!': return TA_SHELL;
	case 'r': return TA_REPLY;
	case 'm': return TA_COMPOSE;
	case 27: case 'i': return TA_BACK;
	}
	return TA_NONE;
}

WEAK const char *
tui_key_name(int key)
{
	static char	b[16];

	if (key >= 32 && key < 127)
		snprintf(b, sizeof b, "%c", key);
	else if (key < 32)
		snprintf(b, sizeof b, "^%c", key + 64);
	else
		snprintf(b, sizeof b, "<%d>", key);
	return b;
}

WEAK struct tui_screen *
tui_help_new(enum tui_map map)
{
	(void)map;
	tui_message("help: not yet");
	return NULL;
}

WEAK struct tui_screen *
tui_folders_new(struct tui_account *ta)
{
	(void)ta;
	tui_message("folders: not yet");
	return NULL;
}

WEAK struct tui_screen *
tui_pager_new(struct tui_account *ta, const char *folder, uint32_t uid,
    struct message *msg, struct buf *raw, struct tui_screen *index)
{
	(void)ta; (void)folder; (void)uid; (void)msg; (void)raw; (void)index;
	tui_message("pager: not yet");
	return NULL;
}

WEAK struct tui_screen *
tui_trust_new(struct tui_account *ta, const char *addr)
{
	(void)ta; (void)addr;
	tui_message("trust: not yet");
	return NULL;
}

WEAK struct tui_screen *
tui_trust_list_new(struct tui_account *ta)
{
	(void)ta;
	tui_message("trust list: not yet");
	return NULL;
}
