/*
 * autoconfig.h: the config-v1.1.xml format in which mail providers say
 * where their servers are (Thunderbird's "autoconfig", described by the
 * IETF draft "Mail Autoconfig"), read from untrusted bytes into a struct.
 * The setup wizard reads such a document from the domain's own web server
 * (account/discover-web.c) and from the provider files shipped with
 * steedmail (provider.h); doc/setup.md describes both.
 *
 * Only what steedmail uses is kept: the first <emailProvider>'s domains
 * and names, its IMAP and SMTP servers in the order given, the page that
 * says how to switch IMAP on (<enable>), the provider's instructions
 * (<documentation>), and its <oAuth2> endpoints. steedmail adds a few
 * elements of its own, which other readers ignore: <appPassword
 * visiturl="..."> (the provider refuses the account's password here and
 * wants an app password, made on that page), and in <oAuth2>
 * <deviceAuthURL>, <clientID> and <clientSecret> (for OAuth2 sign-in,
 * oauth2.h, where the account's settings name none).
 */
#ifndef STEED_AUTOCONFIG_H
#define STEED_AUTOCONFIG_H

#include <stddef.h>

#define AUTOCONFIG_MAX		(64 * 1024)	/* bytes of one document */
#define AUTOCONFIG_SERVERS	8	/* IMAP and SMTP servers kept */
#define AUTOCONFIG_DOMAINS	256	/* <domain> elements kept */

enum autoconfig_kind {
	AUTOCONFIG_IMAP,
	AUTOCONFIG_SMTP
};

enum autoconfig_socket {
	AUTOCONFIG_SOCKET_NONE,		/* not given, or not understood */
	AUTOCONFIG_SOCKET_PLAIN,	/* no TLS at all */
	AUTOCONFIG_SOCKET_SSL,		/* TLS from the first byte */
	AUTOCONFIG_SOCKET_STARTTLS
};

/* <authentication> methods, a bit set. */
#define AUTOCONFIG_AUTH_PASSWORD	0x01	/* password-cleartext (in TLS) */
#define AUTOCONFIG_AUTH_PASSWORD_HASH	0x02	/* password-encrypted */
#define AUTOCONFIG_AUTH_OAUTH2		0x04
#define AUTOCONFIG_AUTH_OTHER		0x08	/* a client certificate,
						   GSSAPI, NTLM, none, ... */

struct autoconfig_server {
	enum autoconfig_kind	 kind;
	char			*hostname;	/* as written; NULL: none */
	unsigned		 port;		/* 0: none, or not a port */
	enum autoconfig_socket	 socket;
	unsigned		 auth;		/* AUTOCONFIG_AUTH_*; 0: none
						   named */
	char			*username;	/* as written (%EMAILADDRESS%,
						   ...), or NULL */
};

/* A page to visit and what to do there (<enable>, <documentation>,
 * <appPassword>); the text in English when the document has it. */
struct autoconfig_link {
	char	*url;
	char	*text;
};

struct autoconfig_oauth2 {
	char	*issuer;
	char	*scope;
	char	*auth_url;
	char	*token_url;
	char	*device_url;	/* steedmail's <deviceAuthURL> (RFC 8628) */
	char	*client_id;	/* steedmail's <clientID> */
	char	*client_secret;	/* steedmail's <clientSecret> */
};

struct autoconfig {
	char			 *id;		/* <emailProvider id="..."> */
	char			 *name;		/* displayName, else the
						   short name, else the id */
	char			 *short_name;	/* displayShortName, else the
						   name */
	char			**domains;
	size_t			  ndomains;
	struct autoconfig_server  servers[AUTOCONFIG_SERVERS];
	size_t			  nservers;
	size_t			  dropped;	/* IMAP and SMTP servers past
						   AUTOCONFIG_SERVERS */
	struct autoconfig_link	  enable;
	struct autoconfig_link	  documentation;
	struct autoconfig_link	  app_password;
	struct autoconfig_oauth2  oauth2;	/* all NULL: none given */
};

/*
 * Read a config-v1.1 document of len bytes (at most AUTOCONFIG_MAX).
 * A document that declares a DTD is refused before anything of it is
 * used: no entity is ever expanded, no external one ever fetched. Returns
 * 0 and *ac (autoconfig_free), or -1 and *cause.
 */
int	 autoconfig_parse(const char *data, size_t len, struct autoconfig **ac,
	    char **cause);
void	 autoconfig_free(struct autoconfig *);

/* Does ac list domain among its <domain>s (any case)? */
int	 autoconfig_has_domain(const struct autoconfig *, const char *domain);

/*
 * A hostname or username of the document with the address filled in
 * (%EMAILADDRESS%, %EMAILLOCALPART%, %EMAILDOMAIN%), or NULL when it
 * holds another %WORD% or the address has no '@'.
 */
char	*autoconfig_expand(const char *text, const char *address);

/* "IMAP" or "SMTP"; "SSL", "STARTTLS", "plain" or "none". */
const char *autoconfig_kind_name(enum autoconfig_kind);
const char *autoconfig_socket_name(enum autoconfig_socket);

#endif
