/*
 * search-index.c: the FTS5 full-text index of search-index.h.
 *
 * Tables: doc, one row per indexed message (its body cache id as rowid,
 * where it lives, when it was sent, whether decrypted text went in);
 * fts, the FTS5 table whose rowids are doc's ids; state, how far the
 * index has read the body cache and with which index-decrypted choice.
 * fts is contentless (content=''): the text is already in the body
 * cache, so the index holds only the inverted lists. A message stored
 * again gets a new id; its old doc row goes (UNIQUE) and the old fts
 * entries stay behind unreachable until the next rebuild, which costs
 * space, not answers. A message evicted from the body cache stays
 * findable (opening it then needs the server). Called by the session
 * after a sync, by --search and the interface's search; never talks to
 * a server.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "body-cache.h"
#include "cache.h"
#include "crypto.h"
#include "db.h"
#include "frontend.h"
#include "log.h"
#include "message.h"
#include "paths.h"
#include "search-index.h"
#include "search-query.h"
#include "search-text.h"
#include "xmalloc.h"

#define SEARCH_INDEX_APP_ID	0x53544649	/* "STFI" */
/* Any change of the tables or of what goes into them: a new version,
 * and every older file is built anew. */
#define SEARCH_INDEX_VERSION	1
#define SEARCH_INDEX_BATCH	500	/* messages per transaction */

struct search_index {
	sqlite3		*db;
	char		*path;
	int		 decrypted;
	int		 broken;
	sqlite3_stmt	*doc, *fts;
};

static const char search_index_schema[] =
    "CREATE TABLE state ("
    " key TEXT PRIMARY KEY,"
    " value INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE doc ("
    " id INTEGER PRIMARY KEY,"
    " mailbox TEXT NOT NULL,"
    " uidvalidity INTEGER NOT NULL,"
    " uid INTEGER NOT NULL,"
    " sent INTEGER NOT NULL,"
    " decrypted INTEGER NOT NULL,"
    " UNIQUE (mailbox, uidvalidity, uid));"
    "CREATE INDEX doc_sent ON doc (mailbox, uidvalidity, sent);"
    "CREATE VIRTUAL TABLE fts USING fts5 (sender, rcpt, subject, body,"
    " content = '', columnsize = 0,"
    " tokenize = 'unicode61 remove_diacritics 2');"
    "INSERT INTO state VALUES ('last', 0);";

static const struct db_schema search_index_db = {
	"full-text index", SEARCH_INDEX_APP_ID, search_index_schema, NULL,
	SEARCH_INDEX_VERSION, "NORMAL", 1
};

static int
search_index_fail(struct search_index *si, const char *what, char **cause)
{
	return db_fail(si->db, "full-text index", si->path, what, &si->broken,
	    cause);
}

static int
search_index_state(struct search_index *si, const char *key, int64_t *v)
{
	sqlite3_stmt	*st;
	int		 rc;

	*v = -1;
	if (sqlite3_prepare_v2(si->db, "SELECT value FROM state WHERE key = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static int
search_index_set(struct search_index *si, const char *key, int64_t v)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(si->db, "INSERT OR REPLACE INTO state "
	    "VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, v);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static struct search_index *
search_index_try(const char *path, int decrypted, int *again, char **cause)
{
	struct search_index	*si;
	int64_t			 was;

	*again = 0;
	si = xcalloc(1, sizeof *si);
	si->path = xstrdup(path);
	si->decrypted = decrypted;
	if ((si->db = db_open(path, &search_index_db, cause)) == NULL) {
		free(si->path);
		free(si);
		return NULL;
	}
	if (search_index_state(si, "decrypted", &was) == -1) {
		search_index_fail(si, "cannot read", cause);
		search_index_close(si);
		return NULL;
	}
	if (was != -1 && was != decrypted) {
		/* built with the other choice: all of it goes */
		log_msg(LOG_INFO, "search: %s was built with "
		    "index-decrypted = %s; building it again", path,
		    was ? "yes" : "no");
		sqlite3_close(si->db);
		si->db = NULL;
		db_unlink(path);
		free(si->path);
		free(si);
		*again = 1;
		return NULL;
	}
	if ((was == -1 && search_index_set(si, "decrypted", decrypted) ==
	    -1) ||
	    sqlite3_prepare_v2(si->db, "INSERT OR REPLACE INTO doc (id, "
	    "mailbox, uidvalidity, uid, sent, decrypted) VALUES (?, ?, ?, ?, "
	    "?, ?)", -1, &si->doc, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(si->db, "INSERT INTO fts (rowid, sender, rcpt,"
	    " subject, body) VALUES (?, ?, ?, ?, ?)", -1, &si->fts, NULL) !=
	    SQLITE_OK) {
		search_index_fail(si, "cannot prepare", cause);
		search_index_close(si);
		return NULL;
	}
	return si;
}

struct search_index *
search_index_open_path(const char *path, int decrypted, char **cause)
{
	struct search_index	*si;
	int			 again;

	if ((si = search_index_try(path, decrypted, &again, cause)) == NULL &&
	    again)
		si = search_index_try(path, decrypted, &again, cause);
	return si;
}

struct search_index *
search_index_open(const char *id, int decrypted, char **cause)
{
	struct search_index	*si;
	char			*dir, *path;

	if ((dir = paths_cache_dir(cause)) == NULL)
		return NULL;
	path = xasprintf("%s/%s.search", dir, id);
	free(dir);
	si = search_index_open_path(path, decrypted, cause);
	free(path);
	return si;
}

void
search_index_close(struct search_index *si)
{
	if (si == NULL)
		return;
	sqlite3_finalize(si->doc);
	sqlite3_finalize(si->fts);
	sqlite3_close(si->db);
	if (si->broken)
		db_unlink(si->path);
	free(si->path);
	free(si);
}

struct search_index_run {
	struct search_index	*si;
	size_t			 added, batch;
	int64_t			 last;
	char			*cause;
};

/* The text of one stored message, decrypted if that is the choice. */
static void
search_index_text(struct search_index *si, const struct body_cache_entry *e,
    struct search_text *t)
{
	struct message	*m;
	char		*copy, *why = NULL;
	int		 quiet;

	search_text_raw(t, e->raw, e->len);
	if (!t->encrypted || !si->decrypted)
		return;
	copy = xmalloc(e->len + 1);
	memcpy(copy, e->raw, e->len);
	copy[e->len] = '\0';
	quiet = crypto_get_no_prompt();
	crypto_set_no_prompt(1);
	m = message_open(copy, e->len, NULL, MESSAGE_NO_TRUST, &why);
	crypto_set_no_prompt(quiet);
	free(why);
	if (m == NULL)
		return;
	search_text_free(t);
	search_text_init(t);
	search_text_opened(t, m);
	message_free(m);
}

static int
search_index_bind_text(sqlite3_stmt *st, int i, const struct buf *b)
{
	return sqlite3_bind_text(st, i, b->data != NULL ? b->data : "",
	    (int)b->len, SQLITE_STATIC);
}

static int
search_index_one(const struct body_cache_entry *e, void *arg)
{
	struct search_index_run	*r = arg;
	struct search_index	*si = r->si;
	struct search_text	 t;
	int			 ok;

	if (fe_cancelled())
		return 1;
	search_text_init(&t);
	search_index_text(si, e, &t);
	sqlite3_bind_int64(si->doc, 1, e->id);
	sqlite3_bind_text(si->doc, 2, e->mailbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(si->doc, 3, e->uidvalidity);
	sqlite3_bind_int64(si->doc, 4, e->uid);
	sqlite3_bind_int64(si->doc, 5, (sqlite3_int64)t.sent);
	sqlite3_bind_int(si->doc, 6, t.decrypted);
	sqlite3_bind_int64(si->fts, 1, e->id);
	search_index_bind_text(si->fts, 2, &t.sender);
	search_index_bind_text(si->fts, 3, &t.rcpt);
	search_index_bind_text(si->fts, 4, &t.subject);
	search_index_bind_text(si->fts, 5, &t.body);
	ok = sqlite3_step(si->doc) == SQLITE_DONE &&
	    sqlite3_step(si->fts) == SQLITE_DONE;
	sqlite3_reset(si->doc);
	sqlite3_reset(si->fts);
	sqlite3_clear_bindings(si->fts);
	search_text_free(&t);
	if (!ok) {
		search_index_fail(si, "cannot add", &r->cause);
		return -1;
	}
	r->last = e->id;
	r->added++;
	/* a batch done: it and how far it got, together */
	if (++r->batch == SEARCH_INDEX_BATCH) {
		r->batch = 0;
		if (search_index_set(si, "last", r->last) == -1 ||
		    sqlite3_exec(si->db, "COMMIT; BEGIN IMMEDIATE", NULL, NULL,
		    NULL) != SQLITE_OK) {
			search_index_fail(si, "cannot commit", &r->cause);
			return -1;
		}
	}
	return 0;
}

int
search_index_update(struct search_index *si, struct body_cache *bc,
    size_t *added, char **cause)
{
	struct search_index_run	 r;
	char			*why = NULL;
	int64_t			 top;
	int			 rc;

	*added = 0;
	memset(&r, 0, sizeof r);
	r.si = si;
	if (search_index_state(si, "last", &r.last) == -1)
		return search_index_fail(si, "cannot read", cause);
	if (body_cache_last_id(bc, &top, cause) == -1)
		return -1;
	if (sqlite3_exec(si->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return search_index_fail(si, "cannot begin", cause);
	if (top < r.last) {
		/* the body cache was made anew: its ids start again */
		log_msg(LOG_INFO, "search: the body cache is new; indexing "
		    "it all again");
		if (sqlite3_exec(si->db, "DELETE FROM doc; INSERT INTO fts "
		    "(fts) VALUES ('delete-all')", NULL, NULL, NULL) !=
		    SQLITE_OK) {
			search_index_fail(si, "cannot empty", cause);
			sqlite3_exec(si->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
		r.last = 0;
	}
	rc = body_cache_each(bc, r.last, search_index_one, &r, &why);
	if (rc == -1 && r.cause == NULL) {
		r.cause = why;
		why = NULL;
	}
	free(why);
	if (rc == -1) {
		sqlite3_exec(si->db, "ROLLBACK", NULL, NULL, NULL);
		*cause = r.cause;
		return -1;
	}
	if (search_index_set(si, "last", r.last) == -1 ||
	    sqlite3_exec(si->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		search_index_fail(si, "cannot commit", cause);
		sqlite3_exec(si->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	*added = r.added;
	if (r.added > 0)
		log_msg(LOG_INFO, "search: %zu messages indexed", r.added);
	return 0;
}

int
search_index_query(struct search_index *si, const char *mailbox,
    uint32_t uidvalidity, const struct search_query *q, size_t limit,
    uint32_t **uids, size_t *n, char **cause)
{
	sqlite3_stmt	*st;
	char		*sql;
	int		 rc, i = 1;

	*uids = NULL;
	*n = 0;
	/*
	 * Newest stored first. Ordered by fts.rowid (the same ids), FTS5
	 * walks its lists backwards and stops at the limit; ordered by
	 * doc's id, every match would be read and sorted first.
	 */
	sql = xasprintf("SELECT d.uid FROM %s d.mailbox = ? AND "
	    "d.uidvalidity = ?%s%s ORDER BY %s DESC%s",
	    q->match != NULL ? "fts JOIN doc d ON d.id = fts.rowid WHERE "
	    "fts MATCH ? AND" : "doc d WHERE",
	    q->after != 0 ? " AND d.sent >= ?" : "",
	    q->before != 0 ? " AND d.sent < ?" : "",
	    q->match != NULL ? "fts.rowid" : "d.id",
	    limit > 0 ? " LIMIT ?" : "");
	rc = sqlite3_prepare_v2(si->db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return search_index_fail(si, "cannot search", cause);
	if (q->match != NULL)
		sqlite3_bind_text(st, i++, q->match, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i++, mailbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, i++, uidvalidity);
	if (q->after != 0)
		sqlite3_bind_int64(st, i++, (sqlite3_int64)q->after);
	if (q->before != 0)
		sqlite3_bind_int64(st, i++, (sqlite3_int64)q->before);
	if (limit > 0)
		sqlite3_bind_int64(st, i++, (sqlite3_int64)limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*uids = xreallocarray(*uids, *n + 1, sizeof **uids);
		(*uids)[(*n)++] = (uint32_t)sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*uids);
		*uids = NULL;
		*n = 0;
		return search_index_fail(si, "cannot search", cause);
	}
	return 0;
}

static int
search_index_uid_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int
search_index_find(struct search_index *si, struct body_cache *bc,
    struct cache *c, const char *folder, const char *query, uint32_t **uids,
    size_t *n, char **cause)
{
	struct search_query	 q;
	struct cache_mailbox	 mb;
	size_t			 added;
	int			 rc;

	*uids = NULL;
	*n = 0;
	if (search_query_parse(query, &q, cause) == -1)
		return -1;
	if (bc != NULL && search_index_update(si, bc, &added, cause) == -1) {
		search_query_free(&q);
		return -1;
	}
	if ((rc = cache_mailbox_peek(c, folder, &mb, cause)) != 1) {
		search_query_free(&q);
		if (rc == 0)
			*cause = xasprintf("%s is not in the header cache "
			    "(--sync it first)", folder);
		return -1;
	}
	rc = search_index_query(si, folder, mb.uidvalidity, &q, 0, uids, n,
	    cause);
	search_query_free(&q);
	if (rc == 0 && *n > 1)
		qsort(*uids, *n, sizeof **uids, search_index_uid_cmp);
	return rc;
}

int
search_index_stats(struct search_index *si, uint64_t *docs,
    uint64_t *decrypted, char **cause)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(si->db, "SELECT count(*), "
	    "coalesce(sum(decrypted), 0) FROM doc", -1, &st, NULL) !=
	    SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return search_index_fail(si, "cannot count", cause);
	}
	*docs = (uint64_t)sqlite3_column_int64(st, 0);
	*decrypted = (uint64_t)sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}
