/*
 * charset.h: turning text in a declared charset into UTF-8. The result is
 * UTF-8 but not terminal-safe: it still goes through strsafe() before it
 * is shown.
 */
#ifndef STEED_CHARSET_H
#define STEED_CHARSET_H

#include <stddef.h>

#include "buf.h"

/* What a sequence that cannot be converted becomes (U+FFFD). */
#define CHARSET_REPLACEMENT	"\xef\xbf\xbd"

/*
 * Append the len bytes at in, read as charset, to out as UTF-8. A sequence
 * that is invalid in that charset becomes U+FFFD; *nbad (if not NULL) says
 * how many. Returns -1 with *cause set, and out untouched, if the charset
 * is unknown or cannot be converted from.
 */
int	 charset_to_utf8(const char *charset, const char *in, size_t len,
	    struct buf *out, size_t *nbad, char **cause);
/* 1 if text in this charset can be converted (charset_to_utf8 succeeds). */
int	 charset_supported(const char *charset);
/* 1 if the charset is UTF-8 or US-ASCII by any of their names. */
int	 charset_is_utf8(const char *charset);

/*
 * The length of the valid UTF-8 sequence at p (no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 if there is none.
 */
size_t	 charset_utf8_seq(const char *p, size_t len);
/* 1 if all len bytes at p are valid UTF-8. */
int	 charset_utf8_valid(const char *p, size_t len);
/* Append the len bytes at p with every byte above 0x7F written as \xHH. */
void	 charset_escape_8bit(struct buf *out, const char *p, size_t len);

#endif
