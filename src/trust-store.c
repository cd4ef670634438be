/*
 * trust-store.c: the trust store of trust-store.h, on SQLite.
 *
 * Unlike the header cache this file holds what cannot be rebuilt (the
 * user's decisions, when a key was first seen), so a file that is not
 * ours, is of a newer version or is corrupt is never deleted: opening it
 * fails with the reason. The schema is versioned with PRAGMA user_version
 * and moved forward by numbered migrations; every change runs in one
 * BEGIN IMMEDIATE transaction, so that a crash leaves either all of it or
 * none (WAL journal). The rules of doc/trust.md are the functions
 * trust_store_message() and trust_store_sighting().
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gnutls/crypto.h>
#include <sqlite3.h>

#include "buf.h"
#include "db.h"
#include "log.h"
#include "paths.h"
#include "trust-store.h"
#include "xmalloc.h"

#define TRUST_APP_ID	0x53545452	/* "STTR" */
#define TRUST_VERSION	5

void	(*trust_store_test_hook)(void);

struct trust_store {
	sqlite3		*db;
	char		*path;
};

/*
 * Version 1: keys and the pinned key per address (since version 4 the
 * table pin has one per address and protocol, and peer is gone).
 */
static const char trust_schema[] =
    "CREATE TABLE peer ("
    " addr TEXT PRIMARY KEY COLLATE NOCASE,"
    " pinned TEXT,"			/* the key used for encryption */
    " changed TEXT,"			/* a new key not yet accepted */
    " conflict TEXT);"			/* a DNSSEC record's other key */
    "CREATE TABLE key ("
    " addr TEXT NOT NULL COLLATE NOCASE,"
    " fpr TEXT NOT NULL,"
    " proto TEXT NOT NULL,"
    " sources INTEGER NOT NULL DEFAULT 0,"
    " first_seen INTEGER NOT NULL,"
    " last_seen INTEGER NOT NULL,"
    " messages INTEGER NOT NULL DEFAULT 0,"
    " last_sig INTEGER NOT NULL DEFAULT 0,"
    " dns_confirmed INTEGER NOT NULL DEFAULT 0,"
    " decision TEXT NOT NULL DEFAULT 'none',"
    " revoked INTEGER NOT NULL DEFAULT 0,"
    " expired INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (addr, fpr));";

/* trust_migrations[n] takes version n + 1 to n + 2. */
static const char *trust_migrations[] = {
	/* 1 -> 2: the state each received message earned. */
	"CREATE TABLE message ("
	" id TEXT PRIMARY KEY,"
	" addr TEXT NOT NULL COLLATE NOCASE,"
	" state INTEGER NOT NULL,"
	" fpr TEXT, other TEXT,"
	" since INTEGER NOT NULL DEFAULT 0,"
	" messages INTEGER NOT NULL DEFAULT 0,"
	" evidence TEXT NOT NULL,"
	" processed INTEGER NOT NULL);",
	/* 2 -> 3: the history of every change. */
	"CREATE TABLE history ("
	" id INTEGER PRIMARY KEY,"
	" addr TEXT NOT NULL COLLATE NOCASE,"
	" time INTEGER NOT NULL,"
	" what TEXT NOT NULL);"
	"CREATE INDEX history_addr ON history (addr);",
	/*
	 * 3 -> 4: a pin per address and protocol. The pinned key, the
	 * pending one and the conflicting one of a peer row each go to the
	 * protocol of their key row (openpgp when there is none). A pending
	 * key of a protocol without a pin, where the address had a pin of
	 * the other protocol, was the false key change of the single pin:
	 * it is the first key of its protocol, and is pinned (accepted) as
	 * the rules now do on first contact. The history says so.
	 */
	"CREATE TABLE pin ("
	" addr TEXT NOT NULL COLLATE NOCASE,"
	" proto TEXT NOT NULL,"
	" pinned TEXT,"
	" changed TEXT,"
	" conflict TEXT,"
	" PRIMARY KEY (addr, proto));"
	"INSERT INTO pin (addr, proto, pinned, changed, conflict)"
	" SELECT addr, proto, max(pinned), max(changed), max(conflict) FROM ("
	"  SELECT p.addr AS addr, coalesce((SELECT k.proto FROM key k"
	"   WHERE k.addr = p.addr AND k.fpr = p.pinned COLLATE NOCASE),"
	"   'openpgp') AS proto, p.pinned AS pinned, NULL AS changed,"
	"   NULL AS conflict FROM peer p WHERE p.pinned IS NOT NULL"
	"  UNION ALL SELECT p.addr, coalesce((SELECT k.proto FROM key k"
	"   WHERE k.addr = p.addr AND k.fpr = p.changed COLLATE NOCASE),"
	"   'openpgp'), NULL, p.changed, NULL FROM peer p"
	"   WHERE p.changed IS NOT NULL"
	"  UNION ALL SELECT p.addr, coalesce((SELECT k.proto FROM key k"
	"   WHERE k.addr = p.addr AND k.fpr = p.conflict COLLATE NOCASE),"
	"   'openpgp'), NULL, NULL, p.conflict FROM peer p"
	"   WHERE p.conflict IS NOT NULL)"
	" GROUP BY addr, proto;"
	"CREATE TEMP TABLE first_of_proto AS SELECT pin.addr AS addr,"
	" pin.proto AS proto, pin.changed AS fpr FROM pin"
	" WHERE pin.pinned IS NULL AND pin.changed IS NOT NULL"
	" AND EXISTS (SELECT 1 FROM peer WHERE peer.addr = pin.addr"
	"  AND peer.pinned IS NOT NULL)"
	" AND NOT EXISTS (SELECT 1 FROM key WHERE key.addr = pin.addr"
	"  AND key.fpr = pin.changed COLLATE NOCASE"
	"  AND key.decision = 'rejected');"
	"UPDATE key SET decision = 'accepted' WHERE decision = 'none'"
	" AND EXISTS (SELECT 1 FROM first_of_proto f WHERE f.addr = key.addr"
	"  AND f.fpr = key.fpr COLLATE NOCASE);"
	"UPDATE pin SET pinned = changed, changed = NULL"
	" WHERE EXISTS (SELECT 1 FROM first_of_proto f"
	"  WHERE f.addr = pin.addr AND f.proto = pin.proto);"
	"INSERT INTO history (addr, time, what) SELECT addr,"
	" CAST(strftime('%s', 'now') AS INTEGER), 'key ' || fpr ||"
	" ' pinned for ' || proto || ': the first key of its protocol, no"
	" longer a key change (trust store version 4)' FROM first_of_proto;"
	"DROP TABLE first_of_proto;"
	"DROP TABLE peer;",
	/*
	 * 4 -> 5: how a pending key change came (changed_level: 0 only an
	 * Autocrypt header named it, 1 a signature by the new key), so that
	 * a claim never takes the place of a signed change; and which
	 * message verdicts are final. A pending change from before is
	 * taken as signed (the stronger: nothing replaces it silently). An
	 * unsigned verdict was never evidence of anything: it becomes one
	 * that is decided again when the message is next processed, which
	 * mends those stored as "no key known" before the key was.
	 */
	"ALTER TABLE pin ADD COLUMN changed_level INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE message ADD COLUMN final INTEGER NOT NULL DEFAULT 1;"
	"UPDATE message SET final = 0 WHERE state = 1;",
};

static const char *trust_proto_names[] = { "openpgp", "smime" };

static const char *trust_state_names[] = {
	"none", "unsigned", "first-contact", "known", "key-changed",
	"revoked", "expired", "dns-confirmed", "conflict", "verified"
};

static const char *trust_source_names[] = {
	"dns-secure", "dns-insecure", "autocrypt", "gossip", "attached",
	"manual"
};

const char *
trust_state_name(enum trust_state s)
{
	if ((size_t)s >= sizeof trust_state_names / sizeof *trust_state_names)
		return "none";
	return trust_state_names[s];
}

const char *
trust_proto_name(enum trust_proto p)
{
	if (p >= TRUST_NPROTO)
		return "openpgp";
	return trust_proto_names[p];
}

int
trust_proto_index(const char *proto)
{
	int	i;

	for (i = 0; proto != NULL && i < TRUST_NPROTO; i++) {
		if (strcmp(proto, trust_proto_names[i]) == 0)
			return i;
	}
	return -1;
}

/* The protocol a caller names, as stored: NULL or unknown is openpgp. */
static const char *
trust_proto(const char *proto)
{
	return proto != NULL && strcmp(proto, "smime") == 0 ? "smime" :
	    "openpgp";
}

/* How a history line or the evidence names the protocol's keys. */
static const char *
trust_proto_words(const char *proto)
{
	return strcmp(trust_proto(proto), "smime") == 0 ?
	    " (S/MIME)" : "";
}

const char *
trust_source_name(enum trust_source s)
{
	if (s >= TRUST_SRC_COUNT)
		return "unknown";
	return trust_source_names[s];
}

char *
trust_sources_text(unsigned mask)
{
	struct buf	b;
	int		i;

	buf_init(&b);
	for (i = 0; i < TRUST_SRC_COUNT; i++) {
		if (mask & (1u << i))
			buf_addf(&b, "%s%s", b.len > 0 ? ", " : "",
			    trust_source_names[i]);
	}
	if (b.len == 0)
		buf_adds(&b, "none");
	return buf_take(&b);
}

const char *
trust_date(time_t t)
{
	static char	s[32];
	struct tm	tm;

	if (t == 0 || gmtime_r(&t, &tm) == NULL)
		return "never";
	strftime(s, sizeof s, "%Y-%m-%d", &tm);
	return s;
}

char *
trust_store_addr(const char *a)
{
	const char	*at;
	char		*s, *p;

	if (a == NULL || (at = strrchr(a, '@')) == NULL || at == a ||
	    at[1] == '\0')
		return NULL;
	s = xstrdup(a);
	for (p = s + (at - a); *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

char *
trust_store_msgkey(const char *msgid, const char *sender, const void *raw,
    size_t len)
{
	unsigned char	d[32];
	char		hex[65], *addr, *key;
	size_t		i;

	if (msgid != NULL && *msgid != '\0') {
		addr = trust_store_addr(sender);
		key = xasprintf("%s %s", msgid, addr != NULL ? addr : "");
		free(addr);
		return key;
	}
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, raw, len, d) < 0)
		memset(d, 0, sizeof d);
	for (i = 0; i < sizeof d; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return xasprintf("sha256:%s", hex);
}

static int
trust_fail(struct trust_store *ts, const char *what, char **cause)
{
	*cause = xasprintf("trust store %s: %s: %s", ts->path, what,
	    sqlite3_errmsg(ts->db));
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
static int
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
static sqlite3_stmt *
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

static char *
trust_col(sqlite3_stmt *st, int i)
{
	const unsigned char	*s = sqlite3_column_text(st, i);

	return s != NULL ? xstrdup((const char *)s) : NULL;
}

static int
trust_begin(struct trust_store *ts, char **cause)
{
	if (sqlite3_exec(ts->db, "BEGIN IMMEDIATE", NULL, NULL,
	    NULL) != SQLITE_OK)
		return trust_fail(ts, "cannot begin a transaction", cause);
	return 0;
}

static int
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

static void
trust_rollback(struct trust_store *ts)
{
	sqlite3_exec(ts->db, "ROLLBACK", NULL, NULL, NULL);
}

static int
trust_history(struct trust_store *ts, const char *addr, time_t now,
    char **cause, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int
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


/* Create or migrate; never deletes anything. */
static int
trust_setup(struct trust_store *ts, char **cause)
{
	int	 app, version, tables;
	char	*sql;

	if (db_int(ts->db, "PRAGMA application_id", &app) == -1 ||
	    db_int(ts->db, "PRAGMA user_version", &version) == -1 ||
	    db_int(ts->db, "SELECT count(*) FROM sqlite_master",
	    &tables) == -1)
		return trust_fail(ts, "cannot be read (left as it is)", cause);
	if (tables == 0 && app == 0) {
		sql = xasprintf("BEGIN IMMEDIATE; PRAGMA application_id=%d;"
		    " PRAGMA user_version=1; %s COMMIT;", TRUST_APP_ID,
		    trust_schema);
		if (sqlite3_exec(ts->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			free(sql);
			trust_rollback(ts);
			return trust_fail(ts, "cannot create", cause);
		}
		free(sql);
		app = TRUST_APP_ID;
		version = 1;
	}
	if (app != TRUST_APP_ID) {
		*cause = xasprintf("trust store %s: not a steedmail trust "
		    "store (left as it is)", ts->path);
		return -1;
	}
	if (version < 1 || version > TRUST_VERSION) {
		*cause = xasprintf("trust store %s: version %d, this "
		    "steedmail reads up to %d (left as it is)", ts->path,
		    version, TRUST_VERSION);
		return -1;
	}
	for (; version < TRUST_VERSION; version++) {
		sql = xasprintf("BEGIN IMMEDIATE; %s PRAGMA user_version=%d; "
		    "COMMIT;", trust_migrations[version - 1], version + 1);
		if (sqlite3_exec(ts->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			free(sql);
			trust_fail(ts, "cannot migrate", cause);
			trust_rollback(ts);
			return -1;
		}
		free(sql);
		log_msg(LOG_INFO, "trust: %s migrated to version %d", ts->path,
		    version + 1);
	}
	return 0;
}

struct trust_store *
trust_store_open(const char *path, char **cause)
{
	struct trust_store	*ts;
	char			*dir;
	int			 app;

	ts = xcalloc(1, sizeof *ts);
	if (path != NULL)
		ts->path = xstrdup(path);
	else {
		if ((dir = paths_data_dir(cause)) == NULL) {
			free(ts);
			return NULL;
		}
		ts->path = xasprintf("%s/trust.sqlite", dir);
		free(dir);
	}
	if (sqlite3_open_v2(ts->path, &ts->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		if (ts->db == NULL)
			*cause = xasprintf("trust store %s: cannot open",
			    ts->path);
		else
			trust_fail(ts, "cannot open", cause);
		goto fail;
	}
	chmod(ts->path, 0600);
	sqlite3_busy_timeout(ts->db, 5000);
	/* The WAL journal before anything is written, so it is never lost. */
	if (db_int(ts->db, "PRAGMA application_id", &app) == -1) {
		trust_fail(ts, "cannot be read (left as it is)", cause);
		goto fail;
	}
	if (sqlite3_exec(ts->db, "PRAGMA journal_mode=WAL;"
	    "PRAGMA synchronous=FULL", NULL, NULL, NULL) != SQLITE_OK) {
		trust_fail(ts, "cannot set the journal", cause);
		goto fail;
	}
	if (trust_setup(ts, cause) == -1)
		goto fail;
	return ts;
fail:
	sqlite3_close(ts->db);
	free(ts->path);
	free(ts);
	return NULL;
}

void
trust_store_close(struct trust_store *ts)
{
	if (ts == NULL)
		return;
	sqlite3_close(ts->db);
	free(ts->path);
	free(ts);
}

void
trust_verdict_free(struct trust_verdict *v)
{
	free(v->fpr);
	free(v->other);
	free(v->evidence);
	memset(v, 0, sizeof *v);
}

/*
 * The pin of addr for one protocol (proto is trust_proto()'s, static);
 * 0 with all NULL when there is none.
 */
struct trust_pin {
	const char	*proto;
	char		*pinned, *changed, *conflict;
	int		 changed_level;	/* enum trust_level */
	int		 exists;
};

static int
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

static void
trust_pin_free(struct trust_pin *p)
{
	free(p->pinned);
	free(p->changed);
	free(p->conflict);
	p->pinned = p->changed = p->conflict = NULL;
	p->exists = 0;
}

/* level: how the pending key changed came (enum trust_level). */
static int
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
static int
trust_touch_key(struct trust_store *ts, const char *addr, const char *fpr,
    const char *proto, unsigned sources, time_t now, char **cause)
{
	return trust_run(ts, cause, "INSERT INTO key (addr, fpr, proto, "
	    "sources, first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?5) "
	    "ON CONFLICT (addr, fpr) DO UPDATE SET sources = sources | ?4, "
	    "last_seen = ?5", "sssii", addr, fpr, proto != NULL ? proto :
	    "openpgp", (long long)sources, (long long)now);
}

struct trust_krow {
	time_t	 first_seen, dns_confirmed;
	long	 messages;
	unsigned sources;
	char	 decision[16];
	char	 proto[16];
	int	 revoked, expired, exists;
};

static int
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

static void
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

/* How strong the evidence for a pending key change is (pin.changed_level). */
enum trust_level {
	TRUST_LEVEL_CLAIM,	/* only an Autocrypt header named the key */
	TRUST_LEVEL_SIGNED	/* the new key signed mail from the address */
};

/*
 * The state of the pinned key itself, strongest first. pending: whether a
 * pending key change counts. It does for the address; it does not for a
 * message signed by the pinned key, whose own evidence is that key (a
 * change another message brought is that message's warning, not this
 * one's).
 */
static enum trust_state
trust_pinned_state(const struct trust_pin *p, const struct trust_krow *k,
    int pending)
{
	if (p->conflict != NULL)
		return TRUST_CONFLICT;
	if (k->revoked)
		return TRUST_REVOKED;
	if (k->expired)
		return TRUST_EXPIRED;
	if (strcmp(k->decision, "verified") == 0)
		return TRUST_VERIFIED;
	if (pending && p->changed != NULL)
		return TRUST_KEY_CHANGED;
	if (k->dns_confirmed != 0)
		return TRUST_DNS_CONFIRMED;
	return TRUST_KNOWN;
}

/*
 * A good signature by fpr from addr: the rules of doc/trust.md, against
 * p, the pin of the signature's protocol.
 */
static int
trust_good_sig(struct trust_store *ts, const char *addr,
    const struct trust_sig *sig, struct trust_pin *p, time_t now,
    struct trust_verdict *v, char **cause)
{
	struct trust_krow	 k;
	const char		*fpr = sig->fpr;
	const char		*how;

	if (trust_touch_key(ts, addr, fpr, sig->proto, 0, now, cause) == -1 ||
	    trust_run(ts, cause, "UPDATE key SET messages = messages + 1, "
	    "last_sig = ? WHERE addr = ? AND fpr = ?", "iss", (long long)now,
	    addr, fpr) == -1 || trust_get_key(ts, addr, fpr, &k, cause) == -1)
		return -1;
	if (strcmp(k.decision, "rejected") == 0) {
		trust_set_verdict(v, TRUST_KEY_CHANGED, fpr, p->pinned, &k,
		    xasprintf("signed by key %s, which you rejected", fpr));
		return 0;
	}
	if (p->pinned == NULL) {
		if (trust_run(ts, cause, "UPDATE key SET decision = 'accepted'"
		    " WHERE addr = ? AND fpr = ?", "ss", addr, fpr) == -1 ||
		    trust_set_pin(ts, addr, p->proto, fpr, NULL, 0,
		    p->conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "first contact: key %s "
		    "accepted from a signed message%s", fpr,
		    trust_proto_words(p->proto)) == -1)
			return -1;
		trust_set_verdict(v, TRUST_FIRST_CONTACT, fpr, NULL, &k,
		    xasprintf("first %s seen for %s: accepted",
		    strcmp(p->proto, "smime") == 0 ? "S/MIME certificate" :
		    "key", addr));
		return 0;
	}
	if (strcasecmp(p->pinned, fpr) == 0) {
		trust_set_verdict(v, trust_pinned_state(p, &k, 0), fpr,
		    p->conflict, &k, xasprintf("signed by the key known since "
		    "%s (%ld message%s)", trust_date(k.first_seen), k.messages,
		    k.messages == 1 ? "" : "s"));
		if (p->conflict != NULL) {
			free(v->evidence);
			v->evidence = xasprintf("signed by the pinned key, but "
			    "a DNSSEC-secure record names key %s", p->conflict);
		}
		return 0;
	}
	/* Another key. Is the change proven? */
	how = NULL;
	if (k.dns_confirmed != 0)
		how = "a DNSSEC-secure record names it";
	else if (sig->certified_by_pinned)
		how = "the old key certifies it";
	if (how != NULL) {
		if (trust_run(ts, cause, "UPDATE key SET decision = 'accepted'"
		    " WHERE addr = ? AND fpr = ?", "ss", addr, fpr) == -1 ||
		    trust_set_pin(ts, addr, p->proto, fpr, NULL, 0, NULL,
		    cause) == -1 ||
		    trust_history(ts, addr, now, cause, "key changed from %s to "
		    "%s, proven: %s%s", p->pinned, fpr, how,
		    trust_proto_words(p->proto)) == -1)
			return -1;
		trust_set_verdict(v, k.dns_confirmed != 0 ?
		    TRUST_DNS_CONFIRMED : TRUST_KNOWN, fpr, p->pinned, &k,
		    xasprintf("new key, proven: %s", how));
		return 0;
	}
	/*
	 * Not proven: the change waits for the user. It takes the place of
	 * a pending key only an Autocrypt header named, never of another
	 * signed one (the first stays: which came first is not evidence).
	 */
	if (p->changed == NULL || (p->changed_level < TRUST_LEVEL_SIGNED &&
	    strcasecmp(p->changed, fpr) != 0)) {
		if (trust_set_pin(ts, addr, p->proto, p->pinned, fpr,
		    TRUST_LEVEL_SIGNED, p->conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "KEY CHANGED: signed "
		    "by %s; %s stays the key used for encryption%s", fpr,
		    p->pinned, trust_proto_words(p->proto)) == -1)
			return -1;
	} else if (strcasecmp(p->changed, fpr) == 0 &&
	    p->changed_level < TRUST_LEVEL_SIGNED) {
		if (trust_set_pin(ts, addr, p->proto, p->pinned, fpr,
		    TRUST_LEVEL_SIGNED, p->conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "KEY CHANGED: the new "
		    "key %s, so far only named in an Autocrypt header, signed "
		    "a message%s", fpr, trust_proto_words(p->proto)) == -1)
			return -1;
	}
	trust_set_verdict(v, TRUST_KEY_CHANGED, fpr, p->pinned, &k,
	    xasprintf("signed by a new key; %s stays the key used for "
	    "encryption until you accept the new one", p->pinned));
	return 0;
}

/*
 * A key seen for addr (normalised), inside the caller's transaction: the
 * sighting rules of doc/trust.md.
 */
static int
trust_sight(struct trust_store *ts, const char *addr, const char *fpr,
    const char *proto, enum trust_source src, time_t now, char **cause)
{
	struct trust_pin	 p;
	struct trust_krow	 k;
	const char		*name = trust_source_name(src);
	int			 rc = -1;

	if (trust_get_pin(ts, addr, proto, &p, cause) == -1)
		return -1;
	if (trust_get_key(ts, addr, fpr, &k, cause) == -1 ||
	    trust_touch_key(ts, addr, fpr, proto, 1u << src, now, cause) == -1)
		goto out;
	if (src == TRUST_SRC_DNS_SECURE && trust_run(ts, cause, "UPDATE key "
	    "SET dns_confirmed = ? WHERE addr = ? AND fpr = ?", "iss",
	    (long long)now, addr, fpr) == -1)
		goto out;
	if (!k.exists && trust_history(ts, addr, now, cause, "key %s seen "
	    "(%s)", fpr, name) == -1)
		goto out;
	if (strcmp(k.decision, "rejected") == 0) {
		rc = 0;
		goto out;
	}
	if (p.pinned == NULL) {
		/* No key yet: this one, whatever the source (first contact). */
		if (trust_run(ts, cause, "UPDATE key SET decision = 'accepted'"
		    " WHERE addr = ? AND fpr = ?", "ss", addr, fpr) == -1 ||
		    trust_set_pin(ts, addr, p.proto, fpr, NULL, 0,
		    p.conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "first contact: key %s "
		    "accepted (%s)%s", fpr, name,
		    trust_proto_words(p.proto)) == -1)
			goto out;
	} else if (strcasecmp(p.pinned, fpr) == 0) {
		if (src == TRUST_SRC_DNS_SECURE && k.dns_confirmed == 0 &&
		    trust_history(ts, addr, now, cause, "key %s confirmed by "
		    "a DNSSEC-secure record", fpr) == -1)
			goto out;
	} else if (src == TRUST_SRC_DNS_SECURE) {
		if (p.changed != NULL && strcasecmp(p.changed, fpr) == 0) {
			if (trust_run(ts, cause, "UPDATE key SET decision = "
			    "'accepted' WHERE addr = ? AND fpr = ?", "ss", addr,
			    fpr) == -1 ||
			    trust_set_pin(ts, addr, p.proto, fpr, NULL, 0,
			    NULL, cause) == -1 ||
			    trust_history(ts, addr, now, cause, "key changed "
			    "from %s to %s, proven: a DNSSEC-secure record "
			    "names it", p.pinned, fpr) == -1)
				goto out;
		} else if (p.conflict == NULL ||
		    strcasecmp(p.conflict, fpr) != 0) {
			if (trust_set_pin(ts, addr, p.proto, p.pinned,
			    p.changed, p.changed_level, fpr, cause) == -1 ||
			    trust_history(ts, addr, now, cause, "CONFLICT: a "
			    "DNSSEC-secure record names %s, the pinned key is "
			    "%s", fpr, p.pinned) == -1)
				goto out;
		}
	} else if (src == TRUST_SRC_AUTOCRYPT && p.changed == NULL) {
		/*
		 * A header names another key: a claim, which waits for the
		 * user, but never takes the place of a pending key (whose
		 * evidence is as good or better).
		 */
		if (trust_set_pin(ts, addr, p.proto, p.pinned, fpr,
		    TRUST_LEVEL_CLAIM, p.conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "KEY CHANGED (claimed "
		    "only): an Autocrypt header names %s; %s stays the key "
		    "used for encryption", fpr, p.pinned) == -1)
			goto out;
	}
	rc = 0;
out:
	trust_pin_free(&p);
	return rc;
}

/*
 * A stored verdict: 1 final (v filled, stored set), 2 one to decide
 * again (v left empty), 0 none.
 */
static int
trust_get_message(struct trust_store *ts, const char *msgkey,
    struct trust_verdict *v, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc, found = 0;

	if ((st = trust_query(ts, cause, "SELECT state, fpr, other, since, "
	    "messages, evidence, final FROM message WHERE id = ?", "s",
	    msgkey)) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int(st, 6) == 0)
			found = 2;
		else {
			found = 1;
			v->state = sqlite3_column_int(st, 0);
			v->fpr = trust_col(st, 1);
			v->other = trust_col(st, 2);
			v->since = sqlite3_column_int64(st, 3);
			v->messages = sqlite3_column_int64(st, 4);
			v->evidence = trust_col(st, 5);
			v->stored = 1;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return trust_fail(ts, "cannot read", cause);
	return found;
}

/*
 * A message without a signature that counts: unsigned, with the key its
 * own Autocrypt header names (recorded first, so that the message that
 * brings a key is the one that shows it) or the one known.
 */
static int
trust_unsigned(struct trust_store *ts, const char *addr,
    const struct trust_sig *sig, time_t now, struct trust_verdict *v,
    char **cause)
{
	struct trust_pin	 p;
	struct trust_krow	 k;
	const char		*what, *claim = sig->claim;
	char			*src;
	int			 had_pin = 0;

	what = sig->unknown_key ? "signed with a key not known yet (decided "
	    "again once it is)" : "not signed";
	if (claim != NULL) {
		if (trust_get_pin(ts, addr, "openpgp", &p, cause) == -1)
			return -1;
		had_pin = p.pinned != NULL;
		trust_pin_free(&p);
		if (trust_sight(ts, addr, claim, "openpgp",
		    TRUST_SRC_AUTOCRYPT, now, cause) == -1)
			return -1;
	}
	if (trust_get_pin(ts, addr, NULL, &p, cause) == -1)
		return -1;
	if (p.pinned == NULL && claim == NULL) {
		trust_pin_free(&p);
		if (trust_get_pin(ts, addr, "smime", &p, cause) == -1)
			return -1;
	}
	if (claim == NULL || (p.pinned != NULL &&
	    strcasecmp(p.pinned, claim) == 0 && had_pin)) {
		if (trust_get_key(ts, addr, p.pinned, &k, cause) == -1)
			goto fail;
		src = trust_sources_text(k.sources);
		trust_set_verdict(v, TRUST_UNSIGNED, p.pinned, NULL,
		    p.pinned != NULL ? &k : NULL, p.pinned != NULL ?
		    xasprintf("%s; key %s known since %s (%s)", what,
		    p.pinned, trust_date(k.first_seen), src) :
		    xasprintf("%s; no key known", what));
		free(src);
	} else if (p.pinned != NULL && strcasecmp(p.pinned, claim) == 0) {
		if (trust_get_key(ts, addr, claim, &k, cause) == -1)
			goto fail;
		trust_set_verdict(v, TRUST_UNSIGNED, claim, NULL, &k,
		    xasprintf("%s; its Autocrypt header brings key %s, the "
		    "first seen for %s: accepted", what, claim, addr));
	} else {
		/* Another key than the pinned one: this message's warning. */
		if (trust_get_key(ts, addr, claim, &k, cause) == -1)
			goto fail;
		trust_set_verdict(v, TRUST_KEY_CHANGED, claim, p.pinned, &k,
		    strcmp(k.decision, "rejected") == 0 ?
		    xasprintf("%s; its Autocrypt header names key %s, which "
		    "you rejected", what, claim) :
		    xasprintf("%s; its Autocrypt header names another key, %s;"
		    " %s stays the key used for encryption", what, claim,
		    p.pinned != NULL ? p.pinned : "none"));
	}
	trust_pin_free(&p);
	return 0;
fail:
	trust_pin_free(&p);
	return -1;
}

/* The rules for one message, inside the caller's transaction. */
static int
trust_decide_message(struct trust_store *ts, const char *addr,
    const struct trust_sig *sig, time_t now, struct trust_verdict *v,
    char **cause)
{
	struct trust_pin	 p;
	struct trust_krow	 k;
	int			 rc = -1;

	if (sig->status == TRUST_SIG_NONE)
		return trust_unsigned(ts, addr, sig, now, v, cause);
	if (trust_get_pin(ts, addr, sig->proto, &p, cause) == -1)
		return -1;
	if (sig->status == TRUST_SIG_GOOD) {
		if (trust_good_sig(ts, addr, sig, &p, now, v, cause) == -1)
			goto out;
	} else {
		if (trust_touch_key(ts, addr, sig->fpr, sig->proto, 0, now,
		    cause) == -1 ||
		    trust_store_key_status(ts, sig->fpr,
		    sig->status == TRUST_SIG_REVOKED,
		    sig->status == TRUST_SIG_EXPIRED, now, cause) == -1 ||
		    trust_get_key(ts, addr, sig->fpr, &k, cause) == -1)
			goto out;
		trust_set_verdict(v, sig->status == TRUST_SIG_REVOKED ?
		    TRUST_REVOKED : TRUST_EXPIRED, sig->fpr, NULL, &k,
		    xasprintf("signed with a key that is %s: it is never used "
		    "for encryption", sig->status == TRUST_SIG_REVOKED ?
		    "revoked" : "expired"));
	}
	/*
	 * The header's key after the signature decided, so that a first
	 * signed message is first contact even when it also brings the key.
	 */
	if (sig->claim != NULL && trust_sight(ts, addr, sig->claim, "openpgp",
	    TRUST_SRC_AUTOCRYPT, now, cause) == -1) {
		trust_verdict_free(v);
		goto out;
	}
	rc = 0;
out:
	trust_pin_free(&p);
	return rc;
}

int
trust_store_message(struct trust_store *ts, const char *msgkey,
    const char *addr_in, const struct trust_sig *sig, time_t now,
    struct trust_verdict *v, char **cause)
{
	char	*addr;
	int	 found;

	memset(v, 0, sizeof *v);
	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("no sender address");
		return -1;
	}
	if (trust_begin(ts, cause) == -1) {
		free(addr);
		return -1;
	}
	if ((found = trust_get_message(ts, msgkey, v, cause)) == -1)
		goto fail;
	if (found == 1) {
		trust_rollback(ts);
		free(addr);
		return 0;
	}
	if (trust_decide_message(ts, addr, sig, now, v, cause) == -1)
		goto fail;
	/* processed stays the time of the first processing. */
	if (trust_run(ts, cause, "INSERT INTO message (id, addr, state, fpr, "
	    "other, since, messages, evidence, processed, final) VALUES "
	    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (id) DO "
	    "UPDATE SET state = ?3, fpr = ?4, other = ?5, since = ?6, "
	    "messages = ?7, evidence = ?8, final = ?10", "ssissiisii", msgkey,
	    addr, (long long)v->state, v->fpr, v->other, (long long)v->since,
	    (long long)v->messages, v->evidence, (long long)now,
	    (long long)(sig->status != TRUST_SIG_NONE)) == -1)
		goto fail_v;
	if (trust_commit(ts, cause) == -1)
		goto fail_nr;
	free(addr);
	return 0;
fail_v:
	trust_verdict_free(v);
fail:
	trust_rollback(ts);
	free(addr);
	return -1;
fail_nr:
	trust_verdict_free(v);
	free(addr);
	return -1;
}

int
trust_store_sighting(struct trust_store *ts, const char *addr_in,
    const char *fpr, const char *proto, enum trust_source src, time_t now,
    char **cause)
{
	char	*addr;

	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	if (trust_begin(ts, cause) == -1) {
		free(addr);
		return -1;
	}
	if (trust_sight(ts, addr, fpr, proto, src, now, cause) == -1) {
		trust_rollback(ts);
		free(addr);
		return -1;
	}
	free(addr);
	return trust_commit(ts, cause);
}
char *
trust_store_pinned(struct trust_store *ts, const char *addr_in,
    const char *proto)
{
	struct trust_pin	 p;
	char			*addr, *cause = NULL, *fpr;

	if ((addr = trust_store_addr(addr_in)) == NULL)
		return NULL;
	if (trust_get_pin(ts, addr, proto, &p, &cause) == -1) {
		free(cause);
		free(addr);
		return NULL;
	}
	fpr = p.pinned;
	p.pinned = NULL;
	trust_pin_free(&p);
	free(addr);
	return fpr;
}

int
trust_store_knows(struct trust_store *ts, const char *addr_in,
    const char *fpr)
{
	sqlite3_stmt	*st;
	char		*addr, *cause = NULL;
	int		 yes;

	if (fpr == NULL || (addr = trust_store_addr(addr_in)) == NULL)
		return 0;
	st = trust_query(ts, &cause, "SELECT 1 FROM key WHERE addr = ? AND "
	    "fpr = ? COLLATE NOCASE", "ss", addr, fpr);
	free(addr);
	if (st == NULL) {
		free(cause);
		return 0;
	}
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* Inside or outside a transaction: one statement is atomic anyway. */
int
trust_store_key_status(struct trust_store *ts, const char *fpr, int revoked,
    int expired, time_t now, char **cause)
{
	(void)now;
	if (fpr == NULL)
		return 0;
	return trust_run(ts, cause, "UPDATE key SET revoked = revoked | ?, "
	    "expired = ? WHERE fpr = ?", "iis", (long long)(revoked != 0),
	    (long long)(expired != 0), fpr);
}

/* One decision on (addr, fpr) in one transaction. */
enum trust_decide { TRUST_DO_VERIFY, TRUST_DO_ACCEPT, TRUST_DO_REJECT };

/*
 * The pending key of addr when the user names none: the new key or the
 * conflicting one, of whichever protocol has one; *p becomes that
 * protocol's pin. More than one: the user must say which.
 */
static char *
trust_pending(struct trust_store *ts, const char *addr, struct trust_pin *p,
    char **cause)
{
	struct trust_pin	 q;
	const char		*fpr = NULL;
	int			 i, n = 0;

	memset(p, 0, sizeof *p);
	for (i = 0; i < TRUST_NPROTO; i++) {
		if (trust_get_pin(ts, addr, trust_proto_name(i), &q,
		    cause) == -1) {
			trust_pin_free(p);
			return NULL;
		}
		n += (q.changed != NULL) + (q.conflict != NULL);
		if (fpr == NULL && (q.changed != NULL || q.conflict != NULL)) {
			trust_pin_free(p);
			*p = q;
			fpr = q.conflict != NULL ? q.conflict : q.changed;
		} else
			trust_pin_free(&q);
	}
	if (n > 1) {
		*cause = xasprintf("%s has more than one key waiting (a new "
		    "key, a conflicting DNS record, or one for each of "
		    "OpenPGP and S/MIME): name the key to accept", addr);
		trust_pin_free(p);
		return NULL;
	}
	if (fpr == NULL) {
		*cause = xasprintf("no new key for %s to accept", addr);
		trust_pin_free(p);
		return NULL;
	}
	/* A claim is accepted only by name, after asking the sender. */
	if (p->conflict == NULL && p->changed_level == TRUST_LEVEL_CLAIM) {
		*cause = xasprintf("the new key %s for %s was only named in an "
		    "Autocrypt header, which anyone can write: compare its "
		    "fingerprint with the sender, then name it to accept it",
		    fpr, addr);
		trust_pin_free(p);
		return NULL;
	}
	return xstrdup(fpr);
}

static int
trust_decide(struct trust_store *ts, const char *addr_in, const char *fpr_in,
    enum trust_decide what, time_t now, char **cause)
{
	static const char	*words[] = { "verified", "accepted", "rejected" };
	struct trust_pin	 p;
	struct trust_krow	 k;
	char			*addr, *fpr = NULL;
	const char		*pinned, *changed, *conflict;

	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	memset(&p, 0, sizeof p);
	if (trust_begin(ts, cause) == -1) {
		free(addr);
		return -1;
	}
	if (fpr_in != NULL) {
		fpr = xstrdup(fpr_in);
		for (char *c = fpr; *c != '\0'; c++)
			*c = (char)toupper((unsigned char)*c);
	} else if ((fpr = trust_pending(ts, addr, &p, cause)) == NULL)
		goto fail;
	if (trust_get_key(ts, addr, fpr, &k, cause) == -1)
		goto fail;
	if (!k.exists && what == TRUST_DO_REJECT) {
		*cause = xasprintf("no key %s is known for %s", fpr, addr);
		goto fail;
	}
	/* The key's own protocol: its pin is the one decided on. */
	if (fpr_in != NULL && trust_get_pin(ts, addr, k.exists ? k.proto :
	    NULL, &p, cause) == -1)
		goto fail;
	if (trust_touch_key(ts, addr, fpr, p.proto, k.exists ? 0 :
	    1u << TRUST_SRC_MANUAL, now, cause) == -1 ||
	    trust_run(ts, cause, "UPDATE key SET decision = ? WHERE addr = ? "
	    "AND fpr = ?", "sss", words[what], addr, fpr) == -1)
		goto fail;
	pinned = p.pinned;
	changed = p.changed;
	conflict = p.conflict;
	if (what == TRUST_DO_REJECT) {
		if (pinned != NULL && strcasecmp(pinned, fpr) == 0)
			pinned = NULL;
		if (changed != NULL && strcasecmp(changed, fpr) == 0)
			changed = NULL;
		if (conflict != NULL && strcasecmp(conflict, fpr) == 0)
			conflict = NULL;
	} else {
		/* The user's word settles a change or a conflict. */
		pinned = fpr;
		changed = conflict = NULL;
	}
	if (trust_set_pin(ts, addr, p.proto, pinned, changed,
	    p.changed_level, conflict, cause) == -1 ||
	    trust_history(ts, addr, now, cause, "key %s %s by you%s%s", fpr,
	    words[what], what != TRUST_DO_REJECT ? "; used for encryption" :
	    "", trust_proto_words(p.proto)) == -1)
		goto fail;
	if (trust_commit(ts, cause) == -1)
		goto fail_nr;
	free(fpr);
	trust_pin_free(&p);
	free(addr);
	return 0;
fail:
	trust_rollback(ts);
fail_nr:
	free(fpr);
	trust_pin_free(&p);
	free(addr);
	return -1;
}

int
trust_store_verify(struct trust_store *ts, const char *addr, const char *fpr,
    time_t now, char **cause)
{
	if (fpr == NULL) {
		*cause = xstrdup("verify needs the fingerprint you compared");
		return -1;
	}
	return trust_decide(ts, addr, fpr, TRUST_DO_VERIFY, now, cause);
}

int
trust_store_accept(struct trust_store *ts, const char *addr, const char *fpr,
    time_t now, char **cause)
{
	return trust_decide(ts, addr, fpr, TRUST_DO_ACCEPT, now, cause);
}

int
trust_store_reject(struct trust_store *ts, const char *addr, const char *fpr,
    time_t now, char **cause)
{
	if (fpr == NULL) {
		*cause = xstrdup("reject needs the fingerprint");
		return -1;
	}
	return trust_decide(ts, addr, fpr, TRUST_DO_REJECT, now, cause);
}

int
trust_store_forget(struct trust_store *ts, const char *addr_in, time_t now,
    char **cause)
{
	char	*addr;

	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	if (trust_begin(ts, cause) == -1 ||
	    trust_run(ts, cause, "DELETE FROM key WHERE addr = ?", "s",
	    addr) == -1 ||
	    trust_run(ts, cause, "DELETE FROM pin WHERE addr = ?", "s",
	    addr) == -1 ||
	    trust_history(ts, addr, now, cause, "every key forgotten") == -1) {
		trust_rollback(ts);
		free(addr);
		return -1;
	}
	free(addr);
	return trust_commit(ts, cause);
}

/*
 * One protocol's state now, from its pin and its pinned key; nkeys: how
 * many keys of the protocol the address has.
 */
static void
trust_pin_state(const char *addr, const struct trust_pin *p,
    const struct trust_krow *k, size_t nkeys, struct trust_peer_pin *pp)
{
	struct trust_verdict	*v = &pp->v;
	char			*src;

	pp->proto = p->proto;
	pp->present = p->pinned != NULL || p->changed != NULL ||
	    p->conflict != NULL;
	if (p->pinned == NULL) {
		trust_set_verdict(v, p->conflict != NULL ? TRUST_CONFLICT :
		    TRUST_NONE, NULL, p->conflict, NULL, xstrdup(nkeys > 0 ?
		    "no key is accepted" : "no key known"));
		return;
	}
	pp->pinned = xstrdup(p->pinned);
	pp->usable = !k->revoked && !k->expired;
	src = trust_sources_text(k->sources);
	trust_set_verdict(v, trust_pinned_state(p, k, 1), p->pinned,
	    p->conflict != NULL ? p->conflict : p->changed, k,
	    xasprintf("key %s for %s, %s since %s (%s)", p->pinned, addr,
	    k->decision, trust_date(k->first_seen), src));
	free(src);
}

static void
trust_verdict_copy(struct trust_verdict *to, const struct trust_verdict *v)
{
	*to = *v;
	to->fpr = v->fpr != NULL ? xstrdup(v->fpr) : NULL;
	to->other = v->other != NULL ? xstrdup(v->other) : NULL;
	to->evidence = v->evidence != NULL ? xstrdup(v->evidence) : NULL;
}

int
trust_store_peer(struct trust_store *ts, const char *addr_in,
    struct trust_peer *peer, char **cause)
{
	struct trust_pin	 p[TRUST_NPROTO];
	struct trust_krow	 k;
	struct trust_key	*tk;
	struct trust_peer_pin	*main_pin;
	sqlite3_stmt		*st;
	char			*addr;
	size_t			 nkeys[TRUST_NPROTO];
	int			 rc, i, j;

	memset(peer, 0, sizeof *peer);
	memset(p, 0, sizeof p);
	memset(nkeys, 0, sizeof nkeys);
	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	peer->addr = addr;
	for (i = 0; i < TRUST_NPROTO; i++) {
		if (trust_get_pin(ts, addr, trust_proto_name(i), &p[i],
		    cause) == -1)
			goto fail;
	}
	if ((st = trust_query(ts, cause, "SELECT fpr, proto, sources, "
	    "first_seen, last_seen, last_sig, dns_confirmed, messages, "
	    "decision, revoked, expired FROM key WHERE addr = ? ORDER BY "
	    "first_seen, fpr", "s", addr)) == NULL)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		peer->keys = xreallocarray(peer->keys, peer->nkeys + 1,
		    sizeof *peer->keys);
		tk = &peer->keys[peer->nkeys++];
		tk->fpr = trust_col(st, 0);
		tk->proto = trust_col(st, 1);
		tk->sources = sqlite3_column_int64(st, 2);
		tk->first_seen = sqlite3_column_int64(st, 3);
		tk->last_seen = sqlite3_column_int64(st, 4);
		tk->last_sig = sqlite3_column_int64(st, 5);
		tk->dns_confirmed = sqlite3_column_int64(st, 6);
		tk->messages = sqlite3_column_int64(st, 7);
		tk->decision = trust_col(st, 8);
		tk->revoked = sqlite3_column_int(st, 9);
		tk->expired = sqlite3_column_int(st, 10);
		j = trust_proto_index(trust_proto(tk->proto));
		nkeys[j]++;
		tk->pinned = p[j].pinned != NULL &&
		    strcasecmp(p[j].pinned, tk->fpr) == 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		trust_fail(ts, "cannot read", cause);
		goto fail;
	}
	if ((st = trust_query(ts, cause, "SELECT time, what FROM history "
	    "WHERE addr = ? ORDER BY id", "s", addr)) == NULL)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		peer->history = xreallocarray(peer->history,
		    peer->nhistory + 1, sizeof *peer->history);
		peer->history[peer->nhistory].when =
		    sqlite3_column_int64(st, 0);
		peer->history[peer->nhistory++].what = trust_col(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		trust_fail(ts, "cannot read", cause);
		goto fail;
	}
	for (i = 0; i < TRUST_NPROTO; i++) {
		if (trust_get_key(ts, addr, p[i].pinned, &k, cause) == -1)
			goto fail;
		trust_pin_state(addr, &p[i], &k, nkeys[i], &peer->pins[i]);
	}
	/* The main protocol: OpenPGP, unless only S/MIME has a pin. */
	main_pin = &peer->pins[TRUST_OPENPGP];
	if (!main_pin->present && peer->pins[TRUST_SMIME].present)
		main_pin = &peer->pins[TRUST_SMIME];
	peer->proto = main_pin->proto;
	peer->pinned = main_pin->pinned != NULL ? xstrdup(main_pin->pinned) :
	    NULL;
	peer->usable = main_pin->usable;
	trust_verdict_copy(&peer->v, &main_pin->v);
	if (!main_pin->present) {
		free(peer->v.evidence);
		peer->v.evidence = xstrdup(peer->nkeys > 0 ?
		    "no key is accepted" : "no key known");
	}
	for (i = 0; i < TRUST_NPROTO; i++)
		trust_pin_free(&p[i]);
	return 0;
fail:
	for (i = 0; i < TRUST_NPROTO; i++)
		trust_pin_free(&p[i]);
	trust_peer_free(peer);
	return -1;
}

int
trust_store_list(struct trust_store *ts, char ***addrs, size_t *n,
    char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	*addrs = NULL;
	*n = 0;
	if ((st = trust_query(ts, cause, "SELECT DISTINCT addr FROM key "
	    "UNION SELECT addr FROM pin ORDER BY 1", "")) == NULL)
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


/*
 * One prepared SELECT, stepped once per key inside one read transaction
 * (BEGIN is deferred: the first SELECT takes a WAL snapshot, no lock that
 * a writer would wait for). Keys are bound without copying.
 */
int
trust_store_states(struct trust_store *ts, const char *const *keys,
    size_t n, enum trust_state *states, size_t *found, char **cause)
{
	sqlite3_stmt	*st;
	size_t		 i, nfound = 0;
	int		 rc, s;

	if (found != NULL)
		*found = 0;
	for (i = 0; i < n; i++)
		states[i] = TRUST_NONE;
	if (n == 0)
		return 0;
	if (sqlite3_exec(ts->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return trust_fail(ts, "cannot begin a transaction", cause);
	if (sqlite3_prepare_v2(ts->db, "SELECT state FROM message WHERE "
	    "id = ?", -1, &st, NULL) != SQLITE_OK) {
		trust_fail(ts, "cannot prepare", cause);
		trust_rollback(ts);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (keys[i] == NULL)
			continue;
		sqlite3_bind_text(st, 1, keys[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			s = sqlite3_column_int(st, 0);
			/* A value no steedmail wrote shows as nothing known. */
			if (s > TRUST_NONE && s <= TRUST_VERIFIED) {
				states[i] = (enum trust_state)s;
				nfound++;
			}
		} else if (rc != SQLITE_DONE) {
			trust_fail(ts, "cannot read", cause);
			sqlite3_finalize(st);
			trust_rollback(ts);
			for (i = 0; i < n; i++)
				states[i] = TRUST_NONE;
			return -1;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	/* Nothing was written: ending the read transaction is all. */
	trust_rollback(ts);
	if (found != NULL)
		*found = nfound;
	return 0;
}
void
trust_peer_free(struct trust_peer *peer)
{
	size_t	i;

	for (i = 0; i < peer->nkeys; i++) {
		free(peer->keys[i].fpr);
		free(peer->keys[i].proto);
		free(peer->keys[i].decision);
	}
	free(peer->keys);
	for (i = 0; i < peer->nhistory; i++)
		free(peer->history[i].what);
	free(peer->history);
	free(peer->addr);
	free(peer->pinned);
	trust_verdict_free(&peer->v);
	for (i = 0; i < TRUST_NPROTO; i++) {
		free(peer->pins[i].pinned);
		trust_verdict_free(&peer->pins[i].v);
	}
	memset(peer, 0, sizeof *peer);
}
