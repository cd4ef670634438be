/*
 * fuzz.h: what the libFuzzer harnesses of tests/fuzz share. Each harness
 * is one file, tests/fuzz/fuzz-NAME.c, that hands the fuzzer's bytes to
 * one parser of untrusted input the way the program does, and aborts when
 * an output breaks a promise the parser makes (UTF-8 that is not, a
 * terminal-unsafe byte). tests/fuzz/README says how to run them.
 */
#ifndef STEED_FUZZ_H
#define STEED_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strsafe.h"
#include "xmalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	LLVMFuzzerInitialize(int *, char ***);

/* The input as a NUL-terminated string (it may hold NULs before that). */
static inline char *
fuzz_str(const uint8_t *data, size_t len)
{
	char	*s = xmalloc(len + 1);

	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

/* The input cut at its first NUL: *rest is what follows it, or "". */
static inline char *
fuzz_split(char *s, size_t len, char **rest, size_t *restlen)
{
	size_t	n = strnlen(s, len);

	if (n < len) {
		*rest = s + n + 1;
		*restlen = len - n - 1;
	} else {
		*rest = s + len;
		*restlen = 0;
	}
	return s;
}

/*
 * 1 if the len bytes at p may go to a terminal as they are: valid UTF-8,
 * no control character but TAB and LF, no C1 control, no bidirectional
 * control. What strsafe() promises of its output.
 */
static inline int
fuzz_terminal_safe(const char *p, size_t len)
{
	uint32_t	cp;
	size_t		i = 0, n;

	while (i < len) {
		if ((n = strsafe_utf8_decode(p + i, len - i, &cp)) == 0)
			return 0;
		if ((cp < 0x20 && cp != '\t' && cp != '\n') ||
		    (cp >= 0x7f && cp <= 0x9f) ||
		    (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069) ||
		    cp == 0x200e || cp == 0x200f || cp == 0x061c ||
		    cp == 0x2028 || cp == 0x2029)
			return 0;
		i += n;
	}
	return 1;
}

/* Stop the run: a promise was broken (libFuzzer saves the input). */
#define FUZZ_ASSERT(e) do {						\
	if (!(e))							\
		__builtin_trap();					\
} while (0)

#endif
