/*
 * password.h: the password of an account, from its password-command, its
 * password-file (encrypted to the account's key: password-file.c), its
 * password setting, or the front end's secret hook (frontend.h).
 */
#ifndef STEED_PASSWORD_H
#define STEED_PASSWORD_H

#include "config.h"

#define PASSWORD_COMMAND_TIMEOUT 30	/* seconds */
#define PASSWORD_MAX		1024	/* bytes of a password */

/*
 * The password for account a: the first line printed by its
 * password-command (run with /bin/sh -c), else the first line of its
 * password-file decrypted (in cf's GnuPG home), else its password
 * setting, else asked of the person through fe_secret() (no hook
 * installed: none). For an account that signs in with OAuth2
 * (auth = oauth2), its access token instead (oauth2_access()). Returns
 * NULL and a cause when there is none. The
 * caller frees the result with freezero_str().
 */
char	*password_get(const struct config *cf, const struct account *a,
	     char **cause);

/*
 * Run a password command (the part of password_get() that does), for at
 * most timeout seconds. Exposed for the tests.
 */
char	*password_run(const char *id, const char *command, int timeout,
	     char **cause);

/*
 * password-file.c. A file for the setup wizard to keep account id's
 * password in: $XDG_DATA_HOME/steedmail/password-ID.asc, or -2, -3, ...
 * before .asc when that is taken (the directory is made).
 */
char	*password_file_path(const char *id, char **cause);
/*
 * Encrypt password to the key fpr (armored; the key trusted as the
 * account's own) into the file at path, mode 0600, replacing it at once.
 * crypto_init() must have run. Returns 0, or -1 and *cause.
 */
int	 password_file_write(const char *path, const char *fpr,
	     const char *password, char **cause);
/*
 * The password in the file at path: its first line, decrypted through
 * gpg; quietly when the key needs no passphrase now, else with pinentry
 * when this thread may prompt (crypto_set_no_prompt()). crypto_init()
 * must have run. NULL and *cause when it cannot be read.
 */
char	*password_file_read(const char *path, char **cause);

#endif
