/*
 * test-rfc2231.c: parameter continuations and charsets, read and written;
 * what is written is read back through the real parser.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mime-parse.h"
#include "rfc2231.h"
#include "tap.h"
#include "xmalloc.h"

#define P(n, v)	{ (char *)(n), (char *)(v) }

static char *
get(const struct rfc2231_param *p, size_t n, const char *name, int *unknown)
{
	return rfc2231_get(p, n, name, unknown);
}

#define GET(params, name, want, what) do {				\
	char *got = get(params, sizeof params / sizeof *params, name, NULL); \
	TAP_STR(got, want, what);					\
	free(got);							\
} while (0)

/* Write value with rfc2231_encode, parse it back from a message. */
static void
roundtrip(const char *value, const char *what)
{
	struct buf		 msg, enc;
	struct mime_msg		*m;
	char			*got, *cause, *line, *save;
	int			 longest = 0;

	buf_init(&enc);
	buf_adds(&enc, "Content-Disposition: attachment");
	rfc2231_encode(&enc, "filename", value);
	for (line = strtok_r(enc.data, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if ((int)strlen(line) - 1 > longest)
			longest = (int)strlen(line) - 1;
	}
	buf_free(&enc);

	buf_init(&enc);
	rfc2231_encode(&enc, "filename", value);
	buf_init(&msg);
	buf_addf(&msg, "Content-Type: application/octet-stream\r\n"
	    "Content-Disposition: attachment%s\r\n\r\nx\r\n", enc.data);
	m = mime_parse_copy(msg.data, msg.len, &cause);
	got = m->root->filename;
	TAP_STR(got, value, "round trip: %s", what);
	TAP_OK(longest <= 76, "lines of at most 76: %s (%d)", what, longest);
	mime_msg_free(m);
	buf_free(&msg);
	buf_free(&enc);
}

int
main(void)
{
	struct rfc2231_param plain[] = {
		P("charset", "utf-8"), P("name", "a b.txt"),
	};
	struct rfc2231_param ext[] = {
		P("filename", "plain.txt"),
		P("filename*", "iso-8859-1'fr'caf%E9.txt"),
	};
	struct rfc2231_param cont[] = {
		P("FileName*1", "second-"),
		P("filename*0*", "utf-8''%E2%82%AC-"),
		P("filename*2*", "%41"), P("filename*4", "after a gap"),
	};
	struct rfc2231_param zeros[] = {
		P("filename*00", "no"), P("filename*01", "no"),
		P("filename*-1", "no"), P("filename*99999", "no"),
		P("filename", "fallback"),
	};
	struct rfc2231_param bad[] = {
		P("filename*", "utf-8''%ZZ%4%00%41%"),
	};
	struct rfc2231_param unk[] = {
		P("filename*", "x-nothing''%FF%41"),
	};
	struct rfc2231_param nocs[] = {
		P("filename*", "''%C3%A9"), P("title*", "no-quotes%20here"),
	};
	struct rfc2231_param ew[] = {
		P("filename", "=?utf-8?q?J=C3=B6rg.pdf?="),
	};
	struct rfc2231_param dup[] = {
		P("filename*0", "first"), P("filename*0", "second"),
	};
	struct rfc2231_param many[RFC2231_MAX_SECTIONS + 20];
	char		 names[RFC2231_MAX_SECTIONS + 20][16], *s, longv[400];
	int		 unknown = 0;
	size_t		 i;

	GET(plain, "name", "a b.txt", "plain parameter");
	GET(plain, "NAME", "a b.txt", "names are case-insensitive");
	s = get(plain, 2, "filename", NULL);
	TAP_OK(s == NULL, "absent parameter is NULL");
	GET(ext, "filename", "caf\xc3\xa9.txt",
	    "extended value wins, charset converted");
	GET(cont, "filename", "\xe2\x82\xac-second-A",
	    "continuations, extended and not, in any order");
	GET(zeros, "filename", "fallback",
	    "leading zeros, negative and huge sections ignored");
	GET(bad, "filename", "%ZZ%4%00A%", "bad escapes and %%00 kept as text");
	GET(nocs, "filename", "\xc3\xa9", "empty charset: UTF-8 taken as such");
	GET(nocs, "title", "no-quotes here", "no charset part at all");
	GET(ew, "filename", "J\xc3\xb6rg.pdf", "RFC 2047 in a plain value");
	GET(dup, "filename", "first", "the first of a repeated section wins");

	s = get(unk, 1, "filename", &unknown);
	TAP_STR(s, "\\xFFA", "unknown charset: 8-bit bytes as \\xHH");
	TAP_OK(unknown == 1, "unknown charset reported");
	free(s);

	for (i = 0; i < RFC2231_MAX_SECTIONS + 20; i++) {
		snprintf(names[i], sizeof names[i], "n*%zu", i);
		many[i].name = names[i];
		many[i].value = (char *)"x";
	}
	s = get(many, RFC2231_MAX_SECTIONS + 20, "n", NULL);
	TAP_OK(s != NULL && strlen(s) == RFC2231_MAX_SECTIONS,
	    "at most %d sections", RFC2231_MAX_SECTIONS);
	free(s);

	roundtrip("report.pdf", "short ASCII");
	roundtrip("say \"hi\" \\ there.txt", "quotes and backslash");
	roundtrip("r\xc3\xa9sum\xc3\xa9.pdf", "non-ASCII");
	roundtrip("\xe2\x80\xae\x1b[2J;=%'*\".exe", "controls and specials");
	for (i = 0; i < 100; i++)
		memcpy(longv + 3 * i, "\xe2\x82\xac", 3);
	strcpy(longv + 300, "-and-a-long-ascii-tail.tar.gz");
	roundtrip(longv, "long, in sections");
	memset(longv, 'a', 200);
	longv[200] = '\0';
	roundtrip(longv, "long ASCII");
	return TAP_DONE();
}
