/*
 * indexbench: the index half of make bench (tests/bench/index.sh).
 *
 *   indexbench [-a] [-n MESSAGES] [-r RUNS] DIR
 *   indexbench -m DIR
 *
 * Fills a new header cache DIR/bench.hcache, untimed, with MESSAGES
 * (100,000) messages through cache_put, as a sync stores them: senders
 * with and without display names, subjects with "Re:" and "Fwd:", a date
 * each, sizes, and conversations: about half the messages reply to an
 * earlier one (References to its thread's root and to it), some to one
 * that is not in the mailbox. A trust store DIR/trust.sqlite gets a state
 * for one message in twenty, through trust_store_message.
 *
 * Then, RUNS (5) times, it times what the index costs on that cache:
 * index_open; for every sort both ways, counting the view
 * (the sort, once) and then pages of 50 rows with their trust states at
 * the start, the middle and the end of the view; the thread sort; a
 * search. Each page must hold 50 rows in the view's order, or the run
 * fails: a broken run cannot look fast.
 *
 * With -a it times the cache of MESSAGES messages DIR holds from a run
 * before, without filling it again. With -m it fills nothing and times nothing: it opens the cache DIR
 * holds, as the interface does (index_readonly), reads every view both
 * ways at its start, middle and end, steps through 2,000 rows of the date
 * view a row at a time and 100 pages, searches, and prints its peak RSS
 * as "peak BYTES": run on caches of 10,000 and 100,000 messages it shows
 * whether the index's memory grows with the mailbox.
 *
 * Prints, one per line:
 *   fill MESSAGES SECONDS           (all but the newest 1,000)
 *   threads SECONDS                 (their stored thread order made)
 *   threads-new 1000 SECONDS        (the newest 1,000 stored, then
 *                                    threaded: new mail)
 *   open SECONDS
 *   view SORT SECONDS               (making the view: sort, threads)
 *   page SORT SECONDS               (the slowest of its three pages)
 *   search EXPR COUNT SECONDS
 *   snapshot BYTES                  (peak RSS with a snapshot open, less
 *                                    before it was opened)
 * Exits 1 on any failure, 2 on a usage error.
 */
#include <sys/resource.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "index.h"
#include "trust-store.h"
#include "xmalloc.h"

#define PAGE	50
#define NEW	1000		/* messages stored after the threads were made */

static const char	*first[] = { "Ada", "Boris", "Chen", "Dana", "Emil",
			    "Farah", "Gus", "Hana", "Ivan", "Jo", "Kemal",
			    "Lena", "Mara", "Nils", "Olga", "Pia" };
static const char	*last[] = { "Lovelace", "Novak", "Wei", "Scully",
			    "Berg", "Haddad", "Grissom", "Kato", "Petrov" };
static const char	*words[] = { "report", "meeting", "invoice", "draft",
			    "release", "question", "update", "review",
			    "budget", "plan", "notes", "build", "trip" };

static unsigned long	seed = 42;

static unsigned
rnd(unsigned n)
{
	seed = seed * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((seed >> 33) % n);
}

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
die(const char *what, const char *cause)
{
	fprintf(stderr, "indexbench: %s%s%s\n", what, cause ? ": " : "",
	    cause ? cause : "");
	exit(1);
}

static void
fill(const char *dir, unsigned n)
{
	struct cache		*c;
	struct cache_mailbox	 mb;
	struct cache_msg	 m;
	struct trust_store	*ts;
	struct trust_sig	 sig;
	struct trust_verdict	 v;
	uint32_t		*root;
	char			*path, *cause = NULL, name[64], addr[64];
	char			 subj[128], mid[64], refs[160], *key;
	unsigned		 i, p, s;
	double			 t0 = now_s();

	path = xasprintf("%s/bench.hcache", dir);
	if ((c = cache_open_path(path, &cause)) == NULL)
		die("cache", cause);
	free(path);
	path = xasprintf("%s/trust.sqlite", dir);
	if ((ts = trust_store_open(path, &cause)) == NULL)
		die("trust store", cause);
	free(path);
	if (cache_mailbox(c, "INBOX", 1, &mb, &cause) == -1 ||
	    cache_begin(c, &cause) == -1)
		die("cache", cause);
	root = xcalloc(n + 1, sizeof *root);
	for (i = 1; i <= n; i++) {
		if (n > 2 * NEW && i == n - NEW + 1) {
			/* threaded, then the newest come as new mail */
			if (cache_commit(c, &cause) == -1)
				die("cache", cause);
			printf("fill %u %.3f\n", n - NEW, now_s() - t0);
			t0 = now_s();
			if (index_thread_prepare(c, "INBOX", &cause) == -1)
				die("threads", cause);
			printf("threads %.6f\n", now_s() - t0);
			if (cache_begin(c, &cause) == -1)
				die("cache", cause);
		}
		memset(&m, 0, sizeof m);
		s = rnd(2000);
		snprintf(addr, sizeof addr, "%s.%u@d%u.example",
		    first[s % 16], s, s % 97);
		snprintf(name, sizeof name, "%s %s", first[s % 16],
		    last[s % 9]);
		snprintf(mid, sizeof mid, "<%u@bench.example>", i);
		m.uid = i;
		strcpy(m.flags, rnd(4) ? "S" : "");
		m.internaldate = 1600000000 + (time_t)i * 600;
		m.sent = m.internaldate - rnd(3600);
		m.size = 500 + rnd(200000);
		m.from = s % 5 ? name : addr;
		m.from_addr = addr;
		m.rcpt = "Team <team@bench.example>";
		m.message_id = mid;
		m.hints = rnd(8) == 0 ? CACHE_HINT_SIGNED : 0;
		root[i] = i;
		if (i > 1 && rnd(2)) {
			/* A reply: to an earlier message, or a missing one. */
			p = i - 1 - rnd(i - 1 < 500 ? i - 1 : 500);
			root[i] = root[p];
			if (rnd(10) == 0)
				snprintf(refs, sizeof refs, "<gone.%u@x> "
				    "<gone.%u@y>", root[p], p);
			else
				snprintf(refs, sizeof refs, "<%u@bench.example>"
				    " <%u@bench.example>", root[p], p);
			m.references = refs;
			snprintf(subj, sizeof subj, "Re: %s %u",
			    words[root[i] % 13], root[i]);
		} else
			snprintf(subj, sizeof subj, "%s%s %u",
			    rnd(10) == 0 ? "Fwd: " : "", words[i % 13], i);
		m.subject = subj;
		if (cache_put(c, &mb, &m, &cause) == -1)
			die("cache_put", cause);
		if (i % 20 == 0) {
			memset(&sig, 0, sizeof sig);
			sig.proto = "openpgp";
			sig.status = TRUST_SIG_NONE;
			key = trust_store_msgkey(mid, addr, NULL, 0);
			if (trust_store_message(ts, key, addr, &sig,
			    1700000000, &v, &cause) == -1)
				die("trust_store_message", cause);
			trust_verdict_free(&v);
			free(key);
		}
	}
	if (cache_commit(c, &cause) == -1)
		die("cache", cause);
	free(root);
	if (n <= 2 * NEW)
		printf("fill %u %.3f\n", n, now_s() - t0);
	t0 = now_s();
	if (index_thread_prepare(c, "INBOX", &cause) == -1)
		die("threads", cause);
	printf("%s %.6f\n", n > 2 * NEW ? "threads-new 1000" : "threads",
	    now_s() - t0);
	trust_store_close(ts);
	cache_close(c);
}

/* The rows must be those of the view, in its order. */
static int
in_order(const struct index_view *v, const struct index_row *r, size_t n)
{
	size_t	i;
	int	c;

	for (i = 1; i < n; i++) {
		const struct index_row *a = &r[i - 1], *b = &r[i];

		if (v->reverse) {
			a = &r[i];
			b = &r[i - 1];
		}
		switch (v->sort) {
		case INDEX_SORT_ARRIVAL:
			c = a->uid < b->uid ? -1 : 1;
			break;
		case INDEX_SORT_DATE:
			c = a->date < b->date ? -1 : a->date > b->date;
			break;
		case INDEX_SORT_FROM:
			c = strcasecmp(a->from, b->from);
			break;
		case INDEX_SORT_SIZE:
			c = a->size < b->size ? -1 : a->size > b->size;
			break;
		case INDEX_SORT_THREAD:
			c = r[i].depth > r[i - 1].depth + 1;
			break;
		default:
			c = 0;
			break;
		}
		if (c > 0)
			return 0;
	}
	return 1;
}

static void
run(const char *dir, unsigned n)
{
	struct cache		*c;
	struct trust_store	*ts;
	struct index		*ix;
	struct index_view	 v;
	struct index_row	*rows;
	size_t			 got, count, offs[3], k, i, nrows;
	char			*path, *cause = NULL, name[16];
	double			 t0, t, worst;
	const char		*search = "~f ada ~s plan";
	static int		 first_run = 1;
	struct rusage		 ru;
	long			 rss;

	path = xasprintf("%s/bench.hcache", dir);
	if ((c = cache_open_path(path, &cause)) == NULL)
		die("cache", cause);
	free(path);
	path = xasprintf("%s/trust.sqlite", dir);
	if ((ts = trust_store_open(path, &cause)) == NULL)
		die("trust store", cause);
	free(path);

	getrusage(RUSAGE_SELF, &ru);
	rss = ru.ru_maxrss;
	t0 = now_s();
	if ((ix = index_open(c, "INBOX", &cause)) == NULL)
		die("index_open", cause);
	printf("open %.6f\n", now_s() - t0);
	getrusage(RUSAGE_SELF, &ru);
	if (first_run)
		printf("snapshot %ld\n", (ru.ru_maxrss - rss) * 1024);
	first_run = 0;
	if (index_total(ix) != n)
		die("the index is short", NULL);

	for (k = 0; k < 12; k++) {
		memset(&v, 0, sizeof v);
		v.sort = (enum index_sort)(k / 2);
		v.reverse = (int)(k % 2);
		snprintf(name, sizeof name, "%s%s", v.reverse ? "-" : "",
		    index_sort_name(v.sort));
		t0 = now_s();
		if (index_count(ix, &v, &count, &cause) == -1)
			die("index_count", cause);
		printf("view %s %.6f\n", name, now_s() - t0);
		if (count != n)
			die("a view lost messages", name);
		offs[0] = 0;
		offs[1] = n / 2;
		offs[2] = n - PAGE;
		worst = 0;
		for (i = 0; i < 3; i++) {
			t0 = now_s();
			if (index_page(ix, &v, offs[i], PAGE, ts, &rows, &got,
			    &cause) == -1)
				die("index_page", cause);
			t = now_s() - t0;
			if (got != PAGE || !in_order(&v, rows, got))
				die("a page is wrong", name);
			free(rows);
			if (t > worst)
				worst = t;
		}
		printf("page %s %.6f\n", name, worst);
	}
	memset(&v, 0, sizeof v);
	v.sort = INDEX_SORT_DATE;
	v.limit = search;
	t0 = now_s();
	if (index_count(ix, &v, &count, &cause) == -1)
		die("search", cause);
	printf("search '%s' %zu %.6f\n", search, count, now_s() - t0);
	if (count == 0)
		die("the search found nothing", search);
	/* the interface's limit by sender: the newest first, its count and
	   first page, on an index that has shown the folder already */
	v.reverse = 1;
	v.limit = "~f ada";
	t0 = now_s();
	if (index_count(ix, &v, &count, &cause) == -1 ||
	    index_page(ix, &v, 0, 50, ts, &rows, &nrows, &cause) == -1)
		die("limit", cause);
	printf("limit '%s' %zu %.6f\n", v.limit, count, now_s() - t0);
	if (nrows != 50)
		die("the limit's first page is short", NULL);
	free(rows);
	/* the cursor's place after new mail or a new sort: the newest
	   message in the date order, then one in the middle */
	memset(&v, 0, sizeof v);
	v.sort = INDEX_SORT_DATE;
	for (k = 0; k < 2; k++) {
		size_t	place;

		t0 = now_s();
		if (index_find(ix, &v, k == 0 ? n : n / 2, &place) == -1)
			die("find", NULL);
		printf("find %s %.6f\n", k == 0 ? "newest" : "middle",
		    now_s() - t0);
	}
	index_close(ix);
	trust_store_close(ts);
	cache_close(c);
}

/* What the interface does to an index, and the peak RSS it took. */
static void
memory(const char *dir)
{
	struct cache		*c;
	struct index		*ix;
	struct index_view	 v;
	struct index_row	*rows;
	struct rusage		 ru;
	size_t			 got, count, i, k, off;
	char			*path, *cause = NULL;

	path = xasprintf("%s/bench.hcache", dir);
	if ((c = cache_open_path(path, &cause)) == NULL)
		die("cache", cause);
	free(path);
	if ((ix = index_open(c, "INBOX", &cause)) == NULL)
		die("index_open", cause);
	index_readonly(ix);
	for (k = 0; k < 12; k++) {
		memset(&v, 0, sizeof v);
		v.sort = (enum index_sort)(k / 2);
		v.reverse = (int)(k % 2);
		if (index_count(ix, &v, &count, &cause) == -1)
			die("index_count", cause);
		for (i = 0; i < 3; i++) {
			off = i == 0 ? 0 : i == 1 ? count / 2 : count - PAGE;
			if (index_page(ix, &v, off, PAGE, NULL, &rows, &got,
			    &cause) == -1)
				die("index_page", cause);
			free(rows);
		}
	}
	memset(&v, 0, sizeof v);
	v.sort = INDEX_SORT_DATE;
	index_count(ix, &v, &count, &cause);
	for (i = 0; i < 2000 && i + PAGE < count; i++) {
		if (index_page(ix, &v, i, PAGE, NULL, &rows, &got,
		    &cause) == -1)
			die("index_page", cause);
		free(rows);
	}
	for (i = 0; i < 100 && (i + 1) * PAGE < count; i++) {
		if (index_page(ix, &v, count - (i + 1) * PAGE, PAGE, NULL,
		    &rows, &got, &cause) == -1)
			die("index_page", cause);
		free(rows);
	}
	v.limit = "~f ada";
	if (index_count(ix, &v, &count, &cause) == -1 ||
	    index_page(ix, &v, 0, PAGE, NULL, &rows, &got, &cause) == -1)
		die("search", cause);
	free(rows);
	if (index_find(ix, &v, 1, &off) == -1 && count == 0)
		die("search found nothing", NULL);
	index_close(ix);
	cache_close(c);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak %ld\n", ru.ru_maxrss * 1024);
}

int
main(int argc, char **argv)
{
	unsigned	n = 100000, runs = 5, r;
	int		ch, again = 0;

	while ((ch = getopt(argc, argv, "amn:r:")) != -1) {
		switch (ch) {
		case 'a':
			again = 1;
			break;
		case 'm':
			if (argc - optind != 1)
				goto usage;
			memory(argv[optind]);
			return 0;
		case 'n':
			n = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			runs = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1 || n < 2 * PAGE || runs == 0)
		goto usage;
	if (!again)
		fill(argv[optind], n);
	for (r = 0; r < runs; r++)
		run(argv[optind], n);
	return 0;
usage:
	fprintf(stderr, "usage: indexbench [-a] [-n MESSAGES] [-r RUNS] DIR\n"
	    "       indexbench -m DIR\n");
	return 2;
}
