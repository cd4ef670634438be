/*
 * tui-drafts.c: the list of postponed drafts (draft_list(), draft.h,
 * newest first: date, To, Subject; Enter recalls one into the compose
 * screen, d deletes one). A recalled draft that was sent, postponed again
 * or deleted loses its copy in the Drafts mailbox (tui-drafts-copy.c).
 * The list shows what the files' outer headers say at once; a draft
 * stored encrypted reads "(encrypted)" until a pass on a thread of its
 * own (draft_peek(): gpg, never on the interface thread) has read its
 * real Subject. The drafts' files are the engine's: this file names none.
 * A recall decrypts on the account's worker, where gpg may ask for a
 * passphrase. Called by the loop (R), tui-write.c (m) and the compose
 * screen (P); draws only through tui-draw.c.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "addr-list.h"
#include "crypto.h"
#include "draft.h"
#include "imap-ops.h"
#include "tui.h"
#include "tui-drafts.h"
#include "xmalloc.h"

struct drafts {
	struct tui_account	*acct;
	struct draft_file	*v;
	size_t			 n, cur, top;
	uint64_t		 read_job;	/* the pass over the drafts */
	uint64_t		 recall_job;	/* draft_resume on a worker */
	struct tui_account	*recall_acct;
	char			*recalling;	/* its path */
	char			*recalled;	/* in compose now */
	char			*recalled_msgid;
	struct tui_account	*recalled_acct;
	char			 title[64];
};

/* What the pass gives back: the real To and Subject of each path. */
struct drafts_read {
	const struct account	 *a;
	char			**paths;
	char			**to, **subject;
	size_t			  n;
};

/* ---- the files (draft_list(), draft.h) ------------------------------------ */

size_t
tui_drafts_count(struct tui_account *ta)
{
	(void)ta;
	return draft_count();
}

static void
drafts_clear(struct drafts *dl)
{
	draft_list_free(dl->v, dl->n);
	dl->v = NULL;
	dl->n = 0;
}

static void drafts_read_start(struct drafts *);

/* The postponed drafts, newest first. */
static void
drafts_load(struct drafts *dl)
{
	char	*cause = NULL;

	drafts_clear(dl);
	if (draft_list(&dl->v, &dl->n, &cause) == -1) {
		tui_error("the drafts: %s", cause);
		free(cause);
		return;
	}
	if (dl->cur >= dl->n)
		dl->cur = dl->n > 0 ? dl->n - 1 : 0;
	drafts_read_start(dl);
	tui_dirty();
}

/* ---- the pass that reads encrypted drafts (a thread of its own) ---------- */

static void
drafts_read_free(void *p)
{
	struct drafts_read	*r = p;
	size_t			 i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++) {
		free(r->paths[i]);
		free(r->to[i]);
		free(r->subject[i]);
	}
	free(r->paths);
	free(r->to);
	free(r->subject);
	free(r);
}

static void *
drafts_read_run(void *arg)
{
	struct drafts_read	*r = arg;
	char			*cause = NULL;
	size_t			 i;

	/* a passphrase is asked for on recall, not here */
	if (crypto_init(tui.cf->gnupg_home, &cause) == -1) {
		free(cause);
		return r;
	}
	crypto_set_no_prompt(1);
	for (i = 0; i < r->n; i++) {
		if (draft_peek(r->a, r->paths[i], &r->to[i], &r->subject[i],
		    &cause) == -1) {
			free(cause);
			cause = NULL;
		}
	}
	return r;
}

static void
drafts_read_start(struct drafts *dl)
{
	struct drafts_read	*r;
	size_t			 i;

	r = xcalloc(1, sizeof *r);
	r->a = tui_account_config(dl->acct);
	for (i = 0; i < dl->n; i++) {
		if (dl->v[i].known)
			continue;
		r->paths = xreallocarray(r->paths, r->n + 1, sizeof *r->paths);
		r->paths[r->n++] = xstrdup(dl->v[i].path);
	}
	if (r->n == 0) {
		drafts_read_free(r);
		dl->read_job = 0;
		return;
	}
	r->to = xcalloc(r->n, sizeof *r->to);
	r->subject = xcalloc(r->n, sizeof *r->subject);
	dl->read_job = tui_background(drafts_read_run, r, drafts_read_free);
}

static void
drafts_read_done(struct drafts *dl, struct drafts_read *r)
{
	size_t	i, j;

	for (i = 0; i < r->n; i++) {
		if (r->subject[i] == NULL)
			continue;
		for (j = 0; j < dl->n; j++) {
			if (strcmp(dl->v[j].path, r->paths[i]) != 0)
				continue;
			free(dl->v[j].subject);
			dl->v[j].subject = r->subject[i];
			r->subject[i] = NULL;
			if (r->to[i] != NULL) {
				free(dl->v[j].to);
				dl->v[j].to = r->to[i];
				r->to[i] = NULL;
			}
			dl->v[j].known = 1;
		}
	}
	tui_dirty();
}

/* ---- recall ---------------------------------------------------------------- */

struct drafts_recall {
	const struct account	*a;
	char			*path;
};

static void
drafts_draft_free(void *p)
{
	draft_free(p);
}

static int
drafts_recall_call(struct session *s, void *arg, struct tui_event *ev)
{
	struct drafts_recall	*r = arg;
	struct draft		*d;

	(void)s;
	/* gpg may ask for the passphrase of the key it is encrypted to */
	crypto_set_no_prompt(0);
	d = draft_resume(r->a, r->path, &ev->cause);
	crypto_set_no_prompt(1);
	free(r->path);
	free(r);
	if (d == NULL)
		return IMAP_OPS_REFUSED;
	ev->data = d;
	ev->discard = drafts_draft_free;
	return IMAP_OPS_OK;
}

/* The worker of the account the draft is from; else the list's. */
static struct tui_account *
drafts_account(struct drafts *dl, const struct draft_file *e)
{
	size_t	i;

	for (i = 0; e->from != NULL && i < tui.naccounts; i++)
		if (addr_list_same(tui_account_config(tui.accounts[i])->address,
		    e->from))
			return tui.accounts[i];
	return dl->acct;
}

static void
drafts_recall(struct drafts *dl)
{
	struct draft_file	*e;
	struct drafts_recall	*r;
	struct tui_job		 j;

	if (dl->n == 0)
		return;
	if (dl->recalling != NULL) {
		tui_message("the draft is being read...");
		return;
	}
	e = &dl->v[dl->cur];
	r = xcalloc(1, sizeof *r);
	dl->recall_acct = drafts_account(dl, e);
	r->a = tui_account_config(dl->recall_acct);
	r->path = xstrdup(e->path);
	memset(&j, 0, sizeof j);
	j.kind = TJ_CALL;
	j.fn = drafts_recall_call;
	j.fn_arg = r;
	dl->recall_job = tui_submit(dl->recall_acct, &j);
	dl->recalling = xstrdup(e->path);
	free(dl->recalled_msgid);
	dl->recalled_msgid = e->msgid != NULL ? xstrdup(e->msgid) : NULL;
	tui_message("the draft is being read...");
}

static void
drafts_recalled(struct drafts *dl, struct tui_event *ev)
{
	struct tui_screen	*s;
	struct draft		*d = ev->data;
	char			*path = dl->recalling;

	dl->recalling = NULL;
	tui_message_clear_if("the draft is being read...");
	if (ev->result != IMAP_OPS_OK || d == NULL) {
		tui_error("the draft cannot be recalled: %s", ev->cause !=
		    NULL ? ev->cause : "no reason given");
		free(path);
		return;
	}
	ev->data = NULL;
	if ((s = tui_compose_new(dl->recall_acct, d, path, 0)) == NULL) {
		free(path);
		return;
	}
	free(dl->recalled);
	dl->recalled = path;
	dl->recalled_acct = dl->recall_acct;
	tui_push(s);
}

/*
 * Back from compose: a recalled draft whose file is gone was sent or
 * postponed again (a new file): its copy in Drafts goes, and so does
 * this list, as after a recall in mutt.
 */
static int
drafts_back(struct drafts *dl)
{
	if (dl->recalled == NULL || draft_exists(dl->recalled))
		return 0;
	tui_drafts_copy_remove(dl->recalled_acct, dl->recalled_msgid);
	free(dl->recalled);
	dl->recalled = NULL;
	tui_pop();
	return 1;
}

/* ---- the screen ------------------------------------------------------------ */

static void
drafts_row(struct drafts *dl, int y, size_t i)
{
	struct draft_file	*e = &dl->v[i];
	struct tm		 tm;
	char			 date[32];
	int			 attr, x;

	attr = tui_attr(i == dl->cur ? TC_SELECTED : TC_NORMAL);
	tui_putfill(y, 0, COLS, "", attr);
	localtime_r(&e->mtime, &tm);
	strftime(date, sizeof date, "%b %e %H:%M", &tm);
	x = 1;
	x += tui_put(y, x, 13, date, attr) + 1;
	x = 15;
	if (e->encrypted)
		tui_put(y, x, 2, tui_verdict_glyph(
		    verdict_protection(VERDICT_ENCRYPTED)), i == dl->cur ? attr :
		    tui_attr(TC_IND_GOOD));
	x = 17;
	tui_put(y, x, 22, e->to != NULL && *e->to != '\0' ? e->to :
	    "(no recipient)", attr);
	x = 40;
	if (COLS > x)
		tui_put(y, x, COLS - x, !e->known ? "(encrypted)" :
		    e->subject != NULL && *e->subject != '\0' ? e->subject :
		    "(no subject)", attr);
}

static void
drafts_draw(struct tui_screen *sc)
{
	struct drafts	*dl = sc->data;
	int		 rows = tui_rows(), y;

	if (drafts_back(dl)) {
		/* this screen is gone: the one below draws */
		if (tui.top != NULL && tui.top->draw != NULL)
			tui.top->draw(tui.top);
		return;
	}
	if (dl->cur < dl->top)
		dl->top = dl->cur;
	if (rows > 0 && dl->cur >= dl->top + (size_t)rows)
		dl->top = dl->cur - rows + 1;
	for (y = 0; y < rows; y++) {
		if (dl->top + y < dl->n)
			drafts_row(dl, TUI_FIRST_ROW + y, dl->top + y);
		else
			tui_putfill(TUI_FIRST_ROW + y, 0, COLS, y == 0 &&
			    dl->n == 0 ? " no postponed drafts" : "",
			    tui_attr(TC_NORMAL));
	}
}

static void
drafts_status(struct tui_screen *sc, struct buf *b)
{
	struct drafts	*dl = sc->data;

	buf_addf(b, " %zu draft%s  Enter: recall  d: delete  q: back", dl->n,
	    dl->n == 1 ? "" : "s");
}

static void
drafts_delete(struct drafts *dl)
{
	struct draft_file	*e;
	char			*cause = NULL;

	if (dl->n == 0)
		return;
	e = &dl->v[dl->cur];
	if (!tui_yesno("delete the draft to %s, \"%s\"?",
	    e->to != NULL && *e->to != '\0' ? e->to : "nobody",
	    !e->known ? "(encrypted)" : e->subject != NULL ? e->subject : ""))
		return;
	if (draft_discard(e->path, &cause) == -1) {
		tui_error("the draft stays: %s", cause);
		free(cause);
		return;
	}
	tui_drafts_copy_remove(drafts_account(dl, e), e->msgid);
	tui_message("draft deleted");
	drafts_load(dl);
}

static int
drafts_action(struct tui_screen *sc, enum tui_action a, int key)
{
	struct drafts	*dl = sc->data;
	size_t		 page = tui_rows() > 1 ? tui_rows() - 1 : 1;

	(void)key;
	switch (a) {
	case TA_UP:
		if (dl->cur > 0)
			dl->cur--;
		break;
	case TA_DOWN:
		if (dl->cur + 1 < dl->n)
			dl->cur++;
		break;
	case TA_PAGE_UP:
		dl->cur = dl->cur > page ? dl->cur - page : 0;
		break;
	case TA_PAGE_DOWN:
		dl->cur = dl->cur + page < dl->n ? dl->cur + page :
		    (dl->n > 0 ? dl->n - 1 : 0);
		break;
	case TA_TOP:
		dl->cur = 0;
		break;
	case TA_BOTTOM:
		dl->cur = dl->n > 0 ? dl->n - 1 : 0;
		break;
	case TA_SELECT:
		drafts_recall(dl);
		break;
	case TA_DELETE:
		drafts_delete(dl);
		break;
	case TA_SYNC:
		drafts_load(dl);
		break;
	default:
		return 0;
	}
	tui_dirty();
	return 1;
}

static void
drafts_event(struct tui_screen *sc, struct tui_event *ev)
{
	struct drafts	*dl = sc->data;

	if (ev->kind != TE_DONE)
		return;
	if (ev->acct == NULL && ev->jkind == TJ_CALL && dl->read_job != 0 &&
	    ev->job == dl->read_job && ev->data != NULL) {
		dl->read_job = 0;
		drafts_read_done(dl, ev->data);
		return;
	}
	if (dl->recalling != NULL && ev->acct == dl->recall_acct &&
	    ev->job == dl->recall_job)
		drafts_recalled(dl, ev);
}

static void
drafts_free(struct tui_screen *sc)
{
	struct drafts	*dl = sc->data;

	drafts_clear(dl);
	free(dl->recalling);
	free(dl->recalled);
	free(dl->recalled_msgid);
	free(dl);
	free(sc);
}

struct tui_screen *
tui_drafts_new(struct tui_account *ta)
{
	struct tui_screen	*sc;
	struct drafts		*dl;

	if (ta == NULL)
		return NULL;
	if (tui_drafts_count(ta) == 0) {
		tui_message("no postponed drafts");
		return NULL;
	}
	dl = xcalloc(1, sizeof *dl);
	dl->acct = ta;
	snprintf(dl->title, sizeof dl->title, "postponed drafts");
	drafts_load(dl);

	sc = xcalloc(1, sizeof *sc);
	sc->title = dl->title;
	sc->map = TM_DRAFTS;
	sc->draw = drafts_draw;
	sc->action = drafts_action;
	sc->event = drafts_event;
	sc->status = drafts_status;
	sc->free = drafts_free;
	sc->data = dl;
	return sc;
}
