/*
 * thread-store.c: the stored thread order of thread-store.h, brought up
 * to date group by group.
 *
 * First every message noted as new (thread_todo without a group) is
 * given its group: the groups of its ids' hashes, joined into the
 * oldest of them when there are several, or a new one; its ids are
 * then that group's, and the group is to be threaded again. A message
 * stored again (a REPLACE) leaves the group it was in first. Then each
 * group to be threaded again (thread_dirty) is read whole (its rows in
 * thread and its new messages), threaded by thread_build() and its rows
 * written anew. A hash shared by two unrelated ids only joins two groups
 * that need not be one: the threads come out the same, as thread.c
 * compares the ids themselves; an id no message has any more stays in
 * its group for the same reason.
 *
 * A row's place is its thread's key (the date and UID of the thread's
 * earliest message: threads in the order thread_build() gives them) and
 * its place in the thread, both ways: the index walks these as it walks
 * any sort. mailbox.tcount counts the rows. Each transaction does up to
 * THREAD_STORE_BATCH messages of either step.
 */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <sqlite3.h>

#include "cache.h"
#include "thread.h"
#include "thread-store.h"
#include "xmalloc.h"

#define THREAD_STORE_BATCH	2000	/* messages a transaction */
#define THREAD_STORE_IDS	256	/* ids of a message looked up */
#define THREAD_STORE_BIG	10000	/* messages of a group threaded only
					   once no new message is left */

enum {
	TS_TODO,		/* new messages without a group */
	TS_FIELDS,		/* a message's threading fields */
	TS_OLD,			/* the group of its row */
	TS_UNPLACE,		/* its row out */
	TS_IDGET,		/* an id's group */
	TS_IDPUT,
	TS_ASSIGN,		/* a new message's group */
	TS_DROP,		/* a new message gone */
	TS_DIRTY,		/* a group to thread again */
	TS_NEWGRP,
	TS_MERGE_ID,
	TS_MERGE_ROW,
	TS_MERGE_TODO,
	TS_MERGE_DIRTY,
	TS_COUNT,		/* mailbox.tcount moved on */
	TS_NEXTDIRTY,
	TS_MEMBERS,		/* a group's messages */
	TS_CLEAR,		/* a group's rows out */
	TS_PLACE,		/* a row in */
	TS_DONE,		/* a group's new messages placed */
	TS_CLEAN,		/* a group threaded */
	TS_PENDING,		/* anything to do? */
	TS_SIZE,		/* a group's messages */
	TS_NSTMT
};

static const char *const thread_store_sql[TS_NSTMT] = {
	"SELECT uid FROM thread_todo WHERE mailbox = ?1 AND grp IS NULL"
	" ORDER BY uid DESC LIMIT ?2",
	"SELECT coalesce(p.message_id, m.message_id), coalesce(p.in_reply_to,"
	" m.in_reply_to), coalesce(p.refs, m.refs) FROM message m LEFT JOIN"
	" protected p ON p.mailbox = m.mailbox AND p.uid = m.uid WHERE"
	" m.mailbox = ?1 AND m.uid = ?2",
	"SELECT grp FROM thread WHERE mailbox = ?1 AND uid = ?2",
	"DELETE FROM thread WHERE mailbox = ?1 AND uid = ?2",
	"SELECT grp FROM thread_id WHERE mailbox = ?1 AND h = ?2",
	"INSERT OR IGNORE INTO thread_id (mailbox, h, grp) VALUES (?1, ?2,"
	" ?3)",
	"UPDATE thread_todo SET grp = ?3 WHERE mailbox = ?1 AND uid = ?2",
	"DELETE FROM thread_todo WHERE mailbox = ?1 AND uid = ?2",
	"INSERT OR IGNORE INTO thread_dirty (mailbox, grp) VALUES (?1, ?2)",
	"UPDATE mailbox SET tnext = tnext + 1 WHERE id = ?1 RETURNING"
	" tnext - 1",
	"UPDATE thread_id SET grp = ?3 WHERE mailbox = ?1 AND grp = ?2",
	"UPDATE thread SET grp = ?3 WHERE mailbox = ?1 AND grp = ?2",
	"UPDATE thread_todo SET grp = ?3 WHERE mailbox = ?1 AND grp = ?2",
	"DELETE FROM thread_dirty WHERE mailbox = ?1 AND grp = ?2",
	"UPDATE mailbox SET tcount = tcount + ?2 WHERE id = ?1",
	"SELECT grp FROM thread_dirty WHERE mailbox = ?1 AND grp > ?2"
	" ORDER BY grp LIMIT 1",
	"SELECT m.uid, coalesce(p.message_id, m.message_id),"
	" coalesce(p.in_reply_to, m.in_reply_to), coalesce(p.refs, m.refs),"
	" m.edate FROM message m LEFT JOIN protected p ON p.mailbox ="
	" m.mailbox AND p.uid = m.uid WHERE m.mailbox = ?1 AND m.uid IN"
	" (SELECT uid FROM thread WHERE mailbox = ?1 AND grp = ?2 UNION ALL"
	" SELECT uid FROM thread_todo WHERE mailbox = ?1 AND grp = ?2)"
	" ORDER BY m.uid",
	"DELETE FROM thread WHERE mailbox = ?1 AND grp = ?2",
	"INSERT INTO thread (mailbox, tdate, tuid, tpos, rpos, uid, depth,"
	" flags, tsize, grp) VALUES (?1, ?2, ?3, ?4, -?4, ?5, ?6, ?7, ?8, ?9)",
	"DELETE FROM thread_todo WHERE mailbox = ?1 AND grp = ?2",
	"DELETE FROM thread_dirty WHERE mailbox = ?1 AND grp = ?2",
	"SELECT EXISTS (SELECT 1 FROM thread_todo WHERE mailbox = ?1) OR"
	" EXISTS (SELECT 1 FROM thread_dirty WHERE mailbox = ?1)",
	"SELECT (SELECT count(*) FROM thread WHERE mailbox = ?1 AND"
	" grp = ?2) + (SELECT count(*) FROM thread_todo WHERE mailbox = ?1"
	" AND grp = ?2)",
};

struct thread_head;

struct thread_store {
	sqlite3		*db;
	int64_t		 mb;
	sqlite3_stmt	*st[TS_NSTMT];

	/* A group's messages, kept from group to group. */
	struct thread_chunk	*arena;
	struct thread_msg	*in;
	struct thread_pos	*pos;
	struct thread_head	*head;
	int64_t			*uid;
	size_t			 cap;
};

/* The threading fields' strings, in chunks freed together. */
#define THREAD_ARENA	4096
struct thread_chunk {
	struct thread_chunk	*next;
	size_t			 used, size;
	char			 data[];
};

static char *
thread_arena_dup(struct thread_chunk **arena, const char *s)
{
	struct thread_chunk	*c = *arena;
	size_t			 len, size;
	char			*p;

	if (s == NULL)
		return NULL;
	len = strlen(s) + 1;
	if (c == NULL || c->size - c->used < len) {
		size = len > THREAD_ARENA ? len : THREAD_ARENA;
		c = xmalloc(sizeof *c + size);
		c->size = size;
		c->used = 0;
		c->next = *arena;
		*arena = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	c->used += len;
	return p;
}

/* The arena emptied for the next group: its first chunk kept. */
static void
thread_arena_reset(struct thread_chunk **arena)
{
	struct thread_chunk	*c = *arena, *next;

	if (c == NULL)
		return;
	for (next = c->next; next != NULL; next = c->next) {
		c->next = next->next;
		free(next);
	}
	c->used = 0;
}

static void
thread_arena_free(struct thread_chunk *c)
{
	struct thread_chunk	*next;

	for (; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
}

static int
thread_store_fail(struct thread_store *t, char **cause)
{
	*cause = xasprintf("threads: %s", sqlite3_errmsg(t->db));
	return -1;
}

/* Statement i, reset, with the mailbox bound as ?1. */
static sqlite3_stmt *
thread_store_stmt(struct thread_store *t, int i)
{
	sqlite3_stmt	*st = t->st[i];

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	sqlite3_bind_int64(st, 1, t->mb);
	return st;
}

/* Run statement i with ?2 and ?3 (a write, or a read of one value into
 * *out when out is not NULL): 1 a row, 0 none, -1 an error. */
static int
thread_store_run(struct thread_store *t, int i, int64_t a, int64_t b,
    int64_t *out)
{
	sqlite3_stmt	*st = thread_store_stmt(t, i);
	int		 rc;

	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, a);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, b);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (out != NULL)
			*out = sqlite3_column_int64(st, 0);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 1 : -1;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* An id's hash (FNV-1a, 64 bits), as the table keeps it. */
static int64_t
thread_store_hash(const char *s, size_t len)
{
	uint64_t	h = 14695981039346656037ull;
	size_t		i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return (int64_t)h;
}

/* The hashes of the ids in s into h[*n...]. */
static void
thread_store_ids(const char *s, int64_t *h, size_t *n)
{
	const char	*id;
	size_t		 len;

	while (*n < THREAD_STORE_IDS && thread_id_next(&s, &id, &len))
		h[(*n)++] = thread_store_hash(id, len);
}

/*
 * A new message into its group: the groups of its ids, joined, or a
 * new one; the group is to be threaded again.
 */
static int
thread_store_assign(struct thread_store *t, int64_t uid)
{
	sqlite3_stmt	*st;
	int64_t		 h[3 * THREAD_STORE_IDS], grp[3 * THREAD_STORE_IDS];
	int64_t		 g = -1, old;
	size_t		 nh = 0, ng = 0, i, k;
	int		 rc;

	st = thread_store_stmt(t, TS_FIELDS);
	sqlite3_bind_int64(st, 2, uid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		thread_store_ids((const char *)sqlite3_column_text(st, 0), h,
		    &nh);
		if (nh > 1)
			nh = 1;		/* the first is its Message-ID */
		thread_store_ids((const char *)sqlite3_column_text(st, 1), h,
		    &nh);
		thread_store_ids((const char *)sqlite3_column_text(st, 2), h,
		    &nh);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)		/* gone again */
		return thread_store_run(t, TS_DROP, uid, 0, NULL);
	if (rc != SQLITE_ROW)
		return -1;

	/* stored again: out of the group it was in */
	if ((rc = thread_store_run(t, TS_OLD, uid, 0, &old)) == -1)
		return -1;
	if (rc == 1 && (thread_store_run(t, TS_DIRTY, old, 0, NULL) == -1 ||
	    thread_store_run(t, TS_UNPLACE, uid, 0, NULL) == -1 ||
	    thread_store_run(t, TS_COUNT, -1, 0, NULL) == -1))
		return -1;

	for (i = 0; i < nh; i++) {
		if ((rc = thread_store_run(t, TS_IDGET, h[i], 0,
		    &grp[ng])) == -1)
			return -1;
		if (rc == 0)
			continue;
		for (k = 0; k < ng && grp[k] != grp[ng]; k++)
			;
		if (k == ng)
			ng++;
	}
	for (k = 0; k < ng; k++)
		if (g == -1 || grp[k] < g)
			g = grp[k];
	if (g == -1 && thread_store_run(t, TS_NEWGRP, 0, 0, &g) != 1)
		return -1;
	/* the others join the oldest */
	for (k = 0; k < ng; k++) {
		if (grp[k] == g)
			continue;
		if (thread_store_run(t, TS_MERGE_ID, grp[k], g, NULL) == -1 ||
		    thread_store_run(t, TS_MERGE_ROW, grp[k], g, NULL) == -1 ||
		    thread_store_run(t, TS_MERGE_TODO, grp[k], g, NULL) == -1 ||
		    thread_store_run(t, TS_MERGE_DIRTY, grp[k], 0, NULL) == -1)
			return -1;
	}
	for (i = 0; i < nh; i++)
		if (thread_store_run(t, TS_IDPUT, h[i], g, NULL) == -1)
			return -1;
	if (thread_store_run(t, TS_ASSIGN, uid, g, NULL) == -1 ||
	    thread_store_run(t, TS_DIRTY, g, 0, NULL) == -1)
		return -1;
	return 0;
}

/* Where a thread starts in the order and how many rows it has. */
struct thread_head {
	int64_t		date;		/* its earliest message's */
	int64_t		uid;
	uint32_t	start, size;
};

/*
 * Thread group grp again and write its rows anew; the number of its
 * messages into *n.
 */
static int
thread_store_layout(struct thread_store *t, int64_t grp, size_t *n)
{
	sqlite3_stmt		*st;
	struct thread_head	*th;
	int64_t			 deleted, d, u;
	size_t			 nthreads, i;

	*n = 0;
	thread_arena_reset(&t->arena);
	st = thread_store_stmt(t, TS_MEMBERS);
	sqlite3_bind_int64(st, 2, grp);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (*n == t->cap) {
			t->cap = t->cap == 0 ? 64 : 2 * t->cap;
			t->in = xreallocarray(t->in, t->cap, sizeof *t->in);
			t->uid = xreallocarray(t->uid, t->cap, sizeof *t->uid);
			t->pos = xreallocarray(t->pos, t->cap, sizeof *t->pos);
			t->head = xreallocarray(t->head, t->cap,
			    sizeof *t->head);
		}
		t->uid[*n] = sqlite3_column_int64(st, 0);
		t->in[*n].message_id = thread_arena_dup(&t->arena,
		    (const char *)sqlite3_column_text(st, 1));
		t->in[*n].in_reply_to = thread_arena_dup(&t->arena,
		    (const char *)sqlite3_column_text(st, 2));
		t->in[*n].references = thread_arena_dup(&t->arena,
		    (const char *)sqlite3_column_text(st, 3));
		t->in[*n].date = (time_t)sqlite3_column_int64(st, 4);
		(*n)++;
	}
	if (sqlite3_reset(st) != SQLITE_OK)
		return -1;

	if (*n > 0) {
		thread_build(t->in, *n, 0, t->pos);
		nthreads = t->pos[*n - 1].thread + 1;
		memset(t->head, 0, nthreads * sizeof *t->head);
		for (i = *n; i-- > 0;) {
			th = &t->head[t->pos[i].thread];
			d = t->in[t->pos[i].msg].date;
			u = t->uid[t->pos[i].msg];
			th->start = (uint32_t)i;
			th->size++;
			if (th->size == 1 || d < th->date || (d == th->date &&
			    u < th->uid)) {
				th->date = d;
				th->uid = u;
			}
		}
	}
	st = thread_store_stmt(t, TS_CLEAR);
	sqlite3_bind_int64(st, 2, grp);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return -1;
	}
	deleted = sqlite3_changes(t->db);
	for (i = 0; i < *n; i++) {
		th = &t->head[t->pos[i].thread];
		st = thread_store_stmt(t, TS_PLACE);
		sqlite3_bind_int64(st, 2, th->date);
		sqlite3_bind_int64(st, 3, th->uid);
		sqlite3_bind_int64(st, 4, (int64_t)(i - th->start));
		sqlite3_bind_int64(st, 5, t->uid[t->pos[i].msg]);
		sqlite3_bind_int64(st, 6, t->pos[i].depth);
		sqlite3_bind_int64(st, 7, t->pos[i].flags);
		sqlite3_bind_int64(st, 8, th->size);
		sqlite3_bind_int64(st, 9, grp);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_reset(st);
			return -1;
		}
	}
	if (thread_store_run(t, TS_DONE, grp, 0, NULL) == -1 ||
	    thread_store_run(t, TS_CLEAN, grp, 0, NULL) == -1 ||
	    thread_store_run(t, TS_COUNT, (int64_t)*n - deleted, 0,
	    NULL) == -1)
		return -1;
	return 0;
}

/* A group's messages, counted. */
static int
thread_store_size(struct thread_store *t, int64_t grp, int64_t *n)
{
	return thread_store_run(t, TS_SIZE, grp, 0, n) == 1 ? 0 : -1;
}

/*
 * One transaction: up to a batch of the newest new messages into their
 * groups, then the groups to thread again, but for those of more than
 * THREAD_STORE_BIG messages while new messages are left (threaded once,
 * at the end, not once a batch); with no new messages, up to a batch of
 * groups. *did says whether there was something to do.
 */
static int
thread_store_step(struct thread_store *t, int *did, char **cause)
{
	sqlite3_stmt	*st;
	int64_t		 todo[THREAD_STORE_BATCH], grp = INT64_MIN, size;
	size_t		 ntodo = 0, done = 0, n, i;
	int		 rc, more;

	*did = 0;
	/* a sync waiting to store what came goes first (up to 5 s) */
	for (i = 0; i < 500 && cache_writer_waiting(); i++)
		usleep(10000);
	if (sqlite3_exec(t->db, "BEGIN IMMEDIATE", NULL, NULL,
	    NULL) != SQLITE_OK)
		return thread_store_fail(t, cause);
	st = thread_store_stmt(t, TS_TODO);
	sqlite3_bind_int64(st, 2, THREAD_STORE_BATCH);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		todo[ntodo++] = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto fail;
	for (i = 0; i < ntodo; i++)
		if (thread_store_assign(t, todo[i]) == -1)
			goto fail;
	more = ntodo == THREAD_STORE_BATCH;
	while (ntodo > 0 || done < THREAD_STORE_BATCH) {
		if ((rc = thread_store_run(t, TS_NEXTDIRTY, grp, 0,
		    &grp)) == -1)
			goto fail;
		if (rc == 0)
			break;
		if (more) {
			if (thread_store_size(t, grp, &size) == -1)
				goto fail;
			if (size > THREAD_STORE_BIG)
				continue;
		}
		if (thread_store_layout(t, grp, &n) == -1)
			goto fail;
		done += n + 1;
	}
	if (sqlite3_exec(t->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	*did = ntodo > 0 || done > 0;
	return 0;
fail:
	thread_store_fail(t, cause);
	sqlite3_exec(t->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
thread_store_update(sqlite3 *db, int64_t mb, size_t steps, char **cause)
{
	struct thread_store	 t;
	int64_t			 pending = 0;
	size_t			 k;
	int			 i, did, changed = 0, rc = 0;

	memset(&t, 0, sizeof t);
	t.db = db;
	t.mb = mb;
	for (i = 0; i < TS_NSTMT; i++)
		if (sqlite3_prepare_v2(db, thread_store_sql[i], -1, &t.st[i],
		    NULL) != SQLITE_OK) {
			rc = thread_store_fail(&t, cause);
			goto out;
		}
	if (thread_store_run(&t, TS_PENDING, 0, 0, &pending) == -1) {
		rc = thread_store_fail(&t, cause);
		goto out;
	}
	for (k = 0; pending; k++) {
		if (k == steps) {
			/* more to do: the caller shows this much first */
			rc = 2;
			goto out;
		}
		if ((rc = thread_store_step(&t, &did, cause)) == -1)
			goto out;
		if (!did)
			break;
		changed = 1;
	}
	rc = changed;
out:
	for (i = 0; i < TS_NSTMT; i++)
		sqlite3_finalize(t.st[i]);
	thread_arena_free(t.arena);
	free(t.in);
	free(t.uid);
	free(t.pos);
	free(t.head);
	return rc;
}
