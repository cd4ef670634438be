/*
 * net-tls.h: TCP connections, and TLS over them that checks the server's
 * certificate, as libetpan streams. libetpan's own TLS code checks neither
 * the chain nor the host name, so every IMAP and SMTP connection is built
 * here and handed to libetpan ready-made (mailimap_connect, mailsmtp_connect).
 */
#ifndef STEED_NET_TLS_H
#define STEED_NET_TLS_H

#include <libetpan/libetpan.h>

#include "config.h"

#define NET_TIMEOUT	30	/* seconds, when a policy gives none */

/* What the server's certificate must be. */
struct net_tls_policy {
	const char	*host;		/* the name (or address) used */
	const char	*ca_file;	/* PEM CAs; NULL: the system store */
	const char	*pin_sha256;	/* 64 hex digits: accept only this
					   certificate, whoever signed it */
	int		 timeout;	/* seconds for the handshake and
					   each read or write; 0: the
					   default, NET_TIMEOUT */
};

/*
 * Connect to host:port, trying every address it resolves to, each for at
 * most timeout seconds. Returns a blocking socket, or -1 and a cause such
 * as "cannot connect to imap.example.org:993: Connection refused".
 */
int		 net_connect(const char *host, unsigned port, int timeout,
		     char **cause);

/*
 * TLS from the first byte on fd (imaps, smtps). Returns a stream that owns
 * fd, or NULL and a cause (fd is then left open for the caller to close).
 * The certificate is checked as the policy says; a refusal names the
 * certificate's SHA-256 fingerprint.
 */
mailstream	*net_tls_open(int fd, const struct net_tls_policy *,
		     char **cause);

/*
 * Turn a plain stream into a TLS one in place, after the server accepted
 * STARTTLS. Refuses when the server already sent bytes after its reply to
 * STARTTLS (they would be read as if protected by TLS). On failure the
 * stream is unchanged and should be closed.
 */
int		 net_tls_starttls(mailstream *,
		     const struct net_tls_policy *, char **cause);

/*
 * The policy for a server of an account: the account's pin and CA file, or
 * the global ca_file, or the system store.
 */
void		 net_tls_policy_account(struct net_tls_policy *,
		     const struct account *, const struct config_url *,
		     const char *ca_file);

/*
 * Connect to the server of a URL: with implicit TLS, a verified TLS stream;
 * with STARTTLS, a plain stream for the protocol to upgrade with
 * net_tls_starttls() before it sends anything that matters.
 */
mailstream	*net_open(const struct config_url *, const struct net_tls_policy *,
		     char **cause);

/* Is this stream one of ours, with TLS up? */
int		 net_tls_active(mailstream *);

/*
 * Does the stream hold received bytes not yet handed out (in libetpan's
 * buffer or in a TLS record)? Who polls the socket, as IMAP IDLE does, must
 * check this first: such bytes never make the socket readable again.
 */
int		 net_tls_pending(mailstream *);

/*
 * A filter on what is read from a stream of ours: fn sees every byte read
 * from the connection, in order, before anyone else does (before
 * libetpan's buffer). When it returns -1, that read and every later read
 * and write fail, as on a broken connection. arg is fn's own, freed with
 * arg_free (which may be NULL) when the stream is, or when another filter
 * takes its place. -1 if the stream is not one of ours (arg is then left
 * to the caller).
 */
typedef int	(*net_tls_filter_fn)(void *arg, const void *buf, size_t n);
int		 net_tls_set_filter(mailstream *, net_tls_filter_fn,
		     void *arg, void (*arg_free)(void *));
/* The arg of the stream's filter if that filter is fn, else NULL. */
void		*net_tls_filter_arg(mailstream *, net_tls_filter_fn fn);

/* The name (or address) of the server of a stream of ours, or NULL. */
const char	*net_tls_host(mailstream *);

/* SHA-256 of the server's certificate, 64 lower-case hex digits, or NULL. */
char		*net_tls_fingerprint(mailstream *);

/* A fingerprint as people read it: "AB:CD:...". Returns new memory. */
char		*net_tls_fingerprint_pretty(const char *hex);

#endif
