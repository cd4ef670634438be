/*
 * ownkey.h: an account's own keys, found or made without the user doing
 * anything, published and exported; and keys of others imported by hand.
 * OpenPGP: an Ed25519 primary key (sign, certify) with a Cv25519
 * encryption subkey, no passphrase, valid two years and renewed when less
 * than 60 days are left. S/MIME (smime = yes): a self-signed RSA 2048
 * certificate through gpgsm. doc/crypto.md ("Keys") gives the reasons.
 *
 * ownkey.c finds, makes and renews; ownkey-export.c exports a key and the
 * DNS records that publish it; ownkey-import.c imports keys with their
 * trust-store sighting. Callers: the draft (a key to sign with), the key
 * and DNS batch commands, the setup wizard. The GnuPG home must be set up
 * (crypto_init). Nothing here prints: a renewal that failed is a warning
 * through fe_notice() (frontend.h), the rest comes back to the caller.
 */
#ifndef STEED_OWNKEY_H
#define STEED_OWNKEY_H

#include <stddef.h>
#include <time.h>

#include <gpgme.h>

#include "config.h"
#include "dns-lookup.h"

#define OWNKEY_LIFETIME		(2L * 365 * 86400)	/* two years */
#define OWNKEY_RENEW_BEFORE	(60L * 86400)		/* renew inside this */
#define OWNKEY_DNS_TTL		3600	/* the TTL the records suggest */

struct ownkey {
	char	*fpr;		/* upper-case hex */
	char	*uid;		/* the user ID or subject it was found by */
	time_t	 expires;	/* 0: never */
	char	*revoc;		/* revocation certificate, or NULL */
	int	 created;	/* made by this call */
	int	 renewed;	/* its expiry was moved by this call */
	double	 seconds;	/* time taken to make it */
};

/*
 * The account's OpenPGP key: account->key when set (it must exist here,
 * with a secret key, and be usable for signing), else the newest usable
 * key in the home with a secret key and a user ID holding the address.
 * With create set, a missing key is made; one that expires within
 * OWNKEY_RENEW_BEFORE is renewed (a failed renewal of a key still valid
 * is a warning through fe_notice). Returns 0 (key filled in), 1 when
 * there is none and create is not set, -1 with *cause.
 */
int	 ownkey_openpgp(const struct account *, int create, struct ownkey *,
	    char **cause);
/* The same for the account's S/MIME certificate (smime_key, or made). */
int	 ownkey_smime(const struct account *, int create, struct ownkey *,
	    char **cause);
void	 ownkey_free(struct ownkey *);
/*
 * Mark a self-signed S/MIME certificate trusted (gpg-agent's
 * trustlist.txt): gpgsm signs with and encrypts to no certificate whose
 * root is not. Done for the account's own certificate and for those the
 * user imports; doc/crypto.md says why.
 */
int	 ownkey_trust_cert(const char *fpr, char **cause);
/*
 * Set or change the passphrase of the OpenPGP secret key fpr: gpg asks
 * for it itself, through pinentry (the front end's tty_begin and tty_end
 * hooks leave the terminal to it). 0, or -1 and *cause.
 */
int	 ownkey_passwd(const char *fpr, char **cause);
/*
 * Is there a keyring at all in the home cf names (or steedmail's own)?
 * Answered without starting gpg: plain mail from an account that never
 * had a key need not start it to find that out.
 */
int	 ownkey_have_keyring(const struct config *);

/*
 * The public key (OpenPGP: minimal, the one user ID and subkeys) or the
 * certificate fpr, armored or binary, allocated into *data; -1 with
 * *cause.
 */
int	 ownkey_export(gpgme_protocol_t, const char *fpr, int armor,
	    char **data, size_t *len, char **cause);

/*
 * A DNS record that publishes the account's key: an OPENPGPKEY record
 * (RFC 7929) for the OpenPGP key, an SMIMEA record (RFC 8162: usage 3,
 * DANE-EE, selector 0, matching type 0, the whole certificate) for the
 * S/MIME one. owner[] are the names it goes under: the address's local
 * part hashed as written and lower-cased (owner[1] is NULL when they are
 * the same).
 */
struct ownkey_record {
	enum dns_type	 type;
	char		*fpr;		/* the key it publishes */
	char		*owner[2];	/* without the final dot */
	unsigned char	*rdata;
	size_t		 len;
};

/*
 * The record for the account's existing key of type (nothing is made):
 * returns 0 and fills r, 1 when the account has no such key, -1 with
 * *cause.
 */
int	 ownkey_record(const struct account *, enum dns_type,
	    struct ownkey_record *r, char **cause);
void	 ownkey_record_free(struct ownkey_record *);

/*
 * Importing keys or certificates (of others, or the user's own): each
 * key imported is seen for every address of its valid user IDs, source
 * manual, so that the policy may use it (doc/trust.md); the trust store's
 * rules still apply: a first key is pinned, another one is a key change
 * to accept. A new self-signed certificate is marked trusted: importing
 * it is the user saying so. A sighting that cannot be recorded is a
 * warning through fe_notice().
 */
enum ownkey_import_status {
	OWNKEY_IMPORT_NEW,
	OWNKEY_IMPORT_UPDATED,
	OWNKEY_IMPORT_UNCHANGED,
	OWNKEY_IMPORT_SECRET,	/* a secret key */
	OWNKEY_IMPORT_FAILED	/* error says why */
};

struct ownkey_imported {
	char				*fpr;	/* NULL: gpg named none */
	char				*uid;	/* first user ID, or NULL */
	enum ownkey_import_status	 status;
	char				*error;	/* FAILED: why */
	char				*warning;	/* imported, but the
							   certificate could
							   not be trusted */
};

struct ownkey_import {
	struct ownkey_imported	*keys;
	size_t			 n;
};

/*
 * Import the keys in data. Returns 0 (r filled in, one entry per key gpg
 * considered), 1 when data holds no key, 2 when it is neither OpenPGP
 * data nor a certificate, -1 with *cause when gpg failed.
 */
int	 ownkey_import(const void *data, size_t len, struct ownkey_import *r,
	    char **cause);
void	 ownkey_import_free(struct ownkey_import *);
const char *ownkey_import_word(enum ownkey_import_status);

#endif
