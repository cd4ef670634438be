/*
 * tui-compose.h: what the compose screen's files (tui-compose.c, the
 * screen; tui-compose-send.c, the security line, send and postpone;
 * tui-compose-addr.c, the address prompts; tui-compose-edit.c, the text
 * in $EDITOR) tell each other. Nothing else includes it.
 */
#ifndef STEED_TUI_COMPOSE_H
#define STEED_TUI_COMPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#include "draft.h"

struct tui_account;
struct tui_event;

/* The encrypt toggle (E): what the policy says, always, never. */
enum cp_encrypt {
	CP_ENCRYPT_POLICY,
	CP_ENCRYPT_ALWAYS,	/* opts.encrypt: encrypt or refuse */
	CP_ENCRYPT_NEVER	/* opts.never */
};

/* One compose screen's state (the screen's data). */
struct compose {
	struct tui_account	*ta;		/* the sending account */
	struct draft		*d;
	char			*resumed;	/* the draft file, or NULL */
	enum cp_encrypt		 enc;
	int			 nosign;
	int			 smime;
	size_t			 cursor;	/* the attachment selected */

	/* the security line (tui-compose-send.c) */
	uint64_t		 fast_job;	/* draft_preview, use_dns 0 */
	uint64_t		 full_job;	/* use_dns 1; these ids are the
						   generation: older answers are
						   dropped */
	struct draft_preview	*shown;		/* the latest answer */
	void			*shown_run;	/* the run that owns it */
	int			 shown_full;	/* it is use_dns 1's */
	char			*shown_error;	/* no answer: why */
	int			 send_when_known; /* y while looking up */

	/* sending and postponing: no edits until they answer */
	uint64_t		 send_job;
	uint64_t		 postpone_job;
	int			 done;		/* pop at the next draw */

	/* m without autoedit: To, then Subject, then the editor, asked
	 * once the screen is up (its ready hook) */
	enum { CP_ASK_NONE, CP_ASK_TO, CP_ASK_SUBJECT, CP_ASK_EDIT } ask;
	int64_t			 asked_at;	/* To answered, clock_ms() */
};

/* tui-compose-send.c */
void	 tui_compose_preview(struct compose *);
int	 tui_compose_looking(const struct compose *);
void	 tui_compose_send(struct compose *, int now);
void	 tui_compose_postpone(struct compose *);
/* A worker or background event: 1 if it was this screen's. */
int	 tui_compose_event(struct compose *, struct tui_event *);
void	 tui_compose_opts(const struct compose *, struct draft_opts *);
void	 tui_compose_send_free(struct compose *);

/*
 * tui-compose-addr.c. Ask for a recipient list on the message line,
 * starting from init: Tab completes the last comma-separated element from
 * the address book (addrbook.h), showing a few candidates when several
 * match; an accepted line is read into plain addresses (*v, *n), aliases
 * expanded. A line that does not read is said above the prompt, which
 * comes back with it to be mended. Returns 1 with *v (possibly empty),
 * 0 when cancelled.
 */
int	 tui_compose_addr_ask(struct tui_account *, const char *question,
	    const char *init, char ***v, size_t *n);
/* "a@x, b@y" (allocated). */
char	*tui_compose_addr_join(char *const *v, size_t n);
void	 tui_compose_addr_free(char **v, size_t n);

/*
 * tui-compose-edit.c. Edit *body in $VISUAL, else $EDITOR, else vi, in a
 * file of a private directory that is removed afterwards. Returns 0 when
 * the editor exited well (*body is the file's text, NULL when empty); -1
 * when it failed or was killed: *body is what the file holds if the
 * editor changed it, else as it was, and *why says what happened
 * (allocated). Text is never lost.
 */
int	 tui_compose_edit(char **body, char **why);

#endif
