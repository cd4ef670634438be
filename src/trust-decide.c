/*
 * trust-decide.c: the user's decisions on a correspondent's keys
 * (--trust verify, accept, reject, forget), each in one transaction; they
 * settle what trust-rules.c left pending. Caller: ui/cli-trust.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trust-db.h"
#include "xmalloc.h"

/* One decision on (addr, fpr) in one transaction. */
enum trust_decide { TRUST_DO_VERIFY, TRUST_DO_ACCEPT, TRUST_DO_REJECT };

/*
 * The pending key of addr when the user names none: the new key or the
 * conflicting one, of whichever protocol has one; *p becomes that
 * protocol's pin. More than one: the user must say which.
 */
static char *
trust_pending(struct trust_store *ts, const char *addr, struct trust_pin *p,
    char **cause)
{
	struct trust_pin	 q;
	const char		*fpr = NULL;
	int			 i, n = 0;

	memset(p, 0, sizeof *p);
	for (i = 0; i < TRUST_NPROTO; i++) {
		if (trust_get_pin(ts, addr, trust_proto_name(i), &q,
		    cause) == -1) {
			trust_pin_free(p);
			return NULL;
		}
		n += (q.changed != NULL) + (q.conflict != NULL);
		if (fpr == NULL && (q.changed != NULL || q.conflict != NULL)) {
			trust_pin_free(p);
			*p = q;
			fpr = q.conflict != NULL ? q.conflict : q.changed;
		} else
			trust_pin_free(&q);
	}
	if (n > 1) {
		*cause = xasprintf("%s has more than one key waiting (a new "
		    "key, a conflicting DNS record, or one for each of "
		    "OpenPGP and S/MIME): name the key to accept", addr);
		trust_pin_free(p);
		return NULL;
	}
	if (fpr == NULL) {
		*cause = xasprintf("no new key for %s to accept", addr);
		trust_pin_free(p);
		return NULL;
	}
	/* A claim is accepted only by name, after asking the sender. */
	if (p->conflict == NULL && p->changed_level == TRUST_LEVEL_CLAIM) {
		*cause = xasprintf("the new key %s for %s was only named in an "
		    "Autocrypt header, which anyone can write: compare its "
		    "fingerprint with the sender, then name it to accept it",
		    fpr, addr);
		trust_pin_free(p);
		return NULL;
	}
	return xstrdup(fpr);
}

static int
trust_decide(struct trust_store *ts, const char *addr_in, const char *fpr_in,
    enum trust_decide what, time_t now, char **cause)
{
	static const char	*words[] = { "verified", "accepted", "rejected" };
	struct trust_pin	 p;
	struct trust_krow	 k;
	char			*addr, *fpr = NULL;
	const char		*pinned, *changed, *conflict;

	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	memset(&p, 0, sizeof p);
	if (trust_begin(ts, cause) == -1) {
		free(addr);
		return -1;
	}
	if (fpr_in != NULL) {
		fpr = xstrdup(fpr_in);
		for (char *c = fpr; *c != '\0'; c++)
			*c = (char)toupper((unsigned char)*c);
	} else if ((fpr = trust_pending(ts, addr, &p, cause)) == NULL)
		goto fail;
	if (trust_get_key(ts, addr, fpr, &k, cause) == -1)
		goto fail;
	if (!k.exists && what == TRUST_DO_REJECT) {
		*cause = xasprintf("no key %s is known for %s", fpr, addr);
		goto fail;
	}
	/* The key's own protocol: its pin is the one decided on. */
	if (fpr_in != NULL && trust_get_pin(ts, addr, k.exists ? k.proto :
	    NULL, &p, cause) == -1)
		goto fail;
	if (trust_touch_key(ts, addr, fpr, p.proto, k.exists ? 0 :
	    1u << TRUST_SRC_MANUAL, now, cause) == -1 ||
	    trust_run(ts, cause, "UPDATE key SET decision = ? WHERE addr = ? "
	    "AND fpr = ?", "sss", words[what], addr, fpr) == -1)
		goto fail;
	pinned = p.pinned;
	changed = p.changed;
	conflict = p.conflict;
	if (what == TRUST_DO_REJECT) {
		if (pinned != NULL && strcasecmp(pinned, fpr) == 0)
			pinned = NULL;
		if (changed != NULL && strcasecmp(changed, fpr) == 0)
			changed = NULL;
		if (conflict != NULL && strcasecmp(conflict, fpr) == 0)
			conflict = NULL;
	} else {
		/* The user's word settles a change or a conflict. */
		pinned = fpr;
		changed = conflict = NULL;
	}
	if (trust_set_pin(ts, addr, p.proto, pinned, changed,
	    p.changed_level, conflict, cause) == -1 ||
	    trust_history(ts, addr, now, cause, "key %s %s by you%s%s", fpr,
	    words[what], what != TRUST_DO_REJECT ? "; used for encryption" :
	    "", trust_proto_words(p.proto)) == -1)
		goto fail;
	if (trust_commit(ts, cause) == -1)
		goto fail_nr;
	free(fpr);
	trust_pin_free(&p);
	free(addr);
	return 0;
fail:
	trust_rollback(ts);
fail_nr:
	free(fpr);
	trust_pin_free(&p);
	free(addr);
	return -1;
}

int
trust_store_verify(struct trust_store *ts, const char *addr, const char *fpr,
    time_t now, char **cause)
{
	if (fpr == NULL) {
		*cause = xstrdup("verify needs the fingerprint you compared");
		return -1;
	}
	return trust_decide(ts, addr, fpr, TRUST_DO_VERIFY, now, cause);
}

int
trust_store_accept(struct trust_store *ts, const char *addr, const char *fpr,
    time_t now, char **cause)
{
	return trust_decide(ts, addr, fpr, TRUST_DO_ACCEPT, now, cause);
}

int
trust_store_reject(struct trust_store *ts, const char *addr, const char *fpr,
    time_t now, char **cause)
{
	if (fpr == NULL) {
		*cause = xstrdup("reject needs the fingerprint");
		return -1;
	}
	return trust_decide(ts, addr, fpr, TRUST_DO_REJECT, now, cause);
}

int
trust_store_forget(struct trust_store *ts, const char *addr_in, time_t now,
    char **cause)
{
	char	*addr;

	if ((addr = trust_store_addr(addr_in)) == NULL) {
		*cause = xstrdup("not a mail address");
		return -1;
	}
	if (trust_begin(ts, cause) == -1 ||
	    trust_run(ts, cause, "DELETE FROM key WHERE addr = ?", "s",
	    addr) == -1 ||
	    trust_run(ts, cause, "DELETE FROM pin WHERE addr = ?", "s",
	    addr) == -1 ||
	    trust_history(ts, addr, now, cause, "every key forgotten") == -1) {
		trust_rollback(ts);
		free(addr);
		return -1;
	}
	free(addr);
	return trust_commit(ts, cause);
}
