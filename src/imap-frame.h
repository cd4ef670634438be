/*
 * imap-frame.h: a guard on what an IMAP server sends once a session is
 * logged in, below libetpan's parser. libetpan keeps a line until it
 * ends, makes room for a literal as large as the server announces before
 * a byte of it comes, and recurses once per nested parenthesised list; a
 * lying server could so take all the memory or the stack. The scanner
 * here sees every byte the server sends, in whatever pieces they come,
 * and says when an answer passes one of the bounds below; the stream then
 * fails every read, like a broken connection, with the reason kept.
 */
#ifndef STEED_IMAP_FRAME_H
#define STEED_IMAP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <libetpan/libetpan.h>

/*
 * A response's line, outside its literals, at most 16 MiB. libetpan keeps
 * the whole line in memory until its end; RFC 7162 (3.1.2) asks clients
 * to take lines of at least 8192 octets. Of what libetpan reads for
 * steedmail, only the answer to a search of message text can be long,
 * one number a few digits long per message found: 16 MiB holds two
 * million UIDs of seven digits, and a BODYSTRUCTURE as large as
 * imap-bodystructure.c reads (4 MB). The answers imap-fetch.c streams,
 * the FETCH lines whose ENVELOPE a message can make longer and the
 * sync's searches of every UID of a range, are not bounded
 * (imap_frame_streamed()).
 */
#define IMAP_FRAME_LINE_MAX	(16 * 1024 * 1024)
/*
 * A status response (OK, NO, BAD, BYE, PREAUTH, tagged or not) at most
 * 16 kB, the bound of the same lines before login (imap-pre.h): each is
 * held here until its end and checked against the grammar
 * (imap_resp_check_status()) before libetpan reads it, whose parser reads
 * through a NULL on some malformed response codes ("[PERMANENTFLAGS ("
 * at a line's end). No server sends status text of that length.
 */
#define IMAP_FRAME_STATUS_MAX	16384

/*
 * A literal at most 256 MiB. libetpan allocates the announced size at
 * once, before the first byte of the literal arrives (and reads its
 * 32-bit size modulo 2^32): this is the bound on that allocation. It is
 * larger than any message a mail provider accepts (they stop at 25 to
 * 150 MB), and a message fetched whole is one literal.
 */
#define IMAP_FRAME_LITERAL_MAX	(256 * 1024 * 1024)

/*
 * Parenthesised lists nested at most 256 deep. libetpan's BODYSTRUCTURE
 * and body-extension parsers recurse once per level, about 700 bytes of
 * stack each (measured with libetpan 1.9.4 on x86-64): 256 levels take
 * some 180 kB of a thread's 8 MB. steedmail's own BODYSTRUCTURE reader
 * (imap-bodystructure.c) takes lists IMAP_BODYSTRUCTURE_MAX_DEPTH (256)
 * deep, counted the same way from the start of the FETCH line; the guard
 * must let through whatever that reader accepts, so it is not lower.
 */
#define IMAP_FRAME_DEPTH_MAX	256
/*
 * [ALERT]s shown per connection after login (imap-alert.h), in case a
 * server repeats one with every answer; the rest are only logged.
 */
#define IMAP_FRAME_ALERTS_MAX	16

/*
 * The scanner's state: what it needs to go on from any byte. Fed the same
 * bytes, in one piece or in many, it ends in the same state. Fields are
 * for imap-frame.c only.
 */
struct imap_frame {
	uint64_t	 left;		/* bytes of a literal still to pass */
	uint64_t	 size;		/* of the literal being announced */
	size_t		 line;		/* bytes of the response outside its
					   literals, so far */
	unsigned	 depth;		/* lists open */
	unsigned	 streamed;	/* answers still to come that steedmail
					   streams (imap_frame_streamed()) */
	unsigned	 digits;	/* significant digits of size */
	int		 state;		/* where in a response (imap-frame.c) */
	int		 head;		/* where in its first words */
	int		 strict;	/* a response code that may hold a
					   literal (BADCHARSET) */
	int		 minus;		/* a '-' in the size: libetpan reads 0 */
	int		 plus;		/* "{N+}" */
	int		 tagged;	/* the response has a tag */
	int		 stopped;	/* a bound was passed */
	unsigned	 wlen;		/* bytes in word */
	size_t		 slen;		/* bytes of the response in status,
					   while it may be a status response */
	int		 collect;	/* it still may be */
	unsigned	 badcharsets;	/* BADCHARSET codes in this answer */
	unsigned	 alerts;	/* [ALERT]s shown (imap-alert.h) */
	int		 statusdata;	/* the response is "* STATUS" */
	int		 emptylist;	/* its list is open, nothing in it yet */
	int		 qresync;	/* QRESYNC was enabled: ENABLED and
					   VANISHED are asked for */
	unsigned	 namespace;	/* NAMESPACE commands whose tagged
					   reply has not come: their untagged
					   NAMESPACE is asked for */
	char		 status[IMAP_FRAME_STATUS_MAX + 2];
	char		 word[12];	/* the word being read in the head */
	char		 num[24];	/* the size as sent, for the reason */
	char		 why[160];	/* the reason, once stopped */
};

void		 imap_frame_init(struct imap_frame *);

/*
 * The next len bytes from the server. 0 while all is within bounds; -1
 * once an answer passed one, and for every call after that.
 */
int		 imap_frame_scan(struct imap_frame *, const void *buf,
		     size_t len);

/*
 * Why the scan stopped, in plain words: "a line longer than 16 MB", "a
 * literal of 4294967296 bytes (more than 256 MB)", "lists nested more
 * than 256 deep"; NULL while it has not.
 */
const char	*imap_frame_error(const struct imap_frame *);

/*
 * Guard the stream of a session that has just logged in: from here on,
 * every byte read from it is scanned, starting with those libetpan has
 * already read and not yet parsed (which must begin a response). Only
 * streams of net-tls.c can be guarded: for any other stream (none after a
 * login, which needs TLS) this returns 0 and does nothing, as it does
 * when the stream is already guarded. -1 when the bytes already read pass
 * a bound: they are then dropped unparsed, the stream fails from now on,
 * and the session should be dropped.
 */
int		 imap_frame_attach(mailstream *);

/*
 * The answer to a command just sent on s is read by steedmail's streaming
 * reader (imap-fetch.c), which never holds a line whole: the line bound
 * does not apply to it, up to the end of its tagged reply (in the order
 * the answers come, one call per command). A message's ENVELOPE can make
 * a FETCH line of megabytes that a server sends in good faith. Literals
 * and nesting are bounded as ever. Nothing happens on an unguarded stream.
 */
void		 imap_frame_streamed(mailstream *);
/* The same on a scanner of one's own. */
void		 imap_frame_streamed_one(struct imap_frame *);

/*
 * A NAMESPACE command (RFC 2342) is about to be sent on s: its untagged
 * NAMESPACE answer is let through to libetpan's parser, up to the tagged
 * reply that ends the command (one call per command, as
 * imap_frame_streamed()). At any other time NAMESPACE data is refused.
 */
void		 imap_frame_namespace(mailstream *);
/* The same on a scanner of one's own. */
void		 imap_frame_namespace_one(struct imap_frame *);

/*
 * steedmail asks the server for QRESYNC (RFC 7162), on 1: its ENABLED
 * and VANISHED responses, refused otherwise, are let through from now on
 * (0 again when the server did not enable it). imap_frame_qresynced()
 * says whether it is on for s. Nothing happens on an unguarded stream
 * (and that stream answers 0).
 */
void		 imap_frame_qresync(mailstream *, int on);
int		 imap_frame_qresynced(mailstream *);

/* The reason (as imap_frame_error()) if the guard ended this stream. */
const char	*imap_frame_stopped(mailstream *);

/*
 * The cause to show for a stream the guard ended: "the server
 * imap.example.org sent a line longer than 16 MB in its answer to LIST;
 * connection closed" (what may be NULL). NULL if it did not end it.
 * Returns new memory.
 */
char		*imap_frame_cause(mailstream *, const char *what);

#endif
