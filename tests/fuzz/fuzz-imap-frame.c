/*
 * fuzz-imap-frame.c: the promise of the guard below libetpan's IMAP parser
 * (src/imap-frame.h): the same bytes give the same verdict, the same
 * reason and the same state whether they come in one piece or in many.
 * The first byte of the input chooses the pieces (a pseudo-random run of
 * sizes from 1 to 8 bytes, or to 512) and whether two answers are
 * streamed (imap_frame_streamed_one()); the rest is what a server sends.
 * Also checked: what passes stays within the bounds, and a reason is
 * plain text.
 */
#include "fuzz.h"

#include "imap-frame.h"

/* The next piece's size, from the state x (a linear congruential run). */
static size_t
piece(uint32_t *x, int small)
{
	*x = *x * 1103515245u + 12345u;
	return 1 + (*x >> 16) % (small ? 8 : 512);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct imap_frame	 whole, parts;
	const char		*why;
	uint32_t		 x;
	size_t			 i, n;
	int			 rw, rp = 0, small;

	if (len < 1)
		return 0;
	x = data[0];
	small = data[0] < 128;
	data++;
	len--;

	imap_frame_init(&whole);
	imap_frame_init(&parts);
	if (x & 0x40) {
		imap_frame_streamed_one(&whole);
		imap_frame_streamed_one(&whole);
		imap_frame_streamed_one(&parts);
		imap_frame_streamed_one(&parts);
	}
	rw = imap_frame_scan(&whole, data, len);

	for (i = 0; i < len; i += n) {
		n = piece(&x, small);
		if (n > len - i)
			n = len - i;
		if (imap_frame_scan(&parts, data + i, n) == -1)
			rp = -1;
	}
	FUZZ_ASSERT(imap_frame_scan(&parts, data, 0) == rp);

	FUZZ_ASSERT(rw == rp);
	FUZZ_ASSERT(memcmp(&whole, &parts, sizeof whole) == 0);
	why = imap_frame_error(&whole);
	FUZZ_ASSERT((rw == -1) == (why != NULL));
	if (why != NULL) {
		FUZZ_ASSERT(*why != '\0' && fuzz_terminal_safe(why,
		    strlen(why)));
		FUZZ_ASSERT(imap_frame_scan(&whole, "\r\n", 2) == -1);
	} else {
		FUZZ_ASSERT(whole.depth <= IMAP_FRAME_DEPTH_MAX);
		FUZZ_ASSERT(whole.streamed > 0 ||
		    whole.line <= IMAP_FRAME_LINE_MAX + 1);
		FUZZ_ASSERT(whole.left <= IMAP_FRAME_LITERAL_MAX);
	}
	return 0;
}
