/*
 * imap-ops.c: the message operations of imap-ops.h, and the flag letters.
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

/* The bit of a maildir letter in a flag set, or 0. */
static unsigned
imap_ops_bit(int letter)
{
	const char	*p;

	if (letter == '\0' || (p = strchr(IMAP_OPS_LETTERS, letter)) == NULL)
		return 0;
	return 1u << (p - IMAP_OPS_LETTERS);
}

static unsigned
imap_ops_bits(const char *letters)
{
	unsigned	bits = 0;

	for (; letters != NULL && *letters != '\0'; letters++)
		bits |= imap_ops_bit((unsigned char)*letters);
	return bits;
}

static void
imap_ops_letters(unsigned bits, char out[IMAP_OPS_FLAGS_SIZE])
{
	size_t	i, n = 0;

	for (i = 0; IMAP_OPS_LETTERS[i] != '\0'; i++) {
		if (bits & (1u << i))
			out[n++] = IMAP_OPS_LETTERS[i];
	}
	out[n] = '\0';
}

int
imap_ops_flags_parse(const char *arg, char add[IMAP_OPS_FLAGS_SIZE],
    char remove[IMAP_OPS_FLAGS_SIZE], char **cause)
{
	const char	*p;
	unsigned	 a = 0, r = 0, *set = NULL, bit;
	int		 n = 0;

	for (p = arg; *p != '\0'; p++) {
		if (*p == '+' || *p == '-') {
			if (set != NULL && n == 0)
				goto empty;
			set = *p == '+' ? &a : &r;
			n = 0;
			continue;
		}
		if (set == NULL) {
			*cause = xasprintf("flags \"%s\" must start with + "
			    "(add) or - (remove)", arg);
			return -1;
		}
		if ((bit = imap_ops_bit((unsigned char)*p)) == 0) {
			*cause = xasprintf("'%c' in \"%s\" is not a flag "
			    "letter (D draft, F flagged, R replied, S seen, "
			    "T deleted)", *p, arg);
			return -1;
		}
		*set |= bit;
		n++;
	}
	if (set == NULL || n == 0)
		goto empty;
	if ((a & r) != 0) {
		imap_ops_letters(a & r, add);
		*cause = xasprintf("flags \"%s\" both add and remove %s", arg,
		    add);
		add[0] = '\0';
		return -1;
	}
	imap_ops_letters(a, add);
	imap_ops_letters(r, remove);
	return 0;

empty:
	*cause = xasprintf("flags \"%s\": a + or - with no letters after it",
	    arg);
	return -1;
}

void
imap_ops_flags_apply(const char *have, const char *add, const char *remove,
    char out[IMAP_OPS_FLAGS_SIZE])
{
	imap_ops_letters((imap_ops_bits(have) | imap_ops_bits(add)) &
	    ~imap_ops_bits(remove), out);
}

struct mailimap_flag_list *
imap_ops_flag_list(const char *letters)
{
	struct mailimap_flag_list	*fl;
	struct mailimap_flag		*f;
	const char			*p;

	if ((fl = mailimap_flag_list_new_empty()) == NULL)
		fatal("out of memory");
	for (p = letters; *p != '\0'; p++) {
		switch (*p) {
		case 'D':	f = mailimap_flag_new_draft(); break;
		case 'F':	f = mailimap_flag_new_flagged(); break;
		case 'R':	f = mailimap_flag_new_answered(); break;
		case 'S':	f = mailimap_flag_new_seen(); break;
		case 'T':	f = mailimap_flag_new_deleted(); break;
		default:	continue;
		}
		if (f == NULL || mailimap_flag_list_add(fl, f) != 0)
			fatal("out of memory");
	}
	return fl;
}

/* The bit of one IMAP flag, or 0 for keywords and others. */
static unsigned
imap_ops_flag_bit(const struct mailimap_flag *f)
{
	switch (f->fl_type) {
	case MAILIMAP_FLAG_DRAFT:	return imap_ops_bit('D');
	case MAILIMAP_FLAG_FLAGGED:	return imap_ops_bit('F');
	case MAILIMAP_FLAG_ANSWERED:	return imap_ops_bit('R');
	case MAILIMAP_FLAG_SEEN:	return imap_ops_bit('S');
	case MAILIMAP_FLAG_DELETED:	return imap_ops_bit('T');
	default:			return 0;
	}
}

void
imap_ops_flag_letters(const struct mailimap_flag_list *fl,
    char out[IMAP_OPS_FLAGS_SIZE])
{
	clistiter	*it;
	unsigned	 bits = 0;

	if (fl != NULL && fl->fl_list != NULL) {
		for (it = clist_begin(fl->fl_list); it; it = clist_next(it))
			bits |= imap_ops_flag_bit(clist_content(it));
	}
	imap_ops_letters(bits, out);
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
imap_ops_store_one(mailimap *imap, uint32_t uid, const char *letters,
    int add, char **cause)
{
	struct mailimap_store_att_flags	*sa;
	struct mailimap_flag_list	*fl;
	struct mailimap_set		*set;
	int				 err;

	if (*letters == '\0')
		return IMAP_OPS_OK;
	fl = imap_ops_flag_list(letters);
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
imap_ops_store(mailimap *imap, uint32_t uid, const char *add,
    const char *remove, char **cause)
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
imap_ops_fetched(const struct mailimap_msg_att *ma, unsigned *bits,
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
imap_ops_get_flags(mailimap *imap, uint32_t uid,
    char flags[IMAP_OPS_FLAGS_SIZE], char **cause)
{
	struct mailimap_fetch_type	*ft;
	struct mailimap_set		*set;
	clist				*res = NULL;
	clistiter			*it;
	unsigned			 bits;
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
			imap_ops_letters(bits, flags);
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
	if (imap_ops_store(imap, uid, "T", "", &why) != IMAP_OPS_OK) {
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
