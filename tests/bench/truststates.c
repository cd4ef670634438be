/*
 * truststates: the trust half of the STEED bench (tests/bench/steed.sh).
 *
 *   truststates [-n MESSAGES] [-s SENDERS] [-r RUNS] DIR
 *
 * Fills a new trust store DIR/trust.sqlite, untimed, through the real
 * API: MESSAGES (100,000) received messages from SENDERS (2,000)
 * correspondents, in arrival order with the senders mixed, each processed
 * once by trust_store_message() as --inspect and --view do, with the
 * sightings that come before (Autocrypt headers, DNSSEC-secure records).
 * The senders behave in five ways, so that the stored states are mixed:
 * six in ten always sign with one key (first-contact, then known), one
 * sends an Autocrypt header and then unsigned mail, one has a DNSSEC-secure
 * record for its key (dns-confirmed), one signs with a second key after
 * its first few messages (key-changed), one never signs (unsigned).
 *
 * Then it times, RUNS (5) times, what the index does when it opens a
 * mailbox of that size: open the store (a new connection, so SQLite's
 * own page cache starts empty; the file is in the system's cache after
 * the fill), make the message key of every row from its Message-ID and
 * sender (trust_store_msgkey), and read all the states at once
 * (trust_store_states), rows in arrival (UID) order. Every run's states
 * must be exactly those trust_store_message() returned while filling, or
 * the run fails: a broken run cannot look fast.
 *
 * Prints, one per line:
 *   fill MESSAGES SENDERS SECONDS
 *   mix STATE=COUNT ...
 *   size BYTES                     (trust.sqlite after the fill, with WAL)
 *   run N open S keys S states S total S
 * Exits 1 on any failure, 2 on a usage error.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trust-store.h"
#include "xmalloc.h"

#define FPR_HEX	40
#define NSTATES	((int)TRUST_VERIFIED + 1)

static void
die(const char *what, const char *cause)
{
	fprintf(stderr, "truststates: %s%s%s\n", what, cause ? ": " : "",
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

/* A small deterministic generator, so that every fill is the same. */
static unsigned long long	rng = 0x5eed5eed5eedULL;

static unsigned
rnd(unsigned bound)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % bound);
}

/* The fingerprint of a sender's first (which 0) or second key. */
static void
fpr_of(unsigned sender, int which, char out[FPR_HEX + 1])
{
	snprintf(out, FPR_HEX + 1, "%08X%032X", sender * 2 + (unsigned)which,
	    0x5ee0u + (unsigned)which);
}

static unsigned
number(const char *s, const char *what)
{
	char		*end;
	unsigned long	 v;

	v = strtoul(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v == 0 || v > 10000000) {
		fprintf(stderr, "truststates: bad %s \"%s\"\n", what, s);
		exit(2);
	}
	return (unsigned)v;
}

int
main(int argc, char **argv)
{
	struct trust_store	*ts;
	struct trust_verdict	 v;
	struct trust_sig	 sig;
	struct stat		 sb;
	enum trust_state	*want, *got;
	unsigned		*from, *seen;
	unsigned		 nmsg = 100000, nsend = 2000, runs = 5, i, r, s;
	unsigned		 mix[NSTATES];
	char			**addr, **msgid, **keys, *cause = NULL, *path;
	char			*wal, fpr[FPR_HEX + 1];
	double			 t0, t1, t2, t3, t4;
	size_t			 found;
	long long		 size;
	int			 c, kind;

	while ((c = getopt(argc, argv, "n:s:r:")) != -1) {
		switch (c) {
		case 'n':
			nmsg = number(optarg, "message count");
			break;
		case 's':
			nsend = number(optarg, "sender count");
			break;
		case 'r':
			runs = number(optarg, "run count");
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1)
		goto usage;
	path = xasprintf("%s/trust.sqlite", argv[optind]);
	if (stat(path, &sb) == 0)
		die("the store exists already (give an empty directory)", path);

	addr = xcalloc(nsend, sizeof *addr);
	seen = xcalloc(nsend, sizeof *seen);
	for (s = 0; s < nsend; s++)
		addr[s] = xasprintf("sender%u@d%u.example", s, s % 97);
	msgid = xcalloc(nmsg, sizeof *msgid);
	from = xcalloc(nmsg, sizeof *from);
	want = xcalloc(nmsg, sizeof *want);
	got = xcalloc(nmsg, sizeof *got);
	keys = xcalloc(nmsg, sizeof *keys);
	memset(mix, 0, sizeof mix);

	/* The fill, untimed in the report: the store as mail built it. */
	if ((ts = trust_store_open(path, &cause)) == NULL)
		die("cannot open the store", cause);
	t0 = now_s();
	for (i = 0; i < nmsg; i++) {
		s = rnd(nsend);
		from[i] = s;
		msgid[i] = xasprintf("<%u.%08x@mail.d%u.example>", i,
		    (unsigned)rnd(0xffffffffu), s % 97);
		kind = (int)(s % 10);
		memset(&sig, 0, sizeof sig);
		sig.proto = "openpgp";
		if (seen[s] == 0 && (kind == 6 || kind == 7)) {
			fpr_of(s, 0, fpr);
			if (trust_store_sighting(ts, addr[s], fpr, "openpgp",
			    kind == 6 ? TRUST_SRC_AUTOCRYPT :
			    TRUST_SRC_DNS_SECURE, 1700000000 + (time_t)i,
			    &cause) == -1)
				die("trust_store_sighting", cause);
		}
		if (kind == 6 || kind == 9)
			sig.status = TRUST_SIG_NONE;
		else {
			sig.status = TRUST_SIG_GOOD;
			fpr_of(s, kind == 8 && seen[s] >= 3, fpr);
			sig.fpr = fpr;
		}
		seen[s]++;
		keys[i] = trust_store_msgkey(msgid[i], addr[s], NULL, 0);
		if (trust_store_message(ts, keys[i], addr[s], &sig,
		    1700000000 + (time_t)i, &v, &cause) == -1)
			die("trust_store_message", cause);
		if (v.stored)
			die("a new message was found in the store", keys[i]);
		want[i] = v.state;
		mix[v.state]++;
		trust_verdict_free(&v);
		free(keys[i]);
		keys[i] = NULL;
	}
	t1 = now_s();
	trust_store_close(ts);
	printf("fill %u %u %.3f\n", nmsg, nsend, t1 - t0);
	printf("mix");
	for (c = 0; c < NSTATES; c++)
		if (mix[c] > 0)
			printf(" %s=%u", trust_state_name((enum trust_state)c),
			    mix[c]);
	printf("\n");
	size = stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
	wal = xasprintf("%s-wal", path);
	if (stat(wal, &sb) == 0)
		size += (long long)sb.st_size;
	free(wal);
	printf("size %lld\n", size);
	fflush(stdout);

	/* The timed part: what opening the index costs, every row. */
	for (r = 1; r <= runs; r++) {
		memset(got, 0xff, nmsg * sizeof *got);
		t0 = now_s();
		if ((ts = trust_store_open(path, &cause)) == NULL)
			die("cannot open the store", cause);
		t1 = now_s();
		for (i = 0; i < nmsg; i++)
			keys[i] = trust_store_msgkey(msgid[i], addr[from[i]],
			    NULL, 0);
		t2 = now_s();
		if (trust_store_states(ts, (const char *const *)keys, nmsg,
		    got, &found, &cause) == -1)
			die("trust_store_states", cause);
		t3 = now_s();
		for (i = 0; i < nmsg; i++) {
			free(keys[i]);
			keys[i] = NULL;
		}
		trust_store_close(ts);
		t4 = now_s();
		if (found != nmsg) {
			fprintf(stderr, "truststates: run %u found %zu of %u "
			    "messages\n", r, found, nmsg);
			return 1;
		}
		for (i = 0; i < nmsg; i++)
			if (got[i] != want[i]) {
				fprintf(stderr, "truststates: run %u: message "
				    "%u is %s, it was stored as %s\n", r, i,
				    trust_state_name(got[i]),
				    trust_state_name(want[i]));
				return 1;
			}
		printf("run %u open %.6f keys %.6f states %.6f total %.6f\n",
		    r, t1 - t0, t2 - t1, t3 - t2, t4 - t0);
		fflush(stdout);
	}

	for (i = 0; i < nmsg; i++)
		free(msgid[i]);
	for (s = 0; s < nsend; s++)
		free(addr[s]);
	free(msgid);
	free(from);
	free(want);
	free(got);
	free(keys);
	free(addr);
	free(seen);
	free(path);
	return 0;

usage:
	fprintf(stderr, "usage: truststates [-n MESSAGES] [-s SENDERS] "
	    "[-r RUNS] DIR\n");
	return 2;
}
