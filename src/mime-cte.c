/*
 * mime-cte.c: base64 and quoted-printable, both ways (see mime-cte.h).
 * Used by mime-parse.c for bodies, rfc2047.c for B-encoded words and
 * mime-build.c for outgoing mail.
 *
 * The decoders read whatever they are given: they skip what does not
 * belong, keep what cannot be decoded, report it in the returned flags, and
 * never read past len. They never allocate more than the output needs.
 */
#include <string.h>
#include <strings.h>

#include "hex.h"
#include "mime-cte.h"
#include "xmalloc.h"

static const char mime_cte_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static const struct {
	enum mime_cte	 cte;
	const char	*name;
} mime_cte_names[] = {
	{ MIME_CTE_7BIT,	"7bit" },
	{ MIME_CTE_8BIT,	"8bit" },
	{ MIME_CTE_BINARY,	"binary" },
	{ MIME_CTE_QP,		"quoted-printable" },
	{ MIME_CTE_BASE64,	"base64" },
};

enum mime_cte
mime_cte_from_name(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof mime_cte_names / sizeof *mime_cte_names; i++) {
		if (strcasecmp(name, mime_cte_names[i].name) == 0)
			return mime_cte_names[i].cte;
	}
	return MIME_CTE_OTHER;
}

const char *
mime_cte_name(enum mime_cte cte)
{
	size_t	i;

	for (i = 0; i < sizeof mime_cte_names / sizeof *mime_cte_names; i++) {
		if (mime_cte_names[i].cte == cte)
			return mime_cte_names[i].name;
	}
	return "unknown";
}

/*
 * What each byte is to the base64 decoder: its value (0-63), or one of
 * the classes below. A table, since the decoder looks at every byte of
 * every attachment shown (the attachment list counts them).
 */
#define MIME_CTE_B64_PAD	64	/* '=' */
#define MIME_CTE_B64_SPACE	65	/* CR, LF, space, tab: skipped */
#define MIME_CTE_B64_BAD	66	/* anything else: skipped, flagged */
static const unsigned char mime_cte_b64_class[256] = {
	66, 66, 66, 66, 66, 66, 66, 66, 66, 65, 65, 66, 66, 65, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
	65, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 62, 66, 66, 66, 63,
	52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 66, 66, 66, 64, 66, 66,
	66,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 66, 66, 66, 66, 66,
	66, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
	41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 66, 66, 66, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
	66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66,
};

/*
 * Emit the bytes held by a group of n (2 to 4) sextets; with out NULL
 * only count them in *size.
 */
static void
mime_cte_b64_flush(struct buf *out, size_t *size, unsigned int acc, int n)
{
	unsigned char	b[3];

	*size += n - 1;
	if (out == NULL)
		return;
	acc <<= 6 * (4 - n);
	b[0] = (acc >> 16) & 0xff;
	b[1] = (acc >> 8) & 0xff;
	b[2] = acc & 0xff;
	buf_add(out, b, n - 1);
}

/* Decode into out, or with out NULL only count the bytes in *size. */
static int
mime_cte_base64_run(struct buf *out, size_t *size, const char *in,
    size_t len)
{
	const unsigned char	*p = (const unsigned char *)in;
	unsigned int		 acc = 0;
	int			 n = 0, v, flags = 0;
	size_t			 i;

	for (i = 0; i < len; i++) {
		v = mime_cte_b64_class[p[i]];
		if (v < 64) {
			acc = (acc << 6) | (unsigned int)v;
			if (++n == 4) {
				mime_cte_b64_flush(out, size, acc, 4);
				n = 0;
				acc = 0;
			}
			continue;
		}
		if (v == MIME_CTE_B64_PAD) {
			/* Padding ends a group; a new one may follow. */
			if (n == 1)
				flags |= MIME_CTE_TRUNCATED;
			else if (n > 1)
				mime_cte_b64_flush(out, size, acc, n);
			n = 0;
			acc = 0;
		} else if (v == MIME_CTE_B64_BAD)
			flags |= MIME_CTE_BAD_CHARS;
	}
	if (n == 1)
		flags |= MIME_CTE_TRUNCATED;
	else if (n > 1) {
		mime_cte_b64_flush(out, size, acc, n);
		flags |= MIME_CTE_NO_PADDING;
	}
	return flags;
}

int
mime_cte_base64_decode(struct buf *out, const char *in, size_t len)
{
	size_t	size = 0;

	return mime_cte_base64_run(out, &size, in, len);
}

/*
 * One line of quoted-printable, without its line break. Trailing white
 * space was added in transport (RFC 2045 6.7, rule 3) and goes; a final
 * '=' is a soft line break. Returns 1 if the line ended in a soft break.
 */
static int
mime_cte_qp_line(struct buf *out, const unsigned char *p, size_t len,
    int *flags)
{
	size_t	i, start = 0;
	int	hi, lo;

	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	for (i = 0; i < len; i++) {
		if (p[i] != '=')
			continue;
		buf_add(out, p + start, i - start);
		if (i + 1 == len)
			return 1;
		hi = lo = -1;
		if (i + 2 < len) {
			hi = hex_value(p[i + 1]);
			lo = hex_value(p[i + 2]);
		}
		if (hi != -1 && lo != -1) {
			buf_addc(out, (char)(hi << 4 | lo));
			i += 2;
		} else {
			buf_addc(out, '=');
			*flags |= MIME_CTE_BAD_QP;
		}
		start = i + 1;
	}
	buf_add(out, p + start, len - start);
	return 0;
}

int
mime_cte_qp_decode(struct buf *out, const char *in, size_t len)
{
	const unsigned char	*p = (const unsigned char *)in;
	const unsigned char	*nl;
	size_t			 pos = 0, end, next;
	int			 flags = 0, soft;

	while (pos < len) {
		nl = memchr(p + pos, '\n', len - pos);
		if (nl == NULL)
			end = next = len;
		else {
			end = nl - p;
			next = end + 1;
		}
		/* Keep the line break as it was: CRLF or LF. */
		if (end > pos && p[end - 1] == '\r')
			end--;
		soft = mime_cte_qp_line(out, p + pos, end - pos, &flags);
		if (!soft && nl != NULL)
			buf_add(out, p + end, next - end);
		pos = next;
	}
	return flags;
}

int
mime_cte_decode(enum mime_cte cte, struct buf *out, const char *in,
    size_t len)
{
	switch (cte) {
	case MIME_CTE_BASE64:
		return mime_cte_base64_decode(out, in, len);
	case MIME_CTE_QP:
		return mime_cte_qp_decode(out, in, len);
	case MIME_CTE_OTHER:
		buf_add(out, in, len);
		return MIME_CTE_UNKNOWN;
	default:
		buf_add(out, in, len);
		return 0;
	}
}

int
mime_cte_decoded_size(enum mime_cte cte, const char *in, size_t len,
    size_t *size)
{
	struct buf	b;
	int		flags;

	*size = 0;
	switch (cte) {
	case MIME_CTE_BASE64:
		return mime_cte_base64_run(NULL, size, in, len);
	case MIME_CTE_QP:
		buf_init(&b);
		flags = mime_cte_qp_decode(&b, in, len);
		*size = b.len;
		buf_free(&b);
		return flags;
	case MIME_CTE_OTHER:
		*size = len;
		return MIME_CTE_UNKNOWN;
	default:
		*size = len;
		return 0;
	}
}

void
mime_cte_base64_encode(struct buf *out, const void *in, size_t len,
    size_t linelen)
{
	const unsigned char	*p = in;
	char			 q[4];
	size_t			 i, col = 0;
	unsigned int		 acc;

	for (i = 0; i < len; i += 3) {
		acc = (unsigned int)p[i] << 16;
		if (i + 1 < len)
			acc |= (unsigned int)p[i + 1] << 8;
		if (i + 2 < len)
			acc |= p[i + 2];
		q[0] = mime_cte_b64[(acc >> 18) & 0x3f];
		q[1] = mime_cte_b64[(acc >> 12) & 0x3f];
		q[2] = i + 1 < len ? mime_cte_b64[(acc >> 6) & 0x3f] : '=';
		q[3] = i + 2 < len ? mime_cte_b64[acc & 0x3f] : '=';
		if (linelen != 0 && col + 4 > linelen) {
			buf_add(out, "\r\n", 2);
			col = 0;
		}
		buf_add(out, q, 4);
		col += 4;
	}
	if (linelen != 0 && col > 0)
		buf_add(out, "\r\n", 2);
}

/* Does byte c need =XX in quoted-printable body text? */
static int
mime_cte_qp_special(unsigned char c)
{
	return c == '=' || c >= 0x7f || (c < 0x20 && c != '\t');
}

void
mime_cte_qp_encode(struct buf *out, const char *in, size_t len)
{
	const unsigned char	*p = (const unsigned char *)in;
	size_t			 i, col = 0, w, end;
	char			 tok[4];
	int			 lastws;

	for (i = 0; i < len; i++) {
		if (p[i] == '\n' || (p[i] == '\r' && i + 1 < len &&
		    p[i + 1] == '\n')) {
			if (p[i] == '\r')
				i++;
			buf_add(out, "\r\n", 2);
			col = 0;
			continue;
		}
		/* White space just before a line break must be encoded. */
		end = i + 1;
		lastws = (p[i] == ' ' || p[i] == '\t') && (end == len ||
		    p[end] == '\n' || (p[end] == '\r' && end + 1 < len &&
		    p[end + 1] == '\n'));
		if (mime_cte_qp_special(p[i]) || lastws) {
			tok[0] = '=';
			tok[1] = "0123456789ABCDEF"[p[i] >> 4];
			tok[2] = "0123456789ABCDEF"[p[i] & 0xf];
			w = 3;
		} else {
			tok[0] = (char)p[i];
			w = 1;
		}
		/* 75 characters and the '=' of a soft break make 76. */
		if (col + w > 75) {
			buf_add(out, "=\r\n", 3);
			col = 0;
		}
		buf_add(out, tok, w);
		col += w;
	}
}
