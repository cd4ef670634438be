/*
 * imap-sync.c: the header-cache synchronisation of imap-sync.h.
 *
 * Every string the server sends is bounded and decoded here before it is
 * stored; the index later makes it terminal-safe when it draws it. The
 * whole sync of a mailbox is one transaction per batch, so an interrupted
 * sync leaves a consistent cache that the next run continues from.
 */
#include <sys/socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "addr-list.h"
#include "buf.h"
#include "frontend.h"
#include "imap-fetch.h"
#include "imap-frame.h"
#include "imap-name.h"
#include "imap-session.h"
#include "imap-sync.h"
#include "log.h"
#include "rfc2047.h"
#include "strsafe.h"
#include "xmalloc.h"

static char *
imap_sync_words(mailimap *imap, const char *what, int err)
{
	const char	*r = imap->imap_response;
	char		*safe, *msg;
	struct buf	 b;

	if ((msg = imap_frame_cause(imap->imap_stream, what)) != NULL)
		return msg;	/* the guard below libetpan ended the stream */
	if (err == MAILIMAP_ERROR_STREAM)
		return xasprintf("%s: the connection to the IMAP server was "
		    "lost", what);
	if (err == MAILIMAP_ERROR_PARSE || err == MAILIMAP_ERROR_PROTOCOL)
		return xasprintf("%s: the IMAP server's reply was not "
		    "understood", what);
	if (r == NULL || *r == '\0')
		return xasprintf("%s failed (libetpan error %d)", what, err);
	buf_init(&b);
	strsafe_add(&b, r, strnlen(r, 300), 0);
	safe = buf_take(&b);
	msg = xasprintf("%s failed: %s", what, safe);
	free(safe);
	return msg;
}

char *
imap_sync_error(mailimap *imap, const char *what, int err)
{
	char	*msg;

	if (imap->imap_stream == NULL)
		return xasprintf("%s: the connection to the IMAP server is "
		    "closed", what);
	msg = imap_sync_words(imap, what, err);
	if (imap_session_broken(err) || imap_frame_stopped(imap->imap_stream))
		imap_session_lose(imap);
	return msg;
}

/* The flags of a FETCH response as maildir letters, sorted. */
static void
imap_sync_flags(const struct mailimap_msg_att_dynamic *dyn, char *out)
{
	clistiter			*it;
	const struct mailimap_flag_fetch *ff;
	int				 d = 0, f = 0, r = 0, s = 0, t = 0;

	if (dyn != NULL && dyn->att_list != NULL) {
		for (it = clist_begin(dyn->att_list); it; it = clist_next(it)) {
			ff = clist_content(it);
			if (ff->fl_type != MAILIMAP_FLAG_FETCH_OTHER ||
			    ff->fl_flag == NULL)
				continue;
			switch (ff->fl_flag->fl_type) {
			case MAILIMAP_FLAG_DRAFT:	d = 1; break;
			case MAILIMAP_FLAG_FLAGGED:	f = 1; break;
			case MAILIMAP_FLAG_ANSWERED:	r = 1; break;
			case MAILIMAP_FLAG_SEEN:	s = 1; break;
			case MAILIMAP_FLAG_DELETED:	t = 1; break;
			default:			break;
			}
		}
	}
	if (d) *out++ = 'D';
	if (f) *out++ = 'F';
	if (r) *out++ = 'R';
	if (s) *out++ = 'S';
	if (t) *out++ = 'T';
	*out = '\0';
}

struct imap_sync_att {
	uint32_t				 uid;
	uint32_t				 size;
	const struct mailimap_envelope		*env;
	const struct mailimap_date_time		*idate;
	const struct mailimap_msg_att_dynamic	*dyn;
	uint64_t				 modseq;	/* 0: none */
};

/* A FETCH response's MODSEQ (RFC 7162), if the item is one. */
static void
imap_sync_modseq(const struct mailimap_extension_data *ext,
    struct imap_sync_att *a)
{
	const struct mailimap_condstore_fetch_mod_resp	*r;

	if (ext == NULL || ext->ext_extension == NULL ||
	    ext->ext_extension->ext_id != MAILIMAP_EXTENSION_CONDSTORE ||
	    ext->ext_type != MAILIMAP_CONDSTORE_TYPE_FETCH_DATA ||
	    (r = ext->ext_data) == NULL)
		return;
	a->modseq = r->cs_modseq_value;
}

static void
imap_sync_parse(const struct mailimap_msg_att *ma, struct imap_sync_att *a)
{
	clistiter			*it;
	const struct mailimap_msg_att_item *item;
	const struct mailimap_msg_att_static *st;

	memset(a, 0, sizeof *a);
	for (it = clist_begin(ma->att_list); it != NULL; it = clist_next(it)) {
		item = clist_content(it);
		if (item->att_type == MAILIMAP_MSG_ATT_ITEM_DYNAMIC) {
			a->dyn = item->att_data.att_dyn;
			continue;
		}
		if (item->att_type == MAILIMAP_MSG_ATT_ITEM_EXTENSION) {
			imap_sync_modseq(item->att_data.att_extension_data, a);
			continue;
		}
		if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
			continue;
		st = item->att_data.att_static;
		switch (st->att_type) {
		case MAILIMAP_MSG_ATT_UID:
			a->uid = st->att_data.att_uid;
			break;
		case MAILIMAP_MSG_ATT_RFC822_SIZE:
			a->size = st->att_data.att_rfc822_size;
			break;
		case MAILIMAP_MSG_ATT_ENVELOPE:
			a->env = st->att_data.att_env;
			break;
		case MAILIMAP_MSG_ATT_INTERNALDATE:
			a->idate = st->att_data.att_internal_date;
			break;
		default:
			break;
		}
	}
}

/*
 * The connection is out of step with the server: make sure nothing is
 * read from it again, so that the next libetpan call fails as a lost
 * connection (and imap-conn reconnects) instead of reading garbage.
 */
static void
imap_sync_unusable(mailimap *imap)
{
	mailstream	*s = imap->imap_stream;
	mailstream_low	*low;
	char		 junk[512];
	size_t		 n;
	int		 fd;

	if (s == NULL)
		return;
	/* What libetpan holds already is out of step too. */
	while ((n = s->read_buffer_len) > 0) {
		if (mailstream_read(s, junk, n < sizeof junk ? n :
		    sizeof junk) <= 0)
			break;
	}
	if ((low = mailstream_get_low(s)) != NULL &&
	    (fd = mailstream_low_get_fd(low)) != -1)
		shutdown(fd, SHUT_RDWR);
}

/* The UIDs a search answers with, as they come. */
struct imap_sync_uids {
	uint32_t	*v;
	size_t		 n, cap;
	uint32_t	 first, last;
};

static int
imap_sync_uid_add(uint32_t uid, void *arg, char **cause)
{
	struct imap_sync_uids	*u = arg;

	(void)cause;
	/* "n:*" also matches the last UID when all are below n. */
	if (uid < u->first || (u->last != 0 && uid > u->last))
		return 0;
	if (u->n == u->cap) {
		u->cap = u->cap == 0 ? 1024 : u->cap * 2;
		u->v = xreallocarray(u->v, u->cap, sizeof *u->v);
	}
	u->v[u->n++] = uid;
	return 0;
}

/*
 * The UIDs from first to last (0: to the end) that the server has, into
 * *uids (unsorted), read by the streaming reader (imap-fetch.h): 4 bytes
 * a UID, where libetpan's answer would hold the whole line and a list of
 * some 60 bytes a UID.
 */
static int
imap_sync_search(mailimap *imap, uint32_t first, uint32_t last,
    uint32_t **uids, size_t *n, char **cause)
{
	struct imap_sync_uids	 u;
	struct imap_fetch	*r;
	int			 rc;

	*uids = NULL;
	*n = 0;
	if (imap_fetch_send_search(imap->imap_stream, "U1", first, last,
	    cause) == -1) {
		imap_sync_unusable(imap);
		return -1;
	}
	memset(&u, 0, sizeof u);
	u.first = first;
	u.last = last;
	r = imap_fetch_new_stream(imap->imap_stream);
	if (imap->imap_selection_info != NULL)
		imap_fetch_track_exists(r,
		    &imap->imap_selection_info->sel_exists);
	rc = imap_fetch_search_response(r, "U1", imap_sync_uid_add, &u,
	    cause);
	imap_fetch_free(r);
	if (rc != IMAP_FETCH_OK) {
		if (rc == IMAP_FETCH_BROKEN)
			imap_sync_unusable(imap);
		free(u.v);
		return -1;
	}
	*uids = u.v != NULL ? u.v : xcalloc(1, sizeof **uids);
	*n = u.n;
	return 0;
}

static int
imap_sync_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The UIDs uids[0..n) as an IMAP set, "1:5,9", in b. */
static void
imap_sync_set(struct buf *b, const uint32_t *uids, size_t n)
{
	size_t	i = 0, j;

	buf_reset(b);
	while (i < n) {
		for (j = i; j + 1 < n && uids[j + 1] == uids[j] + 1; j++)
			;
		if (b->len > 0)
			buf_addc(b, ',');
		if (j > i)
			buf_addf(b, "%u:%u", uids[i], uids[j]);
		else
			buf_addf(b, "%u", uids[i]);
		i = j + 1;
	}
}

/*
 * The batches' FETCHes and how far their answers came: what the next one
 * is sent by, from the loop or from the reader's callback.
 */
struct imap_sync_pipe {
	mailimap		*imap;
	const uint32_t		*uids;	/* NULL: by sequence numbers */
	size_t			 n, first, batch, nbatch;
	int			 down;
	size_t			 sent;	/* FETCHes sent */
	size_t			 asked;	/* the messages they asked for */
	size_t			 got;	/* ... and those come so far */
	int			 ahead;	/* sent as the answers come */
	struct buf		 set;
};

static int	imap_sync_feed(struct imap_sync_pipe *, char **);

/* What the FETCH reader's callback stores into. */
struct imap_sync_store {
	struct imap_sync_pipe	*pipe;
	struct cache		*c;
	struct cache_mailbox	*mb;
	uint32_t		*fetched;
	struct buf		 from, subject;	/* reused for every message */
	struct buf		 rcpt, addr;

	/* The batch being read: its UIDs (ascending), or by sequence
	 * numbers (want NULL) its first one; how many of them came first
	 * and in order, and whether anything else came. */
	const uint32_t		*want;
	uint32_t		 seq0;
	size_t			 nwant, inorder;
	int			 scattered;
	uint32_t		 batch_fetched;

	/* By sequence numbers, going down: each batch's lowest UID come
	 * so far (pipelined FETCHes may interleave their answers, so a
	 * batch's messages can come while the one before it is read). */
	uint32_t		*low;
	size_t			 nseq, first, batch;
};

/* Going down by sequence numbers: the batch that seq (1..nseq) is in. */
static size_t
imap_sync_batch_of(const struct imap_sync_store *st, uint32_t seq)
{
	size_t	d = st->nseq - seq;

	return d < st->first ? 0 : 1 + (d - st->first) / st->batch;
}

/* Decoded header text (subject, a display name) in b, as a C string. */
static const char *
imap_sync_decode(struct buf *b, const char *s)
{
	if (s == NULL)
		return NULL;
	buf_reset(b);
	rfc2047_decode(b, s, strlen(s));
	return b->data != NULL ? b->data : "";
}

/*
 * The sender as steedmail itself reads it from the From field the server
 * sent (addr-list.c, the rules of the pager and of the trust step): the
 * first mailbox with an address and its name, decoded; neither when no
 * address can be read, whatever the server's ENVELOPE made of it (it
 * takes "alice@x <mallory@y>" for alice, a bare word for
 * word@MISSING_DOMAIN). A From longer than imap-fetch keeps is left to
 * the ENVELOPE's address, without a name: that long a name is padding.
 * Returns 0, or -1 when the From field did not come.
 */
static int
imap_sync_sender(struct imap_sync_store *st, const struct imap_fetch_msg *fm,
    struct cache_msg *m)
{
	struct addr_mailbox	*v = NULL;
	size_t			 n = 0, i;

	if (fm->from_field == NULL)
		return -1;
	buf_reset(&st->addr);
	if (fm->from_cut) {
		if (fm->from_mailbox == NULL)
			return 0;
		buf_addf(&st->addr, "%s@%s", fm->from_mailbox,
		    fm->from_host != NULL ? fm->from_host : "");
		m->from = m->from_addr = st->addr.data;
		return 0;
	}
	addr_list_value(fm->from_field, strlen(fm->from_field), &v, &n);
	for (i = 0; i < n && v[i].addr == NULL; i++)
		;
	if (i < n) {
		buf_adds(&st->addr, v[i].addr);
		m->from_addr = st->addr.data;
		m->from = v[i].name != NULL ? imap_sync_decode(&st->from,
		    v[i].name) : m->from_addr;
	}
	addr_list_mailboxes_free(v, n);
	return 0;
}

static int
imap_sync_store_msg(const struct imap_fetch_msg *fm, void *arg, char **cause)
{
	struct imap_sync_store	*st = arg;
	struct cache_msg	 m;
	char			 date[201], addr[402];

	/* A FETCH the server sent of itself (a flag change): no envelope. */
	if (!fm->has_envelope)
		return 0;
	memset(&m, 0, sizeof m);
	m.uid = fm->uid;
	m.size = fm->size;
	m.internaldate = fm->internaldate;
	memcpy(m.flags, fm->flags, sizeof m.flags);
	if (imap_sync_sender(st, fm, &m) == -1) {
		/* No header fields (a server that sent none): the ENVELOPE. */
		if (fm->from_mailbox != NULL) {
			snprintf(addr, sizeof addr, "%.200s@%.200s",
			    fm->from_mailbox, fm->from_host != NULL ?
			    fm->from_host : "");
			m.from_addr = addr;
		}
		if (fm->from_name != NULL && *fm->from_name != '\0')
			m.from = imap_sync_decode(&st->from, fm->from_name);
		else
			m.from = m.from_addr;
	}
	m.rcpt = imap_sync_decode(&st->rcpt, fm->rcpt);
	m.in_reply_to = fm->in_reply_to;
	m.references = fm->references;
	m.sent = fm->sent;
	m.hints = fm->hints;
	m.subject = imap_sync_decode(&st->subject, fm->subject);
	if (fm->date != NULL) {
		snprintf(date, sizeof date, "%s", fm->date);
		m.date = date;
	}
	m.message_id = fm->message_id;
	if (cache_put(st->c, st->mb, &m, cause) == -1)
		return -1;
	if (st->want == NULL && fm->seq >= 1 && fm->seq <= st->nseq) {
		size_t	b = imap_sync_batch_of(st, fm->seq);

		if (st->low[b] == 0 || m.uid < st->low[b])
			st->low[b] = m.uid;
	}
	if (st->inorder < st->nwant && (st->want != NULL ?
	    st->want[st->inorder] == m.uid :
	    fm->seq == st->seq0 + st->inorder))
		st->inorder++;
	else
		st->scattered = 1;
	st->batch_fetched++;
	if (st->pipe != NULL && imap_sync_feed(st->pipe, cause) == -1)
		return -1;
	return 0;
}

/*
 * The batch size: IMAP_SYNC_BATCH, or STEEDMAIL_SYNC_BATCH from the
 * environment (1 to 100000), which the tests use to run many pipelined
 * batches on a small mailbox.
 */
static size_t
imap_sync_batch(void)
{
	const char	*v = getenv("STEEDMAIL_SYNC_BATCH");
	char		*end;
	unsigned long	 n;

	if (v == NULL || *v == '\0')
		return IMAP_SYNC_BATCH;
	n = strtoul(v, &end, 10);
	if (*end != '\0' || n == 0 || n > 100000)
		return IMAP_SYNC_BATCH;
	return n;
}

/*
 * The FETCHes are pipelined: the next batch is asked for before the
 * answer to the current one is read, so the server works while the
 * client parses. They go out with tags of their own ("S1", ...), which
 * libetpan's numbers never are, and are read with the streaming reader
 * of imap-fetch.h straight from libetpan's stream.
 */
/*
 * Batch i of n UIDs: a small first one, then batch each, from the lowest
 * UIDs up or (down) from the highest down; *off and *len into uids.
 */
static void
imap_sync_batch_at(size_t i, size_t n, size_t first, size_t batch, int down,
    size_t *off, size_t *len)
{
	size_t	o = i == 0 ? 0 : first + (i - 1) * batch;
	size_t	l = i == 0 ? first : batch;

	if (l > n - o)
		l = n - o;
	*off = down ? n - o - l : o;
	*len = l;
}

/* The tag of batch i's FETCH. */
static void
imap_sync_tag(char *tag, size_t size, size_t i)
{
	snprintf(tag, size, "S%zu", i + 1);
}

/*
 * Send the FETCHes of batches up to (not past) upto: UIDs, or sequence
 * numbers when uids is NULL.
 */
static int
imap_sync_send(struct imap_sync_pipe *p, size_t upto, char **cause)
{
	size_t	off, len;
	char	tag[24];

	for (; p->sent < p->nbatch && p->sent <= upto; p->sent++) {
		imap_sync_batch_at(p->sent, p->n, p->first, p->batch, p->down,
		    &off, &len);
		if (p->uids != NULL)
			imap_sync_set(&p->set, p->uids + off, len);
		else {
			buf_reset(&p->set);
			buf_addf(&p->set, "%zu:%zu", off + 1, off + len);
		}
		imap_sync_tag(tag, sizeof tag, p->sent);
		if (imap_fetch_send_by(p->imap->imap_stream, tag, p->set.data,
		    1, p->uids != NULL, cause) == -1)
			return -1;
		p->asked += len;
	}
	return 0;
}

/*
 * A message came: the next FETCH is sent once no more than a batch is left
 * to come of those asked for. Dovecot answers pipelined FETCHes side by
 * side, so the two outstanding end together; asked for only when one has
 * ended, the next would find the server idle while the client reads what
 * is in the buffers between them.
 */
static int
imap_sync_feed(struct imap_sync_pipe *p, char **cause)
{
	p->got++;
	if (!p->ahead || p->sent >= p->nbatch ||
	    (p->got < p->asked && p->asked - p->got > p->batch))
		return 0;
	return imap_sync_send(p, p->sent, cause);
}

/*
 * Fetch envelopes of the given UIDs (ascending) in batches and store them,
 * one transaction a batch, from the lowest up, or with down from the
 * highest down (a cold cache: the newest screenful first, then older
 * batches going back). With uids NULL, n is the mailbox's EXISTS and the
 * batches are asked for by sequence numbers, going down (a mailbox with
 * nothing cached: no SEARCH of every UID before the first screen).
 * Going down, each batch's transaction moves the mailbox's lowuid to its
 * lowest UID (0 with the last), so that a sync cut short or killed goes
 * on from there; of a batch cut short, what came of it first and in
 * order is kept, with lowuid left above the gap it leaves.
 *
 * The first batch, a small one, is sent alone and the next two only once
 * its answer is in: pipelined FETCHes are answered interleaved (Dovecot
 * runs them side by side), and the first screen would wait for part of
 * the next batch. After it, a batch is asked for as soon as no more than a
 * batch of what was asked is still to come (imap_sync_feed()), not when
 * an answer ends: answered side by side, the outstanding ones end
 * together, and the server would wait for the next while the client
 * reads what fills the buffers between them.
 *
 * Going down through many messages into a cache that holds fewer, the
 * UID, sender, subject and size indexes are dropped after the first batch
 * and made again from the rows stored (a sort) in the transaction of the
 * third batch from the end, while the server answers the last two; or on
 * the way out if the sync stops short. A sync killed meanwhile leaves them
 * to the next one (cache_index_defer()).
 */
static int
imap_sync_fetch_new(mailimap *imap, struct cache *c, struct cache_mailbox *mb,
    const uint32_t *uids, size_t n, int down, uint32_t *fetched,
    char **cause)
{
	struct imap_sync_store	 st;
	struct imap_sync_pipe	 p;
	struct imap_fetch	*r;
	size_t			 nbatch, done, off, batch, first;
	size_t			 len;
	char			 tag[24];
	char			*why = NULL;
	int			 rc = IMAP_FETCH_OK, drc, stop = 0, deferred = 0;

	if (n == 0)
		return 0;
	batch = imap_sync_batch();
	/* a small first batch: a screen of rows for the index at once */
	first = n > batch && batch > IMAP_SYNC_FIRST ? IMAP_SYNC_FIRST : batch;
	/* going down, the newest screenful first whatever the size */
	if (down && n > IMAP_SYNC_FIRST && batch > IMAP_SYNC_FIRST)
		first = IMAP_SYNC_FIRST;
	nbatch = 1 + (n > first ? (n - first + batch - 1) / batch : 0);
	memset(&st, 0, sizeof st);
	st.c = c;
	st.mb = mb;
	st.fetched = fetched;
	if (uids == NULL) {
		st.low = xreallocarray(NULL, nbatch, sizeof *st.low);
		memset(st.low, 0, nbatch * sizeof *st.low);
		st.nseq = n;
		st.first = first;
		st.batch = batch;
	}
	buf_init(&st.from);
	buf_init(&st.subject);
	buf_init(&st.rcpt);
	buf_init(&st.addr);
	memset(&p, 0, sizeof p);
	p.imap = imap;
	p.uids = uids;
	p.n = n;
	p.first = first;
	p.batch = batch;
	p.nbatch = nbatch;
	p.down = down;
	p.ahead = first == batch;	/* else once the first is in */
	buf_init(&p.set);
	st.pipe = &p;
	r = imap_fetch_new_stream(imap->imap_stream);
	if (imap->imap_selection_info != NULL)
		imap_fetch_track_exists(r,
		    &imap->imap_selection_info->sel_exists);

	for (done = 0; done < nbatch; done++) {
		/* This batch and the next at least (imap_sync_feed() may
		   have sent more); the small first one alone. */
		if (imap_sync_send(&p, done == 0 && first < batch ? 0 :
		    done + 1, cause) == -1) {
			rc = IMAP_FETCH_BROKEN;
			goto out;
		}
		if (cache_begin(c, cause) == -1) {
			rc = IMAP_FETCH_LOCAL;
			break;
		}
		imap_sync_batch_at(done, n, first, batch, down, &off, &len);
		/* after the first batch, whose lowuid is stored already: with
		   two full batches or more before the last two, the indexes
		   made near the end */
		if (done == 1 && down && nbatch >= 5) {
			if ((deferred = cache_index_defer(c, n, cause)) == -1) {
				deferred = 0;
				cache_rollback(c);
				rc = IMAP_FETCH_LOCAL;
				break;
			}
		}
		st.want = uids != NULL ? uids + off : NULL;
		st.seq0 = (uint32_t)off + 1;
		st.nwant = len;
		st.inorder = 0;
		st.scattered = 0;
		st.batch_fetched = 0;
		imap_sync_tag(tag, sizeof tag, done);
		rc = imap_fetch_response(r, tag, imap_sync_store_msg, &st,
		    cause);
		/*
		 * The next asked for while this one is stored, and from now
		 * on each as the answers come (imap_sync_feed()).
		 */
		if (rc == IMAP_FETCH_OK && done == 0)
			p.ahead = 1;
		if (rc == IMAP_FETCH_OK && done == 0 && imap_sync_send(&p, 1,
		    cause) == -1) {
			cache_rollback(c);
			rc = IMAP_FETCH_BROKEN;
			goto out;
		}
		/* going down: how far, in the batch's transaction */
		if (rc == IMAP_FETCH_OK && down) {
			if (off == 0)
				mb->lowuid = 0;
			else if (uids != NULL)
				mb->lowuid = uids[off];
			else if (st.low[done] != 0)
				mb->lowuid = st.low[done];
			if (cache_mailbox_update(c, mb, cause) == -1)
				rc = IMAP_FETCH_LOCAL;
			/*
			 * The indexes as they were: made with the third
			 * batch from the end, while the server answers the
			 * last two (both asked for first), whose rows go
			 * into them; with the last one in any case (a sync
			 * killed before may have left them out).
			 */
			if (rc == IMAP_FETCH_OK && deferred &&
			    done + 3 == nbatch && imap_sync_send(&p, done + 2,
			    cause) == -1) {
				cache_rollback(c);
				rc = IMAP_FETCH_BROKEN;
				goto out;
			}
			if (rc == IMAP_FETCH_OK && (off == 0 || (deferred &&
			    done + 3 == nbatch)) &&
			    cache_index_build(c, cause) == -1)
				rc = IMAP_FETCH_LOCAL;
		}
		if (rc == IMAP_FETCH_OK && cache_commit(c, cause) == -1)
			rc = IMAP_FETCH_LOCAL;
		else if (rc == IMAP_FETCH_OK) {
			*fetched += st.batch_fetched;
			if (down && (off == 0 || done + 3 == nbatch))
				deferred = 0;
		}
		/*
		 * The connection broke in the middle of the answer: what came
		 * before, if it is the batch's first UIDs in order, is kept,
		 * and the next sync asks for the rest (it asks for UIDs above
		 * the highest cached, so nothing kept may lie beyond a gap).
		 */
		if (rc == IMAP_FETCH_BROKEN && !st.scattered &&
		    st.inorder > 0) {
			/*
			 * Going down, the rows kept lie below lowuid with a
			 * gap above them: the next sync fetches the rest
			 * below lowuid and leaves these out. A first batch
			 * cut short sets lowuid to its lowest UID: above
			 * what came, the UIDs past the highest cached are
			 * asked for anyway.
			 */
			if (down && mb->lowuid == 0) {
				mb->lowuid = uids != NULL ? uids[off] :
				    st.low[done];
				if (cache_mailbox_update(c, mb, &why) == -1) {
					free(why);
					why = NULL;
					cache_rollback(c);
					done++;
					break;
				}
			}
			if (cache_commit(c, &why) == 0) {
				*fetched += st.batch_fetched;
				log_msg(LOG_INFO, "sync: the connection broke; "
				    "%zu headers of the batch kept",
				    st.inorder);
			} else {
				free(why);
				cache_rollback(c);
			}
			why = NULL;
			done++;
			break;
		}
		if (rc != IMAP_FETCH_OK) {
			cache_rollback(c);
			done++;		/* its answer was read */
			break;
		}
		fe_progress("fetching headers", *fetched, n);
		/* Asked to stop: what is stored stays, the next sync goes on. */
		if (fe_cancelled()) {
			stop = 1;
			done++;
			break;
		}
	}
	/* Stopped early: read what is still coming, to stay in step. */
	if (rc == IMAP_FETCH_REFUSED || rc == IMAP_FETCH_LOCAL || stop) {
		for (; done < p.sent; done++) {
			imap_sync_tag(tag, sizeof tag, done);
			drc = imap_fetch_response(r, tag, NULL, NULL, &why);
			free(why);
			why = NULL;
			if (drc == IMAP_FETCH_BROKEN) {
				rc = IMAP_FETCH_BROKEN;
				break;
			}
		}
	}
out:
	if (rc == IMAP_FETCH_BROKEN)
		imap_sync_unusable(imap);
	/* stopped short: the indexes made now, not left to the next sync */
	if (deferred && cache_index_build(c, &why) == -1) {
		log_msg(LOG_INFO, "sync: %s", why);
		free(why);
		why = NULL;
	}
	imap_fetch_free(r);
	buf_free(&p.set);
	buf_free(&st.from);
	buf_free(&st.subject);
	buf_free(&st.rcpt);
	buf_free(&st.addr);
	free(st.low);
	if (stop && rc == IMAP_FETCH_OK) {
		*cause = xstrdup("stopped as asked");
		return -1;
	}
	return rc == IMAP_FETCH_OK ? 0 : -1;
}

/*
 * Headers that an older cache schema stored without what the index needs
 * now (cache_stale): fetch them again, flags and all. They are not new:
 * the trust step has seen them, and the count of new messages stays.
 */
static int
imap_sync_refetch(mailimap *imap, struct cache *c, struct cache_mailbox *mb,
    char **cause)
{
	uint32_t	*uids, again = 0;
	size_t		 n;
	int		 rc;

	if (cache_stale(c, mb, &uids, &n, cause) == -1)
		return -1;
	rc = imap_sync_fetch_new(imap, c, mb, uids, n, 0, &again, cause);
	free(uids);
	if (rc == 0 && n > 0)
		log_msg(LOG_INFO, "sync: %u headers fetched again for the "
		    "index", again);
	return rc;
}

/* What the streamed FETCH of every flag stores into. */
struct imap_sync_flagged {
	struct cache		*c;
	struct cache_mailbox	*mb;
	uint32_t		*changed;
};

static int
imap_sync_flag_one(const struct imap_fetch_msg *fm, void *arg, char **cause)
{
	struct imap_sync_flagged	*f = arg;
	int				 rc;

	if (fm->uid == 0 || fm->uid > f->mb->maxuid || !fm->has_flags)
		return 0;
	if ((rc = cache_set_flags(f->c, f->mb, fm->uid, fm->flags,
	    cause)) == -1)
		return -1;
	/* every message comes: count changes only */
	if (rc == 1)
		(*f->changed)++;
	return 0;
}

/*
 * The flags of every message up to maxuid, read by the streaming reader
 * (imap-fetch.h) as they come, not held as libetpan's list of the whole
 * answer (some 400 bytes a message).
 */
static int
imap_sync_flags_all(mailimap *imap, struct cache *c, struct cache_mailbox *mb,
    uint32_t *changed, char **cause)
{
	struct imap_sync_flagged	 f;
	struct imap_fetch		*r;
	char				*set;
	int				 rc;

	set = xasprintf("1:%u", mb->maxuid);
	rc = imap_fetch_send(imap->imap_stream, "F1", set, 0, cause);
	free(set);
	if (rc == -1) {
		imap_sync_unusable(imap);
		return -1;
	}
	r = imap_fetch_new_stream(imap->imap_stream);
	if (imap->imap_selection_info != NULL)
		imap_fetch_track_exists(r,
		    &imap->imap_selection_info->sel_exists);
	f.c = c;
	f.mb = mb;
	f.changed = changed;
	if (cache_begin(c, cause) == -1) {
		/* read the answer all the same, to stay in step */
		rc = imap_fetch_response(r, "F1", NULL, NULL, cause);
		imap_fetch_free(r);
		if (rc == IMAP_FETCH_BROKEN)
			imap_sync_unusable(imap);
		return -1;
	}
	rc = imap_fetch_response(r, "F1", imap_sync_flag_one, &f, cause);
	if (rc == IMAP_FETCH_OK && cache_commit(c, cause) == -1)
		rc = IMAP_FETCH_LOCAL;
	if (rc != IMAP_FETCH_OK)
		cache_rollback(c);
	if (rc == IMAP_FETCH_BROKEN)
		imap_sync_unusable(imap);
	imap_fetch_free(r);
	return rc == IMAP_FETCH_OK ? 0 : -1;
}

/* Flags of messages up to maxuid: changed since modseq, or all of them. */
static int
imap_sync_flags_update(mailimap *imap, struct cache *c,
    struct cache_mailbox *mb, int condstore, uint64_t since,
    uint32_t *changed, char **cause)
{
	struct mailimap_fetch_type	*ft;
	struct mailimap_set		*set;
	struct imap_sync_att		 a;
	clist				*res = NULL;
	clistiter			*it;
	char				 flags[8];
	int				 err, rc = 0;

	if (mb->maxuid == 0)
		return 0;
	if (!condstore || since == 0)
		return imap_sync_flags_all(imap, c, mb, changed, cause);
	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_flags());
	set = mailimap_set_new_interval(1, mb->maxuid);
	if (condstore && since > 0)
		err = mailimap_uid_fetch_changedsince(imap, set, ft, since,
		    &res);
	else
		err = mailimap_uid_fetch(imap, set, ft, &res);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "UID FETCH FLAGS", err);
		return -1;
	}
	if (cache_begin(c, cause) == -1) {
		mailimap_fetch_list_free(res);
		return -1;
	}
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		imap_sync_parse(clist_content(it), &a);
		if (a.uid == 0 || a.uid > mb->maxuid || a.dyn == NULL)
			continue;
		imap_sync_flags(a.dyn, flags);
		if ((rc = cache_set_flags(c, mb, a.uid, flags, cause)) == -1)
			break;
		/* without CONDSTORE every message comes: count changes only */
		if (rc == 1)
			(*changed)++;
		rc = 0;
	}
	mailimap_fetch_list_free(res);
	if (rc == -1 || cache_commit(c, cause) == -1) {
		cache_rollback(c);
		return -1;
	}
	return 0;
}

static void
imap_sync_qresync_free(clist *fetched, struct mailimap_qresync_vanished *v)
{
	if (fetched != NULL)
		mailimap_fetch_list_free(fetched);
	if (v != NULL)
		mailimap_qresync_vanished_free(v);
}

/*
 * What a FETCH with QRESYNC told: the flags of the messages that changed
 * since the modseq given, and the UIDs expunged since (VANISHED
 * (EARLIER)), into the cache in one transaction.
 */
static int
imap_sync_qresync_apply(struct cache *c, struct cache_mailbox *mb,
    clist *fetched, const struct mailimap_qresync_vanished *vanished,
    uint64_t *modseq, uint32_t *top, struct imap_sync_stats *st,
    char **cause)
{
	struct mailimap_set_item	*si;
	struct imap_sync_att		 a;
	clistiter			*it;
	char				 flags[8];
	int				 rc;

	if (cache_begin(c, cause) == -1)
		return -1;
	for (it = fetched != NULL ? clist_begin(fetched) : NULL; it != NULL;
	    it = clist_next(it)) {
		imap_sync_parse(clist_content(it), &a);
		if (a.modseq > *modseq)
			*modseq = a.modseq;
		if (a.uid > *top)
			*top = a.uid;
		if (a.uid == 0 || a.dyn == NULL)
			continue;
		imap_sync_flags(a.dyn, flags);
		if ((rc = cache_set_flags(c, mb, a.uid, flags, cause)) == -1)
			goto fail;
		if (rc == 1)
			st->flags_changed++;
	}
	if (vanished != NULL && vanished->qr_known_uids != NULL) {
		for (it = clist_begin(vanished->qr_known_uids->set_list);
		    it != NULL; it = clist_next(it)) {
			si = clist_content(it);
			if ((rc = cache_delete_range(c, mb, si->set_first,
			    si->set_last == 0 ? UINT32_MAX : si->set_last,
			    cause)) == -1)
				goto fail;
			st->expunged += (uint32_t)rc;
		}
	}
	if (cache_commit(c, cause) == -1)
		goto fail;
	st->qresync = 1;
	log_msg(LOG_INFO, "sync: QRESYNC: %u flag updates, %u vanished",
	    st->flags_changed, st->expunged);
	return 0;
fail:
	cache_rollback(c);
	return -1;
}

/* A HIGHESTMODSEQ the server said with the last answer, into *modseq. */
static void
imap_sync_highestmodseq(mailimap *imap, uint64_t *modseq)
{
	struct mailimap_response_info		*ri = imap->imap_response_info;
	struct mailimap_extension_data		*ext;
	struct mailimap_condstore_resptextcode	*code;
	clistiter				*it;

	if (ri == NULL || ri->rsp_extension_list == NULL)
		return;
	for (it = clist_begin(ri->rsp_extension_list); it != NULL;
	    it = clist_next(it)) {
		ext = clist_content(it);
		if (ext == NULL || ext->ext_extension == NULL ||
		    ext->ext_extension->ext_id != MAILIMAP_EXTENSION_CONDSTORE ||
		    ext->ext_type != MAILIMAP_CONDSTORE_TYPE_RESP_TEXT_CODE ||
		    (code = ext->ext_data) == NULL)
			continue;
		if (code->cs_type == MAILIMAP_CONDSTORE_RESPTEXTCODE_HIGHESTMODSEQ)
			*modseq = code->cs_data.cs_modseq_value;
	}
}

/*
 * UID FETCH 1:last (UID FLAGS) (CHANGEDSINCE since VANISHED), last 0 for
 * "*": the flags that changed and the UIDs expunged, in one answer. The
 * highest MODSEQ in it (or since), or a HIGHESTMODSEQ said with it, into
 * *modseq; the highest UID in it (or 0) into *top.
 */
static int
imap_sync_qresync(mailimap *imap, struct cache *c, struct cache_mailbox *mb,
    uint64_t since, uint32_t last, uint64_t *modseq, uint32_t *top,
    struct imap_sync_stats *st, char **cause)
{
	struct mailimap_fetch_type	 *ft;
	struct mailimap_set		 *set;
	struct mailimap_qresync_vanished *vanished = NULL;
	clist				 *res = NULL;
	int				  err, rc;

	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_flags());
	set = mailimap_set_new_interval(1, last);
	*modseq = since;
	*top = 0;
	err = mailimap_uid_fetch_qresync(imap, set, ft, since, &res,
	    &vanished);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "UID FETCH (VANISHED)", err);
		return -1;
	}
	rc = imap_sync_qresync_apply(c, mb, res, vanished, modseq, top, st,
	    cause);
	imap_sync_qresync_free(res, vanished);
	imap_sync_highestmodseq(imap, modseq);
	if (rc == 0)
		rc = cache_recount(c, mb, cause);
	return rc;
}

/* The messages above the highest UID cached, the lowest first. */
static int
imap_sync_above(mailimap *imap, struct cache *c, struct cache_mailbox *mb,
    uint32_t *fetched, char **cause)
{
	uint32_t	*uids = NULL;
	size_t		 nuids = 0;
	int		 rc;

	if (imap_sync_search(imap, mb->maxuid + 1, 0, &uids, &nuids,
	    cause) == -1)
		return -1;
	qsort(uids, nuids, sizeof *uids, imap_sync_cmp);
	rc = imap_sync_fetch_new(imap, c, mb, uids, nuids, 0, fetched, cause);
	free(uids);
	return rc;
}

/*
 * The mailbox is still selected from an earlier command (IDLE woke up,
 * say): a sync without a new SELECT, which on a large mailbox costs the
 * server seconds where a NOOP costs it milliseconds (doc/bench.md).
 * First the new messages, as a warm sync fetches them (the SEARCH also
 * has the server tell of any it had not yet). Then, with QRESYNC, one
 * FETCH of every UID changed since the cached modseq: flags, expunges
 * (VANISHED (EARLIER)), and the MODSEQ of each message in it, the new
 * ones too. The highest of those is how far the cache is current, as
 * the SELECT's HIGHESTMODSEQ would be: everything the server changed up
 * to there is in the answer (RFC 7162 makes a server that holds back
 * an expunge say a lower HIGHESTMODSEQ, which then counts). A message
 * that comes later has a higher one, and a UID above the cache's. 1
 * done, 0 not for this cache (a whole sync does it: nothing cached, no
 * modseq, or a newest-first sync left unfinished), -1.
 */
static int
imap_sync_selected(mailimap *imap, struct cache *c, const char *mailbox,
    struct imap_sync_stats *st, char **cause)
{
	struct mailimap_selection_info	*sel = imap->imap_selection_info;
	struct cache_mailbox		*mb = &st->mb;
	uint64_t			 modseq;
	uint32_t			 top;
	char				*why = NULL;
	int				 rc;

	if (sel == NULL || !imap_frame_qresynced(imap->imap_stream))
		return 0;
	if ((rc = cache_mailbox_find(c, mailbox, mb, &why)) == -1) {
		*cause = why;
		return -1;
	}
	if (rc == 0 || mb->uidvalidity != sel->sel_uidvalidity ||
	    mb->highestmodseq == 0 || mb->maxuid == 0 || mb->lowuid != 0)
		return 0;
	log_msg(LOG_INFO, "sync: %s selected already: what changed since "
	    "modseq %llu", mailbox, (unsigned long long)mb->highestmodseq);
	/* (imap_sync_qresync() counts the cache again: maxuid is current) */
	if (imap_sync_above(imap, c, mb, &st->fetched, cause) == -1 ||
	    imap_sync_qresync(imap, c, mb, mb->highestmodseq, 0, &modseq, &top,
	    st, cause) == -1)
		return -1;
	/*
	 * A message the server told of only after the SEARCH (Dovecot
	 * says EXISTS at the end of a command) is in the FETCH's answer:
	 * fetched now, or the modseq stays where it was.
	 */
	if (top > mb->maxuid &&
	    (imap_sync_above(imap, c, mb, &st->fetched, cause) == -1 ||
	    cache_recount(c, mb, cause) == -1))
		return -1;
	if (top > mb->maxuid)
		modseq = mb->highestmodseq;
	if (cache_index_build(c, cause) == -1 ||
	    imap_sync_refetch(imap, c, mb, cause) == -1 ||
	    cache_recount(c, mb, cause) == -1)
		return -1;
	/*
	 * The count is the cache's. libetpan's (what IDLE compares with
	 * it) stays as the server's EXISTS set it: a message it told of
	 * during this sync and not fetched yet wakes the next one.
	 */
	st->exists = mb->count;
	if (mb->uidnext < mb->maxuid + 1)
		mb->uidnext = mb->maxuid + 1;
	mb->highestmodseq = modseq;
	if (cache_mailbox_update(c, mb, cause) == -1)
		return -1;
	log_msg(LOG_INFO, "sync: %u messages, %u fetched, %u flag updates, "
	    "%u expunged, modseq %llu", st->exists, st->fetched,
	    st->flags_changed, st->expunged, (unsigned long long)modseq);
	return 1;
}

int
imap_sync(mailimap *imap, struct cache *c, const char *mailbox,
    int selected, struct imap_sync_stats *st, char **cause)
{
	struct mailimap_selection_info	*sel;
	struct cache_mailbox		*mb = &st->mb;
	uint64_t			 modseq = 0, since;
	uint32_t			*uids = NULL, *all = NULL;
	size_t				 nuids = 0, nall = 0;
	char				*wire;
	int				 err;

	memset(st, 0, sizeof *st);
	st->condstore = imap_session_offers(imap, "CONDSTORE");
	if (selected && st->condstore &&
	    (err = imap_sync_selected(imap, c, mailbox, st, cause)) != 0)
		return err == 1 ? 0 : -1;
	if ((wire = imap_name_encode(mailbox, cause)) == NULL)
		return -1;
	if (st->condstore)
		err = mailimap_select_condstore(imap, wire, &modseq);
	else
		err = mailimap_select(imap, wire);
	free(wire);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(imap, "SELECT", err);
		return -1;
	}
	sel = imap->imap_selection_info;
	st->exists = sel->sel_exists;
	if (cache_mailbox(c, mailbox, sel->sel_uidvalidity, mb, cause) == -1)
		return -1;
	since = mb->highestmodseq;

	if (st->condstore && modseq != 0 && since == modseq &&
	    mb->uidnext == sel->sel_uidnext && mb->count == sel->sel_exists) {
		st->unchanged = 1;
		log_msg(LOG_INFO, "sync: nothing changed (modseq %llu)",
		    (unsigned long long)modseq);
		return 0;
	}

	/*
	 * Flags first, on what was cached, then the new messages. With
	 * QRESYNC (RFC 7162) and a modseq cached, one FETCH of what changed
	 * since also says which UIDs were expunged (VANISHED), instead of
	 * a SEARCH of every UID below.
	 */
	if (st->condstore && since != 0 && mb->maxuid != 0 &&
	    imap_frame_qresynced(imap->imap_stream)) {
		uint64_t	seen;
		uint32_t	top;

		if (imap_sync_qresync(imap, c, mb, since, mb->maxuid, &seen,
		    &top, st, cause) == -1)
			return -1;
	} else if (imap_sync_flags_update(imap, c, mb, st->condstore, since,
	    &st->flags_changed, cause) == -1)
		return -1;
	/*
	 * The new messages: a cold cache the newest first, going back (the
	 * index shows the newest screenful at once); a warm one from the
	 * lowest up, so that what is cached stays one run of UIDs up to its
	 * highest. Then, going down, those older than where a newest-first
	 * sync cut short or killed had come to (lowuid).
	 */
	if (mb->count == 0 && st->exists > 0) {
		/*
		 * Nothing cached: every message is new, and the newest
		 * screenful is asked for at once by sequence numbers,
		 * without a SEARCH of every UID first. Going down, an
		 * expunge meanwhile (the server sends none during a FETCH
		 * by sequence numbers) would move only the messages above
		 * it, which are fetched already: nothing is missed.
		 */
		if (imap_sync_fetch_new(imap, c, mb, NULL, st->exists, 1,
		    &st->fetched, cause) == -1)
			return -1;
	} else if (sel->sel_uidnext == 0 ||
	    sel->sel_uidnext > mb->maxuid + 1 ||
	    mb->count + 0u != sel->sel_exists) {
		if (imap_sync_above(imap, c, mb, &st->fetched, cause) == -1)
			return -1;
	}
	if (mb->lowuid > 1) {
		if (imap_sync_search(imap, 1, mb->lowuid - 1, &uids, &nuids,
		    cause) == -1)
			return -1;
		qsort(uids, nuids, sizeof *uids, imap_sync_cmp);
		/* less what a batch cut short kept down there */
		if (cache_uncached(c, mb, uids, &nuids, cause) == -1) {
			free(uids);
			return -1;
		}
		if (imap_sync_fetch_new(imap, c, mb, uids, nuids, 1,
		    &st->fetched, cause) == -1) {
			free(uids);
			return -1;
		}
		free(uids);
		uids = NULL;
	}
	mb->lowuid = 0;
	/* the indexes a sync killed while it went down left out */
	if (cache_index_build(c, cause) == -1)
		return -1;
	if (imap_sync_refetch(imap, c, mb, cause) == -1 ||
	    cache_recount(c, mb, cause) == -1) {
		free(uids);
		return -1;
	}

	/* More cached than the server has: some were expunged. */
	if (mb->count > sel->sel_exists) {
		uint32_t before = mb->count;
		if (imap_sync_search(imap, 1, 0, &all, &nall, cause) == -1) {
			free(uids);
			return -1;
		}
		qsort(all, nall, sizeof *all, imap_sync_cmp);
		if (cache_begin(c, cause) == -1 ||
		    cache_delete_missing(c, mb, all, nall, mb->maxuid,
		    cause) == -1 || cache_commit(c, cause) == -1) {
			cache_rollback(c);
			free(all);
			free(uids);
			return -1;
		}
		free(all);
		if (cache_recount(c, mb, cause) == -1) {
			free(uids);
			return -1;
		}
		st->expunged += before - mb->count;
	}
	free(uids);

	mb->uidnext = sel->sel_uidnext;
	mb->highestmodseq = modseq;
	if (cache_mailbox_update(c, mb, cause) == -1)
		return -1;
	log_msg(LOG_INFO, "sync: %u messages, %u fetched, %u flag updates, "
	    "%u expunged", st->exists, st->fetched, st->flags_changed,
	    st->expunged);
	return 0;
}
