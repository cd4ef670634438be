/*
 * imap-role.h: where an account's Sent, Trash, Drafts and Archive folders
 * are. The one place that decides it, for deleting to the trash, the copy
 * of what is sent, the drafts, --check-config and the folder screen:
 *
 *   1. the folder the account's configuration names (sent-folder, ...);
 *   2. the folder the server flags with the RFC 6154 special use (\Sent);
 *   3. a folder with one of the names people and servers use ("Sent",
 *      "Sent Items", "Sent Messages", "Sent Mail"; "Trash", "Deleted
 *      Items", "Deleted Messages"; "Drafts"; "Archive", "Archives"),
 *      case aside, inside the personal namespace (RFC 2342: "INBOX." on
 *      Courier, so INBOX.Sent), else at the top.
 *
 * NAMESPACE is asked only when a role is left to step 3. The choosing is
 * a pure function over a LIST answer (imap_role_choose()), unit-tested.
 */
#ifndef STEED_IMAP_ROLE_H
#define STEED_IMAP_ROLE_H

#include <stddef.h>

#include <libetpan/libetpan.h>

#include "config.h"

enum imap_role {
	IMAP_ROLE_SENT,
	IMAP_ROLE_TRASH,
	IMAP_ROLE_DRAFTS,
	IMAP_ROLE_ARCHIVE
};
#define IMAP_ROLES	4

/* How a role's folder was found. */
enum imap_role_how {
	IMAP_ROLE_NONE,			/* not found */
	IMAP_ROLE_CONFIGURED,		/* the configuration names it */
	IMAP_ROLE_SPECIAL_USE,		/* RFC 6154 */
	IMAP_ROLE_NAMED			/* by its name */
};

/* One mailbox of a LIST answer, as the choosing needs it. */
struct imap_role_box {
	const char	*name;		/* UTF-8 */
	unsigned	 uses;		/* 1 << role for each special use */
};

struct imap_roles {
	char		*name[IMAP_ROLES];	/* UTF-8, or NULL */
	enum imap_role_how how[IMAP_ROLES];
	char		*prefix;	/* the personal namespace's prefix
					   ("" when none or not asked) */
};

/* "Sent", "Trash", "Drafts", "Archive": the special use without "\". */
const char	*imap_role_word(enum imap_role);
/* The setting that names the role's folder: "sent-folder", ... */
const char	*imap_role_setting(enum imap_role);
/* "set in the configuration", "marked by the server" (RFC 6154), "found
 * by its name", "none found": for a person. */
const char	*imap_role_how_words(enum imap_role_how);
/* The account's setting for role, or NULL. */
const char	*imap_role_configured(const struct account *, enum imap_role);

/*
 * The choice over a LIST answer (boxes: the selectable mailboxes, in the
 * server's order) for prefix (NULL or "": none). configured[role] is a
 * name from the configuration or NULL. Fills r (free with
 * imap_roles_free()); r->prefix is a copy of prefix.
 */
void	 imap_role_choose(const struct imap_role_box *, size_t n,
	    const char *prefix, const char *const configured[IMAP_ROLES],
	    struct imap_roles *r);
/* Would imap_role_choose() look for some role by its name? */
int	 imap_role_needs_names(const struct imap_role_box *, size_t n,
	    const char *const configured[IMAP_ROLES]);

/*
 * The personal namespace's first prefix (RFC 2342), decoded: "INBOX." on
 * Courier; "" when the server has none, does not offer NAMESPACE or will
 * not say. Tells the guard below libetpan that NAMESPACE is asked.
 */
char	*imap_role_prefix(mailimap *);

/*
 * On a logged-in session: LIST, NAMESPACE when needed (and offered),
 * then imap_role_choose() with the account's settings. -1 and a cause
 * when LIST fails; a role with no folder is not an error here.
 */
int	 imap_role_find(mailimap *, const struct account *,
	    struct imap_roles *, char **cause);
/*
 * The one folder of role (UTF-8, allocated), or NULL and a cause that
 * says what was looked for.
 */
char	*imap_role_folder(mailimap *, const struct account *, enum imap_role,
	    char **cause);
void	 imap_roles_free(struct imap_roles *);

#endif
