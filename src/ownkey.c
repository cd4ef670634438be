/*
 * ownkey.c: the account's own OpenPGP key and S/MIME certificate (see
 * ownkey.h): looked up in steedmail's GnuPG home, made when missing,
 * renewed before they expire. Everything goes through crypto_ctx(); the
 * engines run as gpgme's children. Callers: the draft, the key commands,
 * the setup wizard. Never prints: a failed renewal is a fe_notice().
 *
 * No passphrase: the key is protected by the home's 0700 mode, which is
 * Autocrypt Level 1's choice and the only one that lets mail be signed
 * and encrypted without the user doing anything. A passphrase can be
 * added later with gpg --homedir HOME --change-passphrase; pinentry is
 * never started by this file (loopback mode, no passphrase given), so a
 * protected key makes renewal fail with a warning instead of hanging.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "crypto.h"
#include "frontend.h"
#include "ownkey.h"
#include "paths.h"
#include "xmalloc.h"


/* Never hand gpg-agent a passphrase: a protected key fails cleanly. */
static gpgme_error_t
ownkey_no_passphrase(void *arg, const char *hint, const char *info,
    int prev_bad, int fd)
{
	(void)arg;
	(void)hint;
	(void)info;
	(void)prev_bad;
	(void)fd;
	return gpg_error(GPG_ERR_CANCELED);
}

static gpgme_ctx_t
ownkey_ctx(gpgme_protocol_t proto, gpgme_passphrase_cb_t cb, char **cause)
{
	gpgme_ctx_t	ctx;

	if ((ctx = crypto_ctx(proto, cause)) == NULL)
		return NULL;
	if (cb != NULL) {
		gpgme_set_pinentry_mode(ctx, GPGME_PINENTRY_MODE_LOOPBACK);
		gpgme_set_passphrase_cb(ctx, cb, NULL);
	}
	return ctx;
}

/* Has key a (not revoked, not invalid) user ID with this address? */
static gpgme_user_id_t
ownkey_uid(gpgme_key_t key, const char *addr)
{
	gpgme_user_id_t	uid;

	for (uid = key->uids; uid != NULL; uid = uid->next) {
		if (uid->revoked || uid->invalid)
			continue;
		if (crypto_uid_is(uid->email, addr))
			return uid;
	}
	return NULL;
}

/* Why key cannot be the account's key, or NULL if it can. */
static const char *
ownkey_unusable(gpgme_key_t key, int allow_expired)
{
	if (key->revoked)
		return "revoked";
	if (key->disabled)
		return "disabled";
	if (key->invalid)
		return "invalid";
	if (key->expired && !allow_expired)
		return "expired";
	if (!key->secret)
		return "without a secret key here";
	if (!key->can_sign && !key->expired)
		return "not usable for signing";
	if (!key->can_encrypt && !key->expired)
		return "without an encryption key";
	return NULL;
}

static void
ownkey_fill(struct ownkey *k, gpgme_key_t key, const char *addr)
{
	gpgme_user_id_t	uid;
	char		*path;

	free(k->fpr);
	free(k->uid);
	free(k->revoc);
	k->fpr = xstrdup(key->subkeys->fpr);
	uid = ownkey_uid(key, addr);
	if (uid == NULL)
		uid = key->uids;
	k->uid = xstrdup(uid != NULL && uid->uid != NULL ? uid->uid : "");
	k->expires = key->subkeys->expires;
	k->revoc = NULL;
	if (key->protocol == GPGME_PROTOCOL_OpenPGP) {
		path = xasprintf("%s/openpgp-revocs.d/%s.rev", crypto_home(),
		    k->fpr);
		if (access(path, R_OK) == 0)
			k->revoc = path;
		else
			free(path);
	}
}

/*
 * The newest key with a secret part and a user ID for addr; expired ones
 * only if there is nothing better (they can be renewed).
 */
static gpgme_key_t
ownkey_search(gpgme_ctx_t ctx, const char *addr, char **cause)
{
	gpgme_key_t	 key, best = NULL;
	gpgme_error_t	 err;
	char		*pattern;
	int		 better;

	pattern = xasprintf("<%s>", addr);
	err = gpgme_op_keylist_start(ctx, pattern, 1);
	free(pattern);
	if (err != 0) {
		*cause = crypto_error("cannot list keys", err);
		return NULL;
	}
	while ((err = gpgme_op_keylist_next(ctx, &key)) == 0) {
		if (ownkey_uid(key, addr) == NULL ||
		    ownkey_unusable(key, 1) != NULL) {
			gpgme_key_unref(key);
			continue;
		}
		if (best == NULL)
			better = 1;
		else if (best->expired != key->expired)
			better = best->expired;
		else
			better = key->subkeys->timestamp >
			    best->subkeys->timestamp;
		if (better) {
			if (best != NULL)
				gpgme_key_unref(best);
			best = key;
		} else
			gpgme_key_unref(key);
	}
	gpgme_op_keylist_end(ctx);
	if (gpg_err_code(err) != GPG_ERR_EOF) {
		if (best != NULL)
			gpgme_key_unref(best);
		*cause = crypto_error("cannot list keys", err);
		return NULL;
	}
	if (best == NULL)
		*cause = NULL;
	return best;
}

/* The configured key: it must be here, secret, usable. */
static gpgme_key_t
ownkey_configured(gpgme_ctx_t ctx, const char *fpr, const char *what,
    char **cause)
{
	gpgme_key_t	 key;
	gpgme_error_t	 err;
	const char	*why;

	if ((err = crypto_key(ctx, fpr, 1, &key)) != 0) {
		if (gpg_err_code(err) == GPG_ERR_EOF)
			*cause = xasprintf("%s %s: no such key with a secret "
			    "key in %s", what, fpr, crypto_home());
		else
			*cause = crypto_error(what, err);
		return NULL;
	}
	if ((why = ownkey_unusable(key, 0)) != NULL) {
		*cause = xasprintf("%s %s is %s", what, fpr, why);
		gpgme_key_unref(key);
		return NULL;
	}
	return key;
}

/* Move the expiry of primary key and subkeys to OWNKEY_LIFETIME ahead. */
static int
ownkey_renew(gpgme_ctx_t ctx, gpgme_key_t key, char **cause)
{
	gpgme_error_t	err;

	if ((err = gpgme_op_setexpire(ctx, key, OWNKEY_LIFETIME, NULL, 0))
	    != 0 || (err = gpgme_op_setexpire(ctx, key, OWNKEY_LIFETIME, "*",
	    0)) != 0) {
		*cause = crypto_error("cannot renew the key", err);
		return -1;
	}
	return 0;
}

/* "Name <addr>", or the address alone when the name would not fit. */
static char *
ownkey_userid(const struct account *a)
{
	const char	*n = a->name;

	if (n == NULL || *n == '\0' || strpbrk(n, "<>()\"\\") != NULL)
		return xstrdup(a->address);
	return xasprintf("%s <%s>", n, a->address);
}

static gpgme_key_t
ownkey_make_openpgp(gpgme_ctx_t ctx, const struct account *a, char **cause)
{
	gpgme_genkey_result_t	 res;
	gpgme_key_t		 key;
	gpgme_error_t		 err;
	char			*uid, *fpr;

	uid = ownkey_userid(a);
	err = gpgme_op_createkey(ctx, uid, "ed25519", 0, OWNKEY_LIFETIME,
	    NULL, GPGME_CREATE_SIGN | GPGME_CREATE_CERT |
	    GPGME_CREATE_NOPASSWD | GPGME_CREATE_FORCE);
	free(uid);
	if (err != 0) {
		*cause = crypto_error("cannot create an OpenPGP key", err);
		return NULL;
	}
	res = gpgme_op_genkey_result(ctx);
	if (res == NULL || res->fpr == NULL) {
		*cause = xstrdup("cannot create an OpenPGP key: gpg gave no "
		    "fingerprint");
		return NULL;
	}
	fpr = xstrdup(res->fpr);
	if ((err = crypto_key(ctx, fpr, 1, &key)) != 0) {
		*cause = crypto_error("the new key cannot be found", err);
		free(fpr);
		return NULL;
	}
	err = gpgme_op_createsubkey(ctx, key, "cv25519", 0, OWNKEY_LIFETIME,
	    GPGME_CREATE_ENCR | GPGME_CREATE_NOPASSWD);
	gpgme_key_unref(key);
	if (err != 0) {
		*cause = crypto_error("cannot create the encryption subkey",
		    err);
		free(fpr);
		return NULL;
	}
	err = crypto_key(ctx, fpr, 1, &key);
	free(fpr);
	if (err != 0) {
		*cause = crypto_error("the new key cannot be found", err);
		return NULL;
	}
	return key;
}

int
ownkey_openpgp(const struct account *a, int create, struct ownkey *k,
    char **cause)
{
	gpgme_ctx_t	 ctx;
	gpgme_key_t	 key = NULL, again;
	char		*why = NULL;
	double		 t0;
	time_t		 now = time(NULL);

	memset(k, 0, sizeof *k);
	if ((ctx = ownkey_ctx(GPGME_PROTOCOL_OpenPGP, ownkey_no_passphrase,
	    cause)) == NULL)
		return -1;
	if (a->key != NULL) {
		/* The user's own key (perhaps on a card): used as it is. */
		if ((key = ownkey_configured(ctx, a->key, "key", cause))
		    == NULL)
			goto fail;
		ownkey_fill(k, key, a->address);
		goto done;
	}
	if ((key = ownkey_search(ctx, a->address, cause)) == NULL &&
	    *cause != NULL)
		goto fail;
	if (key == NULL) {
		if (!create) {
			crypto_release(ctx);
			return 1;
		}
		t0 = (clock_ms() / 1e3);
		if ((key = ownkey_make_openpgp(ctx, a, cause)) == NULL)
			goto fail;
		k->seconds = (clock_ms() / 1e3) - t0;
		k->created = 1;
	} else if (key->subkeys->expires != 0 &&
	    key->subkeys->expires - now < OWNKEY_RENEW_BEFORE) {
		if (ownkey_renew(ctx, key, &why) == -1) {
			if (key->expired) {
				*cause = why;
				goto fail;
			}
			fe_notice(FE_WARNING, "%s; it expires soon", why);
			free(why);
		} else if (crypto_key(ctx, key->subkeys->fpr, 1, &again)
		    == 0) {
			gpgme_key_unref(key);
			key = again;
			k->renewed = 1;
		}
	}
	ownkey_fill(k, key, a->address);
done:
	gpgme_key_unref(key);
	crypto_release(ctx);
	return 0;

fail:
	if (key != NULL)
		gpgme_key_unref(key);
	crypto_release(ctx);
	ownkey_free(k);
	return -1;
}

/* A Distinguished Name value with RFC 4514's specials escaped. */
static void
ownkey_dn_value(struct buf *b, const char *v)
{
	const char	*p;

	for (p = v; *p != '\0'; p++) {
		if (strchr(",+\"\\<>;=", *p) != NULL ||
		    (p == v && (*p == '#' || *p == ' ')) ||
		    (p[1] == '\0' && *p == ' '))
			buf_addc(b, '\\');
		buf_addc(b, *p);
	}
}

/* The gpgsm or gpgconf program gpgme uses. */
static const char *
ownkey_program(gpgme_protocol_t proto)
{
	gpgme_engine_info_t	e;

	if (gpgme_get_engine_info(&e) != 0)
		return NULL;
	for (; e != NULL; e = e->next) {
		if (e->protocol == proto)
			return e->file_name;
	}
	return NULL;
}

int
ownkey_trust_cert(const char *fpr, char **cause)
{
	return crypto_trust_root(fpr, "a self-signed certificate", cause);
}

int
ownkey_passwd(const char *fpr, char **cause)
{
	gpgme_ctx_t	 ctx;
	gpgme_key_t	 key = NULL;
	gpgme_error_t	 err;
	int		 rc = -1;

	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return -1;
	if ((err = crypto_key(ctx, fpr, 1, &key)) != 0)
		*cause = xasprintf("the key %s: %s", fpr, gpgme_strerror(err));
	else if ((err = gpgme_op_passwd(ctx, key, 0)) != 0)
		*cause = xasprintf("the passphrase was not set: %s",
		    gpgme_strerror(err));
	else
		rc = 0;
	if (key != NULL)
		gpgme_key_unref(key);
	crypto_release(ctx);
	return rc;
}

/*
 * gpgsm --gen-key, run through gpgme's spawn engine. gpgme's own genkey
 * for gpgsm cannot make a key without a passphrase (it either starts
 * pinentry or refuses a passphrase callback), so gpgsm is told directly:
 * loopback pinentry, an empty passphrase. The parameters go in a file
 * in the (0700) home, as gpgsm 2.2 does not read them from standard
 * input in batch mode; the self-signed certificate comes out on standard
 * output.
 */
static int
ownkey_run_gpgsm(const char *parms, gpgme_data_t cert, char **cause)
{
	const char	*argv[] = { "gpgsm", "--homedir", crypto_home(),
			    "--batch", "--pinentry-mode", "loopback",
			    "--passphrase", "", "--gen-key", NULL, NULL };
	const char	*gpgsm;
	gpgme_ctx_t	 ctx;
	gpgme_data_t	 err_out = NULL;
	gpgme_error_t	 err;
	char		*mem, *p, *path;
	size_t		 len;
	FILE		*f;
	int		 fd;

	if ((gpgsm = ownkey_program(GPGME_PROTOCOL_CMS)) == NULL) {
		*cause = xstrdup("gpgsm cannot be used (install gpgsm)");
		return -1;
	}
	path = xasprintf("%s/steedmail-keyparms.XXXXXX", crypto_home());
	if ((fd = mkstemp(path)) == -1 || (f = fdopen(fd, "w")) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(path);
		}
		free(path);
		return -1;
	}
	fputs(parms, f);
	if (fclose(f) != 0) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		unlink(path);
		free(path);
		return -1;
	}
	argv[9] = path;
	if ((ctx = crypto_ctx(GPGME_PROTOCOL_SPAWN, cause)) == NULL) {
		unlink(path);
		free(path);
		return -1;
	}
	err = gpgme_data_new(&err_out);
	if (err == 0)
		err = gpgme_op_spawn(ctx, gpgsm, argv, NULL, cert, err_out, 0);
	unlink(path);
	free(path);
	if (err != 0) {
		*cause = crypto_error("cannot run gpgsm", err);
		goto fail;
	}
	if (gpgme_data_seek(cert, 0, SEEK_END) > 0) {
		gpgme_data_release(err_out);
		crypto_release(ctx);
		return 0;
	}
	/* No certificate: gpgsm's last line says why. */
	mem = gpgme_data_release_and_get_mem(err_out, &len);
	err_out = NULL;
	while (len > 0 && (mem[len - 1] == '\n' || mem[len - 1] == '\r'))
		len--;
	p = mem;
	if (mem != NULL) {
		mem[len] = '\0';
		if ((p = strrchr(mem, '\n')) != NULL)
			p++;
		else
			p = mem;
	}
	*cause = xasprintf("cannot create an S/MIME certificate: %s",
	    p != NULL && *p != '\0' ? p : "gpgsm made none");
	gpgme_free(mem);
fail:
	if (err_out != NULL)
		gpgme_data_release(err_out);
	crypto_release(ctx);
	return -1;
}

static gpgme_key_t
ownkey_make_smime(gpgme_ctx_t ctx, const struct account *a, char **cause)
{
	gpgme_import_result_t	 res;
	gpgme_data_t		 cert = NULL;
	gpgme_key_t		 key = NULL;
	gpgme_error_t		 err;
	struct buf		 parms;
	struct tm		 tm;
	time_t			 until = time(NULL) + OWNKEY_LIFETIME;
	char			*fpr = NULL;

	buf_init(&parms);
	buf_adds(&parms, "Key-Type: RSA\nKey-Length: 2048\n"
	    "Key-Usage: sign, encrypt\nName-DN: CN=");
	ownkey_dn_value(&parms, a->name != NULL && *a->name != '\0' &&
	    strpbrk(a->name, "\r\n") == NULL ? a->name : a->address);
	gmtime_r(&until, &tm);
	buf_addf(&parms, "\nName-Email: %s\nSerial: random\n"
	    "Not-After: %04d-%02d-%02d\n", a->address, tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday);
	if ((err = gpgme_data_new(&cert)) != 0) {
		*cause = crypto_error("cannot create an S/MIME certificate",
		    err);
		goto out;
	}
	if (ownkey_run_gpgsm(parms.data, cert, cause) == -1)
		goto out;
	/* gpgsm hands the self-signed certificate back; keep it. */
	gpgme_data_seek(cert, 0, SEEK_SET);
	if ((err = gpgme_op_import(ctx, cert)) != 0) {
		*cause = crypto_error("cannot store the new certificate", err);
		goto out;
	}
	res = gpgme_op_import_result(ctx);
	if (res == NULL || res->imports == NULL ||
	    res->imports->fpr == NULL) {
		*cause = xstrdup("cannot store the new certificate");
		goto out;
	}
	fpr = xstrdup(res->imports->fpr);
	if (ownkey_trust_cert(fpr, cause) == -1)
		goto out;
	if ((err = crypto_key(ctx, fpr, 1, &key)) != 0) {
		*cause = crypto_error("the new certificate cannot be found",
		    err);
		key = NULL;
	}
out:
	free(fpr);
	if (cert != NULL)
		gpgme_data_release(cert);
	buf_free(&parms);
	return key;
}

int
ownkey_smime(const struct account *a, int create, struct ownkey *k,
    char **cause)
{
	gpgme_ctx_t	 ctx;
	gpgme_key_t	 key = NULL;
	double		 t0;

	memset(k, 0, sizeof *k);
	if ((ctx = ownkey_ctx(GPGME_PROTOCOL_CMS, NULL, cause)) == NULL)
		return -1;
	if (a->smime_key != NULL) {
		if ((key = ownkey_configured(ctx, a->smime_key,
		    "smime-key", cause)) == NULL)
			goto fail;
	} else {
		/*
		 * A certificate cannot be extended: an expired one is passed
		 * over, and a new one is made in its place.
		 */
		if ((key = ownkey_search(ctx, a->address, cause)) == NULL &&
		    *cause != NULL)
			goto fail;
		if (key != NULL && key->expired) {
			gpgme_key_unref(key);
			key = NULL;
		}
		if (key == NULL) {
			if (!create) {
				crypto_release(ctx);
				return 1;
			}
			t0 = (clock_ms() / 1e3);
			if ((key = ownkey_make_smime(ctx, a, cause)) == NULL)
				goto fail;
			k->seconds = (clock_ms() / 1e3) - t0;
			k->created = 1;
		}
	}
	ownkey_fill(k, key, a->address);
	gpgme_key_unref(key);
	crypto_release(ctx);
	return 0;

fail:
	if (key != NULL)
		gpgme_key_unref(key);
	crypto_release(ctx);
	ownkey_free(k);
	return -1;
}

int
ownkey_have_keyring(const struct config *cf)
{
	char	*data, *path, *cause = NULL;
	int	 yes;

	if (cf != NULL && cf->gnupg_home != NULL)
		return 1;
	if ((data = paths_data_dir(&cause)) == NULL) {
		free(cause);
		return 0;
	}
	path = xasprintf("%s/gnupg/pubring.kbx", data);
	yes = access(path, F_OK) == 0;
	free(path);
	free(data);
	return yes;
}

void
ownkey_free(struct ownkey *k)
{
	free(k->fpr);
	free(k->uid);
	free(k->revoc);
	memset(k, 0, sizeof *k);
}
