/*
 * hex.h: bytes as hexadecimal digits and back (fingerprints, digests,
 * DNS owner names, escapes).
 */
#ifndef STEED_HEX_H
#define STEED_HEX_H

#include <stddef.h>

struct buf;

/* The digits of the len bytes at p added to b, upper or lower case. */
void	 hex_add(struct buf *, const void *p, size_t len, int upper);
/* The same as a new string (allocated). */
char	*hex_encode(const void *p, size_t len, int upper);
/* The value of a hexadecimal digit, or -1 for any other character. */
int	 hex_value(int c);

#endif
