/*
 * tui-prompt.c: the bottom line of the screen: a message until the next
 * key, an error, a line of input (with Tab completion of paths), a yes/no
 * question. Input is read here, on the interface thread, while the loop
 * waits; worker events wait in their queue meanwhile.
 */
#include <sys/stat.h>

#include <poll.h>

#include <curses.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"
#include "tui-int.h"
#include "xmalloc.h"

static char	*line_text;
static int	 line_error;

static void
set_line(int error, const char *fmt, va_list ap)
{
	free(line_text);
	if (vasprintf(&line_text, fmt, ap) == -1)
		line_text = NULL;
	line_error = error;
	tui_dirty();
}

void
tui_message(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	set_line(0, fmt, ap);
	va_end(ap);
}

void
tui_error(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	set_line(1, fmt, ap);
	va_end(ap);
}

void
tui_message_clear(void)
{
	free(line_text);
	line_text = NULL;
}

void
tui_message_clear_if(const char *text)
{
	if (line_text != NULL && strcmp(line_text, text) == 0)
		tui_message_clear();
}

void
tui_message_draw(void)
{
	tui_putfill(LINES - 1, 0, COLS, line_text != NULL ? line_text : "",
	    tui_attr(line_error ? TC_ERROR : TC_MESSAGE));
}

/* The text as typed: bytes of UTF-8, edited at the end only (a prompt's
 * answers are short; Backspace removes the last character). */
static void
draw_prompt(const char *question, const char *text, int secret)
{
	int	qw;

	move(LINES - 1, 0);
	clrtoeol();
	qw = tui_put(LINES - 1, 0, COLS - 1, question, tui_attr(TC_NORMAL));
	if (secret)
		tui_put(LINES - 1, qw, COLS - 1 - qw, "", 0);
	else {
		int	w = tui_width(text), room = COLS - 1 - qw;
		const char *t = text;

		/* keep the end in view */
		while (w > room && *t != '\0') {
			t++;
			while ((*t & 0xc0) == 0x80)
				t++;
			w = tui_width(t);
		}
		tui_put(LINES - 1, qw, room, t, tui_attr(TC_NORMAL));
		move(LINES - 1, qw + w);
	}
	refresh();
}

#define PSTR(b)	((b)->data != NULL ? (b)->data : "")

static void
wipe(struct buf *b, int secret)
{
	if (secret && b->data != NULL)
		explicit_bzero(b->data, b->cap);
	buf_free(b);
}

static void
chop_last(struct buf *b)
{
	if (b->len == 0)
		return;
	b->len--;
	while (b->len > 0 && (b->data[b->len] & 0xc0) == 0x80)
		b->len--;
	b->data[b->len] = '\0';
}

/*
 * A key read that waits came back with nothing: is the terminal gone (the
 * SSH connection dropped)? Then the prompt gives up as if cancelled, and
 * the main loop, which sees the hang-up too, ends the program; waiting on
 * would spin for ever.
 */
static int
tty_gone(void)
{
	struct pollfd	pfd = { .fd = 0, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 &&
	    (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

char *
tui_prompt(const char *question, const char *init, int secret,
    char *(*complete)(const char *, void *), void *arg)
{
	return tui_prompt_tick(question, init, secret, complete, NULL, arg);
}

char *
tui_prompt_tick(const char *question, const char *init, int secret,
    char *(*complete)(const char *, void *), void (*tick)(void *),
    void *arg)
{
	struct buf	 b;
	wint_t		 wc;
	int		 r;
	char		 mb[MB_LEN_MAX + 1];

	buf_init(&b);
	buf_adds(&b, init != NULL ? init : "");
	curs_set(1);
	/* the loop reads without waiting; a prompt waits for the key, or a
	 * tenth of a second at a time when it has something to look at */
	if (tick != NULL)
		timeout(100);
	else
		nodelay(stdscr, FALSE);
	for (;;) {
		draw_prompt(question, PSTR(&b), secret);
		r = get_wch(&wc);
		if (r == ERR && tty_gone())
			wc = 27;		/* as Escape */
		else if (r == ERR) {
			if (tick != NULL)
				tick(arg);
			continue;
		}
		if (r == KEY_CODE_YES) {
			if (wc == KEY_BACKSPACE)
				chop_last(&b);
			else if (wc == KEY_ENTER)
				break;
			else if (wc == KEY_RESIZE)
				tui_resized();
			continue;
		}
		if (wc == '\r' || wc == '\n')
			break;
		if (wc == 27 || wc == 7 || wc == 3) {	/* Escape, ^G, ^C */
			wipe(&b, secret);
			curs_set(0);
			nodelay(stdscr, TRUE);
			tui_message_clear();
			tui_dirty();
			return NULL;
		}
		if (wc == 127 || wc == 8) {
			chop_last(&b);
			continue;
		}
		if (wc == 21) {				/* ^U */
			buf_reset(&b);
			continue;
		}
		if (wc == '\t' && complete != NULL) {
			char	*c = complete(PSTR(&b), arg);

			if (c != NULL) {
				buf_reset(&b);
				buf_adds(&b, c);
				free(c);
			}
			continue;
		}
		if (wc < 32 || (wc >= 0x7f && wc < 0xa0))
			continue;
		if (tui_utf8) {
			mbstate_t	 st;
			size_t		 n;

			memset(&st, 0, sizeof st);
			n = wcrtomb(mb, (wchar_t)wc, &st);
			if (n != (size_t)-1)
				buf_add(&b, mb, n);
		} else if (wc < 0x80) {
			mb[0] = (char)wc;
			buf_add(&b, mb, 1);
		}
	}
	curs_set(0);
	nodelay(stdscr, TRUE);
	tui_message_clear();
	tui_dirty();
	{
		char	*s = xstrdup(PSTR(&b));

		wipe(&b, secret);
		return s;
	}
}

/* The question q (taken) on the bottom line; Enter is no with enter_no. */
static int
tui_ask_yn(char *q, int enter_no)
{
	char	*full;
	int	 r, c;

	full = xasprintf("%s %s ", q != NULL ? q : "?", enter_no ? "(y/N)" :
	    "(y/n)");
	free(q);
	nodelay(stdscr, FALSE);
	for (;;) {
		move(LINES - 1, 0);
		clrtoeol();
		tui_put(LINES - 1, 0, COLS - 1, full, tui_attr(TC_NORMAL));
		refresh();
		c = getch();
		if (c == ERR && tty_gone())
			c = 27;			/* as Escape: no */
		if (c == 'y' || c == 'Y') {
			r = 1;
			break;
		}
		if (c == 'n' || c == 'N' || c == 27 || c == 7 || c == 3 ||
		    (enter_no && (c == '\n' || c == '\r' ||
		    c == KEY_ENTER))) {
			r = 0;
			break;
		}
		if (c == KEY_RESIZE)
			tui_resized();
	}
	nodelay(stdscr, TRUE);
	free(full);
	tui_message_clear();
	tui_dirty();
	return r;
}

int
tui_yesno(const char *fmt, ...)
{
	va_list	 ap;
	char	*q;

	va_start(ap, fmt);
	if (vasprintf(&q, fmt, ap) == -1)
		q = NULL;
	va_end(ap);
	return tui_ask_yn(q, 0);
}

int
tui_yesno_no(const char *fmt, ...)
{
	va_list	 ap;
	char	*q;

	va_start(ap, fmt);
	if (vasprintf(&q, fmt, ap) == -1)
		q = NULL;
	va_end(ap);
	return tui_ask_yn(q, 1);
}

/*
 * Tab completion of a path: the longest common start of the names in its
 * directory that begin with its last component; a directory gets a '/'.
 */
char *
tui_complete_path(const char *text, void *arg)
{
	const char	*slash = strrchr(text, '/'), *base;
	char		*dir, *home = NULL, *best = NULL, *out;
	size_t		 blen, matches = 0;
	DIR		*d;
	struct dirent	*de;
	struct stat	 sb;

	(void)arg;
	if (slash != NULL) {
		dir = xstrndup(text, (size_t)(slash - text) + 1);
		base = slash + 1;
	} else {
		dir = xstrdup("./");
		base = text;
	}
	if (dir[0] == '~' && dir[1] == '/' && getenv("HOME") != NULL) {
		home = xasprintf("%s%s", getenv("HOME"), dir + 1);
	}
	blen = strlen(base);
	if ((d = opendir(home != NULL ? home : dir)) == NULL) {
		free(dir);
		free(home);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		size_t	i;

		if (strncmp(de->d_name, base, blen) != 0)
			continue;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (blen == 0 && de->d_name[0] == '.')
			continue;
		matches++;
		if (best == NULL) {
			best = xstrdup(de->d_name);
			continue;
		}
		for (i = 0; best[i] != '\0' && best[i] == de->d_name[i]; i++)
			;
		best[i] = '\0';
	}
	closedir(d);
	if (best == NULL) {
		free(dir);
		free(home);
		return NULL;
	}
	out = xasprintf("%s%s", slash != NULL ? dir : "", best);
	if (matches == 1) {
		char	*full;

		full = xasprintf("%s%s", home != NULL ? home : dir, best);
		if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			char	*o2;

			o2 = xasprintf("%s/", out);
			free(out);
			out = o2;
		}
		free(full);
	}
	free(best);
	free(dir);
	free(home);
	return out;
}
