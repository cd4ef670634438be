/*
 * policy.c: the encryption policy of policy.h.
 *
 * Keys are searched in a fixed order, and every key found outside the
 * trust store goes through it as a sighting first, so that the trust
 * store's rules alone decide which key is used: a DNS or Autocrypt key
 * for an address whose pinned key is another one never replaces it. A
 * key the store pins but gpg finds revoked or expired is never used, and
 * nothing else takes its place until the user decides (--trust).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpgme.h>

#include "buf.h"
#include "crypto.h"
#include "dns-lookup.h"
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
		if (!uid->revoked && !uid->invalid && uid->email != NULL &&
		    strcasecmp(uid->email, addr) == 0)
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
	if (gpgme_get_key(ctx, fpr, &key, 0) != 0)
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

/* The newest usable key for addr already in the home, or NULL. */
static char *
policy_home_key(gpgme_ctx_t ctx, const char *addr)
{
	gpgme_key_t	 key;
	char		*pattern, *best = NULL;
	long		 when = -1;

	pattern = xasprintf("<%s>", addr);
	if (gpgme_op_keylist_start(ctx, pattern, 0) != 0) {
		free(pattern);
		return NULL;
	}
	free(pattern);
	while (gpgme_op_keylist_next(ctx, &key) == 0) {
		if (!key->revoked && !key->expired && !key->disabled &&
		    !key->invalid && key->can_encrypt &&
		    policy_has_uid(key, addr) && key->subkeys != NULL &&
		    key->subkeys->timestamp > when) {
			free(best);
			best = xstrdup(key->subkeys->fpr);
			when = key->subkeys->timestamp;
		}
		gpgme_key_unref(key);
	}
	gpgme_op_keylist_end(ctx);
	return best;
}

/* Import an OPENPGPKEY record's key; the fingerprint if it is addr's. */
static char *
policy_import(gpgme_ctx_t ctx, const struct dns_record *r, const char *addr)
{
	gpgme_data_t		 d;
	gpgme_import_result_t	 res;
	gpgme_import_status_t	 st;
	gpgme_key_t		 key;
	char			*fpr = NULL;

	if (gpgme_data_new_from_mem(&d, (const char *)r->data, r->len,
	    1) != 0)
		return NULL;
	if (gpgme_op_import(ctx, d) == 0 &&
	    (res = gpgme_op_import_result(ctx)) != NULL) {
		for (st = res->imports; st != NULL; st = st->next) {
			if (st->result != 0 || st->fpr == NULL || fpr != NULL)
				continue;
			if (gpgme_get_key(ctx, st->fpr, &key, 0) == 0) {
				if (policy_has_uid(key, addr))
					fpr = xstrdup(st->fpr);
				gpgme_key_unref(key);
			}
		}
	}
	gpgme_data_release(d);
	return fpr;
}

/* One look-up for every recipient still without a key, one deadline. */
static void
policy_dns(const struct policy_in *in, struct trust_store *ts,
    gpgme_ctx_t ctx, struct policy_result *res, time_t now)
{
	struct dns_ctx		 *dc;
	struct dns_result	 *r = NULL;
	char			**addrs, *cause = NULL, *fpr;
	size_t			 i, j, n = 0, nr = 0, *map;

	addrs = xcalloc(res->n, sizeof *addrs);
	map = xcalloc(res->n, sizeof *map);
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr == NULL && res->rcpts[i].why == NULL) {
			map[n] = i;
			addrs[n++] = (char *)res->rcpts[i].addr;
		}
	}
	if (n == 0 || (dc = dns_open(in->cf, &cause)) == NULL)
		goto out;
	if (dns_lookup(dc, addrs, n, DNS_WANT_OPENPGPKEY,
	    dns_timeout_ms(in->cf), &r, &nr, &cause) == -1) {
		dns_close(dc);
		goto out;
	}
	for (j = 0; j < nr && j < n; j++) {
		struct policy_rcpt *p = &res->rcpts[map[j]];
		if (r[j].status == DNS_BOGUS) {
			free(p->warning);
			p->warning = xasprintf("the DNS answer for %s's key is "
			    "bogus (DNSSEC validation failed: %s): refused, "
			    "possibly an attack", p->addr, r[j].why != NULL ?
			    r[j].why : "no reason given");
			continue;
		}
		if (r[j].status != DNS_SECURE && r[j].status != DNS_INSECURE)
			continue;
		for (i = 0; i < r[j].nrecords; i++) {
			if ((fpr = policy_import(ctx, &r[j].records[i],
			    p->addr)) == NULL)
				continue;
			if (trust_store_sighting(ts, p->addr, fpr, "openpgp",
			    r[j].status == DNS_SECURE ? TRUST_SRC_DNS_SECURE :
			    TRUST_SRC_DNS_INSECURE, now, &cause) == -1) {
				free(cause);
				cause = NULL;
			}
			free(fpr);
		}
	}
	dns_results_free(r, nr);
	dns_close(dc);
out:
	free(cause);
	free(addrs);
	free(map);
}

/* The store's pinned key for p, if gpg can use it; else why not. */
static void
policy_pinned(struct trust_store *ts, gpgme_ctx_t ctx, struct policy_rcpt *p,
    const char *source, time_t now)
{
	struct trust_peer	 peer;
	const char		*why;
	char			*cause = NULL;
	int			 revoked, expired;

	if (trust_store_peer(ts, p->addr, &peer, &cause) == -1) {
		free(cause);
		return;
	}
	p->state = peer.v.state;
	if (peer.pinned != NULL) {
		why = policy_unusable(ctx, peer.pinned, p->addr, &revoked,
		    &expired);
		if ((revoked || expired) && trust_store_key_status(ts,
		    peer.pinned, revoked, expired, now, &cause) == -1) {
			free(cause);
			cause = NULL;
		}
		if (why == NULL && peer.usable) {
			p->fpr = xstrdup(peer.pinned);
			p->source = source;
		} else if (why != NULL || !peer.usable) {
			free(p->why);
			p->why = xasprintf("the key %s %s", peer.pinned,
			    why != NULL ? why : "is revoked or expired");
			if (revoked || expired)
				p->state = revoked ? TRUST_REVOKED :
				    TRUST_EXPIRED;
		}
	}
	trust_peer_free(&peer);
}

static void
policy_line(const struct policy_in *in, struct policy_result *res,
    const char *intro)
{
	struct buf	b;
	size_t		i, k = 0;

	buf_init(&b);
	buf_adds(&b, intro);
	for (i = 0; i < res->n; i++) {
		if (res->rcpts[i].fpr != NULL)
			continue;
		buf_addf(&b, "%s%s%s%s%s", k++ > 0 ? ", " : "",
		    res->rcpts[i].why != NULL ? "" : "no key for ",
		    res->rcpts[i].addr, res->rcpts[i].why != NULL ? ": " : "",
		    res->rcpts[i].why != NULL ? res->rcpts[i].why : "");
	}
	if (res->action == POLICY_REFUSE_SEND && in->fallback == POLICY_ASK &&
	    in->batch && !in->require && in->mode == POLICY_OPPORTUNISTIC)
		buf_adds(&b, " (fallback = ask: nobody to ask in batch mode)");
	res->line = buf_take(&b);
}

int
policy_decide(const struct policy_in *in, char *const *addrs, size_t n,
    struct policy_result *res, char **cause)
{
	struct trust_store	*ts;
	gpgme_ctx_t		 ctx;
	struct policy_rcpt	*p;
	char			*fpr;
	size_t			 i, have = 0;
	time_t			 now = time(NULL);
	int			 must;

	memset(res, 0, sizeof *res);
	res->n = n;
	res->rcpts = xcalloc(n, sizeof *res->rcpts);
	for (i = 0; i < n; i++)
		res->rcpts[i].addr = addrs[i];
	must = in->require || in->replying_encrypted ||
	    in->mode == POLICY_ALWAYS;
	if (in->never || (in->mode == POLICY_NEVER && !must)) {
		res->action = POLICY_CLEAR;
		res->line = xstrdup(in->never ? "sent in clear: --no-encrypt" :
		    "sent in clear: encrypt = never");
		return 0;
	}
	if ((ts = trust_store_open(NULL, cause)) == NULL) {
		policy_result_free(res);
		return -1;
	}
	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL) {
		trust_store_close(ts);
		policy_result_free(res);
		return -1;
	}
	for (i = 0; i < n; i++)
		policy_pinned(ts, ctx, &res->rcpts[i], "trust store", now);
	if (in->use_dns) {
		policy_dns(in, ts, ctx, res, now);
		for (i = 0; i < n; i++) {
			if (res->rcpts[i].fpr == NULL &&
			    res->rcpts[i].why == NULL)
				policy_pinned(ts, ctx, &res->rcpts[i], "DNS",
				    now);
		}
	}
	for (i = 0; i < n; i++) {
		p = &res->rcpts[i];
		if (p->fpr != NULL || p->why != NULL || in->home_empty ||
		    (fpr = policy_home_key(ctx, p->addr)) == NULL)
			continue;
		/* Autocrypt or an import put it there: the store decides. */
		if (trust_store_sighting(ts, p->addr, fpr, "openpgp",
		    TRUST_SRC_MANUAL, now, cause) == 0)
			policy_pinned(ts, ctx, p, "GnuPG home", now);
		else {
			free(*cause);
			*cause = NULL;
		}
		free(fpr);
	}
	gpgme_release(ctx);
	trust_store_close(ts);
	for (i = 0; i < n; i++)
		have += res->rcpts[i].fpr != NULL;
	if (have == n) {
		res->action = POLICY_ENCRYPT;
		res->line = xasprintf("encrypted to %zu recipient%s", n,
		    n == 1 ? "" : "s");
		return 0;
	}
	if (!must && in->fallback == POLICY_PLAINTEXT) {
		res->action = POLICY_CLEAR;
		policy_line(in, res, "sent in clear: ");
		return 0;
	}
	res->action = POLICY_REFUSE_SEND;
	policy_line(in, res, "not sent, it cannot be encrypted: ");
	return 0;
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
	memset(res, 0, sizeof *res);
}
