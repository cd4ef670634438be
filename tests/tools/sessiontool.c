/*
 * sessiontool.c: drives session.h the way the interface's worker will:
 * the calls run on this program's main thread with hooks of its own
 * (frontend.h), and a second thread asks them to stop through the hooks'
 * cancel flag. For tests/integration/sync.sh and qresync.sh.
 *
 *   sessiontool CONFIG sync FOLDER [STOP [trust]]
 *     sync FOLDER, then its trust step. Prints each progress report
 *     ("progress WHAT: DONE TOTAL"), then "cancelled" or "synced
 *     FETCHED", then "trust cancelled" or "trust PROCESSED KNOWN
 *     SKIPPED". With STOP, the other thread sets the cancel flag once a
 *     report says at least STOP headers were fetched (with "trust": STOP
 *     messages were checked by the trust step); the reporting call waits
 *     until it has, so that the test does not depend on timing.
 *   sessiontool CONFIG sync-again FOLDER COMMAND
 *     sync FOLDER and its trust step as above, run COMMAND (sh -c), then
 *     sync it again on the same connection, the folder still selected;
 *     prints "again FETCHED FLAGS EXPUNGED EXISTS" for the second.
 *   sessiontool CONFIG idle FOLDER SECONDS STOPMS
 *     wait for a change for up to SECONDS; the other thread sets the
 *     cancel flag after STOPMS milliseconds. Prints "cancelled after N
 *     ms", or the events, or "timeout".
 *   sessiontool CONFIG copy FOLDER UID TOFOLDER
 *   sessiontool CONFIG expunge FOLDER
 *     print "ok".
 *
 * Warnings print as "warning: ...". Failure prints "sessiontool: CAUSE"
 * on standard error and exits 1. SESSIONTOOL_LOG names a debug log
 * (level 3) to append to.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "frontend.h"
#include "log.h"
#include "session.h"
#include "xmalloc.h"

static atomic_int	 st_cancel;
static uint64_t		 st_stop;	/* headers fetched before stopping */
static const char	*st_what = "fetching headers";	/* ... or */
static int		 st_stop_ms;	/* or milliseconds */
static int		 st_asked;	/* the reporter waits for the stop */
static pthread_mutex_t	 st_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	 st_cond = PTHREAD_COND_INITIALIZER;

static void __attribute__((noreturn))
st_fail(char *cause)
{
	fprintf(stderr, "sessiontool: %s\n", cause);
	free(cause);
	exit(1);
}

static void __attribute__((noreturn))
st_usage(void)
{
	fprintf(stderr, "usage: sessiontool CONFIG sync FOLDER [STOP [trust]] "
	    "| sync-again FOLDER COMMAND | idle FOLDER SECONDS STOPMS | "
	    "copy FOLDER UID TOFOLDER | "
	    "expunge FOLDER\n");
	exit(2);
}

static long long
st_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
st_notice(void *arg, enum fe_level level, const char *text)
{
	(void)arg;
	(void)level;
	printf("warning: %s\n", text);
}

/*
 * A report: printed; the first one at or past the stop wakes the other
 * thread and waits until it has asked to stop.
 */
static void
st_progress(void *arg, const char *what, uint64_t done, uint64_t total)
{
	(void)arg;
	printf("progress %s: %llu %llu\n", what, (unsigned long long)done,
	    (unsigned long long)total);
	if (st_stop == 0 || done < st_stop || strcmp(what, st_what) != 0)
		return;
	pthread_mutex_lock(&st_lock);
	if (!st_asked) {
		st_asked = 1;
		pthread_cond_broadcast(&st_cond);
		while (atomic_load(&st_cancel) == 0)
			pthread_cond_wait(&st_cond, &st_lock);
	}
	pthread_mutex_unlock(&st_lock);
}

static struct fe_hooks st_hooks = {
	.notice = st_notice,
	.progress = st_progress,
	.cancel = &st_cancel
};

/* The other thread: sets the cancel flag when the time comes. */
static void *
st_canceller(void *arg)
{
	struct timespec	ts;

	(void)arg;
	if (st_stop_ms > 0) {
		ts.tv_sec = st_stop_ms / 1000;
		ts.tv_nsec = (long)(st_stop_ms % 1000) * 1000000;
		nanosleep(&ts, NULL);
		atomic_store(&st_cancel, 1);
		return NULL;
	}
	pthread_mutex_lock(&st_lock);
	while (!st_asked)
		pthread_cond_wait(&st_cond, &st_lock);
	atomic_store(&st_cancel, 1);
	pthread_cond_broadcast(&st_cond);
	pthread_mutex_unlock(&st_lock);
	return NULL;
}

static void
st_sync(struct session *s, const char *folder)
{
	struct session_sync	 ss;
	struct sync_trust_stats	 ts;
	char			*cause = NULL;
	int			 rc;

	rc = session_sync(s, folder, &ss, &cause);
	if (rc == SESSION_CANCELLED) {
		printf("cancelled\n");
		free(cause);
		return;
	}
	if (rc != IMAP_OPS_OK)
		st_fail(cause);
	printf("synced %u\n", ss.st.fetched);
	if (session_trust(s, folder, &ss, &ts) == SESSION_CANCELLED)
		printf("trust cancelled\n");
	else
		printf("trust %u %u %u\n", ts.processed, ts.known, ts.skipped);
}

static void
st_sync_again(struct session *s, const char *folder, const char *command)
{
	struct session_sync	 ss;
	char			*cause = NULL;

	st_sync(s, folder);
	if (system(command) != 0)
		st_fail(xasprintf("the command failed: %s", command));
	if (session_sync(s, folder, &ss, &cause) != IMAP_OPS_OK)
		st_fail(cause);
	printf("again %u %u %u %u\n", ss.st.fetched, ss.st.flags_changed,
	    ss.st.expunged, ss.st.exists);
}

static void
st_idle(struct session *s, const char *folder, int seconds)
{
	long long	 t0 = st_now_ms();
	unsigned	 events;
	char		*cause = NULL;
	int		 rc;

	rc = session_idle(s, folder, seconds, 0, &events, &cause);
	if (rc == SESSION_CANCELLED) {
		printf("cancelled after %lld ms\n", st_now_ms() - t0);
		free(cause);
	} else if (rc != IMAP_OPS_OK)
		st_fail(cause);
	else if (events == 0)
		printf("timeout\n");
	else
		printf("events %u\n", events);
}

int
main(int argc, char **argv)
{
	struct config	*cf;
	struct session	*s;
	pthread_t	 t;
	char		*cause = NULL;
	int		 thread = 0, rc;

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		st_usage();
	if (strcmp(argv[2], "sync") == 0 && argc >= 4 && argc <= 6) {
		if (argc >= 5 && (st_stop = strtoull(argv[4], NULL, 10)) == 0)
			st_usage();
		if (argc == 6 && strcmp(argv[5], "trust") != 0)
			st_usage();
		if (argc == 6)
			st_what = "trust: checking messages";
		thread = argc >= 5;
	} else if ((strcmp(argv[2], "copy") == 0 && argc == 6) ||
	    (strcmp(argv[2], "sync-again") == 0 && argc == 5) ||
	    (strcmp(argv[2], "expunge") == 0 && argc == 4)) {
		/* No other thread. */
	} else if (strcmp(argv[2], "idle") == 0 && argc == 6) {
		if ((st_stop_ms = atoi(argv[5])) <= 0 || atoi(argv[4]) <= 0)
			st_usage();
		thread = 1;
	} else
		st_usage();

	fe_set(&st_hooks);
	if (getenv("SESSIONTOOL_LOG") != NULL &&
	    log_open(getenv("SESSIONTOOL_LOG"), LOG_TRACE, &cause) == -1)
		st_fail(cause);
	if ((cf = config_load(argv[1], &cause)) == NULL)
		st_fail(cause);
	if (session_open(cf, NULL, &s, &cause) != IMAP_OPS_OK)
		st_fail(cause);
	if (session_down(s) != NULL)
		st_fail(xstrdup(session_down(s)));
	if (thread && pthread_create(&t, NULL, st_canceller, NULL) != 0)
		st_fail(xstrdup("cannot start a thread"));
	if (strcmp(argv[2], "sync") == 0)
		st_sync(s, argv[3]);
	else if (strcmp(argv[2], "sync-again") == 0)
		st_sync_again(s, argv[3], argv[4]);
	else if (strcmp(argv[2], "idle") == 0)
		st_idle(s, argv[3], atoi(argv[4]));
	else {
		if (strcmp(argv[2], "copy") == 0) {
			struct session_op		op;
			struct session_op_result	res;
			uint32_t			uid;

			memset(&op, 0, sizeof op);
			op.kind = SESSION_OP_COPY;
			op.to = argv[5];
			uid = (uint32_t)strtoul(argv[4], NULL, 10);
			rc = session_apply(s, argv[3], &op, &uid, 1, &res);
			cause = res.cause;
			res.cause = NULL;
			session_op_result_free(&res);
		} else
			rc = session_expunge(s, argv[3], &cause);
		if (rc != IMAP_OPS_OK)
			st_fail(cause);
		printf("ok\n");
	}
	if (thread) {
		/* A sync that ended before the stop: let the thread go. */
		pthread_mutex_lock(&st_lock);
		st_asked = 1;
		pthread_cond_broadcast(&st_cond);
		pthread_mutex_unlock(&st_lock);
		pthread_join(t, NULL);
	}
	session_close(s);
	config_free(cf);
	fe_set(NULL);
	return 0;
}
