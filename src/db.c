/*
 * db.c: the SQLite helpers of db.h: one way to open, create, migrate and
 * rebuild the stores.
 */
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>

#include <stdlib.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "xmalloc.h"

const char *
db_errmsg(sqlite3 *db)
{
	int	code = sqlite3_extended_errcode(db) & 0xff;
	int	err = sqlite3_system_errno(db);

	/* a full disk reaches SQLite as FULL, or as an I/O error whose
	 * errno says so (growing the WAL index, say) */
	if (code == SQLITE_FULL ||
	    (code == SQLITE_IOERR && (err == ENOSPC || err == EDQUOT)))
		return err == EDQUOT ? "the disk quota is used up" :
		    "the disk is full";
	return sqlite3_errmsg(db);
}

/* *cause for what went wrong with db, naming the store. */
static void
db_cause(sqlite3 *db, const char *path, const struct db_schema *s,
    const char *what, char **cause)
{
	if (db != NULL)
		*cause = xasprintf("%s %s: %s: %s", s->what, path, what,
		    db_errmsg(db));
	else
		*cause = xasprintf("%s %s: %s", s->what, path, what);
}

/*
 * Once a process, before SQLite's first use: no memory statistics. With
 * them (SQLite's default) every allocation of every connection takes one
 * global mutex, and the interface's thread waited for it behind the thread
 * that brings the thread order up to date: 50 to 130 ms a key at
 * 1,000,000 messages, against 3 to 11 ms without (doc/bench.md).
 * steedmail never reads them (sqlite3_memory_used() stays 0).
 */
static pthread_once_t	db_once = PTHREAD_ONCE_INIT;

static void
db_setup(void)
{
	if (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK)
		log_msg(LOG_INFO, "db: SQLite was in use before the first "
		    "store was opened: its memory statistics stay on");
}

/*
 * Open path as ours: 0 ready, 1 when a cache must be rebuilt, -1 with
 * *cause. The journal is WAL before anything is written.
 */
static int
db_try_open(sqlite3 **dbp, const char *path, const struct db_schema *s,
    char **cause)
{
	sqlite3	*db;
	int	 app, version, tables, fresh;
	char	*sql;

	pthread_once(&db_once, db_setup);
	if (sqlite3_open_v2(path, dbp, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		if (*dbp != NULL && s->rebuild)
			return 1;
		db_cause(*dbp, path, s, "cannot open", cause);
		return -1;
	}
	db = *dbp;
	chmod(path, 0600);
	sqlite3_busy_timeout(db, 5000);
	if (db_int(db, "PRAGMA application_id", &app) == -1 ||
	    db_int(db, "PRAGMA user_version", &version) == -1 ||
	    db_int(db, "SELECT count(*) FROM sqlite_master", &tables) == -1) {
		if (s->rebuild)
			return 1;
		db_cause(db, path, s, "cannot be read (left as it is)", cause);
		return -1;
	}
	fresh = tables == 0 && app == 0;
	if (!fresh && (app != s->app_id || version < 1 ||
	    version > s->version)) {
		/* Checked before anything is written: a store is left as
		   it is. */
		log_msg(LOG_INFO, "db: %s is not ours or of another version "
		    "(%x/%d)%s", path, app, version,
		    s->rebuild ? "; rebuilding" : "");
		if (s->rebuild)
			return 1;
		if (app != s->app_id)
			*cause = xasprintf("%s %s: not a steedmail %s (left as "
			    "it is)", s->what, path, s->what);
		else
			*cause = xasprintf("%s %s: version %d, this steedmail "
			    "reads up to %d (left as it is)", s->what, path,
			    version, s->version);
		return -1;
	}
	/* The WAL journal before anything is written, so it is never lost. */
	sql = xasprintf("PRAGMA journal_mode=WAL; PRAGMA synchronous=%s",
	    s->synchronous);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		free(sql);
		if (s->rebuild)
			return 1;
		db_cause(db, path, s, "cannot set the journal", cause);
		return -1;
	}
	free(sql);
	if (fresh) {
		sql = xasprintf("BEGIN IMMEDIATE; PRAGMA application_id=%d; "
		    "PRAGMA user_version=1; %s COMMIT;", s->app_id, s->create);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			free(sql);
			db_cause(db, path, s, "cannot create", cause);
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
		free(sql);
		version = 1;
	}
	/* A cache without migrations is made anew for any older one. */
	if (version < s->version && s->migrations == NULL && s->rebuild) {
		log_msg(LOG_INFO, "db: %s is of version %d, not %d; rebuilding",
		    path, version, s->version);
		return 1;
	}
	for (; version < s->version; version++) {
		sql = xasprintf("BEGIN IMMEDIATE; %s PRAGMA user_version=%d; "
		    "COMMIT;", s->migrations[version - 1], version + 1);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			free(sql);
			if (!s->rebuild)
				db_cause(db, path, s, "cannot migrate", cause);
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return s->rebuild ? 1 : -1;
		}
		free(sql);
		log_msg(LOG_INFO, "db: %s migrated to version %d", path,
		    version + 1);
	}
	return 0;
}

sqlite3 *
db_open(const char *path, const struct db_schema *s, char **cause)
{
	sqlite3	*db = NULL;
	int	 rc;

	if ((rc = db_try_open(&db, path, s, cause)) == 1) {
		sqlite3_close(db);
		db = NULL;
		db_unlink(path);
		if ((rc = db_try_open(&db, path, s, cause)) == 1) {
			db_cause(NULL, path, s, "cannot be created", cause);
			rc = -1;
		}
	}
	if (rc == -1) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

int
db_fail(sqlite3 *db, const char *what, const char *path, const char *doing,
    int *broken, char **cause)
{
	int	code = sqlite3_extended_errcode(db) & 0xff;

	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		*broken = 1;
	*cause = xasprintf("%s %s: %s: %s%s", what, path, doing,
	    db_errmsg(db), *broken ? " (it will be rebuilt)" : "");
	return -1;
}

int
db_int(sqlite3 *db, const char *sql, int *value)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	*value = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

void
db_unlink(const char *path)
{
	char	*p;

	unlink(path);
	p = xasprintf("%s-wal", path);
	unlink(p);
	free(p);
	p = xasprintf("%s-shm", path);
	unlink(p);
	free(p);
}
