/*
 * dns-update.c: the dynamic update of dns-update.h and its check.
 *
 * Sending: libldns builds the UPDATE message (RFC 2136: the zone section,
 * then for each record set a "delete RRset" record of class ANY and the
 * new record), signs it with TSIG (ldns_pkt_tsig_sign) and sends it over
 * TCP; the answer is parsed and its TSIG verified against the request's
 * MAC before its rcode is believed to say NOERROR. doc/dns.md
 * ("Publishing keys") says why libldns and not unbound's own code. Also
 * the checks of the settings' forms. The check that follows an update is
 * dns-update-check.c's.
 *
 * Never prints; the TSIG secret is only ever handed to libldns.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <ctype.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ldns/ldns.h>

#include "dns-update.h"
#include "xmalloc.h"

#define DNS_UPDATE_FUDGE	300	/* seconds of clock skew allowed */

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

