/*
 * db.h: small helpers shared by the SQLite stores (header cache, DNS
 * cache, trust store): reading one integer (a PRAGMA, a count) and
 * removing a database file with its WAL and shared-memory files.
 */
#ifndef STEED_DB_H
#define STEED_DB_H

#include <sqlite3.h>

/* The first column of the first row of sql, or 0 when there is none. */
int	db_int(sqlite3 *, const char *sql, int *value);
/* Remove path, path-wal and path-shm. */
void	db_unlink(const char *path);

#endif
