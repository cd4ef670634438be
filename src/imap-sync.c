/*
 * imap-sync.c: the header-cache synchronisation of imap-sync.h.
 *
 * Every string the server sends is bounded and decoded here before it is
 * stored; the index later makes it terminal-safe when it draws it. The
 * whole sync of a mailbox is one transaction per batch, so an interrupted
 * sync leaves a consistent cache that the next run continues from.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "imap-sync.h"
#include "log.h"
#include "rfc2047.h"
#include "strsafe.h"
#include "xmalloc.h"

#define IMAP_FIELD_MAX	998	/* longest header text kept in the cache */

char *
imap_sync_error(mailimap *imap, const char *what, int err)
{
	const char	*r = imap->imap_response;
	char		*safe, *msg;
	struct buf	 b;

	if (err == MAILIMAP_ERROR_STREAM)
		return xasprintf("%s: the connection to the IMAP server was "
		    "lost", what);
	if (r == NULL || *r == '\0')
		return xasprintf("%s failed (libetpan error %d)", what, err);
	buf_init(&b);
	strsafe_add(&b, r, strnlen(r, 300), 0);
	safe = buf_take(&b);
	msg = xasprintf("%s failed: %s", what, safe);
	free(safe);
	return msg;
}

/* Decoded, bounded UTF-8 of a header string from the server. */
static char *
imap_sync_text(const char *s)
{
	char	*raw, *dec;

	if (s == NULL)
		return NULL;
	raw = xstrndup(s, IMAP_FIELD_MAX);
	dec = rfc2047_decode_str(raw);
	free(raw);
	return dec;
}

static char *
imap_sync_from(const struct mailimap_envelope *env)
{
	struct mailimap_address	*a;

	if (env->env_from == NULL || env->env_from->frm_list == NULL ||
	    clist_isempty(env->env_from->frm_list))
		return NULL;
	a = clist_content(clist_begin(env->env_from->frm_list));
	if (a->ad_personal_name != NULL && *a->ad_personal_name != '\0')
		return imap_sync_text(a->ad_personal_name);
	if (a->ad_mailbox_name == NULL)
		return NULL;
	return xasprintf("%.200s@%.200s", a->ad_mailbox_name,
	    a->ad_host_name != NULL ? a->ad_host_name : "");
}

static time_t
imap_sync_time(const struct mailimap_date_time *dt)
{
	struct tm	tm;
	int		zone, off;

	if (dt == NULL)
		return 0;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = dt->dt_year - 1900;
	tm.tm_mon = dt->dt_month - 1;
	tm.tm_mday = dt->dt_day;
	tm.tm_hour = dt->dt_hour;
	tm.tm_min = dt->dt_min;
	tm.tm_sec = dt->dt_sec;
	zone = dt->dt_zone;			/* e.g. -130 for -01:30 */
	off = (abs(zone) / 100) * 3600 + (abs(zone) % 100) * 60;
	return timegm(&tm) - (zone < 0 ? -off : off);
}

/* The flags of a FETCH response as maildir letters, sorted. */
static void
imap_sync_flags(const struct mailimap_msg_att_dynamic *dyn, char *out)
{
	clistiter			*it;
	const struct mailimap_flag_fetch *ff;
	int				 d = 0, f = 0, r = 0, s = 0, t = 0;

	if (dyn != NULL && dyn->att_list != NULL) {
		for (it = clist_begin(dyn->att_list); it; it = clist_next(it)) {
			ff = clist_content(it);
			if (ff->fl_type != MAILIMAP_FLAG_FETCH_OTHER ||
			    ff->fl_flag == NULL)
				continue;
			switch (ff->fl_flag->fl_type) {
			case MAILIMAP_FLAG_DRAFT:	d = 1; break;
			case MAILIMAP_FLAG_FLAGGED:	f = 1; break;
			case MAILIMAP_FLAG_ANSWERED:	r = 1; break;
			case MAILIMAP_FLAG_SEEN:	s = 1; break;
			case MAILIMAP_FLAG_DELETED:	t = 1; break;
			default:			break;
			}
		}
	}
	if (d) *out++ = 'D';
	if (f) *out++ = 'F';
	if (r) *out++ = 'R';
	if (s) *out++ = 'S';
	if (t) *out++ = 'T';
	*out = '\0';
}

struct imap_sync_att {
	uint32_t				 uid;
	uint32_t				 size;
	const struct mailimap_envelope		*env;
	const struct mailimap_date_time		*idate;
	const struct mailimap_msg_att_dynamic	*dyn;
};

static void
imap_sync_parse(const struct mailimap_msg_att *ma, struct imap_sync_att *a)
{
	clistiter			*it;
	const struct mailimap_msg_att_item *item;
	const struct mailimap_msg_att_static *st;

	memset(a, 0, sizeof *a);
	for (it = clist_begin(ma->att_list); it != NULL; it = clist_next(it)) {
		item = clist_content(it);
		if (item->att_type == MAILIMAP_MSG_ATT_ITEM_DYNAMIC) {
			a->dyn = item->att_data.att_dyn;
			continue;
		}
		if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
			continue;
		st = item->att_data.att_static;
		switch (st->att_type) {
		case MAILIMAP_MSG_ATT_UID:
			a->uid = st->att_data.att_uid;
			break;
		case MAILIMAP_MSG_ATT_RFC822_SIZE:
			a->size = st->att_data.att_rfc822_size;
			break;
		case MAILIMAP_MSG_ATT_ENVELOPE:
			a->env = st->att_data.att_env;
			break;
		case MAILIMAP_MSG_ATT_INTERNALDATE:
			a->idate = st->att_data.att_internal_date;
			break;
		default:
			break;
		}
	}
}

/* UIDs from first to the end that the server has, sorted. */
static int
imap_sync_search(mailimap *imap, uint32_t first, uint32_t **uids, size_t *n,
    char **cause)
{
	struct mailimap_search_key	*key;
	clist				*res = NULL;
	clistiter			*it;
	int				 err;

	key = mailimap_search_key_new_uid(mailimap_set_new_interval(first, 0));
	err = mailimap_uid_search(imap, NULL, key, &res);
	mailimap_search_key_free(key);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "UID SEARCH", err);
		return -1;
	}
	*n = 0;
	*uids = xreallocarray(NULL, clist_count(res) + 1, sizeof **uids);
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		uint32_t uid = *(uint32_t *)clist_content(it);
		/* "n:*" also matches the last UID when all are below n. */
		if (uid >= first)
			(*uids)[(*n)++] = uid;
	}
	mailimap_search_result_free(res);
	return 0;
}

static int
imap_sync_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static struct mailimap_set *
imap_sync_set(const uint32_t *uids, size_t n)
{
	struct mailimap_set	*set = mailimap_set_new_empty();
	size_t			 i = 0, j;

	while (i < n) {
		for (j = i; j + 1 < n && uids[j + 1] == uids[j] + 1; j++)
			;
		mailimap_set_add_interval(set, uids[i], uids[j]);
		i = j + 1;
	}
	return set;
}

/* Fetch envelopes of the given UIDs in batches and store them. */
static int
imap_sync_fetch_new(mailimap *imap, struct cache *c, struct cache_mailbox *mb,
    const uint32_t *uids, size_t n, uint32_t *fetched, char **cause)
{
	struct mailimap_fetch_type	*ft;
	struct mailimap_set		*set;
	struct imap_sync_att		 a;
	struct cache_msg		 m;
	clist				*res;
	clistiter			*it;
	size_t				 off, len;
	char				*from, *subject, *date, *mid;
	int				 err, rc = 0;

	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_flags());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_internaldate());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_rfc822_size());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_envelope());

	for (off = 0; off < n && rc == 0; off += len) {
		len = n - off < IMAP_SYNC_BATCH ? n - off : IMAP_SYNC_BATCH;
		set = imap_sync_set(uids + off, len);
		res = NULL;
		err = mailimap_uid_fetch(imap, set, ft, &res);
		mailimap_set_free(set);
		if (err != MAILIMAP_NO_ERROR) {
			*cause = imap_sync_error(imap, "UID FETCH", err);
			rc = -1;
			break;
		}
		if (cache_begin(c, cause) == -1) {
			mailimap_fetch_list_free(res);
			rc = -1;
			break;
		}
		for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
			imap_sync_parse(clist_content(it), &a);
			if (a.uid == 0)
				continue;
			memset(&m, 0, sizeof m);
			m.uid = a.uid;
			m.size = a.size;
			m.internaldate = imap_sync_time(a.idate);
			imap_sync_flags(a.dyn, m.flags);
			from = subject = date = mid = NULL;
			if (a.env != NULL) {
				from = imap_sync_from(a.env);
				subject = imap_sync_text(a.env->env_subject);
				if (a.env->env_date != NULL)
					date = xstrndup(a.env->env_date, 200);
				if (a.env->env_message_id != NULL)
					mid = xstrndup(a.env->env_message_id,
					    IMAP_FIELD_MAX);
			}
			m.from = from;
			m.subject = subject;
			m.date = date;
			m.message_id = mid;
			rc = cache_put(c, mb, &m, cause);
			free(from);
			free(subject);
			free(date);
			free(mid);
			if (rc == -1)
				break;
			(*fetched)++;
		}
		mailimap_fetch_list_free(res);
		if (rc == -1 || cache_commit(c, cause) == -1) {
			cache_rollback(c);
			rc = -1;
		}
	}
	mailimap_fetch_type_free(ft);
	return rc;
}

/* Flags of messages up to maxuid: changed since modseq, or all of them. */
static int
imap_sync_flags_update(mailimap *imap, struct cache *c,
    struct cache_mailbox *mb, int condstore, uint64_t since,
    uint32_t *changed, char **cause)
{
	struct mailimap_fetch_type	*ft;
	struct mailimap_set		*set;
	struct imap_sync_att		 a;
	clist				*res = NULL;
	clistiter			*it;
	char				 flags[8];
	int				 err, rc = 0;

	if (mb->maxuid == 0)
		return 0;
	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_flags());
	set = mailimap_set_new_interval(1, mb->maxuid);
	if (condstore && since > 0)
		err = mailimap_uid_fetch_changedsince(imap, set, ft, since,
		    &res);
	else
		err = mailimap_uid_fetch(imap, set, ft, &res);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "UID FETCH FLAGS", err);
		return -1;
	}
	if (cache_begin(c, cause) == -1) {
		mailimap_fetch_list_free(res);
		return -1;
	}
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		imap_sync_parse(clist_content(it), &a);
		if (a.uid == 0 || a.uid > mb->maxuid || a.dyn == NULL)
			continue;
		imap_sync_flags(a.dyn, flags);
		if ((rc = cache_set_flags(c, mb, a.uid, flags, cause)) == -1)
			break;
		(*changed)++;
	}
	mailimap_fetch_list_free(res);
	if (rc == -1 || cache_commit(c, cause) == -1) {
		cache_rollback(c);
		return -1;
	}
	return 0;
}

int
imap_sync(mailimap *imap, struct cache *c, const char *mailbox,
    struct imap_sync_stats *st, char **cause)
{
	struct mailimap_selection_info	*sel;
	struct cache_mailbox		*mb = &st->mb;
	uint64_t			 modseq = 0, since;
	uint32_t			*uids = NULL, *all = NULL;
	size_t				 nuids = 0, nall = 0;
	int				 err;

	memset(st, 0, sizeof *st);
	st->condstore = mailimap_has_condstore(imap);
	if (st->condstore)
		err = mailimap_select_condstore(imap, mailbox, &modseq);
	else
		err = mailimap_select(imap, mailbox);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "SELECT", err);
		return -1;
	}
	sel = imap->imap_selection_info;
	st->exists = sel->sel_exists;
	if (cache_mailbox(c, mailbox, sel->sel_uidvalidity, mb, cause) == -1)
		return -1;
	since = mb->highestmodseq;

	if (st->condstore && modseq != 0 && since == modseq &&
	    mb->uidnext == sel->sel_uidnext && mb->count == sel->sel_exists) {
		st->unchanged = 1;
		log_msg(LOG_INFO, "sync: nothing changed (modseq %llu)",
		    (unsigned long long)modseq);
		return 0;
	}

	/* Flags first, on what was cached, then the new messages. */
	if (imap_sync_flags_update(imap, c, mb, st->condstore, since,
	    &st->flags_changed, cause) == -1)
		return -1;
	if (sel->sel_uidnext == 0 || sel->sel_uidnext > mb->maxuid + 1 ||
	    mb->count + 0u != sel->sel_exists) {
		if (imap_sync_search(imap, mb->maxuid + 1, &uids, &nuids,
		    cause) == -1)
			return -1;
		qsort(uids, nuids, sizeof *uids, imap_sync_cmp);
		if (imap_sync_fetch_new(imap, c, mb, uids, nuids,
		    &st->fetched, cause) == -1) {
			free(uids);
			return -1;
		}
	}
	if (cache_recount(c, mb, cause) == -1) {
		free(uids);
		return -1;
	}

	/* More cached than the server has: some were expunged. */
	if (mb->count > sel->sel_exists) {
		uint32_t before = mb->count;
		if (imap_sync_search(imap, 1, &all, &nall, cause) == -1) {
			free(uids);
			return -1;
		}
		qsort(all, nall, sizeof *all, imap_sync_cmp);
		if (cache_begin(c, cause) == -1 ||
		    cache_delete_missing(c, mb, all, nall, mb->maxuid,
		    cause) == -1 || cache_commit(c, cause) == -1) {
			cache_rollback(c);
			free(all);
			free(uids);
			return -1;
		}
		free(all);
		if (cache_recount(c, mb, cause) == -1) {
			free(uids);
			return -1;
		}
		st->expunged = before - mb->count;
	}
	free(uids);

	mb->uidnext = sel->sel_uidnext;
	mb->highestmodseq = modseq;
	if (cache_mailbox_update(c, mb, cause) == -1)
		return -1;
	log_msg(LOG_INFO, "sync: %u messages, %u fetched, %u flag updates, "
	    "%u expunged", st->exists, st->fetched, st->flags_changed,
	    st->expunged);
	return 0;
}
