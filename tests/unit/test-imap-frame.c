/*
 * test-imap-frame.c: the guard below libetpan's IMAP parser (imap-frame.h)
 * on what a server may send after login: lines at and past their bound,
 * literals of every size and form, quoted strings, status text, nesting,
 * and the promise that the bytes give the same answer in any pieces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imap-frame.h"
#include "tap.h"

#define MB	(1024 * 1024)
#define LONG	"a line longer than 16 MB"

/* The input, whole or in pieces of chunk bytes (0: whole). */
static int
scan(struct imap_frame *f, const char *s, size_t len, size_t chunk)
{
	size_t	i, n;
	int	rc = 0;

	imap_frame_init(f);
	if (chunk == 0)
		return imap_frame_scan(f, s, len);
	for (i = 0; i < len; i += n) {
		n = len - i < chunk ? len - i : chunk;
		if (imap_frame_scan(f, s + i, n) == -1)
			rc = -1;
	}
	return rc;
}

static int
feed(struct imap_frame *f, const char *s)
{
	return imap_frame_scan(f, s, strlen(s));
}

/* NULL if the input is fine, else the reason. */
static const char *
verdict(const char *s, size_t len)
{
	static struct imap_frame	f;

	if (scan(&f, s, len, 0) == 0)
		return NULL;
	return imap_frame_error(&f);
}

static const char *
verdict_str(const char *s)
{
	return verdict(s, strlen(s));
}

/* prefix, n bytes of c, suffix: new memory, its length in *len. */
static char *
make(const char *prefix, int c, size_t n, const char *suffix, size_t *len)
{
	size_t	pl = strlen(prefix), sl = strlen(suffix);
	char	*s;

	s = malloc(pl + n + sl + 1);
	memcpy(s, prefix, pl);
	memset(s + pl, c, n);
	memcpy(s + pl + n, suffix, sl + 1);
	*len = pl + n + sl;
	return s;
}

static void
test_lines(void)
{
	struct imap_frame	 f;
	const char		*why;
	char			*s;
	size_t			 len;

	TAP_OK(verdict_str("* OK hello\r\nA1 OK done\r\n") == NULL,
	    "status lines are fine");
	TAP_OK(verdict_str("* 1 FETCH (UID 5 FLAGS (\\Seen))\r\n") == NULL,
	    "a FETCH is fine");

	/* the line's bytes before its CRLF: "* SEARCH" and digits */
	s = make("* SEARCH", '1', IMAP_FRAME_LINE_MAX - 8, "\r\n", &len);
	TAP_OK(verdict(s, len) == NULL, "a line of exactly 16 MiB passes");
	free(s);
	s = make("* SEARCH", '1', IMAP_FRAME_LINE_MAX - 9, "\r\n", &len);
	TAP_OK(verdict(s, len) == NULL, "a line one byte under passes");
	free(s);
	s = make("* SEARCH", '1', IMAP_FRAME_LINE_MAX - 7, "\r\n", &len);
	TAP_STR(verdict(s, len), LONG,
	    "a line one byte over is refused, said in words");
	free(s);
	s = make("* SEARCH", '1', IMAP_FRAME_LINE_MAX - 8, "\n", &len);
	TAP_OK(verdict(s, len) == NULL, "... the bound is the same with a "
	    "bare LF");
	s[len - 1] = 'x';
	TAP_STR(verdict(s, len), LONG,
	    "... and one more byte than that is too many");
	free(s);
	s = make("* SEARCH", '1', IMAP_FRAME_LINE_MAX - 8, "\r\r\n", &len);
	TAP_STR(verdict(s, len), LONG,
	    "a stray CR past the bound counts");
	free(s);

	s = make("* OK ", 'x', IMAP_FRAME_STATUS_MAX - 5, "\r\n", &len);
	TAP_OK(verdict(s, len) == NULL, "a status line of exactly 16 kB "
	    "passes");
	free(s);
	s = make("* OK ", 'x', IMAP_FRAME_STATUS_MAX - 4, "\r\n", &len);
	TAP_STR(verdict(s, len), "a status response longer than 16 kB",
	    "a status line one byte longer is refused (it is checked whole "
	    "before libetpan reads it)");
	free(s);
	s = make("* OK ", 'x', 2 * IMAP_FRAME_LINE_MAX, "", &len);
	TAP_STR(verdict(s, len), LONG,
	    "32 MB of status text without CRLF is refused");
	free(s);
	s = make("* LIST () \"/\" \"", 'x', 2 * IMAP_FRAME_LINE_MAX, "", &len);
	TAP_STR(verdict(s, len), LONG,
	    "32 MB of a quoted string is refused");
	free(s);

	/* a line ends; the next starts from nothing */
	s = make("* SEARCH", '1', IMAP_FRAME_LINE_MAX - 8, "\r\n", &len);
	s = realloc(s, 2 * len + 1);
	memcpy(s + len, s, len);
	TAP_OK(verdict(s, 2 * len) == NULL, "two lines of 16 MiB pass");
	free(s);

	/* a literal's bytes are not the line's; the line goes on after it */
	s = make("* 1 FETCH (BODY[] {2097152}\r\n", 'x', 2 * MB, ")\r\n",
	    &len);
	TAP_OK(verdict(s, len) == NULL, "a literal of 2 MB is not a long line");
	free(s);
	s = make("* 1 FETCH (BODY[] {3}\r\nabc ENVELOPE ", 'x',
	    IMAP_FRAME_LINE_MAX, ")\r\n", &len);
	why = verdict(s, len);
	TAP_STR(why, LONG,
	    "the line before and after a literal is one line");
	free(s);
	imap_frame_init(&f);
	TAP_OK(imap_frame_error(&f) == NULL, "no reason before anything");
}

static void
test_literals(void)
{
	struct imap_frame	f;
	const char		*s;

	s = "* LIST () \"/\" {0}\r\n\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0 &&
	    f.line == 0, "a literal of 0 bytes, then the line's end");
	s = "* 1 FETCH (BODY[] {12}\r\n{99999999999}";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0, "a literal's bytes are not "
	    "looked at: a count inside one means nothing");
	s = "* 1 FETCH (BODY[] {14}\r\nab\r\n((((\"{9}\r\n FLAGS ())\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.depth == 0 &&
	    f.state == 0 && f.line == 0, "quotes, lists and CRLF in a "
	    "literal do not count; the response ends after it");
	s = "* 1 FETCH (BODY[1] {3}\r\nabc BODY[2] {4}\r\nabcd)\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0,
	    "two literals announced on the same response");
	s = "* 1 FETCH (BODY[] {268435456}\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.left == 268435456,
	    "a literal of exactly 256 MiB is announced, its bytes awaited");
	TAP_STR(verdict_str("* 1 FETCH (BODY[] {268435457}\r\n"),
	    "a literal of 268435457 bytes (more than 256 MB)",
	    "a literal one byte over is refused");
	TAP_STR(verdict_str("* LIST () \"/\" {4294967296}\r\n"),
	    "a literal of 4294967296 bytes (more than 256 MB)",
	    "a literal of 4 GB (0 for libetpan's 32 bits) is refused");
	TAP_STR(verdict_str("* LIST () \"/\" {99999999999999999999}\r\n"),
	    "a literal of 99999999999999999999 bytes (more than 256 MB)",
	    "a size past 64 bits does not overflow");
	TAP_STR(verdict_str("* LIST () \"/\" {000000000000000000000000009999"
	    "99999999999999999999999999}\r\n"),
	    "a literal of a 30-digit number of bytes (more than 256 MB)",
	    "a size of 30 digits, after zeros, is said by its length");
	TAP_OK(verdict_str("* LIST () \"/\" {00000000000000000000000000005}"
	    "\r\nINBOX\r\n") == NULL, "leading zeros are nothing");
	s = "* LIST () \"/\" {5+}\r\nINBOX\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0,
	    "{N+} (LITERAL+) is a literal");
	s = "* 1 FETCH (BINARY[1] ~{5}\r\nab)c\"\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0 &&
	    f.depth == 0, "~{N} (literal8) is a literal");
	TAP_STR(verdict_str("* 1 FETCH (BINARY[1] ~{4294967296}\r\n"),
	    "a literal of 4294967296 bytes (more than 256 MB)",
	    "a literal8 too large is refused");
	s = "* LIST () \"/\" { 5 }  \r\nINBOX\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0,
	    "blanks inside the count and before CRLF, as libetpan takes them");
	s = "* LIST () \"/\" {5}\nINBOX\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0,
	    "a count ended by a bare LF");
	s = "* LIST () \"/\" {-5}\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state != 0 &&
	    f.left == 0, "{-5} is 0 bytes, as libetpan reads it: the "
	    "response goes on");
	TAP_OK(verdict_str("* LIST () \"/\" {-99999999999}\r\n\r\n") ==
	    NULL, "... whatever its digits");
	TAP_STR(verdict_str("* LIST () \"/\" {5}INBOX\r\n"),
	    "a literal announced in the middle of a line",
	    "a count not followed by the line's end is refused (libetpan "
	    "would read a literal from there)");
	TAP_STR(verdict_str("* LIST () \"/\" {5}\rINBOX\r\n"),
	    "a literal announced in the middle of a line",
	    "... as is one followed by a lone CR");
	TAP_OK(verdict_str("* LIST () \"/\" {5x}\r\n* OK {99999999999}\r\n")
	    == NULL, "{5x} is no count: the line ends there");
	TAP_OK(verdict_str("* 3 EXISTS {}\r\n") == NULL, "{} is no count");
}

static void
test_strings(void)
{
	struct imap_frame	f;
	const char		*s;

	TAP_OK(verdict_str("* LIST () \"/\" \"{99999999999}\"\r\n") == NULL,
	    "{ inside a quoted string is nothing");
	TAP_OK(verdict_str("* LIST () \"/\" \"a\\\"{99999999999}\r\n") ==
	    NULL, "an escaped quote does not end the string");
	TAP_STR(verdict_str("* LIST () \"/\" \"a\\\\\" {99999999999}\r\n"),
	    "a literal of 99999999999 bytes (more than 256 MB)",
	    "an escaped backslash does: the count after it is a literal");
	s = "* LIST (\"(((\" \"))\\\"(\" ";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.depth == 1,
	    "parentheses in quoted strings do not count");
	s = "* LIST () \"/\" \"unended {5}\r\n* 3 EXISTS\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0,
	    "a quoted string ends with its line at the latest");
}

static void
test_text(void)
{
	struct imap_frame	f;
	const char		*s;

	s = "* OK see {99999999999}\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0,
	    "a count at the end of status text is text, as for libetpan");
	s = "A5 NO [NONEXISTENT] no mailbox a{5}\r\n* 1 EXISTS\r\n";
	TAP_OK(scan(&f, s, strlen(s), 0) == 0 && f.state == 0 &&
	    f.line == 0, "... so the next line is the next response");
	TAP_OK(verdict_str("a1 bad \"{99999999999}\r\n") == NULL,
	    "status words in any case; quotes are text there");
	TAP_OK(verdict_str("+ {99999999999}\r\n") == NULL,
	    "a continuation's text is text");
	TAP_OK(verdict_str("* BYE ((((((((((((((((((((((((((((((((((((((((("
	    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
	    "(((((((((((((((\r\n") == NULL,
	    "parentheses in status text do not nest");
	TAP_STR(verdict_str("* OKAY {99999999999}\r\n"),
	    "a literal of 99999999999 bytes (more than 256 MB)",
	    "OKAY is no status word (nor for libetpan)");
	TAP_STR(verdict_str("* NO [BADCHARSET ({5}\r\nUTF-8)] no\r\n"),
	    "a literal in a BADCHARSET response code",
	    "a literal where libetpan reads one in a status line is refused");
	TAP_STR(verdict_str("A1 NO  [ badcharset (\"x\") {3}\r\n"),
	    "a literal in a BADCHARSET response code",
	    "... in any case and spacing libetpan takes");
	TAP_STR(verdict_str("* OK hi\r\n1 OK [PERMANENTFLAGS (\r\n"),
	    "a malformed status response (a flag expected)",
	    "a status line against the grammar is refused before libetpan "
	    "reads it");
	TAP_STR(verdict_str("  1 OK [UIDNEXT x] y\r\n"),
	    "a malformed status response (neither \"*\", \"+\" nor a tag "
	    "at the start of the line)", "... however it is spaced");
	TAP_STR(verdict_str("+[PERMANENTFLAGS (\r\n"), "a malformed status "
	    "response (a flag expected)", "a continuation request's code is "
	    "checked as a status line's (libetpan reads it the same way)");
	TAP_OK(verdict_str("+ go on\r\n* 1 FETCH (FLAGS (\\Seen) "
	    "UID 3)\r\n") == NULL, "a continuation and data are not status "
	    "lines");
	TAP_STR(verdict_str("{4}\r\n* BYE [PERMANENTFLAGS (\r\n"),
	    "a response that starts with '{'", "a line that starts with a "
	    "literal is refused (libetpan reads past it and into what "
	    "follows)");
	TAP_STR(verdict_str("C{5}\n1 OK [PERMANENTFLAGS (\n"),
	    "a tagged response that is not OK, NO or BAD", "a tag followed "
	    "by a literal is refused (libetpan gives up on the line and "
	    "never reads the literal)");
	TAP_STR(verdict_str("A1 FETCH (UID 1)\r\n"), "a tagged response "
	    "that is not OK, NO or BAD", "... as is a tagged response of "
	    "data");
	TAP_STR(verdict_str("A1\r\n"), "a tagged response that is not OK, "
	    "NO or BAD", "... or a tag alone");
	TAP_OK(verdict_str("A1 OK\r\nA2 ok \r\nA3 NO [ALERT] x\r\n"
	    "A4 BAD y\r\n") == NULL, "tagged OK, NO and BAD pass, with or "
	    "without text");
	TAP_STR(verdict_str(" (x)\r\n"), "a response that starts with '('",
	    "... or with a list");
	TAP_STR(verdict_str("\002x {4}\r\n* BYE [PERMANENTFLAGS (\r\n"),
	    "a response that starts with the byte 0x02", "... or with a "
	    "control byte");
	{
		static const char nul[] = "* OK a\0b\r\n";
		static const char lit[] = "* 1 FETCH (BODY[] {3}\r\na\0b)\r\n";

		TAP_STR(verdict(nul, sizeof nul - 1), "a NUL byte outside a "
		    "literal", "a NUL outside a literal is refused (libetpan "
		    "reads lines as C strings)");
		TAP_OK(verdict(lit, sizeof lit - 1) == NULL, "... inside one "
		    "it passes");
	}
	TAP_STR(verdict_str("* STATUS T ()\r\n"), "a STATUS response "
	    "without counts", "a STATUS with an empty list is refused "
	    "(libetpan frees a list it never made)");
	TAP_STR(verdict_str("* status \"a b\" ( \t)\n"), "a STATUS response "
	    "without counts", "... however it is written");
	TAP_OK(verdict_str("* STATUS INBOX (MESSAGES 3 UNSEEN 1)\r\n"
	    "* STATUS \"()\" (UNSEEN 0)\r\n* LIST () \"/\" x\r\n") == NULL,
	    "a STATUS with counts, parentheses in a name, an empty LIST "
	    "flag list pass");
	TAP_STR(verdict_str("* NO [BADCHARSET (U)] x\r\n1 NO [BADCHARSET] y\r\n"),
	    "two BADCHARSET codes in one answer", "a second BADCHARSET code "
	    "in one answer is refused (libetpan frees the first one's list "
	    "twice)");
	TAP_OK(verdict_str("1 NO [BADCHARSET (U)] x\r\n2 NO [BADCHARSET (U)] "
	    "y\r\n") == NULL, "one in each of two answers passes");
	TAP_STR(verdict_str("*\tANNOTATION\t\t[2.1] {5}\r\n"),
	    "an untagged ANNOTATION response, which steedmail never asks for",
	    "untagged data of an extension steedmail never uses is refused "
	    "(libetpan's ANNOTATEMORE parser frees what it never made)");
	TAP_STR(verdict_str("* quota\n"),
	    "an untagged QUOTA response, which steedmail never asks for",
	    "... in any case, ending at once");
	TAP_OK(verdict_str("* QUOTAS x\r\n* 3 ID\r\nA1 OK ID done\r\n"
	    "* SEARCH 1 2\r\n") == NULL, "a longer word, a number, a tagged "
	    "reply and SEARCH are not");
	TAP_OK(verdict_str("* OK [BADCHARSET (UTF-8)] not here\r\n"
	    "* OK [BADX] {5}\r\n") == NULL,
	    "a BADCHARSET code without one, and a code that is not one, "
	    "pass");
	TAP_OK(verdict_str("* OK [PERMANENTFLAGS (\\Seen \\*)] ok\r\n") ==
	    NULL, "other codes are text");
	TAP_STR(verdict_str("* VANISHED (EARLIER) 3:4\r\n"),
	    "an untagged VANISHED response, which steedmail never asks for",
	    "VANISHED is refused while QRESYNC is not enabled");
	{
		struct imap_frame	q;

		imap_frame_init(&q);
		q.qresync = 1;
		TAP_OK(feed(&q, "* ENABLED QRESYNC\r\nA1 OK done\r\n"
		    "* VANISHED (EARLIER) 3:4,9\r\n* VANISHED 12\r\n"
		    "* 5 FETCH (UID 7 FLAGS (\\Flagged) MODSEQ (4))\r\n") == 0,
		    "... and passes, with ENABLED, once it is");
		TAP_OK(feed(&q, "* QUOTA x\r\n") == -1,
		    "... while the others are still refused");
	}
	TAP_STR(verdict_str("* NAMESPACE ((\"INBOX.\" \".\")) NIL NIL\r\n"),
	    "an untagged NAMESPACE response, which steedmail never asks for",
	    "NAMESPACE is refused when steedmail did not ask");
	{
		struct imap_frame	q;

		imap_frame_init(&q);
		imap_frame_namespace_one(&q);
		TAP_OK(feed(&q, "* NAMESPACE ((\"INBOX.\" \".\")) NIL "
		    "((\"#shared.\" \".\"))\r\n3 OK NAMESPACE done\r\n") == 0,
		    "... and passes between the command and its tagged reply");
		TAP_OK(feed(&q, "* NAMESPACE ((\"\" \"/\")) NIL NIL\r\n") == -1,
		    "... and is refused again after it");
	}
}

static void
test_depth(void)
{
	char	*s, *p;
	size_t	 len, i;

	s = malloc(3 * IMAP_FRAME_DEPTH_MAX + 100);
	p = s + sprintf(s, "* 1 FETCH ");
	for (i = 0; i < IMAP_FRAME_DEPTH_MAX; i++)
		*p++ = '(';
	for (i = 0; i < IMAP_FRAME_DEPTH_MAX; i++)
		*p++ = ')';
	p += sprintf(p, "\r\n");
	TAP_OK(verdict(s, (size_t)(p - s)) == NULL, "lists nested %d deep "
	    "pass", IMAP_FRAME_DEPTH_MAX);
	p = s + sprintf(s, "* 1 FETCH ");
	for (i = 0; i < IMAP_FRAME_DEPTH_MAX + 1; i++)
		*p++ = '(';
	TAP_STR(verdict(s, (size_t)(p - s)), "lists nested more than 256 deep",
	    "%d deep are refused", IMAP_FRAME_DEPTH_MAX + 1);
	free(s);

	s = make("* 1 FETCH (BODY", '[', 10000, "\r\n", &len);
	TAP_OK(verdict(s, len) == NULL, "brackets do not nest");
	free(s);
	s = make("* 1 FETCH (BODY (", '(', IMAP_FRAME_DEPTH_MAX - 2, "\r\n"
	    "* 1 FETCH (((x)))\r\n", &len);
	TAP_OK(verdict(s, len) == NULL, "nesting ends with the response");
	free(s);
	s = make("* 1 FETCH (BODY {1000}\r\n", '(', 1000, " ((x)))\r\n", &len);
	TAP_OK(verdict(s, len) == NULL, "nor do parentheses in a literal");
	free(s);
	s = make("* 1 FETCH (", '(', IMAP_FRAME_DEPTH_MAX - 1, " {3}\r\n"
	    "abc (", &len);
	TAP_STR(verdict(s, len), "lists nested more than 256 deep",
	    "a response's nesting goes on after a literal");
	free(s);
}

/* Samples for the promise: the same state and answer in any pieces. */
static const char *samples[] = {
	"* OK [CAPABILITY IMAP4rev1] hi\r\nA1 OK done\r\n",
	"* 1 FETCH (UID 5 BODY[] {7}\r\nab\r\ncd) FLAGS (\\Seen))\r\n",
	"* LIST (\\HasNoChildren) \"/\" \"a \\\"b\\\\\" {3}\r\nabc\r\n* 2 EXI",
	"+ go ahead {5}\r\n* NO [BADCHARSET (UTF-8)] x\r\n",
	"* LIST () \"/\" { -12 }\r\n\r\n* 3 EXISTS\r",
	"* 1 FETCH (BINARY[1] ~{3+}\r\n((( ~{0}\r\n )\r\n",
	"A1 NO [BADCHARSET (x) {5}\r\n",
	"* LIST () \"/\" {99999999999999999999999}\r\n",
	"* LIST () \"/\" {5} x\r\n",
	"\r\n\n  * OK x\r\n",
};

static void
test_pieces(void)
{
	struct imap_frame	 whole, part;
	size_t			 i, chunk;
	int			 rw, rp, same = 1;
	char			*s;
	size_t			 len;

	for (i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		rw = scan(&whole, samples[i], strlen(samples[i]), 0);
		for (chunk = 1; chunk <= 8; chunk++) {
			rp = scan(&part, samples[i], strlen(samples[i]), chunk);
			if (rw != rp || memcmp(&whole, &part, sizeof whole) !=
			    0) {
				printf("# sample %zu in pieces of %zu\n", i,
				    chunk);
				same = 0;
			}
		}
	}
	TAP_OK(same, "byte by byte, and in pieces of 2 to 8, gives the same "
	    "state and verdict as whole (%zu samples)",
	    sizeof samples / sizeof samples[0]);

	s = make("* SEARCH", '1', IMAP_FRAME_LINE_MAX - 8, "\r\n", &len);
	rw = scan(&whole, s, len, 0);
	rp = scan(&part, s, len, 1);
	TAP_OK(rw == 0 && rp == 0 && memcmp(&whole, &part, sizeof whole) == 0,
	    "a line of 1 MiB byte by byte is the same as whole");
	s[len - 2] = '1';
	rw = scan(&whole, s, len, 0);
	rp = scan(&part, s, len, 1);
	TAP_OK(rw == -1 && rp == -1 && strcmp(whole.why, part.why) == 0,
	    "... and one byte longer is refused the same way");
	free(s);

	/* CRLF split between reads */
	imap_frame_init(&part);
	TAP_OK(feed(&part, "* 1 FETCH (BODY[] {3}\r") == 0 &&
	    feed(&part, "\nab") == 0 && part.left == 1,
	    "a literal's CRLF split between reads");
	TAP_OK(feed(&part, "c)\r") == 0 && feed(&part, "\n") == 0 &&
	    part.state == 0 && part.line == 0,
	    "a response's CRLF split between reads");
}

/* Answers read by steedmail's streaming reader: no line bound. */
static void
test_streamed(void)
{
	struct imap_frame	 f;
	char			*s;
	size_t			 len;

	s = make("* 1 FETCH (ENVELOPE (", 'x', IMAP_FRAME_LINE_MAX + MB,
	    "))\r\n", &len);
	imap_frame_init(&f);
	imap_frame_streamed_one(&f);
	imap_frame_streamed_one(&f);
	TAP_OK(imap_frame_scan(&f, s, len) == 0 &&
	    feed(&f, "* 2 EXISTS\r\n+ more\r\nS1 OK done\r\n") == 0 &&
	    f.streamed == 1, "a streamed answer takes a FETCH line of 17 MB; "
	    "its tagged reply ends it, nothing else does");
	TAP_OK(imap_frame_scan(&f, s, len) == 0 &&
	    feed(&f, "S2 NO later\r\n") == 0 && f.streamed == 0,
	    "so does the next one's");
	TAP_STR(imap_frame_scan(&f, s, len) == -1 ? imap_frame_error(&f) :
	    NULL, LONG,
	    "the answer after them has its line bounded again");
	imap_frame_init(&f);
	imap_frame_streamed_one(&f);
	TAP_STR(feed(&f, "* 1 FETCH (BODY[] {4294967296}\r\n") == -1 ?
	    imap_frame_error(&f) : NULL,
	    "a literal of 4294967296 bytes (more than 256 MB)",
	    "a streamed answer still has its literals bounded");
	free(s);
	s = make("* 1 FETCH ", '(', IMAP_FRAME_DEPTH_MAX + 1, "", &len);
	imap_frame_init(&f);
	imap_frame_streamed_one(&f);
	TAP_STR(imap_frame_scan(&f, s, len) == -1 ? imap_frame_error(&f) :
	    NULL, "lists nested more than 256 deep",
	    "... and its nesting");
	free(s);
}

static void
test_stopped(void)
{
	struct imap_frame	f;
	const char		*s = "* LIST () \"/\" {4294967296}\r\n";

	TAP_OK(scan(&f, s, strlen(s), 0) == -1 &&
	    imap_frame_scan(&f, "* OK\r\n", 6) == -1 &&
	    imap_frame_scan(&f, "", 0) == -1,
	    "once refused, every later scan is refused");
	TAP_STR(imap_frame_error(&f),
	    "a literal of 4294967296 bytes (more than 256 MB)",
	    "... and the reason stays the first one");
}

static void
test_streams(void)
{
	mailstream	*s;
	int		 p[2];

	TAP_OK(imap_frame_attach(NULL) == 0 && imap_frame_stopped(NULL) ==
	    NULL && imap_frame_cause(NULL, "LIST") == NULL,
	    "no stream: nothing to guard, nothing said");
	if (pipe(p) == -1) {
		TAP_OK(0, "pipe");
		return;
	}
	s = mailstream_socket_open(p[0]);
	TAP_OK(imap_frame_attach(s) == 0 && imap_frame_stopped(s) == NULL &&
	    imap_frame_cause(s, NULL) == NULL,
	    "a stream not of net-tls.c is left as it is");
	mailstream_close(s);
	close(p[1]);
}

int
main(void)
{
	test_lines();
	test_literals();
	test_strings();
	test_text();
	test_depth();
	test_pieces();
	test_streamed();
	test_stopped();
	test_streams();
	return TAP_DONE();
}
