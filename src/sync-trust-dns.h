/*
 * sync-trust-dns.h: the keys of the senders of a sync's new signed mail,
 * looked up in DNS (OPENPGPKEY) by the trust step (sync-trust.c) around
 * deciding the messages: a secure record's key becomes a sighting before
 * (so the rules give dns-confirmed or conflict), an insecure one's after
 * (a hint never decides a message), and a bogus answer only marks the
 * address in the trust store. One lookup for all senders under
 * dns-timeout; servfail, timeouts and an unusable resolver record nothing
 * and cost one warning (fe_notice). Runs on the sync's thread, which may
 * wait; it never prints. doc/trust.md, "Keys of senders from DNS".
 */
#ifndef STEED_SYNC_TRUST_DNS_H
#define STEED_SYNC_TRUST_DNS_H

#include <stddef.h>

#include "config.h"
#include "trust-store.h"

struct sync_trust_dns;

/*
 * Look up senders (n From addresses, duplicates allowed) that DNS has not
 * answered secure or insecure for in the last day, or whose last answer
 * was bogus, and record what comes back, the insecure keys excepted.
 * mailbox (or NULL) is named in the warning. NULL when nothing was asked.
 */
struct sync_trust_dns *sync_trust_dns_before(struct trust_store *,
		    const struct config *, const char *mailbox,
		    char *const *senders, size_t n);
/* After the messages: the insecure answers' keys become sightings. */
void		 sync_trust_dns_after(struct trust_store *,
		    struct sync_trust_dns *);
void		 sync_trust_dns_free(struct sync_trust_dns *);

#endif
