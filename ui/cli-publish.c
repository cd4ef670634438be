/*
 * cli-publish.c: steedmail --publish [--yes], the account's key records
 * (ownkey.h) sent to its domain's DNS server as a signed dynamic update
 * (dns-update.h), then looked up until served: "published: secure" or
 * why not. Before sending it asks DNS what it serves now: the same key is
 * left alone, another key is replaced only when the person agrees (or
 * --yes). The key published is recorded in the trust store as the user's
 * own sighting of their address, so the history keeps every key the
 * address had. Without dns-update-* settings it prints the records for
 * the domain's administrator instead (as --dns-records does).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>
#include <time.h>

#include "cli.h"
#include "dns-lookup.h"
#include "dns-update.h"
#include "frontend.h"
#include "keydata.h"
#include "ownkey.h"
#include "trust-store.h"
#include "xmalloc.h"

struct cli_publish {
	struct ownkey_record	 recs[2];	/* OPENPGPKEY, SMIMEA */
	size_t			 nrecs;
	struct dns_update_rr	*rrs;		/* one per owner name */
	const struct ownkey_record **rec_of;	/* the record of each rr */
	size_t			 n;
};

static const char *
cli_publish_type(enum dns_type t)
{
	return t == DNS_SMIMEA ? "SMIMEA" : "OPENPGPKEY";
}

static void
cli_publish_free(struct cli_publish *p)
{
	size_t	 i;

	for (i = 0; i < p->nrecs; i++)
		ownkey_record_free(&p->recs[i]);
	for (i = 0; i < p->n; i++)
		free(p->rrs[i].owner);
	free(p->rrs);
	free(p->rec_of);
}

/* The account's records, one rr per owner name; an exit code. */
static int
cli_publish_records(struct account *a, struct cli_publish *p)
{
	enum dns_type	 types[2] = { DNS_OPENPGPKEY, DNS_SMIMEA };
	struct ownkey_record *r;
	char		*cause = NULL;
	size_t		 i;
	int		 j, rc;

	for (i = 0; i < (a->smime ? 2u : 1u); i++) {
		r = &p->recs[p->nrecs];
		if ((rc = ownkey_record(a, types[i], r, &cause)) == -1) {
			cmd_error("%s", cause);
			free(cause);
			return EX_UNAVAILABLE;
		}
		if (rc == 1) {
			cmd_error("%s has no %s: run steedmail --genkey",
			    a->address, i == 0 ? "key" :
			    "S/MIME certificate");
			return EX_UNAVAILABLE;
		}
		p->nrecs++;
	}
	p->rrs = xcalloc(p->nrecs * 2, sizeof *p->rrs);
	p->rec_of = xcalloc(p->nrecs * 2, sizeof *p->rec_of);
	for (i = 0; i < p->nrecs; i++) {
		r = &p->recs[i];
		for (j = 0; j < 2 && r->owner[j] != NULL; j++) {
			p->rrs[p->n].owner = xstrdup(r->owner[j]);
			p->rrs[p->n].type = r->type;
			p->rrs[p->n].rdata = r->rdata;
			p->rrs[p->n].len = r->len;
			p->rrs[p->n].ttl = OWNKEY_DNS_TTL;
			p->rec_of[p->n++] = r;
		}
	}
	return EX_OK;
}

/* What the served data is, in a person's words (allocated). */
static char *
cli_publish_served(const struct dns_update_rr *rr,
    const struct dns_update_check *c)
{
	char	**fprs, *s = NULL, *t, *why;
	size_t	 i, j, n;

	if (rr->type != DNS_OPENPGPKEY)
		return xasprintf("%zu other certificate association%s",
		    c->nserved, c->nserved == 1 ? "" : "s");
	for (i = 0; i < c->nserved; i++) {
		if (keydata_fingerprints(c->served[i].data, c->served[i].len,
		    &fprs, &n, &why) == -1) {
			free(why);
			t = xasprintf("%s%sdata that is no key", s ? s : "",
			    s ? ", " : "");
			free(s);
			s = t;
			continue;
		}
		for (j = 0; j < n; j++) {
			t = xasprintf("%s%s%s", s ? s : "", s ? ", " : "",
			    fprs[j]);
			free(s);
			s = t;
			free(fprs[j]);
		}
		free(fprs);
	}
	return s != NULL ? s : xstrdup("nothing");
}

/*
 * Before sending: what DNS serves now. Returns 1 when every record is
 * already served with the account's data (nothing to send), 0 to send,
 * or an exit code (> 1) when the person did not agree to a replacement.
 */
static int
cli_publish_compare(struct cmd_ctx *ctx, struct account *a,
    struct cli_publish *p)
{
	struct dns_update_check	*checks;
	char			*cause = NULL, *other;
	size_t			 i, same = 0, replaced = 0;

	checks = xcalloc(p->n, sizeof *checks);
	if (dns_update_verify(ctx->cf, p->rrs, p->n, 0, checks,
	    &cause) == -1) {
		cmd_error("warning: cannot ask DNS what it serves now: %s",
		    cause);
		free(cause);
		free(checks);
		return 0;
	}
	for (i = 0; i < p->n; i++) {
		if (checks[i].matches && checks[i].nserved == 1) {
			same++;
			continue;
		}
		if (checks[i].nserved == 0)
			continue;
		other = cli_publish_served(&p->rrs[i], &checks[i]);
		if (strcasecmp(other, p->rec_of[i]->fpr) == 0) {
			/* The same key, renewed: no question to ask. */
			cmd_print(stdout, "", "DNS has an older copy of key "
			    "%s (renewed since): the records will be updated",
			    other);
			free(other);
			while (i + 1 < p->n && p->rec_of[i + 1] == p->rec_of[i])
				i++;
			continue;
		}
		cmd_print(stdout, "", "DNS has %s %s, the account's %s is "
		    "%s: the records will be replaced",
		    p->rrs[i].type == DNS_SMIMEA ? "certificate data" :
		    "key", other, p->rrs[i].type == DNS_SMIMEA ?
		    "certificate" : "key", p->rec_of[i]->fpr);
		free(other);
		replaced++;
		/* One line per record type is enough. */
		while (i + 1 < p->n && p->rec_of[i + 1] == p->rec_of[i])
			i++;
	}
	if (same == p->n) {
		for (i = 0; i < p->nrecs; i++)
			cmd_print(stdout, "", "DNS already serves %s's %s %s "
			    "(%s): nothing to send", a->address,
			    p->recs[i].type == DNS_SMIMEA ? "certificate" :
			    "key", p->recs[i].fpr,
			    dns_status_name(checks[0].status));
		dns_update_checks_free(checks, p->n);
		free(checks);
		return 1;
	}
	dns_update_checks_free(checks, p->n);
	free(checks);
	fflush(stdout);
	if (replaced == 0 || ctx->yes)
		return 0;
	if (fe_confirm("Replace the records of %s in DNS?", a->address))
		return 0;
	cmd_error("nothing sent: the records in DNS were kept (--yes "
	    "replaces them without asking)");
	return EX_NOPERM;
}

/*
 * The key published, as the user's own sighting of their address: the
 * store's history keeps the key it had before. A replaced key is the
 * user's decision, so the new one is accepted as the pin.
 */
static void
cli_publish_remember(struct account *a, struct cli_publish *p)
{
	struct trust_store	*ts;
	const char		*proto;
	char			*cause = NULL, *pinned;
	time_t			 now = time(NULL);
	size_t			 i;

	if ((ts = trust_store_open(NULL, &cause)) == NULL) {
		cmd_error("warning: the trust store: %s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < p->nrecs; i++) {
		proto = p->recs[i].type == DNS_SMIMEA ? "smime" : "openpgp";
		if (trust_store_sighting(ts, a->address, p->recs[i].fpr, proto,
		    TRUST_SRC_MANUAL, now, &cause) == -1)
			goto fail;
		pinned = trust_store_pinned(ts, a->address, proto);
		if (pinned != NULL && strcasecmp(pinned, p->recs[i].fpr) != 0 &&
		    trust_store_accept(ts, a->address, p->recs[i].fpr, now,
		    &cause) == -1) {
			free(pinned);
			goto fail;
		}
		free(pinned);
	}
	trust_store_close(ts);
	return;

fail:
	cmd_error("warning: the trust store: %s", cause);
	free(cause);
	trust_store_close(ts);
}

/* After sending: is each record served, and secure? An exit code. */
static int
cli_publish_check(struct cmd_ctx *ctx, struct cli_publish *p)
{
	struct dns_update_check	*checks;
	char			*cause = NULL;
	const char		*first = NULL;
	size_t			 i;

	checks = xcalloc(p->n, sizeof *checks);
	if (dns_update_verify(ctx->cf, p->rrs, p->n, DNS_UPDATE_VERIFY_MS,
	    checks, &cause) == -1) {
		cmd_error("sent, but cannot look the records up: %s", cause);
		free(cause);
		free(checks);
		return EX_UNAVAILABLE;
	}
	for (i = 0; i < p->n; i++) {
		if (checks[i].status == DNS_SECURE && checks[i].matches) {
			cmd_print(stdout, "", "%s. %s: secure",
			    p->rrs[i].owner, cli_publish_type(p->rrs[i].type));
			continue;
		}
		cmd_print(stdout, "", "%s. %s: %s (%s)", p->rrs[i].owner,
		    cli_publish_type(p->rrs[i].type),
		    checks[i].matches ? dns_status_name(checks[i].status) :
		    "not served", checks[i].why != NULL ? checks[i].why :
		    dns_status_name(checks[i].status));
		if (first == NULL)
			first = checks[i].matches ?
			    dns_status_name(checks[i].status) : "not served";
	}
	if (first == NULL)
		printf("published: secure\n");
	else
		printf("published, but not secure: %s\n", first);
	dns_update_checks_free(checks, p->n);
	free(checks);
	return first == NULL ? EX_OK : EX_UNAVAILABLE;
}

int
cmd_publish(struct cmd_ctx *ctx)
{
	struct cli_publish	 p;
	struct account		*a;
	enum dns_update_error	 err;
	char			*cause = NULL, *zone;
	size_t			 i;
	int			 rc;

	if (ctx->argc > 0) {
		cmd_error("unexpected argument \"%s\"", ctx->argv[0]);
		return EX_USAGE;
	}
	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (a->dns_update_server == NULL) {
		cmd_error("account %s has no dns-update-server and "
		    "dns-update-key: set them (steedmail.conf(5)) to publish "
		    "with --publish; these are the records to give your "
		    "domain's administrator (a signed zone is needed):", a->id);
		rc = cmd_dns_records(ctx);
		return rc == EX_OK ? EX_CONFIG : rc;
	}
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	memset(&p, 0, sizeof p);
	if ((rc = cli_publish_records(a, &p)) != EX_OK)
		goto out;

	zone = dns_update_zone(a);
	cmd_print(stdout, "", "the records of %s in zone %s:", a->address,
	    zone);
	free(zone);
	for (i = 0; i < p.n; i++)
		cmd_print(stdout, "  ", "%s. %d IN %s (%s %s, %zu octets)",
		    p.rrs[i].owner, OWNKEY_DNS_TTL,
		    cli_publish_type(p.rrs[i].type),
		    p.rrs[i].type == DNS_SMIMEA ? "certificate" : "key",
		    p.rec_of[i]->fpr, p.rrs[i].len);
	fflush(stdout);

	if ((rc = cli_publish_compare(ctx, a, &p)) == 1) {
		rc = EX_OK;
		goto out;
	}
	if (rc != 0)
		goto out;

	cmd_print(stdout, "", "sending the update to %s", a->dns_update_server);
	fflush(stdout);
	if ((err = dns_update_send(a, p.rrs, p.n, &cause)) != DNS_UPDATE_OK) {
		cmd_error("%s", cause);
		free(cause);
		switch (err) {
		case DNS_UPDATE_CONFIG:		rc = EX_CONFIG; break;
		case DNS_UPDATE_NETWORK:	rc = EX_TEMPFAIL; break;
		case DNS_UPDATE_REFUSED:	rc = EX_NOPERM; break;
		default:			rc = EX_PROTOCOL; break;
		}
		goto out;
	}
	cli_publish_remember(a, &p);
	rc = cli_publish_check(ctx, &p);

out:
	cli_publish_free(&p);
	if (fflush(stdout) != 0 && rc == EX_OK)
		rc = EX_IOERR;
	return rc;
}
