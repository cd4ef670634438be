/*
 * test-dns-update.c: the dns-update-* settings as config.c reads them
 * (forms checked by dns-update.c, errors at file:line, the secret never in
 * an error), and the zone an account updates.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dns-update.h"
#include "tap.h"

static char	path[] = "/tmp/steed-dnsupd-XXXXXX";

#define SECRET	"c2VjcmV0IG9mIGF0IGxlYXN0IDE2IG9jdGV0cw=="
#define ACCT	"[account a]\naddress = carol@dyn.example.org\n" \
    "imap = imaps://imap.example.org\nsmtp = smtp://smtp.example.org\n"

static struct config *
load(const char *text, char **cause)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL)
		return NULL;
	fputs(text, f);
	fclose(f);
	chmod(path, 0600);
	*cause = NULL;
	return config_load(path, cause);
}

/* text must fail at line with want in the error, and without SECRET. */
static void
bad(const char *text, int line, const char *want)
{
	struct config	*cf;
	char		*cause, prefix[128];
	int		 good;

	cf = load(text, &cause);
	snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
	good = cf == NULL && cause != NULL &&
	    strncmp(cause, prefix, strlen(prefix)) == 0 &&
	    strstr(cause, want) != NULL && strstr(cause, "IG9m") == NULL;
	TAP_OK(good, "error \"%s\" at line %d", want, line);
	if (!good)
		printf("#   got: %s\n", cause != NULL ? cause : "(loaded)");
	config_free(cf);
	free(cause);
}

int
main(void)
{
	struct config	*cf;
	char		*cause, *z;
	int		 fd;

	if ((fd = mkstemp(path)) == -1)
		return 1;
	close(fd);

	cf = load(ACCT "dns-update-server = ns1.example.org\n"
	    "dns-update-key = hmac-sha256:mail-key.:" SECRET "\n", &cause);
	TAP_OK(cf != NULL, "server and key load%s%s", cause ? ": " : "",
	    cause ? cause : "");
	if (cf == NULL)
		return TAP_DONE();
	TAP_STR(cf->accounts->dns_update_server, "ns1.example.org",
	    "dns-update-server kept as given");
	TAP_STR(cf->accounts->dns_update_key,
	    "hmac-sha256:mail-key.:" SECRET, "dns-update-key kept, '=' and all");
	TAP_OK(cf->accounts->dns_update_zone == NULL, "no zone: unset");
	z = dns_update_zone(cf->accounts);
	TAP_STR(z, "dyn.example.org", "the zone defaults to the domain");
	free(z);
	config_free(cf);

	cf = load(ACCT "dns-update-server = [2001:db8::53]:5353\n"
	    "dns-update-key = HMAC-SHA512:k:" SECRET "\n"
	    "dns-update-zone = example.org.\n", &cause);
	TAP_OK(cf != NULL, "IPv6 server with port, hmac-sha512, a parent "
	    "zone%s%s", cause ? ": " : "", cause ? cause : "");
	if (cf != NULL) {
		z = dns_update_zone(cf->accounts);
		TAP_STR(z, "example.org", "dns-update-zone, final dot dropped");
		free(z);
	}
	config_free(cf);
	free(cause);

	bad(ACCT "dns-update-server = ns1.example.org:0\n", 5,
	    "dns-update-server: \"ns1.example.org:0\" is not HOST[:PORT]");
	bad(ACCT "dns-update-server = ns1.example.org:99999\n", 5,
	    "is not HOST[:PORT]");
	bad(ACCT "dns-update-server = [::1\n", 5, "is not HOST[:PORT]");
	bad(ACCT "dns-update-key = hmac-md5:k:" SECRET "\n", 5,
	    "dns-update-key: unknown TSIG algorithm \"hmac-md5\"");
	bad(ACCT "dns-update-key = mail-key:" SECRET "\n", 5,
	    "expected ALGORITHM:NAME:SECRET");
	bad(ACCT "dns-update-key = hmac-sha256:bad name:" SECRET "\n", 5,
	    "\"bad name\" is not a key name");
	bad(ACCT "dns-update-key = hmac-sha256:k:not*base64\n", 5,
	    "the secret of key k is not base64 of at least 16 octets");
	bad(ACCT "dns-update-key = hmac-sha256:k:c2hvcnQ=\n", 5,
	    "not base64 of at least 16 octets");
	bad(ACCT "dns-update-zone = exa mple.org\n", 5,
	    "dns-update-zone: \"exa mple.org\" is not a zone name");
	bad(ACCT "dns-update-server = ns1.example.org\n", 1,
	    "account a has \"dns-update-server\" but no \"dns-update-key\"");
	bad(ACCT "dns-update-key = hmac-sha256:k:" SECRET "\n", 1,
	    "account a has \"dns-update-key\" but no \"dns-update-server\"");
	bad(ACCT "dns-update-server = ns1.example.org\n"
	    "dns-update-key = hmac-sha256:k:" SECRET "\n"
	    "dns-update-zone = other.example.org\n", 1,
	    "dns-update-zone other.example.org does not hold the address's "
	    "domain");
	bad(ACCT "dns-update-server = ns1.example.org\n"
	    "dns-update-key = hmac-sha256:k:" SECRET "\n"
	    "dns-update-zone = n.example.org\n", 1,
	    "does not hold the address's domain");

	TAP_OK(dns_update_check_server("192.0.2.1:53", &cause) == 0,
	    "an IPv4 address with a port");
	TAP_OK(dns_update_check_server("2001:db8::1", &cause) == 0,
	    "a bare IPv6 address");
	unlink(path);
	return TAP_DONE();
}
