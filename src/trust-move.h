/*
 * trust-move.h: the trust store carried to another device. An export is
 * every address the store knows with its pins, keys (protocol, sources,
 * dates, count of signed messages, the user's decision, revoked or
 * expired) and history, as a versioned text file (doc/trust.md, "Moving
 * the trust store"); an import merges such a file into a store through
 * the store's own rules (trust-store.h), never around them, and all of
 * it or nothing.
 *
 * trust-file.c writes and parses the text; trust-move.c reads a store
 * into a struct trust_move and merges one into a store. Callers:
 * --trust export FILE and --trust import FILE (ui/cli-trust.c). Nothing
 * here prints.
 */
#ifndef STEED_TRUST_MOVE_H
#define STEED_TRUST_MOVE_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "trust-store.h"

#define TRUST_MOVE_MAGIC	"steedmail-trust-export"
#define TRUST_MOVE_VERSION	1

struct trust_move_key {
	char		*fpr;		/* upper-case hex */
	char		 proto[8];	/* "openpgp", "smime" */
	unsigned	 sources;	/* 1 << enum trust_source */
	time_t		 first_seen, last_seen, last_sig, dns_confirmed;
	long		 messages;
	char		 decision[16];	/* none, accepted, rejected, verified */
	int		 revoked, expired;
};

/* One protocol's pin; fingerprints NULL when there is none. */
struct trust_move_pin {
	int		 present;
	char		*pinned, *changed, *conflict;
	int		 signed_change;	/* changed came signed, not claimed */
};

struct trust_move_event {
	time_t		 when;
	char		*what;
};

struct trust_move_peer {
	char			*addr;
	struct trust_move_pin	 pins[TRUST_NPROTO];
	struct trust_move_key	*keys;
	size_t			 nkeys;
	struct trust_move_event	*events;
	size_t			 nevents;
};

struct trust_move {
	struct trust_move_peer	*peers;
	size_t			 npeers;
};

/* trust-file.c: the text, appended to out; now goes in a comment. */
void	 trust_move_write(const struct trust_move *, time_t now,
	    struct buf *out);
/*
 * Parse len bytes of text; name is what a cause calls it ("FILE:LINE:
 * what is wrong"). The whole text or nothing: -1 leaves m empty.
 */
int	 trust_move_parse(const char *text, size_t len, const char *name,
	    struct trust_move *m, char **cause);
void	 trust_move_free(struct trust_move *);

/* trust-move.c: everything ts knows, into m (one read snapshot). */
int	 trust_move_export(struct trust_store *ts, struct trust_move *m,
	    char **cause);

/* What an import did. */
struct trust_move_result {
	size_t		 peers;		/* addresses in the file */
	size_t		 added;		/* keys the store did not know */
	size_t		 known;		/* keys it knew (sightings added) */
	size_t		 verified;	/* keys verified from the file */
	size_t		 events;	/* history lines added */
	char		**kept;		/* where the store's pin stays,
					   one sentence each */
	size_t		 nkept;
};

/*
 * Merge m into ts: each key is seen again with each of its sources (the
 * file's pinned key first, so that an address new to ts gets the same
 * pin), through trust_store_sighting() and so the rules: a key verified
 * here is never replaced, a claim never takes the place of the pinned
 * key. The file's verified keys are verified here unless another key of
 * the address is; its rejected keys are rejected unless accepted here.
 * Missing history lines are added, dates and counts widened. The rules
 * run on a copy of the store; the store takes the copy's contents in one
 * transaction, and only if nobody wrote to it meanwhile (else -1, try
 * again). Returns 0, or -1 with *cause and the store untouched.
 */
int	 trust_move_import(struct trust_store *ts, const struct trust_move *m,
	    time_t now, struct trust_move_result *r, char **cause);
void	 trust_move_result_free(struct trust_move_result *);

#endif
