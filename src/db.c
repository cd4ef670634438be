/*
 * db.c: the SQLite helpers of db.h.
 */
#include <stdlib.h>
#include <unistd.h>

#include "db.h"
#include "xmalloc.h"

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
