/*
 * trust-schema.c: the trust store's file (trust.sqlite): opening and
 * closing it, its schema and the numbered migrations that move an older
 * file forward (PRAGMA user_version). Unlike the header cache this file
 * holds what cannot be rebuilt (the user's decisions, when a key was first
 * seen), so a file that is not ours, is of a newer version or is corrupt
 * is never deleted: opening it fails with the reason. Every migration runs
 * in one BEGIN IMMEDIATE transaction, so that a crash leaves either all of
 * it or none (WAL journal).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "db.h"
#include "log.h"
#include "paths.h"
#include "trust-db.h"
#include "xmalloc.h"

#define TRUST_APP_ID	0x53545452	/* "STTR" */
#define TRUST_VERSION	6

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
	/*
	 * 5 -> 6: what DNS last said of an address's OpenPGP key
	 * (trust-dns.c): when a secure or insecure answer last came
	 * (checked), and when an answer was last bogus with the owner name
	 * and the validator's reason (bogus 0: none since a validated
	 * answer). A bogus answer is never a key: only this mark.
	 */
	"CREATE TABLE dns ("
	" addr TEXT PRIMARY KEY COLLATE NOCASE,"
	" checked INTEGER NOT NULL DEFAULT 0,"
	" bogus INTEGER NOT NULL DEFAULT 0,"
	" owner TEXT,"
	" why TEXT);",
};


/* Never rebuilt: the file holds what nothing else knows. */
static const struct db_schema trust_db = {
	"trust store", TRUST_APP_ID, trust_schema, trust_migrations,
	TRUST_VERSION, "FULL", 0
};

struct trust_store *
trust_store_open(const char *path, char **cause)
{
	struct trust_store	*ts;
	char			*dir;

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
	if ((ts->db = db_open(ts->path, &trust_db, cause)) == NULL)
		goto fail;
	return ts;
fail:
	sqlite3_close(ts->db);
	free(ts->path);
	free(ts);
	return NULL;
}

int
trust_store_exists(void)
{
	struct stat	 sb;
	char		*dir, *path, *cause = NULL;
	int		 yes;

	if ((dir = paths_data_dir(&cause)) == NULL) {
		free(cause);
		return 0;
	}
	path = xasprintf("%s/trust.sqlite", dir);
	yes = stat(path, &sb) == 0 && sb.st_size > 0;
	free(path);
	free(dir);
	return yes;
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
