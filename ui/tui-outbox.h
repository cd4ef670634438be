/*
 * tui-outbox.h: what the outbox's two files tell the rest of the interface
 * besides tui.h: how many messages wait, for the status bar
 * (tui-outbox.c); that the outbox changed, from any thread, and why a
 * message still waits (tui-send.c, which the outbox screen calls, never the
 * other way).
 */
#ifndef STEED_TUI_OUTBOX_H
#define STEED_TUI_OUTBOX_H

#include <stddef.h>

/* Queued and failed messages, read at most every few seconds unless it
 * changed; on the interface thread. */
void	 tui_outbox_count(size_t *queued, size_t *failed);

/* tui-send.c: the outbox changed (any thread), and a number that moves
 * each time, for whoever shows the outbox. */
void	 tui_send_outbox_changed(void);
unsigned tui_send_outbox_gen(void);
/* tui-send.c: why entry id is still queued, as the last try of this
 * process said (allocated), or NULL. */
char	*tui_send_why_queued(const char *id);

#endif
