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
