/*
 * tui-compose-send.c: the compose screen's security line and its two
 * ways out, send and postpone. It owns the background runs of
 * draft_preview() (on a copy of the draft's recipients and flags, first
 * without DNS, then with it; a newer change makes older answers stale),
 * the questions sending asks from the latest answer (fallback = ask, a
 * changed key, a reply to encrypted mail that cannot be encrypted), the
 * call to tui_send_draft() and the background run of draft_postpone().
 * The engine decides (draft_preview, draft_protect): this file only shows
 * and asks. It never waits on gpg, DNS or the network.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "crypto.h"
#include "draft.h"
#include "tui.h"
#include "tui-compose.h"
#include "xmalloc.h"

/* A preview run: what it looks at, and what came back. */
struct cp_preview {
	struct draft		*d;		/* recipients and flags only */
	struct draft_opts	 o;
	int			 use_dns;
	struct draft_preview	 p;
	int			 ok;
	char			*cause;
};

void
tui_compose_opts(const struct compose *c, struct draft_opts *o)
{
	memset(o, 0, sizeof *o);
	o->encrypt = c->enc == CP_ENCRYPT_ALWAYS;
	o->never = c->enc == CP_ENCRYPT_NEVER;
	o->nosign = c->nosign;
	o->smime = c->smime;
}

static void *
cp_preview_run(void *arg)
{
	struct cp_preview	*pv = arg;

	if (crypto_init(tui.cf->gnupg_home, &pv->cause) == -1)
		return pv;
	if (draft_preview(pv->d, tui.cf, &pv->o, pv->use_dns, &pv->p,
	    &pv->cause) == 0)
		pv->ok = 1;
	return pv;
}

static void
cp_preview_free(void *arg)
{
	struct cp_preview	*pv = arg;

	if (pv == NULL)
		return;
	if (pv->ok)
		draft_preview_free(&pv->p);
	draft_free(pv->d);
	free(pv->cause);
	free(pv);
}

static struct cp_preview *
cp_preview_new(const struct compose *c, int use_dns)
{
	struct cp_preview	*pv = xcalloc(1, sizeof *pv);
	const struct draft	*d = c->d;
	size_t			 i;

	pv->d = draft_new(d->a);
	for (i = 0; i < d->nto; i++)
		draft_add(pv->d, DRAFT_TO, d->to[i]);
	for (i = 0; i < d->ncc; i++)
		draft_add(pv->d, DRAFT_CC, d->cc[i]);
	for (i = 0; i < d->nbcc; i++)
		draft_add(pv->d, DRAFT_BCC, d->bcc[i]);
	pv->d->from_encrypted = d->from_encrypted;
	pv->d->forwarding = d->forwarding;
	tui_compose_opts(c, &pv->o);
	pv->use_dns = use_dns;
	return pv;
}

static void
cp_shown_clear(struct compose *c)
{
	if (c->shown_run != NULL)
		cp_preview_free(c->shown_run);
	c->shown_run = NULL;
	c->shown = NULL;
	free(c->shown_error);
	c->shown_error = NULL;
	c->shown_full = 0;
}

/*
 * The recipients or the toggles changed: ask again, twice. The older
 * runs' answers are dropped when they come (their ids are no longer
 * ours); what is shown stays until the new one arrives.
 */
void
tui_compose_preview(struct compose *c)
{
	const struct draft	*d = c->d;

	c->fast_job = c->full_job = 0;
	if (c->send_when_known) {
		/* y was for the message as it was */
		c->send_when_known = 0;
		tui_message("changed: y sends it");
	}
	if (d->nto + d->ncc + d->nbcc == 0) {
		cp_shown_clear(c);
		tui_dirty();
		return;
	}
	c->shown_full = 0;
	c->fast_job = tui_background(cp_preview_run, cp_preview_new(c, 0),
	    cp_preview_free);
	c->full_job = tui_background(cp_preview_run, cp_preview_new(c, 1),
	    cp_preview_free);
	tui_dirty();
}

int
tui_compose_looking(const struct compose *c)
{
	return c->full_job != 0;
}

static void
cp_preview_take(struct compose *c, struct tui_event *ev, int full)
{
	struct cp_preview	*pv = ev->data;

	ev->data = NULL;
	if (full)
		c->fast_job = c->full_job = 0;
	else
		c->fast_job = 0;
	cp_shown_clear(c);
	if (pv->ok) {
		c->shown_run = pv;	/* it owns the preview */
		c->shown = &pv->p;
		c->shown_full = full;
	} else {
		c->shown_error = pv->cause != NULL ? pv->cause :
		    xstrdup("not known");
		pv->cause = NULL;
		cp_preview_free(pv);
	}
	if (full && c->send_when_known) {
		c->send_when_known = 0;
		tui_compose_send(c, 1);
	}
}

/* "a@x, b@y": the recipients without a key. */
static char *
cp_without_key(const struct draft_preview *p)
{
	struct buf	b;
	size_t		i, k = 0;

	buf_init(&b);
	for (i = 0; i < p->n; i++) {
		if (p->rcpts[i].has_key)
			continue;
		buf_addf(&b, "%s%s", k++ > 0 ? ", " : "", p->rcpts[i].addr);
	}
	return b.data != NULL ? buf_take(&b) : xstrdup("a recipient");
}

/* "a@x, b@y": the recipients whose DNS answer was bogus. */
static char *
cp_bogus(const struct draft_preview *p)
{
	struct buf	b;
	size_t		i, k = 0;

	buf_init(&b);
	for (i = 0; i < p->n; i++) {
		if (p->rcpts[i].has_key || p->rcpts[i].why == NULL ||
		    strstr(p->rcpts[i].why, "bogus") == NULL)
			continue;
		buf_addf(&b, "%s%s", k++ > 0 ? ", " : "", p->rcpts[i].addr);
	}
	return b.data != NULL ? buf_take(&b) : xstrdup("a recipient");
}

/*
 * What sending asks before it goes, from the preview p: 1 go (with o
 * amended), 0 not sent (the message line says so). A bogus DNS answer
 * holds the message: only an explicit y sends it in clear, Enter is no.
 */
static int
cp_send_questions(struct compose *c, const struct draft_preview *p,
    struct draft_opts *o)
{
	struct draft	*d = c->d;
	char		*who;
	size_t		 i;
	int		 yes;

	for (i = 0; i < p->n; i++) {
		if (p->rcpts[i].state != TRUST_KEY_CHANGED)
			continue;
		if (!tui_yesno("the key of %s changed: send anyway?",
		    p->rcpts[i].addr))
			goto kept;
	}
	switch (p->action) {
	case POLICY_HOLD:
		/* "send in clear anyway? (y/N)" must fit on 80 columns */
		who = cp_bogus(p);
		if (tui_width(who) <= 26)
			yes = tui_yesno_no("forged DNS answer for %s: send in "
			    "clear anyway?", who);
		else
			yes = tui_yesno_no("forged DNS answer (see the "
			    "security line): send in clear anyway?");
		free(who);
		if (!yes)
			goto kept;
		o->never = 1;
		break;
	case POLICY_ASK_USER:
		who = cp_without_key(p);
		yes = tui_yesno("no key for %s: send in clear?", who);
		free(who);
		if (!yes)
			goto kept;
		o->never = 1;
		break;
	case POLICY_REFUSE_SEND:
		if (p->must && d->from_encrypted && d->forwarding &&
		    c->enc != CP_ENCRYPT_ALWAYS) {
			if (!tui_yesno("send the forwarded encrypted message "
			    "in clear?"))
				goto kept;
			o->never = 1;
		} else if (p->must && d->from_encrypted &&
		    c->enc != CP_ENCRYPT_ALWAYS) {
			who = cp_without_key(p);
			yes = tui_yesno("cannot encrypt to %s: send in clear "
			    "WITHOUT the quote?", who);
			free(who);
			if (!yes)
				goto kept;
			draft_unquote(d);
			o->never = 1;
		} else {
			tui_error("not sent: %s", p->line != NULL ? p->line :
			    "the policy refuses it");
			return 0;
		}
		break;
	default:
		break;
	}
	return 1;
kept:
	tui_message(p->action == POLICY_HOLD ? "not sent; the message is "
	    "kept (E: encryption, P: postpone)" : "not sent; the message is "
	    "kept");
	return 0;
}

/*
 * y: send with the latest answer. While the lookup runs, the first y
 * waits for it (sending once it comes), a second one asks to send on what
 * is known already.
 */
void
tui_compose_send(struct compose *c, int now)
{
	struct draft_opts	 o;
	const struct draft	*d = c->d;
	uint64_t		 id;

	if (d->nto + d->ncc + d->nbcc == 0) {
		tui_error("no recipient yet: t adds one");
		return;
	}
	tui_compose_opts(c, &o);
	if (tui_compose_looking(c) && !now) {
		if (!c->send_when_known) {
			c->send_when_known = 1;
			tui_message("still looking up keys...: the message "
			    "goes once they are known (y again: send now)");
			return;
		}
		if (!tui_yesno("keys are still being looked up: send "
		    "anyway?")) {
			tui_message("still looking up keys...: the message "
			    "goes once they are known");
			return;
		}
		c->send_when_known = 0;
	}
	if (c->shown != NULL && !cp_send_questions(c, c->shown, &o))
		return;
	o.can_ask = 0;		/* asked here already */
	id = tui_send_draft(c->ta, c->d, &o);
	if (id == 0) {
		tui_error("not sent: sending is not available yet; P "
		    "postpones the message");
		return;
	}
	c->send_job = id;
	tui_message("sending...");
}

/* ---- postpone ------------------------------------------------------------ */

struct cp_postpone {
	const struct draft	*d;	/* the screen's: no edits meanwhile */
	struct draft_opts	 o;
	char			*path;
	int			 encrypted;
	char			*cause;
	int			 ok;
};

static void *
cp_postpone_run(void *arg)
{
	struct cp_postpone	*pp = arg;

	if (crypto_init(tui.cf->gnupg_home, &pp->cause) == -1)
		return pp;
	if (draft_postpone(pp->d, tui.cf, &pp->o, &pp->path, &pp->encrypted,
	    &pp->cause) == 0)
		pp->ok = 1;
	return pp;
}

static void
cp_postpone_free(void *arg)
{
	struct cp_postpone	*pp = arg;

	free(pp->path);
	free(pp->cause);
	free(pp);
}

void
tui_compose_postpone(struct compose *c)
{
	struct cp_postpone	*pp = xcalloc(1, sizeof *pp);

	pp->d = c->d;
	tui_compose_opts(c, &pp->o);
	c->postpone_job = tui_background(cp_postpone_run, pp,
	    cp_postpone_free);
	tui_message("postponing...");
}

static void
cp_postponed(struct compose *c, struct cp_postpone *pp)
{
	char	*cause = NULL;

	c->postpone_job = 0;
	if (!pp->ok) {
		tui_error("not postponed: %s", pp->cause != NULL ? pp->cause :
		    "failed");
		return;
	}
	tui_drafts_saved(c->ta, pp->path);
	if (c->resumed != NULL && strcmp(c->resumed, pp->path) != 0 &&
	    draft_discard(c->resumed, &cause) == -1) {
		tui_error("postponed, but the older draft stays: %s", cause);
		free(cause);
	} else
		tui_message(pp->encrypted ? "postponed (encrypted)" :
		    "postponed");
	c->done = 1;
}

static void
cp_sent(struct compose *c, struct tui_sent *st)
{
	char	*cause = NULL;

	c->send_job = 0;
	if (st == NULL) {
		tui_error("not sent: no answer from the sending");
		return;
	}
	switch (st->state) {
	case TS_SENT:
	case TS_QUEUED:
	case TS_FAILED:
		if (c->resumed != NULL &&
		    draft_discard(c->resumed, &cause) == -1) {
			tui_error("%s; the draft stays: %s", st->line != NULL ?
			    st->line : "queued", cause);
			free(cause);
		} else if (st->state == TS_FAILED)
			tui_error("%s", st->line != NULL ? st->line :
			    "failed");
		else
			tui_message("%s", st->line != NULL ? st->line :
			    st->state == TS_SENT ? "sent" : "queued");
		c->done = 1;
		break;
	default:
		tui_error("%s", st->line != NULL ? st->line : "not sent");
		/*
		 * The policy said no at sending (a DNS answer that turned
		 * bogus since the line was made): the line is made again,
		 * and the next y asks from it.
		 */
		if (st->state == TS_REFUSED)
			tui_compose_preview(c);
		break;
	}
}

int
tui_compose_event(struct compose *c, struct tui_event *ev)
{
	if (ev->kind != TE_DONE || ev->job == 0)
		return 0;
	if (ev->job == c->full_job) {
		cp_preview_take(c, ev, 1);
		return 1;
	}
	if (ev->job == c->fast_job) {
		cp_preview_take(c, ev, 0);
		return 1;
	}
	if (ev->job == c->postpone_job) {
		cp_postponed(c, ev->data);
		return 1;
	}
	if (ev->job == c->send_job && ev->acct == c->ta) {
		struct tui_sent	*st = ev->data;

		ev->data = NULL;
		if (st == NULL && ev->cause != NULL)
			tui_error("not sent: %s", ev->cause);
		else
			cp_sent(c, st);
		if (st != NULL)
			tui_sent_free(st);
		c->send_job = 0;
		return 1;
	}
	return 0;
}

void
tui_compose_send_free(struct compose *c)
{
	cp_shown_clear(c);
}
