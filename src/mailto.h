/*
 * mailto.h: a mailto: URL (RFC 6068), what a desktop's mail handler
 * passes to `steedmail mailto:...`, made into the fields of a new
 * message. Only an allow-list is taken: the addresses of the path and
 * to, cc, subject, body, in-reply-to, references. Anything else (bcc,
 * attach, from, reply-to, any header that would change where the mail
 * goes or how it is protected) is dropped and named in ignored, so the
 * screen can say so. The body is plain text, taken as it is: never a
 * file, never signed or decrypted on arrival. Never prints.
 */
#ifndef STEED_MAILTO_H
#define STEED_MAILTO_H

#include <stddef.h>

struct mailto {
	char	**to, **cc;		/* plain addresses, decoded */
	size_t	  nto, ncc;
	char	 *subject;		/* UTF-8, or NULL */
	char	 *body;			/* UTF-8, or NULL */
	char	 *in_reply_to;		/* "<id>", or NULL */
	char	 *references;		/* "<a> <b>", or NULL */
	char	**ignored;		/* field names not taken */
	size_t	  nignored;
};

/*
 * Parse url (starting "mailto:", any case). 0 and *m filled (free with
 * mailto_free()), or -1 with *cause: not a mailto: URL, bad %-encoding,
 * text that is not UTF-8 or holds a line break where none may be, an
 * address that is not local@domain.
 */
int	 mailto_parse(const char *url, struct mailto *m, char **cause);
void	 mailto_free(struct mailto *m);

struct mime_header;
/*
 * The address a mailing list takes posts at: the first mailto: URL of
 * the header's List-Post field (RFC 2369), its first address, in lower
 * case; NULL when there is none ("NO", no field, a URL that does not
 * parse).
 */
char	*mailto_list_post(const struct mime_header *);

#endif
