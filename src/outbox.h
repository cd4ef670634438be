/*
 * outbox.h: the durable outbox. A message to send is written here (write,
 * fsync, rename) before any network traffic, and leaves only once it is
 * both accepted by the submission server and saved to Sent. Every step is
 * recorded on disk before the next begins, so a crash at any point leaves
 * the message here and a later flush neither loses nor resends it.
 *
 * A message whose encryption could not be decided yet (a recipient's DNS
 * lookup failed) is held here as its draft, with no message to submit:
 * each flush that looks again decides it (draft_release()) and, once it
 * is decided, writes the message (outbox_release()), which then goes as
 * any other.
 */
#ifndef STEED_OUTBOX_H
#define STEED_OUTBOX_H

#include <stddef.h>

#include "buf.h"

struct outbox_entry {
	char	 *id;
	char	 *account;
	char	 *from;		/* envelope sender */
	char	**rcpts;	/* envelope recipients, Bcc included */
	size_t	  nrcpts;
	int	  accepted;	/* the server took it: never submit again */
	int	  saved;	/* a copy is in the Sent mailbox */
	/* held: ID.held and ID.draft, no message yet (outbox_hold()) */
	int	  held;
	long long held_since;	/* when it was first held (time_t) */
	char	 *held_opts;	/* the draft options, as words */
	char	 *held_why;	/* why it is held, as last looked at */
};

/* The outbox directory under the data dir, created 0700. */
char	*outbox_dir(char **cause);
/* Queue a message; on success *id is the new entry's id. */
int	 outbox_queue(const char *dir, const char *account, const char *from,
	    char *const *rcpts, size_t nrcpts, const char *msg, size_t len,
	    char **id, char **cause);
/*
 * Hold a draft (the file draft_postpone() makes, as it is) for a later
 * decision: opts are the options it was sent with (words), why the
 * reason it waits. Nothing is submitted until outbox_release().
 */
int	 outbox_hold(const char *dir, const char *account, const char *from,
	    char *const *rcpts, size_t nrcpts, const char *draft, size_t len,
	    const char *opts, const char *why, char **id, char **cause);
/* A held entry looked at again: why it still waits. */
int	 outbox_hold_note(const char *dir, struct outbox_entry *,
	    const char *why, char **cause);
/*
 * A held entry decided: msg is written as the message to submit, and the
 * entry is queued like any other (its draft stays beside it).
 */
int	 outbox_release(const char *dir, struct outbox_entry *,
	    const char *msg, size_t len, char **cause);
/* The file of the entry's draft (ID.draft), whether there is one or not. */
char	*outbox_draft_path(const char *dir, const struct outbox_entry *);
/*
 * The file that stands for the entry: its message (ID.msg), or a held
 * entry's draft, which stands for the message it has not yet.
 */
char	*outbox_msg_path(const char *dir, const struct outbox_entry *);
/*
 * Keep the draft a queued message was made from beside it (ID.draft,
 * written whole or not at all), so that it can be taken back later
 * (outbox_move_draft()). It leaves with the entry.
 */
int	 outbox_keep_draft(const char *dir, const char *id, const char *draft,
	    size_t len, char **cause);
/*
 * Move the draft kept beside entry id (ID.draft; in failed/ when failed)
 * to the file to, the directories flushed. 0 moved, 1 the entry has no
 * draft, -1 with *cause. outbox_unmove_draft() puts it back (or, if it
 * cannot, removes the moved file: the entry keeps its message).
 */
int	 outbox_move_draft(const char *dir, const char *id, int failed,
	    const char *to, char **cause);
/* Has entry id a draft kept beside it? */
int	 outbox_has_draft(const char *dir, const char *id, int failed);
void	 outbox_unmove_draft(const char *dir, const char *id, int failed,
	    const char *from);
/* Every queued entry, oldest first. */
int	 outbox_list(const char *dir, struct outbox_entry ***entries,
	    size_t *n, char **cause);
void	 outbox_free_entries(struct outbox_entry **, size_t);
int	 outbox_read(const char *dir, const struct outbox_entry *,
	    struct buf *msg, char **cause);
/* Record that the server accepted it, with the server's reply. */
int	 outbox_mark_accepted(const char *dir, struct outbox_entry *,
	    const char *reply, char **cause);
int	 outbox_mark_saved(const char *dir, struct outbox_entry *,
	    char **cause);
/* Done: remove every file of the entry. */
int	 outbox_remove(const char *dir, const struct outbox_entry *,
	    char **cause);
/*
 * Refused for good: move to DIR/failed/ with the reason; return its path.
 * A held entry has no message: its draft goes there in its place.
 */
char	*outbox_fail(const char *dir, const struct outbox_entry *,
	    const char *reason, char **cause);
/*
 * The messages refused for good (DIR/failed/), oldest first: an empty list
 * when there is no such directory. Read by the outbox screen.
 */
struct outbox_failed {
	char	*id;
	char	*reason;	/* the server's words */
	char	*path;		/* the message, as it was submitted */
};
int	 outbox_list_failed(const char *dir, struct outbox_failed **v,
	    size_t *n, char **cause);
void	 outbox_free_failed(struct outbox_failed *, size_t);
/* Remove a failed message for good. */
int	 outbox_remove_failed(const char *dir, const char *id, char **cause);
/* How many entries wait, and how many were refused for good: 0 when the
 * directory cannot be read. */
void	 outbox_count(const char *dir, size_t *queued, size_t *failed);
/* Is id an entry's name (no '/', no leading '.')? */
int	 outbox_valid_id(const char *id);
/* Exclusive lock on the outbox for a flush; -1 if another holds it. */
int	 outbox_lock(const char *dir, char **cause);
void	 outbox_unlock(int fd);

#endif
