/*
 * trust-db.h: what the trust store's own files share (trust-store.c,
 * trust-schema.c, trust-db.c, trust-rules.c, trust-decide.c,
 * trust-query.c), and nobody else: the open store, the rows of a pin and
 * of a key, and the SQLite helpers of trust-db.c. Callers outside use
 * trust-store.h.
 */
#ifndef STEED_TRUST_DB_H
#define STEED_TRUST_DB_H

#include <stdarg.h>
#include <time.h>

#include <sqlite3.h>

#include "trust-store.h"

struct trust_store {
	sqlite3		*db;
	char		*path;
};

/* How strong the evidence for a pending key change is (pin.changed_level). */
enum trust_level {
	TRUST_LEVEL_CLAIM,	/* only an Autocrypt header named the key */
	TRUST_LEVEL_SIGNED	/* the new key signed mail from the address */
};

/*
 * One protocol's pin of an address (table pin); proto is trust_proto()'s
 * (static). All NULL when there is none.
 */
struct trust_pin {
	const char	*proto;
	char		*pinned, *changed, *conflict;
	int		 changed_level;	/* enum trust_level */
	int		 exists;
};

/* One key of an address (table key); exists 0 when there is none. */
struct trust_krow {
	time_t	 first_seen, dns_confirmed;
	long	 messages;
	unsigned sources;
	char	 decision[16];
	char	 proto[16];
	int	 revoked, expired, exists;
};

/* trust-store.c: the protocol as stored (NULL or unknown: openpgp). */
const char	*trust_proto(const char *);
/* How a history line or the evidence names the protocol's keys. */
const char	*trust_proto_words(const char *);

/* trust-db.c. -1 with *cause naming the store and SQLite's reason. */
int		 trust_fail(struct trust_store *, const char *what,
		     char **cause);
/*
 * A statement that returns no rows; a query (the caller steps and
 * finalizes). types: 's' a string (NULL binds NULL), 'i' a long long.
 */
int		 trust_run(struct trust_store *, char **cause, const char *sql,
		     const char *types, ...);
sqlite3_stmt	*trust_query(struct trust_store *, char **cause,
		     const char *sql, const char *types, ...);
char		*trust_col(sqlite3_stmt *, int);
int		 trust_begin(struct trust_store *, char **cause);
int		 trust_commit(struct trust_store *, char **cause);
void		 trust_rollback(struct trust_store *);
int		 trust_history(struct trust_store *, const char *addr,
		     time_t now, char **cause, const char *fmt, ...)
		     __attribute__((format(printf, 5, 6)));
int		 trust_get_pin(struct trust_store *, const char *addr,
		     const char *proto, struct trust_pin *, char **cause);
void		 trust_pin_free(struct trust_pin *);
/* level: how the pending key changed came (enum trust_level). */
int		 trust_set_pin(struct trust_store *, const char *addr,
		     const char *proto, const char *pinned,
		     const char *changed, int level, const char *conflict,
		     char **cause);
/* Make sure the key row exists; add source bits; last seen now. */
int		 trust_touch_key(struct trust_store *, const char *addr,
		     const char *fpr, const char *proto, unsigned sources,
		     time_t now, char **cause);
int		 trust_get_key(struct trust_store *, const char *addr,
		     const char *fpr, struct trust_krow *, char **cause);
/* Fill v (evidence is taken over); k NULL: no since, no count. */
void		 trust_set_verdict(struct trust_verdict *,
		     enum trust_state, const char *fpr, const char *other,
		     const struct trust_krow *, char *evidence);

/* trust-rules.c: the state of a pin's key (pending: a change counts). */
enum trust_state trust_pinned_state(const struct trust_pin *,
		     const struct trust_krow *, int pending);

#endif
