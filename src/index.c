/*
 * index.c: the paged, sorted, searchable message list of index.h, read
 * from the header cache page by page.
 *
 * Nothing here holds a row per message. A view (sort, direction, search,
 * a server's UIDs, collapsed threads) is a query on the cache: the rows
 * it matches, in the order of one of the cache's indexes (schema 6: the
 * sort keys edate, fkey and skey of each message, with the protected
 * values where there are some; the stored thread order for the thread
 * sort). Its count is read once per view; a page is the few keys of its
 * rows, read from the nearest known place (the start, the end, or the
 * last page read: paging on costs only the rows skipped), then each
 * row, then one trust_store_states() call for the page. The search
 * expression is turned into SQL with its words bound, never spliced.
 *
 * The stored thread order (table thread) is brought up to date by
 * thread-store.c with the messages that came or went: index_prepare(),
 * or the first thread page of an index that may write. Nothing here
 * prints.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "buf.h"
#include "index.h"
#include "thread.h"
#include "thread-store.h"
#include "xmalloc.h"

#define INDEX_TERMS	32		/* terms in a search, at most */
#define INDEX_THREAD_STEPS 2		/* index_thread_some(): transactions */
#define INDEX_KEYS	4		/* columns of a sort key, at most */

struct index {
	struct cache		*c;
	sqlite3			*db;
	char			*folder;
	struct cache_mailbox	 mb;
	int			 have_mb;
	int			 readonly;	/* never make the thread order */
	int			 uidtab;	/* the temp table is made */
	unsigned		 id;		/* names the temp table */

	size_t			 total;
	int			 have_total;

	/* The view. */
	int			 have_view;
	enum index_sort		 sort;
	int			 reverse;
	char			*limit;
	const uint32_t		*uids;		/* the caller's */
	size_t			 nuids;
	char			*where;		/* SQL: the view's rows */
	char			**words;	/* its bound words, in order */
	size_t			 nwords;
	int			 filtered;	/* it has search terms */
	int			 fast;		/* this term (~f) is read
						   through temp.ixf<id>: -1
						   none */
	int			 fast_full;	/* ... and every sender its
						   keys have matches it */
	int			 fast_stale;	/* the cache changed since
						   the senders were looked up */
	size_t			 count;
	int			 have_count;

	/* Collapsed threads: every thread (all) but those in exc, or
	 * only those in exc. */
	int			 all;
	uint32_t		*exc;
	size_t			 nexc;

	/* The first row of the last page read: its place and key. */
	int			 have_anchor;
	size_t			 anchor;
	sqlite3_value		*akey[INDEX_KEYS];
};

/* A search term (doc/index.md). */
struct index_term {
	int		 what;		/* 'f', 's', 't', 'N', 'F', 'D', 'w' */
	int		 not;
	char		*word;
};

/* The values a row shows: the protected one where there is one. */
#define IX_NAME	"(CASE WHEN p.from_addr IS NOT NULL THEN p.sender" \
		" ELSE m.sender END)"
#define IX_ADDR	"coalesce(p.from_addr, m.from_addr)"
#define IX_RCPT	"coalesce(p.rcpt, m.rcpt)"
#define IX_SUBJ	"(CASE WHEN p.subject IS NOT NULL THEN p.subject" \
		" WHEN p.how IS NULL AND (m.hints & 4) != 0 AND" \
		" (m.subject IS NULL OR ltrim(m.subject, ' ' || char(9))" \
		" IN ('', '...', '[...]')) THEN NULL ELSE m.subject END)"
#define IX_LIKE(x) "coalesce(" x " LIKE ? ESCAPE '\\', 0)"

static unsigned	index_ids;

/* The sort key's columns of a view, in its order (ascending). */
static const char *const index_keys[][INDEX_KEYS] = {
	{ "m.uid", NULL, NULL, NULL },			/* arrival */
	{ "m.edate", "m.uid", NULL, NULL },		/* date */
	{ "m.fkey", "m.edate", "m.uid", NULL },		/* from */
	{ "m.skey", "m.edate", "m.uid", NULL },		/* subject */
	{ "m.size", "m.edate", "m.uid", NULL },		/* size */
	{ "t.tdate", "t.tuid", "t.tpos", "t.uid" },	/* thread */
};

static size_t
index_nkeys(const struct index *ix)
{
	size_t	n = 0;

	while (n < INDEX_KEYS && index_keys[ix->sort][n] != NULL)
		n++;
	return n;
}

/*
 * Key i of the view. The thread sort reversed shows the newest thread
 * first, each thread still top down: its keys descending, the place in
 * the thread by rpos (-tpos).
 */
static const char *
index_key(const struct index *ix, size_t i)
{
	if (ix->sort == INDEX_SORT_THREAD && ix->reverse && i == 2)
		return "t.rpos";
	return index_keys[ix->sort][i];
}

/* Is the view's order the keys' descending one? */
static int
index_desc(const struct index *ix)
{
	return ix->reverse;
}

static void
index_anchor_drop(struct index *ix)
{
	size_t	i;

	for (i = 0; i < INDEX_KEYS; i++) {
		sqlite3_value_free(ix->akey[i]);
		ix->akey[i] = NULL;
	}
	ix->have_anchor = 0;
}

static int
index_fail(struct index *ix, const char *what, char **cause)
{
	*cause = xasprintf("index: %s: %s", what, sqlite3_errmsg(ix->db));
	return -1;
}

static int
index_find_mailbox(struct index *ix, char **cause)
{
	int	rc;

	if (ix->have_mb)
		return 0;
	if ((rc = cache_mailbox_peek(ix->c, ix->folder, &ix->mb, cause)) == -1)
		return -1;
	ix->have_mb = rc == 1;
	return 0;
}

struct index *
index_open(struct cache *c, const char *folder, char **cause)
{
	struct index	*ix;

	ix = xcalloc(1, sizeof *ix);
	ix->c = c;
	ix->db = cache_sqlite(c);
	ix->folder = xstrdup(folder);
	ix->id = ++index_ids;
	ix->fast = -1;
	if (index_find_mailbox(ix, cause) == -1) {
		index_close(ix);
		return NULL;
	}
	return ix;
}

void
index_readonly(struct index *ix)
{
	ix->readonly = 1;
}

static void
index_view_drop(struct index *ix)
{
	size_t	i;

	for (i = 0; i < ix->nwords; i++)
		free(ix->words[i]);
	free(ix->words);
	ix->words = NULL;
	ix->nwords = 0;
	free(ix->where);
	ix->where = NULL;
	free(ix->limit);
	ix->limit = NULL;
	ix->have_view = 0;
	ix->have_count = 0;
	index_anchor_drop(ix);
}

void
index_close(struct index *ix)
{
	char	*sql;

	if (ix == NULL)
		return;
	index_view_drop(ix);
	if (ix->uidtab) {
		sql = xasprintf("DROP TABLE IF EXISTS temp.ixuids%u", ix->id);
		sqlite3_exec(ix->db, sql, NULL, NULL, NULL);
		free(sql);
	}
	sql = xasprintf("DROP TABLE IF EXISTS temp.ixf%u", ix->id);
	sqlite3_exec(ix->db, sql, NULL, NULL, NULL);
	free(sql);
	free(ix->exc);
	free(ix->folder);
	free(ix);
}

void
index_refresh(struct index *ix)
{
	ix->have_total = 0;
	ix->have_count = 0;
	ix->have_mb = 0;
	ix->fast_stale = ix->fast >= 0 || ix->filtered;
	index_anchor_drop(ix);
}

/* One integer from sql bound with the view's mailbox and words. */
static int
index_step_int(struct index *ix, sqlite3_stmt *st, int64_t *out,
    char **cause)
{
	int	rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return index_fail(ix, "count", cause);
	return 0;
}

size_t
index_total(struct index *ix)
{
	sqlite3_stmt	*st;
	int64_t		 n = 0;
	char		*cause = NULL;

	if (ix->have_total)
		return ix->total;
	if (index_find_mailbox(ix, &cause) == -1 || !ix->have_mb) {
		free(cause);
		return 0;
	}
	/* kept by the cache's triggers (schema 8) */
	if (sqlite3_prepare_v2(ix->db, "SELECT nmsg FROM mailbox WHERE"
	    " id = ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, ix->mb.id);
	if (index_step_int(ix, st, &n, &cause) == -1) {
		free(cause);
		return 0;
	}
	ix->total = (size_t)n;
	ix->have_total = 1;
	return ix->total;
}

/* Searching. */

static void
index_terms_free(struct index_term *t, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(t[i].word);
}

/* A word at *p: up to a space, or "quoted" (with \" and \\). */
static char *
index_word(const char **p)
{
	const char	*s = *p;
	char		*w, *o;

	w = o = xmalloc(strlen(s) + 1);
	if (*s == '"') {
		for (s++; *s != '\0' && *s != '"'; s++) {
			if (*s == '\\' && s[1] != '\0')
				s++;
			*o++ = *s;
		}
		if (*s == '"')
			s++;
	} else {
		while (*s != '\0' && *s != ' ' && *s != '\t')
			*o++ = *s++;
	}
	*o = '\0';
	*p = s;
	return w;
}

static int
index_parse(const char *expr, struct index_term *t, size_t *n, char **cause)
{
	const char	*p = expr;
	int		 c;

	*n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			return 0;
		if (*n == INDEX_TERMS) {
			*cause = xasprintf("search: more than %d terms",
			    INDEX_TERMS);
			return -1;
		}
		memset(&t[*n], 0, sizeof t[*n]);
		if (*p == '!') {
			t[*n].not = 1;
			p++;
		}
		if (*p != '~') {
			t[*n].what = 'w';
			if ((t[(*n)++].word = index_word(&p))[0] == '\0') {
				*cause = xstrdup("search: a term is empty");
				return -1;
			}
			continue;
		}
		c = (unsigned char)p[1];
		switch (c) {
		case 'N':
		case 'F':
		case 'D':
			t[(*n)++].what = c;
			p += 2;
			break;
		case 'f':
		case 's':
		case 't':
			t[*n].what = c;
			p += 2;
			while (*p == ' ' || *p == '\t')
				p++;
			if ((t[(*n)++].word = index_word(&p))[0] == '\0') {
				*cause = xasprintf("search: ~%c needs a word",
				    c);
				return -1;
			}
			break;
		default:
			*cause = isprint(c) ? xasprintf("search: unknown "
			    "pattern ~%c", c) : xstrdup("search: ~ needs a "
			    "letter");
			return -1;
		}
		if (*p != '\0' && *p != ' ' && *p != '\t') {
			*cause = xasprintf("search: ~%c takes no word", c);
			return -1;
		}
	}
}

/* "%word%" for LIKE, its own % _ and \ taken as they are. */
static char *
index_like(const char *w)
{
	char	*p, *o;

	p = o = xmalloc(2 * strlen(w) + 3);
	*o++ = '%';
	for (; *w != '\0'; w++) {
		if (*w == '%' || *w == '_' || *w == '\\')
			*o++ = '\\';
		*o++ = *w;
	}
	*o++ = '%';
	*o = '\0';
	return p;
}

/*
 * The terms as SQL into b, their words appended to *words. Term fast
 * (-1: none) is a sender's whose keys the view reads from temp.ixf<id>
 * (f): its rows hold when the key's every sender matches (f.full), and
 * with full it holds for every row read, so it is left out.
 */
static void
index_terms_sql(const struct index_term *t, size_t n, int fast, int full,
    struct buf *b, char ***words, size_t *nwords)
{
	size_t		 i, k, uses;
	const char	*sql;

	for (i = 0; i < n; i++) {
		if ((int)i == fast && full)
			continue;
		switch (t[i].what) {
		case 'f':
			sql = "(" IX_LIKE(IX_NAME) " OR " IX_LIKE(IX_ADDR) ")";
			uses = 2;
			break;
		case 's':
			sql = IX_LIKE(IX_SUBJ);
			uses = 1;
			break;
		case 't':
			sql = IX_LIKE(IX_RCPT);
			uses = 1;
			break;
		case 'N':
			sql = "instr(m.flags, 'S') = 0";
			uses = 0;
			break;
		case 'F':
			sql = "instr(m.flags, 'F') > 0";
			uses = 0;
			break;
		case 'D':
			sql = "instr(m.flags, 'T') > 0";
			uses = 0;
			break;
		default:
			sql = "(" IX_LIKE(IX_NAME) " OR " IX_LIKE(IX_ADDR)
			    " OR " IX_LIKE(IX_SUBJ) ")";
			uses = 3;
			break;
		}
		if ((int)i == fast)
			buf_addf(b, " AND (f.full OR %s)", sql);
		else
			buf_addf(b, " AND %s%s", t[i].not ? "NOT " : "", sql);
		for (k = 0; k < uses; k++) {
			*words = xreallocarray(*words, *nwords + 1,
			    sizeof **words);
			(*words)[(*nwords)++] = index_like(t[i].word);
		}
	}
}

/*
 * The FROM of a view's queries: what a search reads (the protected
 * values) only when there is one, so that counting and skipping rows
 * read the sort's index alone.
 */
static const char *
index_from(const struct index *ix, int search)
{
	if (ix->sort == INDEX_SORT_THREAD && !search)
		return " FROM thread t WHERE t.mailbox = ?1";
	if (ix->sort == INDEX_SORT_THREAD)
		return " FROM thread t JOIN message m ON m.mailbox ="
		    " t.mailbox AND m.uid = t.uid LEFT JOIN protected p ON"
		    " p.mailbox = m.mailbox AND p.uid = m.uid WHERE"
		    " t.mailbox = ?1";
	if (!search)
		return " FROM message m WHERE m.mailbox = ?1";
	return " FROM message m LEFT JOIN protected p ON p.mailbox ="
	    " m.mailbox AND p.uid = m.uid WHERE m.mailbox = ?1";
}

/* The server's UIDs into this index's temp table. */
static int
index_uids_load(struct index *ix, char **cause)
{
	sqlite3_stmt	*st;
	char		*sql;
	size_t		 i;
	int		 rc;

	sql = xasprintf("CREATE TEMP TABLE IF NOT EXISTS ixuids%u (uid"
	    " INTEGER PRIMARY KEY); DELETE FROM temp.ixuids%u", ix->id,
	    ix->id);
	rc = sqlite3_exec(ix->db, sql, NULL, NULL, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return index_fail(ix, "uids", cause);
	ix->uidtab = 1;
	sql = xasprintf("INSERT OR IGNORE INTO temp.ixuids%u VALUES (?)",
	    ix->id);
	rc = sqlite3_prepare_v2(ix->db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return index_fail(ix, "uids", cause);
	for (i = 0; i < ix->nuids; i++) {
		sqlite3_bind_int64(st, 1, ix->uids[i]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return index_fail(ix, "uids", cause);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return 0;
}

/* The collapsed threads' condition into b. */
static void
index_collapse_sql(const struct index *ix, struct buf *b)
{
	size_t	i;

	if (ix->sort != INDEX_SORT_THREAD || (!ix->all && ix->nexc == 0))
		return;
	if (ix->all && ix->nexc == 0) {
		buf_adds(b, " AND t.depth = 0");
		return;
	}
	buf_addf(b, " AND (t.depth = 0 OR t.tuid %sIN (", ix->all ? "" :
	    "NOT ");
	for (i = 0; i < ix->nexc; i++)
		buf_addf(b, "%s%u", i ? ", " : "", ix->exc[i]);
	buf_adds(b, "))");
}

/* Is thread collapsed? */
static int
index_collapsed(const struct index *ix, uint32_t thread)
{
	size_t	i;

	for (i = 0; i < ix->nexc; i++)
		if (ix->exc[i] == thread)
			return !ix->all;
	return ix->all;
}

static int
index_same_view(const struct index *ix, const struct index_view *v)
{
	if (!ix->have_view || ix->sort != v->sort ||
	    ix->reverse != (v->reverse != 0))
		return 0;
	if (ix->uids != v->uids || ix->nuids != v->nuids)
		return 0;
	if (ix->limit == NULL || v->limit == NULL)
		return ix->limit == NULL && v->limit == NULL;
	return strcmp(ix->limit, v->limit) == 0;
}

/* The view's FROM and WHERE from its parts; with joins, what a search
 * reads whether the view has terms or not. */
static char *
index_where_sql(struct index *ix, const struct index_term *t, size_t nt,
    int joins, char ***words, size_t *nwords)
{
	struct buf	b;
	int		search = joins || nt > (ix->fast >= 0 && ix->fast_full);

	buf_init(&b);
	if (ix->fast >= 0)
		/* the matching senders' keys first, then their messages
		   through the sender's index: never a walk of the folder */
		buf_addf(&b, " FROM temp.ixf%u f CROSS JOIN message m INDEXED"
		    " BY message_from%s WHERE m.mailbox = ?1 AND m.fkey ="
		    " f.fkey", ix->id, search ? " LEFT JOIN protected p ON"
		    " p.mailbox = m.mailbox AND p.uid = m.uid" : "");
	else
		buf_adds(&b, index_from(ix, search));
	index_terms_sql(t, nt, ix->fast, ix->fast_full, &b, words, nwords);
	if (ix->uids != NULL)
		buf_addf(&b, " AND %s.uid IN (SELECT uid FROM temp.ixuids%u)",
		    ix->sort == INDEX_SORT_THREAD ? "t" : "m", ix->id);
	index_collapse_sql(ix, &b);
	return buf_take(&b);
}

static void
index_words_free(char **words, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(words[i]);
	free(words);
}

/*
 * A limit by sender (the first ~f term, not negated) in a folder of many
 * messages: the sort keys of the senders seen whose name or address
 * holds its word, into temp.ixf<id>, each with whether all its senders
 * do. The view reads their messages through the sender's index when
 * they are at most a quarter of the folder; else it walks its sort as
 * any other limit (sooner at a page of a common word). Nothing to do
 * for the thread sort, which walks the stored thread order.
 */
#define INDEX_FAST_MIN	2000		/* messages, below which a walk */
static int
index_fast(struct index *ix, const struct index_term *t, size_t nt,
    char **cause)
{
	sqlite3_stmt	*st;
	char		*sql, *like;
	size_t		 i, total;
	int64_t		 n, full;
	int		 rc;

	ix->fast = -1;
	ix->fast_full = 0;
	ix->fast_stale = 0;
	if (ix->sort == INDEX_SORT_THREAD || !ix->have_mb)
		return 0;
	for (i = 0; i < nt && (t[i].what != 'f' || t[i].not); i++)
		;
	total = index_total(ix);
	if (i == nt || total < INDEX_FAST_MIN)
		return 0;
	/* a first sync going down makes the sender's index at its end
	   (cache.h): until then, a walk */
	if (sqlite3_prepare_v2(ix->db, "SELECT 1 FROM sqlite_master WHERE"
	    " type = 'index' AND name = 'message_from'", -1, &st,
	    NULL) != SQLITE_OK)
		return index_fail(ix, "senders", cause);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return index_fail(ix, "senders", cause);
	sql = xasprintf("CREATE TEMP TABLE IF NOT EXISTS ixf%u (fkey TEXT"
	    " PRIMARY KEY, full INTEGER) WITHOUT ROWID; DELETE FROM"
	    " temp.ixf%u", ix->id, ix->id);
	rc = sqlite3_exec(ix->db, sql, NULL, NULL, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return index_fail(ix, "senders", cause);
	sql = xasprintf("INSERT INTO temp.ixf%u SELECT fkey, min(hit) FROM"
	    " (SELECT fkey, name LIKE ?2 ESCAPE '\\' OR addr LIKE ?2"
	    " ESCAPE '\\' AS hit FROM sender_seen WHERE mailbox = ?1) GROUP"
	    " BY fkey HAVING max(hit) = 1", ix->id);
	rc = sqlite3_prepare_v2(ix->db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return index_fail(ix, "senders", cause);
	like = index_like(t[i].word);
	sqlite3_bind_int64(st, 1, ix->mb.id);
	sqlite3_bind_text(st, 2, like, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	free(like);
	if (rc != SQLITE_DONE)
		return index_fail(ix, "senders", cause);
	/* their messages, counted up to a quarter of the folder (the
	   sender's index alone), and whether every sender matched */
	sql = xasprintf("SELECT (SELECT count(*) FROM (SELECT 1 FROM"
	    " temp.ixf%u f CROSS JOIN message m INDEXED BY message_from"
	    " WHERE m.mailbox = ?1 AND m.fkey = f.fkey LIMIT ?2)),"
	    " (SELECT coalesce(min(full), 1) FROM temp.ixf%u)", ix->id,
	    ix->id);
	rc = sqlite3_prepare_v2(ix->db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return index_fail(ix, "senders", cause);
	sqlite3_bind_int64(st, 1, ix->mb.id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)(total / 4 + 1));
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = sqlite3_column_int64(st, 0);
		full = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return index_fail(ix, "senders", cause);
	if ((size_t)n <= total / 4) {
		ix->fast = (int)i;
		ix->fast_full = full != 0;
	}
	return 0;
}

static int
index_where(struct index *ix, const struct index_term *t, size_t nt,
    char **cause)
{
	if (index_fast(ix, t, nt, cause) == -1)
		return -1;
	index_words_free(ix->words, ix->nwords);
	ix->words = NULL;
	ix->nwords = 0;
	free(ix->where);
	ix->where = index_where_sql(ix, t, nt, 0, &ix->words, &ix->nwords);
	ix->filtered = nt > 0;
	ix->have_count = 0;
	index_anchor_drop(ix);
	return 0;
}

/* The view's terms again, from its limit. */
static int
index_view_terms(struct index *ix, struct index_term *t, size_t *nt,
    char **cause)
{
	*nt = 0;
	memset(t, 0, INDEX_TERMS * sizeof *t);
	if (ix->limit == NULL || ix->limit[strspn(ix->limit, " \t")] == '\0')
		return 0;
	if (index_parse(ix->limit, t, nt, cause) == -1) {
		index_terms_free(t, *nt);
		return -1;
	}
	return 0;
}

static int	index_thread_update(struct index *, char **);

static int
index_view(struct index *ix, const struct index_view *v, char **cause)
{
	struct index_term	 t[INDEX_TERMS];
	size_t			 nt = 0;
	int			 all;

	if (index_find_mailbox(ix, cause) == -1)
		return -1;
	if (ix->sort == INDEX_SORT_THREAD && v->sort == INDEX_SORT_THREAD &&
	    !ix->readonly && !ix->have_count &&
	    index_thread_update(ix, cause) == -1)
		return -1;
	if (index_same_view(ix, v) && ix->fast_stale) {
		/* senders came or went: look them up again */
		if (index_view_terms(ix, t, &nt, cause) == -1 ||
		    index_where(ix, t, nt, cause) == -1) {
			index_terms_free(t, nt);
			return -1;
		}
		index_terms_free(t, nt);
		return 0;
	}
	if (index_same_view(ix, v))
		return 0;
	if ((unsigned)v->sort > INDEX_SORT_THREAD) {
		*cause = xstrdup("index: no such sort");
		return -1;
	}
	all = v->limit == NULL || v->limit[strspn(v->limit, " \t")] == '\0';
	if (!all && index_parse(v->limit, t, &nt, cause) == -1) {
		index_terms_free(t, nt);
		return -1;
	}
	index_view_drop(ix);
	/* a new view shows every thread again */
	ix->all = 0;
	free(ix->exc);
	ix->exc = NULL;
	ix->nexc = 0;
	ix->limit = v->limit != NULL ? xstrdup(v->limit) : NULL;
	ix->sort = v->sort;
	ix->reverse = v->reverse != 0;
	ix->uids = v->uids;
	ix->nuids = v->nuids;
	if (ix->uids != NULL && index_uids_load(ix, cause) == -1) {
		index_terms_free(t, nt);
		return -1;
	}
	if (ix->sort == INDEX_SORT_THREAD && !ix->readonly &&
	    index_thread_update(ix, cause) == -1) {
		index_terms_free(t, nt);
		return -1;
	}
	if (index_where(ix, t, nt, cause) == -1) {
		index_terms_free(t, nt);
		return -1;
	}
	index_terms_free(t, nt);
	ix->have_view = 1;
	return 0;
}

/* Prepare "SELECT what <where> tail" and bind the mailbox and words;
 * the next parameter's number into *next. */
static int
index_prepare_sql(struct index *ix, const char *what, const char *extra,
    const char *tail, sqlite3_stmt **st, int *next, char **cause)
{
	char	*sql;
	size_t	 i;
	int	 rc;

	sql = xasprintf("SELECT %s%s%s%s", what, ix->where, extra != NULL ?
	    extra : "", tail != NULL ? tail : "");
	rc = sqlite3_prepare_v2(ix->db, sql, -1, st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return index_fail(ix, "query", cause);
	sqlite3_bind_int64(*st, 1, ix->have_mb ? ix->mb.id : -1);
	for (i = 0; i < ix->nwords; i++)
		sqlite3_bind_text(*st, (int)i + 2, ix->words[i], -1,
		    SQLITE_STATIC);
	*next = (int)ix->nwords + 2;
	return 0;
}

int
index_prepare(struct index *ix, enum index_sort sort, int reverse,
    char **cause)
{
	struct index_view	v;
	size_t			n;

	memset(&v, 0, sizeof v);
	v.sort = sort;
	v.reverse = reverse;
	if (index_find_mailbox(ix, cause) == -1)
		return -1;
	if (sort == INDEX_SORT_THREAD && index_thread_update(ix, cause) == -1)
		return -1;
	return index_count(ix, &v, &n, cause);
}

/* The count of the view made last, read if it is not known. */
static int
index_count_now(struct index *ix, char **cause)
{
	sqlite3_stmt	*st;
	int64_t		 n;
	int		 next;

	if (!ix->have_count) {
		if (!ix->have_mb)
			n = 0;
		else if (ix->sort != INDEX_SORT_THREAD && !ix->filtered &&
		    ix->uids == NULL)
			n = (int64_t)index_total(ix);	/* every message */
		else if (ix->sort == INDEX_SORT_THREAD && !ix->filtered &&
		    ix->uids == NULL && !ix->all && ix->nexc == 0) {
			/* every message threaded: the rows counted */
			if (sqlite3_prepare_v2(ix->db, "SELECT tcount FROM"
			    " mailbox WHERE id = ?", -1, &st,
			    NULL) != SQLITE_OK)
				return index_fail(ix, "count", cause);
			sqlite3_bind_int64(st, 1, ix->mb.id);
			if (index_step_int(ix, st, &n, cause) == -1)
				return -1;
		} else if (index_prepare_sql(ix, "count(*)", NULL, NULL, &st,
		    &next, cause) == -1 || index_step_int(ix, st, &n,
		    cause) == -1)
			return -1;
		ix->count = (size_t)n;
		ix->have_count = 1;
	}
	return 0;
}

int
index_count(struct index *ix, const struct index_view *v, size_t *count,
    char **cause)
{
	if (index_view(ix, v, cause) == -1 || index_count_now(ix, cause) == -1)
		return -1;
	*count = ix->count;
	return 0;
}

/* Keys and uids. */

/* "k1, k2" with ASC or DESC (dir: the view's order, or against it). */
static void
index_order_sql(const struct index *ix, int against, struct buf *b)
{
	size_t	i, n = index_nkeys(ix);
	int	desc = index_desc(ix) != against;

	buf_adds(b, " ORDER BY ");
	for (i = 0; i < n; i++)
		buf_addf(b, "%s%s%s", i ? ", " : "", index_key(ix, i),
		    desc ? " DESC" : "");
}

/* " AND (k1, k2) OP (?a, ?b)" from parameter next on. */
static void
index_cmp_sql(const struct index *ix, const char *op, int next, struct buf *b)
{
	size_t	i, n = index_nkeys(ix);

	buf_adds(b, " AND (");
	for (i = 0; i < n; i++)
		buf_addf(b, "%s%s", i ? ", " : "", index_key(ix, i));
	buf_addf(b, ") %s (", op);
	for (i = 0; i < n; i++)
		buf_addf(b, "%s?%d", i ? ", " : "", next + (int)i);
	buf_adds(b, ")");
}

/* The comparison "after key in the view's order" (or before). */
static const char *
index_op(const struct index *ix, int after, int inclusive)
{
	int	gt = after != index_desc(ix);

	if (gt)
		return inclusive ? ">=" : ">";
	return inclusive ? "<=" : "<";
}

/* The columns a page's query reads: uid, the thread's, then the key. */
static char *
index_what(const struct index *ix)
{
	struct buf	b;
	size_t		i, n = index_nkeys(ix);

	buf_init(&b);
	buf_adds(&b, ix->sort == INDEX_SORT_THREAD ? "t.uid, t.depth,"
	    " t.tuid, t.flags, t.tsize" : "m.uid, 0, 0, 0, 0");
	for (i = 0; i < n; i++)
		buf_addf(&b, ", %s", index_key(ix, i));
	return buf_take(&b);
}

struct index_pos {
	uint32_t	 uid;
	uint32_t	 depth, thread, tsize;
	unsigned	 flags;
};

/*
 * Up to limit rows of the view from key (NULL: from the start), after
 * it (or before: against the order), skipping skip: their uids into
 * pos, the first row's key into akey (when it is not NULL).
 */
static int
index_walk(struct index *ix, sqlite3_value **key, int after, int inclusive,
    size_t skip, size_t limit, struct index_pos *pos, size_t *n,
    sqlite3_value **akey, char **cause)
{
	sqlite3_stmt	*st;
	struct buf	 b;
	char		*what, *extra, *tail;
	size_t		 i, nk = index_nkeys(ix);
	int		 next, rc;

	*n = 0;
	buf_init(&b);
	if (key != NULL)
		index_cmp_sql(ix, index_op(ix, after, inclusive),
		    (int)ix->nwords + 2, &b);
	extra = buf_take(&b);
	buf_init(&b);
	index_order_sql(ix, !after, &b);
	buf_addf(&b, " LIMIT %zu OFFSET %zu", limit, skip);
	tail = buf_take(&b);
	what = index_what(ix);
	rc = index_prepare_sql(ix, what, extra, tail, &st, &next, cause);
	free(what);
	free(extra);
	free(tail);
	if (rc == -1)
		return -1;
	for (i = 0; key != NULL && i < nk; i++)
		sqlite3_bind_value(st, next + (int)i, key[i]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (pos != NULL) {
			pos[*n].uid = (uint32_t)sqlite3_column_int64(st, 0);
			pos[*n].depth = (uint32_t)sqlite3_column_int64(st, 1);
			pos[*n].thread = (uint32_t)sqlite3_column_int64(st, 2);
			pos[*n].flags = (unsigned)sqlite3_column_int64(st, 3);
			pos[*n].tsize = (uint32_t)sqlite3_column_int64(st, 4);
		}
		if (*n == 0 && akey != NULL)
			for (i = 0; i < nk; i++)
				akey[i] = sqlite3_value_dup(
				    sqlite3_column_value(st, 5 + (int)i));
		(*n)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return index_fail(ix, "page", cause);
	return 0;
}

static void
index_key_free(sqlite3_value **k)
{
	size_t	i;

	for (i = 0; i < INDEX_KEYS; i++) {
		sqlite3_value_free(k[i]);
		k[i] = NULL;
	}
}

/*
 * The key of row offset of the view into key, read from the nearest
 * known place: the start, the end or the last page's first row.
 */
static int
index_seek(struct index *ix, size_t offset, sqlite3_value **key, char **cause)
{
	size_t	 n, from_start = offset, from_end = ix->count - 1 - offset;
	size_t	 from_anchor = SIZE_MAX;
	int	 rc;

	if (ix->have_anchor)
		from_anchor = offset > ix->anchor ? offset - ix->anchor :
		    ix->anchor - offset;
	if (from_anchor <= from_start && from_anchor <= from_end) {
		if (offset >= ix->anchor)
			rc = index_walk(ix, ix->akey, 1, 1, offset -
			    ix->anchor, 1, NULL, &n, key, cause);
		else
			rc = index_walk(ix, ix->akey, 0, 0, ix->anchor -
			    offset - 1, 1, NULL, &n, key, cause);
	} else if (from_start <= from_end)
		rc = index_walk(ix, NULL, 1, 0, from_start, 1, NULL, &n, key,
		    cause);
	else
		rc = index_walk(ix, NULL, 0, 0, from_end, 1, NULL, &n, key,
		    cause);
	if (rc == 0 && n == 0) {
		index_key_free(key);
		*cause = xstrdup("index: the view changed under its count");
		return -1;
	}
	return rc;
}

/* Rows. */

struct index_fill {
	struct index_row	*r;
	struct buf		*strs;		/* the strings, packed */
};

/* s into the packed strings; its offset + 1 as a pointer (0: NULL). */
static const char *
index_str(struct buf *b, const char *s)
{
	size_t	off;

	if (s == NULL)
		return NULL;
	off = b->len;
	buf_add(b, s, strlen(s) + 1);
	return (const char *)(uintptr_t)(off + 1);
}

static int
index_fill_one(const struct cache_msg *cm, void *arg)
{
	struct index_fill		*f = arg;
	struct index_row		*r = f->r;
	const struct cache_protected	*p = cm->prot;
	const char			*from, *addr, *subject, *mid, *rcpt;
	time_t				 sent;

	r->uid = cm->uid;
	memcpy(r->flags, cm->flags, sizeof r->flags);
	r->flags[sizeof r->flags - 1] = '\0';
	r->arrival = cm->internaldate;
	r->size = cm->size;
	r->hints = cm->hints;
	r->stale = cm->stale;
	from = cm->from;
	addr = cm->from_addr;
	subject = cm->subject;
	mid = cm->message_id;
	rcpt = cm->rcpt;
	sent = cm->sent;
	if (p != NULL && p->from_addr != NULL) {
		from = p->from;
		addr = p->from_addr;
		r->prot |= INDEX_PROT_FROM;
	}
	if (p != NULL && p->subject != NULL) {
		subject = p->subject;
		r->prot |= INDEX_PROT_SUBJECT;
	}
	if (p != NULL && p->rcpt != NULL) {
		rcpt = p->rcpt;
		r->prot |= INDEX_PROT_RCPT;
	}
	if (p != NULL && p->sent != 0) {
		sent = p->sent;
		r->prot |= INDEX_PROT_DATE;
	}
	if (p != NULL && (p->message_id != NULL || p->in_reply_to != NULL ||
	    p->references != NULL)) {
		if (p->message_id != NULL)
			mid = p->message_id;
		r->prot |= INDEX_PROT_THREAD;
	}
	r->sealed = p == NULL && (cm->hints & CACHE_HINT_ENCRYPTED) &&
	    cache_placeholder(cm->subject);
	if (r->sealed)
		subject = NULL;
	r->date = sent != 0 ? sent : cm->internaldate;
	r->from_addr = index_str(f->strs, addr);
	/* the cache keeps the address as the name when there is none */
	if (from != NULL && *from != '\0' && (addr == NULL ||
	    strcmp(from, addr) != 0))
		r->from_name = index_str(f->strs, from);
	r->rcpt = index_str(f->strs, rcpt);
	r->subject = index_str(f->strs, subject);
	r->message_id = index_str(f->strs, mid);
	r->outer_message_id = index_str(f->strs, cm->message_id);
	return 0;
}

/* A packed string's pointer: base + offset. */
static const char *
index_unpack(const char *base, const char *s)
{
	if (s == NULL)
		return NULL;
	return base + ((uintptr_t)s - 1);
}

/*
 * The rows of pos into one allocation, the strings after them, so that
 * a page is freed with one free().
 */
static int
index_rows(struct index *ix, const struct index_pos *pos, size_t n,
    size_t offset, struct index_row **rows, char **cause)
{
	struct index_row	*tmp, *out;
	struct index_fill	 f;
	struct buf		 strs;
	char			*base;
	size_t			 i, k;

	tmp = xcalloc(n, sizeof *tmp);
	buf_init(&strs);
	for (i = 0; i < n; i++) {
		f.r = &tmp[i];
		f.strs = &strs;
		tmp[i].place = offset + i;
		tmp[i].trust = TRUST_NONE;
		tmp[i].uid = pos[i].uid;	/* gone since the thread order
						   was made: nothing more */
		if (cache_each_uid(ix->c, &ix->mb, pos[i].uid, index_fill_one,
		    &f, cause) == -1) {
			free(tmp);
			buf_free(&strs);
			return -1;
		}
		if (ix->sort == INDEX_SORT_THREAD) {
			tmp[i].depth = pos[i].depth;
			tmp[i].thread = pos[i].thread;
			tmp[i].tflags = ((pos[i].flags & THREAD_ORPHAN) ?
			    INDEX_ROW_ORPHAN : 0) | ((pos[i].flags &
			    THREAD_LAST) ? INDEX_ROW_LAST : 0);
			if (pos[i].depth == 0 && pos[i].tsize > 1 &&
			    index_collapsed(ix, pos[i].thread))
				tmp[i].hidden = pos[i].tsize - 1;
		}
	}
	out = xmalloc(n * sizeof *out + strs.len + 1);
	base = (char *)(out + n);
	if (strs.len > 0)
		memcpy(base, strs.data, strs.len);
	for (k = 0; k < n; k++) {
		out[k] = tmp[k];
		out[k].from_addr = index_unpack(base, tmp[k].from_addr);
		out[k].from_name = index_unpack(base, tmp[k].from_name);
		out[k].rcpt = index_unpack(base, tmp[k].rcpt);
		out[k].subject = index_unpack(base, tmp[k].subject);
		out[k].message_id = index_unpack(base, tmp[k].message_id);
		out[k].outer_message_id = index_unpack(base,
		    tmp[k].outer_message_id);
		out[k].from = out[k].from_name != NULL ? out[k].from_name :
		    out[k].from_addr;
	}
	free(tmp);
	buf_free(&strs);
	*rows = out;
	return 0;
}

/* The rows' trust states and their senders' DNS marks: two reads. */
static int
index_trust(struct index_row *rows, size_t n, struct trust_store *ts,
    char **cause)
{
	enum trust_state	*states;
	const char		**addrs;
	char			**keys;
	int			*bogus;
	size_t			 i;
	int			 rc;

	keys = xcalloc(n, sizeof *keys);
	states = xcalloc(n, sizeof *states);
	addrs = xcalloc(n, sizeof *addrs);
	bogus = xcalloc(n, sizeof *bogus);
	for (i = 0; i < n; i++) {
		/* as trust-msg.c keys it: the outer Message-ID, the
		   sender (the protected From where there is one) */
		if (rows[i].outer_message_id != NULL &&
		    rows[i].from_addr != NULL)
			keys[i] = trust_store_msgkey(rows[i].outer_message_id,
			    rows[i].from_addr, NULL, 0);
		addrs[i] = rows[i].from_addr;
	}
	rc = trust_store_states(ts, (const char *const *)keys, n, states,
	    NULL, cause);
	if (rc == 0)
		rc = trust_store_dns_bogus(ts, addrs, n, bogus, cause);
	for (i = 0; i < n; i++) {
		if (rc == 0) {
			rows[i].trust = states[i];
			rows[i].dns_bogus = bogus[i];
		}
		free(keys[i]);
	}
	free(keys);
	free(states);
	free(addrs);
	free(bogus);
	return rc;
}

int
index_page(struct index *ix, const struct index_view *v, size_t offset,
    size_t limit, struct trust_store *ts, struct index_row **rows,
    size_t *n, char **cause)
{
	struct index_pos	*pos;
	sqlite3_value		*key[INDEX_KEYS] = { NULL };
	size_t			 total, got, i;

	*rows = NULL;
	*n = 0;
	if (index_count(ix, v, &total, cause) == -1)
		return -1;
	if (offset >= total || limit == 0)
		return 0;
	if (limit > total - offset)
		limit = total - offset;
	if (index_seek(ix, offset, key, cause) == -1)
		return -1;
	pos = xcalloc(limit, sizeof *pos);
	if (index_walk(ix, key, 1, 1, 0, limit, pos, &got, NULL,
	    cause) == -1) {
		index_key_free(key);
		free(pos);
		return -1;
	}
	/* the page's first row is the next page's nearest known place */
	index_anchor_drop(ix);
	for (i = 0; i < INDEX_KEYS; i++)
		ix->akey[i] = key[i];
	ix->anchor = offset;
	ix->have_anchor = 1;
	if (got == 0) {
		free(pos);
		return 0;
	}
	if (index_rows(ix, pos, got, offset, rows, cause) == -1) {
		free(pos);
		return -1;
	}
	free(pos);
	*n = got;
	if (ts != NULL && index_trust(*rows, got, ts, cause) == -1) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/*
 * The rows of the view before the row whose key is key (after it, with
 * after), counted up to limit (0: all).
 */
static int
index_count_from(struct index *ix, sqlite3_value **key, int after,
    size_t limit, int64_t *n, char **cause)
{
	sqlite3_stmt	*st;
	struct buf	 b;
	char		*extra, *what;
	size_t		 i, nk = index_nkeys(ix);
	int		 next, rc;

	buf_init(&b);
	index_cmp_sql(ix, index_op(ix, after, 0), (int)ix->nwords + 2, &b);
	extra = buf_take(&b);
	if (limit > 0) {
		/* SELECT count(*) FROM (SELECT 1 <where> LIMIT n) */
		char	*tail = xasprintf(" LIMIT %zu)", limit);

		what = xstrdup("count(*) FROM (SELECT 1");
		rc = index_prepare_sql(ix, what, extra, tail, &st, &next,
		    cause);
		free(what);
		free(tail);
	} else
		rc = index_prepare_sql(ix, "count(*)", extra, NULL, &st,
		    &next, cause);
	free(extra);
	if (rc == -1)
		return -1;
	for (i = 0; i < nk; i++)
		sqlite3_bind_value(st, next + (int)i, key[i]);
	return index_step_int(ix, st, n, cause);
}

/*
 * The view's offset of the row whose key is key: the rows before it,
 * unless few come after it (the cursor on the newest message of a
 * folder sorted by date, after new mail: a walk of a page, not of the
 * folder).
 */
#define INDEX_FROM_END	1000
static int
index_offset(struct index *ix, sqlite3_value **key, size_t *offset,
    char **cause)
{
	size_t	count;
	int64_t	n;

	if (index_count_now(ix, cause) == -1)
		return -1;
	count = ix->count;
	if (count > INDEX_FROM_END) {
		if (index_count_from(ix, key, 1, INDEX_FROM_END + 1, &n,
		    cause) == -1)
			return -1;
		if (n <= INDEX_FROM_END && (size_t)n < count) {
			*offset = count - 1 - (size_t)n;
			return 0;
		}
	}
	if (index_count_from(ix, key, 0, 0, &n, cause) == -1)
		return -1;
	*offset = (size_t)n;
	return 0;
}

/* The key of uid in the view (extra: more conditions, their words from
 * parameter wnext on); 1 when it is not there. */
static int
index_key_of(struct index *ix, const char *extra, char **words,
    size_t nwords, const char *tail, sqlite3_value **key, char **cause)
{
	sqlite3_stmt	*st;
	char		*what;
	size_t		 i, nk = index_nkeys(ix);
	int		 next, rc;

	what = index_what(ix);
	rc = index_prepare_sql(ix, what, extra, tail, &st, &next, cause);
	free(what);
	if (rc == -1)
		return -1;
	for (i = 0; i < nwords; i++)
		sqlite3_bind_text(st, next + (int)i, words[i], -1,
		    SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		for (i = 0; i < nk; i++)
			key[i] = sqlite3_value_dup(sqlite3_column_value(st,
			    5 + (int)i));
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 1;
	if (rc != SQLITE_ROW)
		return index_fail(ix, "find", cause);
	return 0;
}

int
index_find(struct index *ix, const struct index_view *v, uint32_t uid,
    size_t *offset)
{
	sqlite3_value	*key[INDEX_KEYS] = { NULL };
	char		*cause = NULL, *extra;
	int		 rc;

	if (index_view(ix, v, &cause) == -1 || !ix->have_mb) {
		free(cause);
		return -1;
	}
	/*
	 * In the thread order the row is found by its whole key, read
	 * through thread_uid: asked "t.uid = N" beside the view's
	 * conditions, SQLite walks the covering thread_rev instead, every
	 * row of the folder (0.1 s at 1,000,000).
	 */
	if (ix->sort == INDEX_SORT_THREAD)
		extra = xasprintf(" AND (t.tdate, t.tuid, %s, t.uid) = (SELECT"
		    " tdate, tuid, %s, uid FROM thread INDEXED BY thread_uid"
		    " WHERE mailbox = ?1 AND uid = %u)", index_key(ix, 2),
		    index_key(ix, 2) + 2, uid);
	else
		extra = xasprintf(" AND m.uid = %u", uid);
	rc = index_key_of(ix, extra, NULL, 0, NULL, key, &cause);
	free(extra);
	if (rc == 0)
		rc = index_offset(ix, key, offset, &cause);
	index_key_free(key);
	free(cause);
	return rc == 0 ? 0 : -1;
}

int
index_search(struct index *ix, const struct index_view *v, const char *expr,
    size_t from, int dir, size_t *offset, char **cause)
{
	struct index_term	 t[INDEX_TERMS];
	sqlite3_value		*key[INDEX_KEYS] = { NULL };
	sqlite3_value		*hit[INDEX_KEYS] = { NULL };
	struct buf		 b;
	char			**words = NULL, *extra, *tail, *saved;
	size_t			 nt = 0, nwords = 0, total, i, nk;
	int			 rc, round;

	if (index_count(ix, v, &total, cause) == -1)
		return -1;
	if (index_parse(expr, t, &nt, cause) == -1) {
		index_terms_free(t, nt);
		return -1;
	}
	if (total == 0) {
		index_terms_free(t, nt);
		return 1;
	}
	if (from >= total)
		from = total - 1;
	nk = index_nkeys(ix);
	if (index_seek(ix, from, key, cause) == -1) {
		index_terms_free(t, nt);
		return -1;
	}
	/* the view's rows with what a search reads (the same words) */
	{
		struct index_term	 vt[INDEX_TERMS];
		size_t			 nvt, nvw = 0;
		char			**vw = NULL;

		if (index_view_terms(ix, vt, &nvt, cause) == -1) {
			index_terms_free(t, nt);
			index_key_free(key);
			return -1;
		}
		saved = ix->where;
		ix->where = index_where_sql(ix, vt, nvt, 1, &vw, &nvw);
		index_terms_free(vt, nvt);
		index_words_free(vw, nvw);
	}
	rc = 1;
	/* after from (or before), then from the other end round to it */
	for (round = 0; round < 2 && rc == 1; round++) {
		buf_init(&b);
		index_terms_sql(t, nt, -1, 0, &b, &words, &nwords);
		if (round == 0) {
			buf_adds(&b, " AND (");
			for (i = 0; i < nk; i++)
				buf_addf(&b, "%s%s", i ? ", " : "",
				    index_key(ix, i));
			buf_addf(&b, ") %s (", index_op(ix, dir >= 0, 0));
			for (i = 0; i < nk; i++)
				buf_addf(&b, "%s?%zu", i ? ", " : "",
				    ix->nwords + 2 + nwords + i);
			buf_adds(&b, ")");
		}
		extra = buf_take(&b);
		buf_init(&b);
		index_order_sql(ix, dir < 0, &b);
		buf_adds(&b, " LIMIT 1");
		tail = buf_take(&b);
		if (round == 0) {
			/* the key's parameters follow the words */
			sqlite3_stmt	*st;
			char		*what = index_what(ix);
			int		 next, r;

			r = index_prepare_sql(ix, what, extra, tail, &st,
			    &next, cause);
			free(what);
			if (r == 0) {
				for (i = 0; i < nwords; i++)
					sqlite3_bind_text(st, next + (int)i,
					    words[i], -1, SQLITE_STATIC);
				for (i = 0; i < nk; i++)
					sqlite3_bind_value(st, next +
					    (int)(nwords + i), key[i]);
				r = sqlite3_step(st);
				if (r == SQLITE_ROW) {
					for (i = 0; i < nk; i++)
						hit[i] = sqlite3_value_dup(
						    sqlite3_column_value(st,
						    5 + (int)i));
					rc = 0;
				} else if (r != SQLITE_DONE)
					rc = index_fail(ix, "search", cause);
				sqlite3_finalize(st);
			} else
				rc = -1;
		} else
			rc = index_key_of(ix, extra, words, nwords, tail, hit,
			    cause);
		free(extra);
		free(tail);
		for (i = 0; i < nwords; i++)
			free(words[i]);
		free(words);
		words = NULL;
		nwords = 0;
	}
	free(ix->where);
	ix->where = saved;
	index_terms_free(t, nt);
	index_key_free(key);
	if (rc == 0 && index_offset(ix, hit, offset, cause) == -1)
		rc = -1;
	index_key_free(hit);
	return rc;
}

int
index_collapse(struct index *ix, const struct index_view *v, uint32_t thread,
    int how, char **cause)
{
	size_t	i;
	int	want;

	if (index_view(ix, v, cause) == -1)
		return -1;
	if (ix->sort != INDEX_SORT_THREAD)
		return 0;
	if (thread == INDEX_ALL_THREADS) {
		ix->all = how == -1 ? !index_collapsed(ix, 0) : how != 0;
		free(ix->exc);
		ix->exc = NULL;
		ix->nexc = 0;
	} else {
		want = how == -1 ? !index_collapsed(ix, thread) : how != 0;
		for (i = 0; i < ix->nexc && ix->exc[i] != thread; i++)
			;
		if (i < ix->nexc && want == ix->all)
			ix->exc[i] = ix->exc[--ix->nexc];
		else if (i == ix->nexc && want != ix->all) {
			ix->exc = xreallocarray(ix->exc, ix->nexc + 1,
			    sizeof *ix->exc);
			ix->exc[ix->nexc++] = thread;
		}
	}
	/* the same view, fewer or more of its rows */
	{
		struct index_term	 t[INDEX_TERMS];
		size_t			 nt;

		if (index_view_terms(ix, t, &nt, cause) == -1)
			return -1;
		if (index_where(ix, t, nt, cause) == -1) {
			index_terms_free(t, nt);
			return -1;
		}
		index_terms_free(t, nt);
	}
	return 0;
}

/* The stored thread order brought up to date (thread-store.h). */
static int
index_thread_update(struct index *ix, char **cause)
{
	int	rc;

	if (!ix->have_mb)
		return 0;
	if ((rc = thread_store_update(ix->db, ix->mb.id, SIZE_MAX,
	    cause)) == -1)
		return -1;
	if (rc == 1) {
		ix->have_count = 0;
		index_anchor_drop(ix);
	}
	return 0;
}

int
index_thread_some(struct cache *c, const char *folder, char **cause)
{
	struct cache_mailbox	mb;
	int			rc;

	if ((rc = cache_mailbox_peek(c, folder, &mb, cause)) != 1)
		return rc;
	rc = thread_store_update(cache_sqlite(c), mb.id, INDEX_THREAD_STEPS,
	    cause);
	return rc == -1 ? -1 : rc == 2;
}

int
index_thread_prepare(struct cache *c, const char *folder, char **cause)
{
	struct index	*ix;
	int		 rc;

	if ((ix = index_open(c, folder, cause)) == NULL)
		return -1;
	rc = index_thread_update(ix, cause);
	index_close(ix);
	return rc;
}

static const char	*index_sorts[] = {
	"arrival", "date", "from", "subject", "size", "thread"
};

int
index_sort_parse(const char *s, struct index_view *v)
{
	size_t	i;
	int	reverse = 0;

	if (*s == '-') {
		reverse = 1;
		s++;
	}
	for (i = 0; i < sizeof index_sorts / sizeof index_sorts[0]; i++) {
		if (strcmp(s, index_sorts[i]) == 0) {
			v->sort = (enum index_sort)i;
			v->reverse = reverse;
			return 0;
		}
	}
	return -1;
}

const char *
index_sort_name(enum index_sort sort)
{
	if ((unsigned)sort >= sizeof index_sorts / sizeof index_sorts[0])
		return "?";
	return index_sorts[sort];
}
