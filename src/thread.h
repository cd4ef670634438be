/*
 * thread.h: conversation threads of a mailbox's messages, from their
 * Message-ID, References and In-Reply-To (JWZ's algorithm, as mutt and
 * most clients use it). Messages whose parent was never seen (deleted,
 * in another folder) still sit in the thread of their siblings. Threads
 * are not grouped by subject: two messages are in one thread only if
 * their headers say so. Called by the index (index.c); works on the
 * arrays it is given, touches no file and never prints.
 */
#ifndef STEED_THREAD_H
#define STEED_THREAD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* One message: strings as cached (NULL: none). */
struct thread_msg {
	const char	*message_id;
	const char	*in_reply_to;
	const char	*references;	/* "<a> <b> ...", the parent last */
	time_t		 date;
};

#define THREAD_ORPHAN	0x01	/* its parent is missing */
#define THREAD_LAST	0x02	/* the last of its siblings */

/* Where a message goes in the threaded order. */
struct thread_pos {
	uint32_t	msg;		/* its index in the input */
	uint32_t	depth;		/* messages above it in its thread */
	uint32_t	thread;		/* its thread's number, 0 first */
	unsigned	flags;		/* THREAD_* */
};

/*
 * Thread the n messages of msgs into out[n], in display order: threads
 * by the date of their earliest message (newest first with reverse),
 * each a tree in depth-first order with siblings by date. Never fails.
 */
void	thread_build(const struct thread_msg *msgs, size_t n, int reverse,
	    struct thread_pos *out);

/*
 * The next "<...>" of *p into id and len (the brackets with it), *p
 * moved past it; 0 when there is none. Ids are compared as these bytes.
 */
int	thread_id_next(const char **p, const char **id, size_t *len);

#endif
