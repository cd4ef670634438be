/*
 * frontend.h: the one seam between the engine and whoever drives it (the
 * batch commands of ui/cli-*.c, the curses screens, the setup wizard).
 *
 * The engine never prints, never opens the terminal and never decides an
 * exit code. What it needs from a person (a password, "send in clear?",
 * "pin this certificate?"), what it wants a person to know (a warning, a
 * notice), how far a long operation has come, and whether the person has
 * asked to stop it all pass through the hooks below, which the front end
 * installs for the thread that calls the engine (fe_set()). Each thread
 * has its own: a session driven from a worker thread reports to the hooks
 * the worker installed, and the interface thread is never called from it.
 * With no hooks installed, questions are answered "no" (or "no secret"),
 * warnings and progress are dropped, and nothing is ever cancelled.
 */
#ifndef STEED_FRONTEND_H
#define STEED_FRONTEND_H

#include <stdatomic.h>
#include <stdint.h>

enum fe_level {
	FE_INFO,	/* worth saying: "3 messages sent" */
	FE_WARNING	/* something went wrong, the operation goes on */
};

struct fe_hooks {
	/*
	 * A secret the engine needs (an account's password): prompt says
	 * for what. Returns it (allocated; the engine wipes it with
	 * freezero_str()) or NULL and *cause (allocated) when there is none:
	 * no terminal, or the person gave none.
	 */
	char	*(*secret)(void *arg, const char *prompt, char **cause);

	/* A yes/no question: 1 yes, 0 no (and when it cannot be asked). */
	int	 (*confirm)(void *arg, const char *question);

	/*
	 * Something to tell the person: a warning or a notice, one line
	 * of plain text that may hold bytes from outside (a server's words,
	 * an address from a message): the front end makes it safe to show.
	 */
	void	 (*notice)(void *arg, enum fe_level, const char *text);

	/*
	 * A long operation's progress: what ("fetching headers"), how many
	 * of total done (total 0: not known). Called often; cheap.
	 */
	void	 (*progress)(void *arg, const char *what, uint64_t done,
		     uint64_t total);

	/*
	 * gpg (pinentry) may use the terminal now: the front end leaves
	 * the screen and returns the terminal's device name for GPG_TTY,
	 * or NULL when there is no terminal (gpg then cannot prompt).
	 * tty_end() follows when gpg is done: redraw. Either may be NULL.
	 */
	const char *(*tty_begin)(void *arg);
	void	 (*tty_end)(void *arg);

	/* Set (by any thread) to ask the operation in progress to stop. */
	atomic_int	*cancel;

	void		*arg;
};

/* Install hooks for the calling thread (NULL: none); returns the old. */
const struct fe_hooks *fe_set(const struct fe_hooks *);
const struct fe_hooks *fe_get(void);

/* What the engine calls; each does nothing useful without a hook. */
char	*fe_secret(const char *prompt, char **cause);
int	 fe_confirm(const char *fmt, ...)
	     __attribute__((format(printf, 1, 2)));
void	 fe_notice(enum fe_level, const char *fmt, ...)
	     __attribute__((format(printf, 2, 3)));
void	 fe_progress(const char *what, uint64_t done, uint64_t total);
/* Around a gpg operation that may prompt: sets GPG_TTY for gpgme. */
void	 fe_tty_begin(void);
void	 fe_tty_end(void);
/* Has the person asked to stop? The engine polls it between steps. */
int	 fe_cancelled(void);

#endif
