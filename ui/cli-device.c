/*
 * cli-device.c: the account's key on a second device: "steedmail
 * --export-setup" (an Autocrypt Setup Message into the account's own
 * INBOX, its setup code shown once), "--import-setup [FILE|-]" (the
 * message found there or read, the code asked, the key imported and the
 * account set to use it) and "--export-secret-key" (the key by hand).
 * Making, checking and opening the message is the engine's
 * (src/setup-message.h); this file asks for it and says what happened.
 *
 * Exit codes: 0 done; 64 a bad command line; 65 a message refused or a
 * code that does not open it; 66 no setup message; 69 gpg failed or the
 * account has no key; 75 the server cannot be reached.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>
#include <unistd.h>

#include "account/config-write.h"
#include "buf.h"
#include "cli.h"
#include "frontend.h"
#include "ownkey.h"
#include "session.h"
#include "setup-message.h"
#include "xmalloc.h"

#define CMD_DEVICE_MAX_INPUT	(4u * 1024 * 1024)

int
cmd_export_setup(struct cmd_ctx *ctx)
{
	struct account	*a;
	struct session	*s;
	struct ownkey	 k;
	struct buf	 msg;
	char		 code[SETUP_CODE_SIZE], *cause = NULL;
	int		 rc;

	if (ctx->argc != 0) {
		cmd_error("--export-setup takes no operand");
		return EX_USAGE;
	}
	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	/* Every account has a key: asking for it makes it if need be. */
	if (ownkey_openpgp(a, 1, &k, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	ownkey_free(&k);
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		return cmd_down(s, "the setup message was not made");
	buf_init(&msg);
	if (setup_message_make(a, code, &msg, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		buf_free(&msg);
		session_close(s);
		return EX_UNAVAILABLE;
	}
	rc = session_append(s, "INBOX", msg.data, msg.len, 0, &cause);
	buf_free(&msg);
	session_close(s);
	if (rc != IMAP_OPS_OK) {
		explicit_bzero(code, sizeof code);
		cmd_error("cannot put the setup message in INBOX: %s", cause);
		free(cause);
		return cmd_exit(rc);
	}
	printf("An Autocrypt Setup Message with the secret key of %s is in "
	    "its INBOX.\n", a->address);
	printf("Setup code: %s\n", code);
	printf("Type it on the other device (steedmail --import-setup); it is "
	    "shown only now and kept nowhere.\n");
	explicit_bzero(code, sizeof code);
	return fflush(stdout) == 0 ? EX_OK : EX_IOERR;
}

/*
 * The code: the first line of standard input when it is not a terminal
 * (and not the message), else asked on the terminal.
 */
static char *
cmd_device_code(const char *begin, int stdin_free, char **cause)
{
	char	*prompt, *line = NULL, *code;
	size_t	 size = 0;
	ssize_t	 n;

	if (stdin_free && !isatty(STDIN_FILENO)) {
		if ((n = getline(&line, &size, stdin)) <= 0) {
			free(line);
			*cause = xstrdup("no setup code on standard input");
			return NULL;
		}
		code = xstrdup(line);
		explicit_bzero(line, size);
		free(line);
		return code;
	}
	prompt = xasprintf("Setup code (it begins with %s): ", begin);
	code = fe_secret(prompt, cause);
	free(prompt);
	return code;
}

/* The account now uses fpr: say so, and write key = when need be. */
static void
cmd_device_use(struct account *a, const char *fpr)
{
	struct ownkey	 k;
	char		*cause = NULL;
	int		 other, rc;

	if (a->key != NULL)
		other = strcasecmp(a->key, fpr) != 0;
	else {
		/* No key = : the newest key of the address is used. */
		rc = ownkey_openpgp(a, 0, &k, &cause);
		other = rc != 0 || strcasecmp(k.fpr, fpr) != 0;
		if (rc == 0)
			ownkey_free(&k);
		free(cause);
		cause = NULL;
	}
	if (!other) {
		printf("The account %s uses this key, as the other device "
		    "does.\n", a->id);
		return;
	}
	if (config_write_set(a->file, a->id, "key", fpr, &cause) == -1) {
		cmd_error("the account %s does not use the imported key yet: "
		    "%s; set key = %s in %s", a->id, cause, fpr, a->file);
		free(cause);
		return;
	}
	printf("The account %s now uses the imported key (key = %s in %s), "
	    "as the other device does.\n", a->id, fpr, a->file);
}

int
cmd_import_setup(struct cmd_ctx *ctx)
{
	struct account	*a;
	struct session	*s;
	struct buf	 raw;
	const char	*what;
	char		 begin[3], *code, *fpr, *cause = NULL;
	int		 rc;

	if (ctx->argc > 1) {
		cmd_error("--import-setup takes one FILE (- for standard "
		    "input), or nothing to look in INBOX");
		return EX_USAGE;
	}
	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	buf_init(&raw);
	if (ctx->argc == 1) {
		what = ctx->argv[0];
		if ((rc = cmd_view_read(what, &raw)) != EX_OK) {
			buf_free(&raw);
			return rc;
		}
	} else {
		what = "the setup message in INBOX";
		if ((rc = cmd_open(ctx, &s)) != EX_OK) {
			buf_free(&raw);
			return rc;
		}
		if (session_down(s) != NULL) {
			buf_free(&raw);
			return cmd_down(s, "no setup message was looked for");
		}
		rc = setup_message_find(s, &raw, &cause);
		session_close(s);
		if (rc != 0) {
			if (rc == 1)
				cmd_error("no Autocrypt Setup Message from %s "
				    "in INBOX (steedmail --export-setup on the "
				    "other device puts one there)", a->address);
			else {
				cmd_error("%s", cause);
				free(cause);
			}
			buf_free(&raw);
			return rc == 1 ? EX_NOINPUT : EX_TEMPFAIL;
		}
	}
	if (setup_message_check(a, raw.data, raw.len, begin, &cause) == -1) {
		cmd_error("warning: %s refused, nothing imported: %s", what,
		    cause);
		free(cause);
		buf_free(&raw);
		return EX_DATAERR;
	}
	fprintf(stderr, "steedmail: an Autocrypt Setup Message from %s; its "
	    "setup code begins with %s\n", a->address, begin);
	code = cmd_device_code(begin, ctx->argc == 0 ||
	    strcmp(ctx->argv[0], "-") != 0, &cause);
	if (code == NULL) {
		cmd_error("%s", cause);
		free(cause);
		buf_free(&raw);
		return EX_NOINPUT;
	}
	rc = setup_message_import(a, raw.data, raw.len, code, &fpr, &cause);
	freezero_str(code);
	buf_free(&raw);
	if (rc == -1) {
		cmd_error("nothing imported: %s", cause);
		free(cause);
		return EX_DATAERR;
	}
	printf("Imported the secret key %s of %s.\n", fpr, a->address);
	cmd_device_use(a, fpr);
	free(fpr);
	return EX_OK;
}

int
cmd_export_secret_key(struct cmd_ctx *ctx)
{
	struct account	*a;
	struct ownkey	 k;
	struct buf	 key;
	char		*cause = NULL;
	int		 rc;

	if (ctx->argc != 0) {
		cmd_error("--export-secret-key takes no operand");
		return EX_USAGE;
	}
	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (cmd_key_init(ctx) == -1)
		return EX_UNAVAILABLE;
	if ((rc = ownkey_openpgp(a, 0, &k, &cause)) != 0) {
		if (rc == 1)
			cmd_error("%s has no OpenPGP key (steedmail --genkey "
			    "makes one)", a->address);
		else {
			cmd_error("%s", cause);
			free(cause);
		}
		return EX_UNAVAILABLE;
	}
	if (isatty(STDOUT_FILENO))
		cmd_error("warning: this is the secret key of %s: whoever has "
		    "it reads the mail encrypted to it and signs as you; "
		    "redirect it to a file and keep that safe", a->address);
	buf_init(&key);
	rc = setup_message_secret(k.fpr, &key, &cause);
	ownkey_free(&k);
	if (rc == -1) {
		cmd_error("%s", cause);
		free(cause);
		buf_free(&key);
		return EX_UNAVAILABLE;
	}
	rc = fwrite(key.data, 1, key.len, stdout) == key.len &&
	    fflush(stdout) == 0 ? EX_OK : EX_IOERR;
	if (rc != EX_OK)
		cmd_error("cannot write the key: %s", strerror(errno));
	if (key.data != NULL)
		explicit_bzero(key.data, key.len);
	buf_free(&key);
	return rc;
}
