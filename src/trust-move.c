/*
 * trust-move.c: a trust store read whole for an export, and an export
 * merged into a store (trust-move.h). The merge goes through the store's
 * public rules (trust_store_sighting(), _verify(), _reject(),
 * _key_status()), each of which is a transaction of its own; so that an
 * import is still all or nothing, they run on a copy of the store made in
 * one read transaction, and the store takes the copy's rows back in one
 * write transaction, refused when another writer committed in between
 * (PRAGMA data_version). Callers: ui/cli-trust.c. Never prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db.h"
#include "trust-db.h"
#include "trust-move.h"
#include "xmalloc.h"

/* The tables of the store, copied whole (same schema on both sides). */
static const char *trust_move_tables[] = {
	"key", "pin", "history", "message", "dns", NULL
};

static void
trust_move_peer_read(struct trust_store *ts, const struct trust_peer *tp,
    struct trust_move_peer *p, char **cause, int *rc)
{
	struct trust_pin	 pin;
	struct trust_move_key	*k;
	size_t			 i;
	int			 n;

	memset(p, 0, sizeof *p);
	p->addr = xstrdup(tp->addr);
	for (n = 0; n < TRUST_NPROTO && *rc == 0; n++) {
		if (trust_get_pin(ts, tp->addr, trust_proto_name(n), &pin,
		    cause) == -1) {
			*rc = -1;
			break;
		}
		p->pins[n].present = pin.exists;
		p->pins[n].pinned = pin.pinned;
		p->pins[n].changed = pin.changed;
		p->pins[n].conflict = pin.conflict;
		p->pins[n].signed_change = pin.changed_level >=
		    TRUST_LEVEL_SIGNED;
	}
	p->keys = xcalloc(tp->nkeys + 1, sizeof *p->keys);
	for (i = 0; i < tp->nkeys; i++) {
		k = &p->keys[p->nkeys++];
		k->fpr = xstrdup(tp->keys[i].fpr);
		for (n = 0; k->fpr[n] != '\0'; n++) {
			if (k->fpr[n] >= 'a' && k->fpr[n] <= 'f')
				k->fpr[n] -= 'a' - 'A';
		}
		snprintf(k->proto, sizeof k->proto, "%s",
		    trust_proto(tp->keys[i].proto));
		k->sources = tp->keys[i].sources;
		k->first_seen = tp->keys[i].first_seen;
		k->last_seen = tp->keys[i].last_seen;
		k->last_sig = tp->keys[i].last_sig;
		k->dns_confirmed = tp->keys[i].dns_confirmed;
		k->messages = tp->keys[i].messages;
		snprintf(k->decision, sizeof k->decision, "%s",
		    tp->keys[i].decision);
		k->revoked = tp->keys[i].revoked;
		k->expired = tp->keys[i].expired;
	}
	p->events = xcalloc(tp->nhistory + 1, sizeof *p->events);
	for (i = 0; i < tp->nhistory; i++) {
		p->events[p->nevents].when = tp->history[i].when;
		p->events[p->nevents++].what = xstrdup(tp->history[i].what);
	}
}

int
trust_move_export(struct trust_store *ts, struct trust_move *m,
    char **cause)
{
	struct trust_peer	 tp;
	char			**addrs = NULL;
	size_t			 n = 0, i;
	int			 rc = 0;

	memset(m, 0, sizeof *m);
	/* Deferred: the first read takes a snapshot, no write lock. */
	if (sqlite3_exec(ts->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return trust_fail(ts, "cannot begin a transaction", cause);
	if (trust_store_list(ts, &addrs, &n, cause) == -1)
		rc = -1;
	m->peers = xcalloc(n + 1, sizeof *m->peers);
	for (i = 0; i < n && rc == 0; i++) {
		if (trust_store_peer(ts, addrs[i], &tp, cause) == -1) {
			rc = -1;
			break;
		}
		trust_move_peer_read(ts, &tp, &m->peers[m->npeers++], cause,
		    &rc);
		trust_peer_free(&tp);
	}
	sqlite3_exec(ts->db, "COMMIT", NULL, NULL, NULL);
	for (i = 0; i < n; i++)
		free(addrs[i]);
	free(addrs);
	if (rc == -1)
		trust_move_free(m);
	return rc;
}

/* PRAGMA data_version of the store: it changes when others commit. */
static int
trust_move_version(struct trust_store *ts, long long *v, char **cause)
{
	sqlite3_stmt	*st;

	if ((st = trust_query(ts, cause, "PRAGMA main.data_version",
	    "")) == NULL)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return trust_fail(ts, "cannot read data_version", cause);
	}
	*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* Every table of database from into database to ("main", "mv"). */
static int
trust_move_copy(struct trust_store *ts, const char *from, const char *to,
    char **cause)
{
	char	*sql;
	int	 i, rc;

	for (i = 0; trust_move_tables[i] != NULL; i++) {
		sql = xasprintf("DELETE FROM %s.%s; INSERT INTO %s.%s SELECT * "
		    "FROM %s.%s;", to, trust_move_tables[i], to,
		    trust_move_tables[i], from, trust_move_tables[i]);
		rc = sqlite3_exec(ts->db, sql, NULL, NULL, NULL);
		free(sql);
		if (rc != SQLITE_OK)
			return trust_fail(ts, "cannot copy the store", cause);
	}
	return 0;
}

/*
 * Between the store and the copy at path, in one transaction: in (the
 * store into the copy; *version becomes the store's data_version) or out
 * (the copy into the store, only if data_version is still *version).
 */
static int
trust_move_sync(struct trust_store *ts, const char *path, int out,
    long long *version, char **cause)
{
	long long	v = 0;
	int		rc = -1;

	if (trust_run(ts, cause, "ATTACH DATABASE ? AS mv", "s", path) == -1)
		return -1;
	if (sqlite3_exec(ts->db, out ? "BEGIN IMMEDIATE" : "BEGIN", NULL,
	    NULL, NULL) != SQLITE_OK) {
		trust_fail(ts, "cannot begin a transaction", cause);
		goto detach;
	}
	if (trust_move_version(ts, &v, cause) == -1)
		goto rollback;
	if (out && v != *version) {
		*cause = xstrdup("the trust store changed while the file was "
		    "being merged (mail was being read?): nothing imported, "
		    "try again");
		goto rollback;
	}
	*version = v;
	if (trust_move_copy(ts, out ? "mv" : "main", out ? "main" : "mv",
	    cause) == -1)
		goto rollback;
	if (sqlite3_exec(ts->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		trust_fail(ts, "cannot commit", cause);
		goto rollback;
	}
	rc = 0;
	goto detach;
rollback:
	sqlite3_exec(ts->db, "ROLLBACK", NULL, NULL, NULL);
detach:
	sqlite3_exec(ts->db, "DETACH DATABASE mv", NULL, NULL, NULL);
	return rc;
}

static void
trust_move_kept(struct trust_move_result *r, char *sentence)
{
	r->kept = xreallocarray(r->kept, r->nkept + 1, sizeof *r->kept);
	r->kept[r->nkept++] = sentence;
}

/* One key of the file seen again, with each of its sources. */
static int
trust_move_key(struct trust_store *ts, const char *addr,
    const struct trust_move_key *k, time_t now, struct trust_move_result *r,
    char **cause)
{
	struct trust_krow	 row;
	unsigned		 sources;
	int			 s;

	if (trust_store_knows(ts, addr, k->fpr))
		r->known++;
	else
		r->added++;
	/* A key seen only in signatures came with the user's own file. */
	sources = k->sources != 0 ? k->sources : 1u << TRUST_SRC_MANUAL;
	for (s = 0; s < TRUST_SRC_COUNT; s++) {
		if ((sources & (1u << s)) && trust_store_sighting(ts, addr,
		    k->fpr, k->proto, s, now, cause) == -1)
			return -1;
	}
	/* Dates and counts: the wider of the two. */
	if (trust_run(ts, cause, "UPDATE key SET first_seen = CASE WHEN ?1 > 0 "
	    "AND ?1 < first_seen THEN ?1 ELSE first_seen END, last_seen = "
	    "max(last_seen, ?2), last_sig = max(last_sig, ?3), messages = "
	    "max(messages, ?4) WHERE addr = ?5 AND fpr = ?6", "iiiiss",
	    (long long)k->first_seen, (long long)k->last_seen,
	    (long long)k->last_sig, (long long)k->messages, addr, k->fpr) == -1)
		return -1;
	if (k->revoked) {
		if (trust_get_key(ts, addr, k->fpr, &row, cause) == -1 ||
		    trust_store_key_status(ts, k->fpr, 1, row.expired, now,
		    cause) == -1)
			return -1;
	}
	return 0;
}

/* The user's decisions in the file, where they downgrade nothing here. */
static int
trust_move_decision(struct trust_store *ts, const char *addr,
    const struct trust_move_key *k, time_t now, struct trust_move_result *r,
    char **cause)
{
	struct trust_pin	 pin;
	struct trust_krow	 row, cur;
	int			 pinned, rc = -1;

	if (strcmp(k->decision, "verified") != 0 &&
	    strcmp(k->decision, "rejected") != 0)
		return 0;
	if (trust_get_pin(ts, addr, k->proto, &pin, cause) == -1)
		return -1;
	if (trust_get_key(ts, addr, k->fpr, &row, cause) == -1)
		goto out;
	pinned = pin.pinned != NULL && strcasecmp(pin.pinned, k->fpr) == 0;
	memset(&cur, 0, sizeof cur);
	if (pin.pinned != NULL && !pinned && trust_get_key(ts, addr,
	    pin.pinned, &cur, cause) == -1)
		goto out;
	if (strcmp(k->decision, "verified") == 0) {
		if (strcmp(row.decision, "verified") == 0 && pinned)
			;
		else if (strcmp(cur.decision, "verified") == 0)
			trust_move_kept(r, xasprintf("%s: %s stays verified "
			    "and used for encryption; the file's verified key "
			    "%s is not taken (--trust verify takes it)", addr,
			    pin.pinned, k->fpr));
		else {
			if (trust_store_verify(ts, addr, k->fpr, now,
			    cause) == -1)
				goto out;
			r->verified++;
		}
	} else if (strcmp(row.decision, "none") == 0 && !pinned) {
		if (trust_store_reject(ts, addr, k->fpr, now, cause) == -1)
			goto out;
	}
	rc = 0;
out:
	trust_pin_free(&pin);
	return rc;
}

static const struct trust_move_key *
trust_move_find(const struct trust_move_peer *p, const char *fpr)
{
	size_t	i;

	for (i = 0; fpr != NULL && i < p->nkeys; i++) {
		if (strcmp(p->keys[i].fpr, fpr) == 0)
			return &p->keys[i];
	}
	return NULL;
}

static int
trust_move_peer(struct trust_store *ts, const struct trust_move_peer *p,
    time_t now, struct trust_move_result *r, char **cause)
{
	const struct trust_move_key	*first;
	struct trust_pin		 pin;
	size_t				 i;
	int				 n;

	/* History first, so that it stays before what the import adds. */
	for (i = 0; i < p->nevents; i++) {
		if (trust_run(ts, cause, "INSERT INTO history (addr, time, "
		    "what) SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM "
		    "history WHERE addr = ?1 AND time = ?2 AND what = ?3)",
		    "sis", p->addr, (long long)p->events[i].when,
		    p->events[i].what) == -1)
			return -1;
		r->events += sqlite3_changes(ts->db);
	}
	for (n = 0; n < TRUST_NPROTO; n++) {
		/* The pinned key first: a new address gets the same pin. */
		first = trust_move_find(p, p->pins[n].pinned);
		if (first != NULL && trust_move_key(ts, p->addr, first, now, r,
		    cause) == -1)
			return -1;
		for (i = 0; i < p->nkeys; i++) {
			if (&p->keys[i] == first || strcmp(p->keys[i].proto,
			    trust_proto_name(n)) != 0)
				continue;
			if (trust_move_key(ts, p->addr, &p->keys[i], now, r,
			    cause) == -1)
				return -1;
		}
	}
	for (i = 0; i < p->nkeys; i++) {
		if (trust_move_decision(ts, p->addr, &p->keys[i], now, r,
		    cause) == -1)
			return -1;
	}
	for (n = 0; n < TRUST_NPROTO; n++) {
		if (p->pins[n].pinned == NULL)
			continue;
		if (trust_get_pin(ts, p->addr, trust_proto_name(n), &pin,
		    cause) == -1)
			return -1;
		if (pin.pinned != NULL && strcasecmp(pin.pinned,
		    p->pins[n].pinned) != 0)
			trust_move_kept(r, xasprintf("%s: %s stays the key used "
			    "for encryption%s; the file's is %s", p->addr,
			    pin.pinned, trust_proto_words(pin.proto),
			    p->pins[n].pinned));
		trust_pin_free(&pin);
	}
	return 0;
}

int
trust_move_import(struct trust_store *ts, const struct trust_move *m,
    time_t now, struct trust_move_result *r, char **cause)
{
	struct trust_store	*copy;
	long long		 version = 0;
	char			*path;
	size_t			 i;
	int			 fd, rc = -1;

	memset(r, 0, sizeof *r);
	path = xasprintf("%s.import-XXXXXX", ts->path);
	if ((fd = mkstemp(path)) == -1) {
		*cause = xasprintf("%s: cannot make a copy of the store", path);
		free(path);
		return -1;
	}
	close(fd);
	/* An empty file: opening it makes the schema. */
	if ((copy = trust_store_open(path, cause)) == NULL)
		goto out;
	trust_store_close(copy);
	if (trust_move_sync(ts, path, 0, &version, cause) == -1)
		goto out;
	if ((copy = trust_store_open(path, cause)) == NULL)
		goto out;
	r->peers = m->npeers;
	for (i = 0; i < m->npeers; i++) {
		if (trust_move_peer(copy, &m->peers[i], now, r, cause) == -1)
			break;
	}
	trust_store_close(copy);
	if (i == m->npeers && trust_move_sync(ts, path, 1, &version,
	    cause) == 0)
		rc = 0;
out:
	db_unlink(path);
	free(path);
	if (rc == -1)
		trust_move_result_free(r);
	return rc;
}

void
trust_move_result_free(struct trust_move_result *r)
{
	size_t	i;

	for (i = 0; i < r->nkept; i++)
		free(r->kept[i]);
	free(r->kept);
	memset(r, 0, sizeof *r);
}
