/*
 * tui-int.h: what the interface's core files (tui-main.c, tui-prompt.c,
 * tui-worker.c) tell each other; screens use tui.h only.
 */
#ifndef STEED_TUI_INT_H
#define STEED_TUI_INT_H

#include "tui.h"

/* tui-prompt.c: the message line */
void	 tui_message_clear(void);
void	 tui_message_draw(void);

/* tui-screen.c */
void	 tui_resized(void);
void	 tui_stop_self(void);

/* tui-worker.c: events for the loop. The descriptor becomes readable
 * when events wait; tui_events_take() hands the next one (or NULL). */
int	 tui_events_fd(void);
struct tui_event *tui_events_take(void);
/* Questions a worker waits on (a password, yes/no, the terminal for
 * pinentry) are events the loop answers with tui_answer(). */
void	 tui_answer(struct tui_event *, int yes, char *secret);

#endif
