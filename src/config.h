/*
 * config.h: the configuration file, parsed into a struct config. The file
 * has global settings first, then one [account NAME] section per account;
 * doc/steedmail.conf.5 describes it. The settings themselves are listed in
 * one table (config-table.c) that drives parsing, validation, --help-config
 * and the check that the man page documents each of them.
 */
#ifndef STEED_CONFIG_H
#define STEED_CONFIG_H

#include <stddef.h>

enum config_tls {
	CONFIG_TLS_IMPLICIT,	/* imaps://, smtps://: TLS from the first byte */
	CONFIG_TLS_STARTTLS	/* imap://, smtp://: STARTTLS, always required */
};

struct config_url {
	enum config_tls	 tls;
	char		*host;
	unsigned	 port;
};

struct account {
	char		*id;		/* the NAME of [account NAME] */
	char		*file;
	int		 line;

	char		*name;		/* display name for From */
	char		*address;
	struct config_url imap;
	struct config_url smtp;
	char		*user;		/* login; defaults to address */
	char		*password;
	int		 password_line;	/* where password is set, for
					   --check-config's warning */
	char		*password_command;
	char		*password_file;	/* encrypted to the account's key */
	/* OAuth2 sign-in (oauth2.h); auth NULL or "password": none */
	char		*auth;		/* "password", "oauth2" */
	char		*oauth2_token_file; /* the refresh token, encrypted */
	char		*oauth2_token_url;
	char		*oauth2_device_url;
	char		*oauth2_auth_url;
	char		*oauth2_scope;
	char		*oauth2_client_id;
	char		*oauth2_client_secret;
	char		*oauth2_mechanism; /* oauthbearer, xoauth2; NULL: any */
	char		*sent_copy;	/* "yes", "no", "auto"; NULL: auto */
	/* the folders of the roles (imap-role.h); NULL: found */
	char		*sent_folder;
	char		*trash_folder;
	char		*drafts_folder;
	char		*archive_folder;
	char		*ca_file;
	char		*cert_fingerprint; /* 64 lower-case hex digits */
	char		*key;		/* OpenPGP fingerprint, upper-case hex */
	int		 smime;		/* also an S/MIME certificate */
	char		*smime_key;	/* its fingerprint, upper-case hex */

	/* publishing the keys by DNS UPDATE (dns-update.h); NULL: unset */
	char		*dns_update_server;	/* HOST[:PORT] */
	char		*dns_update_key;	/* ALGORITHM:NAME:SECRET */
	char		*dns_update_zone;	/* NULL: the address's domain */

	struct account	*next;
};

struct config {
	char		*path;
	char		*default_account;
	char		*ca_file;
	char		*gnupg_home;	/* NULL: steedmail's own, in the data dir */

	/* DNS lookups of correspondents' keys (dns-lookup.h) */
	char		*dns_config;	/* an unbound.conf, or NULL */
	char		*dns_forwarder;	/* instead of /etc/resolv.conf */
	int		 dns_recursion;	/* from the roots, no forwarder */
	int		 autoedit;	/* m: the editor first, as mutt's */
	char		*dns_trust_anchor; /* extra anchors file */
	int		 dns_timeout;	/* seconds; 0: the default */

	/* the encryption policy (policy.h); NULL: the defaults */
	char		*encrypt;	/* opportunistic, always, never */
	char		*fallback;	/* plaintext, ask, refuse */
	/* how long a message may wait in the outbox for a DNS answer */
	char		*dns_wait;	/* a duration; NULL: the default */

	/* the aliases for address completion (addrbook.h); NULL: default */
	char		*alias_file;

	/* commands the interface runs (command.h); NULL: none */
	char		*new_mail_command;	/* %f folder, %n count */
	char		*query_command;		/* %s what is looked up */

	/* the provider files of the setup wizard (provider.h); NULL: the
	 * directory make install filled */
	char		*provider_dir;

	/* new messages of a sync fed to the trust store (sync-trust.h) */
	char		*sync_trust_limit; /* a number; NULL: the default */

	/* an opened message's protected header values kept in the header
	 * cache (cache-protected.h): "yes", "no"; NULL: yes */
	char		*cache_protected;

	/* the body cache's bound (body-cache.h): a size; NULL: default */
	char		*body_cache_size;
	/* after a sync, the newest days of mail into the body cache; a
	 * number; NULL: 0, none */
	char		*body_prefetch_days;
	/* decrypted text in the full-text index (search-index.h): "yes",
	 * "no"; NULL: no */
	char		*index_decrypted;
	/* --offline: never connect (not a setting) */
	int		 offline;

	/* the interface's `bind MAP KEY ACTION` lines, in file order; not
	 * checked here (tui-keys.c knows the names) */
	char		**binds;
	size_t		 nbinds;	/* must follow binds: CONFIG_LIST */
	/* `color OBJECT FG BG [ATTRS]` lines, in file order, each checked
	 * by color_parse() (color.h); the interface applies them */
	char		**colors;
	size_t		 ncolors;	/* must follow colors */

	struct account	*accounts;
	size_t		 naccounts;

	char		**warnings;	/* shown to the user, not fatal */
	size_t		 nwarnings;
};

/* Setting types; each has one validator in config.c. */
enum config_type {
	CONFIG_STRING,		/* one line of text, no controls */
	CONFIG_SECRET,		/* a string that is never shown or logged */
	CONFIG_COMMAND,		/* a shell command line */
	CONFIG_ADDRESS,		/* local@domain */
	CONFIG_IMAP_URL,	/* imaps://host[:port], imap://host[:port] */
	CONFIG_SMTP_URL,	/* smtps://host[:port], smtp://host[:port] */
	CONFIG_PATH,		/* a file name; ~/ is expanded */
	CONFIG_FINGERPRINT,	/* SHA-256, hex, colons allowed */
	CONFIG_ACCOUNT_ID,	/* the name of an [account] section */
	CONFIG_KEY_ID,		/* a key fingerprint: 40 or 64 hex digits */
	CONFIG_BOOL,		/* yes or no (an int field) */
	CONFIG_SECONDS,		/* 1 to 3600 (an int field) */
	CONFIG_CHOICE,		/* one of the words of metavar, a|b|c */
	CONFIG_LIST		/* repeatable text: a char ** with its size_t
				   count right after it */
};

enum config_scope {
	CONFIG_GLOBAL,
	CONFIG_ACCOUNT
};

struct config_setting {
	const char		*name;
	enum config_scope	 scope;
	enum config_type	 type;
	size_t			 offset;	/* in struct config or account */
	int			 required;
	const char		*metavar;
	const char		*help;
};

extern const struct config_setting config_settings[];
extern const size_t config_nsettings;

/*
 * Read and validate path. If path is NULL, the default file is used and
 * may be missing (an empty configuration). Returns NULL and sets *cause
 * to "file:line: what is wrong" on any error.
 */
struct config	*config_load(const char *path, char **cause);
void		 config_free(struct config *);
/* The account named id, or the default account when id is NULL. */
struct account	*config_account(struct config *, const char *id, char **cause);
/*
 * What --check-config says beyond what loading warns about (cf->warnings):
 * each account that keeps its password in clear in the file. *n lines,
 * allocated, each freed, and the array.
 */
char		**config_audit(const struct config *, size_t *n);
const char	*config_type_name(enum config_type);
/*
 * A duration: a number of seconds, or of minutes, hours or days with m,
 * h or d after it ("90", "30m", "12h", "2d"); from 1 s to 365 days.
 * Returns 0 and *secs, or -1 with *why (allocated).
 */
int		 config_duration(const char *, long long *secs, char **why);
/* dns-wait in seconds: how long a message waits for DNS (2 days). */
#define CONFIG_DNS_WAIT_DEFAULT	(2LL * 24 * 3600)
long long	 config_dns_wait(const struct config *);

#endif
