/*
 * session-search.h: a search of an account's mail, the one the batch
 * command (--search) and the interface (B; / and l when no header
 * matches) share: the full-text index of the cached mail (search-index.h)
 * and, for a query of plain words, the server's SEARCH TEXT as well, for
 * the messages not cached; in one folder or in every folder. Who answered
 * comes back as flags and a failure as a class, so that no front end has
 * to read the engine's sentences to decide.
 */
#ifndef STEED_SESSION_SEARCH_H
#define STEED_SESSION_SEARCH_H

#include <stddef.h>
#include <stdint.h>

struct session;

/* Who answered (*who). */
#define SESSION_FOUND_CACHE	0x1	/* the full-text index */
#define SESSION_FOUND_SERVER	0x2	/* the server's SEARCH TEXT */

/* Classes of failure, beside those of session.h. */
#define SESSION_SEARCH_QUERY	(-20)	/* a query that cannot be read */
#define SESSION_SEARCH_UNSYNCED	(-21)	/* the folder was never synced
					   (not in the header cache) and
					   the server was not asked */
#define SESSION_SEARCH_INDEX	(-22)	/* the full-text index failed */

/*
 * Is query only words (letters, digits, spaces; any byte past ASCII)? Such
 * a query also goes to the server; one in the query language
 * (search-query.h) is for the index alone.
 */
int	 session_search_plain(const char *query);

/*
 * The UIDs (ascending, without repeats, *uids allocated) of folder's
 * messages that match query: the full-text index's answer, brought up to
 * date first, and, when query is plain words and the session is not
 * --offline, the server's, together. *who says who answered.
 * IMAP_OPS_OK, with *cause NULL or, when the server was asked and could
 * not answer, its reason (only the cached mail was searched; free it).
 * Otherwise a class (SESSION_SEARCH_*, or the server's when it was asked
 * and the index could not answer either) and a cause.
 */
int	 session_search_all(struct session *, const char *folder,
	    const char *query, uint32_t **uids, size_t *n, unsigned *who,
	    char **cause);

/*
 * What session_search_folders() reports through fe_progress() before
 * each folder: that many done of how many to search.
 */
#define SESSION_SEARCH_PROGRESS	"searching folders"

/* A message found by session_search_folders(). */
struct session_hit {
	char		*folder;	/* as the server names it */
	uint32_t	 uid;
};

/*
 * session_search_all() in every folder of the account: those the server
 * lists (session_folders()), or, --offline or out of reach, those the
 * header cache holds. The hits by folder (in that order), then UID, in
 * an allocated *hits (session_search_hits_free()). A folder never synced
 * that the server was not asked about is passed over; once the server
 * could not be reached, the folders after are searched in the index
 * only. Progress (SESSION_SEARCH_PROGRESS) before each folder, and a
 * stop asked (fe_cancelled()) honoured between folders. IMAP_OPS_OK and
 * *cause as session_search_all() gives it, or a class and a cause (a
 * query that cannot be read, the index failing, SESSION_CANCELLED
 * between folders).
 */
int	 session_search_folders(struct session *, const char *query,
	    struct session_hit **hits, size_t *n, unsigned *who,
	    char **cause);
void	 session_search_hits_free(struct session_hit *, size_t);

#endif
