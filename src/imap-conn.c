/*
 * imap-conn.c: the connection that survives drops, of imap-conn.h.
 *
 * Every operation is a small function run by imap_conn_run(), which makes
 * sure the session is there and the mailbox selected, runs it, and when
 * the connection turns out lost, connects again and runs it once more.
 * Operations are written so that running them twice does no harm: flag
 * changes are absolute (+FLAGS, -FLAGS), and a move checks that the
 * message is still there first.
 *
 * The UIDVALIDITY seen at each mailbox's first selection on this
 * connection is kept; if a later selection (after a drop) shows another,
 * the UIDs in hand mean nothing any more, and the operation is refused
 * and the mailbox's pending flag changes dropped with a warning.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "clock.h"
#include "frontend.h"
#include "imap-conn.h"
#include "imap-mailbox.h"
#include "imap-name.h"
#include "imap-role.h"
#include "imap-session.h"
#include "log.h"
#include "oauth2.h"
#include "xmalloc.h"

/* A private result of an operation: nothing to do, nothing to say. */
#define IMAP_CONN_SKIPPED	2

struct imap_conn_known {
	char			*mailbox;
	uint32_t		 uidvalidity;
	struct imap_conn_known	*next;
};

struct imap_conn {
	const struct account	*a;
	char			*ca_file;
	char			*password;
	struct cache		*cache;

	mailimap		*imap;
	char			*mailbox;	/* selected, or NULL */
	uint32_t		 uidvalidity;	/* of mailbox */
	char			*down;		/* why connecting failed */
	struct imap_conn_known	*known;

	size_t			 replayed;
	unsigned		 connects;
	uint32_t		 idle_told;	/* the EXISTS that last
						   woke the wait up */
};

typedef int (*imap_conn_fn)(struct imap_conn *, void *, char **);

static void imap_conn_warn(struct imap_conn *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/* A warning, to the front end (frontend.h) and the log. */
static void
imap_conn_warn(struct imap_conn *c, const char *fmt, ...)
{
	va_list	 ap;
	char	*w;

	(void)c;
	va_start(ap, fmt);
	w = xvasprintf(fmt, ap);
	va_end(ap);
	log_msg(LOG_INFO, "IMAP: warning: %s", w);
	fe_notice(FE_WARNING, "%s", w);
	free(w);
}

/* Mailbox names compare exactly, except INBOX, which has no case. */
static int
imap_conn_same(const char *x, const char *y)
{
	if (strcasecmp(x, "INBOX") == 0)
		return strcasecmp(y, "INBOX") == 0;
	return strcmp(x, y) == 0;
}

struct imap_conn *
imap_conn_new(const struct account *a, const char *ca_file,
    const char *password, struct cache *cache)
{
	struct imap_conn	*c;

	c = xcalloc(1, sizeof *c);
	c->a = a;
	c->ca_file = ca_file != NULL ? xstrdup(ca_file) : NULL;
	c->password = password != NULL ? xstrdup(password) : NULL;
	c->cache = cache;
	log_secret_add(c->password);
	return c;
}

void
imap_conn_close(struct imap_conn *c)
{
	struct imap_conn_known	*k;

	if (c == NULL)
		return;
	imap_session_close(c->imap);
	if (c->password != NULL) {
		log_secret_remove(c->password);
		freezero_str(c->password);
	}
	while ((k = c->known) != NULL) {
		c->known = k->next;
		free(k->mailbox);
		free(k);
	}
	free(c->mailbox);
	free(c->down);
	free(c->ca_file);
	free(c);
}

mailimap *
imap_conn_session(struct imap_conn *c)
{
	return c->imap;
}

size_t
imap_conn_replayed(const struct imap_conn *c)
{
	return c->replayed;
}

unsigned
imap_conn_reconnects(const struct imap_conn *c)
{
	return c->connects > 0 ? c->connects - 1 : 0;
}

void
imap_conn_retry(struct imap_conn *c)
{
	free(c->down);
	c->down = NULL;
}

void
imap_conn_offline(struct imap_conn *c, const char *why)
{
	free(c->down);
	c->down = xstrdup(why);
}

/*
 * An OAuth2 account's access token, refreshed when it is about to expire
 * (flags 0) or was just refused (OAUTH2_FORCE), in place of the one in
 * hand. -1 and *cause when there is no new one.
 */
static int
imap_conn_token(struct imap_conn *c, int flags, char **cause)
{
	char	*token;

	if ((token = oauth2_access(NULL, c->a, flags, cause)) == NULL)
		return -1;
	if (c->password != NULL) {
		log_secret_remove(c->password);
		freezero_str(c->password);
	}
	c->password = token;
	log_secret_add(c->password);
	return 0;
}

static int
imap_conn_connect(struct imap_conn *c, char **cause)
{
	enum imap_session_stage	 stage;
	char			*why = NULL;

	if (c->down != NULL) {
		*cause = xstrdup(c->down);
		return IMAP_OPS_LOST;
	}
	if (oauth2_account(c->a) && imap_conn_token(c, 0, cause) == -1) {
		c->down = xstrdup(*cause);
		return IMAP_OPS_LOST;
	}
	c->imap = imap_session_open_stage(c->a, c->ca_file, c->password,
	    &stage, cause);
	/* imap_session_open() unregisters every copy of the password. */
	log_secret_add(c->password);
	if (c->imap == NULL && stage == IMAP_SESSION_LOGIN &&
	    oauth2_account(c->a)) {
		/* the token was refused before its time: once more, fresh */
		log_msg(LOG_INFO, "IMAP: %s", *cause);
		if (imap_conn_token(c, OAUTH2_FORCE, &why) == -1) {
			free(*cause);
			*cause = why;
		} else {
			free(*cause);
			*cause = NULL;
			c->imap = imap_session_open(c->a, c->ca_file,
			    c->password, cause);
			log_secret_add(c->password);
		}
	}
	if (c->imap == NULL) {
		c->down = xstrdup(*cause);
		return IMAP_OPS_LOST;
	}
	c->connects++;
	return IMAP_OPS_OK;
}

/* Forget a session that is lost, without LOGOUT. */
static void
imap_conn_drop(struct imap_conn *c)
{
	imap_session_drop(c->imap);
	c->imap = NULL;
	free(c->mailbox);
	c->mailbox = NULL;
}

/* Drop the pending flag changes of mailbox made under another UIDVALIDITY. */
static void
imap_conn_drop_pending(struct imap_conn *c, const char *mailbox,
    uint32_t uidvalidity)
{
	char	*cause = NULL;
	int	 n;

	if ((n = cache_pending_drop(c->cache, mailbox, uidvalidity,
	    &cause)) == -1) {
		imap_conn_warn(c, "%s", cause);
		free(cause);
	} else if (n > 0)
		imap_conn_warn(c, "the UIDVALIDITY of %s changed: %d saved "
		    "flag change%s dropped (the UIDs name other messages now)",
		    mailbox, n, n == 1 ? "" : "s");
}

/*
 * Note the UIDVALIDITY of a mailbox just selected. Returns the one seen
 * before on this connection if it differs, else 0.
 */
static uint32_t
imap_conn_known(struct imap_conn *c, const char *mailbox, uint32_t v)
{
	struct imap_conn_known	*k;
	uint32_t		 old;

	for (k = c->known; k != NULL; k = k->next) {
		if (imap_conn_same(k->mailbox, mailbox))
			break;
	}
	if (k == NULL) {
		k = xcalloc(1, sizeof *k);
		k->mailbox = xstrdup(mailbox);
		k->uidvalidity = v;
		k->next = c->known;
		c->known = k;
		return 0;
	}
	if ((old = k->uidvalidity) == v)
		return 0;
	k->uidvalidity = v;
	imap_conn_drop_pending(c, mailbox, v);
	return old;
}

/* The session has just selected mailbox (our SELECT, or imap_sync's). */
static uint32_t
imap_conn_selected(struct imap_conn *c, const char *mailbox)
{
	free(c->mailbox);
	c->mailbox = xstrdup(mailbox);
	c->uidvalidity = c->imap->imap_selection_info->sel_uidvalidity;
	return imap_conn_known(c, mailbox, c->uidvalidity);
}

/* The connection has mailbox selected, read-write. */
static int
imap_conn_has_selected(const struct imap_conn *c, const char *mailbox)
{
	return c->imap != NULL && c->mailbox != NULL &&
	    imap_conn_same(c->mailbox, mailbox) &&
	    c->imap->imap_state == MAILIMAP_STATE_SELECTED;
}

static int
imap_conn_do_select(struct imap_conn *c, const char *mailbox, char **cause)
{
	uint32_t	old;
	char		*wire;
	int		err;

	free(c->mailbox);
	c->mailbox = NULL;
	if ((wire = imap_name_encode(mailbox, cause)) == NULL)
		return IMAP_OPS_REFUSED;
	err = mailimap_select(c->imap, wire);
	free(wire);
	if (err != MAILIMAP_NO_ERROR)
		return imap_ops_error(c->imap, err, "SELECT", cause);
	if ((old = imap_conn_selected(c, mailbox)) != 0) {
		*cause = xasprintf("the UIDVALIDITY of %s changed (%u to %u) "
		    "while the connection was down; its UIDs name other "
		    "messages now, so nothing was done", mailbox, old,
		    c->uidvalidity);
		return IMAP_OPS_REFUSED;
	}
	return IMAP_OPS_OK;
}

static int
imap_conn_ensure(struct imap_conn *c, const char *mailbox, char **cause)
{
	int	rc;

	if (c->imap == NULL && (rc = imap_conn_connect(c, cause)) !=
	    IMAP_OPS_OK)
		return rc;
	if (mailbox == NULL ||
	    (c->mailbox != NULL && imap_conn_same(c->mailbox, mailbox)))
		return IMAP_OPS_OK;
	return imap_conn_do_select(c, mailbox, cause);
}

/*
 * Run fn (NULL: only connect and select) with the session up and mailbox
 * selected (NULL: any); on a lost connection, once more on a new one.
 */
static int
imap_conn_run(struct imap_conn *c, const char *mailbox, imap_conn_fn fn,
    void *arg, char **cause)
{
	int	rc, tries;

	for (tries = 0;; tries++) {
		rc = imap_conn_ensure(c, mailbox, cause);
		if (rc == IMAP_OPS_OK && fn != NULL)
			rc = fn(c, arg, cause);
		if (rc != IMAP_OPS_LOST)
			return rc;
		if (c->imap != NULL)
			imap_conn_drop(c);
		if (tries > 0 || c->down != NULL)
			return rc;
		log_msg(LOG_INFO, "IMAP: %s; connecting again", *cause);
		free(*cause);
		*cause = NULL;
	}
}

/*
 * After an engine call that only says -1: was it the connection? A NOOP
 * tells. The selected mailbox is no longer known for sure either way.
 */
static int
imap_conn_classify(struct imap_conn *c)
{
	char	*why = NULL;
	int	 rc;

	free(c->mailbox);
	c->mailbox = NULL;
	rc = imap_ops_noop(c->imap, &why);
	free(why);
	return rc == IMAP_OPS_LOST ? IMAP_OPS_LOST : IMAP_OPS_REFUSED;
}

int
imap_conn_select(struct imap_conn *c, const char *mailbox, char **cause)
{
	return imap_conn_run(c, mailbox, NULL, NULL, cause);
}

/* Replaying the pending table. */

struct imap_conn_row {
	int64_t		 id;
	char		*mailbox;
	uint32_t	 uidvalidity;
	uint32_t	 uid;
	msg_flags	 add;
	msg_flags	 remove;
};

struct imap_conn_rows {
	struct imap_conn_row	*v;
	size_t			 n;
};

static int
imap_conn_collect(const struct cache_pending *p, void *arg)
{
	struct imap_conn_rows	*rows = arg;
	struct imap_conn_row	*r;

	rows->v = xreallocarray(rows->v, rows->n + 1, sizeof *rows->v);
	r = &rows->v[rows->n++];
	r->id = p->id;
	r->mailbox = xstrdup(p->mailbox);
	r->uidvalidity = p->uidvalidity;
	r->uid = p->uid;
	r->add = msg_flags_of(p->add);
	r->remove = msg_flags_of(p->remove);
	return 0;
}

static void
imap_conn_rows_free(struct imap_conn_rows *rows)
{
	size_t	i;

	for (i = 0; i < rows->n; i++)
		free(rows->v[i].mailbox);
	free(rows->v);
}

static int
imap_conn_replay_one(struct imap_conn *c, void *arg, char **cause)
{
	struct imap_conn_row	*r = arg;

	if (r->uidvalidity != c->uidvalidity) {
		imap_conn_drop_pending(c, r->mailbox, c->uidvalidity);
		return IMAP_CONN_SKIPPED;
	}
	return imap_ops_store(c->imap, r->uid, r->add, r->remove, cause);
}

static void
imap_conn_done(struct imap_conn *c, int64_t id)
{
	char	*cause = NULL;

	if (cache_pending_done(c->cache, id, &cause) == -1) {
		imap_conn_warn(c, "%s", cause);
		free(cause);
	}
}

static int
imap_conn_replay(struct imap_conn *c, char **cause)
{
	struct imap_conn_rows	 rows;
	struct imap_conn_row	*r;
	char			*why;
	char			 add[MSG_FLAGS_SIZE], remove[MSG_FLAGS_SIZE];
	size_t			 i;
	int			 rc = IMAP_OPS_OK;

	memset(&rows, 0, sizeof rows);
	why = NULL;
	if (cache_pending_each(c->cache, imap_conn_collect, &rows,
	    &why) == -1) {
		imap_conn_warn(c, "%s", why);
		free(why);
		imap_conn_rows_free(&rows);
		return IMAP_OPS_OK;
	}
	for (i = 0; i < rows.n && rc != IMAP_OPS_LOST; i++) {
		r = &rows.v[i];
		why = NULL;
		rc = imap_conn_run(c, r->mailbox, imap_conn_replay_one, r,
		    &why);
		switch (rc) {
		case IMAP_OPS_OK:
			imap_conn_done(c, r->id);
			c->replayed++;
			break;
		case IMAP_CONN_SKIPPED:
			break;
		case IMAP_OPS_LOST:
			*cause = why;
			why = NULL;
			break;
		default:
			msg_flags_letters(r->add, add);
			msg_flags_letters(r->remove, remove);
			imap_conn_warn(c, "a saved flag change (%s%s%s%s) of "
			    "UID %u in %s was dropped: %s", *add ? "+" : "",
			    add, *remove ? "-" : "", remove, r->uid,
			    r->mailbox, why);
			imap_conn_done(c, r->id);
			break;
		}
		free(why);
	}
	if (c->replayed > 0)
		log_msg(LOG_INFO, "IMAP: %zu saved flag change%s sent",
		    c->replayed, c->replayed == 1 ? "" : "s");
	imap_conn_rows_free(&rows);
	return rc == IMAP_OPS_LOST ? IMAP_OPS_LOST : IMAP_OPS_OK;
}

int
imap_conn_open(struct imap_conn *c, char **cause)
{
	int	rc;

	if (c->imap == NULL && (rc = imap_conn_connect(c, cause)) !=
	    IMAP_OPS_OK)
		return rc;
	return imap_conn_replay(c, cause);
}

/* Sync and fetch: engine calls that select for themselves. */

struct imap_conn_sync_arg {
	const char		*mailbox;
	struct imap_sync_stats	*st;
};

static int
imap_conn_sync_one(struct imap_conn *c, void *arg, char **cause)
{
	struct imap_conn_sync_arg	*s = arg;

	/* still selected (IDLE, an operation): no new SELECT needed */
	if (imap_sync(c->imap, c->cache, s->mailbox,
	    imap_conn_has_selected(c, s->mailbox), s->st, cause) == -1)
		return imap_conn_classify(c);
	/* A changed UIDVALIDITY: imap_sync() has rebuilt the cache. */
	imap_conn_selected(c, s->mailbox);
	return IMAP_OPS_OK;
}

int
imap_conn_sync(struct imap_conn *c, const char *mailbox,
    struct imap_sync_stats *st, char **cause)
{
	struct imap_conn_sync_arg	s;

	s.mailbox = mailbox;
	s.st = st;
	return imap_conn_run(c, NULL, imap_conn_sync_one, &s, cause);
}

struct imap_conn_fetch_arg {
	const char	*mailbox;
	uint32_t	 uid;
	const char	*part;
	struct buf	*out;
};

static int
imap_conn_fetch_one(struct imap_conn *c, void *arg, char **cause)
{
	struct imap_conn_fetch_arg	*f = arg;
	int				 selected;

	/*
	 * Selected already (BODY.PEEK sets no flag): no EXAMINE, which
	 * costs a large mailbox as much as a SELECT, and no SELECT again
	 * for the IDLE or the sync after.
	 */
	selected = imap_conn_has_selected(c, f->mailbox);
	if (imap_mailbox_fetch(c->imap, selected ? NULL : f->mailbox, f->uid,
	    f->part, f->out, cause) == -1)
		return imap_conn_classify(c);
	/* EXAMINEd: read-only now, so not what later operations want. */
	if (!selected) {
		free(c->mailbox);
		c->mailbox = NULL;
	}
	return IMAP_OPS_OK;
}

int
imap_conn_fetch(struct imap_conn *c, const char *mailbox, uint32_t uid,
    const char *part, struct buf *out, char **cause)
{
	struct imap_conn_fetch_arg	f;

	f.mailbox = mailbox;
	f.uid = uid;
	f.part = part;
	f.out = out;
	return imap_conn_run(c, NULL, imap_conn_fetch_one, &f, cause);
}

/* Flags. */

struct imap_conn_flag_arg {
	uint32_t	 uid;
	msg_flags	 add;
	msg_flags	 remove;
	msg_flags	 flags;		/* the server's now */
	int		 missing;
};

static int
imap_conn_flag_one(struct imap_conn *c, void *arg, char **cause)
{
	struct imap_conn_flag_arg	*f = arg;
	int				 rc;

	rc = imap_ops_store(c->imap, f->uid, f->add, f->remove, cause);
	if (rc != IMAP_OPS_OK)
		return rc;
	/* STORE to a UID that is not there succeeds; this tells. */
	rc = imap_ops_get_flags(c->imap, f->uid, &f->flags, cause);
	f->missing = rc == IMAP_OPS_REFUSED;
	return rc;
}

/* Record a change as pending, and show it in the cached flags. */
static int
imap_conn_flag_record(struct imap_conn *c, const char *mailbox,
    const struct cache_mailbox *mb, uint32_t uid, msg_flags add,
    msg_flags remove, const char *flags, int64_t *id, char **cause)
{
	char	a[MSG_FLAGS_SIZE], r[MSG_FLAGS_SIZE];
	int	n;

	msg_flags_letters(add, a);
	msg_flags_letters(remove, r);
	if (cache_begin(c->cache, cause) == -1)
		return -1;
	if ((n = cache_pending_add(c->cache, mailbox, mb->uidvalidity, uid,
	    a, r, cause)) == -1 ||
	    (flags != NULL && cache_set_flags(c->cache, mb, uid, flags,
	    cause) == -1) ||
	    cache_commit(c->cache, cause) == -1) {
		cache_rollback(c->cache);
		return -1;
	}
	*id = n;
	return 0;
}

/* The server has answered: forget the pending row, set the flags known. */
static void
imap_conn_flag_settle(struct imap_conn *c, const struct cache_mailbox *mb,
    uint32_t uid, int64_t id, const msg_flags *set, int gone)
{
	char	*cause = NULL, letters[MSG_FLAGS_SIZE];
	char	*flags = NULL;

	if (set != NULL) {
		msg_flags_letters(*set, letters);
		flags = letters;
	}
	if (cache_begin(c->cache, &cause) == -1 ||
	    (gone && cache_delete(c->cache, mb, uid, &cause) == -1) ||
	    (flags != NULL && cache_set_flags(c->cache, mb, uid, flags,
	    &cause) == -1) ||
	    cache_pending_done(c->cache, id, &cause) == -1 ||
	    cache_commit(c->cache, &cause) == -1) {
		cache_rollback(c->cache);
		imap_conn_warn(c, "%s", cause);
		free(cause);
	}
}

int
imap_conn_flag(struct imap_conn *c, const char *mailbox, uint32_t uid,
    msg_flags add, msg_flags remove, char **cause)
{
	struct imap_conn_flag_arg	 f;
	struct cache_mailbox		 mb;
	char				 old[MSG_FLAGS_SIZE];
	char				 now[MSG_FLAGS_SIZE];
	msg_flags			 before;
	char				*down = NULL, *why = NULL;
	int64_t				 id;
	int				 rc, had = 0;

	rc = imap_conn_run(c, mailbox, NULL, NULL, cause);
	if (rc == IMAP_OPS_LOST) {
		down = *cause;
		*cause = NULL;
	} else if (rc != IMAP_OPS_OK)
		return rc;

	if (down == NULL)
		rc = cache_mailbox(c->cache, mailbox, c->uidvalidity, &mb,
		    &why);
	else if ((rc = cache_mailbox_find(c->cache, mailbox, &mb,
	    &why)) == 0) {
		*cause = xasprintf("%s (and %s was never synced, so the change "
		    "cannot be kept for later)", down, mailbox);
		free(down);
		return IMAP_OPS_LOST;
	}
	if (rc == -1 ||
	    (had = cache_get_flags(c->cache, &mb, uid, old, &why)) == -1)
		goto local;
	if (down != NULL && !had) {
		*cause = xasprintf("%s (and UID %u is not in the cached copy "
		    "of %s, so the change was not saved)", down, uid, mailbox);
		free(down);
		return IMAP_OPS_LOST;
	}
	before = msg_flags_of(old);
	msg_flags_letters((before | add) & ~remove, now);
	if (imap_conn_flag_record(c, mailbox, &mb, uid, add, remove,
	    had ? now : NULL, &id, &why) == -1)
		goto local;
	if (down != NULL) {
		log_msg(LOG_INFO, "IMAP: flag change of UID %u saved for later",
		    uid);
		*cause = down;
		return IMAP_CONN_SAVED;
	}

	memset(&f, 0, sizeof f);
	f.uid = uid;
	f.add = add;
	f.remove = remove;
	rc = imap_conn_run(c, mailbox, imap_conn_flag_one, &f, cause);
	if (rc == IMAP_OPS_LOST)
		return IMAP_CONN_SAVED;
	if (rc == IMAP_OPS_OK)
		imap_conn_flag_settle(c, &mb, uid, id, &f.flags, 0);
	else if (f.missing)
		imap_conn_flag_settle(c, &mb, uid, id, NULL, 1);
	else
		imap_conn_flag_settle(c, &mb, uid, id, had ? &before : NULL, 0);
	return rc;

local:
	free(down);
	*cause = why;
	return IMAP_CONN_LOCAL;
}

/* Moving and deleting. */

/* The cache after a message left mailbox (or was only flagged deleted). */
static void
imap_conn_gone(struct imap_conn *c, const char *mailbox, uint32_t uid,
    enum imap_ops_how how)
{
	struct cache_mailbox	 mb;
	char			 flags[MSG_FLAGS_SIZE];
	char			*cause = NULL;
	int			 rc;

	if (cache_mailbox(c->cache, mailbox, c->uidvalidity, &mb,
	    &cause) == -1)
		goto fail;
	if (how == IMAP_OPS_MOVED || how == IMAP_OPS_EXPUNGED) {
		if (cache_delete(c->cache, &mb, uid, &cause) == -1)
			goto fail;
		return;
	}
	if ((rc = cache_get_flags(c->cache, &mb, uid, flags, &cause)) == -1)
		goto fail;
	msg_flags_letters(msg_flags_of(flags) | MSG_DELETED, flags);
	if (rc == 1 && cache_set_flags(c->cache, &mb, uid, flags,
	    &cause) == -1)
		goto fail;
	return;

fail:
	imap_conn_warn(c, "%s", cause);
	free(cause);
}

/* Is uid in the selected mailbox? Says more when asked again. */
static int
imap_conn_exists(struct imap_conn *c, uint32_t uid, int again, char **cause)
{
	msg_flags	 flags;
	char		*why = NULL;
	int		 rc;

	rc = imap_ops_get_flags(c->imap, uid, &flags, &why);
	if (rc == IMAP_OPS_REFUSED && again) {
		*cause = xasprintf("%s (it may have gone just before the "
		    "connection broke)", why);
		free(why);
	} else if (rc != IMAP_OPS_OK)
		*cause = why;
	return rc;
}

struct imap_conn_move_arg {
	uint32_t		 uid;
	const char		*mailbox;
	const char		*to;		/* NULL: to the trash */
	char			*trash;
	enum imap_ops_how	 how;
	int			 tries;
};

/*
 * Tried again after the connection broke, and the message is no longer in
 * its mailbox: the first try's MOVE may have been done with its answer
 * lost. Done, if the destination has a message of its Message-ID (the
 * cache knows it); else *cause says both.
 */
static int
imap_conn_moved_before(struct imap_conn *c, struct imap_conn_move_arg *m,
    char **cause)
{
	struct cache_mailbox	 mb;
	const char		*to = m->to != NULL ? m->to : m->trash;
	char			*msgid = NULL, *why = NULL;
	int			 found;

	if (to == NULL || imap_conn_same(m->mailbox, to) ||
	    cache_mailbox(c->cache, m->mailbox, c->uidvalidity, &mb,
	    &why) == -1 || cache_get_message_id(c->cache, &mb, m->uid, &msgid,
	    &why) != 1) {
		free(why);
		return IMAP_OPS_REFUSED;
	}
	/* the destination is examined: nothing is selected for sure now */
	free(c->mailbox);
	c->mailbox = NULL;
	found = imap_mailbox_has_msgid(c->imap, to, msgid, &why);
	free(msgid);
	if (found == 1) {
		log_msg(LOG_INFO, "IMAP: UID %u is in %s: the move was done "
		    "before the connection broke", m->uid, to);
		free(*cause);
		*cause = NULL;
		m->how = IMAP_OPS_MOVED;
		return IMAP_OPS_OK;
	}
	if (found == 0) {
		free(*cause);
		*cause = xasprintf("the message (UID %u) is no longer in %s, "
		    "nor in %s: it went elsewhere just before the connection "
		    "broke", m->uid, m->mailbox, to);
	}
	free(why);
	return IMAP_OPS_REFUSED;
}

static int
imap_conn_move_one(struct imap_conn *c, void *arg, char **cause)
{
	struct imap_conn_move_arg	*m = arg;
	char				*why = NULL;
	int				 rc;

	if (m->to == NULL && m->trash == NULL &&
	    (m->trash = imap_role_folder(c->imap, c->a, IMAP_ROLE_TRASH,
	    cause)) == NULL)
		return imap_conn_classify(c);
	if ((rc = imap_conn_exists(c, m->uid, m->tries++ > 0, cause)) !=
	    IMAP_OPS_OK) {
		if (rc == IMAP_OPS_REFUSED && m->tries > 1)
			rc = imap_conn_moved_before(c, m, cause);
		return rc;
	}
	if (m->to != NULL)
		return imap_ops_move(c->imap, m->uid, m->to, &m->how, cause);
	if (!imap_conn_same(m->mailbox, m->trash))
		return imap_ops_move(c->imap, m->uid, m->trash, &m->how, cause);

	/* In the trash already: away with it. */
	if ((rc = imap_ops_store(c->imap, m->uid, MSG_DELETED, 0, cause)) !=
	    IMAP_OPS_OK)
		return rc;
	rc = imap_ops_expunge(c->imap, &m->uid, 1, &why);
	if (rc == IMAP_OPS_UNSUPPORTED) {
		log_msg(LOG_INFO, "IMAP: %s", why);
		free(why);
		m->how = IMAP_OPS_MARKED;
		return IMAP_OPS_OK;
	}
	*cause = why;
	m->how = IMAP_OPS_EXPUNGED;
	return rc;
}

int
imap_conn_move(struct imap_conn *c, const char *mailbox, uint32_t uid,
    const char *to, enum imap_ops_how *how, char **cause)
{
	struct imap_conn_move_arg	m;
	int				rc;

	if (imap_conn_same(mailbox, to)) {
		*cause = xasprintf("the message is in %s already", to);
		return IMAP_OPS_REFUSED;
	}
	memset(&m, 0, sizeof m);
	m.uid = uid;
	m.mailbox = mailbox;
	m.to = to;
	if ((rc = imap_conn_run(c, mailbox, imap_conn_move_one, &m,
	    cause)) == IMAP_OPS_OK) {
		*how = m.how;
		imap_conn_gone(c, mailbox, uid, m.how);
	}
	return rc;
}

int
imap_conn_delete(struct imap_conn *c, const char *mailbox, uint32_t uid,
    enum imap_ops_how *how, char **trash, char **cause)
{
	struct imap_conn_move_arg	m;
	int				rc;

	memset(&m, 0, sizeof m);
	m.uid = uid;
	m.mailbox = mailbox;
	if ((rc = imap_conn_run(c, mailbox, imap_conn_move_one, &m,
	    cause)) == IMAP_OPS_OK) {
		*how = m.how;
		imap_conn_gone(c, mailbox, uid, m.how);
	}
	*trash = m.trash;
	return rc;
}

/* Copying and expunging. */

struct imap_conn_copy_arg {
	uint32_t	 uid;
	const char	*to;
	int		 sent;
};

static int
imap_conn_copy_one(struct imap_conn *c, void *arg, char **cause)
{
	struct imap_conn_copy_arg	*k = arg;
	int				 rc;

	if (k->sent) {
		/* Sent once already: a second COPY could make two copies. */
		*cause = xasprintf("the connection was lost during the copy to "
		    "%s: look there before copying again", k->to);
		return IMAP_OPS_REFUSED;
	}
	if ((rc = imap_conn_exists(c, k->uid, 0, cause)) != IMAP_OPS_OK)
		return rc;
	k->sent = 1;
	return imap_ops_copy(c->imap, k->uid, k->to, cause);
}

int
imap_conn_copy(struct imap_conn *c, const char *mailbox, uint32_t uid,
    const char *to, char **cause)
{
	struct imap_conn_copy_arg	k;

	if (imap_conn_same(mailbox, to)) {
		*cause = xasprintf("the message is in %s already", to);
		return IMAP_OPS_REFUSED;
	}
	memset(&k, 0, sizeof k);
	k.uid = uid;
	k.to = to;
	return imap_conn_run(c, mailbox, imap_conn_copy_one, &k, cause);
}

static int
imap_conn_expunge_one(struct imap_conn *c, void *arg, char **cause)
{
	int	err;

	(void)arg;
	if ((err = mailimap_expunge(c->imap)) != MAILIMAP_NO_ERROR)
		return imap_ops_error(c->imap, err, "EXPUNGE", cause);
	return IMAP_OPS_OK;
}

int
imap_conn_expunge(struct imap_conn *c, const char *mailbox, char **cause)
{
	return imap_conn_run(c, mailbox, imap_conn_expunge_one, NULL, cause);
}

/* Searching the server: UID SEARCH TEXT, every word must match. */

struct imap_conn_search_arg {
	const char	 *words;
	uint32_t	**uids;
	size_t		 *n;
};

static int
imap_conn_search_one(struct imap_conn *c, void *arg, char **cause)
{
	struct imap_conn_search_arg	*sa = arg;
	struct mailimap_search_key	*all, *k;
	clist				*res = NULL;
	clistiter			*it;
	char				*w, *tok, *save = NULL;
	int				 err;
	size_t				 cap = 0;

	all = mailimap_search_key_new_multiple_empty();
	w = xstrdup(sa->words);
	for (tok = strtok_r(w, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		k = mailimap_search_key_new_text(xstrdup(tok));
		mailimap_search_key_multiple_add(all, k);
	}
	free(w);
	err = mailimap_uid_search(c->imap, "UTF-8", all, &res);
	mailimap_search_key_free(all);
	if (err != MAILIMAP_NO_ERROR)
		return imap_ops_error(c->imap, err, "SEARCH", cause);
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		uint32_t	*u = clist_content(it);

		if (*sa->n == cap) {
			cap = cap ? cap * 2 : 64;
			*sa->uids = xreallocarray(*sa->uids, cap,
			    sizeof **sa->uids);
		}
		(*sa->uids)[(*sa->n)++] = *u;
	}
	mailimap_search_result_free(res);
	return IMAP_OPS_OK;
}

int
imap_conn_search(struct imap_conn *c, const char *mailbox, const char *words,
    uint32_t **uids, size_t *n, char **cause)
{
	struct imap_conn_search_arg	sa;

	*uids = NULL;
	*n = 0;
	sa.words = words;
	sa.uids = uids;
	sa.n = n;
	return imap_conn_run(c, mailbox, imap_conn_search_one, &sa, cause);
}

/* Listing. */

struct imap_conn_folders_arg {
	struct imap_folder	**folders;
	size_t			 *n;
};

static int
imap_conn_folders_one(struct imap_conn *c, void *arg, char **cause)
{
	struct imap_conn_folders_arg	*l = arg;

	if (imap_mailbox_list(c->imap, l->folders, l->n, cause) == -1)
		return imap_conn_classify(c);
	return IMAP_OPS_OK;
}

int
imap_conn_folders(struct imap_conn *c, struct imap_folder **folders,
    size_t *n, char **cause)
{
	struct imap_conn_folders_arg	l;

	l.folders = folders;
	l.n = n;
	return imap_conn_run(c, NULL, imap_conn_folders_one, &l, cause);
}

/* Waiting. */


int
imap_conn_idle(struct imap_conn *c, const char *mailbox,
    const struct imap_idle_how *how, unsigned *events, char **cause)
{
	struct mailimap_selection_info	*sel;
	struct imap_idle_how		 h;
	long long			 deadline;
	uint32_t			 uidnext, exists;
	int				 rc, tries;

	*events = 0;
	deadline = (clock_ms() / 1000) + how->timeout;
	if ((rc = imap_conn_run(c, mailbox, NULL, NULL, cause)) != IMAP_OPS_OK)
		return rc;
	sel = c->imap->imap_selection_info;
	uidnext = sel->sel_uidnext;
	exists = sel->sel_exists;
	/*
	 * The server may have told of new mail already, in the answer to
	 * a command after the sync (the trust step's FETCH): it will not
	 * say it again in IDLE. A count other than the cache's is a
	 * change, once for each count (a count the sync cannot make the
	 * cache's must not wake it up again and again).
	 */
	if (how->synced && c->cache != NULL && exists != c->idle_told) {
		struct cache_mailbox	 mb;
		char			*why = NULL;

		if (cache_mailbox_find(c->cache, mailbox, &mb, &why) == 1 &&
		    mb.count != exists) {
			c->idle_told = exists;
			*events = mb.count < exists ? IMAP_IDLE_EXISTS :
			    IMAP_IDLE_EXPUNGE;
			log_msg(LOG_INFO, "IMAP: %s holds %u messages, the "
			    "cache %u: synced again", mailbox, exists,
			    mb.count);
			return IMAP_OPS_OK;
		}
		free(why);
	}
	for (tries = 0;; tries++) {
		h = *how;
		h.timeout = (int)(deadline - (clock_ms() / 1000));
		if (h.timeout < 0)
			h.timeout = 0;
		rc = imap_idle_wait(c->imap, &h, events, cause);
		if (rc != IMAP_OPS_LOST)
			return rc;
		imap_conn_drop(c);
		if (tries > 0 || c->down != NULL)
			return rc;
		log_msg(LOG_INFO, "IMAP: %s; connecting again", *cause);
		free(*cause);
		*cause = NULL;
		if ((rc = imap_conn_ensure(c, mailbox, cause)) != IMAP_OPS_OK) {
			if (rc == IMAP_OPS_LOST && c->imap != NULL)
				imap_conn_drop(c);
			return rc;
		}
		/* What happened while the connection was down? */
		sel = c->imap->imap_selection_info;
		if ((uidnext != 0 && sel->sel_uidnext != uidnext) ||
		    sel->sel_exists > exists)
			*events |= IMAP_IDLE_EXISTS;
		if (sel->sel_exists < exists)
			*events |= IMAP_IDLE_EXPUNGE;
		if (*events != 0)
			return IMAP_OPS_OK;
	}
}
