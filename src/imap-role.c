/*
 * imap-role.c: the folder of each role (Sent, Trash, Drafts, Archive),
 * as imap-role.h orders the ways of finding it. imap_role_choose() is
 * pure; imap_role_find() asks the server (LIST, NAMESPACE) and hands the
 * answers to it. Called by imap-conn.c (delete to the trash), send.c (the
 * copy of what is sent), session.c (drafts, and the roles the front ends
 * show). Never prints; names from the server are only compared and passed
 * back to it.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imap-frame.h"
#include "imap-name.h"
#include "imap-role.h"
#include "imap-session.h"
#include "imap-sync.h"
#include "log.h"
#include "xmalloc.h"

static const char *imap_role_words[IMAP_ROLES] = {
	"Sent", "Trash", "Drafts", "Archive"
};

static const char *imap_role_settings[IMAP_ROLES] = {
	"sent-folder", "trash-folder", "drafts-folder", "archive-folder"
};

/* The names tried, in this order, for each role (step 3). */
static const char *imap_role_names_sent[] = {
	"Sent", "Sent Items", "Sent Messages", "Sent Mail", NULL
};
static const char *imap_role_names_trash[] = {
	"Trash", "Deleted Items", "Deleted Messages", NULL
};
static const char *imap_role_names_drafts[] = { "Drafts", NULL };
static const char *imap_role_names_archive[] = {
	"Archive", "Archives", NULL
};
static const char **imap_role_names[IMAP_ROLES] = {
	imap_role_names_sent, imap_role_names_trash, imap_role_names_drafts,
	imap_role_names_archive
};

const char *
imap_role_word(enum imap_role role)
{
	return imap_role_words[role];
}

const char *
imap_role_setting(enum imap_role role)
{
	return imap_role_settings[role];
}

const char *
imap_role_how_words(enum imap_role_how how)
{
	switch (how) {
	case IMAP_ROLE_CONFIGURED:
		return "set in the configuration";
	case IMAP_ROLE_SPECIAL_USE:
		return "marked by the server";
	case IMAP_ROLE_NAMED:
		return "found by its name";
	case IMAP_ROLE_NONE:
		break;
	}
	return "none found";
}

const char *
imap_role_configured(const struct account *a, enum imap_role role)
{
	const char	*v = NULL;

	switch (role) {
	case IMAP_ROLE_SENT:
		v = a->sent_folder;
		break;
	case IMAP_ROLE_TRASH:
		v = a->trash_folder;
		break;
	case IMAP_ROLE_DRAFTS:
		v = a->drafts_folder;
		break;
	case IMAP_ROLE_ARCHIVE:
		v = a->archive_folder;
		break;
	}
	return v != NULL && *v != '\0' ? v : NULL;
}

/* The first box named prefix + name, case aside. */
static const char *
imap_role_named(const struct imap_role_box *boxes, size_t n,
    const char *prefix, const char *name)
{
	size_t	i, plen = strlen(prefix);

	for (i = 0; i < n; i++) {
		if (strncasecmp(boxes[i].name, prefix, plen) == 0 &&
		    strcasecmp(boxes[i].name + plen, name) == 0)
			return boxes[i].name;
	}
	return NULL;
}

static const char *
imap_role_special(const struct imap_role_box *boxes, size_t n,
    enum imap_role role)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (boxes[i].uses & (1u << role))
			return boxes[i].name;
	return NULL;
}

/* Would the choice look for one of the roles of mask by its name? */
static int
imap_role_needs(const struct imap_role_box *boxes, size_t n,
    const char *const configured[IMAP_ROLES], unsigned mask)
{
	int	role;

	for (role = 0; role < IMAP_ROLES; role++)
		if ((mask & (1u << role)) && configured[role] == NULL &&
		    imap_role_special(boxes, n, role) == NULL)
			return 1;
	return 0;
}

int
imap_role_needs_names(const struct imap_role_box *boxes, size_t n,
    const char *const configured[IMAP_ROLES])
{
	return imap_role_needs(boxes, n, configured, (1u << IMAP_ROLES) - 1);
}

void
imap_role_choose(const struct imap_role_box *boxes, size_t n,
    const char *prefix, const char *const configured[IMAP_ROLES],
    struct imap_roles *r)
{
	const char	*found, **names;
	int		 role;

	memset(r, 0, sizeof *r);
	if (prefix == NULL)
		prefix = "";
	r->prefix = xstrdup(prefix);
	for (role = 0; role < IMAP_ROLES; role++) {
		if (configured[role] != NULL) {
			r->name[role] = xstrdup(configured[role]);
			r->how[role] = IMAP_ROLE_CONFIGURED;
			continue;
		}
		if ((found = imap_role_special(boxes, n, role)) != NULL) {
			r->name[role] = xstrdup(found);
			r->how[role] = IMAP_ROLE_SPECIAL_USE;
			continue;
		}
		/* inside the personal namespace first, then at the top */
		for (names = imap_role_names[role]; *names != NULL; names++)
			if ((found = imap_role_named(boxes, n, prefix,
			    *names)) != NULL)
				break;
		for (names = imap_role_names[role]; found == NULL &&
		    *prefix != '\0' && *names != NULL; names++)
			found = imap_role_named(boxes, n, "", *names);
		if (found != NULL) {
			r->name[role] = xstrdup(found);
			r->how[role] = IMAP_ROLE_NAMED;
		}
	}
}

void
imap_roles_free(struct imap_roles *r)
{
	int	role;

	for (role = 0; role < IMAP_ROLES; role++) {
		free(r->name[role]);
		r->name[role] = NULL;
	}
	free(r->prefix);
	r->prefix = NULL;
}

/* The special uses of a LIST entry, as role bits; -1 if not selectable. */
static int
imap_role_uses(const struct mailimap_mailbox_list *mb)
{
	const struct mailimap_mbx_list_oflag	*of;
	clistiter				*it;
	unsigned				 uses = 0;
	int					 role;

	if (mb->mb_flag == NULL)
		return 0;
	if (mb->mb_flag->mbf_type == MAILIMAP_MBX_LIST_FLAGS_SFLAG &&
	    mb->mb_flag->mbf_sflag == MAILIMAP_MBX_LIST_SFLAG_NOSELECT)
		return -1;
	for (it = mb->mb_flag->mbf_oflags != NULL ?
	    clist_begin(mb->mb_flag->mbf_oflags) : NULL; it != NULL;
	    it = clist_next(it)) {
		of = clist_content(it);
		if (of->of_type != MAILIMAP_MBX_LIST_OFLAG_FLAG_EXT ||
		    of->of_flag_ext == NULL)
			continue;
		if (strcasecmp(of->of_flag_ext, "Noselect") == 0 ||
		    strcasecmp(of->of_flag_ext, "NonExistent") == 0)
			return -1;
		for (role = 0; role < IMAP_ROLES; role++)
			if (strcasecmp(of->of_flag_ext,
			    imap_role_words[role]) == 0)
				uses |= 1u << role;
	}
	return (int)uses;
}

/*
 * Only here is NAMESPACE asked, and the guard below libetpan told first
 * (imap_frame_namespace()).
 */
char *
imap_role_prefix(mailimap *imap)
{
	struct mailimap_namespace_data	*ns = NULL;
	struct mailimap_namespace_info	*info;
	char				*prefix = NULL;
	int				 err;

	if (!imap_session_offers(imap, "NAMESPACE"))
		return xstrdup("");
	imap_frame_namespace(imap->imap_stream);
	err = mailimap_namespace(imap, &ns);
	if (err != MAILIMAP_NO_ERROR || ns == NULL) {
		log_msg(LOG_INFO, "IMAP: NAMESPACE failed (%d)", err);
		return xstrdup("");
	}
	if (ns->ns_personal != NULL && ns->ns_personal->ns_data_list != NULL &&
	    !clist_isempty(ns->ns_personal->ns_data_list)) {
		info = clist_content(clist_begin(
		    ns->ns_personal->ns_data_list));
		if (info->ns_prefix != NULL)
			prefix = imap_name_from_wire(info->ns_prefix);
	}
	mailimap_namespace_data_free(ns);
	return prefix != NULL ? prefix : xstrdup("");
}

/*
 * imap_role_find() for the roles of mask: NAMESPACE is asked only when
 * one of them is left to its name (the others may then go without).
 */
static int
imap_role_find_some(mailimap *imap, const struct account *a, unsigned mask,
    struct imap_roles *r, char **cause)
{
	clist				*list = NULL;
	clistiter			*it;
	struct mailimap_mailbox_list	*mb;
	struct imap_role_box		*boxes = NULL;
	const char			*configured[IMAP_ROLES];
	char				*prefix = NULL;
	size_t				 n = 0, i;
	int				 err, uses, role;

	memset(r, 0, sizeof *r);
	for (role = 0; role < IMAP_ROLES; role++)
		configured[role] = a != NULL ? imap_role_configured(a, role) :
		    NULL;
	if ((err = mailimap_list(imap, "", "*", &list)) != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "LIST", err);
		return -1;
	}
	for (it = clist_begin(list); it != NULL; it = clist_next(it)) {
		mb = clist_content(it);
		if (mb->mb_name == NULL || (uses = imap_role_uses(mb)) < 0)
			continue;
		boxes = xreallocarray(boxes, n + 1, sizeof *boxes);
		boxes[n].name = imap_name_from_wire(mb->mb_name);
		boxes[n].uses = (unsigned)uses;
		n++;
	}
	mailimap_list_result_free(list);
	if (imap_role_needs(boxes, n, configured, mask) &&
	    imap->imap_stream != NULL)
		prefix = imap_role_prefix(imap);
	imap_role_choose(boxes, n, prefix, configured, r);
	for (i = 0; i < n; i++)
		free((char *)boxes[i].name);
	free(boxes);
	free(prefix);
	for (role = 0; role < IMAP_ROLES; role++)
		if (mask & (1u << role))
			log_msg(LOG_INFO, "IMAP: %s folder: %s (%s)",
			    imap_role_words[role], r->name[role] != NULL ?
			    r->name[role] : "none",
			    imap_role_how_words(r->how[role]));
	return 0;
}

int
imap_role_find(mailimap *imap, const struct account *a, struct imap_roles *r,
    char **cause)
{
	return imap_role_find_some(imap, a, (1u << IMAP_ROLES) - 1, r, cause);
}

char *
imap_role_folder(mailimap *imap, const struct account *a,
    enum imap_role role, char **cause)
{
	struct imap_roles	 r;
	char			*name;

	if (imap_role_find_some(imap, a, 1u << role, &r, cause) == -1)
		return NULL;
	if ((name = r.name[role]) == NULL)
		*cause = xasprintf("the server has no %s folder: none is "
		    "marked \\%s (RFC 6154), none has a usual name%s%s%s, and "
		    "%s is not set", imap_role_words[role],
		    imap_role_words[role], *r.prefix != '\0' ? " (inside \"" :
		    "", r.prefix, *r.prefix != '\0' ? "\")" : "",
		    imap_role_settings[role]);
	r.name[role] = NULL;
	imap_roles_free(&r);
	return name;
}
