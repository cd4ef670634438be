/*
 * fuzz-imap-fetch.c: the streaming reader of a server's FETCH answers
 * (imap_fetch_response) and UID SEARCH answers
 * (imap_fetch_search_response), fed the input in chunks whose size the
 * first byte chooses (and its bit 0x40 which answer is read), as a lying
 * or broken server would send it, each chunk through the guard below
 * (src/imap-frame.h) as on a real session. For every message it hands
 * out, the promises of imap-fetch.h are checked: flags are maildir
 * letters, strings are C strings within the field limit, a message
 * without header fields has no hint but that; every UID of a SEARCH is
 * not 0.
 */
#include "fuzz.h"

#include "cache.h"
#include "imap-fetch.h"
#include "imap-frame.h"

struct feed {
	const uint8_t		*data;
	size_t			 len, pos, chunk;
	struct imap_frame	 frame;
};

static ssize_t
feed_read(void *arg, char *dst, size_t max, int bol)
{
	struct feed	*f = arg;
	size_t		 n = f->len - f->pos;

	(void)bol;
	if (n > f->chunk)
		n = f->chunk;
	if (n > max)
		n = max;
	if (imap_frame_scan(&f->frame, f->data + f->pos, n) == -1)
		return -1;
	memcpy(dst, f->data + f->pos, n);
	f->pos += n;
	return (ssize_t)n;
}

static void
check_str(const char *s)
{
	if (s != NULL)
		FUZZ_ASSERT(strlen(s) <= IMAP_FETCH_FIELD_MAX);
}

static int
each(const struct imap_fetch_msg *m, void *arg, char **cause)
{
	(void)arg;
	(void)cause;
	FUZZ_ASSERT(strspn(m->flags, "DFRST") == strlen(m->flags));
	check_str(m->date);
	check_str(m->subject);
	check_str(m->from_name);
	check_str(m->from_mailbox);
	check_str(m->from_host);
	check_str(m->message_id);
	check_str(m->rcpt);
	check_str(m->in_reply_to);
	check_str(m->references);
	/* header fields that did not come say nothing else */
	FUZZ_ASSERT(!(m->hints & CACHE_HINT_NOFIELDS) ||
	    m->hints == CACHE_HINT_NOFIELDS);
	return 0;
}

static int
each_uid(uint32_t uid, void *arg, char **cause)
{
	(void)arg;
	(void)cause;
	FUZZ_ASSERT(uid != 0);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct feed		 f;
	struct imap_fetch	*r;
	char			*cause = NULL;
	uint32_t		 exists = 0;
	int			 i, rc;

	if (len < 1)
		return 0;
	f.data = data + 1;
	f.len = len - 1;
	f.pos = 0;
	f.chunk = 1 + data[0] % 64;
	imap_frame_init(&f.frame);
	if (data[0] >= 192)
		f.chunk = 4096;
	r = imap_fetch_new(feed_read, &f);
	imap_fetch_track_exists(r, &exists);
	for (i = 0; i < 4; i++) {
		if (data[0] & 0x40)
			rc = imap_fetch_search_response(r, "A1", each_uid,
			    NULL, &cause);
		else
			rc = imap_fetch_response(r, "A1", each, NULL, &cause);
		free(cause);
		cause = NULL;
		if (rc == IMAP_FETCH_BROKEN || f.pos == f.len)
			break;
	}
	imap_fetch_free(r);
	return 0;
}
