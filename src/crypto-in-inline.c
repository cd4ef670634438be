/*
 * crypto-in-inline.c: armored OpenPGP blocks (encrypted or clear-signed)
 * in a text/plain part, whose content is then shown as a text part of its
 * own. Called by crypto-in.c's walk. Text outside the block is never
 * shown as if it were inside it.
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

/* Offset of the line starting with mark at or after from, or len. */
static size_t
crypto_in_line(const char *s, size_t len, size_t from, const char *mark)
{
	size_t		 n = strlen(mark);
	const char	*q;

	while (from < len) {
		if (len - from >= n && memcmp(s + from, mark, n) == 0)
			return from;
		if ((q = memchr(s + from, '\n', len - from)) == NULL)
			break;
		from = q - s + 1;
	}
	return len;
}

static int
crypto_in_blank(const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		if (strchr(" \t\r\n", s[i]) == NULL)
			return 0;
	}
	return 1;
}

/* Keep inline plaintext as a text/plain part in the part's charset. */
static struct mime_msg *
crypto_in_keep_text(struct crypto_in *ci, struct mime_part *p,
    struct buf *text, int decrypted)
{
	struct buf	 b;
	struct mime_msg	*m;
	const char	*cs = p->charset;

	if (cs == NULL || *cs == '\0' || strlen(cs) > 40 ||
	    cs[strspn(cs, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")] != '\0')
		cs = "utf-8";
	buf_init(&b);
	buf_addf(&b, "Content-Type: text/plain; charset=\"%s\"\r\n"
	    "Content-Transfer-Encoding: 8bit\r\n\r\n", cs);
	buf_add(&b, text->data != NULL ? text->data : "", text->len);
	m = crypto_in_keep(ci, p, &b, decrypted);
	crypto_in_wipe(&b);
	return m;
}

/* A text/plain part holding an armored OpenPGP block. */
void
crypto_in_inline(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct buf	 body, plain;
	size_t		 b, e, end;
	int		 enc;
	gpgme_ctx_t	 ctx;
	gpgme_data_t	 in = NULL, out = NULL;
	gpgme_error_t	 err;
	char		*cause = NULL;
	const char	*endmark;

	buf_init(&body);
	buf_init(&plain);
	mime_body_decode(p, &body);
	if (body.len == 0)
		goto done;
	if ((b = crypto_in_line(body.data, body.len, 0,
	    "-----BEGIN PGP MESSAGE-----")) < body.len) {
		enc = 1;
		endmark = "-----END PGP MESSAGE-----";
	} else if ((b = crypto_in_line(body.data, body.len, 0,
	    "-----BEGIN PGP SIGNED MESSAGE-----")) < body.len) {
		enc = 0;
		endmark = "-----END PGP SIGNATURE-----";
	} else
		goto done;
	if ((e = crypto_in_line(body.data, body.len, b, endmark)) ==
	    body.len) {
		crypto_in_status(ci, p, "holds the start of an OpenPGP block "
		    "but not its end: not opened");
		goto done;
	}
	end = e + strlen(endmark);
	while (end < body.len && body.data[end] != '\n')
		end++;
	if (!crypto_in_blank(body.data, b) ||
	    !crypto_in_blank(body.data + end, body.len - end))
		crypto_in_warn(ci, "part %s has text outside its OpenPGP "
		    "block; only the block is shown", *p->section ?
		    p->section : "1");
	if (enc) {
		if (!top) {
			crypto_in_status(ci, p, "encrypted part not opened: "
			    "not at the top of the message");
			crypto_in_warn(ci, "an encrypted part below the top "
			    "of the message was not opened");
			goto done;
		}
		if (crypto_in_decrypt(ci, p, CRYPTO_IN_OPENPGP,
		    body.data + b, end - b, &plain) == 0)
			crypto_in_keep_text(ci, p, &plain, 1);
		goto done;
	}
	if ((ctx = crypto_in_ctx(ci, CRYPTO_IN_OPENPGP, &cause)) == NULL) {
		crypto_in_sig_error(ci, CRYPTO_IN_OPENPGP, p, cause);
		goto done;
	}
	if ((err = gpgme_data_new_from_mem(&in, body.data + b, end - b,
	    0)) != 0 || (err = crypto_in_sink(&out, &plain, end - b)) != 0 ||
	    (err = gpgme_op_verify(ctx, in, NULL, out)) != 0) {
		crypto_in_sig_error(ci, CRYPTO_IN_OPENPGP, p,
		    crypto_error("cannot check the signature", err));
		if (out != NULL)
			crypto_in_sink_drop(out, &plain);
	} else {
		crypto_in_sigs(ci, ctx, CRYPTO_IN_OPENPGP, p, 1);
		gpgme_data_release(out);
		crypto_in_keep_text(ci, p, &plain, 0);
	}
	if (in != NULL)
		gpgme_data_release(in);
	crypto_release(ctx);
done:
	(void)depth;
	crypto_in_wipe(&plain);
	crypto_in_wipe(&body);
}
