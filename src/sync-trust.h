/*
 * sync-trust.h: feeds the new messages of a sync into the trust store, so
 * that a message gets its sender's trust state when it is first seen, not
 * only when someone opens it (doc/trust.md, "At sync time").
 *
 * After imap_sync() has stored the envelopes of the UIDs first..last, the
 * header cache (how->candidates), or else one UID SEARCH, bounded to the
 * newest how->limit messages of the mailbox (the first screen), finds
 * those that can carry evidence; the new
 * messages older than those are handed to how->behind first, and a later
 * call (newest_first, SYNC_TRUST_ALL) comes back to them, the newest
 * first and a few at a time if the caller wants. Evidence is a
 * Content-Type multipart/signed, multipart/encrypted, application/
 * pkcs7-mime or x-pkcs7-mime, or an Autocrypt header. Those the trust store already has (by Message-ID and
 * sender) are not fetched; the others are fetched whole, one at a time,
 * and are opened as every front end opens a message (message_open(),
 * message.h), their sender's state recorded with message_trust(). Before
 * that, the senders of the signed ones are looked up in DNS (OPENPGPKEY,
 * one dns_lookup() under dns-timeout, how->cf): a secure record's key
 * becomes a sighting first, an insecure one's after the messages are
 * decided, and a bogus answer only marks the address in the trust store
 * (doc/trust.md, "Keys of senders from DNS").
 *
 * Every message opened is handed to how->opened, so that what its
 * protected header says reaches the header cache (cache-protected.h); an
 * encrypted message the trust store knows already is fetched for that
 * alone when how->wants says so (a header cache made anew).
 *
 * Nothing here ever asks for a passphrase: a message that may need one to
 * be decrypted is left for when it is opened. A message that cannot be
 * fetched, parsed or checked is skipped and named in one warning
 * (fe_notice()), and the resume point is moved past each message before
 * it is looked at (how->passing): one message can cost a sync that
 * message's state, never the sync, and never the next one. The sync's own
 * result never depends on this step. It never prints. It reports
 * progress and stops between messages when fe_cancelled() says so
 * (frontend.h).
 */
#ifndef STEED_SYNC_TRUST_H
#define STEED_SYNC_TRUST_H

#include <stdint.h>

#include <libetpan/libetpan.h>

struct config;
struct message;

/* Newest messages of a sync looked at (the sync-trust-limit setting). */
#define SYNC_TRUST_LIMIT	300
#define SYNC_TRUST_LIMIT_MAX	100000
/* Larger messages are not fetched at sync time. */
#define SYNC_TRUST_MAX_SIZE	(2u * 1024 * 1024)
#define SYNC_TRUST_MAX_MB	"2"	/* the same, said */

struct sync_trust_how {
	/*
	 * The newest messages of the mailbox looked at (0: do nothing,
	 * SYNC_TRUST_ALL: every one of first..last); those older among
	 * first..last are left to behind().
	 */
	unsigned	 limit;		/* 0: do nothing */
	/*
	 * 0: oldest first, the order the trust store would have seen
	 * them. 1 (what a sync left behind): newest first, at most
	 * most candidates (0: all), the rest reported in st->rest.
	 */
	int		 newest_first;
	unsigned	 most;
	const char	*gnupg_home;	/* for crypto_init(); NULL: default */
	/* The dns-* settings for looking senders' keys up; NULL: no DNS. */
	const struct config *cf;
	const char	*mailbox;	/* named in the warning, or NULL */
	/*
	 * Called (unless NULL) with each message's UID before the message
	 * is fetched: the caller moves the folder's resume point to it
	 * (cache_mailbox_trusted), so that no sync comes back to a message
	 * this step has once started on, even one that stopped the process.
	 */
	void		(*passing)(void *arg, uint32_t uid);
	/*
	 * Called (unless NULL) with each message opened: the caller keeps
	 * what it wants of it (its protected header values, in the header
	 * cache), whatever the trust store makes of it.
	 */
	void		(*opened)(void *arg, uint32_t uid,
			    const struct message *);
	/*
	 * Unless NULL: 1 if uid, a message whose sender's state the trust
	 * store has already, is to be opened all the same (its protected
	 * header values are not cached yet). It is then fetched and opened
	 * for opened() only, and counted as known.
	 */
	int		(*wants)(void *arg, uint32_t uid);
	/*
	 * Called (unless NULL) before any message is looked at, when limit
	 * left new messages out: lo..hi holds them all (the caller keeps
	 * them pending, for sync_trust() to come back to, newest first).
	 */
	void		(*behind)(void *arg, uint32_t lo, uint32_t hi);
	/*
	 * Unless NULL: the UIDs of lo..hi that can carry evidence, from
	 * what the sync stored (cache_evidence()): 1 and *uids (freed
	 * here), or 0 when it cannot tell, and the server is asked.
	 */
	int		(*candidates)(void *arg, uint32_t lo, uint32_t hi,
			    uint32_t **uids, size_t *n);
	void		*arg;
};

/*
 * The highest UID among first..last of the messages older than sequence
 * number lo (0 if none) into *hi: what a limit of the newest messages
 * leaves out. uid_at(arg, seq, &uid, cause) gives the UID at a sequence
 * number (0: none there), or -1. UIDs grow with sequence numbers, so this
 * is the UID at lo - 1 when that is at most last (one call: nothing newer
 * than last came in), else a binary search for the highest sequence
 * number below it whose UID is: about log2(lo) calls. Nothing it asks
 * grows with the mailbox, where a SEARCH would list every older UID.
 */
int	sync_trust_below(uint32_t first, uint32_t last, uint32_t lo,
	    int (*uid_at)(void *, uint32_t, uint32_t *, char **), void *arg,
	    uint32_t *hi, char **cause);

/* A limit that takes in every message of first..last. */
#define SYNC_TRUST_ALL	0xffffffffu

struct sync_trust_stats {
	unsigned	 candidates;	/* found by the search */
	unsigned	 processed;	/* recorded in the trust store now */
	unsigned	 known;		/* processed before: not fetched */
	unsigned	 skipped;	/* left for when they are opened */
	unsigned	 kept;		/* their protected header values kept
					   in the header cache (set by
					   session_trust(): how->opened) */
	uint32_t	 rest;		/* newest_first: the newest candidate
					   not taken (how->most), or 0 */
	int		 stopped;	/* cancelled, or the connection was
					   lost: not every candidate taken
					   was reached */
};

/*
 * The limit a sync-trust-limit value (NULL: not set) gives, or -1 and
 * *cause when it is not a number from 0 to SYNC_TRUST_LIMIT_MAX.
 */
/*
 * UID sets as IMAP writes them ("1:40,52:90"), for what is pending. The
 * highest range of set into *lo..*hi: 0 if set is empty (or not a set).
 * Add returns set with lo..hi added, cut set without the UIDs from from
 * up; both allocated, in order, ranges merged.
 */
int	 sync_trust_set_top(const char *set, uint32_t *lo, uint32_t *hi);
char	*sync_trust_set_add(const char *set, uint32_t lo, uint32_t hi);
char	*sync_trust_set_cut(const char *set, uint32_t from);

int	sync_trust_limit(const char *setting, unsigned *limit, char **cause);

/*
 * Feed the messages with UIDs first..last of the mailbox selected on imap
 * (the sync just stored them) into the trust store. Returns 0 with *st
 * filled (a warning names what was skipped), or -1 and *cause when
 * the step could not be done at all (the search failed, the trust store
 * or gpg cannot be used). Either way the sync stands.
 */
int	sync_trust(mailimap *, uint32_t first, uint32_t last,
	    const struct sync_trust_how *, struct sync_trust_stats *,
	    char **cause);

#endif
