/*
 * tui-write.c: where writing starts. m (a new message, or a postponed
 * draft first when some wait), r g L f from the index or the pager (a
 * reply, a group reply, a list reply, a forward of the message the
 * screen's current() hook names), and a mailto: URL. From the pager the
 * message is taken as it was opened (the opened() hook): its verdicts and
 * decrypted content are used as they are, with no fetch and no gpg. From
 * the index it owns the short wait while a reply is prepared: a screen of
 * its own, drawn as the one below it, that fetches the message on the
 * account's worker (TJ_RAW),
 * has the draft made on a thread of its own (mime_parse, draft_reply,
 * draft_forward: gpg may decrypt there) and hands it to the compose
 * screen. It never decides what a reply quotes or how it is protected
 * (draft.h does), and never runs gpg on the interface thread.
 */
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr-list.h"
#include "addr.h"
#include "crypto.h"
#include "draft.h"
#include "mailto.h"
#include "message.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "tui.h"
#include "xmalloc.h"

#define WRITE_MAX	(64u * 1024 * 1024)	/* a message to reply to */

/* What the thread that makes the draft gets, and what it gives back. */
struct write_build {
	const struct config	*cf;
	const struct account	*a;		/* the message's account */
	enum tui_action		 action;
	int			 attach;	/* forward as message/rfc822 */
	struct buf		 raw;

	struct draft		*d;		/* made, or NULL and cause */
	char			*cause;
	int			 other;		/* From is another account */
};

/* The wait while a reply is prepared. */
struct write_wait {
	struct tui_account	*acct;
	struct write_build	*b;		/* until the thread has it */
	uint64_t		 raw_job, build_job;
	uint32_t		 uid;
	char			 title[64];
};

/*
 * A wait that ended is taken off the stack while the loop still walks it
 * (events go to every screen): it is freed at the next end, not at once.
 */
static struct tui_screen *write_done;

static void
write_build_free(void *p)
{
	struct write_build	*b = p;

	if (b == NULL)
		return;
	buf_free(&b->raw);
	draft_free(b->d);
	free(b->cause);
	free(b);
}

/* ---- on the thread of its own --------------------------------------------- */

/* Is addr in list v of n? */
static int
write_has(char **v, size_t n, const char *addr)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (addr_list_same(v[i], addr))
			return 1;
	return 0;
}

/*
 * The account a reply goes out from: the message's, unless its To and Cc
 * name another configured account and not the message's own.
 */
static const struct account *
write_from(const struct config *cf, const struct account *a,
    const struct mime_header *h)
{
	const struct account	 *o, *found = NULL;
	char			**v = NULL;
	size_t			  n = 0;

	addr_list_get(h, "To", &v, &n);
	addr_list_get(h, "Cc", &v, &n);
	if (!write_has(v, n, a->address)) {
		for (o = cf->accounts; o != NULL && found == NULL; o = o->next)
			if (o != a && write_has(v, n, o->address))
				found = o;
	}
	addr_list_free(v, n);
	return found != NULL ? found : a;
}

static void
write_set_to(struct draft *d, const char *addr)
{
	size_t	i;

	for (i = 0; i < d->nto; i++)
		free(d->to[i]);
	d->nto = 0;
	draft_add(d, DRAFT_TO, addr);
}

/*
 * The draft of b's action on m; opened, when not NULL, is m opened (the
 * pager's): its verdicts are used as they are, and gpg is not run.
 */
static int
write_make(struct write_build *b, struct mime_msg *m,
    const struct message *opened)
{
	const struct mime_header	*h = &m->root->header;
	const struct account		*from = b->a;
	char				*list = NULL;
	int				 rc, flags;

	if (b->action == TA_FORWARD) {
		b->d = draft_new(b->a);
		flags = b->attach ? 0 : DRAFT_INLINE;
		if (opened != NULL)
			return draft_forward_opened(b->d, opened, flags,
			    &b->cause);
		return draft_forward(b->d, m, b->raw.data, b->raw.len, flags,
		    &b->cause);
	}
	list = mailto_list_post(h);
	if (b->action == TA_LIST_REPLY && list == NULL) {
		b->cause = xstrdup("this message has no List-Post field: "
		    "it did not come through a mailing list that takes posts");
		return -1;
	}
	from = write_from(b->cf, b->a, h);
	b->other = from != b->a;
	b->d = draft_new(from);
	flags = DRAFT_QUOTE | (b->action == TA_GROUP_REPLY ? DRAFT_GROUP : 0);
	if (opened != NULL)
		rc = draft_reply_opened(b->d, opened, flags, &b->cause);
	else
		rc = draft_reply(b->d, m, flags, &b->cause);
	if (rc == 0 && b->action == TA_LIST_REPLY)
		write_set_to(b->d, list);
	else if (rc == 0 && b->action == TA_GROUP_REPLY && list != NULL &&
	    !write_has(b->d->to, b->d->nto, list) &&
	    !write_has(b->d->cc, b->d->ncc, list))
		draft_add(b->d, DRAFT_CC, list);
	free(list);
	return rc;
}

static void *
write_build_run(void *arg)
{
	struct write_build	*b = arg;
	struct mime_msg		*m;
	char			*why = NULL;

	/* gpg on this thread: set up, and never a prompt here */
	if (crypto_init(b->cf->gnupg_home, &why) == 0)
		crypto_set_no_prompt(1);
	free(why);
	if ((m = mime_parse_copy(b->raw.data, b->raw.len, &b->cause)) ==
	    NULL)
		return b;
	if (write_make(b, m, NULL) == -1) {
		draft_free(b->d);
		b->d = NULL;
		if (b->cause == NULL)
			b->cause = xstrdup("the draft could not be made");
	}
	mime_msg_free(m);
	return b;
}

/* ---- the wait, on the interface thread ------------------------------------ */

static void
write_reap(void)
{
	struct tui_screen	*sc = write_done;

	write_done = NULL;
	if (sc != NULL) {
		free(sc->data);
		free(sc);
	}
}

/* Take sc off the stack; freed later (see write_done). */
static void
write_unlink(struct tui_screen *sc)
{
	struct tui_screen	**pp;
	struct write_wait	 *w = sc->data;

	for (pp = &tui.top; *pp != NULL; pp = &(*pp)->below) {
		if (*pp == sc) {
			*pp = sc->below;
			break;
		}
	}
	tui_message_clear_if("message is being prepared...");
	write_build_free(w->b);
	w->b = NULL;
	write_reap();
	write_done = sc;
	sc->event = NULL;
	tui_dirty();
}

static void
write_wait_free(struct tui_screen *sc)
{
	struct write_wait	*w = sc->data;

	write_build_free(w->b);
	free(w);
	free(sc);
}

static void
write_wait_draw(struct tui_screen *sc)
{
	if (sc->below != NULL && sc->below->draw != NULL)
		sc->below->draw(sc->below);
}

static void
write_wait_status(struct tui_screen *sc, struct buf *b)
{
	buf_adds(b, " q: stop preparing");
	(void)sc;
}

static int
write_wait_action(struct tui_screen *sc, enum tui_action a, int key)
{
	(void)key;
	switch (a) {
	case TA_QUIT:
	case TA_BACK:
	case TA_CANCEL:
		tui_message("stopped: nothing was written");
		tui_pop();
		return 1;
	case TA_REDRAW:
	case TA_HELP:
		return 0;
	default:
		(void)sc;
		tui_message("message is being prepared...");
		return 1;
	}
}

/* The draft is made: compose opens on it, from the account it is from. */
static void
write_ready(struct write_wait *w, struct write_build *b)
{
	struct tui_account	*ta = w->acct;
	struct tui_screen	*s;
	struct draft		*d = b->d;
	size_t			 i;

	b->d = NULL;
	for (i = 0; b->other && i < tui.naccounts; i++)
		if (tui_account_config(tui.accounts[i]) == d->a)
			ta = tui.accounts[i];
	if ((s = tui_compose_new(ta, d, NULL, 1)) != NULL)
		tui_push(s);
	if (b->other)
		tui_message("replying from %s, the address the message came to",
		    tui_account_config(ta)->address);
}

static void
write_wait_event(struct tui_screen *sc, struct tui_event *ev)
{
	struct write_wait	*w = sc->data;
	struct write_build	*b;

	if (ev->kind != TE_DONE)
		return;
	if (ev->acct == w->acct && ev->job == w->raw_job && w->b != NULL) {
		if (ev->result != 0) {
			tui_error("message %u could not be fetched: %s",
			    w->uid, ev->cause != NULL ? ev->cause :
			    "no reason given");
			write_unlink(sc);
			return;
		}
		w->b->raw = ev->raw;
		buf_init(&ev->raw);
		b = w->b;
		w->b = NULL;
		w->build_job = tui_background(write_build_run, b,
		    write_build_free);
		return;
	}
	if (ev->acct != NULL || ev->jkind != TJ_CALL ||
	    ev->job != w->build_job || ev->data == NULL)
		return;
	b = ev->data;
	ev->data = NULL;
	write_unlink(sc);
	if (b->d == NULL)
		tui_error("no reply: %s", b->cause);
	else
		write_ready(w, b);
	write_build_free(b);
}

void
tui_write_from(struct tui_screen *s, enum tui_action a)
{
	struct tui_account	*ta = tui_current();
	struct tui_screen	*sc;
	struct write_wait	*w;
	struct write_build	*b;
	struct tui_job		 j;
	const struct message	*opened;
	const char		*folder;
	uint32_t		 uid;
	int			 attach = 0;

	if (ta == NULL)
		return;
	if (s->current == NULL || !s->current(s, &folder, &uid)) {
		tui_message("no message here to %s", a == TA_FORWARD ?
		    "forward" : "reply to");
		return;
	}
	if (a == TA_FORWARD)
		attach = tui_yesno("forward as attachment?");
	b = xcalloc(1, sizeof *b);
	b->cf = tui.cf;
	b->a = tui_account_config(ta);
	b->action = a;
	b->attach = attach;
	buf_init(&b->raw);

	/* Opened already (the pager): no second fetch, no second
	 * decryption; making the draft from its model runs no gpg. */
	if (s->opened != NULL && (opened = s->opened(s)) != NULL) {
		if (write_make(b, opened->mime, opened) == -1) {
			draft_free(b->d);
			b->d = NULL;
			tui_error("no reply: %s", b->cause != NULL ? b->cause :
			    "the draft could not be made");
		} else {
			w = xcalloc(1, sizeof *w);
			w->acct = ta;
			write_ready(w, b);
			free(w);
		}
		write_build_free(b);
		return;
	}

	w = xcalloc(1, sizeof *w);
	w->acct = ta;
	w->b = b;
	w->uid = uid;
	snprintf(w->title, sizeof w->title, "%s", s->title != NULL ?
	    s->title : "");
	memset(&j, 0, sizeof j);
	j.kind = TJ_RAW;
	j.folder = (char *)folder;
	j.uid = uid;
	w->raw_job = tui_submit(ta, &j);

	sc = xcalloc(1, sizeof *sc);
	sc->title = w->title;
	sc->map = TM_GENERIC;
	sc->draw = write_wait_draw;
	sc->action = write_wait_action;
	sc->event = write_wait_event;
	sc->status = write_wait_status;
	sc->free = write_wait_free;
	sc->data = w;
	tui_push(sc);
	tui_message("message is being prepared...");
}

/* ---- a new message --------------------------------------------------------- */

void
tui_write_new(struct tui_account *ta)
{
	struct tui_screen	*s;
	size_t			 n;

	if ((n = tui_drafts_count(ta)) > 0 && tui_yesno("%zu draft%s "
	    "postponed; recall one?", n, n == 1 ? "" : "s")) {
		if ((s = tui_drafts_new(ta)) != NULL)
			tui_push(s);
		return;
	}
	s = tui_compose_new(ta, draft_new(tui_account_config(ta)), NULL,
	    tui.cf->autoedit ? 1 : TUI_COMPOSE_ASK);
	if (s != NULL)
		tui_push(s);
}

int
tui_write_mailto(struct tui_account *ta, const char *url)
{
	struct tui_screen	*s;
	struct mailto		 m;
	struct draft		*d;
	struct buf		 ign;
	char			*cause = NULL;
	size_t			 i;

	if (ta == NULL)
		return -1;
	memset(&m, 0, sizeof m);
	if (mailto_parse(url, &m, &cause) == -1) {
		tui_error("the mailto: link is refused: %s", cause != NULL ?
		    cause : "no reason given");
		free(cause);
		return -1;
	}
	d = draft_new(tui_account_config(ta));
	for (i = 0; i < m.nto; i++)
		draft_add(d, DRAFT_TO, m.to[i]);
	for (i = 0; i < m.ncc; i++)
		draft_add(d, DRAFT_CC, m.cc[i]);
	draft_set_subject(d, m.subject);
	if (m.body != NULL)
		draft_set_body(d, xstrdup(m.body));
	if (m.in_reply_to != NULL)
		d->in_reply_to = xstrdup(m.in_reply_to);
	if (m.references != NULL)
		d->references = xstrdup(m.references);
	buf_init(&ign);
	for (i = 0; i < m.nignored; i++)
		buf_addf(&ign, "%s%s", i > 0 ? ", " : "", m.ignored[i]);
	mailto_free(&m);
	/* the editor opens on the link's body, as in mutt */
	if ((s = tui_compose_new(ta, d, NULL, 1)) != NULL)
		tui_push(s);
	if (ign.len > 0)
		tui_message("ignored from the link: %s", ign.data);
	buf_free(&ign);
	return s != NULL ? 0 : -1;
}
