/*
 * fuzz-autoconfig.c: a config-v1.1.xml document as a domain's web server
 * (or whoever answered for it) sends it, through autoconfig_parse(). One
 * that is read keeps at most AUTOCONFIG_SERVERS servers and
 * AUTOCONFIG_DOMAINS domains, each with a port that is one; every string
 * in it is UTF-8 that strsafe() makes terminal-safe, and the placeholders
 * of its host names and usernames fill in or say no. One that is refused
 * says why.
 */
#include "fuzz.h"

#include "autoconfig.h"

static void
safe(const char *s)
{
	char	*t;

	if (s == NULL)
		return;
	t = strsafe(s, 0);
	FUZZ_ASSERT(fuzz_terminal_safe(t, strlen(t)));
	free(t);
}

static void
filled(const char *s)
{
	char	*t;

	if (s == NULL)
		return;
	if ((t = autoconfig_expand(s, "some.one@example.org")) != NULL) {
		FUZZ_ASSERT(strlen(t) <= 64 * strlen(s) + 64);
		free(t);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct autoconfig	*ac;
	char			*cause = NULL;
	size_t			 i;

	if (autoconfig_parse((const char *)data, len, &ac, &cause) == -1) {
		FUZZ_ASSERT(cause != NULL && *cause != '\0');
		free(cause);
		return 0;
	}
	FUZZ_ASSERT(ac->nservers <= AUTOCONFIG_SERVERS);
	FUZZ_ASSERT(ac->ndomains <= AUTOCONFIG_DOMAINS);
	safe(ac->id);
	safe(ac->name);
	for (i = 0; i < ac->ndomains; i++) {
		FUZZ_ASSERT(ac->domains[i] != NULL);
		safe(ac->domains[i]);
		(void)autoconfig_has_domain(ac, ac->domains[i]);
	}
	for (i = 0; i < ac->nservers; i++) {
		FUZZ_ASSERT(ac->servers[i].port <= 65535);
		safe(ac->servers[i].hostname);
		safe(ac->servers[i].username);
		filled(ac->servers[i].hostname);
		filled(ac->servers[i].username);
	}
	safe(ac->enable.url);
	safe(ac->enable.text);
	safe(ac->documentation.url);
	safe(ac->documentation.text);
	safe(ac->app_password.url);
	safe(ac->app_password.text);
	safe(ac->oauth2.issuer);
	safe(ac->oauth2.scope);
	safe(ac->oauth2.auth_url);
	safe(ac->oauth2.token_url);
	safe(ac->oauth2.device_url);
	safe(ac->oauth2.client_id);
	safe(ac->oauth2.client_secret);
	autoconfig_free(ac);
	return 0;
}
