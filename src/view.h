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
 * The content to show in place of a part, or NULL for the part itself:
 * the hook the crypto code uses to put decrypted or verified content where
 * the ciphertext was. The tree stays the hook owner's. The view draws a
 * line where that content begins and ends, and lists its attachments
 * before the end line, so that nothing from inside is shown as if it were
 * outside, or the other way round.
 */
typedef struct mime_part *(*view_inner_fn)(const struct mime_part *,
	    void *arg);

struct view_hooks {
	view_status_fn			 status;	/* or NULL */
	view_inner_fn			 inner;		/* or NULL */
	/* Header fields shown instead of the message's own (protected
	 * headers), field by field; NULL for none. */
	const struct mime_header	*headers;
	/* Lines drawn as view lines after the header block. */
	char				**notes;
	size_t				 nnotes;
	void				*arg;
};

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
/* The same with all the hooks. */
void	 view_render_hooks(struct mime_msg *, struct buf *out,
	    const struct view_hooks *);

#endif
