/*
 * sync-trust.c: the new messages of a sync into the trust store
 * (sync-trust.h).
 *
 * The senders' keys are looked up in DNS by sync-trust-dns.c, between the
 * header fetch and the messages.
 *
 * The cost for mail without evidence is one question to the header
 * cache, whose rows the sync stored with what the Content-Type and
 * Autocrypt fields say (CACHE_HINT_EVIDENCE), or where it cannot tell
 * (rows stored by an older steedmail) one UID SEARCH, which the server
 * answers from the headers of at most the newest limit messages; a cold
 * sync of a large mailbox looks at no more than that. Everything else
 * (a header fetch, the trust store, gpg) happens only when the search
 * found something.
 *
 * The state a message earns is stored for good, so a message is only
 * recorded when the analysis is one that opening it later would agree
 * with: a signature gpg could not check (an error, not a verdict) or
 * content that could not be decrypted now leaves it for later, instead of
 * pinning "unsigned" on it. Decryption never asks for a passphrase here
 * (crypto_set_no_prompt): a key that has one fails, and the message
 * waits until it is opened.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <gpgme.h>
#include <pthread.h>

#include "addr-list.h"
#include "buf.h"
#include "crypto-in.h"
#include "crypto.h"
#include "frontend.h"
#include "imap-fetch.h"
#include "imap-mailbox.h"
#include "imap-ops.h"
#include "imap-sync.h"
#include "keydata.h"
#include "log.h"
#include "message.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "send.h"
#include "sync-trust-dns.h"
#include "sync-trust.h"
#include "trust-msg.h"
#include "trust-store.h"
#include "xmalloc.h"

/* Skipped messages named in the warning; the rest are counted. */
#define SYNC_TRUST_NAMED	3

struct sync_trust_msg {
	uint32_t	 uid;
	uint32_t	 size;
	int		 seen;		/* the header fetch answered for it */
	int		 sig;		/* its Content-Type can carry a
					   signature (not only Autocrypt) */
	char		*key;		/* trust_store_msgkey(), or NULL */
	char		*from;		/* the sender's address, or NULL */
};

struct sync_trust_run {
	mailimap		*imap;
	const struct sync_trust_how *how;
	struct sync_trust_stats	*st;
	struct trust_store	*ts;
	struct buf		 why;		/* the warning, built up */
	unsigned		 ahead;		/* analyses made ahead, used */
};

int
sync_trust_limit(const char *setting, unsigned *limit, char **cause)
{
	unsigned long	 n;
	char		*end;

	*limit = SYNC_TRUST_LIMIT;
	if (setting == NULL)
		return 0;
	n = strtoul(setting, &end, 10);
	if (*setting < '0' || *setting > '9' || *end != '\0' ||
	    n > SYNC_TRUST_LIMIT_MAX) {
		*cause = xasprintf("sync-trust-limit: \"%s\" is not a number "
		    "from 0 to %u; using %u", setting, SYNC_TRUST_LIMIT_MAX,
		    SYNC_TRUST_LIMIT);
		return -1;
	}
	*limit = (unsigned)n;
	return 0;
}

/* A UID set parsed into ranges, in order and merged; 0 if malformed. */
struct sync_trust_range {
	uint32_t	lo, hi;
};

static int
sync_trust_range_cmp(const void *a, const void *b)
{
	const struct sync_trust_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static size_t
sync_trust_set_parse(const char *set, struct sync_trust_range **out)
{
	struct sync_trust_range	*r;
	unsigned long		 a, b;
	const char		*p;
	char			*end;
	size_t			 n = 1, k = 0, i;

	*out = NULL;
	if (set == NULL || *set == '\0')
		return 0;
	for (p = set; *p != '\0'; p++)
		if (*p == ',')
			n++;
	r = xcalloc(n, sizeof *r);
	for (p = set; k < n; p = end + 1) {
		if (*p < '0' || *p > '9')
			goto bad;
		a = b = strtoul(p, &end, 10);
		if (*end == ':') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			b = strtoul(end + 1, &end, 10);
		}
		if (a == 0 || a > b || b > 0xffffffffUL ||
		    (*end != ',' && *end != '\0'))
			goto bad;
		r[k].lo = (uint32_t)a;
		r[k++].hi = (uint32_t)b;
		if (*end == '\0')
			break;
	}
	if (k != n)
		goto bad;
	qsort(r, n, sizeof *r, sync_trust_range_cmp);
	for (i = 1, k = 0; i < n; i++) {
		if (r[i].lo <= r[k].hi || r[i].lo - 1 == r[k].hi) {
			if (r[i].hi > r[k].hi)
				r[k].hi = r[i].hi;
		} else
			r[++k] = r[i];
	}
	*out = r;
	return k + 1;
bad:
	log_msg(LOG_INFO, "sync-trust: pending set \"%s\" is not a UID set; "
	    "dropped", set);
	free(r);
	return 0;
}

static char *
sync_trust_set_print(const struct sync_trust_range *r, size_t n)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (r[i].lo == r[i].hi)
			buf_addf(&b, "%s%u", i > 0 ? "," : "", r[i].lo);
		else
			buf_addf(&b, "%s%u:%u", i > 0 ? "," : "", r[i].lo,
			    r[i].hi);
	}
	return buf_take(&b);
}

int
sync_trust_set_top(const char *set, uint32_t *lo, uint32_t *hi)
{
	struct sync_trust_range	*r;
	size_t			 n;

	*lo = *hi = 0;
	if ((n = sync_trust_set_parse(set, &r)) == 0)
		return 0;
	*lo = r[n - 1].lo;
	*hi = r[n - 1].hi;
	free(r);
	return 1;
}

char *
sync_trust_set_add(const char *set, uint32_t lo, uint32_t hi)
{
	struct sync_trust_range	*r;
	char			*s, *out;

	if (lo == 0 || lo > hi)
		return xstrdup(set != NULL ? set : "");
	s = xasprintf("%s%s%u:%u", set != NULL ? set : "",
	    set != NULL && *set != '\0' ? "," : "", lo, hi);
	{
		size_t	n = sync_trust_set_parse(s, &r);

		out = sync_trust_set_print(r, n);
		free(r);
	}
	free(s);
	return out;
}

char *
sync_trust_set_cut(const char *set, uint32_t from)
{
	struct sync_trust_range	*r;
	char			*out;
	size_t			 n, k;

	n = sync_trust_set_parse(set, &r);
	for (k = 0; k < n && r[k].lo < from; k++) {
		if (r[k].hi >= from)
			r[k].hi = from - 1;
	}
	out = sync_trust_set_print(r, k);
	free(r);
	return out;
}

static int
sync_trust_cmp(const void *a, const void *b)
{
	const struct sync_trust_msg *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* A message left for later, named in the warning (the first few). */
static void sync_trust_skip(struct sync_trust_run *, uint32_t, const char *,
    ...) __attribute__((format(printf, 3, 4)));

static void
sync_trust_skip(struct sync_trust_run *r, uint32_t uid, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	log_msg(LOG_INFO, "sync-trust: UID %u skipped: %s", uid, s);
	if (r->st->skipped++ < SYNC_TRUST_NAMED)
		buf_addf(&r->why, "%sUID %u (%s)", r->st->skipped > 1 ?
		    ", " : "", uid, s);
	free(s);
}

/*
 * The UIDs among first..last, and among the newest limit messages of the
 * mailbox, whose header can carry evidence. Sequence numbers follow UID
 * order, so "the newest limit" is the sequence range ending at "*": the
 * server reads the headers of those messages only.
 */
static int
sync_trust_rcmp(const void *a, const void *b)
{
	return sync_trust_cmp(b, a);
}

/* The UID of the message at sequence number seq, or 0 if there is none. */
static int
sync_trust_uid_at(void *arg, uint32_t seq, uint32_t *uid, char **cause)
{
	struct sync_trust_run		*r = arg;
	struct mailimap_fetch_type	*ft;
	struct mailimap_set		*set;
	clist				*res = NULL;
	clistiter			*it, *jt;
	struct mailimap_msg_att		*ma;
	struct mailimap_msg_att_item	*item;
	int				 err;

	*uid = 0;
	ft = mailimap_fetch_type_new_fetch_att(mailimap_fetch_att_new_uid());
	set = mailimap_set_new_single(seq);
	if (ft == NULL || set == NULL)
		fatal("out of memory");
	err = mailimap_fetch(r->imap, set, ft, &res);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(r->imap, "FETCH", err);
		return -1;
	}
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		ma = clist_content(it);
		if (ma->att_number != seq)
			continue;
		for (jt = clist_begin(ma->att_list); jt != NULL;
		    jt = clist_next(jt)) {
			item = clist_content(jt);
			if (item->att_type == MAILIMAP_MSG_ATT_ITEM_STATIC &&
			    item->att_data.att_static->att_type ==
			    MAILIMAP_MSG_ATT_UID)
				*uid = item->att_data.att_static->
				    att_data.att_uid;
		}
	}
	mailimap_fetch_list_free(res);
	return 0;
}

int
sync_trust_below(uint32_t first, uint32_t last, uint32_t lo,
    int (*uid_at)(void *, uint32_t, uint32_t *, char **), void *arg,
    uint32_t *hi, char **cause)
{
	uint32_t	a = 1, b, mid, uid, best = 0;

	*hi = 0;
	if (lo <= 1)
		return 0;
	b = lo - 1;
	if (uid_at(arg, b, &uid, cause) == -1)
		return -1;
	if (uid != 0 && uid <= last)
		best = uid;
	else {
		/* the highest of a..b - 1 whose UID is at most last */
		b--;
		while (a <= b) {
			mid = a + (b - a) / 2;
			if (uid_at(arg, mid, &uid, cause) == -1)
				return -1;
			if (uid != 0 && uid <= last) {
				best = uid;
				a = mid + 1;
			} else
				b = mid - 1;
		}
	}
	if (best >= first)
		*hi = best;
	return 0;
}

/*
 * The candidates in the order they are taken: oldest first, the order
 * the trust store would have seen them, or (what was left behind) the
 * newest first, at most how->most of them.
 */
static void
sync_trust_order(struct sync_trust_run *r, struct sync_trust_msg *msgs,
    size_t *n)
{
	qsort(msgs, *n, sizeof *msgs, sync_trust_cmp);
	if (r->how->newest_first) {
		qsort(msgs, *n, sizeof *msgs, sync_trust_rcmp);
		if (r->how->most > 0 && *n > r->how->most) {
			r->st->rest = msgs[r->how->most].uid;
			*n = r->how->most;
		}
	}
}

static int
sync_trust_search(struct sync_trust_run *r, uint32_t first, uint32_t last,
    struct sync_trust_msg **msgs, size_t *n, char **cause)
{
	struct mailimap_search_key	*key, *any;
	clist				*res = NULL;
	clistiter			*it;
	uint32_t			 exists = 0, lo, uid = 0, *found;
	size_t				 i, nfound;
	int				 err;

	*msgs = NULL;
	*n = 0;
	if (r->imap->imap_selection_info != NULL)
		exists = r->imap->imap_selection_info->sel_exists;
	if (exists == 0)
		return 0;
	lo = exists > r->how->limit ? exists - r->how->limit + 1 : 1;
	/* What the window leaves out is kept pending before anything. */
	if (lo > 1) {
		if (sync_trust_below(first, last, lo, sync_trust_uid_at, r,
		    &uid, cause) == -1)
			return -1;
		if (uid != 0 && r->how->behind != NULL) {
			log_msg(LOG_INFO, "sync-trust: UIDs %u:%u left for "
			    "later, newest first", first, uid);
			r->how->behind(r->how->arg, first, uid);
		}
	}
	/* The window: first..last above what it leaves out. */
	if (uid >= last)
		return 0;
	if (uid >= first)
		first = uid + 1;

	if (r->how->candidates != NULL && r->how->candidates(r->how->arg,
	    first, last, &found, &nfound) == 1) {
		log_msg(LOG_INFO, "sync-trust: UIDs %u:%u, the candidates "
		    "from the header cache", first, last);
		*msgs = xcalloc(nfound + 1, sizeof **msgs);
		for (i = 0; i < nfound; i++)
			(*msgs)[(*n)++].uid = found[i];
		free(found);
		sync_trust_order(r, *msgs, n);
		return 0;
	}

	any = mailimap_search_key_new_header(xstrdup("Autocrypt"),
	    xstrdup(""));
	for (i = 0; i < IMAP_FETCH_EVIDENCE_TYPES; i++)
		any = mailimap_search_key_new_or(any,
		    mailimap_search_key_new_header(xstrdup("Content-Type"),
		    xstrdup(imap_fetch_evidence_types[i])));
	key = mailimap_search_key_new_multiple_empty();
	if (key == NULL || any == NULL ||
	    mailimap_search_key_multiple_add(key, mailimap_search_key_new_set(
	    mailimap_set_new_interval(lo, 0))) != MAILIMAP_NO_ERROR ||
	    mailimap_search_key_multiple_add(key, mailimap_search_key_new_uid(
	    mailimap_set_new_interval(first, last))) != MAILIMAP_NO_ERROR ||
	    mailimap_search_key_multiple_add(key, any) != MAILIMAP_NO_ERROR)
		fatal("out of memory");
	err = mailimap_uid_search(r->imap, NULL, key, &res);
	mailimap_search_key_free(key);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(r->imap, "UID SEARCH", err);
		return -1;
	}
	*msgs = xcalloc(clist_count(res) + 1, sizeof **msgs);
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		uid = *(uint32_t *)clist_content(it);
		if (uid >= first && uid <= last)
			(*msgs)[(*n)++].uid = uid;
	}
	mailimap_search_result_free(res);
	sync_trust_order(r, *msgs, n);
	return 0;
}

/*
 * From the fetched header fields: the message key trust-msg.c will use,
 * the sender, and whether the Content-Type can carry a signature.
 */
static void
sync_trust_key(struct sync_trust_msg *m, const char *hdr, size_t len)
{
	struct mime_header	 h;
	char			*msgid, *ct;

	memset(&h, 0, sizeof h);
	mime_header_parse(&h, hdr, len, 0);
	msgid = mime_header_get(&h, "Message-ID", NULL);
	m->from = addr_list_from(&h);
	/* Without a Message-ID the key is a hash of the whole message. */
	if (msgid != NULL && *msgid != '\0' && m->from != NULL)
		m->key = trust_store_msgkey(msgid, m->from, NULL, 0);
	if ((ct = mime_header_get(&h, "Content-Type", NULL)) != NULL &&
	    imap_fetch_ctype_evidence(ct))
		m->sig = 1;
	free(ct);
	free(msgid);
	mime_header_free(&h);
}

static struct sync_trust_msg *
sync_trust_find(struct sync_trust_msg *msgs, size_t n, uint32_t uid)
{
	struct sync_trust_msg	k;

	k.uid = uid;
	if (n > 1 && msgs[0].uid > msgs[1].uid)
		return bsearch(&k, msgs, n, sizeof *msgs, sync_trust_rcmp);
	return bsearch(&k, msgs, n, sizeof *msgs, sync_trust_cmp);
}

/* Size, Message-ID and From of the candidates, in one UID FETCH. */
static int
sync_trust_headers(struct sync_trust_run *r, struct sync_trust_msg *msgs,
    size_t n, char **cause)
{
	struct mailimap_fetch_type	*ft;
	struct mailimap_set		*set;
	clist				*names, *res = NULL;
	clistiter			*it, *jt;
	struct mailimap_msg_att_item	*item;
	struct mailimap_msg_att_static	*sa;
	struct sync_trust_msg		*m;
	uint32_t			 uid, size;
	const char			*hdr;
	size_t				 i, hlen;
	int				 err;

	if ((set = mailimap_set_new_empty()) == NULL ||
	    (names = clist_new()) == NULL ||
	    clist_append(names, xstrdup("Message-ID")) != 0 ||
	    clist_append(names, xstrdup("From")) != 0 ||
	    clist_append(names, xstrdup("Content-Type")) != 0)
		fatal("out of memory");
	for (i = 0; i < n; i++)
		if (mailimap_set_add_single(set, msgs[i].uid) !=
		    MAILIMAP_NO_ERROR)
			fatal("out of memory");
	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_rfc822_size());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_body_peek_section(
	    mailimap_section_new_header_fields(
	    mailimap_header_list_new(names))));
	err = mailimap_uid_fetch(r->imap, set, ft, &res);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (err != MAILIMAP_NO_ERROR) {
		*cause = imap_sync_error(r->imap, "UID FETCH", err);
		return -1;
	}
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		uid = size = 0;
		hdr = NULL;
		hlen = 0;
		for (jt = clist_begin(((struct mailimap_msg_att *)
		    clist_content(it))->att_list); jt; jt = clist_next(jt)) {
			item = clist_content(jt);
			if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
				continue;
			sa = item->att_data.att_static;
			if (sa->att_type == MAILIMAP_MSG_ATT_UID)
				uid = sa->att_data.att_uid;
			else if (sa->att_type == MAILIMAP_MSG_ATT_RFC822_SIZE)
				size = sa->att_data.att_rfc822_size;
			else if (sa->att_type == MAILIMAP_MSG_ATT_BODY_SECTION &&
			    sa->att_data.att_body_section->sec_body_part !=
			    NULL) {
				hdr = sa->att_data.att_body_section->
				    sec_body_part;
				hlen = sa->att_data.att_body_section->
				    sec_length;
			}
		}
		if (uid == 0 || hdr == NULL ||
		    (m = sync_trust_find(msgs, n, uid)) == NULL || m->seen)
			continue;
		m->seen = 1;
		m->size = size;
		sync_trust_key(m, hdr, hlen);
	}
	mailimap_fetch_list_free(res);
	return 0;
}

/*
 * Is any signature one gpg could not check (no verdict at all)? One whose
 * date cannot be right has its verdict: it does not count.
 */
static const struct crypto_in_sig *
sync_trust_unchecked(const struct crypto_in *ci)
{
	size_t	i;

	for (i = 0; i < ci->nsigs; i++) {
		if (ci->sigs[i].status == CRYPTO_IN_ERROR &&
		    ci->sigs[i].time == CRYPTO_IN_TIME_OK)
			return &ci->sigs[i];
	}
	return NULL;
}

/*
 * One message being looked at: fetched whole by the thread that goes
 * through the messages in order (the IMAP connection is that thread's),
 * then opened as every front end opens it (message.h) on a thread of its
 * own, at most SYNC_TRUST_AHEAD at once: gpg, which most of the time is
 * spent waiting for, runs for up to three messages at once (on two
 * cores, three keep both busier than two: 2.6 s against 3.1 s for 400
 * messages; four are no better).
 *
 * The verdicts stay what they would be one message after the other: a
 * message's analysis depends on the others only through the keyrings
 * (the keys an Autocrypt header, gossip or DNS brought), and only the
 * thread in order changes them (the others defer any import they would
 * make: keydata_defer()). An analysis made on the side is used only when
 * the keyrings were the same when it started, when it ended and when the
 * thread in order comes to the message, having done every message before
 * it, and it deferred no import; otherwise the message is opened again,
 * in order. What the message brings is then taken in order: handed to
 * how->opened, its sender's state recorded unless gpg could not give a
 * verdict, or only its headers were wanted (the trust store knows it).
 */
#define SYNC_TRUST_AHEAD	3

/*
 * AddressSanitizer's allocator as GCC 12 ships it (libasan 8) is not
 * locked around fork(): when one thread forks gpg while another holds
 * the allocator's lock, the child, which allocates before it runs gpg,
 * can wait for that lock forever, and gpgme with it. Sanitizer builds
 * therefore open the messages one after the other, on the thread in
 * order; .ci/run runs the trust step's tests in a plain build as well.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SYNC_TRUST_THREADS	0
#else
#define SYNC_TRUST_THREADS	1
#endif

struct sync_trust_job {
	uint32_t	 uid;
	int		 again;		/* for its protected header only */
	const char	*skip;		/* not fetched: why, said in order */
	char		*raw;		/* as fetched, kept to open it again */
	size_t		 len;
	pthread_t	 th;
	int		 started;	/* a thread of its own opens it */
	struct message	*msg;		/* what that thread made of it */
	char		*cause;
	unsigned	 deferred;	/* imports it did not make */
	char		 s0[CRYPTO_STAMP_LEN], s1[CRYPTO_STAMP_LEN];
};

static void *
sync_trust_thread(void *arg)
{
	struct sync_trust_job	*j = arg;
	char			*copy;

	copy = xmalloc(j->len + 1);
	memcpy(copy, j->raw, j->len);
	copy[j->len] = '\0';
	/* Nobody watches a sync: a key with a passphrase fails, not asks. */
	crypto_set_no_prompt(1);
	keydata_defer(1);
	crypto_keyring_stamp(j->s0);
	j->msg = message_open(copy, j->len, NULL, MESSAGE_NO_TRUST, &j->cause);
	crypto_keyring_stamp(j->s1);
	j->deferred = keydata_deferred();
	keydata_defer(0);
	return NULL;
}

/* Fetch the message of j: -1 if it could not be (the connection may be
 * gone), else 0 and a thread opens it (or, failing that, the finish). */
static int
sync_trust_fetch(struct sync_trust_run *r, struct sync_trust_job *j)
{
	struct buf	 raw;
	char		*cause = NULL;

	buf_init(&raw);
	if (imap_mailbox_fetch(r->imap, NULL, j->uid, NULL, &raw,
	    &cause) == -1) {
		sync_trust_skip(r, j->uid, "cannot be fetched: %s", cause);
		free(cause);
		buf_free(&raw);
		return -1;
	}
	j->len = raw.len;
	j->raw = buf_take(&raw);
	j->started = SYNC_TRUST_THREADS &&
	    pthread_create(&j->th, NULL, sync_trust_thread, j) == 0;
	return 0;
}

/* Done with j, in order (sync_trust_fetch() comment). */
static void
sync_trust_finish(struct sync_trust_run *r, struct sync_trust_job *j)
{
	struct message			*msg = NULL;
	const struct crypto_in		*ci;
	const struct crypto_in_sig	*bad;
	char				*cause = NULL, now[CRYPTO_STAMP_LEN];
	uint32_t			 uid = j->uid;

	if (j->skip != NULL) {
		sync_trust_skip(r, uid, "%s", j->skip);
		return;
	}
	if (j->started) {
		pthread_join(j->th, NULL);
		crypto_keyring_stamp(now);
		if (j->msg == NULL) {
			/* not MIME: no keyring makes it so */
			cause = j->cause;
			j->cause = NULL;
		} else if (j->deferred == 0 && strcmp(j->s0, j->s1) == 0 &&
		    strcmp(j->s0, now) == 0) {
			msg = j->msg;
			r->ahead++;
		} else {
			log_msg(LOG_INFO, "sync-trust: UID %u: opened again, in "
			    "order (%s)", uid, j->deferred ? "a key to import" :
			    "the keyrings changed meanwhile");
			message_free(j->msg);
		}
		j->msg = NULL;
		free(j->cause);
		j->cause = NULL;
	}
	if (msg == NULL && cause == NULL) {
		msg = message_open(j->raw, j->len, r->ts, MESSAGE_NO_TRUST,
		    &cause);
		j->raw = NULL;	/* the message's now */
	}
	free(j->raw);
	j->raw = NULL;
	if (msg == NULL) {
		sync_trust_skip(r, uid, "cannot be parsed: %s", cause);
		free(cause);
		return;
	}
	ci = msg->ci;
	if (r->how->opened != NULL)
		r->how->opened(r->how->arg, uid, msg);
	if (j->again)
		log_msg(LOG_INFO, "sync-trust: UID %u: opened for its protected "
		    "header (%s)", uid, ci->decrypted ? "decrypted" :
		    "not decrypted");
	else if ((bad = sync_trust_unchecked(ci)) != NULL)
		sync_trust_skip(r, uid, "its signature could not be checked: "
		    "%s", bad->reason != NULL ? bad->reason : "gpg failed");
	else if (ci->encryption != CRYPTO_IN_NONE && !ci->decrypted)
		sync_trust_skip(r, uid, "not decrypted: %s",
		    ci->not_decrypted != NULL ? ci->not_decrypted : "unknown");
	else if (message_trust(msg, r->ts, time(NULL), &cause) == -1) {
		sync_trust_skip(r, uid, "%s", cause);
		free(cause);
	} else {
		if (msg->trust.stored)
			r->st->known++;
		else
			r->st->processed++;
		log_msg(LOG_INFO, "sync-trust: UID %u: %s%s", uid,
		    trust_state_name(msg->trust.state), msg->trust.stored ?
		    " (stored before)" : "");
	}
	message_free(msg);
}

int
sync_trust(mailimap *imap, uint32_t first, uint32_t last,
    const struct sync_trust_how *how, struct sync_trust_stats *st,
    char **cause)
{
	struct sync_trust_run	 r;
	struct sync_trust_dns	*dns = NULL;
	char			**senders = NULL;
	size_t			 nsenders = 0;
	struct sync_trust_msg	*msgs = NULL;
	enum trust_state	*states = NULL;
	uint8_t			*again = NULL;
	const char		**keys = NULL;
	struct sync_trust_job	 q[SYNC_TRUST_AHEAD], *j;
	char			*why = NULL, step[32];
	size_t			 n = 0, i, todo = 0, qhead = 0, nq = 0;
	size_t			 lostat = 0;
	int			 rc = -1, lost, stop;

	memset(st, 0, sizeof *st);
	if (how->limit == 0 || first == 0 || last < first)
		return 0;
	memset(&r, 0, sizeof r);
	r.imap = imap;
	r.how = how;
	r.st = st;
	buf_init(&r.why);

	if (sync_trust_search(&r, first, last, &msgs, &n, cause) == -1)
		goto out;
	st->candidates = n;
	log_msg(LOG_INFO, "sync-trust: UIDs %u:%u, %zu with evidence", first,
	    last, n);
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if (sync_trust_headers(&r, msgs, n, cause) == -1)
		goto out;
	if ((r.ts = trust_store_open(NULL, cause)) == NULL)
		goto out;
	keys = xcalloc(n, sizeof *keys);
	states = xcalloc(n, sizeof *states);
	for (i = 0; i < n; i++)
		keys[i] = msgs[i].key;
	if (trust_store_states(r.ts, keys, n, states, NULL, cause) == -1)
		goto out;
	/* Known ones are opened again only for what the cache lacks. */
	again = xcalloc(n + 1, sizeof *again);
	for (i = 0; i < n; i++) {
		if (states[i] != TRUST_NONE) {
			st->known++;
			if (msgs[i].seen && how->wants != NULL &&
			    how->wants(how->arg, msgs[i].uid)) {
				again[i] = 1;
				todo++;
			}
		} else if (msgs[i].seen)
			todo++;
	}
	if (todo > 0 && crypto_init(how->gnupg_home, cause) == -1)
		goto out;
	/* Nobody watches a sync: a key with a passphrase fails, not asks. */
	crypto_set_no_prompt(1);
	/* The senders of the signed messages: their keys from DNS first. */
	senders = xcalloc(n + 1, sizeof *senders);
	for (i = 0; i < n; i++) {
		if (states[i] == TRUST_NONE && msgs[i].seen && msgs[i].sig &&
		    msgs[i].from != NULL)
			senders[nsenders++] = msgs[i].from;
	}
	if (nsenders > 0 && how->cf != NULL && !fe_cancelled())
		dns = sync_trust_dns_before(r.ts, how->cf, how->mailbox,
		    senders, nsenders);

	/*
	 * In order, up to SYNC_TRUST_AHEAD messages fetched and being
	 * opened ahead of the one finished; stopped or cut off, those
	 * started are finished all the same.
	 */
	lostat = n;
	for (i = 0, stop = 0;;) {
		while (!stop && nq < SYNC_TRUST_AHEAD && i < n) {
			fe_progress("trust: checking messages", i, n);
			/* Asked to stop: what is not started is left for
			   the next sync. */
			if (fe_cancelled()) {
				st->stopped = 1;
				stop = 1;
				break;
			}
			if (states[i] != TRUST_NONE && !again[i]) {
				i++;
				continue;
			}
			j = &q[(qhead + nq) % SYNC_TRUST_AHEAD];
			memset(j, 0, sizeof *j);
			j->uid = msgs[i].uid;
			j->again = again[i];
			if (!msgs[i].seen) {
				/* Expunged since the search, most likely. */
				j->skip = "no longer there";
				nq++;
				i++;
				continue;
			}
			/* Never again, whatever this message does to us. */
			if (how->passing != NULL)
				how->passing(how->arg, msgs[i].uid);
			log_msg(LOG_INFO, "sync-trust: UID %u: looking at it",
			    msgs[i].uid);
			/* Test hook: STEEDMAIL_CRASH_AT=trust-uid-N dies on
			   UID N. */
			snprintf(step, sizeof step, "trust-uid-%u",
			    msgs[i].uid);
			send_crash_point(step);
			i++;
			if (msgs[i - 1].size > SYNC_TRUST_MAX_SIZE) {
				if (!j->again) {
					j->skip = "larger than "
					    SYNC_TRUST_MAX_MB " MB";
					nq++;
				}
				continue;
			}
			if (sync_trust_fetch(&r, j) == 0) {
				nq++;
				continue;
			}
			/* A lost connection: the rest cannot be fetched
			   either. */
			lost = imap_ops_noop(imap, &why) == IMAP_OPS_LOST;
			free(why);
			why = NULL;
			if (!lost)
				continue;
			st->stopped = 1;
			stop = 1;
			lostat = i;
		}
		if (nq == 0)
			break;
		sync_trust_finish(&r, &q[qhead]);
		qhead = (qhead + 1) % SYNC_TRUST_AHEAD;
		nq--;
	}
	/* Cut off: after those finished, the rest are named. */
	for (i = lostat; i < n; i++) {
		if (states[i] == TRUST_NONE)
			sync_trust_skip(&r, msgs[i].uid, "the connection was "
			    "lost");
	}
	if (r.ahead > 0)
		log_msg(LOG_INFO, "sync-trust: %u opened ahead, on a thread of "
		    "their own", r.ahead);
	sync_trust_dns_after(r.ts, dns);
	rc = 0;
out:
	crypto_set_no_prompt(0);
	if (rc == 0 && st->skipped > 0) {
		if (st->skipped > SYNC_TRUST_NAMED)
			buf_addf(&r.why, " and %u more",
			    st->skipped - SYNC_TRUST_NAMED);
		fe_notice(FE_WARNING, "%s%strust: %u message%s left for when "
		    "%s opened: %s", how->mailbox != NULL ? how->mailbox : "",
		    how->mailbox != NULL ? ": " : "", st->skipped,
		    st->skipped == 1 ? "" : "s",
		    st->skipped == 1 ? "it is" : "they are", r.why.data);
	}
	buf_free(&r.why);
	sync_trust_dns_free(dns);
	free(senders);		/* the strings are the messages' */
	trust_store_close(r.ts);
	for (i = 0; i < n; i++) {
		free(msgs[i].key);
		free(msgs[i].from);
	}
	free(msgs);
	free(keys);
	free(states);
	free(again);
	return rc;
}
