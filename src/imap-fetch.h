/*
 * imap-fetch.h: a streaming reader for the answers to the commands whose
 * answer grows with the mailbox: "UID FETCH <set> (UID FLAGS INTERNALDATE
 * RFC822.SIZE ENVELOPE BODY.PEEK[HEADER.FIELDS (REFERENCES CONTENT-TYPE)])"
 * (or "(UID FLAGS)"), as imap-sync sends it for every new message of a
 * mailbox: what the header cache and the index (index.h) need, and
 * nothing more; and "UID SEARCH UID <range>", every UID it has. It reads the bytes straight from the session's mailstream and
 * hands each message to a callback in a struct whose strings live in the
 * reader's own fixed buffers: nothing is allocated per message, and no
 * response is ever held whole, whatever its size.
 *
 * The server is not trusted: strings longer than IMAP_FETCH_FIELD_MAX are
 * cut (the rest is read and dropped), literals of any size are read in
 * pieces, unknown FETCH items and other untagged responses are skipped.
 * Bytes that fit no reading end it with "server sent a malformed FETCH
 * response"; the connection is then out of step and must not be used
 * again. The reader never takes a byte past the tagged reply it waits
 * for, so libetpan's own calls work on the same stream afterwards.
 */
#ifndef STEED_IMAP_FETCH_H
#define STEED_IMAP_FETCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <libetpan/libetpan.h>

#define IMAP_FETCH_FIELD_MAX	998	/* bytes kept of a string */

/* What imap_fetch_response() returns. */
#define IMAP_FETCH_OK		0
#define IMAP_FETCH_REFUSED	(-1)	/* NO or BAD; still in step */
#define IMAP_FETCH_BROKEN	(-2)	/* malformed, BYE or lost: the
					   connection is unusable */
#define IMAP_FETCH_LOCAL	(-3)	/* the callback failed; the answer
					   was read to its end, in step */

/*
 * One message. Strings are NULL for NIL; they last until the callback
 * returns. from_* are those of the first From address. rcpt lists To and
 * Cc as "name <mailbox@host>, ..." (names as sent, RFC 2047 words and
 * all), whole addresses only, up to IMAP_FETCH_FIELD_MAX bytes.
 * references holds the last message-ids of References that fit in
 * IMAP_FETCH_FIELD_MAX bytes, one space between them (the last is the
 * parent). sent is the Date header as a time (0: none, or not
 * understood); hints the CACHE_HINT_* bits of the Content-Type.
 * from_field is the From header field's value as sent (every From field,
 * a comma between; folds as spaces), or NULL when the server sent none;
 * from_cut says it was longer than steedmail keeps, or held a NUL.
 */
struct imap_fetch_msg {
	uint32_t	 seq;
	uint32_t	 uid;		/* 0: the server sent none */
	char		 flags[8];	/* maildir letters: D F R S T */
	int		 has_flags;
	time_t		 internaldate;	/* 0: none, or not understood */
	uint32_t	 size;
	int		 has_envelope;
	const char	*date;
	const char	*subject;
	const char	*from_name;
	const char	*from_mailbox;
	const char	*from_host;
	const char	*message_id;
	const char	*rcpt;
	const char	*in_reply_to;
	const char	*references;
	time_t		 sent;
	unsigned	 hints;
	const char	*from_field;
	int		 from_cut;
};

/*
 * Where the bytes come from: at most max of them into dst; >0 bytes,
 * 0 at the end of the stream, -1 on an error. bol says that the last
 * byte handed out was a line feed (or that none was yet): a source that
 * must not read past the reply may then stop at the next one.
 */
typedef ssize_t	(*imap_fetch_read_fn)(void *arg, char *dst, size_t max,
		    int bol);
/* Called for every FETCH with a UID; -1 (and a cause) stops the calls. */
typedef int	(*imap_fetch_msg_fn)(const struct imap_fetch_msg *,
		    void *arg, char **cause);
/* Called for every number of a SEARCH; -1 (and a cause) stops the calls. */
typedef int	(*imap_fetch_num_fn)(uint32_t, void *arg, char **cause);

struct imap_fetch;

struct imap_fetch *imap_fetch_new(imap_fetch_read_fn, void *arg);
/* A reader on a libetpan stream (the session's imap_stream). */
struct imap_fetch *imap_fetch_new_stream(mailstream *);
void		 imap_fetch_free(struct imap_fetch *);

/* Keep *exists current with the EXISTS and EXPUNGE seen (NULL: don't). */
void		 imap_fetch_track_exists(struct imap_fetch *, uint32_t *);

/*
 * Send "tag UID FETCH set (UID FLAGS[ INTERNALDATE RFC822.SIZE ENVELOPE
 * BODY.PEEK[HEADER.FIELDS (REFERENCES CONTENT-TYPE)]])" on s. set is an
 * IMAP sequence set ("1:5,9").
 */
int		 imap_fetch_send(mailstream *, const char *tag,
		     const char *set, int envelope, char **cause);
/*
 * The same, set being message sequence numbers with by_uid 0 ("tag FETCH
 * set (...)"): the answer is the same, UID included.
 */
int		 imap_fetch_send_by(mailstream *, const char *tag,
		     const char *set, int envelope, int by_uid, char **cause);

/*
 * Read responses up to the tagged reply to tag, calling fn (NULL: none)
 * for each FETCH with a UID. Returns IMAP_FETCH_OK, or one of the others
 * above with a cause. After IMAP_FETCH_BROKEN every later call fails.
 */
int		 imap_fetch_response(struct imap_fetch *, const char *tag,
		     imap_fetch_msg_fn fn, void *arg, char **cause);

/*
 * Send "tag UID SEARCH UID first:last" (last 0: "first:*"), and read its
 * answer, calling fn for each UID of the SEARCH responses as it is read:
 * no line is held, so the UIDs of a mailbox of any size pass (libetpan
 * keeps the line whole and a list of some 60 bytes a UID). Returns as
 * imap_fetch_response(); IMAP_FETCH_LOCAL when fn failed.
 */
int		 imap_fetch_send_search(mailstream *, const char *tag,
		     uint32_t first, uint32_t last, char **cause);
int		 imap_fetch_search_response(struct imap_fetch *,
		     const char *tag, imap_fetch_num_fn fn, void *arg,
		     char **cause);

/*
 * The Content-Types that can carry a signature or encryption, as the
 * trust step looks for them (anywhere in the field, any case), and
 * whether Content-Type value v names one. A message whose header fields
 * have one of them, more Content-Type than is kept, or an Autocrypt
 * field gets CACHE_HINT_EVIDENCE; one whose header fields did not come,
 * CACHE_HINT_NOFIELDS (cache.h).
 */
#define IMAP_FETCH_EVIDENCE_TYPES	4
extern const char *const imap_fetch_evidence_types[IMAP_FETCH_EVIDENCE_TYPES];
int		 imap_fetch_ctype_evidence(const char *);

/* The parsers behind the fields above, for the tests. */
time_t		 imap_fetch_parse_date(const char *);
unsigned	 imap_fetch_parse_ctype(const char *);

#endif
