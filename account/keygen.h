/*
 * keygen.h: an account's own keys, found or made without the user doing
 * anything. OpenPGP: an Ed25519 primary key (sign, certify) with a Cv25519
 * encryption subkey, no passphrase, valid two years and renewed when less
 * than 60 days are left. S/MIME (smime = yes): a self-signed RSA 2048
 * certificate through gpgsm. doc/crypto.md ("Keys") gives the reasons.
 * Called by the key and send commands; never prints.
 */
#ifndef STEED_KEYGEN_H
#define STEED_KEYGEN_H

#include <time.h>

#include "config.h"

#define KEYGEN_LIFETIME		(2L * 365 * 86400)	/* two years */
#define KEYGEN_RENEW_BEFORE	(60L * 86400)		/* renew inside this */

struct keygen_key {
	char	*fpr;		/* upper-case hex */
	char	*uid;		/* the user ID or subject it was found by */
	time_t	 expires;	/* 0: never */
	char	*revoc;		/* revocation certificate, or NULL */
	int	 created;	/* made by this call */
	int	 renewed;	/* its expiry was moved by this call */
	char	*warning;	/* renewal failed, say, or NULL */
	double	 seconds;	/* time taken to make it */
};

/*
 * The account's OpenPGP key: account->key when set (it must exist here,
 * with a secret key, and be usable for signing), else the newest usable
 * key in the home with a secret key and a user ID holding the address.
 * With create set, a missing key is made. Returns 0 (key filled in), 1
 * when there is none and create is not set, -1 with *cause.
 */
int	 keygen_openpgp(const struct account *, int create,
	    struct keygen_key *, char **cause);
/* The same for the account's S/MIME certificate (smime_key, or made). */
int	 keygen_smime(const struct account *, int create,
	    struct keygen_key *, char **cause);
void	 keygen_key_free(struct keygen_key *);
/*
 * Mark a self-signed S/MIME certificate trusted (gpg-agent's
 * trustlist.txt): gpgsm signs with and encrypts to no certificate whose
 * root is not. Done for the account's own certificate and for those the
 * user imports with --import-key; doc/crypto.md says why.
 */
int	 keygen_trust_cert(const char *fpr, char **cause);

#endif
