/*
 * autocrypt-parse.h: incoming Autocrypt headers (Autocrypt Level 1): the
 * Autocrypt header of a message, and Autocrypt-Gossip headers from inside
 * its encrypted and signed content. A valid header's key is imported into
 * steedmail's GnuPG home, and what was imported is handed back as
 * (address, fingerprint, source) for the trust store to take. The caller
 * (crypto-in.c) decides whether gossip may be read at all.
 */
#ifndef STEED_AUTOCRYPT_PARSE_H
#define STEED_AUTOCRYPT_PARSE_H

#include <stddef.h>

#include "buf.h"

struct mime_header;

#define AUTOCRYPT_MAX_HEADER	10240	/* bytes; a longer header: invalid */

enum autocrypt_source {
	AUTOCRYPT_HEADER,	/* the sender's own Autocrypt header */
	AUTOCRYPT_GOSSIP	/* Autocrypt-Gossip from inside the message */
};

struct autocrypt_key {
	char			*addr;		/* lower case */
	char			*fpr;		/* upper-case hex */
	int			 mutual;	/* prefer-encrypt=mutual */
	enum autocrypt_source	 source;
};

/* One header's attributes once parsed. */
struct autocrypt_attrs {
	char		*addr;		/* lower case */
	int		 mutual;
	struct buf	 keydata;	/* decoded */
};

enum autocrypt_state {
	AUTOCRYPT_NONE,
	AUTOCRYPT_VALID,
	AUTOCRYPT_INVALID
};

/* What a message's Autocrypt headers came to. */
struct autocrypt_result {
	enum autocrypt_state	 state;		/* of the Autocrypt header */
	char			*reason;	/* when invalid */
	struct autocrypt_key	*keys;		/* imported: header, gossip */
	size_t			 nkeys;
	char			**warnings;	/* about gossip headers */
	size_t			 nwarnings;
};

/*
 * Parse one header value (unfolded, len bytes). Returns -1 with *cause
 * set if it is not a valid Level 1 header; attributes then need no free.
 */
int	 autocrypt_parse_attrs(const char *value, size_t len,
	    struct autocrypt_attrs *, char **cause);
void	 autocrypt_attrs_free(struct autocrypt_attrs *);

/*
 * The Autocrypt header of a message whose header is h and whose sender
 * is from (lower case, NULL if there is no single From address): checked
 * and, if valid, its key imported. report is set to a multipart/report
 * message: its header is then ignored, as Level 1 asks.
 */
void	 autocrypt_parse_header(struct autocrypt_result *,
	    const struct mime_header *h, const char *from, int report);
/*
 * Autocrypt-Gossip headers of the header h of decrypted, sender-signed
 * content, for the n recipients rcpt (To and Cc, lower case) only.
 */
void	 autocrypt_parse_gossip(struct autocrypt_result *,
	    const struct mime_header *h, char **rcpt, size_t n);
void	 autocrypt_result_free(struct autocrypt_result *);

#endif
