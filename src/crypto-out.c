/*
 * crypto-out.c: outgoing protection (see crypto-out.h and doc/crypto.md,
 * "Outgoing"). It owns the layout of protected messages:
 *
 *   signed     outer header, multipart/signed { payload, signature }
 *   encrypted  outer header (Subject "..."), multipart/encrypted or
 *              application/pkcs7-mime around the encrypted payload
 *
 * where the payload is the body entity of mime_build_entity() with the
 * message's header fields copied onto it and hp="clear" or hp="cipher" on
 * its Content-Type (RFC 9788). PGP/MIME signs and encrypts in one pass
 * (RFC 3156 6.2); S/MIME encrypts a multipart/signed (RFC 8551 3.7).
 *
 * Recipient keys are the ones the encryption policy chose (policy.h: the
 * trust store's key for each address), given by fingerprint; this file
 * never looks a key up by address. Whether a key deserves trust is the
 * trust store's business, so encryption takes them as they are
 * (always-trust).
 */
#include <sys/random.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "autocrypt-header.h"
#include "crypto-out.h"
#include "crypto.h"
#include "mime-cte.h"
#include "xmalloc.h"

/* The payload: header copies, then the entity, hp on its Content-Type. */
struct crypto_out_msg {
	struct buf	 outer;		/* the header the server sees */
	struct buf	 payload;
};

static char *
crypto_out_boundary(const char *what)
{
	unsigned char	r[16];
	char		hex[33];
	size_t		i, done = 0;
	ssize_t		n;

	while (done < sizeof r) {
		n = getrandom(r + done, sizeof r - done, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			fatal("getrandom: %s", strerror(errno));
		done += n;
	}
	for (i = 0; i < sizeof r; i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	/* "=_" occurs in neither base64 nor quoted-printable output. */
	return xasprintf("=_steedmail_%s_%s", what, hex);
}

/*
 * Add `; hp="VALUE"` to the first header field of entity, which
 * mime_build_entity() always makes Content-Type.
 */
static int
crypto_out_hp(struct buf *out, const char *entity, size_t len,
    const char *value, char **cause)
{
	const char	*p = entity, *end = entity + len;

	if (len < 13 || strncasecmp(entity, "Content-Type:", 13) != 0)
		goto bad;
	for (;;) {
		p = memchr(p, '\n', end - p);
		if (p == NULL)
			goto bad;
		if (p + 1 >= end || (p[1] != ' ' && p[1] != '\t'))
			break;
		p++;
	}
	if (p == entity || p[-1] != '\r')
		goto bad;
	buf_add(out, entity, p - 1 - entity);
	buf_addf(out, "; hp=\"%s\"\r\n", value);
	buf_add(out, p + 1, end - (p + 1));
	return 0;
bad:
	*cause = xstrdup("the message body has an unexpected form");
	return -1;
}

/*
 * RFC 9788 HP-Outer: what the outer header says, one field each, so the
 * reader can tell which fields were hidden. MIME-Version is structural.
 */
static void
crypto_out_hp_outer(struct buf *out, const struct buf *outer)
{
	const char	*p = outer->data, *end = outer->data + outer->len, *e;

	while (p < end) {
		e = memchr(p, '\n', end - p);
		e = e == NULL ? end : e + 1;
		if (*p != ' ' && *p != '\t') {
			if (strncasecmp(p, "MIME-Version:", 13) == 0) {
				p = e;
				continue;
			}
			buf_adds(out, "HP-Outer: ");
		} else if (out->len > 0 && strncmp(out->data + out->len -
		    2, "\r\n", 2) != 0) {
			p = e;
			continue;
		}
		buf_add(out, p, e - p);
		p = e;
	}
}

/* Drop the last field, "MIME-Version: 1.0", from a built header. */
static void
crypto_out_strip_version(struct buf *h)
{
	static const char	v[] = "MIME-Version: 1.0\r\n";
	size_t			n = sizeof v - 1;

	if (h->len >= n && memcmp(h->data + h->len - n, v, n) == 0) {
		h->len -= n;
		h->data[h->len] = '\0';
	}
}

/*
 * Autocrypt-Gossip for every To and Cc recipient, when there are several
 * (Autocrypt Level 1, 2.7), with the key the message is encrypted to;
 * never for Bcc.
 */
static int
crypto_out_gossip(const struct mime_out *m, const struct crypto_out *co,
    struct buf *out, char **cause)
{
	const struct mime_addr	*lists[2] = { m->to, m->cc };
	size_t			 counts[2] = { m->nto, m->ncc };
	size_t			 l, i, k = 0;

	if (m->nto + m->ncc < 2)
		return 0;
	for (l = 0; l < 2; l++) {
		for (i = 0; i < counts[l]; i++, k++) {
			if (co->rcpt_fprs == NULL || co->rcpt_fprs[k] == NULL) {
				*cause = xasprintf("no key chosen for %s",
				    lists[l][i].addr);
				return -1;
			}
			if (autocrypt_header_add(out, "Autocrypt-Gossip",
			    lists[l][i].addr, 0, co->rcpt_fprs[k], cause) == -1)
				return -1;
		}
	}
	return 0;
}

static int
crypto_out_parts(const struct mime_out *m, const struct crypto_out *co,
    struct crypto_out_msg *cm, char **cause)
{
	struct mime_out	 mm = *m;
	struct buf	 inner, entity;
	char		*id = NULL;
	int		 rc = -1;

	/* Outer and inner must agree on the Message-ID and the Date. */
	if (mm.message_id == NULL)
		mm.message_id = id = mime_build_message_id(m->from.addr);
	if (mm.date == 0)
		mm.date = time(NULL);
	buf_init(&inner);
	buf_init(&entity);
	if (mime_build_headers(&mm, &inner, cause) == -1 ||
	    mime_build_entity(&mm, &entity, cause) == -1)
		goto out;
	if (co->encrypt) {
		if (m->subject != NULL && *m->subject != '\0')
			mm.subject = "...";
		mm.extra = NULL;
		if (mime_build_headers(&mm, &cm->outer, cause) == -1)
			goto out;
	} else
		buf_add(&cm->outer, inner.data, inner.len);
	crypto_out_strip_version(&inner);
	if (co->autocrypt != NULL && autocrypt_header_add(&cm->outer,
	    "Autocrypt", m->from.addr, 1, co->autocrypt, cause) == -1)
		goto out;
	if (!co->sign && !co->encrypt) {
		buf_add(&cm->payload, entity.data, entity.len);
		rc = 0;
		goto out;
	}

	buf_add(&cm->payload, inner.data, inner.len);
	if (co->encrypt) {
		crypto_out_hp_outer(&cm->payload, &cm->outer);
		if (co->proto == GPGME_PROTOCOL_OpenPGP && !co->self_only &&
		    crypto_out_gossip(m, co, &cm->payload, cause) == -1)
			goto out;
	}
	rc = crypto_out_hp(&cm->payload, entity.data, entity.len,
	    co->encrypt ? "cipher" : "clear", cause);
out:
	free(id);
	buf_free(&inner);
	buf_free(&entity);
	return rc;
}

static int
crypto_out_signer(gpgme_ctx_t ctx, const char *fpr, char **cause)
{
	gpgme_key_t	key;
	gpgme_error_t	err;

	if (fpr == NULL) {
		*cause = xstrdup("no key to sign with");
		return -1;
	}
	if ((err = crypto_key(ctx, fpr, 1, &key)) != 0) {
		*cause = crypto_error("the signing key cannot be used", err);
		return -1;
	}
	gpgme_signers_clear(ctx);
	err = gpgme_signers_add(ctx, key);
	gpgme_key_unref(key);
	if (err != 0) {
		*cause = crypto_error("the signing key cannot be used", err);
		return -1;
	}
	return 0;
}

/*
 * The data gpgme wrote, appended to out: base64 when b64 is set, else
 * armored text, whose LF line ends become CRLF.
 */
static int
crypto_out_take(gpgme_data_t d, struct buf *out, int b64, char **cause)
{
	char	*mem;
	size_t	 len, i;

	mem = gpgme_data_release_and_get_mem(d, &len);
	if (mem == NULL || len == 0) {
		gpgme_free(mem);
		*cause = xstrdup("the crypto engine produced nothing");
		return -1;
	}
	if (b64)
		mime_cte_base64_encode(out, mem, len, 76);
	else {
		for (i = 0; i < len; i++) {
			if (mem[i] == '\r')
				continue;
			if (mem[i] == '\n')
				buf_addc(out, '\r');
			buf_addc(out, mem[i]);
		}
		if (mem[len - 1] != '\n')
			buf_add(out, "\r\n", 2);
	}
	gpgme_free(mem);
	return 0;
}

/* micalg for the hash gpg or gpgsm chose (RFC 3156 5, RFC 8551 3.5.3). */
static char *
crypto_out_micalg(gpgme_protocol_t proto, gpgme_sign_result_t res,
    char **cause)
{
	const char	*name;
	char		*s, *p;

	if (res == NULL || res->signatures == NULL ||
	    res->invalid_signers != NULL ||
	    (name = gpgme_hash_algo_name(res->signatures->hash_algo))
	    == NULL) {
		*cause = xstrdup("the message could not be signed");
		return NULL;
	}
	if (proto == GPGME_PROTOCOL_OpenPGP)
		s = xasprintf("pgp-%s", name);
	else if (strncasecmp(name, "SHA", 3) == 0 && name[3] != '-')
		s = xasprintf("sha-%s", name + 3);
	else
		s = xstrdup(name);
	for (p = s; *p != '\0'; p++)
		*p = (*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p;
	return s;
}

/* multipart/signed around payload (RFC 3156 5, RFC 8551 3.5). */
static int
crypto_out_sign(gpgme_ctx_t ctx, gpgme_protocol_t proto,
    const struct buf *payload, struct buf *out, char **cause)
{
	gpgme_data_t	 plain = NULL, sig = NULL;
	gpgme_error_t	 err;
	struct buf	 sigtext;
	char		*micalg = NULL, *boundary;
	int		 cms = proto == GPGME_PROTOCOL_CMS, rc = -1;

	buf_init(&sigtext);
	gpgme_set_armor(ctx, !cms);
	if (cms)
		gpgme_set_include_certs(ctx, -1);
	if ((err = gpgme_data_new_from_mem(&plain, payload->data,
	    payload->len, 0)) != 0 || (err = gpgme_data_new(&sig)) != 0 ||
	    (err = gpgme_op_sign(ctx, plain, sig, GPGME_SIG_MODE_DETACH))
	    != 0) {
		*cause = crypto_error("the message could not be signed", err);
		goto out;
	}
	if ((micalg = crypto_out_micalg(proto, gpgme_op_sign_result(ctx),
	    cause)) == NULL)
		goto out;
	rc = crypto_out_take(sig, &sigtext, cms, cause);
	sig = NULL;
	if (rc == -1)
		goto out;

	boundary = crypto_out_boundary("signed");
	buf_addf(out, "Content-Type: multipart/signed; boundary=\"%s\";\r\n"
	    " micalg=%s; protocol=\"application/%s\"\r\n\r\n--%s\r\n",
	    boundary, micalg, cms ? "pkcs7-signature" : "pgp-signature",
	    boundary);
	buf_add(out, payload->data, payload->len);
	buf_addf(out, "\r\n--%s\r\n", boundary);
	if (cms)
		buf_adds(out, "Content-Type: application/pkcs7-signature; "
		    "name=\"smime.p7s\"\r\nContent-Transfer-Encoding: base64"
		    "\r\nContent-Disposition: attachment; "
		    "filename=\"smime.p7s\"\r\n\r\n");
	else
		buf_adds(out, "Content-Type: application/pgp-signature; "
		    "name=\"signature.asc\"\r\nContent-Description: "
		    "OpenPGP digital signature\r\nContent-Disposition: "
		    "attachment; filename=\"signature.asc\"\r\n\r\n");
	buf_add(out, sigtext.data, sigtext.len);
	buf_addf(out, "\r\n--%s--\r\n", boundary);
	free(boundary);
	rc = 0;
out:
	if (plain != NULL)
		gpgme_data_release(plain);
	if (sig != NULL)
		gpgme_data_release(sig);
	buf_free(&sigtext);
	free(micalg);
	return rc;
}

/*
 * The recipients for gpg, one fingerprint a line: To, Cc and the sender
 * first, then "--hidden" and the Bcc recipients (gpgme_op_encrypt_ext).
 * For gpgsm, the keys as an array. The keys are co->rcpt_fprs; one
 * missing or not in the home stops it all.
 */
static int
crypto_out_recipients(gpgme_ctx_t ctx, const struct mime_out *m,
    const struct crypto_out *co, struct buf *lines, gpgme_key_t **keys,
    char **cause)
{
	const struct mime_addr	*lists[3] = { m->to, m->cc, m->bcc };
	size_t			 counts[3] = { m->nto, m->ncc, m->nbcc };
	gpgme_key_t		 key;
	gpgme_error_t		 err;
	size_t			 l, i, n = 0, k = 0;

	*keys = xcalloc(m->nto + m->ncc + m->nbcc + 2, sizeof **keys);
	if ((err = crypto_key(ctx, co->signer, 0, &key)) != 0) {
		*cause = crypto_error("the sender's own key cannot be used",
		    err);
		return -1;
	}
	buf_addf(lines, "%s\n", key->subkeys->fpr);
	(*keys)[n++] = key;
	for (l = 0; l < 3 && !co->self_only; l++) {
		if (l == 2 && counts[l] > 0) {
			if (co->proto == GPGME_PROTOCOL_CMS) {
				*cause = xstrdup("S/MIME cannot hide Bcc "
				    "recipients; send them the message "
				    "separately");
				return -1;
			}
			buf_adds(lines, "--hidden\n");
		}
		for (i = 0; i < counts[l]; i++, k++) {
			if (co->rcpt_fprs == NULL || co->rcpt_fprs[k] == NULL) {
				*cause = xasprintf("no key chosen for %s",
				    lists[l][i].addr);
				return -1;
			}
			if ((err = crypto_key(ctx, co->rcpt_fprs[k], 0,
			    &key)) != 0) {
				*cause = crypto_error(lists[l][i].addr, err);
				return -1;
			}
			buf_addf(lines, "%s\n", key->subkeys->fpr);
			(*keys)[n++] = key;
		}
	}
	return 0;
}

static void
crypto_out_free_keys(gpgme_key_t *keys)
{
	size_t	i;

	if (keys == NULL)
		return;
	for (i = 0; keys[i] != NULL; i++)
		gpgme_key_unref(keys[i]);
	free(keys);
}

/* PGP/MIME multipart/encrypted, signed inside (RFC 3156 4 and 6.2). */
static int
crypto_out_encrypt_pgp(gpgme_ctx_t ctx, const struct buf *payload,
    const char *recipients, struct buf *out, char **cause)
{
	gpgme_data_t	 plain = NULL, cipher = NULL;
	gpgme_error_t	 err;
	gpgme_encrypt_result_t res;
	char		*boundary, *micalg;
	int		 rc = -1;

	gpgme_set_armor(ctx, 1);
	if ((err = gpgme_data_new_from_mem(&plain, payload->data,
	    payload->len, 0)) != 0 || (err = gpgme_data_new(&cipher)) != 0 ||
	    (err = gpgme_op_encrypt_sign_ext(ctx, NULL, recipients,
	    GPGME_ENCRYPT_ALWAYS_TRUST, plain, cipher)) != 0) {
		*cause = crypto_error("the message could not be encrypted",
		    err);
		goto out;
	}
	res = gpgme_op_encrypt_result(ctx);
	if (res != NULL && res->invalid_recipients != NULL) {
		*cause = xasprintf("the message could not be encrypted to "
		    "%s", res->invalid_recipients->fpr);
		goto out;
	}
	/* Signed inside, or not sent at all. */
	if ((micalg = crypto_out_micalg(GPGME_PROTOCOL_OpenPGP,
	    gpgme_op_sign_result(ctx), cause)) == NULL)
		goto out;
	free(micalg);
	boundary = crypto_out_boundary("encrypted");
	buf_addf(out, "Content-Type: multipart/encrypted; boundary=\"%s\";"
	    "\r\n protocol=\"application/pgp-encrypted\"\r\n\r\n"
	    "--%s\r\nContent-Type: application/pgp-encrypted\r\n"
	    "Content-Description: PGP/MIME version identification\r\n\r\n"
	    "Version: 1\r\n\r\n--%s\r\n"
	    "Content-Type: application/octet-stream; name=\"encrypted.asc\""
	    "\r\nContent-Description: OpenPGP encrypted message\r\n"
	    "Content-Disposition: inline; filename=\"encrypted.asc\"\r\n\r\n",
	    boundary, boundary, boundary);
	rc = crypto_out_take(cipher, out, 0, cause);
	cipher = NULL;
	buf_addf(out, "\r\n--%s--\r\n", boundary);
	free(boundary);
out:
	if (plain != NULL)
		gpgme_data_release(plain);
	if (cipher != NULL)
		gpgme_data_release(cipher);
	return rc;
}

/* S/MIME enveloped-data around a multipart/signed (RFC 8551 3.3, 3.7). */
static int
crypto_out_encrypt_cms(gpgme_ctx_t ctx, const struct buf *payload,
    gpgme_key_t *keys, struct buf *out, char **cause)
{
	gpgme_data_t	 plain = NULL, cipher = NULL;
	gpgme_error_t	 err;
	gpgme_encrypt_result_t res;
	struct buf	 signed_ent;
	int		 rc = -1;

	buf_init(&signed_ent);
	if (crypto_out_sign(ctx, GPGME_PROTOCOL_CMS, payload, &signed_ent,
	    cause) == -1)
		goto out;
	gpgme_set_armor(ctx, 0);
	if ((err = gpgme_data_new_from_mem(&plain, signed_ent.data,
	    signed_ent.len, 0)) != 0 || (err = gpgme_data_new(&cipher))
	    != 0 || (err = gpgme_op_encrypt(ctx, keys,
	    GPGME_ENCRYPT_ALWAYS_TRUST, plain, cipher)) != 0) {
		*cause = crypto_error("the message could not be encrypted",
		    err);
		goto out;
	}
	res = gpgme_op_encrypt_result(ctx);
	if (res != NULL && res->invalid_recipients != NULL) {
		*cause = xasprintf("the message could not be encrypted to "
		    "%s", res->invalid_recipients->fpr);
		goto out;
	}
	buf_adds(out, "Content-Type: application/pkcs7-mime; "
	    "smime-type=enveloped-data;\r\n name=\"smime.p7m\"\r\n"
	    "Content-Transfer-Encoding: base64\r\n"
	    "Content-Disposition: attachment; filename=\"smime.p7m\"\r\n\r\n");
	rc = crypto_out_take(cipher, out, 1, cause);
	cipher = NULL;
out:
	if (plain != NULL)
		gpgme_data_release(plain);
	if (cipher != NULL)
		gpgme_data_release(cipher);
	buf_free(&signed_ent);
	return rc;
}

int
crypto_out_build(const struct mime_out *m, const struct crypto_out *co,
    struct buf *out, char **cause)
{
	struct crypto_out_msg	 cm;
	struct buf		 body, rcpts;
	gpgme_ctx_t		 ctx;
	gpgme_key_t		*keys = NULL;
	int			 rc = -1;

	if ((ctx = crypto_ctx(co->proto, cause)) == NULL)
		return -1;
	memset(&cm, 0, sizeof cm);
	buf_init(&cm.outer);
	buf_init(&cm.payload);
	buf_init(&body);
	buf_init(&rcpts);
	if (crypto_out_parts(m, co, &cm, cause) == -1)
		goto out;
	if (!co->sign && !co->encrypt)
		buf_add(&body, cm.payload.data, cm.payload.len);
	else if (crypto_out_signer(ctx, co->signer, cause) == -1)
		goto out;
	else if (!co->encrypt) {
		if (crypto_out_sign(ctx, co->proto, &cm.payload, &body,
		    cause) == -1)
			goto out;
	} else {
		if (crypto_out_recipients(ctx, m, co, &rcpts, &keys,
		    cause) == -1)
			goto out;
		if (co->proto == GPGME_PROTOCOL_OpenPGP)
			rc = crypto_out_encrypt_pgp(ctx, &cm.payload,
			    rcpts.data, &body, cause);
		else
			rc = crypto_out_encrypt_cms(ctx, &cm.payload, keys,
			    &body, cause);
		if (rc == -1)
			goto out;
	}
	buf_add(out, cm.outer.data, cm.outer.len);
	buf_add(out, body.data, body.len);
	rc = 0;
out:
	crypto_out_free_keys(keys);
	crypto_release(ctx);
	buf_free(&cm.outer);
	buf_free(&cm.payload);
	buf_free(&body);
	buf_free(&rcpts);
	return rc;
}
