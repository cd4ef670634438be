/*
 * dns-update-check.c: dns_update_verify() of dns-update.h, whether DNS
 * serves the records an update sent, and securely.
 *
 * Each round of questions has a libunbound context of its own
 * (dns_resolver_new(): the dns-* settings of the shared one), so that no
 * cache (that context's, or dns-cache.c's SQLite one) answers with what
 * was there before the update. Rounds repeat until every record is served
 * with the data sent, or the time is up. Callers: ui/cli-publish.c, before
 * sending (what DNS has now) and after. Never prints.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unbound.h>

#include "clock.h"
#include "dns-lookup.h"
#include "dns-update.h"
#include "xmalloc.h"

#define DNS_UPDATE_ROUND_MS	250	/* between rounds of the check */
#define DNS_RCODE_SERVFAIL	2

struct dns_update_q {
	const struct dns_update_rr	*rr;
	struct dns_update_check		*check;
	int				 done;
};

/* Classify one answer into q->check. */
static void
dns_update_cb(void *arg, int err, struct ub_result *res)
{
	struct dns_update_q	*q = arg;
	struct dns_update_check	*c = q->check;
	struct dns_record	 r;
	char			*why;
	int			 i;

	q->done = 1;
	if (err != 0) {
		c->status = DNS_ERROR;
		c->why = xstrdup(ub_strerror(err));
		return;
	}
	if (res->bogus) {
		c->status = DNS_BOGUS;
		c->why = xstrdup(res->why_bogus != NULL ? res->why_bogus :
		    "DNSSEC validation failed");
	} else if (res->rcode == DNS_RCODE_SERVFAIL) {
		c->status = DNS_SERVFAIL;
		c->why = xstrdup("the resolver could not get an answer");
	} else if (res->havedata) {
		c->status = res->secure ? DNS_SECURE : DNS_INSECURE;
		if (!res->secure)
			c->why = xstrdup("the zone is not signed (or its "
			    "chain of trust is broken)");
		for (i = 0; res->data[i] != NULL; i++) {
			if ((size_t)res->len[i] == q->rr->len &&
			    memcmp(res->data[i], q->rr->rdata, q->rr->len) == 0)
				c->matches = 1;
			if (dns_parse_rdata(q->rr->type,
			    (unsigned char *)res->data[i], res->len[i], &r,
			    &why) == -1) {
				free(why);
				continue;
			}
			c->served = xreallocarray(c->served, c->nserved + 1,
			    sizeof *c->served);
			c->served[c->nserved++] = r;
		}
		if (!c->matches && c->why == NULL)
			c->why = xstrdup("served, but with other data");
	} else {
		c->status = DNS_NONE;
		c->why = xstrdup("not served (yet)");
	}
	ub_resolve_free(res);
}

static void
dns_update_check_clear(struct dns_update_check *c)
{
	size_t	 i;

	for (i = 0; i < c->nserved; i++)
		free(c->served[i].data);
	free(c->served);
	free(c->why);
	memset(c, 0, sizeof *c);
}

void
dns_update_checks_free(struct dns_update_check *checks, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		dns_update_check_clear(&checks[i]);
}

/* One round: ask everything with a fresh resolver until deadline. */
static int
dns_update_round(const struct config *cf, const struct dns_update_rr *rrs,
    size_t n, struct dns_update_check *checks, int64_t deadline,
    char **cause)
{
	struct ub_ctx		*ub;
	struct dns_update_q	*qs;
	struct pollfd		 pfd;
	int64_t		 now;
	size_t			 i, left;
	char			*name;
	int			 err;

	if ((ub = dns_resolver_new(cf, cause)) == NULL)
		return -1;
	qs = xcalloc(n, sizeof *qs);
	left = 0;
	for (i = 0; i < n; i++) {
		dns_update_check_clear(&checks[i]);
		qs[i].rr = &rrs[i];
		qs[i].check = &checks[i];
		name = xasprintf("%s.", rrs[i].owner);
		err = ub_resolve_async(ub, name, rrs[i].type, 1, &qs[i],
		    dns_update_cb, NULL);
		free(name);
		if (err != 0) {
			checks[i].status = DNS_ERROR;
			checks[i].why = xstrdup(ub_strerror(err));
			qs[i].done = 1;
		} else
			left++;
	}
	while (left > 0 && (now = clock_ms()) < deadline) {
		pfd.fd = ub_fd(ub);
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)(deadline - now)) > 0)
			ub_process(ub);
		for (left = 0, i = 0; i < n; i++)
			if (!qs[i].done)
				left++;
	}
	for (i = 0; i < n; i++)
		if (!qs[i].done) {
			checks[i].status = DNS_TIMEOUT;
			checks[i].why = xstrdup("no answer in time");
		}
	/* Deleting the context cancels what is still out. */
	ub_ctx_delete(ub);
	free(qs);
	return 0;
}

int
dns_update_verify(const struct config *cf, const struct dns_update_rr *rrs,
    size_t n, int wait_ms, struct dns_update_check *checks, char **cause)
{
	struct timespec	 ts;
	int64_t	 end, deadline;
	size_t		 i;
	int		 all;

	memset(checks, 0, n * sizeof *checks);
	end = clock_ms() + (wait_ms > 0 ? (int64_t)wait_ms : 0);
	for (;;) {
		deadline = clock_ms() + (int64_t)dns_timeout_ms(cf);
		if (wait_ms > 0 && deadline > end)
			deadline = end;
		if (dns_update_round(cf, rrs, n, checks, deadline, cause) == -1)
			return -1;
		for (all = 1, i = 0; i < n; i++)
			if (!checks[i].matches)
				all = 0;
		if (all || wait_ms <= 0 ||
		    clock_ms() + DNS_UPDATE_ROUND_MS >= end)
			return 0;
		ts.tv_sec = 0;
		ts.tv_nsec = DNS_UPDATE_ROUND_MS * 1000000L;
		nanosleep(&ts, NULL);
	}
}
