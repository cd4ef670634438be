/*
 * test-provider.c: provider.c and the provider files steedmail ships
 * (contrib/providers, read from the source tree). Every file reads, no
 * domain is in two of them, every provider has an IMAP and a submission
 * server with TLS; the big providers are found by their domains and by
 * the domains their MX hosts are under, with what each needs (an app
 * password, IMAP switched on, OAuth2 only). A broken file is skipped and
 * named; a missing directory is an empty list unless it was asked for.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "provider.h"
#include "tap.h"
#include "xmalloc.h"

#define SHIPPED	"contrib/providers"

/* The provider of domain: its file and its first server of kind. */
static const struct autoconfig_server *
server(const struct provider_list *l, const char *domain,
    enum autoconfig_kind kind, const char **file)
{
	const struct autoconfig	*ac;
	size_t			 i;

	*file = NULL;
	if ((ac = provider_list_find(l, domain, file)) == NULL)
		return NULL;
	for (i = 0; i < ac->nservers; i++)
		if (ac->servers[i].kind == kind)
			return &ac->servers[i];
	return NULL;
}

static void
found(const struct provider_list *l, const char *domain, const char *want,
    const char *imap, unsigned port)
{
	const struct autoconfig_server	*s;
	const char			*file;

	s = server(l, domain, AUTOCONFIG_IMAP, &file);
	TAP_OK(file != NULL && strcmp(file, want) == 0 && s != NULL &&
	    strcmp(s->hostname, imap) == 0 && s->port == port,
	    "%s: %s, IMAP %s:%u (got %s)", domain, want, imap, port,
	    file != NULL ? file : "nothing");
}

static void
test_shipped(void)
{
	struct provider_list		 l;
	const struct autoconfig		*ac, *other;
	const struct autoconfig_server	*s;
	const char			*file;
	char				*cause = NULL;
	size_t				 i, j, d;
	int				 tls, imap, smtp, twice = 0;

	if (provider_list_load(SHIPPED, 1, &l, &cause) == -1) {
		TAP_OK(0, "the shipped provider files are read (%s)", cause);
		free(cause);
		return;
	}
	TAP_OK(l.n >= 12 && l.nbroken == 0, "%zu provider files read, %zu "
	    "broken%s%s", l.n, l.nbroken, l.nbroken > 0 ? ": " : "",
	    l.nbroken > 0 ? l.broken[0] : "");
	for (i = 0; i < l.n; i++) {
		ac = l.docs[i];
		tls = 1;
		imap = smtp = 0;
		for (j = 0; j < ac->nservers; j++) {
			s = &ac->servers[j];
			if (s->socket != AUTOCONFIG_SOCKET_SSL &&
			    s->socket != AUTOCONFIG_SOCKET_STARTTLS)
				tls = 0;
			if (s->hostname == NULL || s->port == 0 ||
			    s->username == NULL || s->auth == 0)
				tls = 0;
			imap += s->kind == AUTOCONFIG_IMAP;
			smtp += s->kind == AUTOCONFIG_SMTP;
		}
		TAP_OK(imap > 0 && smtp > 0 && tls && ac->ndomains > 0 &&
		    ac->name != NULL, "%s (%s): domains, IMAP and SMTP, all "
		    "with TLS, a port, a login and a method", l.files[i],
		    ac->name);
		for (d = 0; d < ac->ndomains; d++) {
			other = provider_list_find(&l, ac->domains[d], &file);
			if (other != ac) {
				twice = 1;
				TAP_OK(0, "%s is in %s and %s", ac->domains[d],
				    l.files[i], file);
			}
		}
	}
	TAP_OK(!twice, "no domain is in two files");

	found(&l, "gmail.com", "google.xml", "imap.gmail.com", 993);
	found(&l, "GoogleMail.com", "google.xml", "imap.gmail.com", 993);
	found(&l, "google.com", "google.xml", "imap.gmail.com", 993);
	found(&l, "hotmail.com", "outlook.xml", "outlook.office365.com", 993);
	found(&l, "mail.protection.outlook.com", "microsoft365.xml",
	    "outlook.office365.com", 993);
	found(&l, "fastmail.com", "fastmail.xml", "imap.fastmail.com", 993);
	found(&l, "messagingengine.com", "fastmail.xml", "imap.fastmail.com",
	    993);
	found(&l, "mailbox.org", "mailbox-org.xml", "imap.mailbox.org", 993);
	found(&l, "yahoo.com", "yahoo.xml", "imap.mail.yahoo.com", 993);
	found(&l, "icloud.com", "icloud.xml", "imap.mail.me.com", 993);
	found(&l, "gmx.de", "gmx.xml", "imap.gmx.net", 993);
	found(&l, "gmx.com", "gmx-com.xml", "imap.gmx.com", 993);
	found(&l, "web.de", "webde.xml", "imap.web.de", 993);
	found(&l, "posteo.de", "posteo.xml", "posteo.de", 993);
	found(&l, "proton.me", "proton-bridge.xml", "127.0.0.1", 1143);
	TAP_OK(provider_list_find(&l, "example.org", &file) == NULL,
	    "example.org: no provider");

	ac = provider_list_find(&l, "outlook.com", &file);
	TAP_OK(ac != NULL && ac->servers[0].auth == AUTOCONFIG_AUTH_OAUTH2 &&
	    ac->oauth2.token_url != NULL && ac->oauth2.device_url != NULL &&
	    ac->oauth2.client_id == NULL,
	    "Outlook.com: OAuth2 only, its endpoints, no client ID");
	for (i = 0; i < 4; i++) {
		static const char *apps[] = {
			"gmail.com", "fastmail.com", "yahoo.com", "icloud.com"
		};
		ac = provider_list_find(&l, apps[i], &file);
		TAP_OK(ac != NULL && ac->app_password.url != NULL &&
		    strncmp(ac->app_password.url, "https://", 8) == 0 &&
		    ac->app_password.text != NULL,
		    "%s: an app password, where to make one, and how",
		    apps[i]);
	}
	ac = provider_list_find(&l, "web.de", &file);
	TAP_OK(ac != NULL && ac->enable.url != NULL &&
	    strncmp(ac->enable.text, "In WEB.DE's web mail", 20) == 0,
	    "WEB.DE: IMAP to be switched on, said in English");
	ac = provider_list_find(&l, "gmail.com", &file);
	TAP_OK(ac != NULL && ac->oauth2.issuer != NULL &&
	    strcmp(ac->oauth2.issuer, "accounts.google.com") == 0 &&
	    (ac->servers[0].auth & AUTOCONFIG_AUTH_PASSWORD) &&
	    (ac->servers[0].auth & AUTOCONFIG_AUTH_OAUTH2),
	    "Gmail: OAuth2 or a password (an app password), its issuer");
	provider_list_free(&l);
}

static void
test_dirs(void)
{
	struct provider_list	 l;
	char			 dir[] = "/tmp/test-provider.XXXXXX", *path;
	char			*cause = NULL;
	FILE			*f;

	TAP_OK(provider_list_load("/nonexistent/providers", 0, &l,
	    &cause) == 0 && l.n == 0, "a missing directory: no providers");
	provider_list_free(&l);
	TAP_OK(provider_list_load("/nonexistent/providers", 1, &l,
	    &cause) == -1 && cause != NULL && strstr(cause,
	    "/nonexistent/providers") != NULL,
	    "... an error when it was asked for (%s)", cause);
	free(cause);
	TAP_STR(provider_dir(NULL), PROVIDERDIR, "the directory built in");

	if (mkdtemp(dir) == NULL)
		return;
	path = xasprintf("%s/a-broken.xml", dir);
	if ((f = fopen(path, "w")) != NULL) {
		fputs("<!DOCTYPE x [<!ENTITY a \"b\">]><clientConfig/>", f);
		fclose(f);
	}
	free(path);
	path = xasprintf("%s/b-good.xml", dir);
	if ((f = fopen(path, "w")) != NULL) {
		fputs("<clientConfig><emailProvider id=\"t\"><domain>t.test"
		    "</domain></emailProvider></clientConfig>", f);
		fclose(f);
	}
	free(path);
	path = xasprintf("%s/notes.txt", dir);
	if ((f = fopen(path, "w")) != NULL) {
		fputs("not a provider", f);
		fclose(f);
	}
	free(path);
	if (provider_list_load(dir, 1, &l, &cause) == 0) {
		TAP_OK(l.n == 1 && l.nbroken == 1 &&
		    strncmp(l.broken[0], "a-broken.xml: ", 14) == 0 &&
		    strstr(l.broken[0], "DTD") != NULL &&
		    provider_list_find(&l, "T.TEST", NULL) == l.docs[0],
		    "a broken file is skipped and named (%s), the others "
		    "read, other names ignored", l.nbroken > 0 ?
		    l.broken[0] : "none");
		provider_list_free(&l);
	} else {
		TAP_OK(0, "a directory with a broken file (%s)", cause);
		free(cause);
	}
	path = xasprintf("rm -rf '%s'", dir);
	if (system(path) != 0)
		TAP_OK(0, "cleaning %s", dir);
	free(path);
}

int
main(void)
{
	test_shipped();
	test_dirs();
	return TAP_DONE();
}
