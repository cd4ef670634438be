/*
 * index.h: a mailbox's message list as the index shows it, read from the
 * header cache (cache.h) page by page: (folder, sort, offset, limit) ->
 * rows, sorted by date, arrival, sender, subject, size or thread, either
 * way, and narrowed by a search expression (doc/index.md). Each row
 * carries the sender's address beside the display name, the recipients,
 * the Content-Type's hints and the sender's stored trust state
 * (trust_store_states, read-only, one call per page). Where an opened
 * message's protected header (RFC 9788) gave a field, the row, its sort,
 * its thread and the search use that value instead of the outer one, and
 * say so (index_row.prot); an encrypted message not opened yet whose
 * outer Subject hides the real one is sealed (index_row.sealed).
 *
 * Nothing of the mailbox is held in memory: each view is a query on the
 * header cache through its indexes (one per sort, and the stored thread
 * order), and a page reads only its rows, from the nearest place known
 * (the start, the end, the last page). Used by the front ends (--list,
 * the interface), never by the sync. An index is not shared between
 * threads; it reads the cache handle it was opened on.
 */
#ifndef STEED_INDEX_H
#define STEED_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cache.h"
#include "trust-store.h"

enum index_sort {
	INDEX_SORT_ARRIVAL,	/* UID order, the cache's own */
	INDEX_SORT_DATE,	/* the Date header (arrival when none) */
	INDEX_SORT_FROM,	/* display name, else address */
	INDEX_SORT_SUBJECT,	/* without "Re:", "Fwd:" and the like */
	INDEX_SORT_SIZE,
	INDEX_SORT_THREAD	/* thread.h */
};

struct index_view {
	enum index_sort	 sort;
	int		 reverse;
	const char	*limit;		/* search expression; NULL: all */
	const uint32_t	*uids;		/* only these (ascending), e.g. what
					   a server's SEARCH found; NULL: all.
					   Compared by address: a new set is
					   a new array. */
	size_t		 nuids;
};

/* Which values of a row came from the message's protected header. */
#define INDEX_PROT_SUBJECT	0x01
#define INDEX_PROT_FROM		0x02	/* from_name, from_addr, from */
#define INDEX_PROT_RCPT		0x04
#define INDEX_PROT_DATE		0x08
#define INDEX_PROT_THREAD	0x10	/* Message-ID, In-Reply-To or
					   References */

/* What a front end shows as the subject of a sealed row. */
#define INDEX_SEALED_SUBJECT	"(encrypted)"

#define INDEX_ROW_ORPHAN	0x01	/* thread: its parent is missing */
#define INDEX_ROW_LAST		0x02	/* thread: last of its siblings */

/* One row; strings are NULL when absent and are freed with the page. */
struct index_row {
	uint32_t	 uid;
	char		 flags[8];	/* maildir letters: D F R S T */
	time_t		 date;		/* Date header, else arrival */
	time_t		 arrival;	/* INTERNALDATE */
	uint32_t	 size;
	const char	*from_name;	/* display name, decoded */
	const char	*from_addr;	/* address: what trust is about */
	const char	*from;		/* the name, else the address */
	const char	*rcpt;		/* To and Cc, decoded */
	const char	*subject;	/* NULL when sealed */
	const char	*message_id;
	const char	*outer_message_id; /* the outer header's, by which
					   the trust store knows the message */
	unsigned	 hints;		/* CACHE_HINT_* */
	unsigned	 prot;		/* INDEX_PROT_*: from the protected
					   header, not the outer one */
	int		 sealed;	/* encrypted, not opened yet (or the
					   cache of protected values is off),
					   its outer Subject a placeholder
					   ("...", "[...]"): the real one is
					   unknown; show INDEX_SEALED_SUBJECT
					   as steedmail's own words */
	int		 stale;		/* stored by an older schema; the
					   next sync completes it */
	uint32_t	 depth;		/* thread sort: its depth */
	uint32_t	 thread;	/* thread sort: its thread (the UID of
					   the thread's earliest message) */
	unsigned	 tflags;	/* thread sort: INDEX_ROW_* */
	enum trust_state trust;		/* TRUST_NONE: not yet processed,
					   or no trust store given */
	int		 dns_bogus;	/* the sender's last DNS answer
					   was bogus (trust_store_dns_bogus) */
	uint32_t	 hidden;	/* thread sort: replies hidden under
					   it (a collapsed thread) */
	size_t		 place;		/* its place in the whole view */
};

struct index;

/*
 * The index of folder's cached messages, read through the cache handle
 * (which must outlive it). Returns NULL with a cause on a database
 * error; a folder not cached is an empty index.
 */
struct index	*index_open(struct cache *, const char *folder, char **cause);
void		 index_close(struct index *);
/*
 * Never write to the cache: the thread sort shows the stored thread order
 * as it is, even when messages came or went since it was made (the
 * interface, whose thread must not wait; index_thread_prepare() on
 * another thread brings it up to date).
 */
void		 index_readonly(struct index *);
/* The cache changed (a sync): counts are read again on the next call. */
void		 index_refresh(struct index *);

/*
 * Bring the stored thread order of folder up to date with the messages
 * that came or went since (thread-store.h: only their groups are
 * threaded again). Writes to the cache.
 */
int		 index_thread_prepare(struct cache *, const char *folder,
		     char **cause);
/*
 * The same, a part at a time: a transaction or two of it (the newest
 * new messages first), 1 when more is left, 0 when it is up to date,
 * -1 with a cause. For a front end that shows the part done before it
 * asks for the next.
 */
int		 index_thread_some(struct cache *, const char *folder,
		     char **cause);
/* The same through an index, for sort (a no-op but for the thread
 * sort), then the count of that view of every message. */
int		 index_prepare(struct index *, enum index_sort, int reverse,
		     char **cause);
/* Messages in the folder, and in view v. */
size_t		 index_total(struct index *);
int		 index_count(struct index *, const struct index_view *,
		     size_t *count, char **cause);

/*
 * Rows offset to offset + limit - 1 of view v into an allocated *rows,
 * their strings with them (free() it), *n of them (fewer at the end).
 * ts, unless NULL, gives each row its trust state. -1 on a bad
 * expression or a store error.
 */
int		 index_page(struct index *, const struct index_view *,
		     size_t offset, size_t limit, struct trust_store *ts,
		     struct index_row **rows, size_t *n, char **cause);

/*
 * Thread sort: collapse (how 1), expand (0) or toggle (-1) thread (a
 * row's thread), or every thread (INDEX_ALL_THREADS; toggling all follows
 * the first thread). A collapsed thread shows its first message only,
 * with the number of replies hidden under it; offsets and counts of v are
 * then of the rows shown. A new view expands everything again.
 */
#define INDEX_ALL_THREADS	UINT32_MAX
/* The offset of uid in view v as shown; -1 when it is not there. */
int		 index_find(struct index *, const struct index_view *,
		     uint32_t uid, size_t *offset);
/*
 * The first row after (dir 1) or before (dir -1) offset from in view v,
 * going round the end, that matches expr: 0 and *offset, 1 when none
 * does, -1 with a cause on a bad expression.
 */
int		 index_search(struct index *, const struct index_view *,
		     const char *expr, size_t from, int dir, size_t *offset,
		     char **cause);
int		 index_collapse(struct index *, const struct index_view *,
		     uint32_t thread, int how, char **cause);

/* "date", "-date" (reversed), ... into *v's sort; -1 if not a sort. */
int		 index_sort_parse(const char *, struct index_view *);
const char	*index_sort_name(enum index_sort);

#endif
