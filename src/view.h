/*
 * view.h: a message as lines of plain, terminal-safe text, each with its
 * role (struct view_line): what "steedmail --view FILE" prints, and what
 * the pager will draw. message.h builds a message's lines with the
 * security hooks below; doc/message.md describes the model for those who
 * draw it.
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

/*
 * What a line is, so that a front end can draw each kind in its own way.
 * Every role but VIEW_HEADER, VIEW_SPACE and VIEW_TEXT is steedmail's own
 * chrome: --view starts those lines with VIEW_MARK, the pager will draw
 * them in its own colours; no byte of the message can make one.
 */
enum view_role {
	VIEW_HEADER,		/* "Field: value" in the header block */
	VIEW_SPACE,		/* the empty line that ends the header block */
	VIEW_TEXT,		/* a line of a text part (quote: how deep) */
	VIEW_BANNER,		/* security: of the message (part NULL) or
				   of the part that follows */
	VIEW_PART,		/* "part 1.2: text/plain, ..." before a part,
				   or the start of an attached message */
	VIEW_BOUNDARY,		/* where content shown in place of a part
				   (decrypted, verified) begins or ends; the
				   end of an attached message */
	VIEW_ATTACHMENT,	/* "attachments:" and one line per attachment */
	VIEW_NOTE		/* what steedmail says about the message or a
				   part: warnings, parser notes, "(empty)" */
};

struct view_line {
	enum view_role		 role;
	int			 quote;	/* VIEW_TEXT: leading ">" levels */
	int			 inner;	/* how many boundaries of content
					   shown in place of a part it is in:
					   0 is the message's own content */
	const struct mime_part	*part;	/* the part it belongs to, or NULL */
	char			*text;	/* terminal-safe, one line, no LF,
					   without VIEW_MARK */
};

struct view_lines {
	struct view_line	*v;
	size_t			 n;
	size_t			 cap;
};

/* A line the caller adds after the header block (security, notes). */
struct view_note {
	enum view_role		 role;
	const char		*text;	/* made terminal-safe when drawn */
};

struct view_hooks {
	view_status_fn			 status;	/* or NULL */
	view_inner_fn			 inner;		/* or NULL */
	/* Header fields shown instead of the message's own (protected
	 * headers), field by field; NULL for none. */
	const struct mime_header	*headers;
	/* The part they are on (the cryptographic payload): a legacy
	 * display element inside it (RFC 9788 4.5.3) repeats them for
	 * readers that show no protected header, and is left out. */
	const struct mime_part		*headers_part;
	/* Lines drawn as view lines after the header block. */
	const struct view_note		*notes;
	size_t				 nnotes;
	/* Brief: no boundary lines around content shown in place of the
	 * whole message (the security line above speaks for all of it),
	 * and no part line before the first text of the body. */
	int				 brief;
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

/* The lines of a parsed message, with all the hooks, appended to out. */
void	 view_lines(struct mime_msg *, const struct view_hooks *,
	    struct view_lines *out);
/* Lines as --view prints them: chrome after VIEW_MARK, one LF each. */
void	 view_lines_render(const struct view_lines *, struct buf *out);
int	 view_role_chrome(enum view_role);
const char *view_role_name(enum view_role);
void	 view_lines_free(struct view_lines *);

#endif
