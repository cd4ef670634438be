/*
 * tui-outbox.c: the outbox screen: the messages queued to send and those
 * the server refused for good (outgoing_list(), outgoing.h), each with
 * its date, recipients, Subject and what became of it; r sends the outbox
 * now (tui_send_flush() on the worker), d deletes a message
 * (outgoing_delete()), e takes one back into compose (its draft, kept
 * beside the entry when compose sent it: outgoing_take_back()), Enter
 * shows one in full. Also the count the status bar shows while mail waits
 * (tui_outbox_count()). The outbox's files are the engine's: this file
 * names none of them.
 *
 * Called from the loop (O: tui_outbox_new(); the status bar). Reading the
 * outbox is a few small local files, done on the interface thread;
 * sending is the worker's, deleting a queued message waits for the
 * outbox's lock on a thread of its own. Everything read from the messages
 * (addresses, Subject, the server's words) is drawn through tui_put().
 */
#include <curses.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "draft.h"
#include "outgoing.h"
#include "tui.h"
#include "tui-outbox.h"
#include "xmalloc.h"

#define TUI_OUTBOX_RECOUNT_MS	5000	/* others may queue too */

void
tui_outbox_count(size_t *queued, size_t *failed)
{
	static unsigned	 gen;
	static int64_t	 when;
	static size_t	 q, f;
	int64_t		 now = clock_ms();

	if (gen != tui_send_outbox_gen() ||
	    now - when >= TUI_OUTBOX_RECOUNT_MS) {
		gen = tui_send_outbox_gen();
		when = now;
		outgoing_count(&q, &f);
	}
	*queued = q;
	*failed = f;
}

/* ---- the screen ------------------------------------------------------- */

/* One message of the outbox, as the screen shows it. */
struct tui_outbox_row {
	char	*id;
	int	 failed;	/* in failed/: refused for good */
	int	 accepted;	/* the server took it; not yet in Sent */
	char	*date;
	char	*to;		/* every recipient, Bcc included */
	char	*subject;
	char	*state;		/* "queued: why", "failed: the server's words" */
	char	*path;		/* the message file */
};

struct tui_outbox {
	struct tui_account	*acct;
	struct tui_outbox_row	*rows;
	size_t			 n;
	size_t			 cursor, top;
	unsigned		 gen;		/* tui_send_outbox_gen() when
						   read */
	char			*error;		/* the outbox cannot be read */
	uint64_t		 job;		/* a retry or a delete */
	struct tui_account	*job_acct;	/* the retry's; NULL: a delete */
	int			 detail;	/* Enter: one entry in full */
	int			 editing;	/* the job is an e */
};

/* When it was queued, local time. */
static char *
tui_outbox_date(time_t t)
{
	struct tm	tm;
	char		out[32];

	if (t == (time_t)-1)
		return xstrdup("?");
	localtime_r(&t, &tm);
	strftime(out, sizeof out, "%b %d %H:%M", &tm);
	return xstrdup(out);
}

static void
tui_outbox_clear(struct tui_outbox *o)
{
	size_t	i;

	for (i = 0; i < o->n; i++) {
		free(o->rows[i].id);
		free(o->rows[i].date);
		free(o->rows[i].to);
		free(o->rows[i].subject);
		free(o->rows[i].state);
		free(o->rows[i].path);
	}
	free(o->rows);
	o->rows = NULL;
	o->n = 0;
	free(o->error);
	o->error = NULL;
}

/*
 * Read the outbox again (outgoing_list(): a directory of a few small
 * files, read on the interface thread).
 */
static void
tui_outbox_load(struct tui_outbox *o)
{
	struct outgoing_entry	 *v = NULL, *e;
	struct tui_outbox_row	 *r;
	size_t			  n = 0, i;
	char			 *cause = NULL, *why;
	char			 *id = o->cursor < o->n ?
				      xstrdup(o->rows[o->cursor].id) : NULL;

	tui_outbox_clear(o);
	o->gen = tui_send_outbox_gen();
	if (outgoing_list(tui.cf, &v, &n, &cause) == -1) {
		o->error = cause != NULL ? cause : xstrdup("cannot be read");
		free(id);
		return;
	}
	o->rows = n > 0 ? xcalloc(n, sizeof *o->rows) : NULL;
	for (i = 0; i < n; i++) {
		e = &v[i];
		r = &o->rows[o->n++];
		r->id = xstrdup(e->id);
		r->date = tui_outbox_date(e->queued);
		r->failed = e->failed;
		r->accepted = e->accepted;
		r->path = xstrdup(e->path);
		r->to = xstrdup(e->to != NULL ? e->to : "?");
		r->subject = xstrdup(e->subject != NULL ? e->subject :
		    e->encrypted ? "(encrypted)" : "(no subject)");
		if (e->failed)
			r->state = xasprintf("failed: %s", e->why);
		else if (e->held)
			r->state = xstrdup(e->why);
		else if (r->accepted)
			r->state = xstrdup("accepted by the server, not yet "
			    "saved in Sent");
		else if ((why = tui_send_why_queued(r->id)) != NULL) {
			r->state = xasprintf("queued: %s", why);
			free(why);
		} else
			r->state = xstrdup("queued: not tried yet by this "
			    "steedmail (r tries now)");
	}
	outgoing_list_free(v, n);
	/* the cursor stays on its message when it is still there, else
	 * near where it was */
	for (i = 0; id != NULL && i < o->n; i++)
		if (strcmp(o->rows[i].id, id) == 0)
			break;
	if (id != NULL && i < o->n)
		o->cursor = i;
	else if (o->cursor >= o->n)
		o->cursor = o->n > 0 ? o->n - 1 : 0;
	free(id);
	if (o->n == 0)
		o->detail = 0;
	tui_dirty();
}

/* One message in full: Enter. */
static void
tui_outbox_draw_detail(struct tui_outbox *o)
{
	struct tui_outbox_row	*r = &o->rows[o->cursor];
	int			 y = TUI_FIRST_ROW, rows = tui_rows(), last;
	static const char	*names[] = { "Date", "To", "Subject", "State",
				    "File" };
	const char		*vals[5];
	size_t			 i;

	vals[0] = r->date;
	vals[1] = r->to;
	vals[2] = r->subject;
	vals[3] = r->state;
	vals[4] = r->path;
	last = TUI_FIRST_ROW + rows;
	for (i = 0; i < 5 && y < last; i++) {
		const char	*p = vals[i];
		int		 w = COLS - 10;
		size_t		 len = strlen(p), take;

		tui_putfill(y, 0, 10, names[i], tui_attr(TC_HEADER_NAME));
		/* long values wrap, never inside a UTF-8 character */
		do {
			take = len > (size_t)w ? (size_t)w : len;
			while (take < len && take > 1 &&
			    ((unsigned char)p[take] & 0xc0) == 0x80)
				take--;
			{
				char *chunk = xstrndup(p, take);
				tui_putfill(y, 10, w, chunk, tui_attr(
				    i == 3 && r->failed ? TC_ERROR :
				    TC_HEADER));
				free(chunk);
			}
			p += take;
			len -= take;
			y++;
		} while (len > 0 && y < last);
	}
	if (y + 1 < last)
		tui_putfill(y + 1, 0, COLS, r->failed ? "d deletes it; "
		    "it cannot be sent again as it is.  q goes back." :
		    "r sends the outbox now, d deletes it.  q goes back.",
		    tui_attr(TC_NOTE));
}

static void
tui_outbox_draw(struct tui_screen *s)
{
	struct tui_outbox	*o = s->data;
	struct tui_outbox_row	*r;
	int			 rows = tui_rows(), y, attr, per;
	size_t			 i;
	int			 tw;

	if (o->gen != tui_send_outbox_gen())
		tui_outbox_load(o);
	if (o->error != NULL) {
		tui_putfill(TUI_FIRST_ROW, 0, COLS, o->error,
		    tui_attr(TC_ERROR));
		return;
	}
	if (o->n == 0) {
		tui_putfill(TUI_FIRST_ROW, 0, COLS, "The outbox is empty: "
		    "everything was sent.", tui_attr(TC_NOTE));
		return;
	}
	if (o->detail) {
		tui_outbox_draw_detail(o);
		return;
	}
	/* two lines a message: what it is, then what became of it */
	per = rows / 2 > 0 ? rows / 2 : 1;
	if (o->cursor < o->top)
		o->top = o->cursor;
	if (o->cursor >= o->top + (size_t)per)
		o->top = o->cursor - per + 1;
	tw = COLS / 3;
	for (y = 0; y < rows; y += 2) {
		i = o->top + y / 2;
		if (i >= o->n)
			break;
		r = &o->rows[i];
		attr = tui_attr(i == o->cursor ? TC_SELECTED : TC_NORMAL);
		tui_putfill(TUI_FIRST_ROW + y, 0, COLS, "", attr);
		tui_put(TUI_FIRST_ROW + y, 1, 12, r->date, attr);
		tui_put(TUI_FIRST_ROW + y, 14, tw, r->to, attr);
		tui_put(TUI_FIRST_ROW + y, 15 + tw, COLS - 16 - tw,
		    r->subject, attr);
		if (y + 1 < rows)
			tui_putfill(TUI_FIRST_ROW + y + 1, 4, COLS - 4,
			    r->state, tui_attr(r->failed ? TC_ERROR :
			    TC_NOTE));
	}
}

/* d: a queued message leaves the outbox under its lock, off this thread. */
struct tui_outbox_del {
	char	*id;
	int	 failed;
};

static void *
tui_outbox_del_run(void *arg)
{
	struct tui_outbox_del	*d = arg;
	char			*cause = NULL;

	if (outgoing_delete(d->id, d->failed, &cause) == 1)
		cause = xstrdup("it had left the outbox already (sent)");
	free(d->id);
	free(d);
	tui_send_outbox_changed();
	return cause;
}

static void
tui_outbox_delete(struct tui_outbox *o)
{
	struct tui_outbox_row	*r = &o->rows[o->cursor];
	struct tui_outbox_del	*d;

	if (!tui_yesno("%s %s to %s? ", r->accepted ? "It was sent, only "
	    "its copy to Sent waits: forget" : "Delete the message",
	    r->subject, r->to))
		return;
	d = xcalloc(1, sizeof *d);
	d->id = xstrdup(r->id);
	d->failed = r->failed;
	o->job = tui_background(tui_outbox_del_run, d, free);
	o->job_acct = NULL;
	tui_message("deleting...");
}

/*
 * e: a queued or failed message goes back into compose. Its draft, kept
 * beside the entry when compose queued it, moves to the drafts directory
 * and the entry leaves the outbox, under its lock (outgoing_take_back());
 * then the draft is read (gpg: off the interface thread). Compose removes
 * that file once the message is queued or postponed again; left alone,
 * it is a postponed draft like any other.
 */
struct tui_outbox_edit {
	struct account	*a;
	char		*id;
	int		 failed;
	char		*path;		/* the draft, in the drafts directory */
	struct draft	*d;
	char		*cause;		/* why not */
};

static void
tui_outbox_edit_free(void *p)
{
	struct tui_outbox_edit	*e = p;

	if (e == NULL)
		return;
	free(e->id);
	free(e->path);
	if (e->d != NULL)
		draft_free(e->d);
	free(e->cause);
	free(e);
}

static void *
tui_outbox_edit_run(void *arg)
{
	struct tui_outbox_edit	*e = arg;

	switch (outgoing_take_back(e->id, e->failed, &e->path, &e->cause)) {
	case OUTGOING_TAKEN:
		break;
	case OUTGOING_GONE:
		e->cause = xstrdup("it had left the outbox already (sent)");
		return e;
	case OUTGOING_ACCEPTED:
		e->cause = xstrdup("it was sent already (only its copy to Sent "
		    "waits): it cannot be edited");
		return e;
	case OUTGOING_NO_DRAFT:
		e->cause = xstrdup("queued from the command line: it cannot "
		    "be edited here; d deletes it, r sends it");
		return e;
	case OUTGOING_NOT_TAKEN:
		return e;
	}
	tui_send_outbox_changed();
	e->d = draft_resume(e->a, e->path, &e->cause);
	return e;
}

static void
tui_outbox_edit(struct tui_outbox *o)
{
	struct tui_outbox_row	*r = &o->rows[o->cursor];
	struct tui_outbox_edit	*e;

	if (r->accepted) {
		tui_error("it was sent already (only its copy to Sent "
		    "waits): it cannot be edited");
		return;
	}
	e = xcalloc(1, sizeof *e);
	e->a = tui_account_config(o->acct);
	e->id = xstrdup(r->id);
	e->failed = r->failed;
	o->job = tui_background(tui_outbox_edit_run, e,
	    tui_outbox_edit_free);
	o->job_acct = NULL;
	o->editing = 1;
	tui_message("taking the message back...");
}

/* The edit's end, on the interface thread: compose opens on the draft. */
static void
tui_outbox_edit_done(struct tui_outbox *o, struct tui_outbox_edit *e)
{
	struct tui_screen	*s;

	o->editing = 0;
	if (e == NULL)
		return;
	if (e->d == NULL) {
		if (e->path != NULL)
			tui_error("the message left the outbox; its draft "
			    "cannot be read (%s): it waits in the drafts "
			    "(D)", e->cause != NULL ? e->cause : "?");
		else
			tui_error("not edited: %s", e->cause != NULL ?
			    e->cause : "no reason given");
		return;
	}
	if ((s = tui_compose_new(o->acct, e->d, e->path, 0)) == NULL)
		return;
	e->d = NULL;
	tui_message_clear_if("taking the message back...");
	tui_push(s);
}

static void
tui_outbox_move(struct tui_outbox *o, long by)
{
	long	c = (long)o->cursor + by;

	if (o->n == 0)
		return;
	if (c < 0)
		c = 0;
	if (c >= (long)o->n)
		c = (long)o->n - 1;
	o->cursor = c;
	tui_dirty();
}

static int
tui_outbox_action(struct tui_screen *s, enum tui_action action, int key)
{
	struct tui_outbox	*o = s->data;
	long			 page = tui_rows() / 2;

	(void)key;
	if (o->detail && (action == TA_QUIT || action == TA_BACK ||
	    action == TA_SELECT)) {
		o->detail = 0;
		tui_dirty();
		return 1;
	}
	switch (action) {
	case TA_UP:
		tui_outbox_move(o, -1);
		return 1;
	case TA_DOWN:
		tui_outbox_move(o, 1);
		return 1;
	case TA_PAGE_UP:
	case TA_HALF_UP:
		tui_outbox_move(o, -page);
		return 1;
	case TA_PAGE_DOWN:
	case TA_HALF_DOWN:
		tui_outbox_move(o, page);
		return 1;
	case TA_TOP:
		tui_outbox_move(o, -(long)o->n);
		return 1;
	case TA_BOTTOM:
		tui_outbox_move(o, (long)o->n);
		return 1;
	case TA_SYNC:
		/* another steedmail may have queued: the count too */
		tui_send_outbox_changed();
		tui_outbox_load(o);
		return 1;
	case TA_SELECT:
		if (o->n > 0) {
			o->detail = 1;
			tui_dirty();
		}
		return 1;
	case TA_RETRY:
		if (o->job != 0) {
			tui_message("busy: wait for the last one");
			return 1;
		}
		/* the whole outbox: nobody wants one message to go and the
		 * others to wait */
		o->job = tui_send_flush(o->acct, NULL);
		o->job_acct = o->acct;
		tui_message("sending the outbox...");
		return 1;
	case TA_DELETE:
		if (o->n == 0)
			return 1;
		if (o->job != 0) {
			tui_message("busy: wait for the last one");
			return 1;
		}
		tui_outbox_delete(o);
		return 1;
	case TA_EDIT:
		if (o->n == 0)
			return 1;
		if (o->job != 0) {
			tui_message("busy: wait for the last one");
			return 1;
		}
		tui_outbox_edit(o);
		return 1;
	case TA_OUTBOX:
		return 1;		/* already here */
	default:
		return 0;
	}
}

static void
tui_outbox_event(struct tui_screen *s, struct tui_event *ev)
{
	struct tui_outbox	*o = s->data;
	struct tui_sent		*ts;

	if (ev->kind != TE_DONE)
		return;
	/* job ids are per worker, and the background's apart from them */
	if (o->job != 0 && ev->job == o->job && ev->acct == o->job_acct) {
		o->job = 0;
		if (o->editing) {
			tui_outbox_edit_done(o, ev->data);
			tui_outbox_load(o);
			return;
		}
		if (ev->acct == NULL) {		/* a delete */
			if (ev->data != NULL)
				tui_error("not deleted: %s",
				    (char *)ev->data);
			else
				tui_message("deleted");
		} else if ((ts = ev->data) != NULL) {
			if (ts->state == TS_SENT)
				tui_message("%s", ts->line);
			else
				tui_error("%s", ts->line);
		} else if (ev->cause != NULL)
			tui_error("not sent: %s", ev->cause);
		tui_outbox_load(o);
		return;
	}
	/* a send from compose changed the outbox too */
	if (ev->discard == tui_sent_free)
		tui_outbox_load(o);
}

/* The counts are on the right ("outbox: 1 queued"): the keys here. */
static void
tui_outbox_status(struct tui_screen *s, struct buf *b)
{
	struct tui_outbox	*o = s->data;

	if (o->detail)
		buf_addf(b, "message %zu/%zu  q back", o->cursor + 1, o->n);
	else if (o->n > 0)
		buf_addf(b, "message %zu/%zu  r send now  e edit  d delete  "
		    "<Enter> details", o->cursor + 1, o->n);
	else
		buf_addf(b, "nothing waits");
}

static void
tui_outbox_free(struct tui_screen *s)
{
	struct tui_outbox	*o = s->data;

	tui_outbox_clear(o);
	free(o);
	free(s);
}

struct tui_screen *
tui_outbox_new(struct tui_account *ta)
{
	struct tui_screen	*s;
	struct tui_outbox	*o;

	o = xcalloc(1, sizeof *o);
	o->acct = ta;
	tui_outbox_load(o);

	s = xcalloc(1, sizeof *s);
	s->title = "Outbox";
	s->map = TM_OUTBOX;
	s->draw = tui_outbox_draw;
	s->action = tui_outbox_action;
	s->event = tui_outbox_event;
	s->status = tui_outbox_status;
	s->free = tui_outbox_free;
	s->data = o;
	return s;
}
