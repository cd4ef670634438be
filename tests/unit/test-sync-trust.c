/*
 * test-sync-trust.c: the UID sets the trust step keeps pending
 * (sync_trust_set_*): ranges added in any order come out in order and
 * merged, the highest range is found, cutting from a UID drops it and
 * everything above, and text that is not a UID set counts as empty; and
 * the highest UID a window of the newest messages leaves out
 * (sync_trust_below), found in a mailbox of 1,000,000 UIDs with gaps by a
 * number of questions that does not grow with it.
 */
#include <stdint.h>
#include <stdlib.h>

#include "sync-trust.h"
#include "tap.h"

static void
add(const char *set, uint32_t lo, uint32_t hi, const char *want)
{
	char	*s = sync_trust_set_add(set, lo, hi);

	TAP_STR(s, want, "\"%s\" + %u:%u", set, lo, hi);
	free(s);
}

static void
cut(const char *set, uint32_t from, const char *want)
{
	char	*s = sync_trust_set_cut(set, from);

	TAP_STR(s, want, "\"%s\" cut from %u", set, from);
	free(s);
}

/* A mailbox: the UID at sequence number seq is 3 * seq + (seq > 500). */
#define BOX_N	1000000u

static unsigned	asked;

static int
box_uid_at(void *arg, uint32_t seq, uint32_t *uid, char **cause)
{
	(void)cause;
	asked++;
	if (arg != NULL)
		return -1;
	*uid = seq >= 1 && seq <= BOX_N ? 3 * seq + (seq > 500) : 0;
	return 0;
}

static void
below(uint32_t first, uint32_t last, uint32_t lo, uint32_t want,
    unsigned most)
{
	uint32_t	hi = 12345;
	int		rc;

	asked = 0;
	rc = sync_trust_below(first, last, lo, box_uid_at, NULL, &hi, NULL);
	TAP_OK(rc == 0 && hi == want && asked <= most,
	    "below sequence %u, UIDs %u:%u: %u (want %u), %u questions "
	    "(at most %u)", lo, first, last, hi, want, asked, most);
}

int
main(void)
{
	uint32_t	lo, hi;
	char		*cause = NULL;

	add("", 1, 40, "1:40");
	add("1:40", 52, 90, "1:40,52:90");
	add("52:90", 1, 40, "1:40,52:90");
	add("1:40", 41, 50, "1:50");
	add("1:40,52:90", 30, 60, "1:90");
	add("7", 7, 7, "7");
	add("1:40", 0, 3, "1:40");
	add("1:40", 9, 3, "1:40");
	cut("1:40,52:90", 60, "1:40,52:59");
	cut("1:40,52:90", 52, "1:40");
	cut("1:40,52:90", 41, "1:40");
	cut("1:40,52:90", 40, "1:39");
	cut("1:40", 1, "");
	cut("", 5, "");
	TAP_OK(sync_trust_set_top("1:40,52:90", &lo, &hi) && lo == 52 &&
	    hi == 90, "top of 1:40,52:90 is 52:90");
	TAP_OK(sync_trust_set_top("5", &lo, &hi) && lo == 5 && hi == 5,
	    "top of 5 is 5:5");
	TAP_OK(!sync_trust_set_top("", &lo, &hi) && lo == 0 && hi == 0,
	    "an empty set has no top");
	TAP_OK(!sync_trust_set_top("3:1", &lo, &hi), "3:1 is not a set");
	TAP_OK(!sync_trust_set_top("1:x", &lo, &hi), "1:x is not a set");
	TAP_OK(!sync_trust_set_top("0:4", &lo, &hi), "UID 0 is not a UID");
	TAP_OK(!sync_trust_set_top("1,", &lo, &hi), "a trailing comma");
	/* nothing newer than last: one question, the UID at lo - 1 */
	below(1, 3000001, 999999, 2999995, 1);
	below(1, 3000001, 2, 3, 1);
	below(10, 3000001, 2, 0, 1);		/* below first */
	below(1, 3000001, 1, 0, 0);		/* nothing below */
	/* newer than last at lo - 1: the highest at most last */
	below(1, 1500, 999999, 1500, 22);	/* sequence 500 */
	below(1, 1504, 999999, 1504, 22);	/* 501: past the gap */
	below(1, 1502, 999999, 1500, 22);	/* in the gap */
	below(1, 2, 999999, 0, 22);		/* no UID that low */
	below(1501, 1502, 999999, 0, 22);	/* 1500 is below first */
	below(1, 2000000, 3, 6, 1);
	below(1, 2, 2, 0, 1);			/* sequence 1 is above */
	asked = 0;
	TAP_OK(sync_trust_below(1, 9, 50, box_uid_at, &asked, &hi, &cause)
	    == -1 && asked == 1, "a question that fails: -1 at once");
	TAP_OK(!sync_trust_set_top("99999999999", &lo, &hi),
	    "a number over 32 bits");
	return TAP_DONE();
}
