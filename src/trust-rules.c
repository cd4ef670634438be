/*
 * trust-rules.c: the rules of doc/trust.md ("The rules as a table") for
 * what mail and DNS bring: a received message (trust_store_message(),
 * with its signature and its own Autocrypt header, in one transaction), a
 * key seen (trust_store_sighting()), gpg's word that a key is revoked or
 * expired. The user's decisions are trust-decide.c's. Callers:
 * trust-msg.c, policy.c, ui/cli-key.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "trust-db.h"
#include "xmalloc.h"

/*
 * The state of the pinned key itself, strongest first. pending: whether a
 * pending key change counts. It does for the address; it does not for a
 * message signed by the pinned key, whose own evidence is that key (a
 * change another message brought is that message's warning, not this
 * one's).
 */
enum trust_state
trust_pinned_state(const struct trust_pin *p, const struct trust_krow *k,
    int pending)
{
	if (p->conflict != NULL)
		return TRUST_CONFLICT;
	if (k->revoked)
		return TRUST_REVOKED;
	if (k->expired)
		return TRUST_EXPIRED;
	if (strcmp(k->decision, "verified") == 0)
		return TRUST_VERIFIED;
	if (pending && p->changed != NULL)
		return TRUST_KEY_CHANGED;
	if (k->dns_confirmed != 0)
		return TRUST_DNS_CONFIRMED;
	return TRUST_KNOWN;
}

/*
 * A good signature by fpr from addr: the rules of doc/trust.md, against
 * p, the pin of the signature's protocol.
 */
static int
trust_good_sig(struct trust_store *ts, const char *addr,
    const struct trust_sig *sig, struct trust_pin *p, time_t now,
    struct trust_verdict *v, char **cause)
{
	struct trust_krow	 k;
	const char		*fpr = sig->fpr;
	const char		*how;

	if (trust_touch_key(ts, addr, fpr, sig->proto, 0, now, cause) == -1 ||
	    trust_run(ts, cause, "UPDATE key SET messages = messages + 1, "
	    "last_sig = ? WHERE addr = ? AND fpr = ?", "iss", (long long)now,
	    addr, fpr) == -1 || trust_get_key(ts, addr, fpr, &k, cause) == -1)
		return -1;
	if (strcmp(k.decision, "rejected") == 0) {
		trust_set_verdict(v, TRUST_KEY_CHANGED, fpr, p->pinned, &k,
		    xasprintf("signed by key %s, which you rejected", fpr));
		return 0;
	}
	if (p->pinned == NULL) {
		if (trust_run(ts, cause, "UPDATE key SET decision = 'accepted'"
		    " WHERE addr = ? AND fpr = ?", "ss", addr, fpr) == -1 ||
		    trust_set_pin(ts, addr, p->proto, fpr, NULL, 0,
		    p->conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "first contact: key %s "
		    "accepted from a signed message%s", fpr,
		    trust_proto_words(p->proto)) == -1)
			return -1;
		trust_set_verdict(v, TRUST_FIRST_CONTACT, fpr, NULL, &k,
		    xasprintf("first %s seen for %s: accepted",
		    strcmp(p->proto, "smime") == 0 ? "S/MIME certificate" :
		    "key", addr));
		return 0;
	}
	if (strcasecmp(p->pinned, fpr) == 0) {
		trust_set_verdict(v, trust_pinned_state(p, &k, 0), fpr,
		    p->conflict, &k, xasprintf("signed by the key known since "
		    "%s (%ld message%s)", trust_date(k.first_seen), k.messages,
		    k.messages == 1 ? "" : "s"));
		if (p->conflict != NULL) {
			free(v->evidence);
			v->evidence = xasprintf("signed by the pinned key, but "
			    "a DNSSEC-secure record names key %s", p->conflict);
		}
		return 0;
	}
	/* Another key. Is the change proven? */
	how = NULL;
	if (k.dns_confirmed != 0)
		how = "a DNSSEC-secure record names it";
	else if (sig->certified_by_pinned)
		how = "the old key certifies it";
	if (how != NULL) {
		if (trust_run(ts, cause, "UPDATE key SET decision = 'accepted'"
		    " WHERE addr = ? AND fpr = ?", "ss", addr, fpr) == -1 ||
		    trust_set_pin(ts, addr, p->proto, fpr, NULL, 0, NULL,
		    cause) == -1 ||
		    trust_history(ts, addr, now, cause, "key changed from %s to "
		    "%s, proven: %s%s", p->pinned, fpr, how,
		    trust_proto_words(p->proto)) == -1)
			return -1;
		trust_set_verdict(v, k.dns_confirmed != 0 ?
		    TRUST_DNS_CONFIRMED : TRUST_KNOWN, fpr, p->pinned, &k,
		    xasprintf("new key, proven: %s", how));
		return 0;
	}
	/*
	 * Not proven: the change waits for the user. It takes the place of
	 * a pending key only an Autocrypt header named, never of another
	 * signed one (the first stays: which came first is not evidence).
	 */
	if (p->changed == NULL || (p->changed_level < TRUST_LEVEL_SIGNED &&
	    strcasecmp(p->changed, fpr) != 0)) {
		if (trust_set_pin(ts, addr, p->proto, p->pinned, fpr,
		    TRUST_LEVEL_SIGNED, p->conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "KEY CHANGED: signed "
		    "by %s; %s stays the key used for encryption%s", fpr,
		    p->pinned, trust_proto_words(p->proto)) == -1)
			return -1;
	} else if (strcasecmp(p->changed, fpr) == 0 &&
	    p->changed_level < TRUST_LEVEL_SIGNED) {
		if (trust_set_pin(ts, addr, p->proto, p->pinned, fpr,
		    TRUST_LEVEL_SIGNED, p->conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "KEY CHANGED: the new "
		    "key %s, so far only named in an Autocrypt header, signed "
		    "a message%s", fpr, trust_proto_words(p->proto)) == -1)
			return -1;
	}
	trust_set_verdict(v, TRUST_KEY_CHANGED, fpr, p->pinned, &k,
	    xasprintf("signed by a new key; %s stays the key used for "
	    "encryption until you accept the new one", p->pinned));
	return 0;
}

/*
 * A key seen for addr (normalised), inside the caller's transaction: the
 * sighting rules of doc/trust.md.
 */
static int
trust_sight(struct trust_store *ts, const char *addr, const char *fpr,
    const char *proto, enum trust_source src, time_t now, char **cause)
{
	struct trust_pin	 p;
	struct trust_krow	 k;
	const char		*name = trust_source_name(src);
	int			 rc = -1;

	if (trust_get_pin(ts, addr, proto, &p, cause) == -1)
		return -1;
	if (trust_get_key(ts, addr, fpr, &k, cause) == -1 ||
	    trust_touch_key(ts, addr, fpr, proto, 1u << src, now, cause) == -1)
		goto out;
	if (src == TRUST_SRC_DNS_SECURE && trust_run(ts, cause, "UPDATE key "
	    "SET dns_confirmed = ? WHERE addr = ? AND fpr = ?", "iss",
	    (long long)now, addr, fpr) == -1)
		goto out;
	if (!k.exists && trust_history(ts, addr, now, cause, "key %s seen "
	    "(%s)", fpr, name) == -1)
		goto out;
	if (strcmp(k.decision, "rejected") == 0) {
		rc = 0;
		goto out;
	}
	if (p.pinned == NULL) {
		/* No key yet: this one, whatever the source (first contact). */
		if (trust_run(ts, cause, "UPDATE key SET decision = 'accepted'"
		    " WHERE addr = ? AND fpr = ?", "ss", addr, fpr) == -1 ||
		    trust_set_pin(ts, addr, p.proto, fpr, NULL, 0,
		    p.conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "first contact: key %s "
		    "accepted (%s)%s", fpr, name,
		    trust_proto_words(p.proto)) == -1)
			goto out;
	} else if (strcasecmp(p.pinned, fpr) == 0) {
		if (src == TRUST_SRC_DNS_SECURE && k.dns_confirmed == 0 &&
		    trust_history(ts, addr, now, cause, "key %s confirmed by "
		    "a DNSSEC-secure record", fpr) == -1)
			goto out;
	} else if (src == TRUST_SRC_DNS_SECURE) {
		if (p.changed != NULL && strcasecmp(p.changed, fpr) == 0) {
			if (trust_run(ts, cause, "UPDATE key SET decision = "
			    "'accepted' WHERE addr = ? AND fpr = ?", "ss", addr,
			    fpr) == -1 ||
			    trust_set_pin(ts, addr, p.proto, fpr, NULL, 0,
			    NULL, cause) == -1 ||
			    trust_history(ts, addr, now, cause, "key changed "
			    "from %s to %s, proven: a DNSSEC-secure record "
			    "names it", p.pinned, fpr) == -1)
				goto out;
		} else if (p.conflict == NULL ||
		    strcasecmp(p.conflict, fpr) != 0) {
			if (trust_set_pin(ts, addr, p.proto, p.pinned,
			    p.changed, p.changed_level, fpr, cause) == -1 ||
			    trust_history(ts, addr, now, cause, "CONFLICT: a "
			    "DNSSEC-secure record names %s, the pinned key is "
			    "%s", fpr, p.pinned) == -1)
				goto out;
		}
	} else if (src == TRUST_SRC_AUTOCRYPT && p.changed == NULL) {
		/*
		 * A header names another key: a claim, which waits for the
		 * user, but never takes the place of a pending key (whose
		 * evidence is as good or better).
		 */
		if (trust_set_pin(ts, addr, p.proto, p.pinned, fpr,
		    TRUST_LEVEL_CLAIM, p.conflict, cause) == -1 ||
		    trust_history(ts, addr, now, cause, "KEY CHANGED (claimed "
		    "only): an Autocrypt header names %s; %s stays the key "
		    "used for encryption", fpr, p.pinned) == -1)
			goto out;
	}
	rc = 0;
out:
	trust_pin_free(&p);
	return rc;
}

/*
 * A stored verdict: 1 final (v filled, stored set), 2 one to decide
 * again (v filled with what it was, stored left 0), 0 none.
 */
static int
trust_get_message(struct trust_store *ts, const char *msgkey,
    struct trust_verdict *v, char **cause)
{
	sqlite3_stmt	*st;
	int		 rc, found = 0;

	if ((st = trust_query(ts, cause, "SELECT state, fpr, other, since, "
	    "messages, evidence, final FROM message WHERE id = ?", "s",
	    msgkey)) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		found = sqlite3_column_int(st, 6) == 0 ? 2 : 1;
		v->state = sqlite3_column_int(st, 0);
		v->fpr = trust_col(st, 1);
		v->other = trust_col(st, 2);
		v->since = sqlite3_column_int64(st, 3);
		v->messages = sqlite3_column_int64(st, 4);
		v->evidence = trust_col(st, 5);
		v->stored = found == 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return trust_fail(ts, "cannot read", cause);
	return found;
}

/*
 * A message without a signature that counts: unsigned, with the key its
 * own Autocrypt header names (recorded first, so that the message that
 * brings a key is the one that shows it) or the one known. again: the
 * message was processed before, and its header's key recorded then; it
 * is not recorded again (a key change the user settled since stays
 * settled).
 */
static int
trust_unsigned(struct trust_store *ts, const char *addr,
    const struct trust_sig *sig, int again, time_t now,
    struct trust_verdict *v, char **cause)
{
	struct trust_pin	 p;
	struct trust_krow	 k;
	const char		*what, *claim = sig->claim;
	char			*src;
	int			 had_pin = 0;

	what = sig->unknown_key ? "signed with a key not known yet (decided "
	    "again once it is)" : "not signed";
	if (claim != NULL && again)
		had_pin = 1;
	else if (claim != NULL) {
		if (trust_get_pin(ts, addr, "openpgp", &p, cause) == -1)
			return -1;
		had_pin = p.pinned != NULL;
		trust_pin_free(&p);
		if (trust_sight(ts, addr, claim, "openpgp",
		    TRUST_SRC_AUTOCRYPT, now, cause) == -1)
			return -1;
	}
	if (trust_get_pin(ts, addr, NULL, &p, cause) == -1)
		return -1;
	if (p.pinned == NULL && claim == NULL) {
		trust_pin_free(&p);
		if (trust_get_pin(ts, addr, "smime", &p, cause) == -1)
			return -1;
	}
	if (claim == NULL || (p.pinned != NULL &&
	    strcasecmp(p.pinned, claim) == 0 && had_pin)) {
		if (trust_get_key(ts, addr, p.pinned, &k, cause) == -1)
			goto fail;
		src = trust_sources_text(k.sources);
		trust_set_verdict(v, TRUST_UNSIGNED, p.pinned, NULL,
		    p.pinned != NULL ? &k : NULL, p.pinned != NULL ?
		    xasprintf("%s; key %s known since %s (%s)", what,
		    p.pinned, trust_date(k.first_seen), src) :
		    xasprintf("%s; no key known", what));
		free(src);
	} else if (p.pinned != NULL && strcasecmp(p.pinned, claim) == 0) {
		if (trust_get_key(ts, addr, claim, &k, cause) == -1)
			goto fail;
		trust_set_verdict(v, TRUST_UNSIGNED, claim, NULL, &k,
		    xasprintf("%s; its Autocrypt header brings key %s, the "
		    "first seen for %s: accepted", what, claim, addr));
	} else {
		/* Another key than the pinned one: this message's warning. */
		if (trust_get_key(ts, addr, claim, &k, cause) == -1)
			goto fail;
		trust_set_verdict(v, TRUST_KEY_CHANGED, claim, p.pinned, &k,
		    strcmp(k.decision, "rejected") == 0 ?
		    xasprintf("%s; its Autocrypt header names key %s, which "
		    "you rejected", what, claim) :
		    xasprintf("%s; its Autocrypt header names another key, %s;"
		    " %s stays the key used for encryption", what, claim,
		    p.pinned != NULL ? p.pinned : "none"));
	}
	trust_pin_free(&p);
	return 0;
fail:
	trust_pin_free(&p);
	return -1;
}

/*
 * The rules for one message, inside the caller's transaction; again: it
 * was processed before (its verdict was not final).
 */
static int
trust_decide_message(struct trust_store *ts, const char *addr,
    const struct trust_sig *sig, int again, time_t now,
    struct trust_verdict *v, char **cause)
{
	struct trust_pin	 p;
	struct trust_krow	 k;
	int			 rc = -1;

	if (sig->status == TRUST_SIG_NONE)
		return trust_unsigned(ts, addr, sig, again, now, v, cause);
	if (trust_get_pin(ts, addr, sig->proto, &p, cause) == -1)
		return -1;
	if (sig->status == TRUST_SIG_GOOD) {
		if (trust_good_sig(ts, addr, sig, &p, now, v, cause) == -1)
			goto out;
	} else {
		if (trust_touch_key(ts, addr, sig->fpr, sig->proto, 0, now,
		    cause) == -1 ||
		    trust_store_key_status(ts, sig->fpr,
		    sig->status == TRUST_SIG_REVOKED,
		    sig->status == TRUST_SIG_EXPIRED, now, cause) == -1 ||
		    trust_get_key(ts, addr, sig->fpr, &k, cause) == -1)
			goto out;
		trust_set_verdict(v, sig->status == TRUST_SIG_REVOKED ?
		    TRUST_REVOKED : TRUST_EXPIRED, sig->fpr, NULL, &k,
		    xasprintf("signed with a key that is %s: it is never used "
		    "for encryption", sig->status == TRUST_SIG_REVOKED ?
		    "revoked" : "expired"));
	}
	/*
	 * The header's key after the signature decided, so that a first
	 * signed message is first contact even when it also brings the key.
	 */
	if (sig->claim != NULL && !again && trust_sight(ts, addr, sig->claim,
	    "openpgp", TRUST_SRC_AUTOCRYPT, now, cause) == -1) {
		trust_verdict_free(v);
		goto out;
	}
	rc = 0;
out:
	trust_pin_free(&p);
	return rc;
}

int
trust_store_message(struct trust_store *ts, const char *msgkey,
    const char *addr_in, const struct trust_sig *sig, time_t now,
    struct trust_verdict *v, char **cause)
{
	struct trust_verdict	 was;
	char			*addr;
	int			 found;

	memset(v, 0, sizeof *v);
	memset(&was, 0, sizeof was);
	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("no sender address");
		return -1;
	}
	if (trust_begin(ts, cause) == -1) {
		free(addr);
		return -1;
	}
	if ((found = trust_get_message(ts, msgkey, &was, cause)) == -1)
		goto fail;
	if (found == 1) {
		trust_rollback(ts);
		free(addr);
		*v = was;
		return 0;
	}
	if (trust_decide_message(ts, addr, sig, found == 2, now, v,
	    cause) == -1)
		goto fail;
	/*
	 * Decided again to the same state about the same key: the words of
	 * its first decision stay (they say what this message brought, which
	 * is the same whichever command opened it first and how often).
	 */
	if (found == 2 && was.state == v->state && (was.fpr == NULL ?
	    v->fpr == NULL : v->fpr != NULL && strcmp(was.fpr, v->fpr) == 0)) {
		free(v->evidence);
		v->evidence = was.evidence;
		was.evidence = NULL;
	}
	trust_verdict_free(&was);
	/* processed stays the time of the first processing. */
	if (trust_run(ts, cause, "INSERT INTO message (id, addr, state, fpr, "
	    "other, since, messages, evidence, processed, final) VALUES "
	    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (id) DO "
	    "UPDATE SET state = ?3, fpr = ?4, other = ?5, since = ?6, "
	    "messages = ?7, evidence = ?8, final = ?10", "ssissiisii", msgkey,
	    addr, (long long)v->state, v->fpr, v->other, (long long)v->since,
	    (long long)v->messages, v->evidence, (long long)now,
	    (long long)(sig->status != TRUST_SIG_NONE)) == -1)
		goto fail_v;
	if (trust_commit(ts, cause) == -1)
		goto fail_nr;
	free(addr);
	return 0;
fail_v:
	trust_verdict_free(v);
fail:
	trust_verdict_free(&was);
	trust_rollback(ts);
	free(addr);
	return -1;
fail_nr:
	trust_verdict_free(v);
	free(addr);
	return -1;
}

int
trust_store_sighting(struct trust_store *ts, const char *addr_in,
    const char *fpr, const char *proto, enum trust_source src, time_t now,
    char **cause)
{
	char	*addr;

	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	if (trust_begin(ts, cause) == -1) {
		free(addr);
		return -1;
	}
	if (trust_sight(ts, addr, fpr, proto, src, now, cause) == -1) {
		trust_rollback(ts);
		free(addr);
		return -1;
	}
	free(addr);
	return trust_commit(ts, cause);
}

/* Inside or outside a transaction: one statement is atomic anyway. */
int
trust_store_key_status(struct trust_store *ts, const char *fpr, int revoked,
    int expired, time_t now, char **cause)
{
	(void)now;
	if (fpr == NULL)
		return 0;
	return trust_run(ts, cause, "UPDATE key SET revoked = revoked | ?, "
	    "expired = ? WHERE fpr = ?", "iis", (long long)(revoked != 0),
	    (long long)(expired != 0), fpr);
}
