/*
 * imap-ops.c: the message operations of imap-ops.h, and the flag lists.
 *
 * The session must be logged in with a mailbox selected; nothing here
 * selects one, reconnects or touches the header cache (imap-conn.c does).
 * Whatever the server says is only shown through imap_session_words(),
 * which bounds it and makes it terminal-safe.
 */
#include <stdlib.h>
#include <string.h>

#include "imap-frame.h"
#include "imap-name.h"
#include "imap-ops.h"
#include "imap-session.h"
#include "log.h"
#include "xmalloc.h"

struct mailimap_flag_list *
imap_ops_flag_list(msg_flags set)
{
	struct mailimap_flag_list	*fl;
	struct mailimap_flag		*f;
	msg_flags			 bit;

	if ((fl = mailimap_flag_list_new_empty()) == NULL)
		fatal("out of memory");
	for (bit = 1; bit & MSG_ALL; bit <<= 1) {
		switch (set & bit) {
		case MSG_DRAFT:		f = mailimap_flag_new_draft(); break;
		case MSG_FLAGGED:	f = mailimap_flag_new_flagged(); break;
		case MSG_ANSWERED:	f = mailimap_flag_new_answered(); break;
		case MSG_SEEN:		f = mailimap_flag_new_seen(); break;
		case MSG_DELETED:	f = mailimap_flag_new_deleted(); break;
		default:		continue;
		}
		if (f == NULL || mailimap_flag_list_add(fl, f) != 0)
			fatal("out of memory");
	}
	return fl;
}

/* The bit of one IMAP flag, or 0 for keywords and others. */
static msg_flags
imap_ops_flag_bit(const struct mailimap_flag *f)
{
	switch (f->fl_type) {
	case MAILIMAP_FLAG_DRAFT:	return MSG_DRAFT;
	case MAILIMAP_FLAG_FLAGGED:	return MSG_FLAGGED;
	case MAILIMAP_FLAG_ANSWERED:	return MSG_ANSWERED;
	case MAILIMAP_FLAG_SEEN:	return MSG_SEEN;
	case MAILIMAP_FLAG_DELETED:	return MSG_DELETED;
	default:			return 0;
	}
}

msg_flags
imap_ops_flag_set(const struct mailimap_flag_list *fl)
{
	clistiter	*it;
	msg_flags	 bits = 0;

	if (fl != NULL && fl->fl_list != NULL) {
		for (it = clist_begin(fl->fl_list); it; it = clist_next(it))
			bits |= imap_ops_flag_bit(clist_content(it));
	}
	return bits;
}

/* The words for libetpan's error err on a connection still open. */
static int
imap_ops_cause(mailimap *imap, int err, const char *what, char **cause)
{
	char	*words;
	int	 rc = IMAP_OPS_REFUSED;

	/* the guard below libetpan ended the stream: say why */
	if ((*cause = imap_frame_cause(imap->imap_stream, what)) != NULL)
		return IMAP_OPS_LOST;
	switch (err) {
	case MAILIMAP_ERROR_MEMORY:
		/* libetpan makes room for a literal as large as the server
		 * says before a byte of it comes: a lying server can ask for
		 * gigabytes, and that is its fault, not a reason to end */
		*cause = xasprintf("the IMAP server's reply to %s was too "
		    "large to hold in memory", what);
		return IMAP_OPS_LOST;
	case MAILIMAP_ERROR_STREAM:
		*cause = xasprintf("the connection to the IMAP server was lost "
		    "during %s (closed, or no answer in time)", what);
		return IMAP_OPS_LOST;
	case MAILIMAP_ERROR_PARSE:
	case MAILIMAP_ERROR_PROTOCOL:
		/* Out of step with the server: only a new connection helps. */
		*cause = xasprintf("the IMAP server's reply to %s was not "
		    "understood", what);
		return IMAP_OPS_LOST;
	case MAILIMAP_ERROR_BAD_STATE:
		*cause = xasprintf("%s: no mailbox is selected", what);
		return IMAP_OPS_REFUSED;
	case MAILIMAP_ERROR_FATAL:
		rc = IMAP_OPS_LOST;
		break;
	}
	words = imap_session_words(imap);
	if (rc == IMAP_OPS_LOST)
		*cause = xasprintf("the IMAP server closed the connection "
		    "during %s: %s", what, words);
	else
		*cause = xasprintf("the IMAP server refused %s: %s", what,
		    words);
	free(words);
	return rc;
}

int
imap_ops_error(mailimap *imap, int err, const char *what, char **cause)
{
	int	rc;

	if (err == MAILIMAP_NO_ERROR)
		return IMAP_OPS_OK;
	if (imap->imap_stream == NULL) {
		*cause = xasprintf("%s: the connection to the IMAP server is "
		    "closed", what);
		return IMAP_OPS_LOST;
	}
	rc = imap_ops_cause(imap, err, what, cause);
	if (rc == IMAP_OPS_LOST)
		imap_session_lose(imap);
	return rc;
}

static struct mailimap_set *
imap_ops_set(const uint32_t *uids, size_t n)
{
	struct mailimap_set	*set;
	size_t			 i;

	if ((set = mailimap_set_new_empty()) == NULL)
		fatal("out of memory");
	for (i = 0; i < n; i++) {
		if (mailimap_set_add_single(set, uids[i]) != MAILIMAP_NO_ERROR)
			fatal("out of memory");
	}
	return set;
}

static int
imap_ops_store_one(mailimap *imap, uint32_t uid, msg_flags flags, int add,
    char **cause)
{
	struct mailimap_store_att_flags	*sa;
	struct mailimap_flag_list	*fl;
	struct mailimap_set		*set;
	int				 err;

	if (flags == 0)
		return IMAP_OPS_OK;
	fl = imap_ops_flag_list(flags);
	if (add)
		sa = mailimap_store_att_flags_new_add_flags_silent(fl);
	else
		sa = mailimap_store_att_flags_new_remove_flags_silent(fl);
	if (sa == NULL)
		fatal("out of memory");
	set = imap_ops_set(&uid, 1);
	err = mailimap_uid_store(imap, set, sa);
	mailimap_set_free(set);
	mailimap_store_att_flags_free(sa);
	return imap_ops_error(imap, err, add ? "UID STORE +FLAGS" :
	    "UID STORE -FLAGS", cause);
}

int
imap_ops_store(mailimap *imap, uint32_t uid, msg_flags add,
    msg_flags remove, char **cause)
{
	int	rc;

	if ((rc = imap_ops_store_one(imap, uid, add, 1, cause)) != IMAP_OPS_OK)
		return rc;
	return imap_ops_store_one(imap, uid, remove, 0, cause);
}

/*
 * The UID and flags of one FETCH response; 0 if it had no UID. *has_flags
 * says whether it had FLAGS at all: "FLAGS ()" leaves libetpan's list NULL.
 */
static uint32_t
imap_ops_fetched(const struct mailimap_msg_att *ma, msg_flags *bits,
    int *has_flags)
{
	const struct mailimap_msg_att_item	*item;
	const struct mailimap_flag_fetch	*ff;
	clistiter				*it, *jt;
	uint32_t				 uid = 0;

	*bits = 0;
	*has_flags = 0;
	for (it = clist_begin(ma->att_list); it != NULL; it = clist_next(it)) {
		item = clist_content(it);
		if (item->att_type == MAILIMAP_MSG_ATT_ITEM_STATIC &&
		    item->att_data.att_static->att_type == MAILIMAP_MSG_ATT_UID)
			uid = item->att_data.att_static->att_data.att_uid;
		if (item->att_type != MAILIMAP_MSG_ATT_ITEM_DYNAMIC ||
		    item->att_data.att_dyn == NULL)
			continue;
		*has_flags = 1;
		if (item->att_data.att_dyn->att_list == NULL)
			continue;
		for (jt = clist_begin(item->att_data.att_dyn->att_list); jt;
		    jt = clist_next(jt)) {
			ff = clist_content(jt);
			if (ff->fl_type == MAILIMAP_FLAG_FETCH_OTHER &&
			    ff->fl_flag != NULL)
				*bits |= imap_ops_flag_bit(ff->fl_flag);
		}
	}
	return uid;
}

int
imap_ops_get_flags(mailimap *imap, uint32_t uid, msg_flags *flags,
    char **cause)
{
	struct mailimap_fetch_type	*ft;
	struct mailimap_set		*set;
	clist				*res = NULL;
	clistiter			*it;
	msg_flags			 bits;
	int				 err, has, found = 0;

	if ((ft = mailimap_fetch_type_new_fetch_att_list_empty()) == NULL ||
	    mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_uid()) != MAILIMAP_NO_ERROR ||
	    mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_flags()) != MAILIMAP_NO_ERROR)
		fatal("out of memory");
	set = imap_ops_set(&uid, 1);
	err = mailimap_uid_fetch(imap, set, ft, &res);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (err != MAILIMAP_NO_ERROR)
		return imap_ops_error(imap, err, "UID FETCH FLAGS", cause);
	/* Unasked FETCH responses for other messages may come along. */
	for (it = clist_begin(res); it != NULL && !found; it = clist_next(it)) {
		if (imap_ops_fetched(clist_content(it), &bits, &has) == uid &&
		    has) {
			*flags = bits;
			found = 1;
		}
	}
	mailimap_fetch_list_free(res);
	if (!found) {
		*cause = xasprintf("no message with UID %u in this mailbox",
		    uid);
		return IMAP_OPS_REFUSED;
	}
	return IMAP_OPS_OK;
}

int
imap_ops_copy(mailimap *imap, uint32_t uid, const char *to, char **cause)
{
	struct mailimap_set	*set;
	char			*wire;
	int			 err;

	if ((wire = imap_name_encode(to, cause)) == NULL)
		return IMAP_OPS_REFUSED;
	set = imap_ops_set(&uid, 1);
	err = mailimap_uid_copy(imap, set, wire);
	mailimap_set_free(set);
	free(wire);
	return imap_ops_error(imap, err, "UID COPY", cause);
}

int
imap_ops_move(mailimap *imap, uint32_t uid, const char *to,
    enum imap_ops_how *how, char **cause)
{
	struct mailimap_set	*set;
	char			*why = NULL, *wire;
	int			 err, rc;

	if (imap_session_offers(imap, "MOVE")) {
		if ((wire = imap_name_encode(to, cause)) == NULL)
			return IMAP_OPS_REFUSED;
		set = imap_ops_set(&uid, 1);
		err = mailimap_uid_move(imap, set, wire);
		mailimap_set_free(set);
		free(wire);
		if ((rc = imap_ops_error(imap, err, "UID MOVE", cause)) ==
		    IMAP_OPS_OK)
			*how = IMAP_OPS_MOVED;
		return rc;
	}
	if ((rc = imap_ops_copy(imap, uid, to, cause)) != IMAP_OPS_OK)
		return rc;
	/*
	 * From here on the copy exists: trying the whole move again would
	 * make a second one, so no failure is reported as worth a retry.
	 */
	if (imap_ops_store(imap, uid, MSG_DELETED, 0, &why) != IMAP_OPS_OK) {
		*cause = xasprintf("copied, but the original is still there: "
		    "%s", why);
		free(why);
		return IMAP_OPS_REFUSED;
	}
	if (!imap_session_offers(imap, "UIDPLUS")) {
		log_msg(LOG_INFO, "IMAP: no MOVE nor UIDPLUS; UID %u left "
		    "flagged deleted", uid);
		*how = IMAP_OPS_COPIED_KEPT;
		return IMAP_OPS_OK;
	}
	if (imap_ops_expunge(imap, &uid, 1, &why) != IMAP_OPS_OK) {
		*cause = xasprintf("copied, and the original flagged deleted "
		    "but not expunged: %s", why);
		free(why);
		return IMAP_OPS_REFUSED;
	}
	*how = IMAP_OPS_MOVED;
	return IMAP_OPS_OK;
}

int
imap_ops_expunge(mailimap *imap, const uint32_t *uids, size_t n,
    char **cause)
{
	struct mailimap_set	*set;
	int			 err;

	if (!imap_session_offers(imap, "UIDPLUS")) {
		*cause = xstrdup("the IMAP server does not offer UIDPLUS, "
		    "without which expunging would also remove every other "
		    "message flagged deleted");
		return IMAP_OPS_UNSUPPORTED;
	}
	if (n == 0)
		return IMAP_OPS_OK;
	set = imap_ops_set(uids, n);
	err = mailimap_uid_expunge(imap, set);
	mailimap_set_free(set);
	return imap_ops_error(imap, err, "UID EXPUNGE", cause);
}

int
imap_ops_noop(mailimap *imap, char **cause)
{
	if (imap->imap_stream == NULL) {
		*cause = xstrdup("the connection to the IMAP server is closed");
		return IMAP_OPS_LOST;
	}
	return imap_ops_error(imap, mailimap_noop(imap), "NOOP", cause);
}
