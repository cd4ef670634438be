/*
 * url.c: server URLs as the setup wizard reads them from people
 * (--imap, --smtp, the wizard's fields) and writes them into the
 * configuration: imaps://host[:port], imap://host[:port] (STARTTLS,
 * required), smtps://, smtp:// likewise. config.c reads them back, and
 * setup_save() has config_load() check the result, so this parser only
 * has to be strict, not the last word.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "setup-int.h"
#include "xmalloc.h"

#define URL_HOST_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
			"0123456789.-"

int
setup_url_parse(enum setup_which which, const char *text,
    struct config_url *url, char **cause)
{
	const char	*tls = which == SETUP_IMAP ? "imaps://" : "smtps://";
	const char	*plain = which == SETUP_IMAP ? "imap://" : "smtp://";
	const char	*rest, *colon;
	unsigned long	 port;
	char		*end;
	size_t		 n;

	memset(url, 0, sizeof *url);
	if (strncmp(text, tls, strlen(tls)) == 0) {
		url->tls = CONFIG_TLS_IMPLICIT;
		rest = text + strlen(tls);
	} else if (strncmp(text, plain, strlen(plain)) == 0) {
		url->tls = CONFIG_TLS_STARTTLS;
		rest = text + strlen(plain);
	} else {
		*cause = xasprintf("\"%s\" must start with %s or %s", text,
		    tls, plain);
		return -1;
	}
	url->port = setup_usual_port(which, url->tls);
	n = strspn(rest, URL_HOST_CHARS);
	colon = rest + n;
	if (n == 0 || (*colon != '\0' && *colon != ':')) {
		*cause = xasprintf("\"%s\": expected %shost or %shost:port",
		    text, tls, tls);
		return -1;
	}
	if (*colon == ':') {
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (colon[1] == '\0' || *end != '\0' || port == 0 ||
		    port > 65535 || errno != 0) {
			*cause = xasprintf("\"%s\": bad port number", text);
			return -1;
		}
		url->port = (unsigned)port;
	}
	url->host = xstrndup(rest, n);
	return 0;
}

char *
setup_url_text(enum setup_which which, const struct config_url *url)
{
	const char	*scheme;

	if (which == SETUP_IMAP)
		scheme = url->tls == CONFIG_TLS_IMPLICIT ? "imaps" : "imap";
	else
		scheme = url->tls == CONFIG_TLS_IMPLICIT ? "smtps" : "smtp";
	if (url->port == setup_usual_port(which, url->tls))
		return xasprintf("%s://%s", scheme, url->host);
	return xasprintf("%s://%s:%u", scheme, url->host, url->port);
}
