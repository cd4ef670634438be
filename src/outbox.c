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
#include "outbox.h"
#include "paths.h"
#include "xmalloc.h"

char *
outbox_dir(char **cause)
{
	return paths_data_subdir("outbox", cause);
}

static int
outbox_sync_dir(const char *dir)
{
	int	fd, rc;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Write data to DIR/NAME durably: temporary file, fsync, rename. */
static int
outbox_write_file(const char *dir, const char *name, const char *data,
    size_t len, char **cause)
{
	char	*tmp, *path;
	int	 fd = -1;
	size_t	 off = 0;
	ssize_t	 n;

	tmp = xasprintf("%s/.tmp-%s", dir, name);
	path = xasprintf("%s/%s", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1)
		goto fail;
	while (off < len) {
		n = write(fd, data + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		off += n;
	}
	if (fsync(fd) == -1 || close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) == -1 || outbox_sync_dir(dir) == -1)
		goto fail;
	free(tmp);
	free(path);
	return 0;

fail:
	*cause = xasprintf("cannot write %s: %s", path, strerror(errno));
	if (fd != -1)
		close(fd);
	unlink(tmp);
	free(tmp);
	free(path);
	return -1;
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

int
outbox_queue(const char *dir, const char *account, const char *from,
    char *const *rcpts, size_t nrcpts, const char *msg, size_t len,
    char **id, char **cause)
{
	struct buf	 env;
	char		*name, *newid;
	size_t		 i;
	int		 rc;

	if (!outbox_clean(account) || !outbox_clean(from) || nrcpts == 0) {
		*cause = xstrdup("bad envelope for the outbox");
		return -1;
	}
	buf_init(&env);
	buf_addf(&env, "account %s\nfrom %s\n", account, from);
	for (i = 0; i < nrcpts; i++) {
		if (!outbox_clean(rcpts[i])) {
			buf_free(&env);
			*cause = xstrdup("bad recipient for the outbox");
			return -1;
		}
		buf_addf(&env, "rcpt %s\n", rcpts[i]);
	}
	newid = outbox_new_id();
	name = xasprintf("%s.msg", newid);
	rc = outbox_write_file(dir, name, msg, len, cause);
	free(name);
	if (rc == 0) {
		name = xasprintf("%s.env", newid);
		rc = outbox_write_file(dir, name, env.data, env.len, cause);
		free(name);
		if (rc == -1) {
			name = xasprintf("%s/%s.msg", dir, newid);
			unlink(name);
			free(name);
		}
	}
	buf_free(&env);
	if (rc == -1) {
		free(newid);
		return -1;
	}
	*id = newid;
	return 0;
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
/* .draft: the compose screen's copy of the draft, to edit it again */
static const char *outbox_exts[] = { "env", "msg", "accepted", "saved",
    "draft" };

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
	outbox_sync_dir(dir);
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
	outbox_sync_dir(fdir);
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

	if (strchr(id, '/') != NULL || *id == '.') {
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
