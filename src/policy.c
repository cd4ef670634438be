/*
 * policy.c: the encryption policy of policy.h.
 *
 * Keys are searched in a fixed order, and every key found outside the
 * trust store goes through it as a sighting first, so that the trust
 * store's rules alone decide which key is used: a DNS or Autocrypt key
 * for an address whose pinned key is another one never replaces it. A
 * key the store pins but gpg finds revoked or expired is never used, and
 * nothing else takes its place until the user decides (--trust).
 *
 * The store pins a key per address and protocol: S/MIME encryption uses
 * the S/MIME pin, OpenPGP the OpenPGP one. For an address with no pin of
 * the protocol wanted (a store from before pins per protocol, a key only
 * decided on), the store's keys of that protocol are taken in this order:
 * verified, accepted, then the first seen when the address has a pin of
 * the other protocol; never a rejected, revoked or expired one. So a
 * certificate that was used once keeps being used, and a newer one in the
 * home does not take its place.
 *
 * OpenPGP asks DNS (OPENPGPKEY) before the keys in the home; S/MIME asks
 * DNS (SMIMEA) after the home, for recipients with no certificate at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <gpgme.h>

#include "buf.h"
#include "crypto.h"
#include "dns-lookup.h"
#include "dns-sighting.h"
#include "log.h"
#include "policy.h"
#include "xmalloc.h"

int
policy_mode(const char *s, enum policy_encrypt *m)
{
	if (s == NULL || strcmp(s, "opportunistic") == 0)
		*m = POLICY_OPPORTUNISTIC;
	else if (strcmp(s, "always") == 0)
		*m = POLICY_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*m = POLICY_NEVER;
	else
		return -1;
	return 0;
}

int
policy_fallback_mode(const char *s, enum policy_fallback *f)
{
	if (s == NULL || strcmp(s, "plaintext") == 0)
		*f = POLICY_PLAINTEXT;
	else if (strcmp(s, "ask") == 0)
		*f = POLICY_ASK;
	else if (strcmp(s, "refuse") == 0)
		*f = POLICY_REFUSE;
	else
		return -1;
	return 0;
}

static int
policy_has_uid(gpgme_key_t key, const char *addr)
{
	gpgme_user_id_t	uid;

	for (uid = key->uids; uid != NULL; uid = uid->next) {
		if (!uid->revoked && !uid->invalid &&
		    crypto_uid_is(uid->email, addr))
			return 1;
	}
	return 0;
}

/* 0 usable; else why not (static text). */
static const char *
policy_unusable(gpgme_ctx_t ctx, const char *fpr, const char *addr,
    int *revoked, int *expired)
{
	gpgme_key_t	 key;
	const char	*why = NULL;

	*revoked = *expired = 0;
	if (crypto_key(ctx, fpr, 0, &key) != 0)
		return "is not in the GnuPG home";
	if (key->revoked) {
		*revoked = 1;
		why = "is revoked";
	} else if (key->expired) {
		*expired = 1;
		why = "has expired";
	} else if (key->disabled || key->invalid || !key->can_encrypt)
		why = "cannot encrypt";
	else if (!policy_has_uid(key, addr))
		why = "has no user ID with the address";
	gpgme_key_unref(key);
	return why;
}

struct policy_cand {
	char	*fpr;
	long	 when;
};

static int
policy_cand_cmp(const void *a, const void *b)
{
	const struct policy_cand *x = a, *y = b;

	return x->when < y->when ? 1 : x->when > y->when ? -1 : 0;
}

/* The usable keys for addr already in the home, newest first. */
static size_t
policy_home_keys(gpgme_ctx_t ctx, const char *addr, struct policy_cand **v)
{
	gpgme_key_t	 key;
	char		*pattern;
	size_t		 n = 0;

	*v = NULL;
	pattern = xasprintf("<%s>", addr);
	if (gpgme_op_keylist_start(ctx, pattern, 0) != 0) {
		free(pattern);
		return 0;
	}
	free(pattern);
	while (gpgme_op_keylist_next(ctx, &key) == 0) {
		if (!key->revoked && !key->expired && !key->disabled &&
		    !key->invalid && key->can_encrypt &&
		    policy_has_uid(key, addr) && key->subkeys != NULL &&
		    key->subkeys->fpr != NULL) {
			*v = xreallocarray(*v, n + 1, sizeof **v);
			(*v)[n].fpr = xstrdup(key->subkeys->fpr);
			(*v)[n++].when = key->subkeys->timestamp;
		}
		gpgme_key_unref(key);
	}
	gpgme_op_keylist_end(ctx);
	if (n > 1)
		qsort(*v, n, sizeof **v, policy_cand_cmp);
	return n;
}

/* What a DNS answer's records are handed to, with the store and gpg. */
struct policy_dns_run {
	struct trust_store	*ts;
	gpgme_ctx_t		 ctx;
	time_t			 now;
};
typedef void (*policy_dns_cb)(struct policy_dns_run *, struct policy_rcpt *,
    const struct dns_result *);

/*
 * One look-up of type want for every recipient still without a key, one
 * deadline: a bogus answer marks the recipient and warns (what: "key",
 * "certificate"); a secure or insecure one goes to cb.
 */
static void
policy_dns_each(const struct policy_in *in, struct policy_dns_run *run,
    struct policy_result *res, int want, const char *what, policy_dns_cb cb)
{
	struct dns_ctx		 *dc;
	struct dns_result	 *r = NULL;
	char			**addrs, *cause = NULL;
	size_t			 i, j, n = 0, nr = 0, *map;

	addrs = xcalloc(res->n, sizeof *addrs);
	map = xcalloc(res->n, sizeof *map);
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr == NULL && res->rcpts[i].why == NULL) {
			map[n] = i;
			addrs[n++] = (char *)res->rcpts[i].addr;
		}
	}
	if (n == 0)
		goto out;
	if ((dc = dns_open(in->cf, &cause)) == NULL ||
	    dns_lookup(dc, addrs, n, want, dns_timeout_ms(in->cf), &r, &nr,
	    &cause) == -1) {
		/* nothing could be asked: every lookup failed */
		for (j = 0; j < n; j++)
			res->rcpts[map[j]].dns_failed = "error";
		if (res->dns_cause == NULL && cause != NULL)
			res->dns_cause = xstrdup(cause);
		dns_close(dc);
		goto out;
	}
	for (j = 0; j < nr && j < n; j++) {
		struct policy_rcpt *p = &res->rcpts[map[j]];
		if (r[j].status == DNS_BOGUS) {
			p->dns_bogus = 1;
			free(p->warning);
			p->warning = xasprintf("the DNS answer for %s's %s is "
			    "bogus (DNSSEC validation failed: %s): refused, "
			    "possibly an attack", p->addr, what,
			    r[j].why != NULL ? r[j].why : "no reason given");
			continue;
		}
		if (r[j].status == DNS_SECURE || r[j].status == DNS_INSECURE) {
			p->dns_insecure = r[j].status == DNS_INSECURE;
			cb(run, p, &r[j]);
		} else if (r[j].status != DNS_NONE)
			p->dns_failed = dns_status_name(r[j].status);
	}
	dns_results_free(r, nr);
	dns_close(dc);
out:
	free(cause);
	free(addrs);
	free(map);
}

/*
 * Without DNS: a bogus answer the store remembers for a recipient still
 * without a key (the trust step of a sync met it) counts as one, so that
 * a decision made from what is known (the compose screen's first line)
 * does not say "in clear" for it before DNS is asked again.
 */
static void
policy_bogus_marks(struct trust_store *ts, struct policy_result *res)
{
	struct trust_dns	 td;
	char			*cause = NULL;
	size_t			 i;

	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr != NULL || res->rcpts[i].why != NULL)
			continue;
		if (trust_store_dns(ts, res->rcpts[i].addr, &td, &cause) == 0)
			res->rcpts[i].dns_bogus = td.bogus != 0;
		else {
			free(cause);
			cause = NULL;
		}
		trust_dns_free(&td);
	}
}

/* An OPENPGPKEY answer: each record's key, if it is p's, is a sighting. */
static void
policy_dns_openpgp(struct policy_dns_run *run, struct policy_rcpt *p,
    const struct dns_result *r)
{
	dns_sighting_openpgp(run->ts, run->ctx, p->addr, r, run->now);
}

/*
 * Is fpr usable for addr? Marks it in the store when gpg finds it revoked
 * or expired; returns why not (static text), or NULL.
 */
static const char *
policy_check(struct trust_store *ts, gpgme_ctx_t ctx, const char *fpr,
    const char *addr, int *gone, time_t now)
{
	const char	*why;
	char		*cause = NULL;
	int		 revoked, expired;

	why = policy_unusable(ctx, fpr, addr, &revoked, &expired);
	/*
	 * What gpg says now goes back to the store: revoked stays revoked
	 * (the store only adds it), expired comes and goes (a key renewed
	 * by a new self-signature, however it arrived, is usable again).
	 */
	if ((why == NULL || revoked || expired) && trust_store_key_status(ts,
	    fpr, revoked, expired, now, &cause) == -1)
		free(cause);
	*gone = revoked ? TRUST_REVOKED : expired ? TRUST_EXPIRED : 0;
	return why;
}

/* Does the store mark fpr, one of peer's keys, revoked? */
static int
policy_store_revoked(const struct trust_peer *peer, const char *fpr)
{
	size_t	i;

	for (i = 0; i < peer->nkeys; i++) {
		if (strcasecmp(peer->keys[i].fpr, fpr) == 0)
			return peer->keys[i].revoked;
	}
	return 0;
}

/* Order of the store's keys when none of the protocol is pinned. */
static int
policy_rank(const struct trust_key *k)
{
	if (k->decision != NULL && strcmp(k->decision, "verified") == 0)
		return 0;
	if (k->decision != NULL && strcmp(k->decision, "accepted") == 0)
		return 1;
	return 2;
}

static int
policy_key_cmp(const void *a, const void *b)
{
	const struct trust_key *x = *(const struct trust_key * const *)a;
	const struct trust_key *y = *(const struct trust_key * const *)b;
	int	rx = policy_rank(x), ry = policy_rank(y);

	if (rx != ry)
		return rx - ry;
	return x->first_seen < y->first_seen ? -1 :
	    x->first_seen > y->first_seen ? 1 : 0;
}

/*
 * The store's key of protocol proto for p, if gpg (gpgsm) can use it;
 * else why not. A pinned key that cannot be used is not replaced.
 */
static void
policy_choose(struct trust_store *ts, gpgme_ctx_t ctx, const char *proto,
    struct policy_rcpt *p, const char *source, time_t now)
{
	struct trust_peer	  peer;
	const struct trust_peer_pin *pin, *other;
	const struct trust_key	**v;
	const char		 *why;
	char			 *cause = NULL;
	size_t			  i, n = 0;
	int			  gone, want;

	if (trust_store_peer(ts, p->addr, &peer, &cause) == -1) {
		free(cause);
		return;
	}
	want = trust_proto_index(proto) == TRUST_SMIME ? TRUST_SMIME :
	    TRUST_OPENPGP;
	pin = &peer.pins[want];
	other = &peer.pins[want == TRUST_SMIME ? TRUST_OPENPGP : TRUST_SMIME];
	p->state = pin->v.state;
	if (pin->pinned != NULL) {
		why = policy_check(ts, ctx, pin->pinned, p->addr, &gone, now);
		if (why == NULL && !policy_store_revoked(&peer, pin->pinned)) {
			free(p->fpr);
			p->fpr = xstrdup(pin->pinned);
			p->source = source;
		} else {
			free(p->why);
			p->why = xasprintf("the key %s %s", pin->pinned,
			    why != NULL ? why : "is revoked or expired");
			if (gone)
				p->state = gone;
		}
		trust_peer_free(&peer);
		return;
	}
	/*
	 * No pin of this protocol. A key nobody decided on counts only when
	 * the other protocol has a pin: without any pin, such a key is one
	 * the user has not accepted yet.
	 */
	v = xcalloc(peer.nkeys + 1, sizeof *v);
	for (i = 0; i < peer.nkeys; i++) {
		const struct trust_key *k = &peer.keys[i];
		if (k->proto != NULL && strcmp(k->proto, proto) == 0 &&
		    (k->decision == NULL ||
		    strcmp(k->decision, "rejected") != 0) && !k->revoked &&
		    !k->expired && (other->pinned != NULL ||
		    policy_rank(k) < 2))
			v[n++] = k;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, policy_key_cmp);
	for (i = 0; i < n; i++) {
		if (policy_check(ts, ctx, v[i]->fpr, p->addr, &gone,
		    now) == NULL) {
			free(p->fpr);
			p->fpr = xstrdup(v[i]->fpr);
			p->source = source;
			break;
		}
	}
	free(v);
	trust_peer_free(&peer);
}

/* Does the home hold the secret key of fpr (one of the user's own)? */
static int
policy_own_key(gpgme_ctx_t ctx, const char *fpr)
{
	gpgme_key_t	key;

	if (crypto_key(ctx, fpr, 1, &key) != 0)
		return 0;
	gpgme_key_unref(key);
	return 1;
}

/*
 * Keys in the home the store has not decided on yet: each, newest first,
 * goes through the store as a sighting until one is the key the store
 * gives for p. With seen_only (OpenPGP in steedmail's own home, where
 * every Autocrypt header's key lands whatever its user IDs say), only
 * keys the store has seen for this very address count: an Autocrypt
 * header of p's own mail, gossip or DNS for p, or --import-key, which
 * records the key for its user IDs' addresses; and the user's own keys
 * (with their secret key: mail brings no secret keys). A key that only claims
 * p in a user ID, brought by somebody else's mail, is never used. In a
 * home of the user's own (gnupg-home), the user's keyring is the user's
 * choice, as in gpg.
 */
static void
policy_home(struct trust_store *ts, gpgme_ctx_t ctx, const char *proto,
    struct policy_rcpt *p, time_t now, int seen_only)
{
	struct policy_cand	*v;
	char			*cause = NULL;
	size_t			 i, n;

	n = policy_home_keys(ctx, p->addr, &v);
	for (i = 0; i < n; i++) {
		if (seen_only && !trust_store_knows(ts, p->addr, v[i].fpr) &&
		    !policy_own_key(ctx, v[i].fpr)) {
			log_msg(LOG_INFO, "policy: key %s claims %s but was "
			    "never seen for it: not used", v[i].fpr, p->addr);
			free(v[i].fpr);
			continue;
		}
		if (p->fpr == NULL && p->why == NULL) {
			if (trust_store_sighting(ts, p->addr, v[i].fpr, proto,
			    TRUST_SRC_MANUAL, now, &cause) == 0)
				policy_choose(ts, ctx, proto, p, "GnuPG home",
				    now);
			else {
				free(cause);
				cause = NULL;
			}
		}
		free(v[i].fpr);
	}
	free(v);
}

/*
 * S/MIME from DNS: SMIMEA records (RFC 8162).
 *
 * Only a record with the whole certificate (selector 0, matching type 0)
 * can give a key; a hash of one (matching type 1 or 2) or of its public
 * key (selector 1) can only confirm a certificate already known, and
 * usages 0 and 2 name a CA, not the address's own certificate. Usage 3
 * (DANE-EE) says the DNSSEC-signed zone itself vouches for the
 * certificate, whoever issued it; usage 1 (PKIX-EE) that the certificate
 * must also pass the usual checks, here gpgsm's: it is used only when
 * gpgsm already finds its chain valid.
 *
 * gpgsm encrypts to no certificate whose chain does not end in a trusted
 * root (gpg-agent's trustlist.txt), and knows nothing of DNSSEC. A
 * self-signed certificate from a usage 3 record is therefore made a
 * trusted root of its own, as --import-key does for one the user
 * imports: here the DNSSEC-validated record is the evidence that it is
 * the address's, as the user's import is there. It is done only for a
 * certificate that has the address, cannot certify others (no
 * keyCertSign: it cannot vouch for any other certificate, so the entry
 * gives a domain's zone no say over other addresses), and that the trust
 * store chose to use (its first contact or its pin), and only after the
 * store has recorded the sighting. An insecure answer is a first-contact
 * hint as for OPENPGPKEY: the store pins it only when the address has no
 * S/MIME key yet, and records it as dns-insecure.
 */
struct policy_cert {
	char	*fpr;
	long	 when;		/* validity start: the newest is taken */
	int	 anchor;	/* self-signed, usage 3: to be trusted */
};

/* The certificate from a usage 3 record becomes a trusted root. */
static int
policy_trust_anchor(const char *fpr, const char *source, char **cause)
{
	char	*why;
	int	 rc;

	why = xasprintf("a self-signed certificate from an SMIMEA record "
	    "(%s)", source);
	rc = crypto_trust_root(fpr, why, cause);
	free(why);
	return rc;
}

/* Does gpgsm find fpr's chain valid as it is? */
static int
policy_cert_valid(const char *fpr)
{
	gpgme_ctx_t	 v;
	gpgme_key_t	 key;
	char		*cause = NULL;
	int		 ok;

	if ((v = crypto_ctx(GPGME_PROTOCOL_CMS, &cause)) == NULL) {
		free(cause);
		return 0;
	}
	gpgme_set_keylist_mode(v, GPGME_KEYLIST_MODE_LOCAL |
	    GPGME_KEYLIST_MODE_VALIDATE);
	if (crypto_key(v, fpr, 0, &key) != 0) {
		crypto_release(v);
		return 0;
	}
	ok = !key->invalid && !key->revoked && !key->expired;
	gpgme_key_unref(key);
	crypto_release(v);
	return ok;
}

/*
 * One SMIMEA record with a certificate: imported into gpgsm's home and
 * checked. 0 and *c when it may be used for addr; else -1 and why not
 * (static text).
 */
static int
policy_smimea_cert(gpgme_ctx_t ctx, const struct dns_record *r,
    const char *addr, struct policy_cert *c, const char **why)
{
	gpgme_data_t		 d;
	gpgme_import_result_t	 ir;
	gpgme_key_t		 key = NULL;
	int			 self, isnew, rc = -1;

	memset(c, 0, sizeof *c);
	*why = "the certificate in its SMIMEA record cannot be read";
	if (gpgme_data_new_from_mem(&d, (const char *)r->data, r->len,
	    0) != 0)
		return -1;
	if (gpgme_op_import(ctx, d) != 0 ||
	    (ir = gpgme_op_import_result(ctx)) == NULL ||
	    ir->imports == NULL || ir->imports->result != 0 ||
	    ir->imports->fpr == NULL) {
		gpgme_data_release(d);
		return -1;
	}
	c->fpr = xstrdup(ir->imports->fpr);
	isnew = (ir->imports->status & GPGME_IMPORT_NEW) != 0;
	gpgme_data_release(d);
	if (crypto_key(ctx, c->fpr, 0, &key) != 0) {
		key = NULL;
		goto out;
	}
	self = key->issuer_name != NULL && key->uids != NULL &&
	    key->uids->uid != NULL &&
	    strcmp(key->issuer_name, key->uids->uid) == 0;
	if (!policy_has_uid(key, addr))
		*why = "the certificate in its SMIMEA record is not for the "
		    "address";
	else if (key->revoked || key->expired || !key->can_encrypt ||
	    key->subkeys == NULL)
		*why = "the certificate in its SMIMEA record has expired or "
		    "cannot encrypt";
	else if (r->usage == 3 && self && key->can_certify)
		*why = "the certificate in its SMIMEA record could certify "
		    "others (a CA), so it is not trusted";
	else if (r->usage == 3 && self) {
		c->anchor = 1;
		rc = 0;
	} else if (policy_cert_valid(c->fpr))
		rc = 0;
	else
		*why = "the certificate in its SMIMEA record does not chain "
		    "to a trusted root";
	if (rc == 0)
		c->when = key->subkeys->timestamp;
out:
	/*
	 * A certificate refused here does not stay: found in the home
	 * later, it would pass for one the user imported.
	 */
	if (rc == -1 && isnew && key != NULL &&
	    gpgme_op_delete_ext(ctx, key, GPGME_DELETE_FORCE) != 0)
		log_msg(LOG_INFO, "policy: cannot remove the refused "
		    "certificate %s", c->fpr);
	if (key != NULL)
		gpgme_key_unref(key);
	if (rc == -1) {
		free(c->fpr);
		c->fpr = NULL;
	}
	return rc;
}

/*
 * One SMIMEA look-up for every recipient still without a certificate,
 * one deadline. Of a recipient's usable certificates the newest goes
 * through the store as a sighting (two in one answer, as during a
 * change of certificate, are not a conflict), then the store chooses.
 */
/*
 * An SMIMEA answer: of p's usable certificates the newest goes through
 * the store as a sighting (two in one answer, as during a change of
 * certificate, are not a conflict), then the store chooses.
 */
static void
policy_dns_smimea(struct policy_dns_run *run, struct policy_rcpt *p,
    const struct dns_result *r)
{
	struct policy_cert	 best, c;
	const char		*why, *src;
	char			*cause = NULL;
	size_t			 i;

	src = r->status == DNS_SECURE ? "dns-secure" : "dns-insecure";
	memset(&best, 0, sizeof best);
	why = NULL;
	for (i = 0; i < r->nrecords; i++) {
		const struct dns_record *rec = &r->records[i];
		if (rec->selector != 0 || rec->mtype != 0) {
			if (why == NULL)
				why = "no certificate in the record (its "
				    "SMIMEA record holds a hash only)";
			continue;
		}
		if (rec->usage != 1 && rec->usage != 3) {
			if (why == NULL)
				why = "its SMIMEA record names a CA, not "
				    "a certificate of its own";
			continue;
		}
		if (policy_smimea_cert(run->ctx, rec, p->addr, &c, &why) == -1)
			continue;
		if (best.fpr == NULL || c.when > best.when) {
			free(best.fpr);
			best = c;
		} else
			free(c.fpr);
	}
	if (best.fpr == NULL) {
		if (why != NULL)
			p->why = xstrdup(why);
		return;
	}
	if (trust_store_sighting(run->ts, p->addr, best.fpr, "smime",
	    r->status == DNS_SECURE ? TRUST_SRC_DNS_SECURE :
	    TRUST_SRC_DNS_INSECURE, run->now, &cause) == -1) {
		log_msg(LOG_INFO, "policy: %s", cause);
		free(cause);
		cause = NULL;
	}
	policy_choose(run->ts, run->ctx, "smime", p, src, run->now);
	if (p->fpr != NULL && strcmp(p->fpr, best.fpr) != 0)
		p->source = "trust store";
	else if (p->fpr != NULL && best.anchor &&
	    policy_trust_anchor(best.fpr, src, &cause) == -1) {
		free(p->fpr);
		p->fpr = NULL;
		free(p->why);
		p->why = xasprintf("its certificate from DNS cannot be marked "
		    "trusted: %s", cause);
		free(cause);
		cause = NULL;
	}
	free(best.fpr);
}

const char *
policy_rcpt_reason(const struct policy_rcpt *p)
{
	if (p->why != NULL)
		return p->why;
	if (p->dns_bogus)
		return "the DNS answer for it was forged (possible attack)";
	if (p->dns_failed != NULL)
		return "no key known; its DNS lookup failed";
	return "no key known";
}

/*
 * "held: the DNS answer for x@y was forged (possible attack)": every
 * recipient without a key whose answer was bogus.
 */
static char *
policy_held_line(const struct policy_result *res)
{
	struct buf	 b;
	size_t		 i, k = 0;
	char		*who, *line;

	buf_init(&b);
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr == NULL && res->rcpts[i].dns_bogus) {
			buf_adds(&b, k++ == 0 ? "" : ", ");
			buf_adds(&b, res->rcpts[i].addr);
		}
	}
	who = buf_take(&b);
	line = xasprintf("held: the DNS answer%s for %s %s forged (possible "
	    "attack)", k == 1 ? "" : "s", who, k == 1 ? "was" : "were");
	free(who);
	return line;
}

/* "waits for DNS: no answer for x@y (timeout), z@w (servfail)". */
static char *
policy_wait_line(const struct policy_result *res)
{
	struct buf	b;
	size_t		i, k = 0;

	buf_init(&b);
	buf_adds(&b, "waits for DNS: no answer for ");
	for (i = 0; i < res->n; i++) {
		const struct policy_rcpt *p = &res->rcpts[i];
		if (p->fpr != NULL || p->dns_failed == NULL)
			continue;
		buf_addf(&b, "%s%s (%s)", k++ == 0 ? "" : ", ", p->addr,
		    p->dns_failed);
	}
	if (res->dns_cause != NULL)
		buf_addf(&b, "; no DNS lookup can be made: %s", res->dns_cause);
	return buf_take(&b);
}

/* intro, every recipient without a key and why, then (note). */
static char *
policy_line(const struct policy_result *res, const char *intro,
    const char *note)
{
	struct buf			 b;
	const struct policy_rcpt	*p;
	size_t				 i, k = 0;

	buf_init(&b);
	buf_adds(&b, intro);
	for (i = 0; i < res->n; i++) {
		p = &res->rcpts[i];
		if (p->fpr != NULL)
			continue;
		if (k++ > 0)
			buf_adds(&b, ", ");
		if (p->why == NULL && !p->dns_bogus && p->dns_failed != NULL)
			buf_addf(&b, "no key for %s (its DNS lookup failed: %s)",
			    p->addr, p->dns_failed);
		else if (p->why == NULL && !p->dns_bogus)
			buf_addf(&b, "no key for %s", p->addr);
		else
			buf_addf(&b, "%s: %s", p->addr, policy_rcpt_reason(p));
	}
	if (note != NULL)
		buf_addf(&b, " (%s)", note);
	return buf_take(&b);
}

/*
 * "encrypted to N recipients", and for each certificate taken from DNS
 * just now, whose address and from where: a gpgsm trust decision was
 * made on that evidence, so it is said. An OpenPGP key taken on the word
 * of an unsigned zone just now is named too: it is a first-contact hint,
 * not evidence, and the person should know.
 */
static char *
policy_encrypted_line(const struct policy_result *res)
{
	struct buf	 b;
	size_t		 i, k = 0;

	buf_init(&b);
	buf_addf(&b, "encrypted to %zu recipient%s", res->n,
	    res->n == 1 ? "" : "s");
	for (i = 0; i < res->n; i++) {
		const struct policy_rcpt *p = &res->rcpts[i];
		if (p->source != NULL && strcmp(p->source, "DNS") == 0 &&
		    p->dns_insecure) {
			buf_adds(&b, k++ == 0 ? " (" : "; ");
			buf_addf(&b, "%s: key from DNS, dns-insecure",
			    p->addr);
			continue;
		}
		if (p->source == NULL || strncmp(p->source, "dns-", 4) != 0)
			continue;
		buf_adds(&b, k++ == 0 ? " (" : "; ");
		buf_addf(&b, "%s: certificate from DNS, %s", p->addr,
		    p->source);
	}
	if (k > 0)
		buf_addc(&b, ')');
	return buf_take(&b);
}

int
policy_must(const struct policy_in *in)
{
	if (in->never)
		return 0;
	return in->require || in->replying_encrypted ||
	    in->mode == POLICY_ALWAYS;
}

/* Why a message that cannot be encrypted is refused. */
static const char *
policy_refused_why(const struct policy_in *in)
{
	if (in->replying_encrypted && in->forwarding)
		return "it forwards encrypted mail, which is never sent on "
		    "in clear";
	if (in->replying_encrypted)
		return "it replies to encrypted mail, which is never answered "
		    "in clear";
	if (in->require)
		return NULL;	/* the user's own flag: no need to say */
	if (in->mode == POLICY_ALWAYS)
		return "encrypt = always";
	if (in->fallback == POLICY_REFUSE)
		return "fallback = refuse";
	if (in->fallback == POLICY_ASK)
		return "fallback = ask, but nobody could be asked: there is "
		    "no terminal";
	return NULL;
}

int
policy_decide(const struct policy_in *in, char *const *addrs, size_t n,
    struct policy_result *res, char **cause)
{
	struct policy_dns_run	 run;
	struct trust_store	*ts;
	gpgme_ctx_t		 ctx;
	struct policy_rcpt	*p;
	const char		*proto = in->smime ? "smime" : "openpgp";
	size_t			 i, have = 0, bogus = 0, failed = 0;
	time_t			 now = time(NULL);
	int			 must;

	memset(res, 0, sizeof *res);
	res->n = n;
	res->rcpts = xcalloc(n, sizeof *res->rcpts);
	for (i = 0; i < n; i++)
		res->rcpts[i].addr = addrs[i];
	must = policy_must(in);
	if (in->never || (in->mode == POLICY_NEVER && !must)) {
		res->action = POLICY_CLEAR;
		if (in->never && in->replying_encrypted)
			res->line = xasprintf("sent in clear: --no-encrypt, "
			    "although it %s encrypted mail", in->forwarding ?
			    "forwards" : "replies to");
		else
			res->line = xstrdup(in->never ? "sent in clear: "
			    "--no-encrypt" : "sent in clear: encrypt = never");
		return 0;
	}
	if ((ts = trust_store_open(NULL, cause)) == NULL) {
		policy_result_free(res);
		return -1;
	}
	if ((ctx = crypto_ctx(in->smime ? GPGME_PROTOCOL_CMS :
	    GPGME_PROTOCOL_OpenPGP, cause)) == NULL) {
		trust_store_close(ts);
		policy_result_free(res);
		return -1;
	}
	run.ts = ts;
	run.ctx = ctx;
	run.now = now;
	for (i = 0; i < n; i++)
		policy_choose(ts, ctx, proto, &res->rcpts[i], "trust store",
		    now);
	if (in->use_dns && !in->smime) {
		policy_dns_each(in, &run, res, DNS_WANT_OPENPGPKEY, "key",
		    policy_dns_openpgp);
		for (i = 0; i < n; i++) {
			if (res->rcpts[i].fpr == NULL &&
			    res->rcpts[i].why == NULL)
				policy_choose(ts, ctx, proto, &res->rcpts[i],
				    "DNS", now);
		}
	}
	for (i = 0; i < n && !in->home_empty; i++) {
		p = &res->rcpts[i];
		if (p->fpr == NULL && p->why == NULL)
			policy_home(ts, ctx, proto, p, now, !in->smime &&
			    (in->cf == NULL || in->cf->gnupg_home == NULL));
	}
	if (!in->use_dns && !in->smime)
		policy_bogus_marks(ts, res);
	/*
	 * S/MIME: certificates the user imported come first; DNS is asked
	 * only for the recipients without any.
	 */
	if (in->use_dns && in->smime)
		policy_dns_each(in, &run, res, DNS_WANT_SMIMEA, "certificate",
		    policy_dns_smimea);
	crypto_release(ctx);
	trust_store_close(ts);
	for (i = 0; i < n; i++) {
		p = &res->rcpts[i];
		if (p->fpr != NULL)
			have++;
		else if (p->dns_bogus)
			bogus++;
		else if (p->dns_failed != NULL && p->why == NULL)
			failed++;
	}
	if (have == n) {
		res->action = POLICY_ENCRYPT;
		res->line = policy_encrypted_line(res);
		return 0;
	}
	/*
	 * A bogus answer holds the message whatever fallback says (when it
	 * must be encrypted it is refused anyway, below, saying why). A
	 * failed lookup is no answer: when only such recipients lack a
	 * key, the message waits for one; when another recipient surely
	 * has none, the failure decides nothing and fallback applies.
	 */
	if (bogus > 0 && !must) {
		res->action = POLICY_HOLD;
		res->line = policy_held_line(res);
		return 0;
	}
	if (bogus == 0 && failed > 0 && have + failed == n) {
		res->action = POLICY_WAIT;
		res->line = policy_wait_line(res);
		return 0;
	}
	if (!must && in->fallback == POLICY_PLAINTEXT) {
		res->action = POLICY_CLEAR;
		res->line = policy_line(res, "sent in clear: ", NULL);
		return 0;
	}
	if (!must && in->fallback == POLICY_ASK && !in->batch) {
		res->action = POLICY_ASK_USER;
		res->line = policy_line(res, "it cannot be encrypted: ", NULL);
		return 0;
	}
	res->action = POLICY_REFUSE_SEND;
	res->line = policy_line(res, "not sent, it cannot be encrypted: ",
	    policy_refused_why(in));
	return 0;
}

void
policy_answer(struct policy_result *res, int asked, int yes)
{
	free(res->line);
	if (asked && yes) {
		res->action = POLICY_CLEAR;
		res->line = policy_line(res, "sent in clear, as you agreed: ",
		    NULL);
		return;
	}
	res->action = POLICY_REFUSE_SEND;
	res->line = policy_line(res, "not sent, it cannot be encrypted: ",
	    asked ? "you did not agree to send it in clear" : "fallback = "
	    "ask, but nobody could be asked: there is no terminal");
}

void
policy_result_free(struct policy_result *res)
{
	size_t	i;

	for (i = 0; i < res->n; i++) {
		free(res->rcpts[i].fpr);
		free(res->rcpts[i].why);
		free(res->rcpts[i].warning);
	}
	free(res->rcpts);
	free(res->line);
	free(res->dns_cause);
	memset(res, 0, sizeof *res);
}
