/*
 * rfc2047.c: encoded words (see rfc2047.h). Decoding is used by the view
 * and the header displays for Subject, names and the odd filename;
 * encoding by mime-build.c for outgoing Subject and display names.
 *
 * Decoding is lenient in where it looks (an encoded word is recognised
 * wherever it appears, not only between white space, as most senders
 * assume) and strict in what it accepts (a word with a bad charset, bad
 * base64 or a stray '=' in Q text is left exactly as it was). Adjacent
 * words in the same charset are joined before conversion, because senders
 * split multi-byte characters across words although RFC 2047 says not to.
 * The scan is linear: a candidate word never reads past its third '?'
 * without either ending or being rejected.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hex.h"
#include "charset.h"
#include "mime-cte.h"
#include "rfc2047.h"
#include "xmalloc.h"

#define RFC2047_CHARSET_MAX	64

struct rfc2047_word {
	char		 charset[RFC2047_CHARSET_MAX + 1];
	int		 enc;		/* 'B' or 'Q' */
	const char	*text;
	size_t		 textlen;
	size_t		 end;		/* offset just after "?=" */
};

/* Is there a well-formed encoded word at in[pos]? */
static int
rfc2047_parse_word(const char *in, size_t len, size_t pos,
    struct rfc2047_word *w)
{
	size_t		i, start;
	unsigned char	c;
	char		*star;

	if (pos + 2 > len || in[pos] != '=' || in[pos + 1] != '?')
		return 0;
	start = i = pos + 2;
	while (i < len && in[i] != '?') {
		c = (unsigned char)in[i];
		if (c <= 0x20 || c >= 0x7f || i - start >= RFC2047_CHARSET_MAX)
			return 0;
		i++;
	}
	if (i == start || i + 3 > len)
		return 0;
	memcpy(w->charset, in + start, i - start);
	w->charset[i - start] = '\0';
	if ((star = strchr(w->charset, '*')) != NULL)	/* RFC 2231 language */
		*star = '\0';
	if (w->charset[0] == '\0')
		return 0;
	if (in[i + 1] == 'B' || in[i + 1] == 'b')
		w->enc = 'B';
	else if (in[i + 1] == 'Q' || in[i + 1] == 'q')
		w->enc = 'Q';
	else
		return 0;
	if (in[i + 2] != '?')
		return 0;
	start = i = i + 3;
	while (i < len && in[i] != '?') {
		c = (unsigned char)in[i];
		if (c <= 0x20 || c >= 0x7f)
			return 0;
		i++;
	}
	if (i + 1 >= len || in[i + 1] != '=')
		return 0;
	w->text = in + start;
	w->textlen = i - start;
	w->end = i + 2;
	return 1;
}

/* Decode a word's text into out; 0 if it is malformed. */
static int
rfc2047_decode_text(const struct rfc2047_word *w, struct buf *out)
{
	const unsigned char	*p = (const unsigned char *)w->text;
	size_t			 i;
	int			 hi, lo, flags;

	if (w->enc == 'B') {
		flags = mime_cte_base64_decode(out, w->text, w->textlen);
		return (flags & (MIME_CTE_BAD_CHARS | MIME_CTE_TRUNCATED)) == 0;
	}
	for (i = 0; i < w->textlen; i++) {
		if (p[i] == '_')
			buf_addc(out, ' ');
		else if (p[i] != '=')
			buf_addc(out, (char)p[i]);
		else {
			if (i + 2 >= w->textlen)
				return 0;
			if ((hi = hex_value(p[i + 1])) == -1 ||
			    (lo = hex_value(p[i + 2])) == -1)
				return 0;
			buf_addc(out, (char)(hi << 4 | lo));
			i += 2;
		}
	}
	return 1;
}

static int
rfc2047_is_space(const char *p, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
			return 0;
	}
	return 1;
}

/* Convert the decoded bytes of a run of words and add them to out. */
static void
rfc2047_flush(struct buf *out, const char *charset, struct buf *bytes)
{
	char	*cause;

	if (charset_to_utf8(charset, bytes->data, bytes->len, out, NULL,
	    &cause) != 0) {
		/* Cannot happen: the charset was checked. Keep the bytes. */
		free(cause);
		charset_escape_8bit(out, bytes->data, bytes->len);
	}
	buf_reset(bytes);
}

void
rfc2047_decode(struct buf *out, const char *in, size_t len)
{
	struct rfc2047_word	 w;
	struct buf		 bytes, tmp;
	char			 charset[RFC2047_CHARSET_MAX + 1];
	const char		*p;
	size_t			 pos = 0, lit = 0, at;
	int			 pending = 0;

	buf_init(&bytes);
	buf_init(&tmp);
	while (pos < len) {
		if ((p = memchr(in + pos, '=', len - pos)) == NULL)
			break;
		at = p - in;
		if (at + 1 >= len || in[at + 1] != '?') {
			pos = at + 1;
			continue;
		}
		buf_reset(&tmp);
		if (!rfc2047_parse_word(in, len, at, &w) ||
		    !charset_supported(w.charset) ||
		    !rfc2047_decode_text(&w, &tmp)) {
			pos = at + 2;
			continue;
		}
		if (pending && rfc2047_is_space(in + lit, at - lit) &&
		    strcasecmp(charset, w.charset) == 0)
			buf_add(&bytes, tmp.data, tmp.len);
		else {
			if (pending)
				rfc2047_flush(out, charset, &bytes);
			if (!pending || !rfc2047_is_space(in + lit, at - lit))
				buf_add(out, in + lit, at - lit);
			memcpy(charset, w.charset, sizeof charset);
			buf_add(&bytes, tmp.data, tmp.len);
			pending = 1;
		}
		pos = lit = w.end;
	}
	if (pending)
		rfc2047_flush(out, charset, &bytes);
	buf_add(out, in + lit, len - lit);
	buf_free(&bytes);
	buf_free(&tmp);
}

char *
rfc2047_decode_str(const char *in)
{
	struct buf	b;

	buf_init(&b);
	rfc2047_decode(&b, in, strlen(in));
	return buf_take(&b);
}

/* May byte c appear as itself in Q text in this context? */
static int
rfc2047_q_plain(unsigned char c, int where)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	if (where == RFC2047_PHRASE)
		return c != '\0' && strchr("!*+-/", c) != NULL;
	/* Unstructured text: anything printable but '=', '?' and '_'. */
	return c > 0x20 && c < 0x7f && c != '=' && c != '?' && c != '_';
}

/* The length of byte c in Q encoding. */
static size_t
rfc2047_q_len(unsigned char c, int where)
{
	return (c == ' ' || rfc2047_q_plain(c, where)) ? 1 : 3;
}

static void
rfc2047_q_add(struct buf *out, const unsigned char *p, size_t n, int where)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (p[i] == ' ')
			buf_addc(out, '_');
		else if (rfc2047_q_plain(p[i], where))
			buf_addc(out, (char)p[i]);
		else
			buf_addf(out, "=%02X", p[i]);
	}
}

/* Close the word holding the n bytes at p. */
static void
rfc2047_emit(struct buf *out, const char *p, size_t n, int q, int where)
{
	if (out->len > 0)
		buf_addc(out, ' ');
	if (q) {
		buf_adds(out, "=?utf-8?q?");
		rfc2047_q_add(out, (const unsigned char *)p, n, where);
	} else {
		buf_adds(out, "=?utf-8?b?");
		mime_cte_base64_encode(out, p, n, 0);
	}
	buf_adds(out, "?=");
}

char *
rfc2047_encode(const char *in, size_t col, int where)
{
	const unsigned char	*p = (const unsigned char *)in;
	struct buf		 out;
	size_t			 len = strlen(in), i, n, k, qlen = 0, blen;
	size_t			 start = 0, wlen = 0, clen, budget;
	int			 q;

	for (i = 0; i < len; i++)
		qlen += rfc2047_q_len(p[i], where);
	blen = (len + 2) / 3 * 4;
	q = qlen <= blen;

	/* "=?utf-8?q?" and "?=" take 12 of a word's 75 characters. */
	budget = col + 12 + 12 <= 76 ? 76 - col - 12 : 63;
	buf_init(&out);
	for (i = 0; i < len; i += n) {
		if ((n = charset_utf8_seq(in + i, len - i)) == 0)
			n = 1;
		if (q) {
			for (clen = 0, k = 0; k < n; k++)
				clen += rfc2047_q_len(p[i + k], where);
			clen += wlen;
		} else
			clen = (i + n - start + 2) / 3 * 4;
		if (clen > budget && i > start) {
			rfc2047_emit(&out, in + start, i - start, q, where);
			start = i;
			budget = 63;
			if (q) {
				for (clen = 0, k = 0; k < n; k++)
					clen += rfc2047_q_len(p[i + k], where);
			}
		}
		wlen = clen;
	}
	if (i > start || len == 0)
		rfc2047_emit(&out, in + start, i - start, q, where);
	return buf_take(&out);
}
