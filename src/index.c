/*
 * index.c: the paged, sorted, searchable message list of index.h.
 *
 * index_open() copies a mailbox's rows out of the header cache into one
 * array, its strings into an arena: the cache may change under a sync
 * while the snapshot is read. A view (sort, direction, search) is made
 * the first time a page of it is asked for: the messages that match, in
 * order, as indices into the array; the next view replaces it. A page is
 * then a slice of that order, plus one trust_store_states() call for its
 * rows. Nothing here writes to the cache or the trust store, or prints.
 *
 * A message's protected header values (cache.h) replace the outer ones
 * field by field as the snapshot is read, as the pager shows them, so
 * that sorts, threads and searches see what the reader sees; the outer
 * Message-ID is kept for the trust store, which knows messages by it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "thread.h"
#include "xmalloc.h"

#define INDEX_ARENA	(256 * 1024)	/* bytes an arena chunk holds */
#define INDEX_TERMS	32		/* terms in a search, at most */

struct index_chunk {
	struct index_chunk	*next;
	size_t			 used, size;
	char			 data[];
};

struct index_msg {
	uint32_t	 uid;
	char		 flags[8];
	time_t		 date, arrival;
	uint32_t	 size;
	unsigned	 hints;
	unsigned	 prot;		/* INDEX_PROT_* */
	int		 stale;
	int		 sealed;
	const char	*name, *addr, *rcpt, *subject;
	const char	*mid, *irt, *refs, *omid;
	/*
	 * Sort keys, folded to lower case (ASCII): the first 8 bytes as a
	 * number, compared first, and the whole string after it.
	 */
	uint64_t	 fpre, spre;
	const char	*fkey, *skey;
};

struct index {
	struct index_msg	*m;
	size_t			 n, cap;
	struct index_chunk	*arena;

	/* The view last made. */
	int			 have_view;
	enum index_sort		 sort;
	int			 reverse;
	char			*limit;
	uint32_t		*order;		/* indices into m */
	struct thread_pos	*tpos;		/* thread sort: per place */
	size_t			 norder;

	/* Collapsed threads (thread sort): a flag per thread, and the
	 * places still shown (NULL: all of them). */
	uint8_t			*collapsed;
	size_t			 nthreads;
	uint32_t		*shown;
	size_t			 nshown;

	const uint32_t		*uids;		/* the view's, not ours */
	size_t			 nuids;

	/* Views of every message made before, by sort and direction, so
	 * that going back to one costs nothing (index_prepare()). */
	struct index_stash {
		uint32_t		*order;
		struct thread_pos	*tpos;
		size_t			 norder;
	}			 stash[INDEX_SORT_THREAD + 1][2];
};

/* A search term (doc/index.md). */
struct index_term {
	int		 what;		/* 'f', 's', 't', 'N', 'F', 'D', 'w' */
	int		 not;
	char		*word;
};

static const char *
index_strdup(struct index *ix, const char *s)
{
	struct index_chunk	*c = ix->arena;
	size_t			 len;
	char			*p;

	if (s == NULL)
		return NULL;
	len = strlen(s) + 1;
	if (c == NULL || c->size - c->used < len) {
		c = xmalloc(sizeof *c + (len > INDEX_ARENA ? len :
		    INDEX_ARENA));
		c->size = len > INDEX_ARENA ? len : INDEX_ARENA;
		c->used = 0;
		c->next = ix->arena;
		ix->arena = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	c->used += len;
	return p;
}

/* The subject without reply and forward prefixes, for sorting. */
static const char *
index_subject_key(const char *s)
{
	static const char	*prefixes[] = { "re", "fwd", "fw", "aw", "sv",
				     "wg", "tr" };
	size_t			 i, n;
	const char		*p;
	int			 again;

	if (s == NULL)
		return "";
	do {
		again = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
			n = strlen(prefixes[i]);
			if (strncasecmp(s, prefixes[i], n) != 0)
				continue;
			p = s + n;
			if (*p == '[') {	/* "Re[2]:" */
				while (isdigit((unsigned char)*++p))
					;
				if (*p++ != ']')
					continue;
			}
			if (*p == ':') {
				s = p + 1;
				again = 1;
				break;
			}
		}
	} while (again);
	return s;
}

/* s folded to lower case into the arena, its first bytes into *pre. */
static const char *
index_fold(struct index *ix, const char *s, uint64_t *pre)
{
	char	*f;
	size_t	 i;

	f = (char *)index_strdup(ix, s);
	*pre = 0;
	for (i = 0; f[i] != '\0'; i++) {
		if (f[i] >= 'A' && f[i] <= 'Z')
			f[i] = (char)(f[i] - 'A' + 'a');
		if (i < 8)
			*pre |= (uint64_t)(unsigned char)f[i] << (56 - 8 * i);
	}
	return f;
}

/*
 * Does an encrypted message's outer Subject only stand in for the real
 * one (RFC 9788's "[...]", the "..." of steedmail and others, nothing)?
 */
static int
index_placeholder(const char *s)
{
	if (s == NULL)
		return 1;
	s += strspn(s, " \t");
	return *s == '\0' || strcmp(s, "...") == 0 ||
	    strcmp(s, "[...]") == 0;
}

static int
index_load_one(const struct cache_msg *cm, void *arg)
{
	struct index			*ix = arg;
	struct index_msg		*m;
	const struct cache_protected	*p = cm->prot;
	const char			*from, *addr, *subject, *mid, *irt;
	const char			*refs, *rcpt;
	time_t				 sent;

	if (ix->n == ix->cap) {
		ix->cap = ix->cap == 0 ? 1024 : ix->cap * 2;
		ix->m = xreallocarray(ix->m, ix->cap, sizeof *ix->m);
	}
	m = &ix->m[ix->n++];
	memset(m, 0, sizeof *m);
	m->uid = cm->uid;
	memcpy(m->flags, cm->flags, sizeof m->flags);
	m->flags[sizeof m->flags - 1] = '\0';
	m->arrival = cm->internaldate;
	m->size = cm->size;
	m->hints = cm->hints;
	m->stale = cm->stale;

	/* The protected value of each field where there is one. */
	from = cm->from;
	addr = cm->from_addr;
	subject = cm->subject;
	mid = cm->message_id;
	irt = cm->in_reply_to;
	refs = cm->references;
	rcpt = cm->rcpt;
	sent = cm->sent;
	if (p != NULL && p->from_addr != NULL) {
		from = p->from;
		addr = p->from_addr;
		m->prot |= INDEX_PROT_FROM;
	}
	if (p != NULL && p->subject != NULL) {
		subject = p->subject;
		m->prot |= INDEX_PROT_SUBJECT;
	}
	if (p != NULL && p->rcpt != NULL) {
		rcpt = p->rcpt;
		m->prot |= INDEX_PROT_RCPT;
	}
	if (p != NULL && p->sent != 0) {
		sent = p->sent;
		m->prot |= INDEX_PROT_DATE;
	}
	if (p != NULL && (p->message_id != NULL || p->in_reply_to != NULL ||
	    p->references != NULL)) {
		if (p->message_id != NULL)
			mid = p->message_id;
		if (p->in_reply_to != NULL)
			irt = p->in_reply_to;
		if (p->references != NULL)
			refs = p->references;
		m->prot |= INDEX_PROT_THREAD;
	}
	m->sealed = p == NULL && (cm->hints & CACHE_HINT_ENCRYPTED) &&
	    index_placeholder(cm->subject);
	if (m->sealed)
		subject = NULL;

	m->date = sent != 0 ? sent : cm->internaldate;
	m->addr = index_strdup(ix, addr);
	/* The cache keeps the address as the name when there is none. */
	if (from != NULL && *from != '\0' && (addr == NULL ||
	    strcmp(from, addr) != 0))
		m->name = index_strdup(ix, from);
	m->rcpt = index_strdup(ix, rcpt);
	m->subject = index_strdup(ix, subject);
	m->skey = index_fold(ix, index_subject_key(m->subject), &m->spre);
	m->fkey = index_fold(ix, m->name != NULL ? m->name : m->addr != NULL ?
	    m->addr : "", &m->fpre);
	m->mid = index_strdup(ix, mid);
	m->omid = mid == cm->message_id ? m->mid :
	    index_strdup(ix, cm->message_id);
	m->irt = index_strdup(ix, irt);
	m->refs = index_strdup(ix, refs);
	return 0;
}

struct index *
index_open(struct cache *c, const char *folder, char **cause)
{
	return index_open_newest(c, folder, 0, cause);
}

struct index *
index_open_newest(struct cache *c, const char *folder, size_t limit,
    char **cause)
{
	struct index		*ix;
	struct cache_mailbox	 mb;
	struct index_msg	 t;
	size_t			 i;
	int			 rc;

	ix = xcalloc(1, sizeof *ix);
	rc = limit != 0 ? cache_mailbox_peek(c, folder, &mb, cause) :
	    cache_mailbox_find(c, folder, &mb, cause);
	if (rc == -1)
		goto fail;
	/* room for all at once: no copy of the array while it grows */
	if (rc == 1 && mb.count > 0) {
		ix->cap = limit != 0 && limit < mb.count ? limit : mb.count;
		ix->m = xreallocarray(NULL, ix->cap, sizeof *ix->m);
	}
	if (rc == 1 && cache_each_newest(c, &mb, limit, index_load_one, ix,
	    cause) == -1)
		goto fail;
	/* the snapshot is in UID order, the arrival sort's */
	for (i = 0; limit != 0 && i < ix->n / 2; i++) {
		t = ix->m[i];
		ix->m[i] = ix->m[ix->n - 1 - i];
		ix->m[ix->n - 1 - i] = t;
	}
	return ix;
fail:
	index_close(ix);
	return NULL;
}

void
index_close(struct index *ix)
{
	struct index_chunk	*c, *next;
	int			 i;

	if (ix == NULL)
		return;
	for (c = ix->arena; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(ix->m);
	free(ix->limit);
	free(ix->order);
	free(ix->tpos);
	free(ix->collapsed);
	free(ix->shown);
	for (i = 0; i <= INDEX_SORT_THREAD; i++) {
		free(ix->stash[i][0].order);
		free(ix->stash[i][0].tpos);
		free(ix->stash[i][1].order);
		free(ix->stash[i][1].tpos);
	}
	free(ix);
}

size_t
index_total(const struct index *ix)
{
	return ix->n;
}

/* Searching. */

static void
index_terms_free(struct index_term *t, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(t[i].word);
}

/* A word at *p: up to a space, or "quoted" (with \" and \\). */
static char *
index_word(const char **p)
{
	const char	*s = *p;
	char		*w, *o;

	w = o = xmalloc(strlen(s) + 1);
	if (*s == '"') {
		for (s++; *s != '\0' && *s != '"'; s++) {
			if (*s == '\\' && s[1] != '\0')
				s++;
			*o++ = *s;
		}
		if (*s == '"')
			s++;
	} else {
		while (*s != '\0' && *s != ' ' && *s != '\t')
			*o++ = *s++;
	}
	*o = '\0';
	*p = s;
	return w;
}

static int
index_parse(const char *expr, struct index_term *t, size_t *n, char **cause)
{
	const char	*p = expr;
	int		 c;

	*n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			return 0;
		if (*n == INDEX_TERMS) {
			*cause = xasprintf("search: more than %d terms",
			    INDEX_TERMS);
			return -1;
		}
		memset(&t[*n], 0, sizeof t[*n]);
		if (*p == '!') {
			t[*n].not = 1;
			p++;
		}
		if (*p != '~') {
			t[*n].what = 'w';
			if ((t[(*n)++].word = index_word(&p))[0] == '\0') {
				*cause = xstrdup("search: a term is empty");
				return -1;
			}
			continue;
		}
		c = (unsigned char)p[1];
		switch (c) {
		case 'N':
		case 'F':
		case 'D':
			t[(*n)++].what = c;
			p += 2;
			break;
		case 'f':
		case 's':
		case 't':
			t[*n].what = c;
			p += 2;
			while (*p == ' ' || *p == '\t')
				p++;
			if ((t[(*n)++].word = index_word(&p))[0] == '\0') {
				*cause = xasprintf("search: ~%c needs a word",
				    c);
				return -1;
			}
			break;
		default:
			*cause = isprint(c) ? xasprintf("search: unknown "
			    "pattern ~%c", c) : xstrdup("search: ~ needs a "
			    "letter");
			return -1;
		}
		if (*p != '\0' && *p != ' ' && *p != '\t') {
			*cause = xasprintf("search: ~%c takes no word", c);
			return -1;
		}
	}
}

static int
index_has(const char *s, const char *w)
{
	return s != NULL && strcasestr(s, w) != NULL;
}

static int
index_match(const struct index_msg *m, const struct index_term *t, size_t n)
{
	size_t	i;
	int	hit;

	for (i = 0; i < n; i++) {
		switch (t[i].what) {
		case 'f':
			hit = index_has(m->name, t[i].word) ||
			    index_has(m->addr, t[i].word);
			break;
		case 's':
			hit = index_has(m->subject, t[i].word);
			break;
		case 't':
			hit = index_has(m->rcpt, t[i].word);
			break;
		case 'N':
			hit = strchr(m->flags, 'S') == NULL;
			break;
		case 'F':
			hit = strchr(m->flags, 'F') != NULL;
			break;
		case 'D':
			hit = strchr(m->flags, 'T') != NULL;
			break;
		default:
			hit = index_has(m->name, t[i].word) ||
			    index_has(m->addr, t[i].word) ||
			    index_has(m->subject, t[i].word);
			break;
		}
		if (hit == t[i].not)
			return 0;
	}
	return 1;
}

/* Sorting. */

static int
index_cmp(const void *a, const void *b, void *arg)
{
	const struct index	*ix = arg;
	const struct index_msg	*x = &ix->m[*(const uint32_t *)a];
	const struct index_msg	*y = &ix->m[*(const uint32_t *)b];
	int			 c = 0;

	switch (ix->sort) {
	case INDEX_SORT_FROM:
		if (x->fpre != y->fpre)
			return x->fpre < y->fpre ? -1 : 1;
		c = strcmp(x->fkey, y->fkey);
		break;
	case INDEX_SORT_SUBJECT:
		if (x->spre != y->spre)
			return x->spre < y->spre ? -1 : 1;
		c = strcmp(x->skey, y->skey);
		break;
	case INDEX_SORT_SIZE:
		c = x->size < y->size ? -1 : x->size > y->size;
		break;
	default:
		break;
	}
	if (c == 0 && ix->sort != INDEX_SORT_ARRIVAL)
		c = x->date < y->date ? -1 : x->date > y->date;
	if (c == 0)
		c = x->uid < y->uid ? -1 : x->uid > y->uid;
	return c;
}

static void
index_thread(struct index *ix)
{
	struct thread_msg	*tm;
	struct thread_pos	*pos;
	size_t			 i;

	tm = xreallocarray(NULL, ix->norder, sizeof *tm);
	for (i = 0; i < ix->norder; i++) {
		tm[i].message_id = ix->m[ix->order[i]].mid;
		tm[i].in_reply_to = ix->m[ix->order[i]].irt;
		tm[i].references = ix->m[ix->order[i]].refs;
		tm[i].date = ix->m[ix->order[i]].date;
	}
	pos = xreallocarray(NULL, ix->norder, sizeof *pos);
	thread_build(tm, ix->norder, ix->reverse, pos);
	/* pos[k].msg is a place in the old order: make it a message. */
	for (i = 0; i < ix->norder; i++)
		pos[i].msg = ix->order[pos[i].msg];
	for (i = 0; i < ix->norder; i++)
		ix->order[i] = pos[i].msg;
	free(ix->tpos);
	ix->tpos = pos;
	free(tm);
}

static int
index_uid_cmp(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
index_same_view(const struct index *ix, const struct index_view *v)
{
	if (!ix->have_view || ix->sort != v->sort ||
	    ix->reverse != (v->reverse != 0))
		return 0;
	if (ix->uids != v->uids || ix->nuids != v->nuids)
		return 0;
	if (ix->limit == NULL || v->limit == NULL)
		return ix->limit == NULL && v->limit == NULL;
	return strcmp(ix->limit, v->limit) == 0;
}

static int
index_view(struct index *ix, const struct index_view *v, char **cause)
{
	struct index_term	 t[INDEX_TERMS];
	size_t			 nt = 0, i, j;
	uint32_t		 tmp;
	int			 all;

	if (index_same_view(ix, v))
		return 0;
	if ((unsigned)v->sort > INDEX_SORT_THREAD) {
		*cause = xstrdup("index: no such sort");
		return -1;
	}
	all = v->limit == NULL || v->limit[strspn(v->limit, " \t")] == '\0';
	if (!all && index_parse(v->limit, t, &nt, cause) == -1) {
		index_terms_free(t, nt);
		return -1;
	}
	/* a view of every message is kept for later */
	if (ix->have_view && ix->uids == NULL && (ix->limit == NULL ||
	    ix->limit[strspn(ix->limit, " \t")] == '\0') &&
	    ix->stash[ix->sort][ix->reverse].order == NULL) {
		struct index_stash	*st = &ix->stash[ix->sort][ix->reverse];

		st->order = ix->order;
		st->tpos = ix->tpos;
		st->norder = ix->norder;
		ix->order = NULL;
		ix->tpos = NULL;
		ix->norder = 0;
	}
	ix->have_view = 0;
	free(ix->tpos);
	ix->tpos = NULL;
	free(ix->collapsed);
	ix->collapsed = NULL;
	ix->nthreads = 0;
	free(ix->shown);
	ix->shown = NULL;
	free(ix->limit);
	ix->limit = v->limit != NULL ? xstrdup(v->limit) : NULL;
	ix->sort = v->sort;
	ix->reverse = v->reverse != 0;
	ix->uids = v->uids;
	ix->nuids = v->nuids;
	if (all && v->uids == NULL &&
	    ix->stash[v->sort][v->reverse != 0].order != NULL) {
		struct index_stash	*st = &ix->stash[v->sort][v->reverse != 0];

		free(ix->order);
		ix->order = st->order;
		ix->tpos = st->tpos;
		ix->norder = st->norder;
		memset(st, 0, sizeof *st);
		ix->have_view = 1;
		return 0;
	}
	ix->order = xreallocarray(ix->order, ix->n + 1, sizeof *ix->order);
	ix->norder = 0;
	for (i = 0; i < ix->n; i++) {
		if (v->uids != NULL && bsearch(&ix->m[i].uid, v->uids,
		    v->nuids, sizeof *v->uids, index_uid_cmp) == NULL)
			continue;
		if (all || index_match(&ix->m[i], t, nt))
			ix->order[ix->norder++] = (uint32_t)i;
	}
	index_terms_free(t, nt);

	if (ix->sort == INDEX_SORT_THREAD)
		index_thread(ix);
	else {
		if (ix->sort != INDEX_SORT_ARRIVAL)
			qsort_r(ix->order, ix->norder, sizeof *ix->order,
			    index_cmp, ix);
		for (i = 0, j = ix->norder; ix->reverse && i + 1 < j;
		    i++, j--) {
			tmp = ix->order[i];
			ix->order[i] = ix->order[j - 1];
			ix->order[j - 1] = tmp;
		}
	}
	ix->have_view = 1;
	return 0;
}

int
index_prepare(struct index *ix, enum index_sort sort, int reverse,
    char **cause)
{
	struct index_view	v;
	size_t			n;

	memset(&v, 0, sizeof v);
	v.sort = sort;
	v.reverse = reverse;
	return index_count(ix, &v, &n, cause);
}

int
index_count(struct index *ix, const struct index_view *v, size_t *count,
    char **cause)
{
	if (index_view(ix, v, cause) == -1)
		return -1;
	*count = ix->shown != NULL ? ix->nshown : ix->norder;
	return 0;
}

/* The places shown: every place but the replies of collapsed threads. */
static void
index_reshow(struct index *ix)
{
	size_t	i, any = 0;

	for (i = 0; i < ix->nthreads; i++)
		any |= ix->collapsed[i];
	free(ix->shown);
	ix->shown = NULL;
	ix->nshown = 0;
	if (!any)
		return;
	ix->shown = xreallocarray(NULL, ix->norder + 1, sizeof *ix->shown);
	for (i = 0; i < ix->norder; i++) {
		if (ix->tpos[i].depth > 0 &&
		    ix->collapsed[ix->tpos[i].thread])
			continue;
		ix->shown[ix->nshown++] = (uint32_t)i;
	}
}

int
index_collapse(struct index *ix, const struct index_view *v, uint32_t thread,
    int how, char **cause)
{
	size_t	i;

	if (index_view(ix, v, cause) == -1)
		return -1;
	if (ix->tpos == NULL)
		return 0;
	if (ix->collapsed == NULL) {
		for (i = 0; i < ix->norder; i++)
			if (ix->tpos[i].thread + 1 > ix->nthreads)
				ix->nthreads = ix->tpos[i].thread + 1;
		ix->collapsed = xcalloc(ix->nthreads + 1, 1);
	}
	if (thread == INDEX_ALL_THREADS) {
		for (i = 0; i < ix->nthreads; i++)
			ix->collapsed[i] = how == -1 ? !ix->collapsed[0] :
			    how != 0;
	} else if (thread < ix->nthreads)
		ix->collapsed[thread] = how == -1 ? !ix->collapsed[thread] :
		    how != 0;
	index_reshow(ix);
	return 0;
}

static void
index_row_fill(const struct index *ix, size_t place, struct index_row *r)
{
	const struct index_msg	*m = &ix->m[ix->order[place]];
	const struct thread_pos	*tp;

	memset(r, 0, sizeof *r);
	r->place = place;
	r->uid = m->uid;
	memcpy(r->flags, m->flags, sizeof r->flags);
	r->date = m->date;
	r->arrival = m->arrival;
	r->size = m->size;
	r->from_name = m->name;
	r->from_addr = m->addr;
	r->from = m->name != NULL ? m->name : m->addr;
	r->rcpt = m->rcpt;
	r->subject = m->subject;
	r->message_id = m->mid;
	r->outer_message_id = m->omid;
	r->hints = m->hints;
	r->prot = m->prot;
	r->sealed = m->sealed;
	r->stale = m->stale;
	r->trust = TRUST_NONE;
	if (ix->tpos != NULL) {
		tp = &ix->tpos[place];
		r->depth = tp->depth;
		r->thread = tp->thread;
		r->tflags = ((tp->flags & THREAD_ORPHAN) ? INDEX_ROW_ORPHAN :
		    0) | ((tp->flags & THREAD_LAST) ? INDEX_ROW_LAST : 0);
		if (ix->collapsed != NULL && tp->thread < ix->nthreads &&
		    ix->collapsed[tp->thread] && tp->depth == 0) {
			size_t	k;

			for (k = place + 1; k < ix->norder &&
			    ix->tpos[k].thread == tp->thread; k++)
				r->hidden++;
		}
	}
}

/* The rows' trust states and their senders' DNS marks: two reads. */
static int
index_trust(struct index_row *rows, size_t n, struct trust_store *ts,
    char **cause)
{
	enum trust_state	*states;
	const char		**addrs;
	char			**keys;
	int			*bogus;
	size_t			 i;
	int			 rc;

	keys = xcalloc(n, sizeof *keys);
	states = xcalloc(n, sizeof *states);
	addrs = xcalloc(n, sizeof *addrs);
	bogus = xcalloc(n, sizeof *bogus);
	for (i = 0; i < n; i++) {
		/* as trust-msg.c keys it: the outer Message-ID, the
		   sender (the protected From where there is one) */
		if (rows[i].outer_message_id != NULL &&
		    rows[i].from_addr != NULL)
			keys[i] = trust_store_msgkey(rows[i].outer_message_id,
			    rows[i].from_addr, NULL, 0);
		addrs[i] = rows[i].from_addr;
	}
	rc = trust_store_states(ts, (const char *const *)keys, n, states,
	    NULL, cause);
	if (rc == 0)
		rc = trust_store_dns_bogus(ts, addrs, n, bogus, cause);
	for (i = 0; i < n; i++) {
		if (rc == 0) {
			rows[i].trust = states[i];
			rows[i].dns_bogus = bogus[i];
		}
		free(keys[i]);
	}
	free(keys);
	free(states);
	free(addrs);
	free(bogus);
	return rc;
}

int
index_page(struct index *ix, const struct index_view *v, size_t offset,
    size_t limit, struct trust_store *ts, struct index_row **rows,
    size_t *n, char **cause)
{
	size_t	i, total;

	*rows = NULL;
	*n = 0;
	if (index_view(ix, v, cause) == -1)
		return -1;
	total = ix->shown != NULL ? ix->nshown : ix->norder;
	if (offset >= total || limit == 0)
		return 0;
	if (limit > total - offset)
		limit = total - offset;
	*rows = xcalloc(limit, sizeof **rows);
	for (i = 0; i < limit; i++)
		index_row_fill(ix, ix->shown != NULL ? ix->shown[offset + i] :
		    offset + i, &(*rows)[i]);
	*n = limit;
	if (ts != NULL && index_trust(*rows, limit, ts, cause) == -1) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/* The place of row n of the view as shown. */
static size_t
index_shown_place(const struct index *ix, size_t n)
{
	return ix->shown != NULL ? ix->shown[n] : n;
}

int
index_find(struct index *ix, const struct index_view *v, uint32_t uid,
    size_t *offset)
{
	size_t	i, total;
	char	*cause = NULL;

	if (index_view(ix, v, &cause) == -1) {
		free(cause);
		return -1;
	}
	total = ix->shown != NULL ? ix->nshown : ix->norder;
	for (i = 0; i < total; i++) {
		if (ix->m[ix->order[index_shown_place(ix, i)]].uid == uid) {
			*offset = i;
			return 0;
		}
	}
	return -1;
}

int
index_search(struct index *ix, const struct index_view *v, const char *expr,
    size_t from, int dir, size_t *offset, char **cause)
{
	struct index_term	 t[INDEX_TERMS];
	size_t			 nt = 0, total, k, i;
	int			 rc = 1;

	if (index_view(ix, v, cause) == -1)
		return -1;
	if (index_parse(expr, t, &nt, cause) == -1) {
		index_terms_free(t, nt);
		return -1;
	}
	total = ix->shown != NULL ? ix->nshown : ix->norder;
	for (k = 1; k <= total; k++) {
		/* from the row after (or before) from, round the end */
		if (dir >= 0)
			i = (from + k) % total;
		else
			i = (from + total - k % total) % total;
		if (index_match(&ix->m[ix->order[index_shown_place(ix, i)]],
		    t, nt)) {
			*offset = i;
			rc = 0;
			break;
		}
	}
	index_terms_free(t, nt);
	return rc;
}

static const char	*index_sorts[] = {
	"arrival", "date", "from", "subject", "size", "thread"
};

int
index_sort_parse(const char *s, struct index_view *v)
{
	size_t	i;
	int	reverse = 0;

	if (*s == '-') {
		reverse = 1;
		s++;
	}
	for (i = 0; i < sizeof index_sorts / sizeof index_sorts[0]; i++) {
		if (strcmp(s, index_sorts[i]) == 0) {
			v->sort = (enum index_sort)i;
			v->reverse = reverse;
			return 0;
		}
	}
	return -1;
}

const char *
index_sort_name(enum index_sort sort)
{
	if ((unsigned)sort >= sizeof index_sorts / sizeof index_sorts[0])
		return "?";
	return index_sorts[sort];
}
