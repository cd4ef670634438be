/*
 * dns-cache.h: the SQLite cache of DNS key answers (dns.sqlite in the
 * cache directory), used by dns-lookup.c. One row per (owner name, type):
 * the status, whether a denial was proven, the records and when the answer
 * expires. Only secure, insecure and none answers are kept; a bogus,
 * servfail, timeout or error answer is never stored, so the next lookup
 * asks again. Losing the file costs a lookup, never a key.
 */
#ifndef STEED_DNS_CACHE_H
#define STEED_DNS_CACHE_H

#include <time.h>

#include "dns-lookup.h"

#define DNS_CACHE_MAX_TTL	86400	/* a record is asked again daily */
#define DNS_CACHE_NEG_TTL	300	/* a "none" at most five minutes */

struct dns_cache;

/* Open (creating, or rebuilding when corrupt or not ours) path. */
struct dns_cache *dns_cache_open(const char *path, char **cause);
void		 dns_cache_close(struct dns_cache *);

/*
 * The answer for owner and type still valid at now, into *r (status,
 * secure_denial, ttl = seconds left, records, cached = 1; address and
 * owner untouched). Returns 1 when found, 0 when not (or expired), -1.
 */
int		 dns_cache_get(struct dns_cache *, const char *owner,
		     enum dns_type, time_t now, struct dns_result *r,
		     char **cause);
/*
 * Keep r's answer for owner and type from now on for its TTL (capped as
 * above). Statuses other than secure, insecure and none are ignored, as is
 * a TTL of 0.
 */
int		 dns_cache_put(struct dns_cache *, const char *owner,
		     enum dns_type, time_t now, const struct dns_result *r,
		     char **cause);

#endif
