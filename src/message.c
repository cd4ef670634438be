/*
 * message.c: a message opened into the model of message.h. It owns the
 * order of the steps (parse, verdicts with Autocrypt, trust record,
 * display model) and the message-level lines above the body (security,
 * trust, notes); the verdicts are crypto-in's, the trust rules
 * trust-msg.c's and the trust store's, the layout view.c's. Callers:
 * ui/cli-view.c, ui/cli-inspect.c, later the pager and sync's trust step.
 * It never prints: what it has to say is in the model.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "crypto-in.h"
#include "message.h"
#include "mime-parse.h"
#include "trust-msg.h"
#include "trust-store.h"
#include "xmalloc.h"

static void
message_note(struct message *m, enum message_note_kind kind, char *text)
{
	m->notes = xreallocarray(m->notes, m->nnotes + 1, sizeof *m->notes);
	m->notes[m->nnotes].kind = kind;
	m->notes[m->nnotes++].text = text;
}

static enum message_protection
message_protection(const struct crypto_in *ci, const struct mime_part *p)
{
	int	sig, enc, weak;

	crypto_in_coverage(ci, p, &sig, &enc, &weak);
	if (sig && enc)
		return MESSAGE_SIGNED_ENCRYPTED;
	if (sig)
		return MESSAGE_SIGNED;
	if (enc)
		return MESSAGE_ENCRYPTED;
	return weak ? MESSAGE_UNPROTECTED : MESSAGE_CLEAR;
}

/*
 * The parts of the tree at r in the order the view shows them: content
 * shown in place of a part comes right after it, and the part's own
 * children (the ciphertext) are left out.
 */
static void
message_parts(struct message *m, struct mime_part *r, int depth, int inner)
{
	const struct crypto_in_part	*e;
	struct message_part		*mp;
	struct mime_part		*p, *skip = NULL;
	size_t				 i;

	for (p = r; p != NULL; p = mime_part_next(p)) {
		if (skip != NULL) {
			if (p->depth > skip->depth)
				continue;
			skip = NULL;
		}
		for (e = NULL, i = 0; i < m->ci->nparts; i++) {
			if (m->ci->parts[i].part == p)
				e = &m->ci->parts[i];
		}
		m->parts = xreallocarray(m->parts, m->nparts + 1,
		    sizeof *m->parts);
		mp = &m->parts[m->nparts++];
		mp->part = p;
		mp->name = crypto_in_name(m->ci, p);
		mp->depth = depth + p->depth - r->depth;
		mp->inner = inner;
		mp->protection = message_protection(m->ci, p);
		mp->status = e != NULL ? e->status : NULL;
		if (e != NULL && e->inner != NULL) {
			message_parts(m, e->inner->root, mp->depth + 1, 1);
			skip = p;
		}
	}
}

struct message *
message_open(char *raw, size_t len, struct trust_store *ts, int flags,
    char **cause)
{
	struct message	*m;
	struct mime_msg	*mm;
	char		*why = NULL;
	size_t		 i;

	if ((mm = mime_parse(raw, len, cause)) == NULL)
		return NULL;
	m = xcalloc(1, sizeof *m);
	m->mime = mm;
	m->ci = crypto_in_analyse_import(mm);
	message_parts(m, mm->root, 0, 0);
	if (m->ci->protected != NULL)
		message_note(m, MESSAGE_NOTE_INFO, xstrdup("protected headers "
		    "used: the headers above come from inside the message"));
	for (i = 0; i < m->ci->nwarnings; i++)
		message_note(m, MESSAGE_NOTE_WARNING,
		    xstrdup(m->ci->warnings[i]));
	if (!(flags & MESSAGE_NO_TRUST) &&
	    message_trust(m, ts, time(NULL), &why) == -1)
		free(why);	/* kept as the verdict's evidence */
	return m;
}

/*
 * The evidence says so when the sender's last DNS answer was bogus (the
 * trust step of a sync recorded it): the pager shows it with the verdict.
 */
static void
message_dns_bogus(struct message *m, struct trust_store *ts)
{
	struct trust_dns	 d;
	char			*cause = NULL, *e;

	if (m->ci->from == NULL)
		return;
	if (trust_store_dns(ts, m->ci->from, &d, &cause) == -1) {
		free(cause);
		return;
	}
	m->dns_bogus = d.bogus;
	if (d.bogus != 0) {
		e = xasprintf("%s%sthe last DNS answer for the sender's key "
		    "was bogus (%s, %s)", m->trust.evidence != NULL ?
		    m->trust.evidence : "", m->trust.evidence != NULL ?
		    "; " : "", trust_date(d.bogus), d.owner != NULL ?
		    d.owner : "?");
		free(m->trust.evidence);
		m->trust.evidence = e;
	}
	trust_dns_free(&d);
}

int
message_trust(struct message *m, struct trust_store *ts, time_t now,
    char **cause)
{
	struct trust_store	*own = NULL;

	trust_verdict_free(&m->trust);
	memset(&m->trust, 0, sizeof m->trust);
	m->have_trust = 0;
	if (ts == NULL && (ts = own = trust_store_open(NULL, cause)) == NULL)
		goto fail;
	if (trust_msg_record(ts, m->ci, now, &m->trust, cause) == -1)
		goto fail;
	message_dns_bogus(m, ts);
	trust_store_close(own);
	m->have_trust = 1;
	return 0;

fail:
	trust_store_close(own);
	trust_verdict_free(&m->trust);
	memset(&m->trust, 0, sizeof m->trust);
	m->trust.state = TRUST_NONE;
	m->trust.evidence = xstrdup(*cause);
	return -1;
}

/* The lines above the body: what is known of the whole message. */
static void
message_top(struct message *m, struct view_note **notes, size_t *n)
{
	const struct crypto_in	*ci = m->ci;
	const struct trust_verdict *tv = &m->trust;
	struct view_note	*v;
	size_t			 i;

	*notes = v = xcalloc(2 + m->nnotes, sizeof *v);
	*n = 0;
	v[*n].role = VIEW_BANNER;
	v[(*n)++].text = ci->encryption == CRYPTO_IN_NONE && ci->nsigs == 0 &&
	    ci->nparts == 0 ? xstrdup("security: not signed, not encrypted") :
	    xasprintf("security: %s", ci->summary);
	if (m->have_trust) {
		v[*n].role = VIEW_BANNER;
		v[(*n)++].text = xasprintf("trust: %s%s%s%s",
		    trust_state_name(tv->state), tv->fpr != NULL ? ", key " :
		    "", tv->fpr != NULL ? tv->fpr : "",
		    tv->state == TRUST_KEY_CHANGED ||
		    tv->state == TRUST_CONFLICT ? " -- WARNING: not the key "
		    "known for this sender" : "");
	}
	for (i = 0; i < m->nnotes; i++) {
		v[*n].role = VIEW_NOTE;
		v[(*n)++].text = m->notes[i].kind == MESSAGE_NOTE_WARNING ?
		    xasprintf("warning: %s", m->notes[i].text) :
		    xstrdup(m->notes[i].text);
	}
}

const struct view_lines *
message_lines(struct message *m)
{
	struct view_hooks	 h;
	struct view_note	*notes;
	size_t			 i, n;

	if (m->have_lines)
		return &m->lines;
	message_top(m, &notes, &n);
	memset(&h, 0, sizeof h);
	h.status = crypto_in_view_status;
	h.inner = crypto_in_view_inner;
	h.headers = m->ci->protected;
	h.headers_part = m->ci->protected_part;
	h.notes = notes;
	h.nnotes = n;
	h.arg = m->ci;
	view_lines(m->mime, &h, &m->lines);
	for (i = 0; i < n; i++)
		free((char *)notes[i].text);
	free(notes);
	m->have_lines = 1;
	return &m->lines;
}

/* ---- the brief model and its security line ------------------------------ */

/* The signature that speaks for the message, as crypto_in_verdict() chose. */
static const struct crypto_in_sig *
message_root_sig(const struct crypto_in *ci)
{
	const struct crypto_in_sig	*s, *root = NULL;
	size_t				 i;

	for (i = 0; i < ci->nsigs; i++) {
		s = &ci->sigs[i];
		if (strcmp(s->name, "root") != 0)
			continue;
		if (root == NULL || (s->status == CRYPTO_IN_GOOD &&
		    (root->status != CRYPTO_IN_GOOD ||
		    (s->matches_from && !root->matches_from))))
			root = s;
	}
	return root;
}

/* A revoked or expired key's signature by the sender: signed, by a key
 * the trust state speaks for. */
static int
message_sig_old_key(const struct crypto_in_sig *s)
{
	return s != NULL && (s->status == CRYPTO_IN_REVOKED ||
	    (s->status == CRYPTO_IN_EXPIRED && s->key_expired));
}

enum verdict_protection
message_verdict(const struct message *m)
{
	const struct crypto_in		*ci = m->ci;
	const struct crypto_in_sig	*root = message_root_sig(ci);
	const char			*st = ci->signed_state;
	int				 enc = ci->encryption != CRYPTO_IN_NONE;

	if (enc && !ci->decrypted)
		return VERDICT_NOT_DECRYPTED;
	if (st == NULL)
		st = "no";
	if (strcmp(st, "yes") == 0 || (strcmp(st, "invalid") == 0 &&
	    message_sig_old_key(root)))
		return enc ? VERDICT_SIGNED_ENCRYPTED : VERDICT_SIGNED;
	if (strcmp(st, "someone-else") == 0)
		return VERDICT_SIG_OTHER;
	if (strcmp(st, "invalid") == 0 && root != NULL &&
	    root->status == CRYPTO_IN_BAD)
		return VERDICT_SIG_BAD;
	if (strcmp(st, "invalid") == 0 || strcmp(st, "unverified") == 0)
		return VERDICT_UNCHECKED;
	if (enc && (ci->integrity == CRYPTO_IN_INTEGRITY_NONE ||
	    ci->integrity == CRYPTO_IN_INTEGRITY_FAILED))
		return VERDICT_NO_INTEGRITY;
	if (strcmp(st, "partly") == 0)
		return VERDICT_PARTLY;
	return enc ? VERDICT_ENCRYPTED : VERDICT_CLEAR;
}

/* The protection of what is shown for part i: its inner content's, if
 * content is shown in its place. */
static enum message_protection
message_shown_protection(const struct message *m, size_t i)
{
	if (i + 1 < m->nparts && m->parts[i + 1].depth > m->parts[i].depth &&
	    m->parts[i + 1].inner > m->parts[i].inner)
		return m->parts[i + 1].protection;
	return m->parts[i].protection;
}

/* Does any part shown differ in protection from the message as a whole? */
static int
message_differs(const struct message *m)
{
	enum message_protection	 base;
	size_t			 i;

	if (m->nparts == 0)
		return 0;
	base = message_shown_protection(m, 0);
	for (i = 1; i < m->nparts; i++) {
		if (m->parts[i].status != NULL &&
		    message_shown_protection(m, i) != base)
			return 1;
	}
	return 0;
}

/*
 * Does each part say what covers it? When parts differ, and when a
 * signature does not count (not checked, bad, someone else's): which
 * parts it was meant to cover is the message's claim, not a finding.
 */
static int
message_mixed(const struct message *m)
{
	switch (message_verdict(m)) {
	case VERDICT_UNCHECKED:
	case VERDICT_SIG_BAD:
	case VERDICT_SIG_OTHER:
	case VERDICT_PARTLY:
		return 1;
	default:
		return message_differs(m);
	}
}

static const char *
message_domain(const char *addr)
{
	const char	*at;

	return addr != NULL && (at = strrchr(addr, '@')) != NULL ? at + 1 :
	    "the sender's domain";
}

/* The warning line a sender's state calls for, or NULL. */
static char *
message_trust_warning(enum trust_state s)
{
	switch (s) {
	case TRUST_KEY_CHANGED:
		return xstrdup("warning: not the key known for this sender: "
		    "compare before you trust it");
	case TRUST_CONFLICT:
		return xstrdup("warning: DNSSEC names another key for this "
		    "sender: compare before you trust it");
	case TRUST_REVOKED:
		return xstrdup("warning: the sender's key was revoked: the "
		    "message may not be theirs");
	default:
		return NULL;
	}
}

char *
message_security(const struct message *m, enum verdict_tone *tone,
    char **warning)
{
	const struct crypto_in		*ci = m->ci;
	const struct crypto_in_sig	*root = message_root_sig(ci);
	enum verdict_protection		 v = message_verdict(m);
	const struct verdict_word	*w = verdict_protection(v), *tw;
	struct buf			 b;
	int				 enc = ci->encryption != CRYPTO_IN_NONE;
	int				 key = 0;

	*tone = w->tone;
	*warning = NULL;
	buf_init(&b);
	if (v == VERDICT_NOT_DECRYPTED)
		buf_addf(&b, "encrypted, not decrypted: %s", ci->not_decrypted !=
		    NULL ? ci->not_decrypted : "the reason is not known");
	else if (v == VERDICT_NO_INTEGRITY)
		buf_adds(&b, w->word);
	else if (enc)
		buf_adds(&b, "encrypted");
	switch (v) {
	case VERDICT_SIGNED:
	case VERDICT_SIGNED_ENCRYPTED:
		buf_addf(&b, "%ssigned by %s", b.len > 0 ? ", " : "",
		    ci->from != NULL ? ci->from : "the sender");
		key = 1;
		break;
	case VERDICT_SIG_OTHER:
		buf_addf(&b, "%ssigned by someone else (%s), not by the sender",
		    b.len > 0 ? ", " : "", root != NULL && root->signer !=
		    NULL ? root->signer : "no address");
		*warning = xstrdup("warning: the signature is not the "
		    "sender's: it says nothing about who wrote the message");
		break;
	case VERDICT_SIG_BAD:
		buf_addf(&b, "%s%s", b.len > 0 ? ", " : "", w->word);
		*warning = xasprintf("warning: %s", w->explain);
		break;
	case VERDICT_UNCHECKED:
		buf_addf(&b, "%ssigned, not checked: %s", b.len > 0 ? ", " :
		    "", root != NULL && root->status == CRYPTO_IN_UNKNOWN_KEY ?
		    "the key is not known yet" : root != NULL &&
		    root->reason != NULL ? root->reason : "it could not be "
		    "checked");
		break;
	case VERDICT_PARTLY:
		buf_addf(&b, "%spartly signed: %s", b.len > 0 ? ", " : "",
		    ci->summary);
		break;
	case VERDICT_CLEAR:
		buf_adds(&b, w->word);
		break;
	case VERDICT_ENCRYPTED:
		buf_adds(&b, ", not signed");
		break;
	default:
		break;
	}
	if (key && m->have_trust) {
		tw = verdict_trust(m->trust.state);
		buf_addf(&b, "; %s", tw->word);
		if (tw->tone > *tone)
			*tone = tw->tone;
		if (*warning == NULL)
			*warning = message_trust_warning(m->trust.state);
	}
	if (m->dns_bogus != 0) {
		buf_addf(&b, "; %s for %s", verdict_dns_bogus()->word,
		    message_domain(ci->from));
		*tone = VERDICT_BAD;
	}
	if (*warning == NULL && v == VERDICT_NO_INTEGRITY)
		*warning = xasprintf("warning: %s", w->explain);
	if (*warning == NULL && message_differs(m))
		*warning = xstrdup("warning: not every part of this message "
		    "is protected alike: each part that differs is marked "
		    "below");
	if (*warning == NULL && ci->nwarnings > 0)
		*warning = xasprintf("warning: %s%s", ci->warnings[0],
		    ci->nwarnings > 1 ? " (more in the details)" : "");
	if (*warning != NULL && *tone < VERDICT_WARN)
		*tone = VERDICT_WARN;
	return buf_take(&b);
}

/* A part's line in the brief model: only where it differs. */
static char *
message_brief_status(const struct mime_part *p, void *arg)
{
	const struct message	*m = arg;
	enum message_protection	 base;
	size_t			 i;

	if (m->nparts == 0)
		return NULL;
	if (message_mixed(m))
		return crypto_in_view_status(p, m->ci);
	base = message_shown_protection(m, 0);
	for (i = 0; i < m->nparts; i++) {
		if (m->parts[i].part != p || m->parts[i].status == NULL)
			continue;
		if (message_shown_protection(m, i) == base)
			return NULL;
		return crypto_in_view_status(p, m->ci);
	}
	return NULL;
}

static struct mime_part *
message_brief_inner(const struct mime_part *p, void *arg)
{
	const struct message	*m = arg;

	return crypto_in_view_inner(p, m->ci);
}

const struct view_lines *
message_brief(struct message *m)
{
	struct view_hooks	 h;
	struct view_note	 notes[2];
	enum verdict_tone	 tone;
	char			*line, *warning;

	if (m->have_brief)
		return &m->brief;
	line = message_security(m, &tone, &warning);
	notes[0].role = VIEW_BANNER;
	notes[0].text = line;
	notes[1].role = VIEW_NOTE;
	notes[1].text = warning;
	memset(&h, 0, sizeof h);
	h.status = message_brief_status;
	h.inner = message_brief_inner;
	/* Parts protected unlike the rest: each is marked, and every
	 * boundary drawn, as in the details. */
	h.brief = !message_mixed(m);
	h.headers = m->ci->protected;
	h.headers_part = m->ci->protected_part;
	h.notes = notes;
	h.nnotes = warning != NULL ? 2 : 1;
	h.brief = 1;
	h.arg = m;
	view_lines(m->mime, &h, &m->brief);
	free(line);
	free(warning);
	m->have_brief = 1;
	return &m->brief;
}

void
message_render(struct message *m, struct buf *out)
{
	view_lines_render(message_lines(m), out);
}

void
message_free(struct message *m)
{
	size_t	i;

	if (m == NULL)
		return;
	view_lines_free(&m->lines);
	view_lines_free(&m->brief);
	for (i = 0; i < m->nnotes; i++)
		free(m->notes[i].text);
	free(m->notes);
	for (i = 0; i < m->nparts; i++)
		free(m->parts[i].name);
	free(m->parts);
	trust_verdict_free(&m->trust);
	crypto_in_free(m->ci);
	mime_msg_free(m->mime);
	free(m);
}

const char *
message_protection_name(enum message_protection p)
{
	switch (p) {
	case MESSAGE_UNPROTECTED:	return "unprotected";
	case MESSAGE_SIGNED:		return "signed";
	case MESSAGE_ENCRYPTED:		return "encrypted";
	case MESSAGE_SIGNED_ENCRYPTED:	return "signed-encrypted";
	default:			return "clear";
	}
}
