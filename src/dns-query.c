/*
 * dns-query.c: questions of any name and type through the validating
 * resolver of dns-lookup.c (see dns-query.h), and the SRV and MX RDATA
 * parsers.
 *
 * The context is dns-lookup.c's, held locked for the whole question, as
 * dns_lookup() holds it: unbound's callbacks run inside ub_process() on
 * this thread. What is still out at the deadline is cancelled and called
 * a timeout. A bogus answer keeps its reason, never its data.
 *
 * Never prints; RDATA from the network is checked octet by octet before
 * anything is copied out of it, and names are limited to host-name
 * characters, so what is shown later needs no further escaping.
 */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <unbound.h>

#include "buf.h"
#include "clock.h"
#include "dns-query.h"
#include "xmalloc.h"

#define DNS_QUERY_RCODE_SERVFAIL	2
#define DNS_QUERY_RCODE_NXDOMAIN	3
#define DNS_QUERY_NAME_MAX		255
#define DNS_QUERY_LABEL_MAX		63

struct dns_query_one {
	struct dns_answer	*a;
	int			 async_id;
	int			 asked, done;
	int			*pending;
};

static void
dns_query_classify(int err, struct ub_result *res, struct dns_answer *a)
{
	size_t	i, n;

	if (err != 0) {
		a->status = DNS_ERROR;
		a->why = xstrdup(ub_strerror(err));
		return;
	}
	if (res->bogus) {
		a->status = DNS_BOGUS;
		a->why = xstrdup(res->why_bogus != NULL ? res->why_bogus :
		    "DNSSEC validation failed");
		return;
	}
	if (res->rcode == DNS_QUERY_RCODE_SERVFAIL) {
		a->status = DNS_SERVFAIL;
		a->why = xstrdup("the resolver could not get an answer");
		return;
	}
	if (res->rcode == DNS_QUERY_RCODE_NXDOMAIN ||
	    (res->rcode == 0 && !res->havedata)) {
		a->status = DNS_NONE;
		return;
	}
	if (res->rcode != 0) {
		a->status = DNS_ERROR;
		a->why = xasprintf("the resolver answered with rcode %d",
		    res->rcode);
		return;
	}
	for (n = 0; res->data[n] != NULL; n++)
		;
	a->rdata = xcalloc(n, sizeof *a->rdata);
	a->len = xcalloc(n, sizeof *a->len);
	for (i = 0; i < n; i++) {
		a->len[i] = res->len[i] > 0 ? (size_t)res->len[i] : 0;
		a->rdata[i] = xmalloc(a->len[i] + 1);
		memcpy(a->rdata[i], res->data[i], a->len[i]);
	}
	a->n = n;
	a->status = res->secure ? DNS_SECURE : DNS_INSECURE;
}

static void
dns_query_callback(void *arg, int err, struct ub_result *res)
{
	struct dns_query_one	*q = arg;

	dns_query_classify(err, res, q->a);
	if (res != NULL)
		ub_resolve_free(res);
	q->done = 1;
	(*q->pending)--;
}

int
dns_query(struct dns_ctx *ctx, const struct dns_question *qs, size_t n,
    int timeout_ms, struct dns_answer **out, char **cause)
{
	struct ub_ctx		*ub;
	struct dns_query_one	*one;
	struct dns_answer	*as;
	struct pollfd		 pfd;
	int64_t			 deadline, left;
	size_t			 i;
	int			 pending = 0, err;

	(void)ctx;
	*out = NULL;
	if ((ub = dns_ub_lock()) == NULL) {
		*cause = xstrdup("the DNS resolver is not set up");
		return -1;
	}
	deadline = clock_ms() + (timeout_ms > 0 ? timeout_ms : 1);
	as = xcalloc(n > 0 ? n : 1, sizeof *as);
	one = xcalloc(n > 0 ? n : 1, sizeof *one);
	for (i = 0; i < n; i++) {
		one[i].a = &as[i];
		one[i].pending = &pending;
		err = ub_resolve_async(ub, qs[i].name, qs[i].type, 1, &one[i],
		    dns_query_callback, &one[i].async_id);
		if (err != 0) {
			one[i].done = 1;
			as[i].status = DNS_ERROR;
			as[i].why = xstrdup(ub_strerror(err));
			continue;
		}
		one[i].asked = 1;
		pending++;
	}

	pfd.fd = ub_fd(ub);
	pfd.events = POLLIN;
	while (pending > 0 && (left = deadline - clock_ms()) > 0) {
		if (poll(&pfd, 1, (int)left) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd.revents != 0 && ub_process(ub) != 0)
			break;
	}
	for (i = 0; i < n; i++) {
		if (!one[i].asked || one[i].done)
			continue;
		ub_cancel(ub, one[i].async_id);
		one[i].done = 1;
		as[i].status = DNS_TIMEOUT;
		as[i].why = xstrdup("no answer in time");
	}
	dns_ub_unlock();
	free(one);
	*out = as;
	return 0;
}

void
dns_answers_free(struct dns_answer *as, size_t n)
{
	size_t	i, j;

	if (as == NULL)
		return;
	for (i = 0; i < n; i++) {
		for (j = 0; j < as[i].n; j++)
			free(as[i].rdata[j]);
		free(as[i].rdata);
		free(as[i].len);
		free(as[i].why);
	}
	free(as);
}

/*
 * The uncompressed wire-format name at p[0..len), which must end exactly
 * there, as text without the final dot ("" for the root). NULL with
 * *cause when malformed or not a host name.
 */
static char *
dns_query_name(const unsigned char *p, size_t len, char **cause)
{
	struct buf	 b;
	size_t		 off = 0, l, i, total = 1;

	buf_init(&b);
	for (;;) {
		if (off >= len) {
			*cause = xstrdup("name runs past the end of the record");
			goto fail;
		}
		l = p[off++];
		if (l == 0)
			break;
		if (l > DNS_QUERY_LABEL_MAX) {
			*cause = xstrdup("name has a compressed or too long "
			    "label");
			goto fail;
		}
		if (l > len - off) {
			*cause = xstrdup("name runs past the end of the record");
			goto fail;
		}
		if ((total += l + 1) > DNS_QUERY_NAME_MAX) {
			*cause = xstrdup("name longer than 255 octets");
			goto fail;
		}
		for (i = 0; i < l; i++)
			if (!isalnum(p[off + i]) && p[off + i] != '-' &&
			    p[off + i] != '_') {
				*cause = xstrdup("name is not a host name");
				goto fail;
			}
		if (b.len != 0)
			buf_addc(&b, '.');
		buf_add(&b, p + off, l);
		off += l;
	}
	if (off != len) {
		*cause = xstrdup("octets after the name");
		goto fail;
	}
	buf_addc(&b, '\0');
	return buf_take(&b);

fail:
	buf_free(&b);
	return NULL;
}

static uint16_t
dns_query_u16(const unsigned char *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

int
dns_srv_parse(const unsigned char *p, size_t len, struct dns_srv *srv,
    char **cause)
{
	char	*why = NULL;

	memset(srv, 0, sizeof *srv);
	if (len < 7) {
		*cause = xasprintf("SRV record of %zu octets is too short",
		    len);
		return -1;
	}
	srv->priority = dns_query_u16(p);
	srv->weight = dns_query_u16(p + 2);
	srv->port = dns_query_u16(p + 4);
	if ((srv->target = dns_query_name(p + 6, len - 6, &why)) == NULL) {
		*cause = xasprintf("SRV record: %s", why);
		free(why);
		return -1;
	}
	return 0;
}

int
dns_mx_parse(const unsigned char *p, size_t len, struct dns_mx *mx,
    char **cause)
{
	char	*why = NULL;

	memset(mx, 0, sizeof *mx);
	if (len < 3) {
		*cause = xasprintf("MX record of %zu octets is too short", len);
		return -1;
	}
	mx->preference = dns_query_u16(p);
	if ((mx->host = dns_query_name(p + 2, len - 2, &why)) == NULL) {
		*cause = xasprintf("MX record: %s", why);
		free(why);
		return -1;
	}
	return 0;
}
