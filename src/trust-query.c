/*
 * trust-query.c: what callers read from the trust store: the pinned key
 * of an address, whether a key was seen for it, everything about an
 * address (--trust show), the list of addresses, and the stored states of
 * many messages at once for the index, with their senders' DNS marks.
 * Nothing here writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "trust-db.h"
#include "xmalloc.h"

char *
trust_store_pinned(struct trust_store *ts, const char *addr_in,
    const char *proto)
{
	struct trust_pin	 p;
	char			*addr, *cause = NULL, *fpr;

	if ((addr = trust_store_addr(addr_in)) == NULL)
		return NULL;
	if (trust_get_pin(ts, addr, proto, &p, &cause) == -1) {
		free(cause);
		free(addr);
		return NULL;
	}
	fpr = p.pinned;
	p.pinned = NULL;
	trust_pin_free(&p);
	free(addr);
	return fpr;
}

int
trust_store_knows(struct trust_store *ts, const char *addr_in,
    const char *fpr)
{
	sqlite3_stmt	*st;
	char		*addr, *cause = NULL;
	int		 yes;

	if (fpr == NULL || (addr = trust_store_addr(addr_in)) == NULL)
		return 0;
	st = trust_query(ts, &cause, "SELECT 1 FROM key WHERE addr = ? AND "
	    "fpr = ? COLLATE NOCASE", "ss", addr, fpr);
	free(addr);
	if (st == NULL) {
		free(cause);
		return 0;
	}
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/*
 * One protocol's state now, from its pin and its pinned key; nkeys: how
 * many keys of the protocol the address has.
 */
static void
trust_pin_state(const char *addr, const struct trust_pin *p,
    const struct trust_krow *k, size_t nkeys, struct trust_peer_pin *pp)
{
	struct trust_verdict	*v = &pp->v;
	char			*src;

	pp->proto = p->proto;
	pp->present = p->pinned != NULL || p->changed != NULL ||
	    p->conflict != NULL;
	if (p->pinned == NULL) {
		trust_set_verdict(v, p->conflict != NULL ? TRUST_CONFLICT :
		    TRUST_NONE, NULL, p->conflict, NULL, xstrdup(nkeys > 0 ?
		    "no key is accepted" : "no key known"));
		return;
	}
	pp->pinned = xstrdup(p->pinned);
	pp->usable = !k->revoked && !k->expired;
	src = trust_sources_text(k->sources);
	trust_set_verdict(v, trust_pinned_state(p, k, 1), p->pinned,
	    p->conflict != NULL ? p->conflict : p->changed, k,
	    xasprintf("key %s for %s, %s since %s (%s)", p->pinned, addr,
	    k->decision, trust_date(k->first_seen), src));
	free(src);
}

static void
trust_verdict_copy(struct trust_verdict *to, const struct trust_verdict *v)
{
	*to = *v;
	to->fpr = v->fpr != NULL ? xstrdup(v->fpr) : NULL;
	to->other = v->other != NULL ? xstrdup(v->other) : NULL;
	to->evidence = v->evidence != NULL ? xstrdup(v->evidence) : NULL;
}

/* The state to show for a peer (trust_peer.shown). */
static enum trust_state
trust_peer_shown(const struct trust_peer *p)
{
	size_t	i;

	for (i = 0; i < TRUST_NPROTO; i++) {
		if (p->pins[i].v.other != NULL &&
		    p->pins[i].v.state != TRUST_CONFLICT)
			return TRUST_KEY_CHANGED;
	}
	if (p->v.state != TRUST_KNOWN || p->pinned == NULL)
		return p->v.state;
	for (i = 0; i < p->nkeys; i++) {
		if (strcasecmp(p->keys[i].fpr, p->pinned) == 0 &&
		    strcmp(p->keys[i].decision, "accepted") == 0 &&
		    p->keys[i].messages <= 1 && p->nkeys == 1)
			return TRUST_FIRST_CONTACT;
	}
	return p->v.state;
}

int
trust_store_peer(struct trust_store *ts, const char *addr_in,
    struct trust_peer *peer, char **cause)
{
	struct trust_pin	 p[TRUST_NPROTO];
	struct trust_krow	 k;
	struct trust_key	*tk;
	struct trust_peer_pin	*main_pin;
	sqlite3_stmt		*st;
	char			*addr;
	size_t			 nkeys[TRUST_NPROTO];
	int			 rc, i, j;

	memset(peer, 0, sizeof *peer);
	memset(p, 0, sizeof p);
	memset(nkeys, 0, sizeof nkeys);
	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	peer->addr = addr;
	for (i = 0; i < TRUST_NPROTO; i++) {
		if (trust_get_pin(ts, addr, trust_proto_name(i), &p[i],
		    cause) == -1)
			goto fail;
	}
	if ((st = trust_query(ts, cause, "SELECT fpr, proto, sources, "
	    "first_seen, last_seen, last_sig, dns_confirmed, messages, "
	    "decision, revoked, expired FROM key WHERE addr = ? ORDER BY "
	    "first_seen, fpr", "s", addr)) == NULL)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		peer->keys = xreallocarray(peer->keys, peer->nkeys + 1,
		    sizeof *peer->keys);
		tk = &peer->keys[peer->nkeys++];
		tk->fpr = trust_col(st, 0);
		tk->proto = trust_col(st, 1);
		tk->sources = sqlite3_column_int64(st, 2);
		tk->first_seen = sqlite3_column_int64(st, 3);
		tk->last_seen = sqlite3_column_int64(st, 4);
		tk->last_sig = sqlite3_column_int64(st, 5);
		tk->dns_confirmed = sqlite3_column_int64(st, 6);
		tk->messages = sqlite3_column_int64(st, 7);
		tk->decision = trust_col(st, 8);
		tk->revoked = sqlite3_column_int(st, 9);
		tk->expired = sqlite3_column_int(st, 10);
		j = trust_proto_index(trust_proto(tk->proto));
		nkeys[j]++;
		tk->pinned = p[j].pinned != NULL &&
		    strcasecmp(p[j].pinned, tk->fpr) == 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		trust_fail(ts, "cannot read", cause);
		goto fail;
	}
	if ((st = trust_query(ts, cause, "SELECT time, what FROM history "
	    "WHERE addr = ? ORDER BY id", "s", addr)) == NULL)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		peer->history = xreallocarray(peer->history,
		    peer->nhistory + 1, sizeof *peer->history);
		peer->history[peer->nhistory].when =
		    sqlite3_column_int64(st, 0);
		peer->history[peer->nhistory++].what = trust_col(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		trust_fail(ts, "cannot read", cause);
		goto fail;
	}
	for (i = 0; i < TRUST_NPROTO; i++) {
		if (trust_get_key(ts, addr, p[i].pinned, &k, cause) == -1)
			goto fail;
		trust_pin_state(addr, &p[i], &k, nkeys[i], &peer->pins[i]);
	}
	/* The main protocol: OpenPGP, unless only S/MIME has a pin. */
	main_pin = &peer->pins[TRUST_OPENPGP];
	if (!main_pin->present && peer->pins[TRUST_SMIME].present)
		main_pin = &peer->pins[TRUST_SMIME];
	peer->proto = main_pin->proto;
	peer->pinned = main_pin->pinned != NULL ? xstrdup(main_pin->pinned) :
	    NULL;
	peer->usable = main_pin->usable;
	trust_verdict_copy(&peer->v, &main_pin->v);
	if (!main_pin->present) {
		free(peer->v.evidence);
		peer->v.evidence = xstrdup(peer->nkeys > 0 ?
		    "no key is accepted" : "no key known");
	}
	peer->shown = trust_peer_shown(peer);
	for (i = 0; i < TRUST_NPROTO; i++)
		trust_pin_free(&p[i]);
	return 0;
fail:
	for (i = 0; i < TRUST_NPROTO; i++)
		trust_pin_free(&p[i]);
	trust_peer_free(peer);
	return -1;
}

int
trust_store_list(struct trust_store *ts, char ***addrs, size_t *n,
    char **cause)
{
	sqlite3_stmt	*st;
	int		 rc;

	*addrs = NULL;
	*n = 0;
	if ((st = trust_query(ts, cause, "SELECT DISTINCT addr FROM key "
	    "UNION SELECT addr FROM pin ORDER BY 1", "")) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*addrs = xreallocarray(*addrs, *n + 1, sizeof **addrs);
		(*addrs)[(*n)++] = trust_col(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return trust_fail(ts, "cannot read", cause);
	return 0;
}

/* prefix with LIKE's wildcards escaped by a backslash, then "%". */
static char *
trust_like_prefix(const char *prefix)
{
	char	*p, *q;

	p = q = xcalloc(2 * strlen(prefix) + 2, 1);
	for (; *prefix != '\0'; prefix++) {
		if (*prefix == '%' || *prefix == '_' || *prefix == '\\')
			*q++ = '\\';
		*q++ = *prefix;
	}
	*q = '%';
	return p;
}

int
trust_store_match(struct trust_store *ts, const char *prefix, size_t max,
    struct trust_match **out, size_t *n, char **cause)
{
	sqlite3_stmt	*st;
	char		*like;
	int		 rc;

	*out = NULL;
	*n = 0;
	like = trust_like_prefix(prefix);
	st = trust_query(ts, cause, "SELECT addr, sum(messages), "
	    "max(last_seen) FROM key WHERE addr LIKE ? ESCAPE '\\' "
	    "GROUP BY addr ORDER BY 2 DESC, 3 DESC LIMIT ?", "si", like,
	    (long long)max);
	free(like);
	if (st == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		(*out)[*n].addr = trust_col(st, 0);
		(*out)[*n].messages = sqlite3_column_int64(st, 1);
		(*out)[(*n)++].last_seen = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		trust_match_free(*out, *n);
		*out = NULL;
		*n = 0;
		return trust_fail(ts, "cannot read", cause);
	}
	return 0;
}

void
trust_match_free(struct trust_match *m, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(m[i].addr);
	free(m);
}

/*
 * One prepared SELECT, stepped once per key inside one read transaction
 * (BEGIN is deferred: the first SELECT takes a WAL snapshot, no lock that
 * a writer would wait for). Keys are bound without copying.
 */
int
trust_store_states(struct trust_store *ts, const char *const *keys,
    size_t n, enum trust_state *states, size_t *found, char **cause)
{
	sqlite3_stmt	*st;
	size_t		 i, nfound = 0;
	int		 rc, s;

	if (found != NULL)
		*found = 0;
	for (i = 0; i < n; i++)
		states[i] = TRUST_NONE;
	if (n == 0)
		return 0;
	if (sqlite3_exec(ts->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return trust_fail(ts, "cannot begin a transaction", cause);
	if (sqlite3_prepare_v2(ts->db, "SELECT state FROM message WHERE "
	    "id = ?", -1, &st, NULL) != SQLITE_OK) {
		trust_fail(ts, "cannot prepare", cause);
		trust_rollback(ts);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (keys[i] == NULL)
			continue;
		sqlite3_bind_text(st, 1, keys[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			s = sqlite3_column_int(st, 0);
			/* A value no steedmail wrote shows as nothing known. */
			if (s > TRUST_NONE && s <= TRUST_VERIFIED) {
				states[i] = (enum trust_state)s;
				nfound++;
			}
		} else if (rc != SQLITE_DONE) {
			trust_fail(ts, "cannot read", cause);
			sqlite3_finalize(st);
			trust_rollback(ts);
			for (i = 0; i < n; i++)
				states[i] = TRUST_NONE;
			return -1;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	/* Nothing was written: ending the read transaction is all. */
	trust_rollback(ts);
	if (found != NULL)
		*found = nfound;
	return 0;
}
/* trust_store_states()'s sibling: the DNS mark of each sender. */
int
trust_store_dns_bogus(struct trust_store *ts, const char *const *addrs,
    size_t n, int *bogus, char **cause)
{
	sqlite3_stmt	*st;
	size_t		 i;
	int		 rc;

	for (i = 0; i < n; i++)
		bogus[i] = 0;
	if (n == 0)
		return 0;
	if (sqlite3_exec(ts->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return trust_fail(ts, "cannot begin a transaction", cause);
	if (sqlite3_prepare_v2(ts->db, "SELECT bogus != 0 FROM dns WHERE "
	    "addr = ?", -1, &st, NULL) != SQLITE_OK) {
		trust_fail(ts, "cannot prepare", cause);
		trust_rollback(ts);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (addrs[i] == NULL)
			continue;
		sqlite3_bind_text(st, 1, addrs[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			bogus[i] = sqlite3_column_int(st, 0);
		else if (rc != SQLITE_DONE) {
			trust_fail(ts, "cannot read", cause);
			sqlite3_finalize(st);
			trust_rollback(ts);
			for (i = 0; i < n; i++)
				bogus[i] = 0;
			return -1;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	trust_rollback(ts);
	return 0;
}

void
trust_peer_free(struct trust_peer *peer)
{
	size_t	i;

	for (i = 0; i < peer->nkeys; i++) {
		free(peer->keys[i].fpr);
		free(peer->keys[i].proto);
		free(peer->keys[i].decision);
	}
	free(peer->keys);
	for (i = 0; i < peer->nhistory; i++)
		free(peer->history[i].what);
	free(peer->history);
	free(peer->addr);
	free(peer->pinned);
	trust_verdict_free(&peer->v);
	for (i = 0; i < TRUST_NPROTO; i++) {
		free(peer->pins[i].pinned);
		trust_verdict_free(&peer->pins[i].v);
	}
	memset(peer, 0, sizeof *peer);
}
