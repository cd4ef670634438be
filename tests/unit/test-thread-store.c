/*
 * test-thread-store.c: the stored thread order kept up to date group by
 * group (thread-store.h) is the order of threading every message at
 * once (thread.c). A generated mailbox of replies, replies to messages
 * not there (yet or any more), duplicate Message-IDs, In-Reply-To
 * without References and ties of date arrives in batches in any UID
 * order (a cold sync goes down, a warm one up); messages go, come back
 * with other headers, get a protected header with other References;
 * after each step the thread view, both ways, is compared row by row
 * with thread_build() over the messages there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "index.h"
#include "tap.h"
#include "thread.h"

#define N	1500

struct gen {
	char		mid[32];
	char		refs[128];
	char		irt[32];
	time_t		date;
	int		there;
	char		pmid[32], prefs[128];	/* a protected header's */
	int		prot;
};

static struct gen	 g[N + 1];
static unsigned		 seed = 12345;

static unsigned
rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}

/* Message uid's headers, drawn anew. */
static void
draw(uint32_t uid)
{
	struct gen	*m = &g[uid];
	size_t		 k, nref, len = 0;

	/* now and then an id another message has too */
	if (uid > 10 && rnd(40) == 0)
		snprintf(m->mid, sizeof m->mid, "<m%u@t>", rnd(uid) + 1);
	else
		snprintf(m->mid, sizeof m->mid, "<m%u@t>", uid);
	m->refs[0] = m->irt[0] = '\0';
	nref = rnd(5);
	for (k = 0; k < nref && len + 24 < sizeof m->refs; k++) {
		/* messages before it, after it (not there yet), or gone
		   for good (ghosts) */
		if (rnd(6) == 0)
			len += (size_t)snprintf(m->refs + len, sizeof m->refs -
			    len, "%s<ghost%u@t>", k ? " " : "", rnd(50));
		else
			len += (size_t)snprintf(m->refs + len, sizeof m->refs -
			    len, "%s<m%u@t>", k ? " " : "", rnd(N) + 1);
	}
	if (nref == 0 && rnd(3) == 0)
		snprintf(m->irt, sizeof m->irt, "<m%u@t>", rnd(N) + 1);
	m->date = 1000000 + rnd(400) * 60;	/* ties */
}

static void
put(struct cache *c, struct cache_mailbox *mb, uint32_t uid)
{
	struct cache_msg	 m;
	char			*cause = NULL;

	memset(&m, 0, sizeof m);
	m.uid = uid;
	snprintf(m.flags, sizeof m.flags, "S");
	m.internaldate = 5000 + uid;
	m.size = 100;
	m.from = m.from_addr = "a@t.example";
	m.subject = "s";
	m.sent = g[uid].date;
	m.message_id = g[uid].mid;
	m.references = g[uid].refs[0] != '\0' ? g[uid].refs : NULL;
	m.in_reply_to = g[uid].irt[0] != '\0' ? g[uid].irt : NULL;
	if (cache_put(c, mb, &m, &cause) == -1) {
		printf("# put: %s\n", cause);
		free(cause);
	}
	g[uid].there = 1;	/* a protected header stays (cache.h) */
}

/* The view's rows, thread_build()'s, as "uid/depth/flags/same" lines. */
static char *
expected(int reverse)
{
	struct thread_msg	*in;
	struct thread_pos	*pos;
	uint32_t		*uid;
	size_t			 n = 0, i, len = 0, cap = 64;
	char			*out = malloc(cap);

	in = calloc(N, sizeof *in);
	pos = calloc(N, sizeof *pos);
	uid = calloc(N, sizeof *uid);
	for (i = 1; i <= N; i++) {
		if (!g[i].there)
			continue;
		uid[n] = (uint32_t)i;
		in[n].message_id = g[i].prot ? g[i].pmid : g[i].mid;
		in[n].references = g[i].prot ? g[i].prefs :
		    g[i].refs[0] != '\0' ? g[i].refs : NULL;
		in[n].in_reply_to = g[i].irt[0] == '\0' ? NULL : g[i].irt;
		in[n].date = g[i].date;
		n++;
	}
	out[0] = '\0';
	if (n > 0)
		thread_build(in, n, reverse, pos);
	for (i = 0; i < n; i++) {
		if (len + 64 > cap)
			out = realloc(out, cap *= 2);
		len += (size_t)snprintf(out + len, cap - len, "%u/%u/%u/%d\n",
		    uid[pos[i].msg], pos[i].depth, pos[i].flags,
		    i > 0 && pos[i].thread == pos[i - 1].thread);
	}
	free(in);
	free(pos);
	free(uid);
	return out;
}

/* The stored view's rows, the same way, read 37 rows a page. */
static char *
stored(struct index *ix, int reverse, size_t *count)
{
	struct index_view	 v = { INDEX_SORT_THREAD, 0, NULL, NULL, 0 };
	struct index_row	*rows;
	size_t			 n, i, off = 0, len = 0, cap = 64;
	uint32_t		 last = 0;
	char			*out = malloc(cap), *cause = NULL;

	v.reverse = reverse;
	out[0] = '\0';
	if (index_count(ix, &v, count, &cause) == -1) {
		printf("# count: %s\n", cause);
		free(cause);
	}
	do {
		if (index_page(ix, &v, off, 37, NULL, &rows, &n,
		    &cause) == -1) {
			printf("# page: %s\n", cause);
			free(cause);
			break;
		}
		for (i = 0; i < n; i++) {
			if (len + 64 > cap)
				out = realloc(out, cap *= 2);
			len += (size_t)snprintf(out + len, cap - len,
			    "%u/%u/%u/%d\n", rows[i].uid, rows[i].depth,
			    rows[i].tflags, off + i > 0 &&
			    rows[i].thread == last);
			last = rows[i].thread;
		}
		free(rows);
		off += n;
	} while (n > 0);
	return out;
}

/* The first line where a and b differ, for the log. */
static void
diff(const char *a, const char *b)
{
	size_t	line = 1;

	while (*a != '\0' && *a == *b) {
		line += *a == '\n';
		a++;
		b++;
	}
	printf("# line %zu: stored \"%.20s\", wanted \"%.20s\"\n", line, a, b);
}

static int
same(struct cache *c, const char *what)
{
	struct index	*ix;
	char		*cause = NULL, *want, *got;
	size_t		 count, there = 0, i;
	int		 ok = 1, reverse;

	if (index_thread_prepare(c, "T", &cause) == -1) {
		printf("# %s: %s\n", what, cause);
		free(cause);
		return 0;
	}
	if ((ix = index_open(c, "T", &cause)) == NULL) {
		free(cause);
		return 0;
	}
	index_readonly(ix);
	for (i = 1; i <= N; i++)
		there += g[i].there;
	for (reverse = 0; reverse < 2; reverse++) {
		want = expected(reverse);
		got = stored(ix, reverse, &count);
		if (strcmp(want, got) != 0 || count != there) {
			printf("# %s%s: %zu rows counted, %zu there\n", what,
			    reverse ? " (reversed)" : "", count, there);
			diff(got, want);
			ok = 0;
		}
		free(want);
		free(got);
	}
	index_close(ix);
	return ok;
}

/*
 * A group larger than the thread store threads once a batch (12,000
 * replies to one missing message) among 3,000 messages of their own,
 * threaded a part at a time as the interface does: the newest come
 * first, the large group once at the end.
 */
static void
big(struct cache *c)
{
	struct cache_mailbox	 mb;
	struct cache_msg	 m;
	struct index		*ix;
	struct index_view	 v = { INDEX_SORT_THREAD, 1, NULL, NULL, 0 };
	struct index_row	*rows;
	char			 mid[32], *cause = NULL;
	size_t			 n = 0, first = 0, parts = 0, got, off, threads;
	uint32_t		 uid, last = 0;
	int			 rc;

	cache_mailbox(c, "Big", 1, &mb, &cause);
	cache_begin(c, &cause);
	for (uid = 1; uid <= 15000; uid++) {
		memset(&m, 0, sizeof m);
		m.uid = uid;
		m.internaldate = m.sent = 1000000 + uid;
		m.from = m.from_addr = "b@t.example";
		snprintf(mid, sizeof mid, "<b%u@t>", uid);
		m.message_id = mid;
		/* the newest 3,000 are threads of their own */
		m.in_reply_to = uid <= 12000 ? "<root@t>" : NULL;
		if (cache_put(c, &mb, &m, &cause) == -1) {
			printf("# put: %s\n", cause);
			free(cause);
			cause = NULL;
		}
	}
	cache_commit(c, &cause);
	if ((ix = index_open(c, "Big", &cause)) == NULL)
		return;
	index_readonly(ix);
	while ((rc = index_thread_some(c, "Big", &cause)) == 1) {
		if (parts++ == 0) {
			index_refresh(ix);
			index_count(ix, &v, &first, &cause);
		}
	}
	TAP_OK(rc == 0 && parts > 1 && first >= 3000 && first < 15000,
	    "a part at a time: the newest first, the large group after "
	    "(%zu parts, %zu rows after the first)", parts, first);
	index_refresh(ix);
	threads = 0;
	for (off = 0; index_page(ix, &v, off, 500, NULL, &rows, &got,
	    &cause) == 0 && got > 0; off += got) {
		size_t	i;

		for (i = 0; i < got; i++) {
			threads += off + i == 0 || rows[i].thread != last;
			last = rows[i].thread;
			n++;
		}
		if (off == 0)
			TAP_OK(rows[0].uid == 15000, "newest thread first "
			    "(%u)", rows[0].uid);
		free(rows);
	}
	TAP_OK(n == 15000 && threads == 3001, "then every message: the "
	    "replies to the missing one a thread (%zu rows, %zu threads)", n,
	    threads);
	index_close(ix);
}

int
main(void)
{
	struct cache		*c;
	struct cache_mailbox	 mb;
	struct cache_protected	 p;
	char			 dir[] = "/tmp/steed-tstore-XXXXXX";
	char			 path[256], *cause = NULL;
	uint32_t		 order[N], uid, tmp;
	size_t			 i, k, batch, at, bad;
	int			 round;

	if (getenv("TEST_SEED") != NULL)	/* another mailbox */
		seed = (unsigned)strtoul(getenv("TEST_SEED"), NULL, 10);
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/t.hcache", dir);
	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL, "cache opens");
	if (c == NULL)
		return 1;
	cache_mailbox(c, "T", 1, &mb, &cause);
	for (uid = 1; uid <= N; uid++)
		draw(uid);

	/* a cold sync going down: the newest first, in batches */
	bad = 0;
	for (at = N; at > N / 2; at -= batch) {
		batch = 1 + rnd(120);
		if (batch > at - N / 2)
			batch = at - N / 2;
		cache_begin(c, &cause);
		for (k = 0; k < batch; k++)
			put(c, &mb, (uint32_t)(at - k));
		cache_commit(c, &cause);
		bad += !same(c, "going down");
	}
	TAP_OK(bad == 0, "a cold sync going down, batch by batch: the "
	    "stored order is that of threading every message (%zu wrong)",
	    bad);

	/* the rest in any order, many batches at once */
	for (i = 0; i < N / 2; i++)
		order[i] = (uint32_t)(i + 1);
	for (i = N / 2; i > 1; i--) {
		k = rnd((unsigned)i);
		tmp = order[i - 1];
		order[i - 1] = order[k];
		order[k] = tmp;
	}
	for (i = 0; i < N / 2; i += batch) {
		batch = 1 + rnd(200);
		cache_begin(c, &cause);
		for (k = i; k < i + batch && k < N / 2; k++)
			put(c, &mb, order[k]);
		cache_commit(c, &cause);
	}
	TAP_OK(same(c, "in any order"), "the rest in any order, threaded "
	    "at once: the same");

	/* messages go, come back with other headers, get protected
	   headers; the order follows */
	bad = 0;
	for (round = 0; round < 12; round++) {
		cache_begin(c, &cause);
		for (k = 0; k < 30; k++) {
			uid = rnd(N) + 1;
			switch (rnd(4)) {
			case 0:
				tmp = uid + rnd(20);
				if (cache_delete_range(c, &mb, uid, tmp,
				    &cause) == -1) {
					printf("# delete: %s\n", cause);
					free(cause);
					cause = NULL;
				}
				for (i = uid; i <= N && i <= tmp; i++)
					g[i].there = g[i].prot = 0;
				break;
			case 1:
				draw(uid);
				put(c, &mb, uid);
				break;
			case 2:
				if (!g[uid].there)
					break;
				memset(&p, 0, sizeof p);
				p.how = CACHE_OPENED_DECRYPTED;
				snprintf(g[uid].pmid, sizeof g[uid].pmid,
				    "<inner%u@t>", uid);
				snprintf(g[uid].prefs, sizeof g[uid].prefs,
				    "<m%u@t> <inner%u@t>", rnd(N) + 1,
				    rnd(N) + 1);
				p.message_id = g[uid].pmid;
				p.references = g[uid].prefs;
				if (cache_protected_put(c, &mb, uid, &p,
				    &cause) == -1) {
					printf("# protected: %s\n", cause);
					free(cause);
					cause = NULL;
				}
				g[uid].prot = 1;
				break;
			default:
				put(c, &mb, uid);	/* the same again */
				break;
			}
		}
		cache_commit(c, &cause);
		bad += !same(c, "changes");
	}
	TAP_OK(bad == 0, "messages gone, back with other References, "
	    "given protected References: the same after each batch (%zu "
	    "wrong)", bad);

	/* the same file opened again: nothing left to do */
	{
		struct index	*ix;
		size_t		 n;
		struct index_view v = { INDEX_SORT_THREAD, 0, NULL, NULL, 0 };

		cache_close(c);
		c = cache_open_path(path, &cause);
		ix = c != NULL ? index_open(c, "T", &cause) : NULL;
		if (ix != NULL)
			index_readonly(ix);
		for (i = 1, k = 0; i <= N; i++)
			k += g[i].there;
		TAP_OK(ix != NULL && index_count(ix, &v, &n, &cause) == 0 &&
		    n == k, "opened again, the stored order counts every "
		    "message (%zu)", k);
		index_close(ix);
	}

	big(c);
	cache_close(c);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	if (system(path) != 0)
		printf("# cleaning up failed\n");
	return TAP_DONE();
}
