/*
 * outgoing.h: the outbox as the front ends see it: its messages listed
 * with what the screens show, deleted, or taken back into a draft; and a
 * draft sent: protected, then queued (or held for DNS), in one call,
 * before send_flush() sends the outbox. The batch commands and the curses
 * interface both go through it; no front end names a file of the outbox
 * or of the drafts directory.
 */
#ifndef STEED_OUTGOING_H
#define STEED_OUTGOING_H

#include <stddef.h>
#include <time.h>

#include "config.h"
#include "draft.h"

/* One message of the outbox: queued, held for DNS, or refused for good. */
struct outgoing_entry {
	char	*id;
	int	 failed;	/* refused for good (outbox/failed/) */
	int	 accepted;	/* the server took it; not yet saved in Sent */
	int	 held;		/* waits for DNS (draft-hold.c) */
	time_t	 queued;	/* when it was queued; -1: not known */
	char	*to;		/* every recipient (Bcc included); a failed
				   message's To; NULL: not known */
	char	*subject;	/* decoded; NULL: none, or hidden (encrypted) */
	int	 encrypted;	/* the message is encrypted */
	char	*why;		/* held: why, since and until when
				   (draft_held_text()); failed: the server's
				   words; else NULL */
	char	*path;		/* the file that holds it (a held one's draft) */
};

/*
 * The queued messages, oldest first, then the failed ones: a directory
 * of a few small files (only the head of each message is read). -1 with
 * *cause when the outbox cannot be read.
 */
int	 outgoing_list(const struct config *, struct outgoing_entry **,
	    size_t *, char **cause);
void	 outgoing_list_free(struct outgoing_entry *, size_t);
/* How many messages wait, and how many were refused (0 when unknown). */
void	 outgoing_count(size_t *queued, size_t *failed);

/*
 * Delete entry id (failed: a refused one) for good, under the outbox's
 * lock (it waits while a flush sends). 0 deleted, 1 it had left the
 * outbox already (sent), -1 with *cause.
 */
int	 outgoing_delete(const char *id, int failed, char **cause);

/*
 * Take entry id back: the draft kept beside it (OUTGOING_KEEP_DRAFT) goes
 * into the drafts directory, *path, and the entry leaves the outbox, both
 * under its lock; draft_resume() then reads it. Left alone, *path is a
 * postponed draft like any other. A crash in between leaves the message
 * queued, or the draft in the drafts directory: never neither.
 */
enum outgoing_back {
	OUTGOING_TAKEN,		/* *path is the draft now */
	OUTGOING_GONE,		/* it had left the outbox already (sent) */
	OUTGOING_ACCEPTED,	/* sent already: only its copy to Sent waits */
	OUTGOING_NO_DRAFT,	/* queued without its draft (batch command) */
	OUTGOING_NOT_TAKEN	/* *cause says why; it stays */
};
enum outgoing_back outgoing_take_back(const char *id, int failed,
	    char **path, char **cause);

/*
 * Send d, the first half: draft_protect() as the options, the settings
 * and the policy say, then into the outbox: queued to submit, or, when a
 * recipient's key lookup failed, held for DNS (draft_hold()). Nothing
 * touches the network but the lookups: send_flush() sends the outbox
 * next (without SEND_LOOK_AGAIN: the held one was looked up just now).
 * With OUTGOING_KEEP_DRAFT the draft is kept beside a queued message
 * (kept encrypted whenever the message would be), for outgoing_take_back().
 */
#define OUTGOING_KEEP_DRAFT	0x1
enum outgoing_sent {
	OUTGOING_QUEUED,	/* queued: id; p.line says how it goes */
	OUTGOING_HELD,		/* held for DNS: id; p.line says why */
	OUTGOING_REFUSED,	/* the policy refuses it (p says why) */
	OUTGOING_UNBUILT,	/* cannot be built or protected: cause,
				   bad_input when the draft is at fault */
	OUTGOING_UNQUEUED,	/* protected, but cannot be queued: cause */
	OUTGOING_UNHELD		/* must wait (p.line), cannot be held: cause */
};
struct outgoing_send {
	enum outgoing_sent	 result;
	struct draft_protection	 p;
	int			 bad_input;
	char			*id;	/* the outbox entry, or NULL */
	char			*cause;
};
void	 outgoing_send(const struct draft *, const struct config *,
	    const struct draft_opts *, int flags, struct outgoing_send *);
void	 outgoing_send_free(struct outgoing_send *);

#endif
