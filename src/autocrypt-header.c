/*
 * autocrypt-header.c: writes Autocrypt and Autocrypt-Gossip header fields
 * (Autocrypt Level 1, section 2.1 and 2.7) for the outgoing side. The key
 * is exported through crypto_ctx(); the formatting is separate so the
 * unit test can check the folding without a GnuPG home. Never prints.
 */
#include <stdlib.h>
#include <string.h>

#include "autocrypt-header.h"
#include "crypto.h"
#include "mime-cte.h"
#include "xmalloc.h"

void
autocrypt_header_format(struct buf *out, const char *name, const char *addr,
    int mutual, const void *key, size_t len)
{
	struct buf	 b64;
	size_t		 off, n;

	buf_addf(out, "%s: addr=%s; %skeydata=\r\n", name, addr,
	    mutual ? "prefer-encrypt=mutual; " : "");
	buf_init(&b64);
	mime_cte_base64_encode(&b64, key, len, 0);
	for (off = 0; off < b64.len; off += n) {
		n = b64.len - off;
		if (n > AUTOCRYPT_HEADER_LINE)
			n = AUTOCRYPT_HEADER_LINE;
		buf_addc(out, ' ');
		buf_add(out, b64.data + off, n);
		buf_add(out, "\r\n", 2);
	}
	buf_free(&b64);
}

int
autocrypt_header_keydata(const char *fpr, struct buf *out, char **cause)
{
	gpgme_ctx_t	 ctx;
	gpgme_data_t	 d;
	gpgme_error_t	 err;
	char		*mem;
	size_t		 len;

	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return -1;
	if ((err = gpgme_data_new(&d)) != 0) {
		*cause = crypto_error("cannot export the key", err);
		crypto_release(ctx);
		return -1;
	}
	err = gpgme_op_export(ctx, fpr, GPGME_EXPORT_MODE_MINIMAL, d);
	crypto_release(ctx);
	mem = gpgme_data_release_and_get_mem(d, &len);
	if (err != 0 || mem == NULL || len == 0) {
		*cause = err != 0 ? crypto_error("cannot export the key", err) :
		    xasprintf("cannot export the key %s: not found", fpr);
		gpgme_free(mem);
		return -1;
	}
	buf_add(out, mem, len);
	gpgme_free(mem);
	return 0;
}

int
autocrypt_header_add(struct buf *out, const char *name, const char *addr,
    int mutual, const char *fpr, char **cause)
{
	struct buf	key;

	buf_init(&key);
	if (autocrypt_header_keydata(fpr, &key, cause) == -1) {
		buf_free(&key);
		return -1;
	}
	autocrypt_header_format(out, name, addr, mutual, key.data, key.len);
	buf_free(&key);
	return 0;
}
