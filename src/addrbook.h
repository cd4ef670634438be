/*
 * addrbook.h: the addresses a person may mean while typing a recipient.
 * Three sources, in this order: the alias file (mutt's form, `alias NAME
 * [Display Name] <addr>[, addr...]`, the setting alias-file, by default
 * $XDG_CONFIG_HOME/steedmail/aliases; doc/sending.md), the trust store's
 * correspondents, and the senders the header cache has seen (with their
 * display names). Matching is by prefix of the alias, of any word of the
 * display name, or of the address, without regard to case. Read-only;
 * never prints.
 */
#ifndef STEED_ADDRBOOK_H
#define STEED_ADDRBOOK_H

#include <stddef.h>

#include "config.h"

struct cache;
struct trust_store;

struct addrbook_entry {
	char		*alias;		/* the alias's name, or NULL */
	char		*name;		/* display name (UTF-8), or NULL */
	char		*addr;		/* local@domain; an alias of several:
					   "a@x, b@y" */
	const char	*source;	/* "alias", "trust store", "mail seen",
					   "query" (addrbook-query.h) */
	char		*other;		/* query-command's third column, or
					   NULL */
};

/*
 * At most max entries matching prefix, each address once (the first
 * source wins), best first: aliases, then by how often and how recently
 * the address was seen. ts and c may be NULL (that source is skipped).
 * Returns the count (0..max) and *out (free with addrbook_free()), or -1
 * with *cause when the alias file exists but cannot be read.
 */
int	 addrbook_complete(const struct config *, struct trust_store *ts,
	    struct cache *c, const char *prefix, size_t max,
	    struct addrbook_entry **out, char **cause);
void	 addrbook_free(struct addrbook_entry *, size_t n);
/*
 * The addresses an alias NAME stands for (exactly, any case): 1 and
 * *addrs ("Name <a@x>" forms are reduced to a@x; free each and the
 * array), 0 when there is no such alias, -1 with *cause.
 */
int	 addrbook_alias(const struct config *, const char *name,
	    char ***addrs, size_t *n, char **cause);
/* "Display Name <addr>" (the name quoted when it needs it), allocated. */
char	*addrbook_format(const struct addrbook_entry *);

#endif
