/*
 * dns-update.c: the dynamic update of dns-update.h and its check.
 *
 * Sending: libldns builds the UPDATE message (RFC 2136: the zone section,
 * then for each record set a "delete RRset" record of class ANY and the
 * new record), signs it with TSIG (ldns_pkt_tsig_sign) and sends it over
 * TCP; the answer is parsed and its TSIG verified against the request's
 * MAC before its rcode is believed to say NOERROR. doc/dns.md
 * ("Publishing keys") says why libldns and not unbound's own code.
 *
 * Checking: a libunbound context made for each round of questions, set up
 * from the same dns-* settings as dns-lookup.c's, so that no cache (that
 * context's, or dns-cache.c's SQLite one) answers with what was there
 * before the update. Rounds repeat until every record is served with the
 * data sent, or the time is up.
 *
 * Never prints; the TSIG secret is only ever handed to libldns.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <ctype.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <ldns/ldns.h>
#include <unbound.h>

#include "clock.h"
#include "dns-update.h"
#include "xmalloc.h"

#define DNS_UPDATE_FUDGE	300	/* seconds of clock skew allowed */
#define DNS_UPDATE_ROOT_KEY	"/usr/share/dns/root.key"
#define DNS_UPDATE_ROUND_MS	250	/* between rounds of the check */

/*
 * TSIG algorithms by the names nsupdate takes, and ldns's names: those
 * libldns signs with (1.8 has no hmac-sha384 or hmac-sha224).
 */
static const struct {
	const char	*name;
	const char	*ldns;
} dns_update_algs[] = {
	{ "hmac-sha1", "hmac-sha1." },
	{ "hmac-sha256", "hmac-sha256." },
	{ "hmac-sha512", "hmac-sha512." },
};

struct dns_update_key {
	const char	*alg;		/* ldns's name */
	char		*name;
	char		*secret;
};

/* A DNS name: labels of letters, digits, '-', '_', at most 253 octets. */
static int
dns_update_valid_name(const char *s)
{
	size_t	 label = 0, n = strlen(s);

	if (n == 0 || n > 254 || strcmp(s, ".") == 0)
		return 0;
	for (; *s != '\0'; s++) {
		if (*s == '.') {
			if (label == 0)
				return 0;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return 0;
		if (++label > 63)
			return 0;
	}
	return 1;
}

/* Split ALGORITHM:NAME:SECRET; -1 with *cause naming no secret. */
static int
dns_update_parse_key(const char *spec, struct dns_update_key *k,
    char **cause)
{
	const char	*c1, *c2;
	ldns_rdf	*rdf = NULL;
	size_t		 i;

	memset(k, 0, sizeof *k);
	if ((c1 = strchr(spec, ':')) == NULL ||
	    (c2 = strchr(c1 + 1, ':')) == NULL || strchr(c2 + 1, ':') != NULL) {
		*cause = xstrdup("expected ALGORITHM:NAME:SECRET (as nsupdate "
		    "-y takes it), e.g. hmac-sha256:NAME:BASE64");
		return -1;
	}
	for (i = 0; i < sizeof dns_update_algs / sizeof dns_update_algs[0];
	    i++)
		if (strlen(dns_update_algs[i].name) == (size_t)(c1 - spec) &&
		    strncasecmp(spec, dns_update_algs[i].name, c1 - spec) == 0)
			k->alg = dns_update_algs[i].ldns;
	if (k->alg == NULL) {
		*cause = xasprintf("unknown TSIG algorithm \"%.*s\" (use "
		    "hmac-sha256, hmac-sha512 or hmac-sha1)",
		    (int)(c1 - spec), spec);
		return -1;
	}
	k->name = xstrndup(c1 + 1, c2 - c1 - 1);
	if (!dns_update_valid_name(k->name)) {
		*cause = xasprintf("\"%s\" is not a key name (a DNS name)",
		    k->name);
		free(k->name);
		k->name = NULL;
		return -1;
	}
	if (c2[1] == '\0' || ldns_str2rdf_b64(&rdf, c2 + 1) != LDNS_STATUS_OK ||
	    ldns_rdf_size(rdf) < 16) {
		ldns_rdf_deep_free(rdf);
		*cause = xasprintf("the secret of key %s is not base64 of at "
		    "least 16 octets", k->name);
		free(k->name);
		k->name = NULL;
		return -1;
	}
	ldns_rdf_deep_free(rdf);
	k->secret = xstrdup(c2 + 1);
	return 0;
}

static void
dns_update_key_free(struct dns_update_key *k)
{
	free(k->name);
	freezero_str(k->secret);
	memset(k, 0, sizeof *k);
}

/* Split HOST[:PORT] or [ADDR]:PORT into allocated host and port. */
static int
dns_update_parse_server(const char *spec, char **host, char **port,
    char **cause)
{
	const char	*c, *end;
	char		*p;
	long		 n;

	*host = *port = NULL;
	if (*spec == '[') {
		if ((end = strchr(spec, ']')) == NULL || end == spec + 1)
			goto bad;
		*host = xstrndup(spec + 1, end - spec - 1);
		c = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && c == NULL)
			goto bad;
	} else if ((c = strchr(spec, ':')) != NULL && strchr(c + 1, ':') == NULL)
		*host = xstrndup(spec, c - spec);
	else {
		/* A bare IPv6 address has colons but no port. */
		*host = xstrdup(spec);
		c = NULL;
	}
	if (**host == '\0')
		goto bad;
	if (c == NULL) {
		*port = xasprintf("%d", DNS_UPDATE_PORT);
		return 0;
	}
	n = strtol(c + 1, &p, 10);
	if (c[1] == '\0' || *p != '\0' || n < 1 || n > 65535)
		goto bad;
	*port = xasprintf("%ld", n);
	return 0;

bad:
	free(*host);
	*host = NULL;
	*cause = xasprintf("\"%s\" is not HOST[:PORT]", spec);
	return -1;
}

int
dns_update_check_server(const char *spec, char **cause)
{
	char	*host, *port;

	if (dns_update_parse_server(spec, &host, &port, cause) == -1)
		return -1;
	free(host);
	free(port);
	return 0;
}

int
dns_update_check_key(const char *spec, char **cause)
{
	struct dns_update_key	 k;

	if (dns_update_parse_key(spec, &k, cause) == -1)
		return -1;
	dns_update_key_free(&k);
	return 0;
}

int
dns_update_check_zone(const char *zone, char **cause)
{
	if (!dns_update_valid_name(zone)) {
		*cause = xasprintf("\"%s\" is not a zone name", zone);
		return -1;
	}
	return 0;
}

char *
dns_update_zone(const struct account *a)
{
	const char	*d;
	size_t		 n;

	if (a->dns_update_zone != NULL) {
		n = strlen(a->dns_update_zone);
		if (n > 0 && a->dns_update_zone[n - 1] == '.')
			n--;
		return xstrndup(a->dns_update_zone, n);
	}
	d = strrchr(a->address, '@');
	return xstrdup(d != NULL ? d + 1 : a->address);
}

/* An owner name as an ldns dname (with the final dot), or NULL. */
static ldns_rdf *
dns_update_dname(const char *name)
{
	ldns_rdf	*rdf;
	char		*s;

	s = xasprintf("%s.", name);
	rdf = ldns_dname_new_frm_str(s);
	free(s);
	return rdf;
}

/* The update section: for each rr, delete its RRset, then add it. */
static ldns_rr_list *
dns_update_section(const struct dns_update_rr *rrs, size_t n, char **cause)
{
	ldns_rr_list	*list;
	ldns_rr		*del, *add;
	ldns_rdf	*owner, *data;
	size_t		 i;

	list = ldns_rr_list_new();
	for (i = 0; i < n; i++) {
		if ((owner = dns_update_dname(rrs[i].owner)) == NULL) {
			*cause = xasprintf("\"%s\" is not a DNS name",
			    rrs[i].owner);
			ldns_rr_list_deep_free(list);
			return NULL;
		}
		/* RFC 2136 2.5.2: class ANY, TTL 0, no data. */
		del = ldns_rr_new();
		ldns_rr_set_owner(del, ldns_rdf_clone(owner));
		ldns_rr_set_type(del, (ldns_rr_type)rrs[i].type);
		ldns_rr_set_class(del, LDNS_RR_CLASS_ANY);
		ldns_rr_set_ttl(del, 0);
		ldns_rr_list_push_rr(list, del);

		/* The data as on the wire, one field of unknown type. */
		add = ldns_rr_new();
		ldns_rr_set_owner(add, owner);
		ldns_rr_set_type(add, (ldns_rr_type)rrs[i].type);
		ldns_rr_set_class(add, LDNS_RR_CLASS_IN);
		ldns_rr_set_ttl(add, rrs[i].ttl);
		data = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_UNKNOWN,
		    rrs[i].len, rrs[i].rdata);
		ldns_rr_push_rdf(add, data);
		ldns_rr_list_push_rr(list, add);
	}
	return list;
}

/* The words for an rcode of an UPDATE answer (RFC 2136 2.2, 8945 5.3). */
static const char *
dns_update_rcode_text(int rcode, int tsig_error)
{
	switch (tsig_error) {
	case 16:
		return "BADSIG: the key's secret is not the server's";
	case 17:
		return "BADKEY: the server knows no key of that name and "
		    "algorithm";
	case 18:
		return "BADTIME: this computer's clock and the server's "
		    "differ by more than five minutes";
	}
	switch (rcode) {
	case LDNS_RCODE_FORMERR:
		return "FORMERR: the server could not read the update";
	case LDNS_RCODE_SERVFAIL:
		return "SERVFAIL: the server failed to make the change";
	case LDNS_RCODE_NOTIMPL:
		return "NOTIMP: the server takes no dynamic updates";
	case LDNS_RCODE_REFUSED:
		return "REFUSED: the server does not let this key update "
		    "the zone";
	case LDNS_RCODE_NOTAUTH:
		return "NOTAUTH: the server is not authoritative for the "
		    "zone, or does not accept the key";
	case LDNS_RCODE_NOTZONE:
		return "NOTZONE: a record is outside the zone";
	}
	return "an unexpected error";
}

/* The TSIG error field of the answer's TSIG record, or 0. */
static int
dns_update_tsig_error(const ldns_pkt *ans)
{
	ldns_rr		*t;
	ldns_rdf	*e;

	if ((t = ldns_pkt_tsig(ans)) == NULL || ldns_rr_rd_count(t) < 6 ||
	    (e = ldns_rr_rdf(t, 5)) == NULL ||
	    ldns_rdf_get_type(e) != LDNS_RDF_TYPE_INT16)
		return 0;
	return ldns_rdf2native_int16(e);
}

/* Send wire to each address of host:port until one answers. */
static enum dns_update_error
dns_update_exchange(const char *host, const char *port, ldns_buffer *q,
    uint8_t **answer, size_t *anslen, char **cause)
{
	struct addrinfo		 hints, *res, *ai;
	struct sockaddr_storage	 ss;
	struct timeval		 tv;
	ldns_status		 st = LDNS_STATUS_NETWORK_ERR;
	int			 err;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((err = getaddrinfo(host, port, &hints, &res)) != 0) {
		*cause = xasprintf("dns-update-server %s: %s", host,
		    gai_strerror(err));
		return DNS_UPDATE_NETWORK;
	}
	tv.tv_sec = DNS_UPDATE_TIMEOUT_MS / 1000;
	tv.tv_usec = 0;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof ss)
			continue;
		memset(&ss, 0, sizeof ss);
		memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
		st = ldns_tcp_send(answer, q, &ss, ai->ai_addrlen, tv, anslen);
		if (st == LDNS_STATUS_OK)
			break;
	}
	freeaddrinfo(res);
	if (st != LDNS_STATUS_OK) {
		*cause = xasprintf("no answer from the DNS server %s port %s: "
		    "%s", host, port, ldns_get_errorstr_by_id(st));
		return DNS_UPDATE_NETWORK;
	}
	return DNS_UPDATE_OK;
}

enum dns_update_error
dns_update_send(const struct account *a, const struct dns_update_rr *rrs,
    size_t n, char **cause)
{
	struct dns_update_key	 k;
	enum dns_update_error	 rc = DNS_UPDATE_FAILED;
	ldns_rr_list		*up = NULL;
	ldns_pkt		*pkt = NULL, *ans = NULL;
	ldns_buffer		*q = NULL;
	ldns_rdf		*zone = NULL, *mac;
	uint8_t			*answer = NULL;
	size_t			 anslen = 0;
	char			*host = NULL, *port = NULL, *zname, *why;
	int			 rcode, terr;

	memset(&k, 0, sizeof k);
	if (a->dns_update_server == NULL || a->dns_update_key == NULL) {
		*cause = xasprintf("account %s has no dns-update-server and "
		    "dns-update-key", a->id);
		return DNS_UPDATE_CONFIG;
	}
	if (dns_update_parse_server(a->dns_update_server, &host, &port,
	    &why) == -1 || dns_update_parse_key(a->dns_update_key, &k,
	    &why) == -1) {
		*cause = xasprintf("account %s: %s", a->id, why);
		free(why);
		rc = DNS_UPDATE_CONFIG;
		goto out;
	}
	zname = dns_update_zone(a);
	zone = dns_update_dname(zname);
	if (zone == NULL) {
		*cause = xasprintf("\"%s\" is not a zone name", zname);
		free(zname);
		rc = DNS_UPDATE_CONFIG;
		goto out;
	}
	if ((up = dns_update_section(rrs, n, cause)) == NULL) {
		free(zname);
		rc = DNS_UPDATE_CONFIG;
		goto out;
	}
	pkt = ldns_update_pkt_new(zone, LDNS_RR_CLASS_IN, NULL, up, NULL);
	zone = NULL;	/* the packet's now */
	if (pkt == NULL) {
		*cause = xstrdup("cannot build the DNS update");
		free(zname);
		goto out;
	}
	ldns_pkt_set_random_id(pkt);
	if (ldns_pkt_tsig_sign(pkt, k.name, k.secret, DNS_UPDATE_FUDGE, k.alg,
	    NULL) != LDNS_STATUS_OK) {
		*cause = xasprintf("cannot sign the update with key %s",
		    k.name);
		free(zname);
		rc = DNS_UPDATE_CONFIG;
		goto out;
	}
	q = ldns_buffer_new(LDNS_MAX_PACKETLEN);
	if (ldns_pkt2buffer_wire(q, pkt) != LDNS_STATUS_OK) {
		*cause = xstrdup("cannot encode the DNS update");
		free(zname);
		goto out;
	}
	if ((rc = dns_update_exchange(host, port, q, &answer, &anslen,
	    cause)) != DNS_UPDATE_OK) {
		free(zname);
		goto out;
	}
	rc = DNS_UPDATE_FAILED;
	if (ldns_wire2pkt(&ans, answer, anslen) != LDNS_STATUS_OK) {
		*cause = xasprintf("the DNS server %s sent an answer that "
		    "cannot be read", host);
		free(zname);
		goto out;
	}
	rcode = ldns_pkt_get_rcode(ans);
	terr = dns_update_tsig_error(ans);
	if (rcode != LDNS_RCODE_NOERROR || terr != 0) {
		*cause = xasprintf("the DNS server %s refused the update of "
		    "%s (%s)", host, zname, dns_update_rcode_text(rcode, terr));
		if (rcode == LDNS_RCODE_REFUSED ||
		    rcode == LDNS_RCODE_NOTAUTH || terr != 0)
			rc = DNS_UPDATE_REFUSED;
		free(zname);
		goto out;
	}
	mac = ldns_rr_rdf(ldns_pkt_tsig(pkt), 3);
	if (ldns_pkt_tsig(ans) == NULL || !ldns_pkt_tsig_verify(ans, answer,
	    anslen, k.name, k.secret, mac)) {
		*cause = xasprintf("the DNS server %s answered the update of "
		    "%s without a valid signature of key %s: it may or may "
		    "not have been made", host, zname, k.name);
		free(zname);
		goto out;
	}
	free(zname);
	rc = DNS_UPDATE_OK;

out:
	ldns_rdf_deep_free(zone);
	ldns_rr_list_deep_free(up);
	ldns_pkt_free(pkt);
	ldns_pkt_free(ans);
	ldns_buffer_free(q);
	free(answer);
	free(host);
	free(port);
	dns_update_key_free(&k);
	return rc;
}

/* A resolver of its own, set up as dns-lookup.c sets up the shared one. */
static struct ub_ctx *
dns_update_resolver(const struct config *cf, char **cause)
{
	struct ub_ctx	*ub;
	struct stat	 sb;
	int		 err, anchor = 0;

	if ((ub = ub_ctx_create()) == NULL) {
		*cause = xstrdup("cannot create a DNS resolver");
		return NULL;
	}
	if ((err = ub_ctx_async(ub, 1)) != 0)
		goto fail;
	if (cf->dns_config != NULL &&
	    (err = ub_ctx_config(ub, cf->dns_config)) != 0)
		goto fail;
	if (cf->dns_forwarder != NULL) {
		if ((err = ub_ctx_set_fwd(ub, cf->dns_forwarder)) != 0)
			goto fail;
	} else if (!cf->dns_recursion && cf->dns_config == NULL &&
	    (err = ub_ctx_resolvconf(ub, NULL)) != 0)
		goto fail;
	if (!cf->dns_recursion && cf->dns_config == NULL &&
	    (err = ub_ctx_set_option(ub, "do-not-query-localhost:", "no")) != 0)
		goto fail;
	if (cf->dns_config == NULL && stat(DNS_UPDATE_ROOT_KEY, &sb) == 0) {
		if ((err = ub_ctx_add_ta_file(ub, DNS_UPDATE_ROOT_KEY)) != 0)
			goto fail;
		anchor = 1;
	}
	if (cf->dns_trust_anchor != NULL) {
		if ((err = ub_ctx_add_ta_file(ub, cf->dns_trust_anchor)) != 0)
			goto fail;
		anchor = 1;
	}
	if (!anchor && cf->dns_config == NULL) {
		*cause = xasprintf("no DNSSEC trust anchor: %s is missing "
		    "(install dns-root-data, or set dns-trust-anchor)",
		    DNS_UPDATE_ROOT_KEY);
		ub_ctx_delete(ub);
		return NULL;
	}
	return ub;

fail:
	*cause = xasprintf("DNS resolver: %s", ub_strerror(err));
	ub_ctx_delete(ub);
	return NULL;
}

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
	} else if (res->rcode == LDNS_RCODE_SERVFAIL) {
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

	if ((ub = dns_update_resolver(cf, cause)) == NULL)
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
