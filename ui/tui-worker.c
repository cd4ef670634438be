/*
 * tui-worker.c: an account's worker thread. It owns the account's session
 * (session.h) and does everything that may wait on the network, DNS or
 * gpg: sync and the trust step, opening a message, flag changes, moves,
 * searches, the trust step on what a sync left behind (older than the
 * newest sync-trust-limit: a few at a time, the newest first, between
 * jobs), and IDLE on the watched folder when it has nothing else to do.
 * Jobs come in through tui_submit(); events (a job done, progress, a
 * notice, the connection's state, a question) go out through one queue the
 * interface thread drains when its descriptor becomes readable. A question
 * (a password, yes/no, the terminal for pinentry) blocks the worker until
 * the interface thread answers it (tui_answer()); never the other way.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "clock.h"
#include "crypto.h"
#include "frontend.h"
#include "command.h"
#include "log.h"
#include "message.h"
#include "session.h"
#include "session-search.h"
#include "trust-store.h"
#include "tui.h"
#include "tui-int.h"
#include "xmalloc.h"

#define IDLE_SECONDS	600	/* one IDLE before it is renewed */
#define RETRY_SECONDS	10	/* after a lost connection */
/* Messages a sync left behind looked at between two looks for jobs. */
#define TRUST_MORE	16

struct job {
	struct tui_job	 j;
	uint64_t	 id;
	struct job	*next;
};

struct tui_account {
	struct config	*cf;
	struct account	*a;
	pthread_t	 th;
	int		 started;

	pthread_mutex_t	 mu;		/* guards what follows */
	pthread_cond_t	 cv;
	struct job	*jobs, **jobs_tail;
	uint64_t	 next_id;
	int		 stop;
	char		*watch;
	char		*down;		/* why not connected, or NULL */
	char		*progress;	/* the running job's progress */
	char		**names;	/* the folders of the last list (for
					   Tab completion), or NULL */
	size_t		 nnames;
	int		 names_failed;	/* the last TJ_FOLDERS failed */
	uint64_t	 names_job;	/* the interface's: a TJ_FOLDERS
					   asked for them */
	int		 idling;
	int		 idle_sync;	/* the worker's: a sync IDLE asked for */
	/* a question waiting for the interface thread */
	int		 answered, yes;
	char		*secret;

	atomic_int	 cancel;
	uint64_t	 last_progress;

	struct session	*s;		/* the worker's */
	struct trust_store *ts;		/* the worker's */
	char		*more;		/* the worker's: a folder whose sync
					   left messages to the trust step,
					   or NULL */

	struct cache	*ui_cache;	/* the interface thread's */
	struct trust_store *ui_ts;
};

/* ---- the folder names kept for completion ---------------------------------- */

static void
free_names(char **names, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The worker listed the folders: their names, for tui_account_folders(). */
static void
keep_names(struct tui_account *ta, const struct imap_folder *f, size_t n)
{
	char	**names, **old;
	size_t	  i, nold;

	names = xreallocarray(NULL, n + 1, sizeof *names);
	for (i = 0; i < n; i++)
		names[i] = xstrdup(f[i].name);
	pthread_mutex_lock(&ta->mu);
	old = ta->names;
	nold = ta->nnames;
	ta->names = names;
	ta->nnames = n;
	pthread_mutex_unlock(&ta->mu);
	free_names(old, nold);
}

/* ---- the event queue ---------------------------------------------------- */

struct ev_node {
	struct tui_event *ev;
	struct ev_node	*next;
};

static pthread_mutex_t	 evmu = PTHREAD_MUTEX_INITIALIZER;
static struct ev_node	*evhead, **evtail = &evhead;
static int		 evpipe[2] = { -1, -1 };

int
tui_events_fd(void)
{
	if (evpipe[0] == -1) {
		if (pipe(evpipe) == -1)
			return -1;
		fcntl(evpipe[0], F_SETFL, O_NONBLOCK);
		fcntl(evpipe[1], F_SETFL, O_NONBLOCK);
		fcntl(evpipe[0], F_SETFD, FD_CLOEXEC);
		fcntl(evpipe[1], F_SETFD, FD_CLOEXEC);
	}
	return evpipe[0];
}

static void
post(struct tui_event *ev)
{
	struct ev_node	*n = xcalloc(1, sizeof *n);
	ssize_t		 w;

	n->ev = ev;
	pthread_mutex_lock(&evmu);
	*evtail = n;
	evtail = &n->next;
	pthread_mutex_unlock(&evmu);
	w = write(evpipe[1], "", 1);	/* a full pipe wakes the loop too */
	(void)w;
}

struct tui_event *
tui_events_take(void)
{
	struct ev_node		*n;
	struct tui_event	*ev = NULL;
	char			 junk[64];

	while (read(evpipe[0], junk, sizeof junk) > 0)
		;
	pthread_mutex_lock(&evmu);
	if ((n = evhead) != NULL) {
		evhead = n->next;
		if (evhead == NULL)
			evtail = &evhead;
		ev = n->ev;
		free(n);
	}
	pthread_mutex_unlock(&evmu);
	if (ev != NULL && evhead != NULL) {
		ssize_t w = write(evpipe[1], "", 1);	/* more to come */
		(void)w;
	}
	return ev;
}

static struct tui_event *
event_new(struct tui_account *ta, enum tui_event_kind kind)
{
	struct tui_event	*ev = xcalloc(1, sizeof *ev);

	ev->kind = kind;
	ev->acct = ta;
	buf_init(&ev->raw);
	return ev;
}

void
tui_event_free(struct tui_event *ev)
{
	if (ev == NULL)
		return;
	free(ev->cause);
	free(ev->folder);
	if (ev->msg != NULL)
		message_free(ev->msg);
	buf_free(&ev->raw);
	if (ev->folders != NULL)
		imap_mailbox_list_free(ev->folders, ev->nfolders);
	free(ev->uids);
	free(ev->text);
	if (ev->data != NULL && ev->discard != NULL)
		ev->discard(ev->data);
	free(ev);
}

/* ts: wait_ms from now, on CLOCK_REALTIME (for the timed waits). */
static void
deadline(struct timespec *ts, int wait_ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += wait_ms / 1000;
	ts->tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* the tui_background() threads still running, for tui_background_wait() */
static pthread_mutex_t	 bg_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	 bg_cv = PTHREAD_COND_INITIALIZER;
static int		 bg_running;

struct background {
	void		*(*fn)(void *);
	void		*arg;
	void		(*discard)(void *);
	uint64_t	 id;
};

static void *
background_run(void *arg)
{
	struct background	*bg = arg;
	struct tui_event	*ev = event_new(NULL, TE_DONE);

	ev->jkind = TJ_CALL;
	ev->job = bg->id;
	ev->discard = bg->discard;
	ev->data = bg->fn(bg->arg);
	free(bg);
	post(ev);
	pthread_mutex_lock(&bg_mu);
	bg_running--;
	pthread_cond_broadcast(&bg_cv);
	pthread_mutex_unlock(&bg_mu);
	return NULL;
}

int
tui_background_wait(int wait_ms)
{
	struct timespec	 ts;
	int		 r = 0;

	deadline(&ts, wait_ms);
	pthread_mutex_lock(&bg_mu);
	while (bg_running > 0 && r == 0)
		r = pthread_cond_timedwait(&bg_cv, &bg_mu, &ts);
	r = bg_running > 0 ? -1 : 0;
	pthread_mutex_unlock(&bg_mu);
	return r;
}

uint64_t
tui_background(void *(*fn)(void *), void *arg, void (*discard)(void *))
{
	static uint64_t		 next = (uint64_t)1 << 62;
	struct background	*bg = xcalloc(1, sizeof *bg);
	pthread_t		 th;
	pthread_attr_t		 at;

	bg->arg = arg;
	bg->discard = discard;
	uint64_t		 id = ++next; /* apart from the workers' ids */

	bg->fn = fn;
	bg->id = id;
	tui_events_fd();
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&bg_mu);
	bg_running++;
	pthread_mutex_unlock(&bg_mu);
	if (pthread_create(&th, &at, background_run, bg) != 0) {
		/* no thread: do it here, late rather than never */
		pthread_attr_destroy(&at);
		background_run(bg);
		return id;
	}
	pthread_attr_destroy(&at);
	return id;
}

/* ---- the worker's front-end hooks ------------------------------------- */

/* Post a question and wait for tui_answer(). */
static int
ask(struct tui_account *ta, int kind, const char *text, char **secret)
{
	struct tui_event	*ev = event_new(ta, TE_ASK);
	int			 yes;

	ev->ask = kind;
	ev->text = xstrdup(text != NULL ? text : "");
	pthread_mutex_lock(&ta->mu);
	ta->answered = 0;
	pthread_mutex_unlock(&ta->mu);
	post(ev);
	pthread_mutex_lock(&ta->mu);
	while (!ta->answered && !ta->stop)
		pthread_cond_wait(&ta->cv, &ta->mu);
	yes = ta->answered ? ta->yes : 0;
	if (secret != NULL)
		*secret = ta->secret;
	else if (ta->secret != NULL)
		freezero_str(ta->secret);
	ta->secret = NULL;
	pthread_mutex_unlock(&ta->mu);
	return yes;
}

void
tui_answer(struct tui_event *ev, int yes, char *secret)
{
	struct tui_account	*ta = ev->acct;

	pthread_mutex_lock(&ta->mu);
	ta->answered = 1;
	ta->yes = yes;
	ta->secret = secret;
	pthread_cond_broadcast(&ta->cv);
	pthread_mutex_unlock(&ta->mu);
}

static char *
hook_secret(void *arg, const char *prompt, char **cause)
{
	struct tui_account	*ta = arg;
	char			*s = NULL;

	if (!ask(ta, 0, prompt, &s) || s == NULL) {
		*cause = xstrdup("no password given");
		return NULL;
	}
	return s;
}

static int
hook_confirm(void *arg, const char *question)
{
	return ask(arg, 1, question, NULL);
}

static void
hook_notice(void *arg, enum fe_level level, const char *text)
{
	struct tui_event	*ev = event_new(arg, TE_NOTICE);

	ev->level = level;
	ev->text = xstrdup(text);
	post(ev);
}

/* 12345 as "12,345": counts a person reads at a glance. */
static void
group(uint64_t n, char *out, size_t len)
{
	char	tmp[32];
	size_t	l, i, o = 0;

	snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n);
	l = strlen(tmp);
	for (i = 0; i < l && o + 2 < len; i++) {
		if (i > 0 && (l - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = tmp[i];
	}
	out[o] = '\0';
}

static void
hook_progress(void *arg, const char *what, uint64_t done, uint64_t total)
{
	struct tui_account	*ta = arg;
	struct tui_event	*ev;
	uint64_t		 now = clock_ms();
	char			*p;

	/* a few times a second is enough for a person */
	if (now - ta->last_progress < 100 && done != total)
		return;
	ta->last_progress = now;
	{
		char	d[32], t[32];

		group(done, d, sizeof d);
		group(total, t, sizeof t);
		if (total != 0)
			p = xasprintf("%s %s/%s", what, d, t);
		else
			p = xasprintf("%s %s", what, d);
	}
	pthread_mutex_lock(&ta->mu);
	free(ta->progress);
	ta->progress = p;
	pthread_mutex_unlock(&ta->mu);
	ev = event_new(ta, TE_PROGRESS);
	ev->what = what;
	ev->done = done;
	ev->total = total;
	post(ev);
}

static const char *
hook_tty_begin(void *arg)
{
	const char	*tty = ttyname(0);

	ask(arg, 2, "", NULL);
	return tty;
}

static void
hook_tty_end(void *arg)
{
	ask(arg, 3, "", NULL);
}

/* ---- the worker -------------------------------------------------------- */

static void
set_state(struct tui_account *ta, const char *down)
{
	struct tui_event	*ev;
	int			 changed;

	pthread_mutex_lock(&ta->mu);
	changed = (down == NULL) != (ta->down == NULL) ||
	    (down != NULL && strcmp(down, ta->down) != 0);
	free(ta->down);
	ta->down = down != NULL ? xstrdup(down) : NULL;
	pthread_mutex_unlock(&ta->mu);
	if (!changed)
		return;
	ev = event_new(ta, TE_STATE);
	ev->up = down == NULL;
	ev->text = down != NULL ? xstrdup(down) : NULL;
	post(ev);
}

/* Open the session if it is not; 0 when there is one. */
static int
ensure_session(struct tui_account *ta, char **cause)
{
	int	r;

	if (ta->s != NULL) {
		int	down;

		pthread_mutex_lock(&ta->mu);
		down = ta->down != NULL;
		pthread_mutex_unlock(&ta->mu);
		if (down)
			session_retry(ta->s);
		return 0;
	}
	r = session_open(ta->cf, ta->a->id, &ta->s, cause);
	if (r != IMAP_OPS_OK) {
		set_state(ta, *cause);
		return -1;
	}
	set_state(ta, session_down(ta->s));
	return 0;
}

static int
is_lost(int r)
{
	return r == IMAP_OPS_LOST || r == IMAP_CONN_SAVED;
}

static void
post_changed(struct tui_account *ta, const char *folder)
{
	struct tui_event	*ch = event_new(ta, TE_CHANGED);

	ch->folder = xstrdup(folder);
	post(ch);
}

/*
 * new-mail-command, when IDLE brought n new messages to folder: started
 * and left to run, so that neither the worker nor the screen waits on it.
 */
static void
new_mail_hook(struct tui_account *ta, const char *folder, uint32_t n)
{
	char			 count[16], *cmd, *cause = NULL, *env[4];
	struct command_var		 vars[3];
	size_t			 i;

	if (ta->cf->new_mail_command == NULL)
		return;
	snprintf(count, sizeof count, "%u", (unsigned)n);
	vars[0].letter = 'f';
	vars[0].value = folder;
	vars[1].letter = 'n';
	vars[1].value = count;
	vars[2].letter = 'a';
	vars[2].value = ta->a->id;
	cmd = command_expand(ta->cf->new_mail_command, vars, 3);
	env[0] = xasprintf("STEED_FOLDER=%s", folder);
	env[1] = xasprintf("STEED_NEW=%s", count);
	env[2] = xasprintf("STEED_ACCOUNT=%s", ta->a->id);
	env[3] = xasprintf("STEED_ADDRESS=%s", ta->a->address);
	log_msg(LOG_INFO, "new-mail-command: %u in %s", (unsigned)n, folder);
	if (command_spawn(cmd, env, 4, &cause) == -1) {
		hook_notice(ta, FE_WARNING, cause);
		free(cause);
	}
	for (i = 0; i < 4; i++)
		free(env[i]);
	free(cmd);
}

/* A sync, then its trust step; the index hears of what changed only. */
/* The newest days of mail into the body cache (body-prefetch-days). */
static void
do_prefetch(struct tui_account *ta, const char *folder)
{
	size_t	 fetched;
	char	*cause = NULL;
	int	 r;

	r = session_prefetch(ta->s, folder, &fetched, &cause);
	if (r != IMAP_OPS_OK && r != SESSION_CANCELLED)
		hook_notice(ta, FE_WARNING, cause != NULL ? cause :
		    "messages not fetched for offline reading");
	free(cause);
}

static void
do_sync(struct tui_account *ta, const char *folder, struct tui_event *ev)
{
	struct session_sync	 ss;
	struct sync_trust_stats	 st;
	int			 changed;

	memset(&ss, 0, sizeof ss);
	ev->result = session_sync(ta->s, folder, &ss, &ev->cause);
	changed = ss.st.fetched > 0 || ss.st.flags_changed > 0 ||
	    ss.st.expunged > 0;
	if ((ev->result == IMAP_OPS_OK || ev->result == SESSION_CANCELLED) &&
	    changed)
		post_changed(ta, folder);
	if (ev->result != IMAP_OPS_OK)
		return;
	if (ta->idle_sync && ss.st.fetched > 0)
		new_mail_hook(ta, folder, ss.st.fetched);
	crypto_set_no_prompt(1);
	memset(&st, 0, sizeof st);
	ev->result = session_trust(ta->s, folder, &ss, &st);
	crypto_set_no_prompt(0);
	/* new trust states, or real subjects where "(encrypted)" was */
	if (st.processed > 0 || st.kept > 0)
		post_changed(ta, folder);
	if (ev->result == IMAP_OPS_OK) {
		do_prefetch(ta, folder);
		/* what it (or an earlier run) left behind: in the background */
		pthread_mutex_lock(&ta->mu);
		free(ta->more);
		ta->more = xstrdup(folder);
		pthread_mutex_unlock(&ta->mu);
	}
}

/*
 * The trust step on a few of the messages a sync left behind, the newest
 * first, while no job waits; done when none are left, or when it could
 * not go on (the next sync tries again).
 */
static void
do_trust_more(struct tui_account *ta)
{
	struct sync_trust_stats	 st;
	char			*folder;
	int			 more = 0, r;

	pthread_mutex_lock(&ta->mu);
	folder = xstrdup(ta->more);
	pthread_mutex_unlock(&ta->mu);
	atomic_store(&ta->cancel, 0);
	crypto_set_no_prompt(1);
	r = session_trust_more(ta->s, folder, TRUST_MORE, &st, &more);
	crypto_set_no_prompt(0);
	log_msg(LOG_INFO, "worker: %s: %s: trust step on what the sync left "
	    "behind: %d, %u processed, %u kept%s", ta->a->id, folder, r,
	    st.processed, st.kept, more ? ", more to do" : "");
	pthread_mutex_lock(&ta->mu);
	free(ta->progress);
	ta->progress = NULL;
	if ((r != IMAP_OPS_OK || !more) && ta->more != NULL &&
	    strcmp(ta->more, folder) == 0) {
		free(ta->more);
		ta->more = NULL;
	}
	pthread_mutex_unlock(&ta->mu);
	/* the progress is gone: the screen draws without it */
	{
		struct tui_event	*ev = event_new(ta, TE_PROGRESS);

		ev->what = "";
		post(ev);
	}
	if (st.processed > 0 || st.kept > 0)
		post_changed(ta, folder);
	free(folder);
}

static void
do_open(struct tui_account *ta, struct tui_job *j, struct tui_event *ev)
{
	struct buf	 raw;
	size_t		 len;

	buf_init(&raw);
	ev->result = session_fetch(ta->s, j->folder, j->uid, NULL, &raw,
	    &ev->cause);
	if (ev->result != IMAP_OPS_OK) {
		buf_free(&raw);
		return;
	}
	if (ta->ts == NULL) {
		char	*c = NULL;

		if ((ta->ts = trust_store_open(NULL, &c)) == NULL) {
			hook_notice(ta, FE_WARNING, c != NULL ? c :
			    "the trust store cannot be opened");
			free(c);
		}
	}
	/* the message keeps the bytes: the pager's one copy of them */
	len = raw.len;
	ev->msg = message_open(buf_take(&raw), len, ta->ts,
	    ta->ts == NULL ? MESSAGE_NO_TRUST : 0, &ev->cause);
	if (ev->msg == NULL)
		ev->result = -1;
	else {
		message_lines(ev->msg);
		message_brief(ev->msg);
		/* its protected header into the cache: the index row shows
		   the real Subject from the next snapshot on */
		if (session_opened(ta->s, j->folder, j->uid, ev->msg) == 1)
			post_changed(ta, j->folder);
	}
	/* reading it marks it read, as in any mail reader */
	if (ev->msg != NULL) {
		char	*c = NULL;

		session_flag(ta->s, j->folder, j->uid, MSG_SEEN, 0, &c);
		free(c);
	}
}

/*
 * B: the full-text index of the cached mail answers the query (its
 * syntax, search-query.h); plain words also go to the server, when it
 * can be reached, for the messages not cached (session_search_all()).
 * ev->text says who answered.
 */
static void
do_search(struct tui_account *ta, struct tui_job *j, struct tui_event *ev)
{
	unsigned	who = 0;

	ev->result = session_search_all(ta->s, j->folder, j->arg, &ev->uids,
	    &ev->nuids, &who, &ev->cause);
	if (ev->result != IMAP_OPS_OK)
		return;
	/* the server's reason, when it could not answer, is not an error */
	free(ev->cause);
	ev->cause = NULL;
	ev->text = xstrdup((who & SESSION_FOUND_SERVER) == 0 ?
	    "the cached mail" : (who & SESSION_FOUND_CACHE) != 0 ?
	    "the cached mail and the server" : "the server");
}

/*
 * A mailbox operation on the job's messages (session_apply()): ev->text
 * says what happened, and the folder's screens read the cache again, which
 * holds what the server confirmed.
 */
static void
do_uids(struct tui_account *ta, struct tui_job *j, struct tui_event *ev)
{
	struct session_op		 op;
	struct session_op_result	 res;

	memset(&op, 0, sizeof op);
	switch (j->kind) {
	case TJ_FLAG:
		op.kind = SESSION_OP_FLAG;
		op.add = j->add;
		op.remove = j->remove;
		break;
	case TJ_MOVE:
		op.kind = SESSION_OP_MOVE;
		op.to = j->arg;
		break;
	default:
		op.kind = SESSION_OP_COPY;
		op.to = j->arg;
		break;
	}
	ev->result = session_apply(ta->s, j->folder, &op, j->uids, j->nuids,
	    &res);
	ev->text = session_op_said(&op, j->folder, &res);
	if (res.cause != NULL) {
		ev->cause = res.cause;
		res.cause = NULL;
	}
	/* saved for later is not a failure: it will be replayed */
	if (ev->result == IMAP_CONN_SAVED)
		ev->result = IMAP_OPS_OK;
	session_op_result_free(&res);
	post_changed(ta, j->folder);
}

/* EXPUNGE: what the server removed, said in ev->text. */
static void
do_expunge(struct tui_account *ta, const char *folder, struct tui_event *ev)
{
	size_t	n;

	ev->result = session_expunge(ta->s, folder, &n, &ev->cause);
	if (ev->result != IMAP_OPS_OK)
		return;
	post_changed(ta, folder);
	ev->text = n == 0 ? xasprintf("nothing in %s was flagged deleted",
	    folder) : xasprintf("%zu message%s removed from %s for good", n,
	    n == 1 ? "" : "s", folder);
}

static void
run_job(struct tui_account *ta, struct job *jb)
{
	struct tui_job		*j = &jb->j;
	struct tui_event	*ev = event_new(ta, TE_DONE);

	ev->job = jb->id;
	ev->jkind = j->kind;
	log_msg(LOG_INFO, "worker: %s: job %llu (%d) in %s",
	    ta->a->id, (unsigned long long)jb->id, (int)j->kind,
	    j->folder != NULL ? j->folder : "-");
	ev->folder = j->folder != NULL ? xstrdup(j->folder) : NULL;
	ta->last_progress = 0;
	if (ensure_session(ta, &ev->cause) == -1) {
		ev->result = SESSION_NO_ACCOUNT;
		post(ev);
		return;
	}
	switch (j->kind) {
	case TJ_SYNC:
		do_sync(ta, j->folder, ev);
		break;
	case TJ_FOLDERS:
		ev->result = session_folders(ta->s, &ev->folders,
		    &ev->nfolders, &ev->cause);
		if (ev->result == 0)
			keep_names(ta, ev->folders, ev->nfolders);
		else {
			pthread_mutex_lock(&ta->mu);
			ta->names_failed = 1;
			pthread_mutex_unlock(&ta->mu);
		}
		break;
	case TJ_OPEN:
		do_open(ta, j, ev);
		break;
	case TJ_RAW:
		ev->result = session_fetch(ta->s, j->folder, j->uid, j->part,
		    &ev->raw, &ev->cause);
		break;
	case TJ_FLAG:
	case TJ_MOVE:
	case TJ_COPY:
		do_uids(ta, j, ev);
		break;
	case TJ_EXPUNGE:
		do_expunge(ta, j->folder, ev);
		break;
	case TJ_SEARCH:
		do_search(ta, j, ev);
		break;
	case TJ_CALL:
		ev->result = j->fn(ta->s, j->fn_arg, ev);
		break;
	}
	if (ev->result == SESSION_CANCELLED) {
		free(ev->cause);
		ev->cause = xstrdup("stopped");
	}
	/* --offline stays so; a message from the body cache says nothing
	   of the server */
	if (session_offline(ta->s) != NULL)
		set_state(ta, session_offline(ta->s));
	else if (is_lost(ev->result))
		set_state(ta, ev->cause != NULL ? ev->cause :
		    "the connection was lost");
	else if (ev->result == IMAP_OPS_OK && j->kind != TJ_CALL &&
	    !((j->kind == TJ_OPEN || j->kind == TJ_RAW) &&
	    session_cached(ta->s)))
		set_state(ta, NULL);
	pthread_mutex_lock(&ta->mu);
	free(ta->progress);
	ta->progress = NULL;
	pthread_mutex_unlock(&ta->mu);
	log_msg(LOG_INFO, "worker: %s: job %llu done: %d%s%s", ta->a->id,
	    (unsigned long long)jb->id, ev->result,
	    ev->cause != NULL ? ": " : "", ev->cause != NULL ? ev->cause : "");
	post(ev);
}

static void
job_free(struct job *jb)
{
	free(jb->j.folder);
	free(jb->j.uids);
	free(jb->j.part);
	free(jb->j.arg);
	free(jb->j.arg2);
	free(jb);
}

/* IDLE on the watched folder until something happens or a job comes. */
static void
idle_once(struct tui_account *ta, const char *folder)
{
	unsigned	 events = 0;
	char		*cause = NULL;
	int		 r;
	struct tui_job	 j;
	struct job	 jb;

	r = session_idle(ta->s, folder, IDLE_SECONDS, 1, &events, &cause);
	pthread_mutex_lock(&ta->mu);
	ta->idling = 0;
	pthread_mutex_unlock(&ta->mu);
	atomic_store(&ta->cancel, 0);
	if (r == IMAP_OPS_OK && events > 0) {
		memset(&j, 0, sizeof j);
		j.kind = TJ_SYNC;
		j.folder = xstrdup(folder);
		memset(&jb, 0, sizeof jb);
		jb.j = j;
		jb.id = 0;
		ta->idle_sync = 1;
		run_job(ta, &jb);
		ta->idle_sync = 0;
		free(j.folder);
	} else if (r == IMAP_OPS_REFUSED || r == IMAP_OPS_UNSUPPORTED) {
		/*
		 * The folder, not the connection (one that is not there):
		 * it is not watched, and the account is not said to be
		 * offline; the index's own sync says what the server said.
		 */
		log_msg(LOG_INFO, "worker: %s: not watching %s: %s", ta->a->id,
		    folder, cause != NULL ? cause : "refused");
		pthread_mutex_lock(&ta->mu);
		if (ta->watch != NULL && strcmp(ta->watch, folder) == 0) {
			free(ta->watch);
			ta->watch = NULL;
		}
		pthread_mutex_unlock(&ta->mu);
	} else if (r != IMAP_OPS_OK && r != SESSION_CANCELLED) {
		set_state(ta, cause != NULL ? cause : "the connection was lost");
		/* wait a little before the next try, or until a job comes */
		pthread_mutex_lock(&ta->mu);
		if (ta->jobs == NULL && !ta->stop) {
			struct timespec	 ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += RETRY_SECONDS;
			pthread_cond_timedwait(&ta->cv, &ta->mu, &ts);
		}
		pthread_mutex_unlock(&ta->mu);
		if (!ta->stop) {
			/* a sync reconnects, and catches up on what came */
			memset(&jb, 0, sizeof jb);
			jb.j.kind = TJ_SYNC;
			jb.j.folder = xstrdup(folder);
			run_job(ta, &jb);
			free(jb.j.folder);
		}
	}
	free(cause);
}

static void *
worker(void *arg)
{
	struct tui_account	*ta = arg;
	struct fe_hooks		 h;
	struct job		*jb;
	char			*watch;

	memset(&h, 0, sizeof h);
	h.secret = hook_secret;
	h.confirm = hook_confirm;
	h.notice = hook_notice;
	h.progress = hook_progress;
	h.tty_begin = hook_tty_begin;
	h.tty_end = hook_tty_end;
	h.cancel = &ta->cancel;
	h.arg = ta;
	fe_set(&h);
	{
		char	*cause = NULL;

		if (crypto_init(ta->cf->gnupg_home, &cause) == -1) {
			hook_notice(ta, FE_WARNING, cause != NULL ? cause :
			    "GnuPG cannot be used");
			free(cause);
		}
	}

	for (;;) {
		pthread_mutex_lock(&ta->mu);
		while (ta->jobs == NULL && !ta->stop &&
		    (ta->watch == NULL || ta->s == NULL) &&
		    (ta->more == NULL || ta->s == NULL))
			pthread_cond_wait(&ta->cv, &ta->mu);
		if (ta->stop) {
			pthread_mutex_unlock(&ta->mu);
			break;
		}
		if ((jb = ta->jobs) != NULL) {
			ta->jobs = jb->next;
			if (ta->jobs == NULL)
				ta->jobs_tail = &ta->jobs;
			pthread_mutex_unlock(&ta->mu);
			atomic_store(&ta->cancel, 0);
			run_job(ta, jb);
			job_free(jb);
			continue;
		}
		if (ta->more != NULL && ta->s != NULL) {
			pthread_mutex_unlock(&ta->mu);
			do_trust_more(ta);
			continue;
		}
		if (ta->watch == NULL) {
			pthread_mutex_unlock(&ta->mu);
			continue;
		}
		watch = xstrdup(ta->watch);
		ta->idling = 1;
		pthread_mutex_unlock(&ta->mu);
		idle_once(ta, watch);
		free(watch);
	}
	if (ta->s != NULL)
		session_close(ta->s);
	ta->s = NULL;
	if (ta->ts != NULL)
		trust_store_close(ta->ts);
	ta->ts = NULL;
	free(ta->more);
	ta->more = NULL;
	fe_set(NULL);
	return NULL;
}

/* ---- the interface thread's side ---------------------------------------- */

struct tui_account *
tui_account_start(struct config *cf, struct account *a)
{
	struct tui_account	*ta = xcalloc(1, sizeof *ta);

	ta->cf = cf;
	ta->a = a;
	pthread_mutex_init(&ta->mu, NULL);
	pthread_cond_init(&ta->cv, NULL);
	ta->jobs_tail = &ta->jobs;
	ta->next_id = 1;
	tui_events_fd();
	return ta;
}

void
tui_account_run(struct tui_account *ta)
{
	if (!ta->started && pthread_create(&ta->th, NULL, worker, ta) == 0)
		ta->started = 1;
}

int
tui_account_stop(struct tui_account *ta, int wait_ms)
{
	struct job	*jb;
	struct timespec	 ts;

	if (ta == NULL)
		return 0;
	pthread_mutex_lock(&ta->mu);
	ta->stop = 1;
	pthread_cond_broadcast(&ta->cv);
	pthread_mutex_unlock(&ta->mu);
	atomic_store(&ta->cancel, 1);
	if (ta->started) {
		deadline(&ts, wait_ms);
		/* a worker deep in a server's answer cannot stop at once:
		 * leave it to the end of the process, which loses nothing
		 * (the cache commits whole batches or none) */
		if (pthread_timedjoin_np(ta->th, NULL, &ts) != 0)
			return -1;
	}
	while ((jb = ta->jobs) != NULL) {
		ta->jobs = jb->next;
		job_free(jb);
	}
	if (ta->ui_cache != NULL)
		cache_close(ta->ui_cache);
	if (ta->ui_ts != NULL)
		trust_store_close(ta->ui_ts);
	free(ta->watch);
	free(ta->down);
	free(ta->progress);
	free_names(ta->names, ta->nnames);
	pthread_mutex_destroy(&ta->mu);
	pthread_cond_destroy(&ta->cv);
	free(ta);
	return 0;
}

struct account *
tui_account_config(struct tui_account *ta)
{
	return ta->a;
}

struct cache *
tui_account_cache(struct tui_account *ta)
{
	char	*cause = NULL;

	if (ta->ui_cache == NULL) {
		ta->ui_cache = cache_open(ta->a->id, &cause);
		if (ta->ui_cache == NULL)
			tui_error("header cache: %s", cause != NULL ? cause :
			    "cannot be opened");
		free(cause);
	}
	return ta->ui_cache;
}

struct trust_store *
tui_account_trust(struct tui_account *ta)
{
	char	*cause = NULL;

	if (ta->ui_ts == NULL) {
		ta->ui_ts = trust_store_open(NULL, &cause);
		if (ta->ui_ts == NULL)
			tui_error("trust store: %s", cause != NULL ? cause :
			    "cannot be opened");
		free(cause);
	}
	return ta->ui_ts;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

uint64_t
tui_submit(struct tui_account *ta, const struct tui_job *j)
{
	struct job	*jb = xcalloc(1, sizeof *jb);
	uint64_t	 id;

	jb->j = *j;
	jb->j.folder = dup_or_null(j->folder);
	jb->j.part = dup_or_null(j->part);
	jb->j.arg = dup_or_null(j->arg);
	jb->j.arg2 = dup_or_null(j->arg2);
	if (j->nuids > 0) {
		jb->j.uids = xcalloc(j->nuids, sizeof *j->uids);
		memcpy(jb->j.uids, j->uids, j->nuids * sizeof *j->uids);
	} else
		jb->j.uids = NULL;
	pthread_mutex_lock(&ta->mu);
	id = jb->id = ta->next_id++;
	*ta->jobs_tail = jb;
	ta->jobs_tail = &jb->next;
	/* a job interrupts IDLE, never another job */
	if (ta->idling)
		atomic_store(&ta->cancel, 1);
	pthread_cond_broadcast(&ta->cv);
	pthread_mutex_unlock(&ta->mu);
	return id;
}

void
tui_cancel(struct tui_account *ta)
{
	atomic_store(&ta->cancel, 1);
}

void
tui_watch(struct tui_account *ta, const char *folder)
{
	pthread_mutex_lock(&ta->mu);
	free(ta->watch);
	ta->watch = dup_or_null(folder);
	if (ta->idling)
		atomic_store(&ta->cancel, 1);
	pthread_cond_broadcast(&ta->cv);
	pthread_mutex_unlock(&ta->mu);
}

/* Copies for the status bar: the strings may change under us. */
const char *
tui_account_down(struct tui_account *ta)
{
	static char	*copy;

	free(copy);
	pthread_mutex_lock(&ta->mu);
	copy = dup_or_null(ta->down);
	pthread_mutex_unlock(&ta->mu);
	return copy;
}

char **
tui_account_folders(struct tui_account *ta, size_t *n)
{
	char	**names = NULL;
	size_t	  i;
	int	  again;

	pthread_mutex_lock(&ta->mu);
	again = ta->names_failed;
	ta->names_failed = 0;
	*n = ta->nnames;
	if (ta->names != NULL) {
		names = xreallocarray(NULL, ta->nnames + 1, sizeof *names);
		for (i = 0; i < ta->nnames; i++)
			names[i] = xstrdup(ta->names[i]);
		names[i] = NULL;
	}
	pthread_mutex_unlock(&ta->mu);
	/* never listed: ask once, the answer is kept by the worker */
	if (names == NULL && (ta->names_job == 0 || again)) {
		struct tui_job	j;

		memset(&j, 0, sizeof j);
		j.kind = TJ_FOLDERS;
		ta->names_job = tui_submit(ta, &j);
	}
	return names;
}

const char *
tui_account_progress(struct tui_account *ta)
{
	static char	*copy;

	free(copy);
	pthread_mutex_lock(&ta->mu);
	copy = dup_or_null(ta->progress);
	pthread_mutex_unlock(&ta->mu);
	return copy;
}
