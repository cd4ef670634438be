/*
 * search-text.h: what of a message goes into the full-text index
 * (search-index.h): the senders (From, Sender, Reply-To), the recipients
 * (To, Cc), the Subject, each decoded, and the text: plain text parts,
 * HTML parts as text (html-text.h), the names of attachments and a few
 * more header fields. From the raw message nothing is decrypted:
 * encrypted content (PGP/MIME, S/MIME, inline PGP) is left out and
 * marked. From an opened message (message.h), what it decrypted is
 * there too; the index takes that only when index-decrypted says so.
 */
#ifndef STEED_SEARCH_TEXT_H
#define STEED_SEARCH_TEXT_H

#include <stddef.h>
#include <time.h>

#include "buf.h"

#define SEARCH_TEXT_MAX	(1024 * 1024)	/* bytes of text per message */

struct message;

struct search_text {
	struct buf	 sender;
	struct buf	 rcpt;
	struct buf	 subject;
	struct buf	 body;
	time_t		 sent;		/* the Date header; 0: none */
	int		 encrypted;	/* it holds content left out */
	int		 decrypted;	/* decrypted text is in it */
};

void	search_text_init(struct search_text *);
/* Wipes what it held (it may be decrypted text). */
void	search_text_free(struct search_text *);
/* The raw message's text, decrypting nothing. */
void	search_text_raw(struct search_text *, const char *raw, size_t len);
/* The same from an opened message, with what it decrypted. */
void	search_text_opened(struct search_text *, struct message *);

#endif
