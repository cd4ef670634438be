/*
 * mime-parse.h: a raw message (RFC 5322, MIME) as a tree of parts. The
 * message owns its buffer; headers and bodies are views into it. Every
 * string in the tree came from the message and is untrusted: it goes
 * through strsafe() before it is shown.
 */
#ifndef STEED_MIME_PARSE_H
#define STEED_MIME_PARSE_H

#include <sys/queue.h>

#include <stddef.h>

#include "buf.h"
#include "mime-cte.h"
#include "mime-header.h"
#include "rfc2231.h"

#define MIME_MAX_DEPTH	32		/* composite parts deeper: not parsed */
#define MIME_MAX_PARTS	1000		/* parts per message; the rest: lost */
#define MIME_MAX_SIZE	(256UL * 1024 * 1024)	/* larger: refused */

/* mime_part flags: what was wrong with the part. */
#define MIME_PART_TOO_DEEP	0x01	/* composite, not parsed: too deep */
#define MIME_PART_NO_BOUNDARY	0x02	/* multipart without usable boundary */
#define MIME_PART_NO_PARTS	0x04	/* multipart, boundary never found */
#define MIME_PART_UNCLOSED	0x08	/* multipart without closing line */
#define MIME_PART_BAD_TYPE	0x10	/* Content-Type unreadable */
#define MIME_PART_CUT		0x20	/* children lost to MIME_MAX_PARTS */
#define MIME_PART_BAD_HEADER	0x40	/* header fields lost (too many) */

enum mime_disposition {
	MIME_DISP_NONE,
	MIME_DISP_INLINE,
	MIME_DISP_ATTACHMENT,
	MIME_DISP_OTHER
};

struct mime_part {
	struct mime_part		*parent;
	TAILQ_ENTRY(mime_part)		 entry;
	TAILQ_HEAD(, mime_part)		 children;
	size_t				 nchildren;

	/* IMAP section number ("1", "2.1"); "" for a multipart message. */
	char				*section;
	int				 depth;
	int				 flags;

	struct mime_header		 header;
	char				*type;		/* lower case */
	char				*subtype;	/* lower case */
	struct rfc2231_param		*params;	/* Content-Type */
	size_t				 nparams;
	struct rfc2231_param		*dparams;	/* Disposition */
	size_t				 ndparams;
	char				*charset;	/* NULL if not given */
	enum mime_cte			 cte;
	char				*cte_name;	/* as given, or NULL */
	enum mime_disposition		 disposition;
	char				*filename;	/* UTF-8, or NULL */

	const char			*raw;		/* header and body */
	size_t				 rawlen;
	const char			*body;		/* still encoded */
	size_t				 bodylen;
};

struct mime_msg {
	char			*buf;
	size_t			 len;
	struct mime_part	*root;
	size_t			 nparts;
	int			 cut;		/* MIME_MAX_PARTS reached */
};

/*
 * Parse the len bytes at buf, which the message takes over (and frees,
 * also on failure). Returns NULL with *cause set only if the message is
 * larger than MIME_MAX_SIZE; any content at all yields a tree.
 */
struct mime_msg	*mime_parse(char *buf, size_t len, char **cause);
/* The same with a copy of the bytes. */
struct mime_msg	*mime_parse_copy(const char *buf, size_t len, char **cause);
void		 mime_msg_free(struct mime_msg *);

/* The part after p in depth-first order, or NULL. */
struct mime_part *mime_part_next(struct mime_part *p);
/* The part with this section number, or NULL. */
struct mime_part *mime_msg_section(struct mime_msg *, const char *section);

/* 1 if the part is type/subtype (subtype NULL: any subtype). */
int	 mime_part_is(const struct mime_part *, const char *type,
	    const char *subtype);
/* A Content-Type parameter (RFC 2231 and 2047 decoded), or NULL. */
char	*mime_part_param(const struct mime_part *, const char *name);

#endif
