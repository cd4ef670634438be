/*
 * discover-doc.c: config-v1.1 documents in discovery (discover-int.h):
 * the domain's autoconfig (discover-web.c) or one of steedmail's provider
 * files (provider.h), its servers made candidates, and, once the servers
 * are chosen, what the document they came from says of the login and
 * asks of the person.
 *
 * A server of a document is a candidate only when steedmail can use it:
 * IMAP or SMTP, a host name that is one once the address is filled in, a
 * port, and TLS (SSL or STARTTLS); any other is a note ("offers ...
 * without TLS: not used"). The provider files are looked up by the
 * address's domain, else by the domain of its MX hosts (the host less
 * its first labels, one at a time, down to two labels: a Google Workspace
 * domain's MX aspmx.l.google.com gives l.google.com, then google.com),
 * so that a domain hosted at a known provider is found too.
 *
 * Never prints.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "discover-int.h"
#include "xmalloc.h"

#define DOC_HOST_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
			"0123456789.-"

/* The document's name for people: its display name, or its short one. */
static const char *
discover_doc_name(const struct autoconfig *ac)
{
	return ac->name != NULL ? ac->name : "the provider";
}

static const char *
discover_doc_short(const struct autoconfig *ac)
{
	return ac->short_name != NULL ? ac->short_name : "the provider";
}

/* One server of the document into a candidate, or a note why not. */
static void
discover_doc_server(struct discover *d, int doc,
    const struct autoconfig_server *s, enum setup_origin origin,
    const char *from)
{
	struct discover_cand	*c;
	enum setup_which	 which = s->kind == AUTOCONFIG_IMAP ?
				    SETUP_IMAP : SETUP_SMTP;
	const char		*what = autoconfig_kind_name(s->kind);
	enum config_tls		 tls;
	char			*host = NULL, *user = NULL;
	size_t			 n;

	if (s->hostname != NULL)
		host = autoconfig_expand(s->hostname, d->address);
	n = host != NULL ? strlen(host) : 0;
	if (n == 0 || n > 253 || strspn(host, DOC_HOST_CHARS) != n) {
		setup_found_note(d->found, xasprintf("%s names an %s server "
		    "without a host name steedmail can use: not used", from,
		    what));
		goto out;
	}
	if (s->port == 0) {
		setup_found_note(d->found, xasprintf("%s names %s server %s "
		    "without a port: not used", from, what, host));
		goto out;
	}
	if (s->socket == AUTOCONFIG_SOCKET_SSL)
		tls = CONFIG_TLS_IMPLICIT;
	else if (s->socket == AUTOCONFIG_SOCKET_STARTTLS)
		tls = CONFIG_TLS_STARTTLS;
	else {
		setup_found_note(d->found, xasprintf("%s offers %s server "
		    "%s:%u without TLS: not used (steedmail never logs in in "
		    "clear)", from, what, host, s->port));
		goto out;
	}
	if (s->username != NULL &&
	    (user = autoconfig_expand(s->username, d->address)) == NULL)
		setup_found_note(d->found, xasprintf("%s gives a login for "
		    "%s that steedmail does not understand: the address is "
		    "used", from, host));
	if ((c = discover_add(d, which, tls, host, s->port, origin,
	    xstrdup(from))) == NULL)
		goto out;		/* found before, a better way */
	c->doc = doc;
	c->auth = s->auth;
	if (user != NULL && strcmp(user, d->address) != 0) {
		c->user = user;
		user = NULL;
	}
out:
	free(user);
	free(host);
}

void
discover_doc(struct discover *d, const struct autoconfig *ac,
    enum setup_origin origin, char *from)
{
	size_t	i, imap = 0, smtp = 0;
	int	doc = (int)d->ndocs;

	d->docs = xreallocarray(d->docs, d->ndocs + 1, sizeof *d->docs);
	d->docs[d->ndocs].ac = ac;
	d->docs[d->ndocs++].from = from;
	for (i = 0; i < ac->nservers; i++) {
		if (ac->servers[i].kind == AUTOCONFIG_IMAP)
			imap++;
		else
			smtp++;
		discover_doc_server(d, doc, &ac->servers[i], origin, from);
	}
	if (imap == 0 || smtp == 0)
		setup_found_note(d->found, xasprintf("%s names no %s server",
		    from, imap == 0 && smtp == 0 ? "IMAP or submission" :
		    imap == 0 ? "IMAP" : "submission"));
	if (ac->dropped > 0)
		setup_found_note(d->found, xasprintf("%s names %zu servers "
		    "more than the %d steedmail reads: those are not tried",
		    from, ac->dropped, AUTOCONFIG_SERVERS));
}

/* The provider of host's domain or a domain above it (two labels at
 * least); NULL. */
static const struct autoconfig *
discover_provider_above(const struct provider_list *l, const char *host,
    const char **file)
{
	const struct autoconfig	*ac;
	const char		*p = strchr(host, '.');

	while (p != NULL && strchr(p + 1, '.') != NULL) {
		if ((ac = provider_list_find(l, p + 1, file)) != NULL)
			return ac;
		p = strchr(p + 1, '.');
	}
	return NULL;
}

void
discover_providers(struct discover *d, struct provider_list *l)
{
	const struct autoconfig	*ac;
	const char		*file;
	size_t			 i;

	if ((ac = provider_list_find(l, d->domain, &file)) != NULL) {
		discover_doc(d, ac, SETUP_PROVIDER, xasprintf("steedmail's "
		    "provider file %s (%s)", file, discover_doc_name(ac)));
		return;
	}
	for (i = 0; i < d->nmx; i++) {
		if ((ac = discover_provider_above(l, d->mx[i].host,
		    &file)) == NULL)
			continue;
		discover_doc(d, ac, SETUP_PROVIDER_MX, xasprintf("steedmail's "
		    "provider file %s (%s), for %s, the MX host of %s (%s)",
		    file, discover_doc_name(ac), d->mx[i].host, d->domain,
		    d->mx[i].status == DNS_SECURE ? "DNSSEC-secure" :
		    "not DNSSEC-signed: only a suggestion"));
		return;
	}
}

static void
discover_advice(struct setup_found *f, char *line)
{
	f->advice = xreallocarray(f->advice, f->nadvice + 1,
	    sizeof *f->advice);
	f->advice[f->nadvice++] = line;
}

/* "WHAT at URL. TEXT", without the parts the link lacks. */
static char *
discover_link(const char *what, const struct autoconfig_link *l)
{
	return xasprintf("%s%s%s%s%s", what, l->url != NULL ? " at " : "",
	    l->url != NULL ? l->url : "", l->text != NULL ? ". " : "",
	    l->text != NULL ? l->text : "");
}

/* Does the chosen server take only OAuth2? */
static int
discover_oauth2_only(const struct discover_cand *c)
{
	return c != NULL && c->doc != -1 &&
	    (c->auth & AUTOCONFIG_AUTH_OAUTH2) != 0 &&
	    (c->auth & (AUTOCONFIG_AUTH_PASSWORD |
	    AUTOCONFIG_AUTH_PASSWORD_HASH)) == 0;
}

/* Does the chosen server take OAuth2 (perhaps besides a password)? */
static int
discover_oauth2_takes(const struct discover_cand *c)
{
	return c != NULL && c->doc != -1 &&
	    (c->auth & AUTOCONFIG_AUTH_OAUTH2) != 0;
}

/* The endpoints of a document's <oAuth2>, for the account to keep. */
static void
discover_doc_oauth2(struct setup_found *f, const struct autoconfig_oauth2 *o)
{
	f->oauth2_token_url = o->token_url != NULL ? xstrdup(o->token_url) :
	    NULL;
	f->oauth2_device_url = o->device_url != NULL ?
	    xstrdup(o->device_url) : NULL;
	f->oauth2_auth_url = o->auth_url != NULL ? xstrdup(o->auth_url) :
	    NULL;
	f->oauth2_scope = o->scope != NULL ? xstrdup(o->scope) : NULL;
	f->oauth2_client_id = o->client_id != NULL ? xstrdup(o->client_id) :
	    NULL;
}

void
discover_doc_found(struct discover *d, const struct discover_cand *imap,
    const struct discover_cand *smtp)
{
	const struct autoconfig	*ac;
	const struct discover_cand *c;
	struct setup_found	*f = d->found;
	const char		*name, *iu, *su;
	char			*what;
	int			 oi, os;

	c = imap != NULL && imap->doc != -1 ? imap : smtp;
	if (c == NULL || c->doc == -1)
		return;
	ac = d->docs[c->doc].ac;
	name = discover_doc_short(ac);

	f->provider = xstrdup(discover_doc_name(ac));
	if (c->user != NULL)
		f->user = xstrdup(c->user);
	if (imap != NULL && smtp != NULL && imap->doc != -1 &&
	    smtp->doc != -1) {
		iu = imap->user != NULL ? imap->user : d->address;
		su = smtp->user != NULL ? smtp->user : d->address;
		if (strcmp(iu, su) != 0)
			setup_found_note(f, xasprintf("%s gives another login "
			    "for the submission server (%s) than for IMAP "
			    "(%s): steedmail uses the IMAP one for both",
			    discover_doc_name(ac), su, iu));
	}

	oi = discover_oauth2_only(imap);
	os = discover_oauth2_only(smtp);
	if (oi && os && imap->doc == smtp->doc) {
		f->oauth2 = 1;
		discover_doc_oauth2(f, &ac->oauth2);
	} else if (!oi && !os && discover_oauth2_takes(imap) &&
	    discover_oauth2_takes(smtp) && imap->doc == smtp->doc &&
	    ac->oauth2.token_url != NULL) {
		f->oauth2_offered = 1;
		discover_doc_oauth2(f, &ac->oauth2);
	}
	if (oi || os) {
		discover_advice(f, xasprintf("%s takes only OAuth2 sign-in "
		    "for %s: a password will be refused there; set auth = "
		    "oauth2 (and the client ID you registered) for the "
		    "account and sign in with steedmail --oauth-login",
		    name, oi && os ? "IMAP and SMTP" : oi ? "IMAP" : "SMTP"));
		f->oauth2_advice = f->nadvice;
	}
	if (ac->app_password.url != NULL || ac->app_password.text != NULL) {
		what = xasprintf("%s wants an app password instead of your "
		    "account's password: make one", name);
		discover_advice(f, discover_link(what, &ac->app_password));
		f->app_password = xstrdup(f->advice[f->nadvice - 1]);
		free(what);
	}
	if (ac->enable.url != NULL || ac->enable.text != NULL) {
		what = xasprintf("%s: first allow access by IMAP", name);
		discover_advice(f, discover_link(what, &ac->enable));
		free(what);
	}
	if (ac->documentation.url != NULL)
		discover_advice(f, xasprintf("%s's instructions: %s", name,
		    ac->documentation.url));
}
