/*
 * draft-preview.c: what sending a draft now would do, said before it is
 * sent (draft.h, draft_preview()): the compose screen's security line and
 * its per-recipient detail. It makes the decision draft_protect() makes,
 * on the same policy_in (draft_policy_in(), policy_decide()), with
 * somebody there to ask, so that fallback = ask comes out as "ask"; then
 * it reads the trust store and the DNS cache to say how each key is known
 * and, for a recipient without one, what was looked up and what came
 * back. Caller: the compose screen, on a worker thread. It never asks,
 * never prints, never sends; with use_dns 0 it never asks the network
 * (answers the DNS cache already holds are used).
 */
#include <sys/stat.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "buf.h"
#include "crypto.h"
#include "dns-cache.h"
#include "dns-lookup.h"
#include "draft.h"
#include "ownkey.h"
#include "paths.h"
#include "trust-store.h"
#include "xmalloc.h"

/* How a key is known, strongest first: the order the line counts them. */
static const char *draft_preview_origins[] = {
	"verified", "DNS-secure", "DNS", "Autocrypt", "imported",
	"trust store"
};
#define DRAFT_PREVIEW_NORIGINS \
	(sizeof draft_preview_origins / sizeof *draft_preview_origins)

/*
 * Whether the account has a key to sign with, remembered per address
 * and GnuPG home until the keyring changes: finding out starts gpg, and
 * the line is computed at every keystroke that changes a recipient.
 */
static pthread_mutex_t	 draft_preview_lock = PTHREAD_MUTEX_INITIALIZER;
static char		*draft_preview_key_for;	/* "home;addr;stamp" */
static int		 draft_preview_key_have;

static char *
draft_preview_key_stamp(const struct account *a)
{
	struct stat	 sb;
	const char	*home = crypto_home();
	char		*path, *s;

	path = xasprintf("%s/pubring.kbx", home != NULL ? home : "");
	if (stat(path, &sb) == 0)
		s = xasprintf("%s;%s;%s;%llu.%lld.%lld.%ld", path, a->address,
		    a->key != NULL ? a->key : "", (unsigned long long)sb.st_ino,
		    (long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
		    (long)sb.st_mtim.tv_nsec);
	else
		s = xasprintf("%s;%s;%s;-", path, a->address,
		    a->key != NULL ? a->key : "");
	free(path);
	return s;
}

static int
draft_preview_own_key(const struct account *a)
{
	struct ownkey	 k;
	char		*stamp, *cause = NULL;
	int		 have;

	stamp = draft_preview_key_stamp(a);
	pthread_mutex_lock(&draft_preview_lock);
	if (draft_preview_key_for != NULL &&
	    strcmp(draft_preview_key_for, stamp) == 0) {
		have = draft_preview_key_have;
		pthread_mutex_unlock(&draft_preview_lock);
		free(stamp);
		return have;
	}
	pthread_mutex_unlock(&draft_preview_lock);
	have = ownkey_openpgp(a, 0, &k, &cause) == 0;
	if (have)
		ownkey_free(&k);
	free(cause);
	/* A renewal changes the keyring: remember the stamp after it. */
	free(stamp);
	stamp = draft_preview_key_stamp(a);
	pthread_mutex_lock(&draft_preview_lock);
	free(draft_preview_key_for);
	draft_preview_key_for = stamp;
	draft_preview_key_have = have;
	pthread_mutex_unlock(&draft_preview_lock);
	return have;
}

/*
 * What the DNS cache holds for addr's records of type: 1 and *status
 * when every owner name asked for it (as written, lower-cased) has a
 * fresh answer, the best of them; 0 when one has none.
 */
static int
draft_preview_cached(struct dns_cache *dc, const char *addr,
    enum dns_type type, time_t now, enum dns_status *status)
{
	struct dns_result	 r;
	char			*owner[2], *cause = NULL;
	size_t			 j;
	int			 i, found = 1;

	*status = DNS_NONE;
	if (dc == NULL)
		return 0;
	owner[0] = dns_owner_name(addr, type, 0);
	owner[1] = dns_owner_name(addr, type, 1);
	if (owner[0] == NULL || owner[1] == NULL)
		found = 0;
	for (i = 0; i < 2 && found; i++) {
		if (i == 1 && strcmp(owner[0], owner[1]) == 0)
			break;
		memset(&r, 0, sizeof r);
		switch (dns_cache_get(dc, owner[i], type, now, &r, &cause)) {
		case 1:
			if (r.status == DNS_SECURE || (r.status ==
			    DNS_INSECURE && *status != DNS_SECURE))
				*status = r.status;
			break;
		case -1:
			free(cause);
			cause = NULL;
			/* FALLTHROUGH */
		default:
			found = 0;
			break;
		}
		/* The records are not needed: only what kind of answer. */
		for (j = 0; j < r.nrecords; j++)
			free(r.records[j].data);
		free(r.records);
		free(r.why);
	}
	free(owner[0]);
	free(owner[1]);
	return found;
}

static struct dns_cache *
draft_preview_cache_open(void)
{
	struct dns_cache	*dc = NULL;
	char			*dir, *path, *cause = NULL;

	if ((dir = paths_cache_dir(&cause)) == NULL) {
		free(cause);
		return NULL;
	}
	path = xasprintf("%s/dns.sqlite", dir);
	free(dir);
	dc = dns_cache_open(path, &cause);
	free(cause);
	free(path);
	return dc;
}

/*
 * With use_dns 0: may the decision use DNS anyway? Yes when every
 * recipient still without a key has its answer in the cache, so that
 * asking DNS costs no query.
 */
static int
draft_preview_all_cached(struct dns_cache *dc, const struct policy_result *res,
    enum dns_type type)
{
	enum dns_status	 st;
	time_t		 now = time(NULL);
	size_t		 i, k = 0;

	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr != NULL || res->rcpts[i].why != NULL)
			continue;
		if (!draft_preview_cached(dc, res->rcpts[i].addr, type, now,
		    &st))
			return 0;
		k++;
	}
	return k > 0;
}

/* How the key of p is known, from the store's row of it. */
static const char *
draft_preview_origin(const struct trust_peer *peer,
    const struct policy_rcpt *p)
{
	const struct trust_key	*k;
	size_t			 i;

	if (p->source != NULL && strcmp(p->source, "dns-secure") == 0)
		return "DNS-secure";
	if (p->source != NULL && strcmp(p->source, "dns-insecure") == 0)
		return "DNS";
	for (i = 0; i < peer->nkeys; i++) {
		k = &peer->keys[i];
		if (k->fpr == NULL || strcasecmp(k->fpr, p->fpr) != 0)
			continue;
		if (k->decision != NULL && strcmp(k->decision, "verified") == 0)
			return "verified";
		if (k->sources & (1u << TRUST_SRC_DNS_SECURE))
			return "DNS-secure";
		if (k->sources & (1u << TRUST_SRC_DNS_INSECURE))
			return "DNS";
		if (k->sources & ((1u << TRUST_SRC_AUTOCRYPT) |
		    (1u << TRUST_SRC_GOSSIP)))
			return "Autocrypt";
		if (k->sources & ((1u << TRUST_SRC_MANUAL) |
		    (1u << TRUST_SRC_ATTACHED)))
			return "imported";
		break;
	}
	return "trust store";
}

/* Has an Autocrypt header (or gossip) brought a key of proto for addr? */
static int
draft_preview_autocrypt(const struct trust_peer *peer, const char *proto)
{
	size_t	i;

	for (i = 0; i < peer->nkeys; i++) {
		if (peer->keys[i].proto != NULL &&
		    strcmp(peer->keys[i].proto, proto) == 0 &&
		    (peer->keys[i].sources & ((1u << TRUST_SRC_AUTOCRYPT) |
		    (1u << TRUST_SRC_GOSSIP))))
			return 1;
	}
	return 0;
}

/* What DNS said of a recipient without a key, in a few words. */
static const char *
draft_preview_dns_words(struct trust_store *ts, struct dns_cache *dc,
    const struct policy_rcpt *p, enum dns_type type, int asked)
{
	struct trust_dns	 td;
	enum dns_status		 st;
	char			*cause = NULL;
	int			 bogus = 0;

	if (p->dns_bogus)
		return "DNS bogus answer refused";
	if (draft_preview_cached(dc, p->addr, type, time(NULL), &st)) {
		switch (st) {
		case DNS_SECURE:
			return "DNS key not usable";
		case DNS_INSECURE:
			return "DNS insecure answer not used";
		default:
			return "DNS none";
		}
	}
	if (type == DNS_OPENPGPKEY && ts != NULL) {
		memset(&td, 0, sizeof td);
		if (trust_store_dns(ts, p->addr, &td, &cause) == 0)
			bogus = td.bogus != 0;
		else
			free(cause);
		trust_dns_free(&td);
		if (bogus)
			return "DNS bogus answer refused";
	}
	return asked ? "DNS no answer" : "DNS not looked up";
}

/* Fill the recipients of pv from the policy's result. */
static void
draft_preview_rcpts(struct draft_preview *pv, const struct policy_result *res,
    const struct policy_in *in)
{
	struct trust_store	*ts;
	struct dns_cache	*dc = NULL;
	struct trust_peer	 peer;
	const struct policy_rcpt *p;
	struct draft_preview_rcpt *r;
	const char		*proto = in->smime ? "smime" : "openpgp";
	const char		*dns;
	enum dns_type		 type = in->smime ? DNS_SMIMEA : DNS_OPENPGPKEY;
	char			*cause = NULL;
	size_t			 i;
	int			 have_peer;

	if ((ts = trust_store_open(NULL, &cause)) == NULL) {
		free(cause);
		cause = NULL;
	}
	for (i = 0; i < res->n && i < pv->n; i++) {
		p = &res->rcpts[i];
		r = &pv->rcpts[i];
		r->state = p->state;
		have_peer = ts != NULL && trust_store_peer(ts, p->addr, &peer,
		    &cause) == 0;
		if (!have_peer) {
			free(cause);
			cause = NULL;
		}
		if (p->fpr != NULL) {
			r->has_key = 1;
			r->origin = have_peer ? draft_preview_origin(&peer, p) :
			    "trust store";
			pv->nkeys++;
		} else {
			if (dc == NULL)
				dc = draft_preview_cache_open();
			dns = draft_preview_dns_words(ts, dc, p, type,
			    in->use_dns);
			r->why = xasprintf("%s%s%s%s%s%s",
			    p->why != NULL ? p->why : "",
			    p->why != NULL ? "; " : "",
			    strstr(dns, "not looked up") != NULL ? "" :
			    "looked up: ", dns, in->smime ? "" : ", ",
			    in->smime ? "" : have_peer &&
			    draft_preview_autocrypt(&peer, proto) ?
			    "Autocrypt key not usable" : "no Autocrypt seen");
		}
		if (r->state == TRUST_KEY_CHANGED || r->state == TRUST_CONFLICT)
			pv->nchanged++;
		if (r->state == TRUST_REVOKED)
			pv->nrevoked++;
		if (have_peer)
			trust_peer_free(&peer);
	}
	if (dc != NULL)
		dns_cache_close(dc);
	if (ts != NULL)
		trust_store_close(ts);
}

/* "no key for a@x, b@y; c@z: key revoked", with the reason for one. */
static void
draft_preview_nokeys(struct buf *b, const struct draft_preview *pv)
{
	const struct draft_preview_rcpt	*r;
	size_t				 i, plain = 0, k = 0, last = 0;

	for (i = 0; i < pv->n; i++) {
		r = &pv->rcpts[i];
		if (r->has_key || r->state == TRUST_REVOKED ||
		    r->state == TRUST_EXPIRED)
			continue;
		buf_adds(b, plain++ == 0 ? "no key for " : ", ");
		buf_adds(b, r->addr);
		last = i;
		if (strstr(r->why, "bogus") != NULL)
			buf_adds(b, " (bogus DNS answer refused)");
	}
	if (plain == 1 && pv->n - pv->nkeys == 1 &&
	    strstr(pv->rcpts[last].why, "bogus") == NULL)
		buf_addf(b, " (%s)", pv->rcpts[last].why);
	k = plain;
	for (i = 0; i < pv->n; i++) {
		r = &pv->rcpts[i];
		if (r->has_key || (r->state != TRUST_REVOKED &&
		    r->state != TRUST_EXPIRED))
			continue;
		buf_addf(b, "%s%s: key %s", k++ == 0 ? "" : "; ", r->addr,
		    r->state == TRUST_REVOKED ? "revoked" : "expired");
	}
}

/* "; bob@x: key changed" for each recipient whose key changed. */
static void
draft_preview_changed(struct buf *b, const struct draft_preview *pv)
{
	size_t	i;

	for (i = 0; i < pv->n; i++) {
		if (pv->rcpts[i].state == TRUST_KEY_CHANGED)
			buf_addf(b, "; %s: key changed", pv->rcpts[i].addr);
		else if (pv->rcpts[i].state == TRUST_CONFLICT)
			buf_addf(b, "; %s: DNS disagrees with the key",
			    pv->rcpts[i].addr);
	}
}

/* Why a message that must be encrypted must be, in a few words. */
static const char *
draft_preview_must_why(const struct policy_in *in)
{
	if (in->replying_encrypted && in->forwarding)
		return "forward of encrypted mail";
	if (in->replying_encrypted)
		return "reply to encrypted mail";
	if (in->require)
		return "encryption asked for";
	return "encrypt = always";
}

static char *
draft_preview_line(const struct draft_preview *pv, const struct policy_in *in,
    const struct policy_result *res)
{
	struct buf	b;
	size_t		i, j, k, count;

	buf_init(&b);
	switch (pv->action) {
	case POLICY_HOLD:
	case POLICY_WAIT:
		/* the policy's own words: "held: the DNS answer for ..." */
		buf_adds(&b, res->line != NULL ? res->line : "held");
		break;
	case POLICY_ENCRYPT:
		if (pv->n == 0) {
			buf_adds(&b, "encrypt: no recipients yet");
			break;
		}
		buf_addf(&b, "encrypt: yes (%zu/%zu key%s: ", pv->nkeys, pv->n,
		    pv->n == 1 ? "" : "s");
		for (j = 0, k = 0; j < DRAFT_PREVIEW_NORIGINS; j++) {
			count = 0;
			for (i = 0; i < pv->n; i++) {
				if (pv->rcpts[i].origin != NULL &&
				    strcmp(pv->rcpts[i].origin,
				    draft_preview_origins[j]) == 0)
					count++;
			}
			if (count > 0)
				buf_addf(&b, "%s%zu %s", k++ == 0 ? "" : ", ",
				    count, draft_preview_origins[j]);
		}
		buf_addc(&b, ')');
		break;
	case POLICY_CLEAR:
		buf_adds(&b, "in clear: ");
		draft_preview_nokeys(&b, pv);
		break;
	case POLICY_ASK_USER:
		buf_adds(&b, "ask: ");
		draft_preview_nokeys(&b, pv);
		break;
	case POLICY_REFUSE_SEND:
		if (pv->must)
			buf_addf(&b, "not sent: must be encrypted (%s), ",
			    draft_preview_must_why(in));
		else
			buf_adds(&b, "not sent: cannot be encrypted "
			    "(fallback = refuse), ");
		draft_preview_nokeys(&b, pv);
		break;
	}
	draft_preview_changed(&b, pv);
	return buf_take(&b);
}

/* Sent in clear before any key is looked for: the line says why. */
static void
draft_preview_clear(struct draft_preview *pv, const struct draft_opts *o,
    const struct policy_in *in)
{
	pv->action = POLICY_CLEAR;
	if (o->never)
		pv->line = xstrdup("in clear: encryption turned off");
	else if (in->mode == POLICY_NEVER)
		pv->line = xstrdup("in clear: encrypt = never");
	else
		pv->line = xstrdup("in clear: S/MIME encrypts only when "
		    "encryption is asked for");
}

int
draft_preview(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, int use_dns, struct draft_preview *pv,
    char **cause)
{
	struct draft_opts	  opts = *o;
	struct policy_in	  in;
	struct policy_result	  res;
	struct dns_cache	 *dc;
	char			**addrs, *why = NULL;
	size_t			  i, n = 0;
	int			  must, keyring, clear, plain_ok, again, gpg;

	memset(pv, 0, sizeof *pv);
	memset(&res, 0, sizeof res);
	opts.can_ask = 1;
	draft_policy_in(d, cf, &opts, &in);
	in.batch = 0;
	in.use_dns = use_dns;
	keyring = ownkey_have_keyring(cf);
	in.home_empty = !keyring;
	must = policy_must(&in);
	pv->must = must;
	pv->smime = o->smime;

	addrs = xcalloc(d->nto + d->ncc + d->nbcc + 1, sizeof *addrs);
	for (i = 0; i < d->nto; i++)
		addrs[n++] = d->to[i];
	for (i = 0; i < d->ncc; i++)
		addrs[n++] = d->cc[i];
	for (i = 0; i < d->nbcc; i++)
		addrs[n++] = d->bcc[i];
	pv->n = n;
	pv->rcpts = xcalloc(n + 1, sizeof *pv->rcpts);
	for (i = 0; i < n; i++)
		pv->rcpts[i].addr = xstrdup(addrs[i]);

	/* The same short cuts as draft_protect(), in the same order. */
	clear = o->never || (o->smime && !must) ||
	    (in.mode == POLICY_NEVER && !must);
	plain_ok = !must && in.mode == POLICY_OPPORTUNISTIC &&
	    in.fallback == POLICY_PLAINTEXT;
	gpg = crypto_init(cf->gnupg_home, &why) == 0;
	if (clear) {
		draft_preview_clear(pv, o, &in);
		free(why);
		goto sign;
	}
	if (!gpg) {
		pv->action = plain_ok ? POLICY_CLEAR : POLICY_REFUSE_SEND;
		pv->line = xasprintf("%s: cannot look for keys: %s", plain_ok ?
		    "in clear" : "not sent", why);
		free(why);
		goto sign;
	}
	if (policy_decide(&in, addrs, n, &res, &why) == -1) {
		if (!plain_ok) {
			*cause = why;
			free(addrs);
			draft_preview_free(pv);
			return -1;
		}
		pv->action = POLICY_CLEAR;
		pv->line = xasprintf("in clear: %s", why);
		free(why);
		goto sign;
	}
	/*
	 * Without the network, what DNS said before still counts: when the
	 * cache answers for everybody still without a key, decide again
	 * with DNS, which then asks nothing.
	 */
	if (!use_dns && res.action != POLICY_ENCRYPT) {
		dc = draft_preview_cache_open();
		again = draft_preview_all_cached(dc, &res, in.smime ?
		    DNS_SMIMEA : DNS_OPENPGPKEY);
		if (dc != NULL)
			dns_cache_close(dc);
		if (again) {
			in.use_dns = 1;
			policy_result_free(&res);
			if (policy_decide(&in, addrs, n, &res, cause) == -1) {
				free(addrs);
				draft_preview_free(pv);
				return -1;
			}
		}
	}
	pv->action = res.action;
	draft_preview_rcpts(pv, &res, &in);
	pv->line = draft_preview_line(pv, &in, &res);
	policy_result_free(&res);
sign:
	free(addrs);
	pv->encrypt = pv->action == POLICY_ENCRYPT;
	/*
	 * draft_protect() signs whenever it encrypts (making a key if need
	 * be: an encrypted message is signed inside, nosign or not) and
	 * whenever the account has a key, unless told not to.
	 */
	if (pv->encrypt || (o->sign && !o->nosign))
		pv->sign = 1;
	else if (o->nosign || o->smime)
		pv->sign = 0;	/* S/MIME in clear: signed only when asked */
	else
		pv->sign = gpg && keyring && draft_preview_own_key(d->a);
	return 0;
}

void
draft_preview_free(struct draft_preview *pv)
{
	size_t	i;

	for (i = 0; i < pv->n; i++) {
		free(pv->rcpts[i].addr);
		free(pv->rcpts[i].why);
	}
	free(pv->rcpts);
	free(pv->line);
	memset(pv, 0, sizeof *pv);
}
