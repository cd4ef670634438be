/*
 * session-search.c: the searches of session-search.h, on the session's
 * public calls (session.h): the full-text index through
 * session_search_text(), the server through session_search(). It keeps
 * nothing between calls.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "frontend.h"
#include "imap-mailbox.h"
#include "imap-ops.h"
#include "log.h"
#include "search-query.h"
#include "session.h"
#include "session-search.h"
#include "xmalloc.h"

int
session_search_plain(const char *query)
{
	const unsigned char	*q = (const unsigned char *)query;

	for (; *q != '\0'; q++)
		if (!isalnum(*q) && *q != ' ' && *q < 0x80)
			return 0;
	return 1;
}

static int
session_search_uid_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The index's answer for folder, or the class of why it has none: the
 * query, a folder never synced, or the index itself.
 */
static int
session_search_local(struct session *s, const char *folder, const char *query,
    uint32_t **uids, size_t *n, char **cause)
{
	struct search_query	 q;
	struct cache_mailbox	 mb;
	int			 rc;

	*uids = NULL;
	*n = 0;
	if (search_query_parse(query, &q, cause) == -1)
		return SESSION_SEARCH_QUERY;
	search_query_free(&q);
	if ((rc = cache_mailbox_peek(session_cache(s), folder, &mb,
	    cause)) == -1)
		return SESSION_SEARCH_INDEX;
	if (rc == 0) {
		*cause = xasprintf("%s is not in the header cache (--sync it "
		    "first)", folder);
		return SESSION_SEARCH_UNSYNCED;
	}
	if (session_search_text(s, folder, query, uids, n, cause) == -1)
		return SESSION_SEARCH_INDEX;
	return IMAP_OPS_OK;
}

/*
 * session_search_all(), the server asked only when ask says so;
 * *server_rc gets the server's class (IMAP_OPS_OK when it was not asked).
 */
static int
session_search_one(struct session *s, const char *folder, const char *query,
    int ask, uint32_t **uids, size_t *n, unsigned *who, int *server_rc,
    char **cause)
{
	uint32_t	*srv = NULL;
	size_t		 nsrv = 0, i, k;
	char		*why = NULL;
	int		 local;

	*who = 0;
	*server_rc = IMAP_OPS_OK;
	local = session_search_local(s, folder, query, uids, n, cause);
	if (local == IMAP_OPS_OK)
		*who = SESSION_FOUND_CACHE;
	if (!ask || !session_search_plain(query) ||
	    session_offline(s) != NULL)
		return local;
	*server_rc = session_search(s, folder, query, &srv, &nsrv, &why);
	if (*server_rc != IMAP_OPS_OK) {
		log_msg(LOG_INFO, "search: %s: the server did not answer: %s",
		    folder, why);
		if (local != IMAP_OPS_OK) {
			/* neither could answer: the server's reason */
			free(*cause);
			*cause = why;
			return *server_rc;
		}
		*cause = why;		/* a note: the cached mail only */
		return IMAP_OPS_OK;
	}
	free(*cause);
	*cause = NULL;
	*who |= SESSION_FOUND_SERVER;
	/* the union, ascending, without repeats */
	*uids = xreallocarray(*uids, *n + nsrv + 1, sizeof **uids);
	if (nsrv > 0)
		memcpy(*uids + *n, srv, nsrv * sizeof *srv);
	*n += nsrv;
	free(srv);
	qsort(*uids, *n, sizeof **uids, session_search_uid_cmp);
	for (i = k = 0; i < *n; i++)
		if (k == 0 || (*uids)[k - 1] != (*uids)[i])
			(*uids)[k++] = (*uids)[i];
	*n = k;
	return IMAP_OPS_OK;
}

int
session_search_all(struct session *s, const char *folder, const char *query,
    uint32_t **uids, size_t *n, unsigned *who, char **cause)
{
	int	server_rc;

	*cause = NULL;
	return session_search_one(s, folder, query, 1, uids, n, who,
	    &server_rc, cause);
}

void
session_search_hits_free(struct session_hit *hits, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(hits[i].folder);
	free(hits);
}

/* The folders to search: the server's list, else the header cache's. */
static int
session_search_names(struct session *s, char ***names, size_t *n,
    char **cause)
{
	struct imap_folder	*f = NULL;
	size_t			 nf = 0, i;
	char			*why = NULL;

	if (session_offline(s) == NULL && session_down(s) == NULL &&
	    session_folders(s, &f, &nf, &why) == IMAP_OPS_OK) {
		*names = xcalloc(nf + 1, sizeof **names);
		for (i = 0; i < nf; i++)
			(*names)[i] = xstrdup(f[i].name);
		*n = nf;
		imap_mailbox_list_free(f, nf);
		return 0;
	}
	if (why != NULL) {
		log_msg(LOG_INFO, "search: no folder list from the server: %s",
		    why);
		free(why);
	}
	if (cache_mailbox_names(session_cache(s), names, n, cause) == -1)
		return -1;
	return 0;
}

int
session_search_folders(struct session *s, const char *query,
    struct session_hit **hits, size_t *n, unsigned *who, char **cause)
{
	char		**names = NULL, *why, *note = NULL;
	uint32_t	 *uids;
	size_t		  nnames = 0, nuids, i, j;
	unsigned	  w;
	int		  ask = 1, rc = IMAP_OPS_OK, server_rc;

	*hits = NULL;
	*n = 0;
	*who = 0;
	*cause = NULL;
	if (session_search_names(s, &names, &nnames, cause) == -1)
		return SESSION_SEARCH_INDEX;
	for (i = 0; i < nnames; i++) {
		fe_progress(SESSION_SEARCH_PROGRESS, i, nnames);
		if (fe_cancelled()) {
			*cause = xstrdup("stopped as asked");
			rc = SESSION_CANCELLED;
			break;
		}
		why = NULL;
		rc = session_search_one(s, names[i], query, ask, &uids, &nuids,
		    &w, &server_rc, &why);
		/* a server gone is not asked again for the next folders */
		if (server_rc == IMAP_OPS_LOST)
			ask = 0;
		if (rc == SESSION_SEARCH_QUERY || rc == SESSION_SEARCH_INDEX) {
			free(uids);
			*cause = why;
			break;
		}
		if (rc != IMAP_OPS_OK) {
			/* never synced, or refused (a folder that cannot be
			   selected): nothing found there */
			log_msg(LOG_INFO, "search: %s passed over: %s",
			    names[i], why);
			free(why);
			free(uids);
			rc = IMAP_OPS_OK;
			continue;
		}
		if (why != NULL && note == NULL)
			note = why;
		else
			free(why);
		*who |= w;
		*hits = xreallocarray(*hits, *n + nuids + 1, sizeof **hits);
		for (j = 0; j < nuids; j++) {
			(*hits)[*n].folder = xstrdup(names[i]);
			(*hits)[(*n)++].uid = uids[j];
		}
		free(uids);
	}
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (rc != IMAP_OPS_OK) {
		free(note);
		session_search_hits_free(*hits, *n);
		*hits = NULL;
		*n = 0;
		return rc;
	}
	*cause = note;
	return IMAP_OPS_OK;
}
