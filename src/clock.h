/*
 * clock.h: the monotonic clock, for timeouts and durations (never the
 * wall clock, which can jump).
 */
#ifndef STEED_CLOCK_H
#define STEED_CLOCK_H

#include <stdint.h>

/* Milliseconds since an arbitrary point; only differences mean anything. */
int64_t	clock_ms(void);

#endif
