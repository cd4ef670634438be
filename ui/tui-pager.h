/*
 * tui-pager.h: what the pager (tui-pager.c), its lines
 * (tui-pager-lines.c) and its list of attachments (tui-attach.c) share;
 * nothing else includes it.
 */
#ifndef STEED_TUI_PAGER_H
#define STEED_TUI_PAGER_H

#include <stddef.h>

#include "buf.h"
#include "view.h"

struct message;
struct tui_account;
struct tui_screen;

#define PAGER_MARGIN	2	/* columns left of body text */

enum pager_mode {
	PAGER_MESSAGE,		/* the brief display model */
	PAGER_DETAILS,		/* the display model with every detail */
	PAGER_HEADERS,		/* the same with every header field */
	PAGER_RAW		/* the raw source */
};

/* The colours of a bar, by what it says. */
enum pager_tone {
	PAGER_GOOD,
	PAGER_WARN,
	PAGER_BAD
};

/* A line to show, before it is cut to the screen's width. */
struct pager_src {
	enum view_role		 role;
	int			 quote;
	int			 inner;
	enum pager_tone		 tone;	/* banners, and the margin inside */
	int			 sig;	/* text of a signature ("-- " on) */
	const char		*text;	/* safe; owned when own is set */
	int			 own;
};

/* A screen row: a piece of a source line. */
struct pager_row {
	size_t			 src;
	size_t			 off, len;
	int			 cont;	/* not the line's first row */
};

/* The lines of a message in a mode, and their rows (tui-pager-lines.c). */
struct pager_lines {
	struct message		*msg;		/* the pager's, with its bytes */
	enum pager_mode		 mode;
	struct pager_src	*src;
	size_t			 nsrc;
	struct pager_row	*rows;
	size_t			 nrows, rowcap;
	int			 cols;		/* the width rows are cut for */
};

/* Make the lines of msg (or of its raw bytes) in mode; rows come later. */
void		 pager_lines_load(struct pager_lines *, struct message *,
		     enum pager_mode);
/* Cut them into rows of cols columns. */
void		 pager_lines_wrap(struct pager_lines *, int cols);
void		 pager_lines_clear(struct pager_lines *);

/* The attachments of msg (the pager's; it outlives the screen). */
struct tui_screen *tui_attach_new(struct tui_account *, struct message *);
/* Ask for a command and give it the len bytes at data on its input. */
void		 tui_pager_pipe(const char *what, const char *data, size_t len);

#endif
