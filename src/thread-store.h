/*
 * thread-store.h: a mailbox's stored thread order (the header cache's
 * table thread, schema 9) kept up to date with what came and went since
 * it was last brought up to date, never made again whole.
 *
 * The cache notes each message stored (its UID into thread_todo) and,
 * when a message goes, the group it was in (thread_dirty). A group is
 * a set of messages that may share a thread: every Message-ID a message
 * has or refers to is an id of its group (thread_id keeps each id's
 * hash), and a message whose ids are in two groups joins them. Messages
 * of different groups can never be in one thread, so a group is
 * threaded (thread.c) on its own and its rows written again: the work
 * is that of the groups touched, and what is held in memory is one
 * group's threading fields. Called by the index (index.c), on a thread
 * that may write to the cache; never prints.
 */
#ifndef STEED_THREAD_STORE_H
#define STEED_THREAD_STORE_H

#include <stddef.h>
#include <stdint.h>

struct sqlite3;

/*
 * Bring mailbox's stored thread order up to date, in transactions of
 * a bounded size (a sync may write between them), at most steps of them
 * (SIZE_MAX: all it takes). The newest new messages go first, so that
 * the top of the thread order newest first is there after the first
 * step. 1 when something changed, 2 when more is left after steps, 0
 * when nothing was to do, -1 with a cause on a database error (what was
 * done stays done).
 */
int	thread_store_update(struct sqlite3 *, int64_t mailbox, size_t steps,
	    char **cause);

#endif
