/*
 * crypto-in-gpg.c: the gpgme glue of crypto-in: contexts for a protocol,
 * line ends made CRLF for checking, and moving gpgme's output into
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

/* Move gpgme's output into a buf, wiping gpgme's copy. */
void
crypto_in_take(gpgme_data_t d, struct buf *out)
{
	char	*mem;
	size_t	 n = 0;

	mem = gpgme_data_release_and_get_mem(d, &n);
	if (mem == NULL)
		return;
	buf_add(out, mem, n);
	explicit_bzero(mem, n);
	gpgme_free(mem);
}

void
crypto_in_drop(gpgme_data_t d)
{
	char	*mem;
	size_t	 n = 0;

	if ((mem = gpgme_data_release_and_get_mem(d, &n)) != NULL) {
		explicit_bzero(mem, n);
		gpgme_free(mem);
	}
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
