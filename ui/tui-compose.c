/*
 * tui-compose.c: the compose screen (placeholder until it lands).
 */
#include "draft.h"
#include "tui.h"

struct tui_screen *
tui_compose_new(struct tui_account *ta, struct draft *d, const char *resumed,
    int edit_first)
{
	(void)ta; (void)resumed; (void)edit_first;
	draft_free(d);
	tui_message("not yet: the compose screen");
	return NULL;
}
