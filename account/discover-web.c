/*
 * discover-web.c: the domain's own autoconfig document, for discovery
 * (discover-int.h). Two URLs, asked at once on threads of their own
 * while discover.c asks DNS, each over HTTPS with the certificate
 * verified (net-https.h), within DISCOVER_PROBE_SECONDS, at most
 * AUTOCONFIG_MAX bytes, at most three redirects and those to https://
 * only:
 *
 *   https://autoconfig.DOMAIN/mail/config-v1.1.xml?emailaddress=ADDRESS
 *   https://DOMAIN/.well-known/autoconfig/mail/config-v1.1.xml
 *
 * The first that answers with a document that reads (autoconfig.h) is
 * used; the second only when the first has none. Plain HTTP is never
 * asked: what an answer in clear says could come from anyone on the way.
 * Nothing there (no such host, nobody listening, 404) is the ordinary
 * case and goes unsaid; every other failure (a certificate that does not
 * verify, a redirect to plain HTTP, too large, no answer in time, a
 * document refused) is a note, and discovery goes on to its next step.
 *
 * Never prints.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "discover-int.h"
#include "log.h"
#include "xmalloc.h"

#define DISCOVER_WEB_REDIRECTS	3

/* The address as a URL's query value (RFC 3986 unreserved kept). */
static char *
discover_web_escape(const char *s)
{
	struct buf	b;

	buf_init(&b);
	for (; *s != '\0'; s++) {
		if (isalnum((unsigned char)*s) || strchr("-._~", *s) != NULL)
			buf_addc(&b, *s);
		else
			buf_addf(&b, "%%%02X", (unsigned char)*s);
	}
	buf_addc(&b, '\0');
	return buf_take(&b);
}

/* A domain fit to be a URL's host: letters, digits, '-' and '.'. */
static int
discover_web_host(const char *domain)
{
	size_t	n = strlen(domain);

	return n > 0 && n <= 253 && domain[0] != '.' && domain[0] != '-' &&
	    strspn(domain, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") == n;
}

static void *
discover_web_thread(void *arg)
{
	struct discover_fetch	*f = arg;
	struct net_https	 req;

	memset(&req, 0, sizeof req);
	req.ca_file = f->ca_file;
	req.seconds = DISCOVER_PROBE_SECONDS;
	req.max = AUTOCONFIG_MAX;
	req.redirects = DISCOVER_WEB_REDIRECTS;
	f->result = net_https_get(&req, f->url, &f->body, &f->final,
	    &f->cause);
	return NULL;
}

void
discover_web_start(struct discover_web *w, const struct config *cf,
    const char *address)
{
	const char	*domain = strrchr(address, '@');
	char		*q;
	size_t		 i;

	memset(w, 0, sizeof *w);
	if (domain == NULL || !discover_web_host(++domain))
		return;
	q = discover_web_escape(address);
	w->f[0].url = xasprintf("https://autoconfig.%s/mail/"
	    "config-v1.1.xml?emailaddress=%s", domain, q);
	free(q);
	w->f[1].url = xasprintf("https://%s/.well-known/autoconfig/mail/"
	    "config-v1.1.xml", domain);
	for (i = 0; i < 2; i++) {
		buf_init(&w->f[i].body);
		w->f[i].ca_file = cf != NULL ? cf->ca_file : NULL;
		if (pthread_create(&w->f[i].thread, NULL, discover_web_thread,
		    &w->f[i]) == 0)
			w->f[i].started = 1;
		else
			discover_web_thread(&w->f[i]);
	}
}

/* The URL a document came from, without its query (the address). */
static char *
discover_web_source(const struct discover_fetch *f)
{
	const char	*u = f->final != NULL ? f->final : f->url;

	return xstrndup(u, strcspn(u, "?#"));
}

void
discover_web_finish(struct discover_web *w, struct discover *d)
{
	struct discover_fetch	*f;
	char			*cause = NULL, *src;
	size_t			 i;

	for (i = 0; i < 2; i++)
		if (w->f[i].started) {
			pthread_join(w->f[i].thread, NULL);
			w->f[i].started = 0;
		}
	if (d == NULL)
		return;
	for (i = 0; i < 2 && w->ac == NULL; i++) {
		f = &w->f[i];
		if (f->url == NULL)
			continue;
		if (f->result == NET_HTTPS_ABSENT) {
			log_msg(LOG_INFO, "setup: autoconfig: %s", f->cause);
			continue;
		}
		if (f->result == NET_HTTPS_REFUSED) {
			setup_found_note(d->found, xasprintf("autoconfig: %s; "
			    "not used", f->cause));
			continue;
		}
		src = discover_web_source(f);
		if (autoconfig_parse(f->body.data != NULL ? f->body.data : "",
		    f->body.len, &w->ac, &cause) == -1) {
			setup_found_note(d->found, xasprintf("autoconfig: "
			    "%s: %s; not used", src, cause));
			free(cause);
			cause = NULL;
			free(src);
			continue;
		}
		discover_doc(d, w->ac, SETUP_AUTOCONFIG, xasprintf("autoconfig "
		    "%s (HTTPS)", src));
		free(src);
	}
}

void
discover_web_free(struct discover_web *w)
{
	size_t	i;

	for (i = 0; i < 2; i++) {
		free(w->f[i].url);
		buf_free(&w->f[i].body);
		free(w->f[i].final);
		free(w->f[i].cause);
	}
	autoconfig_free(w->ac);
	memset(w, 0, sizeof *w);
}
