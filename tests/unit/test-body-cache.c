/*
 * test-body-cache.c: the body cache: a message stored comes back byte for
 * byte, under its mailbox, UIDVALIDITY and UID only; storing past the
 * limit evicts the oldest first; a message larger than the limit is not
 * stored; the sizes setting; a file that is not ours is made anew.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "body-cache.h"
#include "tap.h"

static char	dir[] = "/tmp/steed-bodies-XXXXXX";
static char	path[256];

static int
has(struct body_cache *bc, const char *mb, uint32_t v, uint32_t uid)
{
	struct buf	 b;
	char		*cause = NULL;
	int		 rc;

	buf_init(&b);
	rc = body_cache_get(bc, mb, v, uid, &b, &cause);
	buf_free(&b);
	free(cause);
	return rc;
}

static int
ids_cb(const struct body_cache_entry *e, void *arg)
{
	(*(int *)arg)++;
	(void)e;
	return 0;
}

int
main(void)
{
	struct body_cache	*bc;
	struct buf		 b;
	char			*cause = NULL, big[1000];
	uint64_t		 n, bytes, sz;
	int			 i, seen;
	FILE			*f;
	static const char	 msg[] = "Subject: hi\r\n\r\nbin\0ary\r\n";

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/a.bodies", dir);
	bc = body_cache_open_path(path, 4000, &cause);
	TAP_OK(bc != NULL, "a new body cache opens");
	if (bc == NULL)
		return 1;

	TAP_OK(body_cache_put(bc, "INBOX", 7, 1, msg, sizeof msg, &cause) ==
	    1, "a message is stored");
	buf_init(&b);
	TAP_OK(body_cache_get(bc, "INBOX", 7, 1, &b, &cause) == 1 &&
	    b.len == sizeof msg && memcmp(b.data, msg, b.len) == 0,
	    "it comes back byte for byte, NUL included");
	buf_free(&b);
	TAP_OK(has(bc, "INBOX", 8, 1) == 0, "not under another UIDVALIDITY");
	TAP_OK(has(bc, "Sent", 7, 1) == 0, "not in another mailbox");
	TAP_OK(has(bc, "INBOX", 7, 2) == 0, "not under another UID");

	memset(big, 'x', sizeof big);
	for (i = 2; i <= 5; i++)
		body_cache_put(bc, "INBOX", 7, i, big, sizeof big, &cause);
	TAP_OK(has(bc, "INBOX", 7, 1) == 0 && has(bc, "INBOX", 7, 2) == 1 &&
	    has(bc, "INBOX", 7, 5) == 1, "past the limit, the oldest goes");
	TAP_OK(body_cache_stats(bc, &n, &bytes, &cause) == 0 && n == 4 &&
	    bytes == 4000, "four of 1000 bytes fit in 4000: %llu, %llu",
	    (unsigned long long)n, (unsigned long long)bytes);
	body_cache_put(bc, "INBOX", 7, 2, big, sizeof big, &cause);
	body_cache_put(bc, "INBOX", 7, 6, big, sizeof big, &cause);
	TAP_OK(has(bc, "INBOX", 7, 2) == 1 && has(bc, "INBOX", 7, 3) == 0,
	    "a message stored again counts as new");
	seen = 0;
	TAP_OK(body_cache_each(bc, 0, ids_cb, &seen, &cause) == 0 &&
	    seen == 4, "each: every message stored");
	{
		char	*huge = calloc(1, 5000);

		TAP_OK(body_cache_put(bc, "INBOX", 7, 9, huge, 5000,
		    &cause) == 0 && has(bc, "INBOX", 7, 9) == 0 &&
		    has(bc, "INBOX", 7, 6) == 1,
		    "a message larger than the limit is not stored, and "
		    "evicts nothing");
		free(huge);
	}
	TAP_OK(body_cache_delete(bc, "INBOX", 7, 6, &cause) == 0 &&
	    has(bc, "INBOX", 7, 6) == 0, "a message is forgotten");
	body_cache_close(bc);

	bc = body_cache_open_path(path, 0, &cause);
	TAP_OK(bc != NULL && has(bc, "INBOX", 7, 2) == 1,
	    "opened again, what was stored is there");
	TAP_OK(body_cache_put(bc, "INBOX", 7, 10, msg, sizeof msg,
	    &cause) == 0, "with limit 0, nothing is stored");
	body_cache_close(bc);

	f = fopen(path, "w");
	fputs("not a database at all, not at all, not at all\n", f);
	fclose(f);
	bc = body_cache_open_path(path, 4000, &cause);
	TAP_OK(bc != NULL && has(bc, "INBOX", 7, 2) == 0,
	    "a file that is not ours is made anew");
	body_cache_close(bc);

	TAP_OK(body_cache_size_parse("512M", &sz, &cause) == 0 &&
	    sz == 512ULL << 20, "512M");
	TAP_OK(body_cache_size_parse("0", &sz, &cause) == 0 && sz == 0, "0");
	TAP_OK(body_cache_size_parse("2G", &sz, &cause) == 0 &&
	    sz == 2ULL << 30, "2G");
	TAP_OK(body_cache_size_parse("12MB", &sz, &cause) == -1, "12MB: no");
	free(cause);
	cause = NULL;
	TAP_OK(body_cache_size_parse("-1", &sz, &cause) == -1, "-1: no");
	free(cause);

	unlink(path);
	snprintf(big, sizeof big, "rm -rf %s", dir);
	if (system(big) != 0)
		return 1;
	return TAP_DONE();
}
