/*
 * trust-db.c: the trust store's SQLite access, shared by its files
 * (trust-db.h): statements with bound parameters, the one write
 * transaction of each change, history lines, and the rows of a pin and of
 * a key. It decides nothing: the rules are trust-rules.c's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "log.h"
#include "db.h"
#include "trust-db.h"
#include "xmalloc.h"

void	(*trust_store_test_hook)(void);

int
trust_fail(struct trust_store *ts, const char *what, char **cause)
{
	*cause = xasprintf("trust store %s: %s: %s", ts->path, what,
	    db_errmsg(ts->db));
	return -1;
}

/*
 * Prepare sql and bind its parameters, given by types: 's' a string
 * (NULL binds NULL), 'i' an integer (long long).
 */
static sqlite3_stmt *
trust_prep(struct trust_store *ts, const char *sql, const char *types,
    va_list ap, char **cause)
{
	sqlite3_stmt	*st;
	const char	*s;
	int		 i;

	if (sqlite3_prepare_v2(ts->db, sql, -1, &st, NULL) != SQLITE_OK) {
		trust_fail(ts, "cannot prepare", cause);
		return NULL;
	}
	for (i = 0; types[i] != '\0'; i++) {
		if (types[i] == 's') {
			s = va_arg(ap, const char *);
			sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT);
		} else
			sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
	}
	return st;
}

/* Run a statement that returns no rows. */
int
trust_run(struct trust_store *ts, char **cause, const char *sql,
    const char *types, ...)
{
	sqlite3_stmt	*st;
	va_list		 ap;
	int		 rc;

	va_start(ap, types);
	st = trust_prep(ts, sql, types, ap, cause);
	va_end(ap);
	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return trust_fail(ts, "cannot write", cause);
	return 0;
}

/* A query; the caller steps and finalizes. */
sqlite3_stmt *
trust_query(struct trust_store *ts, char **cause, const char *sql,
    const char *types, ...)
{
	sqlite3_stmt	*st;
	va_list		 ap;

	va_start(ap, types);
	st = trust_prep(ts, sql, types, ap, cause);
	va_end(ap);
	return st;
}

char *
trust_col(sqlite3_stmt *st, int i)
{
	const unsigned char	*s = sqlite3_column_text(st, i);

	return s != NULL ? xstrdup((const char *)s) : NULL;
}

int
trust_begin(struct trust_store *ts, char **cause)
{
	if (sqlite3_exec(ts->db, "BEGIN IMMEDIATE", NULL, NULL,
	    NULL) != SQLITE_OK)
		return trust_fail(ts, "cannot begin a transaction", cause);
	return 0;
}

int
trust_commit(struct trust_store *ts, char **cause)
{
	if (trust_store_test_hook != NULL)
		trust_store_test_hook();
	if (sqlite3_exec(ts->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		trust_fail(ts, "cannot commit", cause);
		sqlite3_exec(ts->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

void
trust_rollback(struct trust_store *ts)
{
	sqlite3_exec(ts->db, "ROLLBACK", NULL, NULL, NULL);
}

int
trust_history(struct trust_store *ts, const char *addr, time_t now,
    char **cause, const char *fmt, ...)
{
	va_list	 ap;
	char	*what;
	int	 rc;

	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	rc = trust_run(ts, cause, "INSERT INTO history (addr, time, what) "
	    "VALUES (?, ?, ?)", "sis", addr, (long long)now, what);
	log_msg(LOG_INFO, "trust: %s: %s", addr, what);
	free(what);
	return rc;
}

/*
 * The pin of addr for one protocol (proto is trust_proto()'s, static);
 * 0 with all NULL when there is none.
 */

int
trust_get_pin(struct trust_store *ts, const char *addr, const char *proto,
    struct trust_pin *p, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	memset(p, 0, sizeof *p);
	p->proto = trust_proto(proto);
	if ((st = trust_query(ts, cause, "SELECT pinned, changed, conflict, "
	    "changed_level FROM pin WHERE addr = ? AND proto = ?", "ss", addr,
	    p->proto)) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p->exists = 1;
		p->pinned = trust_col(st, 0);
		p->changed = trust_col(st, 1);
		p->conflict = trust_col(st, 2);
		p->changed_level = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return trust_fail(ts, "cannot read", cause);
	return 0;
}

void
trust_pin_free(struct trust_pin *p)
{
	free(p->pinned);
	free(p->changed);
	free(p->conflict);
	p->pinned = p->changed = p->conflict = NULL;
	p->exists = 0;
}

/* level: how the pending key changed came (enum trust_level). */
int
trust_set_pin(struct trust_store *ts, const char *addr, const char *proto,
    const char *pinned, const char *changed, int level, const char *conflict,
    char **cause)
{
	return trust_run(ts, cause, "INSERT INTO pin (addr, proto, pinned, "
	    "changed, conflict, changed_level) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
	    " ON CONFLICT (addr, proto) DO UPDATE SET pinned = ?3, "
	    "changed = ?4, conflict = ?5, changed_level = ?6", "sssssi", addr,
	    trust_proto(proto), pinned, changed, conflict, (long long)level);
}

/* Make sure the key row exists; add source bits; last seen now. */
int
trust_touch_key(struct trust_store *ts, const char *addr, const char *fpr,
    const char *proto, unsigned sources, time_t now, char **cause)
{
	return trust_run(ts, cause, "INSERT INTO key (addr, fpr, proto, "
	    "sources, first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?5) "
	    "ON CONFLICT (addr, fpr) DO UPDATE SET sources = sources | ?4, "
	    "last_seen = ?5", "sssii", addr, fpr, proto != NULL ? proto :
	    "openpgp", (long long)sources, (long long)now);
}

int
trust_get_key(struct trust_store *ts, const char *addr, const char *fpr,
    struct trust_krow *k, char **cause)
{
	sqlite3_stmt	*st;
	const char	*d;
	int		 rc;

	memset(k, 0, sizeof *k);
	if (fpr == NULL)
		return 0;
	if ((st = trust_query(ts, cause, "SELECT first_seen, dns_confirmed, "
	    "messages, sources, decision, revoked, expired, proto FROM key "
	    "WHERE addr = ? AND fpr = ?", "ss", addr, fpr)) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		k->exists = 1;
		k->first_seen = sqlite3_column_int64(st, 0);
		k->dns_confirmed = sqlite3_column_int64(st, 1);
		k->messages = sqlite3_column_int64(st, 2);
		k->sources = sqlite3_column_int64(st, 3);
		d = (const char *)sqlite3_column_text(st, 4);
		snprintf(k->decision, sizeof k->decision, "%s", d ? d : "none");
		k->revoked = sqlite3_column_int(st, 5);
		k->expired = sqlite3_column_int(st, 6);
		d = (const char *)sqlite3_column_text(st, 7);
		snprintf(k->proto, sizeof k->proto, "%s", trust_proto(d));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return trust_fail(ts, "cannot read", cause);
	return 0;
}

void
trust_set_verdict(struct trust_verdict *v, enum trust_state state,
    const char *fpr, const char *other, const struct trust_krow *k,
    char *evidence)
{
	v->state = state;
	v->fpr = fpr != NULL ? xstrdup(fpr) : NULL;
	v->other = other != NULL ? xstrdup(other) : NULL;
	v->since = k != NULL ? k->first_seen : 0;
	v->messages = k != NULL ? k->messages : 0;
	v->evidence = evidence;
}
