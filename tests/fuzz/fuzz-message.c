/*
 * fuzz-message.c: the whole path of opening a message, as the pager and
 * --inspect take it: MIME, decryption and signature checks through gpgme,
 * Autocrypt and Autocrypt-Gossip (keys imported), protected headers, the
 * sender's trust verdict recorded in a trust store, and the display model
 * with its security lines. The GnuPG home is STEED_FUZZ_GNUPGHOME when
 * set (tests/fuzz/run makes one that can decrypt its generated seeds),
 * else an empty throwaway one; the trust store is a throwaway file,
 * started afresh every few thousand runs so that it stays small.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"

#include "crypto.h"
#include "message.h"
#include "trust-store.h"
#include "view.h"

#define FUZZ_STORE_RUNS	4096

static struct trust_store	*fuzz_ts;
static char			 fuzz_dir[] = "/tmp/steed-fuzz-msg.XXXXXX";
static char			 fuzz_store[64];
static unsigned			 fuzz_runs;

static void
store_open(void)
{
	char	*cause = NULL;

	if (fuzz_ts != NULL)
		trust_store_close(fuzz_ts);
	(void)unlink(fuzz_store);
	if ((fuzz_ts = trust_store_open(fuzz_store, &cause)) == NULL) {
		fprintf(stderr, "fuzz-message: %s\n", cause);
		abort();
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*home = getenv("STEED_FUZZ_GNUPGHOME");
	char		 gh[128], *cause = NULL;

	(void)argc;
	(void)argv;
	if (mkdtemp(fuzz_dir) == NULL)
		abort();
	if (home == NULL) {
		snprintf(gh, sizeof gh, "%s/gnupg", fuzz_dir);
		if (mkdir(gh, 0700) == -1)
			abort();
		home = gh;
	}
	if (crypto_library_init(&cause) == -1 ||
	    crypto_init(home, &cause) == -1) {
		fprintf(stderr, "fuzz-message: %s\n", cause);
		abort();
	}
	crypto_set_no_prompt(1);
	snprintf(fuzz_store, sizeof fuzz_store, "%s/trust.db", fuzz_dir);
	store_open();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct message		*m;
	const struct view_lines	*lines;
	struct buf		 out;
	char			*cause = NULL;
	size_t			 i;

	if (++fuzz_runs % FUZZ_STORE_RUNS == 0)
		store_open();
	if ((m = message_open(fuzz_str(data, len), len, fuzz_ts, 0,
	    &cause)) == NULL) {
		FUZZ_ASSERT(cause != NULL);
		free(cause);
		return 0;
	}
	lines = message_lines(m);
	for (i = 0; i < lines->n; i++) {
		const char	*t = lines->v[i].text;

		FUZZ_ASSERT(t != NULL && strchr(t, '\n') == NULL);
		FUZZ_ASSERT(fuzz_terminal_safe(t, strlen(t)));
		if (lines->v[i].role == VIEW_TEXT ||
		    lines->v[i].role == VIEW_HEADER)
			FUZZ_ASSERT(strstr(t, VIEW_MARK) == NULL);
	}
	buf_init(&out);
	message_render(m, &out);
	buf_free(&out);
	message_free(m);
	return 0;
}
