/*
 * body-cache.c: the SQLite body cache of body-cache.h.
 *
 * Two tables: body, one small row per message (where it came from, its
 * size, the order it was stored in), and body_raw, its bytes, so that
 * finding the oldest rows never reads a message; total, the sum of the
 * sizes, kept by triggers, so that a store does not add them all up.
 * The ids grow (AUTOINCREMENT: an evicted id is never used again), which
 * is what eviction (lowest ids first) and the full-text index (the
 * highest id it has read) go by. The file name comes from the account's
 * id, never from a server. Called by the session (session.c) and the
 * full-text index; it never talks to the server.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "body-cache.h"
#include "db.h"
#include "log.h"
#include "paths.h"
#include "xmalloc.h"

#define BODY_CACHE_APP_ID	0x53544243	/* "STBC" */
#define BODY_CACHE_VERSION	1

struct body_cache {
	sqlite3		*db;
	char		*path;
	uint64_t	 limit;
	int		 broken;	/* delete the file on close */
};

static const char body_cache_schema[] =
    "CREATE TABLE body ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " mailbox TEXT NOT NULL,"
    " uidvalidity INTEGER NOT NULL,"
    " uid INTEGER NOT NULL,"
    " stored INTEGER NOT NULL,"
    " size INTEGER NOT NULL,"
    " UNIQUE (mailbox, uidvalidity, uid));"
    "CREATE TABLE body_raw ("
    " id INTEGER PRIMARY KEY,"
    " raw BLOB NOT NULL);"
    "CREATE TABLE total (bytes INTEGER NOT NULL);"
    "INSERT INTO total VALUES (0);"
    "CREATE TRIGGER body_gone AFTER DELETE ON body BEGIN"
    " DELETE FROM body_raw WHERE id = old.id;"
    " UPDATE total SET bytes = bytes - old.size; END;"
    "CREATE TRIGGER body_new AFTER INSERT ON body BEGIN"
    " UPDATE total SET bytes = bytes + new.size; END;";

/* A cache: what is not ours or of another version is made anew. */
static const struct db_schema body_cache_db = {
	"body cache", BODY_CACHE_APP_ID, body_cache_schema, NULL,
	BODY_CACHE_VERSION, "NORMAL", 1
};

static int
body_cache_fail(struct body_cache *bc, const char *what, char **cause)
{
	return db_fail(bc->db, "body cache", bc->path, what, &bc->broken,
	    cause);
}

struct body_cache *
body_cache_open_path(const char *path, uint64_t limit, char **cause)
{
	struct body_cache	*bc;

	bc = xcalloc(1, sizeof *bc);
	bc->path = xstrdup(path);
	bc->limit = limit;
	if ((bc->db = db_open(bc->path, &body_cache_db, cause)) == NULL) {
		free(bc->path);
		free(bc);
		return NULL;
	}
	/* the trigger needs them, and an evicted message is gone */
	sqlite3_exec(bc->db, "PRAGMA recursive_triggers = OFF", NULL, NULL,
	    NULL);
	return bc;
}

struct body_cache *
body_cache_open(const char *id, uint64_t limit, char **cause)
{
	struct body_cache	*bc;
	char			*dir, *path;

	if ((dir = paths_cache_dir(cause)) == NULL)
		return NULL;
	path = xasprintf("%s/%s.bodies", dir, id);
	free(dir);
	bc = body_cache_open_path(path, limit, cause);
	free(path);
	return bc;
}

void
body_cache_close(struct body_cache *bc)
{
	if (bc == NULL)
		return;
	sqlite3_close(bc->db);
	if (bc->broken)
		db_unlink(bc->path);
	free(bc->path);
	free(bc);
}

const char *
body_cache_path(const struct body_cache *bc)
{
	return bc->path;
}

int
body_cache_get(struct body_cache *bc, const char *mailbox,
    uint32_t uidvalidity, uint32_t uid, struct buf *out, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(bc->db, "SELECT r.raw FROM body b JOIN "
	    "body_raw r ON r.id = b.id WHERE b.mailbox = ? AND "
	    "b.uidvalidity = ? AND b.uid = ?", -1, &st, NULL) != SQLITE_OK)
		return body_cache_fail(bc, "cannot read", cause);
	sqlite3_bind_text(st, 1, mailbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, uidvalidity);
	sqlite3_bind_int64(st, 3, uid);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		buf_add(out, sqlite3_column_blob(st, 0),
		    (size_t)sqlite3_column_bytes(st, 0));
		sqlite3_finalize(st);
		return 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return body_cache_fail(bc, "cannot read", cause);
	return 0;
}

int
body_cache_has(struct body_cache *bc, const char *mailbox,
    uint32_t uidvalidity, uint32_t uid, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(bc->db, "SELECT 1 FROM body WHERE mailbox = ? "
	    "AND uidvalidity = ? AND uid = ?", -1, &st, NULL) != SQLITE_OK)
		return body_cache_fail(bc, "cannot read", cause);
	sqlite3_bind_text(st, 1, mailbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, uidvalidity);
	sqlite3_bind_int64(st, 3, uid);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		return body_cache_fail(bc, "cannot read", cause);
	return 0;
}

/* Evict the oldest messages until the cache fits; in the transaction. */
static int
body_cache_evict(struct body_cache *bc, char **cause)
{
	sqlite3_stmt	*st;
	sqlite3_int64	 total, last = 0;
	int		 rc;

	if (sqlite3_prepare_v2(bc->db, "SELECT bytes FROM total", -1, &st,
	    NULL) != SQLITE_OK)
		return body_cache_fail(bc, "cannot evict", cause);
	total = sqlite3_step(st) == SQLITE_ROW ?
	    sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if ((uint64_t)total <= bc->limit)
		return 0;
	if (sqlite3_prepare_v2(bc->db, "SELECT id, size FROM body ORDER BY "
	    "id", -1, &st, NULL) != SQLITE_OK)
		return body_cache_fail(bc, "cannot evict", cause);
	while ((uint64_t)total > bc->limit &&
	    (rc = sqlite3_step(st)) == SQLITE_ROW) {
		last = sqlite3_column_int64(st, 0);
		total -= sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(bc->db, "DELETE FROM body WHERE id <= ?",
	    -1, &st, NULL) != SQLITE_OK)
		return body_cache_fail(bc, "cannot evict", cause);
	sqlite3_bind_int64(st, 1, last);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return body_cache_fail(bc, "cannot evict", cause);
	log_msg(LOG_INFO, "body cache: evicted up to id %lld",
	    (long long)last);
	return 0;
}

/* One statement of a put, its values bound by the caller. */
static int
body_cache_step(struct body_cache *bc, sqlite3_stmt *st, char **cause)
{
	int	rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return body_cache_fail(bc, "cannot store", cause);
	return 0;
}

int
body_cache_put(struct body_cache *bc, const char *mailbox,
    uint32_t uidvalidity, uint32_t uid, const char *raw, size_t len,
    char **cause)
{
	sqlite3_stmt	*st;

	if (len > bc->limit)
		return 0;
	if (sqlite3_exec(bc->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return body_cache_fail(bc, "cannot store", cause);
	/* a copy stored again is the newest now: a new id */
	if (sqlite3_prepare_v2(bc->db, "DELETE FROM body WHERE mailbox = ? "
	    "AND uidvalidity = ? AND uid = ?", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, mailbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, uidvalidity);
	sqlite3_bind_int64(st, 3, uid);
	if (body_cache_step(bc, st, cause) == -1)
		goto out;
	if (sqlite3_prepare_v2(bc->db, "INSERT INTO body (mailbox, "
	    "uidvalidity, uid, stored, size) VALUES (?, ?, ?, "
	    "strftime('%s', 'now'), ?)", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, mailbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, uidvalidity);
	sqlite3_bind_int64(st, 3, uid);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)len);
	if (body_cache_step(bc, st, cause) == -1)
		goto out;
	if (sqlite3_prepare_v2(bc->db, "INSERT INTO body_raw (id, raw) "
	    "VALUES (last_insert_rowid(), ?)", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_blob64(st, 1, raw != NULL ? raw : "", len,
	    SQLITE_STATIC);
	if (body_cache_step(bc, st, cause) == -1 ||
	    body_cache_evict(bc, cause) == -1)
		goto out;
	if (sqlite3_exec(bc->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	return 1;
fail:
	body_cache_fail(bc, "cannot store", cause);
out:
	sqlite3_exec(bc->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
body_cache_delete(struct body_cache *bc, const char *mailbox,
    uint32_t uidvalidity, uint32_t uid, char **cause)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(bc->db, "DELETE FROM body WHERE mailbox = ? "
	    "AND uidvalidity = ? AND uid = ?", -1, &st, NULL) != SQLITE_OK)
		return body_cache_fail(bc, "cannot delete", cause);
	sqlite3_bind_text(st, 1, mailbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, uidvalidity);
	sqlite3_bind_int64(st, 3, uid);
	return body_cache_step(bc, st, cause);
}

int
body_cache_last_id(struct body_cache *bc, int64_t *id, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	*id = 0;
	if (sqlite3_prepare_v2(bc->db, "SELECT seq FROM sqlite_sequence "
	    "WHERE name = 'body'", -1, &st, NULL) != SQLITE_OK)
		return body_cache_fail(bc, "cannot read", cause);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return body_cache_fail(bc, "cannot read", cause);
	return 0;
}

int
body_cache_stats(struct body_cache *bc, uint64_t *count, uint64_t *bytes,
    char **cause)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(bc->db, "SELECT (SELECT count(*) FROM body), "
	    "bytes FROM total", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return body_cache_fail(bc, "cannot count", cause);
	}
	*count = (uint64_t)sqlite3_column_int64(st, 0);
	*bytes = (uint64_t)sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

int
body_cache_each(struct body_cache *bc, int64_t after,
    int (*fn)(const struct body_cache_entry *, void *), void *arg,
    char **cause)
{
	struct body_cache_entry	 e;
	sqlite3_stmt		*st;
	int			 rc, stop = 0;

	if (sqlite3_prepare_v2(bc->db, "SELECT b.id, b.mailbox, "
	    "b.uidvalidity, b.uid, r.raw FROM body b JOIN body_raw r ON "
	    "r.id = b.id WHERE b.id > ? ORDER BY b.id", -1, &st, NULL) !=
	    SQLITE_OK)
		return body_cache_fail(bc, "cannot read", cause);
	sqlite3_bind_int64(st, 1, after);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		e.id = sqlite3_column_int64(st, 0);
		e.mailbox = (const char *)sqlite3_column_text(st, 1);
		e.uidvalidity = (uint32_t)sqlite3_column_int64(st, 2);
		e.uid = (uint32_t)sqlite3_column_int64(st, 3);
		e.raw = sqlite3_column_blob(st, 4);
		e.len = (size_t)sqlite3_column_bytes(st, 4);
		if (e.mailbox == NULL)
			continue;
		if ((stop = fn(&e, arg)) != 0)
			break;
	}
	sqlite3_finalize(st);
	if (stop != 0)
		return stop;
	if (rc != SQLITE_DONE)
		return body_cache_fail(bc, "cannot read", cause);
	return 0;
}

int
body_cache_size_parse(const char *s, uint64_t *bytes, char **cause)
{
	unsigned long long	 n;
	char			*end;
	int			 shift = 0;

	errno = 0;
	if (s == NULL || !isdigit((unsigned char)*s) ||
	    ((n = strtoull(s, &end, 10)), errno != 0))
		goto bad;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		goto bad;
	}
	if (*end != '\0' && end[1] != '\0')
		goto bad;
	if (n > (1ULL << 50) >> shift)
		goto bad;
	*bytes = (uint64_t)n << shift;
	return 0;
bad:
	*cause = xasprintf("body-cache-size %s: not a size (a number of "
	    "bytes, or with K, M or G after it; 0: off)", s != NULL ? s : "");
	return -1;
}
