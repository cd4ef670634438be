/*
 * cli-key.c: "steedmail --genkey", "--export-key [--smime]" and
 * "--import-key FILE|-": the account's own keys (a secret key too, moved
 * by hand) and the public keys of others in steedmail's GnuPG home.
 * Finding, making, exporting and importing keys is the engine's
 * (src/ownkey.h); this file only asks for it and says what happened.
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

#include "buf.h"
#include "cli.h"
#include "crypto.h"
#include "ownkey.h"
#include "strsafe.h"
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
cmd_key_show(const char *what, const struct ownkey *k)
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
}

int
cmd_genkey(struct cmd_ctx *ctx)
{
	struct account		*a;
	struct ownkey		 k;
	char			*cause = NULL;
	int			 rc;

	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	rc = ownkey_openpgp(a, 1, &k, &cause);
	if (rc == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	cmd_key_show("OpenPGP key", &k);
	if ((k.created || k.renewed) && a->dns_update_server != NULL)
		printf("DNS still has the key as it was: run steedmail "
		    "--publish\n");
	ownkey_free(&k);
	if (!a->smime && !ctx->smime)
		return EX_OK;
	if (ownkey_smime(a, 1, &k, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	cmd_key_show("S/MIME certificate", &k);
	ownkey_free(&k);
	return EX_OK;
}

int
cmd_export_key(struct cmd_ctx *ctx)
{
	struct account		*a;
	struct ownkey		 k;
	gpgme_protocol_t	 proto;
	char			*cause = NULL, *data;
	size_t			 len;
	int			 rc;

	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	proto = ctx->smime ? GPGME_PROTOCOL_CMS : GPGME_PROTOCOL_OpenPGP;
	/* Every account has a key: asking for it makes it if need be. */
	rc = ctx->smime ? ownkey_smime(a, 1, &k, &cause) :
	    ownkey_openpgp(a, 1, &k, &cause);
	if (rc == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	if (ownkey_export(proto, k.fpr, 1, &data, &len, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		ownkey_free(&k);
		return EX_UNAVAILABLE;
	}
	rc = fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0 ?
	    EX_OK : EX_IOERR;
	if (rc != EX_OK)
		cmd_error("cannot write the key: %s", strerror(errno));
	free(data);
	ownkey_free(&k);
	return rc;
}

static int
cmd_key_read(const char *path, struct buf *b)
{
	int	fd, rc;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		cmd_error("cannot read %s: %s", path, strerror(errno));
		return EX_NOINPUT;
	}
	if ((rc = buf_read_fd(b, fd, CMD_KEY_MAX_INPUT)) == -1)
		cmd_error("cannot read %s: %s", path, errno == EFBIG ?
		    "larger than 16 MB" : strerror(errno));
	if (fd != STDIN_FILENO)
		close(fd);
	return rc == -1 ? EX_NOINPUT : EX_OK;
}

int
cmd_import_key(struct cmd_ctx *ctx)
{
	struct ownkey_import	 r;
	struct buf		 b;
	char			*cause = NULL, *uid;
	size_t			 i;
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
	rc = ownkey_import(b.data, b.len, &r, &cause);
	buf_free(&b);
	if (rc == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	if (rc == 1 || rc == 2) {
		cmd_error(rc == 1 ? "%s holds no key" : "%s holds no OpenPGP "
		    "key and no certificate", ctx->argv[0]);
		return EX_DATAERR;
	}
	/* One line per key the import touched. */
	for (i = 0; i < r.n; i++) {
		const struct ownkey_imported *k = &r.keys[i];
		if (k->status == OWNKEY_IMPORT_FAILED) {
			cmd_error("%s not imported: %s", k->fpr ? k->fpr :
			    "a key", k->error);
			continue;
		}
		uid = k->uid != NULL ? strsafe(k->uid, 0) : NULL;
		printf("%s %s: %s\n", k->fpr, uid != NULL ? uid : "",
		    ownkey_import_word(k->status));
		free(uid);
		/* The user's own key moved by hand (--export-secret-key). */
		if (k->status == OWNKEY_IMPORT_SECRET)
			printf("  a secret key: mail encrypted to it can be "
			    "read here, and mail signed with it\n");
		if (k->warning != NULL)
			cmd_error("%s", k->warning);
	}
	ownkey_import_free(&r);
	return EX_OK;
}
