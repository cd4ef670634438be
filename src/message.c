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
