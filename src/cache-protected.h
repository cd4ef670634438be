/*
 * cache-protected.h: what an opened message's protected header (RFC 9788)
 * says, kept in the header cache (cache.h) for the index: Subject, From,
 * To, Cc, Date, Message-ID, In-Reply-To and References, with what vouched
 * for them. Only the header crypto-in vouches for (decrypted with
 * integrity protection, or covered by a good signature) is read; a
 * decrypted message without one is kept as opened, without values, so
 * that the index no longer shows it sealed. session.c calls it for every
 * message the trust step of a sync or a front end opens.
 */
#ifndef STEED_CACHE_PROTECTED_H
#define STEED_CACHE_PROTECTED_H

#include <stdint.h>

#include "cache.h"

struct message;

/*
 * The values m's protected header gives, into *p (allocated strings:
 * cache_protected_free()): 1 when there is something to keep (a
 * protected header is used, or m was decrypted), 0 when there is not
 * (*p is then empty).
 */
int	 cache_protected_of(const struct message *m, struct cache_protected *p);
void	 cache_protected_free(struct cache_protected *);

/*
 * Keep what m, opened from uid of mb, gives (cache_protected_put()).
 * Returns 1 when the cache changed, 0 when there was nothing to keep or
 * it held that already, -1 with *cause.
 */
int	 cache_protected_keep(struct cache *, const struct cache_mailbox *mb,
	    uint32_t uid, const struct message *m, char **cause);

#endif
