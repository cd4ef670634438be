/*
 * test-buf.c: the growable buffer.
 */
#include <stdlib.h>

#include "buf.h"
#include "tap.h"

int
main(void)
{
	struct buf	 b;
	char		*s;
	int		 i;

	buf_init(&b);
	for (i = 0; i < 10000; i++)
		buf_addc(&b, 'x');
	TAP_OK(b.len == 10000 && b.data[10000] == '\0',
	    "grows and stays NUL-terminated");
	buf_reset(&b);
	buf_addf(&b, "%d-%s", 42, "a");
	buf_add(&b, "\0z", 2);
	TAP_OK(b.len == 6 && b.data[4] == '\0' && b.data[5] == 'z',
	    "formatted and binary appends");
	s = buf_take(&b);
	TAP_OK(b.data == NULL && b.len == 0, "take empties the buffer");
	free(s);
	s = buf_take(&b);
	TAP_STR(s, "", "take of an empty buffer gives an empty string");
	free(s);
	return TAP_DONE();
}
