/*
 * test-rfc2047.c: encoded words, decoded and encoded.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "charset.h"
#include "rfc2047.h"
#include "tap.h"

static char *
dec(const char *s)
{
	return rfc2047_decode_str(s);
}

#define DEC(in, want, what) do {					\
	char *got = dec(in);						\
	TAP_STR(got, want, what);					\
	free(got);							\
} while (0)

/* Every word of an encoding: short enough, whole characters, decodable. */
static int
check_words(const char *enc, size_t col, int *maxlen)
{
	char		*copy, *w, *save, *d;
	size_t		 len, i = 0;
	int		 good = 1;

	*maxlen = 0;
	copy = strdup(enc);
	for (w = strtok_r(copy, " ", &save); w != NULL;
	    w = strtok_r(NULL, " ", &save), i++) {
		len = strlen(w);
		if ((int)len > *maxlen)
			*maxlen = (int)len;
		if (len > 75 ||
		    (i == 0 && col + len > 76 && col + 12 + 12 <= 76))
			good = 0;
		d = dec(w);
		if (strncmp(w, "=?utf-8?", 8) != 0 || strcmp(d, w) == 0 ||
		    !charset_utf8_valid(d, strlen(d)))
			good = 0;
		free(d);
	}
	free(copy);
	return good;
}

static void
roundtrip(const char *s, size_t col, int where, const char *what)
{
	char	*enc, *back;
	int	 maxlen;

	enc = rfc2047_encode(s, col, where);
	back = dec(enc);
	TAP_STR(back, s, "round trip: %s", what);
	TAP_OK(check_words(enc, col, &maxlen),
	    "words fit and hold whole characters: %s (longest %d)", what,
	    maxlen);
	free(enc);
	free(back);
}

int
main(void)
{
	struct buf	 b;
	char		*s, long_s[2000];
	size_t		 i;

	DEC("plain text", "plain text", "text without words unchanged");
	DEC("=?utf-8?q?J=C3=B6rg?=", "J\xc3\xb6rg", "Q word");
	DEC("=?UTF-8?Q?a_b?=", "a b", "Q: underscore is a space, case ignored");
	DEC("=?utf-8?b?SsO2cmc=?=", "J\xc3\xb6rg", "B word");
	DEC("=?utf-8?B?SsO2cmc?=", "J\xc3\xb6rg", "B word without padding");
	DEC("=?iso-8859-1?q?caf=E9?=", "caf\xc3\xa9", "Latin-1 converted");
	DEC("=?utf-8*en?q?hi?=", "hi", "RFC 2231 language suffix");
	DEC("=?utf-8?q?a?= =?utf-8?q?b?=", "ab", "space between words goes");
	DEC("=?utf-8?q?a?=\t  =?utf-8?q?b?=", "ab", "any white space goes");
	DEC("=?utf-8?q?a?= x =?utf-8?q?b?=", "a x b",
	    "text between words stays");
	DEC("Re: =?utf-8?q?x?= end", "Re: x end", "text around words stays");
	DEC("=?utf-8?q?=E2=82?= =?utf-8?q?=AC?=", "\xe2\x82\xac",
	    "a character split across words is joined");
	DEC("=?utf-8?q?a?= =?iso-8859-1?q?=E9?=", "a\xc3\xa9",
	    "adjacent words in two charsets");
	DEC("=?utf-8?q?=FF?=", "\xef\xbf\xbd", "invalid UTF-8 becomes U+FFFD");
	DEC("=?utf-8?q?=1B[2J?=", "\x1b[2J",
	    "ESC decodes raw (the view escapes it)");

	DEC("=?utf-8?q?bad=ZZ?=", "=?utf-8?q?bad=ZZ?=", "bad Q escape kept");
	DEC("=?utf-8?q?bad=4?=", "=?utf-8?q?bad=4?=", "half Q escape kept");
	DEC("=?utf-8?x?abc?=", "=?utf-8?x?abc?=", "unknown encoding kept");
	DEC("=?utf-8?b?!!!?=", "=?utf-8?b?!!!?=", "bad base64 kept");
	DEC("=?utf-8?b?Q?=", "=?utf-8?b?Q?=", "truncated base64 kept");
	DEC("=?x-nothing?q?x?=", "=?x-nothing?q?x?=", "unknown charset kept");
	DEC("=?utf-8?q?no end", "=?utf-8?q?no end", "unterminated word kept");
	DEC("=?utf-8?q?a b?=", "=?utf-8?q?a b?=", "space inside a word: kept");
	DEC("=??q?x?=", "=??q?x?=", "empty charset kept");
	DEC("=?=?=?", "=?=?=?", "fragments kept");
	DEC("=?utf-8?q?x?= =?bad", "x =?bad",
	    "white space before a broken word stays");
	DEC("=?utf-8?q?" "?=", "", "empty word");

	buf_init(&b);
	rfc2047_decode(&b, "=?utf-8?q?a=00b?=", 17);
	TAP_OK(b.len == 3 && memcmp(b.data, "a\0b", 3) == 0,
	    "NUL decodes into the buffer, length kept");
	buf_free(&b);

	/* Linear in the length of hostile input. */
	s = malloc(2000001);
	for (i = 0; i < 2000000; i += 2)
		memcpy(s + i, "=?", 2);
	s[2000000] = '\0';
	buf_init(&b);
	rfc2047_decode(&b, s, 2000000);
	TAP_OK(b.len == 2000000, "a million \"=?\" pass through");
	buf_free(&b);
	free(s);

	roundtrip("Gr\xc3\xbc\xc3\x9f dich", 9, RFC2047_TEXT, "short Latin");
	roundtrip("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe4\xbb"
	    "\xb6\xe5\x90\x8d\xe3\x81\xa7\xe3\x81\x99\xe3\x80\x82\xe6\x97\xa5"
	    "\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe4\xbb\xb6\xe5\x90\x8d\xe3"
	    "\x81\xa7\xe3\x81\x99\xe3\x80\x82\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa"
	    "\x9e\xe3\x81\xae\xe4\xbb\xb6\xe5\x90\x8d", 9, RFC2047_TEXT,
	    "long Japanese (base64)");
	for (i = 0; i < 300; i++)
		memcpy(long_s + 2 * i, "\xc3\xa9", 2);
	strcpy(long_s + 600, " and then \xf0\x9f\x98\x80 emoji");
	roundtrip(long_s, 9, RFC2047_TEXT, "600 bytes of accents");
	roundtrip("Ren\xc3\xa9 \"the\" O'Brien, Jr.", 76, RFC2047_PHRASE,
	    "display name with specials");
	roundtrip("a_b=c?d", 70, RFC2047_TEXT, "Q specials, late column");
	roundtrip("\x1b[2J", 9, RFC2047_TEXT, "control characters");

	s = rfc2047_encode("Meeting at the caf\xc3\xa9 tomorrow", 9,
	    RFC2047_TEXT);
	TAP_STR(s, "=?utf-8?q?Meeting_at_the_caf=C3=A9_tomorrow?=",
	    "mostly ASCII: Q");
	free(s);
	s = rfc2047_encode("\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82",
	    9, RFC2047_TEXT);
	TAP_STR(s, "=?utf-8?b?0J/RgNC40LLQtdGC?=", "Cyrillic: B");
	free(s);
	s = rfc2047_encode("a(b)", 9, RFC2047_PHRASE);
	TAP_STR(s, "=?utf-8?q?a=28b=29?=", "parentheses encoded in a phrase");
	free(s);
	return TAP_DONE();
}
