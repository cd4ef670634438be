/*
 * test-dns.c: the parts of the DNS key lookup that need no resolver: owner
 * names (RFC 7929's example), SMIMEA and OPENPGPKEY RDATA parsing, and the
 * answer cache (expiry, negative TTL cap, what is never stored, rebuilding
 * a corrupt file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dns-cache.h"
#include "dns-lookup.h"
#include "tap.h"

static char	dir[] = "/tmp/steed-dns-XXXXXX";
static char	path[256];

static void
test_owner(void)
{
	char	*n;

	n = dns_owner_name("hugh@example.com", DNS_OPENPGPKEY, 0);
	TAP_STR(n, "c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6"
	    "._openpgpkey.example.com", "RFC 7929 example owner name");
	free(n);
	n = dns_owner_name("Hugh@example.com", DNS_OPENPGPKEY, 1);
	TAP_STR(n, "c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6"
	    "._openpgpkey.example.com", "lower-cased local part");
	free(n);
	n = dns_owner_name("Hugh@example.com", DNS_OPENPGPKEY, 0);
	TAP_OK(n != NULL && strncmp(n, "c93f1e40", 8) != 0,
	    "the local part as written hashes differently");
	free(n);
	n = dns_owner_name("hugh@example.com", DNS_SMIMEA, 0);
	TAP_STR(n, "c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6"
	    "._smimecert.example.com", "SMIMEA owner name");
	free(n);
	TAP_OK(dns_owner_name("nodomain", DNS_SMIMEA, 0) == NULL,
	    "no @: no owner name");
	TAP_OK(dns_owner_name("x@", DNS_SMIMEA, 0) == NULL,
	    "empty domain: no owner name");
}

static void
test_parse(void)
{
	struct dns_record	 r;
	unsigned char		 full[] = { 3, 0, 0, 0x30, 0x82, 0x01 };
	unsigned char		 hash[3 + 32] = { 3, 1, 1 };
	unsigned char		 badhash[3 + 20] = { 3, 1, 1 };
	unsigned char		 shortr[] = { 3, 0, 0 };
	char			*cause = NULL;

	TAP_OK(dns_parse_rdata(DNS_SMIMEA, full, sizeof full, &r,
	    &cause) == 0 && r.usage == 3 && r.selector == 0 && r.mtype == 0 &&
	    r.len == 3 && r.data[0] == 0x30, "SMIMEA full certificate");
	free(r.data);
	hash[3] = 0xab;
	TAP_OK(dns_parse_rdata(DNS_SMIMEA, hash, sizeof hash, &r,
	    &cause) == 0 && r.selector == 1 && r.mtype == 1 && r.len == 32 &&
	    r.data[0] == 0xab, "SMIMEA SHA-256 hash");
	free(r.data);
	TAP_OK(dns_parse_rdata(DNS_SMIMEA, badhash, sizeof badhash, &r,
	    &cause) == -1 && cause != NULL, "SMIMEA SHA-256 of 20 octets "
	    "is refused");
	free(cause);
	cause = NULL;
	TAP_OK(dns_parse_rdata(DNS_SMIMEA, shortr, sizeof shortr, &r,
	    &cause) == -1, "SMIMEA without data is refused");
	free(cause);
	cause = NULL;
	TAP_OK(dns_parse_rdata(DNS_OPENPGPKEY, full, 0, &r, &cause) == -1,
	    "empty OPENPGPKEY is refused");
	free(cause);
	cause = NULL;
	TAP_OK(dns_parse_rdata(DNS_OPENPGPKEY, full, sizeof full, &r,
	    &cause) == 0 && r.len == sizeof full, "OPENPGPKEY data kept whole");
	free(r.data);
}

static void
clear(struct dns_result *r)
{
	size_t	i;

	for (i = 0; i < r->nrecords; i++)
		free(r->records[i].data);
	free(r->records);
	memset(r, 0, sizeof *r);
}

static void
test_cache(void)
{
	struct dns_cache	*c;
	struct dns_result	 r, got;
	struct dns_record	 rec[2];
	unsigned char		 k1[] = "key one", k2[] = "cert";
	char			*cause = NULL, wal[300];
	FILE			*f;
	time_t			 now = 1700000000;

	snprintf(path, sizeof path, "%s/dns.sqlite", dir);
	c = dns_cache_open(path, &cause);
	TAP_OK(c != NULL, "cache opens: %s", cause ? cause : "");

	memset(&r, 0, sizeof r);
	rec[0].data = k1;
	rec[0].len = sizeof k1;
	r.status = DNS_SECURE;
	r.ttl = 60;
	r.records = rec;
	r.nrecords = 1;
	TAP_OK(dns_cache_put(c, "a._openpgpkey.x", DNS_OPENPGPKEY, now, &r,
	    &cause) == 0, "a secure answer is stored");
	memset(&got, 0, sizeof got);
	TAP_OK(dns_cache_get(c, "a._openpgpkey.x", DNS_OPENPGPKEY, now + 10,
	    &got, &cause) == 1 && got.status == DNS_SECURE && got.cached &&
	    got.ttl == 50 && got.nrecords == 1 && got.records[0].len ==
	    sizeof k1 && memcmp(got.records[0].data, k1, sizeof k1) == 0,
	    "read back before expiry, TTL counting down");
	clear(&got);
	TAP_OK(dns_cache_get(c, "a._openpgpkey.x", DNS_SMIMEA, now, &got,
	    &cause) == 0, "keyed by type too");
	TAP_OK(dns_cache_get(c, "a._openpgpkey.x", DNS_OPENPGPKEY, now + 60,
	    &got, &cause) == 0 && !got.cached, "gone at expiry");

	rec[1].data = k2;
	rec[1].len = sizeof k2;
	rec[1].usage = 3;
	rec[1].selector = 1;
	rec[1].mtype = 0;
	r.records = &rec[1];
	r.status = DNS_INSECURE;
	TAP_OK(dns_cache_put(c, "a._smimecert.x", DNS_SMIMEA, now, &r,
	    &cause) == 0 && dns_cache_get(c, "a._smimecert.x", DNS_SMIMEA,
	    now, &got, &cause) == 1 && got.status == DNS_INSECURE &&
	    got.records[0].usage == 3 && got.records[0].selector == 1 &&
	    got.records[0].len == sizeof k2, "SMIMEA fields survive the cache");
	clear(&got);

	memset(&r, 0, sizeof r);
	r.status = DNS_NONE;
	r.secure_denial = 1;
	r.ttl = 3600;
	dns_cache_put(c, "n._openpgpkey.x", DNS_OPENPGPKEY, now, &r, &cause);
	TAP_OK(dns_cache_get(c, "n._openpgpkey.x", DNS_OPENPGPKEY, now + 299,
	    &got, &cause) == 1 && got.status == DNS_NONE && got.secure_denial &&
	    got.ttl == 1, "a denial is kept, with its proof");
	clear(&got);
	TAP_OK(dns_cache_get(c, "n._openpgpkey.x", DNS_OPENPGPKEY, now + 300,
	    &got, &cause) == 0, "a denial is kept 300 s at most");

	r.status = DNS_BOGUS;
	r.ttl = 3600;
	dns_cache_put(c, "b._openpgpkey.x", DNS_OPENPGPKEY, now, &r, &cause);
	r.status = DNS_TIMEOUT;
	dns_cache_put(c, "t._openpgpkey.x", DNS_OPENPGPKEY, now, &r, &cause);
	TAP_OK(dns_cache_get(c, "b._openpgpkey.x", DNS_OPENPGPKEY, now, &got,
	    &cause) == 0 && dns_cache_get(c, "t._openpgpkey.x",
	    DNS_OPENPGPKEY, now, &got, &cause) == 0,
	    "bogus and timeout answers are not stored");
	dns_cache_close(c);

	/* A file that is not a database is rebuilt. */
	if ((f = fopen(path, "w")) != NULL) {
		fputs("this is not an SQLite file, not at all, no...", f);
		fclose(f);
	}
	snprintf(wal, sizeof wal, "%s-wal", path);
	unlink(wal);
	c = dns_cache_open(path, &cause);
	TAP_OK(c != NULL && dns_cache_get(c, "a._smimecert.x", DNS_SMIMEA,
	    now, &got, &cause) == 0, "a corrupt file is rebuilt");
	dns_cache_close(c);
}

int
main(void)
{
	char	cmd[300];

	if (mkdtemp(dir) == NULL)
		return 1;
	test_owner();
	test_parse();
	test_cache();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return TAP_DONE();
}
