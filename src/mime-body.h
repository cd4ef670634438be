/*
 * mime-body.h: the body of a parsed MIME part, decoded: as bytes, or as
 * UTF-8 text. Neither is terminal-safe.
 */
#ifndef STEED_MIME_BODY_H
#define STEED_MIME_BODY_H

#include <stddef.h>

#include "buf.h"

struct mime_part;

/* The body with its transfer encoding undone; returns MIME_CTE_* flags. */
int	 mime_body_decode(const struct mime_part *, struct buf *out);

/*
 * The body as UTF-8 text: transfer encoding undone, charset converted,
 * CRLF turned into LF; with max not 0, only about the first max decoded
 * bytes (cut at a line end where there is one). If something is wrong
 * (unknown charset: bytes above 0x7F then appear as \xHH; bytes replaced
 * with U+FFFD; broken base64; text cut), *note is set to a sentence
 * saying so, else to NULL.
 */
void	 mime_body_text(const struct mime_part *, size_t max, struct buf *out,
	    char **note);

#endif
