/*
 * imap-resp.h: one line of what an IMAP server sends before login, parsed
 * strictly by steedmail's own code (RFC 3501 and RFC 9051): the greeting,
 * the status answers of CAPABILITY, STARTTLS, LOGIN and AUTHENTICATE, the
 * untagged lines around them, and every resp-text-code either defines.
 * It reads one line held in memory and never allocates more than the
 * capabilities it was asked to keep; imap-pre.c reads the lines.
 */
#ifndef STEED_IMAP_RESP_H
#define STEED_IMAP_RESP_H

#include <stddef.h>

#define IMAP_RESP_TAG_MAX	32	/* bytes of a tag */
#define IMAP_RESP_ATOM_MAX	64	/* bytes of a code or a capability */
#define IMAP_RESP_CAPS_MAX	256	/* capabilities in one list */

enum imap_resp_kind {
	IMAP_RESP_COND,		/* OK, NO, BAD, BYE or PREAUTH */
	IMAP_RESP_CAPABILITY,	/* "* CAPABILITY ..." */
	IMAP_RESP_DATA,		/* any other untagged line: not used */
	IMAP_RESP_CONTINUE	/* "+ ...": the server waits for more */
};

enum imap_resp_cond {
	IMAP_RESP_NONE,
	IMAP_RESP_OK,
	IMAP_RESP_NO,
	IMAP_RESP_BAD,
	IMAP_RESP_BYE,
	IMAP_RESP_PREAUTH
};

struct imap_resp {
	enum imap_resp_kind	 kind;
	int			 tagged;
	char			 tag[IMAP_RESP_TAG_MAX + 1];
	enum imap_resp_cond	 cond;
	char			 code[IMAP_RESP_ATOM_MAX + 1];
					/* the resp-text-code's name,
					   upper case; "" when none */
	int			 code_bare;	/* nothing but a space, or
						   nothing, after the code */
	int			 has_caps;	/* a capability list came */
	char			**caps;		/* upper case, as given */
	size_t			 ncaps;
	const char		*text;		/* into the line: what follows
						   the status word ("[CODE]
						   text"), or the line */
	size_t			 textlen;
};

/*
 * Parse a line (without its CRLF). Returns 0, or -1 and a cause naming
 * what is wrong ("a BADCHARSET code that is not a list of charsets").
 * Either way imap_resp_clear() frees what it kept.
 */
int	 imap_resp_parse(const char *line, size_t len, struct imap_resp *,
	    char **cause);
void	 imap_resp_clear(struct imap_resp *);

/*
 * Is this line (without its CRLF) a status line (tag or "*", then OK, NO,
 * BAD, BYE or PREAUTH) that breaks the grammar? -1 and a cause when it
 * does; 0 for a good status line and for any other line. For the guard
 * under libetpan's parser after login (imap-frame.c): libetpan reads the
 * response codes of every command's answer, and dies on some malformed
 * ones ("[PERMANENTFLAGS (" at the end of a line), so here a code must
 * also have text after it, as RFC 3501 says. code (IMAP_RESP_ATOM_MAX + 1
 * bytes, or NULL) gets the name of a good line's response code, "" when
 * it has none.
 */
int	 imap_resp_check_status(const char *line, size_t len, char *code,
	    char **cause);

#endif
