/*
 * test-mime.c: charsets, transfer encodings, header splitting, the part
 * tree and its limits, addresses out of header fields and what bounds
 * them, and outgoing messages built and parsed back.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr-list.h"
#include "buf.h"
#include "charset.h"
#include "mime-body.h"
#include "mime-build.h"
#include "mime-cte.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "rfc2047.h"
#include "tap.h"
#include "xmalloc.h"

static struct mime_msg *
parse(const char *s)
{
	char	*cause;

	return mime_parse_copy(s, strlen(s), &cause);
}

static char *
text_of(const struct mime_part *p, char **note)
{
	struct buf	b;

	buf_init(&b);
	mime_body_text(p, 0, &b, note);
	return buf_take(&b);
}

static void
test_charset(void)
{
	struct buf	 b;
	char		*cause;
	size_t		 bad;
	int		 r;

	buf_init(&b);
	r = charset_to_utf8("ISO-8859-1", "caf\xe9 \x93q\x94", 8, &b, &bad,
	    &cause);
	TAP_OK(r == 0 && strcmp(b.data, "caf\xc3\xa9 \xe2\x80\x9cq\xe2\x80\x9d")
	    == 0 && bad == 0, "Latin-1 read as Windows-1252");
	buf_reset(&b);
	r = charset_to_utf8("utf-8", "a\xffz\xc0\xafy", 6, &b, &bad, &cause);
	TAP_OK(r == 0 && bad == 3 && strcmp(b.data, "a\xef\xbf\xbdz\xef\xbf\xbd"
	    "\xef\xbf\xbdy") == 0, "bad UTF-8 bytes become U+FFFD, counted");
	buf_reset(&b);
	r = charset_to_utf8("us-ascii", "a\xc3\xa9", 3, &b, &bad, &cause);
	TAP_OK(r == 0 && bad == 2, "8-bit bytes in US-ASCII replaced");
	buf_reset(&b);
	r = charset_to_utf8("EUC-JP", "\xa4\xa2\xff", 3, &b, &bad, &cause);
	TAP_OK(r == 0 && bad == 1 && strncmp(b.data, "\xe3\x81\x82", 3) == 0,
	    "iconv charset, invalid byte replaced");
	buf_reset(&b);
	r = charset_to_utf8("utf(8", "a\xf4\x90\x80\x80z\xf8\x88\x80\x80"
	    "\x80y", 12, &b, &bad, &cause);
	TAP_OK(r == 0 && charset_utf8_valid(b.data, b.len) && bad > 0 &&
	    b.data[0] == 'a' && b.data[b.len - 1] == 'y',
	    "a UTF-8 alias only iconv knows: above U+10FFFF and 5-byte "
	    "forms replaced, counted");
	buf_reset(&b);
	r = charset_to_utf8("ucs-4", "\0\0\0a\x7f\xff\xff\xff\0\x20\0\0"
	    "\0\0\0b", 16, &b, &bad, &cause);
	TAP_OK(r == 0 && charset_utf8_valid(b.data, b.len) && bad > 0 &&
	    b.data[0] == 'a' && b.data[b.len - 1] == 'b',
	    "UCS-4 beyond Unicode comes out valid UTF-8, counted");
	buf_reset(&b);
	r = charset_to_utf8("x-klingon", "a", 1, &b, NULL, &cause);
	TAP_OK(r == -1 && b.len == 0 && strstr(cause, "x-klingon") != NULL,
	    "unknown charset refused, named");
	free(cause);
	r = charset_to_utf8("UTF-8//IGNORE", "a", 1, &b, NULL, &cause);
	TAP_OK(r == -1, "a charset name with '/' never reaches iconv");
	free(cause);
	r = charset_to_utf8("unknown-8bit", "a", 1, &b, NULL, &cause);
	TAP_OK(r == -1, "unknown-8bit is not guessed at");
	free(cause);
	buf_free(&b);
	TAP_OK(charset_utf8_seq("\xf0\x9f\x98\x80", 4) == 4 &&
	    charset_utf8_seq("\xf0\x9f\x98", 3) == 0 &&
	    charset_utf8_seq("\xed\xa0\x80", 3) == 0 &&
	    charset_utf8_seq("\xc1\xbf", 2) == 0, "UTF-8 sequences checked");
}

static void
test_cte(void)
{
	struct buf	 e, d;
	unsigned char	 all[256];
	size_t		 n, i, col, maxcol;
	int		 ok_b64 = 1, ok_qp = 1, flags;

	for (i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	buf_init(&e);
	buf_init(&d);
	for (n = 0; n <= 256; n++) {
		buf_reset(&e);
		buf_reset(&d);
		mime_cte_base64_encode(&e, all, n, 76);
		flags = mime_cte_base64_decode(&d, e.data == NULL ? "" : e.data,
		    e.len);
		if (flags != 0 || d.len != n || (n > 0 &&
		    memcmp(d.data, all, n) != 0))
			ok_b64 = 0;
	}
	TAP_OK(ok_b64, "base64 round trip, every length up to 256");

	for (n = 0; n <= 256; n += 8) {
		buf_reset(&e);
		buf_reset(&d);
		mime_cte_qp_encode(&e, (const char *)all + 256 - n, n);
		mime_cte_qp_decode(&d, e.data == NULL ? "" : e.data, e.len);
		/* LF and CRLF both become CRLF: compare without them. */
		maxcol = col = 0;
		for (i = 0; i < e.len; i++) {
			col = e.data[i] == '\n' ? 0 : col + 1;
			if (col > maxcol)
				maxcol = col;
		}
		if (maxcol > 77 || (n < 246 && (d.len != n ||
		    memcmp(d.data, all + 256 - n, n) != 0)))
			ok_qp = 0;
	}
	TAP_OK(ok_qp, "quoted-printable round trip, lines of at most 76");

	buf_reset(&e);
	mime_cte_qp_encode(&e, "trailing \nspace\t", 16);
	TAP_STR(e.data, "trailing=20\r\nspace=09", "white space before a "
	    "line end encoded");

	buf_reset(&d);
	flags = mime_cte_base64_decode(&d, "SGVsbG8*!", 9);
	TAP_OK(d.len == 5 && (flags & MIME_CTE_BAD_CHARS) &&
	    (flags & MIME_CTE_TRUNCATED) == 0, "stray base64 bytes skipped");
	buf_reset(&d);
	flags = mime_cte_base64_decode(&d, "SGVsbG8gV", 9);
	TAP_OK(d.len == 6 && (flags & MIME_CTE_TRUNCATED),
	    "base64 cut inside a group");
	buf_reset(&d);
	flags = mime_cte_base64_decode(&d, "QQ==QkI=", 8);
	TAP_OK(d.len == 3 && memcmp(d.data, "ABB", 3) == 0 && flags == 0,
	    "base64 blocks one after another");
	{
		/* The attachment list counts base64 without decoding it:
		 * the same size and flags as decoding, every kind of input. */
		static const char *const in[] = { "SGVsbG8*!", "SGVsbG8gV",
		    "QQ==QkI=", "SGVsbG8gd29ybGQ", "=\r\nQUJD\r\nRA==\r\n",
		    "", "Q", "QUJDRA" };
		size_t	k, size;
		int	same = 1, f1, f2;

		for (k = 0; k < sizeof in / sizeof in[0]; k++) {
			buf_reset(&d);
			f1 = mime_cte_base64_decode(&d, in[k], strlen(in[k]));
			f2 = mime_cte_decoded_size(MIME_CTE_BASE64, in[k],
			    strlen(in[k]), &size);
			if (f1 != f2 || size != d.len)
				same = 0;
		}
		TAP_OK(same, "base64 counted without decoding: the decoded "
		    "size and flags");
		buf_reset(&d);
		f1 = mime_cte_qp_decode(&d, "a=3Db=\r\nc", 10);
		f2 = mime_cte_decoded_size(MIME_CTE_QP, "a=3Db=\r\nc", 10,
		    &size);
		TAP_OK(f1 == f2 && size == d.len, "QP: the decoded size");
	}
	buf_reset(&d);
	flags = mime_cte_qp_decode(&d, "a=3Db=\r\nc =G1 =\n=4", 18);
	TAP_STR(d.data, "a=bc =G1 =4", "QP: escapes, soft breaks, bad ones "
	    "kept");
	TAP_OK(flags == MIME_CTE_BAD_QP, "bad QP reported");
	buf_reset(&d);
	flags = mime_cte_qp_decode(&d, "x  \t\r\ny", 7);
	TAP_STR(d.data, "x\r\ny", "QP: transport white space dropped");
	buf_free(&e);
	buf_free(&d);
	TAP_OK(mime_cte_from_name("Base64") == MIME_CTE_BASE64 &&
	    mime_cte_from_name("x-uue") == MIME_CTE_OTHER, "encoding names");
}

static void
test_header(void)
{
	struct mime_header	 h;
	const struct mime_field	*f;
	const char		*m = "From x Mon\nSubject: a\r\n b\r\n\tc \r\n"
				    "X: 1\nX: 2\nEmpty:\n\nbody";
	size_t			 off, len;
	char			*v;

	off = mime_header_parse(&h, m, strlen(m), 1);
	TAP_OK(h.nfields == 4 && strcmp(m + off, "body") == 0,
	    "fields counted, body found");
	v = mime_header_get(&h, "subject", &len);
	TAP_STR(v, "a b\tc", "value unfolded and trimmed");
	free(v);
	f = mime_header_find(&h, "x", NULL);
	f = mime_header_find(&h, "x", f);
	v = f != NULL ? mime_header_unfold(f, NULL) : NULL;
	TAP_STR(v, "2", "second field of a name");
	free(v);
	v = mime_header_get(&h, "empty", &len);
	TAP_OK(v != NULL && len == 0, "empty value");
	free(v);
	mime_header_free(&h);

	off = mime_header_parse(&h, "A: b\nnot a header\nC: d\n", 23, 0);
	TAP_OK(h.nfields == 1 && off == 5, "a non-header line starts the body");
	mime_header_free(&h);
	off = mime_header_parse(&h, " lead\nA: b", 10, 0);
	TAP_OK(h.nfields == 1 && off == 10,
	    "a leading continuation is skipped");
	mime_header_free(&h);
	off = mime_header_parse(&h, "A: b", 4, 0);
	TAP_OK(h.nfields == 1 && off == 4, "header without line end or body");
	mime_header_free(&h);
}

static void
test_parse(void)
{
	struct mime_msg		*m;
	struct mime_part	*p;
	struct buf		 b;
	char			*s, *note, *cause;
	int			 i;

	m = parse("Subject: x\n\nhello\n");
	TAP_OK(mime_part_is(m->root, "text", "plain") &&
	    strcmp(m->root->section, "1") == 0 && m->nparts == 1,
	    "no Content-Type: text/plain, part 1");
	mime_msg_free(m);

	m = parse("Content-Type: multipart/mixed; boundary=\"b\"\n\n"
	    "preamble\n--b\n\none\n--b  \t\nContent-Type: multipart/"
	    "alternative; boundary=c\n\n--c\n\ntwo\n--c\nContent-Type: "
	    "text/html\n\n<p>\n--bx\nstill two.2\n--c--\n--b\n"
	    "Content-Type: message/rfc822\n\nSubject: in\nContent-Type: "
	    "multipart/mixed; boundary=d\n\n--d\n\nthree\n--d--\n--b--\n"
	    "epilogue --b\n");
	s = xstrdup("");
	for (p = m->root; p != NULL; p = mime_part_next(p)) {
		char *t = xasprintf("%s[%s %s/%s]", s, p->section, p->type,
		    p->subtype);
		free(s);
		s = t;
	}
	TAP_STR(s, "[ multipart/mixed][1 text/plain][2 multipart/alternative]"
	    "[2.1 text/plain][2.2 text/html][3 message/rfc822]"
	    "[3 multipart/mixed][3.1 text/plain]", "tree and IMAP sections");
	free(s);
	p = mime_msg_section(m, "2.2");
	s = p != NULL ? text_of(p, &note) : NULL;
	TAP_STR(s, "<p>\n--bx\nstill two.2", "a line that only starts with "
	    "the delimiter is text");
	free(s);
	p = mime_msg_section(m, "1");
	TAP_OK(p != NULL && p->bodylen == 3, "the line end before a delimiter "
	    "is not part of the body");
	mime_msg_free(m);

	m = parse("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
	    "Content-Type: text/plain\r\n\r\nline\r\n\r\n--b--\r\n");
	p = TAILQ_FIRST(&m->root->children);
	s = text_of(p, &note);
	TAP_STR(s, "line\n", "CRLF message: text and blank line kept");
	free(s);
	mime_msg_free(m);

	m = parse("Content-Type: multipart/mixed; boundary=\"\\\"\"\n\n--\"\n\n"
	    "hi\n--\"--\n");
	TAP_OK(m->root->nchildren == 1,
	    "boundary=\"\\\"\" (libetpan writes out "
	    "of bounds) parsed");
	mime_msg_free(m);

	m = parse("Content-Type: multipart/mixed\n\n--x\n\nhi\n");
	TAP_OK(m->root->nchildren == 0 &&
	    (m->root->flags & MIME_PART_NO_BOUNDARY), "no boundary: a leaf");
	mime_msg_free(m);

	m = parse("Content-Type: multipart/mixed; boundary=b\n\n--b\n\nhi");
	TAP_OK(m->root->nchildren == 1 &&
	    (m->root->flags & MIME_PART_UNCLOSED), "unclosed multipart");
	mime_msg_free(m);

	m = parse("Content-Type: multipart/digest; boundary=b\n\n--b\n\n"
	    "Subject: d\n\nx\n--b--\n");
	p = TAILQ_FIRST(&m->root->children);
	TAP_OK(mime_part_is(p, "message", "rfc822") && p->nchildren == 1,
	    "digest parts default to message/rfc822");
	mime_msg_free(m);

	buf_init(&b);
	for (i = 0; i < 40; i++)
		buf_addf(&b, "Content-Type: multipart/mixed; boundary=%d\n\n"
		    "--%d\n", i, i);
	buf_adds(&b, "\ndeep\n");
	m = mime_parse_copy(b.data, b.len, &cause);
	for (p = m->root; p != NULL && p->nchildren > 0;
	    p = TAILQ_FIRST(&p->children))
		;
	TAP_OK(p != NULL && p->depth == MIME_MAX_DEPTH &&
	    (p->flags & MIME_PART_TOO_DEEP) && m->nparts == MIME_MAX_DEPTH + 1,
	    "depth capped at %d", MIME_MAX_DEPTH);
	mime_msg_free(m);

	buf_reset(&b);
	buf_adds(&b, "Content-Type: multipart/mixed; boundary=b\n\n");
	for (i = 0; i < 3000; i++)
		buf_adds(&b, "--b\n\nx\n");
	m = mime_parse_copy(b.data, b.len, &cause);
	TAP_OK(m->nparts == MIME_MAX_PARTS && m->cut &&
	    (m->root->flags & MIME_PART_CUT), "parts capped at %d",
	    MIME_MAX_PARTS);
	mime_msg_free(m);
	buf_free(&b);

	m = mime_parse(xstrdup("x"), MIME_MAX_SIZE + 1, &cause);
	TAP_OK(m == NULL && strstr(cause, "too large") != NULL,
	    "larger than MIME_MAX_SIZE refused");
	free(cause);

	m = parse("Content-Type: text/plain; charset=x-klingon\n"
	    "Content-Transfer-Encoding: base64\n\nqEE=\n");
	s = text_of(m->root, &note);
	TAP_STR(s, "\\xA8A", "unknown charset: \\xHH");
	TAP_OK(note != NULL && strstr(note, "unknown charset x-klingon") !=
	    NULL, "and a note says so");
	free(s);
	free(note);
	mime_msg_free(m);

	m = parse("Subject: cut\n\nline1\nline2\nline3\n");
	{
		struct buf	t;

		buf_init(&t);
		mime_body_text(m->root, 14, &t, &note);
		TAP_OK(strcmp(t.data, "line1\nline2\n") == 0 && note != NULL &&
		    strstr(note, "only the first 12") != NULL,
		    "text cut at a line end, and noted");
		buf_free(&t);
		free(note);
	}
	mime_msg_free(m);

	m = parse("Content-Type: text/plain; charset=\"utf-8\"\n"
	    "Content-Disposition: attachment; filename*=utf-8''%E2%82%AC.txt\n"
	    "Content-Transfer-Encoding: Quoted-Printable\n\n=E2=82=AC\n");
	s = text_of(m->root, &note);
	TAP_OK(strcmp(s, "\xe2\x82\xac\n") == 0 && note == NULL &&
	    m->root->disposition == MIME_DISP_ATTACHMENT &&
	    strcmp(m->root->filename, "\xe2\x82\xac.txt") == 0,
	    "charset, disposition, RFC 2231 filename, QP");
	free(s);
	mime_msg_free(m);

	m = parse("Content-Type: text/plain; charset=" "((((((((((((((((((("
	    "((((((((((((((((((((((\n\nx\n");
	TAP_OK(m->root->flags & MIME_PART_BAD_TYPE, "deep comments never "
	    "reach libetpan");
	mime_msg_free(m);
}

/* A message of one field "name: " + n times pat (+ tail) and a body. */
static struct mime_msg *
bomb(const char *name, const char *pat, size_t n, const char *tail)
{
	struct buf	b;
	char		*cause;
	size_t		 i;

	buf_init(&b);
	buf_addf(&b, "%s: ", name);
	for (i = 0; i < n; i++)
		buf_adds(&b, pat);
	buf_addf(&b, "%s\nSubject: x\n\nbody\n", tail);
	return mime_parse(buf_take(&b), b.len, &cause);
}

/* The addresses of field name, joined by spaces; *bad: pieces not read. */
static char *
addrs(const struct mime_msg *m, const char *name, size_t *bad)
{
	struct buf	  b;
	char		**v = NULL;
	size_t		  n = 0, i;

	*bad = addr_list_get(&m->root->header, name, &v, &n);
	buf_init(&b);
	buf_adds(&b, "");
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i > 0 ? " " : "", v[i]);
	addr_list_free(v, n);
	return buf_take(&b);
}

static void
test_addr_list(void)
{
	struct mime_msg	*m;
	struct buf	 b;
	char		*s, *cause;
	size_t		 bad, i;

	m = parse("To: Alice <Alice@X.example>, \"Bob, the (1st)\" <b@y>,\n"
	    " team: c@z, \"d;\" <d@w>;, e@v (me, myself), <f@u>, , g@t\n"
	    "Cc: undisclosed-recipients:;\n\nx\n");
	s = addrs(m, "To", &bad);
	TAP_STR(s, "alice@x.example b@y c@z d@w e@v f@u g@t",
	    "quotes, comments and groups keep their commas");
	TAP_OK(bad == 0, "every piece read (%zu not)", bad);
	free(s);
	s = addrs(m, "Cc", &bad);
	TAP_OK(*s == '\0' && bad == 0, "an empty group: no address, no error");
	free(s);
	mime_msg_free(m);

	/* The bombs of issue 12: each adds nothing, and nothing crashes. */
	m = bomb("From", "(", 200000, "");
	s = addrs(m, "From", &bad);
	TAP_OK(*s == '\0' && bad == 1, "200,000 '(' in From: unread, counted");
	free(s);
	TAP_OK(addr_list_from(&m->root->header) == NULL,
	    "and it has no single From address");
	mime_msg_free(m);
	m = bomb("From", "(\\)", 100000, "");
	s = addrs(m, "From", &bad);
	TAP_OK(*s == '\0' && bad == 1, "100,000 '(\\)' (quoted-pairs that "
	    "nest): unread");
	free(s);
	mime_msg_free(m);
	m = bomb("To", "<", 200000, "a@b>");
	s = addrs(m, "To", &bad);
	TAP_OK(*s == '\0' && bad == 1, "200,000 '<': unread");
	free(s);
	mime_msg_free(m);
	m = bomb("Cc", "g:", 100000, "a@b;");
	s = addrs(m, "Cc", &bad);
	TAP_OK(*s == '\0' && bad == 1, "100,000 nested group openings: unread");
	free(s);
	mime_msg_free(m);
	m = bomb("Reply-To", "\"", 200001, " <a@b>");
	s = addrs(m, "Reply-To", &bad);
	TAP_OK(*s == '\0' && bad == 1, "200,001 '\"': unread");
	free(s);
	mime_msg_free(m);

	/* A bad piece costs only itself. */
	m = bomb("To", "(", 40, "))))))))))))))))))))))))))))))))))))))))"
	    " bad@example.org, "
	    "ok@example.org, (x) <also@example.org>");
	s = addrs(m, "To", &bad);
	TAP_STR(s, "ok@example.org also@example.org",
	    "the addresses beside a bombed one are read");
	TAP_OK(bad == 1, "one piece counted as unread (%zu)", bad);
	free(s);
	mime_msg_free(m);
	m = bomb("Sender", "(", MIME_HEADER_PARSE_PARENS,
	    "))))))))))))))))))))))))))))))))" " a@b");
	s = addrs(m, "Sender", &bad);
	TAP_OK(strcmp(s, "a@b") == 0 && bad == 0, "%d '(' are still read",
	    MIME_HEADER_PARSE_PARENS);
	free(s);
	mime_msg_free(m);

	/* Only what libetpan read whole, and what looks like an address. */
	m = parse("From: =?utf-8?q?Alice_<alice@steed.test>?=\n"
	    "To: Alice <alice@steed.test> and more, Bob, b@x.example (Bob)\n"
	    "Cc: =?utf-8?b?QWxpY2UgPGFsaWNlQHN0ZWVkLnRlc3Q+?=, c@MISSING_DOMAIN"
	    "\n\nx\n");
	s = addrs(m, "From", &bad);
	TAP_OK(*s == '\0' && bad == 1, "an encoded word holding '<' and '@' "
	    "is no address (libetpan left part of it): %s", s);
	free(s);
	TAP_OK(addr_list_from(&m->root->header) == NULL,
	    "... and there is no sender");
	s = addrs(m, "To", &bad);
	TAP_OK(strcmp(s, "b@x.example") == 0 && bad == 1,
	    "words after an address make the piece unread; a word alone "
	    "is no address; a comment after one is fine: %s", s);
	free(s);
	s = addrs(m, "Cc", &bad);
	TAP_OK(*s == '\0' && bad == 0, "an encoded word alone, a server's "
	    "placeholder domain: no address: %s", s);
	free(s);
	mime_msg_free(m);

	/* Limits: addresses kept, bytes read. */
	m = bomb("To", "a@example.org, ", 3000, "z@example.org");
	s = addrs(m, "To", &bad);
	TAP_OK(strlen(s) == ADDR_LIST_MAX * 14 - 1 && bad == 1,
	    "3001 addresses: the first %d kept, the rest counted",
	    ADDR_LIST_MAX);
	free(s);
	mime_msg_free(m);
	buf_init(&b);
	for (i = 0; i < 30; i++)
		buf_addf(&b, "To: %0*d@example.org\n", 16000, 0);
	buf_adds(&b, "\nx\n");
	m = mime_parse(buf_take(&b), b.len, &cause);
	s = addrs(m, "To", &bad);
	TAP_OK(bad == 30 - ADDR_LIST_MAX_BYTES / 16012,
	    "fields past %d KB in all are not read (%zu)",
	    ADDR_LIST_MAX_BYTES / 1024, bad);
	free(s);
	mime_msg_free(m);

	/* The same gate stands in front of the Content-Type parser. */
	m = bomb("Content-Type", "(\\)", 5000, "");
	TAP_OK(m->root->flags & MIME_PART_BAD_TYPE, "5000 '(\\)' in "
	    "Content-Type never reach libetpan");
	mime_msg_free(m);
	m = parse("Content-Type: text/plain (1) (2) (3) (4) (5) (6) (7) (8)\n"
	    "\nx\n");
	TAP_OK(!(m->root->flags & MIME_PART_BAD_TYPE) &&
	    strcmp(m->root->subtype, "plain") == 0,
	    "a few comments still do");
	mime_msg_free(m);
}

/* Check the raw message: CRLF only, header lines <= 76, all <= 998. */
static int
lines_ok(const char *s, size_t len, int *hmax, int *max)
{
	size_t	i, col = 0;
	int	inhead = 1;

	*hmax = *max = 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '\r') {
			if (i + 1 >= len || s[i + 1] != '\n')
				return 0;
			if (col == 0)
				inhead = 0;
			i++;
			col = 0;
			continue;
		}
		if (s[i] == '\n')
			return 0;
		col++;
		if (inhead && (int)col > *hmax)
			*hmax = (int)col;
		if ((int)col > *max)
			*max = (int)col;
	}
	return 1;
}

static char *
write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char	*path;
	FILE	*f;

	path = xasprintf("%s/%s", dir, name);
	if ((f = fopen(path, "wb")) != NULL) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
	return path;
}

static void
test_build(void)
{
	char			*dir, *cause = NULL, *tmp;
	char			*pdf, *empty, *body, *subject, *s, *note;
	unsigned char		 bin[2560];
	struct mime_addr	 to[2], cc[1], bcc[1];
	const char		*att[2];
	struct mime_out		 o;
	struct buf		 out, d;
	struct mime_msg		*m;
	struct mime_part	*p;
	size_t			 i;
	int			 r, hmax, max;

	tmp = getenv("TMPDIR");
	dir = xasprintf("%s/test-mime.XXXXXX", tmp != NULL && *tmp != '\0' ?
	    tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		TAP_OK(0, "mkdtemp");
		free(dir);
		return;
	}
	for (i = 0; i < sizeof bin; i++)
		bin[i] = (unsigned char)i;
	pdf = write_file(dir, "r\xc3\xa9sum\xc3\xa9 of a long name that will "
	    "need several sections to write.pdf", bin, sizeof bin);
	empty = write_file(dir, "empty.txt", "", 0);
	att[0] = pdf;
	att[1] = empty;

	body = xmalloc(2000);
	strcpy(body, "Hallo,\n\ngr\xc3\xbc\xc3\x9f dich. = sign.\n.\n"
	    "From me\n");
	for (i = strlen(body); i < 1500; i++)
		body[i] = 'x';
	strcpy(body + 1500, "\nlast line   \n");
	subject = xstrdup("\xc3\x9c" "ber den gro\xc3\x9f" "en Klee: ein "
	    "langer Betreff, der gefaltet werden muss, damit keine Zeile "
	    "l\xc3\xa4nger als 76 Zeichen wird \xe2\x82\xac");

	memset(&o, 0, sizeof o);
	o.from.name = "J\xc3\xb6rg M\xc3\xbcller";
	o.from.addr = "joerg@example.org";
	to[0].name = "Ren\xc3\xa9 \"Q\"";
	to[0].addr = "rene@example.net";
	to[1].name = "Plain, Person";
	to[1].addr = "plain@example.net";
	cc[0].name = NULL;
	cc[0].addr = "cc@example.com";
	bcc[0].name = "Secret";
	bcc[0].addr = "secret@example.com";
	o.to = to;
	o.nto = 2;
	o.cc = cc;
	o.ncc = 1;
	o.bcc = bcc;
	o.nbcc = 1;
	o.subject = subject;
	o.body = body;
	o.attachments = att;
	o.nattachments = 2;
	o.in_reply_to = "<parent@example.org>";
	o.references = "<root@example.org> <parent@example.org>";
	o.date = 1700000000;

	buf_init(&out);
	r = mime_build(&o, &out, &cause);
	TAP_OK(r == 0, "built");
	if (r != 0) {
		printf("# %s\n", cause);
		free(dir);
		return;
	}
	TAP_OK(lines_ok(out.data, out.len, &hmax, &max) && hmax <= 76 &&
	    max <= 998, "CRLF only, header lines <= 76 (%d), all <= 998 (%d)",
	    hmax, max);
	TAP_OK(strstr(out.data, "secret") == NULL &&
	    strstr(out.data, "Bcc") == NULL, "no Bcc in the message");
	TAP_OK(strstr(out.data, "\r\nMIME-Version: 1.0\r\n") != NULL,
	    "MIME-Version");
	TAP_OK(strstr(out.data, "format=flowed") == NULL &&
	    strstr(out.data, "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Transfer-Encoding: quoted-printable\r\n") != NULL,
	    "non-ASCII text: UTF-8, quoted-printable, not flowed");
	s = strstr(out.data, "Message-ID: <");
	TAP_OK(s != NULL && strspn(s + 13, "0123456789abcdef") == 32 &&
	    strncmp(s + 45, "@example.org>\r\n", 15) == 0,
	    "Message-ID: <32 hex digits@domain of From>");

	m = mime_parse_copy(out.data, out.len, &cause);
	s = mime_header_get(&m->root->header, "subject", NULL);
	note = rfc2047_decode_str(s);
	TAP_STR(note, subject, "Subject decodes back");
	free(s);
	free(note);
	s = mime_header_get(&m->root->header, "from", NULL);
	note = rfc2047_decode_str(s);
	TAP_STR(note, "J\xc3\xb6rg M\xc3\xbcller <joerg@example.org>",
	    "From decodes back");
	free(s);
	free(note);
	s = mime_header_get(&m->root->header, "to", NULL);
	note = rfc2047_decode_str(s);
	TAP_STR(note, "Ren\xc3\xa9 \"Q\" <rene@example.net>, \"Plain, Person\" "
	    "<plain@example.net>", "To: encoded name, quoted name");
	free(s);
	free(note);
	s = mime_header_get(&m->root->header, "references", NULL);
	TAP_STR(s, "<root@example.org> <parent@example.org>", "References");
	free(s);

	TAP_OK(mime_part_is(m->root, "multipart", "mixed") &&
	    m->root->nchildren == 3, "multipart/mixed of three");
	p = TAILQ_FIRST(&m->root->children);
	s = text_of(p, &note);
	TAP_STR(s, body, "the text comes back as it was");
	TAP_OK(note == NULL, "without a note");
	free(s);
	free(note);
	p = TAILQ_NEXT(p, entry);
	buf_init(&d);
	r = mime_body_decode(p, &d);
	TAP_OK(r == 0 && d.len == sizeof bin && memcmp(d.data, bin,
	    sizeof bin) == 0, "the attachment comes back byte for byte");
	TAP_STR(p->filename, strrchr(pdf, '/') + 1, "with its file name");
	TAP_OK(mime_part_is(p, "application", "pdf") &&
	    p->disposition == MIME_DISP_ATTACHMENT, "type by extension");
	p = TAILQ_NEXT(p, entry);
	buf_reset(&d);
	r = mime_body_decode(p, &d);
	TAP_OK(d.len == 0 && strcmp(p->filename, "empty.txt") == 0,
	    "an empty attachment");
	buf_free(&d);
	mime_msg_free(m);

	/* ASCII and no attachments: one 7bit part. */
	o.body = "plain ascii\nbody\n";
	o.subject = "a plain subject =? with an equals-question";
	o.nattachments = 0;
	buf_reset(&out);
	r = mime_build(&o, &out, &cause);
	TAP_OK(r == 0 && strstr(out.data, "multipart") == NULL &&
	    strstr(out.data, "Content-Transfer-Encoding: 7bit\r\n\r\nplain "
	    "ascii\r\nbody\r\n") != NULL, "ASCII text: one part, 7bit, CRLF");
	m = mime_parse_copy(out.data, out.len, &cause);
	s = mime_header_get(&m->root->header, "subject", NULL);
	note = rfc2047_decode_str(s);
	TAP_STR(note, o.subject, "an ASCII Subject with \"=?\" is encoded");
	free(s);
	free(note);
	mime_msg_free(m);

	/* Refusals. */
#define REFUSE(field, val, what) do {					\
	struct mime_out o2 = o;					\
	cause = NULL;							\
	buf_reset(&out);						\
	field = val;							\
	r = mime_build(&o2, &out, &cause);				\
	TAP_OK(r == -1 && cause != NULL, "refused: %s (%s)", what,	\
	    cause != NULL ? cause : "no cause");			\
	free(cause);							\
} while (0)
	REFUSE(o2.subject, "hi\r\nBcc: victim@example.org", "CR LF in Subject");
	REFUSE(o2.subject, "hi\nX: y", "LF in Subject");
	REFUSE(o2.from.name, "Eve\r", "CR in the From name");
	REFUSE(o2.from.addr, "eve@example.org\n", "LF in the From address");
	REFUSE(o2.from.addr, "not-an-address", "an address without @");
	REFUSE(o2.from.addr, "a b@example.org", "a space in an address");
	REFUSE(o2.from.addr, "a@exa\xc3\xa9mple.org", "8-bit in an address");
	REFUSE(o2.references, "<a@b>\r\n<c@d>", "CR LF in References");
	REFUSE(o2.in_reply_to, "<a@b>\n", "LF in In-Reply-To");
	REFUSE(o2.body, "bad \xff UTF-8", "text that is not UTF-8");
	{
		struct mime_addr	badto = { "x\ny", "y@example.org" };
		REFUSE(o2.to, &badto, "LF in a To name");
	}
	{
		struct mime_addr	badbcc = { NULL, "y@example.org\r\n" };
		REFUSE(o2.bcc, &badbcc, "CR LF in a Bcc address");
	}
	o.nattachments = 1;
	{
		const char	*missing[] = { "/nonexistent/file.pdf" };
		REFUSE(o2.attachments, missing, "an attachment that is not "
		    "there");
	}
	{
		const char	*isdir[] = { dir };
		REFUSE(o2.attachments, isdir, "a directory as attachment");
	}
	o.nattachments = 0;
	TAP_OK(mime_build_check_value("X", "fine", &cause) == 0 &&
	    mime_build_check_value("X", "a\rb", &cause) == -1,
	    "mime_build_check_value");
	free(cause);
	buf_free(&out);

	TAP_STR(mime_build_type("a/b/c.PDF"), "application/pdf",
	    "type by extension, any case");
	TAP_STR(mime_build_type("x.tar.gz"), "application/gzip", "last one");
	TAP_STR(mime_build_type(".bashrc"), "application/octet-stream",
	    "a dot file has no extension");
	TAP_STR(mime_build_type("README"), "application/octet-stream",
	    "default");

	setenv("TZ", "EST5", 1);
	tzset();
	s = mime_build_date(0);
	TAP_STR(s, "Wed, 31 Dec 1969 19:00:00 -0500", "Date, local zone");
	free(s);
	setenv("TZ", "UTC0", 1);
	tzset();
	s = mime_build_date(1700000000);
	TAP_STR(s, "Tue, 14 Nov 2023 22:13:20 +0000", "Date, UTC");
	free(s);

	unlink(pdf);
	unlink(empty);
	rmdir(dir);
	free(dir);
	free(pdf);
	free(empty);
	free(body);
	free(subject);
}

int
main(void)
{
	test_charset();
	test_cte();
	test_header();
	test_parse();
	test_addr_list();
	test_build();
	return TAP_DONE();
}
