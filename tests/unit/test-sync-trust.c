/*
 * test-sync-trust.c: the UID sets the trust step keeps pending
 * (sync_trust_set_*): ranges added in any order come out in order and
 * merged, the highest range is found, cutting from a UID drops it and
 * everything above, and text that is not a UID set counts as empty.
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

int
main(void)
{
	uint32_t	lo, hi;

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
	TAP_OK(!sync_trust_set_top("99999999999", &lo, &hi),
	    "a number over 32 bits");
	return TAP_DONE();
}
