/*
 * provider.h: the provider files shipped with steedmail, one
 * config-v1.1.xml document (autoconfig.h) per mail provider, written from
 * each provider's public documentation: its servers, how to log in, and
 * what else it needs (an app password, IMAP switched on, OAuth2). They
 * live in the provider directory, $(datadir)/steedmail/providers after
 * make install, or where the provider-dir setting says; the setup wizard
 * looks an address's domain up in them, and the domain of its MX hosts
 * (account/discover.c). doc/setup.md lists them.
 */
#ifndef STEED_PROVIDER_H
#define STEED_PROVIDER_H

#include <stddef.h>

#include "autoconfig.h"
#include "config.h"

#define PROVIDER_FILES	256	/* files read, at most */

struct provider_list {
	struct autoconfig	**docs;
	char			**files;	/* their names, "gmail.xml" */
	size_t			  n;
	char			**broken;	/* "FILE: why", each skipped */
	size_t			  nbroken;
};

/* The directory cf names (provider-dir), else the one built in. */
const char *provider_dir(const struct config *cf);

/*
 * Read every *.xml file of dir (in name order, each at most
 * AUTOCONFIG_MAX bytes) into l; a file that is not a config-v1.1
 * document is skipped and named in l->broken. A directory that does not
 * exist is an empty list, unless required (then -1 and *cause, as for
 * any directory that cannot be read).
 */
int	 provider_list_load(const char *dir, int required,
	    struct provider_list *l, char **cause);
void	 provider_list_free(struct provider_list *);

/* The provider that lists domain (any case), and its file; or NULL. */
const struct autoconfig *provider_list_find(const struct provider_list *,
	    const char *domain, const char **file);

#endif
