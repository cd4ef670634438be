/*
 * setup.h: setting up an account, step by step, without a user interface.
 * The wizard's screens (ui/tui-setup.c) and steedmail --setup
 * (ui/cli-setup.c) run the same steps in the same order:
 *
 *   1. setup_discover()   the servers: from DNS SRV records (RFC 6186,
 *                          RFC 8314) validated with DNSSEC, the domain's
 *                          autoconfig document over verified HTTPS,
 *                          steedmail's provider files (by the domain, or
 *                          its MX hosts'), the usual names; each probed
 *                          with a verified TLS connection
 *   2. setup_check()      log in to IMAP and to SMTP before anything is
 *                          saved; a failure is classified so the front end
 *                          can say what to correct
 *   3. setup_keys()       the secret keys the user already has (to pick one
 *                          instead of making a new one); else ownkey.h makes
 *                          one without asking
 *   4. setup_save()       the account into the configuration file (0600,
 *                          every other line kept: config-write.h)
 *   5. setup_records()    the DNS records that publish the key, saved to a
 *                          file, with what to tell the domain's administrator
 *
 * Every step that touches the network or gpg blocks: the interface calls
 * them off its own thread. Nothing here prints or prompts; results come
 * back filled in, failures as -1 with an allocated cause.
 */
#ifndef STEED_SETUP_H
#define STEED_SETUP_H

#include <stddef.h>

#include "config.h"

/*
 * Where a server setting came from, best first: discovery prefers a
 * verified server of an earlier kind (doc/setup.md says why this order).
 */
enum setup_origin {
	SETUP_NONE,		/* nothing found */
	SETUP_GIVEN,		/* typed, or --imap / --smtp */
	SETUP_SRV_SECURE,	/* a DNSSEC-secure SRV record */
	SETUP_AUTOCONFIG,	/* the domain's autoconfig document, over
				   HTTPS with a verified certificate */
	SETUP_PROVIDER,		/* steedmail's provider file for the domain */
	SETUP_PROVIDER_MX,	/* steedmail's provider file for the domain
				   of an MX host */
	SETUP_SRV_INSECURE,	/* SRV from an unsigned zone: a suggestion */
	SETUP_GUESS,		/* imap., smtp., mail. + the domain, probed */
	SETUP_MX		/* the MX host's domain, probed */
};

struct setup_server {
	struct config_url	 url;		/* url.host NULL: none found */
	enum setup_origin	 origin;
	char			*how;		/* one line for people: where it
						   came from and what the probe
						   found */
	char			*from;		/* where it came from alone */
	char			*probe;		/* what the probe found, alone:
						   "certificate verified", or
						   "not verified: why" */
	int			 verified;	/* a TLS connection with a
						   verified certificate was
						   made to it */
};

struct setup_found {
	struct setup_server	  imap;
	struct setup_server	  smtp;
	char			**notes;	/* what was refused or failed on
						   the way, one line each (a
						   bogus SRV answer is one) */
	size_t			  nnotes;
	char			 *user;		/* the login the document the
						   servers came from names,
						   when not the address; NULL:
						   the address */
	char			**advice;	/* what that document asks of
						   the person (an app password
						   and where to make one, IMAP
						   to switch on, OAuth2 only),
						   one sentence each */
	size_t			  nadvice;
	size_t			  oauth2_advice; /* 1 + the index of the
						   advice that OAuth2 alone is
						   taken, or 0: a front end
						   that signs in itself says
						   it its own way */
	char			 *provider;	/* the name of the provider
						   whose document gave the
						   servers, or NULL */
	char			 *app_password;	/* the advice that an app
						   password is wanted and where
						   to make one, or NULL: said
						   before a password is asked */
	/* both servers of the document take only OAuth2: the account signs
	 * in with it (auth = oauth2), with the document's endpoints */
	int			  oauth2;
	/* both take OAuth2 besides a password, and the document names a
	 * token URL: the person may choose it (the endpoints are filled) */
	int			  oauth2_offered;
	char			 *oauth2_token_url;
	char			 *oauth2_device_url;
	char			 *oauth2_auth_url;
	char			 *oauth2_scope;
	char			 *oauth2_client_id;
};

/*
 * Find the IMAP and submission servers for address, with the DNS settings
 * and ca-file of cf. Implicit TLS is preferred to STARTTLS; a server that
 * offers no TLS is never proposed. Returns 0 (either server may be
 * missing: url.host NULL) or -1 with *cause when nothing could be asked.
 */
int	 setup_discover(const struct config *cf, const char *address,
	    struct setup_found *, char **cause);
void	 setup_found_free(struct setup_found *);

enum setup_which {
	SETUP_IMAP,
	SETUP_SMTP
};

enum setup_result {
	SETUP_OK,
	SETUP_PASSWORD,		/* the server refused the login */
	SETUP_CERT,		/* the certificate could not be verified */
	SETUP_UNREACHABLE,	/* no connection (refused, timed out, no
				   such host) */
	SETUP_NO_TLS,		/* the server offers no TLS: refused */
	SETUP_FAILED		/* anything else */
};

struct setup_check {
	enum setup_result	 result;
	char			*message;	/* plain words, with the
						   server's own when it gave
						   some */
	char			*fingerprint;	/* SETUP_CERT: the certificate's
						   SHA-256, 64 lower-case hex
						   digits, to pin if the user
						   says so */
};

/*
 * Log in to a's IMAP or SMTP server (as a->user, else a->address) with
 * password, checking the certificate as the account would (its
 * cert-fingerprint pin, its ca-file, cf's, or the system store). Fills
 * *r; returns 0 when r->result is SETUP_OK, -1 otherwise.
 */
int	 setup_check(const struct config *cf, const struct account *a,
	    const char *password, enum setup_which, struct setup_check *r);
void	 setup_check_free(struct setup_check *);

/* A secret key the user already has, in the GnuPG home cf uses. */
struct setup_key {
	char	*fpr;		/* upper-case hex */
	char	*uid;		/* its first user ID holding address, or the
				   first one */
	int	 card;		/* the secret part is on a smartcard */
	int	 has_address;	/* a user ID holds the account's address */
};

/*
 * The secret keys usable for signing in cf's GnuPG home (and on a
 * smartcard in its reader), those with address first. Returns 0 (*n may
 * be 0) or -1 with *cause.
 */
int	 setup_keys(const struct config *cf, const char *address,
	    struct setup_key **keys, size_t *n, char **cause);
void	 setup_keys_free(struct setup_key *, size_t);

/* What is saved. */
struct setup_account {
	const char		*id;		/* NULL: setup_account_id() */
	const char		*name;
	const char		*address;
	struct config_url	 imap, smtp;
	const char		*user;		/* NULL: the address */
	const char		*password;	/* saved only without a
						   password command; NULL:
						   asked when needed */
	const char		*password_key;	/* the account's OpenPGP key:
						   the password is kept in a
						   file encrypted to it
						   (password-file); NULL: in
						   the configuration, in
						   clear */
	const char		*password_command;
	const char		*cert_fingerprint; /* a pin the user chose */
	const char		*key;		/* a chosen key's fingerprint,
						   or NULL: found or made */
	int			 smime;
	/* OAuth2 instead of a password: auth = oauth2 and these, each
	 * when not NULL (the password fields are then not used) */
	int			 oauth2;
	const char		*oauth2_token_url;
	const char		*oauth2_device_url;
	const char		*oauth2_auth_url;
	const char		*oauth2_scope;
	const char		*oauth2_client_id;
};

/* An account name not yet used in cf, made from address. */
char	*setup_account_id(const struct config *cf, const char *address);

/*
 * Add the account to the configuration file at path (NULL: the default
 * file), made if missing, mode 0600, every other byte kept; its password
 * (without a password command) encrypted to password_key in a file of the
 * data directory that the configuration names (password-file), which
 * *pwfile names when not NULL. crypto_init() must have run for that.
 * Returns 0, or -1 with *cause and the file untouched.
 */
int	 setup_save(const char *path, const struct setup_account *,
	    char **pwfile, char **cause);

/*
 * The DNS records that publish a's keys (OPENPGPKEY; SMIMEA when it has a
 * certificate), as zone-file lines, written to a file in the data
 * directory; *text the lines, *file its name, *advice two sentences for
 * the domain's administrator. Returns 0, or -1 with *cause.
 */
int	 setup_records(const struct account *a, char **text, char **file,
	    char **advice, char **cause);

/* A token ("srv-secure", "autoconfig", ...), and in words how far a
 * server of that origin can be trusted. */
const char	*setup_origin_name(enum setup_origin);
const char	*setup_origin_trust(enum setup_origin);

/*
 * A server URL as people type it (imaps://host[:port], imap://host[:port]
 * for STARTTLS, which is then required; smtps://, smtp:// likewise) into
 * *url (host allocated, the usual port when none is given); -1 with
 * *cause. setup_url_text() writes it back as the configuration holds it.
 */
int	 setup_url_parse(enum setup_which, const char *text,
	    struct config_url *url, char **cause);
char	*setup_url_text(enum setup_which, const struct config_url *);

#endif
