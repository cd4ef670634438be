/*
 * trust-dns.c: what DNS last said of an address's OpenPGP key, kept in
 * the trust store's table dns: when a secure or insecure answer last came
 * (so the trust step of a sync does not ask again for a day), and the mark
 * of a bogus answer with its owner name and reason, which the index and
 * the pager show. Written by the trust step (sync-trust.c) after a
 * lookup; read by trust-query.c's page query, --trust show, the
 * interface's trust screens and message.c. A bogus answer is never a key
 * and never a sighting here: it is only remembered. It decides no state:
 * the rules are trust-rules.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "trust-db.h"
#include "xmalloc.h"

int
trust_store_dns_answer(struct trust_store *ts, const char *addr_in,
    enum trust_dns_answer a, const char *owner, const char *why, time_t now,
    char **cause)
{
	struct trust_dns	 old;
	char			*addr;
	int			 rc = -1;

	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	if (trust_begin(ts, cause) == -1)
		goto out;
	if (trust_store_dns(ts, addr, &old, cause) == -1)
		goto fail;
	switch (a) {
	case TRUST_DNS_BOGUS:
		rc = trust_run(ts, cause, "INSERT INTO dns (addr, bogus, "
		    "owner, why) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (addr) "
		    "DO UPDATE SET bogus = ?2, owner = ?3, why = ?4", "siss",
		    addr, (long long)now, owner, why);
		/* Said once, not at every sync that finds it still bogus. */
		if (rc == 0 && old.bogus == 0)
			rc = trust_history(ts, addr, now, cause, "the DNS "
			    "answer for the key (%s) is bogus: %s; nothing "
			    "taken from it", owner != NULL ? owner : "?",
			    why != NULL ? why : "DNSSEC validation failed");
		break;
	case TRUST_DNS_SECURE:
	case TRUST_DNS_INSECURE:
	case TRUST_DNS_DENIED:
		/* Only a validated answer clears a bogus mark. */
		if (a == TRUST_DNS_INSECURE)
			rc = trust_run(ts, cause, "INSERT INTO dns (addr, "
			    "checked) VALUES (?1, ?2) ON CONFLICT (addr) DO "
			    "UPDATE SET checked = ?2", "si", addr,
			    (long long)now);
		else if (a == TRUST_DNS_SECURE)
			rc = trust_run(ts, cause, "INSERT INTO dns (addr, "
			    "checked) VALUES (?1, ?2) ON CONFLICT (addr) DO "
			    "UPDATE SET checked = ?2, bogus = 0, owner = NULL, "
			    "why = NULL", "si", addr, (long long)now);
		else
			rc = trust_run(ts, cause, "UPDATE dns SET bogus = 0, "
			    "owner = NULL, why = NULL WHERE addr = ?", "s",
			    addr);
		if (rc == 0 && old.bogus != 0 && a != TRUST_DNS_INSECURE)
			rc = trust_history(ts, addr, now, cause, "the DNS "
			    "answer for the key validates again (%s)",
			    a == TRUST_DNS_SECURE ? "secure" :
			    "no record, proven");
		break;
	}
	trust_dns_free(&old);
	if (rc == -1)
		goto fail;
	rc = trust_commit(ts, cause);
	goto out;
fail:
	trust_rollback(ts);
	rc = -1;
out:
	free(addr);
	return rc;
}

int
trust_store_dns(struct trust_store *ts, const char *addr_in,
    struct trust_dns *d, char **cause)
{
	sqlite3_stmt	*st;
	char		*addr;
	int		 rc;

	memset(d, 0, sizeof *d);
	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	st = trust_query(ts, cause, "SELECT checked, bogus, owner, why FROM "
	    "dns WHERE addr = ?", "s", addr);
	free(addr);
	if (st == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		d->checked = sqlite3_column_int64(st, 0);
		d->bogus = sqlite3_column_int64(st, 1);
		if (d->bogus != 0) {
			d->owner = trust_col(st, 2);
			d->why = trust_col(st, 3);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return trust_fail(ts, "cannot read", cause);
	return 0;
}

int
trust_store_dns_bogus_list(struct trust_store *ts, char ***addrs, size_t *n,
    char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	*addrs = NULL;
	*n = 0;
	if ((st = trust_query(ts, cause, "SELECT addr FROM dns WHERE bogus "
	    "!= 0 ORDER BY 1", "")) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*addrs = xreallocarray(*addrs, *n + 1, sizeof **addrs);
		(*addrs)[(*n)++] = trust_col(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return trust_fail(ts, "cannot read", cause);
	return 0;
}

void
trust_dns_free(struct trust_dns *d)
{
	free(d->owner);
	free(d->why);
	memset(d, 0, sizeof *d);
}
