/*
 * discover-dns.c: what DNS says of an address's servers, for discovery
 * (discover-int.h): the SRV records of RFC 6186 and RFC 8314 (_imaps,
 * _imap, _submissions, _submission under _tcp), taken in RFC 2782 order
 * (srv-order.c), a secure answer used, an insecure one only suggested,
 * a bogus one refused with a note; the domain's MX hosts, by preference;
 * and the usual names (imap., smtp., mail. + a domain) at the usual
 * ports, implicit TLS (993, 465) before STARTTLS (143, 587), for the
 * domain itself and for the domain of each MX host.
 *
 * The answers were asked by discover.c; nothing here waits. Never prints.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "discover-int.h"
#include "xmalloc.h"

/* The services, in the order they are preferred for each protocol. */
const struct discover_service discover_services[] = {
	{ "_imaps._tcp", SETUP_IMAP, CONFIG_TLS_IMPLICIT },
	{ "_imap._tcp", SETUP_IMAP, CONFIG_TLS_STARTTLS },
	{ "_submissions._tcp", SETUP_SMTP, CONFIG_TLS_IMPLICIT },
	{ "_submission._tcp", SETUP_SMTP, CONFIG_TLS_STARTTLS }
};
const size_t discover_nservices =
    sizeof discover_services / sizeof discover_services[0];

void
discover_srv(struct discover *d, const struct discover_service *s,
    const struct dns_answer *a)
{
	struct dns_srv	*srv;
	size_t		 i, n = 0;
	char		*cause = NULL, *name;
	enum setup_origin origin;

	name = xasprintf("%s.%s", s->label, d->domain);
	switch (a->status) {
	case DNS_SECURE:
	case DNS_INSECURE:
		break;
	case DNS_NONE:
		free(name);
		return;
	case DNS_BOGUS:
		setup_found_note(d->found, xasprintf("DNS SRV %s is bogus "
		    "(DNSSEC validation failed: %s): refused, it may be an "
		    "attack", name, a->why != NULL ? a->why : "no reason"));
		free(name);
		return;
	default:
		setup_found_note(d->found, xasprintf("DNS SRV %s: %s (%s)",
		    name, dns_status_name(a->status),
		    a->why != NULL ? a->why : "no answer"));
		free(name);
		return;
	}
	origin = a->status == DNS_SECURE ? SETUP_SRV_SECURE :
	    SETUP_SRV_INSECURE;
	srv = xcalloc(a->n > 0 ? a->n : 1, sizeof *srv);
	for (i = 0; i < a->n; i++) {
		if (dns_srv_parse(a->rdata[i], a->len[i], &srv[n],
		    &cause) == -1) {
			setup_found_note(d->found, xasprintf("DNS SRV %s: %s",
			    name, cause));
			free(cause);
			cause = NULL;
			continue;
		}
		n++;
	}
	/* RFC 2782: a single record with target "." means "not offered". */
	if (n == 1 && srv[0].target[0] == '\0')
		setup_found_note(d->found, xasprintf("DNS SRV %s says the "
		    "service is not offered", name));
	else {
		setup_srv_order(srv, n);
		for (i = 0; i < n; i++) {
			if (srv[i].target[0] == '\0' || srv[i].port == 0)
				continue;
			discover_add(d, s->which, s->tls, srv[i].target,
			    srv[i].port, origin, xasprintf("DNS SRV %s (%s)",
			    name, origin == SETUP_SRV_SECURE ?
			    "DNSSEC-secure" : "not DNSSEC-signed: only a "
			    "suggestion"));
		}
	}
	for (i = 0; i < n; i++)
		free(srv[i].target);
	free(srv);
	free(name);
}

static int
discover_mx_cmp(const void *a, const void *b)
{
	const struct dns_mx	*x = a, *y = b;

	return (int)x->preference - (int)y->preference;
}

void
discover_mx(struct discover *d, const struct dns_answer *a)
{
	struct dns_mx	*mx;
	size_t		 i, n = 0;
	char		*cause = NULL;

	if (a->status == DNS_BOGUS) {
		setup_found_note(d->found, xasprintf("DNS MX %s is bogus "
		    "(DNSSEC validation failed: %s): refused", d->domain,
		    a->why != NULL ? a->why : "no reason"));
		return;
	}
	if ((a->status != DNS_SECURE && a->status != DNS_INSECURE) ||
	    a->n == 0)
		return;
	mx = xcalloc(a->n, sizeof *mx);
	for (i = 0; i < a->n; i++) {
		if (dns_mx_parse(a->rdata[i], a->len[i], &mx[n],
		    &cause) == -1) {
			setup_found_note(d->found, xasprintf("DNS MX %s: %s",
			    d->domain, cause));
			free(cause);
			cause = NULL;
			continue;
		}
		n++;
	}
	qsort(mx, n, sizeof *mx, discover_mx_cmp);
	for (i = 0; i < n; i++) {
		if (mx[i].host[0] == '\0') {	/* RFC 7505: no mail */
			free(mx[i].host);
			continue;
		}
		d->mx = xreallocarray(d->mx, d->nmx + 1, sizeof *d->mx);
		d->mx[d->nmx].host = mx[i].host;
		d->mx[d->nmx++].status = a->status;
	}
	free(mx);
}

void
discover_usual(struct discover *d, const char *domain, enum setup_origin o,
    const char *why)
{
	static const struct {
		enum setup_which	 which;
		const char		*prefix;
	} names[] = {
		{ SETUP_IMAP, "imap" }, { SETUP_IMAP, "mail" },
		{ SETUP_SMTP, "smtp" }, { SETUP_SMTP, "mail" }
	};
	size_t		 i, t;
	char		*host;
	enum config_tls	 tls;

	for (t = 0; t < 2; t++) {
		tls = t == 0 ? CONFIG_TLS_IMPLICIT : CONFIG_TLS_STARTTLS;
		for (i = 0; i < sizeof names / sizeof names[0]; i++) {
			host = xasprintf("%s.%s", names[i].prefix, domain);
			discover_add(d, names[i].which, tls, host,
			    setup_usual_port(names[i].which, tls), o,
			    xstrdup(why));
			free(host);
		}
	}
}

void
discover_mx_usual(struct discover *d)
{
	const char	*dot;
	size_t		 i;
	char		*why;

	for (i = 0; i < d->nmx; i++) {
		dot = strchr(d->mx[i].host, '.');
		/* Not the domain itself, nor a top-level domain. */
		if (dot == NULL || strchr(dot + 1, '.') == NULL ||
		    strcasecmp(dot + 1, d->domain) == 0)
			continue;
		why = xasprintf("the domain of %s, the MX host of %s",
		    d->mx[i].host, d->domain);
		discover_usual(d, dot + 1, SETUP_MX, why);
		free(why);
	}
}
