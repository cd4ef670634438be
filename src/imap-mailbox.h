/*
 * imap-mailbox.h: mailbox-level IMAP operations on a logged-in session
 * (finding Sent, Trash, ... is imap-role.h's): listing the mailboxes with
 * their counts, appending a message, looking a message up by Message-ID,
 * and fetching one message whole.
 */
#ifndef STEED_IMAP_MAILBOX_H
#define STEED_IMAP_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

#include <libetpan/libetpan.h>

#include "buf.h"

/* One mailbox of imap_mailbox_list(). */
struct imap_folder {
	char		*name;		/* UTF-8, decoded from the modified
					   UTF-7 the server uses (or as the
					   server spelled it when that does
					   not decode: imap_name_from_wire()) */
	const char	*special;	/* "Inbox", "Sent", ... or NULL */
	int		 rank;		/* INBOX, special uses, then the rest */
	uint32_t	 total;		/* STATUS MESSAGES */
	uint32_t	 unseen;	/* STATUS UNSEEN */
	const char	*role;		/* what steedmail uses it for:
					   "Sent", "Trash", "Drafts",
					   "Archive" (imap-role.h), or NULL */
	const char	*role_how;	/* how that was found, in words */
	char		*status_error;	/* the server would not count it
					   (STATUS failed): why; the counts
					   are then unknown (0) */
};
/*
 * The mailboxes that can be selected (LIST "" *), with their counts
 * (STATUS each): INBOX first, then the special-use mailboxes (\Drafts,
 * \Sent, \Archive, \Flagged, \Junk, \Trash), then the others by name.
 * A mailbox whose STATUS the server refuses is listed with its
 * status_error; -1 only when LIST fails or the connection breaks.
 */
int	 imap_mailbox_list(mailimap *, struct imap_folder **, size_t *n,
	    char **cause);
void	 imap_mailbox_list_free(struct imap_folder *, size_t n);
int	 imap_mailbox_append(mailimap *, const char *mailbox, const char *msg,
	    size_t len, int seen, char **cause);
/* 1 if mailbox holds a message with this Message-ID, 0 if not, -1. */
int	 imap_mailbox_has_msgid(mailimap *, const char *mailbox,
	    const char *msgid, char **cause);
/*
 * The message with this UID (read-only, flags untouched): whole when part
 * is NULL, else the body of one MIME part by its IMAP section ("2.1"), as
 * the server has it (still in its transfer encoding). mailbox NULL: the
 * one already selected, as it is (no EXAMINE).
 */
int	 imap_mailbox_fetch(mailimap *, const char *mailbox, uint32_t uid,
	    const char *part, struct buf *out, char **cause);

#endif
