/*
 * outgoing.c: the outbox as the front ends see it (outgoing.h), on top of
 * outbox.c (its files), draft-store.c and draft-hold.c (queue, hold,
 * keep) and draft-protect.c. Nothing in the engine calls it.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "mime-header.h"
#include "outbox.h"
#include "outgoing.h"
#include "rfc2047.h"
#include "xmalloc.h"

#define OUTGOING_HEAD	16384	/* the header is in the first */

/* The entry's time from its id ("20261203T224950Z-..."); -1: none. */
static time_t
outgoing_when(const char *id)
{
	struct tm	tm;

	memset(&tm, 0, sizeof tm);
	if (strptime(id, "%Y%m%dT%H%M%SZ", &tm) == NULL)
		return (time_t)-1;
	return timegm(&tm);
}

/*
 * To and Subject from the message's own header. An encrypted message's
 * real Subject is inside; the outside says "..." (RFC 9788) or nothing.
 */
static void
outgoing_header(struct outgoing_entry *r)
{
	struct mime_header	 h;
	struct buf		 b;
	char			*v, *type;
	int			 fd;

	buf_init(&b);
	if ((fd = open(r->path, O_RDONLY | O_CLOEXEC)) != -1) {
		char	chunk[OUTGOING_HEAD];
		ssize_t	n = read(fd, chunk, sizeof chunk);

		if (n > 0)
			buf_add(&b, chunk, n);
		close(fd);
	}
	memset(&h, 0, sizeof h);
	mime_header_parse(&h, b.data != NULL ? b.data : "", b.len, 0);
	if ((type = mime_header_get(&h, "Content-Type", NULL)) != NULL) {
		r->encrypted = strcasestr(type, "multipart/encrypted") !=
		    NULL || strcasestr(type, "pkcs7-mime") != NULL;
		free(type);
	}
	if (r->to == NULL && (v = mime_header_get(&h, "To", NULL)) != NULL) {
		r->to = rfc2047_decode_str(v);
		free(v);
	}
	v = mime_header_get(&h, "Subject", NULL);
	if (v != NULL && !(r->encrypted && strcmp(v, "...") == 0))
		r->subject = rfc2047_decode_str(v);
	free(v);
	mime_header_free(&h);
	buf_free(&b);
}

static struct outgoing_entry *
outgoing_add(struct outgoing_entry **v, size_t *n, const char *id)
{
	struct outgoing_entry	*r;

	*v = xreallocarray(*v, *n + 1, sizeof **v);
	r = &(*v)[(*n)++];
	memset(r, 0, sizeof *r);
	r->id = xstrdup(id);
	r->queued = outgoing_when(id);
	return r;
}

int
outgoing_list(const struct config *cf, struct outgoing_entry **out,
    size_t *count, char **cause)
{
	struct outbox_entry	**ev = NULL;
	struct outbox_failed	 *fv = NULL;
	struct outgoing_entry	 *v = NULL, *r;
	struct buf		  b;
	size_t			  en = 0, fn = 0, n = 0, i, j;
	char			 *dir;

	*out = NULL;
	*count = 0;
	if ((dir = outbox_dir(cause)) == NULL)
		return -1;
	if (outbox_list(dir, &ev, &en, cause) == -1 ||
	    outbox_list_failed(dir, &fv, &fn, cause) == -1) {
		outbox_free_entries(ev, en);
		free(dir);
		return -1;
	}
	buf_init(&b);
	for (i = 0; i < en; i++) {
		r = outgoing_add(&v, &n, ev[i]->id);
		r->accepted = ev[i]->accepted;
		r->held = ev[i]->held;
		/* held for DNS: no message yet, its draft stands for it */
		r->path = outbox_msg_path(dir, ev[i]);
		buf_reset(&b);
		for (j = 0; j < ev[i]->nrcpts; j++)
			buf_addf(&b, "%s%s", j > 0 ? ", " : "",
			    ev[i]->rcpts[j]);
		r->to = buf_take(&b);
		if (r->held)
			r->why = draft_held_text(cf, ev[i], NULL);
		outgoing_header(r);
	}
	for (i = 0; i < fn; i++) {
		r = outgoing_add(&v, &n, fv[i].id);
		r->failed = 1;
		r->path = xstrdup(fv[i].path);
		r->why = xstrdup(fv[i].reason);
		outgoing_header(r);
	}
	buf_free(&b);
	outbox_free_entries(ev, en);
	outbox_free_failed(fv, fn);
	free(dir);
	*out = v;
	*count = n;
	return 0;
}

void
outgoing_list_free(struct outgoing_entry *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].to);
		free(v[i].subject);
		free(v[i].why);
		free(v[i].path);
	}
	free(v);
}

void
outgoing_count(size_t *queued, size_t *failed)
{
	char	*dir, *cause = NULL;

	*queued = *failed = 0;
	if ((dir = outbox_dir(&cause)) == NULL) {
		free(cause);
		return;
	}
	outbox_count(dir, queued, failed);
	free(dir);
}

int
outgoing_delete(const char *id, int failed, char **cause)
{
	struct outbox_entry	**v = NULL;
	size_t			  n = 0, i;
	char			 *dir;
	int			  lock, rc = 1;

	if ((dir = outbox_dir(cause)) == NULL)
		return -1;
	if (failed) {
		rc = outbox_remove_failed(dir, id, cause);
		free(dir);
		return rc;
	}
	/* a flush that holds the lock may be sending it right now */
	if ((lock = outbox_lock(dir, cause)) == -1) {
		free(dir);
		return -1;
	}
	if (outbox_list(dir, &v, &n, cause) == -1)
		rc = -1;
	for (i = 0; i < n; i++) {
		if (strcmp(v[i]->id, id) != 0)
			continue;
		if (outbox_remove(dir, v[i], cause) == -1) {
			rc = -1;
			break;
		}
		rc = 0;
	}
	outbox_free_entries(v, n);
	outbox_unlock(lock);
	free(dir);
	return rc;
}

/* Take the entry out with its draft, under the lock. */
static enum outgoing_back
outgoing_take(const char *dir, const char *id, int failed, char **path,
    char **cause)
{
	struct outbox_entry	**v = NULL;
	enum outgoing_back	  r = OUTGOING_NOT_TAKEN;
	size_t			  n = 0, i = 0;
	char			 *name, *why = NULL;
	int			  rc;

	if (!failed) {
		if (outbox_list(dir, &v, &n, cause) == -1)
			return OUTGOING_NOT_TAKEN;
		for (i = 0; i < n; i++)
			if (strcmp(v[i]->id, id) == 0)
				break;
		if (i == n) {
			r = OUTGOING_GONE;
			goto out;
		}
		if (v[i]->accepted) {
			r = OUTGOING_ACCEPTED;
			goto out;
		}
	}
	if (!outbox_has_draft(dir, id, failed)) {
		r = OUTGOING_NO_DRAFT;
		goto out;
	}
	name = xasprintf("outbox-%s", id);
	*path = draft_path(name, cause);
	free(name);
	if (*path == NULL)
		goto out;
	if ((rc = outbox_move_draft(dir, id, failed, *path, cause)) != 0) {
		free(*path);
		*path = NULL;
		if (rc == 1)
			r = OUTGOING_NO_DRAFT;
		goto out;
	}
	if (failed)
		rc = outbox_remove_failed(dir, id, &why);
	else
		rc = outbox_remove(dir, v[i], &why);
	if (rc == -1) {
		/* the message stays queued: its draft too, or sent twice */
		outbox_unmove_draft(dir, id, failed, *path);
		free(*path);
		*path = NULL;
		*cause = why;
		goto out;
	}
	r = OUTGOING_TAKEN;
out:
	outbox_free_entries(v, n);
	return r;
}

enum outgoing_back
outgoing_take_back(const char *id, int failed, char **path, char **cause)
{
	enum outgoing_back	 r = OUTGOING_NOT_TAKEN;
	char			*dir;
	int			 lock;

	*path = NULL;
	if (!outbox_valid_id(id)) {
		*cause = xstrdup("not an outbox entry");
		return OUTGOING_NOT_TAKEN;
	}
	if ((dir = outbox_dir(cause)) == NULL)
		return OUTGOING_NOT_TAKEN;
	/* a flush that holds the lock may be sending it right now */
	if ((lock = outbox_lock(dir, cause)) != -1) {
		r = outgoing_take(dir, id, failed, path, cause);
		outbox_unlock(lock);
	}
	free(dir);
	return r;
}

/*
 * Keep d beside entry id, as a postponed draft would be (encrypted to
 * self whenever the message would be). Without it the message still
 * goes; only it cannot be taken back.
 */
static void
outgoing_keep(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, const char *id)
{
	struct buf	 kept;
	char		*dir, *cause = NULL;
	int		 encrypted;

	buf_init(&kept);
	if (draft_keep(d, cf, o, -1, &kept, &encrypted, &cause) == 0 &&
	    (dir = outbox_dir(&cause)) != NULL) {
		outbox_keep_draft(dir, id, kept.data != NULL ? kept.data : "",
		    kept.len, &cause);
		free(dir);
	}
	free(cause);
	buf_free(&kept);
}

void
outgoing_send(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, int flags, struct outgoing_send *s)
{
	struct buf	msg;
	int		rc;

	memset(s, 0, sizeof *s);
	buf_init(&msg);
	rc = draft_protect(d, cf, o, &msg, &s->p, &s->bad_input, &s->cause);
	if (rc == -1)
		s->result = OUTGOING_UNBUILT;
	else if (rc == 1)
		s->result = OUTGOING_REFUSED;
	else if (rc == 2) {
		/* a lookup failed: the draft waits in the outbox for DNS */
		s->result = draft_hold(d, cf, o, s->p.line, &s->id,
		    &s->cause) == -1 ? OUTGOING_UNHELD : OUTGOING_HELD;
	} else if (draft_queue(d, &msg, &s->id, &s->cause) == -1)
		s->result = OUTGOING_UNQUEUED;
	else {
		s->result = OUTGOING_QUEUED;
		if (flags & OUTGOING_KEEP_DRAFT)
			outgoing_keep(d, cf, o, s->id);
	}
	buf_free(&msg);
}

void
outgoing_send_free(struct outgoing_send *s)
{
	draft_protection_free(&s->p);
	free(s->id);
	free(s->cause);
	memset(s, 0, sizeof *s);
}
