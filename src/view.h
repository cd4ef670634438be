/*
 * view.h: a message as plain, terminal-safe text: what
 * "steedmail --view FILE" prints, and what the pager will show.
 */
#ifndef STEED_VIEW_H
#define STEED_VIEW_H

#include <stddef.h>

#include "buf.h"

struct mime_msg;
struct mime_part;

/*
 * Lines the view draws itself start with VIEW_MARK (U+2503, a heavy
 * vertical bar, and a space). The character never comes out of a message:
 * wherever message text holds it, it is shown as <U+2503>, so a view line
 * cannot be forged, not even by a long line wrapping on the terminal.
 */
#define VIEW_MARK	"\xe2\x94\x83 "

/*
 * A status line for a part, or NULL for none: the hook the crypto code
 * uses to say "signed by ..." or "decrypted" about a part. It is called
 * for every part, containers included, in the order shown; the returned
 * string (allocated, freed by the view) is made terminal-safe and drawn
 * as a view line just before the part.
 */
typedef char	*(*view_status_fn)(const struct mime_part *, void *arg);

/*
 * Render the len bytes at raw into out: the Date, From, To, Cc and Subject
 * headers, each text/plain part, and a list of the other parts. Every byte
 * that came from the message is made terminal-safe. Returns -1 with *cause
 * set only if the message cannot be read at all (too large).
 */
int	 view_render(const char *raw, size_t len, struct buf *out,
	    char **cause);
/* The same for a parsed message, with a status hook (NULL for none). */
void	 view_render_msg(struct mime_msg *, struct buf *out,
	    view_status_fn status, void *arg);

#endif
