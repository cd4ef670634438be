/*
 * mime-cte.h: the MIME content transfer encodings (RFC 2045), base64 and
 * quoted-printable, decoded for reading and encoded for sending.
 */
#ifndef STEED_MIME_CTE_H
#define STEED_MIME_CTE_H

#include <stddef.h>

#include "buf.h"

enum mime_cte {
	MIME_CTE_7BIT,
	MIME_CTE_8BIT,
	MIME_CTE_BINARY,
	MIME_CTE_QP,
	MIME_CTE_BASE64,
	MIME_CTE_OTHER		/* a name we do not know: left as it is */
};

/* What went wrong while decoding; the decoders never fail outright. */
#define MIME_CTE_BAD_CHARS	0x01	/* base64: bytes outside the alphabet */
#define MIME_CTE_TRUNCATED	0x02	/* base64: ends inside a group */
#define MIME_CTE_NO_PADDING	0x04	/* base64: last group not padded */
#define MIME_CTE_BAD_QP		0x08	/* QP: '=' not starting an escape */
#define MIME_CTE_UNKNOWN	0x10	/* unknown encoding: bytes as is */

/* The encoding named name (case-insensitive), or MIME_CTE_OTHER. */
enum mime_cte	 mime_cte_from_name(const char *name);
const char	*mime_cte_name(enum mime_cte);

/* Append the decoded bytes to out; return the MIME_CTE_* problem flags. */
int	 mime_cte_decode(enum mime_cte, struct buf *out, const char *in,
	    size_t len);
int	 mime_cte_base64_decode(struct buf *out, const char *in, size_t len);
/* The size the decoded bytes would have, and the same flags, without
   keeping them (base64 is only counted). */
int	 mime_cte_decoded_size(enum mime_cte, const char *in, size_t len,
	    size_t *size);
int	 mime_cte_qp_decode(struct buf *out, const char *in, size_t len);

/*
 * Encoders. base64 breaks lines at linelen characters with CRLF (linelen 0:
 * one line, no line break, for encoded words). Quoted-printable reads text
 * whose lines end in LF or CRLF and writes lines of at most 76 characters
 * ending in CRLF.
 */
void	 mime_cte_base64_encode(struct buf *out, const void *in, size_t len,
	    size_t linelen);
void	 mime_cte_qp_encode(struct buf *out, const char *in, size_t len);

#endif
