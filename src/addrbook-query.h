/*
 * addrbook-query.h: an external address book, asked through the
 * query-command setting as mutt asks one (khard email --parsable %s,
 * abook --mutt-query %s, or any script): the command prints a line of
 * text for the person (skipped), then one line per match,
 * ADDRESS<TAB>NAME<TAB>OTHER, the last two optional. Runs the command and
 * waits for it: callers run it off the interface thread. Never prints.
 */
#ifndef STEED_ADDRBOOK_QUERY_H
#define STEED_ADDRBOOK_QUERY_H

#include <stddef.h>

#include "addrbook.h"
#include "config.h"

#define ADDRBOOK_QUERY_MAX	1000		/* matches kept */
#define ADDRBOOK_QUERY_BYTES	(1024 * 1024)	/* output read */
#define ADDRBOOK_QUERY_TIMEOUT	10		/* seconds */

/*
 * The matches in a command's output (len bytes): *out (source "query";
 * free with addrbook_free()) and their count; lines whose address is not
 * local@domain are skipped. *msg: the first line, allocated, or NULL.
 */
size_t	 addrbook_query_parse(const char *text, size_t len,
	    struct addrbook_entry **out, char **msg);
/*
 * Run query-command for what (put where %s is, quoted for the shell; after
 * the command when there is no %s). Returns the count of matches and *out,
 * *msg as above; -1 with *cause when there is no query-command, it could
 * not run or did not finish, or it failed without printing a match (mutt's
 * commands exit 1 when nothing matches: that is 0 matches, with *msg).
 */
int	 addrbook_query(const struct config *, const char *what,
	    struct addrbook_entry **out, char **msg, char **cause);

#endif
