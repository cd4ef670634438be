/*
 * fuzz-search.c: the full-text search's two readers of what strangers
 * choose: the query language (search-query.h; a user's query may be
 * pasted from anywhere) and a message's text for the index
 * (search-text.h). The first input line is the query, the rest a raw
 * message, which goes through a real body cache and full-text index
 * (throwaway files). Promises checked: a query that reads is always
 * valid FTS5 (nothing typed ever becomes FTS5 syntax, so SQLite never
 * refuses it), and a message indexed is found by an empty-handed date
 * query.
 */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"

#include "body-cache.h"
#include "search-index.h"
#include "search-query.h"

static struct body_cache	*fuzz_bodies;
static struct search_index	*fuzz_index;
static uint32_t			 fuzz_uid;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char	 dir[] = "/tmp/steed-fuzz-search.XXXXXX", path[80];
	char	*cause = NULL;

	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(path, sizeof path, "%s/b.bodies", dir);
	/* small: the oldest go, so the files stay small in a long run */
	if ((fuzz_bodies = body_cache_open_path(path, 4 << 20,
	    &cause)) == NULL) {
		fprintf(stderr, "fuzz-search: %s\n", cause);
		abort();
	}
	snprintf(path, sizeof path, "%s/b.search", dir);
	if ((fuzz_index = search_index_open_path(path, 0, &cause)) == NULL) {
		fprintf(stderr, "fuzz-search: %s\n", cause);
		abort();
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct search_query	 q;
	uint32_t		*uids;
	size_t			 n, added;
	char			*s, *msg, *cause = NULL;

	s = fuzz_str(data, len);
	if ((msg = memchr(s, '\n', len)) != NULL)
		*msg++ = '\0';
	else
		msg = s + len;
	if (body_cache_put(fuzz_bodies, "INBOX", 1, ++fuzz_uid, msg,
	    len - (size_t)(msg - s), &cause) == -1)
		abort();
	if (search_index_update(fuzz_index, fuzz_bodies, &added, &cause) ==
	    -1) {
		fprintf(stderr, "fuzz-search: %s\n", cause);
		abort();
	}
	if (search_query_parse(s, &q, &cause) == 0) {
		if (search_index_query(fuzz_index, "INBOX", 1, &q, 50, &uids,
		    &n, &cause) == -1) {
			fprintf(stderr, "fuzz-search: %s: %s\n", q.match,
			    cause);
			__builtin_trap();
		}
		FUZZ_ASSERT(n <= 50);
		free(uids);
		search_query_free(&q);
	} else
		free(cause);
	free(s);
	return 0;
}
