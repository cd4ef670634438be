/*
 * discover.c: setup_discover(), finding an address's IMAP and submission
 * servers (setup.h, step 1): the order of the steps, the probes, the
 * pick. The steps themselves are in discover-dns.c, discover-web.c and
 * discover-doc.c (discover-int.h).
 *
 * Everything that waits on the network starts at once: the two autoconfig
 * URLs on threads of their own while DNS is asked (the SRV records of RFC
 * 6186 and RFC 8314, and the MX hosts, through the validating resolver,
 * under one deadline). Then every server any step named becomes a
 * candidate, in this order: SRV (a secure answer is used, an insecure one
 * only suggested, a bogus one refused), the autoconfig document, the
 * provider file of the domain, the provider file of an MX host's domain,
 * the usual names of the domain, those of the MX hosts' domains. The same
 * server named twice keeps its first, better way.
 *
 * Every candidate is probed (probe.c) at once, each with a short time-out,
 * without a login; the best origin (enum setup_origin's order, which
 * setup_origin_trust() explains) whose certificate verified wins. When
 * none verified, a server that the domain or steedmail named (SRV,
 * autoconfig, a provider file) is still proposed, unverified, with the
 * reason: the login check (check.c) will say what is wrong with it.
 *
 * Called by the wizard's screens (off their thread) and steedmail --setup.
 * Never prints; what was refused goes into the notes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "discover-int.h"
#include "xmalloc.h"

/* One row per origin: its token and how far it can be trusted. */
static const struct discover_origin {
	enum setup_origin	 origin;
	const char		*name;
	const char		*trust;
} discover_origins[] = {
	{ SETUP_NONE, "none", "nothing found" },
	{ SETUP_GIVEN, "given", "typed by you" },
	{ SETUP_SRV_SECURE, "srv-secure",
	  "the domain's own word, signed with DNSSEC" },
	{ SETUP_AUTOCONFIG, "autoconfig",
	  "the domain's own word over HTTPS: as sure as its web "
	  "certificate" },
	{ SETUP_PROVIDER, "provider",
	  "steedmail's list of providers, from their documentation" },
	{ SETUP_PROVIDER_MX, "provider-mx",
	  "steedmail's list of providers, chosen by the domain's MX host: "
	  "as sure as that DNS answer" },
	{ SETUP_SRV_INSECURE, "srv-insecure",
	  "an unsigned DNS answer: only a suggestion" },
	{ SETUP_GUESS, "guess",
	  "a guess, vouched for only by the server's certificate" },
	{ SETUP_MX, "mx",
	  "a guess from the MX host, vouched for only by the server's "
	  "certificate" }
};
#define DISCOVER_NORIGINS \
	(sizeof discover_origins / sizeof discover_origins[0])

const char *
setup_origin_name(enum setup_origin o)
{
	size_t	i;

	for (i = 0; i < DISCOVER_NORIGINS; i++)
		if (discover_origins[i].origin == o)
			return discover_origins[i].name;
	return "none";
}

const char *
setup_origin_trust(enum setup_origin o)
{
	size_t	i;

	for (i = 0; i < DISCOVER_NORIGINS; i++)
		if (discover_origins[i].origin == o)
			return discover_origins[i].trust;
	return "nothing found";
}

void
setup_found_note(struct setup_found *f, char *note)
{
	f->notes = xreallocarray(f->notes, f->nnotes + 1, sizeof *f->notes);
	f->notes[f->nnotes++] = note;
}

struct discover_cand *
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
			return NULL;
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
	c->cf = d->cf;
	c->doc = -1;
	return c;
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

/* Origins named by the domain or by steedmail, not guessed. */
static int
discover_named(enum setup_origin o)
{
	return o == SETUP_SRV_SECURE || o == SETUP_AUTOCONFIG ||
	    o == SETUP_PROVIDER || o == SETUP_PROVIDER_MX ||
	    o == SETUP_SRV_INSECURE;
}

static const struct discover_cand *
discover_pick(struct discover *d, enum setup_which which,
    struct setup_server *out)
{
	struct discover_cand	*best = NULL, *c;
	size_t			 i;
	enum setup_origin	 o;

	for (o = SETUP_SRV_SECURE; o <= SETUP_MX && best == NULL; o++)
		for (i = 0; i < d->n && best == NULL; i++) {
			c = &d->c[i];
			if (c->which == which && c->verified && c->origin == o)
				best = c;
		}
	/* Nothing verified: a server the domain or steedmail named is
	 * still proposed, the best named first. */
	for (o = SETUP_SRV_SECURE; o <= SETUP_MX && best == NULL; o++)
		for (i = 0; i < d->n && best == NULL; i++)
			if (d->c[i].which == which && d->c[i].origin == o &&
			    discover_named(o))
				best = &d->c[i];
	memset(out, 0, sizeof *out);
	if (best == NULL) {
		out->origin = SETUP_NONE;
		out->how = xstrdup(which == SETUP_IMAP ? "no IMAP server "
		    "found" : "no submission server found");
		return NULL;
	}
	out->url.tls = best->url.tls;
	out->url.host = xstrdup(best->url.host);
	out->url.port = best->url.port;
	out->origin = best->origin;
	out->verified = best->verified;
	out->from = xstrdup(best->from);
	if (best->verified)
		out->probe = xasprintf("%scertificate verified",
		    best->url.tls == CONFIG_TLS_STARTTLS ? "STARTTLS, " : "");
	else
		out->probe = xasprintf("not verified: %s",
		    best->cause != NULL ? best->cause : "no answer");
	out->how = xasprintf("%s, %s", best->from, out->probe);
	return best;
}

static void
discover_free(struct discover *d)
{
	size_t	i;

	for (i = 0; i < d->n; i++) {
		free(d->c[i].url.host);
		free(d->c[i].from);
		free(d->c[i].cause);
		free(d->c[i].user);
	}
	free(d->c);
	for (i = 0; i < d->ndocs; i++)
		free(d->docs[i].from);
	free(d->docs);
	for (i = 0; i < d->nmx; i++)
		free(d->mx[i].host);
	free(d->mx);
}

/* The DNS questions of step 1, all at once; -1 when none can be asked. */
static int
discover_dns(struct discover *d, struct dns_answer **as, char **cause)
{
	struct dns_question	*qs;
	struct dns_ctx		*dns;
	char			**names;
	size_t			 i, n = discover_nservices;
	int			 ms, rc;

	if ((dns = dns_open(d->cf, cause)) == NULL)
		return -1;
	qs = xcalloc(n + 1, sizeof *qs);
	names = xcalloc(n, sizeof *names);
	for (i = 0; i < n; i++) {
		names[i] = xasprintf("%s.%s", discover_services[i].label,
		    d->domain);
		qs[i].name = names[i];
		qs[i].type = DNS_TYPE_SRV;
	}
	qs[n].name = d->domain;
	qs[n].type = DNS_TYPE_MX;
	ms = dns_timeout_ms(d->cf);
	if (ms > DISCOVER_DNS_MS)
		ms = DISCOVER_DNS_MS;
	rc = dns_query(dns, qs, n + 1, ms, as, cause);
	dns_close(dns);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(qs);
	return rc;
}

int
setup_discover(const struct config *cf, const char *address,
    struct setup_found *found, char **cause)
{
	struct provider_list	 providers;
	struct discover_web	 web;
	struct dns_answer	*as = NULL;
	struct discover		 d;
	const struct discover_cand *imap, *smtp;
	const char		*at;
	char			*why = NULL;
	size_t			 i;

	memset(found, 0, sizeof *found);
	if (!addr_valid(address) || (at = strrchr(address, '@')) == NULL) {
		*cause = xasprintf("\"%s\" is not a mail address", address);
		return -1;
	}
	memset(&d, 0, sizeof d);
	d.cf = cf;
	d.address = address;
	d.domain = at + 1;
	d.found = found;

	/* The web while DNS is asked: both are bounded in time. */
	discover_web_start(&web, cf, address);
	if (discover_dns(&d, &as, cause) == -1) {
		discover_web_finish(&web, NULL);
		discover_web_free(&web);
		return -1;
	}
	for (i = 0; i < discover_nservices; i++)
		discover_srv(&d, &discover_services[i], &as[i]);
	discover_mx(&d, &as[discover_nservices]);
	discover_web_finish(&web, &d);

	if (provider_list_load(provider_dir(cf), cf != NULL &&
	    cf->provider_dir != NULL, &providers, &why) == -1) {
		setup_found_note(found, why);
		memset(&providers, 0, sizeof providers);
	}
	for (i = 0; i < providers.nbroken; i++)
		setup_found_note(found, xasprintf("provider file %s: not "
		    "used", providers.broken[i]));
	discover_providers(&d, &providers);

	why = xasprintf("the usual name for %s", d.domain);
	discover_usual(&d, d.domain, SETUP_GUESS, why);
	free(why);
	discover_mx_usual(&d);

	discover_probe_all(&d);
	imap = discover_pick(&d, SETUP_IMAP, &found->imap);
	smtp = discover_pick(&d, SETUP_SMTP, &found->smtp);
	discover_doc_found(&d, imap, smtp);

	discover_free(&d);
	provider_list_free(&providers);
	discover_web_free(&web);
	dns_answers_free(as, discover_nservices + 1);
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
	free(f->imap.from);
	free(f->imap.probe);
	free(f->smtp.url.host);
	free(f->smtp.how);
	free(f->smtp.from);
	free(f->smtp.probe);
	for (i = 0; i < f->nnotes; i++)
		free(f->notes[i]);
	free(f->notes);
	free(f->user);
	free(f->oauth2_token_url);
	free(f->oauth2_device_url);
	free(f->oauth2_auth_url);
	free(f->oauth2_scope);
	free(f->oauth2_client_id);
	for (i = 0; i < f->nadvice; i++)
		free(f->advice[i]);
	free(f->advice);
	free(f->app_password);
	free(f->provider);
	memset(f, 0, sizeof *f);
}
