/*
 * cache.c: the SQLite header cache of cache.h.
 *
 * The file name comes from the account's id in the configuration (letters,
 * digits, '.', '_', '-'), never from anything a server sends; mailbox
 * names are only ever values in the database. The schema is versioned with
 * PRAGMA user_version and marked as ours with PRAGMA application_id; an
 * older version is migrated forward (cache_migrations[]), a file that
 * fails either check otherwise, or that SQLite finds corrupt, is deleted
 * and created anew. Called by the sync (imap-sync.c), the flag operations
 * and the index (index.c), and by cache-protected.c for what an opened
 * message's protected header says; it never talks to the server.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cache.h"
#include "db.h"
#include "log.h"
#include "paths.h"
#include "xmalloc.h"

#define CACHE_APP_ID	0x53544843	/* "STHC" */
#define CACHE_VERSION	11
#define CACHE_SEEN	64		/* senders remembered a transaction */

/* Handles of this process waiting in cache_begin() for the write lock. */
static atomic_int	cache_waiting;

struct cache {
	sqlite3		*db;
	char		*path;
	int		 broken;	/* delete the file on close */
	sqlite3_stmt	*put, *flags, *del, *prot, *hasprot, *rekey, *touch;
	int64_t		 touched;	/* the mailbox whose generation this
					   transaction moved on already */
	int		 prot_any;	/* ... and whether it has protected
					   rows (else a stored row has none) */
	sqlite3_stmt	*add, *seen, *count;
	sqlite3_stmt	*rethread;	/* a message to thread (again) */
	int64_t		 cnt_mb;	/* messages stored in this mailbox */
	int64_t		 cnt_delta;	/* ... not yet added to its nmsg */
	char		*seen_now[CACHE_SEEN];	/* senders written in this
					   transaction: "mb fkey\nname\naddr" */
};

static const char cache_schema[] =
    "CREATE TABLE mailbox ("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL UNIQUE,"
    " uidvalidity INTEGER NOT NULL,"
    " uidnext INTEGER NOT NULL DEFAULT 0,"
    " highestmodseq INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE message ("
    " mailbox INTEGER NOT NULL,"
    " uid INTEGER NOT NULL,"
    " flags TEXT NOT NULL,"
    " internaldate INTEGER NOT NULL,"
    " size INTEGER NOT NULL,"
    " date TEXT, sender TEXT, subject TEXT, message_id TEXT,"
    " PRIMARY KEY (mailbox, uid)) WITHOUT ROWID;";

/*
 * Forward migrations: cache_migrations[n] takes a version n+1 database to
 * version n+2. A new database runs cache_schema and then all of them.
 */
static const char *cache_migrations[] = {
	/* 1 -> 2: flag changes not yet confirmed by the server. */
	"CREATE TABLE pending ("
	" id INTEGER PRIMARY KEY,"
	" mailbox TEXT NOT NULL,"
	" uidvalidity INTEGER NOT NULL,"
	" uid INTEGER NOT NULL,"
	" add_flags TEXT NOT NULL,"
	" remove_flags TEXT NOT NULL);",
	/* 2 -> 3: how far new messages went into the trust store. */
	"ALTER TABLE mailbox ADD COLUMN trust_uid INTEGER NOT NULL DEFAULT 0;",
	/*
	 * 3 -> 4: what the index needs: the sender's address beside the
	 * name (before, "sender" held the name, or the address when there
	 * was none, so neither can be told apart now), recipients,
	 * threading, the Date as a time and the Content-Type's hints. Old
	 * rows keep what they have and are marked stale; HIGHESTMODSEQ is
	 * forgotten so that the next sync does not stop at "nothing
	 * changed" and fetches their headers again. Flags, pending flag
	 * changes and the trust step's resume point stay.
	 */
	"ALTER TABLE message ADD COLUMN from_addr TEXT;"
	"ALTER TABLE message ADD COLUMN rcpt TEXT;"
	"ALTER TABLE message ADD COLUMN in_reply_to TEXT;"
	"ALTER TABLE message ADD COLUMN refs TEXT;"
	"ALTER TABLE message ADD COLUMN sent INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE message ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE message ADD COLUMN stale INTEGER NOT NULL DEFAULT 1;"
	"UPDATE mailbox SET highestmodseq = 0;",
	/*
	 * 4 -> 5: what an opened message's protected header (RFC 9788)
	 * says, in a table of its own so that no outer value can be taken
	 * for a protected one or the other way round: how says what
	 * vouched for them (CACHE_OPENED_*), a NULL value that the
	 * protected header has no such field. A row goes with its message
	 * (the trigger: expunged, UIDVALIDITY changed); the sync's INSERT
	 * OR REPLACE of a message does not fire it (recursive_triggers is
	 * off), so headers fetched again keep what opening found.
	 */
	"CREATE TABLE protected ("
	" mailbox INTEGER NOT NULL,"
	" uid INTEGER NOT NULL,"
	" how INTEGER NOT NULL,"
	" date TEXT, sender TEXT, from_addr TEXT, rcpt TEXT, subject TEXT,"
	" message_id TEXT, in_reply_to TEXT, refs TEXT,"
	" sent INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY (mailbox, uid)) WITHOUT ROWID;"
	"CREATE TRIGGER message_gone AFTER DELETE ON message BEGIN"
	" DELETE FROM protected WHERE mailbox = old.mailbox AND"
	" uid = old.uid; END;",
	/*
	 * 5 -> 6: what the index reads page by page (index.c): each row's
	 * sort keys (the date shown, the sender and the subject folded for
	 * sorting, with the protected values where there are some), an
	 * index for each sort, and the stored thread order of each
	 * mailbox, made again when the mailbox's generation (moved on by
	 * every message stored or removed) has passed the one it was made
	 * from. The keys of rows already cached are filled in once, when
	 * the file is next opened (the table rekey says so).
	 */
	"ALTER TABLE message ADD COLUMN edate INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE message ADD COLUMN fkey TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE message ADD COLUMN skey TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE mailbox ADD COLUMN mgen INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE mailbox ADD COLUMN tgen INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE mailbox ADD COLUMN lowuid INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX message_date ON message (mailbox, edate, uid);"
	"CREATE INDEX message_from ON message (mailbox, fkey, edate, uid);"
	"CREATE INDEX message_subject ON message (mailbox, skey, edate, uid);"
	"CREATE INDEX message_size ON message (mailbox, size, edate, uid);"
	"CREATE TABLE thread ("
	" mailbox INTEGER NOT NULL,"
	" place INTEGER NOT NULL,"
	" rplace INTEGER NOT NULL,"
	" uid INTEGER NOT NULL,"
	" thread INTEGER NOT NULL,"
	" depth INTEGER NOT NULL,"
	" flags INTEGER NOT NULL,"
	" tsize INTEGER NOT NULL,"
	" PRIMARY KEY (mailbox, place)) WITHOUT ROWID;"
	"CREATE INDEX thread_rplace ON thread (mailbox, rplace, uid, thread,"
	" depth, flags, tsize);"
	"CREATE INDEX message_uid ON message (mailbox, uid);"
	"CREATE INDEX thread_uid ON thread (mailbox, uid);"
	"CREATE TABLE rekey (x INTEGER);"
	"INSERT INTO rekey VALUES (1);",
	/*
	 * 6 -> 7: the new messages a sync's trust step has not looked at
	 * yet below its resume point (those older than the newest
	 * sync-trust-limit, left for after the sync returned): a UID set
	 * as IMAP writes one ("1:40,52:90"), empty when none are pending.
	 */
	"ALTER TABLE mailbox ADD COLUMN trust_pending TEXT NOT NULL "
	"DEFAULT '';",
	/*
	 * 7 -> 8: what lets the index count and limit a folder of a
	 * million messages without reading it. nmsg is the mailbox's
	 * number of messages: cache_put() counts a row that replaces none
	 * (once a transaction, cache_count_flush()), a trigger counts a
	 * deleted one down (a REPLACE's delete fires none, as
	 * recursive_triggers is off). sender_seen holds each sort key
	 * fkey with the sender's name and address as the index shows
	 * them (cache_put() the outer ones, a trigger those of a new
	 * sort key, the protected ones where there are some: cache_rekey),
	 * a row for every triple a message has, and perhaps some no
	 * message has any more; a key goes when its last message does. A
	 * limit by sender (~f) looks up its word there and reads only the
	 * messages of the keys it matched (index.c).
	 */
	"ALTER TABLE mailbox ADD COLUMN nmsg INTEGER NOT NULL DEFAULT 0;"
	"UPDATE mailbox SET nmsg = (SELECT count(*) FROM message WHERE"
	" message.mailbox = mailbox.id);"
	"CREATE TRIGGER message_uncount AFTER DELETE ON message BEGIN"
	" UPDATE mailbox SET nmsg = nmsg - 1 WHERE id = old.mailbox; END;"
	"CREATE TABLE sender_seen ("
	" mailbox INTEGER NOT NULL,"
	" fkey TEXT NOT NULL,"
	" name TEXT NOT NULL,"
	" addr TEXT NOT NULL,"
	" PRIMARY KEY (mailbox, fkey, name, addr)) WITHOUT ROWID;"
	"INSERT OR IGNORE INTO sender_seen SELECT m.mailbox, m.fkey,"
	" coalesce(CASE WHEN p.from_addr IS NOT NULL THEN p.sender ELSE"
	" m.sender END, ''), coalesce(p.from_addr, m.from_addr, '') FROM"
	" message m LEFT JOIN protected p ON p.mailbox = m.mailbox AND"
	" p.uid = m.uid;"
	"CREATE TRIGGER sender_rekey AFTER UPDATE OF fkey ON message BEGIN"
	" INSERT OR IGNORE INTO sender_seen SELECT new.mailbox, new.fkey,"
	" coalesce(CASE WHEN p.from_addr IS NOT NULL THEN p.sender ELSE"
	" new.sender END, ''), coalesce(p.from_addr, new.from_addr, '')"
	" FROM (SELECT 1) LEFT JOIN protected p ON p.mailbox ="
	" new.mailbox AND p.uid = new.uid; END;"
	"CREATE TRIGGER sender_gone AFTER DELETE ON message BEGIN"
	" DELETE FROM sender_seen WHERE mailbox = old.mailbox AND"
	" fkey = old.fkey AND NOT EXISTS (SELECT 1 FROM message WHERE"
	" mailbox = old.mailbox AND fkey = old.fkey); END;",
	/*
	 * 8 -> 9: the stored thread order kept up to date group by group
	 * (thread-store.h), not made again whole. A row's place is its
	 * thread's key (tdate, tuid: its earliest message) and its place
	 * in the thread both ways (tpos, rpos = -tpos), the UID last;
	 * grp is its group. thread_id holds the hash of every id a
	 * group's messages have or refer to; a trigger noted each message
	 * stored (thread_todo, its group not known yet; cache_put() does
	 * from schema 10 on) and, when one goes, its row out and its group
	 * to be threaded again
	 * (thread_dirty); cache_protected_put() notes a message whose
	 * protected header came. mailbox.tcount counts the rows, tnext
	 * numbers the groups. Every cached message is noted once.
	 */
	"DROP TABLE thread;"
	"CREATE TABLE thread ("
	" mailbox INTEGER NOT NULL,"
	" tdate INTEGER NOT NULL,"
	" tuid INTEGER NOT NULL,"
	" tpos INTEGER NOT NULL,"
	" rpos INTEGER NOT NULL,"
	" uid INTEGER NOT NULL,"
	" depth INTEGER NOT NULL,"
	" flags INTEGER NOT NULL,"
	" tsize INTEGER NOT NULL,"
	" grp INTEGER NOT NULL,"
	" PRIMARY KEY (mailbox, tdate, tuid, tpos, uid)) WITHOUT ROWID;"
	"CREATE INDEX thread_rev ON thread (mailbox, tdate, tuid, rpos, uid,"
	" depth, flags, tsize);"
	"CREATE INDEX thread_uid ON thread (mailbox, uid, grp);"
	"CREATE INDEX thread_grp ON thread (mailbox, grp);"
	"CREATE TABLE thread_id ("
	" mailbox INTEGER NOT NULL,"
	" h INTEGER NOT NULL,"
	" grp INTEGER NOT NULL,"
	" PRIMARY KEY (mailbox, h)) WITHOUT ROWID;"
	"CREATE INDEX thread_id_grp ON thread_id (mailbox, grp);"
	"CREATE TABLE thread_todo ("
	" mailbox INTEGER NOT NULL,"
	" uid INTEGER NOT NULL,"
	" grp INTEGER,"
	" PRIMARY KEY (mailbox, uid)) WITHOUT ROWID;"
	"CREATE INDEX thread_todo_grp ON thread_todo (mailbox, grp);"
	"CREATE TABLE thread_dirty ("
	" mailbox INTEGER NOT NULL,"
	" grp INTEGER NOT NULL,"
	" PRIMARY KEY (mailbox, grp)) WITHOUT ROWID;"
	"ALTER TABLE mailbox ADD COLUMN tcount INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE mailbox ADD COLUMN tnext INTEGER NOT NULL DEFAULT 1;"
	"INSERT INTO thread_todo (mailbox, uid) SELECT mailbox, uid FROM"
	" message;"
	"CREATE TRIGGER thread_new AFTER INSERT ON message BEGIN"
	" INSERT OR REPLACE INTO thread_todo (mailbox, uid) VALUES"
	" (new.mailbox, new.uid); END;"
	"CREATE TRIGGER thread_gone AFTER DELETE ON message BEGIN"
	" INSERT OR IGNORE INTO thread_dirty SELECT mailbox, grp FROM thread"
	" WHERE mailbox = old.mailbox AND uid = old.uid;"
	" UPDATE mailbox SET tcount = tcount - (SELECT count(*) FROM thread"
	" WHERE mailbox = old.mailbox AND uid = old.uid) WHERE"
	" id = old.mailbox;"
	" DELETE FROM thread WHERE mailbox = old.mailbox AND uid = old.uid;"
	" DELETE FROM thread_todo WHERE mailbox = old.mailbox AND"
	" uid = old.uid; END;",
	/*
	 * 9 -> 10: a message stored is noted by cache_put() itself, not by
	 * a trigger. With a trigger every INSERT into message writes two
	 * tables, so SQLite keeps a statement journal for each one, in a
	 * temporary file once it has grown: 30 GB written for a cold sync
	 * of 1,000,000 messages, a third of its time (doc/bench.md).
	 */
	"DROP TRIGGER thread_new;",
	/*
	 * 10 -> 11: the trust step's candidates from the header cache
	 * (cache_evidence()): rows stored from now on carry the hints it
	 * needs, those of UIDs below a mailbox's evuid do not, and the
	 * few rows that have evidence, or whose header fields did not
	 * come, are found through an index of their own.
	 */
	"ALTER TABLE mailbox ADD COLUMN evuid INTEGER NOT NULL DEFAULT 0;"
	"UPDATE mailbox SET evuid = 1 + coalesce((SELECT max(uid) FROM message"
	" WHERE message.mailbox = mailbox.id), 0);"
	"CREATE INDEX message_evidence ON message (mailbox, uid, hints)"
	" WHERE hints & 48 != 0;",
};

/*
 * The indexes of the sorts by sender, subject and size, as migration
 * 5 -> 6 made them: a new row lands anywhere in them, so keeping them
 * while many rows go in costs more than making them once from the rows
 * (a sort) after. The UID index, the arrival order's (the rows
 * themselves are in UID order, but wide), costs a B-tree insert a row
 * for no sort the first screen needs. The date index, where new rows
 * land side by side and the first screen reads, is always kept.
 */
static const char *const cache_deferred[][2] = {
	{ "message_uid", "CREATE INDEX IF NOT EXISTS message_uid ON"
	    " message (mailbox, uid)" },
	{ "message_from", "CREATE INDEX IF NOT EXISTS message_from ON"
	    " message (mailbox, fkey, edate, uid)" },
	{ "message_subject", "CREATE INDEX IF NOT EXISTS message_subject ON"
	    " message (mailbox, skey, edate, uid)" },
	{ "message_size", "CREATE INDEX IF NOT EXISTS message_size ON"
	    " message (mailbox, size, edate, uid)" },
};
#define CACHE_DEFERRED	(sizeof cache_deferred / sizeof cache_deferred[0])

static int
cache_fail(struct cache *c, const char *what, char **cause)
{
	return db_fail(c->db, "header cache", c->path, what, &c->broken,
	    cause);
}

/* A message's row with its protected header values beside it, if any. */
#define CACHE_EACH \
	"SELECT m.uid, m.flags, m.internaldate, m.size, m.date, m.sender," \
	" m.subject, m.message_id, m.from_addr, m.rcpt, m.in_reply_to," \
	" m.refs, m.sent, m.hints, m.stale, p.how, p.date, p.sender," \
	" p.from_addr, p.rcpt, p.subject, p.message_id, p.in_reply_to," \
	" p.refs, p.sent FROM message m LEFT JOIN protected p ON" \
	" p.mailbox = m.mailbox AND p.uid = m.uid"

static int	cache_rekey_all(struct cache *, char **);
static int	cache_count_flush(struct cache *, char **);
static void	cache_seen_forget(struct cache *);
static int	cache_step(struct cache *, sqlite3_stmt *, const char *,
		    char **);
static int	cache_touch(struct cache *, int64_t, char **);
static int	cache_index_present(struct cache *, int *);
static int	cache_exec(struct cache *, const char *, char **);

/* A cache: what is not ours or cannot be migrated is made anew. */
static const struct db_schema cache_db = {
	"header cache", CACHE_APP_ID, cache_schema, cache_migrations,
	CACHE_VERSION, "NORMAL", 1
};

/* At open: the deferred indexes made, if no sync went down meanwhile. */
static int
cache_index_open(struct cache *c, char **cause)
{
	int	n, down;

	if (cache_index_present(c, &n) == -1)
		return cache_fail(c, "indexes", cause);
	if (n == (int)CACHE_DEFERRED)
		return 0;
	if (db_int(c->db, "SELECT EXISTS (SELECT 1 FROM mailbox WHERE"
	    " lowuid > 0)", &down) == -1)
		return cache_fail(c, "indexes", cause);
	return down ? 0 : cache_index_build(c, cause);
}

struct cache *
cache_open_path(const char *path, char **cause)
{
	struct cache	*c;

	c = xcalloc(1, sizeof *c);
	c->path = xstrdup(path);
	if ((c->db = db_open(c->path, &cache_db, cause)) == NULL) {
		free(c->path);
		free(c);
		return NULL;
	}
	if (sqlite3_prepare_v2(c->db, "INSERT OR REPLACE INTO message "
	    "(mailbox, uid, flags, internaldate, size, date, sender, subject,"
	    " message_id, from_addr, rcpt, in_reply_to, refs, sent, hints,"
	    " stale, edate, fkey, skey) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
	    "?,?,?,?,?)", -1, &c->put,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "UPDATE message SET flags = ?1 "
	    "WHERE mailbox = ?2 AND uid = ?3 AND flags != ?1", -1, &c->flags, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "DELETE FROM message "
	    "WHERE mailbox = ? AND uid = ?", -1, &c->del, NULL) != SQLITE_OK ||
	    /* only for a cached message; unchanged values are not written */
	    sqlite3_prepare_v2(c->db, "INSERT INTO protected (mailbox, uid,"
	    " how, date, sender, from_addr, rcpt, subject, message_id,"
	    " in_reply_to, refs, sent) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
	    " ?9, ?10, ?11, ?12 WHERE EXISTS (SELECT 1 FROM message WHERE"
	    " mailbox = ?1 AND uid = ?2) ON CONFLICT (mailbox, uid) DO UPDATE"
	    " SET how = ?3, date = ?4, sender = ?5, from_addr = ?6, rcpt = ?7,"
	    " subject = ?8, message_id = ?9, in_reply_to = ?10, refs = ?11,"
	    " sent = ?12 WHERE how IS NOT ?3 OR date IS NOT ?4 OR sender IS"
	    " NOT ?5 OR from_addr IS NOT ?6 OR rcpt IS NOT ?7 OR subject IS"
	    " NOT ?8 OR message_id IS NOT ?9 OR in_reply_to IS NOT ?10 OR"
	    " refs IS NOT ?11 OR sent IS NOT ?12", -1, &c->prot,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "SELECT 1 FROM protected WHERE"
	    " mailbox = ? AND uid = ?", -1, &c->hasprot, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "UPDATE message SET edate = ?, fkey = ?,"
	    " skey = ? WHERE mailbox = ? AND uid = ?", -1, &c->rekey,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "UPDATE mailbox SET mgen = mgen + 1"
	    " WHERE id = ?", -1, &c->touch, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "INSERT INTO message (mailbox, uid,"
	    " flags, internaldate, size, date, sender, subject, message_id,"
	    " from_addr, rcpt, in_reply_to, refs, sent, hints, stale, edate,"
	    " fkey, skey) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
	    " ON CONFLICT (mailbox, uid) DO NOTHING", -1, &c->add,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "INSERT OR IGNORE INTO sender_seen"
	    " VALUES (?, ?, ?, ?)", -1, &c->seen, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "UPDATE mailbox SET nmsg = nmsg + ?"
	    " WHERE id = ?", -1, &c->count, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "INSERT OR REPLACE INTO thread_todo"
	    " (mailbox, uid) VALUES (?, ?)", -1, &c->rethread,
	    NULL) != SQLITE_OK) {
		cache_fail(c, "cannot prepare", cause);
		cache_close(c);
		return NULL;
	}
	/* the indexes a sync killed while going down left out, unless a
	   sync going down is under way (it makes them at its end) */
	if (cache_index_open(c, cause) == -1) {
		cache_close(c);
		return NULL;
	}
	/* the sort keys of rows an older schema stored, once */
	if (cache_rekey_all(c, cause) == -1) {
		cache_close(c);
		return NULL;
	}
	return c;
}

struct cache *
cache_open(const char *id, char **cause)
{
	struct cache	*c;
	char		*dir, *path;

	if ((dir = paths_cache_dir(cause)) == NULL)
		return NULL;
	path = xasprintf("%s/%s.hcache", dir, id);
	free(dir);
	c = cache_open_path(path, cause);
	free(path);
	return c;
}

void
cache_close(struct cache *c)
{
	if (c == NULL)
		return;
	sqlite3_finalize(c->put);
	sqlite3_finalize(c->flags);
	sqlite3_finalize(c->del);
	sqlite3_finalize(c->prot);
	sqlite3_finalize(c->hasprot);
	sqlite3_finalize(c->rekey);
	sqlite3_finalize(c->touch);
	sqlite3_finalize(c->add);
	sqlite3_finalize(c->seen);
	sqlite3_finalize(c->count);
	sqlite3_finalize(c->rethread);
	cache_seen_forget(c);
	sqlite3_close(c->db);
	if (c->broken)
		db_unlink(c->path);
	free(c->path);
	free(c);
}

/*
 * The messages cache_put() stored that replaced none, added to their
 * mailbox's nmsg: once a transaction (or at once outside one).
 */
static int
cache_count_flush(struct cache *c, char **cause)
{
	int	rc;

	if (c->cnt_delta == 0)
		return 0;
	sqlite3_bind_int64(c->count, 1, c->cnt_delta);
	sqlite3_bind_int64(c->count, 2, c->cnt_mb);
	c->cnt_delta = 0;
	rc = sqlite3_step(c->count);
	sqlite3_reset(c->count);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "count", cause);
	return 0;
}

/* The senders this transaction wrote: forgotten when it ends, as
 * another process may remove them once it has. */
static void
cache_seen_forget(struct cache *c)
{
	size_t	i;

	for (i = 0; i < CACHE_SEEN; i++) {
		free(c->seen_now[i]);
		c->seen_now[i] = NULL;
	}
}

/* "mb fkey\nname\naddr", as seen_now holds it (no printf: once a row). */
static char *
cache_seen_key(int64_t mb, const char *fkey, const char *name,
    const char *addr)
{
	const char	*part[3] = { fkey, name, addr };
	char		 num[32], *key, *p;
	size_t		 len[3], n, i;

	n = (size_t)snprintf(num, sizeof num, "%lld ", (long long)mb);
	for (i = 0; i < 3; i++)
		len[i] = strlen(part[i]);
	key = p = xmalloc(n + len[0] + len[1] + len[2] + 3);
	memcpy(p, num, n);
	p += n;
	for (i = 0; i < 3; i++) {
		memcpy(p, part[i], len[i]);
		p += len[i];
		*p++ = i < 2 ? '\n' : '\0';
	}
	return key;
}

/*
 * The sender of a message stored into sender_seen, unless this
 * transaction wrote the same already (the slot a hash of it picks
 * holds it, compared whole: a hash alone could be made to collide).
 */
static int
cache_seen_put(struct cache *c, int64_t mb, const char *fkey,
    const char *name, const char *addr, char **cause)
{
	char		*key;
	const char	*p;
	uint32_t	 h = 2166136261u;
	size_t		 slot;
	int		 rc, in_tx = !sqlite3_get_autocommit(c->db);

	key = cache_seen_key(mb, fkey, name, addr);
	for (p = key; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	slot = h % CACHE_SEEN;
	if (in_tx && c->seen_now[slot] != NULL &&
	    strcmp(c->seen_now[slot], key) == 0) {
		free(key);
		return 0;
	}
	sqlite3_bind_int64(c->seen, 1, mb);
	sqlite3_bind_text(c->seen, 2, fkey, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->seen, 3, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->seen, 4, addr, -1, SQLITE_STATIC);
	rc = sqlite3_step(c->seen);
	sqlite3_reset(c->seen);
	if (rc != SQLITE_DONE) {
		free(key);
		return cache_fail(c, "senders", cause);
	}
	if (in_tx) {
		free(c->seen_now[slot]);
		c->seen_now[slot] = key;
	} else
		free(key);
	return 0;
}

static int
cache_exec(struct cache *c, const char *sql, char **cause)
{
	if (sqlite3_exec(c->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return cache_fail(c, sql, cause);
	return 0;
}

int
cache_begin(struct cache *c, char **cause)
{
	int	rc;

	cache_seen_forget(c);
	c->cnt_delta = 0;
	/*
	 * The write lock taken at once: a transaction that read first
	 * could not take it after another handle wrote (WAL), and would
	 * fail at its first write instead of waiting. The thread store
	 * lets a waiting writer go first (cache_writer_waiting()).
	 */
	atomic_fetch_add(&cache_waiting, 1);
	rc = cache_exec(c, "BEGIN IMMEDIATE", cause);
	atomic_fetch_sub(&cache_waiting, 1);
	return rc;
}

int
cache_writer_waiting(void)
{
	return atomic_load(&cache_waiting) > 0;
}

int
cache_commit(struct cache *c, char **cause)
{
	c->touched = 0;
	cache_seen_forget(c);
	if (cache_count_flush(c, cause) == -1)
		return -1;
	return cache_exec(c, "COMMIT", cause);
}

void
cache_rollback(struct cache *c)
{
	c->touched = 0;
	c->cnt_delta = 0;
	cache_seen_forget(c);
	sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
}

struct sqlite3 *
cache_sqlite(struct cache *c)
{
	return c->db;
}

/*
 * The messages of a mailbox changed (one stored, replaced or removed):
 * once a transaction, its generation (mgen) moves on and whether it has
 * protected rows is looked at again. The stored thread order learns
 * what changed from the cache's triggers (thread-store.h).
 */
static int
cache_touch(struct cache *c, int64_t mb, char **cause)
{
	sqlite3_stmt	*st;

	if (!sqlite3_get_autocommit(c->db) && c->touched == mb)
		return 0;
	sqlite3_bind_int64(c->touch, 1, mb);
	if (cache_step(c, c->touch, "generation", cause) == -1)
		return -1;
	c->prot_any = 1;
	if (sqlite3_prepare_v2(c->db, "SELECT EXISTS (SELECT 1 FROM protected"
	    " WHERE mailbox = ?)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, mb);
		if (sqlite3_step(st) == SQLITE_ROW)
			c->prot_any = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (!sqlite3_get_autocommit(c->db))
		c->touched = mb;
	return 0;
}

int
cache_recount(struct cache *c, struct cache_mailbox *mb, char **cause)
{
	sqlite3_stmt	*st;

	/* the count the triggers keep, not a walk of every row */
	if (sqlite3_prepare_v2(c->db, "SELECT (SELECT nmsg FROM mailbox WHERE"
	    " id = ?1), (SELECT coalesce(max(uid), 0) FROM message WHERE"
	    " mailbox = ?1)", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "count", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return cache_fail(c, "count", cause);
	}
	mb->count = (uint32_t)sqlite3_column_int64(st, 0);
	mb->maxuid = (uint32_t)sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

/* The mailbox's row into *mb: 1, 0 if there is none, -1. */
static int
cache_mailbox_row(struct cache *c, const char *name, struct cache_mailbox *mb,
    char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	memset(mb, 0, sizeof *mb);
	if (sqlite3_prepare_v2(c->db, "SELECT id, uidvalidity, uidnext, "
	    "highestmodseq, trust_uid, lowuid, evuid FROM mailbox WHERE "
	    "name = ?", -1,
	    &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "mailbox", cause);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		mb->id = sqlite3_column_int64(st, 0);
		mb->uidvalidity = (uint32_t)sqlite3_column_int64(st, 1);
		mb->uidnext = (uint32_t)sqlite3_column_int64(st, 2);
		mb->highestmodseq = (uint64_t)sqlite3_column_int64(st, 3);
		mb->trust_uid = (uint32_t)sqlite3_column_int64(st, 4);
		mb->lowuid = (uint32_t)sqlite3_column_int64(st, 5);
		mb->evuid = (uint32_t)sqlite3_column_int64(st, 6);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(c, "mailbox", cause);
	return rc == SQLITE_ROW;
}

int
cache_mailbox_peek(struct cache *c, const char *name,
    struct cache_mailbox *mb, char **cause)
{
	return cache_mailbox_row(c, name, mb, cause);
}

int
cache_mailbox_find(struct cache *c, const char *name,
    struct cache_mailbox *mb, char **cause)
{
	int	rc;

	if ((rc = cache_mailbox_row(c, name, mb, cause)) != 1)
		return rc;
	if (cache_recount(c, mb, cause) == -1)
		return -1;
	return 1;
}

int
cache_mailbox_names(struct cache *c, char ***names, size_t *n, char **cause)
{
	sqlite3_stmt	*st;
	const char	*name;
	int		 rc;

	*names = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(c->db, "SELECT name FROM mailbox ORDER BY name",
	    -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "mailbox", cause);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((name = (const char *)sqlite3_column_text(st, 0)) == NULL)
			continue;
		*names = xreallocarray(*names, *n + 1, sizeof **names);
		(*names)[(*n)++] = xstrdup(name);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		while (*n > 0)
			free((*names)[--*n]);
		free(*names);
		*names = NULL;
		return cache_fail(c, "mailbox", cause);
	}
	return 0;
}

int
cache_mailbox(struct cache *c, const char *name, uint32_t uidvalidity,
    struct cache_mailbox *mb, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((rc = cache_mailbox_row(c, name, mb, cause)) == -1)
		return -1;
	if (rc == 0) {
		if (sqlite3_prepare_v2(c->db, "INSERT INTO mailbox (name, "
		    "uidvalidity) VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
			return cache_fail(c, "mailbox", cause);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, uidvalidity);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return cache_fail(c, "mailbox", cause);
		mb->id = sqlite3_last_insert_rowid(c->db);
		mb->uidvalidity = uidvalidity;
		return 0;
	}
	if (mb->uidvalidity != uidvalidity) {
		log_msg(LOG_INFO, "cache: UIDVALIDITY of a mailbox changed "
		    "(%u to %u); dropping its cached messages",
		    mb->uidvalidity, uidvalidity);
		if (cache_touch(c, mb->id, cause) == -1)
			return -1;
		cache_seen_forget(c);	/* the trigger may remove them */
		if (sqlite3_prepare_v2(c->db, "DELETE FROM message WHERE "
		    "mailbox = ?", -1, &st, NULL) != SQLITE_OK)
			return cache_fail(c, "reset", cause);
		sqlite3_bind_int64(st, 1, mb->id);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return cache_fail(c, "reset", cause);
		/* the ids of its groups: their messages are gone */
		if (sqlite3_prepare_v2(c->db, "DELETE FROM thread_id WHERE "
		    "mailbox = ?", -1, &st, NULL) != SQLITE_OK)
			return cache_fail(c, "reset", cause);
		sqlite3_bind_int64(st, 1, mb->id);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return cache_fail(c, "reset", cause);
		mb->uidvalidity = uidvalidity;
		mb->uidnext = 0;
		mb->lowuid = 0;
		mb->evuid = 0;
		mb->highestmodseq = 0;
		if (cache_mailbox_update(c, mb, cause) == -1 ||
		    cache_mailbox_trusted(c, mb, 0, cause) == -1 ||
		    cache_mailbox_set_pending(c, mb, "", cause) == -1)
			return -1;
	}
	return cache_recount(c, mb, cause);
}

int
cache_mailbox_update(struct cache *c, struct cache_mailbox *mb, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(c->db, "UPDATE mailbox SET uidvalidity = ?, "
	    "uidnext = ?, highestmodseq = ?, lowuid = ?, evuid = ? WHERE "
	    "id = ?", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "update", cause);
	sqlite3_bind_int64(st, 1, mb->uidvalidity);
	sqlite3_bind_int64(st, 2, mb->uidnext);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)mb->highestmodseq);
	sqlite3_bind_int64(st, 4, mb->lowuid);
	sqlite3_bind_int64(st, 5, mb->evuid);
	sqlite3_bind_int64(st, 6, mb->id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "update", cause);
	return 0;
}

int
cache_mailbox_trusted(struct cache *c, struct cache_mailbox *mb,
    uint32_t uid, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(c->db, "UPDATE mailbox SET trust_uid = ? "
	    "WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "update", cause);
	sqlite3_bind_int64(st, 1, uid);
	sqlite3_bind_int64(st, 2, mb->id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "update", cause);
	mb->trust_uid = uid;
	return 0;
}

char *
cache_mailbox_pending(struct cache *c, const struct cache_mailbox *mb,
    char **cause)
{
	sqlite3_stmt	*st;
	const char	*v;
	char		*out = NULL;
	int		 rc;

	if (sqlite3_prepare_v2(c->db, "SELECT trust_pending FROM mailbox "
	    "WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		cache_fail(c, "mailbox", cause);
		return NULL;
	}
	sqlite3_bind_int64(st, 1, mb->id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = (const char *)sqlite3_column_text(st, 0);
		out = xstrdup(v != NULL ? v : "");
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return xstrdup("");
	if (out == NULL)
		cache_fail(c, "mailbox", cause);
	return out;
}

int
cache_mailbox_set_pending(struct cache *c, const struct cache_mailbox *mb,
    const char *set, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(c->db, "UPDATE mailbox SET trust_pending = ? "
	    "WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "update", cause);
	sqlite3_bind_text(st, 1, set, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, mb->id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "update", cause);
	return 0;
}

static int
cache_step(struct cache *c, sqlite3_stmt *st, const char *what, char **cause)
{
	int	rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, what, cause);
	return 0;
}

/* The subject without reply and forward prefixes, for sorting. */
static const char *
cache_subject_key(const char *s)
{
	static const char	*prefixes[] = { "re", "fwd", "fw", "aw", "sv",
				     "wg", "tr" };
	size_t			 i, n;
	const char		*p;
	int			 again;

	if (s == NULL)
		return "";
	do {
		again = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
			n = strlen(prefixes[i]);
			if (strncasecmp(s, prefixes[i], n) != 0)
				continue;
			p = s + n;
			if (*p == '[') {	/* "Re[2]:" */
				while (*++p >= '0' && *p <= '9')
					;
				if (*p++ != ']')
					continue;
			}
			if (*p == ':') {
				s = p + 1;
				again = 1;
				break;
			}
		}
	} while (again);
	return s;
}

/* s folded to lower case (ASCII), allocated. */
static char *
cache_fold(const char *s)
{
	char	*f = xstrdup(s != NULL ? s : "");
	size_t	 i;

	for (i = 0; f[i] != '\0'; i++)
		if (f[i] >= 'A' && f[i] <= 'Z')
			f[i] = (char)(f[i] - 'A' + 'a');
	return f;
}

int
cache_placeholder(const char *s)
{
	if (s == NULL)
		return 1;
	s += strspn(s, " \t");
	return *s == '\0' || strcmp(s, "...") == 0 ||
	    strcmp(s, "[...]") == 0;
}

/*
 * A row's sort keys, as the index shows it: the protected value of each
 * field where there is one, the date shown (Date, else arrival), the
 * sender's name (else address) and the subject without its prefixes,
 * folded; a sealed row's subject is empty.
 */
static void
cache_keys(const struct cache_msg *m, time_t *edate, char **fkey,
    char **skey)
{
	const struct cache_protected	*p = m->prot;
	const char			*from = m->from, *addr = m->from_addr;
	const char			*subject = m->subject, *name = NULL;
	time_t				 sent = m->sent;

	if (p != NULL && p->from_addr != NULL) {
		from = p->from;
		addr = p->from_addr;
	}
	if (p != NULL && p->subject != NULL)
		subject = p->subject;
	else if (p == NULL && (m->hints & CACHE_HINT_ENCRYPTED) &&
	    cache_placeholder(m->subject))
		subject = NULL;
	if (p != NULL && p->sent != 0)
		sent = p->sent;
	*edate = sent != 0 ? sent : m->internaldate;
	if (from != NULL && *from != '\0' && (addr == NULL ||
	    strcmp(from, addr) != 0))
		name = from;
	*fkey = cache_fold(name != NULL ? name : addr);
	*skey = cache_fold(cache_subject_key(subject));
}

static int	cache_read(struct cache *, sqlite3_stmt *,
		    int (*)(const struct cache_msg *, void *), void *,
		    char **);

/* Store a row's sort keys, read with its protected values. */
static int
cache_rekey_one(const struct cache_msg *m, void *arg)
{
	struct cache	*c = ((void **)arg)[0];
	int64_t		 mb = *(int64_t *)((void **)arg)[1];
	time_t		 edate;
	char		*fkey, *skey;
	int		 rc;

	cache_keys(m, &edate, &fkey, &skey);
	sqlite3_bind_int64(c->rekey, 1, (sqlite3_int64)edate);
	sqlite3_bind_text(c->rekey, 2, fkey, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(c->rekey, 3, skey, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(c->rekey, 4, mb);
	sqlite3_bind_int64(c->rekey, 5, m->uid);
	free(fkey);
	free(skey);
	rc = sqlite3_step(c->rekey);
	sqlite3_reset(c->rekey);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The sort keys of uid of mailbox mb again (uid 0: all of mb's). */
static int
cache_rekey(struct cache *c, int64_t mb, uint32_t uid, char **cause)
{
	sqlite3_stmt	*st;
	void		*arg[2];
	int		 rc;

	if (sqlite3_prepare_v2(c->db, uid != 0 ? CACHE_EACH " WHERE"
	    " m.mailbox = ?1 AND m.uid = ?2" : CACHE_EACH " WHERE"
	    " m.mailbox = ?1", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "sort keys", cause);
	sqlite3_bind_int64(st, 1, mb);
	if (uid != 0)
		sqlite3_bind_int64(st, 2, uid);
	arg[0] = c;
	arg[1] = &mb;
	rc = cache_read(c, st, cache_rekey_one, arg, cause);
	sqlite3_reset(c->rekey);
	sqlite3_clear_bindings(c->rekey);
	return rc;
}

/*
 * After the migration to schema 6: the sort keys of every cached row,
 * once, in one transaction; the table rekey goes with it.
 */
static int
cache_rekey_all(struct cache *c, char **cause)
{
	sqlite3_stmt	*st;
	int64_t		*ids = NULL;
	size_t		 n = 0, i;
	int		 todo, rc;

	if (db_int(c->db, "SELECT count(*) FROM rekey", &todo) == -1)
		return cache_fail(c, "sort keys", cause);
	if (todo == 0)
		return 0;
	if (sqlite3_prepare_v2(c->db, "SELECT id FROM mailbox", -1, &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "sort keys", cause);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids = xreallocarray(ids, n + 1, sizeof *ids);
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(ids);
		return cache_fail(c, "sort keys", cause);
	}
	if (cache_begin(c, cause) == -1) {
		free(ids);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (cache_rekey(c, ids[i], 0, cause) == -1) {
			free(ids);
			cache_rollback(c);
			return -1;
		}
	}
	free(ids);
	if (cache_exec(c, "DELETE FROM rekey", cause) == -1 ||
	    cache_commit(c, cause) == -1) {
		cache_rollback(c);
		return -1;
	}
	return 0;
}

/* A row's values bound to put or add, which take the same. */
static void
cache_put_bind(sqlite3_stmt *st, const struct cache_mailbox *mb,
    const struct cache_msg *m, time_t edate, const char *fkey,
    const char *skey)
{
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, m->uid);
	sqlite3_bind_text(st, 3, m->flags, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)m->internaldate);
	sqlite3_bind_int64(st, 5, m->size);
	sqlite3_bind_text(st, 6, m->date, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, m->from, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, m->subject, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, m->message_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, m->from_addr, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, m->rcpt, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, m->in_reply_to, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, m->references, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 14, (sqlite3_int64)m->sent);
	sqlite3_bind_int64(st, 15, m->hints);
	sqlite3_bind_int(st, 16, m->stale != 0);
	sqlite3_bind_int64(st, 17, (sqlite3_int64)edate);
	sqlite3_bind_text(st, 18, fkey, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 19, skey, -1, SQLITE_STATIC);
}

int
cache_put(struct cache *c, const struct cache_mailbox *mb,
    const struct cache_msg *m, char **cause)
{
	time_t	 edate;
	char	*fkey, *skey;
	int	 rc, prot, replaces;

	if (cache_touch(c, mb->id, cause) == -1)
		return -1;
	/* the outer values' keys; a protected row kept from before (a
	   stale row fetched again) has its own below */
	cache_keys(m, &edate, &fkey, &skey);
	/*
	 * A new row, the sync's usual case, in one statement; one that is
	 * there (a stale row fetched again) is replaced after.
	 */
	cache_put_bind(c->add, mb, m, edate, fkey, skey);
	rc = cache_step(c, c->add, "insert", cause);
	replaces = rc == 0 && sqlite3_changes(c->db) == 0;
	if (replaces) {
		cache_put_bind(c->put, mb, m, edate, fkey, skey);
		rc = cache_step(c, c->put, "insert", cause);
	}
	/* its thread to be found (thread-store.h): new or fetched again */
	if (rc == 0) {
		sqlite3_bind_int64(c->rethread, 1, mb->id);
		sqlite3_bind_int64(c->rethread, 2, m->uid);
		rc = cache_step(c, c->rethread, "insert", cause);
	}
	if (rc == 0)
		rc = cache_seen_put(c, mb->id, fkey, m->from != NULL ? m->from :
		    "", m->from_addr != NULL ? m->from_addr : "", cause);
	free(fkey);
	free(skey);
	if (rc == -1)
		return -1;
	if (!replaces) {
		if (c->cnt_mb != mb->id && cache_count_flush(c, cause) == -1)
			return -1;
		c->cnt_mb = mb->id;
		c->cnt_delta++;
		if (sqlite3_get_autocommit(c->db) &&
		    cache_count_flush(c, cause) == -1)
			return -1;
	}
	/* a protected row kept from before: only where the mailbox has
	   some (looked at once a transaction, cache_touch()) */
	prot = 0;
	if (c->prot_any) {
		sqlite3_bind_int64(c->hasprot, 1, mb->id);
		sqlite3_bind_int64(c->hasprot, 2, m->uid);
		prot = sqlite3_step(c->hasprot) == SQLITE_ROW;
		sqlite3_reset(c->hasprot);
	}
	if (prot)
		return cache_rekey(c, mb->id, m->uid, cause);
	return 0;
}

/* How many of them the file has. */
static int
cache_index_present(struct cache *c, int *n)
{
	return db_int(c->db, "SELECT count(*) FROM sqlite_master WHERE"
	    " type = 'index' AND name IN ('message_from', 'message_subject',"
	    " 'message_size', 'message_uid')", n);
}

int
cache_index_defer(struct cache *c, size_t nnew, char **cause)
{
	char	*sql;
	size_t	 i;
	int	 rows;

	/* the rows this transaction stored counted too */
	if (cache_count_flush(c, cause) == -1)
		return -1;
	if (db_int(c->db, "SELECT coalesce(sum(nmsg), 0) FROM mailbox",
	    &rows) == -1)
		return cache_fail(c, "count", cause);
	if (rows < 0 || (size_t)rows >= nnew)
		return 0;
	for (i = 0; i < CACHE_DEFERRED; i++) {
		sql = xasprintf("DROP INDEX IF EXISTS %s", cache_deferred[i][0]);
		if (cache_exec(c, sql, cause) == -1) {
			free(sql);
			return -1;
		}
		free(sql);
	}
	log_msg(LOG_INFO, "cache: %zu rows to come into %d: the UID, "
	    "sender, subject and size indexes made after them", nnew, rows);
	return 1;
}

int
cache_index_build(struct cache *c, char **cause)
{
	size_t	i;
	int	n;

	if (cache_index_present(c, &n) == -1)
		return cache_fail(c, "indexes", cause);
	if (n == (int)CACHE_DEFERRED)
		return 0;
	for (i = 0; i < CACHE_DEFERRED; i++)
		if (cache_exec(c, cache_deferred[i][1], cause) == -1)
			return -1;
	log_msg(LOG_INFO, "cache: the UID, sender, subject and size indexes "
	    "made");
	return 0;
}

/* uid added to the array *uids of *n, grown as it fills (*cap). */
static void
cache_uid_add(uint32_t **uids, size_t *n, size_t *cap, uint32_t uid)
{
	if (*n == *cap) {
		*cap = *cap == 0 ? 64 : *cap * 2;
		*uids = xreallocarray(*uids, *cap, sizeof **uids);
	}
	(*uids)[(*n)++] = uid;
}

/* The partial index and its query name the two hints as 48. */
_Static_assert((CACHE_HINT_EVIDENCE | CACHE_HINT_NOFIELDS) == 48,
    "message_evidence is on hints & 48");

int
cache_evidence(struct cache *c, const struct cache_mailbox *mb,
    uint32_t first, uint32_t last, uint32_t **uids, size_t *n, char **cause)
{
	sqlite3_stmt	*st;
	size_t		 cap = 0;
	unsigned	 hints;
	int		 rc;

	*uids = NULL;
	*n = 0;
	if (first < mb->evuid || (mb->lowuid != 0 && first < mb->lowuid))
		return 0;
	if (sqlite3_prepare_v2(c->db, "SELECT uid, hints FROM message"
	    " INDEXED BY message_evidence WHERE mailbox = ? AND uid BETWEEN"
	    " ? AND ? AND hints & 48 != 0 ORDER BY uid", -1, &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "evidence", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, first);
	sqlite3_bind_int64(st, 3, last);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hints = (unsigned)sqlite3_column_int64(st, 1);
		if (hints & CACHE_HINT_NOFIELDS)
			break;
		cache_uid_add(uids, n, &cap,
		    (uint32_t)sqlite3_column_int64(st, 0));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*uids);
		*uids = NULL;
		*n = 0;
		if (rc == SQLITE_ROW)
			return 0;	/* header fields that did not come */
		return cache_fail(c, "evidence", cause);
	}
	return 1;
}

int
cache_set_flags(struct cache *c, const struct cache_mailbox *mb, uint32_t uid,
    const char *flags, char **cause)
{
	sqlite3_bind_text(c->flags, 1, flags, -1, SQLITE_STATIC);
	sqlite3_bind_int64(c->flags, 2, mb->id);
	sqlite3_bind_int64(c->flags, 3, uid);
	if (cache_step(c, c->flags, "flags", cause) == -1)
		return -1;
	return sqlite3_changes(c->db) > 0;
}

int
cache_delete(struct cache *c, const struct cache_mailbox *mb, uint32_t uid,
    char **cause)
{
	if (cache_touch(c, mb->id, cause) == -1)
		return -1;
	cache_seen_forget(c);	/* the trigger may remove them */
	sqlite3_bind_int64(c->del, 1, mb->id);
	sqlite3_bind_int64(c->del, 2, uid);
	return cache_step(c, c->del, "delete", cause);
}

int
cache_delete_range(struct cache *c, const struct cache_mailbox *mb,
    uint32_t first, uint32_t last, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (first > last)
		return 0;
	cache_seen_forget(c);	/* the trigger may remove them */
	if (sqlite3_prepare_v2(c->db, "DELETE FROM message WHERE mailbox = ?"
	    " AND uid >= ? AND uid <= ?", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "delete", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, first);
	sqlite3_bind_int64(st, 3, last);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "delete", cause);
	rc = sqlite3_changes(c->db);
	if (rc > 0 && cache_touch(c, mb->id, cause) == -1)
		return -1;
	return rc;
}

int
cache_get_flags(struct cache *c, const struct cache_mailbox *mb, uint32_t uid,
    char flags[8], char **cause)
{
	sqlite3_stmt	*st;
	const char	*f;
	int		 rc;

	flags[0] = '\0';
	if (sqlite3_prepare_v2(c->db, "SELECT flags FROM message WHERE "
	    "mailbox = ? AND uid = ?", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "flags", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, uid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && (f = (const char *)sqlite3_column_text(st,
	    0)) != NULL) {
		strncpy(flags, f, 7);
		flags[7] = '\0';
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return cache_fail(c, "flags", cause);
	return 1;
}

int
cache_get_message_id(struct cache *c, const struct cache_mailbox *mb,
    uint32_t uid, char **msgid, char **cause)
{
	sqlite3_stmt	*st;
	const char	*m;
	int		 rc;

	*msgid = NULL;
	if (sqlite3_prepare_v2(c->db, "SELECT message_id FROM message WHERE "
	    "mailbox = ? AND uid = ?", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "message id", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, uid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && (m = (const char *)sqlite3_column_text(st,
	    0)) != NULL && *m != '\0')
		*msgid = xstrdup(m);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(c, "message id", cause);
	return *msgid != NULL;
}

/* prefix with LIKE's wildcards escaped by a backslash, then "%". */
static char *
cache_like(const char *before, const char *prefix)
{
	char	*p, *q;

	p = q = xcalloc(strlen(before) + 2 * strlen(prefix) + 2, 1);
	q = stpcpy(q, before);
	for (; *prefix != '\0'; prefix++) {
		if (*prefix == '%' || *prefix == '_' || *prefix == '\\')
			*q++ = '\\';
		*q++ = *prefix;
	}
	*q = '%';
	return p;
}

/*
 * No index can serve a match on any word of a name, so the newest
 * CACHE_SENDERS_SCAN messages of each mailbox are scanned (a range of
 * the primary key): whoever wrote before that is found in the trust
 * store, or not at all, and a completion stays within a few
 * milliseconds however big the mailboxes grow.
 */
#define CACHE_SENDERS_SCAN	10000
int
cache_senders(struct cache *c, const char *prefix, size_t max,
    struct cache_sender **out, size_t *n, char **cause)
{
	sqlite3_stmt	*st;
	const char	*a, *nm;
	char		*start, *word;
	int		 rc;

	*out = NULL;
	*n = 0;
	/* The ranges first (MATERIALIZED), so that each is a key range. */
	if (sqlite3_prepare_v2(c->db, "WITH r(id, lo) AS MATERIALIZED "
	    "(SELECT id, (SELECT ifnull(max(x.uid), 0) FROM message x WHERE "
	    "x.mailbox = mailbox.id) - ?4 FROM mailbox) SELECT m.from_addr, "
	    "max(m.sender), count(*), max(m.internaldate) FROM r JOIN message "
	    "m ON m.mailbox = r.id AND m.uid > r.lo WHERE m.from_addr IS NOT "
	    "NULL AND (m.from_addr LIKE ?1 ESCAPE '\\' OR m.sender LIKE ?1 "
	    "ESCAPE '\\' OR m.sender LIKE ?2 ESCAPE '\\') GROUP BY "
	    "lower(m.from_addr) ORDER BY 3 DESC, 4 DESC LIMIT ?3", -1, &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "senders", cause);
	start = cache_like("", prefix);
	word = cache_like("% ", prefix);
	sqlite3_bind_text(st, 1, start, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, word, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)max);
	sqlite3_bind_int64(st, 4, CACHE_SENDERS_SCAN);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((a = (const char *)sqlite3_column_text(st, 0)) == NULL)
			continue;
		nm = (const char *)sqlite3_column_text(st, 1);
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		(*out)[*n].addr = xstrdup(a);
		/* The sender column holds the address when there is no name. */
		(*out)[*n].name = nm != NULL && *nm != '\0' &&
		    strcasecmp(nm, a) != 0 ? xstrdup(nm) : NULL;
		(*out)[*n].count = sqlite3_column_int64(st, 2);
		(*out)[(*n)++].last = (time_t)sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	free(start);
	free(word);
	if (rc != SQLITE_DONE) {
		cache_senders_free(*out, *n);
		*out = NULL;
		*n = 0;
		return cache_fail(c, "senders", cause);
	}
	return 0;
}

void
cache_senders_free(struct cache_sender *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(s[i].addr);
		free(s[i].name);
	}
	free(s);
}

int
cache_delete_missing(struct cache *c, const struct cache_mailbox *mb,
    const uint32_t *uids, size_t n, uint32_t upto, char **cause)
{
	sqlite3_stmt	*st;
	uint32_t	*gone = NULL, uid;
	size_t		 ngone = 0, i = 0, j;
	int		 rc;

	if (sqlite3_prepare_v2(c->db, "SELECT uid FROM message WHERE "
	    "mailbox = ? AND uid <= ? ORDER BY uid", -1, &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "scan", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, upto);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uid = (uint32_t)sqlite3_column_int64(st, 0);
		while (i < n && uids[i] < uid)
			i++;
		if (i < n && uids[i] == uid)
			continue;
		gone = xreallocarray(gone, ngone + 1, sizeof *gone);
		gone[ngone++] = uid;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(gone);
		return cache_fail(c, "scan", cause);
	}
	for (j = 0; j < ngone; j++) {
		if (cache_delete(c, mb, gone[j], cause) == -1) {
			free(gone);
			return -1;
		}
	}
	free(gone);
	return 0;
}

int
cache_uncached(struct cache *c, const struct cache_mailbox *mb,
    uint32_t *uids, size_t *n, char **cause)
{
	sqlite3_stmt	*st;
	uint32_t	 uid;
	size_t		 i = 0, k = 0;
	int		 rc;

	if (*n == 0)
		return 0;
	if (sqlite3_prepare_v2(c->db, "SELECT uid FROM message WHERE "
	    "mailbox = ? AND uid >= ? AND uid <= ? ORDER BY uid", -1, &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "scan", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, uids[0]);
	sqlite3_bind_int64(st, 3, uids[*n - 1]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uid = (uint32_t)sqlite3_column_int64(st, 0);
		while (i < *n && uids[i] < uid)
			uids[k++] = uids[i++];
		if (i < *n && uids[i] == uid)
			i++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "scan", cause);
	while (i < *n)
		uids[k++] = uids[i++];
	*n = k;
	return 0;
}

int
cache_pending_add(struct cache *c, const char *mailbox, uint32_t uidvalidity,
    uint32_t uid, const char *add, const char *remove, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(c->db, "INSERT INTO pending (mailbox, "
	    "uidvalidity, uid, add_flags, remove_flags) VALUES (?,?,?,?,?)",
	    -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "pending", cause);
	sqlite3_bind_text(st, 1, mailbox, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, uidvalidity);
	sqlite3_bind_int64(st, 3, uid);
	sqlite3_bind_text(st, 4, add, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, remove, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "pending", cause);
	return (int)sqlite3_last_insert_rowid(c->db);
}

int
cache_pending_each(struct cache *c,
    int (*fn)(const struct cache_pending *, void *), void *arg, char **cause)
{
	sqlite3_stmt		*st;
	struct cache_pending	 p;
	int			 rc;

	if (sqlite3_prepare_v2(c->db, "SELECT id, mailbox, uidvalidity, uid,"
	    " add_flags, remove_flags FROM pending ORDER BY id", -1, &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "pending", cause);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p.id = sqlite3_column_int64(st, 0);
		p.mailbox = (const char *)sqlite3_column_text(st, 1);
		p.uidvalidity = (uint32_t)sqlite3_column_int64(st, 2);
		p.uid = (uint32_t)sqlite3_column_int64(st, 3);
		p.add = (const char *)sqlite3_column_text(st, 4);
		p.remove = (const char *)sqlite3_column_text(st, 5);
		if (p.mailbox == NULL || p.add == NULL || p.remove == NULL)
			continue;
		if (fn(&p, arg) != 0)
			break;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return cache_fail(c, "pending", cause);
	return 0;
}

int
cache_pending_done(struct cache *c, int64_t id, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(c->db, "DELETE FROM pending WHERE id = ?", -1,
	    &st, NULL) != SQLITE_OK)
		return cache_fail(c, "pending", cause);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "pending", cause);
	return 0;
}

int
cache_pending_drop(struct cache *c, const char *mailbox, uint32_t uidvalidity,
    char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(c->db, "DELETE FROM pending WHERE mailbox = ? "
	    "AND uidvalidity != ?", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "pending", cause);
	sqlite3_bind_text(st, 1, mailbox, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, uidvalidity);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cache_fail(c, "pending", cause);
	return sqlite3_changes(c->db);
}

int
cache_stale(struct cache *c, const struct cache_mailbox *mb, uint32_t **uids,
    size_t *n, char **cause)
{
	sqlite3_stmt	*st;
	size_t		 cap = 0;
	int		 rc;

	*uids = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(c->db, "SELECT uid FROM message WHERE"
	    " mailbox = ? AND stale != 0 ORDER BY uid", -1, &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "stale", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cache_uid_add(uids, n, &cap,
		    (uint32_t)sqlite3_column_int64(st, 0));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*uids);
		*uids = NULL;
		*n = 0;
		return cache_fail(c, "stale", cause);
	}
	return 0;
}

int
cache_each(struct cache *c, const struct cache_mailbox *mb,
    int (*fn)(const struct cache_msg *, void *), void *arg, char **cause)
{
	return cache_each_newest(c, mb, 0, fn, arg, cause);
}

int
cache_each_newest(struct cache *c, const struct cache_mailbox *mb,
    size_t limit, int (*fn)(const struct cache_msg *, void *), void *arg,
    char **cause)
{
	sqlite3_stmt		*st;

	if (sqlite3_prepare_v2(c->db, limit == 0 ? CACHE_EACH
	    " WHERE m.mailbox = ? ORDER BY m.uid" : CACHE_EACH
	    " WHERE m.mailbox = ? ORDER BY m.uid DESC LIMIT ?",
	    -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "read", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	if (limit != 0)
		sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
	return cache_read(c, st, fn, arg, cause);
}

int
cache_each_uid(struct cache *c, const struct cache_mailbox *mb, uint32_t uid,
    int (*fn)(const struct cache_msg *, void *), void *arg, char **cause)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(c->db, CACHE_EACH " WHERE m.mailbox = ? AND"
	    " m.uid = ?", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "read", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, uid);
	return cache_read(c, st, fn, arg, cause);
}

/* Each row of st (CACHE_EACH) to fn, which stops by not returning 0;
 * st is finalized. */
static int
cache_read(struct cache *c, sqlite3_stmt *st,
    int (*fn)(const struct cache_msg *, void *), void *arg, char **cause)
{
	struct cache_msg	 m;
	struct cache_protected	 p;
	const char		*flags;
	int			 rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&m, 0, sizeof m);
		m.uid = (uint32_t)sqlite3_column_int64(st, 0);
		flags = (const char *)sqlite3_column_text(st, 1);
		if (flags != NULL)
			strncpy(m.flags, flags, sizeof m.flags - 1);
		m.internaldate = (time_t)sqlite3_column_int64(st, 2);
		m.size = (uint32_t)sqlite3_column_int64(st, 3);
		m.date = (const char *)sqlite3_column_text(st, 4);
		m.from = (const char *)sqlite3_column_text(st, 5);
		m.subject = (const char *)sqlite3_column_text(st, 6);
		m.message_id = (const char *)sqlite3_column_text(st, 7);
		m.from_addr = (const char *)sqlite3_column_text(st, 8);
		m.rcpt = (const char *)sqlite3_column_text(st, 9);
		m.in_reply_to = (const char *)sqlite3_column_text(st, 10);
		m.references = (const char *)sqlite3_column_text(st, 11);
		m.sent = (time_t)sqlite3_column_int64(st, 12);
		m.hints = (unsigned)sqlite3_column_int64(st, 13);
		m.stale = sqlite3_column_int(st, 14);
		if (sqlite3_column_type(st, 15) != SQLITE_NULL) {
			memset(&p, 0, sizeof p);
			p.how = (unsigned)sqlite3_column_int64(st, 15);
			p.date = (const char *)sqlite3_column_text(st, 16);
			p.from = (const char *)sqlite3_column_text(st, 17);
			p.from_addr = (const char *)sqlite3_column_text(st, 18);
			p.rcpt = (const char *)sqlite3_column_text(st, 19);
			p.subject = (const char *)sqlite3_column_text(st, 20);
			p.message_id = (const char *)sqlite3_column_text(st,
			    21);
			p.in_reply_to = (const char *)sqlite3_column_text(st,
			    22);
			p.references = (const char *)sqlite3_column_text(st,
			    23);
			p.sent = (time_t)sqlite3_column_int64(st, 24);
			m.prot = &p;
		}
		if (fn(&m, arg) != 0)
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return cache_fail(c, "read", cause);
	}
	sqlite3_finalize(st);
	return 0;
}

int
cache_protected_put(struct cache *c, const struct cache_mailbox *mb,
    uint32_t uid, const struct cache_protected *p, char **cause)
{
	sqlite3_bind_int64(c->prot, 1, mb->id);
	sqlite3_bind_int64(c->prot, 2, uid);
	sqlite3_bind_int64(c->prot, 3, p->how);
	sqlite3_bind_text(c->prot, 4, p->date, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->prot, 5, p->from, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->prot, 6, p->from_addr, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->prot, 7, p->rcpt, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->prot, 8, p->subject, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->prot, 9, p->message_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->prot, 10, p->in_reply_to, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->prot, 11, p->references, -1, SQLITE_STATIC);
	sqlite3_bind_int64(c->prot, 12, (sqlite3_int64)p->sent);
	if (cache_step(c, c->prot, "protected headers", cause) == -1)
		return -1;
	if (sqlite3_changes(c->db) == 0)
		return 0;
	/* its sort keys and its thread may be others now */
	if (cache_rekey(c, mb->id, uid, cause) == -1 ||
	    cache_touch(c, mb->id, cause) == -1)
		return -1;
	sqlite3_bind_int64(c->rethread, 1, mb->id);
	sqlite3_bind_int64(c->rethread, 2, uid);
	if (cache_step(c, c->rethread, "protected headers", cause) == -1)
		return -1;
	c->prot_any = 1;
	return 1;
}

int
cache_protected_wanted(struct cache *c, const struct cache_mailbox *mb,
    uint32_t uid, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc, want = 0;

	if (sqlite3_prepare_v2(c->db, "SELECT m.hints, p.how FROM message m"
	    " LEFT JOIN protected p ON p.mailbox = m.mailbox AND"
	    " p.uid = m.uid WHERE m.mailbox = ? AND m.uid = ?", -1, &st,
	    NULL) != SQLITE_OK)
		return cache_fail(c, "protected headers", cause);
	sqlite3_bind_int64(st, 1, mb->id);
	sqlite3_bind_int64(st, 2, uid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		want = (sqlite3_column_int64(st, 0) & CACHE_HINT_ENCRYPTED) &&
		    sqlite3_column_type(st, 1) == SQLITE_NULL;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(c, "protected headers", cause);
	return want;
}

int
cache_protected_clear(struct cache *c, char **cause)
{
	int	n;

	/* Nothing to forget: leave the file and its journal alone. */
	if (db_int(c->db, "SELECT count(*) FROM protected", &n) == -1)
		return cache_fail(c, "protected headers", cause);
	if (n == 0)
		return 0;
	if (cache_exec(c, "PRAGMA secure_delete = ON", cause) == -1)
		return -1;
	/* the senders seen go too: some were protected values; the
	   rekey below writes the outer ones again */
	cache_seen_forget(c);
	if (cache_exec(c, "INSERT OR REPLACE INTO thread_todo (mailbox, uid)"
	    " SELECT mailbox, uid FROM protected", cause) == -1 ||
	    cache_exec(c, "DELETE FROM protected", cause) == -1 ||
	    cache_exec(c, "DELETE FROM sender_seen", cause) == -1 ||
	    cache_exec(c, "INSERT INTO rekey VALUES (1)", cause) == -1 ||
	    cache_exec(c, "UPDATE mailbox SET mgen = mgen + 1", cause) == -1 ||
	    cache_rekey_all(c, cause) == -1) {
		sqlite3_exec(c->db, "PRAGMA secure_delete = OFF", NULL, NULL,
		    NULL);
		return -1;
	}
	sqlite3_exec(c->db, "PRAGMA secure_delete = OFF", NULL, NULL, NULL);
	/* the pages they were on, copied into the journal: written back
	   overwritten, and the journal emptied */
	if (cache_exec(c, "PRAGMA wal_checkpoint(TRUNCATE)", cause) == -1)
		return -1;
	return n;
}
