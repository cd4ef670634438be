/*
 * dnstime: DNS key lookups through the engine, timed inside one process,
 * for the STEED bench (tests/bench/steed.sh).
 *
 *   dnstime [-r REPS] CONFIG ADDRESS...
 *
 * Loads CONFIG (its dns-* settings), opens the resolver and the answer
 * cache ($XDG_CACHE_HOME/steedmail/dns.sqlite) with dns_open(), and looks
 * up the OPENPGPKEY records of all ADDRESSes at once with dns_lookup(),
 * as sending does (policy.c): first once, then REPS (20) times again,
 * when every answer must come from the cache. Only dns_lookup() is timed,
 * not process start-up, configuration or gpg. With the cache file
 * deleted beforehand, the first lookup is a cold one (DNS, DNSSEC
 * validation, cache writes); the later ones are what a cached lookup
 * costs.
 *
 * Prints, one per line:
 *   open SECONDS                  dns_open()
 *   first SECONDS CACHED          the first lookup; how many were cached
 *   key ADDRESS STATUS HEX        its answer for each address: the first
 *                                 record's data in hex, or "-"
 *   again SECONDS                 each later lookup
 * Every later answer must be cached, with the status and the records of
 * the first, or dnstime exits 1 (so a failed lookup cannot look fast); 2
 * on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "dns-lookup.h"

static void
die(const char *what, const char *cause)
{
	fprintf(stderr, "dnstime: %s%s%s\n", what, cause ? ": " : "",
	    cause ? cause : "");
	exit(1);
}

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The same answer as the first one, from the cache. */
static int
same(const struct dns_result *a, const struct dns_result *b)
{
	size_t	i;

	if (a->status != b->status || a->nrecords != b->nrecords ||
	    !b->cached)
		return 0;
	for (i = 0; i < a->nrecords; i++)
		if (a->records[i].len != b->records[i].len ||
		    memcmp(a->records[i].data, b->records[i].data,
		    a->records[i].len) != 0)
			return 0;
	return 1;
}

int
main(int argc, char **argv)
{
	struct config		*cf;
	struct dns_ctx		*dns;
	struct dns_result	*first, *rs;
	size_t			 n, nfirst, i, j, ncached;
	char			*cause = NULL, *end;
	unsigned long		 reps = 20, r;
	double			 t0, t1;
	int			 c, naddrs;

	while ((c = getopt(argc, argv, "r:")) != -1) {
		switch (c) {
		case 'r':
			reps = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || reps > 100000)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2)
		goto usage;
	if ((cf = config_load(argv[optind], &cause)) == NULL)
		die("configuration", cause);
	naddrs = argc - optind - 1;

	t0 = now_s();
	if ((dns = dns_open(cf, &cause)) == NULL)
		die("dns_open", cause);
	t1 = now_s();
	printf("open %.6f\n", t1 - t0);

	t0 = now_s();
	if (dns_lookup(dns, argv + optind + 1, (size_t)naddrs,
	    DNS_WANT_OPENPGPKEY, dns_timeout_ms(cf), &first, &nfirst,
	    &cause) == -1)
		die("dns_lookup", cause);
	t1 = now_s();
	if (nfirst != (size_t)naddrs)
		die("dns_lookup returned a result count other than the "
		    "address count", NULL);
	for (i = 0, ncached = 0; i < nfirst; i++)
		ncached += first[i].cached != 0;
	printf("first %.6f %zu\n", t1 - t0, ncached);
	for (i = 0; i < nfirst; i++) {
		printf("key %s %s ", first[i].address,
		    dns_status_name(first[i].status));
		if (first[i].nrecords == 0)
			printf("-");
		for (j = 0; j < (first[i].nrecords > 0 ?
		    first[i].records[0].len : 0); j++)
			printf("%02x", first[i].records[0].data[j]);
		printf("\n");
	}

	for (r = 0; r < reps; r++) {
		t0 = now_s();
		if (dns_lookup(dns, argv + optind + 1, (size_t)naddrs,
		    DNS_WANT_OPENPGPKEY, dns_timeout_ms(cf), &rs, &n,
		    &cause) == -1)
			die("dns_lookup", cause);
		t1 = now_s();
		for (i = 0; i < n && i < nfirst; i++)
			if (!same(&first[i], &rs[i])) {
				fprintf(stderr, "dnstime: lookup %lu: %s is "
				    "%s%s, not the first answer from the "
				    "cache\n", r + 2, rs[i].address,
				    dns_status_name(rs[i].status),
				    rs[i].cached ? " (cached)" : "");
				return 1;
			}
		if (n != nfirst)
			die("a later lookup returned another result count",
			    NULL);
		dns_results_free(rs, n);
		printf("again %.6f\n", t1 - t0);
	}
	dns_results_free(first, nfirst);
	dns_close(dns);
	config_free(cf);
	return fflush(stdout) == 0 ? 0 : 1;

usage:
	fprintf(stderr, "usage: dnstime [-r REPS] CONFIG ADDRESS...\n");
	return 2;
}
