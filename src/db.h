/*
 * db.h: what the SQLite stores (header cache, DNS cache, trust store)
 * share: opening a database as one of ours, creating it, migrating it
 * forward through numbered steps, or (for a cache) rebuilding it; reading
 * one integer (a PRAGMA, a count); removing a database file with its WAL
 * and shared-memory files.
 */
#ifndef STEED_DB_H
#define STEED_DB_H

#include <sqlite3.h>

/*
 * A database of ours: marked with PRAGMA application_id, its schema
 * versioned with PRAGMA user_version. Version 1 is create; migrations[i]
 * takes version i + 1 to i + 2, each in a transaction of its own; version
 * is the newest.
 */
struct db_schema {
	const char		 *what;		/* "header cache": for messages */
	int			  app_id;
	const char		 *create;
	const char *const	 *migrations;	/* NULL: a cache of an older
						   version is made anew */
	int			  version;
	const char		 *synchronous;	/* "NORMAL", "FULL" */
	/*
	 * A cache: a file that is not ours, of another version, corrupt or
	 * that cannot be migrated is deleted and made anew (losing it costs
	 * time only). Otherwise such a file is left as it is and the open
	 * fails, saying why.
	 */
	int			  rebuild;
};

/*
 * Open path (mode 0600, WAL journal) as a database of schema s, creating
 * or migrating it. Returns the handle, or NULL and *cause.
 */
sqlite3	*db_open(const char *path, const struct db_schema *s, char **cause);

/*
 * *cause for a failed statement of a store: "WHAT PATH: DOING: sqlite's
 * words"; sets *broken when SQLite finds the file corrupt or not a
 * database (a cache is then deleted on close). Returns -1.
 */
int	db_fail(sqlite3 *, const char *what, const char *path,
	    const char *doing, int *broken, char **cause);

/* The first column of the first row of sql, or 0 when there is none. */
int	db_int(sqlite3 *, const char *sql, int *value);
/* What went wrong last on db, in plain words ("the disk is full"). */
const char *db_errmsg(sqlite3 *);
/* Remove path, path-wal and path-shm. */
void	db_unlink(const char *path);

#endif
