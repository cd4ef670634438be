/*
 * cli-mail.c: the reading commands for scripts: --sync, --list, --fetch
 * and --idle, and the opening of an account's IMAP connection that every
 * IMAP command shares (which also sends flag changes saved earlier).
 * --list falls back to the header cache when the server cannot be reached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cache.h"
#include "cli.h"
#include "imap-conn.h"
#include "log.h"
#include "password.h"
#include "send.h"
#include "strsafe.h"
#include "sync-trust.h"
#include "xmalloc.h"

#define CMD_IDLE_TIMEOUT	300	/* seconds --idle waits by default */

uint32_t
cmd_uid(const char *what, const char *arg)
{
	unsigned long	 uid;
	char		*end;

	uid = strtoul(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || uid == 0 ||
	    uid > 0xffffffffUL) {
		cmd_error("%s: \"%s\" is not a UID", what, arg);
		return 0;
	}
	return (uint32_t)uid;
}

int
cmd_mail_exit(int result)
{
	switch (result) {
	case IMAP_OPS_OK:
		return EX_OK;
	case IMAP_OPS_LOST:
	case IMAP_CONN_SAVED:
		return EX_TEMPFAIL;
	case IMAP_CONN_LOCAL:
		return EX_IOERR;
	default:
		return EX_UNAVAILABLE;
	}
}

void
cmd_mail_warnings(struct cmd_mail *m)
{
	char	*w;

	if (m->conn == NULL)
		return;
	while ((w = imap_conn_warning(m->conn)) != NULL) {
		cmd_error("warning: %s", w);
		free(w);
	}
}

int
cmd_mail_open(struct cmd_ctx *ctx, struct cmd_mail *m, const char *folder)
{
	char	*pw, *cause = NULL;
	size_t	 n;

	memset(m, 0, sizeof *m);
	m->folder = folder != NULL ? folder : "INBOX";
	if ((m->a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if ((m->cache = cache_open(m->a->id, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		return EX_CANTCREAT;
	}
	if ((pw = password_get(m->a, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		cache_close(m->cache);
		m->cache = NULL;
		return EX_CONFIG;
	}
	m->conn = imap_conn_new(m->a, ctx->cf->ca_file, pw, m->cache);
	freezero_str(pw);
	if (imap_conn_open(m->conn, &cause) != IMAP_OPS_OK)
		m->down = cause;
	cmd_mail_warnings(m);
	if ((n = imap_conn_replayed(m->conn)) > 0)
		fprintf(stderr, "steedmail: %zu saved flag change%s sent to "
		    "the server\n", n, n == 1 ? "" : "s");
	return EX_OK;
}

void
cmd_mail_close(struct cmd_mail *m)
{
	cmd_mail_warnings(m);
	imap_conn_close(m->conn);
	cache_close(m->cache);
	free(m->down);
	memset(m, 0, sizeof *m);
}

/* The server cannot be reached: say so, for commands that need it. */
static int
cmd_mail_down(struct cmd_mail *m)
{
	cmd_error("%s", m->down);
	cmd_mail_close(m);
	return EX_TEMPFAIL;
}

/*
 * The folder's cached state before a sync: the UIDs past its maxuid are
 * the new ones. Read before imap_conn_sync(), so that batches stored by
 * an attempt that then lost the connection still count as new.
 */
static void
cmd_sync_before(struct cmd_mail *m, struct cache_mailbox *before)
{
	char	*cause = NULL;

	if (cache_mailbox_find(m->cache, m->folder, before, &cause) != 1) {
		free(cause);
		memset(before, 0, sizeof *before);
	}
}

/* The trust step is done up to uid (the newest message of the sync). */
static void
cmd_sync_trusted(struct cmd_mail *m, uint32_t uid)
{
	struct cache_mailbox	 mb;
	char			*cause = NULL;

	if (cache_mailbox_find(m->cache, m->folder, &mb, &cause) != 1 ||
	    cache_mailbox_trusted(m->cache, &mb, uid, &cause) == -1) {
		log_msg(LOG_INFO, "sync: trust step not marked done: %s",
		    cause != NULL ? cause : "no such mailbox");
		free(cause);
	}
}

/* The trust step starts on uid: no sync comes back to it. */
static void
cmd_sync_passing(void *arg, uint32_t uid)
{
	cmd_sync_trusted(arg, uid);
}

/*
 * After a sync: the messages it found new into the trust store
 * (sync-trust.h). This never fails the sync; what went wrong is one
 * warning. With report (--sync), one line says what was done.
 */
static void
cmd_sync_trust(struct cmd_ctx *ctx, struct cmd_mail *m,
    const struct cache_mailbox *before, const struct imap_sync_stats *st,
    int report)
{
	struct sync_trust_how	 how;
	struct sync_trust_stats	 ts;
	mailimap		*imap;
	uint32_t		 first;
	char			*cause = NULL;

	/*
	 * From the first message no sync has given the trust store yet:
	 * those of an earlier sync that stopped between storing envelopes
	 * and this step too, which the header cache would otherwise hide.
	 * Another UIDVALIDITY (or nothing cached): every message is new.
	 */
	first = before->uidvalidity == st->mb.uidvalidity ?
	    before->trust_uid + 1 : 1;
	if (first > st->mb.maxuid)
		return;
	memset(&how, 0, sizeof how);
	if (sync_trust_limit(ctx->cf->sync_trust_limit, &how.limit,
	    &cause) == -1) {
		cmd_error("warning: %s", cause);
		free(cause);
		cause = NULL;
	}
	if (how.limit == 0) {
		cmd_sync_trusted(m, st->mb.maxuid);	/* off: none pending */
		return;
	}
	if ((imap = imap_conn_session(m->conn)) == NULL)
		return;
	how.gnupg_home = ctx->cf->gnupg_home;
	how.passing = cmd_sync_passing;
	how.arg = m;
	if (sync_trust(imap, first, st->mb.maxuid, &how, &ts, &cause) == -1) {
		cmd_error("warning: %s: trust: nothing processed: %s",
		    m->folder, cause);
		free(cause);
		return;
	}
	cmd_sync_trusted(m, st->mb.maxuid);
	/* Nothing that could carry evidence: nothing to say. */
	if (report && ts.processed + ts.known + ts.skipped > 0) {
		fprintf(stderr, "steedmail: %s: trust: %u message%s "
		    "processed", m->folder, ts.processed,
		    ts.processed == 1 ? "" : "s");
		if (ts.known > 0)
			fprintf(stderr, ", %u processed before", ts.known);
		if (ts.skipped > 0)
			fprintf(stderr, ", %u skipped", ts.skipped);
		fputc('\n', stderr);
	}
	if (ts.warning != NULL) {
		cmd_error("warning: %s: %s", m->folder, ts.warning);
		free(ts.warning);
	}
}

int
cmd_sync(struct cmd_ctx *ctx)
{
	struct cmd_mail		 m;
	struct imap_sync_stats	 st;
	struct cache_mailbox	 before;
	char			*cause = NULL;
	int			 rc;

	if ((rc = cmd_mail_open(ctx, &m, ctx->argc > 0 ? ctx->argv[0] :
	    NULL)) != EX_OK)
		return rc;
	if (m.down != NULL)
		return cmd_mail_down(&m);
	cmd_sync_before(&m, &before);
	if (imap_conn_sync(m.conn, m.folder, &st, &cause) != IMAP_OPS_OK) {
		cmd_error("%s: %s", m.folder, cause);
		free(cause);
		cmd_mail_close(&m);
		return EX_TEMPFAIL;
	}
	printf("%u message%s\n", st.mb.count, st.mb.count == 1 ? "" : "s");
	if (st.unchanged)
		fprintf(stderr, "steedmail: %s: nothing changed\n", m.folder);
	else
		fprintf(stderr, "steedmail: %s: %u new, %u flag updates, %u "
		    "expunged\n", m.folder, st.fetched, st.flags_changed,
		    st.expunged);
	fflush(stdout);
	send_crash_point("synced");
	cmd_sync_trust(ctx, &m, &before, &st, 1);
	cmd_mail_close(&m);
	return EX_OK;
}

static void
cmd_list_field(struct buf *b, const char *s)
{
	if (s == NULL || *s == '\0')
		buf_addc(b, '-');
	else
		strsafe_add(b, s, strlen(s), 0);	/* escapes TAB too */
}

static int
cmd_list_one(const struct cache_msg *msg, void *arg)
{
	struct buf	*b = arg;
	struct tm	 tm;
	char		 when[32];

	localtime_r(&msg->internaldate, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
	buf_reset(b);
	buf_addf(b, "%u\t%s\t%s\t", msg->uid,
	    msg->flags[0] != '\0' ? msg->flags : "-", when);
	cmd_list_field(b, msg->from);
	buf_addc(b, '\t');
	cmd_list_field(b, msg->subject);
	buf_addc(b, '\n');
	fwrite(b->data, 1, b->len, stdout);
	return 0;
}

static int
cmd_list_print(struct cmd_mail *m, const struct cache_mailbox *mb)
{
	struct buf	 b;
	char		*cause = NULL;
	int		 rc = EX_OK;

	buf_init(&b);
	if (cache_each(m->cache, mb, cmd_list_one, &b, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		rc = EX_SOFTWARE;
	}
	buf_free(&b);
	return rc;
}

/* The server is out of reach: the cached copy, if there is one, and 75. */
static int
cmd_list_cached(struct cmd_mail *m, const char *why)
{
	struct cache_mailbox	 mb;
	char			*cause = NULL;
	int			 rc;

	if ((rc = cache_mailbox_find(m->cache, m->folder, &mb,
	    &cause)) == -1) {
		cmd_error("%s", cause);
		free(cause);
	}
	if (rc != 1) {
		cmd_error("%s: %s", m->folder, why);
		return EX_TEMPFAIL;
	}
	cmd_error("%s: showing the cached copy (%s)", m->folder, why);
	cmd_list_print(m, &mb);
	return EX_TEMPFAIL;
}

int
cmd_list(struct cmd_ctx *ctx)
{
	struct cmd_mail		 m;
	struct imap_sync_stats	 st;
	struct cache_mailbox	 before;
	char			*cause = NULL;
	int			 rc;

	if ((rc = cmd_mail_open(ctx, &m, ctx->argc > 0 ? ctx->argv[0] :
	    NULL)) != EX_OK)
		return rc;
	cmd_sync_before(&m, &before);
	if (m.down != NULL)
		rc = cmd_list_cached(&m, m.down);
	else if ((rc = imap_conn_sync(m.conn, m.folder, &st, &cause)) ==
	    IMAP_OPS_LOST) {
		rc = cmd_list_cached(&m, cause);
		free(cause);
	} else if (rc != IMAP_OPS_OK) {
		cmd_error("%s: %s", m.folder, cause);
		free(cause);
		rc = EX_TEMPFAIL;
	} else {
		/* What this sync stores, the next one does not see as new. */
		cmd_sync_trust(ctx, &m, &before, &st, 0);
		rc = cmd_list_print(&m, &st.mb);
	}
	cmd_mail_close(&m);
	return rc;
}

int
cmd_fetch(struct cmd_ctx *ctx)
{
	struct cmd_mail		 m;
	struct buf		 b, safe;
	uint32_t		 uid;
	char			*cause = NULL;
	int			 rc;

	if (ctx->argc < 1 || ctx->argc > 2) {
		cmd_error("usage: steedmail --fetch UID [FOLDER]");
		return EX_USAGE;
	}
	if ((uid = cmd_uid("--fetch", ctx->argv[0])) == 0)
		return EX_USAGE;
	if ((rc = cmd_mail_open(ctx, &m, ctx->argc > 1 ? ctx->argv[1] :
	    NULL)) != EX_OK)
		return rc;
	if (m.down != NULL)
		return cmd_mail_down(&m);
	buf_init(&b);
	if ((rc = imap_conn_fetch(m.conn, m.folder, uid, ctx->part, &b,
	    &cause)) != IMAP_OPS_OK) {
		cmd_error("%s: %s", m.folder, cause);
		free(cause);
		rc = cmd_mail_exit(rc);
	} else if (isatty(STDOUT_FILENO)) {
		/* Raw bytes are for pipes; a terminal gets them escaped. */
		buf_init(&safe);
		strsafe_add(&safe, b.data, b.len, STRSAFE_KEEP_NL);
		fwrite(safe.data, 1, safe.len, stdout);
		buf_free(&safe);
	} else if (fwrite(b.data, 1, b.len, stdout) != b.len ||
	    fflush(stdout) != 0) {
		cmd_error("cannot write the message to standard output");
		rc = EX_IOERR;
	}
	buf_free(&b);
	cmd_mail_close(&m);
	return rc;
}

/*
 * --idle: one line for the first change ("new mail" before "expunged"
 * before "flags changed") and 0, or "timeout" and 1, so that a script can
 * loop on it or test it.
 */
int
cmd_idle(struct cmd_ctx *ctx)
{
	struct cmd_mail		 m;
	struct imap_idle_how	 how;
	unsigned		 events;
	char			*cause = NULL;
	int			 rc;

	if ((rc = cmd_mail_open(ctx, &m, ctx->argc > 0 ? ctx->argv[0] :
	    NULL)) != EX_OK)
		return rc;
	if (m.down != NULL)
		return cmd_mail_down(&m);
	memset(&how, 0, sizeof how);
	how.timeout = ctx->timeout > 0 ? ctx->timeout : CMD_IDLE_TIMEOUT;
	if ((rc = imap_conn_idle(m.conn, m.folder, &how, &events,
	    &cause)) != IMAP_OPS_OK) {
		cmd_error("%s: %s", m.folder, cause);
		free(cause);
		cmd_mail_close(&m);
		return cmd_mail_exit(rc);
	}
	if (events & IMAP_IDLE_EXISTS)
		puts("new mail");
	else if (events & IMAP_IDLE_EXPUNGE)
		puts("expunged");
	else if (events & IMAP_IDLE_FETCH)
		puts("flags changed");
	else {
		puts("timeout");
		rc = 1;
	}
	if (fflush(stdout) != 0)
		rc = EX_IOERR;
	cmd_mail_close(&m);
	return rc;
}
