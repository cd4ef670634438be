/*
 * password.h: the password of an account, from its password-command, its
 * password setting, or the front end's secret hook (frontend.h).
 */
#ifndef STEED_PASSWORD_H
#define STEED_PASSWORD_H

#include "config.h"

#define PASSWORD_COMMAND_TIMEOUT 30	/* seconds */

/*
 * The password for account a: the first line printed by its
 * password-command (run with /bin/sh -c), else its password setting, else
 * asked of the person through fe_secret() (no hook installed: none).
 * Returns NULL and a cause when there is none. The caller frees the
 * result with freezero_str().
 */
char	*password_get(const struct account *a, char **cause);

/*
 * Run a password command (the part of password_get() that does), for at
 * most timeout seconds. Exposed for the tests.
 */
char	*password_run(const char *id, const char *command, int timeout,
	     char **cause);

#endif
