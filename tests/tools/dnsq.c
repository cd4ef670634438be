/*
 * dnsq: validating DNS lookup for the steedmail test suite.
 *
 *   dnsq [-c UNBOUND_CONF] [-a TA_FILE] [-s ZONE@IP@PORT]... NAME TYPE
 *
 * Resolves NAME/TYPE (class IN) with libunbound, the way the mail client
 * does, and reports what the validator concluded:
 *
 *   status=secure|insecure|bogus rcode=NOERROR|NXDOMAIN|... havedata=0|1 count=N
 *   why_bogus=...                       (only when bogus)
 *   <rdata in lower-case hex>           (one line per record)
 *
 * -c loads an unbound.conf (ub_ctx_config), e.g. $STEED_DNS_CONF from the
 * test environment; -a adds a trust anchor file; -s adds a stub zone
 * ("steed.test@127.0.0.1@5353"; the port part is optional). TYPE is a
 * mnemonic (A, AAAA, TXT, SRV, MX, DS, DNSKEY, TLSA, SMIMEA, OPENPGPKEY, ...),
 * TYPEnnn, or a number.
 *
 * Exit status: 0 when the lookup completed (whatever the answer), 2 on a
 * usage or library error.
 */

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unbound.h>

static const struct {
	const char *name;
	int type;
} types[] = {
	{ "A", 1 },	     { "NS", 2 },	 { "CNAME", 5 },
	{ "SOA", 6 },	     { "PTR", 12 },	 { "MX", 15 },
	{ "TXT", 16 },	     { "AAAA", 28 },	 { "SRV", 33 },
	{ "NAPTR", 35 },     { "DS", 43 },	 { "SSHFP", 44 },
	{ "RRSIG", 46 },     { "NSEC", 47 },	 { "DNSKEY", 48 },
	{ "NSEC3", 50 },     { "TLSA", 52 },	 { "SMIMEA", 53 },
	{ "CDS", 59 },	     { "CDNSKEY", 60 },	 { "OPENPGPKEY", 61 },
	{ "SVCB", 64 },	     { "HTTPS", 65 },	 { "ANY", 255 },
	{ "CAA", 257 },
};

static const char *const rcodes[] = {
	"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED",
	"YXDOMAIN", "YXRRSET", "NXRRSET", "NOTAUTH", "NOTZONE",
};

static void
usage(void)
{
	fprintf(stderr, "usage: dnsq [-c UNBOUND_CONF] [-a TA_FILE] "
			"[-s ZONE@IP[@PORT]]... NAME TYPE\n");
	exit(2);
}

/* Parse a decimal number in [0, max]; -1 if S is not one. */
static long
number(const char *s, long max)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -1;
	return v;
}

static int
parse_type(const char *s)
{
	size_t i;
	long v;

	for (i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcasecmp(s, types[i].name) == 0)
			return types[i].type;
	if (strncasecmp(s, "TYPE", 4) == 0)
		s += 4;
	v = number(s, 65535);
	return (int)v;
}

static void
fail(const char *what, int err)
{
	fprintf(stderr, "dnsq: %s: %s\n", what, ub_strerror(err));
	exit(2);
}

/* "zone@ip@port" -> ub_ctx_set_stub(ctx, "zone", "ip@port", 0). */
static void
add_stub(struct ub_ctx *ctx, const char *spec)
{
	char *copy, *at;
	int err;

	copy = strdup(spec);
	if (copy == NULL) {
		perror("dnsq");
		exit(2);
	}
	at = strchr(copy, '@');
	if (at == NULL || at == copy || at[1] == '\0') {
		fprintf(stderr, "dnsq: bad stub '%s' (want ZONE@IP[@PORT])\n",
			spec);
		exit(2);
	}
	*at++ = '\0';
	err = ub_ctx_set_stub(ctx, copy, at, 0);
	if (err != 0)
		fail("ub_ctx_set_stub", err);
	free(copy);
}

int
main(int argc, char **argv)
{
	struct ub_ctx *ctx;
	struct ub_result *res;
	const char *conf = NULL, *ta = NULL;
	int i, err, type, count, nstubs = 0;

	ctx = ub_ctx_create();
	if (ctx == NULL) {
		fprintf(stderr, "dnsq: ub_ctx_create failed\n");
		return 2;
	}
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *opt = argv[i];

		if (strcmp(opt, "--") == 0) {
			i++;
			break;
		}
		if (opt[1] == '\0' || opt[2] != '\0' || i + 1 >= argc)
			usage();
		switch (opt[1]) {
		case 'c':
			conf = argv[++i];
			err = ub_ctx_config(ctx, conf);
			if (err != 0)
				fail(conf, err);
			break;
		case 'a':
			ta = argv[++i];
			err = ub_ctx_add_ta_file(ctx, ta);
			if (err != 0)
				fail(ta, err);
			break;
		case 's':
			add_stub(ctx, argv[++i]);
			nstubs++;
			break;
		default:
			usage();
		}
	}
	if (argc - i != 2)
		usage();
	type = parse_type(argv[i + 1]);
	if (type < 0) {
		fprintf(stderr, "dnsq: unknown type '%s'\n", argv[i + 1]);
		return 2;
	}
	if (nstubs > 0 && conf == NULL) {
		/* Stubs on loopback need these; a config file says so itself. */
		err = ub_ctx_set_option(ctx, "do-not-query-localhost:", "no");
		if (err != 0)
			fail("do-not-query-localhost", err);
		(void)ub_ctx_zone_remove(ctx, "test.");
	}

	err = ub_resolve(ctx, argv[i], type, 1 /* IN */, &res);
	if (err != 0)
		fail("ub_resolve", err);

	count = 0;
	if (res->data != NULL)
		while (res->data[count] != NULL)
			count++;
	printf("status=%s rcode=", res->secure ? "secure"
				  : res->bogus ? "bogus"
					       : "insecure");
	if (res->rcode >= 0 &&
	    (size_t)res->rcode < sizeof rcodes / sizeof rcodes[0])
		printf("%s", rcodes[res->rcode]);
	else
		printf("RCODE%d", res->rcode);
	printf(" havedata=%d count=%d\n", res->havedata ? 1 : 0,
	       res->havedata ? count : 0);
	if (res->bogus)
		printf("why_bogus=%s\n",
		       res->why_bogus != NULL ? res->why_bogus : "(none)");
	if (res->havedata) {
		int r, j;

		for (r = 0; r < count; r++) {
			const unsigned char *d =
				(const unsigned char *)res->data[r];

			for (j = 0; j < res->len[r]; j++)
				printf("%02x", d[j]);
			putchar('\n');
		}
	}
	ub_resolve_free(res);
	ub_ctx_delete(ctx);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("dnsq: stdout");
		return 2;
	}
	return 0;
}
