/*
 * crypto.c: gpgme set-up (see crypto.h).
 *
 * The engines run as child processes of gpgme with GNUPGHOME set through
 * gpgme_ctx_set_engine_info, never through the process environment, so a
 * user's GNUPGHOME does not leak into steedmail's own keyring by accident.
 * GPG_TTY is set from the controlling terminal when there is one, so that
 * gpg-agent's pinentry can ask for a passphrase over SSH too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto.h"
#include "log.h"
#include "paths.h"
#include "xmalloc.h"

static char	*crypto_home_dir;

char *
crypto_error(const char *what, gpgme_error_t err)
{
	return xasprintf("%s: %s", what, gpgme_strerror(err));
}

int
crypto_init(const char *home, char **cause)
{
	char		*data;
	const char	*tty;
	gpgme_error_t	 err;

	if (crypto_home_dir != NULL)
		return 0;
	if (gpgme_check_version("1.13.0") == NULL) {
		*cause = xasprintf("gpgme is older than 1.13 (%s)",
		    gpgme_check_version(NULL));
		return -1;
	}
	if ((err = gpgme_engine_check_version(GPGME_PROTOCOL_OpenPGP)) != 0) {
		*cause = crypto_error("gpg cannot be used (install gnupg)",
		    err);
		return -1;
	}
	if (home != NULL)
		crypto_home_dir = xstrdup(home);
	else {
		if ((data = paths_data_dir(cause)) == NULL)
			return -1;
		crypto_home_dir = xasprintf("%s/gnupg", data);
		free(data);
	}
	if (paths_mkdirs(crypto_home_dir, 0700, cause) == -1) {
		free(crypto_home_dir);
		crypto_home_dir = NULL;
		return -1;
	}
	if (getenv("GPG_TTY") == NULL && isatty(STDIN_FILENO) &&
	    (tty = ttyname(STDIN_FILENO)) != NULL)
		setenv("GPG_TTY", tty, 0);
	log_msg(LOG_INFO, "crypto: GnuPG home %s", crypto_home_dir);
	return 0;
}

const char *
crypto_home(void)
{
	return crypto_home_dir;
}

gpgme_ctx_t
crypto_ctx(gpgme_protocol_t proto, char **cause)
{
	gpgme_ctx_t	 ctx;
	gpgme_error_t	 err;

	if (crypto_home_dir == NULL) {
		*cause = xstrdup("crypto: not initialised");
		return NULL;
	}
	if ((err = gpgme_new(&ctx)) != 0) {
		*cause = crypto_error("cannot start gpgme", err);
		return NULL;
	}
	if ((err = gpgme_set_protocol(ctx, proto)) != 0 ||
	    (err = gpgme_ctx_set_engine_info(ctx, proto, NULL,
	    crypto_home_dir)) != 0) {
		*cause = crypto_error(proto == GPGME_PROTOCOL_CMS ?
		    "gpgsm cannot be used (install gpgsm)" :
		    "gpg cannot be used", err);
		gpgme_release(ctx);
		return NULL;
	}
	gpgme_set_armor(ctx, 0);
	gpgme_set_offline(ctx, 1);	/* no key servers, no CRL fetches */
	return ctx;
}
