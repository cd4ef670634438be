/*
 * tap.h: a very small TAP producer for the C unit tests. Each check prints
 * "ok N - what" or "not ok N - what" with the failing expression and line;
 * tests/run adds them up. Small enough to read in a minute, which is why it
 * is used instead of a framework (see doc/testing.md).
 */
#ifndef STEED_TAP_H
#define STEED_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define TAP_OK(cond, ...) do {						\
	int tap_c = (cond) ? 1 : 0;	/* evaluated once */		\
	tap_n++;							\
	if (tap_c) {							\
		printf("ok %d - ", tap_n);				\
	} else {							\
		tap_failed++;						\
		printf("not ok %d - ", tap_n);				\
	}								\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
	if (!tap_c)							\
		printf("#   %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
} while (0)

#define TAP_STR(got, want, ...) do {					\
	const char *tap_g = (got), *tap_w = (want);			\
	int tap_same = tap_g != NULL && tap_w != NULL &&		\
	    strcmp(tap_g, tap_w) == 0;					\
	TAP_OK(tap_same, __VA_ARGS__);					\
	if (!tap_same)							\
		printf("#   got  \"%s\"\n#   want \"%s\"\n",		\
		    tap_g ? tap_g : "(null)", tap_w ? tap_w : "(null)");\
} while (0)

#define TAP_DONE() (fflush(stdout), tap_failed != 0)

#endif
