/*
 * tui-write.c: where writing starts (placeholder until it lands).
 */
#include "tui.h"

void
tui_write_new(struct tui_account *ta)
{
	(void)ta;
	tui_message("not yet: the compose screen");
}

void
tui_write_from(struct tui_screen *s, enum tui_action a)
{
	(void)s; (void)a;
	tui_message("not yet: the compose screen");
}

int
tui_write_mailto(struct tui_account *ta, const char *url)
{
	(void)ta; (void)url;
	tui_message("not yet: the compose screen");
	return -1;
}
