/*
 * tui-send.c: sending on an account's worker (placeholder until it lands).
 */
#include "draft.h"
#include "tui.h"

uint64_t
tui_send_draft(struct tui_account *ta, const struct draft *d,
    const struct draft_opts *o)
{
	(void)ta; (void)d; (void)o;
	return 0;
}

uint64_t
tui_send_flush(struct tui_account *ta, const char *only_id)
{
	(void)ta; (void)only_id;
	return 0;
}

void
tui_sent_free(void *p)
{
	(void)p;
}
