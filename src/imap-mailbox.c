/*
 * imap-mailbox.c: the mailbox operations of imap-mailbox.h. Mailbox names
 * from the server are only passed back to the server, never used as paths.
 * What the server derives from a message's structure (BODYSTRUCTURE) is
 * never handed to libetpan's parser (imap-bodystructure.h).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imap-bodystructure.h"
#include "imap-mailbox.h"
#include "imap-name.h"
#include "imap-ops.h"
#include "imap-sync.h"
#include "xmalloc.h"

static int
imap_mailbox_has_use(const struct mailimap_mailbox_list *mb, const char *use)
{
	clistiter				*it;
	const struct mailimap_mbx_list_oflag	*of;

	if (mb->mb_flag == NULL || mb->mb_flag->mbf_oflags == NULL)
		return 0;
	for (it = clist_begin(mb->mb_flag->mbf_oflags); it; it = clist_next(it)) {
		of = clist_content(it);
		if (of->of_type == MAILIMAP_MBX_LIST_OFLAG_FLAG_EXT &&
		    of->of_flag_ext != NULL &&
		    strcasecmp(of->of_flag_ext, use) == 0)
			return 1;
	}
	return 0;
}

/* EXAMINE a mailbox named in UTF-8. */
static int
imap_mailbox_examine(mailimap *imap, const char *mailbox, char **cause)
{
	char	*wire;
	int	 err;

	if ((wire = imap_name_encode(mailbox, cause)) == NULL)
		return -1;
	err = mailimap_examine(imap, wire);
	free(wire);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "EXAMINE", err);
		return -1;
	}
	return 0;
}

int
imap_mailbox_append(mailimap *imap, const char *mailbox, const char *msg,
    size_t len, int seen, char **cause)
{
	struct mailimap_flag_list	*flags;
	char				*wire;
	int				 err;

	if ((wire = imap_name_encode(mailbox, cause)) == NULL)
		return -1;
	flags = mailimap_flag_list_new_empty();
	if (seen)
		mailimap_flag_list_add(flags, mailimap_flag_new_seen());
	err = mailimap_append(imap, wire, flags, NULL, msg, len);
	mailimap_flag_list_free(flags);
	free(wire);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "APPEND", err);
		return -1;
	}
	return 0;
}

int
imap_mailbox_has_msgid(mailimap *imap, const char *mailbox, const char *msgid,
    char **cause)
{
	struct mailimap_search_key	*key;
	clist				*res = NULL;
	int				 err, found;

	if (imap_mailbox_examine(imap, mailbox, cause) != 0)
		return -1;
	key = mailimap_search_key_new_header(xstrdup("Message-ID"),
	    xstrdup(msgid));
	err = mailimap_uid_search(imap, NULL, key, &res);
	mailimap_search_key_free(key);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "UID SEARCH", err);
		return -1;
	}
	found = !clist_isempty(res);
	mailimap_search_result_free(res);
	return found;
}

/* "1.2.3" as an IMAP section part; NULL if it is not one. */
static struct mailimap_section *
imap_mailbox_section(const char *part)
{
	clist		*ids;
	uint32_t	*id;
	unsigned long	 n;
	const char	*p = part;
	char		*end;

	if ((ids = clist_new()) == NULL)
		fatal("out of memory");
	for (;;) {
		if (*p < '1' || *p > '9')
			break;
		n = strtoul(p, &end, 10);
		if (n == 0 || n > 100000)
			break;
		id = xmalloc(sizeof *id);
		*id = (uint32_t)n;
		if (clist_append(ids, id) != 0)
			fatal("out of memory");
		if (*end == '\0')
			return mailimap_section_new_part(
			    mailimap_section_part_new(ids));
		if (*end != '.')
			break;
		p = end + 1;
	}
	while (!clist_isempty(ids)) {
		free(clist_content(clist_begin(ids)));
		clist_delete(ids, clist_begin(ids));
	}
	clist_free(ids);
	return NULL;
}

int
imap_mailbox_fetch(mailimap *imap, const char *mailbox, uint32_t uid,
    const char *part, struct buf *out, char **cause)
{
	struct mailimap_section		*section;
	struct mailimap_fetch_type	*ft;
	struct mailimap_set		*set;
	clist				*res = NULL;
	clistiter			*it, *jt;
	struct mailimap_msg_att		*ma;
	struct mailimap_msg_att_item	*item;
	struct mailimap_msg_att_static	*st;
	struct mailimap_msg_att_body_section *bs = NULL;
	int				 err, rc = 0, has;

	if (mailbox != NULL && imap_mailbox_examine(imap, mailbox, cause) != 0)
		return -1;
	if (part == NULL)
		section = mailimap_section_new(NULL);
	else if ((section = imap_mailbox_section(part)) == NULL) {
		*cause = xasprintf("\"%s\" is not a part number (like 1 or "
		    "2.1)", part);
		return -1;
	}
	/*
	 * Servers answer a FETCH of a missing part with an empty body, which
	 * would look like an empty part; the structure tells the two apart
	 * (RFC 3501 6.4.5). It is read by imap-bodystructure.c, never by
	 * libetpan, which recurses once per level of it.
	 */
	if (part != NULL && (has = imap_bodystructure_has_part(imap, uid, part,
	    cause)) != 1) {
		mailimap_section_free(section);
		if (has == 0)
			*cause = xasprintf("no part %s in the message with "
			    "UID %u", part, uid);
		return -1;
	}
	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_body_peek_section(section));
	set = mailimap_set_new_single(uid);
	err = mailimap_uid_fetch(imap, set, ft, &res);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "UID FETCH", err);
		return -1;
	}
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		ma = clist_content(it);
		for (jt = clist_begin(ma->att_list); jt; jt = clist_next(jt)) {
			item = clist_content(jt);
			if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
				continue;
			st = item->att_data.att_static;
			if (st->att_type == MAILIMAP_MSG_ATT_BODY_SECTION &&
			    bs == NULL &&
			    st->att_data.att_body_section->sec_body_part != NULL)
				bs = st->att_data.att_body_section;
		}
	}
	if (bs == NULL) {
		*cause = xasprintf("no message with UID %u in this mailbox",
		    uid);
		rc = -1;
	} else
		buf_add(out, bs->sec_body_part, bs->sec_length);
	mailimap_fetch_list_free(res);
	return rc;
}

/*
 * Folder listing: LIST, then STATUS (MESSAGES UNSEEN) for each mailbox
 * that can be selected. The special uses are those of RFC 6154; INBOX
 * counts as one, the first. \All is Gmail's "[Gmail]/All Mail", where
 * every message is whatever its labels: listed with the special ones
 * rather than among the labels, which Gmail shows as folders.
 */
static const char *imap_mailbox_uses[] = {
	"Drafts", "Sent", "Archive", "All", "Flagged", "Junk", "Trash"
};

/* Where a mailbox sorts: 0 INBOX, 1.. a special use, then the rest. */
static int
imap_mailbox_rank(const struct mailimap_mailbox_list *mb)
{
	size_t	i, n = sizeof imap_mailbox_uses / sizeof *imap_mailbox_uses;

	if (strcasecmp(mb->mb_name, "INBOX") == 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (imap_mailbox_has_use(mb, imap_mailbox_uses[i]))
			return (int)i + 1;
	}
	return (int)n + 1;
}

static int
imap_mailbox_selectable(const struct mailimap_mailbox_list *mb)
{
	if (mb->mb_flag != NULL &&
	    mb->mb_flag->mbf_type == MAILIMAP_MBX_LIST_FLAGS_SFLAG &&
	    mb->mb_flag->mbf_sflag == MAILIMAP_MBX_LIST_SFLAG_NOSELECT)
		return 0;
	return !imap_mailbox_has_use(mb, "Noselect") &&
	    !imap_mailbox_has_use(mb, "NonExistent");
}

static int
imap_mailbox_cmp(const void *a, const void *b)
{
	const struct imap_folder	*x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The counts of one mailbox (wire: its name as the server spells it). A
 * mailbox the server will not count (NO, BAD) is still listed, its counts
 * unknown and the server's words in f->status_error; only a connection
 * that broke fails the whole list.
 */
static int
imap_mailbox_status(mailimap *imap, const char *wire, struct imap_folder *f,
    char **cause)
{
	struct mailimap_status_att_list		*atts;
	struct mailimap_mailbox_data_status	*res = NULL;
	struct mailimap_status_info		*si;
	clistiter				*it;
	int					 err;

	atts = mailimap_status_att_list_new_empty();
	mailimap_status_att_list_add(atts, MAILIMAP_STATUS_ATT_MESSAGES);
	mailimap_status_att_list_add(atts, MAILIMAP_STATUS_ATT_UNSEEN);
	err = mailimap_status(imap, wire, atts, &res);
	mailimap_status_att_list_free(atts);
	if (err != MAILIMAP_NO_ERROR) {
		if (imap_ops_error(imap, err, "STATUS", cause) ==
		    IMAP_OPS_REFUSED) {
			f->status_error = *cause;
			*cause = NULL;
			return 0;
		}
		return -1;
	}
	/* OK without a STATUS line: libetpan hands back nothing, and the
	 * counts stay unknown (0) */
	if (res == NULL)
		return 0;
	for (it = res->st_info_list != NULL ? clist_begin(res->st_info_list) :
	    NULL; it != NULL; it = clist_next(it)) {
		si = clist_content(it);
		if (si->st_att == MAILIMAP_STATUS_ATT_MESSAGES)
			f->total = si->st_value;
		else if (si->st_att == MAILIMAP_STATUS_ATT_UNSEEN)
			f->unseen = si->st_value;
	}
	mailimap_mailbox_data_status_free(res);
	return 0;
}

int
imap_mailbox_list(mailimap *imap, struct imap_folder **out, size_t *n,
    char **cause)
{
	clist				*list = NULL;
	clistiter			*it;
	struct mailimap_mailbox_list	*mb;
	struct imap_folder		*f = NULL;
	char				**wires = NULL;
	size_t				 i, nf = 0;
	int				 err, rc = 0;

	*out = NULL;
	*n = 0;
	if ((err = mailimap_list(imap, "", "*", &list)) != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "LIST", err);
		return -1;
	}
	for (it = clist_begin(list); it != NULL; it = clist_next(it)) {
		mb = clist_content(it);
		if (mb->mb_name == NULL || !imap_mailbox_selectable(mb))
			continue;
		f = xreallocarray(f, nf + 1, sizeof *f);
		wires = xreallocarray(wires, nf + 1, sizeof *wires);
		memset(&f[nf], 0, sizeof *f);
		wires[nf] = xstrdup(mb->mb_name);
		f[nf].name = imap_name_from_wire(mb->mb_name);
		f[nf].rank = imap_mailbox_rank(mb);
		f[nf].special = f[nf].rank <= (int)(sizeof imap_mailbox_uses /
		    sizeof *imap_mailbox_uses) ? (f[nf].rank == 0 ? "Inbox" :
		    imap_mailbox_uses[f[nf].rank - 1]) : NULL;
		nf++;
	}
	mailimap_list_result_free(list);
	for (i = 0; i < nf && rc == 0; i++)
		rc = imap_mailbox_status(imap, wires[i], &f[i], cause);
	for (i = 0; i < nf; i++)
		free(wires[i]);
	free(wires);
	if (rc == -1) {
		imap_mailbox_list_free(f, nf);
		return -1;
	}
	if (nf > 0)
		qsort(f, nf, sizeof *f, imap_mailbox_cmp);
	*out = f;
	*n = nf;
	return 0;
}

void
imap_mailbox_list_free(struct imap_folder *f, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].status_error);
	}
	free(f);
}
