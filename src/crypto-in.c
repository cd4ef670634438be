/*
 * crypto-in.c: the analysis of crypto-in.h: it walks the message, keeps
 * the table of what is known per part, and names the parts. The work is
 * done by its family: crypto-in-decrypt.c (encrypted parts),
 * crypto-in-sig.c (signatures), crypto-in-inline.c (inline OpenPGP),
 * crypto-in-headers.c (protected headers, Autocrypt), crypto-in-text.c
 * (the wording of the verdicts), crypto-in-gpg.c (gpgme glue); they share
 * crypto-in-int.h. Callers: message.c, sync-trust.c, ui/cli-send.c.
 *
 * Every verdict comes from gpgme's result structures: the status, summary
 * and validity of each signature, the key's user IDs looked up by its
 * fingerprint, the decryption result. Nothing in the message's text is
 * ever read as a verdict, and gpg's own messages are never looked at.
 *
 * Rules this file keeps (doc/crypto.md, "Incoming"):
 * - Only the top of a message is decrypted: its root, or what a signature
 *   at the root covers, or the root of content already decrypted.
 *   Ciphertext further down (quoted, forwarded, attached) stays closed,
 *   so a message cannot make steedmail decrypt someone else's old mail
 *   and show it as part of a new one.
 * - Decryption that fails for any reason yields no plaintext at all: gpg
 *   writes plaintext before it finds out that the integrity check failed,
 *   and that output is thrown away unread (EFAIL). OpenPGP without MDC is
 *   refused. S/MIME enveloped data has no integrity protection of its
 *   own; its content is shown only when a good signature covers all of it.
 * - A signature covers exactly the part it signs; the part's raw bytes,
 *   as they are in the message, with line ends made CRLF, are what is
 *   checked. A signature whose key has no user ID with the sender's
 *   address is "by someone else", whatever else it is.
 * - Plaintext is wiped when no longer needed and never logged.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpgme.h>

#include "addr-list.h"
#include "autocrypt-parse.h"
#include "buf.h"
#include "crypto.h"
#include "crypto-in-int.h"
#include "log.h"
#include "mime-body.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "xmalloc.h"

void
crypto_in_warn(struct crypto_in *ci, const char *fmt, ...)
{
	va_list	ap;

	ci->warnings = xreallocarray(ci->warnings, ci->nwarnings + 1,
	    sizeof *ci->warnings);
	va_start(ap, fmt);
	ci->warnings[ci->nwarnings++] = xvasprintf(fmt, ap);
	va_end(ap);
}

/* The entry for part p, made if missing. Pointers into ci->parts move. */
static struct crypto_in_part *
crypto_in_entry(struct crypto_in *ci, const struct mime_part *p)
{
	size_t	i;

	for (i = 0; i < ci->nparts; i++) {
		if (ci->parts[i].part == p)
			return &ci->parts[i];
	}
	ci->parts = xreallocarray(ci->parts, ci->nparts + 1,
	    sizeof *ci->parts);
	memset(&ci->parts[ci->nparts], 0, sizeof *ci->parts);
	ci->parts[ci->nparts].part = p;
	return &ci->parts[ci->nparts++];
}

struct crypto_in_part *
crypto_in_find(const struct crypto_in *ci, const struct mime_part *p)
{
	size_t	i;

	for (i = 0; i < ci->nparts; i++) {
		if (ci->parts[i].part == p)
			return &ci->parts[i];
	}
	return NULL;
}

/* Add a sentence to the status line of part p. */
void
crypto_in_status(struct crypto_in *ci, const struct mime_part *p,
    const char *fmt, ...)
{
	struct crypto_in_part	*e = crypto_in_entry(ci, p);
	va_list			 ap;
	char			*s, *t;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (e->status == NULL) {
		e->status = s;
		return;
	}
	t = xasprintf("%s; %s", e->status, s);
	free(e->status);
	free(s);
	e->status = t;
}

static const struct mime_part *
crypto_in_tree_root(const struct mime_part *p)
{
	while (p->parent != NULL)
		p = p->parent;
	return p;
}

/* The part whose content the tree of p is shown for, or NULL. */
static const struct mime_part *
crypto_in_host(const struct crypto_in *ci, const struct mime_part *p)
{
	const struct mime_part	*r = crypto_in_tree_root(p);
	size_t			 i;

	for (i = 0; i < ci->nparts; i++) {
		if (ci->parts[i].inner != NULL &&
		    ci->parts[i].inner->root == r)
			return ci->parts[i].part;
	}
	return NULL;
}

char *
crypto_in_name(const struct crypto_in *ci, const struct mime_part *p)
{
	const struct mime_part	*r = crypto_in_tree_root(p), *host;
	char			*hn, *s;

	host = crypto_in_host(ci, r);
	if (p == r)
		return host != NULL ? crypto_in_name(ci, host) :
		    xstrdup("root");
	if (host == NULL)
		return xstrdup(p->section);
	hn = crypto_in_name(ci, host);
	if (strcmp(hn, "root") == 0)
		s = xstrdup(p->section);
	else
		s = xasprintf("%s/%s", hn, p->section);
	free(hn);
	return s;
}

/* The parent of p, across the boundary of content shown for a part. */
const struct mime_part *
crypto_in_up(const struct crypto_in *ci, const struct mime_part *p)
{
	return p->parent != NULL ? p->parent : crypto_in_host(ci, p);
}

const char *
crypto_in_status_name(enum crypto_in_sigstatus s)
{
	switch (s) {
	case CRYPTO_IN_GOOD:		return "good";
	case CRYPTO_IN_BAD:		return "bad";
	case CRYPTO_IN_EXPIRED:		return "expired";
	case CRYPTO_IN_REVOKED:		return "revoked";
	case CRYPTO_IN_UNKNOWN_KEY:	return "unknown-key";
	default:			return "error";
	}
}

const char *
crypto_in_integrity_name(enum crypto_in_integrity i)
{
	switch (i) {
	case CRYPTO_IN_INTEGRITY_OK:		return "ok";
	case CRYPTO_IN_INTEGRITY_FAILED:	return "failed";
	case CRYPTO_IN_INTEGRITY_NONE:		return "none";
	case CRYPTO_IN_INTEGRITY_UNKNOWN:	return "unknown";
	default:				return "n/a";
	}
}

const char *
crypto_in_date(time_t t, char *buf, size_t len)
{
	struct tm	tm;

	if (t == 0 || gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d", &tm) == 0)
		snprintf(buf, len, "unknown");
	return buf;
}

const char *
crypto_in_proto_name(enum crypto_in_proto p)
{
	switch (p) {
	case CRYPTO_IN_OPENPGP:	return "openpgp";
	case CRYPTO_IN_SMIME:	return "smime";
	default:		return "none";
	}
}

/*
 * Parse content and keep it as shown in place of host. The parsed
 * message takes content's bytes over (no copy of the plaintext is made;
 * crypto_in_forget() wipes them), leaving content empty.
 */
struct mime_msg *
crypto_in_keep(struct crypto_in *ci, const struct mime_part *host,
    struct buf *content, int decrypted)
{
	struct mime_msg		*m;
	char			*cause = NULL;
	size_t			 len = content->len;

	if (len > MIME_MAX_SIZE)	/* refused: say why, keep nothing */
		m = mime_parse_copy("", len, &cause);
	else
		m = mime_parse(buf_take(content), len, &cause);
	if (m == NULL) {
		crypto_in_status(ci, host, "its content cannot be shown: %s",
		    cause);
		free(cause);
		return NULL;
	}
	crypto_in_keep_msg(ci, host, m, decrypted);
	return m;
}

/* Keep the parsed content m (now ci's) as shown in place of host. */
void
crypto_in_keep_msg(struct crypto_in *ci, const struct mime_part *host,
    struct mime_msg *m, int decrypted)
{
	struct crypto_in_part	*e = crypto_in_entry(ci, host);

	e->inner = m;
	e->decrypted = decrypted;
}

/* Take the content shown in place of host back from ci, or NULL. */
struct mime_msg *
crypto_in_unkeep(struct crypto_in *ci, const struct mime_part *host)
{
	struct crypto_in_part	*e = crypto_in_find(ci, host);
	struct mime_msg		*m;

	if (e == NULL)
		return NULL;
	m = e->inner;
	e->inner = NULL;
	return m;
}

/* Record what decrypting at the top came to; the worst result wins. */
void
crypto_in_top(struct crypto_in *ci, enum crypto_in_proto proto,
    enum crypto_in_integrity integ, const char *why)
{
	if (ci->encryption == CRYPTO_IN_NONE) {
		ci->encryption = proto;
		ci->integrity = integ;
		ci->decrypted = why == NULL;
	} else if (integ != CRYPTO_IN_INTEGRITY_OK) {
		if (ci->integrity == CRYPTO_IN_INTEGRITY_OK)
			ci->integrity = integ;
		ci->decrypted = 0;
	}
	if (why != NULL && ci->not_decrypted == NULL)
		ci->not_decrypted = xstrdup(why);
}

void
crypto_in_forget(struct crypto_in *ci, size_t nsigs, size_t nparts)
{
	size_t	i, j;

	for (i = nsigs; i < ci->nsigs; i++) {
		free(ci->sigs[i].name);
		free(ci->sigs[i].fpr);
		free(ci->sigs[i].signer);
		free(ci->sigs[i].from);
		free(ci->sigs[i].reason);
		for (j = 0; j < ci->sigs[i].nuids; j++)
			free(ci->sigs[i].uids[j]);
		free(ci->sigs[i].uids);
	}
	ci->nsigs = nsigs;
	for (i = nparts; i < ci->nparts; i++) {
		free(ci->parts[i].status);
		/* Decrypted or verified content: wiped, not only freed. */
		if (ci->parts[i].inner != NULL &&
		    ci->parts[i].inner->buf != NULL)
			explicit_bzero(ci->parts[i].inner->buf,
			    ci->parts[i].inner->len);
		mime_msg_free(ci->parts[i].inner);
	}
	ci->nparts = nparts;
}

/*
 * Walk part p. top: p is at the top of the message, where encrypted
 * content is opened.
 */
void
crypto_in_walk(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct mime_part	*c;

	if (depth > CRYPTO_IN_MAX_DEPTH) {
		if (mime_part_is(p, "multipart", "encrypted") ||
		    mime_part_is(p, "multipart", "signed") ||
		    mime_part_is(p, "application", "pkcs7-mime") ||
		    mime_part_is(p, "application", "x-pkcs7-mime"))
			crypto_in_status(ci, p, "not opened: more than %d "
			    "layers of encryption and signatures",
			    CRYPTO_IN_MAX_DEPTH);
		return;
	}
	if (mime_part_is(p, "multipart", "encrypted")) {
		crypto_in_pgpmime(ci, p, top, depth);
		return;
	}
	if (mime_part_is(p, "multipart", "signed")) {
		crypto_in_detached(ci, p, top, depth);
		return;
	}
	if (mime_part_is(p, "application", "pkcs7-mime") ||
	    mime_part_is(p, "application", "x-pkcs7-mime")) {
		crypto_in_pkcs7(ci, p, top, depth);
		return;
	}
	if (mime_part_is(p, "text", "plain") && p->nchildren == 0 &&
	    p->disposition != MIME_DISP_ATTACHMENT) {
		crypto_in_inline(ci, p, top && p->parent == NULL, depth);
		return;
	}
	TAILQ_FOREACH(c, &p->children, entry)
		crypto_in_walk(ci, c, 0, depth);
}

struct crypto_in *
crypto_in_analyse(struct mime_msg *m, int autocrypt)
{
	struct crypto_in	*ci = xcalloc(1, sizeof *ci);
	char			*pfrom, *ofrom;

	ci->msg = m;
	ci->from = addr_list_from(&m->root->header);
	crypto_in_walk(ci, m->root, 1, 0);
	crypto_in_protected(ci);
	if (ci->protected != NULL) {
		ofrom = ci->from;
		pfrom = addr_list_from(ci->protected);
		if (pfrom != NULL) {
			if (ofrom != NULL && !addr_list_same(pfrom, ofrom))
				crypto_in_warn(ci, "the protected From (%s) "
				    "differs from the outer From (%s); the "
				    "protected one is used", pfrom, ofrom);
			free(ofrom);
			ci->from = pfrom;
		}
	}
	crypto_in_finish_sigs(ci);
	crypto_in_leaves(ci);
	crypto_in_verdict(ci);
	if (autocrypt)
		crypto_in_autocrypt(ci);
	return ci;
}

void
crypto_in_free(struct crypto_in *ci)
{
	size_t	i;

	if (ci == NULL)
		return;
	crypto_in_forget(ci, 0, 0);
	free(ci->sigs);
	free(ci->parts);
	for (i = 0; i < ci->nwarnings; i++)
		free(ci->warnings[i]);
	free(ci->warnings);
	free(ci->from);
	free(ci->not_decrypted);
	free(ci->summary);
	autocrypt_result_free(&ci->autocrypt);
	free(ci);
}

char *
crypto_in_view_status(const struct mime_part *p, void *arg)
{
	struct crypto_in		*ci = arg;
	const struct crypto_in_part	*e = crypto_in_find(ci, p);
	char				*name, *s;

	if (e == NULL || e->status == NULL)
		return NULL;
	name = crypto_in_name(ci, p);
	s = xasprintf("security of part %s: %s", name, e->status);
	free(name);
	return s;
}

struct mime_part *
crypto_in_view_inner(const struct mime_part *p, void *arg)
{
	struct crypto_in		*ci = arg;
	const struct crypto_in_part	*e = crypto_in_find(ci, p);

	return e != NULL && e->inner != NULL ? e->inner->root : NULL;
}

struct crypto_in *
crypto_in_analyse_import(struct mime_msg *m)
{
	struct crypto_in	*ci;
	size_t			 i;

	ci = crypto_in_analyse(m, 1);
	for (i = 0; i < ci->nsigs && ci->autocrypt.nkeys > 0; i++) {
		if (ci->sigs[i].status == CRYPTO_IN_UNKNOWN_KEY) {
			crypto_in_free(ci);
			return crypto_in_analyse(m, 1);
		}
	}
	return ci;
}
