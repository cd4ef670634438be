/*
 * dns-lookup.c: the validating resolver of dns-lookup.h.
 *
 * There is one libunbound context per process, made by the first
 * dns_open() and kept until exit, so its own cache and its validated
 * trust chain serve every later lookup. A struct dns_ctx is only a handle
 * on it plus the SQLite answer cache (dns-cache.c).
 *
 * A lookup turns every (address, type) into one or two owner names (the
 * local part as written, and lower-cased when that differs, since GnuPG
 * publishes the lower-cased one), answers what it can from the cache, and
 * sends the rest to unbound at once. It then polls unbound's descriptor
 * until all have come back or the one deadline has passed; what is still
 * out is cancelled and called a timeout. A bogus answer is classified and
 * its data thrown away, never copied into the result.
 *
 * When the upstream resolver strips DNSSEC data, every signed answer
 * looks bogus. So the first bogus answer of the process triggers one
 * question for the root's DNSKEY: if even that is bogus, the setup is at
 * fault, not the correspondent's domain, and such answers become
 * DNS_ERROR with one sentence saying so (dns_problem()).
 *
 * Never prints; the commands show what it returns.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <unbound.h>

#include "clock.h"
#include "dns-cache.h"
#include "dns-lookup.h"
#include "hex.h"
#include "log.h"
#include "paths.h"
#include "xmalloc.h"

#define DNS_ROOT_KEY		"/usr/share/dns/root.key"
#define DNS_DEFAULT_TIMEOUT	5		/* seconds */
#define DNS_HASH_OCTETS		28		/* RFC 7929 section 3 */
#define DNS_PROBE_MS		3000		/* at most, for the root */
#define DNS_STRIPPED		"your DNS resolver does not pass DNSSEC " \
				"data; keys from DNS cannot be verified"

#define DNS_RCODE_SERVFAIL	2
#define DNS_RCODE_NXDOMAIN	3

struct dns_ctx {
	struct dns_cache	*cache;		/* NULL: none, not an error */
};

/* The process's one resolver, and what it has learnt about itself. */
static pthread_mutex_t	 dns_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ub_ctx	*dns_ub;
static int		 dns_root_anchor;	/* we gave it the root's key */
static int		 dns_probed;		/* the root was asked */
static char		*dns_problem_text;

/* One question: an owner name of one (address, type). */
struct dns_query {
	size_t			 result;	/* index in the results */
	int			 lower;
	char			*owner;
	enum dns_type		 type;
	int			 async_id;
	int			 asked, done, fresh;
	int			*pending;
	struct dns_result	 ans;		/* address and owner unused */
};

int
dns_timeout_ms(const struct config *cf)
{
	if (cf == NULL || cf->dns_timeout <= 0)
		return DNS_DEFAULT_TIMEOUT * 1000;
	return cf->dns_timeout * 1000;
}

char *
dns_owner_name(const char *address, enum dns_type type, int lower)
{
	const char	*at;
	unsigned char	 digest[32];
	char		*local, *name, *hex;
	size_t		 i, n;

	if ((at = strrchr(address, '@')) == NULL || at == address ||
	    at[1] == '\0')
		return NULL;
	n = (size_t)(at - address);
	local = xstrndup(address, n);
	if (lower)
		for (i = 0; i < n; i++)
			local[i] = (char)tolower((unsigned char)local[i]);
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, local, n, digest) != 0) {
		free(local);
		return NULL;
	}
	free(local);
	hex = hex_encode(digest, DNS_HASH_OCTETS, 0);
	name = xasprintf("%s.%s.%s", hex, type == DNS_SMIMEA ?
	    "_smimecert" : "_openpgpkey", at + 1);
	free(hex);
	/* A trailing dot on the domain would make an empty label. */
	n = strlen(name);
	if (name[n - 1] == '.')
		name[n - 1] = '\0';
	return name;
}

static void
dns_result_clear(struct dns_result *r)
{
	size_t	i;

	for (i = 0; i < r->nrecords; i++)
		free(r->records[i].data);
	free(r->records);
	r->records = NULL;
	r->nrecords = 0;
	free(r->why);
	r->why = NULL;
}

void
dns_results_free(struct dns_result *rs, size_t n)
{
	size_t	i;

	if (rs == NULL)
		return;
	for (i = 0; i < n; i++) {
		dns_result_clear(&rs[i]);
		free(rs[i].address);
		free(rs[i].owner);
	}
	free(rs);
}

/* Set the resolver up from cf; -1 with *cause. Called under dns_lock. */
static int
dns_setup(struct ub_ctx *ub, const struct config *cf, int *root, char **cause)
{
	struct stat	 sb;
	int		 err;

	*root = 0;
	if ((err = ub_ctx_async(ub, 1)) != 0)
		goto ub_fail;
	if (cf->dns_config != NULL &&
	    (err = ub_ctx_config(ub, cf->dns_config)) != 0) {
		*cause = xasprintf("dns-config %s: %s", cf->dns_config,
		    ub_strerror(err));
		return -1;
	}
	if (cf->dns_forwarder != NULL) {
		if ((err = ub_ctx_set_fwd(ub, cf->dns_forwarder)) != 0) {
			*cause = xasprintf("dns-forwarder %s: %s",
			    cf->dns_forwarder, ub_strerror(err));
			return -1;
		}
	} else if (!cf->dns_recursion && cf->dns_config == NULL &&
	    (err = ub_ctx_resolvconf(ub, NULL)) != 0) {
		*cause = xasprintf("cannot use the resolvers of "
		    "/etc/resolv.conf: %s (set dns-forwarder or "
		    "dns-recursion)", ub_strerror(err));
		return -1;
	}
	/* Local resolvers (127.0.0.53, a local unbound) are common. */
	if (!cf->dns_recursion && cf->dns_config == NULL &&
	    (err = ub_ctx_set_option(ub, "do-not-query-localhost:",
	    "no")) != 0)
		goto ub_fail;
	if (cf->dns_config == NULL) {
		if (stat(DNS_ROOT_KEY, &sb) == 0) {
			if ((err = ub_ctx_add_ta_file(ub, DNS_ROOT_KEY)) != 0) {
				*cause = xasprintf("%s: %s", DNS_ROOT_KEY,
				    ub_strerror(err));
				return -1;
			}
			*root = 1;
		} else if (cf->dns_trust_anchor == NULL) {
			*cause = xasprintf("no DNSSEC root trust anchor: %s "
			    "is missing (install dns-root-data, or set "
			    "dns-trust-anchor)", DNS_ROOT_KEY);
			return -1;
		}
	}
	if (cf->dns_trust_anchor != NULL) {
		if ((err = ub_ctx_add_ta_file(ub, cf->dns_trust_anchor)) != 0) {
			*cause = xasprintf("dns-trust-anchor %s: %s",
			    cf->dns_trust_anchor, ub_strerror(err));
			return -1;
		}
		*root = 1;
	}
	return 0;

ub_fail:
	*cause = xasprintf("DNS resolver: %s", ub_strerror(err));
	return -1;
}

struct dns_ctx *
dns_open(const struct config *cf, char **cause)
{
	struct dns_ctx	*ctx;
	char		*dir, *path, *why = NULL;

	pthread_mutex_lock(&dns_lock);
	if (dns_ub == NULL) {
		if ((dns_ub = ub_ctx_create()) == NULL) {
			pthread_mutex_unlock(&dns_lock);
			*cause = xstrdup("cannot create a DNS resolver");
			return NULL;
		}
		if (dns_setup(dns_ub, cf, &dns_root_anchor, cause) == -1) {
			ub_ctx_delete(dns_ub);
			dns_ub = NULL;
			dns_root_anchor = 0;
			pthread_mutex_unlock(&dns_lock);
			return NULL;
		}
	}
	pthread_mutex_unlock(&dns_lock);

	ctx = xcalloc(1, sizeof *ctx);
	/* Without a cache lookups still work, only slower. */
	if ((dir = paths_cache_dir(&why)) != NULL) {
		path = xasprintf("%s/dns.sqlite", dir);
		ctx->cache = dns_cache_open(path, &why);
		free(path);
		free(dir);
	}
	if (ctx->cache == NULL) {
		log_msg(LOG_INFO, "dns: no cache: %s", why);
		free(why);
	}
	return ctx;
}

struct ub_ctx *
dns_resolver_new(const struct config *cf, char **cause)
{
	struct ub_ctx	*ub;
	int		 root;

	if ((ub = ub_ctx_create()) == NULL) {
		*cause = xstrdup("cannot create a DNS resolver");
		return NULL;
	}
	if (dns_setup(ub, cf, &root, cause) == -1) {
		ub_ctx_delete(ub);
		return NULL;
	}
	return ub;
}

void
dns_close(struct dns_ctx *ctx)
{
	if (ctx == NULL)
		return;
	dns_cache_close(ctx->cache);
	free(ctx);
}

struct ub_ctx *
dns_ub_lock(void)
{
	pthread_mutex_lock(&dns_lock);
	if (dns_ub == NULL) {
		pthread_mutex_unlock(&dns_lock);
		return NULL;
	}
	return dns_ub;
}

void
dns_ub_unlock(void)
{
	pthread_mutex_unlock(&dns_lock);
}

const char *
dns_problem(struct dns_ctx *ctx)
{
	const char	*p;

	(void)ctx;
	pthread_mutex_lock(&dns_lock);
	p = dns_problem_text;
	pthread_mutex_unlock(&dns_lock);
	return p;
}

/* What unbound said, into r: the classification of dns-lookup.h. */
static void
dns_classify(enum dns_type type, int err, struct ub_result *res,
    struct dns_result *r)
{
	struct dns_record	 rec;
	char			*cause = NULL;
	int			 i;

	r->ttl = 0;
	if (err != 0) {
		r->status = DNS_ERROR;
		r->why = xstrdup(ub_strerror(err));
		return;
	}
	if (res->bogus) {
		r->status = DNS_BOGUS;
		r->why = xstrdup(res->why_bogus != NULL ? res->why_bogus :
		    "DNSSEC validation failed");
		return;
	}
	if (res->rcode == DNS_RCODE_SERVFAIL) {
		r->status = DNS_SERVFAIL;
		r->why = xstrdup("the resolver could not get an answer");
		return;
	}
	if (res->rcode == DNS_RCODE_NXDOMAIN ||
	    (res->rcode == 0 && !res->havedata)) {
		r->status = DNS_NONE;
		r->secure_denial = res->secure != 0;
		r->ttl = res->ttl > 0 ? (uint32_t)res->ttl : 0;
		return;
	}
	if (res->rcode != 0) {
		r->status = DNS_ERROR;
		r->why = xasprintf("the resolver answered with rcode %d",
		    res->rcode);
		return;
	}
	for (i = 0; res->data[i] != NULL; i++) {
		if (dns_parse_rdata(type, (unsigned char *)res->data[i],
		    (size_t)res->len[i], &rec, &cause) == -1) {
			/* Keep the first reason, skip the record. */
			if (r->why == NULL)
				r->why = cause;
			else
				free(cause);
			cause = NULL;
			continue;
		}
		r->records = xreallocarray(r->records, r->nrecords + 1,
		    sizeof *r->records);
		r->records[r->nrecords++] = rec;
	}
	if (r->nrecords == 0) {
		r->status = DNS_ERROR;
		if (r->why == NULL)
			r->why = xstrdup("no usable record");
		return;
	}
	free(r->why);
	r->why = NULL;
	r->status = res->secure ? DNS_SECURE : DNS_INSECURE;
	r->ttl = res->ttl > 0 ? (uint32_t)res->ttl : 0;
}

static void
dns_callback(void *arg, int err, struct ub_result *res)
{
	struct dns_query	*q = arg;

	dns_classify(q->type, err, res, &q->ans);
	if (res != NULL)
		ub_resolve_free(res);
	q->done = 1;
	q->fresh = 1;
	(*q->pending)--;
}

/* Wait for the queries until they are all in or deadline; cancel the rest. */
static void
dns_wait(struct dns_query *qs, size_t nq, int *pending, int64_t deadline)
{
	struct pollfd	pfd;
	int64_t		left;
	size_t		i;
	int		err;

	pfd.fd = ub_fd(dns_ub);
	pfd.events = POLLIN;
	while (*pending > 0 && (left = deadline - clock_ms()) > 0) {
		if (poll(&pfd, 1, (int)left) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd.revents != 0 && (err = ub_process(dns_ub)) != 0) {
			log_msg(LOG_INFO, "dns: ub_process: %s",
			    ub_strerror(err));
			break;
		}
	}
	for (i = 0; i < nq; i++) {
		if (!qs[i].asked || qs[i].done)
			continue;
		ub_cancel(dns_ub, qs[i].async_id);
		qs[i].done = 1;
		qs[i].ans.status = DNS_TIMEOUT;
		qs[i].ans.why = xstrdup("no answer in time");
		(*pending)--;
	}
}

static void
dns_ask(struct dns_query *q, int *pending)
{
	int	err;

	q->pending = pending;
	err = ub_resolve_async(dns_ub, q->owner, (int)q->type, 1, q,
	    dns_callback, &q->async_id);
	if (err != 0) {
		q->done = 1;
		q->ans.status = DNS_ERROR;
		q->ans.why = xstrdup(ub_strerror(err));
		return;
	}
	q->asked = 1;
	(*pending)++;
}

/*
 * Some answer was bogus: is it the resolver's fault? Ask for the root's
 * DNSKEY once per process, when the root's key is one of our anchors (a
 * dns-trust-anchor file is taken to hold it; if it does not, the root
 * answers insecure and nothing is concluded).
 */
static void
dns_probe_root(int64_t deadline)
{
	struct dns_query	q;
	int			pending = 0;
	int64_t			limit;

	if (dns_probed || !dns_root_anchor)
		return;
	dns_probed = 1;
	memset(&q, 0, sizeof q);
	q.owner = (char *)".";
	q.type = 48;		/* DNSKEY; only its status matters */
	dns_ask(&q, &pending);
	limit = clock_ms() + DNS_PROBE_MS;
	dns_wait(&q, 1, &pending, deadline < limit ? deadline : limit);
	log_msg(LOG_INFO, "dns: the root's DNSKEY: %s%s%s",
	    dns_status_name(q.ans.status), q.ans.why != NULL ? ": " : "",
	    q.ans.why != NULL ? q.ans.why : "");
	/*
	 * Bogus: the DNSKEY came without (valid) signatures. Servfail: the
	 * resolver will not hand it out at all. Either way nothing can be
	 * validated through it. A timeout proves nothing: ask another time.
	 */
	if (q.ans.status == DNS_BOGUS || q.ans.status == DNS_SERVFAIL)
		dns_problem_text = xstrdup(DNS_STRIPPED);
	else if (q.ans.status == DNS_TIMEOUT)
		dns_probed = 0;
	dns_result_clear(&q.ans);
}

/* Rank of a failure when no owner name gave a record: the worst wins. */
static int
dns_rank(enum dns_status s)
{
	switch (s) {
	case DNS_BOGUS:		return 5;
	case DNS_ERROR:		return 4;
	case DNS_TIMEOUT:	return 3;
	case DNS_SERVFAIL:	return 2;
	case DNS_NONE:		return 1;
	default:		return 0;
	}
}

/* Move the answer of q into r. */
static void
dns_take(struct dns_result *r, struct dns_query *q)
{
	r->status = q->ans.status;
	r->secure_denial = q->ans.secure_denial;
	r->ttl = q->ans.ttl;
	r->cached = q->ans.cached;
	r->why = q->ans.why;
	r->records = q->ans.records;
	r->nrecords = q->ans.nrecords;
	r->owner = q->owner;
	r->lower = q->lower;
	memset(&q->ans, 0, sizeof q->ans);
	q->owner = NULL;
}

/* The result of (address, type) from its one or two questions. */
static void
dns_combine(struct dns_result *r, struct dns_query *q, size_t n)
{
	size_t	i, pick = 0;
	int	denied = 1;

	for (i = 0; i < n; i++)
		if (q[i].ans.status == DNS_SECURE ||
		    q[i].ans.status == DNS_INSECURE) {
			dns_take(r, &q[i]);
			return;
		}
	for (i = 0; i < n; i++) {
		if (dns_rank(q[i].ans.status) > dns_rank(q[pick].ans.status))
			pick = i;
		if (q[i].ans.status != DNS_NONE || !q[i].ans.secure_denial)
			denied = 0;
	}
	dns_take(r, &q[pick]);
	if (r->status == DNS_NONE)
		r->secure_denial = denied;
}

int
dns_lookup(struct dns_ctx *ctx, char *const *addrs, size_t naddrs,
    int types, int timeout_ms, struct dns_result **out, size_t *nout,
    char **cause)
{
	static const enum dns_type all[] = { DNS_OPENPGPKEY, DNS_SMIMEA };
	struct dns_result	*rs;
	struct dns_query	*qs;
	enum dns_type		 tv[2];
	size_t			 ntypes = 0, nr, nq = 0, i, j, k, first;
	int64_t			 deadline;
	time_t			 now = time(NULL);
	char			*why = NULL;
	int			 pending = 0, lower, bogus = 0;

	*out = NULL;
	*nout = 0;
	for (i = 0; i < 2; i++)
		if (types & (1 << i))
			tv[ntypes++] = all[i];
	if (ntypes == 0 || naddrs == 0) {
		*cause = xstrdup("nothing to look up");
		return -1;
	}
	if (dns_ub == NULL) {
		*cause = xstrdup("the DNS resolver is not set up");
		return -1;
	}
	deadline = clock_ms() + (timeout_ms > 0 ? timeout_ms : 1);
	nr = naddrs * ntypes;
	rs = xcalloc(nr, sizeof *rs);
	qs = xcalloc(nr * 2, sizeof *qs);

	pthread_mutex_lock(&dns_lock);
	for (i = 0; i < nr; i++) {
		rs[i].address = xstrdup(addrs[i / ntypes]);
		rs[i].type = tv[i % ntypes];
		for (lower = 0; lower < 2; lower++) {
			qs[nq].owner = dns_owner_name(rs[i].address,
			    rs[i].type, lower);
			if (qs[nq].owner == NULL) {
				rs[i].status = DNS_ERROR;
				rs[i].why = xstrdup("not a mail address");
				break;
			}
			if (lower && strcmp(qs[nq].owner,
			    qs[nq - 1].owner) == 0) {
				free(qs[nq].owner);
				qs[nq].owner = NULL;
				break;
			}
			qs[nq].result = i;
			qs[nq].lower = lower;
			qs[nq].type = rs[i].type;
			nq++;
		}
	}
	for (k = 0; k < nq; k++) {
		if (ctx->cache != NULL) {
			switch (dns_cache_get(ctx->cache, qs[k].owner,
			    qs[k].type, now, &qs[k].ans, &why)) {
			case 1:
				qs[k].done = 1;
				continue;
			case -1:
				log_msg(LOG_INFO, "dns: %s", why);
				free(why);
				why = NULL;
				break;
			}
		}
		dns_ask(&qs[k], &pending);
	}
	dns_wait(qs, nq, &pending, deadline);

	for (k = 0; k < nq; k++)
		if (qs[k].ans.status == DNS_BOGUS)
			bogus = 1;
	if (bogus)
		dns_probe_root(deadline);
	for (k = 0; k < nq; k++) {
		if (qs[k].ans.status == DNS_BOGUS &&
		    dns_problem_text != NULL) {
			/* Not an attack: nothing can validate here. */
			dns_result_clear(&qs[k].ans);
			qs[k].ans.status = DNS_ERROR;
			qs[k].ans.why = xstrdup(dns_problem_text);
		}
		if (qs[k].fresh && ctx->cache != NULL &&
		    dns_cache_put(ctx->cache, qs[k].owner, qs[k].type, now,
		    &qs[k].ans, &why) == -1) {
			log_msg(LOG_INFO, "dns: %s", why);
			free(why);
			why = NULL;
		}
	}
	pthread_mutex_unlock(&dns_lock);

	for (k = 0; k < nq; k = j) {
		first = k;
		for (j = k; j < nq && qs[j].result == qs[first].result; j++)
			;
		dns_combine(&rs[qs[first].result], &qs[first], j - first);
	}
	for (k = 0; k < nq; k++) {
		dns_result_clear(&qs[k].ans);
		free(qs[k].owner);
	}
	free(qs);
	*out = rs;
	*nout = nr;
	return 0;
}
