/*
 * tui-folder-prompt.c: the prompts that ask for a folder of an account
 * (copy, move, change folder), with Tab completion of its folder names
 * from the list the account's worker last made (tui_account_folders()).
 * Apart from tui-prompt.c, which the worker's file calls, so that the
 * front-end files call each other without a circle.
 */
#include <ctype.h>
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "tui.h"
#include "xmalloc.h"

/*
 * Tab completion of folder names, from the list the account's worker last
 * made (tui_account_folders()): the one folder that starts with what was
 * typed, else the longest start they share; when that adds nothing, the
 * candidates are shown in the status bar. Case counts, unless no folder
 * starts with the text as typed.
 */
static int	 folder_waiting;	/* Tab came before any list did */

static void
folder_note(const char *text)
{
	tui_putfill(LINES - 2, 0, COLS, text, tui_attr(TC_STATUS));
}

/* The start of a and b they share, cut at a character's start. */
static size_t
folder_common(const char *a, const char *b, int icase)
{
	size_t	i;

	for (i = 0; a[i] != '\0' && (icase ? tolower((unsigned char)a[i]) ==
	    tolower((unsigned char)b[i]) : a[i] == b[i]); i++)
		;
	while (i > 0 && (a[i] & 0xc0) == 0x80)
		i--;
	return i;
}

char *
tui_complete_folder(const char *text, void *arg)
{
	struct tui_account	*ta = arg;
	struct buf		 b;
	char			**names, *out = NULL;
	size_t			 n, i, len = strlen(text), best = 0, found = 0;
	size_t			 first = 0;
	int			 icase;

	if ((names = tui_account_folders(ta, &n)) == NULL) {
		folder_waiting = 1;
		folder_note(" listing the folders... (Tab again in a moment)");
		return NULL;
	}
	for (icase = 0; icase < 2 && found == 0; icase++) {
		for (i = 0; i < n; i++) {
			if ((icase ? strncasecmp(names[i], text, len) :
			    strncmp(names[i], text, len)) != 0)
				continue;
			if (found++ == 0) {
				first = i;
				best = strlen(names[i]);
			} else
				best = folder_common(names[first], names[i],
				    icase);
		}
	}
	icase--;
	if (found == 0)
		folder_note(" no folder starts so");
	else if (found == 1 || best > len)
		out = xstrndup(names[first], best);
	else {
		buf_init(&b);
		for (i = 0; i < n; i++)
			if ((icase ? strncasecmp(names[i], text, len) :
			    strncmp(names[i], text, len)) == 0)
				buf_addf(&b, " %s ", names[i]);
		buf_addc(&b, '\0');
		folder_note(b.data);
		buf_free(&b);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return out;
}

/* While the prompt waits: say when the list asked for by Tab came. */
static void
folder_tick(void *arg)
{
	char	**names;
	size_t	  n, i;

	if (!folder_waiting)
		return;
	if ((names = tui_account_folders(arg, &n)) == NULL)
		return;
	folder_waiting = 0;
	folder_note(" the folders are listed: Tab completes");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

char *
tui_prompt_folder(const char *question, struct tui_account *ta)
{
	char	**names;
	size_t	  n, i;

	folder_waiting = 0;
	/* ask for the list now, so that it is there by the first Tab */
	if ((names = tui_account_folders(ta, &n)) != NULL) {
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	return tui_prompt_tick(question, NULL, 0, tui_complete_folder,
	    folder_tick, ta);
}
