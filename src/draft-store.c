/*
 * draft-store.c: where a draft goes when it is not being written: the
 * outbox (queued to send), or the drafts directory (postponed), and back
 * from there (resumed). A postponed draft is one file, a whole message
 * with its Bcc and a mark of the encryption rule it carries
 * (X-Steedmail-Draft), so that resuming it gives the draft that was
 * postponed; when the message would be encrypted, the file is encrypted
 * and signed to the account's own key, its header fields protected as a
 * sent message's (RFC 9788: the Subject outside reads "..."). The
 * drafts directory listed as the drafts list shows it (draft_list()).
 * Callers: outgoing.c, the send command, the compose screen and the
 * drafts list. Never prints.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr-list.h"
#include "atomic.h"
#include "crypto-in.h"
#include "crypto-out.h"
#include "crypto.h"
#include "draft.h"
#include "mime-body.h"
#include "mime-build.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "outbox.h"
#include "ownkey.h"
#include "paths.h"
#include "rfc2047.h"
#include "xmalloc.h"

#define DRAFT_MARK		"X-Steedmail-Draft"
#define DRAFT_MARK_ENCRYPTED	"replies-to-encrypted"
#define DRAFT_MARK_FORWARD	"forwards-encrypted"
#define DRAFT_FILE_MAX		(256u * 1024 * 1024)
#define DRAFT_HEAD_MAX		(64u * 1024)	/* outer header listed */

int
draft_queue(const struct draft *d, const struct buf *msg, char **id,
    char **cause)
{
	char	**rcpts, *dir;
	size_t	  n = 0, i;
	int	  rc;

	rcpts = xcalloc(d->nto + d->ncc + d->nbcc + 1, sizeof *rcpts);
	for (i = 0; i < d->nto; i++)
		rcpts[n++] = d->to[i];
	for (i = 0; i < d->ncc; i++)
		rcpts[n++] = d->cc[i];
	for (i = 0; i < d->nbcc; i++)
		rcpts[n++] = d->bcc[i];
	if ((dir = outbox_dir(cause)) == NULL) {
		free(rcpts);
		return -1;
	}
	rc = outbox_queue(dir, d->a->id, d->a->address, rcpts, n, msg->data,
	    msg->len, id, cause);
	free(dir);
	free(rcpts);
	return rc;
}

char *
draft_dir(char **cause)
{
	return paths_data_subdir("drafts", cause);
}

/*
 * Would d go out encrypted? Decided as draft_protect() would, without
 * asking anybody and without a word to the person: a draft that must be
 * encrypted counts as encrypted even if it could not be today, and so
 * does one held by a bogus DNS answer or waiting for a lookup to answer.
 */
static int
draft_would_encrypt(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, char **cause)
{
	struct policy_in	  in;
	struct policy_result	  res;
	char			**addrs;
	size_t			  n = 0, i;
	int			  yes;

	draft_policy_in(d, cf, o, &in);
	in.batch = 1;
	in.home_empty = !ownkey_have_keyring(cf);
	if (policy_must(&in))
		return 1;
	if (in.never || in.mode == POLICY_NEVER || (o->smime && !in.require))
		return 0;
	addrs = xcalloc(d->nto + d->ncc + d->nbcc + 1, sizeof *addrs);
	for (i = 0; i < d->nto; i++)
		addrs[n++] = d->to[i];
	for (i = 0; i < d->ncc; i++)
		addrs[n++] = d->cc[i];
	for (i = 0; i < d->nbcc; i++)
		addrs[n++] = d->bcc[i];
	if (policy_decide(&in, addrs, n, &res, cause) == -1) {
		free(addrs);
		return -1;
	}
	free(addrs);
	/* held or waiting for DNS: meant to go encrypted, so kept so */
	yes = res.action == POLICY_ENCRYPT || res.action == POLICY_HOLD ||
	    res.action == POLICY_WAIT;
	policy_result_free(&res);
	return yes;
}

/* The fields only a stored draft has: Bcc, and the rule it carries. */
static char *
draft_extra(const struct draft *d)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < d->nbcc; i++)
		buf_addf(&b, "%s%s", i == 0 ? "Bcc: " : ",\r\n ", d->bcc[i]);
	if (d->nbcc > 0)
		buf_adds(&b, "\r\n");
	buf_addf(&b, "%s: %s\r\n", DRAFT_MARK, !d->from_encrypted ? "yes" :
	    d->forwarding ? DRAFT_MARK_FORWARD : DRAFT_MARK_ENCRYPTED);
	return buf_take(&b);
}

/* data into a new file of the drafts directory, durably; its path. */
static char *
draft_write(const char *data, size_t len, char **cause)
{
	struct tm	 tm;
	time_t		 now = time(NULL);
	char		*dir, *tmp, *path = NULL, stamp[32];
	size_t		 off = 0;
	ssize_t		 n;
	int		 fd;

	if ((dir = draft_dir(cause)) == NULL)
		return NULL;
	tmp = xasprintf("%s/.tmp-XXXXXX", dir);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		*cause = xasprintf("cannot write a draft in %s: %s", dir,
		    strerror(errno));
		free(tmp);
		free(dir);
		return NULL;
	}
	while (off < len) {
		if ((n = write(fd, data + off, len - off)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += n;
	}
	if (fsync(fd) == -1)
		goto fail;
	close(fd);
	fd = -1;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	path = xasprintf("%s/%s-%s.eml", dir, stamp, strrchr(tmp, '-') + 1);
	if (rename(tmp, path) == -1)
		goto fail;
	/* the new name on disk too: a postponed draft survives a crash */
	atomic_sync_dir(dir);
	free(tmp);
	free(dir);
	return path;
fail:
	*cause = xasprintf("cannot write a draft in %s: %s", dir,
	    strerror(errno));
	if (fd != -1)
		close(fd);
	unlink(tmp);
	free(tmp);
	free(path);
	free(dir);
	return NULL;
}

int
draft_keep(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, int encrypt, struct buf *out, int *encrypted,
    char **cause)
{
	struct mime_out		 m;
	struct crypto_out	 co;
	struct ownkey		 k;
	char			*why = NULL;
	int			 rc = -1;

	*encrypted = 0;
	memset(&k, 0, sizeof k);
	draft_mime(d, &m);
	m.extra = draft_extra(d);
	buf_reset(out);
	if (crypto_init(cf->gnupg_home, &why) == -1) {
		/* No gpg: what must be encrypted cannot be kept. */
		if (encrypt == 1 || draft_must_encrypt(d, cf, o)) {
			*cause = xasprintf("cannot keep the draft encrypted: "
			    "%s", why);
			goto out;
		}
	} else if (encrypt != -1)
		*encrypted = encrypt;
	else if ((*encrypted = draft_would_encrypt(d, cf, o, cause)) == -1)
		goto out;
	if (!*encrypted) {
		if (mime_build(&m, out, cause) == -1)
			goto out;
	} else {
		if (ownkey_openpgp(d->a, 1, &k, cause) == -1)
			goto out;
		memset(&co, 0, sizeof co);
		co.proto = GPGME_PROTOCOL_OpenPGP;
		co.sign = 1;
		co.encrypt = 1;
		co.self_only = 1;
		co.signer = k.fpr;
		if (crypto_out_build(&m, &co, out, cause) == -1)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		*encrypted = 0;
	free(why);
	free((char *)m.extra);
	draft_mime_free(&m);
	ownkey_free(&k);
	return rc;
}

int
draft_postpone(const struct draft *d, const struct config *cf,
    const struct draft_opts *o, char **path, int *encrypted, char **cause)
{
	struct buf	out;
	int		rc = -1;

	*path = NULL;
	buf_init(&out);
	if (draft_keep(d, cf, o, -1, &out, encrypted, cause) == 0 &&
	    (*path = draft_write(out.data, out.len, cause)) != NULL)
		rc = 0;
	if (rc == -1)
		*encrypted = 0;
	buf_free(&out);
	return rc;
}

static int
draft_read(const char *path, struct buf *b, char **cause)
{
	char	chunk[65536];
	ssize_t	n;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || b->len + n > DRAFT_FILE_MAX) {
			*cause = xasprintf("%s: %s", path, n == -1 ?
			    strerror(errno) : "too large for a draft");
			close(fd);
			return -1;
		}
		buf_add(b, chunk, n);
	}
	close(fd);
	return 0;
}

/* Addresses of field name in h into the draft's list f. */
static void
draft_resume_addrs(struct draft *d, const struct mime_header *h,
    const char *name, enum draft_field f)
{
	char	**v = NULL;
	size_t	  n = 0, i;

	addr_list_get(h, name, &v, &n);
	for (i = 0; i < n; i++)
		draft_add(d, f, v[i]);
	addr_list_free(v, n);
}

/* The text and the attachments of the draft's content c. */
static void
draft_resume_parts(struct draft *d, struct mime_part *c)
{
	struct mime_part	*p;
	struct buf		 b;
	char			*note, *type;
	int			 text = 0;

	if (!mime_part_is(c, "multipart", NULL)) {
		buf_init(&b);
		mime_body_text(c, 0, &b, &note);
		free(note);
		draft_set_body(d, buf_take(&b));
		buf_free(&b);
		return;
	}
	TAILQ_FOREACH(p, &c->children, entry) {
		if (!text && mime_part_is(p, "text", "plain") &&
		    p->disposition != MIME_DISP_ATTACHMENT) {
			text = 1;
			buf_init(&b);
			mime_body_text(p, 0, &b, &note);
			free(note);
			draft_set_body(d, buf_take(&b));
			buf_free(&b);
			continue;
		}
		buf_init(&b);
		mime_body_decode(p, &b);
		type = xasprintf("%s/%s", p->type, p->subtype);
		draft_attach_data(d, p->filename, type, b.data != NULL ?
		    b.data : "", b.len);
		free(type);
		buf_free(&b);
	}
}

struct draft *
draft_resume(const struct account *a, const char *path, char **cause)
{
	const struct mime_header	*h;
	const struct mime_field		*f;
	struct crypto_in		*ci = NULL;
	struct mime_msg			*m;
	struct mime_part		*c;
	struct draft			*d;
	struct buf			 raw;
	char				*v;
	size_t				 len, i;

	buf_init(&raw);
	if (draft_read(path, &raw, cause) == -1) {
		buf_free(&raw);
		return NULL;
	}
	len = raw.len;
	if ((m = mime_parse(buf_take(&raw), len, cause)) == NULL)
		return NULL;
	c = m->root;
	if (mime_part_is(c, "multipart", "encrypted")) {
		ci = crypto_in_analyse(m, 0);
		for (i = 0; i < ci->nparts; i++)
			if (ci->parts[i].part == m->root &&
			    ci->parts[i].decrypted && ci->parts[i].inner)
				c = ci->parts[i].inner->root;
		if (c == m->root) {
			*cause = xasprintf("%s cannot be decrypted: %s", path,
			    ci->not_decrypted != NULL ? ci->not_decrypted :
			    "no reason given");
			crypto_in_free(ci);
			mime_msg_free(m);
			return NULL;
		}
		/* Signed inside: the content is one layer further. */
		for (i = 0; i < ci->nparts; i++)
			if (ci->parts[i].part == c && ci->parts[i].inner &&
			    !ci->parts[i].decrypted)
				c = ci->parts[i].inner->root;
	}
	h = &c->header;
	if ((f = mime_header_find(h, DRAFT_MARK, NULL)) == NULL) {
		*cause = xasprintf("%s is not a draft steedmail postponed",
		    path);
		crypto_in_free(ci);
		mime_msg_free(m);
		return NULL;
	}
	d = draft_new(a);
	v = mime_header_unfold(f, NULL);
	d->forwarding = strcmp(v, DRAFT_MARK_FORWARD) == 0;
	d->from_encrypted = d->forwarding ||
	    strcmp(v, DRAFT_MARK_ENCRYPTED) == 0;
	free(v);
	draft_resume_addrs(d, h, "To", DRAFT_TO);
	draft_resume_addrs(d, h, "Cc", DRAFT_CC);
	draft_resume_addrs(d, h, "Bcc", DRAFT_BCC);
	if ((v = mime_header_get(h, "Subject", NULL)) != NULL) {
		d->subject = rfc2047_decode_str(v);
		free(v);
	}
	d->in_reply_to = mime_header_get(h, "In-Reply-To", NULL);
	d->references = mime_header_get(h, "References", NULL);
	draft_resume_parts(d, c);
	crypto_in_free(ci);
	mime_msg_free(m);
	return d;
}

int
draft_discard(const char *path, char **cause)
{
	if (unlink(path) == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

char *
draft_path(const char *name, char **cause)
{
	char	*dir, *path;

	if ((dir = draft_dir(cause)) == NULL)
		return NULL;
	path = xasprintf("%s/%s.eml", dir, name);
	free(dir);
	return path;
}

/* A file of the drafts directory that holds a draft. */
static int
draft_is_file(const char *name)
{
	size_t	len = strlen(name);

	return name[0] != '.' && len > 4 && strcmp(name + len - 4, ".eml") == 0;
}

size_t
draft_count(void)
{
	struct dirent	*de;
	DIR		*dir;
	char		*path, *cause = NULL;
	size_t		 n = 0;

	if ((path = draft_dir(&cause)) == NULL) {
		free(cause);
		return 0;
	}
	if ((dir = opendir(path)) != NULL) {
		while ((de = readdir(dir)) != NULL)
			n += draft_is_file(de->d_name);
		closedir(dir);
	}
	free(path);
	return n;
}

/* "a@b", "a@b +2": the recipients as the list shows them. */
static char *
draft_list_rcpts(char **v, size_t n)
{
	if (n == 0)
		return xstrdup("");
	if (n == 1)
		return xstrdup(v[0]);
	return xasprintf("%s +%zu", v[0], n - 1);
}

/* What the outer header of f's file says (a local file: cheap). */
static void
draft_list_head(struct draft_file *f)
{
	struct mime_msg	 *m;
	struct buf	  b;
	char		**v = NULL, *s, *cause = NULL, *end;
	size_t		  n = 0;

	buf_init(&b);
	if (buf_read_file(&b, f->path, DRAFT_FILE_MAX) == -1 ||
	    b.len == 0) {
		buf_free(&b);
		return;
	}
	/* the header only */
	buf_addc(&b, '\0');
	if ((end = strstr(b.data, "\r\n\r\n")) != NULL)
		b.len = end - b.data + 4;
	else if ((end = strstr(b.data, "\n\n")) != NULL)
		b.len = end - b.data + 2;
	if (b.len > DRAFT_HEAD_MAX)
		b.len = DRAFT_HEAD_MAX;
	if ((m = mime_parse_copy(b.data, b.len, &cause)) == NULL) {
		free(cause);
		buf_free(&b);
		return;
	}
	buf_free(&b);
	addr_list_get(&m->root->header, "To", &v, &n);
	addr_list_get(&m->root->header, "Cc", &v, &n);
	f->to = draft_list_rcpts(v, n);
	addr_list_free(v, n);
	f->from = addr_list_from(&m->root->header);
	f->msgid = mime_header_get(&m->root->header, "Message-ID", NULL);
	f->encrypted = mime_part_is(m->root, "multipart", "encrypted");
	if ((s = mime_header_get(&m->root->header, "Subject", NULL)) != NULL) {
		f->subject = rfc2047_decode_str(s);
		free(s);
	}
	f->known = !f->encrypted;
	mime_msg_free(m);
}

static int
draft_list_cmp(const void *a, const void *b)
{
	const struct draft_file	*x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? 1 : -1;
	return strcmp(y->path, x->path);
}

int
draft_list(struct draft_file **out, size_t *count, char **cause)
{
	struct draft_file	*v = NULL, *f;
	struct dirent		*de;
	struct stat		 st;
	DIR			*dir;
	char			*path;
	size_t			 n = 0;

	*out = NULL;
	*count = 0;
	if ((path = draft_dir(cause)) == NULL)
		return -1;
	if ((dir = opendir(path)) != NULL) {
		while ((de = readdir(dir)) != NULL) {
			if (!draft_is_file(de->d_name))
				continue;
			v = xreallocarray(v, n + 1, sizeof *v);
			f = &v[n++];
			memset(f, 0, sizeof *f);
			f->path = xasprintf("%s/%s", path, de->d_name);
			if (stat(f->path, &st) == 0)
				f->mtime = st.st_mtime;
			draft_list_head(f);
		}
		closedir(dir);
	}
	free(path);
	if (n > 1)
		qsort(v, n, sizeof *v, draft_list_cmp);
	*out = v;
	*count = n;
	return 0;
}

void
draft_list_free(struct draft_file *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].from);
		free(v[i].to);
		free(v[i].subject);
		free(v[i].msgid);
	}
	free(v);
}

int
draft_peek(const struct account *a, const char *path, char **to,
    char **subject, char **cause)
{
	struct draft	 *d;
	char		**v;

	*to = *subject = NULL;
	if ((d = draft_resume(a, path, cause)) == NULL)
		return -1;
	v = xcalloc(d->nto + d->ncc + 1, sizeof *v);
	if (d->nto > 0)
		memcpy(v, d->to, d->nto * sizeof *v);
	if (d->ncc > 0)
		memcpy(v + d->nto, d->cc, d->ncc * sizeof *v);
	*to = draft_list_rcpts(v, d->nto + d->ncc);
	free(v);
	*subject = xstrdup(d->subject != NULL ? d->subject : "");
	draft_free(d);
	return 0;
}

int
draft_exists(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0;
}

int
draft_file_read(const char *path, struct buf *b, char **cause)
{
	return draft_read(path, b, cause);
}
