/*
 * fuzz-limit.c: the index's search expressions (~f ~s ~t ~N ~F ~D, words,
 * !: doc/index.md) over messages whose headers a stranger chose. The
 * first input line is the expression, each further line a message:
 * "from<TAB>subject<TAB>rcpt<TAB>flags<TAB>message-id<TAB>in-reply-to<TAB>
 * references". The messages go into a real header cache (a throwaway
 * file), and the index counts, pages, searches and threads them as the
 * interface does.
 */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"

#include "cache.h"
#include "index.h"

#define FUZZ_MAX_MSGS	64

static struct cache	*fuzz_cache;
static uint32_t		 fuzz_round;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char	 dir[] = "/tmp/steed-fuzz-limit.XXXXXX", path[64];
	char	*cause = NULL;

	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(path, sizeof path, "%s/cache.db", dir);
	if ((fuzz_cache = cache_open_path(path, &cause)) == NULL) {
		fprintf(stderr, "fuzz-limit: %s\n", cause);
		abort();
	}
	return 0;
}

static char *
field(char **p)
{
	char	*f = *p, *tab;

	if (f == NULL)
		return NULL;
	if ((tab = strchr(f, '\t')) != NULL) {
		*tab = '\0';
		*p = tab + 1;
	} else
		*p = NULL;
	return f;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cache_mailbox	 mb;
	struct cache_msg	 m;
	struct index		*ix;
	struct index_view	 v;
	struct index_row	*rows;
	char			*s, *expr, *line, *next, *p, *cause = NULL;
	size_t			 n = 0, count, nrows, off;
	int			 sort;

	s = fuzz_str(data, len);
	expr = s;
	if ((next = strchr(s, '\n')) != NULL)
		*next++ = '\0';
	/* a new UIDVALIDITY drops the last round's messages */
	if (cache_mailbox(fuzz_cache, "INBOX", ++fuzz_round, &mb,
	    &cause) == -1)
		abort();
	for (line = next; line != NULL && n < FUZZ_MAX_MSGS; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		memset(&m, 0, sizeof m);
		p = line;
		m.uid = (uint32_t)++n;
		m.from = field(&p);
		m.from_addr = m.from;
		m.subject = field(&p);
		m.rcpt = field(&p);
		snprintf(m.flags, sizeof m.flags, "%.7s",
		    (p != NULL) ? field(&p) : "");
		m.flags[strspn(m.flags, "DFRST")] = '\0';
		m.message_id = field(&p);
		m.in_reply_to = field(&p);
		m.references = field(&p);
		m.internaldate = m.sent = (time_t)(n * 1000);
		m.size = (uint32_t)strlen(line);
		if (cache_put(fuzz_cache, &mb, &m, &cause) == -1) {
			free(cause);
			cause = NULL;
		}
	}
	if ((ix = index_open(fuzz_cache, "INBOX", &cause)) == NULL) {
		free(cause);
		free(s);
		return 0;
	}
	for (sort = INDEX_SORT_ARRIVAL; sort <= INDEX_SORT_THREAD; sort++) {
		memset(&v, 0, sizeof v);
		v.sort = (enum index_sort)sort;
		v.limit = expr;
		if (index_count(ix, &v, &count, &cause) == -1) {
			free(cause);
			cause = NULL;
			break;
		}
		FUZZ_ASSERT(count <= n);
		if (index_page(ix, &v, 0, 80, NULL, &rows, &nrows,
		    &cause) == 0) {
			FUZZ_ASSERT(nrows == count);
			free(rows);
		} else {
			free(cause);
			cause = NULL;
		}
		v.limit = NULL;
		if (index_search(ix, &v, expr, 0, 1, &off, &cause) == -1) {
			free(cause);
			cause = NULL;
		} else if (sort == INDEX_SORT_THREAD)
			(void)index_collapse(ix, &v, INDEX_ALL_THREADS, -1,
			    &cause);
	}
	index_close(ix);
	free(s);
	return 0;
}
