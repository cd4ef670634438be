/*
 * test-index.c: the Index API on a real header cache and trust store:
 * what a row carries (the address beside a display name, so a name that
 * looks like another address shows for what it is), every sort both ways,
 * paging, the search expression, threads, and the trust states of a page;
 * an opened message's protected header values in the row, the sorts, the
 * search and the threads, and a sealed row for one not opened yet; then
 * on a generated mailbox that every view is in order and complete.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cache.h"
#include "index.h"
#include "tap.h"
#include "trust-store.h"

static char	dir[] = "/tmp/steed-index-XXXXXX";

/* SQLite's progress handler: a tick every 100 steps of its machine. */
static int
tick(void *arg)
{
	(*(unsigned long *)arg)++;
	return 0;
}

static void
put(struct cache *c, struct cache_mailbox *mb, uint32_t uid, const char *flags,
    const char *name, const char *addr, const char *subject, time_t sent,
    uint32_t size, const char *mid, const char *refs, unsigned hints)
{
	struct cache_msg	 m;
	char			*cause = NULL;

	memset(&m, 0, sizeof m);
	m.uid = uid;
	snprintf(m.flags, sizeof m.flags, "%s", flags);
	m.internaldate = 5000 + uid;
	m.size = size;
	m.from = name != NULL ? name : addr;	/* as the sync stores it */
	m.from_addr = addr;
	m.rcpt = "Team <team@example.org>, zed@example.org";
	m.subject = subject;
	m.sent = sent;
	m.message_id = mid;
	m.references = refs;
	m.hints = hints;
	if (cache_put(c, mb, &m, &cause) == -1) {
		printf("# put: %s\n", cause);
		free(cause);
	}
}

/* The UIDs of a whole view, as "1 2 3", read 2 rows a page. */
static const char *
uids(struct index *ix, const char *sort, const char *limit)
{
	static char		 out[256];
	struct index_view	 v = { 0, 0, NULL, NULL, 0 };
	struct index_row	*rows;
	size_t			 n, i, off = 0, len = 0;
	char			*cause = NULL;

	if (index_sort_parse(sort, &v) == -1)
		return "bad sort";
	v.limit = limit;
	out[0] = '\0';
	do {
		if (index_page(ix, &v, off, 2, NULL, &rows, &n,
		    &cause) == -1) {
			snprintf(out, sizeof out, "error: %s", cause);
			free(cause);
			return out;
		}
		for (i = 0; i < n; i++)
			len += (size_t)snprintf(out + len, sizeof out - len,
			    "%s%u", len ? " " : "", rows[i].uid);
		free(rows);
		off += n;
	} while (n > 0);
	return out;
}

/* Row uid into *r; its strings, those of a page, last until the next
 * call (the page is freed then). */
static struct index_row *
row(struct index *ix, uint32_t uid, struct trust_store *ts,
    struct index_row *r)
{
	static struct index_row	*rows;
	struct index_view	 v = { INDEX_SORT_ARRIVAL, 0, NULL, NULL, 0 };
	size_t			 n, i;
	char			*cause = NULL;

	free(rows);
	rows = NULL;
	if (index_page(ix, &v, 0, 100, ts, &rows, &n, &cause) == -1) {
		printf("# page: %s\n", cause);
		free(cause);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (rows[i].uid == uid) {
			*r = rows[i];
			return r;
		}
	}
	return NULL;
}

static void
record(struct trust_store *ts, const char *mid, const char *addr, int signed_)
{
	struct trust_sig	 sig;
	struct trust_verdict	 v;
	char			*key, *cause = NULL;

	memset(&sig, 0, sizeof sig);
	sig.proto = "openpgp";
	sig.status = signed_ ? TRUST_SIG_GOOD : TRUST_SIG_NONE;
	sig.fpr = signed_ ? "0123456789ABCDEF0123456789ABCDEF01234567" : NULL;
	key = trust_store_msgkey(mid, addr, NULL, 0);
	memset(&v, 0, sizeof v);
	if (trust_store_message(ts, key, addr, &sig, 1700000000, &v,
	    &cause) == -1) {
		printf("# trust: %s\n", cause);
		free(cause);
	} else
		trust_verdict_free(&v);
	free(key);
}

/* The protected header values of opened messages, and sealed rows. */
static void
protected(struct cache *c, struct trust_store *ts)
{
	struct cache_mailbox	 mb;
	struct cache_protected	 p;
	struct index		*ix;
	struct index_row	 r, *rp;
	struct index_view	 v = { INDEX_SORT_THREAD, 0, NULL, NULL, 0 };
	struct index_row	*rows;
	size_t			 n, i;
	char			*cause = NULL;
	uint32_t		 depth2 = 99;

	cache_mailbox(c, "Secret", 1, &mb, &cause);
	put(c, &mb, 1, "S", "Bob", "bob@example.org", "Plan for Monday",
	    3000, 10, "<p1@x>", NULL, 0);
	put(c, &mb, 2, "S", "Alice", "alice@example.org", "...", 4000, 10,
	    "<p2@x>", NULL, CACHE_HINT_ENCRYPTED | CACHE_HINT_SIGNED);
	put(c, &mb, 3, "", "Alice", "alice@example.org", "...", 5000, 10,
	    "<p3@x>", NULL, CACHE_HINT_ENCRYPTED);
	put(c, &mb, 4, "", "Carol", "carol@example.org", "Real outer", 6000,
	    10, "<p4@x>", NULL, CACHE_HINT_ENCRYPTED);
	put(c, &mb, 5, "", "Dave", "dave@example.org", "[...]", 7000, 10,
	    "<p5@x>", NULL, CACHE_HINT_ENCRYPTED | CACHE_HINT_SMIME);
	memset(&p, 0, sizeof p);
	p.how = CACHE_OPENED_DECRYPTED | CACHE_OPENED_SIGNED;
	p.subject = "Zebra crossing";
	p.from = "Alice Inner";
	p.from_addr = "alice@example.org";
	p.message_id = "<p2-inner@x>";
	p.references = "<p1@x>";
	p.sent = 3500;
	cache_protected_put(c, &mb, 2, &p, &cause);
	/* opened, but nothing vouched for a protected header */
	memset(&p, 0, sizeof p);
	cache_protected_put(c, &mb, 5, &p, &cause);
	record(ts, "<p2@x>", "alice@example.org", 1);

	ix = index_open(c, "Secret", &cause);
	rp = row(ix, 2, ts, &r);
	TAP_OK(rp != NULL && r.subject != NULL &&
	    strcmp(r.subject, "Zebra crossing") == 0 && !r.sealed &&
	    strcmp(r.from, "Alice Inner") == 0 && r.date == 3500,
	    "an opened message's row shows its protected Subject, From and "
	    "Date");
	TAP_OK(rp != NULL && r.prot == (INDEX_PROT_SUBJECT | INDEX_PROT_FROM |
	    INDEX_PROT_DATE | INDEX_PROT_THREAD) && !(r.prot &
	    INDEX_PROT_RCPT) && strcmp(r.rcpt, "Team <team@example.org>, "
	    "zed@example.org") == 0,
	    "... it says which values are protected (not To: the outer one "
	    "stands)");
	TAP_OK(rp != NULL && strcmp(r.message_id, "<p2-inner@x>") == 0 &&
	    strcmp(r.outer_message_id, "<p2@x>") == 0 &&
	    r.trust == TRUST_FIRST_CONTACT,
	    "... its trust state found by the outer Message-ID (%s)",
	    rp != NULL ? trust_state_name(r.trust) : "-");
	rp = row(ix, 3, NULL, &r);
	TAP_OK(rp != NULL && r.sealed && r.subject == NULL && r.prot == 0,
	    "an encrypted message not opened, Subject \"...\": sealed");
	rp = row(ix, 4, NULL, &r);
	TAP_OK(rp != NULL && !r.sealed && strcmp(r.subject, "Real outer") ==
	    0, "... one whose outer Subject is a real one is not");
	rp = row(ix, 5, NULL, &r);
	TAP_OK(rp != NULL && !r.sealed && strcmp(r.subject, "[...]") == 0 &&
	    r.prot == 0, "... nor one opened that had no protected header "
	    "to use: its outer Subject");
	TAP_STR(uids(ix, "subject", NULL), "3 5 1 4 2",
	    "sorted by subject: the protected one by its own, the sealed one "
	    "first");
	TAP_STR(uids(ix, "from", NULL), "3 2 1 4 5",
	    "sorted by sender: the protected name counts (Alice Inner after "
	    "Alice)");
	TAP_STR(uids(ix, "date", NULL), "1 2 3 4 5",
	    "sorted by date: the protected Date");
	TAP_STR(uids(ix, "subject", "~s zebra"), "2",
	    "~s finds the protected Subject");
	TAP_STR(uids(ix, "subject", "crossing"), "2",
	    "... so does a bare word");
	TAP_STR(uids(ix, "subject", "~f inner"), "2",
	    "~f finds the protected name");
	TAP_STR(uids(ix, "subject", "~s ..."), "5",
	    "the outer placeholder is searched only where it is what is "
	    "shown");
	TAP_STR(uids(ix, "subject", "~s encrypted"), "",
	    "... nor the words shown for a sealed one");
	if (index_page(ix, &v, 0, 10, NULL, &rows, &n, &cause) == 0) {
		for (i = 0; i < n; i++)
			if (rows[i].uid == 2)
				depth2 = rows[i].depth;
		free(rows);
	}
	TAP_OK(depth2 == 1, "threads follow the protected References: 2 "
	    "under 1 (depth %u)", depth2);
	index_close(ix);
	free(cause);
}

/* A generated mailbox: every view complete and in order. */
static void
generated(struct cache *c, struct cache_mailbox *mb)
{
	static const char	*names[] = { "Zoe", "adam", "Bea", NULL, "carl" };
	static const char	*subj[] = { "Re: plan", "plan", "Fwd: budget",
				     "budget", "AW: Re: zebra", "apple" };
	struct index_view	 v = { 0, 0, NULL, NULL, 0 };
	struct index_row	*all, *rows;
	struct index		*ix;
	char			 addr[64], mid[64], refs[64], *cause = NULL;
	unsigned		 seed = 7, s;
	size_t			 i, n, got, off, bad, sorts;
	uint32_t		*seen;
	int			 c1;

	cache_begin(c, &cause);
	for (i = 1; i <= 5000; i++) {
		seed = seed * 1103515245 + 12345;
		s = seed >> 8;
		snprintf(addr, sizeof addr, "u%u@d%u.example", s % 300, s % 7);
		snprintf(mid, sizeof mid, "<g%zu@gen>", i);
		snprintf(refs, sizeof refs, "<g%u@gen>", s % (unsigned)i + 1);
		put(c, mb, (uint32_t)i, s % 3 ? "S" : "", names[s % 5], addr,
		    subj[s % 6], (time_t)(1000000 + s % 100000), s % 20000,
		    mid, s % 2 ? refs : NULL, 0);
	}
	cache_commit(c, &cause);
	if ((ix = index_open(c, "Gen", &cause)) == NULL) {
		TAP_OK(0, "open: %s", cause);
		return;
	}
	TAP_OK(index_total(ix) == 5000, "5000 messages in the index");
	seen = calloc(5001, sizeof *seen);
	for (sorts = 0; sorts < 12; sorts++) {
		v.sort = (enum index_sort)(sorts / 2);
		v.reverse = (int)(sorts % 2);
		all = calloc(5000, sizeof *all);
		for (off = 0, got = 0; ; off += n) {
			if (index_page(ix, &v, off, 50, NULL, &rows, &n,
			    &cause) == -1 || n == 0)
				break;
			/* a page's strings go with it */
			memcpy(all + got, rows, n * sizeof *rows);
			for (i = 0; i < n; i++)
				all[got + i].from = strdup(rows[i].from);
			got += n;
			free(rows);
		}
		memset(seen, 0, 5001 * sizeof *seen);
		for (i = 0, bad = 0; i < got; i++)
			if (seen[all[i].uid]++)
				bad++;
		for (i = 1; i < got; i++) {
			const struct index_row *a = &all[i - 1], *b = &all[i];
			if (v.reverse) {
				a = &all[i];
				b = &all[i - 1];
			}
			switch (v.sort) {
			case INDEX_SORT_ARRIVAL:
				c1 = a->uid < b->uid ? -1 : 1;
				break;
			case INDEX_SORT_DATE:
				c1 = a->date < b->date ? -1 :
				    a->date > b->date;
				break;
			case INDEX_SORT_FROM:
				c1 = strcasecmp(a->from, b->from);
				break;
			case INDEX_SORT_SIZE:
				c1 = a->size < b->size ? -1 :
				    a->size > b->size;
				break;
			case INDEX_SORT_SUBJECT:
				c1 = 0;		/* checked by hand above */
				break;
			default:
				/* A thread's replies come after it. */
				c1 = all[i].depth > all[i - 1].depth + 1;
				break;
			}
			if (c1 > 0)
				bad++;
		}
		TAP_OK(got == 5000 && bad == 0, "sort %s%s: all 5000, once, "
		    "in order, 50 a page (%zu out of place)", v.reverse ?
		    "-" : "", index_sort_name(v.sort), bad);
		/* a row's offset, counted from either end */
		{
			size_t	at[] = { 0, 1, 2500, 3998, 3999, 4000, 4001,
				    4998, 4999 }, k, place, wrong = 0;

			for (k = 0; got == 5000 && k < sizeof at / sizeof at[0];
			    k++)
				if (index_find(ix, &v, all[at[k]].uid,
				    &place) == -1 || place != at[k])
					wrong++;
			TAP_OK(got == 5000 && wrong == 0, "... index_find "
			    "gives the place of rows near the start, the "
			    "middle and the end (%zu wrong)", wrong);
		}
		/* the last row is found by seeking, not by a walk
		 * through the folder (which takes thousands of steps) */
		{
			unsigned long	ticks = 0;
			size_t		place;

			sqlite3_progress_handler(cache_sqlite(c), 100, tick,
			    &ticks);
			if (got == 5000)
				index_find(ix, &v, all[4999].uid, &place);
			sqlite3_progress_handler(cache_sqlite(c), 0, NULL,
			    NULL);
			TAP_OK(got == 5000 && ticks < 10, "... and the last "
			    "row costs a seek (%lu times 100 steps)", ticks);
		}
		for (i = 0; i < got; i++)
			free((char *)all[i].from);
		free(all);
	}
	free(seen);
	v.sort = INDEX_SORT_DATE;
	v.reverse = 0;
	v.limit = "~f adam ~s plan !~N";
	if (index_count(ix, &v, &n, &cause) == 0) {
		/* Count again from what was generated. */
		got = 0;
		seed = 7;
		for (i = 1; i <= 5000; i++) {
			seed = seed * 1103515245 + 12345;
			s = seed >> 8;
			if (s % 5 == 1 && (s % 6 == 0 || s % 6 == 1) &&
			    s % 3 != 0)
				got++;
		}
		TAP_OK(n == got && n > 0, "search on 5000: %zu match, as "
		    "generated (%zu)", n, got);
	} else
		TAP_OK(0, "search: %s", cause);
	index_close(ix);
}

/* How many of the view's rows, paged 40 at a time, and whether their
 * UIDs are exactly want (in date order, newest first). */
static int
view_is(struct index *ix, const char *limit, const uint32_t *want,
    size_t nwant, size_t *count)
{
	struct index_view	 v = { INDEX_SORT_DATE, 1, NULL, NULL, 0 };
	struct index_row	*rows;
	size_t			 n, i, off = 0, got = 0;
	char			*cause = NULL;
	int			 same = 1;

	v.limit = limit;
	*count = 0;
	if (index_count(ix, &v, count, &cause) == -1) {
		printf("# %s: %s\n", limit, cause);
		free(cause);
		return 0;
	}
	do {
		if (index_page(ix, &v, off, 40, NULL, &rows, &n,
		    &cause) == -1) {
			printf("# %s: %s\n", limit, cause);
			free(cause);
			return 0;
		}
		for (i = 0; i < n; i++, got++)
			if (got >= nwant || rows[i].uid != want[got])
				same = 0;
		free(rows);
		off += n;
	} while (n > 0);
	return same && got == nwant && *count == nwant;
}

/*
 * A limit by sender in a folder large enough that the index reads only
 * the messages of the senders whose name or address holds the word
 * (sender_seen): the same rows as the words say, whether every address
 * of a name matches or only some, with an opened message's protected
 * sender, with other terms beside, and after new mail.
 */
static void
by_sender(struct cache *c)
{
	struct cache_mailbox	 mb;
	struct cache_protected	 p;
	struct index		*ix;
	uint32_t		 want[3100];
	size_t			 n, k, got, other;
	char			*cause = NULL;
	uint32_t		 uid;
	int			 fast_seen;

	cache_mailbox(c, "Senders", 3, &mb, &cause);
	cache_begin(c, &cause);
	for (uid = 1; uid <= 3000; uid++) {
		/* newest = highest UID: the date is the UID */
		if (uid % 30 == 1)
			put(c, &mb, uid, "S", "Ada Berg", "ada@a.example",
			    uid % 60 == 1 ? "hello" : "budget", uid, 10, NULL,
			    NULL, 0);
		else if (uid % 30 == 2)
			put(c, &mb, uid, "S", "Ada Berg", "berg@b.example",
			    "hello", uid, 10, NULL, NULL, 0);
		else if (uid % 30 == 3)
			put(c, &mb, uid, "S", "Other", "other@o.example",
			    "hello", uid, 10, NULL, NULL, 0);
		else
			put(c, &mb, uid, "S", "Bulk", "bulk@x.example",
			    "news", uid, 10, NULL, NULL, 0);
	}
	cache_commit(c, &cause);
	/* one Bulk message opened: its protected sender is Ada Secret */
	memset(&p, 0, sizeof p);
	p.how = CACHE_OPENED_DECRYPTED;
	p.from = "Ada Secret";
	p.from_addr = "secret@s.example";
	cache_protected_put(c, &mb, 2000, &p, &cause);
	ix = index_open(c, "Senders", &cause);

	/* ~f ada: both of Ada Berg's addresses match, and Ada Secret */
	for (uid = 3000, k = 0; uid >= 1; uid--)
		if (uid % 30 == 1 || uid % 30 == 2 || uid == 2000)
			want[k++] = uid;
	TAP_OK(view_is(ix, "~f ada", want, k, &n), "~f ada on 3000: "
	    "the %zu messages of both of Ada Berg's addresses and the opened"
	    " one, newest first (%zu)", k, n);
	got = n;
	/* ~f berg@: only one address of the name Ada Berg */
	for (uid = 3000, k = 0; uid >= 1; uid--)
		if (uid % 30 == 2)
			want[k++] = uid;
	TAP_OK(view_is(ix, "~f berg@", want, k, &n), "~f berg@: %zu of the "
	    "name's messages, not those of its other address (%zu)", k, n);
	/* with another term */
	for (uid = 3000, k = 0; uid >= 1; uid--)
		if ((uid % 30 == 1 && uid % 60 == 1) || uid % 30 == 2)
			want[k++] = uid;
	TAP_OK(view_is(ix, "~s hello ~f ada", want, k, &n), "~s hello ~f "
	    "ada: %zu (%zu)", k, n);
	/* the opened message is not Bulk's any more */
	for (uid = 3000, k = 0; uid >= 1; uid--)
		if (uid % 30 > 3 || uid % 30 == 0)
			if (uid != 2000)
				want[k++] = uid;
	TAP_OK(view_is(ix, "~f bulk", want, k, &n), "~f bulk (most of the "
	    "folder, walked): %zu, without the opened one (%zu)", k, n);
	other = 0;
	{
		struct index_view	v = { INDEX_SORT_DATE, 1, "!~f ada",
					    NULL, 0 };

		index_count(ix, &v, &other, &cause);
	}
	TAP_OK(other + got == 3000, "!~f ada and ~f ada: all 3000 (%zu + "
	    "%zu)", other, got);

	/* new mail from a new Ada, seen after a refresh */
	put(c, &mb, 3001, "", "Adalind", "new@n.example", "hi", 3001, 10,
	    NULL, NULL, 0);
	index_refresh(ix);
	for (uid = 3001, k = 0; uid >= 1; uid--)
		if (uid % 30 == 1 || uid % 30 == 2 || uid == 2000 ||
		    uid == 3001)
			want[k++] = uid;
	fast_seen = view_is(ix, "~f ada", want, k, &n);
	TAP_OK(fast_seen, "... a new sender's message is in it after new "
	    "mail (%zu)", n);
	/* and an expunged one leaves it */
	cache_delete(c, &mb, 3001, &cause);
	index_refresh(ix);
	TAP_OK(view_is(ix, "~f ada", want + 1, k - 1, &n), "... and gone "
	    "once expunged (%zu)", n);
	index_close(ix);
	free(cause);
}

int
main(void)
{
	struct cache		*c;
	struct cache_mailbox	 mb, gen;
	struct trust_store	*ts;
	struct index		*ix;
	struct index_row	 r, *rows;
	struct index_view	 v = { INDEX_SORT_THREAD, 0, NULL, NULL, 0 };
	char			 path[256], tpath[256], *cause = NULL;
	size_t			 n;
	uint32_t		 thread = 0;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/a.hcache", dir);
	snprintf(tpath, sizeof tpath, "%s/trust.sqlite", dir);
	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL, "cache opens%s%s", cause ? ": " : "", cause ? cause : "");
	if (c == NULL)
		return 1;
	cache_mailbox(c, "INBOX", 7, &mb, &cause);
	put(c, &mb, 1, "S", "Alice Example", "alice@a.example", "Hello",
	    3000, 500, "<1@a>", NULL, CACHE_HINT_ATTACH);
	put(c, &mb, 2, "", NULL, "bob@b.example", "Re: hello", 4000, 100,
	    "<2@b>", "<1@a>", 0);
	put(c, &mb, 3, "F", "alice@a.example", "mallory@evil.example",
	    "Urgent", 1000, 900, "<3@e>", NULL, CACHE_HINT_SIGNED);
	put(c, &mb, 4, "ST", "Carol", "carol@c.example", "Fwd: Agenda", 2000,
	    300, "<4@c>", "<0@gone> <2@b>", CACHE_HINT_ENCRYPTED |
	    CACHE_HINT_SMIME);
	put(c, &mb, 5, "S", "Dave", "dave@d.example", "agenda", 0, 700,
	    "<5@d>", "<0@gone>", 0);

	ix = index_open(c, "INBOX", &cause);
	TAP_OK(ix != NULL && index_total(ix) == 5, "index opens, 5 rows");
	if (ix == NULL)
		return 1;
	ts = trust_store_open(tpath, &cause);
	TAP_OK(ts != NULL, "trust store opens");
	record(ts, "<1@a>", "alice@a.example", 1);
	record(ts, "<3@e>", "mallory@evil.example", 0);

	TAP_OK(row(ix, 3, ts, &r) != NULL, "row 3");
	TAP_STR(r.from_name, "alice@a.example", "a name that looks like an "
	    "address stays a name");
	TAP_STR(r.from_addr, "mallory@evil.example", "... beside the real "
	    "address");
	TAP_OK(r.trust == TRUST_UNSIGNED, "... and the trust state of that "
	    "address's message (%s)", trust_state_name(r.trust));
	TAP_OK(r.hints == CACHE_HINT_SIGNED, "signed hint");
	TAP_OK(row(ix, 2, ts, &r) != NULL && r.from_name == NULL &&
	    strcmp(r.from, "bob@b.example") == 0 && r.trust == TRUST_NONE,
	    "no name: the address shows; not processed: state none");
	TAP_OK(row(ix, 1, ts, &r) != NULL && r.trust == TRUST_FIRST_CONTACT &&
	    strcmp(r.from, "Alice Example") == 0 &&
	    strcmp(r.rcpt, "Team <team@example.org>, zed@example.org") == 0 &&
	    r.hints == CACHE_HINT_ATTACH && r.date == 3000 && r.size == 500,
	    "row 1: name, recipients, date, size, attachment, first contact");
	TAP_OK(row(ix, 5, NULL, &r) != NULL && r.date == 5005 &&
	    r.arrival == 5005, "no Date: the arrival time stands in");

	TAP_STR(uids(ix, "arrival", NULL), "1 2 3 4 5", "by arrival");
	TAP_STR(uids(ix, "-arrival", NULL), "5 4 3 2 1", "by arrival, reversed");
	TAP_STR(uids(ix, "date", NULL), "3 4 1 2 5", "by date");
	TAP_STR(uids(ix, "-date", NULL), "5 2 1 4 3", "by date, reversed");
	TAP_STR(uids(ix, "from", NULL), "1 3 2 4 5",
	    "by sender: name, else address, case aside");
	TAP_STR(uids(ix, "subject", NULL), "4 5 1 2 3",
	    "by subject, without Re: and Fwd:, case aside; then by date");
	TAP_STR(uids(ix, "size", NULL), "2 4 1 5 3", "by size");
	TAP_STR(uids(ix, "-size", NULL), "3 5 1 4 2", "by size, reversed");
	TAP_STR(uids(ix, "thread", NULL), "3 1 2 4 5", "by thread");
	TAP_OK(index_sort_parse("sender", &v) == -1, "an unknown sort");

	index_sort_parse("thread", &v);
	if (index_page(ix, &v, 0, 10, NULL, &rows, &n, &cause) == 0 &&
	    n == 5) {
		TAP_OK(rows[1].depth == 0 && rows[2].depth == 1 &&
		    rows[3].depth == 2 && rows[4].depth == 0 &&
		    rows[2].thread == rows[3].thread &&
		    rows[1].thread == rows[2].thread &&
		    rows[4].thread != rows[2].thread &&
		    rows[0].thread != rows[2].thread,
		    "thread depths; Dave's parent is gone: a thread of its own");
		TAP_OK((rows[4].tflags & INDEX_ROW_ORPHAN) &&
		    !(rows[2].tflags & INDEX_ROW_ORPHAN),
		    "a missing parent is marked");
		free(rows);
	} else
		TAP_OK(0, "thread page");

	TAP_STR(uids(ix, "arrival", "~f alice"), "1 3",
	    "~f: name or address");
	TAP_STR(uids(ix, "arrival", "~f evil.example"), "3",
	    "~f finds the real address");
	TAP_STR(uids(ix, "arrival", "~s AGENDA"), "4 5", "~s, case aside");
	TAP_STR(uids(ix, "arrival", "~t zed@"), "1 2 3 4 5", "~t");
	TAP_STR(uids(ix, "arrival", "~N"), "2 3", "~N: not seen");
	TAP_STR(uids(ix, "arrival", "~F"), "3", "~F: flagged");
	TAP_STR(uids(ix, "arrival", "~D"), "4", "~D: deleted");
	TAP_STR(uids(ix, "arrival", "!~N hello"), "1",
	    "! and a plain word (sender or subject), both must hold");
	TAP_STR(uids(ix, "-date", "\"re: hello\""), "2", "a quoted word");
	TAP_STR(uids(ix, "arrival", "~s nothing-like-it"), "", "no match");
	TAP_STR(uids(ix, "arrival", "~x"), "error: search: unknown pattern ~x",
	    "an unknown pattern is an error");
	TAP_STR(uids(ix, "arrival", "~s"), "error: search: ~s needs a word",
	    "~s needs a word");
	TAP_STR(uids(ix, "arrival", "~Nx"), "error: search: ~N takes no word",
	    "~N takes none");

	v.sort = INDEX_SORT_DATE;
	v.limit = NULL;
	TAP_OK(index_page(ix, &v, 5, 10, NULL, &rows, &n, &cause) == 0 &&
	    n == 0 && rows == NULL, "a page past the end is empty");
	TAP_OK(index_page(ix, &v, 3, 10, NULL, &rows, &n, &cause) == 0 &&
	    n == 2 && rows[0].uid == 2 && rows[1].uid == 5,
	    "the last page is short");
	free(rows);

	/* Views of every message are kept: the same order when they come
	 * back, after limits and other sorts in between. */
	TAP_OK(index_prepare(ix, INDEX_SORT_THREAD, 0, &cause) == 0,
	    "index_prepare");
	TAP_STR(uids(ix, "date", "~s agenda"), "4 5", "a limited view");
	TAP_STR(uids(ix, "thread", NULL), "3 1 2 4 5", "the thread view again");
	TAP_STR(uids(ix, "-date", NULL), "5 2 1 4 3", "-date again");
	TAP_STR(uids(ix, "date", NULL), "3 4 1 2 5", "date again");
	TAP_STR(uids(ix, "thread", NULL), "3 1 2 4 5", "and thread once more");

	/* Collapsing threads, finding and searching rows. */
	index_sort_parse("thread", &v);
	/* a thread is named by a row's thread */
	if (index_page(ix, &v, 1, 1, NULL, &rows, &n, &cause) == 0 && n == 1) {
		thread = rows[0].thread;
		free(rows);
	}
	TAP_OK(index_collapse(ix, &v, thread, 1, &cause) == 0 &&
	    index_count(ix, &v, &n, &cause) == 0 && n == 3,
	    "a collapsed thread shows its first message only");
	TAP_STR(uids(ix, "thread", NULL), "3 1 5", "... in the rows");
	if (index_page(ix, &v, 1, 1, NULL, &rows, &n, &cause) == 0 && n == 1) {
		TAP_OK(rows[0].uid == 1 && rows[0].hidden == 2,
		    "... with the number of replies hidden under it");
		free(rows);
	} else
		TAP_OK(0, "collapsed page");
	TAP_OK(index_find(ix, &v, 5, &n) == 0 && n == 2, "index_find");
	TAP_OK(index_find(ix, &v, 2, &n) == -1, "a hidden reply is not found");
	TAP_OK(index_collapse(ix, &v, thread, -1, &cause) == 0 &&
	    index_count(ix, &v, &n, &cause) == 0 && n == 5, "toggled open");
	TAP_OK(index_collapse(ix, &v, INDEX_ALL_THREADS, 1, &cause) == 0 &&
	    index_count(ix, &v, &n, &cause) == 0 && n == 3,
	    "every thread collapsed");
	v.sort = INDEX_SORT_DATE;
	TAP_OK(index_count(ix, &v, &n, &cause) == 0 && n == 5,
	    "another view shows everything");
	TAP_OK(index_search(ix, &v, "~s agenda", 0, 1, &n, &cause) == 0 &&
	    n == 1, "index_search: the next match after the cursor");
	TAP_OK(index_search(ix, &v, "~s agenda", 1, 1, &n, &cause) == 0 &&
	    n == 4, "... and the one after");
	TAP_OK(index_search(ix, &v, "~s agenda", 4, 1, &n, &cause) == 0 &&
	    n == 1, "... going round the end");
	TAP_OK(index_search(ix, &v, "~s agenda", 1, -1, &n, &cause) == 0 &&
	    n == 4, "... and backwards");
	TAP_OK(index_search(ix, &v, "~s none-such", 0, 1, &n, &cause) == 1,
	    "none found");
	TAP_OK(index_search(ix, &v, "~q", 0, 1, &n, &cause) == -1,
	    "a bad expression");
	free(cause);
	cause = NULL;
	{
		uint32_t	only[] = { 2, 4 };

		v.uids = only;
		v.nuids = 2;
		TAP_OK(index_count(ix, &v, &n, &cause) == 0 && n == 2,
		    "a view of given UIDs (a server's search)");
		v.uids = NULL;
		v.nuids = 0;
	}
	index_close(ix);

	ix = index_open(c, "Nothing", &cause);
	TAP_OK(ix != NULL && index_total(ix) == 0 &&
	    index_page(ix, &v, 0, 50, ts, &rows, &n, &cause) == 0 && n == 0,
	    "a folder not cached is an empty index");
	index_close(ix);

	protected(c, ts);
	cache_mailbox(c, "Gen", 9, &gen, &cause);
	generated(c, &gen);
	by_sender(c);

	trust_store_close(ts);
	cache_close(c);
	unlink(path);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	if (system(path) != 0)
		printf("# cleaning up failed\n");
	return TAP_DONE();
}
