/*
 * rfc2047.h: encoded words in headers (RFC 2047), "=?charset?B?...?=" and
 * "=?charset?Q?...?=": decoded for reading, written for sending.
 */
#ifndef STEED_RFC2047_H
#define STEED_RFC2047_H

#include <stddef.h>

#include "buf.h"

/*
 * Append the unfolded header value in (len bytes) to out with its encoded
 * words decoded to UTF-8. White space between two encoded words goes;
 * words that are malformed or in an unknown charset stay as they are, and
 * other bytes are copied unchanged. The result is NOT terminal-safe: an
 * encoded word can carry any byte, ESC and NUL included, so it must go
 * through strsafe() before it is shown.
 */
void	 rfc2047_decode(struct buf *out, const char *in, size_t len);
/* The same for a C string, returned newly allocated. */
char	*rfc2047_decode_str(const char *in);

/* Where the text goes: Q encoding allows fewer characters in a phrase. */
#define RFC2047_TEXT	0	/* unstructured, e.g. Subject */
#define RFC2047_PHRASE	1	/* a display name */

/*
 * Encode the UTF-8 string in as UTF-8 encoded words (Q or B, whichever is
 * shorter), separated by single spaces, so that a header folded at those
 * spaces has lines of at most 76 characters: the first word fits after col
 * characters already on the line, the others after one space.
 */
char	*rfc2047_encode(const char *in, size_t col, int where);

#endif
