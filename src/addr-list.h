/*
 * addr-list.h: the plain addresses (local@domain, lower case) named in a
 * header field such as From, To or Cc, read with libetpan's RFC 5322
 * parser one bounded piece at a time. The crypto code compares them with key user IDs and Autocrypt
 * attributes; they are untrusted text like everything from a message.
 */
#ifndef STEED_ADDR_LIST_H
#define STEED_ADDR_LIST_H

#include <stddef.h>

struct mime_header;

/* Lower-case copy of an address. */
char	*addr_list_lower(const char *);
/* Addresses kept in a list, and bytes of fields read per call, at most. */
#define ADDR_LIST_MAX		1000
#define ADDR_LIST_MAX_BYTES	(64 * 1024)

/*
 * The addresses of every field named name in h, appended to *v (*n of
 * them, at most ADDR_LIST_MAX); groups are opened. Returns how many
 * pieces (an address or a group) could not be read, plus one for each
 * field a limit cut short: 0 means every address was read.
 */
size_t	 addr_list_get(const struct mime_header *h, const char *name,
	    char ***v, size_t *n);
/* One mailbox of a field, as written (nothing decoded, case kept). */
struct addr_mailbox {
	char	*name;	/* the display name, or NULL */
	char	*addr;	/* the address; NULL: a piece that holds none */
	char	*text;	/* with addr NULL: that piece's text */
};

/*
 * The mailboxes of every field named name in h, in order, appended to *v
 * (*n of them, at most ADDR_LIST_MAX), groups opened (a group's own name
 * is dropped), each piece that holds no address an entry of its own.
 * Returns what addr_list_get() returns. What the screens show of From,
 * Sender and Reply-To (addr-show.c) is read here, by the same rules as
 * the addresses the crypto code compares.
 */
size_t	 addr_list_mailboxes(const struct mime_header *h, const char *name,
	    struct addr_mailbox **v, size_t *n);
/* The same for one unfolded field value of len bytes (the sync's From). */
size_t	 addr_list_value(const char *s, size_t len, struct addr_mailbox **v,
	    size_t *n);
void	 addr_list_mailboxes_free(struct addr_mailbox *v, size_t n);
/*
 * Does s look like an address: a local part (an atom's characters, dots
 * between, or a quoted string), one @, a domain (letters, digits, '-',
 * 8-bit bytes and dots between, or a [literal])? Only such text is taken
 * for an address.
 */
int	 addr_list_plausible(const char *s);
/*
 * The shapes most fields have, read without libetpan: "local@domain" or
 * "Words Of Atext <local@domain>" (one space between words and before
 * the '<', no '?' in them: no encoded words), dot-atoms on both sides of
 * the '@', and a plausible address.
 * 1 with *addr and *name (NULL when none) allocated, as libetpan would
 * read them; 0 for anything else, which goes to libetpan.
 */
int	 addr_list_simple(const char *s, size_t len, char **name,
	    char **addr);
/* The one address of the From field, or NULL if there is not exactly one. */
char	*addr_list_from(const struct mime_header *h);
void	 addr_list_free(char **v, size_t n);
/* 1 if a and b are the same address (compared in lower case). */
int	 addr_list_same(const char *a, const char *b);

#endif
