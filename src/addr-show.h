/*
 * addr-show.h: what the screens show of an address field (From, Sender,
 * Reply-To, in the view and the pager) and of a sender in the index, and
 * whether it may mislead: the address always whole, a display name
 * folded and cut, and flags for what the screens must mark. The decision
 * is made here, once; the screens only draw it.
 */
#ifndef STEED_ADDR_SHOW_H
#define STEED_ADDR_SHOW_H

#include <stddef.h>

struct mime_header;

/* What a field or a name may hide. */
#define ADDR_SHOW_NO_ADDR	0x01	/* no address read: nobody named */
#define ADDR_SHOW_UNREAD	0x02	/* a piece of it holds no address */
#define ADDR_SHOW_OTHER_ADDR	0x04	/* a name holds an address that is
					   not its own */
#define ADDR_SHOW_BIDI		0x08	/* a name holds bidirectional or
					   control characters */
#define ADDR_SHOW_PADDED	0x10	/* a name was folded (runs of blanks,
					   invisible characters) or cut */
/* What the screens mark, with the address next to it. */
#define ADDR_SHOW_WARN		(ADDR_SHOW_NO_ADDR | ADDR_SHOW_UNREAD | \
				    ADDR_SHOW_OTHER_ADDR | ADDR_SHOW_BIDI)

#define ADDR_SHOW_NAME_MAX	64	/* characters of a name shown */
#define ADDR_SHOW_MAX		100	/* mailboxes shown of a field */

struct addr_show {
	char	*text;	/* the field as shown, one line: "Name <addr>, ..." */
	char	*addrs;	/* its addresses, ", " between, or NULL */
	char	*other;	/* OTHER_ADDR: the first address a name holds */
	int	 flags;	/* ADDR_SHOW_* */
};

/*
 * The fields named field of h (every occurrence, one line), read by
 * addr-list.c's rules. 0 and out cleared when h has no such field. The
 * strings are raw (a name may hold any byte): make them safe to draw.
 */
int	 addr_show_field(const struct mime_header *h, const char *field,
	    struct addr_show *out);
/*
 * The display name (already decoded, len bytes) as shown beside addr:
 * blanks folded into one, invisible characters dropped, cut at
 * ADDR_SHOW_NAME_MAX characters with " [...]"; NULL when nothing is left.
 * *flags gets OTHER_ADDR, BIDI and PADDED as they apply.
 */
char	*addr_show_name(const char *name, size_t len, const char *addr,
	    int *flags);
/*
 * The index's sender column for a (decoded) name and an address: the
 * name, unless the address is missing or not one (then "(no address)"),
 * or the name is empty, may mislead (an address in it, '<', an encoded
 * word left undecoded, bidirectional or control characters, padding) or
 * is cut: then the address. *warn is 1 when the column must be marked
 * (no address; a name holding another address or direction controls).
 * Allocated.
 */
char	*addr_show_sender(const char *name, const char *addr, int *warn);
/*
 * The sentence the screens put next to a field with ADDR_SHOW_WARN
 * flags ("From: a name in it holds the address ..., not its own; its
 * address: ..."), or NULL. Raw, like the field.
 */
char	*addr_show_warning(const char *field, const struct addr_show *);
void	 addr_show_free(struct addr_show *);

#endif
