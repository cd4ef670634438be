/*
 * tui-screen.c: the interface's state that every screen may touch: the
 * stack of screens, the redraw flag, the rows between the bars, and
 * handing the terminal to another program (a shell, a viewer, gpg's
 * pinentry) and taking it back. Screens call this file, never the loop
 * (tui-main.c), which calls the screens.
 */
#include <sys/wait.h>

#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "tui.h"
#include "tui-int.h"

struct tui	tui;

uint32_t
tui_index_step(struct tui_screen *sc, uint32_t uid, int dir)
{
	if (sc == NULL || sc->step == NULL)
		return 0;
	return sc->step(sc, uid, dir);
}

int
tui_index_tag(struct tui_screen *sc, uint32_t uid)
{
	if (sc == NULL || sc->tag == NULL)
		return -1;
	return sc->tag(sc, uid);
}

struct tui_account *
tui_current(void)
{
	if (tui.naccounts == 0)
		return NULL;
	return tui.accounts[tui.current];
}

void
tui_dirty(void)
{
	tui.dirty = 1;
}

int
tui_rows(void)
{
	int	r = LINES - 3;

	return r > 0 ? r : 0;
}

void
tui_push(struct tui_screen *s)
{
	if (s == NULL)
		return;
	s->below = tui.top;
	tui.top = s;
	tui_dirty();
}

static void
screen_free(struct tui_screen *s)
{
	if (s->free != NULL)
		s->free(s);
	else
		free(s);
}

void
tui_pop(void)
{
	struct tui_screen	*s = tui.top;

	if (s == NULL)
		return;
	tui.top = s->below;
	screen_free(s);
	tui_dirty();
}

void
tui_resized(void)
{
	tui_dirty();
}

/*
 * Leaving the screen nests: gpg may hold two contexts that can prompt at
 * once (each asks for the terminal, TE_ASK 2, and gives it back, TE_ASK
 * 3), and an editor may run while gpg has it. Only the first leaves
 * curses and only the last comes back: a second def_prog_mode() would
 * save the shell's line mode as curses' own, and the screen would stay in
 * it, echoing what is typed.
 */
static int	tui_suspended;

void
tui_suspend_screen(void)
{
	if (tui_suspended++ > 0)
		return;
	def_prog_mode();
	endwin();
}

void
tui_resume_screen(void)
{
	if (tui_suspended == 0 || --tui_suspended > 0)
		return;
	reset_prog_mode();
	clearok(curscr, TRUE);
	tui_dirty();
}

/*
 * Wait for the program, its exit status or -1. A program that stops
 * (Ctrl-Z in an editor, or SIGSTOP) would leave us waiting for ever: on
 * Ctrl-Z the whole job stops as a shell expects (we stop too; where
 * nobody can stop us, that is a no-op) and, on fg or at once, the program
 * is continued.
 */
static int
tui_wait_program(pid_t pid)
{
	int	status = 0, r;

	for (;;) {
		r = waitpid(pid, &status, WUNTRACED);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return -1;
		if (!WIFSTOPPED(status))
			break;
		if (WSTOPSIG(status) != SIGSTOP) {
			signal(SIGTSTP, SIG_DFL);
			kill(getpid(), SIGTSTP);
			signal(SIGTSTP, SIG_IGN);
		}
		kill(pid, SIGCONT);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
tui_run_program(const char *cmd, const char *input, size_t inlen,
    int wait_key)
{
	struct sigaction	 ign, oint, oquit;
	pid_t			 pid;
	int			 p[2] = { -1, -1 }, rc = -1;

	/* Ctrl-C and Ctrl-\ on the terminal are the program's (an
	 * editor's), never ours, for as long as the terminal is not in
	 * curses' raw mode */
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	tui_suspend_screen();
	if (input != NULL && pipe(p) == -1)
		goto out;
	if ((pid = fork()) == -1) {
		if (p[0] != -1) {
			close(p[0]);
			close(p[1]);
		}
		goto out;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTSTP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (p[0] != -1) {
			dup2(p[0], 0);
			close(p[0]);
			close(p[1]);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (p[0] != -1) {
		size_t	 off = 0;
		ssize_t	 w;

		close(p[0]);
		signal(SIGPIPE, SIG_IGN);
		while (off < inlen) {
			w = write(p[1], input + off, inlen - off);
			if (w == -1 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		close(p[1]);
	}
	rc = tui_wait_program(pid);
	if (wait_key) {
		static const char	msg[] = "\r\nPress any key to go back "
		    "to steedmail.";
		ssize_t			w;
		char			c;
		struct termios		t, raw;

		w = write(1, msg, sizeof msg - 1);
		(void)w;
		if (tcgetattr(0, &t) == 0) {
			raw = t;
			raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
			raw.c_cc[VMIN] = 1;
			raw.c_cc[VTIME] = 0;
			tcsetattr(0, TCSANOW, &raw);
			w = read(0, &c, 1);
			tcsetattr(0, TCSANOW, &t);
		}
	}
out:
	tui_resume_screen();
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	return rc;
}

/* Ctrl-Z: stop as a shell job, the terminal as it was; back on fg. */
void
tui_stop_self(void)
{
	tui_suspend_screen();
	signal(SIGTSTP, SIG_DFL);
	kill(getpid(), SIGTSTP);
	/* here again after fg */
	signal(SIGTSTP, SIG_IGN);
	tui_resume_screen();
}

