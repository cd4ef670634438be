/*
 * previewbench: the decision behind the compose screen's security line,
 * timed inside one process, for the compose bench (tests/bench/compose.sh).
 *
 *   previewbench [-r REPS] CONFIG ACCOUNT ADDRESS...
 *
 * Loads CONFIG, sets up the account's GnuPG home (crypto_init) and makes a
 * draft to every ADDRESS. Then it asks draft_preview(), as the compose
 * screen does for its security line (the encryption policy on the trust
 * store, the GnuPG home, DNS OPENPGPKEY records through the answer cache,
 * and the line made of it), first once with DNS, then REPS (20) times
 * with DNS (every answer from the cache once the first run filled it) and
 * REPS times from what is known here only (no DNS query at all: what the
 * screen shows first). Only the decisions are timed, not start-up,
 * configuration or gpg's first start (crypto_init).
 *
 * Prints, one per line:
 *   first SECONDS KEYS ACTION   the first decision; recipients with a key;
 *                               encrypt, clear, ask or refuse
 *   cached SECONDS KEYS         each later decision with DNS
 *   local SECONDS KEYS          each decision without DNS
 *   line TEXT                   the first decision's line
 * Every later decision with DNS must find as many keys as the first, or
 * previewbench exits 1 (so that a failed lookup cannot look fast); 2 on a
 * usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "crypto.h"
#include "draft.h"
#include "policy.h"

static void
die(const char *what, const char *cause)
{
	fprintf(stderr, "previewbench: %s%s%s\n", what, cause ? ": " : "",
	    cause ? cause : "");
	exit(1);
}

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *
action_name(enum policy_action a)
{
	switch (a) {
	case POLICY_ENCRYPT:
		return "encrypt";
	case POLICY_CLEAR:
		return "clear";
	case POLICY_ASK_USER:
		return "ask";
	default:
		return "refuse";
	}
}

/* One preview: its time; *keys, the recipients with a key. */
static double
decide(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, int use_dns, size_t *keys,
    struct draft_preview *keep)
{
	struct draft_preview	 p;
	char			*cause = NULL;
	double			 t0, t1;

	t0 = now_s();
	if (draft_preview(d, cf, o, use_dns, &p, &cause) == -1)
		die("draft_preview", cause);
	t1 = now_s();
	*keys = p.nkeys;
	if (keep != NULL)
		*keep = p;
	else
		draft_preview_free(&p);
	return t1 - t0;
}

int
main(int argc, char **argv)
{
	struct config		*cf;
	struct account		*a;
	struct draft		*d;
	struct draft_opts	 o;
	struct draft_preview	 first;
	char			*cause = NULL, *end, **addrs;
	unsigned long		 reps = 20, r;
	size_t			 n, i, keys, k;
	double			 t;
	int			 c;

	while ((c = getopt(argc, argv, "r:")) != -1) {
		switch (c) {
		case 'r':
			reps = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || reps > 100000)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 3)
		goto usage;
	if ((cf = config_load(argv[optind], &cause)) == NULL)
		die("configuration", cause);
	if ((a = config_account(cf, argv[optind + 1], &cause)) == NULL)
		die("account", cause);
	if (crypto_library_init(&cause) == -1 ||
	    crypto_init(cf->gnupg_home, &cause) == -1)
		die("GnuPG", cause);
	addrs = argv + optind + 2;
	n = (size_t)(argc - optind - 2);

	d = draft_new(a);
	for (i = 0; i < n; i++)
		draft_add(d, DRAFT_TO, addrs[i]);
	draft_set_subject(d, "the compose bench");
	memset(&o, 0, sizeof o);
	o.can_ask = 1;

	t = decide(d, cf, &o, 1, &keys, &first);
	printf("first %.6f %zu %s\n", t, keys, action_name(first.action));
	for (r = 0; r < reps; r++) {
		t = decide(d, cf, &o, 1, &k, NULL);
		if (k != keys) {
			fprintf(stderr, "previewbench: decision %lu found %zu "
			    "keys, the first %zu\n", r + 2, k, keys);
			return 1;
		}
		printf("cached %.6f %zu\n", t, k);
	}
	for (r = 0; r < reps; r++) {
		t = decide(d, cf, &o, 0, &k, NULL);
		printf("local %.6f %zu\n", t, k);
	}
	printf("line %s\n", first.line != NULL ? first.line : "");
	draft_preview_free(&first);
	draft_free(d);
	config_free(cf);
	return fflush(stdout) == 0 ? 0 : 1;

usage:
	fprintf(stderr, "usage: previewbench [-r REPS] CONFIG ACCOUNT "
	    "ADDRESS...\n");
	return 2;
}
