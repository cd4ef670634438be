/*
 * crypto-in-decrypt.c: encrypted parts (PGP/MIME, S/MIME enveloped data)
 * opened at the top of a message only, with nothing kept from a
 * decryption that failed (EFAIL) and OpenPGP without MDC refused. Called
 * by crypto-in.c's walk. It never logs plaintext.
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

/* Has the key of any recipient been found? */
static int
crypto_in_have_seckey(gpgme_decrypt_result_t dr)
{
	gpgme_recipient_t	r;

	if (dr == NULL)
		return 0;
	for (r = dr->recipients; r != NULL; r = r->next) {
		if (gpgme_err_code(r->status) != GPG_ERR_NO_SECKEY)
			return 1;
	}
	return 0;
}

/*
 * OpenPGP data without MDC or AEAD: gpgme flags legacy ciphers, and names
 * the mode of any cipher "PGPCFB" when neither protection was there.
 */
static int
crypto_in_nomdc(gpgme_decrypt_result_t dr)
{
	size_t	n;

	if (dr == NULL)
		return 0;
	if (dr->legacy_cipher_nomdc)
		return 1;
	if (dr->symkey_algo == NULL || (n = strlen(dr->symkey_algo)) < 7)
		return 0;
	return strcmp(dr->symkey_algo + n - 7, ".PGPCFB") == 0;
}

/*
 * Decrypt the len bytes at data for part host (at the top), verifying any
 * signature made with the encryption. On success the plaintext is in
 * *plain and 0 is returned; on any failure nothing is kept.
 */
int
crypto_in_decrypt(struct crypto_in *ci, const struct mime_part *host,
    enum crypto_in_proto proto, const char *data, size_t len,
    struct buf *plain)
{
	gpgme_ctx_t		 ctx;
	gpgme_data_t		 in = NULL, out = NULL;
	gpgme_decrypt_result_t	 dr;
	gpgme_error_t		 err;
	enum crypto_in_integrity integ;
	const char		*label = crypto_in_proto_label(proto);
	char			*cause = NULL, *why;

	if ((ctx = crypto_in_ctx(ci, proto, &cause)) == NULL) {
		crypto_in_status(ci, host, "encrypted (%s), not decrypted: %s",
		    label, cause);
		crypto_in_top(ci, proto, CRYPTO_IN_INTEGRITY_UNKNOWN, cause);
		free(cause);
		return -1;
	}
	if ((err = gpgme_data_new_from_mem(&in, data, len, 0)) != 0 ||
	    (err = crypto_in_sink(&out, plain, len)) != 0) {
		why = crypto_error("gpgme", err);
		crypto_in_status(ci, host, "encrypted (%s), not decrypted: %s",
		    label, why);
		crypto_in_top(ci, proto, CRYPTO_IN_INTEGRITY_UNKNOWN, why);
		free(why);
		goto fail;
	}
	err = gpgme_op_decrypt_verify(ctx, in, out);
	dr = gpgme_op_decrypt_result(ctx);
	if (proto == CRYPTO_IN_OPENPGP && crypto_in_nomdc(dr)) {
		crypto_in_status(ci, host, "encrypted (%s), NOT SHOWN: it has "
		    "no integrity protection, so it may have been changed "
		    "on the way", label);
		crypto_in_top(ci, proto, CRYPTO_IN_INTEGRITY_NONE,
		    "no integrity protection");
		goto fail;
	}
	if (err != 0) {
		if (gpgme_err_code(err) == GPG_ERR_NO_SECKEY ||
		    !crypto_in_have_seckey(dr)) {
			integ = CRYPTO_IN_INTEGRITY_UNKNOWN;
			why = xstrdup("no secret key for it");
		} else if (gpgme_err_code(err) == GPG_ERR_BAD_DATA ||
		    gpgme_err_code(err) == GPG_ERR_DECRYPT_FAILED ||
		    gpgme_err_code(err) == GPG_ERR_CHECKSUM) {
			integ = CRYPTO_IN_INTEGRITY_FAILED;
			why = xasprintf("the integrity check failed or the "
			    "ciphertext is damaged (%s)", gpgme_strerror(err));
		} else {
			integ = CRYPTO_IN_INTEGRITY_UNKNOWN;
			why = xstrdup(gpgme_strerror(err));
		}
		crypto_in_status(ci, host, "encrypted (%s), NOT SHOWN: %s",
		    label, why);
		crypto_in_top(ci, proto, integ, why);
		free(why);
		goto fail;
	}
	gpgme_data_release(out);
	out = NULL;
	gpgme_data_release(in);
	integ = proto == CRYPTO_IN_SMIME ? CRYPTO_IN_INTEGRITY_NONE :
	    CRYPTO_IN_INTEGRITY_OK;
	if (proto == CRYPTO_IN_OPENPGP) {
		crypto_in_status(ci, host, "encrypted (%s) and decrypted, "
		    "integrity protected", label);
		crypto_in_top(ci, proto, integ, NULL);
	}
	crypto_in_sigs(ci, ctx, proto, host, 0);
	crypto_release(ctx);
	log_msg(LOG_INFO, "crypto-in: decrypted %zu bytes (%s)", plain->len,
	    label);
	return 0;

fail:
	if (out != NULL)
		crypto_in_sink_drop(out, plain);
	if (in != NULL)
		gpgme_data_release(in);
	crypto_release(ctx);
	return -1;
}

/* multipart/encrypted (RFC 3156 section 4). */
void
crypto_in_pgpmime(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct mime_part	*ver, *data;
	struct buf		 cipher, plain;
	struct mime_msg		*m;
	const char		*in;
	size_t			 inlen;
	char			*proto;

	proto = mime_part_param(p, "protocol");
	if (proto == NULL || strcasecmp(proto, "application/pgp-encrypted")) {
		crypto_in_status(ci, p, "encrypted with an unknown protocol: "
		    "not opened");
		free(proto);
		return;
	}
	free(proto);
	if (!top) {
		crypto_in_status(ci, p, "encrypted part not opened: not at "
		    "the top of the message");
		crypto_in_warn(ci, "an encrypted part below the top of the "
		    "message was not opened");
		return;
	}
	ver = TAILQ_FIRST(&p->children);
	data = ver != NULL ? TAILQ_NEXT(ver, entry) : NULL;
	if (data == NULL || !mime_part_is(ver, "application",
	    "pgp-encrypted") || !mime_part_is(data, "application",
	    "octet-stream")) {
		crypto_in_status(ci, p, "encrypted (OpenPGP), not decrypted: "
		    "its parts are not as RFC 3156 has them");
		crypto_in_top(ci, CRYPTO_IN_OPENPGP,
		    CRYPTO_IN_INTEGRITY_UNKNOWN, "malformed PGP/MIME");
		return;
	}
	buf_init(&cipher);
	buf_init(&plain);
	/* Armored data is mostly 7bit: gpg reads it where it is. */
	if (data->cte != MIME_CTE_BASE64 && data->cte != MIME_CTE_QP) {
		in = data->body != NULL ? data->body : "";
		inlen = data->bodylen;
	} else {
		mime_body_decode(data, &cipher);
		in = cipher.data;
		inlen = cipher.len;
	}
	if (crypto_in_decrypt(ci, p, CRYPTO_IN_OPENPGP, in, inlen,
	    &plain) == 0 && (m = crypto_in_keep(ci, p, &plain, 1)) != NULL)
		crypto_in_walk(ci, m->root, 1, depth + 1);
	crypto_in_wipe(&plain);
	buf_free(&cipher);
}

/* application/pkcs7-mime: enveloped or signed data (RFC 8551 3.2). */
void
crypto_in_pkcs7(struct crypto_in *ci, struct mime_part *p, int top,
    int depth)
{
	struct buf		 der, plain;
	struct mime_msg		*m;
	gpgme_ctx_t		 ctx;
	gpgme_data_t		 in = NULL, out = NULL;
	gpgme_error_t		 err;
	char			*type, *cause = NULL;
	struct crypto_in_part	*e;
	size_t			 nsigs = ci->nsigs, nparts = ci->nparts;
	size_t			 nwarn = ci->nwarnings;
	enum crypto_in_proto	 enc = ci->encryption;
	enum crypto_in_integrity integ = ci->integrity;
	int			 decrypted = ci->decrypted;
	int			 opaque;

	type = mime_part_param(p, "smime-type");
	opaque = type != NULL && strcasecmp(type, "signed-data") == 0;
	if (type != NULL && !opaque && strcasecmp(type, "enveloped-data")) {
		crypto_in_status(ci, p, "S/MIME content of type %s: not "
		    "opened", type);
		free(type);
		return;
	}
	free(type);
	buf_init(&der);
	buf_init(&plain);
	mime_body_decode(p, &der);
	if (opaque) {
		if ((ctx = crypto_in_ctx(ci, CRYPTO_IN_SMIME, &cause)) ==
		    NULL) {
			crypto_in_sig_error(ci, CRYPTO_IN_SMIME, p, cause);
			goto done;
		}
		if ((err = gpgme_data_new_from_mem(&in, der.data != NULL ?
		    der.data : "", der.len, 0)) != 0 ||
		    (err = crypto_in_sink(&out, &plain, der.len)) != 0 ||
		    (err = gpgme_op_verify(ctx, in, NULL, out)) != 0) {
			crypto_in_sig_error(ci, CRYPTO_IN_SMIME, p,
			    crypto_error("cannot check the signature", err));
			if (out != NULL)
				crypto_in_sink_drop(out, &plain);
		} else {
			crypto_in_sigs(ci, ctx, CRYPTO_IN_SMIME, p, 1);
			gpgme_data_release(out);
			if ((m = crypto_in_keep(ci, p, &plain, 0)) != NULL)
				crypto_in_walk(ci, m->root, top, depth + 1);
		}
		if (in != NULL)
			gpgme_data_release(in);
		crypto_release(ctx);
		goto done;
	}
	if (!top) {
		crypto_in_status(ci, p, "encrypted part not opened: not at "
		    "the top of the message");
		crypto_in_warn(ci, "an encrypted part below the top of the "
		    "message was not opened");
		goto done;
	}
	if (crypto_in_decrypt(ci, p, CRYPTO_IN_SMIME, der.data != NULL ?
	    der.data : "", der.len, &plain) == -1 ||
	    (m = crypto_in_keep(ci, p, &plain, 1)) == NULL)
		goto done;
	crypto_in_walk(ci, m->root, 1, depth + 1);
	if (!crypto_in_fully_signed(ci, p)) {
		/*
		 * S/MIME enveloped data alone can be changed unnoticed, and
		 * anyone can make it. Its content is walked again as if it
		 * were not at the top, so no ciphertext inside is opened,
		 * and it is marked: the view says so above each part, and
		 * nothing in it counts as protected (no protected headers,
		 * no gossip).
		 */
		m = crypto_in_unkeep(ci, p);
		crypto_in_forget(ci, nsigs, nparts);
		while (ci->nwarnings > nwarn)
			free(ci->warnings[--ci->nwarnings]);
		/* Nor does what the first walk decrypted inside it count. */
		ci->encryption = enc;
		ci->integrity = integ;
		ci->decrypted = decrypted;
		if (enc == CRYPTO_IN_NONE) {
			free(ci->not_decrypted);
			ci->not_decrypted = NULL;
		}
		crypto_in_keep_msg(ci, p, m, 1);
		e = crypto_in_find(ci, p);
		e->no_integrity = 1;
		crypto_in_status(ci, p, "encrypted (S/MIME) and decrypted, "
		    "WITHOUT INTEGRITY PROTECTION: no signature covers it, so "
		    "it may have been altered on the way; only its text is "
		    "shown");
		crypto_in_top(ci, CRYPTO_IN_SMIME, CRYPTO_IN_INTEGRITY_NONE,
		    NULL);
		crypto_in_walk(ci, m->root, 0, depth + 1);
		goto done;
	}
	crypto_in_status(ci, p, "encrypted (S/MIME) and decrypted, integrity "
	    "protected by the signature inside");
	crypto_in_top(ci, CRYPTO_IN_SMIME, CRYPTO_IN_INTEGRITY_OK, NULL);
done:
	crypto_in_wipe(&plain);
	crypto_in_wipe(&der);
}
