/*
 * discover.c: setup_discover(), finding an address's IMAP and submission
 * servers (setup.h, step 1).
 *
 * First DNS, asked all at once through the validating resolver
 * (dns-query.h): the SRV records of RFC 6186 and RFC 8314 (_imaps,
 * _imap, _submissions, _submission under _tcp) and the domain's MX. A
 * DNSSEC-secure SRV target is used; an insecure one only suggested, and
 * said so; a bogus answer is refused with a note. SRV targets are taken
 * in RFC 2782 order (srv-order.c). Then, as candidates too, the usual
 * names (imap., smtp., mail. + the domain, and the same under the MX
 * host's domain) at the usual ports, implicit TLS (993, 465) before
 * STARTTLS (143, 587).
 *
 * Every candidate is probed (probe.c) at once, each with a short time-out,
 * so that a domain with nothing is done in a few seconds; the first in
 * the order above whose certificate verified wins. When none verified,
 * an SRV target is still proposed, unverified, with the reason: the login
 * check (check.c) will say what is wrong with it.
 *
 * Called by the wizard's screens (off their thread) and steedmail --setup.
 * Never prints; what was refused goes into the notes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "dns-query.h"
#include "setup-int.h"
#include "xmalloc.h"

#define DISCOVER_DNS_MS		3000	/* at most, for all DNS questions */
#define DISCOVER_PROBE_SECONDS	3	/* per connection and exchange */

/* The services, in the order they are preferred for each protocol. */
static const struct discover_service {
	const char		*label;		/* _imaps._tcp */
	enum setup_which	 which;
	enum config_tls		 tls;
} discover_services[] = {
	{ "_imaps._tcp", SETUP_IMAP, CONFIG_TLS_IMPLICIT },
	{ "_imap._tcp", SETUP_IMAP, CONFIG_TLS_STARTTLS },
	{ "_submissions._tcp", SETUP_SMTP, CONFIG_TLS_IMPLICIT },
	{ "_submission._tcp", SETUP_SMTP, CONFIG_TLS_STARTTLS }
};
#define DISCOVER_NSERVICES \
	(sizeof discover_services / sizeof discover_services[0])

/* One server to try, and what trying it found. */
struct discover_cand {
	enum setup_which	 which;
	struct config_url	 url;
	enum setup_origin	 origin;
	char			*from;		/* where it came from, words */
	const struct config	*cf;
	int			 verified;
	char			*cause;		/* the probe's failure */
	pthread_t		 thread;
	int			 started;
};

struct discover {
	struct discover_cand	*c;
	size_t			 n;
	struct setup_found	*found;
};

const char *
setup_origin_name(enum setup_origin o)
{
	switch (o) {
	case SETUP_NONE:		return "none";
	case SETUP_GIVEN:		return "given";
	case SETUP_SRV_SECURE:		return "srv-secure";
	case SETUP_SRV_INSECURE:	return "srv-insecure";
	case SETUP_GUESS:		return "guess";
	case SETUP_MX:			return "mx";
	}
	return "none";
}

void
setup_found_note(struct setup_found *f, char *note)
{
	f->notes = xreallocarray(f->notes, f->nnotes + 1, sizeof *f->notes);
	f->notes[f->nnotes++] = note;
}

static void
discover_add(struct discover *d, enum setup_which which, enum config_tls tls,
    const char *host, unsigned port, enum setup_origin origin, char *from)
{
	struct discover_cand	*c;
	size_t			 i;

	/* The same server found twice is probed once, by its first way. */
	for (i = 0; i < d->n; i++)
		if (d->c[i].which == which && d->c[i].url.tls == tls &&
		    d->c[i].url.port == port &&
		    strcasecmp(d->c[i].url.host, host) == 0) {
			free(from);
			return;
		}
	d->c = xreallocarray(d->c, d->n + 1, sizeof *d->c);
	c = &d->c[d->n++];
	memset(c, 0, sizeof *c);
	c->which = which;
	c->url.tls = tls;
	c->url.host = xstrdup(host);
	c->url.port = port;
	c->origin = origin;
	c->from = from;
}

/* The SRV answer for service s of domain: candidates, or a note. */
static void
discover_srv(struct discover *d, const struct discover_service *s,
    const char *domain, const struct dns_answer *a)
{
	struct dns_srv	*srv;
	size_t		 i, n = 0;
	char		*cause = NULL, *name;
	enum setup_origin origin;

	name = xasprintf("%s.%s", s->label, domain);
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
	for (i = 0; i < a->n; i++)
		free(srv[i].target);
	free(srv);
	free(name);
}

/* imap., smtp. and mail. + domain at the usual ports. */
static void
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
	size_t	 i, t;
	char	*host;

	for (t = 0; t < 2; t++) {
		for (i = 0; i < sizeof names / sizeof names[0]; i++) {
			host = xasprintf("%s.%s", names[i].prefix, domain);
			discover_add(d, names[i].which, t == 0 ?
			    CONFIG_TLS_IMPLICIT : CONFIG_TLS_STARTTLS, host,
			    setup_usual_port(names[i].which, t == 0 ?
			    CONFIG_TLS_IMPLICIT : CONFIG_TLS_STARTTLS), o,
			    xstrdup(why));
			free(host);
		}
	}
}

/* The MX hosts' domains (the host name less its first label). */
static void
discover_mx(struct discover *d, const char *domain, const struct dns_answer *a)
{
	struct dns_mx	 mx;
	const char	*dot;
	size_t		 i;
	char		*cause = NULL, *why;

	if (a->status == DNS_BOGUS) {
		setup_found_note(d->found, xasprintf("DNS MX %s is bogus "
		    "(DNSSEC validation failed: %s): refused", domain,
		    a->why != NULL ? a->why : "no reason"));
		return;
	}
	if (a->status != DNS_SECURE && a->status != DNS_INSECURE)
		return;
	for (i = 0; i < a->n; i++) {
		if (dns_mx_parse(a->rdata[i], a->len[i], &mx, &cause) == -1) {
			setup_found_note(d->found, xasprintf("DNS MX %s: %s",
			    domain, cause));
			free(cause);
			cause = NULL;
			continue;
		}
		dot = strchr(mx.host, '.');
		/* Not the domain itself, nor a top-level domain. */
		if (dot != NULL && strchr(dot + 1, '.') != NULL &&
		    strcasecmp(dot + 1, domain) != 0) {
			why = xasprintf("the domain of %s, the MX host of %s",
			    mx.host, domain);
			discover_usual(d, dot + 1, SETUP_MX, why);
			free(why);
		}
		free(mx.host);
	}
}

static void *
discover_probe_thread(void *arg)
{
	struct discover_cand	*c = arg;

	c->verified = setup_probe(c->cf, c->which, &c->url,
	    DISCOVER_PROBE_SECONDS, &c->cause) == 0;
	return NULL;
}

static void
discover_probe_all(struct discover *d)
{
	size_t	i;

	for (i = 0; i < d->n; i++) {
		if (pthread_create(&d->c[i].thread, NULL,
		    discover_probe_thread, &d->c[i]) == 0)
			d->c[i].started = 1;
		else
			discover_probe_thread(&d->c[i]);
	}
	for (i = 0; i < d->n; i++)
		if (d->c[i].started)
			pthread_join(d->c[i].thread, NULL);
}

/* Rank of a candidate: lower is better; candidates keep their order. */
static int
discover_rank(const struct discover_cand *c)
{
	switch (c->origin) {
	case SETUP_SRV_SECURE:		return 0;
	case SETUP_SRV_INSECURE:	return 1;
	case SETUP_GUESS:		return 2;
	case SETUP_MX:			return 3;
	default:			return 4;
	}
}

static void
discover_pick(struct discover *d, enum setup_which which,
    struct setup_server *out)
{
	struct discover_cand	*best = NULL, *c;
	size_t			 i;
	int			 rank;

	for (rank = 0; rank < 4 && best == NULL; rank++)
		for (i = 0; i < d->n && best == NULL; i++) {
			c = &d->c[i];
			if (c->which == which && c->verified &&
			    discover_rank(c) == rank)
				best = c;
		}
	/* Nothing verified: an SRV target is still the domain's word. */
	for (i = 0; i < d->n && best == NULL; i++)
		if (d->c[i].which == which && discover_rank(&d->c[i]) < 2)
			best = &d->c[i];
	memset(out, 0, sizeof *out);
	if (best == NULL) {
		out->origin = SETUP_NONE;
		out->how = xstrdup(which == SETUP_IMAP ? "no IMAP server "
		    "found" : "no submission server found");
		return;
	}
	out->url.tls = best->url.tls;
	out->url.host = best->url.host;
	best->url.host = NULL;
	out->url.port = best->url.port;
	out->origin = best->origin;
	out->verified = best->verified;
	if (best->verified)
		out->how = xasprintf("%s, %scertificate verified", best->from,
		    best->url.tls == CONFIG_TLS_STARTTLS ? "STARTTLS, " : "");
	else
		out->how = xasprintf("%s, not verified: %s", best->from,
		    best->cause != NULL ? best->cause : "no answer");
}

static void
discover_free(struct discover *d)
{
	size_t	i;

	for (i = 0; i < d->n; i++) {
		free(d->c[i].url.host);
		free(d->c[i].from);
		free(d->c[i].cause);
	}
	free(d->c);
}

int
setup_discover(const struct config *cf, const char *address,
    struct setup_found *found, char **cause)
{
	struct dns_question	 qs[DISCOVER_NSERVICES + 1];
	struct dns_answer	*as = NULL;
	struct dns_ctx		*dns;
	struct discover		 d;
	const char		*at;
	char			*names[DISCOVER_NSERVICES], *why;
	size_t			 i;
	int			 ms;

	memset(found, 0, sizeof *found);
	if (!addr_valid(address) || (at = strrchr(address, '@')) == NULL) {
		*cause = xasprintf("\"%s\" is not a mail address", address);
		return -1;
	}
	at++;
	if ((dns = dns_open(cf, cause)) == NULL)
		return -1;
	for (i = 0; i < DISCOVER_NSERVICES; i++) {
		names[i] = xasprintf("%s.%s", discover_services[i].label, at);
		qs[i].name = names[i];
		qs[i].type = DNS_TYPE_SRV;
	}
	qs[i].name = at;
	qs[i].type = DNS_TYPE_MX;
	ms = dns_timeout_ms(cf);
	if (ms > DISCOVER_DNS_MS)
		ms = DISCOVER_DNS_MS;
	if (dns_query(dns, qs, DISCOVER_NSERVICES + 1, ms, &as,
	    cause) == -1) {
		for (i = 0; i < DISCOVER_NSERVICES; i++)
			free(names[i]);
		dns_close(dns);
		return -1;
	}
	dns_close(dns);

	memset(&d, 0, sizeof d);
	d.found = found;
	for (i = 0; i < DISCOVER_NSERVICES; i++)
		discover_srv(&d, &discover_services[i], at, &as[i]);
	why = xasprintf("the usual name for %s", at);
	discover_usual(&d, at, SETUP_GUESS, why);
	free(why);
	discover_mx(&d, at, &as[DISCOVER_NSERVICES]);
	for (i = 0; i < d.n; i++)
		d.c[i].cf = cf;
	discover_probe_all(&d);
	discover_pick(&d, SETUP_IMAP, &found->imap);
	discover_pick(&d, SETUP_SMTP, &found->smtp);

	discover_free(&d);
	dns_answers_free(as, DISCOVER_NSERVICES + 1);
	for (i = 0; i < DISCOVER_NSERVICES; i++)
		free(names[i]);
	return 0;
}

void
setup_found_free(struct setup_found *f)
{
	size_t	i;

	if (f == NULL)
		return;
	free(f->imap.url.host);
	free(f->imap.how);
	free(f->smtp.url.host);
	free(f->smtp.how);
	for (i = 0; i < f->nnotes; i++)
		free(f->notes[i]);
	free(f->notes);
	memset(f, 0, sizeof *f);
}
