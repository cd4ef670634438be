/*
 * cli-key.c: "steedmail --genkey", "--export-key [--smime]" and
 * "--import-key FILE|-": the account's own keys and the public keys of
 * others in steedmail's GnuPG home. Key making itself is account/keygen.c;
 * this file only asks for it and says what happened.
 *
 * Exit codes: 0 done; 64 a bad command line; 66 a file that cannot be
 * read; 65 input that holds no key; 69 gpg or gpgsm failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "account/keygen.h"
#include "buf.h"
#include "cli.h"
#include "crypto.h"
#include "strsafe.h"
#include "trust-store.h"
#include "xmalloc.h"

#define CMD_KEY_MAX_INPUT	(16u * 1024 * 1024)

int
cmd_key_init(struct cmd_ctx *ctx)
{
	char	*cause = NULL;

	if (crypto_init(ctx->cf->gnupg_home, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

static void
cmd_key_show(const char *what, const struct keygen_key *k)
{
	struct tm	 tm;
	char		 date[32], *uid;

	if (k->created)
		printf("%s %s created in %.2f s\n", what, k->fpr, k->seconds);
	else
		printf("%s %s exists%s\n", what, k->fpr,
		    k->renewed ? "; its expiry was renewed" : "");
	uid = strsafe(k->uid, 0);
	printf("  user ID: %s\n", uid);
	free(uid);
	if (k->expires == 0)
		printf("  expires: never\n");
	else {
		gmtime_r(&k->expires, &tm);
		strftime(date, sizeof date, "%Y-%m-%d", &tm);
		printf("  expires: %s (%s)\n", date, k->revoc != NULL ||
		    strcmp(what, "OpenPGP key") == 0 ? "renewed "
		    "automatically when less than 60 days are left" :
		    "a new one is made when it has expired");
	}
	if (k->revoc != NULL)
		printf("  revocation certificate: %s\n", k->revoc);
	if (k->warning != NULL)
		cmd_error("warning: %s", k->warning);
}

int
cmd_genkey(struct cmd_ctx *ctx)
{
	struct account		*a;
	struct keygen_key	 k;
	char			*cause = NULL;

	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	if (keygen_openpgp(a, 1, &k, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	cmd_key_show("OpenPGP key", &k);
	keygen_key_free(&k);
	if (!a->smime && !ctx->smime)
		return EX_OK;
	if (keygen_smime(a, 1, &k, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	cmd_key_show("S/MIME certificate", &k);
	keygen_key_free(&k);
	return EX_OK;
}

int
cmd_export_key(struct cmd_ctx *ctx)
{
	struct account		*a;
	struct keygen_key	 k;
	gpgme_protocol_t	 proto;
	gpgme_ctx_t		 g;
	gpgme_data_t		 d;
	gpgme_error_t		 err;
	char			*cause = NULL, *mem;
	size_t			 len;
	int			 rc;

	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	proto = ctx->smime ? GPGME_PROTOCOL_CMS : GPGME_PROTOCOL_OpenPGP;
	/* Every account has a key: asking for it makes it if need be. */
	rc = ctx->smime ? keygen_smime(a, 1, &k, &cause) :
	    keygen_openpgp(a, 1, &k, &cause);
	if (rc == -1 || (g = crypto_ctx(proto, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		if (rc == 0)
			keygen_key_free(&k);
		return EX_UNAVAILABLE;
	}
	gpgme_set_armor(g, 1);
	if ((err = gpgme_data_new(&d)) != 0) {
		cmd_error("cannot export the key: %s", gpgme_strerror(err));
		gpgme_release(g);
		keygen_key_free(&k);
		return EX_UNAVAILABLE;
	}
	err = gpgme_op_export(g, k.fpr, ctx->smime ? 0 :
	    GPGME_EXPORT_MODE_MINIMAL, d);
	gpgme_release(g);
	mem = gpgme_data_release_and_get_mem(d, &len);
	if (err != 0 || mem == NULL || len == 0) {
		cmd_error("cannot export the key %s: %s", k.fpr,
		    err != 0 ? gpgme_strerror(err) : "nothing exported");
		gpgme_free(mem);
		keygen_key_free(&k);
		return EX_UNAVAILABLE;
	}
	rc = fwrite(mem, 1, len, stdout) == len && fflush(stdout) == 0 ?
	    EX_OK : EX_IOERR;
	if (rc != EX_OK)
		cmd_error("cannot write the key: %s", strerror(errno));
	gpgme_free(mem);
	keygen_key_free(&k);
	return rc;
}

static int
cmd_key_read(const char *path, struct buf *b)
{
	char	chunk[65536];
	ssize_t	n;
	int	fd;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		cmd_error("cannot read %s: %s", path, strerror(errno));
		return EX_NOINPUT;
	}
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || b->len + n > CMD_KEY_MAX_INPUT) {
			cmd_error("cannot read %s: %s", path, n == -1 ?
			    strerror(errno) : "larger than 16 MB");
			if (fd != STDIN_FILENO)
				close(fd);
			return EX_NOINPUT;
		}
		buf_add(b, chunk, n);
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return EX_OK;
}

/*
 * The user imported key: it is seen, for every address of its valid user
 * IDs (source manual), so that the policy may use it (doc/trust.md); the
 * store's rules still apply: a first key is pinned, another one is a key
 * change to accept.
 */
static void
cmd_key_sighting(struct trust_store *ts, gpgme_key_t key)
{
	gpgme_user_id_t	 u;
	char		*a, *cause = NULL;
	size_t		 n;

	if (ts == NULL || key->subkeys == NULL || key->subkeys->fpr == NULL)
		return;
	for (u = key->uids; u != NULL; u = u->next) {
		if (u->revoked || u->invalid || u->email == NULL ||
		    strchr(u->email, '@') == NULL)
			continue;
		a = xstrdup(u->email);
		if ((n = strlen(a)) >= 2 && a[0] == '<' && a[n - 1] == '>') {
			memmove(a, a + 1, n - 2);	/* gpgsm: "<a@b>" */
			a[n - 2] = '\0';
		}
		if (trust_store_sighting(ts, a, key->subkeys->fpr,
		    key->protocol == GPGME_PROTOCOL_CMS ? "smime" : "openpgp",
		    TRUST_SRC_MANUAL, time(NULL), &cause) == -1) {
			cmd_error("warning: %s: %s", a, cause);
			free(cause);
			cause = NULL;
		}
		free(a);
	}
}

/*
 * One line per key the import touched. A new self-signed S/MIME
 * certificate is marked trusted: importing it is the user saying so.
 */
static void
cmd_key_imported(gpgme_ctx_t g, gpgme_import_result_t res,
    struct trust_store *ts)
{
	gpgme_import_status_t	 st;
	gpgme_key_t		 key;
	char			*uid, *cause = NULL;
	const char		*what;
	int			 self;

	for (st = res->imports; st != NULL; st = st->next) {
		if (st->result != 0) {
			cmd_error("%s not imported: %s", st->fpr ? st->fpr :
			    "a key", gpgme_strerror(st->result));
			continue;
		}
		if (st->status & GPGME_IMPORT_SECRET)
			what = "secret key";
		else if (st->status & GPGME_IMPORT_NEW)
			what = "new";
		else if (st->status == 0)
			what = "unchanged";
		else
			what = "updated";
		uid = NULL;
		self = 0;
		if (crypto_key(g, st->fpr, 0, &key) == 0) {
			if (key->uids != NULL && key->uids->uid != NULL)
				uid = strsafe(key->uids->uid, 0);
			/* Self-signed: the issuer is the subject. */
			self = key->protocol == GPGME_PROTOCOL_CMS &&
			    key->issuer_name != NULL && key->uids != NULL &&
			    key->uids->uid != NULL &&
			    strcmp(key->issuer_name, key->uids->uid) == 0;
			if (!(st->status & GPGME_IMPORT_SECRET))
				cmd_key_sighting(ts, key);
			gpgme_key_unref(key);
		}
		printf("%s %s: %s\n", st->fpr, uid != NULL ? uid : "", what);
		free(uid);
		if (self && (st->status & GPGME_IMPORT_NEW) &&
		    keygen_trust_cert(st->fpr, &cause) == -1) {
			cmd_error("%s", cause);
			free(cause);
			cause = NULL;
		}
	}
}

int
cmd_import_key(struct cmd_ctx *ctx)
{
	struct trust_store	*ts;
	gpgme_protocol_t	 proto = GPGME_PROTOCOL_OpenPGP;
	gpgme_import_result_t	 res;
	gpgme_ctx_t		 g;
	gpgme_data_t		 d;
	gpgme_error_t		 err;
	struct buf		 b;
	char			*cause = NULL;
	int			 rc;

	if (ctx->argc != 1) {
		cmd_error("--import-key wants one FILE, or - for standard "
		    "input");
		return EX_USAGE;
	}
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	buf_init(&b);
	if ((rc = cmd_key_read(ctx->argv[0], &b)) != EX_OK) {
		buf_free(&b);
		return rc;
	}
	if (b.len == 0 ||
	    gpgme_data_new_from_mem(&d, b.data, b.len, 0) != 0) {
		cmd_error("%s holds no key", ctx->argv[0]);
		buf_free(&b);
		return EX_DATAERR;
	}
	switch (gpgme_data_identify(d, 0)) {
	case GPGME_DATA_TYPE_PGP_KEY:
	case GPGME_DATA_TYPE_PGP_OTHER:
		break;
	case GPGME_DATA_TYPE_X509_CERT:
	case GPGME_DATA_TYPE_CMS_OTHER:
	case GPGME_DATA_TYPE_CMS_SIGNED:
		proto = GPGME_PROTOCOL_CMS;
		break;
	default:
		cmd_error("%s holds no OpenPGP key and no certificate",
		    ctx->argv[0]);
		gpgme_data_release(d);
		buf_free(&b);
		return EX_DATAERR;
	}
	if ((g = crypto_ctx(proto, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		gpgme_data_release(d);
		buf_free(&b);
		return EX_UNAVAILABLE;
	}
	rc = EX_OK;
	if ((err = gpgme_op_import(g, d)) != 0 ||
	    (res = gpgme_op_import_result(g)) == NULL) {
		cmd_error("cannot import: %s", gpgme_strerror(err));
		rc = EX_UNAVAILABLE;
	} else if (res->considered == 0) {
		cmd_error("%s holds no key", ctx->argv[0]);
		rc = EX_DATAERR;
	} else {
		if ((ts = trust_store_open(NULL, &cause)) == NULL) {
			cmd_error("warning: the trust store: %s", cause);
			free(cause);
			cause = NULL;
		}
		cmd_key_imported(g, res, ts);
		trust_store_close(ts);
	}
	gpgme_release(g);
	gpgme_data_release(d);
	buf_free(&b);
	return rc;
}
