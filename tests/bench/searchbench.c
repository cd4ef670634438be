/*
 * searchbench DIR MAILDIR RUNS: make bench's full-text figures
 * (tests/bench/search.sh). Puts every message file of MAILDIR/cur into a
 * body cache at DIR/b.bodies, as the session keeps what it fetched
 * (untimed), then times building the index DIR/b.search from it once,
 * each query of the standard input (one a line) RUNS times, first 50
 * results, and opening a cached message as the pager would with no
 * network: reading it from the body cache and through message.h. Lines
 * out: "fill N", "build SECONDS", "size BYTES", "query SECONDS HITS
 * QUERY", "open SECONDS".
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "body-cache.h"
#include "buf.h"
#include "crypto.h"
#include "message.h"
#include "search-index.h"
#include "search-query.h"

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static long
file_size(const char *path)
{
	struct stat	st;

	return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

int
main(int argc, char **argv)
{
	struct body_cache	*bc;
	struct search_index	*si;
	struct search_query	 q;
	struct buf		 raw;
	DIR			*d;
	struct dirent		*de;
	char			 path[4096], line[1024], **names = NULL;
	char			*cause = NULL, *copy;
	size_t			 n = 0, i, added, hits;
	uint32_t		*uids;
	double			 t, best;
	int			 runs, r;

	if (argc != 4 || (runs = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: searchbench DIR MAILDIR RUNS\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/cur", argv[2]);
	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "searchbench: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.') {
			names = realloc(names, (n + 1) * sizeof *names);
			names[n++] = strdup(de->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof *names, by_name);

	snprintf(path, sizeof path, "%s/b.bodies", argv[1]);
	if ((bc = body_cache_open_path(path, 1ULL << 40, &cause)) == NULL) {
		fprintf(stderr, "searchbench: %s\n", cause);
		return 1;
	}
	for (i = 0; i < n; i++) {
		buf_init(&raw);
		snprintf(path, sizeof path, "%s/cur/%s", argv[2], names[i]);
		if (buf_read_file(&raw, path, 64 << 20) == -1 ||
		    body_cache_put(bc, "INBOX", 1, (uint32_t)i + 1, raw.data,
		    raw.len, &cause) != 1) {
			fprintf(stderr, "searchbench: %s: %s\n", path,
			    cause != NULL ? cause : "cannot read");
			return 1;
		}
		buf_free(&raw);
	}
	printf("fill %zu\n", n);

	snprintf(path, sizeof path, "%s/b.search", argv[1]);
	if ((si = search_index_open_path(path, 0, &cause)) == NULL) {
		fprintf(stderr, "searchbench: %s\n", cause);
		return 1;
	}
	t = now();
	if (search_index_update(si, bc, &added, &cause) == -1 ||
	    added != n) {
		fprintf(stderr, "searchbench: build: %s\n", cause != NULL ?
		    cause : "not every message was indexed");
		return 1;
	}
	printf("build %.3f\n", now() - t);
	search_index_close(si);
	if ((si = search_index_open_path(path, 0, &cause)) == NULL) {
		fprintf(stderr, "searchbench: %s\n", cause);
		return 1;
	}
	{
		char	wal[4200];

		snprintf(wal, sizeof wal, "%s-wal", path);
		printf("size %ld\n", file_size(path) + file_size(wal));
	}

	while (fgets(line, sizeof line, stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (*line == '\0')
			continue;
		if (search_query_parse(line, &q, &cause) == -1) {
			fprintf(stderr, "searchbench: %s: %s\n", line, cause);
			return 1;
		}
		best = 1e9;
		hits = 0;
		for (r = 0; r < runs; r++) {
			t = now();
			if (search_index_query(si, "INBOX", 1, &q, 50, &uids,
			    &hits, &cause) == -1) {
				fprintf(stderr, "searchbench: %s\n", cause);
				return 1;
			}
			t = now() - t;
			free(uids);
			if (t < best)
				best = t;
		}
		search_query_free(&q);
		printf("query %.6f %zu %s\n", best, hits, line);
	}

	/* a message read again with no network: the body cache, then the
	   pager's model */
	if (crypto_init(NULL, &cause) == -1) {
		free(cause);
		cause = NULL;
	}
	best = 1e9;
	for (r = 0; r < runs; r++) {
		struct message	*m;

		t = now();
		buf_init(&raw);
		if (body_cache_get(bc, "INBOX", 1, (uint32_t)(n / 2 + 1), &raw,
		    &cause) != 1) {
			fprintf(stderr, "searchbench: not cached\n");
			return 1;
		}
		copy = buf_take(&raw);
		m = message_open(copy, strlen(copy), NULL, MESSAGE_NO_TRUST,
		    &cause);
		if (m == NULL || message_lines(m)->n == 0) {
			fprintf(stderr, "searchbench: cannot open\n");
			return 1;
		}
		message_free(m);
		t = now() - t;
		if (t < best)
			best = t;
	}
	printf("open %.6f\n", best);
	search_index_close(si);
	body_cache_close(bc);
	return 0;
}
