/*
 * test-cache.c: the header cache: storing, UIDVALIDITY changes, expunges,
 * and rebuilding a file that is corrupt or not ours.
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
	cache_close(c);

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

	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return TAP_DONE();
}
