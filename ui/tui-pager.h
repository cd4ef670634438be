/*
 * tui-pager.h: what the pager (tui-pager.c) and its list of attachments
 * (tui-attach.c) share; nothing else includes it.
 */
#ifndef STEED_TUI_PAGER_H
#define STEED_TUI_PAGER_H

#include <stddef.h>

struct message;
struct tui_account;
struct tui_screen;

/* The attachments of msg (the pager's; it outlives the screen). */
struct tui_screen *tui_attach_new(struct tui_account *, struct message *);
/* Ask for a command and give it the len bytes at data on its input. */
void		 tui_pager_pipe(const char *what, const char *data, size_t len);

#endif
