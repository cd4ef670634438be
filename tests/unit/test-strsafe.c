/*
 * test-strsafe.c: no byte sequence gets a control character to the terminal.
 */
#include <stdlib.h>

#include "strsafe.h"
#include "tap.h"

static char *
safe(const char *s, size_t n, int flags)
{
	struct buf	b;

	buf_init(&b);
	strsafe_add(&b, s, n, flags);
	return buf_take(&b);
}

#define CASE(in, flags, want, what) do {				\
	char *got = safe(in, sizeof(in) - 1, flags);			\
	TAP_STR(got, want, what);					\
	free(got);							\
} while (0)

int
main(void)
{
	CASE("plain text", 0, "plain text", "ASCII passes");
	CASE("gr\xc3\xbc\xc3\x9f dich \xe2\x82\xac", 0,
	    "gr\xc3\xbc\xc3\x9f dich \xe2\x82\xac", "UTF-8 passes");
	CASE("\x1b]0;pwned\x07", 0, "^[]0;pwned^G", "ESC and BEL escaped");
	CASE("a\tb\nc", 0, "a^Ib^Jc", "TAB and LF escaped in one-line text");
	CASE("a\tb\nc", STRSAFE_KEEP_NL, "a\tb\nc", "TAB and LF kept in bodies");
	CASE("a\rb", STRSAFE_KEEP_NL, "a^Mb", "CR escaped even in bodies");
	CASE("x\x7fy", 0, "x^?y", "DEL escaped");
	CASE("\xc2\x9b" "31m", 0, "<U+009B>31m", "C1 CSI escaped");
	CASE("\x9b" "31m", 0, "\\x9B31m", "raw 8-bit CSI byte escaped");
	CASE("abc\xe2\x80\xae" "fdp.exe", 0, "abc<U+202E>fdp.exe",
	    "RLO bidi override escaped");
	CASE("\xe2\x81\xa6x\xe2\x81\xa9", 0, "<U+2066>x<U+2069>",
	    "bidi isolates escaped");
	CASE("\xc0\x9b", 0, "\\xC0\\x9B", "overlong C1 rejected");
	CASE("\xe0\x80\x9b", 0, "\\xE0\\x80\\x9B", "overlong 3-byte rejected");
	CASE("\xed\xa0\x80", 0, "\\xED\\xA0\\x80", "surrogate rejected");
	CASE("\xf4\x90\x80\x80", 0, "\\xF4\\x90\\x80\\x80",
	    "above U+10FFFF rejected");
	CASE("\xe2\x82", 0, "\\xE2\\x82", "truncated sequence escaped");
	CASE("a\0b", 0, "a^@b", "NUL escaped");
	CASE("a\tb\nc\rd", STRSAFE_KEEP_TAB, "a\tb^Jc^Md",
	    "KEEP_TAB: TAB kept for the screen's columns, LF and CR escaped");
	CASE("x\xe2\x94\x83 y", 0, "x\xe2\x94\x83 y",
	    "U+2503 passes by default");
	CASE("x\xe2\x94\x83 y", STRSAFE_MARK, "x<U+2503> y",
	    "MARK: U+2503, the view's mark, escaped");
	CASE("\x1b[31mRED\rover\bX\x07", STRSAFE_KEEP_TAB | STRSAFE_MARK,
	    "^[[31mRED^Mover^HX^G",
	    "the screens' flags give the stand-ins the commands print");
	{
		struct buf b;
		size_t n;
		buf_init(&b);
		n = strsafe_add(&b, "\x1b[2J\xe2\x80\xae", 7, 0);
		TAP_OK(n == 2, "escape count reported (%zu)", n);
		buf_free(&b);
	}
	return TAP_DONE();
}
