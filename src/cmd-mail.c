/*
 * cmd-mail.c: the reading commands for scripts: --sync, --list and
 * --fetch. Each logs in to the account's IMAP server, brings the header
 * cache of the folder up to date, and answers from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cache.h"
#include "cmd.h"
#include "imap-mailbox.h"
#include "imap-session.h"
#include "imap-sync.h"
#include "password.h"
#include "strsafe.h"
#include "xmalloc.h"

struct cmd_mail {
	struct account	*a;
	mailimap	*imap;
	struct cache	*cache;
	const char	*folder;
};

static int
cmd_mail_open(struct cmd_ctx *ctx, struct cmd_mail *m, int want_cache)
{
	char	*pw, *cause = NULL;

	memset(m, 0, sizeof *m);
	m->folder = ctx->argc > 0 ? ctx->argv[0] : "INBOX";
	if ((m->a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (want_cache && (m->cache = cache_open(m->a->id, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		return EX_CANTCREAT;
	}
	if ((pw = password_get(m->a, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		cache_close(m->cache);
		return EX_CONFIG;
	}
	m->imap = imap_session_open(m->a, m->a->ca_file != NULL ?
	    m->a->ca_file : ctx->cf->ca_file, pw, &cause);
	freezero_str(pw);
	if (m->imap == NULL) {
		cmd_error("%s", cause);
		free(cause);
		cache_close(m->cache);
		return EX_UNAVAILABLE;
	}
	return EX_OK;
}

static void
cmd_mail_close(struct cmd_mail *m)
{
	if (m->imap != NULL)
		imap_session_close(m->imap);
	cache_close(m->cache);
}

static int
cmd_mail_sync(struct cmd_mail *m, struct imap_sync_stats *st)
{
	char	*cause = NULL;

	if (imap_sync(m->imap, m->cache, m->folder, st, &cause) == -1) {
		cmd_error("%s: %s", m->folder, cause);
		free(cause);
		return EX_TEMPFAIL;
	}
	return EX_OK;
}

int
cmd_sync(struct cmd_ctx *ctx)
{
	struct cmd_mail		m;
	struct imap_sync_stats	st;
	int			rc;

	if ((rc = cmd_mail_open(ctx, &m, 1)) != EX_OK)
		return rc;
	if ((rc = cmd_mail_sync(&m, &st)) == EX_OK) {
		printf("%u message%s\n", st.mb.count,
		    st.mb.count == 1 ? "" : "s");
		if (st.unchanged)
			fprintf(stderr, "steedmail: %s: nothing changed\n",
			    m.folder);
		else
			fprintf(stderr, "steedmail: %s: %u new, %u flag "
			    "updates, %u expunged\n", m.folder, st.fetched,
			    st.flags_changed, st.expunged);
	}
	cmd_mail_close(&m);
	return rc;
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

int
cmd_list(struct cmd_ctx *ctx)
{
	struct cmd_mail		m;
	struct imap_sync_stats	st;
	struct buf		b;
	char			*cause = NULL;
	int			rc;

	if ((rc = cmd_mail_open(ctx, &m, 1)) != EX_OK)
		return rc;
	if ((rc = cmd_mail_sync(&m, &st)) == EX_OK) {
		buf_init(&b);
		if (cache_each(m.cache, &st.mb, cmd_list_one, &b,
		    &cause) == -1) {
			cmd_error("%s", cause);
			free(cause);
			rc = EX_SOFTWARE;
		}
		buf_free(&b);
	}
	cmd_mail_close(&m);
	return rc;
}

int
cmd_fetch(struct cmd_ctx *ctx)
{
	struct cmd_mail		 m;
	struct buf		 b, safe;
	unsigned long		 uid;
	char			*end, *cause = NULL;
	int			 rc;

	if (ctx->argc < 1 || ctx->argc > 2) {
		cmd_error("usage: steedmail --fetch UID [FOLDER]");
		return EX_USAGE;
	}
	uid = strtoul(ctx->argv[0], &end, 10);
	if (*ctx->argv[0] == '\0' || *end != '\0' || uid == 0 ||
	    uid > 0xffffffffUL) {
		cmd_error("--fetch: \"%s\" is not a UID", ctx->argv[0]);
		return EX_USAGE;
	}
	ctx->argc--;
	ctx->argv++;
	if ((rc = cmd_mail_open(ctx, &m, 0)) != EX_OK)
		return rc;
	buf_init(&b);
	if (imap_mailbox_fetch(m.imap, m.folder, (uint32_t)uid, &b,
	    &cause) == -1) {
		cmd_error("%s: %s", m.folder, cause);
		free(cause);
		rc = EX_UNAVAILABLE;
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
