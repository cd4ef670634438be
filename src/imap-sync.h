/*
 * imap-sync.h: bringing the header cache of one mailbox up to date on a
 * logged-in IMAP session. It asks the server only for what changed: with
 * CONDSTORE, nothing at all when HIGHESTMODSEQ, UIDNEXT and the message
 * count are unchanged; otherwise the flags that changed, the new messages'
 * envelopes (in batches, so memory stays flat whatever the mailbox size),
 * and the UIDs still there when messages were expunged.
 */
#ifndef STEED_IMAP_SYNC_H
#define STEED_IMAP_SYNC_H

#include <stdint.h>

#include <libetpan/libetpan.h>

#include "cache.h"

struct imap_sync_stats {
	uint32_t	exists;		/* messages in the mailbox now */
	uint32_t	fetched;	/* new envelopes fetched */
	uint32_t	flags_changed;
	uint32_t	expunged;
	int		condstore;	/* the server offered it */
	int		unchanged;	/* nothing to ask: warm and current */
	int		qresync;	/* the SELECT said what changed
					   (QRESYNC, RFC 7162) */
	struct cache_mailbox mb;	/* the cache's view after the sync */
};

/*
 * UIDs per UID FETCH of envelopes. The streaming reader keeps nothing per
 * batch, so the size only trades round trips and transactions against how
 * much work an interrupted sync repeats (doc/bench.md).
 */
#define IMAP_SYNC_BATCH	10000
/* The first batch of a long fetch: what a first screen needs. */
#define IMAP_SYNC_FIRST	200

/*
 * Sync mailbox into the cache. selected: the connection has it selected
 * (read-write) already, and what the server said since is to be asked
 * for without a new SELECT where the cache allows (QRESYNC, a modseq).
 */
int	imap_sync(mailimap *, struct cache *, const char *mailbox,
	    int selected, struct imap_sync_stats *, char **cause);
/* A cause for a failed libetpan call, with the server's words. */
char	*imap_sync_error(mailimap *, const char *what, int err);

#endif
