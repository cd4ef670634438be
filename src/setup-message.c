/*
 * setup-message.c: the Autocrypt Setup Message (Autocrypt Level 1, section
 * "Autocrypt Setup Message"; setup-message.h): made from the account's
 * secret key and a new setup code, found in the INBOX, checked, and
 * imported into steedmail's GnuPG home with the code the user typed.
 *
 * The code is the passphrase of a symmetric OpenPGP encryption (AES-128,
 * as Level 1 asks). Decrypting, gpg gets it through the loopback pinentry
 * and a passphrase callback, with gpg-agent's passphrase cache for
 * symmetric keys off ("no-symkey-cache"): a code typed once is never
 * remembered, so a wrong code later fails however recently the right one
 * was used. What
 * is imported is only what that code decrypted, integrity-protected (an
 * MDC or AEAD), without any public-key encrypted session key beside it,
 * and only a secret key with a user ID of the account's address.
 *
 * The message's form (codes, the armor, the sender) is checked by
 * setup-message-form.c before gpg sees it. Callers: ui/cli-device.c
 * (--export-setup, --import-setup, --export-secret-key), the setup
 * wizard. It never prints, never keeps a code: codes and decrypted keys
 * are wiped when done with.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr-list.h"
#include "crypto.h"
#include "mime-build.h"
#include "mime-header.h"
#include "ownkey.h"
#include "session.h"
#include "setup-message.h"
#include "xmalloc.h"

#define SETUP_MESSAGE_FILE	"autocrypt-setup-message.html"
#define SETUP_MESSAGE_KEY_BEGIN	"-----BEGIN PGP PRIVATE KEY BLOCK-----"

/* What the passphrase callback gives gpg, and how often it was asked. */
struct setup_message_pass {
	const char	*code;
	int		 asked;
};

static const char setup_message_text[] =
    "This message holds your secret key, encrypted with a setup code of\n"
    "nine groups of four digits that was shown once on the device that\n"
    "made it (Autocrypt Setup Message, Autocrypt Level 1).\n"
    "\n"
    "To use the key on another device, run there\n"
    "\n"
    "    steedmail --import-setup\n"
    "\n"
    "and type the setup code; other Autocrypt mail programs import it too.\n"
    "Without the code the attachment is of no use to anybody.\n";

/* gpg asks for the passphrase: the code, once; asked again, it was bad. */
static gpgme_error_t
setup_message_passphrase(void *arg, const char *hint, const char *info,
    int prev_bad, int fd)
{
	struct setup_message_pass	*p = arg;

	(void)hint;
	(void)info;
	if (prev_bad || p->asked++ > 0)
		return gpg_error(GPG_ERR_BAD_PASSPHRASE);
	if (gpgme_io_writen(fd, p->code, strlen(p->code)) != 0 ||
	    gpgme_io_writen(fd, "\n", 1) != 0)
		return gpg_error(GPG_ERR_CANCELED);
	return 0;
}

/* A context that takes the code from p and never from gpg-agent's cache. */
static gpgme_ctx_t
setup_message_ctx(struct setup_message_pass *p, char **cause)
{
	gpgme_ctx_t	g;
	gpgme_error_t	err;

	if ((g = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return NULL;
	gpgme_set_armor(g, 1);
	if ((err = gpgme_set_pinentry_mode(g,
	    GPGME_PINENTRY_MODE_LOOPBACK)) != 0 ||
	    (err = gpgme_set_ctx_flag(g, "no-symkey-cache", "1")) != 0) {
		*cause = crypto_error("gpg cannot take the setup code", err);
		crypto_release(g);
		return NULL;
	}
	gpgme_set_passphrase_cb(g, setup_message_passphrase, p);
	return g;
}

/* Wipe what b holds (a key, a code). */
static void
setup_message_wipe(struct buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->len);
}

/* What gpgme wrote into d, appended to out, and d released (wiped). */
static void
setup_message_take(gpgme_data_t d, struct buf *out)
{
	char	*mem;
	size_t	 len;

	if ((mem = gpgme_data_release_and_get_mem(d, &len)) == NULL)
		return;
	buf_add(out, mem, len);
	explicit_bzero(mem, len);
	gpgme_free(mem);
}

/* Add lines (each ending in \n) after the first line of armor. */
static int
setup_message_headers(struct buf *out, const struct buf *armor,
    const char *first, const char *lines, char **cause)
{
	const char	*nl;
	size_t		 n = strlen(first);

	if (armor->len <= n || memcmp(armor->data, first, n) != 0 ||
	    (nl = memchr(armor->data, '\n', armor->len)) == NULL) {
		*cause = xasprintf("gpg wrote no \"%s\" line", first);
		return -1;
	}
	n = nl + 1 - armor->data;
	buf_add(out, armor->data, n);
	buf_adds(out, lines);
	buf_add(out, armor->data + n, armor->len - n);
	return 0;
}

int
setup_message_secret(const char *fpr, struct buf *out, char **cause)
{
	gpgme_ctx_t	 g;
	gpgme_data_t	 d;
	gpgme_error_t	 err;
	struct buf	 key;
	int		 rc;

	if ((g = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return -1;
	gpgme_set_armor(g, 1);
	if ((err = gpgme_data_new(&d)) != 0) {
		*cause = crypto_error("cannot export the secret key", err);
		crypto_release(g);
		return -1;
	}
	err = gpgme_op_export(g, fpr, GPGME_EXPORT_MODE_SECRET, d);
	crypto_release(g);
	buf_init(&key);
	setup_message_take(d, &key);
	if (err != 0 || key.len == 0) {
		*cause = err != 0 ? crypto_error("cannot export the secret key",
		    err) : xasprintf("cannot export the secret key %s: gpg "
		    "gave nothing (has it a passphrase nobody typed?)", fpr);
		rc = -1;
	} else
		rc = setup_message_headers(out, &key, SETUP_MESSAGE_KEY_BEGIN,
		    "Autocrypt-Prefer-Encrypt: mutual\n", cause);
	setup_message_wipe(&key);
	buf_free(&key);
	return rc;
}

/*
 * Decrypt the armored data with the code: only symmetrically, only with
 * this code, only integrity-protected. The plaintext is appended to out.
 */
static int
setup_message_decrypt(const char *armor, size_t len, const char *code,
    struct buf *out, char **algo, char **cause)
{
	struct setup_message_pass	 p = { code, 0 };
	gpgme_decrypt_result_t		 res;
	gpgme_ctx_t			 g;
	gpgme_data_t			 in, plain;
	gpgme_error_t			 err;
	struct buf			 got;
	int				 rc = -1;

	if ((g = setup_message_ctx(&p, cause)) == NULL)
		return -1;
	if (gpgme_data_new_from_mem(&in, armor, len, 0) != 0) {
		crypto_release(g);
		*cause = xstrdup("out of memory");
		return -1;
	}
	if (gpgme_data_new(&plain) != 0) {
		gpgme_data_release(in);
		crypto_release(g);
		*cause = xstrdup("out of memory");
		return -1;
	}
	err = gpgme_op_decrypt(g, in, plain);
	res = gpgme_op_decrypt_result(g);
	if (err != 0) {
		if (gpg_err_code(err) == GPG_ERR_BAD_PASSPHRASE ||
		    gpg_err_code(err) == GPG_ERR_DECRYPT_FAILED ||
		    gpg_err_code(err) == GPG_ERR_BAD_KEY)
			*cause = xstrdup("the setup code does not open this "
			    "message (or it was changed on the way)");
		else if (gpg_err_code(err) == GPG_ERR_NO_DATA ||
		    gpg_err_code(err) == GPG_ERR_BAD_DATA ||
		    gpg_err_code(err) == GPG_ERR_CHECKSUM ||
		    gpg_err_code(err) == GPG_ERR_INV_PACKET)
			*cause = crypto_error("the setup message is damaged "
			    "(changed on the way?)", err);
		else
			*cause = crypto_error("cannot decrypt the setup "
			    "message", err);
	} else if (res == NULL || p.asked != 1)
		*cause = xstrdup("the setup message was not decrypted with "
		    "the setup code");
	else if (res->recipients != NULL)
		*cause = xstrdup("the setup message is also encrypted to a "
		    "key: refused, only the setup code may open it");
	else if (res->legacy_cipher_nomdc || res->symkey_algo == NULL)
		*cause = xstrdup("the setup message has no integrity "
		    "protection: refused");
	else if (res->unsupported_algorithm != NULL)
		*cause = xasprintf("the setup message uses %s, which gpg "
		    "cannot decrypt", res->unsupported_algorithm);
	else {
		if (algo != NULL)
			*algo = xstrdup(res->symkey_algo);
		rc = 0;
	}
	crypto_release(g);
	gpgme_data_release(in);
	/* What a refused decryption gave is wiped, not returned. */
	buf_init(&got);
	setup_message_take(plain, &got);
	if (rc == 0 && got.len > 0)
		buf_add(out, got.data, got.len);
	setup_message_wipe(&got);
	buf_free(&got);
	return rc;
}

/* The gpg program gpgme runs. */
static const char *
setup_message_gpg(void)
{
	gpgme_engine_info_t	e;

	if (gpgme_get_engine_info(&e) != 0)
		return NULL;
	for (; e != NULL; e = e->next) {
		if (e->protocol == GPGME_PROTOCOL_OpenPGP)
			return e->file_name;
	}
	return NULL;
}

/*
 * Encrypt plain with the code; the armor (without our headers) to out.
 * gpgme cannot choose the cipher of a symmetric encryption, and gpg's
 * default for it is AES-256, so gpg is run through gpgme's spawn engine
 * with --cipher-algo AES128: the code on the first line of its standard
 * input (--passphrase-fd 0), the key after it; neither touches a file,
 * an argument or gpg-agent.
 */
static int
setup_message_encrypt(const struct buf *plain, const char *code,
    struct buf *out, char **cause)
{
	const char	*argv[] = { "gpg", "--homedir", crypto_home(), "--batch",
			    "--no-tty", "--pinentry-mode", "loopback",
			    "--passphrase-fd", "0", "--no-symkey-cache",
			    "--no-encrypt-to", "--cipher-algo", "AES128",
			    "--armor", "--symmetric", NULL };
	const char	*gpg;
	gpgme_ctx_t	 g;
	gpgme_data_t	 in, enc, err_out;
	gpgme_error_t	 err;
	struct buf	 input, why;

	if ((gpg = setup_message_gpg()) == NULL) {
		*cause = xstrdup("gpg cannot be found");
		return -1;
	}
	if ((g = crypto_ctx(GPGME_PROTOCOL_SPAWN, cause)) == NULL)
		return -1;
	buf_init(&input);
	buf_adds(&input, code);
	buf_addc(&input, '\n');
	buf_add(&input, plain->data, plain->len);
	if (gpgme_data_new_from_mem(&in, input.data, input.len, 0) != 0 ||
	    gpgme_data_new(&enc) != 0 || gpgme_data_new(&err_out) != 0)
		fatal("gpgme: out of memory");
	err = gpgme_op_spawn(g, gpg, argv, in, enc, err_out, 0);
	crypto_release(g);
	gpgme_data_release(in);
	setup_message_wipe(&input);
	buf_free(&input);
	setup_message_take(enc, out);
	buf_init(&why);
	setup_message_take(err_out, &why);
	if (err != 0 || out->len == 0) {
		while (why.len > 0 && (why.data[why.len - 1] == '\n' ||
		    why.data[why.len - 1] == '\r'))
			why.len--;
		buf_addc(&why, '\0');
		*cause = err != 0 ? crypto_error("cannot run gpg", err) :
		    xasprintf("cannot encrypt the key: %.200s", why.len > 1 ?
		    why.data : "gpg wrote nothing");
		buf_free(&why);
		return -1;
	}
	buf_free(&why);
	return 0;
}

int
setup_message_make(const struct account *a, char code[SETUP_CODE_SIZE],
    struct buf *msg, char **cause)
{
	struct mime_out		 mo;
	struct mime_addr	 to;
	struct mime_blob	 att;
	struct buf		 key, enc, check, html;
	struct ownkey		 k;
	char			 lines[96], begin[3], *algo = NULL;
	int			 rc = -1, have;

	if ((have = ownkey_openpgp(a, 0, &k, cause)) != 0) {
		if (have == 1)
			*cause = xasprintf("%s has no OpenPGP key",
			    a->address);
		return -1;
	}
	buf_init(&key);
	buf_init(&enc);
	buf_init(&check);
	buf_init(&html);
	if (setup_message_code(code, cause) == -1)
		goto out;
	if (setup_message_secret(k.fpr, &key, cause) == -1)
		goto out;
	if (setup_message_encrypt(&key, code, &enc, cause) == -1)
		goto out;
	/* The code given must be the one used: it opens what was made. */
	if (setup_message_decrypt(enc.data, enc.len, code, &check, &algo,
	    cause) == -1)
		goto out;
	if (check.len != key.len || memcmp(check.data, key.data,
	    key.len) != 0) {
		*cause = xstrdup("the encrypted key does not decrypt to the "
		    "key");
		goto out;
	}
	/* gpgme names it "ALGO.MODE"; gpg's AES is AES-128. */
	if (strncmp(algo, "AES.", 4) != 0) {
		*cause = xasprintf("gpg encrypted the key with cipher %s, not "
		    "AES-128", algo);
		goto out;
	}
	memcpy(begin, code, 2);
	begin[2] = '\0';
	snprintf(lines, sizeof lines, "Passphrase-Format: numeric9x4\n"
	    "Passphrase-Begin: %s\n", begin);
	buf_adds(&html, "<html><body>\n<p>\nThis is the Autocrypt Setup File "
	    "that carries a secret key from one device to another. The setup "
	    "code shown on the device that made it decrypts it.\n</p>\n"
	    "<pre>\n");
	if (setup_message_headers(&html, &enc, SETUP_MESSAGE_BEGIN, lines,
	    cause) == -1)
		goto out;
	buf_adds(&html, "</pre></body></html>\n");

	memset(&mo, 0, sizeof mo);
	mo.from.name = a->name;
	mo.from.addr = a->address;
	to.name = NULL;
	to.addr = a->address;
	mo.to = &to;
	mo.nto = 1;
	mo.subject = "Autocrypt Setup Message";
	mo.body = setup_message_text;
	att.name = SETUP_MESSAGE_FILE;
	att.type = SETUP_MESSAGE_TYPE;
	att.data = html.data;
	att.len = html.len;
	mo.blobs = &att;
	mo.nblobs = 1;
	mo.extra = SETUP_MESSAGE_HEADER ": v1\r\n";
	rc = mime_build(&mo, msg, cause);
out:
	if (rc == -1)
		explicit_bzero(code, SETUP_CODE_SIZE);
	setup_message_wipe(&key);
	setup_message_wipe(&check);
	buf_free(&key);
	buf_free(&check);
	buf_free(&enc);
	buf_free(&html);
	ownkey_free(&k);
	free(algo);
	return rc;
}

/*
 * Is the plaintext one secret key with a user ID of addr? Listed from the
 * data, nothing imported. Its fingerprint into *fpr.
 */
static int
setup_message_key(const struct buf *plain, const char *addr, char **fpr,
    char **cause)
{
	gpgme_ctx_t	 g;
	gpgme_data_t	 d;
	gpgme_key_t	 k;
	gpgme_user_id_t	 u;
	gpgme_error_t	 err;
	int		 n = 0, secret = 0, uid = 0;

	*fpr = NULL;
	if ((g = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return -1;
	if (gpgme_data_new_from_mem(&d, plain->data, plain->len, 0) != 0) {
		crypto_release(g);
		*cause = xstrdup("out of memory");
		return -1;
	}
	err = gpgme_op_keylist_from_data_start(g, d, 0);
	while (err == 0 && (err = gpgme_op_keylist_next(g, &k)) == 0) {
		if (n++ == 0 && k->fpr != NULL) {
			*fpr = xstrdup(k->fpr);
			secret = k->secret;
			for (u = k->uids; u != NULL; u = u->next) {
				if (!u->revoked && !u->invalid &&
				    crypto_uid_is(u->email, addr))
					uid = 1;
			}
		}
		gpgme_key_unref(k);
	}
	gpgme_op_keylist_end(g);
	crypto_release(g);
	gpgme_data_release(d);
	if (err != 0 && gpg_err_code(err) != GPG_ERR_EOF)
		*cause = crypto_error("the decrypted setup message is no key",
		    err);
	else if (n != 1 || *fpr == NULL)
		*cause = xasprintf("the setup message holds %d keys, not one",
		    n);
	else if (!secret)
		*cause = xstrdup("the setup message holds no secret key");
	else if (!uid)
		*cause = xasprintf("the key in the setup message has no user "
		    "ID with %s", addr);
	else
		return 0;
	free(*fpr);
	*fpr = NULL;
	return -1;
}

/* Import the secret key fpr from plain. */
static int
setup_message_put(const struct buf *plain, const char *fpr, char **cause)
{
	gpgme_import_result_t	 res;
	gpgme_import_status_t	 st;
	gpgme_ctx_t		 g;
	gpgme_data_t		 d;
	gpgme_error_t		 err;
	int			 ok = 0;

	if ((g = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return -1;
	if (gpgme_data_new_from_mem(&d, plain->data, plain->len, 0) != 0) {
		crypto_release(g);
		*cause = xstrdup("out of memory");
		return -1;
	}
	err = gpgme_op_import(g, d);
	res = err == 0 ? gpgme_op_import_result(g) : NULL;
	for (st = res != NULL ? res->imports : NULL; st != NULL;
	    st = st->next) {
		if (st->result == 0 && (st->status & GPGME_IMPORT_SECRET) &&
		    st->fpr != NULL && strcasecmp(st->fpr, fpr) == 0)
			ok = 1;
	}
	if (res != NULL && res->secret_unchanged > 0 && res->considered == 1)
		ok = 1;
	crypto_release(g);
	gpgme_data_release(d);
	if (err != 0)
		*cause = crypto_error("cannot import the key", err);
	else if (!ok)
		*cause = xasprintf("gpg did not import the secret key %s", fpr);
	return ok ? 0 : -1;
}

int
setup_message_import(const struct account *a, const void *raw, size_t len,
    const char *code, char **fpr, char **cause)
{
	struct buf	 armor, plain;
	char		 c[SETUP_CODE_SIZE], begin[3];
	int		 rc = -1;

	*fpr = NULL;
	if (setup_message_code_norm(code, c) == -1) {
		*cause = xstrdup("a setup code is 36 digits (nine groups of "
		    "four)");
		return -1;
	}
	buf_init(&armor);
	buf_init(&plain);
	if (setup_message_parse(a, raw, len, &armor, begin, cause) == -1)
		goto out;
	if (memcmp(c, begin, 2) != 0) {
		*cause = xasprintf("this is not the message's setup code, "
		    "which begins with %s", begin);
		goto out;
	}
	if (setup_message_decrypt(armor.data, armor.len, c, &plain, NULL,
	    cause) == -1)
		goto out;
	if (setup_message_key(&plain, a->address, fpr, cause) == -1)
		goto out;
	if (setup_message_put(&plain, *fpr, cause) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1) {
		free(*fpr);
		*fpr = NULL;
	}
	explicit_bzero(c, sizeof c);
	setup_message_wipe(&plain);
	buf_free(&plain);
	buf_free(&armor);
	return rc;
}

int
setup_message_find(struct session *s, struct buf *raw, char **cause)
{
	const struct account	*a = session_account(s);
	struct mime_header	 h;
	uint32_t		*uids = NULL;
	size_t			 n = 0, i;
	char			*from;
	int			 rc;

	rc = session_search_header(s, "INBOX", SETUP_MESSAGE_HEADER, "",
	    &uids, &n, cause);
	if (rc != IMAP_OPS_OK)
		return -1;
	for (i = n; i > 0; i--) {
		buf_reset(raw);
		if (session_fetch(s, "INBOX", uids[i - 1], NULL, raw,
		    cause) != IMAP_OPS_OK) {
			free(uids);
			return -1;
		}
		memset(&h, 0, sizeof h);
		mime_header_parse(&h, raw->data, raw->len, 0);
		from = addr_list_from(&h);
		mime_header_free(&h);
		rc = addr_list_same(from, a->address);
		free(from);
		if (rc) {
			free(uids);
			return 0;
		}
	}
	buf_reset(raw);
	free(uids);
	return 1;
}
