/*
 * msg-flags.h: a message's IMAP system flags (RFC 3501 §2.3.2) as a set
 * of bits. Every operation that changes flags takes such a set, never a
 * string: the screens, the batch commands and the engine name \Seen as
 * MSG_SEEN, and only two places see another form: the header cache
 * stores a set as maildir letters (D draft, F flagged, R replied, S seen,
 * T deleted; msg_flags_letters() and msg_flags_of()), and --flag reads a
 * change written in those letters ("+S", "-T", "+FS-T").
 */
#ifndef STEED_MSG_FLAGS_H
#define STEED_MSG_FLAGS_H

typedef unsigned msg_flags;

/* The bits, in the order of their maildir letters. */
#define MSG_DRAFT	0x01u
#define MSG_FLAGGED	0x02u
#define MSG_ANSWERED	0x04u
#define MSG_SEEN	0x08u
#define MSG_DELETED	0x10u
#define MSG_ALL		0x1fu

/* Room for the letters of a set and the NUL (struct cache_msg's). */
#define MSG_FLAGS_SIZE	8

/* The set of a string of maildir letters (other bytes are skipped). */
msg_flags	 msg_flags_of(const char *letters);
/* The maildir letters of a set, in order ("FS"), into out. */
void		 msg_flags_letters(msg_flags, char out[MSG_FLAGS_SIZE]);
/*
 * Parse a change such as "+S", "-S" or "+FS-T": groups of letters, each
 * after a '+' (add) or '-' (remove). Returns -1 and a cause for anything
 * else, for an empty group, and for a flag both added and removed.
 */
int		 msg_flags_parse(const char *arg, msg_flags *add,
		     msg_flags *remove, char **cause);

#endif
