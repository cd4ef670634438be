/*
 * fuzz-stream.h: a libetpan stream whose far end is the fuzzer's input,
 * for the harnesses that play a server (fuzz-smtp.c, fuzz-imap-session.c).
 * The first byte of the input chooses the size of the chunks a read hands
 * out (1 to 64 bytes, or 8 kB); what steedmail writes goes nowhere; the
 * end of the input is the server closing, an error (-1) as steedmail's own
 * streams make it (src/net-tls.c). With a frame (the IMAP harnesses),
 * every chunk passes the guard of src/imap-frame.h first, as on a logged-in
 * session's TLS stream: a chunk past its bounds fails the read, and every
 * read after it.
 */
#ifndef STEED_FUZZ_STREAM_H
#define STEED_FUZZ_STREAM_H

#include <libetpan/libetpan.h>

#include "fuzz.h"
#include "imap-frame.h"

struct fuzz_feed {
	const uint8_t		*data;
	size_t			 len, pos, chunk;
	struct imap_frame	*frame;		/* NULL: no guard */
};

static ssize_t
fuzz_feed_read(mailstream_low *s, void *dst, size_t max)
{
	struct fuzz_feed	*f = s->data;
	size_t			 n = f->len - f->pos;

	if (n == 0)
		return -1;
	if (n > f->chunk)
		n = f->chunk;
	if (n > max)
		n = max;
	if (f->frame != NULL &&
	    imap_frame_scan(f->frame, f->data + f->pos, n) == -1)
		return -1;
	memcpy(dst, f->data + f->pos, n);
	f->pos += n;
	return (ssize_t)n;
}

static ssize_t
fuzz_feed_write(mailstream_low *s, const void *src, size_t n)
{
	(void)s;
	(void)src;
	return (ssize_t)n;
}

static int
fuzz_feed_close(mailstream_low *s)
{
	(void)s;
	return 0;
}

static int
fuzz_feed_fd(mailstream_low *s)
{
	(void)s;
	return -1;
}

static void
fuzz_feed_free(mailstream_low *s)
{
	free(s);
}

static mailstream_low_driver fuzz_feed_driver = {
	.mailstream_read = fuzz_feed_read,
	.mailstream_write = fuzz_feed_write,
	.mailstream_close = fuzz_feed_close,
	.mailstream_get_fd = fuzz_feed_fd,
	.mailstream_free = fuzz_feed_free,
};

/* A stream reading the input at data (len >= 1) through f, without a
 * guard (set f->frame for one); NULL when there is no memory. */
static inline mailstream *
fuzz_stream(struct fuzz_feed *f, const uint8_t *data, size_t len)
{
	mailstream_low	*low;
	mailstream	*st;

	f->data = data + 1;
	f->len = len - 1;
	f->pos = 0;
	f->chunk = data[0] >= 192 ? 8192 : 1 + (size_t)data[0] % 64;
	f->frame = NULL;
	if ((low = mailstream_low_new(f, &fuzz_feed_driver)) == NULL)
		return NULL;
	if ((st = mailstream_new(low, 1024)) == NULL)
		mailstream_low_free(low);
	return st;
}

#endif
