/*
 * cli-dns.c: "steedmail --lookup ADDRESS..." (correspondents' keys in DNS,
 * one line per address and record type) and "--dns-records [ACCOUNT]"
 * (the records that publish the account's own keys, in zone-file syntax).
 * The lookups themselves are dns-lookup.c, the records src/ownkey.h;
 * this file shows them. Keys in an OPENPGPKEY record are listed from the
 * record's data without being imported.
 *
 * --lookup prints, tab-separated: address, type, status, TTL, the key
 * (fingerprints, or "-"), and "cached" / "lower-case" when they apply.
 * Exit codes: 0 every lookup completed, whatever it found; 64 a bad
 * command line; 69 the resolver could not be used or a lookup failed for
 * good; 75 a lookup timed out or the resolver could not get an answer
 * (try again later). --dns-records: 0, 64, 69 (no key, gpg failed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "addr.h"
#include "buf.h"
#include "cli.h"
#include "hex.h"
#include "crypto.h"
#include "dns-lookup.h"
#include "ownkey.h"
#include "strsafe.h"
#include "xmalloc.h"

static void
cmd_dns_line(const struct dns_result *r)
{
	struct buf	 b;
	size_t		 i;
	const char	*why;

	/* The address and the reasons may hold anything: made safe. */
	why = r->why != NULL ? r->why : "no reason given";
	buf_init(&b);
	strsafe_add(&b, r->address, strlen(r->address), 0);
	buf_adds(&b, r->type == DNS_SMIMEA ? "\tSMIMEA\t" : "\tOPENPGPKEY\t");
	switch (r->status) {
	case DNS_BOGUS:
		buf_adds(&b, "bogus (possible attack: ");
		strsafe_add(&b, why, strlen(why), 0);
		buf_addc(&b, ')');
		break;
	case DNS_NONE:
		buf_adds(&b, r->secure_denial ? "none (secure denial)" :
		    "none");
		break;
	case DNS_ERROR:
	case DNS_SERVFAIL:
	case DNS_TIMEOUT:
		buf_addf(&b, "%s (", dns_status_name(r->status));
		strsafe_add(&b, why, strlen(why), 0);
		buf_addc(&b, ')');
		break;
	default:
		buf_adds(&b, dns_status_name(r->status));
		break;
	}
	buf_addf(&b, "\t%u\t", (unsigned)r->ttl);
	for (i = 0; i < r->nrecords; i++) {
		if (i > 0)
			buf_addc(&b, ',');
		dns_record_describe(&b, r->type, &r->records[i]);
	}
	if (r->nrecords == 0)
		buf_addc(&b, '-');
	if (r->cached)
		buf_adds(&b, "\tcached");
	if (r->lower && r->nrecords > 0)
		buf_adds(&b, "\tlower-case");
	buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
}

int
cmd_lookup(struct cmd_ctx *ctx)
{
	struct dns_ctx		*dns;
	struct dns_result	*rs;
	size_t			 n, i;
	char			*cause = NULL;
	int			 rc = EX_OK, i2;

	if (ctx->argc == 0) {
		cmd_error("--lookup wants one or more addresses");
		return EX_USAGE;
	}
	for (i2 = 0; i2 < ctx->argc; i2++)
		if (!addr_valid(ctx->argv[i2])) {
			cmd_error("\"%s\" is not a mail address",
			    ctx->argv[i2]);
			return EX_USAGE;
		}
	if ((dns = dns_open(ctx->cf, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	if (dns_lookup(dns, ctx->argv, (size_t)ctx->argc,
	    DNS_WANT_OPENPGPKEY | DNS_WANT_SMIMEA, dns_timeout_ms(ctx->cf),
	    &rs, &n, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		dns_close(dns);
		return EX_UNAVAILABLE;
	}
	if (dns_problem(dns) != NULL)
		cmd_error("%s", dns_problem(dns));
	for (i = 0; i < n; i++) {
		cmd_dns_line(&rs[i]);
		if (rs[i].status == DNS_ERROR)
			rc = EX_UNAVAILABLE;
		else if ((rs[i].status == DNS_TIMEOUT ||
		    rs[i].status == DNS_SERVFAIL) && rc == EX_OK)
			rc = EX_TEMPFAIL;
	}
	dns_results_free(rs, n);
	dns_close(dns);
	if (fflush(stdout) != 0)
		rc = EX_IOERR;
	return rc;
}

/* The zone-file lines of one record. */
static void
cmd_dns_print(const char *address, const struct ownkey_record *r)
{
	struct buf	 b;
	int		 i;

	buf_init(&b);
	hex_add(&b, r->rdata, r->len, 0);
	buf_addc(&b, '\0');
	printf("; %s for %s, %s %s\n", r->type == DNS_SMIMEA ? "SMIMEA" :
	    "OPENPGPKEY", address, r->type == DNS_SMIMEA ? "certificate" :
	    "key", r->fpr);
	for (i = 0; i < 2 && r->owner[i] != NULL; i++)
		printf("%s. %d IN TYPE%d \\# %zu %s\n", r->owner[i],
		    OWNKEY_DNS_TTL, (int)r->type, r->len, b.data);
	buf_free(&b);
}

int
cmd_dns_records(struct cmd_ctx *ctx)
{
	struct account		*a;
	struct ownkey_record	 r;
	char			*cause = NULL;
	int			 rc;

	if (ctx->argc > 1) {
		cmd_error("unexpected argument \"%s\"", ctx->argv[1]);
		return EX_USAGE;
	}
	if (ctx->argc == 1)
		ctx->account = ctx->argv[0];
	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	if ((rc = ownkey_record(a, DNS_OPENPGPKEY, &r, &cause)) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	if (rc == 1) {
		cmd_error("%s has no key: run steedmail --genkey", a->address);
		return EX_UNAVAILABLE;
	}
	cmd_dns_print(a->address, &r);
	ownkey_record_free(&r);
	if (!a->smime)
		return fflush(stdout) == 0 ? EX_OK : EX_IOERR;

	if ((rc = ownkey_record(a, DNS_SMIMEA, &r, &cause)) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	if (rc == 1) {
		cmd_error("%s has no S/MIME certificate: run steedmail "
		    "--genkey", a->address);
		return EX_UNAVAILABLE;
	}
	cmd_dns_print(a->address, &r);
	ownkey_record_free(&r);
	return fflush(stdout) == 0 ? EX_OK : EX_IOERR;
}
