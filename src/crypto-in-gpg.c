/*
 * crypto-in-gpg.c: the gpgme glue of crypto-in: contexts for a protocol,
 * line ends made CRLF for checking, and gpgme's output written into
 * buffers that are wiped after use. Callers: the crypto-in-*.c files. It
 * never looks at what the buffers hold.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpgme.h>

#include "addr-list.h"
#include "autocrypt-parse.h"
#include "buf.h"
#include "crypto.h"
#include "crypto-in-int.h"
#include "log.h"
#include "mime-body.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "xmalloc.h"

const char *
crypto_in_proto_label(enum crypto_in_proto p)
{
	return p == CRYPTO_IN_SMIME ? "S/MIME" : "OpenPGP";
}

static gpgme_protocol_t
crypto_in_gpgme_proto(enum crypto_in_proto p)
{
	return p == CRYPTO_IN_SMIME ? GPGME_PROTOCOL_CMS :
	    GPGME_PROTOCOL_OpenPGP;
}

/* The len bytes at s with every bare LF made CRLF (RFC 3156, 5751). */
void
crypto_in_crlf(struct buf *out, const char *s, size_t len)
{
	size_t	i, start = 0;

	for (i = 0; i < len; i++) {
		if (s[i] != '\n' || (i > 0 && s[i - 1] == '\r'))
			continue;
		buf_add(out, s + start, i - start);
		buf_add(out, "\r\n", 2);
		start = i + 1;
	}
	buf_add(out, s + start, len - start);
}

/* Wipe and free a buffer that held plaintext. */
void
crypto_in_wipe(struct buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->cap);
	buf_free(b);
}

/*
 * gpgme's output written straight into a buf (a gpgme_data_t on
 * callbacks), instead of into gpgme's own memory object and copied out
 * afterwards: one copy of the plaintext fewer, and no buffer of gpgme's
 * to wipe. The buf grows by doubling, and every block it leaves behind
 * is wiped before it is freed, as crypto_in_wipe() does at the end.
 */
static ssize_t
crypto_in_sink_write(void *arg, const void *p, size_t n)
{
	struct buf	*b = arg;
	char		*bigger;
	size_t		 cap;

	if (n > (size_t)-1 / 2 - b->len)
		return -1;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap < 4096 ? 4096 : b->cap;
		while (cap < b->len + n + 1)
			cap *= 2;
		bigger = xmalloc(cap);
		if (b->data != NULL) {
			memcpy(bigger, b->data, b->len);
			explicit_bzero(b->data, b->cap);
			free(b->data);
		}
		b->data = bigger;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return (ssize_t)n;
}

static struct gpgme_data_cbs crypto_in_sink_cbs = {
	NULL, crypto_in_sink_write, NULL, NULL
};

/*
 * A gpgme_data_t whose output is appended to b; hint is the size it is
 * likely to reach (the ciphertext's), so that it seldom grows.
 */
gpgme_error_t
crypto_in_sink(gpgme_data_t *d, struct buf *b, size_t hint)
{
	if (b->data == NULL && hint > 0 && hint < (size_t)-1 / 2) {
		b->cap = hint + 1;
		b->data = xmalloc(b->cap);
		b->len = 0;
		b->data[0] = '\0';
	}
	return gpgme_data_new_from_cbs(d, &crypto_in_sink_cbs, b);
}

/* Done with a sink whose output is not wanted: wipe what it wrote. */
void
crypto_in_sink_drop(gpgme_data_t d, struct buf *b)
{
	gpgme_data_release(d);
	if (b->data != NULL)
		explicit_bzero(b->data, b->cap);
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

/* A context, or NULL after recording a signature error for covered. */
gpgme_ctx_t
crypto_in_ctx(struct crypto_in *ci, enum crypto_in_proto proto,
    char **cause)
{
	gpgme_ctx_t	ctx;

	(void)ci;
	if ((ctx = crypto_ctx(crypto_in_gpgme_proto(proto), cause)) == NULL)
		return NULL;
	return ctx;
}
