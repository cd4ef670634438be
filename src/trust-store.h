/*
 * trust-store.h: what steedmail remembers about correspondents' keys, in
 * one SQLite file under the data directory (trust.sqlite). Per address:
 * the keys seen, where from and when, the user's decisions, and a history
 * of every change; per address and protocol ("openpgp", "smime"): the key
 * pinned for encryption and an open key change or DNS conflict. The two
 * protocols are independent: a signature is judged against the pin of its
 * own protocol only. Per received message: the sender's trust state when the
 * message was first processed, so that it keeps the indicator it earned.
 *
 * The rules that turn sightings and signatures into states are here and
 * only here (trust-rules.c, trust-decide.c; doc/trust.md has them as a
 * table). Callers: ui/cli-inspect.c, ui/cli-view.c,
 * ui/cli-trust.c and policy.c. It never prints and never calls gpg: what gpg
 * knows (a signature's status, a key certifying another) the caller
 * passes in. Addresses are stored with the domain in lower case and the
 * local part as given, and compared without regard to ASCII case.
 */
#ifndef STEED_TRUST_STORE_H
#define STEED_TRUST_STORE_H

#include <stddef.h>
#include <time.h>

struct trust_store;

enum trust_state {
	TRUST_NONE,		/* nothing known about the address */
	TRUST_UNSIGNED,		/* the message is not signed by the sender */
	TRUST_FIRST_CONTACT,	/* the first key ever seen: accepted */
	TRUST_KNOWN,		/* the pinned key again */
	TRUST_KEY_CHANGED,	/* a key other than the pinned one */
	TRUST_REVOKED,
	TRUST_EXPIRED,
	TRUST_DNS_CONFIRMED,	/* a DNSSEC-secure record agrees */
	TRUST_CONFLICT,		/* a DNSSEC-secure record disagrees */
	TRUST_VERIFIED		/* the user compared fingerprints */
};

/* Where a key came from; stored as a bit mask of 1 << source. */
enum trust_source {
	TRUST_SRC_DNS_SECURE,
	TRUST_SRC_DNS_INSECURE,
	TRUST_SRC_AUTOCRYPT,
	TRUST_SRC_GOSSIP,
	TRUST_SRC_ATTACHED,
	TRUST_SRC_MANUAL,
	TRUST_SRC_COUNT
};

/* What the caller knows of the signature a message carries. */
enum trust_sig_status {
	TRUST_SIG_NONE,		/* no good signature by the From address */
	TRUST_SIG_GOOD,
	TRUST_SIG_REVOKED,	/* made by a key that is now revoked */
	TRUST_SIG_EXPIRED
};

struct trust_sig {
	enum trust_sig_status	 status;
	const char		*fpr;	/* the signing key, upper-case hex */
	const char		*proto;	/* "openpgp" or "smime": the pin
					   it is judged against */
	/*
	 * The key is certified by the key pinned for the address in the
	 * same protocol (the caller checked with gpg): a key change
	 * announced by the old key.
	 */
	int			 certified_by_pinned;
	/*
	 * The key the message's own Autocrypt header names for the sender
	 * (trust_store_message() records it as a sighting in the same
	 * transaction, before deciding), or NULL. Unless the message is
	 * signed by that key it is a claim: anyone can write the header.
	 */
	const char		*claim;
	/*
	 * status NONE only: the sender's signature could not be checked
	 * for want of the key. Like every unsigned verdict it is decided
	 * again each time the message is processed, until it is signed.
	 */
	int			 unknown_key;
};

/* The sender's trust state for one message, or an address's state. */
struct trust_verdict {
	enum trust_state	 state;
	char			*fpr;		/* the key it is about, or NULL */
	char			*other;		/* key-changed, conflict: the
						   other fingerprint */
	time_t			 since;		/* fpr first seen; 0 unknown */
	long			 messages;	/* messages signed by fpr */
	char			*evidence;	/* one sentence */
	int			 stored;	/* from an earlier processing */
};

struct trust_key {
	char		*fpr;
	char		*proto;
	unsigned	 sources;	/* 1 << enum trust_source */
	time_t		 first_seen, last_seen, last_sig, dns_confirmed;
	long		 messages;
	char		*decision;	/* none, accepted, rejected, verified */
	int		 revoked, expired;
	int		 pinned;
};

struct trust_event {
	time_t		 when;
	char		*what;
};

/* The protocols, each with a pin of its own; index of trust_peer.pins. */
enum trust_proto {
	TRUST_OPENPGP,
	TRUST_SMIME,
	TRUST_NPROTO
};

/* One protocol's pin of an address. */
struct trust_peer_pin {
	const char		*proto;		/* "openpgp", "smime" */
	int			 present;	/* a pin, a pending key or a
						   conflict */
	struct trust_verdict	 v;		/* its state now */
	char			*pinned;	/* key used for encryption */
	int			 usable;	/* pinned and not revoked or
						   expired */
};

struct trust_peer {
	char			*addr;
	/*
	 * The address's state, pin and usability: those of its OpenPGP
	 * pin, or of its S/MIME pin when it has nothing for OpenPGP (the
	 * main protocol, named by proto). pins[] has both.
	 */
	struct trust_verdict	 v;
	/*
	 * The state every screen and command shows for the address: v's,
	 * but a new key waiting for a decision is a key change whatever
	 * the pin's own state, and a key accepted on first contact stays a
	 * first contact until it has signed a second message (or was
	 * confirmed, verified or changed).
	 */
	enum trust_state	 shown;
	char			*pinned;
	int			 usable;
	const char		*proto;
	struct trust_peer_pin	 pins[TRUST_NPROTO];
	struct trust_key	*keys;
	size_t			 nkeys;
	struct trust_event	*history;
	size_t			 nhistory;
};

/* Open (creating or migrating) the store at path; NULL: the data dir's. */
struct trust_store *trust_store_open(const char *path, char **cause);
void		 trust_store_close(struct trust_store *);
/* Is there a store in the data dir, whether or not it can be read (an
 * empty file, left by a first open that failed, holds nothing)? */
int		 trust_store_exists(void);

/* The address as the store keys it (domain lower case); NULL if bad. */
char		*trust_store_addr(const char *);
/*
 * The key for a message: Message-ID and sender, or, without a
 * Message-ID, a SHA-256 of the raw message.
 */
char		*trust_store_msgkey(const char *msgid, const char *sender,
		     const void *raw, size_t len);

/*
 * A key seen for addr (Autocrypt, DNS, an import) of protocol proto (NULL:
 * "openpgp"), judged against that protocol's pin; now is the time.
 */
int		 trust_store_sighting(struct trust_store *, const char *addr,
		     const char *fpr, const char *proto, enum trust_source,
		     time_t now, char **cause);
/*
 * A received message from addr: its sender's state, decided by the rules
 * (doc/trust.md, "The rules as a table") against the pin of the
 * signature's protocol on first processing and stored; later calls give
 * the stored state. A verdict without a signature (unsigned, an unknown
 * key) is not final: it is decided again, and stored again, each time,
 * so it follows what the store learnt since. An unsigned message names
 * the OpenPGP pin, or the S/MIME one when there is no OpenPGP pin.
 */
int		 trust_store_message(struct trust_store *, const char *msgkey,
		     const char *addr, const struct trust_sig *, time_t now,
		     struct trust_verdict *, char **cause);
/* The key pinned for addr in proto ("openpgp", "smime"), or NULL
   (allocated); proto NULL is "openpgp". */
char		*trust_store_pinned(struct trust_store *, const char *addr,
		     const char *proto);
/*
 * Has the key fpr been seen for addr (from any source, whatever its
 * state)? A key in the GnuPG home with a user ID of addr proves nothing:
 * anybody's Autocrypt header can bring a key with any user ID.
 */
int		 trust_store_knows(struct trust_store *, const char *addr,
		     const char *fpr);
/* Note that gpg finds fpr revoked or expired now. */
int		 trust_store_key_status(struct trust_store *, const char *fpr,
		     int revoked, int expired, time_t now, char **cause);

/*
 * The user's decisions on a key; they change the pin of the key's own
 * protocol (from the store's row of the key; a key the store has never
 * seen is taken as OpenPGP). accept with fpr NULL: the pending new key or
 * conflicting key of whichever protocol has one; when both protocols (or
 * one protocol both a new key and a conflict) have one, it fails and asks
 * for the fingerprint.
 */
int		 trust_store_verify(struct trust_store *, const char *addr,
		     const char *fpr, time_t now, char **cause);
int		 trust_store_accept(struct trust_store *, const char *addr,
		     const char *fpr, time_t now, char **cause);
int		 trust_store_reject(struct trust_store *, const char *addr,
		     const char *fpr, time_t now, char **cause);
int		 trust_store_forget(struct trust_store *, const char *addr,
		     time_t now, char **cause);

/* Everything about addr; 0 also when nothing is known (state none). */
int		 trust_store_peer(struct trust_store *, const char *addr,
		     struct trust_peer *, char **cause);
/* Every address known, sorted. */
int		 trust_store_list(struct trust_store *, char ***addrs,
		     size_t *n, char **cause);
/*
 * For address completion (addrbook.h): at most max addresses the store
 * has keys of that start with prefix (any case), the most signed
 * messages first, then the most recently seen. Read-only.
 */
struct trust_match {
	char		*addr;
	long		 messages;	/* signed messages, all keys */
	time_t		 last_seen;
};
int		 trust_store_match(struct trust_store *, const char *prefix,
		     size_t max, struct trust_match **, size_t *n,
		     char **cause);
void		 trust_match_free(struct trust_match *, size_t n);
/*
 * For the index: the stored state of each of n messages, read-only.
 * keys[i] is the message's trust_store_msgkey() (NULL for a row without
 * one); states[i] becomes the state it earned when first processed, or
 * TRUST_NONE when it has not been processed (a stored message is never
 * TRUST_NONE). *found, unless NULL, is the number of messages found.
 * Nothing is decided or written: a message not yet processed stays so
 * until trust_store_message(), which also gives a stored message's
 * fingerprints and evidence. All n come from one read transaction, one
 * snapshot of the store that neither takes nor waits for the write lock.
 * Meant to be called with every message of a mailbox at once (100,000
 * take a fraction of a second, doc/bench.md) or with a screenful.
 */
int		 trust_store_states(struct trust_store *,
		     const char *const *keys, size_t n,
		     enum trust_state *states, size_t *found, char **cause);
/*
 * The index's DNS mark: bogus[i] becomes 1 when the last DNS answer for
 * addrs[i]'s key was bogus (trust-dns.c), else 0 (NULL addresses too).
 * Read-only, one read transaction, like trust_store_states().
 */
int		 trust_store_dns_bogus(struct trust_store *,
		     const char *const *addrs, size_t n, int *bogus,
		     char **cause);

/*
 * What DNS last said of an address's OpenPGP key (trust-dns.c). Only the
 * trust step of a sync records it; an answer is never a key here (a
 * secure or insecure one's key is a sighting, trust_store_sighting()).
 */
enum trust_dns_answer {
	TRUST_DNS_SECURE,	/* validated record(s) */
	TRUST_DNS_INSECURE,	/* record(s) from an unsigned zone */
	TRUST_DNS_DENIED,	/* no record, and DNSSEC proves it */
	TRUST_DNS_BOGUS		/* validation failed: only remembered */
};
struct trust_dns {
	time_t		 checked;	/* last secure or insecure answer */
	time_t		 bogus;		/* last bogus answer; 0: none since a
					   validated one */
	char		*owner;		/* the bogus answer's owner name */
	char		*why;		/* the validator's reason */
};
/*
 * Record an answer for addr: a bogus one marks the address (owner and why
 * kept), a secure one or a proven denial clears the mark; secure and
 * insecure ones set checked. One transaction.
 */
int		 trust_store_dns_answer(struct trust_store *, const char *addr,
		     enum trust_dns_answer, const char *owner, const char *why,
		     time_t now, char **cause);
/* What is recorded for addr; all zero when nothing is. */
int		 trust_store_dns(struct trust_store *, const char *addr,
		     struct trust_dns *, char **cause);
void		 trust_dns_free(struct trust_dns *);
/*
 * The addresses whose last DNS answer was bogus, sorted (allocated, each
 * and the array): the list of correspondents shows them even when the
 * store has no key for them.
 */
int		 trust_store_dns_bogus_list(struct trust_store *, char ***addrs,
		     size_t *n, char **cause);

void		 trust_peer_free(struct trust_peer *);
void		 trust_verdict_free(struct trust_verdict *);

const char	*trust_state_name(enum trust_state);
/* "openpgp" or "smime"; and back (-1 for anything else). */
const char	*trust_proto_name(enum trust_proto);
int		 trust_proto_index(const char *);
const char	*trust_source_name(enum trust_source);
/* "autocrypt, dns-secure" for a mask (allocated); "none" when 0. */
char		*trust_sources_text(unsigned);
/* YYYY-MM-DD in UTC (static buffer). */
const char	*trust_date(time_t);

/* Tests only: called inside every write transaction, before COMMIT. */
extern void	(*trust_store_test_hook)(void);

#endif
