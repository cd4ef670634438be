/*
 * tui-outbox.c: the outbox screen (placeholder until it lands).
 */
#include "tui.h"

struct tui_screen *
tui_outbox_new(struct tui_account *ta)
{
	(void)ta;
	tui_message("not yet: the outbox screen");
	return NULL;
}
