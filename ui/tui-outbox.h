/*
 * tui-outbox.h: what tui-outbox.c tells the rest of the interface besides
 * its screen (tui.h): how many messages wait, for the status bar, and the
 * note that the outbox changed (from any thread: a send on a worker).
 */
#ifndef STEED_TUI_OUTBOX_H
#define STEED_TUI_OUTBOX_H

#include <stddef.h>

/* The outbox changed: the next count reads it again. Any thread. */
void	 tui_outbox_changed(void);
/* Queued and failed messages, read at most every few seconds unless it
 * changed; on the interface thread. */
void	 tui_outbox_count(size_t *queued, size_t *failed);

/* tui-send.c: why entry id is still queued, as the last try of this
 * process said (allocated), or NULL. */
char	*tui_send_why_queued(const char *id);

#endif
