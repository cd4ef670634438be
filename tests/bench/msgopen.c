/*
 * msgopen HOME FILE: make bench's "open a message in a running process"
 * figure, the pager's case. It sets the GnuPG home up and opens the
 * trust store once (as the interface does), opens FILE through
 * message.h once untimed (the warm-up), says "ready", then for each
 * "open" line on standard input opens FILE again, all of it: parse,
 * decrypt, verify, Autocrypt, trust record, display lines, and answers
 * "ok SECONDS", or "bad WHY" when the message did not come out decrypted
 * with a good signature (so a broken run cannot look fast).
 * tests/bench/crypto.sh drives it, interleaved with gpg --decrypt.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "crypto.h"
#include "crypto-in.h"
#include "message.h"
#include "trust-store.h"

static int
msgopen_read(const char *path, struct buf *b)
{
	FILE	*f;
	char	 chunk[65536];
	size_t	 n;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "msgopen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(b, chunk, n);
	fclose(f);
	return 0;
}

/* Open the message once; NULL when it is not as the bench needs it. */
static const char *
msgopen_once(const struct buf *raw, struct trust_store *ts)
{
	struct message	*m;
	char		*copy, *cause = NULL;
	const char	*why = NULL;

	copy = malloc(raw->len + 1);
	if (copy == NULL)
		return "out of memory";
	memcpy(copy, raw->data, raw->len);
	if ((m = message_open(copy, raw->len, ts, 0, &cause)) == NULL) {
		free(cause);
		return "it cannot be opened";
	}
	if (message_lines(m)->n == 0)
		why = "no lines";
	else if (!m->ci->decrypted)
		why = "not decrypted";
	else if (m->ci->nsigs == 0 || m->ci->sigs[0].status != CRYPTO_IN_GOOD)
		why = "no good signature";
	message_free(m);
	return why;
}

int
main(int argc, char **argv)
{
	struct buf		 raw;
	struct trust_store	*ts;
	struct timespec		 t0, t1;
	const char		*why;
	char			 line[64], *cause = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: msgopen HOME FILE\n");
		return 64;
	}
	buf_init(&raw);
	if (msgopen_read(argv[2], &raw) == -1)
		return 1;
	if (crypto_init(argv[1], &cause) == -1 ||
	    (ts = trust_store_open(NULL, &cause)) == NULL) {
		fprintf(stderr, "msgopen: %s\n", cause);
		return 1;
	}
	if ((why = msgopen_once(&raw, ts)) != NULL) {
		fprintf(stderr, "msgopen: warm-up: %s\n", why);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof line, stdin) != NULL) {
		if (strcmp(line, "open\n") != 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		why = msgopen_once(&raw, ts);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (why != NULL)
			printf("bad %s\n", why);
		else
			printf("ok %.6f\n", (t1.tv_sec - t0.tv_sec) +
			    (t1.tv_nsec - t0.tv_nsec) / 1e9);
		fflush(stdout);
	}
	trust_store_close(ts);
	buf_free(&raw);
	return 0;
}
