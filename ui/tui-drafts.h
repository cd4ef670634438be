/*
 * tui-drafts.h: the copies of postponed drafts in the account's Drafts
 * mailbox (tui-drafts-copy.c), for the drafts list (tui-drafts.c).
 * tui_drafts_saved() (tui.h) makes a copy.
 */
#ifndef STEED_TUI_DRAFTS_H
#define STEED_TUI_DRAFTS_H

#include "tui.h"

/* Remove the copies with this Message-ID, on ta's worker; NULL: none. */
void	 tui_drafts_copy_remove(struct tui_account *ta, const char *msgid);

#endif
