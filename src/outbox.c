/*
 * outbox.c: the durable outbox of outbox.h.
 *
 * Each entry ID is a set of files in the outbox directory:
 *   ID.msg       the message, exactly as it will be submitted
 *   ID.env       the envelope: account, sender, recipients. Its rename into
 *                place is the moment the message counts as queued, so it
 *                is written after ID.msg is safely on disk.
 *   ID.accepted  the submission server's reply to DATA: written, synced,
 *                before anything else happens after the server said yes
 *   ID.saved     the copy in Sent exists
 *   ID.draft     the draft the message was made from, when it was kept:
 *                the compose screen's (e edits it again), or a held
 *                entry's (what is decided and sent once DNS answers)
 *   ID.held      a held entry: "since SECONDS", "opts WORDS", "why TEXT"
 *                lines. It counts only while there is no ID.msg: the
 *                release writes ID.msg first, then removes ID.held, so a
 *                crash between the two leaves an entry that is queued.
 * Files are written to a temporary name, fsync'd, renamed, and the
 * directory fsync'd, so that each state survives a crash or power loss.
 */
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "atomic.h"
#include "outbox.h"
#include "paths.h"
#include "xmalloc.h"

char *
outbox_dir(char **cause)
{
	return paths_data_subdir("outbox", cause);
}

/* Write data to DIR/NAME durably (atomic.h). */
static int
outbox_write_file(const char *dir, const char *name, const char *data,
    size_t len, char **cause)
{
	char	*path;
	int	 rc;

	path = xasprintf("%s/%s", dir, name);
	rc = atomic_write(path, data, len, cause);
	free(path);
	return rc;
}

static char *
outbox_new_id(void)
{
	unsigned char	r[6];
	char		stamp[32];
	time_t		now = time(NULL);
	struct tm	tm;

	if (getrandom(r, sizeof r, 0) != sizeof r)
		fatal("getrandom failed");
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	return xasprintf("%s-%02x%02x%02x%02x%02x%02x", stamp, r[0], r[1],
	    r[2], r[3], r[4], r[5]);
}

/* Envelope lines: "account X", "from X", "rcpt X". No CR or LF inside. */
static int
outbox_clean(const char *s)
{
	return strpbrk(s, "\r\n") == NULL && *s != '\0';
}

/* The lines of ID.env, or -1 with *cause. */
static int
outbox_envelope(const char *account, const char *from, char *const *rcpts,
    size_t nrcpts, struct buf *env, char **cause)
{
	size_t	i;

	buf_init(env);
	if (!outbox_clean(account) || !outbox_clean(from) || nrcpts == 0) {
		*cause = xstrdup("bad envelope for the outbox");
		return -1;
	}
	buf_addf(env, "account %s\nfrom %s\n", account, from);
	for (i = 0; i < nrcpts; i++) {
		if (!outbox_clean(rcpts[i])) {
			buf_free(env);
			*cause = xstrdup("bad recipient for the outbox");
			return -1;
		}
		buf_addf(env, "rcpt %s\n", rcpts[i]);
	}
	return 0;
}

/* Remove DIR/ID.ext, whatever it is. */
static void
outbox_unlink(const char *dir, const char *id, const char *ext)
{
	char	*p = xasprintf("%s/%s.%s", dir, id, ext);

	unlink(p);
	free(p);
}

/* Write DIR/ID.ext durably. */
static int
outbox_put(const char *dir, const char *id, const char *ext,
    const char *data, size_t len, char **cause)
{
	char	*name = xasprintf("%s.%s", id, ext);
	int	 rc;

	rc = outbox_write_file(dir, name, data, len, cause);
	free(name);
	return rc;
}

int
outbox_queue(const char *dir, const char *account, const char *from,
    char *const *rcpts, size_t nrcpts, const char *msg, size_t len,
    char **id, char **cause)
{
	struct buf	 env;
	char		*newid;
	int		 rc;

	if (outbox_envelope(account, from, rcpts, nrcpts, &env, cause) == -1)
		return -1;
	newid = outbox_new_id();
	rc = outbox_put(dir, newid, "msg", msg, len, cause);
	if (rc == 0) {
		rc = outbox_put(dir, newid, "env", env.data, env.len, cause);
		if (rc == -1)
			outbox_unlink(dir, newid, "msg");
	}
	buf_free(&env);
	if (rc == -1) {
		free(newid);
		return -1;
	}
	*id = newid;
	return 0;
}

/* The text of ID.held: one line each, no line break inside. */
static char *
outbox_held_text(long long since, const char *opts, const char *why)
{
	char	*w, *o, *p, *text;

	w = xstrdup(why != NULL ? why : "");
	o = xstrdup(opts != NULL ? opts : "");
	for (p = w; *p != '\0'; p++)
		if (*p == '\r' || *p == '\n')
			*p = ' ';
	for (p = o; *p != '\0'; p++)
		if (*p == '\r' || *p == '\n')
			*p = ' ';
	text = xasprintf("since %lld\nopts %s\nwhy %s\n", since, o, w);
	free(w);
	free(o);
	return text;
}

int
outbox_hold(const char *dir, const char *account, const char *from,
    char *const *rcpts, size_t nrcpts, const char *draft, size_t len,
    const char *opts, const char *why, char **id, char **cause)
{
	struct buf	 env;
	char		*newid, *held;
	int		 rc;

	if (outbox_envelope(account, from, rcpts, nrcpts, &env, cause) == -1)
		return -1;
	newid = outbox_new_id();
	held = outbox_held_text((long long)time(NULL), opts, why);
	/* the draft and why it waits first: the envelope makes it count */
	rc = outbox_put(dir, newid, "draft", draft, len, cause);
	if (rc == 0)
		rc = outbox_put(dir, newid, "held", held, strlen(held), cause);
	if (rc == 0)
		rc = outbox_put(dir, newid, "env", env.data, env.len, cause);
	if (rc == -1) {
		outbox_unlink(dir, newid, "held");
		outbox_unlink(dir, newid, "draft");
		free(newid);
	} else
		*id = newid;
	free(held);
	buf_free(&env);
	return rc;
}

int
outbox_hold_note(const char *dir, struct outbox_entry *e, const char *why,
    char **cause)
{
	char	*held;
	int	 rc;

	held = outbox_held_text(e->held_since, e->held_opts, why);
	rc = outbox_put(dir, e->id, "held", held, strlen(held), cause);
	free(held);
	if (rc == 0) {
		free(e->held_why);
		e->held_why = xstrdup(why);
	}
	return rc;
}

int
outbox_release(const char *dir, struct outbox_entry *e, const char *msg,
    size_t len, char **cause)
{
	char	*p;

	if (outbox_put(dir, e->id, "msg", msg, len, cause) == -1)
		return -1;
	p = xasprintf("%s/%s.held", dir, e->id);
	if (unlink(p) == -1 && errno != ENOENT) {
		/* ID.msg is there: the entry is queued all the same */
		log_msg(LOG_ERROR, "outbox: cannot remove %s: %s", p,
		    strerror(errno));
	}
	free(p);
	atomic_sync_dir(dir);
	e->held = 0;
	return 0;
}

char *
outbox_draft_path(const char *dir, const struct outbox_entry *e)
{
	return xasprintf("%s/%s.draft", dir, e->id);
}

char *
outbox_msg_path(const char *dir, const struct outbox_entry *e)
{
	if (e->held)
		return outbox_draft_path(dir, e);
	return xasprintf("%s/%s.msg", dir, e->id);
}

int
outbox_keep_draft(const char *dir, const char *id, const char *draft,
    size_t len, char **cause)
{
	if (!outbox_valid_id(id)) {
		*cause = xstrdup("not an outbox entry");
		return -1;
	}
	return outbox_put(dir, id, "draft", draft, len, cause);
}

/* DIR/ID.draft, or DIR/failed/ID.draft. */
static char *
outbox_kept_draft(const char *dir, const char *id, int failed)
{
	return xasprintf("%s%s/%s.draft", dir, failed ? "/failed" : "", id);
}

int
outbox_move_draft(const char *dir, const char *id, int failed,
    const char *to, char **cause)
{
	struct stat	 sb;
	char		*from, *tdir, *slash;

	if (!outbox_valid_id(id)) {
		*cause = xstrdup("not an outbox entry");
		return -1;
	}
	from = outbox_kept_draft(dir, id, failed);
	if (stat(from, &sb) == -1) {
		free(from);
		return 1;
	}
	if (rename(from, to) == -1) {
		*cause = xasprintf("cannot move %s: %s", from,
		    strerror(errno));
		free(from);
		return -1;
	}
	free(from);
	tdir = xstrdup(to);
	if ((slash = strrchr(tdir, '/')) != NULL) {
		*slash = '\0';
		atomic_sync_dir(tdir);
	}
	free(tdir);
	tdir = xasprintf("%s%s", dir, failed ? "/failed" : "");
	atomic_sync_dir(tdir);
	free(tdir);
	return 0;
}

int
outbox_has_draft(const char *dir, const char *id, int failed)
{
	struct stat	 sb;
	char		*p;
	int		 yes;

	if (!outbox_valid_id(id))
		return 0;
	p = outbox_kept_draft(dir, id, failed);
	yes = stat(p, &sb) == 0;
	free(p);
	return yes;
}

void
outbox_unmove_draft(const char *dir, const char *id, int failed,
    const char *from)
{
	char	*to;

	if (!outbox_valid_id(id))
		return;
	to = outbox_kept_draft(dir, id, failed);
	if (rename(from, to) == -1)
		unlink(from);
	free(to);
}

int
outbox_valid_id(const char *id)
{
	return *id != '\0' && *id != '.' && strchr(id, '/') == NULL;
}

static int
outbox_exists(const char *dir, const char *id, const char *ext)
{
	char		*p = xasprintf("%s/%s.%s", dir, id, ext);
	struct stat	 sb;
	int		 rc = stat(p, &sb) == 0;

	free(p);
	return rc;
}

static void	outbox_free_entry(struct outbox_entry *);

/* A held entry's ID.held: since, opts and why into e. */
static void
outbox_read_held(const char *dir, struct outbox_entry *e)
{
	char	*path, line[2048];
	FILE	*f;
	size_t	 n;

	path = xasprintf("%s/%s.held", dir, e->id);
	if ((f = fopen(path, "r")) == NULL) {
		free(path);
		return;
	}
	free(path);
	while (fgets(line, sizeof line, f) != NULL) {
		n = strcspn(line, "\n");
		line[n] = '\0';
		if (strncmp(line, "since ", 6) == 0)
			e->held_since = strtoll(line + 6, NULL, 10);
		else if (strncmp(line, "opts ", 5) == 0 && e->held_opts == NULL)
			e->held_opts = xstrdup(line + 5);
		else if (strncmp(line, "why ", 4) == 0 && e->held_why == NULL)
			e->held_why = xstrdup(line + 4);
	}
	fclose(f);
}

static struct outbox_entry *
outbox_read_env(const char *dir, const char *id, char **cause)
{
	struct outbox_entry	*e;
	char			*path, line[1024];
	FILE			*f;
	size_t			 n;

	path = xasprintf("%s/%s.env", dir, id);
	if ((f = fopen(path, "r")) == NULL) {
		*cause = xasprintf("cannot read %s: %s", path,
		    strerror(errno));
		free(path);
		return NULL;
	}
	e = xcalloc(1, sizeof *e);
	e->id = xstrdup(id);
	while (fgets(line, sizeof line, f) != NULL) {
		n = strcspn(line, "\n");
		line[n] = '\0';
		if (strncmp(line, "account ", 8) == 0 && e->account == NULL)
			e->account = xstrdup(line + 8);
		else if (strncmp(line, "from ", 5) == 0 && e->from == NULL)
			e->from = xstrdup(line + 5);
		else if (strncmp(line, "rcpt ", 5) == 0) {
			e->rcpts = xreallocarray(e->rcpts, e->nrcpts + 1,
			    sizeof *e->rcpts);
			e->rcpts[e->nrcpts++] = xstrdup(line + 5);
		}
	}
	fclose(f);
	if (e->account == NULL || e->from == NULL || e->nrcpts == 0) {
		*cause = xasprintf("%s is damaged (no account, sender or "
		    "recipient)", path);
		free(path);
		outbox_free_entry(e);
		return NULL;
	}
	free(path);
	e->accepted = outbox_exists(dir, id, "accepted");
	e->saved = outbox_exists(dir, id, "saved");
	e->held = !outbox_exists(dir, id, "msg") &&
	    outbox_exists(dir, id, "held");
	if (e->held)
		outbox_read_held(dir, e);
	return e;
}

static int
outbox_cmp(const void *a, const void *b)
{
	const struct outbox_entry *x = *(struct outbox_entry *const *)a;
	const struct outbox_entry *y = *(struct outbox_entry *const *)b;

	return strcmp(x->id, y->id);
}

int
outbox_list(const char *dir, struct outbox_entry ***entries, size_t *n,
    char **cause)
{
	DIR			 *d;
	struct dirent		 *de;
	struct outbox_entry	**v = NULL, *e;
	size_t			  count = 0, len;
	char			 *id, *why = NULL;

	if ((d = opendir(dir)) == NULL) {
		*cause = xasprintf("cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 5 ||
		    strcmp(de->d_name + len - 4, ".env") != 0)
			continue;
		id = xstrndup(de->d_name, len - 4);
		if ((e = outbox_read_env(dir, id, &why)) == NULL) {
			/* Leave a damaged entry where it is, for the user. */
			log_msg(LOG_ERROR, "outbox: %s", why);
			free(why);
			why = NULL;
			free(id);
			continue;
		}
		free(id);
		v = xreallocarray(v, count + 1, sizeof *v);
		v[count++] = e;
	}
	closedir(d);
	if (count > 0)
		qsort(v, count, sizeof *v, outbox_cmp);
	*entries = v;
	*n = count;
	return 0;
}

static void
outbox_free_entry(struct outbox_entry *e)
{
	size_t	i;

	free(e->id);
	free(e->account);
	free(e->from);
	for (i = 0; i < e->nrcpts; i++)
		free(e->rcpts[i]);
	free(e->rcpts);
	free(e->held_opts);
	free(e->held_why);
	free(e);
}

void
outbox_free_entries(struct outbox_entry **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		outbox_free_entry(v[i]);
	free(v);
}

int
outbox_read(const char *dir, const struct outbox_entry *e, struct buf *msg,
    char **cause)
{
	char	*path;

	path = xasprintf("%s/%s.msg", dir, e->id);
	buf_reset(msg);
	if (buf_read_file(msg, path, SIZE_MAX) == -1) {
		*cause = xasprintf("cannot read %s: %s", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

int
outbox_mark_accepted(const char *dir, struct outbox_entry *e,
    const char *reply, char **cause)
{
	char	*name = xasprintf("%s.accepted", e->id);
	char	*text = xasprintf("%s\n", reply != NULL ? reply : "");
	int	 rc;

	rc = outbox_write_file(dir, name, text, strlen(text), cause);
	free(name);
	free(text);
	if (rc == 0)
		e->accepted = 1;
	return rc;
}

int
outbox_mark_saved(const char *dir, struct outbox_entry *e, char **cause)
{
	char	*name = xasprintf("%s.saved", e->id);
	int	 rc;

	rc = outbox_write_file(dir, name, "", 0, cause);
	free(name);
	if (rc == 0)
		e->saved = 1;
	return rc;
}

/*
 * The .env file goes first: once it is gone the entry no longer counts as
 * queued, whatever else a crash leaves behind.
 */
/* .draft: the draft, to edit it again or (held) to decide it */
static const char *outbox_exts[] = { "env", "msg", "accepted", "saved",
    "draft", "held" };

int
outbox_remove(const char *dir, const struct outbox_entry *e, char **cause)
{
	char	*p;
	size_t	 i;

	for (i = 0; i < sizeof outbox_exts / sizeof outbox_exts[0]; i++) {
		p = xasprintf("%s/%s.%s", dir, e->id, outbox_exts[i]);
		if (unlink(p) == -1 && errno != ENOENT) {
			*cause = xasprintf("cannot remove %s: %s", p,
			    strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	atomic_sync_dir(dir);
	return 0;
}

char *
outbox_fail(const char *dir, const struct outbox_entry *e, const char *reason,
    char **cause)
{
	char	*fdir, *from, *to, *name;

	fdir = xasprintf("%s/failed", dir);
	if (paths_mkdirs(fdir, 0700, cause) == -1) {
		free(fdir);
		return NULL;
	}
	name = xasprintf("%s.reason", e->id);
	if (outbox_write_file(fdir, name, reason, strlen(reason), cause)) {
		free(name);
		free(fdir);
		return NULL;
	}
	free(name);
	from = xasprintf("%s/%s.msg", dir, e->id);
	to = xasprintf("%s/%s.eml", fdir, e->id);
	if (e->held) {
		/*
		 * No message was made: the draft stands for it, and stays
		 * the draft too (e edits it).
		 */
		free(from);
		from = xasprintf("%s/%s.draft", dir, e->id);
		name = xasprintf("%s/%s.draft", fdir, e->id);
		unlink(name);
		if (link(from, name) == -1)
			log_msg(LOG_ERROR, "outbox: cannot keep %s as a "
			    "draft: %s", from, strerror(errno));
		free(name);
	}
	if (rename(from, to) == -1) {
		*cause = xasprintf("cannot move %s to %s: %s", from, to,
		    strerror(errno));
		free(from);
		free(to);
		free(fdir);
		return NULL;
	}
	free(from);
	/* the draft's copy, when there is one, goes along: e edits it */
	from = xasprintf("%s/%s.draft", dir, e->id);
	free(to);
	to = xasprintf("%s/%s.draft", fdir, e->id);
	if (rename(from, to) == -1 && errno != ENOENT)
		unlink(from);
	free(from);
	free(to);
	to = xasprintf("%s/%s.eml", fdir, e->id);
	atomic_sync_dir(fdir);
	free(fdir);
	if (outbox_remove(dir, e, cause) == -1) {
		free(to);
		return NULL;
	}
	return to;
}

static int
outbox_failed_cmp(const void *a, const void *b)
{
	return strcmp(((const struct outbox_failed *)a)->id,
	    ((const struct outbox_failed *)b)->id);
}

int
outbox_list_failed(const char *dir, struct outbox_failed **out, size_t *n,
    char **cause)
{
	DIR			*d;
	struct dirent		*de;
	struct outbox_failed	*v = NULL, *f;
	struct buf		 b;
	size_t			 count = 0, len;
	char			*fdir, *p;

	*out = NULL;
	*n = 0;
	fdir = xasprintf("%s/failed", dir);
	if ((d = opendir(fdir)) == NULL) {
		if (errno == ENOENT) {
			free(fdir);
			return 0;
		}
		*cause = xasprintf("cannot read %s: %s", fdir,
		    strerror(errno));
		free(fdir);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 5 ||
		    strcmp(de->d_name + len - 4, ".eml") != 0)
			continue;
		v = xreallocarray(v, count + 1, sizeof *v);
		f = &v[count++];
		f->id = xstrndup(de->d_name, len - 4);
		f->path = xasprintf("%s/%s", fdir, de->d_name);
		/* the reason is one line from a server: a little is enough */
		p = xasprintf("%s/%s.reason", fdir, f->id);
		buf_init(&b);
		if (buf_read_file(&b, p, 4096) == -1 || b.len == 0)
			f->reason = xstrdup("refused (no reason kept)");
		else
			f->reason = xstrndup(b.data, strcspn(b.data, "\r\n"));
		buf_free(&b);
		free(p);
	}
	closedir(d);
	free(fdir);
	if (count > 0)
		qsort(v, count, sizeof *v, outbox_failed_cmp);
	*out = v;
	*n = count;
	return 0;
}

void
outbox_free_failed(struct outbox_failed *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].reason);
		free(v[i].path);
	}
	free(v);
}

int
outbox_remove_failed(const char *dir, const char *id, char **cause)
{
	static const char	*exts[] = { "eml", "reason", "draft" };
	char			*p;
	size_t			 i;

	if (!outbox_valid_id(id)) {
		*cause = xstrdup("not an outbox entry");
		return -1;
	}
	for (i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		p = xasprintf("%s/failed/%s.%s", dir, id, exts[i]);
		if (unlink(p) == -1 && errno != ENOENT) {
			*cause = xasprintf("cannot remove %s: %s", p,
			    strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

/* Files named *ext in dir. */
static size_t
outbox_files(const char *dir, const char *ext)
{
	DIR		*d;
	struct dirent	*de;
	size_t		 n = 0, len, elen = strlen(ext);

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] != '.' && len > elen &&
		    strcmp(de->d_name + len - elen, ext) == 0)
			n++;
	}
	closedir(d);
	return n;
}

void
outbox_count(const char *dir, size_t *queued, size_t *failed)
{
	char	*fdir = xasprintf("%s/failed", dir);

	*queued = outbox_files(dir, ".env");
	*failed = outbox_files(fdir, ".eml");
	free(fdir);
}

int
outbox_lock(const char *dir, char **cause)
{
	char	*path = xasprintf("%s/.lock", dir);
	int	 fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd == -1) {
		*cause = xasprintf("cannot open %s: %s", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	if (flock(fd, LOCK_EX) == -1) {
		*cause = xasprintf("cannot lock the outbox: %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

void
outbox_unlock(int fd)
{
	if (fd != -1)
		close(fd);
}
