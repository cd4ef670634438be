/*
 * mime-build.h: an outgoing message (RFC 5322, MIME) built from what the
 * user wrote: headers, UTF-8 text, attached files.
 */
#ifndef STEED_MIME_BUILD_H
#define STEED_MIME_BUILD_H

#include <stddef.h>
#include <time.h>

#include "buf.h"

/* Attached files larger than this are refused. */
#define MIME_BUILD_MAX_FILE	(100UL * 1024 * 1024)

struct mime_addr {
	const char	*name;		/* display name, UTF-8, or NULL */
	const char	*addr;		/* local@domain, ASCII */
};

/*
 * An attachment held in memory (a resumed draft's, a forwarded message).
 * message/rfc822 goes as it is (7bit or 8bit, RFC 2046 5.2.1); anything
 * else in base64.
 */
struct mime_blob {
	const char	*name;		/* file name, UTF-8, or NULL */
	const char	*type;		/* "type/subtype" */
	const char	*data;
	size_t		 len;
};

struct mime_out {
	struct mime_addr	 from;
	const struct mime_addr	*to;
	size_t			 nto;
	const struct mime_addr	*cc;
	size_t			 ncc;
	/*
	 * Checked like the others but never written into the message: the
	 * SMTP envelope carries Bcc recipients.
	 */
	const struct mime_addr	*bcc;
	size_t			 nbcc;
	const char		*subject;	/* UTF-8, NULL: none */
	const char		*body;		/* UTF-8, LF or CRLF */
	const char * const	*attachments;	/* file paths */
	size_t			 nattachments;
	const struct mime_blob	*blobs;		/* after the files */
	size_t			 nblobs;
	const char		*in_reply_to;	/* "<id@host>", or NULL */
	const char		*references;	/* "<a@h> <b@h>", or NULL */
	const char		*message_id;	/* NULL: a new one */
	/*
	 * More header fields, each "Name: value\r\n", written as they are
	 * after References (a postponed draft's Bcc); never in the outer
	 * header of an encrypted message. NULL: none.
	 */
	const char		*extra;
	time_t			 date;		/* 0: now */
};

/*
 * The whole message, CRLF line ends, into out. Returns -1 with *cause set
 * if a header value holds CR or LF (or is otherwise unusable), an address
 * is malformed, the text is not UTF-8, or a file cannot be read; out may
 * then hold part of a message and is to be thrown away.
 */
int	 mime_build(const struct mime_out *, struct buf *out, char **cause);

/*
 * The two halves, for the crypto code, which wraps the body entity: the
 * header fields up to and including MIME-Version, and the body entity
 * (its Content-* fields, an empty line, the body).
 */
int	 mime_build_headers(const struct mime_out *, struct buf *out,
	    char **cause);
int	 mime_build_entity(const struct mime_out *, struct buf *out,
	    char **cause);

/* A new Message-ID, "<32 hex digits@domain of addr>", allocated. */
char	*mime_build_message_id(const char *addr);
/* The Date format of RFC 5322 section 3.3, in the local time zone. */
char	*mime_build_date(time_t);
/* A header value as the user gave it: refused if it holds CR or LF. */
int	 mime_build_check_value(const char *what, const char *value,
	    char **cause);
/* The MIME type for a file name, by extension. */
const char *mime_build_type(const char *path);

#endif
