/*
 * tui-drafts.c: the list of postponed drafts (placeholder until it lands).
 */
#include "tui.h"

struct tui_screen *
tui_drafts_new(struct tui_account *ta)
{
	(void)ta;
	tui_message("not yet: the drafts list");
	return NULL;
}

void
tui_drafts_saved(struct tui_account *ta, const char *path)
{
	(void)ta; (void)path;
}

size_t
tui_drafts_count(struct tui_account *ta)
{
	(void)ta;
	return 0;
}
