/*
 * gpgmeinit HOME: the floor of make bench's crypto half. It does what
 * every gpgme program does before its first operation, through the same
 * door as steedmail (crypto.h): gpgme's version check and engine
 * discovery (gpgconf --list-dirs and --list-components, gpg, gpgsm and
 * gpgconf --version), the home bound for OpenPGP (gpg --version once
 * more), one context made and released. No gpg operation runs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "crypto.h"

int
main(int argc, char **argv)
{
	gpgme_ctx_t	 ctx;
	char		*cause = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: gpgmeinit HOME\n");
		return 64;
	}
	if (crypto_init(argv[1], &cause) == -1 ||
	    (ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, &cause)) == NULL) {
		fprintf(stderr, "gpgmeinit: %s\n", cause);
		return 1;
	}
	gpgme_release(ctx);
	printf("ok\n");
	return 0;
}
