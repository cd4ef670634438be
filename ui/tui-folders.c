/*
 * tui-folders.c: the folders screen. It owns, for every account of the
 * running interface, the last folder list its worker sent (TJ_FOLDERS:
 * INBOX and the special-use folders first, with unseen and total counts)
 * and the rows drawn from them: each account a heading with its state
 * (listing, offline and why, an error), its folders below. The main loop
 * pushes it on `y`; <Enter> opens a folder's index in place of the screens
 * below. Folder names come from the server, decoded from IMAP's modified
 * UTF-7 by the engine (src/imap-name.h: the UTF-8 name every layer above
 * the wire uses; one that does not decode as the server spelled it), and
 * are drawn through tui_put(), never printed raw.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "tui.h"
#include "xmalloc.h"

struct tui_folders_acct {
	struct tui_account *acct;
	uint64_t	 job;		/* the TJ_FOLDERS in flight, or 0 */
	int		 again;		/* changed while it was in flight */
	struct imap_folder *folders;
	size_t		 n;
	char		*cause;		/* why the last list failed */
	int		 listed;	/* a list has come at least once */
	int		 down;		/* the worker said it went offline */
};

enum tui_folders_kind {
	TUI_FOLDERS_BLANK,		/* between accounts */
	TUI_FOLDERS_HEADING,
	TUI_FOLDERS_FOLDER
};

struct tui_folders_row {
	enum tui_folders_kind kind;
	size_t		 acct;
	size_t		 folder;
};

struct tui_folders {
	struct tui_folders_acct *accts;
	size_t		 naccts;
	struct tui_folders_row *rows;
	size_t		 nrows;
	size_t		 cursor;	/* a folder row, when there is one */
	size_t		 top;
	size_t		 home;		/* the account it was opened for */
	char		*search;	/* the last search */
};

static void
tui_folders_clear(struct tui_folders_acct *fa)
{
	imap_mailbox_list_free(fa->folders, fa->n);
	fa->folders = NULL;
	fa->n = 0;
}

static void
tui_folders_list(struct tui_folders_acct *fa)
{
	struct tui_job	job;

	if (fa->job != 0) {
		fa->again = 1;
		return;
	}
	memset(&job, 0, sizeof job);
	job.kind = TJ_FOLDERS;
	fa->job = tui_submit(fa->acct, &job);
	fa->again = 0;
}

/* The row the cursor should be on, or nrows when there is none. */
static size_t
tui_folders_find(struct tui_folders *f, size_t acct, const char *name)
{
	size_t	i;

	for (i = 0; i < f->nrows; i++) {
		if (f->rows[i].kind != TUI_FOLDERS_FOLDER ||
		    f->rows[i].acct != acct)
			continue;
		if (name == NULL || strcmp(f->accts[acct].folders[
		    f->rows[i].folder].name, name) == 0)
			return i;
	}
	return f->nrows;
}

/* The last folder row, or nrows when there is none. */
static size_t
tui_folders_last(struct tui_folders *f)
{
	size_t	i;

	for (i = f->nrows; i > 0; i--)
		if (f->rows[i - 1].kind == TUI_FOLDERS_FOLDER)
			return i - 1;
	return f->nrows;
}

/* Rows again after a list came; the cursor stays on its folder. */
static void
tui_folders_rows(struct tui_folders *f)
{
	struct tui_folders_row	*r;
	char			*name = NULL;
	size_t			 i, j, acct = f->home, at;

	if (f->cursor < f->nrows &&
	    f->rows[f->cursor].kind == TUI_FOLDERS_FOLDER) {
		acct = f->rows[f->cursor].acct;
		name = xstrdup(f->accts[acct].folders[
		    f->rows[f->cursor].folder].name);
	}
	free(f->rows);
	f->rows = NULL;
	f->nrows = 0;
	for (i = 0; i < f->naccts; i++) {
		f->rows = xreallocarray(f->rows, f->nrows + 2 +
		    f->accts[i].n, sizeof *f->rows);
		if (i > 0) {
			r = &f->rows[f->nrows++];
			r->kind = TUI_FOLDERS_BLANK;
			r->acct = i;
		}
		r = &f->rows[f->nrows++];
		r->kind = TUI_FOLDERS_HEADING;
		r->acct = i;
		for (j = 0; j < f->accts[i].n; j++) {
			r = &f->rows[f->nrows++];
			r->kind = TUI_FOLDERS_FOLDER;
			r->acct = i;
			r->folder = j;
		}
	}
	at = f->nrows;
	if (name != NULL)
		at = tui_folders_find(f, acct, name);
	if (at == f->nrows)
		at = tui_folders_find(f, acct, NULL);
	for (i = 0; at == f->nrows && i < f->naccts; i++)
		at = tui_folders_find(f, i, NULL);
	f->cursor = at;
	free(name);
	tui_dirty();
}

static void
tui_folders_heading(struct tui_folders *f, size_t i, struct buf *b)
{
	struct tui_folders_acct	*fa = &f->accts[i];
	struct account		*a = tui_account_config(fa->acct);
	const char		*down, *progress;

	buf_addf(b, "%s <%s>", a->id, a->address);
	if ((down = tui_account_down(fa->acct)) != NULL)
		buf_addf(b, "  offline: %s", down);
	else if (fa->job != 0 &&
	    (progress = tui_account_progress(fa->acct)) != NULL)
		buf_addf(b, "  %s", progress);
	else if (fa->job != 0 && !fa->listed)
		buf_adds(b, "  listing the folders...");
	else if (fa->cause != NULL)
		buf_addf(b, "  cannot list the folders: %s", fa->cause);
	else if (fa->listed && fa->n == 0)
		buf_adds(b, "  no folders");
	buf_addc(b, '\0');
}

static void
tui_folders_line(struct tui_folders *f, int y, struct tui_folders_row *r,
    int selected)
{
	struct tui_folders_acct	*fa = &f->accts[r->acct];
	struct imap_folder	*fd = &fa->folders[r->folder];
	char			 counts[48], role[24];
	int			 attr, cw, x, nw;

	if (selected)
		attr = tui_attr(TC_SELECTED);
	else if (fd->unseen > 0)
		attr = tui_attr(TC_NEW);
	else
		attr = tui_attr(TC_NORMAL);
	tui_putfill(y, 0, COLS, "", attr);
	if (fd->status_error != NULL)
		snprintf(counts, sizeof counts, "%18s", "not counted");
	else if (fd->unseen > 0)
		snprintf(counts, sizeof counts, "%6u new %7u",
		    (unsigned)fd->unseen, (unsigned)fd->total);
	else
		snprintf(counts, sizeof counts, "%6s     %7u", "",
		    (unsigned)fd->total);
	cw = (int)strlen(counts);
	x = COLS - cw - 1;
	if (x < 20) {
		tui_put(y, 2, COLS - 2, fd->name, attr);
		return;
	}
	tui_put(y, 2, x - 3, fd->name, attr);
	/* the role steedmail uses it for (imap-role.h), beside a name
	 * that does not say it already */
	if (fd->role != NULL && strcasecmp(fd->name, fd->role) != 0 && (nw = tui_width(fd->name)) + 4 +
	    (int)strlen(fd->role) + 2 < x - 3) {
		snprintf(role, sizeof role, "(%s)", fd->role);
		tui_put(y, 2 + nw + 2, x - 3 - nw - 4, role,
		    selected ? attr : tui_attr(TC_NOTE));
	}
	tui_put(y, x, cw, counts, attr);
}

static void
tui_folders_draw(struct tui_screen *s)
{
	struct tui_folders	*f = s->data;
	struct tui_folders_row	*r;
	struct buf		 b;
	int			 rows = tui_rows(), y;
	size_t			 i;

	if (f->cursor < f->nrows) {
		if (f->cursor < f->top)
			f->top = f->cursor;
		if (f->cursor >= f->top + (size_t)rows)
			f->top = f->cursor - rows + 1;
		/* on the last folder, the accounts after it show too */
		if (tui_folders_last(f) == f->cursor &&
		    f->nrows > (size_t)rows)
			f->top = f->nrows - rows;
		/* show the account's heading when it fits */
		if (f->top == f->cursor && f->top > 0 &&
		    f->rows[f->top - 1].kind == TUI_FOLDERS_HEADING &&
		    rows > 1)
			f->top--;
	}
	if (f->top >= f->nrows)
		f->top = 0;
	buf_init(&b);
	for (y = 0; y < rows; y++) {
		i = f->top + y;
		if (i >= f->nrows) {
			tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "",
			    tui_attr(TC_NORMAL));
			continue;
		}
		r = &f->rows[i];
		if (r->kind == TUI_FOLDERS_BLANK) {
			tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "",
			    tui_attr(TC_NORMAL));
			continue;
		}
		if (r->kind == TUI_FOLDERS_FOLDER) {
			tui_folders_line(f, TUI_FIRST_ROW + y, r,
			    i == f->cursor);
			continue;
		}
		buf_reset(&b);
		tui_folders_heading(f, r->acct, &b);
		tui_putfill(TUI_FIRST_ROW + y, 0, COLS, b.data,
		    tui_attr(tui_account_down(f->accts[r->acct].acct) !=
		    NULL || f->accts[r->acct].cause != NULL ? TC_ERROR :
		    TC_HEADER_NAME));
	}
	buf_free(&b);
}

/* Move the cursor by n folder rows (headings are skipped). */
static void
tui_folders_move(struct tui_folders *f, long n)
{
	size_t	i = f->cursor, last = f->cursor;

	if (f->cursor >= f->nrows)
		return;
	while (n != 0) {
		if (n > 0 ? i + 1 >= f->nrows : i == 0)
			break;
		i += n > 0 ? 1 : -1;
		if (f->rows[i].kind != TUI_FOLDERS_FOLDER)
			continue;
		last = i;
		n += n > 0 ? -1 : 1;
	}
	f->cursor = last;
	tui_dirty();
}

/* Open the folder under the cursor in place of the screens below. */
static void
tui_folders_open(struct tui_folders *f)
{
	struct tui_folders_row	*r = &f->rows[f->cursor];
	struct tui_account	*acct = f->accts[r->acct].acct;
	char			*name;
	size_t			 i;

	name = xstrdup(f->accts[r->acct].folders[r->folder].name);
	for (i = 0; i < tui.naccounts; i++)
		if (tui.accounts[i] == acct)
			tui.current = i;
	while (tui.top != NULL)
		tui_pop();		/* this screen too: f is gone */
	tui_push(tui_index_new(acct, name));
	free(name);
}

/* The next folder (after the cursor, wrapping) whose name holds text. */
static void
tui_folders_search(struct tui_folders *f)
{
	struct tui_folders_row	*r;
	size_t			 i, at;

	if (f->search == NULL || f->cursor >= f->nrows)
		return;
	for (i = 1; i <= f->nrows; i++) {
		at = (f->cursor + i) % f->nrows;
		r = &f->rows[at];
		if (r->kind == TUI_FOLDERS_FOLDER && strcasestr(
		    f->accts[r->acct].folders[r->folder].name, f->search) != NULL) {
			f->cursor = at;
			tui_dirty();
			return;
		}
	}
	tui_message("no folder name holds \"%s\"", f->search);
}

static int
tui_folders_action(struct tui_screen *s, enum tui_action action, int key)
{
	struct tui_folders	*f = s->data;
	long			 page = tui_rows();
	char			*text;
	size_t			 i, a;

	(void)key;
	switch (action) {
	case TA_UP:
		tui_folders_move(f, -1);
		return 1;
	case TA_DOWN:
		tui_folders_move(f, 1);
		return 1;
	case TA_PAGE_UP:
		tui_folders_move(f, -page);
		return 1;
	case TA_PAGE_DOWN:
		tui_folders_move(f, page);
		return 1;
	case TA_HALF_UP:
		tui_folders_move(f, -page / 2);
		return 1;
	case TA_HALF_DOWN:
		tui_folders_move(f, page / 2);
		return 1;
	case TA_TOP:
		tui_folders_move(f, -(long)f->nrows);
		return 1;
	case TA_BOTTOM:
		tui_folders_move(f, (long)f->nrows);
		return 1;
	case TA_NEXT_ACCOUNT:
		if (f->cursor >= f->nrows || f->naccts < 2)
			return 1;
		a = f->rows[f->cursor].acct;
		for (i = 1; i < f->naccts; i++) {
			if (f->accts[(a + i) % f->naccts].n == 0) {
				tui_message("%s: no folders to show",
				    tui_account_config(f->accts[(a + i) %
				    f->naccts].acct)->id);
				continue;
			}
			f->cursor = tui_folders_find(f, (a + i) % f->naccts,
			    NULL);
			tui_dirty();
			return 1;
		}
		return 1;
	case TA_SELECT:
		if (f->cursor < f->nrows)
			tui_folders_open(f);
		return 1;
	case TA_ADD_ACCOUNT:
		tui_push(tui_setup_new());
		return 1;
	case TA_SYNC:
		for (i = 0; i < f->naccts; i++)
			tui_folders_list(&f->accts[i]);
		tui_dirty();
		return 1;
	case TA_SEARCH:
		text = tui_prompt("Folder: ", NULL, 0, NULL, NULL);
		if (text == NULL || *text == '\0') {
			free(text);
			return 1;
		}
		free(f->search);
		f->search = text;
		tui_folders_search(f);
		return 1;
	case TA_SEARCH_NEXT:
		tui_folders_search(f);
		return 1;
	case TA_FOLDERS:
		return 1;		/* already here */
	default:
		return 0;
	}
}

static void
tui_folders_take(struct tui_folders *f, struct tui_folders_acct *fa,
    struct tui_event *ev)
{
	fa->job = 0;
	free(fa->cause);
	fa->cause = NULL;
	if (ev->result != 0)		/* the last list stays */
		fa->cause = xstrdup(ev->cause != NULL ? ev->cause :
		    "no reason given");
	if (ev->result == 0) {
		tui_folders_clear(fa);
		fa->folders = ev->folders;
		fa->n = ev->nfolders;
		ev->folders = NULL;
		ev->nfolders = 0;
		fa->listed = 1;
	}
	tui_folders_rows(f);
	if (fa->again)
		tui_folders_list(fa);
}

static void
tui_folders_event(struct tui_screen *s, struct tui_event *ev)
{
	struct tui_folders	*f = s->data;
	struct tui_folders_acct	*fa = NULL;
	size_t			 i;

	for (i = 0; i < f->naccts; i++)
		if (f->accts[i].acct == ev->acct)
			fa = &f->accts[i];
	if (fa == NULL)
		return;
	switch (ev->kind) {
	case TE_DONE:
		if (ev->jkind == TJ_FOLDERS && fa->job != 0 &&
		    ev->job == fa->job)
			tui_folders_take(f, fa, ev);
		break;
	case TE_CHANGED:
		tui_folders_list(fa);
		break;
	case TE_STATE:
		/* back online: the counts may have moved meanwhile */
		if (!ev->up)
			fa->down = 1;
		else if (fa->down) {
			fa->down = 0;
			tui_folders_list(fa);
		}
		tui_dirty();
		break;
	case TE_PROGRESS:
		if (fa->job != 0)
			tui_dirty();
		break;
	case TE_NOTICE:
	case TE_ASK:
		break;
	}
}

static void
tui_folders_status(struct tui_screen *s, struct buf *b)
{
	struct tui_folders	*f = s->data;
	const struct imap_folder *fd;
	size_t			 i, n = 0, at = 0, unseen = 0;

	for (i = 0; i < f->nrows; i++) {
		if (f->rows[i].kind != TUI_FOLDERS_FOLDER)
			continue;
		n++;
		if (i == f->cursor)
			at = n;
		unseen += f->accts[f->rows[i].acct].folders[
		    f->rows[i].folder].unseen;
	}
	buf_addf(b, "folder %zu/%zu  %zu new message%s", at, n, unseen,
	    unseen == 1 ? "" : "s");
	/* why the folder under the cursor has no counts */
	if (f->cursor < f->nrows &&
	    f->rows[f->cursor].kind == TUI_FOLDERS_FOLDER &&
	    (fd = &f->accts[f->rows[f->cursor].acct].folders[
	    f->rows[f->cursor].folder]) != NULL) {
		if (fd->status_error != NULL)
			buf_addf(b, "  not counted: %s", fd->status_error);
		else if (fd->role != NULL)
			buf_addf(b, "  %s folder, %s", fd->role,
			    fd->role_how);
	}
}

static void
tui_folders_free(struct tui_screen *s)
{
	struct tui_folders	*f = s->data;
	size_t			 i;

	for (i = 0; i < f->naccts; i++) {
		tui_folders_clear(&f->accts[i]);
		free(f->accts[i].cause);
	}
	free(f->accts);
	free(f->rows);
	free(f->search);
	free(f);
	free(s);
}

struct tui_screen *
tui_folders_new(struct tui_account *current)
{
	struct tui_screen	*s;
	struct tui_folders	*f;
	size_t			 i;

	f = xcalloc(1, sizeof *f);
	if (tui.naccounts == 0 && current != NULL) {
		f->naccts = 1;
		f->accts = xcalloc(1, sizeof *f->accts);
		f->accts[0].acct = current;
	} else {
		f->naccts = tui.naccounts;
		f->accts = xcalloc(f->naccts, sizeof *f->accts);
		for (i = 0; i < f->naccts; i++)
			f->accts[i].acct = tui.accounts[i];
	}
	for (i = 0; i < f->naccts; i++) {
		if (f->accts[i].acct == current)
			f->home = i;
		tui_folders_list(&f->accts[i]);
	}
	tui_folders_rows(f);

	s = xcalloc(1, sizeof *s);
	s->title = "Folders";
	s->map = TM_FOLDERS;
	s->draw = tui_folders_draw;
	s->action = tui_folders_action;
	s->event = tui_folders_event;
	s->status = tui_folders_status;
	s->free = tui_folders_free;
	s->data = f;
	return s;
}
