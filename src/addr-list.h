/*
 * addr-list.h: the plain addresses (local@domain, lower case) named in a
 * header field such as From, To or Cc, read with libetpan's RFC 5322
 * parser one bounded piece at a time. The crypto code compares them with
 * key user IDs and Autocrypt attributes; cache-protected.c takes them as
 * written, with their display names, for the index. They are untrusted
 * text like everything from a message.
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
/* An address as written, with its display name (RFC 2047 words and
 * all: decode it before showing it), or NULL when it has none. */
struct addr_named {
	char	*name;
	char	*addr;
};
/* The same as addr_list_get(), each address as written with its name. */
size_t	 addr_list_named(const struct mime_header *h, const char *name,
	    struct addr_named **v, size_t *n);
void	 addr_named_free(struct addr_named *, size_t n);
/* The one address of the From field, or NULL if there is not exactly one. */
char	*addr_list_from(const struct mime_header *h);
void	 addr_list_free(char **v, size_t n);
/* 1 if a and b are the same address (compared in lower case). */
int	 addr_list_same(const char *a, const char *b);

#endif
