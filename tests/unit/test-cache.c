/*
 * test-cache.c: the header cache: storing, UIDVALIDITY changes, expunges,
 * migrating an old schema, the protected header values of opened
 * messages kept apart from the outer ones (and forgotten for good),
 * rebuilding a file that is corrupt or not ours, and SQLite's memory
 * statistics off from the first store opened (db.c: their global mutex).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cache.h"
#include "tap.h"

static char	dir[] = "/tmp/steed-cache-XXXXXX";
static char	path[256];

static int
count_cb(const struct cache_msg *m, void *arg)
{
	(void)m;
	(*(int *)arg)++;
	return 0;
}

static int
count(struct cache *c, struct cache_mailbox *mb)
{
	char	*cause = NULL;
	int	 n = 0;

	if (cache_each(c, mb, count_cb, &n, &cause) == -1) {
		free(cause);
		return -1;
	}
	return n;
}

static void
put(struct cache *c, struct cache_mailbox *mb, uint32_t uid, const char *subj)
{
	struct cache_msg	 m;
	char			*cause = NULL;

	memset(&m, 0, sizeof m);
	m.uid = uid;
	strcpy(m.flags, "S");
	m.subject = subj;
	m.from = "Alice";
	if (cache_put(c, mb, &m, &cause) == -1) {
		printf("# put: %s\n", cause);
		free(cause);
	}
}

static int
first_subject(const struct cache_msg *m, void *arg)
{
	snprintf(arg, 64, "%s/%s", m->subject ? m->subject : "", m->flags);
	return 1;
}

static int
stale_cb(const struct cache_msg *m, void *arg)
{
	int	*n = arg;

	/* What schema 3 stored is still there; what it lacked is not. */
	if (m->stale && m->from_addr == NULL && m->rcpt == NULL &&
	    m->references == NULL && m->sent == 0 && m->hints == 0 &&
	    m->subject != NULL && strncmp(m->subject, "old ", 4) == 0 &&
	    m->from != NULL && strcmp(m->from, "Alice") == 0)
		n[0]++;
	if (m->uid == 2 && strcmp(m->flags, "FS") == 0)
		n[1]++;
	return 0;
}

static int
pending_cb(const struct cache_pending *p, void *arg)
{
	if (strcmp(p->mailbox, "INBOX") == 0 && p->uid == 2 &&
	    p->uidvalidity == 5 && strcmp(p->add, "F") == 0)
		(*(int *)arg)++;
	return 0;
}

/*
 * A cache of schema 3, as steedmail wrote it before the index needed
 * more, with messages, a pending flag change, a sync's resume points.
 */
static void
make_v3(const char *file)
{
	sqlite3	*db;

	unlink(file);
	sqlite3_open(file, &db);
	if (sqlite3_exec(db,
	    "PRAGMA application_id=1398032451; PRAGMA user_version=3;"
	    "CREATE TABLE mailbox (id INTEGER PRIMARY KEY,"
	    " name TEXT NOT NULL UNIQUE, uidvalidity INTEGER NOT NULL,"
	    " uidnext INTEGER NOT NULL DEFAULT 0,"
	    " highestmodseq INTEGER NOT NULL DEFAULT 0,"
	    " trust_uid INTEGER NOT NULL DEFAULT 0);"
	    "CREATE TABLE message (mailbox INTEGER NOT NULL,"
	    " uid INTEGER NOT NULL, flags TEXT NOT NULL,"
	    " internaldate INTEGER NOT NULL, size INTEGER NOT NULL,"
	    " date TEXT, sender TEXT, subject TEXT, message_id TEXT,"
	    " PRIMARY KEY (mailbox, uid)) WITHOUT ROWID;"
	    "CREATE TABLE pending (id INTEGER PRIMARY KEY,"
	    " mailbox TEXT NOT NULL, uidvalidity INTEGER NOT NULL,"
	    " uid INTEGER NOT NULL, add_flags TEXT NOT NULL,"
	    " remove_flags TEXT NOT NULL);"
	    "INSERT INTO mailbox VALUES (1, 'INBOX', 5, 4, 4242, 3);"
	    "INSERT INTO message VALUES (1, 1, 'S', 100, 10, 'Mon, 1 Jan 2024"
	    " 10:00:00 +0000', 'Alice', 'old one', '<1@x>');"
	    "INSERT INTO message VALUES (1, 2, 'FS', 200, 20, NULL, 'Alice',"
	    " 'old two', '<2@x>');"
	    "INSERT INTO message VALUES (1, 3, '', 300, 30, NULL, 'Alice',"
	    " 'old three', NULL);"
	    "INSERT INTO pending VALUES (1, 'INBOX', 5, 2, 'F', '');",
	    NULL, NULL, NULL) != SQLITE_OK)
		printf("# making the old cache: %s\n", sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* What cache_each gives for one UID: outer and protected subject. */
struct prot_seen {
	uint32_t	uid;
	int		found;
	unsigned	how;
	int		has_prot;
	char		outer[64], inner[64], from[64], refs[64];
	time_t		sent;
};

static int
prot_cb(const struct cache_msg *m, void *arg)
{
	struct prot_seen	*w = arg;

	if (m->uid != w->uid)
		return 0;
	w->found = 1;
	snprintf(w->outer, sizeof w->outer, "%s", m->subject != NULL ?
	    m->subject : "(null)");
	w->has_prot = m->prot != NULL;
	if (m->prot != NULL) {
		w->how = m->prot->how;
		snprintf(w->inner, sizeof w->inner, "%s",
		    m->prot->subject != NULL ? m->prot->subject : "(null)");
		snprintf(w->from, sizeof w->from, "%s",
		    m->prot->from_addr != NULL ? m->prot->from_addr : "(null)");
		snprintf(w->refs, sizeof w->refs, "%s",
		    m->prot->references != NULL ? m->prot->references :
		    "(null)");
		w->sent = m->prot->sent;
	}
	return 1;
}

static struct prot_seen
prot_of(struct cache *c, struct cache_mailbox *mb, uint32_t uid)
{
	struct prot_seen	 w;
	char			*cause = NULL;

	memset(&w, 0, sizeof w);
	w.uid = uid;
	if (cache_each(c, mb, prot_cb, &w, &cause) == -1) {
		printf("# each: %s\n", cause);
		free(cause);
	}
	return w;
}

/* Does the file at p hold the bytes of s anywhere (the journal too)? */
static int
file_has(const char *p, const char *s)
{
	char	 wal[300], *buf;
	FILE	*f;
	long	 len;
	int	 i, found = 0;

	snprintf(wal, sizeof wal, "%s-wal", p);
	for (i = 0; i < 2 && !found; i++) {
		if ((f = fopen(i == 0 ? p : wal, "rb")) == NULL)
			continue;
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc(len + 1);
		if (buf != NULL && fread(buf, 1, len, f) == (size_t)len)
			found = memmem(buf, len, s, strlen(s)) != NULL;
		free(buf);
		fclose(f);
	}
	return found;
}

/* Does every mailbox's stored count say how many messages it has? */
static int
counts_right(void)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	int		 wrong = -1;

	sqlite3_open(path, &db);
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM mailbox WHERE nmsg"
	    " != (SELECT count(*) FROM message WHERE message.mailbox ="
	    " mailbox.id)", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		wrong = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return wrong == 0;
}

/* The senders seen: how many rows for fkey (NULL: all). */
static int
senders_seen(const char *fkey)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	int		 n = -1;

	sqlite3_open(path, &db);
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sender_seen WHERE"
	    " ?1 IS NULL OR fkey = ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, fkey, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* The protected header values: put, read, kept, dropped, forgotten. */
static void
test_protected(void)
{
	struct cache		*c;
	struct cache_mailbox	 mb;
	struct cache_protected	 p;
	struct cache_msg	 m;
	struct prot_seen	 w;
	char			*cause = NULL;
	int			 n;

	unlink(path);
	c = cache_open_path(path, &cause);
	cache_mailbox(c, "INBOX", 1, &mb, &cause);
	put(c, &mb, 1, "...");
	put(c, &mb, 2, "plain");
	memset(&m, 0, sizeof m);
	m.uid = 3;
	m.subject = "...";
	m.hints = CACHE_HINT_ENCRYPTED;
	cache_put(c, &mb, &m, &cause);
	cache_recount(c, &mb, &cause);

	memset(&p, 0, sizeof p);
	p.how = CACHE_OPENED_DECRYPTED | CACHE_OPENED_SIGNED;
	p.subject = "Dinner plans at Rama's";
	p.from = "Alice";
	p.from_addr = "alice@example.org";
	p.references = "<a@x> <b@x>";
	p.sent = 1700000000;
	TAP_OK(cache_protected_put(c, &mb, 1, &p, &cause) == 1,
	    "protected values are stored for a cached message");
	TAP_OK(cache_protected_put(c, &mb, 1, &p, &cause) == 0,
	    "... the same again changes nothing");
	w = prot_of(c, &mb, 1);
	TAP_OK(w.found && w.has_prot && strcmp(w.outer, "...") == 0 &&
	    strcmp(w.inner, "Dinner plans at Rama's") == 0 &&
	    strcmp(w.from, "alice@example.org") == 0 &&
	    strcmp(w.refs, "<a@x> <b@x>") == 0 && w.sent == 1700000000 &&
	    w.how == (CACHE_OPENED_DECRYPTED | CACHE_OPENED_SIGNED),
	    "read back apart: outer \"%s\", protected \"%s\"", w.outer,
	    w.inner);
	w = prot_of(c, &mb, 2);
	TAP_OK(w.found && !w.has_prot, "a message never opened has none");
	p.subject = "Dinner plans, moved";
	TAP_OK(cache_protected_put(c, &mb, 1, &p, &cause) == 1 &&
	    strcmp(prot_of(c, &mb, 1).inner, "Dinner plans, moved") == 0,
	    "other values replace them");
	TAP_OK(cache_protected_put(c, &mb, 9, &p, &cause) == 0 &&
	    !prot_of(c, &mb, 9).found,
	    "a message not cached gets none (nothing is kept without it)");

	TAP_OK(cache_protected_wanted(c, &mb, 3, &cause) == 1,
	    "an encrypted message without them is wanted");
	TAP_OK(cache_protected_wanted(c, &mb, 2, &cause) == 0 &&
	    cache_protected_wanted(c, &mb, 9, &cause) == 0,
	    "... a plain one, or one not cached, is not");
	memset(&p, 0, sizeof p);
	TAP_OK(cache_protected_put(c, &mb, 3, &p, &cause) == 1 &&
	    prot_of(c, &mb, 3).has_prot && prot_of(c, &mb, 3).how == 0 &&
	    strcmp(prot_of(c, &mb, 3).inner, "(null)") == 0,
	    "opened without protected headers: a row without values");
	TAP_OK(cache_protected_wanted(c, &mb, 3, &cause) == 0,
	    "... and it is wanted no more");

	/* The sync stores the outer header again (a stale row): kept. */
	put(c, &mb, 1, "... again");
	w = prot_of(c, &mb, 1);
	TAP_OK(w.has_prot && strcmp(w.outer, "... again") == 0 &&
	    strcmp(w.inner, "Dinner plans, moved") == 0,
	    "headers fetched again keep the protected values");
	cache_delete(c, &mb, 1, &cause);
	put(c, &mb, 1, "...");
	TAP_OK(!prot_of(c, &mb, 1).has_prot,
	    "an expunged message's go with it");
	TAP_OK(counts_right(), "the stored count follows puts, a row put "
	    "again and a delete");
	p.how = CACHE_OPENED_DECRYPTED;
	p.subject = "SWORDFISH-7 secret subject";
	p.from = "SWORDFISH-8 Secret Name";
	p.from_addr = "swordfish-9@example.org";
	cache_protected_put(c, &mb, 1, &p, &cause);
	TAP_OK(senders_seen("swordfish-8 secret name") == 1,
	    "an opened message's sender is seen by its protected name");
	cache_close(c);
	c = cache_open_path(path, &cause);
	cache_mailbox(c, "INBOX", 1, &mb, &cause);
	TAP_OK(strcmp(prot_of(c, &mb, 1).inner,
	    "SWORDFISH-7 secret subject") == 0, "they survive a reopen");
	n = cache_protected_clear(c, &cause);
	TAP_OK(n == 2 && !prot_of(c, &mb, 1).has_prot &&
	    !prot_of(c, &mb, 3).has_prot && prot_of(c, &mb, 1).found,
	    "cache_protected_clear forgets them all (%d), the messages stay",
	    n);
	cache_close(c);
	TAP_OK(!file_has(path, "SWORDFISH-7") && !file_has(path,
	    "SWORDFISH-8") && !file_has(path, "swordfish-8") &&
	    !file_has(path, "swordfish-9"),
	    "... and no byte of them is left in the file or its journal");
	c = cache_open_path(path, &cause);
	TAP_OK(cache_protected_clear(c, &cause) == 0,
	    "clearing nothing is nothing");
	cache_mailbox(c, "INBOX", 1, &mb, &cause);
	cache_protected_put(c, &mb, 1, &p, &cause);
	TAP_OK(cache_mailbox(c, "INBOX", 2, &mb, &cause) == 0 &&
	    !prot_of(c, &mb, 1).found && prot_of(c, &mb, 1).has_prot == 0,
	    "a new UIDVALIDITY drops them with the messages");
	{
		sqlite3	*db;
		int	 left = -1;
		sqlite3_stmt *st;

		sqlite3_open(path, &db);
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM protected",
		    -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) ==
		    SQLITE_ROW)
			left = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		sqlite3_close(db);
		TAP_OK(left == 0, "... none is left in the table (%d)", left);
	}
	TAP_OK(counts_right() && senders_seen(NULL) == 0,
	    "... the count is 0 and no sender is seen any more");
	cache_close(c);
	free(cause);
}

/* The deferred indexes' definitions, by name; "" when none is there. */
static void
deferred_sql(struct cache *c, char *out, size_t len)
{
	sqlite3_stmt	*st;

	*out = '\0';
	if (sqlite3_prepare_v2(cache_sqlite(c), "SELECT coalesce(group_concat("
	    "sql, ';'), '') FROM (SELECT sql FROM sqlite_master WHERE type ="
	    " 'index' AND name IN ('message_from', 'message_subject',"
	    " 'message_size', 'message_uid') ORDER BY name)", -1, &st,
	    NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, len, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* evidence(c, mb, first, last): cache_evidence()'s answer as text. */
static const char *
evidence(struct cache *c, const struct cache_mailbox *mb, uint32_t first,
    uint32_t last)
{
	static char	 out[256];
	uint32_t	*uids;
	size_t		 n, i, len;
	char		*cause = NULL;
	int		 rc;

	rc = cache_evidence(c, mb, first, last, &uids, &n, &cause);
	if (rc == -1) {
		snprintf(out, sizeof out, "error: %s", cause);
		free(cause);
		return out;
	}
	if (rc == 0)
		return "cannot tell";
	len = (size_t)snprintf(out, sizeof out, "%zu:", n);
	for (i = 0; i < n && len < sizeof out; i++)
		len += (size_t)snprintf(out + len, sizeof out - len, " %u",
		    uids[i]);
	free(uids);
	return out;
}

/*
 * The trust step's candidates from the rows: those with evidence, as
 * long as every row of the range is there and was stored with its hints.
 */
static void
test_evidence(void)
{
	struct cache		*c;
	struct cache_mailbox	 mb;
	struct cache_msg	 m;
	char			 p[300], *cause = NULL;
	uint32_t		 uid;

	snprintf(p, sizeof p, "%s/e.hcache", dir);
	c = cache_open_path(p, &cause);
	cache_mailbox(c, "INBOX", 1, &mb, &cause);
	TAP_OK(mb.evuid == 0, "a new mailbox: every row will carry the hints");
	cache_begin(c, &cause);
	for (uid = 1; uid <= 10; uid++) {
		memset(&m, 0, sizeof m);
		m.uid = uid;
		m.hints = uid == 3 ? CACHE_HINT_SIGNED | CACHE_HINT_EVIDENCE :
		    uid == 7 ? CACHE_HINT_EVIDENCE : uid == 5 ?
		    CACHE_HINT_ATTACH : 0;
		cache_put(c, &mb, &m, &cause);
	}
	cache_commit(c, &cause);
	TAP_STR(evidence(c, &mb, 1, 10), "2: 3 7", "the rows with evidence");
	TAP_STR(evidence(c, &mb, 4, 6), "0:", "a range with none: none");
	TAP_STR(evidence(c, &mb, 4, 1000), "1: 7", "a range past the rows");
	mb.lowuid = 5;
	TAP_STR(evidence(c, &mb, 1, 10), "cannot tell", "rows below the sync's "
	    "low point not fetched yet: cannot tell");
	TAP_STR(evidence(c, &mb, 5, 10), "1: 7", "... above it, it can");
	mb.lowuid = 0;
	mb.evuid = 4;
	TAP_STR(evidence(c, &mb, 1, 10), "cannot tell", "rows stored before "
	    "the hints were: cannot tell");
	mb.evuid = 0;
	cache_begin(c, &cause);
	memset(&m, 0, sizeof m);
	m.uid = 8;
	m.hints = CACHE_HINT_NOFIELDS;
	cache_put(c, &mb, &m, &cause);
	cache_commit(c, &cause);
	TAP_STR(evidence(c, &mb, 1, 10), "cannot tell", "a row whose header "
	    "fields did not come: cannot tell");
	TAP_STR(evidence(c, &mb, 1, 7), "2: 3 7", "... a range without it "
	    "can");
	/* UIDVALIDITY changes: the rows go, the hints of the new ones count */
	mb.evuid = 4;
	cache_mailbox_update(c, &mb, &cause);
	cache_mailbox(c, "INBOX", 2, &mb, &cause);
	TAP_OK(mb.evuid == 0, "a new UIDVALIDITY: evuid back to 0");
	cache_close(c);
	free(cause);
}

/*
 * A sync of many messages into a nearly empty cache drops the UID,
 * sender, subject and size indexes and makes them again after its batches; a
 * sync killed in between leaves them out, and opening the cache makes
 * them unless a sync going down (lowuid) is under way.
 */
static void
test_deferred(void)
{
	struct cache		*c;
	struct cache_mailbox	 mb;
	char			 p[300], made[1024], now[1024], *cause = NULL;
	uint32_t		 uid;

	snprintf(p, sizeof p, "%s/d.hcache", dir);
	c = cache_open_path(p, &cause);
	cache_mailbox(c, "INBOX", 1, &mb, &cause);
	deferred_sql(c, made, sizeof made);
	TAP_OK(strstr(made, "message_from") != NULL &&
	    strstr(made, "message_size") != NULL &&
	    strstr(made, "message_subject") != NULL &&
	    strstr(made, "message_uid") != NULL,
	    "a new cache has the UID, sender, subject and size indexes");
	cache_begin(c, &cause);
	put(c, &mb, 100, "newest");
	TAP_OK(cache_index_defer(c, 1, &cause) == 0,
	    "not deferred for fewer rows than the cache holds");
	TAP_OK(cache_index_defer(c, 50, &cause) == 1,
	    "deferred for more rows than the cache holds");
	for (uid = 1; uid < 50; uid++)
		put(c, &mb, uid, uid % 2 ? "Re: odd" : "even");
	cache_commit(c, &cause);
	deferred_sql(c, now, sizeof now);
	TAP_STR(now, "", "... the indexes are gone meanwhile");
	TAP_OK(cache_index_build(c, &cause) == 0, "cache_index_build runs");
	deferred_sql(c, now, sizeof now);
	TAP_STR(now, made, "... and makes them as a new cache has them");
	TAP_OK(cache_index_build(c, &cause) == 0, "... twice is harmless");

	/* killed going down: left out at open, made once it is done */
	cache_begin(c, &cause);
	cache_index_defer(c, 1000, &cause);
	mb.lowuid = 40;
	cache_mailbox_update(c, &mb, &cause);
	cache_commit(c, &cause);
	cache_close(c);
	c = cache_open_path(p, &cause);
	deferred_sql(c, now, sizeof now);
	TAP_STR(now, "", "opened while a sync going down is under way "
	    "(lowuid): left to that sync");
	TAP_OK(count(c, &mb) == 50, "... every row read without them");
	cache_mailbox_find(c, "INBOX", &mb, &cause);
	mb.lowuid = 0;
	cache_mailbox_update(c, &mb, &cause);
	cache_close(c);
	c = cache_open_path(p, &cause);
	deferred_sql(c, now, sizeof now);
	TAP_STR(now, made, "opened with no sync going down: made again");
	cache_close(c);
	free(cause);
}

int
main(void)
{
	struct cache		*c;
	struct cache_mailbox	 mb;
	char			*cause = NULL, got[64] = "";
	uint32_t		 keep[] = { 1, 3 };
	FILE			*f;
	sqlite3			*db;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/a.hcache", dir);

	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL, "a new cache is created");
	TAP_OK(cache_mailbox(c, "INBOX", 7, &mb, &cause) == 0 &&
	    mb.count == 0 && mb.uidvalidity == 7, "new mailbox is empty");
	cache_begin(c, &cause);
	put(c, &mb, 1, "one");
	put(c, &mb, 2, "two");
	put(c, &mb, 3, "three");
	cache_commit(c, &cause);
	cache_recount(c, &mb, &cause);
	TAP_OK(mb.count == 3 && mb.maxuid == 3, "three stored");
	TAP_OK(sqlite3_memory_used() == 0, "SQLite keeps no memory "
	    "statistics (%lld bytes counted): no global mutex on every "
	    "allocation", (long long)sqlite3_memory_used());
	cache_set_flags(c, &mb, 1, "FS", &cause);
	cache_each(c, &mb, first_subject, got, &cause);
	TAP_STR(got, "one/FS", "flags updated");
	mb.highestmodseq = 99;
	mb.uidnext = 4;
	cache_mailbox_update(c, &mb, &cause);
	cache_close(c);

	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL && cache_mailbox(c, "INBOX", 7, &mb, &cause) == 0 &&
	    mb.count == 3 && mb.highestmodseq == 99 && mb.uidnext == 4,
	    "state survives a reopen");
	cache_begin(c, &cause);
	TAP_OK(cache_delete_missing(c, &mb, keep, 2, 3, &cause) == 0,
	    "delete_missing runs");
	cache_commit(c, &cause);
	TAP_OK(count(c, &mb) == 2, "expunged UID 2 is gone");
	TAP_OK(cache_mailbox(c, "INBOX", 8, &mb, &cause) == 0 &&
	    mb.count == 0 && count(c, &mb) == 0 && mb.highestmodseq == 0,
	    "a new UIDVALIDITY drops the cached messages");
	TAP_OK(cache_mailbox(c, "../../etc/passwd", 1, &mb, &cause) == 0,
	    "a hostile mailbox name is only a value");
	{
		char	**names = NULL;
		size_t	  nnames = 0, i;

		TAP_OK(cache_mailbox_names(c, &names, &nnames, &cause) == 0 &&
		    nnames == 2 && strcmp(names[0], "../../etc/passwd") == 0 &&
		    strcmp(names[1], "INBOX") == 0,
		    "the mailboxes cached, by name");
		for (i = 0; i < nnames; i++)
			free(names[i]);
		free(names);
	}
	cache_close(c);

	/* An old schema is migrated, its rows and state kept. */
	make_v3(path);
	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL && cache_mailbox_find(c, "INBOX", &mb, &cause) == 1 &&
	    mb.count == 3 && mb.trust_uid == 3 && mb.uidnext == 4 &&
	    mb.uidvalidity == 5, "schema 3 is migrated: rows, UIDNEXT and "
	    "the trust step's resume point kept");
	TAP_OK(mb.highestmodseq == 0, "... HIGHESTMODSEQ forgotten, so the "
	    "next sync does not stop at \"nothing changed\"");
	{
		uint32_t	*ev = NULL;
		size_t		 nev = 9;

		TAP_OK(mb.evuid == 4 && cache_evidence(c, &mb, 1, 3, &ev,
		    &nev, &cause) == 0 && ev == NULL && nev == 0,
		    "rows stored without the trust step's hints: the cache "
		    "cannot tell the trust step's candidates (evuid above "
		    "them)");
	}
	{
		int		 n[2] = { 0, 0 }, np = 0;
		uint32_t	*stale = NULL;
		size_t		 nstale = 0;
		struct cache_msg m;

		cache_each(c, &mb, stale_cb, n, &cause);
		TAP_OK(n[0] == 3 && n[1] == 1, "old rows keep what they had, "
		    "flags too, and are marked stale");
		cache_pending_each(c, pending_cb, &np, &cause);
		TAP_OK(np == 1, "the pending flag change survives");
		TAP_OK(cache_stale(c, &mb, &stale, &nstale, &cause) == 0 &&
		    nstale == 3 && stale[0] == 1 && stale[2] == 3,
		    "cache_stale lists them for the next sync");
		free(stale);
		memset(&m, 0, sizeof m);
		m.uid = 2;
		strcpy(m.flags, "FS");
		m.from = "Alice";
		m.from_addr = "alice@example.org";
		m.subject = "new two";
		cache_put(c, &mb, &m, &cause);
		TAP_OK(cache_stale(c, &mb, &stale, &nstale, &cause) == 0 &&
		    nstale == 2 && stale[0] == 1 && stale[1] == 3,
		    "a row stored again is complete");
		free(stale);
	}
	cache_close(c);
	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL && cache_mailbox_find(c, "INBOX", &mb, &cause) == 1 &&
	    mb.count == 3, "the migrated cache opens again as it is");
	{
		struct cache_protected	p;

		memset(&p, 0, sizeof p);
		p.how = CACHE_OPENED_DECRYPTED;
		p.subject = "inner two";
		TAP_OK(cache_protected_put(c, &mb, 2, &p, &cause) == 1 &&
		    strcmp(prot_of(c, &mb, 2).inner, "inner two") == 0 &&
		    strcmp(prot_of(c, &mb, 2).outer, "new two") == 0,
		    "the migrated cache keeps protected values beside its "
		    "old rows");
	}
	cache_close(c);

	test_protected();

	/* Garbage where the cache was. */
	f = fopen(path, "w");
	fputs("this is not an SQLite database, not at all, no.\n", f);
	fclose(f);
	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL && cache_mailbox(c, "INBOX", 8, &mb, &cause) == 0 &&
	    mb.count == 0, "a corrupt file is rebuilt");
	cache_close(c);

	/* Somebody else's database. */
	unlink(path);
	sqlite3_open(path, &db);
	sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);",
	    NULL, NULL, NULL);
	sqlite3_close(db);
	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL && cache_mailbox(c, "INBOX", 1, &mb, &cause) == 0,
	    "a foreign database is replaced");
	cache_close(c);

	/* A directory where the file should be: an error, not a crash. */
	unlink(path);
	snprintf(path, sizeof path, "%s", dir);
	c = cache_open_path(path, &cause);
	TAP_OK(c == NULL && cause != NULL, "unusable path: clear error (%s)",
	    cause ? cause : "none");
	free(cause);
	cause = NULL;

	test_deferred();
	test_evidence();

	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return TAP_DONE();
}
