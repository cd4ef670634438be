/*
 * setup-int.h: what the files of account/ share among themselves and with
 * their unit tests; the wizard's callers use setup.h only.
 */
#ifndef STEED_SETUP_INT_H
#define STEED_SETUP_INT_H

#include "dns-query.h"
#include "setup.h"

/* Add a note (allocated, taken over) to what discovery found. */
void	 setup_found_note(struct setup_found *, char *note);

/*
 * Put SRV records in the order RFC 2782 says to try them: by priority,
 * then, within one priority, a weighted random order (weight 0 first
 * among equals, rarely picked before a heavier one).
 */
void	 setup_srv_order(struct dns_srv *, size_t n);

/* 993, 143, 465 or 587. */
unsigned setup_usual_port(enum setup_which, enum config_tls);

/*
 * Connect to the server of url as the account would (implicit TLS, or
 * the protocol's STARTTLS, required then) and check its certificate
 * against cf's ca-file or the system store, without logging in; each step
 * within seconds. Returns 0 when a verified TLS connection was made, -1
 * with *cause.
 */
int	 setup_probe(const struct config *cf, enum setup_which,
	    const struct config_url *url, int seconds, char **cause);

/*
 * The SHA-256 fingerprint a refusal of net-tls.h names ("SHA-256
 * AB:CD:..."), as 64 lower-case hex digits, or NULL.
 */
char	*setup_fingerprint_in(const char *text);

#endif
