/*
 * mime-body.c: a part's body, decoded on demand (see mime-body.h): the
 * transfer encoding undone, and for text the charset converted to UTF-8
 * with a note on anything that was wrong. Called by the view, and later
 * the pager and "save attachment". It holds nothing: every call decodes
 * afresh from the message buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "charset.h"
#include "mime-body.h"
#include "mime-parse.h"
#include "xmalloc.h"

int
mime_body_decode(const struct mime_part *p, struct buf *out)
{
	int	flags;

	flags = mime_cte_decode(p->cte, out, p->body, p->bodylen);
	buf_add(out, "", 0);	/* out->data is never NULL afterwards */
	return flags;
}

/* Add a sentence to a note. */
static void
mime_body_note(struct buf *notes, const char *s)
{
	if (notes->len > 0)
		buf_adds(notes, "; ");
	buf_adds(notes, s);
}

/* Where to cut len bytes to keep about max: after a line end if any. */
static size_t
mime_body_cut(const char *s, size_t len, size_t max)
{
	const char	*nl;

	if (max == 0 || len <= max)
		return len;
	if ((nl = memrchr(s, '\n', max)) != NULL)
		return nl - s + 1;
	return max;
}

void
mime_body_text(const struct mime_part *p, size_t max, struct buf *out,
    char **note)
{
	struct buf	 raw, conv, notes;
	const char	*charset;
	char		*cause, *s;
	size_t		 nbad = 0, i, start, n;
	int		 flags;

	buf_init(&raw);
	buf_init(&conv);
	buf_init(&notes);
	flags = mime_body_decode(p, &raw);
	n = mime_body_cut(raw.data, raw.len, max);
	charset = p->charset != NULL ? p->charset : "us-ascii";
	if (charset_to_utf8(charset, raw.data, n, &conv, &nbad,
	    &cause) != 0) {
		s = xasprintf("%s: bytes above 0x7F are shown as \\xHH",
		    cause);
		mime_body_note(&notes, s);
		free(s);
		free(cause);
		charset_escape_8bit(&conv, raw.data, n);
	} else if (nbad > 0) {
		s = xasprintf("%zu invalid byte%s for charset %.64s replaced "
		    "with U+FFFD", nbad, nbad == 1 ? "" : "s", charset);
		mime_body_note(&notes, s);
		free(s);
	}
	if (flags & (MIME_CTE_TRUNCATED | MIME_CTE_NO_PADDING))
		mime_body_note(&notes, "base64 data ends early: the text may "
		    "be incomplete");
	if (flags & MIME_CTE_BAD_CHARS)
		mime_body_note(&notes, "base64 data holds stray characters, "
		    "skipped");
	if (flags & MIME_CTE_BAD_QP)
		mime_body_note(&notes, "malformed quoted-printable escapes "
		    "kept as they are");
	if (n < raw.len) {
		s = xasprintf("the text is %zu bytes long: only the first %zu "
		    "are shown", raw.len, n);
		mime_body_note(&notes, s);
		free(s);
	}
	if (flags & MIME_CTE_UNKNOWN) {
		s = xasprintf("unknown transfer encoding %s: not decoded",
		    p->cte_name != NULL ? p->cte_name : "");
		mime_body_note(&notes, s);
		free(s);
	}

	/* CRLF to LF; a lone CR stays and is shown escaped. */
	for (i = start = 0; i < conv.len; i++) {
		if (conv.data[i] == '\r' && i + 1 < conv.len &&
		    conv.data[i + 1] == '\n') {
			buf_add(out, conv.data + start, i - start);
			start = i + 1;
		}
	}
	buf_add(out, conv.data == NULL ? "" : conv.data + start,
	    conv.len - start);
	*note = notes.len > 0 ? buf_take(&notes) : NULL;
	buf_free(&raw);
	buf_free(&conv);
	buf_free(&notes);
}
