/*
 * dns-update.h: an account's key records (ownkey.h) put into its domain's
 * DNS with a dynamic update (RFC 2136) signed with TSIG (RFC 8945), and
 * looked up again, past every cache, until they are served. libldns builds,
 * signs and sends the update and checks the answer's signature; a
 * libunbound context of its own (never the shared one of dns-lookup.c,
 * whose cache would answer with what was there before) validates the
 * answers (dns-update-check.c). Settings: dns-update-server,
 * dns-update-key, dns-update-zone (config.h). Callers: the --publish
 * command (ui/cli-publish.c), config.c for checking the settings. Never
 * prints; the key's secret is never put into a cause or a log line.
 */
#ifndef STEED_DNS_UPDATE_H
#define STEED_DNS_UPDATE_H

#include <stddef.h>

#include "config.h"
#include "dns-lookup.h"

#define DNS_UPDATE_PORT		53
#define DNS_UPDATE_TIMEOUT_MS	10000	/* for the update itself */
#define DNS_UPDATE_VERIFY_MS	10000	/* for it to be served */

/* config.c's checks of the settings' forms; -1 with *cause (no secret). */
int	 dns_update_check_server(const char *, char **cause);
int	 dns_update_check_key(const char *, char **cause);
int	 dns_update_check_zone(const char *, char **cause);

/* The zone to update: dns-update-zone, else the address's domain. */
char	*dns_update_zone(const struct account *);

/*
 * One record set to publish: all records of owner and type are replaced
 * by this one (rdata: the record's data as on the wire).
 */
struct dns_update_rr {
	char			*owner;		/* without the final dot */
	enum dns_type		 type;
	unsigned char		*rdata;
	size_t			 len;
	unsigned int		 ttl;
};

/*
 * Why an update failed, in the few classes a front end acts on: the
 * settings are wrong, the server is out of reach, it refused (the key or
 * the zone), or it answered with something else.
 */
enum dns_update_error {
	DNS_UPDATE_OK,
	DNS_UPDATE_CONFIG,	/* bad or missing settings */
	DNS_UPDATE_NETWORK,	/* no connection, no answer in time */
	DNS_UPDATE_REFUSED,	/* REFUSED, NOTAUTH, a bad TSIG */
	DNS_UPDATE_FAILED	/* any other error code, a bad answer */
};

/*
 * Send one update for the account's zone: for each rr, delete the RRset
 * of its owner and type and add rr, TSIG-signed with dns-update-key, over
 * TCP to dns-update-server. The answer must carry a valid TSIG of the same
 * key. Returns DNS_UPDATE_OK, or the class with *cause (plain words: "the
 * server refused the update (REFUSED): ...").
 */
enum dns_update_error dns_update_send(const struct account *,
	    const struct dns_update_rr *, size_t n, char **cause);

/*
 * What a validating resolver answers for one record now: status as in
 * dns-lookup.h; matches: one of the records served is exactly rr's data;
 * served: the data of every record served (secure and insecure answers),
 * why: the reason for anything but secure (bogus: the validator's).
 */
struct dns_update_check {
	enum dns_status		 status;
	int			 matches;
	struct dns_record	*served;
	size_t			 nserved;
	char			*why;
};

/*
 * Look up each rr's owner and type afresh (a new resolver, no cache) with
 * the configuration's dns-* settings. With wait_ms > 0, ask again until
 * every rr is served secure and matching or wait_ms has passed; the last
 * answers go into checks[] (n of them, to be freed with
 * dns_update_checks_free). -1 with *cause when nothing could be asked.
 */
int	 dns_update_verify(const struct config *, const struct dns_update_rr *,
	    size_t n, int wait_ms, struct dns_update_check *checks,
	    char **cause);
void	 dns_update_checks_free(struct dns_update_check *, size_t n);

#endif
