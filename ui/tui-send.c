/*
 * tui-send.c: sending from the interface, on the account's worker. A send
 * is what the batch command does (ui/cli-send.c): protect the draft and
 * queue it in the durable outbox (outgoing_send()), flush the outbox
 * (send_flush()); here it runs as a TJ_CALL job so that the
 * interface thread never waits on gpg, DNS or the servers, and what became
 * of the message comes back as a struct tui_sent in the job's TE_DONE.
 *
 * Called by the compose screen (tui_send_draft()) and the outbox screen
 * (tui_send_flush()). It never draws and never asks by itself: gpg's
 * pinentry and the fallback = ask question reach the person through the
 * worker's front-end hooks (TE_ASK), which the loop answers.
 *
 * The job works on a copy of the draft, so that the compose screen may go
 * away while the message is on its way. send_flush() opens connections of
 * its own (SMTP, and IMAP for the copy to Sent): the worker's session is
 * left alone while the job runs, and IDLE has been stopped to run it.
 *
 * Each queued draft is also kept beside its outbox entry
 * (OUTGOING_KEEP_DRAFT) for e on the outbox screen.
 *
 * Nothing is sent behind anybody's back: queued mail goes with the next
 * send (every send flushes the whole outbox), with r on the outbox screen,
 * or with steedmail --flush.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "draft.h"
#include "outgoing.h"
#include "send.h"
#include "session.h"
#include "tui.h"
#include "tui-outbox.h"
#include "xmalloc.h"

struct tui_send_job {
	struct config		*cf;
	struct draft		*d;		/* NULL: only flush */
	struct draft_opts	 o;
	char			*only_id;	/* flush: that entry, or all */
};

/*
 * Bumped whenever this process changes the outbox (any thread): the outbox
 * screen and the status bar's count read it again when it moved. Here, so
 * that the outbox screen depends on this file and never the other way.
 */
static atomic_uint	tui_send_gen = 1;

void
tui_send_outbox_changed(void)
{
	atomic_fetch_add(&tui_send_gen, 1);
}

unsigned
tui_send_outbox_gen(void)
{
	return atomic_load(&tui_send_gen);
}

/*
 * Why each entry is still queued, as the last flush of this process said
 * (the outbox keeps no reason for a message that waits): for the outbox
 * screen. Written on the worker, read on the interface thread.
 */
struct tui_send_why {
	char			*id;
	char			*why;
	struct tui_send_why	*next;
};
static pthread_mutex_t		 tui_send_whymu = PTHREAD_MUTEX_INITIALIZER;
static struct tui_send_why	*tui_send_whys;

static void
tui_send_remember(const char *id, const char *why)
{
	struct tui_send_why	**pp, *w;

	pthread_mutex_lock(&tui_send_whymu);
	for (pp = &tui_send_whys; (w = *pp) != NULL; pp = &w->next)
		if (strcmp(w->id, id) == 0)
			break;
	if (w != NULL && why == NULL) {
		*pp = w->next;
		free(w->id);
		free(w->why);
		free(w);
	} else if (why != NULL) {
		if (w == NULL) {
			w = xcalloc(1, sizeof *w);
			w->id = xstrdup(id);
			w->next = tui_send_whys;
			tui_send_whys = w;
		}
		free(w->why);
		w->why = xstrdup(why);
	}
	pthread_mutex_unlock(&tui_send_whymu);
}

char *
tui_send_why_queued(const char *id)
{
	struct tui_send_why	*w;
	char			*why = NULL;

	pthread_mutex_lock(&tui_send_whymu);
	for (w = tui_send_whys; w != NULL; w = w->next)
		if (strcmp(w->id, id) == 0)
			why = xstrdup(w->why);
	pthread_mutex_unlock(&tui_send_whymu);
	return why;
}

void
tui_sent_free(void *p)
{
	struct tui_sent	*ts = p;

	if (ts == NULL)
		return;
	free(ts->line);
	free(ts->id);
	free(ts);
}

static struct tui_sent *
tui_send_result(enum tui_sent_state state, const char *id, char *line)
{
	struct tui_sent	*ts = xcalloc(1, sizeof *ts);

	ts->state = state;
	ts->id = id != NULL ? xstrdup(id) : NULL;
	ts->line = line;
	return ts;
}

/* The draft, copied whole: the job must not depend on the screen's. */
static struct draft *
tui_send_copy(const struct draft *d)
{
	struct draft	*c = draft_new(d->a);
	size_t		 i;

	for (i = 0; i < d->nto; i++)
		draft_add(c, DRAFT_TO, d->to[i]);
	for (i = 0; i < d->ncc; i++)
		draft_add(c, DRAFT_CC, d->cc[i]);
	for (i = 0; i < d->nbcc; i++)
		draft_add(c, DRAFT_BCC, d->bcc[i]);
	if (d->subject != NULL)
		draft_set_subject(c, d->subject);
	if (d->body != NULL)
		draft_set_body(c, xstrdup(d->body));
	for (i = 0; i < d->nattach; i++)
		draft_attach(c, d->attach[i]);
	for (i = 0; i < d->nblobs; i++)
		draft_attach_data(c, d->blobs[i].name, d->blobs[i].type,
		    d->blobs[i].data, d->blobs[i].len);
	if (d->in_reply_to != NULL)
		c->in_reply_to = xstrdup(d->in_reply_to);
	if (d->references != NULL)
		c->references = xstrdup(d->references);
	c->from_encrypted = d->from_encrypted;
	c->forwarding = d->forwarding;
	return c;
}

static void
tui_send_job_free(struct tui_send_job *j)
{
	if (j->d != NULL)
		draft_free(j->d);
	free(j->only_id);
	free(j);
}

/* The report's words without the engine's "queued: " in front. */
static const char *
tui_send_why(const char *text)
{
	if (strncmp(text, "queued: ", 8) == 0)
		return text + 8;
	return text;
}

/*
 * What became of entry id, as a person reads it, with how many other
 * entries still wait after this flush.
 */
static struct tui_sent *
tui_send_one(const struct send_report *rep, const char *id, const char *how)
{
	const struct send_item	*it = NULL;
	size_t			 i, others = 0;
	struct tui_sent		*ts;
	char			*line, *more;

	for (i = 0; i < rep->n; i++) {
		if (strcmp(rep->items[i].id, id) == 0)
			it = &rep->items[i];
		else if (rep->items[i].status == SEND_QUEUED ||
		    rep->items[i].status == SEND_HELD)
			others++;
	}
	if (it == NULL)
		return tui_send_result(TS_QUEUED, id, xstrdup("queued; another "
		    "steedmail is sending the outbox"));
	switch (it->status) {
	case SEND_DONE:
	case SEND_UNSAVED:
		/* how it went first: the line may be cut on a narrow screen */
		line = how != NULL ? xasprintf("%s; %s", how, it->text) :
		    xstrdup(it->text);
		ts = tui_send_result(TS_SENT, id, line);
		break;
	case SEND_HELD:
		ts = tui_send_result(TS_QUEUED, id, xasprintf("not sent, it "
		    "stays in the outbox: %s (r on the outbox screen, O, looks "
		    "again)", it->text));
		break;
	case SEND_QUEUED:
		ts = tui_send_result(TS_QUEUED, id, xasprintf("queued, not "
		    "sent yet (%s); it goes with the next send or from the "
		    "outbox screen (O)", tui_send_why(it->text)));
		break;
	default:
		ts = tui_send_result(TS_FAILED, id, xasprintf("failed: %s",
		    it->text));
		break;
	}
	if (others > 0) {
		more = xasprintf("%s (%zu more in the outbox)", ts->line,
		    others);
		free(ts->line);
		ts->line = more;
	}
	return ts;
}

/* A flush of the whole outbox (or of only_id) in one line. */
static struct tui_sent *
tui_send_summary(const struct send_report *rep, const char *only_id)
{
	size_t		 i, sent = 0, queued = 0, failed = 0;
	const char	*why = NULL;
	struct buf	 b;

	if (only_id != NULL)
		return tui_send_one(rep, only_id, NULL);
	for (i = 0; i < rep->n; i++) {
		switch (rep->items[i].status) {
		case SEND_DONE:
		case SEND_UNSAVED:
			sent++;
			break;
		case SEND_QUEUED:
		case SEND_HELD:
			if (why == NULL)
				why = tui_send_why(rep->items[i].text);
			queued++;
			break;
		case SEND_REFUSED:
			failed++;
			break;
		}
	}
	if (rep->n == 0)
		return tui_send_result(TS_SENT, NULL,
		    xstrdup("the outbox is empty"));
	buf_init(&b);
	if (sent > 0)
		buf_addf(&b, "%zu sent", sent);
	if (failed > 0)
		buf_addf(&b, "%s%zu failed", b.len > 0 ? ", " : "", failed);
	if (queued > 0)
		buf_addf(&b, "%s%zu still queued (%s)", b.len > 0 ? ", " : "",
		    queued, why);
	return tui_send_result(queued > 0 ? TS_QUEUED : failed > 0 ?
	    TS_FAILED : TS_SENT, NULL, buf_take(&b));
}

/*
 * Flush the whole outbox and say what became of id (a send: how is the
 * protection's line), or flush id, or all when it is NULL (flush set).
 * Only a flush asked for (r on the outbox screen) looks again at the
 * messages held for DNS: a send does not wait on their lookups.
 */
static struct tui_sent *
tui_send_flush_now(struct config *cf, const char *id, int flush,
    const char *how)
{
	struct send_report	 rep;
	struct tui_sent		*ts;
	char			*cause = NULL;
	size_t			 i;

	if (send_flush(cf, flush ? id : NULL, flush ? SEND_LOOK_AGAIN |
	    SEND_CAN_ASK : 0, &rep, &cause) == -1) {
		ts = tui_send_result(id != NULL ? TS_QUEUED : TS_ERROR, id,
		    xasprintf("%s: the outbox cannot be sent: %s", id != NULL ?
		    "queued" : "not sent", cause));
		free(cause);
		return ts;
	}
	for (i = 0; i < rep.n; i++)
		tui_send_remember(rep.items[i].id, rep.items[i].status ==
		    SEND_QUEUED ? tui_send_why(rep.items[i].text) : NULL);
	if (flush)
		ts = tui_send_summary(&rep, id);
	else
		ts = tui_send_one(&rep, id, how);
	send_report_free(&rep);
	return ts;
}

/*
 * Protect, queue (or hold), flush: the worker's side of tui_send_draft(),
 * the sequence of outgoing.h. The draft is kept beside its outbox entry
 * (OUTGOING_KEEP_DRAFT) for e on the outbox screen.
 */
static struct tui_sent *
tui_send_run_draft(struct tui_send_job *j)
{
	struct outgoing_send	 s;
	struct tui_sent		*ts;
	char			*cause = NULL;

	if (crypto_init(j->cf->gnupg_home, &cause) == -1) {
		/* outgoing_send() says what that means for this message */
		free(cause);
		cause = NULL;
	}
	/*
	 * Signing may need the passphrase: pinentry gets the terminal
	 * through the worker's hooks. Prompting is the worker's default
	 * (only its sync and trust steps turn it off for their duration);
	 * said here so that a send never depends on what ran before.
	 */
	crypto_set_no_prompt(0);
	outgoing_send(j->d, j->cf, &j->o, OUTGOING_KEEP_DRAFT, &s);
	switch (s.result) {
	case OUTGOING_UNBUILT:
		ts = tui_send_result(TS_ERROR, NULL, xasprintf("not sent: %s",
		    s.cause != NULL ? s.cause : "it cannot be built"));
		break;
	case OUTGOING_REFUSED:
		ts = tui_send_result(TS_REFUSED, NULL, xstrdup(s.p.line !=
		    NULL ? s.p.line : "not sent: the encryption policy "
		    "refuses it"));
		break;
	case OUTGOING_UNHELD:
		ts = tui_send_result(TS_ERROR, NULL, xasprintf("not sent: %s; "
		    "and it cannot be held in the outbox: %s", s.p.line,
		    s.cause));
		break;
	case OUTGOING_HELD:
		/* a lookup failed: the draft waits in the outbox for DNS */
		tui_send_outbox_changed();
		ts = tui_send_flush_now(j->cf, s.id, 0, NULL);
		break;
	case OUTGOING_UNQUEUED:
		ts = tui_send_result(TS_ERROR, NULL, xasprintf("not sent, it "
		    "cannot be queued: %s", s.cause));
		break;
	default:
		tui_send_outbox_changed();
		ts = tui_send_flush_now(j->cf, s.id, 0, s.p.line);
		break;
	}
	outgoing_send_free(&s);
	return ts;
}

/* The TJ_CALL function: on the worker, with its front-end hooks. */
static int
tui_send_call(struct session *s, void *arg, struct tui_event *ev)
{
	struct tui_send_job	*j = arg;
	struct tui_sent		*ts;

	(void)s;
	if (j->d != NULL)
		ts = tui_send_run_draft(j);
	else
		ts = tui_send_flush_now(j->cf, j->only_id, 1, NULL);
	tui_send_outbox_changed();
	ev->data = ts;
	ev->discard = tui_sent_free;
	tui_send_job_free(j);
	return 0;
}

static uint64_t
tui_send_submit(struct tui_account *ta, struct tui_send_job *j)
{
	struct tui_job	tj;

	memset(&tj, 0, sizeof tj);
	tj.kind = TJ_CALL;
	tj.fn = tui_send_call;
	tj.fn_arg = j;
	return tui_submit(ta, &tj);
}

uint64_t
tui_send_draft(struct tui_account *ta, const struct draft *d,
    const struct draft_opts *o)
{
	struct tui_send_job	*j = xcalloc(1, sizeof *j);

	j->cf = tui.cf;
	j->d = tui_send_copy(d);
	j->o = *o;
	/* the worker's hooks put the fallback question to the person */
	j->o.can_ask = 1;
	return tui_send_submit(ta, j);
}

uint64_t
tui_send_flush(struct tui_account *ta, const char *only_id)
{
	struct tui_send_job	*j = xcalloc(1, sizeof *j);

	j->cf = tui.cf;
	j->only_id = only_id != NULL ? xstrdup(only_id) : NULL;
	return tui_send_submit(ta, j);
}
