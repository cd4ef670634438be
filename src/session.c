/*
 * session.c: an account opened for use (session.h). Owns the account's
 * header cache handle and IMAP connection for as long as it is open, and
 * the order of a sync: headers first, then the trust step from where the
 * last one stopped; and what an opened message's protected header says,
 * into the cache (cache-protected.h), unless the setting
 * cache-protected-headers is no. Called by the front ends (the batch
 * commands, the interface's worker); calls imap-conn, imap-sync,
 * sync-trust, cache, cache-protected and password. Never prints: warnings go to fe_notice(), questions (the
 * password) to fe_secret().
 */
#include <stdlib.h>
#include <string.h>

#include "body-cache.h"
#include "cache-protected.h"
#include "crypto.h"
#include "frontend.h"
#include "imap-name.h"
#include "imap-role.h"
#include "log.h"
#include "mime-parse.h"
#include "oauth2.h"
#include "password.h"
#include "search-index.h"
#include "session.h"
#include "session-int.h"
#include "xmalloc.h"

#define SESSION_OFFLINE	"started with --offline: only cached mail"
#define SESSION_PREFETCH_MAX	2000	/* messages looked at per prefetch */

/*
 * The body cache, with its configured bound; without it (a file that
 * cannot be made) messages are only ever fetched, which is said once.
 */
static void
session_open_bodies(struct session *s)
{
	uint64_t	 limit = BODY_CACHE_DEFAULT;
	char		*cause = NULL;

	if (s->cf->body_cache_size != NULL &&
	    body_cache_size_parse(s->cf->body_cache_size, &limit,
	    &cause) == -1) {
		fe_notice(FE_WARNING, "%s; %llu bytes it is", cause,
		    (unsigned long long)BODY_CACHE_DEFAULT);
		free(cause);
		cause = NULL;
		limit = BODY_CACHE_DEFAULT;
	}
	if ((s->bodies = body_cache_open(s->a->id, limit, &cause)) == NULL) {
		fe_notice(FE_WARNING, "%s: messages are not kept: %s",
		    s->a->id, cause);
		free(cause);
	}
}

/* Are an opened message's protected header values kept in the cache? */
static int
session_keeps_protected(const struct session *s)
{
	return s->cf->cache_protected == NULL ||
	    strcmp(s->cf->cache_protected, "no") != 0;
}

/*
 * With cache-protected-headers = no, what an earlier setting kept is
 * forgotten as the account is opened.
 */
static void
session_forget_protected(struct session *s)
{
	char	*cause = NULL;
	int	 n;

	if (session_keeps_protected(s))
		return;
	if ((n = cache_protected_clear(s->cache, &cause)) == -1) {
		fe_notice(FE_WARNING, "%s: the protected header fields in the "
		    "header cache could not be forgotten: %s", s->a->id,
		    cause);
		free(cause);
	} else if (n > 0)
		log_msg(LOG_INFO, "session: %s: protected header fields of %d "
		    "messages forgotten (cache-protected-headers = no)",
		    s->a->id, n);
}

int
session_open(struct config *cf, const char *id, struct session **sp,
    char **cause)
{
	struct session	*s;
	char		*pw;

	*sp = NULL;
	s = xcalloc(1, sizeof *s);
	s->cf = cf;
	if ((s->a = config_account(cf, id, cause)) == NULL) {
		free(s);
		return SESSION_NO_ACCOUNT;
	}
	if ((s->cache = cache_open(s->a->id, cause)) == NULL) {
		free(s);
		return SESSION_NO_CACHE;
	}
	session_forget_protected(s);
	session_open_bodies(s);
	if (cf->offline) {
		/* no password asked, no connection tried, ever */
		s->conn = imap_conn_new(s->a, cf->ca_file, NULL, s->cache);
		s->down = xstrdup(SESSION_OFFLINE);
		imap_conn_offline(s->conn, s->down);
		*sp = s;
		return IMAP_OPS_OK;
	}
	if ((pw = password_get(cf, s->a, cause)) == NULL) {
		if (!oauth2_account(s->a)) {
			body_cache_close(s->bodies);
			cache_close(s->cache);
			free(s);
			return SESSION_NO_PASSWORD;
		}
		/*
		 * No OAuth2 token now (the authorization server out of
		 * reach, the sign-in refused): the cache is there, and the
		 * connection tries again for a token when it reconnects.
		 */
		log_msg(LOG_INFO, "session: %s: %s", s->a->id, *cause);
		free(*cause);
		*cause = NULL;
	}
	s->conn = imap_conn_new(s->a, cf->ca_file, pw, s->cache);
	freezero_str(pw);
	if (imap_conn_open(s->conn, &s->down) != IMAP_OPS_OK)
		log_msg(LOG_INFO, "session: %s: server out of reach: %s",
		    s->a->id, s->down);
	*sp = s;
	return IMAP_OPS_OK;
}

void
session_close(struct session *s)
{
	if (s == NULL)
		return;
	imap_conn_close(s->conn);
	search_index_close(s->search);
	body_cache_close(s->bodies);
	cache_close(s->cache);
	free(s->down);
	free(s);
}

const struct account *
session_account(const struct session *s)
{
	return s->a;
}

struct cache *
session_cache(struct session *s)
{
	return s->cache;
}

const char *
session_down(const struct session *s)
{
	return s->down;
}

size_t
session_replayed(const struct session *s)
{
	return imap_conn_replayed(s->conn);
}

unsigned
session_reconnects(const struct session *s)
{
	return imap_conn_reconnects(s->conn);
}

/*
 * Each folder's role (imap-role.h), for the screens to show beside it:
 * what imap_role_find() chooses on the same connection. A role lookup
 * that fails leaves the list as it is.
 */
static void
session_folder_roles(struct session *s, struct imap_folder *f, size_t n)
{
	struct imap_roles	 r;
	mailimap		*imap;
	char			*why = NULL;
	size_t			 i;
	int			 role;

	if ((imap = imap_conn_session(s->conn)) == NULL)
		return;
	if (imap_role_find(imap, s->a, &r, &why) == -1) {
		log_msg(LOG_INFO, "session: no folder roles: %s", why);
		free(why);
		return;
	}
	for (role = 0; role < IMAP_ROLES; role++)
		for (i = 0; r.name[role] != NULL && i < n; i++)
			if (strcmp(f[i].name, r.name[role]) == 0 &&
			    f[i].role == NULL) {
				f[i].role = imap_role_word(role);
				f[i].role_how = imap_role_how_words(r.how[role]);
			}
	imap_roles_free(&r);
}

int
session_folders(struct session *s, struct imap_folder **folders, size_t *n,
    char **cause)
{
	int	rc;

	*folders = NULL;
	*n = 0;
	if ((rc = imap_conn_folders(s->conn, folders, n, cause)) ==
	    IMAP_OPS_OK)
		session_folder_roles(s, *folders, *n);
	return rc;
}

/* A long call failed: was it because it was asked to stop? */
static int
session_stopped(int rc, char **cause)
{
	if (rc == IMAP_OPS_OK || !fe_cancelled())
		return rc;
	free(*cause);
	*cause = xstrdup("stopped as asked");
	return SESSION_CANCELLED;
}

int
session_sync(struct session *s, const char *folder, struct session_sync *ss,
    char **cause)
{
	struct cache_mailbox	 before;
	char			*why = NULL;
	int			 rc;

	memset(ss, 0, sizeof *ss);
	/*
	 * The folder's cached state before the sync, read first so that
	 * batches stored by an attempt that then lost the connection still
	 * count as new for the trust step.
	 */
	if (cache_mailbox_find(s->cache, folder, &before, &why) != 1) {
		free(why);
		memset(&before, 0, sizeof before);
	}
	rc = imap_conn_sync(s->conn, folder, &ss->st, cause);
	if ((rc = session_stopped(rc, cause)) != IMAP_OPS_OK)
		return rc;
	session_index(s);
	/*
	 * From the first message no sync has given the trust store yet:
	 * those of an earlier sync that stopped between storing envelopes
	 * and the trust step too, which the header cache would otherwise
	 * hide. Another UIDVALIDITY (or nothing cached): every message.
	 */
	ss->trust_first = before.uidvalidity == ss->st.mb.uidvalidity ?
	    before.trust_uid + 1 : 1;
	return IMAP_OPS_OK;
}

/* The trust step is done up to the newest message of the sync. */
static void
session_trusted(struct session *s, const char *folder, uint32_t uid)
{
	struct cache_mailbox	 mb;
	char			*cause = NULL;

	if (cache_mailbox_find(s->cache, folder, &mb, &cause) != 1 ||
	    cache_mailbox_trusted(s->cache, &mb, uid, &cause) == -1) {
		log_msg(LOG_INFO, "sync: trust step not marked done: %s",
		    cause != NULL ? cause : "no such mailbox");
		free(cause);
	}
}

/* What the trust step's hooks need. */
struct session_passing {
	struct session		*s;
	const char		*folder;
	struct cache_mailbox	 mb;
	int			 have_mb;
	unsigned		 kept;	/* messages whose rows changed */
	char			*pending; /* what was left behind, or NULL
					   before it was first read */
};

/*
 * The trust step starts on uid: the resume point moves to it first, so
 * that no sync comes back to a message that once stopped the process.
 */
static void
session_passing(void *arg, uint32_t uid)
{
	struct session_passing	*p = arg;

	session_trusted(p->s, p->folder, uid);
}

/* The folder's cached state, once, for the trust step's hooks. */
static const struct cache_mailbox *
session_passing_mb(struct session_passing *p)
{
	char	*cause = NULL;

	if (p->have_mb == 0) {
		p->have_mb = cache_mailbox_find(p->s->cache, p->folder, &p->mb,
		    &cause) == 1 ? 1 : -1;
		free(cause);
	}
	return p->have_mb == 1 ? &p->mb : NULL;
}

/* What the trust step left behind (cache_mailbox_pending), read once. */
static const char *
session_pending(struct session_passing *p)
{
	const struct cache_mailbox	*mb;
	char				*cause = NULL;

	if (p->pending == NULL && (mb = session_passing_mb(p)) != NULL &&
	    (p->pending = cache_mailbox_pending(p->s->cache, mb,
	    &cause)) == NULL) {
		log_msg(LOG_INFO, "sync: trust step: %s", cause);
		free(cause);
	}
	return p->pending;
}

/* The pending set becomes set (taken). */
static void
session_pending_set(struct session_passing *p, char *set)
{
	const struct cache_mailbox	*mb;
	char				*cause = NULL;

	if ((mb = session_passing_mb(p)) == NULL ||
	    cache_mailbox_set_pending(p->s->cache, mb, set, &cause) == -1) {
		log_msg(LOG_INFO, "sync: trust step: pending messages not "
		    "kept: %s", cause != NULL ? cause : "no such mailbox");
		free(cause);
		free(set);
		return;
	}
	free(p->pending);
	p->pending = set;
}

/* The window of the newest left lo..hi out: pending, for later. */
static void
session_behind(void *arg, uint32_t lo, uint32_t hi)
{
	struct session_passing	*p = arg;
	const char		*set;

	if ((set = session_pending(p)) != NULL)
		session_pending_set(p, sync_trust_set_add(set, lo, hi));
}

/*
 * The step on what was left behind starts on uid: nothing from uid up is
 * pending from now on, so that no sync comes back to it.
 */
static void
session_pending_passing(void *arg, uint32_t uid)
{
	struct session_passing	*p = arg;
	const char		*set;

	if ((set = session_pending(p)) != NULL)
		session_pending_set(p, sync_trust_set_cut(set, uid));
}

/* A message the trust step opened: its protected header, kept. */
static void
session_trust_opened(void *arg, uint32_t uid, const struct message *m)
{
	struct session_passing		*p = arg;
	const struct cache_mailbox	*mb;
	char				*cause = NULL;
	int				 rc;

	if ((mb = session_passing_mb(p)) == NULL)
		return;
	if ((rc = cache_protected_keep(p->s->cache, mb, uid, m,
	    &cause)) == -1) {
		log_msg(LOG_INFO, "sync: UID %u: protected header not kept: "
		    "%s", uid, cause);
		free(cause);
	} else if (rc == 1)
		p->kept++;
}

/* The trust step's candidates among lo..hi, from the header cache. */
static int
session_trust_candidates(void *arg, uint32_t lo, uint32_t hi,
    uint32_t **uids, size_t *n)
{
	struct session_passing		*p = arg;
	const struct cache_mailbox	*mb;
	char				*cause = NULL;
	int				 rc;

	if ((mb = session_passing_mb(p)) == NULL)
		return 0;
	if ((rc = cache_evidence(p->s->cache, mb, lo, hi, uids, n,
	    &cause)) == -1) {
		log_msg(LOG_INFO, "sync: trust step: %s", cause);
		free(cause);
		return 0;
	}
	return rc;
}

/* A message the trust store knows: is it to be opened for the cache? */
static int
session_trust_wants(void *arg, uint32_t uid)
{
	struct session_passing		*p = arg;
	const struct cache_mailbox	*mb;
	char				*cause = NULL;
	int				 rc = 0;

	if ((mb = session_passing_mb(p)) != NULL &&
	    (rc = cache_protected_wanted(p->s->cache, mb, uid,
	    &cause)) == -1) {
		free(cause);
		rc = 0;
	}
	return rc;
}

int
session_opened(struct session *s, const char *folder, uint32_t uid,
    const struct message *m)
{
	struct cache_mailbox	 mb;
	char			*cause = NULL;
	int			 rc;

	if (!session_keeps_protected(s))
		return 0;
	if ((rc = cache_mailbox_find(s->cache, folder, &mb, &cause)) == 1 &&
	    (rc = cache_protected_keep(s->cache, &mb, uid, m, &cause)) != -1)
		return rc;
	if (rc == -1) {
		log_msg(LOG_INFO, "session: %s: UID %u: protected header not "
		    "kept: %s", folder, uid, cause);
		free(cause);
	}
	return 0;
}

int
session_trust(struct session *s, const char *folder,
    const struct session_sync *ss, struct sync_trust_stats *ts)
{
	struct sync_trust_how	 how;
	struct session_passing	 p;
	mailimap		*imap;
	char			*cause = NULL;
	int			 rc;

	memset(ts, 0, sizeof *ts);
	if (ss->trust_first == 0 || ss->trust_first > ss->st.mb.maxuid)
		return IMAP_OPS_OK;
	memset(&p, 0, sizeof p);
	p.s = s;
	p.folder = folder;
	memset(&how, 0, sizeof how);
	if (sync_trust_limit(s->cf->sync_trust_limit, &how.limit,
	    &cause) == -1) {
		fe_notice(FE_WARNING, "%s", cause);
		free(cause);
		cause = NULL;
	}
	if (how.limit == 0) {
		/* Off: nothing is pending. */
		session_trusted(s, folder, ss->st.mb.maxuid);
		return IMAP_OPS_OK;
	}
	if ((imap = imap_conn_session(s->conn)) == NULL)
		return IMAP_OPS_OK;
	how.gnupg_home = s->cf->gnupg_home;
	how.cf = s->cf;
	how.mailbox = folder;
	how.passing = session_passing;
	how.behind = session_behind;
	how.candidates = session_trust_candidates;
	if (session_keeps_protected(s)) {
		how.opened = session_trust_opened;
		how.wants = session_trust_wants;
	}
	how.arg = &p;
	rc = sync_trust(imap, ss->trust_first, ss->st.mb.maxuid, &how, ts,
	    &cause);
	ts->kept = p.kept;
	free(p.pending);
	if (rc == -1) {
		fe_notice(FE_WARNING, "%s: trust: nothing processed: %s",
		    folder, cause);
		free(cause);
		return IMAP_OPS_OK;
	}
	/* Stopped: the next sync's step starts where this one did. */
	if (fe_cancelled())
		return SESSION_CANCELLED;
	session_trusted(s, folder, ss->st.mb.maxuid);
	return IMAP_OPS_OK;
}

int
session_trust_more(struct session *s, const char *folder, unsigned most,
    struct sync_trust_stats *ts, int *more)
{
	struct sync_trust_how	 how;
	struct session_passing	 p;
	const char		*set;
	mailimap		*imap;
	uint32_t		 lo, hi;
	char			*cause = NULL;
	unsigned		 limit;
	int			 rc, res = IMAP_OPS_OK;

	memset(ts, 0, sizeof *ts);
	*more = 0;
	if (sync_trust_limit(s->cf->sync_trust_limit, &limit, &cause) == -1) {
		free(cause);	/* said by session_trust() */
		cause = NULL;
	}
	if (limit == 0)
		return IMAP_OPS_OK;
	memset(&p, 0, sizeof p);
	p.s = s;
	p.folder = folder;
	if ((set = session_pending(&p)) == NULL ||
	    !sync_trust_set_top(set, &lo, &hi)) {
		free(p.pending);
		return IMAP_OPS_OK;
	}
	if ((imap = imap_conn_session(s->conn)) == NULL) {
		free(p.pending);
		return IMAP_OPS_OK;
	}
	memset(&how, 0, sizeof how);
	how.limit = SYNC_TRUST_ALL;
	how.newest_first = 1;
	how.most = most;
	how.gnupg_home = s->cf->gnupg_home;
	how.cf = s->cf;
	how.mailbox = folder;
	how.passing = session_pending_passing;
	how.candidates = session_trust_candidates;
	if (session_keeps_protected(s)) {
		how.opened = session_trust_opened;
		how.wants = session_trust_wants;
	}
	how.arg = &p;
	log_msg(LOG_INFO, "sync: %s: trust step on UIDs %u:%u, left behind",
	    folder, lo, hi);
	rc = sync_trust(imap, lo, hi, &how, ts, &cause);
	ts->kept = p.kept;
	if (rc == -1) {
		fe_notice(FE_WARNING, "%s: trust: nothing processed: %s",
		    folder, cause);
		free(cause);
		res = IMAP_OPS_LOST;
	} else if (fe_cancelled())
		res = SESSION_CANCELLED;
	else if (!ts->stopped) {
		/* All taken were reached: what is left is below the rest. */
		if ((set = session_pending(&p)) != NULL)
			session_pending_set(&p, sync_trust_set_cut(set,
			    ts->rest != 0 ? ts->rest + 1 : lo));
	} else
		res = IMAP_OPS_LOST;
	if (res == IMAP_OPS_OK && (set = session_pending(&p)) != NULL)
		*more = *set != '\0';
	free(p.pending);
	return res;
}

struct body_cache *
session_bodies(struct session *s)
{
	return s->bodies;
}

/* The full-text index, opened the first time; NULL after saying why. */
static struct search_index *
session_search_index(struct session *s, char **cause)
{
	int	dec;

	if (s->search != NULL)
		return s->search;
	dec = s->cf->index_decrypted != NULL &&
	    strcmp(s->cf->index_decrypted, "yes") == 0;
	if (dec) {
		char	*why = NULL;

		/* what is decrypted for the index, with the configured home */
		if (crypto_init(s->cf->gnupg_home, &why) == -1) {
			log_msg(LOG_INFO, "session: %s", why);
			free(why);
		}
	}
	s->search = search_index_open(s->a->id, dec, cause);
	return s->search;
}

void
session_index(struct session *s)
{
	struct search_index	*si;
	size_t			 added;
	char			*cause = NULL;

	if (s->bodies == NULL)
		return;
	if ((si = session_search_index(s, &cause)) == NULL ||
	    search_index_update(si, s->bodies, &added, &cause) == -1) {
		log_msg(LOG_INFO, "session: %s: full-text index: %s",
		    s->a->id, cause);
		free(cause);
	}
}

/* What session_prefetch() gathers: the newest messages not kept. */
struct session_want {
	struct session	*s;
	const char	*folder;
	uint32_t	 uidvalidity;
	time_t		 since;
	uint32_t	*uids;
	size_t		 n;
};

static int
session_want(const struct cache_msg *m, void *arg)
{
	struct session_want	*w = arg;
	char			*why = NULL;

	if (m->internaldate < w->since)
		return 0;
	if (body_cache_has(w->s->bodies, w->folder, w->uidvalidity, m->uid,
	    &why) == 0) {
		w->uids = xreallocarray(w->uids, w->n + 1, sizeof *w->uids);
		w->uids[w->n++] = m->uid;
	}
	free(why);
	return 0;
}

int
session_prefetch(struct session *s, const char *folder, size_t *fetched,
    char **cause)
{
	struct cache_mailbox	 mb;
	struct session_want	 w;
	struct buf		 b;
	char			*end;
	long			 days = 0;
	size_t			 i;
	int			 rc;

	*fetched = 0;
	if (s->cf->body_prefetch_days != NULL) {
		days = strtol(s->cf->body_prefetch_days, &end, 10);
		if (*s->cf->body_prefetch_days == '\0' || *end != '\0' ||
		    days < 0 || days > 36500) {
			*cause = xasprintf("body-prefetch-days %s: not a number "
			    "of days (0 to 36500)", s->cf->body_prefetch_days);
			return -1;
		}
	}
	if (days == 0 || s->bodies == NULL || s->cf->offline)
		return IMAP_OPS_OK;
	if ((rc = cache_mailbox_peek(s->cache, folder, &mb, cause)) != 1)
		return rc == 0 ? IMAP_OPS_OK : -1;
	memset(&w, 0, sizeof w);
	w.s = s;
	w.folder = folder;
	w.uidvalidity = mb.uidvalidity;
	w.since = time(NULL) - (time_t)days * 86400;
	if (cache_each_newest(s->cache, &mb, SESSION_PREFETCH_MAX,
	    session_want, &w, cause) == -1)
		return -1;
	rc = IMAP_OPS_OK;
	/* the newest first: a stopped prefetch has kept the most wanted */
	for (i = 0; i < w.n && rc == IMAP_OPS_OK; i++) {
		if (fe_cancelled()) {
			rc = SESSION_CANCELLED;
			break;
		}
		buf_init(&b);
		if ((rc = session_fetch(s, folder, w.uids[i], NULL, &b,
		    cause)) == IMAP_OPS_OK)
			(*fetched)++;
		buf_free(&b);
	}
	free(w.uids);
	if (*fetched > 0) {
		log_msg(LOG_INFO, "session: %s: %zu messages fetched into the "
		    "body cache", folder, *fetched);
		session_index(s);
	}
	return rc;
}

int
session_search_text(struct session *s, const char *folder,
    const char *query, uint32_t **uids, size_t *n, char **cause)
{
	struct search_index	*si;

	*uids = NULL;
	*n = 0;
	if ((si = session_search_index(s, cause)) == NULL)
		return -1;
	return search_index_find(si, s->bodies, s->cache, folder, query,
	    uids, n, cause);
}

const char *
session_offline(const struct session *s)
{
	return s->cf->offline ? SESSION_OFFLINE : NULL;
}

int
session_cached(const struct session *s)
{
	return s->cached;
}

/*
 * Section part of a whole message, as BODY[part] would give it: the
 * part's body, still encoded. 1 and out, 0 if there is no such part.
 */
static int
session_section(const struct buf *whole, const char *part, struct buf *out)
{
	struct mime_msg		*msg;
	struct mime_part	*p;
	char			*why = NULL;
	int			 rc = 0;

	if ((msg = mime_parse_copy(whole->data != NULL ? whole->data : "",
	    whole->len, &why)) == NULL) {
		free(why);
		return 0;
	}
	if ((p = mime_msg_section(msg, part)) != NULL) {
		buf_add(out, p->body, p->bodylen);
		rc = 1;
	}
	mime_msg_free(msg);
	return rc;
}

int
session_fetch(struct session *s, const char *folder, uint32_t uid,
    const char *part, struct buf *out, char **cause)
{
	struct cache_mailbox	 mb;
	struct buf		 whole;
	char			*why = NULL, flags[8];
	int			 have, rc;

	s->cached = 1;
	/* the UIDVALIDITY the header cache has (the last sync's), and a
	   message it still lists: one expunged since is not given again */
	have = s->bodies != NULL &&
	    cache_mailbox_peek(s->cache, folder, &mb, &why) == 1 &&
	    cache_get_flags(s->cache, &mb, uid, flags, &why) == 1;
	free(why);
	why = NULL;
	if (have && part == NULL) {
		if ((rc = body_cache_get(s->bodies, folder, mb.uidvalidity,
		    uid, out, &why)) == 1) {
			log_msg(LOG_INFO, "session: %s UID %u from the body "
			    "cache", folder, uid);
			return IMAP_OPS_OK;
		}
		if (rc == -1)
			log_msg(LOG_INFO, "session: %s", why);
		free(why);
		why = NULL;
	}
	s->cached = 0;
	rc = imap_conn_fetch(s->conn, folder, uid, part, out, cause);
	if (rc == IMAP_OPS_OK && part == NULL && have &&
	    body_cache_put(s->bodies, folder, mb.uidvalidity, uid, out->data,
	    out->len, &why) == -1) {
		log_msg(LOG_INFO, "session: not kept: %s", why);
		free(why);
	}
	if (rc != IMAP_OPS_LOST || !have)
		return rc;
	/* Out of reach: a part of a message kept whole will do. */
	buf_init(&whole);
	if (part != NULL && body_cache_get(s->bodies, folder, mb.uidvalidity,
	    uid, &whole, &why) == 1 && session_section(&whole, part, out)) {
		s->cached = 1;
		buf_free(&whole);
		free(*cause);
		*cause = NULL;
		return IMAP_OPS_OK;
	}
	buf_free(&whole);
	free(why);
	why = *cause;
	*cause = xasprintf("UID %u is not in the body cache (%s)", uid,
	    why);
	free(why);
	return rc;
}

void
session_retry(struct session *s)
{
	if (s->cf->offline)
		return;
	free(s->down);
	s->down = NULL;
	imap_conn_retry(s->conn);
}

static int
session_uid_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int
session_search(struct session *s, const char *folder, const char *words,
    uint32_t **uids, size_t *n, char **cause)
{
	return imap_conn_search(s->conn, folder, words, uids, n, cause);
}

int
session_expunge(struct session *s, const char *folder, char **cause)
{
	return imap_conn_expunge(s->conn, folder, cause);
}

int
session_search_header(struct session *s, const char *folder,
    const char *name, const char *value, uint32_t **uids, size_t *n,
    char **cause)
{
	struct mailimap_search_key	*key;
	mailimap			*imap;
	clist				*res = NULL;
	clistiter			*it;
	int				 err, rc;

	*uids = NULL;
	*n = 0;
	if ((rc = imap_conn_select(s->conn, folder, cause)) != IMAP_OPS_OK)
		return rc;
	if ((imap = imap_conn_session(s->conn)) == NULL) {
		*cause = xstrdup("the server cannot be reached");
		return IMAP_OPS_LOST;
	}
	key = mailimap_search_key_new_header(xstrdup(name), xstrdup(value));
	err = mailimap_uid_search(imap, NULL, key, &res);
	mailimap_search_key_free(key);
	if (err != MAILIMAP_NO_ERROR)
		return imap_ops_error(imap, err, "UID SEARCH", cause);
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		*uids = xreallocarray(*uids, *n + 1, sizeof **uids);
		(*uids)[(*n)++] = *(uint32_t *)clist_content(it);
	}
	mailimap_search_result_free(res);
	/* Servers need not answer in order (qsort wants an array) */
	if (*n > 1)
		qsort(*uids, *n, sizeof **uids, session_uid_cmp);
	return IMAP_OPS_OK;
}

int
session_append(struct session *s, const char *folder, const char *msg,
    size_t len, msg_flags flags, char **cause)
{
	struct mailimap_flag_list	*fl;
	mailimap			*imap;
	char				*wire;
	int				 err, rc;

	if ((rc = imap_conn_select(s->conn, NULL, cause)) != IMAP_OPS_OK)
		return rc;
	if ((imap = imap_conn_session(s->conn)) == NULL) {
		*cause = xstrdup("the server cannot be reached");
		return IMAP_OPS_LOST;
	}
	if ((wire = imap_name_encode(folder, cause)) == NULL)
		return IMAP_OPS_REFUSED;
	fl = imap_ops_flag_list(flags);
	err = mailimap_append(imap, wire, fl, NULL, msg, len);
	mailimap_flag_list_free(fl);
	free(wire);
	if (err != MAILIMAP_NO_ERROR)
		return imap_ops_error(imap, err, "APPEND", cause);
	return IMAP_OPS_OK;
}

int
session_idle(struct session *s, const char *folder, int timeout, int synced,
    unsigned *events, char **cause)
{
	struct imap_idle_how	how;
	int			rc;

	memset(&how, 0, sizeof how);
	how.timeout = timeout;
	how.synced = synced;
	rc = imap_conn_idle(s->conn, folder, &how, events, cause);
	if (rc == IMAP_OPS_OK && *events == 0 && fe_cancelled()) {
		*cause = xstrdup("stopped as asked");
		return SESSION_CANCELLED;
	}
	return session_stopped(rc, cause);
}

/*
 * The Drafts mailbox's name, the connection up: the one imap-role.c finds
 * (drafts-folder, \Drafts, a folder named Drafts), else "Drafts" in the
 * personal namespace, which is made.
 */
static char *
session_drafts_mailbox(struct session *s, mailimap **imapp, char **cause)
{
	mailimap	*imap;
	char		*name, *why = NULL, *made, *wire;
	int		 err, rc;

	if ((rc = imap_conn_select(s->conn, NULL, cause)) != IMAP_OPS_OK ||
	    (imap = imap_conn_session(s->conn)) == NULL) {
		if (rc == IMAP_OPS_OK)
			*cause = xstrdup("the server cannot be reached");
		return NULL;
	}
	*imapp = imap;
	if ((name = imap_role_folder(imap, s->a, IMAP_ROLE_DRAFTS, &why)) !=
	    NULL)
		return name;
	free(why);
	name = imap_role_prefix(imap);
	made = xasprintf("%sDrafts", name);
	free(name);
	if ((wire = imap_name_encode(made, cause)) == NULL) {
		free(made);
		return NULL;
	}
	err = mailimap_create(imap, wire);
	free(wire);
	if (err != MAILIMAP_NO_ERROR) {
		imap_ops_error(imap, err, "CREATE Drafts", cause);
		free(made);
		return NULL;
	}
	log_msg(LOG_INFO, "session: %s: made the Drafts mailbox", s->a->id);
	return made;
}

int
session_draft_append(struct session *s, const char *msg, size_t len,
    char **cause)
{
	struct mailimap_flag_list	*flags;
	mailimap			*imap = NULL;
	char				*mb, *wire;
	int				 err, rc = IMAP_OPS_OK;

	if ((mb = session_drafts_mailbox(s, &imap, cause)) == NULL)
		return imap != NULL ? IMAP_OPS_REFUSED : IMAP_OPS_LOST;
	if ((wire = imap_name_encode(mb, cause)) == NULL) {
		free(mb);
		return IMAP_OPS_REFUSED;
	}
	flags = mailimap_flag_list_new_empty();
	mailimap_flag_list_add(flags, mailimap_flag_new_draft());
	mailimap_flag_list_add(flags, mailimap_flag_new_seen());
	err = mailimap_append(imap, wire, flags, NULL, msg, len);
	mailimap_flag_list_free(flags);
	free(wire);
	if (err != MAILIMAP_NO_ERROR)
		rc = imap_ops_error(imap, err, "APPEND", cause);
	free(mb);
	return rc;
}

int
session_draft_remove(struct session *s, const char *msgid, size_t *removed,
    char **cause)
{
	struct mailimap_search_key	*key;
	mailimap			*imap = NULL;
	clist				*res = NULL;
	clistiter			*it;
	uint32_t			*uids = NULL;
	size_t				 n = 0;
	char				*mb;
	int				 err, rc;

	*removed = 0;
	if ((mb = session_drafts_mailbox(s, &imap, cause)) == NULL)
		return imap != NULL ? IMAP_OPS_REFUSED : IMAP_OPS_LOST;
	if ((rc = imap_conn_select(s->conn, mb, cause)) != IMAP_OPS_OK)
		goto out;
	imap = imap_conn_session(s->conn);
	key = mailimap_search_key_new_header(xstrdup("Message-ID"),
	    xstrdup(msgid));
	err = mailimap_uid_search(imap, NULL, key, &res);
	mailimap_search_key_free(key);
	if (err != MAILIMAP_NO_ERROR) {
		rc = imap_ops_error(imap, err, "UID SEARCH", cause);
		goto out;
	}
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		uids = xreallocarray(uids, n + 1, sizeof *uids);
		uids[n] = *(uint32_t *)clist_content(it);
		if ((rc = imap_ops_store(imap, uids[n], MSG_DELETED, 0, cause)) !=
		    IMAP_OPS_OK)
			goto out;
		n++;
	}
	*removed = n;
	/* Without UIDPLUS the copies stay flagged deleted: a plain EXPUNGE
	 * would take every other message flagged so with them. */
	if (n > 0 && (rc = imap_ops_expunge(imap, uids, n, cause)) ==
	    IMAP_OPS_UNSUPPORTED) {
		free(*cause);
		*cause = NULL;
		rc = IMAP_OPS_OK;
	}
out:
	if (res != NULL)
		mailimap_search_result_free(res);
	free(uids);
	free(mb);
	return rc;
}
