/*
 * tui-trust.c: the trust screens of the curses interface: one
 * correspondent's key (fingerprint, state, keys with their evidence,
 * history, what encryption to them would use now), comparing the
 * fingerprint read aloud (verify), deciding a changed key (accept,
 * reject), and the list of every correspondent.
 *
 * Callers: the index and the pager (K: tui_trust_new), the index (W:
 * tui_trust_list_new). The screens read the trust store through the
 * interface thread's own handle (tui_account_trust(): local SQLite) and
 * ask the engine's calls behind `--trust verify/accept/reject` for
 * decisions; the rules are the engine's, never decided here. What
 * encryption would use needs DNS and gpg: it runs on the account's worker
 * (a TJ_CALL job) and the screen says "looking up..." until it is back.
 * Everything from outside (addresses, evidence, history) is drawn through
 * tui_put(). Never prints, never waits on the network.
 */
#include <ctype.h>
#include <curses.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "crypto.h"
#include "draft.h"
#include "imap-ops.h"
#include "policy.h"
#include "session.h"
#include "trust-store.h"
#include "tui.h"
#include "xmalloc.h"

/* Width of the labels on the key screen ("Fingerprint  "). */
#define TUI_TRUST_LABEL	13

/* Bumped by every decision, so that the list reads the store again. */
static unsigned	 tui_trust_generation;

/* A line of the key screen: a label (or NULL) and its text. */
struct tui_trust_line {
	char	*label;
	char	*text;
	int	 attr;
	int	 x;		/* the text's column */
};

struct tui_trust_lines {
	struct tui_trust_line	*v;
	size_t			 n;
	int			 x;	/* column of the lines added now */
};

/* The key screen. */
struct tui_trust {
	struct tui_account	*acct;
	char			*addr;
	char			*title;
	struct trust_peer	 peer;
	struct trust_dns	 dns;		/* a bogus answer's mark */
	char			*error;		/* the store cannot be read */
	uint64_t		 job;		/* the encryption lookup */
	struct tui_trust_call	*call;
	char			*enc;		/* its answer; NULL: waiting */
	size_t			 top;		/* first line shown */
	size_t			 nlines;	/* at the last draw */
	/* Comparing fingerprints: 1 asking, 2 showing a mismatch. */
	int			 verifying;
	char			*heard;		/* hex digits they read */
};

/* A row of the list. */
struct tui_trust_row {
	char		*addr;
	enum trust_state state;
	char		*fpr;
	time_t		 last;
	int		 bogus;		/* DNS's last answer was bogus */
};

struct tui_trust_list {
	struct tui_account	*acct;
	struct tui_trust_row	*rows;
	size_t			 n;
	size_t			 cur, top;
	char			*search;
	char			*error;
	unsigned		 generation;
};

/*
 * What the worker's lookup carries. The job and the screen each hold a
 * reference: the screen may be gone before the job runs, and a job may
 * never run (the account's session cannot be opened). Calls wait in a
 * list until both have let go, so none is ever lost.
 */
struct tui_trust_call {
	struct tui_trust_call	*next;
	int			 refs;
	char			*addr;
	struct config		*cf;
	char			*answer;	/* set by the worker */
};
static pthread_mutex_t		 tui_trust_calls_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tui_trust_call	*tui_trust_calls;

/* ---- words, glyphs, fingerprints --------------------------------------- */

/* A state's word, as src/verdict.c has it. */
static const char *
tui_trust_word(enum trust_state s)
{
	return verdict_trust(s)->word;
}

/*
 * Groups of 4 hex digits from fpr[from] to fpr[to], with a wider gap in
 * the middle of a 40-digit fingerprint as gpg prints it.
 */
static char *
tui_trust_groups(const char *fpr, size_t from, size_t to)
{
	struct buf	b;
	size_t		i, len = strlen(fpr);

	buf_init(&b);
	if (to > len)
		to = len;
	for (i = from; i < to; i += 4) {
		if (i != from)
			buf_adds(&b, i == 20 && len == 40 ? "  " : " ");
		buf_add(&b, fpr + i, to - i < 4 ? to - i : 4);
	}
	return buf_take(&b);
}

/* The last 16 digits, grouped: enough to tell keys apart in a list. */
static char *
tui_trust_short(const char *fpr)
{
	size_t	len;

	if (fpr == NULL)
		return xstrdup("none");
	len = strlen(fpr);
	return tui_trust_groups(fpr, len > 16 ? len - 16 : 0, len);
}

/* ---- the key screen's lines ------------------------------------------- */

static void
tui_trust_add(struct tui_trust_lines *l, const char *label, char *text,
    int attr)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n].label = label != NULL ? xstrdup(label) : NULL;
	l->v[l->n].text = text;
	l->v[l->n].attr = attr;
	l->v[l->n].x = label != NULL ? TUI_TRUST_LABEL : l->x;
	l->n++;
}

/* text (taken) in lines of at most width columns, broken at spaces. */
static void
tui_trust_wrap(struct tui_trust_lines *l, const char *label, char *text,
    int attr, int width)
{
	struct buf	 line;
	char		*p = text, *sp;
	size_t		 n;

	buf_init(&line);
	while (*p != '\0') {
		sp = strchr(p, ' ');
		n = sp != NULL ? (size_t)(sp - p) : strlen(p);
		if (line.len > 0) {
			buf_addc(&line, ' ');
			buf_add(&line, p, n);
			if (tui_width(line.data) > width) {
				line.len -= n + 1;
				line.data[line.len] = '\0';
				tui_trust_add(l, label, buf_take(&line), attr);
				label = NULL;
				buf_add(&line, p, n);
			}
		} else
			buf_add(&line, p, n);
		p += n;
		while (*p == ' ')
			p++;
	}
	if (line.len > 0 || l->n == 0 || label != NULL)
		tui_trust_add(l, label, buf_take(&line), attr);
	buf_free(&line);
	free(text);
}

static void
tui_trust_lines_free(struct tui_trust_lines *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].label);
		free(l->v[i].text);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* The pin with a key change or a conflict open, or NULL. */
static struct trust_peer_pin *
tui_trust_open_change(struct tui_trust *d)
{
	int	i;

	for (i = 0; i < TRUST_NPROTO; i++) {
		if (d->peer.pins[i].v.other != NULL)
			return &d->peer.pins[i];
	}
	return NULL;
}

/* What DNS said of key k. */
static const char *
tui_trust_dns(const struct trust_key *k)
{
	if (k->dns_confirmed != 0 || (k->sources & (1u << TRUST_SRC_DNS_SECURE)))
		return "DNS: DNSSEC-secure record";
	if (k->sources & (1u << TRUST_SRC_DNS_INSECURE))
		return "DNS: record without DNSSEC (proves nothing)";
	return "DNS: no record";
}

/* Where a key came from, in words. */
static char *
tui_trust_from(const struct trust_key *k)
{
	char	*src, *text;

	if (k->sources == 0)
		return xstrdup(k->messages > 0 ? "signed mail" : "nowhere");
	src = trust_sources_text(k->sources);
	text = xasprintf("%s%s", k->messages > 0 ? "signed mail, " : "", src);
	free(src);
	return text;
}

static void
tui_trust_key_lines(struct tui_trust *d, struct tui_trust_lines *l,
    const struct trust_key *k, int width)
{
	struct trust_peer_pin	*ch = tui_trust_open_change(d);
	const char		*role = "", *last;
	char			*from, *g, first[16];
	size_t			 len = strlen(k->fpr);
	int			 attr = tui_attr(TC_HEADER);

	if (k->pinned)
		role = "   pinned (in use)";
	else if (ch != NULL && strcasecmp(ch->v.other, k->fpr) == 0) {
		role = "   new (not in use)";
		attr = tui_attr(TC_IND_BAD);
	}
	g = tui_trust_groups(k->fpr, 0, len > 40 ? 32 : len);
	tui_trust_add(l, NULL, xasprintf("%s%s", g, role), attr);
	free(g);
	if (len > 40)
		tui_trust_add(l, NULL, tui_trust_groups(k->fpr, 32, len), attr);
	from = tui_trust_from(k);
	l->x += 2;
	snprintf(first, sizeof first, "%s", trust_date(k->first_seen));
	last = trust_date(k->last_seen);
	tui_trust_wrap(l, NULL, xasprintf("%s, %s%s%s; from %s; seen %s%s%s",
	    strcmp(k->proto, "smime") == 0 ? "S/MIME" : "OpenPGP",
	    strcmp(k->decision, "none") == 0 ? "undecided" : k->decision,
	    k->revoked ? ", revoked" : "", k->expired ? ", expired" : "", from,
	    first, strcmp(first, last) != 0 ? " to " : "",
	    strcmp(first, last) != 0 ? last : ""), tui_attr(TC_NORMAL), width);
	free(from);
	tui_trust_wrap(l, NULL, xasprintf("%ld signed message%s%s%s; %s",
	    k->messages, k->messages == 1 ? "" : "s", k->messages > 0 ?
	    ", last " : "", k->messages > 0 ? trust_date(k->last_sig) : "",
	    tui_trust_dns(k)), tui_attr(TC_NORMAL), width);
	l->x -= 2;
}

static void
tui_trust_build(struct tui_trust *d, struct tui_trust_lines *l)
{
	struct trust_peer	*p = &d->peer;
	struct trust_peer_pin	*ch;
	const char		*nl;
	char			*g;
	size_t			 i, len;
	int			 w = COLS - TUI_TRUST_LABEL - 1, normal;

	normal = tui_attr(TC_NORMAL);
	if (w < 10)
		w = 10;
	if (d->error != NULL) {
		tui_trust_wrap(l, "Error", xstrdup(d->error),
		    tui_attr(TC_ERROR), w);
		return;
	}
	tui_trust_add(l, "Address", xstrdup(p->addr), tui_attr(TC_HEADER));
	tui_trust_add(l, "State", xasprintf("%s%s%s",
	    tui_trust_word(p->shown), p->proto != NULL &&
	    strcmp(p->proto, "smime") == 0 ? " (S/MIME)" : "", p->pinned != NULL && !p->usable ?
	    "; the key cannot be used" : ""), normal);
	if (p->pinned != NULL) {
		len = strlen(p->pinned);
		tui_trust_add(l, "Fingerprint", tui_trust_groups(p->pinned, 0,
		    len > 40 ? 32 : len), tui_attr(TC_HEADER));
		if (len > 40)
			tui_trust_add(l, NULL, tui_trust_groups(p->pinned, 32,
			    len), tui_attr(TC_HEADER));
	}
	if ((ch = tui_trust_open_change(d)) != NULL) {
		len = strlen(ch->v.other);
		tui_trust_add(l, ch->v.state == TRUST_CONFLICT ? "DNS says" :
		    "New key", tui_trust_groups(ch->v.other, 0, len > 40 ? 32 :
		    len), tui_attr(TC_IND_BAD));
		if (len > 40)
			tui_trust_add(l, NULL, tui_trust_groups(ch->v.other, 32,
			    len), tui_attr(TC_IND_BAD));
	}
	if (p->v.since != 0)
		tui_trust_add(l, "Since", p->v.messages == 0 ?
		    xasprintf("%s, no signed message yet",
		    trust_date(p->v.since)) : xasprintf("%s, %ld signed "
		    "message%s", trust_date(p->v.since), p->v.messages,
		    p->v.messages == 1 ? "" : "s"), normal);
	if (p->v.evidence != NULL)
		tui_trust_wrap(l, "Evidence", xstrdup(p->v.evidence), normal, w);
	/* what the sync's or a send's lookup met: never a key, only this */
	if (d->dns.bogus != 0)
		tui_trust_wrap(l, "DNS", xasprintf("answer bogus (%s, %s): a "
		    "possible attack; nothing was taken from it, and mail to "
		    "it is held", trust_date(d->dns.bogus), d->dns.owner !=
		    NULL ? d->dns.owner : "?"), tui_attr(TC_IND_BAD), w);
	if (d->enc == NULL)
		tui_trust_add(l, "Encryption", xstrdup("looking up..."),
		    tui_attr(TC_NOTE));
	else {
		nl = strchr(d->enc, '\n');
		tui_trust_wrap(l, "Encryption", nl != NULL ? xstrndup(d->enc,
		    nl - d->enc) : xstrdup(d->enc), normal, w);
		if (nl != NULL)
			tui_trust_wrap(l, NULL, xstrdup(nl + 1),
			    tui_attr(TC_ERROR), w);
	}
	for (i = 0; i < TRUST_NPROTO; i++) {
		const struct trust_peer_pin *pp = &p->pins[i];
		if (!p->pins[TRUST_OPENPGP].present ||
		    !p->pins[TRUST_SMIME].present)
			break;
		g = tui_trust_short(pp->pinned);
		tui_trust_add(l, i == 0 ? "Pins" : NULL, xasprintf("%s: %s, %s",
		    pp->proto, g, tui_trust_word(pp->v.state)), normal);
		free(g);
	}
	tui_trust_add(l, NULL, xstrdup(""), normal);
	l->x = 3;
	tui_trust_add(l, "Keys", xstrdup(p->nkeys == 0 ? "none seen" : ""),
	    tui_attr(TC_HEADER_NAME));
	for (i = 0; i < p->nkeys; i++)
		tui_trust_key_lines(d, l, &p->keys[i], COLS - 6);
	tui_trust_add(l, NULL, xstrdup(""), normal);
	tui_trust_add(l, "History", xstrdup(p->nhistory == 0 ? "nothing yet" :
	    ""), tui_attr(TC_HEADER_NAME));
	for (i = p->nhistory; i > 0; i--) {
		tui_trust_wrap(l, NULL, xasprintf("%s  %s",
		    trust_date(p->history[i - 1].when), p->history[i - 1].what),
		    normal, COLS - 4);
	}
}

/* The banner: the state in a sentence, in the state's colours. */
static char *
tui_trust_banner(struct tui_trust *d)
{
	struct trust_peer	*p = &d->peer;
	const char		*glyph, *what;

	if (d->error != NULL)
		return xstrdup("the trust store cannot be read");
	glyph = tui_verdict_glyph(verdict_trust(p->shown));
	switch (p->shown) {
	case TRUST_FIRST_CONTACT:
		what = "accepted on first use; compare it (v) to be sure";
		break;
	case TRUST_KNOWN:
		what = "the key accepted before; not verified yet (v)";
		break;
	case TRUST_KEY_CHANGED:
		what = "the pinned key stays until you decide (a, x, v)";
		break;
	case TRUST_CONFLICT:
		what = "a DNSSEC-secure record names another key (a, x, v)";
		break;
	case TRUST_REVOKED:
		what = "its owner revoked the key: it is not used";
		break;
	case TRUST_EXPIRED:
		what = "the key has expired";
		break;
	case TRUST_DNS_CONFIRMED:
		what = "a DNSSEC-secure record confirms the key";
		break;
	case TRUST_VERIFIED:
		what = "you compared the fingerprint with its owner";
		break;
	default:
		what = p->nkeys > 0 ? "no key is accepted" : "no key known";
		break;
	}
	return xasprintf(" %s%s%s: %s", glyph, *glyph != '\0' ? " " : "",
	    tui_trust_word(p->shown), what);
}

/* ---- loading, the worker's lookup ------------------------------------- */

static struct tui_trust_call *
tui_trust_call_new(const char *addr)
{
	struct tui_trust_call	*c;

	c = xcalloc(1, sizeof *c);
	c->refs = 2;
	c->addr = xstrdup(addr);
	c->cf = tui.cf;
	pthread_mutex_lock(&tui_trust_calls_mu);
	c->next = tui_trust_calls;
	tui_trust_calls = c;
	pthread_mutex_unlock(&tui_trust_calls_mu);
	return c;
}

/* Let go of c; the last one frees it. answer, unless NULL, takes it. */
static void
tui_trust_call_drop(struct tui_trust_call *c, char **answer)
{
	struct tui_trust_call	**cp;

	pthread_mutex_lock(&tui_trust_calls_mu);
	if (answer != NULL) {
		*answer = c->answer;
		c->answer = NULL;
	}
	if (--c->refs > 0) {
		pthread_mutex_unlock(&tui_trust_calls_mu);
		return;
	}
	for (cp = &tui_trust_calls; *cp != NULL; cp = &(*cp)->next) {
		if (*cp == c) {
			*cp = c->next;
			break;
		}
	}
	pthread_mutex_unlock(&tui_trust_calls_mu);
	free(c->addr);
	free(c->answer);
	free(c);
}

/* What a message to addr would be now, in words: the policy as -s has it. */
static char *
tui_trust_policy_line(struct session *s, struct config *cf, char *addr,
    char **cause)
{
	struct draft_opts	 o;
	struct policy_in	 in;
	struct policy_result	 res;
	struct policy_rcpt	*r;
	struct draft		*d;
	struct buf		 b;
	char			*g;

	d = draft_new(session_account(s));
	draft_add(d, DRAFT_TO, addr);
	memset(&o, 0, sizeof o);
	draft_policy_in(d, cf, &o, &in);
	in.batch = 1;
	if (policy_decide(&in, &addr, 1, &res, cause) == -1) {
		draft_free(d);
		return NULL;
	}
	buf_init(&b);
	r = &res.rcpts[0];
	if (res.action == POLICY_ENCRYPT && r->fpr != NULL) {
		g = tui_trust_short(r->fpr);
		buf_addf(&b, "mail to it would be encrypted to key %s (from the "
		    "%s, %s)", g, r->source != NULL ? r->source : "?",
		    tui_trust_word(r->state));
		free(g);
	} else if (res.action == POLICY_ENCRYPT)
		buf_adds(&b, "mail to it would be encrypted");
	else if (res.action == POLICY_CLEAR)
		buf_addf(&b, "mail to it would go in clear: %s", r->fpr != NULL ?
		    "encrypt = never" : policy_rcpt_reason(r));
	else if (res.action == POLICY_HOLD)
		buf_addf(&b, "mail to it would be held, not sent: %s",
		    policy_rcpt_reason(r));
	else if (res.action == POLICY_WAIT)
		buf_addf(&b, "mail to it would wait in the outbox: its DNS "
		    "lookup failed (%s)", r->dns_failed != NULL ?
		    r->dns_failed : "no answer");
	else
		buf_addf(&b, "mail to it would not be sent: %s",
		    policy_rcpt_reason(r));
	if (r->warning != NULL)
		buf_addf(&b, "\nwarning: %s", r->warning);
	policy_result_free(&res);
	draft_free(d);
	return buf_take(&b);
}

/* Runs on the worker: the answer goes into the call, not the event. */
static int
tui_trust_policy(struct session *s, void *arg, struct tui_event *ev)
{
	struct tui_trust_call	*c = arg;
	char			*answer;
	int			 rc = IMAP_OPS_OK;

	/*
	 * Choosing keys needs no secret: gpg must not take the terminal
	 * for a pinentry (nor the interface leave the screen for one).
	 */
	crypto_set_no_prompt(1);
	if ((answer = tui_trust_policy_line(s, c->cf, c->addr,
	    &ev->cause)) == NULL)
		rc = IMAP_OPS_REFUSED;
	crypto_set_no_prompt(0);
	pthread_mutex_lock(&tui_trust_calls_mu);
	c->answer = answer;
	pthread_mutex_unlock(&tui_trust_calls_mu);
	tui_trust_call_drop(c, NULL);
	return rc;
}

static void
tui_trust_lookup(struct tui_trust *d)
{
	struct tui_job	job;

	free(d->enc);
	d->enc = NULL;
	if (d->call != NULL)
		tui_trust_call_drop(d->call, NULL);
	d->call = tui_trust_call_new(d->addr);
	memset(&job, 0, sizeof job);
	job.kind = TJ_CALL;
	job.fn = tui_trust_policy;
	job.fn_arg = d->call;
	d->job = tui_submit(d->acct, &job);
}

static void
tui_trust_load(struct tui_trust *d)
{
	struct trust_store	*ts;
	char			*cause = NULL;

	trust_peer_free(&d->peer);
	trust_dns_free(&d->dns);
	free(d->error);
	d->error = NULL;
	if ((ts = tui_account_trust(d->acct)) == NULL)
		d->error = xstrdup("the trust store cannot be opened");
	else if (trust_store_peer(ts, d->addr, &d->peer, &cause) == -1) {
		d->error = cause;
		memset(&d->peer, 0, sizeof d->peer);
	} else if (trust_store_dns(ts, d->addr, &d->dns, &cause) == -1) {
		/* the mark only: the screen does without it */
		free(cause);
		memset(&d->dns, 0, sizeof d->dns);
	}
	tui_dirty();
}

/* ---- verify: comparing the fingerprint read aloud --------------------- */

/* The keys they may be reading: the pinned one and a new one. */
static size_t
tui_trust_candidates(struct tui_trust *d, const char *fprs[2])
{
	struct trust_peer_pin	*ch = tui_trust_open_change(d);
	size_t			 n = 0;

	if (d->peer.pinned != NULL)
		fprs[n++] = d->peer.pinned;
	if (ch != NULL)
		fprs[n++] = ch->v.other;
	return n;
}

/* Does what they read so far agree with fpr? */
static int
tui_trust_agrees(const char *heard, const char *fpr)
{
	size_t	n = strlen(heard);

	return n <= strlen(fpr) && strncasecmp(heard, fpr, n) == 0;
}

/* The first group (from 1) where heard leaves the last key it agreed with. */
static size_t
tui_trust_differs(const char *heard, const char *fprs[2], size_t n)
{
	size_t	k, i, most = 0;

	for (k = 0; k < n; k++) {
		for (i = 0; heard[i] != '\0' && fprs[k][i] != '\0'; i++) {
			if (toupper((unsigned char)heard[i]) != fprs[k][i])
				break;
		}
		if (i > most)
			most = i;
	}
	return most / 4 + 1;
}

static void
tui_trust_draw_verify(struct tui_trust *d)
{
	const char	*fprs[2], *names[2] = { "Pinned key", "New key" };
	char		 num[24], group[8], *text;
	size_t		 n, i, k, len, groups, hl = strlen(d->heard);
	int		 y = TUI_FIRST_ROW, last = TUI_FIRST_ROW + tui_rows() - 1;
	int		 x, attr, same;

	n = tui_trust_candidates(d, fprs);
	text = xasprintf(" Verify %s: compare the groups with what its owner "
	    "reads to you", d->peer.addr);
	tui_bar(y++, text, tui_attr(TC_BANNER_WARN));
	free(text);
	tui_putfill(y++, 0, COLS, "", tui_attr(TC_NORMAL));
	if (n == 0) {
		tui_putfill(y++, 0, COLS, " No key to compare.",
		    tui_attr(TC_NORMAL));
		for (; y <= last; y++)
			tui_putfill(y, 0, COLS, "", tui_attr(TC_NORMAL));
		return;
	}
	x = 5;
	tui_putfill(y, 0, COLS, "", tui_attr(TC_NORMAL));
	for (k = 0; k < n; k++)
		tui_put(y, x + 14 * (int)k, 14, names[n == 1 ? 0 : k],
		    tui_attr(TC_HEADER_NAME));
	tui_put(y++, x + 14 * (int)n, 14, "They read", tui_attr(TC_HEADER_NAME));
	len = strlen(fprs[0]);
	for (k = 1; k < n; k++) {
		if (strlen(fprs[k]) > len)
			len = strlen(fprs[k]);
	}
	groups = (len + 3) / 4;
	for (i = 0; i < groups && y <= last; i++, y++) {
		tui_putfill(y, 0, COLS, "", tui_attr(TC_NORMAL));
		snprintf(num, sizeof num, "%2zu", i + 1);
		tui_put(y, 1, 3, num, tui_attr(TC_NORMAL));
		for (k = 0; k < n; k++) {
			snprintf(group, sizeof group, "%.4s", i * 4 <
			    strlen(fprs[k]) ? fprs[k] + i * 4 : "");
			tui_put(y, x + 14 * (int)k, 14, group,
			    tui_attr(TC_HEADER));
		}
		if (i * 4 >= hl)
			continue;
		snprintf(group, sizeof group, "%.4s", d->heard + i * 4);
		same = strlen(group) < 4;
		for (k = 0; k < n; k++) {
			if (i * 4 < strlen(fprs[k]) &&
			    strncasecmp(group, fprs[k] + i * 4, 4) == 0)
				same = 1;
		}
		attr = tui_attr(same ? TC_IND_GOOD : TC_IND_BAD);
		tui_put(y, x + 14 * (int)n, 6, group, attr);
		if (!same)
			tui_put(y, x + 14 * (int)n + 6, 12, "differs", attr);
	}
	if (d->verifying == 2 && y + 1 <= last) {
		tui_putfill(y++, 0, COLS, "", tui_attr(TC_NORMAL));
		tui_putfill(y++, 0, COLS, " They do not match: nothing was "
		    "marked. v: compare again, q: back", tui_attr(TC_IND_BAD));
	}
	/* Drawn before a prompt too, over whatever was there. */
	for (; y <= last; y++)
		tui_putfill(y, 0, COLS, "", tui_attr(TC_NORMAL));
}

/* Mark fpr verified through the engine. */
static void
tui_trust_mark(struct tui_trust *d, const char *fpr)
{
	struct trust_store	*ts;
	char			*cause = NULL, *f = xstrdup(fpr), *g;

	d->verifying = 0;
	if ((ts = tui_account_trust(d->acct)) == NULL)
		tui_error("the trust store cannot be opened");
	else if (trust_store_verify(ts, d->addr, f, time(NULL), &cause) == -1) {
		tui_error("not marked: %s", cause);
		free(cause);
	} else {
		g = tui_trust_short(f);
		tui_message("verified: key %s is %s's", g, d->addr);
		free(g);
		tui_trust_generation++;
		tui_trust_load(d);
		tui_trust_lookup(d);
	}
	free(f);
}

/* Hex digits of line added to heard; -1 for anything else in it. */
static int
tui_trust_hear(struct tui_trust *d, const char *line)
{
	struct buf	b;
	const char	*p;

	buf_init(&b);
	buf_adds(&b, d->heard);
	for (p = line; *p != '\0'; p++) {
		if (*p == ' ' || *p == '-' || *p == ':')
			continue;
		if (!isxdigit((unsigned char)*p)) {
			buf_free(&b);
			return -1;
		}
		buf_addc(&b, (char)toupper((unsigned char)*p));
	}
	free(d->heard);
	d->heard = buf_take(&b);
	return 0;
}

static void
tui_trust_verify(struct tui_screen *s)
{
	struct tui_trust	*d = s->data;
	const char		*fprs[2], *match;
	char			*line, q[128];
	size_t			 n, k, agree, hl;

	if ((n = tui_trust_candidates(d, fprs)) == 0) {
		tui_message("no key to verify: nothing known of this address");
		return;
	}
	free(d->heard);
	d->heard = xstrdup("");
	d->verifying = 1;
	for (;;) {
		/* The prompt draws the message line only: the table first. */
		tui_trust_draw_verify(d);
		tui_dirty();
		hl = strlen(d->heard);
		if (hl == 0)
			snprintf(q, sizeof q, "Groups they read%s: ", n == 1 ?
			    " (y: all match)" : "");
		else
			snprintf(q, sizeof q, "Groups from %zu on: ",
			    hl / 4 + 1);
		if ((line = tui_prompt(q, NULL, 0, NULL, NULL)) == NULL) {
			d->verifying = 0;
			tui_message("nothing was marked");
			return;
		}
		if (hl == 0 && n == 1 && (strcasecmp(line, "y") == 0 ||
		    strcasecmp(line, "yes") == 0)) {
			free(line);
			tui_trust_mark(d, fprs[0]);
			return;
		}
		if (tui_trust_hear(d, line) == -1) {
			free(line);
			tui_error("only the digits 0-9 and letters A-F: type "
			    "the groups as they read them");
			continue;
		}
		free(line);
		match = NULL;
		for (k = agree = 0; k < n; k++) {
			if (!tui_trust_agrees(d->heard, fprs[k]))
				continue;
			agree++;
			if (strlen(d->heard) == strlen(fprs[k]))
				match = fprs[k];
		}
		if (agree == 0) {
			d->verifying = 2;
			tui_dirty();
			tui_error("group %zu differs: they do not match, nothing "
			    "was marked", tui_trust_differs(d->heard, fprs, n));
			return;
		}
		if (match != NULL) {
			tui_trust_mark(d, match);
			return;
		}
	}
}

/* ---- accept, reject a changed key ------------------------------------- */

static void
tui_trust_decide(struct tui_screen *s, int accept)
{
	struct tui_trust	*d = s->data;
	struct trust_peer_pin	*ch = tui_trust_open_change(d);
	struct trust_store	*ts;
	const struct trust_key	*old = NULL;
	char			*cause = NULL, *g, *fpr;
	size_t			 i;
	int			 r, strong = 0;

	if (ch == NULL) {
		tui_message("no new key to %s for %s", accept ? "accept" :
		    "reject", d->addr);
		return;
	}
	for (i = 0; i < d->peer.nkeys; i++) {
		if (d->peer.keys[i].pinned &&
		    strcasecmp(d->peer.keys[i].proto, ch->proto) == 0)
			old = &d->peer.keys[i];
	}
	if (old != NULL && (strcmp(old->decision, "verified") == 0 ||
	    old->dns_confirmed != 0))
		strong = 1;
	g = tui_trust_short(ch->v.other);
	if (accept && strong)
		r = tui_yesno("Replace a verified or DNSSEC-confirmed key with "
		    "%s for %s?", g, d->addr);
	else if (accept)
		r = tui_yesno("Accept key %s for %s and encrypt to it?", g,
		    d->addr);
	else
		r = tui_yesno("Reject key %s for %s?", g, d->addr);
	if (!r) {
		tui_message("nothing was changed");
		free(g);
		return;
	}
	fpr = xstrdup(ch->v.other);
	if ((ts = tui_account_trust(d->acct)) == NULL) {
		tui_error("the trust store cannot be opened");
		free(fpr);
		free(g);
		return;
	}
	if (accept)
		r = trust_store_accept(ts, d->addr, fpr, time(NULL), &cause);
	else
		r = trust_store_reject(ts, d->addr, fpr, time(NULL), &cause);
	if (r == -1) {
		tui_error("not %s: %s", accept ? "accepted" : "rejected", cause);
		free(cause);
	} else {
		tui_message("%s key %s", accept ? "accepted" : "rejected", g);
		tui_trust_generation++;
		tui_trust_load(d);
		tui_trust_lookup(d);
	}
	free(fpr);
	free(g);
}

/* ---- the key screen ---------------------------------------------------- */

static void
tui_trust_draw(struct tui_screen *s)
{
	struct tui_trust	*d = s->data;
	struct tui_trust_lines	 l = { NULL, 0, TUI_TRUST_LABEL };
	const struct tui_trust_line *ln;
	char			*banner;
	size_t			 i, page;
	int			 y, rows = tui_rows();

	if (d->verifying) {
		tui_trust_draw_verify(d);
		return;
	}
	banner = tui_trust_banner(d);
	tui_bar(TUI_FIRST_ROW, banner, d->error != NULL ?
	    tui_attr(TC_BANNER_BAD) :
	    tui_tone_banner(verdict_trust(d->peer.shown)->tone));
	free(banner);
	tui_trust_build(d, &l);
	d->nlines = l.n;
	page = rows > 1 ? (size_t)rows - 1 : 1;
	if (d->top + page > l.n)
		d->top = l.n > page ? l.n - page : 0;
	y = TUI_FIRST_ROW + 1;
	for (i = d->top; y < TUI_FIRST_ROW + rows; i++, y++) {
		tui_putfill(y, 0, COLS, "", tui_attr(TC_NORMAL));
		if (i >= l.n)
			continue;
		ln = &l.v[i];
		if (ln->label != NULL)
			tui_put(y, 1, TUI_TRUST_LABEL - 1, ln->label,
			    tui_attr(TC_HEADER_NAME));
		tui_put(y, ln->x, COLS - ln->x, ln->text, ln->attr);
	}
	tui_trust_lines_free(&l);
}

static void
tui_trust_scroll(struct tui_trust *d, long by)
{
	long	top = (long)d->top + by;

	if (top < 0)
		top = 0;
	if (d->nlines > 0 && (size_t)top >= d->nlines)
		top = (long)d->nlines - 1;
	d->top = (size_t)top;
	tui_dirty();
}

static int
tui_trust_action(struct tui_screen *s, enum tui_action a, int key)
{
	struct tui_trust	*d = s->data;
	long			 page = tui_rows() > 2 ? tui_rows() - 2 : 1;

	(void)key;
	if (d->verifying == 2 && (a == TA_BACK || a == TA_QUIT)) {
		d->verifying = 0;
		tui_dirty();
		return 1;
	}
	switch (a) {
	case TA_VERIFY:
		tui_trust_verify(s);
		return 1;
	case TA_ACCEPT:
		tui_trust_decide(s, 1);
		return 1;
	case TA_REJECT:
		tui_trust_decide(s, 0);
		return 1;
	case TA_UP:
	case TA_LINE_UP:
		tui_trust_scroll(d, -1);
		return 1;
	case TA_DOWN:
	case TA_LINE_DOWN:
		tui_trust_scroll(d, 1);
		return 1;
	case TA_PAGE_UP:
		tui_trust_scroll(d, -page);
		return 1;
	case TA_PAGE_DOWN:
		tui_trust_scroll(d, page);
		return 1;
	case TA_HALF_UP:
		tui_trust_scroll(d, -page / 2);
		return 1;
	case TA_HALF_DOWN:
		tui_trust_scroll(d, page / 2);
		return 1;
	case TA_TOP:
		d->top = 0;
		tui_dirty();
		return 1;
	case TA_BOTTOM:
		tui_trust_scroll(d, (long)d->nlines);
		return 1;
	default:
		return 0;
	}
}

static void
tui_trust_event(struct tui_screen *s, struct tui_event *ev)
{
	struct tui_trust	*d = s->data;

	if (ev->kind != TE_DONE || ev->acct != d->acct || ev->job != d->job ||
	    d->call == NULL)
		return;
	free(d->enc);
	tui_trust_call_drop(d->call, &d->enc);
	d->call = NULL;
	if (ev->result != IMAP_OPS_OK || d->enc == NULL) {
		free(d->enc);
		d->enc = xasprintf("cannot tell: %s", ev->cause != NULL ?
		    ev->cause : "the lookup failed");
	}
	tui_dirty();
}

static void
tui_trust_status(struct tui_screen *s, struct buf *b)
{
	(void)s;
	/* The default keys; ? lists the bindings in use. */
	buf_adds(b, "Key  v:verify  a:accept  x:reject  q:back");
}

static void
tui_trust_free(struct tui_screen *s)
{
	struct tui_trust	*d = s->data;

	if (d->call != NULL)
		tui_trust_call_drop(d->call, NULL);
	trust_peer_free(&d->peer);
	trust_dns_free(&d->dns);
	free(d->addr);
	free(d->title);
	free(d->error);
	free(d->enc);
	free(d->heard);
	free(d);
	free(s);
}

struct tui_screen *
tui_trust_new(struct tui_account *acct, const char *addr)
{
	struct tui_screen	*s;
	struct tui_trust	*d;

	if (addr == NULL || *addr == '\0') {
		tui_message("no sender address: no key to show");
		return NULL;
	}
	d = xcalloc(1, sizeof *d);
	d->acct = acct;
	d->addr = xstrdup(addr);
	d->heard = xstrdup("");
	d->title = xasprintf("Key of %s", addr);
	s = xcalloc(1, sizeof *s);
	s->title = d->title;
	s->map = TM_TRUST;
	s->draw = tui_trust_draw;
	s->action = tui_trust_action;
	s->event = tui_trust_event;
	s->status = tui_trust_status;
	s->free = tui_trust_free;
	s->data = d;
	tui_trust_load(d);
	tui_trust_lookup(d);
	return s;
}

/* ---- the list ---------------------------------------------------------- */

static void
tui_trust_list_clear(struct tui_trust_list *d)
{
	size_t	i;

	for (i = 0; i < d->n; i++) {
		free(d->rows[i].addr);
		free(d->rows[i].fpr);
	}
	free(d->rows);
	d->rows = NULL;
	d->n = 0;
	free(d->error);
	d->error = NULL;
}

static int
tui_trust_addr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The addresses the store has no key for but whose DNS answer was bogus
 * (met by a sync's lookup of a sender): they are listed too, marked.
 */
static void
tui_trust_list_add_bogus(struct trust_store *ts, char ***addrs, size_t *n)
{
	char	**v, *cause = NULL;
	size_t	  nv, i, j;

	if (trust_store_dns_bogus_list(ts, &v, &nv, &cause) == -1) {
		free(cause);
		return;
	}
	for (i = 0; i < nv; i++) {
		for (j = 0; j < *n; j++)
			if (strcmp((*addrs)[j], v[i]) == 0)
				break;
		if (j < *n) {
			free(v[i]);
			continue;
		}
		*addrs = xreallocarray(*addrs, *n + 1, sizeof **addrs);
		(*addrs)[(*n)++] = v[i];
	}
	free(v);
	if (*n > 1)
		qsort(*addrs, *n, sizeof **addrs, tui_trust_addr_cmp);
}

static void
tui_trust_list_load(struct tui_trust_list *d)
{
	struct trust_store	 *ts;
	struct trust_peer	  p;
	struct tui_trust_row	 *r;
	char			**addrs, *cause = NULL;
	size_t			  n, i, k;

	tui_trust_list_clear(d);
	d->generation = tui_trust_generation;
	if ((ts = tui_account_trust(d->acct)) == NULL) {
		d->error = xstrdup("the trust store cannot be opened");
		return;
	}
	if (trust_store_list(ts, &addrs, &n, &cause) == -1) {
		d->error = cause;
		return;
	}
	tui_trust_list_add_bogus(ts, &addrs, &n);
	d->rows = xcalloc(n > 0 ? n : 1, sizeof *d->rows);
	for (i = 0; i < n; i++) {
		r = &d->rows[d->n++];
		r->addr = addrs[i];
		r->state = TRUST_NONE;
		if (trust_store_peer(ts, addrs[i], &p, &cause) == -1) {
			free(cause);
			cause = NULL;
			continue;
		}
		r->state = p.shown;
		r->fpr = p.pinned != NULL ? xstrdup(p.pinned) : NULL;
		{
			struct trust_dns	td;

			if (trust_store_dns(ts, addrs[i], &td, &cause) == 0)
				r->bogus = td.bogus != 0;
			else {
				free(cause);
				cause = NULL;
			}
			trust_dns_free(&td);
		}
		for (k = 0; k < p.nkeys; k++) {
			if (p.keys[k].last_seen > r->last)
				r->last = p.keys[k].last_seen;
		}
		trust_peer_free(&p);
	}
	free(addrs);
	if (d->cur >= d->n)
		d->cur = d->n > 0 ? d->n - 1 : 0;
}

static void
tui_trust_list_draw(struct tui_screen *s)
{
	struct tui_trust_list	*d = s->data;
	struct tui_trust_row	*r;
	const struct verdict_word *vw;
	char			*fp;
	size_t			 i;
	int			 y, rows = tui_rows() - 1, aw, x, attr;

	if (d->generation != tui_trust_generation)
		tui_trust_list_load(d);
	aw = COLS - 59;
	if (aw < 12)
		aw = 12;
	x = aw + 1;
	tui_putfill(TUI_FIRST_ROW, 0, COLS, "", tui_attr(TC_HEADER_NAME));
	tui_put(TUI_FIRST_ROW, 1, aw - 1, "Address", tui_attr(TC_HEADER_NAME));
	tui_put(TUI_FIRST_ROW, x + 4, 23, "State", tui_attr(TC_HEADER_NAME));
	tui_put(TUI_FIRST_ROW, x + 28, 19, "Key (last digits)",
	    tui_attr(TC_HEADER_NAME));
	tui_put(TUI_FIRST_ROW, x + 48, 10, "Last seen",
	    tui_attr(TC_HEADER_NAME));
	if (rows < 1)
		rows = 1;
	if (d->cur < d->top)
		d->top = d->cur;
	if (d->cur >= d->top + (size_t)rows)
		d->top = d->cur - rows + 1;
	for (y = TUI_FIRST_ROW + 1, i = d->top; y < TUI_FIRST_ROW + 1 + rows;
	    y++, i++) {
		if (i >= d->n) {
			tui_putfill(y, 0, COLS, i == 0 && y == TUI_FIRST_ROW +
			    1 ? (d->error != NULL ? d->error : " Nobody yet: "
			    "keys come with signed mail and Autocrypt headers") :
			    "", tui_attr(d->error != NULL ? TC_ERROR :
			    TC_NORMAL));
			continue;
		}
		r = &d->rows[i];
		attr = tui_attr(i == d->cur ? TC_SELECTED : TC_NORMAL);
		tui_putfill(y, 0, COLS, "", attr);
		tui_put(y, 1, aw - 1, r->addr, attr);
		/* a bogus DNS answer outweighs the rest, as in the index */
		vw = r->bogus ? verdict_dns_bogus() : verdict_trust(r->state);
		tui_put(y, x, 3, tui_verdict_glyph(vw), i == d->cur ? attr :
		    tui_verdict_attr(vw));
		tui_put(y, x + 4, 23, vw->word, attr);
		fp = tui_trust_short(r->fpr);
		tui_put(y, x + 28, 19, fp, attr);
		free(fp);
		tui_put(y, x + 48, 10, r->last != 0 ? trust_date(r->last) : "",
		    attr);
	}
}

/* The next row (from cur, dir 1 or -1, wrapping) matching the search. */
static int
tui_trust_list_find(struct tui_trust_list *d, int dir)
{
	struct tui_trust_row	*r;
	size_t			 i, k;

	if (d->search == NULL || d->n == 0)
		return -1;
	for (k = 1; k <= d->n; k++) {
		i = (d->cur + (dir > 0 ? k : d->n - k)) % d->n;
		r = &d->rows[i];
		if (strcasestr(r->addr, d->search) != NULL ||
		    (r->fpr != NULL && strcasestr(r->fpr, d->search) != NULL) ||
		    strcasestr(tui_trust_word(r->state), d->search) != NULL) {
			d->cur = i;
			tui_dirty();
			return 0;
		}
	}
	tui_message("not found: %s", d->search);
	return -1;
}

static void
tui_trust_list_move(struct tui_trust_list *d, long by)
{
	long	cur = (long)d->cur + by;

	if (cur >= (long)d->n)
		cur = (long)d->n - 1;
	if (cur < 0)
		cur = 0;
	d->cur = (size_t)cur;
	tui_dirty();
}

static int
tui_trust_list_action(struct tui_screen *s, enum tui_action a, int key)
{
	struct tui_trust_list	*d = s->data;
	long			 page = tui_rows() > 2 ? tui_rows() - 1 : 1;
	char			*line;

	(void)key;
	switch (a) {
	case TA_UP:
		tui_trust_list_move(d, -1);
		return 1;
	case TA_DOWN:
		tui_trust_list_move(d, 1);
		return 1;
	case TA_PAGE_UP:
		tui_trust_list_move(d, -page);
		return 1;
	case TA_PAGE_DOWN:
		tui_trust_list_move(d, page);
		return 1;
	case TA_HALF_UP:
		tui_trust_list_move(d, -page / 2);
		return 1;
	case TA_HALF_DOWN:
		tui_trust_list_move(d, page / 2);
		return 1;
	case TA_TOP:
		tui_trust_list_move(d, -(long)d->n);
		return 1;
	case TA_BOTTOM:
		tui_trust_list_move(d, (long)d->n);
		return 1;
	case TA_SEARCH:
		if ((line = tui_prompt("Search: ", d->search, 0, NULL,
		    NULL)) == NULL)
			return 1;
		free(d->search);
		d->search = line;
		if (*line == '\0') {
			free(d->search);
			d->search = NULL;
			return 1;
		}
		tui_trust_list_find(d, 1);
		return 1;
	case TA_SEARCH_NEXT:
		if (d->search == NULL)
			tui_message("no search yet: / to search");
		else
			tui_trust_list_find(d, 1);
		return 1;
	case TA_SEARCH_PREV:
		if (d->search != NULL)
			tui_trust_list_find(d, -1);
		return 1;
	case TA_SELECT:
	case TA_TRUST:
		if (d->n > 0)
			tui_push(tui_trust_new(d->acct, d->rows[d->cur].addr));
		return 1;
	default:
		return 0;
	}
}

static void
tui_trust_list_status(struct tui_screen *s, struct buf *b)
{
	struct tui_trust_list	*d = s->data;

	buf_addf(b, "Correspondents: %zu", d->n);
}

static void
tui_trust_list_free(struct tui_screen *s)
{
	struct tui_trust_list	*d = s->data;

	tui_trust_list_clear(d);
	free(d->search);
	free(d);
	free(s);
}

struct tui_screen *
tui_trust_list_new(struct tui_account *acct)
{
	struct tui_screen	*s;
	struct tui_trust_list	*d;

	d = xcalloc(1, sizeof *d);
	d->acct = acct;
	s = xcalloc(1, sizeof *s);
	s->title = "Correspondents' keys";
	s->map = TM_TRUST;
	s->draw = tui_trust_list_draw;
	s->action = tui_trust_list_action;
	s->status = tui_trust_list_status;
	s->free = tui_trust_list_free;
	s->data = d;
	tui_trust_list_load(d);
	return s;
}
