/*
 * draft-hold.c: messages that wait in the outbox for DNS (draft.h).
 *
 * A failed key lookup (servfail, a time-out, no resolver) is not an
 * answer: sending such a message in clear because DNS was down would give
 * whoever can block DNS the mail in clear. So the policy says wait
 * (POLICY_WAIT), and the draft goes into the outbox as it is, encrypted to
 * the account's own key, with the options it was sent with and why it
 * waits (outbox_hold()). Every flush that looks again decides it afresh
 * (draft_release(), from send.c): the same draft_protect() as a send,
 * nobody asked unless the flush can ask. A key found now: the message is
 * encrypted and queued (outbox_release()). A lookup that fails again, or
 * a bogus answer: it stays, saying why. A definite answer that leaves a
 * recipient without a key: fallback decides, as it would have at once.
 * After dns-wait (two days unless set), a message still held is asked
 * about when somebody can be asked ("send it in clear?", no unless said),
 * else given up into outbox/failed/ with the reason; never sent in clear
 * on its own.
 *
 * Callers: outgoing.c (draft_hold() after draft_protect() returned 2),
 * send.c (draft_release(), draft_held_text()). Never prints; the one
 * question goes through fe_confirm().
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "crypto.h"
#include "draft.h"
#include "frontend.h"
#include "outbox.h"
#include "xmalloc.h"

/* The words of draft_opts_words(), with their flags. */
static const struct {
	const char	*word;
	size_t		 off;
} draft_hold_words[] = {
	{ "sign", offsetof(struct draft_opts, sign) },
	{ "encrypt", offsetof(struct draft_opts, encrypt) },
	{ "require", offsetof(struct draft_opts, require) },
	{ "never", offsetof(struct draft_opts, never) },
	{ "smime", offsetof(struct draft_opts, smime) },
	{ "nosign", offsetof(struct draft_opts, nosign) },
};
#define DRAFT_HOLD_NWORDS \
	(sizeof draft_hold_words / sizeof draft_hold_words[0])

char *
draft_opts_words(const struct draft_opts *o)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < DRAFT_HOLD_NWORDS; i++) {
		if (*(const int *)((const char *)o + draft_hold_words[i].off))
			buf_addf(&b, "%s%s", b.len > 0 ? " " : "",
			    draft_hold_words[i].word);
	}
	return buf_take(&b);
}

void
draft_opts_parse(const char *words, struct draft_opts *o)
{
	const char	*w = words != NULL ? words : "";
	size_t		 i, n;

	memset(o, 0, sizeof *o);
	while (*w != '\0') {
		n = strcspn(w, " ");
		for (i = 0; i < DRAFT_HOLD_NWORDS; i++) {
			if (strlen(draft_hold_words[i].word) == n &&
			    strncmp(draft_hold_words[i].word, w, n) == 0)
				*(int *)((char *)o + draft_hold_words[i].off) =
				    1;
		}
		w += n;
		w += strspn(w, " ");
	}
}

int
draft_hold(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, const char *why, char **id, char **cause)
{
	struct buf	  kept;
	char		**rcpts, *dir = NULL, *words = NULL;
	size_t		  n = 0, i;
	int		  encrypted, rc = -1;

	buf_init(&kept);
	rcpts = xcalloc(d->nto + d->ncc + d->nbcc + 1, sizeof *rcpts);
	/*
	 * It was meant to go encrypted: kept encrypted to the account's own
	 * key, so that a message waiting for a key does not sit on the disk
	 * in clear.
	 */
	if (draft_keep(d, cf, o, 1, &kept, &encrypted, cause) == -1)
		goto out;
	for (i = 0; i < d->nto; i++)
		rcpts[n++] = d->to[i];
	for (i = 0; i < d->ncc; i++)
		rcpts[n++] = d->cc[i];
	for (i = 0; i < d->nbcc; i++)
		rcpts[n++] = d->bcc[i];
	if ((dir = outbox_dir(cause)) == NULL)
		goto out;
	words = draft_opts_words(o);
	rc = outbox_hold(dir, d->a->id, d->a->address, rcpts, n, kept.data,
	    kept.len, words, why, id, cause);
out:
	free(words);
	free(dir);
	free(rcpts);
	buf_free(&kept);
	return rc;
}

/* "2 days", "12 hours", "30 minutes", "45 seconds". */
static char *
draft_hold_span(long long secs)
{
	if (secs % (24 * 3600) == 0)
		return xasprintf("%lld day%s", secs / (24 * 3600),
		    secs == 24 * 3600 ? "" : "s");
	if (secs % 3600 == 0)
		return xasprintf("%lld hour%s", secs / 3600,
		    secs == 3600 ? "" : "s");
	if (secs % 60 == 0)
		return xasprintf("%lld minute%s", secs / 60,
		    secs == 60 ? "" : "s");
	return xasprintf("%lld second%s", secs, secs == 1 ? "" : "s");
}

char *
draft_wait_words(const struct config *cf)
{
	return draft_hold_span(config_dns_wait(cf));
}

static void
draft_hold_date(long long t, char *out, size_t len)
{
	time_t		when = (time_t)t;
	struct tm	tm;

	localtime_r(&when, &tm);
	strftime(out, len, "%Y-%m-%d %H:%M", &tm);
}

char *
draft_held_text(const struct config *cf, const struct outbox_entry *e,
    const char *why)
{
	char	since[32], until[32];

	draft_hold_date(e->held_since, since, sizeof since);
	draft_hold_date(e->held_since + config_dns_wait(cf), until,
	    sizeof until);
	return xasprintf("%s; held since %s, looked at again until %s "
	    "(dns-wait)", why != NULL ? why : (e->held_why != NULL ?
	    e->held_why : "held"), since, until);
}

/* Held for good: into outbox/failed/ with reason; *line says so. */
static enum draft_release
draft_release_fail(const char *dir, struct outbox_entry *e,
    const char *reason, char **line)
{
	char	*where, *cause = NULL;

	if ((where = outbox_fail(dir, e, reason, &cause)) == NULL) {
		*line = xasprintf("%s (and it stays in the outbox: %s)",
		    reason, cause);
		free(cause);
		return DRAFT_RELEASE_ERROR;
	}
	*line = xasprintf("%s; the message is kept in %s", reason, where);
	free(where);
	return DRAFT_GIVEN_UP;
}

enum draft_release
draft_release(struct config *cf, const char *dir, struct outbox_entry *e,
    int can_ask, char **line)
{
	struct draft_protection	 p;
	struct draft_opts	 o;
	struct account		*a;
	struct draft		*d = NULL;
	struct buf		 msg;
	enum draft_release	 r = DRAFT_RELEASE_ERROR;
	long long		 wait = config_dns_wait(cf);
	char			*path, *cause = NULL, *span, *reason;
	int			 rc, bad = 0, late, waits, agreed = 0;

	*line = NULL;
	memset(&p, 0, sizeof p);
	buf_init(&msg);
	if ((a = config_account(cf, e->account, &cause)) == NULL ||
	    crypto_init(cf->gnupg_home, &cause) == -1) {
		*line = xasprintf("held: %s", cause);
		goto out;
	}
	path = outbox_draft_path(dir, e);
	d = draft_resume(a, path, &cause);
	free(path);
	if (d == NULL) {
		*line = xasprintf("held: its draft cannot be read now: %s",
		    cause);
		goto out;
	}
	draft_opts_parse(e->held_opts, &o);
	o.can_ask = can_ask && draft_may_ask(d, cf, &o);
	late = (long long)time(NULL) - e->held_since >= wait;
	rc = draft_protect(d, cf, &o, &msg, &p, &bad, &cause);
	waits = rc == 2 || (rc == 1 && p.policy.action == POLICY_HOLD);
	if (waits && late && can_ask) {
		span = draft_hold_span(wait);
		/* the question first: a screen's row may cut the rest */
		agreed = fe_confirm("send it in clear? A message to %s%s has "
		    "waited %s: %s", e->rcpts[0], e->nrcpts > 1 ? " and others" :
		    "", span, p.line != NULL ? p.line : "no answer");
		free(span);
		if (agreed) {
			reason = xstrdup(p.line != NULL ? p.line : "held");
			draft_protection_free(&p);
			o.never = 1;
			buf_reset(&msg);	/* draft_protect() adds to it */
			rc = draft_protect(d, cf, &o, &msg, &p, &bad, &cause);
			if (rc == 0) {
				free(p.line);
				p.line = xasprintf("sent in clear, as you "
				    "agreed: %s", reason);
			}
			free(reason);
			waits = 0;
		}
	}
	if (rc == 0) {
		if (outbox_release(dir, e, msg.data, msg.len, &cause) == -1) {
			*line = xasprintf("held: %s", cause);
			goto out;
		}
		*line = p.line != NULL ? xstrdup(p.line) : NULL;
		r = DRAFT_RELEASED;
	} else if (waits && late) {
		span = draft_hold_span(wait);
		reason = xasprintf("not sent: %s, for %s (dns-wait); it is "
		    "never sent in clear for want of a DNS answer", p.line,
		    span);
		free(span);
		r = draft_release_fail(dir, e, reason, line);
		free(reason);
	} else if (waits) {
		if (outbox_hold_note(dir, e, p.line, &cause) == -1) {
			free(cause);
			cause = NULL;
		}
		*line = xstrdup(p.line);
		r = DRAFT_STILL_HELD;
	} else if (rc == 1)
		r = draft_release_fail(dir, e, p.line != NULL ? p.line :
		    "not sent: the encryption policy refuses it", line);
	else if (bad)
		r = draft_release_fail(dir, e, cause, line);
	else
		*line = xasprintf("held: %s", cause);
out:
	free(cause);
	buf_free(&msg);
	draft_protection_free(&p);
	if (d != NULL)
		draft_free(d);
	return r;
}
