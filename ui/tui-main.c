/*
 * tui-main.c: the curses interface's loop, on the interface thread. It
 * starts a worker per account (tui-worker.c), opens the index of the
 * chosen account's INBOX, and then waits on two things only: the keyboard
 * and the workers' events. Keys go to the screen on top (tui-keys.c maps
 * them to actions), events to every screen on the stack; the loop draws
 * the top bar, the status bar and the message line itself. It also leaves
 * and restores the terminal for Ctrl-Z, the shell, external programs and
 * gpg's pinentry, and redraws on a resize.
 */
#include <sys/wait.h>

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "crypto.h"
#include "frontend.h"
#include "log.h"
#include "strsafe.h"
#include "tui.h"
#include "tui-int.h"
#include "tui-outbox.h"
#include "xmalloc.h"

static volatile sig_atomic_t	got_term;

static void
on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

/* Before curses starts: one line on standard error. */
static void
tui_fatal_early(const char *why)
{
	char	*safe = strsafe(why != NULL ? why : "failed", 0);

	fprintf(stderr, "steedmail: %s\n", safe);
	free(safe);
}

/* ---- the bars ----------------------------------------------------------- */

static void
draw_bars(void)
{
	struct tui_account	*ta = tui_current();
	struct buf		 b;
	const char		*down = NULL, *prog = NULL;
	char			*right = NULL, *ob = NULL;
	size_t			 queued, failed;
	int			 rw;

	buf_init(&b);
	buf_addf(&b, " steedmail");
	if (ta != NULL)
		buf_addf(&b, " | %s", tui_account_config(ta)->address);
	if (tui.top != NULL && tui.top->title != NULL)
		buf_addf(&b, " | %s", tui.top->title);
	tui_bar(0, b.data, tui_attr(TC_TITLE));
	buf_reset(&b);

	/* with several accounts, the status bar names the one shown */
	if (ta != NULL && tui.naccounts > 1)
		buf_addf(&b, " [%s]", tui_account_config(ta)->id);
	if (tui.top != NULL && tui.top->status != NULL)
		tui.top->status(tui.top, &b);
	if (ta != NULL) {
		down = tui_account_down(ta);
		prog = tui_account_progress(ta);
	}
	if (down != NULL)
		right = xasprintf("offline: %s ", down);
	else if (prog != NULL)
		right = xasprintf("%s ", prog);
	else
		right = xstrdup("? help ");
	/* mail that waits in the outbox is said until it is gone */
	tui_outbox_count(&queued, &failed);
	if (queued > 0 || failed > 0) {
		if (failed == 0)
			ob = xasprintf("outbox: %zu queued | %s", queued, right);
		else if (queued == 0)
			ob = xasprintf("outbox: %zu failed | %s", failed, right);
		else
			ob = xasprintf("outbox: %zu queued, %zu failed | %s",
			    queued, failed, right);
		free(right);
		right = ob;
	}
	tui_bar(LINES - 2, b.data != NULL ? b.data : "", tui_attr(TC_STATUS));
	rw = tui_width(right);
	if (down != NULL && rw > COLS / 2)
		rw = COLS / 2;
	if (rw < COLS)
		tui_put(LINES - 2, COLS - rw, rw, right,
		    tui_attr(down != NULL ? TC_BANNER_BAD : TC_STATUS));
	free(right);
	buf_free(&b);
}

static void
draw(void)
{
	erase();
	if (LINES < 5 || COLS < 20) {
		tui_put(0, 0, COLS, "steedmail: the terminal is too small",
		    A_NORMAL);
		refresh();
		return;
	}
	if (tui.top != NULL && tui.top->draw != NULL)
		tui.top->draw(tui.top);
	draw_bars();
	tui_message_draw();
	refresh();
	tui.dirty = 0;
}

/* ---- events --------------------------------------------------------------- */

static void
answer(struct tui_event *ev)
{
	char	*s;

	switch (ev->ask) {
	case 0:
		s = tui_prompt(ev->text, NULL, 1, NULL, NULL);
		tui_answer(ev, s != NULL, s);
		break;
	case 1:
		/* the engine asks only where yes is the risky answer ("send
		 * in clear?"): Enter is no */
		tui_answer(ev, tui_yesno_no("%s", ev->text), NULL);
		break;
	case 2:
		tui_suspend_screen();
		tui_answer(ev, 1, NULL);
		break;
	default:
		tui_resume_screen();
		tui_answer(ev, 1, NULL);
		break;
	}
}

static void
handle_event(struct tui_event *ev)
{
	struct tui_screen	*s;

	switch (ev->kind) {
	case TE_ASK:
		answer(ev);
		break;
	case TE_NOTICE:
		if (ev->level == FE_WARNING)
			tui_error("%s", ev->text);
		else
			tui_message("%s", ev->text);
		break;
	case TE_STATE:
		if (ev->up)
			tui_message("connected again");
		tui_dirty();
		break;
	case TE_PROGRESS:
		tui_dirty();
		break;
	default:
		break;
	}
	/* a search of every folder, under way: its progress, its end */
	tui_found_event(ev);
	for (s = tui.top; s != NULL; s = s->below)
		if (s->event != NULL)
			s->event(s, ev);
	tui_event_free(ev);
	tui_dirty();
}

/* ---- keys ------------------------------------------------------------------- */

static void
switch_account(void)
{
	if (tui.naccounts < 2) {
		tui_message("only one account is configured");
		return;
	}
	while (tui.top != NULL)
		tui_pop();
	tui.current = (tui.current + 1) % tui.naccounts;
	tui_push(tui_index_new(tui_current(), "INBOX"));
}

static void
generic(enum tui_action a, int key)
{
	const char	*sh;
	struct tui_screen *s;

	switch (a) {
	case TA_QUIT:
		if (tui.top == NULL || tui.top->below == NULL)
			tui.quit = 1;
		else
			tui_pop();
		break;
	case TA_BACK:
		if (tui.top != NULL && tui.top->below != NULL)
			tui_pop();
		break;
	case TA_HELP:
		if ((s = tui_help_new(tui.top != NULL ? tui.top->map :
		    TM_GENERIC)) != NULL)
			tui_push(s);
		break;
	case TA_REDRAW:
		clearok(curscr, TRUE);
		tui_dirty();
		break;
	case TA_SHELL:
		if ((sh = getenv("SHELL")) == NULL || *sh == '\0')
			sh = "/bin/sh";
		tui_run_program(sh, NULL, 0, 0);
		break;
	case TA_FOLDERS:
		if (tui_current() != NULL)
			tui_push(tui_folders_new(tui_current()));
		break;
	case TA_NEXT_ACCOUNT:
		switch_account();
		break;
	case TA_CANCEL:
		if (tui_current() != NULL) {
			tui_cancel(tui_current());
			tui_message("stopping...");
		}
		break;
	case TA_REPLY:
	case TA_GROUP_REPLY:
	case TA_LIST_REPLY:
	case TA_FORWARD:
		if (tui.top != NULL)
			tui_write_from(tui.top, a);
		break;
	case TA_COMPOSE:
		if (tui_current() != NULL)
			tui_write_new(tui_current());
		break;
	case TA_RECALL:
		if (tui_current() != NULL &&
		    (s = tui_drafts_new(tui_current())) != NULL)
			tui_push(s);
		break;
	case TA_OUTBOX:
		if (tui_current() != NULL &&
		    (s = tui_outbox_new(tui_current())) != NULL)
			tui_push(s);
		break;
	case TA_SEARCH_FOLDERS:
		if (tui_current() != NULL)
			tui_found_start(tui_current());
		break;
	case TA_QUERY:
		if (tui_current() != NULL &&
		    (s = tui_query_new(tui_current())) != NULL)
			tui_push(s);
		break;
	case TA_NONE:
		if (key != KEY_RESIZE && key != ERR)
			tui_message("%s: not bound here; ? lists the keys",
			    tui_key_name(key));
		break;
	default:
		break;
	}
}

static void
handle_key(int key)
{
	enum tui_action	a;

	tui_message_clear();
	tui_dirty();
	if (key == KEY_RESIZE) {
		tui_resized();
		return;
	}
	if (key == 26) {		/* ^Z */
		tui_stop_self();
		return;
	}
	a = tui_key_action(tui.top != NULL ? tui.top->map : TM_GENERIC, key);
	if (tui.top != NULL && tui.top->action != NULL && a != TA_NONE &&
	    tui.top->action(tui.top, a, key))
		return;
	generic(a, key);
}

/* ---- the loop -------------------------------------------------------------- */

static void
loop(void)
{
	struct pollfd		 pfd[2];
	struct tui_event	*ev;
	int			 key, n;

	pfd[0].fd = 0;
	pfd[0].events = POLLIN;
	pfd[1].fd = tui_events_fd();
	pfd[1].events = POLLIN;
	size_t			 i;
	int			 started = 0;

	while (!tui.quit && !got_term) {
		if (tui.top == NULL)
			break;
		if (tui.dirty)
			draw();
		if (!started) {
			/* the workers, once the first screen is up */
			for (i = 0; i < tui.naccounts; i++)
				tui_account_run(tui.accounts[i]);
			started = 1;
		}
		/* a screen that asks now (the setup wizard) */
		if (tui.top->ready != NULL && tui.top->ready(tui.top))
			continue;
		/* a second's tick keeps progress and state current */
		n = poll(pfd, 2, 1000);
		if (n == -1 && errno != EINTR)
			break;
		if (n <= 0) {
			if ((tui_current() != NULL &&
			    tui_account_progress(tui_current()) != NULL) ||
			    (tui.top != NULL && tui.top->ticking))
				tui_dirty();
			/* a resize arrives as a key after EINTR */
		}
		if (pfd[1].revents & POLLIN) {
			while ((ev = tui_events_take()) != NULL)
				handle_event(ev);
		}
		while ((key = getch()) != ERR) {
			handle_key(key);
			if (tui.quit)
				break;
			/* a screen that asks at once (compose's To) gets
			 * the keys typed ahead, not its own bindings */
			if (tui.top != NULL && tui.top->ready != NULL) {
				tui_dirty();
				break;
			}
		}
		if ((pfd[0].revents & (POLLHUP | POLLERR)) != 0)
			break;
	}
}

static int
tui_run(struct config *cf, const char *account, const char *mailto,
    int setup)
{
	struct account	*a;
	const char	*cs;
	char		*cause = NULL;
	size_t		 i;

	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	tui_utf8 = cs != NULL && (strcmp(cs, "UTF-8") == 0 ||
	    strcmp(cs, "utf8") == 0);
	/* no account: the setup wizard makes one */
	if (cf->naccounts == 0)
		setup = 1;
	/* the engines are asked on the workers (crypto_init()), so that
	 * the first screen does not wait for gpg */
	if (crypto_library_init(&cause) == -1) {
		tui_fatal_early(cause);
		free(cause);
		return 1;
	}
	memset(&tui, 0, sizeof tui);
	tui.cf = cf;
	tui.accounts = xcalloc(cf->naccounts + 1, sizeof *tui.accounts);
	for (a = cf->accounts, i = 0; a != NULL; a = a->next, i++) {
		if (account != NULL ? strcmp(a->id, account) == 0 :
		    (cf->default_account != NULL ?
		    strcmp(a->id, cf->default_account) == 0 : i == 0))
			tui.current = i;
		tui.accounts[tui.naccounts++] = tui_account_start(cf, a);
	}
	if (account != NULL && (tui.naccounts == 0 ||
	    strcmp(tui_account_config(tui_current())->id, account) != 0)) {
		for (i = 0; i < tui.naccounts; i++)
			if (tui_account_stop(tui.accounts[i], 2000) == -1)
				_exit(78);
		free(tui.accounts);
		tui_fatal_early("no such account");
		return 78;
	}

	signal(SIGTERM, on_term);
	signal(SIGHUP, on_term);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	initscr();
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	/* Home and End as terminals send them whatever their terminfo says
	 * (xterm's entry has \EOH, tmux and rxvt send \E[1~ and \E[7~) */
	define_key("\033[1~", KEY_HOME);
	define_key("\033[7~", KEY_HOME);
	define_key("\033[H", KEY_HOME);
	define_key("\033OH", KEY_HOME);
	define_key("\033[4~", KEY_END);
	define_key("\033[8~", KEY_END);
	define_key("\033[F", KEY_END);
	define_key("\033OF", KEY_END);
	curs_set(0);
	tui_draw_init();
	tui_color_load(cf);
	tui_keys_load(cf);

	if (tui.naccounts > 0)
		tui_push(tui_index_new(tui_current(), "INBOX"));
	/* a refused URL is said on the index (tui_write_mailto()) */
	if (mailto != NULL && tui.naccounts > 0)
		(void)tui_write_mailto(tui_current(), mailto);
	if (setup)
		tui_push(tui_setup_new());
	tui_dirty();
	loop();

	while (tui.top != NULL)
		tui_pop();
	endwin();
	for (i = 0; i < tui.naccounts; i++) {
		if (tui_account_stop(tui.accounts[i], 1500) == -1) {
			/* busy in a server's answer: end without it */
			log_msg(LOG_INFO, "worker still busy at exit; leaving");
			log_close();
			_exit(got_term ? 1 : 0);
		}
	}
	/* a security line's lookup or a draft being read uses the
	 * configuration and the engines this return tears down: end
	 * without them when one is still at work (what such a task writes,
	 * a draft or the outbox, it writes to a temporary name and renames
	 * into place, so a half-done task loses nothing) */
	if (tui_background_wait(1500) == -1) {
		log_msg(LOG_INFO, "a background task still busy at exit; leaving");
		log_close();
		_exit(got_term ? 1 : 0);
	}
	free(tui.accounts);
	memset(&tui, 0, sizeof tui);
	return got_term ? 1 : 0;
}

int
tui_main(struct config *cf, const char *account, const char *mailto)
{
	return tui_run(cf, account, mailto, 0);
}

int
tui_setup_main(struct config *cf)
{
	return tui_run(cf, NULL, NULL, 1);
}
