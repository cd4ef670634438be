/*
 * mailcap.h: the RFC 1524 mailcap files: which command shows a content
 * type, and that command made ready for the shell with a file name and a
 * type that cannot break out of it. Nothing here runs a command.
 */
#ifndef STEED_MAILCAP_H
#define STEED_MAILCAP_H

#include <stddef.h>

#define MAILCAP_MAX_FILE	(1024 * 1024)	/* bytes of a mailcap read */

struct mailcap_entry {
	char	*type;		/* "image/png", "image" (any image) */
	char	*view;		/* the view command, %s and all */
	int	 needsterminal;
	int	 copiousoutput;
};

/* Only entries with copiousoutput (text for the pager, e.g. HTML). */
#define MAILCAP_COPIOUS	0x1

/*
 * The first entry in the len bytes at text (one mailcap file) that shows
 * type (lower case, "image/png"), into *e: 1 if found, 0 if not. Entries
 * with a test= field are skipped (their test is not run).
 */
int	 mailcap_parse(const char *text, size_t len, const char *type,
	    int flags, struct mailcap_entry *e);
/*
 * The same over the files of $MAILCAPS (colon separated), else of
 * ~/.mailcap and /etc/mailcap, in that order. 0 when none has one.
 */
int	 mailcap_find(const char *type, int flags, struct mailcap_entry *e);
/*
 * The command to run for e on file (NULL: the content goes to its
 * standard input), allocated. %s is file, %t the type, %{name} the
 * value of params' name ("charset=utf-8" style strings, nparams of them),
 * %% a percent sign. Every value put in is cut down to letters, digits
 * and "._-+/=" (others become '_'), so that it is one shell word inside
 * quotes or without. *stdin_ (if not NULL) says whether the command has
 * no %s and so reads the content from its standard input.
 */
char	*mailcap_command(const struct mailcap_entry *, const char *file,
	    const char *type, const char **params, size_t nparams,
	    int *stdin_);
void	 mailcap_entry_free(struct mailcap_entry *);

#endif
