/*
 * trust-msg.h: a received message into the trust store. From the
 * verdicts of crypto-in.h it takes the signature by the From address and
 * the keys Autocrypt imported, asks gpg whether a new key is certified by
 * the pinned one, and hands both to trust-store.h's rules. Callers:
 * ui/cli-inspect.c and ui/cli-view.c. It never prints.
 */
#ifndef STEED_TRUST_MSG_H
#define STEED_TRUST_MSG_H

#include <time.h>

#include "trust-store.h"

struct crypto_in;

/*
 * The sender's state for the message ci analysed (stored on first
 * processing, then read back once final), decided together with the key
 * of its own Autocrypt header; its gossip keys are recorded as sightings.
 * -1 with *cause when there is no sender or the store fails.
 */
int	trust_msg_record(struct trust_store *, const struct crypto_in *,
	    time_t now, struct trust_verdict *, char **cause);

#endif
