/*
 * sync-trust-dns.c: the DNS lookup of a sync's senders
 * (sync-trust-dns.h). What an answer means for the trust store is decided
 * elsewhere: the keys go through dns-sighting.c, as when sending, the
 * rules are trust-rules.c's, and a bogus answer is only remembered
 * (trust-dns.c). Which addresses are asked again is bounded twice: the
 * store's dns.checked (a day) and the DNS cache (the answer's TTL).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <gpgme.h>

#include "crypto.h"
#include "dns-cache.h"
#include "dns-lookup.h"
#include "dns-sighting.h"
#include "frontend.h"
#include "log.h"
#include "sync-trust-dns.h"
#include "xmalloc.h"

struct sync_trust_dns {
	const char		 *mailbox;
	char			**addrs;	/* borrowed from the caller */
	size_t			  n;
	struct dns_result	 *res;		/* one per address, in order */
	size_t			  nres;
	gpgme_ctx_t		  ctx;
};

/* One warning for the lookups that gave no answer. */
static void
sync_trust_dns_warn(struct sync_trust_dns *d, size_t n, const char *why)
{
	fe_notice(FE_WARNING, "%s%strust: the key%s of %zu sender%s not "
	    "looked up in DNS: %s", d->mailbox != NULL ? d->mailbox : "",
	    d->mailbox != NULL ? ": " : "", n == 1 ? "" : "s", n,
	    n == 1 ? " was" : "s were", why);
}

static void
sync_trust_dns_mark(struct trust_store *ts, const char *addr,
    enum trust_dns_answer a, const struct dns_result *res, time_t now)
{
	char	*cause = NULL;

	if (trust_store_dns_answer(ts, addr, a, res->owner, res->why, now,
	    &cause) == -1) {
		log_msg(LOG_INFO, "sync-trust: %s: %s", addr, cause);
		free(cause);
	}
}

/* Ask DNS about addr again: never answered, a day since, or last bogus. */
static int
sync_trust_dns_due(struct trust_store *ts, const char *addr, time_t now)
{
	struct trust_dns	 td;
	char			*cause = NULL;
	int			 due;

	if (trust_store_dns(ts, addr, &td, &cause) == -1) {
		log_msg(LOG_INFO, "sync-trust: %s: %s", addr, cause);
		free(cause);
		return 0;
	}
	due = td.bogus != 0 || td.checked == 0 ||
	    now - td.checked >= DNS_CACHE_MAX_TTL;
	trust_dns_free(&td);
	return due;
}

/* One answer, before the messages are decided. */
static void
sync_trust_dns_one(struct trust_store *ts, struct sync_trust_dns *d,
    size_t j, time_t now)
{
	struct dns_result	*res = &d->res[j];
	char			**fprs;
	size_t			  i, nf;

	log_msg(LOG_INFO, "sync-trust: DNS for %s: %s%s", d->addrs[j],
	    dns_status_name(res->status), res->cached ? " (cached)" : "");
	switch (res->status) {
	case DNS_SECURE:
		dns_sighting_openpgp(ts, d->ctx, d->addrs[j], res, now);
		sync_trust_dns_mark(ts, d->addrs[j], TRUST_DNS_SECURE, res,
		    now);
		break;
	case DNS_INSECURE:
		/* Imported, so gpg can check; sighted only afterwards. */
		dns_sighting_import(d->ctx, d->addrs[j], res, &fprs, &nf);
		for (i = 0; i < nf; i++)
			free(fprs[i]);
		free(fprs);
		break;
	case DNS_BOGUS:
		sync_trust_dns_mark(ts, d->addrs[j], TRUST_DNS_BOGUS, res, now);
		break;
	case DNS_NONE:
		if (res->secure_denial)
			sync_trust_dns_mark(ts, d->addrs[j], TRUST_DNS_DENIED,
			    res, now);
		break;
	default:
		break;
	}
}

struct sync_trust_dns *
sync_trust_dns_before(struct trust_store *ts, const struct config *cf,
    const char *mailbox, char *const *senders, size_t n)
{
	struct sync_trust_dns	*d;
	struct dns_ctx		*dc;
	char			*cause = NULL;
	const char		*why = NULL;
	size_t			 i, j, failed = 0;
	time_t			 now = time(NULL);
	int			 stripped;

	d = xcalloc(1, sizeof *d);
	d->mailbox = mailbox;
	d->addrs = xcalloc(n + 1, sizeof *d->addrs);
	for (i = 0; i < n; i++) {
		for (j = 0; j < d->n; j++)
			if (strcasecmp(d->addrs[j], senders[i]) == 0)
				break;
		if (j == d->n && sync_trust_dns_due(ts, senders[i], now))
			d->addrs[d->n++] = senders[i];
	}
	if (d->n == 0)
		goto none;
	fe_progress("trust: looking up senders' keys in DNS", 0, 1);
	if ((dc = dns_open(cf, &cause)) == NULL)
		goto fail;
	/*
	 * A resolver found earlier in this process to strip DNSSEC data
	 * can validate nothing: not asked, and not a warning at every
	 * sync (--lookup and sending say it).
	 */
	if (dns_problem(dc) != NULL) {
		log_msg(LOG_INFO, "sync-trust: no DNS lookup: %s",
		    dns_problem(dc));
		dns_close(dc);
		goto none;
	}
	if (dns_lookup(dc, d->addrs, d->n, DNS_WANT_OPENPGPKEY,
	    dns_timeout_ms(cf), &d->res, &d->nres, &cause) == -1) {
		dns_close(dc);
		goto fail;
	}
	/* Found by this lookup: its errors are that, said in the log. */
	stripped = dns_problem(dc) != NULL;
	dns_close(dc);
	if ((d->ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, &cause)) == NULL)
		goto fail;
	for (j = 0; j < d->nres && j < d->n; j++) {
		sync_trust_dns_one(ts, d, j, now);
		switch (d->res[j].status) {
		case DNS_SERVFAIL:
		case DNS_TIMEOUT:
		case DNS_ERROR:
			if (stripped && d->res[j].status == DNS_ERROR)
				break;
			if (failed++ == 0)
				why = d->res[j].why;
			break;
		default:
			break;
		}
	}
	if (failed > 0)
		sync_trust_dns_warn(d, failed, why != NULL ? why :
		    "no answer");
	return d;
fail:
	sync_trust_dns_warn(d, d->n, cause);
	free(cause);
none:
	sync_trust_dns_free(d);
	return NULL;
}

void
sync_trust_dns_after(struct trust_store *ts, struct sync_trust_dns *d)
{
	time_t	now = time(NULL);
	size_t	j;

	if (d == NULL || d->ctx == NULL)
		return;
	for (j = 0; j < d->nres && j < d->n; j++) {
		if (d->res[j].status != DNS_INSECURE)
			continue;
		dns_sighting_openpgp(ts, d->ctx, d->addrs[j], &d->res[j], now);
		sync_trust_dns_mark(ts, d->addrs[j], TRUST_DNS_INSECURE,
		    &d->res[j], now);
	}
}

void
sync_trust_dns_free(struct sync_trust_dns *d)
{
	if (d == NULL)
		return;
	dns_results_free(d->res, d->nres);
	if (d->ctx != NULL)
		crypto_release(d->ctx);
	free(d->addrs);
	free(d);
}
