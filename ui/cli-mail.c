/*
 * cli-mail.c: the reading commands for scripts: --sync, --list, --fetch,
 * --idle and --folders, on an account's session (session.h): argument
 * handling and output. --list falls back to the header cache when the
 * server cannot be reached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "addr-show.h"
#include "buf.h"
#include "cache.h"
#include "cli.h"
#include "index.h"
#include "log.h"
#include "search-query.h"
#include "session-search.h"
#include "send.h"
#include "session.h"
#include "strsafe.h"
#include "verdict.h"
#include "xmalloc.h"

#define CMD_IDLE_TIMEOUT	300	/* seconds --idle waits by default */

/* The folder operand at index i, or INBOX. */
static const char *
cmd_mail_folder(struct cmd_ctx *ctx, int i)
{
	return ctx->argc > i ? ctx->argv[i] : "INBOX";
}

/*
 * After a sync: the messages it found new into the trust store. This
 * never fails the sync; what went wrong is a warning. With report
 * (--sync), every one of them, and one line says what was done.
 */
static void
cmd_sync_trust(struct session *s, const char *folder,
    const struct session_sync *ss, int report)
{
	struct sync_trust_stats	ts, more;
	int			left = 0, rc;

	rc = session_trust(s, folder, ss, &ts);
	/*
	 * --sync goes on with what it, or an earlier run, left behind (older
	 * than the newest sync-trust-limit): every one, the newest first.
	 * --list lists after the newest; the rest wait for the next --sync
	 * or the interface.
	 */
	while (report && rc == IMAP_OPS_OK && (rc = session_trust_more(s, folder, 0,
	    &more, &left)) == IMAP_OPS_OK) {
		ts.processed += more.processed;
		ts.known += more.known;
		ts.skipped += more.skipped;
		if (!left)
			break;
	}
	/* Nothing that could carry evidence: nothing to say. */
	if (report && ts.processed + ts.known + ts.skipped > 0) {
		fprintf(stderr, "steedmail: %s: trust: %u message%s "
		    "processed", folder, ts.processed,
		    ts.processed == 1 ? "" : "s");
		if (ts.known > 0)
			fprintf(stderr, ", %u processed before", ts.known);
		if (ts.skipped > 0)
			fprintf(stderr, ", %u skipped", ts.skipped);
		fputc('\n', stderr);
	}
}

/* body-prefetch-days: the newest mail into the body cache, said. */
static void
cmd_sync_prefetch(struct session *s, const char *folder)
{
	size_t	 fetched;
	char	*cause = NULL;

	if (session_prefetch(s, folder, &fetched, &cause) != IMAP_OPS_OK) {
		cmd_error("warning: %s: %s", folder, cause != NULL ? cause :
		    "messages not fetched for offline reading");
		free(cause);
	}
	if (fetched > 0)
		fprintf(stderr, "steedmail: %s: %zu message%s fetched for "
		    "reading offline\n", folder, fetched,
		    fetched == 1 ? "" : "s");
}

int
cmd_sync(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_sync	 ss;
	const char		*folder = cmd_mail_folder(ctx, 0);
	char			*cause = NULL;
	int			 rc;

	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		return cmd_down(s, NULL);
	if (session_sync(s, folder, &ss, &cause) != IMAP_OPS_OK) {
		cmd_error("%s: %s", folder, cause);
		free(cause);
		session_close(s);
		return EX_TEMPFAIL;
	}
	printf("%u message%s\n", ss.st.mb.count, ss.st.mb.count == 1 ? "" :
	    "s");
	if (ss.st.unchanged)
		fprintf(stderr, "steedmail: %s: nothing changed\n", folder);
	else
		fprintf(stderr, "steedmail: %s: %u new, %u flag updates, %u "
		    "expunged\n", folder, ss.st.fetched, ss.st.flags_changed,
		    ss.st.expunged);
	fflush(stdout);
	send_crash_point("synced");
	cmd_sync_trust(s, folder, &ss, 1);
	cmd_sync_prefetch(s, folder);
	session_close(s);
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

/* One message as --list prints it, after prefix (a folder's, or ""). */
static void
cmd_list_one(const struct index_row *msg, const char *prefix, struct buf *b)
{
	struct tm	 tm;
	char		 when[32], *from;
	int		 warn;

	localtime_r(&msg->arrival, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
	buf_reset(b);
	buf_adds(b, prefix);
	buf_addf(b, "%u\t%s\t%s\t", msg->uid,
	    msg->flags[0] != '\0' ? msg->flags : "-", when);
	/* the sender as the index shows it: a name that could mislead
	 * gives way to the address (addr_show_sender()) */
	from = addr_show_sender(msg->from_name, msg->from_addr, &warn);
	cmd_list_field(b, from);
	free(from);
	buf_addc(b, '\t');
	cmd_list_field(b, msg->sealed ? INDEX_SEALED_SUBJECT : msg->subject);
	/* The DNS indicators, only when there is one. */
	if (msg->trust == TRUST_DNS_CONFIRMED || msg->dns_bogus)
		buf_addf(b, "\t%s%s%s", msg->trust == TRUST_DNS_CONFIRMED ?
		    verdict_trust(TRUST_DNS_CONFIRMED)->token : "",
		    msg->trust == TRUST_DNS_CONFIRMED && msg->dns_bogus ? " " :
		    "", msg->dns_bogus ? verdict_dns_bogus()->token : "");
	buf_addc(b, '\n');
	fwrite(b->data, 1, b->len, stdout);
}

static int
cmd_uid_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The folder's index as v sorts and limits it, a page at a time, each
 * line after prefix (NULL: none). The UIDs of a search (v->uids) whose
 * headers the cache does not hold (the server found them, and no sync
 * has fetched them) are printed after, the UID alone.
 */
static int
cmd_list_print(struct session *s, const char *folder,
    const struct index_view *v, const char *prefix)
{
	struct index		*ix;
	struct index_row	*rows;
	struct trust_store	*ts;
	struct buf		 b;
	size_t			 off = 0, n, i;
	uint32_t		*at;
	char			*cause = NULL, *printed;
	int			 rc = EX_OK;

	if ((ix = index_open(session_cache(s), folder, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		return EX_SOFTWARE;
	}
	if (v->limit != NULL && index_count(ix, v, &n, &cause) == -1) {
		cmd_error("--limit %s: %s", v->limit, cause);
		free(cause);
		index_close(ix);
		return EX_USAGE;
	}
	printed = xcalloc(v->nuids + 1, 1);
	/* Without the trust store the lines only lack its words. */
	if ((ts = trust_store_open(NULL, &cause)) == NULL) {
		log_msg(LOG_INFO, "list: no trust store: %s", cause);
		free(cause);
		cause = NULL;
	}
	buf_init(&b);
	do {
		if (index_page(ix, v, off, 1000, ts, &rows, &n,
		    &cause) == -1) {
			cmd_error("%s", cause);
			free(cause);
			rc = EX_SOFTWARE;
			break;
		}
		for (i = 0; i < n; i++) {
			cmd_list_one(&rows[i], prefix != NULL ? prefix : "",
			    &b);
			if (v->nuids > 0 && (at = bsearch(&rows[i].uid,
			    v->uids, v->nuids, sizeof *v->uids,
			    cmd_uid_cmp)) != NULL)
				printed[at - v->uids] = 1;
		}
		free(rows);
		off += n;
	} while (n > 0);
	for (i = 0; rc == EX_OK && i < v->nuids; i++)
		if (!printed[i])
			printf("%s%u\n", prefix != NULL ? prefix : "",
			    v->uids[i]);
	free(printed);
	buf_free(&b);
	trust_store_close(ts);
	index_close(ix);
	return rc;
}

/*
 * The server is out of reach: the cached copy, if there is one, and 75;
 * 0 when out of reach was asked for (--offline).
 */
static int
cmd_list_cached(struct session *s, const char *folder,
    const struct index_view *v, const char *why, int asked)
{
	struct cache_mailbox	 mb;
	char			*cause = NULL;
	int			 rc;

	if ((rc = cache_mailbox_find(session_cache(s), folder, &mb,
	    &cause)) == -1) {
		cmd_error("%s", cause);
		free(cause);
	}
	if (rc != 1) {
		cmd_error("%s: %s", folder, why);
		return EX_TEMPFAIL;
	}
	cmd_error("%s: showing the cached copy (%s)", folder, why);
	cmd_list_print(s, folder, v, NULL);
	return asked ? EX_OK : EX_TEMPFAIL;
}

int
cmd_list(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_sync	 ss;
	struct index_view	 v = { INDEX_SORT_ARRIVAL, 0, NULL, NULL, 0 };
	const char		*folder = cmd_mail_folder(ctx, 0);
	char			*cause = NULL;
	int			 rc;

	if (ctx->sort != NULL && index_sort_parse(ctx->sort, &v) == -1) {
		cmd_error("--sort %s: not an order (arrival, date, from, "
		    "subject, size, thread, or one of them after -)",
		    ctx->sort);
		return EX_USAGE;
	}
	v.limit = ctx->limit;
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		rc = cmd_list_cached(s, folder, &v, session_down(s),
		    ctx->cf->offline);
	else if ((rc = session_sync(s, folder, &ss, &cause)) ==
	    IMAP_OPS_LOST) {
		rc = cmd_list_cached(s, folder, &v, cause, 0);
		free(cause);
	} else if (rc != IMAP_OPS_OK) {
		cmd_error("%s: %s", folder, cause);
		free(cause);
		rc = EX_TEMPFAIL;
	} else {
		/* What this sync stores, the next one does not see as new. */
		cmd_sync_trust(s, folder, &ss, 0);
		rc = cmd_list_print(s, folder, &v, NULL);
	}
	session_close(s);
	return rc;
}

/* A failure of session-search.h as an exit status. */
static int
cmd_search_exit(int rc)
{
	switch (rc) {
	case SESSION_SEARCH_QUERY:
		return EX_USAGE;
	case SESSION_SEARCH_UNSYNCED:
	case SESSION_SEARCH_INDEX:
		return EX_UNAVAILABLE;
	default:
		return cmd_exit(rc);
	}
}

/*
 * The server was asked and could not answer: only the cached mail was
 * searched, which is said, and is 75 as for --list.
 */
static int
cmd_search_note(const char *what, char *note)
{
	if (note == NULL)
		return EX_OK;
	cmd_error("warning: %s: only the cached mail was searched: %s", what,
	    note);
	free(note);
	return EX_TEMPFAIL;
}

/*
 * --search QUERY --all-folders: every folder's matches, each line
 * "FOLDER<TAB>" and --list's line (or the UID alone, for a message whose
 * headers were never fetched), folder by folder.
 */
static int
cmd_search_folders(struct cmd_ctx *ctx, struct session *s)
{
	struct index_view	 v = { INDEX_SORT_ARRIVAL, 0, NULL, NULL, 0 };
	struct session_hit	*hits;
	struct buf		 prefix;
	size_t			 n, i, j, k;
	unsigned		 who;
	uint32_t		*uids;
	char			*cause = NULL, *folder;
	int			 rc, prc = EX_OK;

	if ((rc = session_search_folders(s, ctx->argv[0], &hits, &n, &who,
	    &cause)) != IMAP_OPS_OK) {
		cmd_error("--search %s: %s", ctx->argv[0], cause);
		free(cause);
		return cmd_search_exit(rc);
	}
	buf_init(&prefix);
	for (i = 0; i < n && prc == EX_OK; i = j) {
		for (j = i; j < n && strcmp(hits[j].folder, hits[i].folder) ==
		    0; j++)
			;
		uids = xcalloc(j - i, sizeof *uids);
		for (k = i; k < j; k++)
			uids[k - i] = hits[k].uid;
		folder = hits[i].folder;
		buf_reset(&prefix);
		strsafe_add(&prefix, folder, strlen(folder), 0);
		buf_addc(&prefix, '\t');
		buf_addc(&prefix, '\0');
		v.uids = uids;
		v.nuids = j - i;
		prc = cmd_list_print(s, folder, &v, prefix.data);
		free(uids);
	}
	buf_free(&prefix);
	session_search_hits_free(hits, n);
	rc = cmd_search_note("every folder", cause);
	return prc != EX_OK ? prc : rc;
}

/*
 * --search QUERY [FOLDER]: the full-text index brought up to date with
 * the body cache and, for plain words and unless --offline, the server
 * too (session_search_all(); the folder is synced first, as --list
 * does, so that what the server finds has its headers); the matching
 * messages as --list prints them. With --all-folders, in every folder.
 */
int
cmd_search(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct session_sync	 ss;
	struct search_query	 q;
	struct index_view	 v = { INDEX_SORT_ARRIVAL, 0, NULL, NULL, 0 };
	const char		*folder = cmd_mail_folder(ctx, 1);
	uint32_t		*uids = NULL;
	size_t			 n = 0;
	unsigned		 who;
	char			*cause = NULL;
	int			 rc, note;

	if (ctx->argc < 1 || ctx->argc > (ctx->all_folders ? 1 : 2)) {
		cmd_error("usage: steedmail --search QUERY [FOLDER | "
		    "--all-folders]");
		return EX_USAGE;
	}
	if (search_query_parse(ctx->argv[0], &q, &cause) == -1) {
		cmd_error("--search %s: %s", ctx->argv[0], cause);
		free(cause);
		return EX_USAGE;
	}
	search_query_free(&q);
	/* the language is the index's alone: no server, no password */
	if (!session_search_plain(ctx->argv[0]))
		ctx->cf->offline = 1;
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (ctx->all_folders) {
		rc = cmd_search_folders(ctx, s);
		session_close(s);
		return rc;
	}
	if (session_down(s) == NULL && session_search_plain(ctx->argv[0])) {
		if ((rc = session_sync(s, folder, &ss, &cause)) ==
		    IMAP_OPS_OK)
			cmd_sync_trust(s, folder, &ss, 0);
		else
			log_msg(LOG_INFO, "search: %s: not synced: %s", folder,
			    cause);
		free(cause);
		cause = NULL;
	}
	if ((rc = session_search_all(s, folder, ctx->argv[0], &uids, &n,
	    &who, &cause)) != IMAP_OPS_OK) {
		cmd_error("%s: %s", folder, cause);
		free(cause);
		session_close(s);
		return cmd_search_exit(rc);
	}
	note = cmd_search_note(folder, cause);
	/* an empty set means none, not all */
	if (n > 0) {
		v.uids = uids;
		v.nuids = n;
		rc = cmd_list_print(s, folder, &v, NULL);
	} else
		rc = EX_OK;
	free(uids);
	session_close(s);
	return rc != EX_OK ? rc : note;
}

int
cmd_fetch(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct buf		 b, safe;
	const char		*folder = cmd_mail_folder(ctx, 1);
	uint32_t		 uid;
	char			*cause = NULL;
	int			 rc;

	if (ctx->argc < 1 || ctx->argc > 2) {
		cmd_error("usage: steedmail --fetch UID [FOLDER]");
		return EX_USAGE;
	}
	if ((uid = cmd_uid("--fetch", ctx->argv[0])) == 0)
		return EX_USAGE;
	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	/* down, a message in the body cache still comes */
	buf_init(&b);
	if ((rc = session_fetch(s, folder, uid, ctx->part, &b,
	    &cause)) != IMAP_OPS_OK) {
		cmd_error("%s: %s", folder, cause);
		free(cause);
		rc = cmd_exit(rc);
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
	session_close(s);
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
	struct session		*s;
	const char		*folder = cmd_mail_folder(ctx, 0);
	unsigned		 events;
	char			*cause = NULL;
	int			 rc;

	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		return cmd_down(s, NULL);
	if ((rc = session_idle(s, folder, ctx->timeout > 0 ? ctx->timeout :
	    CMD_IDLE_TIMEOUT, 0, &events, &cause)) != IMAP_OPS_OK) {
		cmd_error("%s: %s", folder, cause);
		free(cause);
		session_close(s);
		return cmd_exit(rc);
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
	session_close(s);
	return rc;
}

/*
 * --folders: one line per folder the account can open: its name, how many
 * of its messages are unseen, how many there are; INBOX and the special
 * folders (Drafts, Sent, Archive, Flagged, Junk, Trash) first. A folder
 * the server would not count (STATUS failed) has "?" for both, and a
 * warning on standard error says why; the exit status stays 0.
 */
int
cmd_folders(struct cmd_ctx *ctx)
{
	struct session		*s;
	struct imap_folder	*f;
	struct buf		 b;
	size_t			 n, i;
	char			*cause = NULL;
	int			 rc;

	if ((rc = cmd_open(ctx, &s)) != EX_OK)
		return rc;
	if (session_down(s) != NULL)
		return cmd_down(s, NULL);
	if ((rc = session_folders(s, &f, &n, &cause)) != IMAP_OPS_OK) {
		cmd_error("%s", cause);
		free(cause);
		session_close(s);
		return cmd_exit(rc);
	}
	buf_init(&b);
	for (i = 0; i < n; i++) {
		buf_reset(&b);
		cmd_list_field(&b, f[i].name);
		if (f[i].status_error != NULL)
			buf_adds(&b, "\t?\t?\n");
		else
			buf_addf(&b, "\t%u\t%u\n", f[i].unseen, f[i].total);
		fwrite(b.data, 1, b.len, stdout);
	}
	buf_free(&b);
	/* a folder the server would not count is listed, and said here */
	for (i = 0; i < n; i++)
		if (f[i].status_error != NULL)
			cmd_print(stderr, "steedmail: warning: ",
			    "folder %s not counted: %s", f[i].name,
			    f[i].status_error);
	imap_mailbox_list_free(f, n);
	if (fflush(stdout) != 0)
		rc = EX_IOERR;
	session_close(s);
	return rc;
}
