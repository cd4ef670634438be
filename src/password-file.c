/*
 * password-file.c: an account's password kept in a file of its own,
 * encrypted to the account's OpenPGP key (password.h): the setup wizard
 * writes it ($XDG_DATA_HOME/steedmail/password-ACCOUNT.asc, mode 0600,
 * named by the account's password-file setting), password_get() reads it
 * back whenever a server wants the password.
 *
 * Both go through gpgme and the same gpg-agent as mail (crypto.h), so
 * the password is as safe as the key: a key without a passphrase guards
 * it as well as the file's mode does (it is no longer a line anyone who
 * sees the configuration reads), a key with one asks for it once, and
 * the agent remembers it as for mail. Reading tries first without
 * prompting, so that a key whose passphrase the agent holds (or that has
 * none) does not make the interface leave its screen for pinentry; only
 * when that fails, and this thread may prompt, does it ask.
 *
 * A file that is not encrypted to a key (a passphrase alone) or has no
 * integrity protection is refused. Every buffer that held the password is
 * wiped. Never prints.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "crypto.h"
#include "password.h"
#include "paths.h"
#include "xmalloc.h"

#define PASSWORD_FILE_MAX	(64 * 1024)

char *
password_file_path(const char *id, char **cause)
{
	char	*dir, *path;
	int	 n;

	if ((dir = paths_data_dir(cause)) == NULL)
		return NULL;
	/* another configuration (-F) may have an account of that name */
	path = xasprintf("%s/password-%s.asc", dir, id);
	for (n = 2; access(path, F_OK) == 0 && n < 1000; n++) {
		free(path);
		path = xasprintf("%s/password-%s-%d.asc", dir, id, n);
	}
	free(dir);
	return path;
}

/* Write len bytes to path, whole or not at all (atomic.h), mode 0600. */
static int
password_file_put(const char *path, const char *data, size_t len,
    char **cause)
{
	return atomic_write(path, data, len, cause);
}

int
password_file_write(const char *path, const char *fpr, const char *password,
    char **cause)
{
	gpgme_ctx_t	 ctx;
	gpgme_data_t	 plain = NULL, cipher = NULL;
	gpgme_key_t	 keys[2] = { NULL, NULL };
	gpgme_error_t	 err;
	char		*mem = NULL, *line;
	size_t		 len = 0;
	int		 rc = -1;

	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return -1;
	gpgme_set_armor(ctx, 1);
	line = xasprintf("%s\n", password);
	if ((err = crypto_key(ctx, fpr, 0, &keys[0])) != 0) {
		*cause = crypto_error("the key to keep the password with", err);
		goto out;
	}
	if (gpgme_data_new_from_mem(&plain, line, strlen(line), 0) != 0 ||
	    gpgme_data_new(&cipher) != 0) {
		*cause = xstrdup("gpgme: out of memory");
		goto out;
	}
	if ((err = gpgme_op_encrypt(ctx, keys, GPGME_ENCRYPT_ALWAYS_TRUST,
	    plain, cipher)) != 0) {
		*cause = crypto_error("cannot encrypt the password", err);
		goto out;
	}
	mem = gpgme_data_release_and_get_mem(cipher, &len);
	cipher = NULL;
	if (mem == NULL || len == 0) {
		*cause = xstrdup("gpg gave nothing back for the password");
		goto out;
	}
	rc = password_file_put(path, mem, len, cause);
out:
	if (mem != NULL)
		gpgme_free(mem);
	gpgme_data_release(cipher);
	gpgme_data_release(plain);
	if (keys[0] != NULL)
		gpgme_key_unref(keys[0]);
	freezero_str(line);
	crypto_release(ctx);
	return rc;
}

/* One decryption of the file's bytes; the password, or NULL. */
static char *
password_file_open(const char *path, const struct buf *b, gpgme_error_t *errp,
    char **cause)
{
	gpgme_ctx_t		 ctx;
	gpgme_data_t		 cipher = NULL, plain = NULL;
	gpgme_decrypt_result_t	 res;
	gpgme_error_t		 err;
	char			*mem = NULL, *pw = NULL;
	size_t			 len = 0, n;

	*errp = 0;
	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		return NULL;
	if (gpgme_data_new_from_mem(&cipher, b->data, b->len, 0) != 0 ||
	    gpgme_data_new(&plain) != 0) {
		*cause = xstrdup("gpgme: out of memory");
		goto out;
	}
	if ((err = gpgme_op_decrypt(ctx, cipher, plain)) != 0) {
		*errp = err;
		*cause = crypto_error(path, err);
		goto out;
	}
	res = gpgme_op_decrypt_result(ctx);
	mem = gpgme_data_release_and_get_mem(plain, &len);
	plain = NULL;
	if (res == NULL || res->recipients == NULL) {
		*cause = xasprintf("%s is not encrypted to a key: not used",
		    path);
		goto out;
	}
	if (res->legacy_cipher_nomdc) {
		*cause = xasprintf("%s has no integrity protection: not used",
		    path);
		goto out;
	}
	for (n = 0; mem != NULL && n < len && mem[n] != '\n'; n++)
		;
	if (n > 0 && mem[n - 1] == '\r')
		n--;
	if (n == 0 || n > PASSWORD_MAX || memchr(mem, '\0', n) != NULL)
		*cause = xasprintf("%s holds no password", path);
	else
		pw = xstrndup(mem, n);
out:
	if (mem != NULL) {
		explicit_bzero(mem, len);
		gpgme_free(mem);
	}
	gpgme_data_release(plain);
	gpgme_data_release(cipher);
	crypto_release(ctx);
	return pw;
}

char *
password_file_read(const char *path, char **cause)
{
	struct buf	 b;
	gpgme_error_t	 err;
	char		*pw, *why = NULL;
	int		 quiet = crypto_get_no_prompt();

	buf_init(&b);
	if (buf_read_file(&b, path, PASSWORD_FILE_MAX) == -1) {
		*cause = xasprintf("cannot read %s: %s", path,
		    strerror(errno));
		buf_free(&b);
		return NULL;
	}
	/* First without pinentry: no passphrase, or the agent has it. */
	crypto_set_no_prompt(1);
	pw = password_file_open(path, &b, &err, &why);
	crypto_set_no_prompt(quiet);
	if (pw == NULL && err != 0 && !quiet) {
		free(why);
		why = NULL;
		pw = password_file_open(path, &b, &err, &why);
	}
	if (pw == NULL)
		*cause = why;
	else
		free(why);
	buf_free(&b);
	return pw;
}
