/*
 * mime-header.h: the header of a message or MIME part (RFC 5322 section
 * 2.2) split into fields. Fields are views into the buffer they were found
 * in, which must outlive them.
 */
#ifndef STEED_MIME_HEADER_H
#define STEED_MIME_HEADER_H

#include <stddef.h>

/* Fields kept per header; more are skipped (and the header marked). */
#define MIME_HEADER_MAX_FIELDS	1000

/*
 * What a value may be like before one of libetpan's value parsers
 * (mailimf_*, mailmime_*_parse) sees it: at most this many bytes, and at
 * most this many '(' in all (see mime_header_parsable()).
 */
#define MIME_HEADER_PARSE_MAX		16384
#define MIME_HEADER_PARSE_PARENS	32

struct mime_field {
	const char	*name;
	size_t		 namelen;
	const char	*value;		/* raw: still folded, untrusted */
	size_t		 valuelen;
};

struct mime_header {
	struct mime_field	*fields;
	size_t			 nfields;
	int			 truncated;	/* fields were skipped */
};

/*
 * Split the header at the start of the len bytes at buf; return the offset
 * of the body. The header ends at an empty line, or at a line that is
 * neither a field nor a continuation (which then starts the body). With
 * skip_from, a leading mbox "From " line is passed over. Never fails.
 */
size_t	 mime_header_parse(struct mime_header *, const char *buf, size_t len,
	    int skip_from);
void	 mime_header_free(struct mime_header *);

/* The next field named name (case-insensitive) after prev (NULL: first). */
const struct mime_field *mime_header_find(const struct mime_header *,
	    const char *name, const struct mime_field *prev);
/*
 * A field's value unfolded (line breaks removed, surrounding white space
 * trimmed), newly allocated and NUL-terminated; *len (if not NULL) is its
 * length, which matters because the value may itself contain NUL bytes.
 */
char	*mime_header_unfold(const struct mime_field *, size_t *len);
/* The first field named name, unfolded, or NULL if there is none. */
char	*mime_header_get(const struct mime_header *, const char *name,
	    size_t *len);
/*
 * May libetpan's value parsers see these len bytes? 1 if they are at most
 * MIME_HEADER_PARSE_MAX bytes, hold no NUL and at most
 * MIME_HEADER_PARSE_PARENS '(' characters; else 0: the value counts as
 * unreadable.
 */
int	 mime_header_parsable(const char *, size_t len);

#endif
