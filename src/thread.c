/*
 * thread.c: the threading of thread.h, after Jamie Zawinski's description
 * of the Netscape algorithm (the one mutt uses).
 *
 * Every Message-ID seen, as a message's own or in another's References,
 * gets a box; a box without a message stands for a parent that is not in
 * the mailbox. References link the boxes into chains (never into a loop:
 * a link that would close one is not made), and each message's box hangs
 * under the last of its own References (or its In-Reply-To when it has
 * none). The empty boxes are then left out of what is shown: a message
 * hangs under its nearest ancestor that is a message, and the messages
 * with none are the top of their thread, which is everything under one
 * topmost box. Nothing is grouped by subject.
 *
 * Nothing here recurses, and ids are looked up in one hash table, so a
 * mailbox of 100,000 messages threads in a fraction of a second
 * (doc/bench.md). A link is checked for a loop only when the box to be
 * hung has children of its own, and then by at most THREAD_WALK steps up
 * (giving up counts as a loop: a thread deeper than that may be cut in
 * two where References disagree), so hostile References cannot make the
 * work grow with the square of the mailbox.
 */
#include <stdlib.h>
#include <string.h>

#include "thread.h"
#include "xmalloc.h"

#define THREAD_WALK	1024	/* ancestors checked for a loop, at most */

struct thread_box {
	const char	*id;
	uint32_t	 len;
	int32_t		 msg;		/* -1: a parent not in the mailbox */
	int32_t		 parent;	/* -1: none */
	int		 kids;		/* ever had a child linked */
};

struct thread_ctx {
	struct thread_box	*box;
	size_t			 nbox, cap;
	int32_t			*hash;		/* box indices, -1 empty */
	size_t			 mask;
};

int
thread_id_next(const char **p, const char **id, size_t *len)
{
	const char	*s = *p, *lt, *gt;

	if (s == NULL)
		return 0;
	for (;;) {
		if ((lt = strchr(s, '<')) == NULL)
			return 0;
		gt = lt + 1;
		while (*gt != '\0' && *gt != '>' && *gt != '<')
			gt++;
		if (*gt == '>')
			break;
		if (*gt == '\0')
			return 0;
		s = gt;
	}
	*id = lt;
	*len = (size_t)(gt + 1 - lt);
	*p = gt + 1;
	return 1;
}

static uint32_t
thread_hash(const char *s, size_t len)
{
	uint32_t	h = 2166136261u;
	size_t		i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static int32_t
thread_box_new(struct thread_ctx *t, const char *id, size_t len)
{
	struct thread_box	*b;

	/* The caller counted every id: the array never needs to grow. */
	b = &t->box[t->nbox];
	b->id = id;
	b->len = (uint32_t)len;
	b->msg = -1;
	b->parent = -1;
	b->kids = 0;
	return (int32_t)t->nbox++;
}

/* The box of id, made if there is none yet. */
static int32_t
thread_box_get(struct thread_ctx *t, const char *id, size_t len)
{
	size_t			 i = thread_hash(id, len) & t->mask;
	struct thread_box	*b;
	int32_t			 k;

	while ((k = t->hash[i]) != -1) {
		b = &t->box[k];
		if (b->len == len && memcmp(b->id, id, len) == 0)
			return k;
		i = (i + 1) & t->mask;
	}
	k = thread_box_new(t, id, len);
	t->hash[i] = k;
	return k;
}

/* Is a among the ancestors of b, or b itself? Yes, too, if unsure. */
static int
thread_above(const struct thread_ctx *t, int32_t a, int32_t b)
{
	int	n;

	for (n = 0; b != -1 && n < THREAD_WALK; n++) {
		if (b == a)
			return 1;
		b = t->box[b].parent;
	}
	return b != -1;
}

/*
 * Hang child under parent, unless that would close a loop. A box that
 * never had a child cannot be above another, which spares the walk for
 * almost every link.
 */
static void
thread_link(struct thread_ctx *t, int32_t parent, int32_t child)
{
	if (parent == child || (t->box[child].kids &&
	    thread_above(t, child, parent)))
		return;
	t->box[child].parent = parent;
	t->box[parent].kids = 1;
}

/* Boxes for message i and its references; the message's parent set. */
static void
thread_add(struct thread_ctx *t, const struct thread_msg *m, int32_t i)
{
	const char	*p, *id;
	size_t		 len;
	int32_t		 self = -1, prev = -1, r;

	p = m->message_id;
	if (thread_id_next(&p, &id, &len))
		self = thread_box_get(t, id, len);
	if (self == -1 || t->box[self].msg != -1)	/* none, or twice */
		self = thread_box_new(t, "", 0);
	t->box[self].msg = i;

	p = m->references;
	if (p == NULL || strchr(p, '<') == NULL)
		p = m->in_reply_to;
	while (thread_id_next(&p, &id, &len)) {
		r = thread_box_get(t, id, len);
		if (r == self)
			continue;
		if (prev != -1 && t->box[r].parent == -1)
			thread_link(t, prev, r);
		prev = r;
	}
	/* The message's own References decide its parent. */
	t->box[self].parent = -1;
	if (prev != -1)
		thread_link(t, prev, self);
}

/* How many boxes the messages can need. */
static size_t
thread_count_ids(const struct thread_msg *msgs, size_t n)
{
	const char	*p;
	size_t		 i, count = n;

	for (i = 0; i < n; i++) {
		for (p = msgs[i].references; p != NULL && *p != '\0'; p++)
			count += *p == '<';
		for (p = msgs[i].in_reply_to; p != NULL && *p != '\0'; p++)
			count += *p == '<';
	}
	return count;
}

/*
 * For every box: its nearest ancestor with a message (rp) and its topmost
 * ancestor (root), without recursion.
 */
static void
thread_resolve(const struct thread_ctx *t, int32_t *rp, int32_t *root)
{
	int32_t	*path, b, p;
	size_t	 i, n;

	path = xreallocarray(NULL, t->nbox, sizeof *path);
	for (i = 0; i < t->nbox; i++)
		root[i] = -2;
	for (i = 0; i < t->nbox; i++) {
		n = 0;
		for (b = (int32_t)i; b != -1 && root[b] == -2;
		    b = t->box[b].parent)
			path[n++] = b;
		while (n > 0) {
			b = path[--n];
			p = t->box[b].parent;
			if (p == -1) {
				rp[b] = -1;
				root[b] = b;
			} else {
				rp[b] = t->box[p].msg != -1 ? p : rp[p];
				root[b] = root[p];
			}
		}
	}
	free(path);
}

static int
thread_cmp(const void *a, const void *b, void *arg)
{
	const struct thread_msg	*msgs = arg;
	uint32_t		 i = *(const uint32_t *)a;
	uint32_t		 j = *(const uint32_t *)b;
	time_t			 di = msgs[i].date, dj = msgs[j].date;

	if (di != dj)
		return di < dj ? -1 : 1;
	return i < j ? -1 : i > j;
}

void
thread_build(const struct thread_msg *msgs, size_t n, int reverse,
    struct thread_pos *out)
{
	struct thread_ctx	 t;
	int32_t			*rp, *root, *msgbox, *first, *next, *top;
	int32_t			*threads, b, m, r;
	uint32_t		*ord, depth, thread;
	size_t			 i, k, hsize, nthreads = 0, o = 0;

	if (n == 0)
		return;
	memset(&t, 0, sizeof t);
	t.cap = thread_count_ids(msgs, n);
	t.box = xreallocarray(NULL, t.cap, sizeof *t.box);
	for (hsize = 16; hsize < 2 * t.cap; hsize *= 2)
		;
	t.mask = hsize - 1;
	t.hash = xreallocarray(NULL, hsize, sizeof *t.hash);
	memset(t.hash, 0xff, hsize * sizeof *t.hash);
	for (i = 0; i < n; i++)
		thread_add(&t, &msgs[i], (int32_t)i);

	rp = xreallocarray(NULL, t.nbox, sizeof *rp);
	root = xreallocarray(NULL, t.nbox, sizeof *root);
	thread_resolve(&t, rp, root);

	msgbox = xreallocarray(NULL, n, sizeof *msgbox);
	for (i = 0; i < t.nbox; i++)
		if (t.box[i].msg != -1)
			msgbox[t.box[i].msg] = (int32_t)i;
	ord = xreallocarray(NULL, n, sizeof *ord);
	for (i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	qsort_r(ord, n, sizeof *ord, thread_cmp, (void *)msgs);

	/* Children and tops, each list in date order. */
	first = xreallocarray(NULL, n, sizeof *first);
	next = xreallocarray(NULL, n, sizeof *next);
	top = xreallocarray(NULL, t.nbox, sizeof *top);
	memset(first, 0xff, n * sizeof *first);
	memset(top, 0xff, t.nbox * sizeof *top);
	for (k = n; k-- > 0;) {
		m = (int32_t)ord[k];
		b = msgbox[m];
		if (rp[b] != -1) {
			next[m] = first[t.box[rp[b]].msg];
			first[t.box[rp[b]].msg] = m;
		} else {
			next[m] = top[root[b]];
			top[root[b]] = m;
		}
	}
	/* Threads by their earliest message. */
	threads = xreallocarray(NULL, n, sizeof *threads);
	for (k = 0; k < n; k++) {
		r = root[msgbox[ord[k]]];
		if (top[r] != -1 && t.box[r].parent != -2) {
			threads[nthreads++] = r;
			t.box[r].parent = -2;	/* seen */
		}
	}

	for (k = 0; k < nthreads; k++) {
		r = threads[reverse ? nthreads - 1 - k : k];
		thread = (uint32_t)k;
		m = top[r];
		depth = 0;
		while (m != -1) {
			b = msgbox[m];
			out[o].msg = (uint32_t)m;
			out[o].depth = depth;
			out[o].thread = thread;
			out[o].flags = next[m] == -1 ? THREAD_LAST : 0;
			if (t.box[b].parent != -1 && t.box[b].parent != -2 &&
			    t.box[t.box[b].parent].msg == -1)
				out[o].flags |= THREAD_ORPHAN;
			o++;
			if (first[m] != -1) {
				m = first[m];
				depth++;
				continue;
			}
			while (m != -1 && next[m] == -1) {
				b = msgbox[m];
				m = rp[b] != -1 ? t.box[rp[b]].msg : -1;
				depth--;
			}
			if (m != -1)
				m = next[m];
		}
	}

	free(threads);
	free(top);
	free(next);
	free(first);
	free(ord);
	free(msgbox);
	free(root);
	free(rp);
	free(t.hash);
	free(t.box);
}
