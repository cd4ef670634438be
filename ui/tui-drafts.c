/*
 * tui-drafts.c: the list of postponed drafts (the files of draft_dir(),
 * newest first: date, To, Subject; Enter recalls one into the compose
 * screen, d deletes one). A recalled draft that was sent, postponed again
 * or deleted loses its copy in the Drafts mailbox (tui-drafts-copy.c). The list shows what the files' outer headers say at once; a
 * draft stored encrypted reads "(encrypted)" until a pass on a thread of
 * its own (gpg, never on the interface thread) has read its real Subject.
 * A recall decrypts on the account's worker, where gpg may ask for a
 * passphrase. Called by the loop (R), tui-write.c (m) and the compose
 * screen (P); draws only through tui-draw.c.
 */
#include <sys/stat.h>

#include <curses.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr-list.h"
#include "crypto.h"
#include "draft.h"
#include "imap-ops.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "rfc2047.h"
#include "tui.h"
#include "tui-drafts.h"
#include "xmalloc.h"

#define DRAFTS_HEAD_MAX		(64u * 1024)	/* outer header read */
#define DRAFTS_FILE_MAX		(256u * 1024 * 1024)

struct drafts_entry {
	char		*path;
	time_t		 mtime;
	char		*from;		/* the sender's address */
	char		*to;		/* as shown: first address, +N */
	char		*subject;	/* the real one once known */
	char		*msgid;		/* for the copy in Drafts */
	int		 encrypted;	/* stored encrypted */
	int		 known;		/* subject is the real one */
};

struct drafts {
	struct tui_account	*acct;
	struct drafts_entry	*v;
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

/* ---- the files ------------------------------------------------------------- */

static int
drafts_is_draft(const char *name)
{
	size_t	len = strlen(name);

	return name[0] != '.' && len > 4 && strcmp(name + len - 4, ".eml") == 0;
}

size_t
tui_drafts_count(struct tui_account *ta)
{
	struct dirent	*de;
	DIR		*dir;
	char		*path, *cause = NULL;
	size_t		 n = 0;

	(void)ta;
	if ((path = draft_dir(&cause)) == NULL) {
		free(cause);
		return 0;
	}
	if ((dir = opendir(path)) != NULL) {
		while ((de = readdir(dir)) != NULL)
			n += drafts_is_draft(de->d_name);
		closedir(dir);
	}
	free(path);
	return n;
}

/* "a@b", "a@b +2": the recipients as the list shows them. */
static char *
drafts_rcpts(char **v, size_t n)
{
	if (n == 0)
		return xstrdup("");
	if (n == 1)
		return xstrdup(v[0]);
	return xasprintf("%s +%zu", v[0], n - 1);
}

/* What the outer header of e's file says (a local file: cheap). */
static void
drafts_head(struct drafts_entry *e)
{
	struct mime_msg	 *m;
	struct buf	  b;
	char		**v = NULL, *s, *cause = NULL, *end;
	size_t		  n = 0;

	buf_init(&b);
	if (buf_read_file(&b, e->path, DRAFTS_FILE_MAX) == -1 ||
	    b.len == 0) {
		buf_free(&b);
		return;
	}
	/* the header only */
	buf_addc(&b, '\0');
	if ((end = strstr(b.data, "\r\n\r\n")) != NULL)
		b.len = end - b.data + 4;
	else if ((end = strstr(b.data, "\n\n")) != NULL)
		b.len = end - b.data + 2;
	if (b.len > DRAFTS_HEAD_MAX)
		b.len = DRAFTS_HEAD_MAX;
	if ((m = mime_parse_copy(b.data, b.len, &cause)) == NULL) {
		free(cause);
		buf_free(&b);
		return;
	}
	buf_free(&b);
	addr_list_get(&m->root->header, "To", &v, &n);
	addr_list_get(&m->root->header, "Cc", &v, &n);
	e->to = drafts_rcpts(v, n);
	addr_list_free(v, n);
	e->from = addr_list_from(&m->root->header);
	e->msgid = mime_header_get(&m->root->header, "Message-ID", NULL);
	e->encrypted = mime_part_is(m->root, "multipart", "encrypted");
	if ((s = mime_header_get(&m->root->header, "Subject", NULL)) != NULL) {
		e->subject = rfc2047_decode_str(s);
		free(s);
	}
	e->known = !e->encrypted;
	mime_msg_free(m);
}

static void
drafts_clear(struct drafts *dl)
{
	size_t	i;

	for (i = 0; i < dl->n; i++) {
		free(dl->v[i].path);
		free(dl->v[i].from);
		free(dl->v[i].to);
		free(dl->v[i].subject);
		free(dl->v[i].msgid);
	}
	free(dl->v);
	dl->v = NULL;
	dl->n = 0;
}

static int
drafts_cmp(const void *a, const void *b)
{
	const struct drafts_entry	*x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? 1 : -1;
	return strcmp(y->path, x->path);
}

static void drafts_read_start(struct drafts *);

/* The files of the drafts directory, newest first. */
static void
drafts_load(struct drafts *dl)
{
	struct drafts_entry	*e;
	struct dirent		*de;
	struct stat		 st;
	DIR			*dir;
	char			*path, *cause = NULL;

	drafts_clear(dl);
	if ((path = draft_dir(&cause)) == NULL) {
		tui_error("the drafts: %s", cause);
		free(cause);
		return;
	}
	if ((dir = opendir(path)) != NULL) {
		while ((de = readdir(dir)) != NULL) {
			if (!drafts_is_draft(de->d_name))
				continue;
			dl->v = xreallocarray(dl->v, dl->n + 1, sizeof *dl->v);
			e = &dl->v[dl->n++];
			memset(e, 0, sizeof *e);
			e->path = xasprintf("%s/%s", path, de->d_name);
			if (stat(e->path, &st) == 0)
				e->mtime = st.st_mtime;
			drafts_head(e);
		}
		closedir(dir);
	}
	free(path);
	if (dl->n > 1)
		qsort(dl->v, dl->n, sizeof *dl->v, drafts_cmp);
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
	struct draft		*d;
	char			*cause = NULL, **v;
	size_t			 i;

	/* a passphrase is asked for on recall, not here */
	if (crypto_init(tui.cf->gnupg_home, &cause) == -1) {
		free(cause);
		return r;
	}
	crypto_set_no_prompt(1);
	for (i = 0; i < r->n; i++) {
		if ((d = draft_resume(r->a, r->paths[i], &cause)) == NULL) {
			free(cause);
			cause = NULL;
			continue;
		}
		v = xcalloc(d->nto + d->ncc + 1, sizeof *v);
		memcpy(v, d->to, d->nto * sizeof *v);
		if (d->ncc > 0)
			memcpy(v + d->nto, d->cc, d->ncc * sizeof *v);
		r->to[i] = drafts_rcpts(v, d->nto + d->ncc);
		free(v);
		r->subject[i] = xstrdup(d->subject != NULL ? d->subject : "");
		draft_free(d);
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
drafts_account(struct drafts *dl, const struct drafts_entry *e)
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
	struct drafts_entry	*e;
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
	if (dl->recalled == NULL || access(dl->recalled, F_OK) == 0)
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
	struct drafts_entry	*e = &dl->v[i];
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
	struct drafts_entry	*e;
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
