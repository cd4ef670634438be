/*
 * test-trust.c: the trust store: each rule of doc/trust.md on a store in
 * a temporary directory, the OpenPGP and S/MIME pins kept apart,
 * migrations from the version 1, 3 and 4 schemas, files that are not
 * ours, a writer killed in the middle of a transaction, the index's
 * read-only lookup of stored states, and the rules as the table of
 * doc/trust.md (every event against every state), verdicts decided again,
 * and one set of messages processed in many orders.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tap.h"
#include "trust-store.h"

#define A	"AAAA000000000000000000000000000000000001"
#define B	"BBBB000000000000000000000000000000000002"
#define C	"CCCC000000000000000000000000000000000003"
#define S1	"5151000000000000000000000000000000000011"
#define S2	"5252000000000000000000000000000000000012"

/* Tables as versions 1 (key) and 2 (message) made them, for migrations. */
#define KEY_TABLE_V1							\
	"CREATE TABLE key (addr TEXT NOT NULL COLLATE NOCASE,"		\
	" fpr TEXT NOT NULL, proto TEXT NOT NULL,"			\
	" sources INTEGER NOT NULL DEFAULT 0,"				\
	" first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,"	\
	" messages INTEGER NOT NULL DEFAULT 0,"				\
	" last_sig INTEGER NOT NULL DEFAULT 0,"				\
	" dns_confirmed INTEGER NOT NULL DEFAULT 0,"			\
	" decision TEXT NOT NULL DEFAULT 'none',"			\
	" revoked INTEGER NOT NULL DEFAULT 0,"				\
	" expired INTEGER NOT NULL DEFAULT 0,"				\
	" PRIMARY KEY (addr, fpr));"
#define MESSAGE_TABLE_V2						\
	"CREATE TABLE message (id TEXT PRIMARY KEY,"			\
	" addr TEXT NOT NULL COLLATE NOCASE, state INTEGER NOT NULL,"	\
	" fpr TEXT, other TEXT, since INTEGER NOT NULL DEFAULT 0,"	\
	" messages INTEGER NOT NULL DEFAULT 0, evidence TEXT NOT NULL,"	\
	" processed INTEGER NOT NULL);"

static char	dir[] = "/tmp/steed-trust-XXXXXX";
static char	path[256];
static time_t	now = 1700000000;

static struct trust_sig
sig(enum trust_sig_status st, const char *fpr)
{
	struct trust_sig	s;

	memset(&s, 0, sizeof s);
	s.status = st;
	s.fpr = fpr;
	s.proto = "openpgp";
	return s;
}

/* The same made with an S/MIME certificate. */
static struct trust_sig
ssig(enum trust_sig_status st, const char *fpr)
{
	struct trust_sig	s = sig(st, fpr);

	s.proto = "smime";
	return s;
}

/* Process message id from addr; the state's name (static copy). */
static const char *
msg(struct trust_store *ts, const char *id, const char *addr,
    struct trust_sig s, struct trust_verdict *out)
{
	static char		 name[32];
	struct trust_verdict	 v;
	char			*cause = NULL;

	if (trust_store_message(ts, id, addr, &s, now++, &v, &cause) == -1) {
		printf("# %s\n", cause);
		free(cause);
		return "error";
	}
	snprintf(name, sizeof name, "%s", trust_state_name(v.state));
	if (out != NULL)
		*out = v;
	else
		trust_verdict_free(&v);
	return name;
}

static const char *
peer_state(struct trust_store *ts, const char *addr, char **pinned)
{
	static char		 name[32];
	struct trust_peer	 p;
	char			*cause = NULL;

	if (trust_store_peer(ts, addr, &p, &cause) == -1) {
		free(cause);
		return "error";
	}
	snprintf(name, sizeof name, "%s", trust_state_name(p.v.state));
	if (pinned != NULL)
		*pinned = p.pinned != NULL ? strdup(p.pinned) : NULL;
	trust_peer_free(&p);
	return name;
}

static int
see(struct trust_store *ts, const char *addr, const char *fpr,
    enum trust_source src)
{
	char	*cause = NULL;
	int	 rc;

	rc = trust_store_sighting(ts, addr, fpr, "openpgp", src, now++, &cause);
	if (rc == -1) {
		printf("# %s\n", cause);
		free(cause);
	}
	return rc;
}

static int
pinned_in(struct trust_store *ts, const char *addr, const char *proto,
    const char *want)
{
	char	*p = trust_store_pinned(ts, addr, proto);
	int	 same = (p == NULL && want == NULL) ||
		    (p != NULL && want != NULL && strcmp(p, want) == 0);

	free(p);
	return same;
}

static int
pinned_is(struct trust_store *ts, const char *addr, const char *want)
{
	return pinned_in(ts, addr, "openpgp", want);
}

/* The state of addr's pin of protocol i. */
static const char *
pin_state(struct trust_store *ts, const char *addr, enum trust_proto i)
{
	static char		 name[32];
	struct trust_peer	 p;
	char			*cause = NULL;

	if (trust_store_peer(ts, addr, &p, &cause) == -1) {
		free(cause);
		return "error";
	}
	snprintf(name, sizeof name, "%s", trust_state_name(p.pins[i].v.state));
	trust_peer_free(&p);
	return name;
}

static void
test_rules(void)
{
	struct trust_store	*ts;
	struct trust_verdict	 v;
	struct trust_sig	 s;
	struct stat		 sb;
	char			*cause = NULL, *pin;

	ts = trust_store_open(path, &cause);
	TAP_OK(ts != NULL, "a new store opens");
	if (ts == NULL)
		return;
	TAP_OK(stat(path, &sb) == 0 && (sb.st_mode & 077) == 0,
	    "trust.sqlite is mode 0600");

	TAP_STR(msg(ts, "<1@x> alice@x.org", "Alice@X.ORG",
	    sig(TRUST_SIG_GOOD, A), &v), "first-contact",
	    "first key ever seen: first-contact");
	TAP_OK(v.fpr != NULL && strcmp(v.fpr, A) == 0 && v.messages == 1,
	    "first-contact names the key, one message");
	trust_verdict_free(&v);
	TAP_OK(pinned_is(ts, "alice@x.org", A), "and the key is pinned");
	TAP_STR(msg(ts, "<2@x>", "alice@x.org", sig(TRUST_SIG_GOOD, A), &v),
	    "known", "same key again: known");
	TAP_OK(v.messages == 2 && v.since == 1700000000,
	    "known: since the first message, two messages");
	trust_verdict_free(&v);
	TAP_STR(msg(ts, "<1@x> alice@x.org", "alice@x.org",
	    sig(TRUST_SIG_GOOD, A), &v), "first-contact",
	    "the first message again keeps the state it earned");
	TAP_OK(v.stored && v.messages == 1, "from the store, not counted twice");
	trust_verdict_free(&v);
	TAP_STR(msg(ts, "<3@x>", "ALICE@x.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "known", "the local part is compared without case");

	TAP_STR(msg(ts, "<4@x>", "alice@x.org", sig(TRUST_SIG_GOOD, B), &v),
	    "key-changed", "another key: key-changed");
	TAP_OK(v.other != NULL && strcmp(v.other, A) == 0,
	    "key-changed names the pinned key too");
	trust_verdict_free(&v);
	TAP_OK(pinned_is(ts, "alice@x.org", A),
	    "the old key stays the one used for encryption");
	TAP_STR(peer_state(ts, "alice@x.org", NULL), "key-changed",
	    "the address is key-changed");
	TAP_STR(msg(ts, "<5@x>", "alice@x.org", sig(TRUST_SIG_GOOD, B), NULL),
	    "key-changed", "still key-changed on the next message");
	TAP_OK(trust_store_accept(ts, "alice@x.org", NULL, now++,
	    &cause) == 0, "accept takes the pending key");
	TAP_OK(pinned_is(ts, "alice@x.org", B), "the new key is pinned");
	TAP_STR(msg(ts, "<6@x>", "alice@x.org", sig(TRUST_SIG_GOOD, B), NULL),
	    "known", "accepted: known");
	TAP_STR(msg(ts, "<7@x>", "alice@x.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "key-changed", "the old key is now the other one");
	TAP_OK(trust_store_reject(ts, "alice@x.org", A, now++, &cause) == 0,
	    "reject the old key");
	TAP_STR(msg(ts, "<8@x>", "alice@x.org", sig(TRUST_SIG_GOOD, A), &v),
	    "key-changed", "a rejected key stays key-changed");
	TAP_OK(v.evidence != NULL && strstr(v.evidence, "rejected") != NULL,
	    "and says it was rejected");
	trust_verdict_free(&v);
	TAP_STR(peer_state(ts, "alice@x.org", NULL), "known",
	    "the rejection settles the pending change");

	/* Revoked and expired. */
	TAP_STR(msg(ts, "<9@x>", "alice@x.org", sig(TRUST_SIG_REVOKED, B),
	    NULL), "revoked", "a revoked key's signature: revoked");
	TAP_STR(peer_state(ts, "alice@x.org", NULL), "revoked",
	    "the address is revoked");
	{
		struct trust_peer p;
		trust_store_peer(ts, "alice@x.org", &p, &cause);
		TAP_OK(!p.usable, "a revoked key is never used for encryption");
		trust_peer_free(&p);
	}
	TAP_STR(msg(ts, "<10@x>", "eve@x.org", sig(TRUST_SIG_EXPIRED, C),
	    NULL), "expired", "an expired key's signature: expired");

	/* DNS. */
	TAP_OK(see(ts, "bob@y.org", A, TRUST_SRC_AUTOCRYPT) == 0,
	    "Autocrypt sighting for a new address");
	TAP_STR(msg(ts, "<u1@y>", "bob@y.org", sig(TRUST_SIG_NONE, NULL), &v),
	    "unsigned", "unsigned mail: unsigned");
	TAP_OK(v.fpr != NULL && strcmp(v.fpr, A) == 0 &&
	    strstr(v.evidence, "autocrypt") != NULL,
	    "unsigned, but the key is known from Autocrypt");
	trust_verdict_free(&v);
	TAP_OK(see(ts, "bob@y.org", A, TRUST_SRC_DNS_SECURE) == 0,
	    "DNSSEC-secure record, same key");
	TAP_STR(msg(ts, "<b1@y>", "bob@y.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "dns-confirmed", "a secure record that agrees: dns-confirmed");
	TAP_OK(see(ts, "bob@y.org", C, TRUST_SRC_DNS_SECURE) == 0,
	    "DNSSEC-secure record, another key");
	TAP_STR(msg(ts, "<b2@y>", "bob@y.org", sig(TRUST_SIG_GOOD, A), &v),
	    "conflict", "a secure record that disagrees: conflict");
	TAP_OK(v.fpr != NULL && v.other != NULL && strcmp(v.fpr, A) == 0 &&
	    strcmp(v.other, C) == 0, "conflict names both fingerprints");
	trust_verdict_free(&v);
	TAP_OK(pinned_is(ts, "bob@y.org", A), "a conflict changes no pin");
	TAP_STR(msg(ts, "<b3@y>", "bob@y.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "conflict", "the conflict is never resolved silently");
	TAP_OK(trust_store_verify(ts, "bob@y.org", A, now++, &cause) == 0,
	    "verify the key");
	TAP_STR(msg(ts, "<b4@y>", "bob@y.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "verified", "user compared fingerprints: verified");
	TAP_STR(peer_state(ts, "bob@y.org", NULL), "verified",
	    "the address is verified");

	/* Proven changes. */
	msg(ts, "<c1@z>", "carol@z.org", sig(TRUST_SIG_GOOD, A), NULL);
	TAP_STR(msg(ts, "<c2@z>", "carol@z.org", sig(TRUST_SIG_GOOD, B), NULL),
	    "key-changed", "carol: a new key");
	TAP_OK(see(ts, "carol@z.org", B, TRUST_SRC_DNS_SECURE) == 0 &&
	    pinned_is(ts, "carol@z.org", B),
	    "a DNSSEC-secure record for the new key proves the change");
	TAP_STR(peer_state(ts, "carol@z.org", NULL), "dns-confirmed",
	    "and carol is dns-confirmed");
	msg(ts, "<d1@z>", "dan@z.org", sig(TRUST_SIG_GOOD, A), NULL);
	s = sig(TRUST_SIG_GOOD, B);
	s.certified_by_pinned = 1;
	TAP_STR(msg(ts, "<d2@z>", "dan@z.org", s, NULL), "known",
	    "a new key certified by the old one: the change is proven");
	TAP_OK(pinned_is(ts, "dan@z.org", B), "and pinned");
	TAP_OK(see(ts, "erin@z.org", A, TRUST_SRC_DNS_INSECURE) == 0 &&
	    pinned_is(ts, "erin@z.org", A),
	    "an insecure record is enough for first contact");
	TAP_OK(see(ts, "erin@z.org", B, TRUST_SRC_DNS_INSECURE) == 0 &&
	    pinned_is(ts, "erin@z.org", A) &&
	    strcmp(peer_state(ts, "erin@z.org", NULL), "known") == 0,
	    "but changes nothing after it");
	TAP_OK(see(ts, "erin@z.org", C, TRUST_SRC_AUTOCRYPT) == 0 &&
	    pinned_is(ts, "erin@z.org", A) &&
	    strcmp(peer_state(ts, "erin@z.org", &pin), "key-changed") == 0,
	    "another key in the sender's Autocrypt header: key-changed");
	free(pin);

	TAP_OK(trust_store_forget(ts, "erin@z.org", now++, &cause) == 0 &&
	    strcmp(peer_state(ts, "erin@z.org", NULL), "none") == 0,
	    "forget: nothing known any more");
	TAP_STR(msg(ts, "<e1@z>", "erin@z.org", sig(TRUST_SIG_GOOD, C), NULL),
	    "first-contact", "after forget, first contact again");
	{
		char	**addrs;
		size_t	  n, i;
		trust_store_list(ts, &addrs, &n, &cause);
		TAP_OK(n == 6 && strcmp(addrs[0], "Alice@x.org") == 0,
		    "list: every address, sorted, as first written (%zu)", n);
		for (i = 0; i < n; i++)
			free(addrs[i]);
		free(addrs);
	}
	{
		struct trust_peer p;
		trust_store_peer(ts, "alice@x.org", &p, &cause);
		TAP_OK(p.nkeys == 2 && p.nhistory >= 4,
		    "history and keys are kept (%zu keys, %zu events)",
		    p.nkeys, p.nhistory);
		trust_peer_free(&p);
	}
	free(cause);
	trust_store_close(ts);
}

static int
exec_sql(const char *file, const char *sql)
{
	sqlite3	*db;
	int	 rc;

	if (sqlite3_open(file, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

static int
query_int(const char *file, const char *sql)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	int		 v = -1;

	if (sqlite3_open(file, &db) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

static void
test_migrate(void)
{
	struct trust_store	*ts;
	char			 old[300], *cause = NULL;

	/* The version 1 schema as it was released. */
	snprintf(old, sizeof old, "%s/old.sqlite", dir);
	TAP_OK(exec_sql(old, "PRAGMA application_id=1398035538;"
	    "PRAGMA user_version=1;"
	    "CREATE TABLE peer (addr TEXT PRIMARY KEY COLLATE NOCASE,"
	    " pinned TEXT, changed TEXT, conflict TEXT);"
	    KEY_TABLE_V1
	    "INSERT INTO peer VALUES ('old@x.org', '" A "', NULL, NULL);"
	    "INSERT INTO key (addr, fpr, proto, sources, first_seen,"
	    " last_seen, messages, decision) VALUES ('old@x.org', '" A "',"
	    " 'openpgp', 4, 1600000000, 1600000000, 3, 'accepted');") == 0,
	    "a version 1 store");
	ts = trust_store_open(old, &cause);
	TAP_OK(ts != NULL, "opens");
	if (ts == NULL) {
		printf("# %s\n", cause);
		free(cause);
		return;
	}
	TAP_STR(msg(ts, "<o1@x>", "old@x.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "known", "its key is still known after the migration");
	trust_store_close(ts);
	TAP_OK(query_int(old, "PRAGMA user_version") == 6,
	    "migrated to the current version, 6");

	/* Not ours, or newer: refused and left alone. */
	snprintf(old, sizeof old, "%s/other.sqlite", dir);
	exec_sql(old, "CREATE TABLE t (x); INSERT INTO t VALUES (42);");
	ts = trust_store_open(old, &cause);
	TAP_OK(ts == NULL && strstr(cause, "not a steedmail trust store"),
	    "another program's database is refused");
	free(cause);
	cause = NULL;
	TAP_OK(query_int(old, "SELECT x FROM t") == 42, "and left as it was");
	snprintf(old, sizeof old, "%s/newer.sqlite", dir);
	exec_sql(old, "PRAGMA application_id=1398035538; "
	    "PRAGMA user_version=99; CREATE TABLE future (x);");
	ts = trust_store_open(old, &cause);
	TAP_OK(ts == NULL && strstr(cause, "version 99"),
	    "a newer version is refused");
	free(cause);
}

/* OpenPGP and S/MIME: a pin each, neither a key change of the other. */
static void
test_protocols(void)
{
	struct trust_store	*ts;
	struct trust_verdict	 v;
	struct trust_peer	 p;
	char			 file[300], *cause = NULL;

	snprintf(file, sizeof file, "%s/proto.sqlite", dir);
	if ((ts = trust_store_open(file, &cause)) == NULL) {
		TAP_OK(0, "protocol store opens: %s", cause);
		free(cause);
		return;
	}
	msg(ts, "<p1@x>", "dora@p.org", sig(TRUST_SIG_GOOD, A), NULL);
	TAP_STR(msg(ts, "<p2@x>", "dora@p.org", ssig(TRUST_SIG_GOOD, S1),
	    &v), "first-contact", "an OpenPGP key pinned, the first S/MIME "
	    "signature: first-contact, not key-changed");
	TAP_OK(v.other == NULL && v.fpr != NULL && strcmp(v.fpr, S1) == 0 &&
	    strstr(v.evidence, "S/MIME") != NULL,
	    "it names the certificate, no other key");
	trust_verdict_free(&v);
	TAP_OK(pinned_in(ts, "dora@p.org", "smime", S1) &&
	    pinned_is(ts, "dora@p.org", A),
	    "the certificate is pinned for S/MIME, the key stays for OpenPGP");
	TAP_OK(trust_store_peer(ts, "dora@p.org", &p, &cause) == 0 &&
	    p.pins[TRUST_OPENPGP].present && p.pins[TRUST_SMIME].present &&
	    strcmp(p.pins[TRUST_SMIME].proto, "smime") == 0 &&
	    p.pins[TRUST_SMIME].pinned != NULL &&
	    strcmp(p.pins[TRUST_SMIME].pinned, S1) == 0 &&
	    p.pinned != NULL && strcmp(p.pinned, A) == 0 &&
	    strcmp(p.proto, "openpgp") == 0 && p.v.state == TRUST_KNOWN,
	    "the peer has both pins; its main one is OpenPGP's, known");
	trust_peer_free(&p);
	TAP_STR(msg(ts, "<p3@x>", "dora@p.org", ssig(TRUST_SIG_GOOD, S1),
	    NULL), "known", "the certificate again: known");
	TAP_STR(msg(ts, "<p4@x>", "dora@p.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "known", "and the OpenPGP key still known");
	TAP_STR(msg(ts, "<p5@x>", "dora@p.org", ssig(TRUST_SIG_GOOD, S2), &v),
	    "key-changed", "a second S/MIME certificate: key-changed");
	TAP_OK(v.other != NULL && strcmp(v.other, S1) == 0,
	    "naming the pinned certificate, not the OpenPGP key");
	trust_verdict_free(&v);
	TAP_STR(pin_state(ts, "dora@p.org", TRUST_SMIME), "key-changed",
	    "the S/MIME pin is key-changed");
	TAP_STR(pin_state(ts, "dora@p.org", TRUST_OPENPGP), "known",
	    "the OpenPGP pin stays known");
	TAP_STR(msg(ts, "<p6@x>", "dora@p.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "known", "an OpenPGP signature is still known");
	TAP_OK(pinned_in(ts, "dora@p.org", "smime", S1),
	    "the old certificate stays pinned for S/MIME");
	TAP_OK(trust_store_accept(ts, "dora@p.org", NULL, now++,
	    &cause) == 0 && pinned_in(ts, "dora@p.org", "smime", S2) &&
	    pinned_is(ts, "dora@p.org", A),
	    "accept without a fingerprint: the S/MIME change, OpenPGP as it "
	    "was");
	TAP_STR(msg(ts, "<p7@x>", "dora@p.org", ssig(TRUST_SIG_GOOD, S2),
	    NULL), "known", "accepted: known");

	/* A change pending in each protocol. */
	msg(ts, "<p8@x>", "dora@p.org", sig(TRUST_SIG_GOOD, B), NULL);
	TAP_STR(msg(ts, "<p9@x>", "dora@p.org", ssig(TRUST_SIG_GOOD, S1),
	    NULL), "key-changed", "the old certificate again: key-changed");
	TAP_OK(trust_store_accept(ts, "dora@p.org", NULL, now++,
	    &cause) == -1 && strstr(cause, "name the key") != NULL,
	    "both protocols with a new key: accept asks for the fingerprint");
	free(cause);
	cause = NULL;
	TAP_OK(pinned_is(ts, "dora@p.org", A) &&
	    pinned_in(ts, "dora@p.org", "smime", S2),
	    "and changes nothing");
	TAP_OK(trust_store_accept(ts, "dora@p.org", B, now++, &cause) == 0 &&
	    pinned_is(ts, "dora@p.org", B) &&
	    pinned_in(ts, "dora@p.org", "smime", S2) &&
	    strcmp(pin_state(ts, "dora@p.org", TRUST_SMIME),
	    "key-changed") == 0,
	    "accept with an OpenPGP fingerprint: only the OpenPGP pin");
	TAP_OK(trust_store_verify(ts, "dora@p.org", S1, now++, &cause) == 0 &&
	    pinned_in(ts, "dora@p.org", "smime", S1) &&
	    pinned_is(ts, "dora@p.org", B) &&
	    strcmp(pin_state(ts, "dora@p.org", TRUST_SMIME), "verified") == 0 &&
	    strcmp(pin_state(ts, "dora@p.org", TRUST_OPENPGP), "known") == 0,
	    "verify a certificate: the S/MIME pin is verified, OpenPGP known");
	TAP_OK(trust_store_reject(ts, "dora@p.org", S2, now++, &cause) == 0 &&
	    pinned_in(ts, "dora@p.org", "smime", S1) &&
	    pinned_is(ts, "dora@p.org", B),
	    "reject the other certificate: no pin changes");
	TAP_STR(msg(ts, "<p10@x>", "dora@p.org", ssig(TRUST_SIG_GOOD, S2),
	    &v), "key-changed", "the rejected certificate: key-changed");
	TAP_OK(strstr(v.evidence, "rejected") != NULL && v.other != NULL &&
	    strcmp(v.other, S1) == 0, "which you rejected, against S/MIME");
	trust_verdict_free(&v);
	TAP_STR(msg(ts, "<p11@x>", "dora@p.org", ssig(TRUST_SIG_REVOKED, S1),
	    NULL), "revoked", "a revoked certificate: revoked");
	TAP_OK(strcmp(pin_state(ts, "dora@p.org", TRUST_SMIME),
	    "revoked") == 0 && strcmp(pin_state(ts, "dora@p.org",
	    TRUST_OPENPGP), "known") == 0 &&
	    strcmp(peer_state(ts, "dora@p.org", NULL), "known") == 0,
	    "the S/MIME pin is revoked; OpenPGP, the main one, known");

	/* Sightings and an address with S/MIME only. */
	TAP_OK(trust_store_sighting(ts, "gus@p.org", S1, "smime",
	    TRUST_SRC_MANUAL, now++, &cause) == 0 &&
	    pinned_in(ts, "gus@p.org", "smime", S1) &&
	    pinned_is(ts, "gus@p.org", NULL),
	    "an imported certificate: first contact for S/MIME only");
	TAP_OK(trust_store_peer(ts, "gus@p.org", &p, &cause) == 0 &&
	    strcmp(p.proto, "smime") == 0 && p.pinned != NULL &&
	    strcmp(p.pinned, S1) == 0 && !p.pins[TRUST_OPENPGP].present,
	    "without an OpenPGP pin the main one is S/MIME's");
	trust_peer_free(&p);
	TAP_OK(see(ts, "gus@p.org", A, TRUST_SRC_AUTOCRYPT) == 0 &&
	    pinned_is(ts, "gus@p.org", A) &&
	    strcmp(pin_state(ts, "gus@p.org", TRUST_OPENPGP), "known") == 0,
	    "an Autocrypt key next: first contact for OpenPGP");
	TAP_STR(msg(ts, "<g1@x>", "gus@p.org", sig(TRUST_SIG_NONE, NULL), &v),
	    "unsigned", "unsigned mail: unsigned");
	TAP_OK(v.fpr != NULL && strcmp(v.fpr, A) == 0,
	    "naming the OpenPGP key");
	trust_verdict_free(&v);
	TAP_OK(trust_store_forget(ts, "gus@p.org", now++, &cause) == 0 &&
	    pinned_in(ts, "gus@p.org", "smime", NULL) &&
	    pinned_is(ts, "gus@p.org", NULL),
	    "forget drops both pins");
	free(cause);
	trust_store_close(ts);
}

/* A store of version 3 (one pin per address) moved to pins per protocol. */
static void
test_migrate3(void)
{
	struct trust_store	*ts;
	struct trust_peer	 p;
	char			 old[300], *cause = NULL;

	snprintf(old, sizeof old, "%s/v3.sqlite", dir);
	/* The version 3 schema as it was released. */
	TAP_OK(exec_sql(old, "PRAGMA application_id=1398035538;"
	    "PRAGMA user_version=3;"
	    "CREATE TABLE peer (addr TEXT PRIMARY KEY COLLATE NOCASE,"
	    " pinned TEXT, changed TEXT, conflict TEXT);"
	    KEY_TABLE_V1
	    MESSAGE_TABLE_V2
	    "CREATE TABLE history (id INTEGER PRIMARY KEY,"
	    " addr TEXT NOT NULL COLLATE NOCASE, time INTEGER NOT NULL,"
	    " what TEXT NOT NULL);"
	    "CREATE INDEX history_addr ON history (addr);"
	    /* OpenPGP pinned. */
	    "INSERT INTO peer VALUES ('pat@x.org', '" A "', NULL, NULL);"
	    "INSERT INTO key (addr, fpr, proto, first_seen, last_seen,"
	    " messages, decision) VALUES ('pat@x.org', '" A "', 'openpgp',"
	    " 1600000000, 1600000000, 3, 'accepted');"
	    /* An S/MIME certificate pinned. */
	    "INSERT INTO peer VALUES ('sam@x.org', '" S1 "', NULL, NULL);"
	    "INSERT INTO key (addr, fpr, proto, first_seen, last_seen,"
	    " messages, decision) VALUES ('sam@x.org', '" S1 "', 'smime',"
	    " 1600000000, 1600000000, 2, 'verified');"
	    /* OpenPGP pinned, an S/MIME certificate taken for a change. */
	    "INSERT INTO peer VALUES ('two@x.org', '" A "', '" S1 "', NULL);"
	    "INSERT INTO key (addr, fpr, proto, first_seen, last_seen,"
	    " messages, decision) VALUES ('two@x.org', '" A "', 'openpgp',"
	    " 1600000000, 1600000000, 5, 'accepted'), ('two@x.org', '" S1 "',"
	    " 'smime', 1600000100, 1600000100, 1, 'none');"
	    "INSERT INTO message VALUES ('<t1@x> two@x.org', 'two@x.org', 4,"
	    " '" S1 "', '" A "', 1600000100, 1, 'signed by a new key',"
	    " 1600000100);"
	    /* A real OpenPGP change pending, and a DNS conflict. */
	    "INSERT INTO peer VALUES ('chg@x.org', '" A "', '" B "', '" C "');"
	    "INSERT INTO key (addr, fpr, proto, first_seen, last_seen)"
	    " VALUES ('chg@x.org', '" A "', 'openpgp', 1600000000,"
	    " 1600000000), ('chg@x.org', '" B "', 'openpgp', 1600000100,"
	    " 1600000100), ('chg@x.org', '" C "', 'openpgp', 1600000200,"
	    " 1600000200);"
	    /* A peer row whose key row is missing. */
	    "INSERT INTO peer VALUES ('nok@x.org', '" C "', NULL, NULL);") == 0,
	    "a version 3 store");
	ts = trust_store_open(old, &cause);
	TAP_OK(ts != NULL, "opens");
	if (ts == NULL) {
		printf("# %s\n", cause);
		free(cause);
		return;
	}
	TAP_OK(query_int(old, "PRAGMA user_version") == 6 &&
	    query_int(old, "SELECT count(*) FROM sqlite_master WHERE name = "
	    "'peer'") == 0, "migrated to version 6, the old table gone");
	TAP_OK(pinned_is(ts, "pat@x.org", A) &&
	    pinned_in(ts, "pat@x.org", "smime", NULL),
	    "an OpenPGP pin stays OpenPGP's");
	TAP_OK(pinned_in(ts, "sam@x.org", "smime", S1) &&
	    pinned_is(ts, "sam@x.org", NULL),
	    "a pinned S/MIME certificate lands under S/MIME");
	TAP_STR(pin_state(ts, "sam@x.org", TRUST_SMIME), "verified",
	    "keeping its decision");
	TAP_STR(msg(ts, "<s1@x>", "sam@x.org", ssig(TRUST_SIG_GOOD, S1),
	    NULL), "verified", "its next S/MIME signature: verified");
	TAP_OK(pinned_is(ts, "nok@x.org", C),
	    "a pin without a key row goes to OpenPGP");
	TAP_OK(pinned_is(ts, "two@x.org", A) &&
	    pinned_in(ts, "two@x.org", "smime", S1),
	    "a certificate taken for a change of the OpenPGP pin is pinned "
	    "for S/MIME");
	TAP_OK(trust_store_peer(ts, "two@x.org", &p, &cause) == 0 &&
	    p.v.state == TRUST_KNOWN &&
	    p.pins[TRUST_SMIME].v.state == TRUST_KNOWN &&
	    p.nhistory == 1 && strstr(p.history[0].what, "pinned for "
	    "smime") != NULL, "no key change left; the history says so");
	trust_peer_free(&p);
	TAP_STR(msg(ts, "<t1@x> two@x.org", "two@x.org",
	    ssig(TRUST_SIG_GOOD, S1), NULL), "key-changed",
	    "the message keeps the state it earned");
	TAP_STR(msg(ts, "<t2@x>", "two@x.org", ssig(TRUST_SIG_GOOD, S1),
	    NULL), "known", "the next S/MIME signature: known");
	TAP_OK(trust_store_peer(ts, "chg@x.org", &p, &cause) == 0 &&
	    p.v.state == TRUST_CONFLICT && p.pinned != NULL &&
	    strcmp(p.pinned, A) == 0 && !p.pins[TRUST_SMIME].present,
	    "a pending OpenPGP change and a conflict stay OpenPGP's");
	trust_peer_free(&p);
	TAP_OK(trust_store_reject(ts, "chg@x.org", C, now++, &cause) == 0 &&
	    strcmp(peer_state(ts, "chg@x.org", NULL), "key-changed") == 0,
	    "reject the conflicting key: the change is still pending");
	TAP_OK(trust_store_accept(ts, "chg@x.org", NULL, now++,
	    &cause) == 0 && pinned_is(ts, "chg@x.org", B),
	    "accept takes it");
	free(cause);
	trust_store_close(ts);
}

static void
test_die(void)
{
	raise(SIGKILL);
}

static void
test_crash(void)
{
	struct trust_store	*ts;
	struct trust_verdict	 v;
	struct trust_sig	 s = sig(TRUST_SIG_GOOD, C);
	char			 file[300], *cause = NULL;
	pid_t			 pid;
	int			 status;

	snprintf(file, sizeof file, "%s/crash.sqlite", dir);
	if ((ts = trust_store_open(file, &cause)) == NULL) {
		TAP_OK(0, "crash store opens: %s", cause);
		return;
	}
	msg(ts, "<k1@x>", "kim@x.org", sig(TRUST_SIG_GOOD, A), NULL);
	trust_store_close(ts);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		ts = trust_store_open(file, &cause);
		trust_store_test_hook = test_die;
		/* Writes a key row, the pin change, history, the message. */
		trust_store_message(ts, "<k2@x>", "kim@x.org", &s, now, &v,
		    &cause);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	TAP_OK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "the writer was killed inside its transaction");
	ts = trust_store_open(file, &cause);
	TAP_OK(ts != NULL, "the store opens after the crash");
	if (ts == NULL)
		return;
	TAP_OK(query_int(file, "SELECT count(*) FROM key WHERE fpr = '" C
	    "'") == 0 && query_int(file, "SELECT count(*) FROM history "
	    "WHERE what LIKE '%" C "%'") == 0,
	    "none of the killed transaction is there");
	TAP_OK(query_int(file, "SELECT count(*) FROM pragma_integrity_check "
	    "WHERE integrity_check = 'ok'") == 1, "integrity check: ok");
	TAP_OK(pinned_is(ts, "kim@x.org", A) &&
	    query_int(file, "SELECT count(*) FROM message") == 1,
	    "what was committed before is");
	TAP_STR(msg(ts, "<k2@x>", "kim@x.org", s, NULL), "key-changed",
	    "and the message is processed afresh");
	trust_store_close(ts);
}

/* The index's read: stored states, nothing written, no lock waited for. */
static void
test_states(void)
{
	struct trust_store	*ts;
	enum trust_state	 st[7];
	const char		*keys[7];
	char			 file[300], *k[4], *cause = NULL;
	sqlite3			*w;
	size_t			 found = 99, i;
	time_t			 t0;

	snprintf(file, sizeof file, "%s/states.sqlite", dir);
	if ((ts = trust_store_open(file, &cause)) == NULL) {
		TAP_OK(0, "states store opens: %s", cause);
		free(cause);
		return;
	}
	k[0] = trust_store_msgkey("<s1@x>", "Fay@X.ORG", NULL, 0);
	k[1] = trust_store_msgkey("<s2@x>", "fay@x.org", NULL, 0);
	k[2] = trust_store_msgkey("<s3@x>", "fay@x.org", NULL, 0);
	k[3] = trust_store_msgkey(NULL, "fay@x.org", "raw", 3);
	msg(ts, k[0], "Fay@X.ORG", sig(TRUST_SIG_GOOD, A), NULL);
	msg(ts, k[1], "fay@x.org", sig(TRUST_SIG_GOOD, B), NULL);
	msg(ts, k[3], "fay@x.org", sig(TRUST_SIG_NONE, NULL), NULL);

	keys[0] = k[1];
	keys[1] = k[0];
	keys[2] = k[2];		/* never processed */
	keys[3] = NULL;		/* a row without a key */
	keys[4] = k[3];
	keys[5] = k[0];		/* asked twice */
	keys[6] = "<s1@x> fay@x.org";	/* the key is compared exactly */
	TAP_OK(trust_store_states(ts, keys, 7, st, &found, &cause) == 0,
	    "states of seven rows");
	TAP_OK(st[0] == TRUST_KEY_CHANGED && st[1] == TRUST_FIRST_CONTACT &&
	    st[4] == TRUST_UNSIGNED && st[5] == TRUST_FIRST_CONTACT,
	    "each row gets the state its message earned, in the caller's "
	    "order");
	TAP_OK(st[2] == TRUST_NONE && st[3] == TRUST_NONE &&
	    st[6] == TRUST_NONE,
	    "not processed, no key, another key: none");
	TAP_OK(found == 4, "found counts the rows found (%zu)", found);
	TAP_OK(query_int(file, "SELECT count(*) FROM message") == 3,
	    "nothing is written for a message not yet processed");
	TAP_STR(msg(ts, k[2], "fay@x.org", sig(TRUST_SIG_NONE, NULL), NULL),
	    "unsigned", "which trust_store_message then decides as usual");
	TAP_OK(trust_store_states(ts, keys, 0, st, &found, &cause) == 0 &&
	    found == 0, "no rows: nothing to do");

	/* A value this steedmail never writes reads as nothing known. */
	exec_sql(file, "UPDATE message SET state = 42 WHERE id LIKE "
	    "'sha256:%'");
	TAP_OK(trust_store_states(ts, keys, 5, st, NULL, &cause) == 0 &&
	    st[4] == TRUST_NONE && st[2] == TRUST_UNSIGNED,
	    "an unknown stored value is none; found may be NULL");

	/* Another process in the middle of a write: read, do not wait. */
	w = NULL;
	if (sqlite3_open(file, &w) != SQLITE_OK ||
	    sqlite3_exec(w, "BEGIN IMMEDIATE; DELETE FROM message;", NULL,
	    NULL, NULL) != SQLITE_OK) {
		TAP_OK(0, "a second connection takes the write lock");
	} else {
		t0 = time(NULL);
		TAP_OK(trust_store_states(ts, keys, 3, st, &found,
		    &cause) == 0 && found == 3 && st[0] == TRUST_KEY_CHANGED,
		    "while another writer holds the lock: the committed "
		    "states");
		TAP_OK(time(NULL) - t0 < 2, "without waiting for the writer");
		sqlite3_exec(w, "ROLLBACK", NULL, NULL, NULL);
	}
	sqlite3_close(w);
	for (i = 0; i < 4; i++)
		free(k[i]);
	free(cause);
	trust_store_close(ts);
}

/*
 * The rules as a table (doc/trust.md, "The rules as a table"): every event
 * against every state an address can be in, each row on an address of its
 * own. A is the pinned key (the first key, for "none"), B a pending key,
 * C another key. A row gives what the event's message shows ("-" for an
 * event that is no message, "refused" for a decision the store refuses),
 * then the address's state, its pinned key and its other key (the pending
 * or conflicting one) afterwards. With STEED_TRUST_TABLE set, the test
 * prints the table as doc/trust.md has it.
 */
enum tstate { T_NONE, T_KNOWN, T_CHANGED, T_CLAIMED, T_DNS, T_CONFLICT,
	T_REVOKED, T_EXPIRED, T_VERIFIED, T_NSTATES };

static const char *tstate_names[] = { "none", "known",
	"key-changed (B signed)", "key-changed (B claimed)", "dns-confirmed",
	"conflict (DNS names B)", "revoked", "expired", "verified" };

enum tevent { E_SIG_A, E_SIG_AC_A, E_SIG_AC_C, E_SIG_C, E_SIG_C_AC_C,
	E_SIG_B, E_UNS, E_UNS_AC_A, E_UNS_AC_C, E_UNS_AC_B, E_UNKNOWN,
	E_GOSSIP_C, E_DNS_A, E_DNS_C, E_DNS_B, E_DNSI_C, E_REV_A, E_EXP_A,
	E_ACCEPT, E_ACCEPT_C, E_REJECT_B, E_VERIFY_A, E_NEVENTS };

static const char *tevent_names[] = {
	"signed by A (first sight, or the pinned key)",
	"signed by A, Autocrypt header A",
	"signed by A, Autocrypt header C",
	"signed by C",
	"signed by C, Autocrypt header C",
	"signed by B",
	"unsigned, no header",
	"unsigned, Autocrypt header A",
	"unsigned, Autocrypt header C",
	"unsigned, Autocrypt header B",
	"signed, key not known, no header",
	"gossip names C",
	"DNS secure names A",
	"DNS secure names C",
	"DNS secure names B",
	"DNS insecure names C",
	"signed by A, now revoked",
	"signed by A, now expired",
	"user: accept (no fingerprint)",
	"user: accept C",
	"user: reject B",
	"user: verify A",
};

/* Keys in the table: A, B, C, and "-" for none. */
static const char *
tkey(const char *fpr)
{
	if (fpr == NULL)
		return "-";
	if (strcmp(fpr, A) == 0)
		return "A";
	if (strcmp(fpr, B) == 0)
		return "B";
	if (strcmp(fpr, C) == 0)
		return "C";
	return "?";
}

/* Put addr into state st. */
static int
tsetup(struct trust_store *ts, const char *addr, enum tstate st, int *n)
{
	char	 id[64], *cause = NULL;
	int	 rc = 0;

	if (st == T_NONE)
		return 0;
	snprintf(id, sizeof id, "<s%d@t>", (*n)++);
	msg(ts, id, addr, sig(TRUST_SIG_GOOD, A), NULL);
	switch (st) {
	case T_CHANGED:
		snprintf(id, sizeof id, "<s%d@t>", (*n)++);
		msg(ts, id, addr, sig(TRUST_SIG_GOOD, B), NULL);
		break;
	case T_CLAIMED:
		rc = see(ts, addr, B, TRUST_SRC_AUTOCRYPT);
		break;
	case T_DNS:
		rc = see(ts, addr, A, TRUST_SRC_DNS_SECURE);
		break;
	case T_CONFLICT:
		rc = see(ts, addr, B, TRUST_SRC_DNS_SECURE);
		break;
	case T_REVOKED:
	case T_EXPIRED:
		rc = trust_store_key_status(ts, A, st == T_REVOKED,
		    st == T_EXPIRED, now++, &cause);
		break;
	case T_VERIFIED:
		rc = trust_store_verify(ts, addr, A, now++, &cause);
		break;
	default:
		break;
	}
	free(cause);
	return rc;
}

/* A message with signature status s by fpr and Autocrypt key claim. */
static const char *
tmsg(struct trust_store *ts, const char *addr, int *n,
    enum trust_sig_status s, const char *fpr, const char *claim)
{
	struct trust_sig	t = sig(s, fpr);
	char			id[64];

	t.claim = claim;
	snprintf(id, sizeof id, "<e%d@t>", (*n)++);
	return msg(ts, id, addr, t, NULL);
}

/* Apply event e to addr; what its message shows. */
static const char *
tevent(struct trust_store *ts, const char *addr, enum tevent e, int *n)
{
	struct trust_sig	 u;
	char			*cause = NULL, id[64];
	int			 rc;

	switch (e) {
	case E_SIG_A:
		return tmsg(ts, addr, n, TRUST_SIG_GOOD, A, NULL);
	case E_SIG_AC_A:
		return tmsg(ts, addr, n, TRUST_SIG_GOOD, A, A);
	case E_SIG_AC_C:
		return tmsg(ts, addr, n, TRUST_SIG_GOOD, A, C);
	case E_SIG_C:
		return tmsg(ts, addr, n, TRUST_SIG_GOOD, C, NULL);
	case E_SIG_C_AC_C:
		return tmsg(ts, addr, n, TRUST_SIG_GOOD, C, C);
	case E_SIG_B:
		return tmsg(ts, addr, n, TRUST_SIG_GOOD, B, NULL);
	case E_UNS:
		return tmsg(ts, addr, n, TRUST_SIG_NONE, NULL, NULL);
	case E_UNS_AC_A:
		return tmsg(ts, addr, n, TRUST_SIG_NONE, NULL, A);
	case E_UNS_AC_C:
		return tmsg(ts, addr, n, TRUST_SIG_NONE, NULL, C);
	case E_UNS_AC_B:
		return tmsg(ts, addr, n, TRUST_SIG_NONE, NULL, B);
	case E_UNKNOWN:
		u = sig(TRUST_SIG_NONE, NULL);
		u.unknown_key = 1;
		snprintf(id, sizeof id, "<e%d@t>", (*n)++);
		return msg(ts, id, addr, u, NULL);
	case E_REV_A:
		return tmsg(ts, addr, n, TRUST_SIG_REVOKED, A, NULL);
	case E_EXP_A:
		return tmsg(ts, addr, n, TRUST_SIG_EXPIRED, A, NULL);
	case E_GOSSIP_C:
		see(ts, addr, C, TRUST_SRC_GOSSIP);
		return "-";
	case E_DNS_A:
		see(ts, addr, A, TRUST_SRC_DNS_SECURE);
		return "-";
	case E_DNS_C:
		see(ts, addr, C, TRUST_SRC_DNS_SECURE);
		return "-";
	case E_DNS_B:
		see(ts, addr, B, TRUST_SRC_DNS_SECURE);
		return "-";
	case E_DNSI_C:
		see(ts, addr, C, TRUST_SRC_DNS_INSECURE);
		return "-";
	case E_ACCEPT:
		rc = trust_store_accept(ts, addr, NULL, now++, &cause);
		break;
	case E_ACCEPT_C:
		rc = trust_store_accept(ts, addr, C, now++, &cause);
		break;
	case E_REJECT_B:
		rc = trust_store_reject(ts, addr, B, now++, &cause);
		break;
	case E_VERIFY_A:
		rc = trust_store_verify(ts, addr, A, now++, &cause);
		break;
	default:
		return "?";
	}
	free(cause);
	return rc == 0 ? "-" : "refused";
}

/* After: "STATE PINNED OTHER" of addr's OpenPGP pin (static). */
static const char *
tafter(struct trust_store *ts, const char *addr)
{
	static char		 s[64];
	struct trust_peer	 p;
	char			*cause = NULL;

	if (trust_store_peer(ts, addr, &p, &cause) == -1) {
		free(cause);
		return "error";
	}
	snprintf(s, sizeof s, "%s %s %s", trust_state_name(p.v.state),
	    tkey(p.pinned), tkey(p.v.other));
	trust_peer_free(&p);
	return s;
}

static const char *texpect[E_NEVENTS][T_NSTATES] = {
	/* signed by A (first sight, or the pinned key) */
	{ "first-contact | known A -", "known | known A -",
	    "known | key-changed A B", "known | key-changed A B",
	    "dns-confirmed | dns-confirmed A -", "conflict | conflict A B",
	    "revoked | revoked A -", "expired | expired A -",
	    "verified | verified A -" },
	/* signed by A, Autocrypt header A */
	{ "first-contact | known A -", "known | known A -",
	    "known | key-changed A B", "known | key-changed A B",
	    "dns-confirmed | dns-confirmed A -", "conflict | conflict A B",
	    "revoked | revoked A -", "expired | expired A -",
	    "verified | verified A -" },
	/* signed by A, Autocrypt header C */
	{ "first-contact | key-changed A C", "known | key-changed A C",
	    "known | key-changed A B", "known | key-changed A B",
	    "dns-confirmed | key-changed A C", "conflict | conflict A B",
	    "revoked | revoked A C", "expired | expired A C",
	    "verified | verified A C" },
	/* signed by C */
	{ "first-contact | known C -", "key-changed | key-changed A C",
	    "key-changed | key-changed A B", "key-changed | key-changed A C",
	    "key-changed | key-changed A C", "key-changed | conflict A B",
	    "key-changed | revoked A C", "key-changed | expired A C",
	    "key-changed | verified A C" },
	/* signed by C, Autocrypt header C */
	{ "first-contact | known C -", "key-changed | key-changed A C",
	    "key-changed | key-changed A B", "key-changed | key-changed A C",
	    "key-changed | key-changed A C", "key-changed | conflict A B",
	    "key-changed | revoked A C", "key-changed | expired A C",
	    "key-changed | verified A C" },
	/* signed by B */
	{ "first-contact | known B -", "key-changed | key-changed A B",
	    "key-changed | key-changed A B", "key-changed | key-changed A B",
	    "key-changed | key-changed A B",
	    "dns-confirmed | dns-confirmed B -", "key-changed | revoked A B",
	    "key-changed | expired A B", "key-changed | verified A B" },
	/* unsigned, no header */
	{ "unsigned | none - -", "unsigned | known A -",
	    "unsigned | key-changed A B", "unsigned | key-changed A B",
	    "unsigned | dns-confirmed A -", "unsigned | conflict A B",
	    "unsigned | revoked A -", "unsigned | expired A -",
	    "unsigned | verified A -" },
	/* unsigned, Autocrypt header A */
	{ "unsigned | known A -", "unsigned | known A -",
	    "unsigned | key-changed A B", "unsigned | key-changed A B",
	    "unsigned | dns-confirmed A -", "unsigned | conflict A B",
	    "unsigned | revoked A -", "unsigned | expired A -",
	    "unsigned | verified A -" },
	/* unsigned, Autocrypt header C */
	{ "unsigned | known C -", "key-changed | key-changed A C",
	    "key-changed | key-changed A B", "key-changed | key-changed A B",
	    "key-changed | key-changed A C", "key-changed | conflict A B",
	    "key-changed | revoked A C", "key-changed | expired A C",
	    "key-changed | verified A C" },
	/* unsigned, Autocrypt header B */
	{ "unsigned | known B -", "key-changed | key-changed A B",
	    "key-changed | key-changed A B", "key-changed | key-changed A B",
	    "key-changed | key-changed A B", "key-changed | conflict A B",
	    "key-changed | revoked A B", "key-changed | expired A B",
	    "key-changed | verified A B" },
	/* signed, key not known, no header */
	{ "unsigned | none - -", "unsigned | known A -",
	    "unsigned | key-changed A B", "unsigned | key-changed A B",
	    "unsigned | dns-confirmed A -", "unsigned | conflict A B",
	    "unsigned | revoked A -", "unsigned | expired A -",
	    "unsigned | verified A -" },
	/* gossip names C */
	{ "- | known C -", "- | known A -", "- | key-changed A B",
	    "- | key-changed A B", "- | dns-confirmed A -",
	    "- | conflict A B", "- | revoked A -", "- | expired A -",
	    "- | verified A -" },
	/* DNS secure names A */
	{ "- | dns-confirmed A -", "- | dns-confirmed A -",
	    "- | key-changed A B", "- | key-changed A B",
	    "- | dns-confirmed A -", "- | conflict A B", "- | revoked A -",
	    "- | expired A -", "- | verified A -" },
	/* DNS secure names C */
	{ "- | dns-confirmed C -", "- | conflict A C", "- | conflict A C",
	    "- | conflict A C", "- | conflict A C", "- | conflict A C",
	    "- | conflict A C", "- | conflict A C", "- | conflict A C" },
	/* DNS secure names B */
	{ "- | dns-confirmed B -", "- | conflict A B",
	    "- | dns-confirmed B -", "- | dns-confirmed B -",
	    "- | conflict A B", "- | conflict A B", "- | conflict A B",
	    "- | conflict A B", "- | conflict A B" },
	/* DNS insecure names C */
	{ "- | known C -", "- | known A -", "- | key-changed A B",
	    "- | key-changed A B", "- | dns-confirmed A -",
	    "- | conflict A B", "- | revoked A -", "- | expired A -",
	    "- | verified A -" },
	/* signed by A, now revoked */
	{ "revoked | none - -", "revoked | revoked A -",
	    "revoked | revoked A B", "revoked | revoked A B",
	    "revoked | revoked A -", "revoked | conflict A B",
	    "revoked | revoked A -", "revoked | revoked A -",
	    "revoked | revoked A -" },
	/* signed by A, now expired */
	{ "expired | none - -", "expired | expired A -",
	    "expired | expired A B", "expired | expired A B",
	    "expired | expired A -", "expired | conflict A B",
	    "expired | revoked A -", "expired | expired A -",
	    "expired | expired A -" },
	/* user: accept (no fingerprint) */
	{ "refused | none - -", "refused | known A -", "- | known B -",
	    "refused | key-changed A B", "refused | dns-confirmed A -",
	    "- | dns-confirmed B -", "refused | revoked A -",
	    "refused | expired A -", "refused | verified A -" },
	/* user: accept C */
	{ "- | known C -", "- | known C -", "- | known C -", "- | known C -",
	    "- | known C -", "- | known C -", "- | known C -",
	    "- | known C -", "- | known C -" },
	/* user: reject B */
	{ "refused | none - -", "refused | known A -", "- | known A -",
	    "- | known A -", "refused | dns-confirmed A -", "- | known A -",
	    "refused | revoked A -", "refused | expired A -",
	    "refused | verified A -" },
	/* user: verify A */
	{ "- | verified A -", "- | verified A -", "- | verified A -",
	    "- | verified A -", "- | verified A -", "- | verified A -",
	    "- | revoked A -", "- | expired A -", "- | verified A -" },
};

static void
test_table(void)
{
	struct trust_store	*ts;
	char			 file[300], addr[64], got[128], *cause = NULL;
	const char		*shows;
	int			 e, st, n = 0, dump;

	dump = getenv("STEED_TRUST_TABLE") != NULL;
	snprintf(file, sizeof file, "%s/table.sqlite", dir);
	if ((ts = trust_store_open(file, &cause)) == NULL) {
		TAP_OK(0, "table store opens: %s", cause);
		free(cause);
		return;
	}
	for (e = 0; e < E_NEVENTS; e++) {
		if (dump)
			printf("ROW\t%s", tevent_names[e]);
		for (st = 0; st < T_NSTATES; st++) {
			snprintf(addr, sizeof addr, "r%d.%d@t.org", e, st);
			if (tsetup(ts, addr, st, &n) == -1) {
				TAP_OK(0, "set %s up as %s", addr,
				    tstate_names[st]);
				continue;
			}
			shows = tevent(ts, addr, e, &n);
			snprintf(got, sizeof got, "%s | %s", shows,
			    tafter(ts, addr));
			if (dump)
				printf("\t%s", got);
			else
				TAP_STR(got, texpect[e][st], "%s, when %s",
				    tevent_names[e], tstate_names[st]);
		}
		if (dump)
			putchar('\n');
	}
	trust_store_close(ts);
}

/* Version 4 as released: a pending change, a message stored unsigned. */
static void
test_migrate4(void)
{
	struct trust_store	*ts;
	struct trust_verdict	 v;
	char			 old[300], *cause = NULL;

	snprintf(old, sizeof old, "%s/v4.sqlite", dir);
	TAP_OK(exec_sql(old, "PRAGMA application_id=1398035538;"
	    "PRAGMA user_version=4;"
	    KEY_TABLE_V1
	    MESSAGE_TABLE_V2
	    "CREATE TABLE history (id INTEGER PRIMARY KEY,"
	    " addr TEXT NOT NULL COLLATE NOCASE, time INTEGER NOT NULL,"
	    " what TEXT NOT NULL);"
	    "CREATE INDEX history_addr ON history (addr);"
	    "CREATE TABLE pin (addr TEXT NOT NULL COLLATE NOCASE,"
	    " proto TEXT NOT NULL, pinned TEXT, changed TEXT, conflict TEXT,"
	    " PRIMARY KEY (addr, proto));"
	    "INSERT INTO pin VALUES ('vic@x.org', 'openpgp', '" A "', '" B "',"
	    " NULL);"
	    "INSERT INTO key (addr, fpr, proto, sources, first_seen,"
	    " last_seen, messages, decision) VALUES ('vic@x.org', '" A "',"
	    " 'openpgp', 0, 1600000000, 1600000000, 2, 'accepted'),"
	    " ('vic@x.org', '" B "', 'openpgp', 0, 1600000100, 1600000100,"
	    " 1, 'none');"
	    "INSERT INTO message VALUES ('<v1@x> vic@x.org', 'vic@x.org', 1,"
	    " NULL, NULL, 0, 0, 'not signed; no key known', 1599999999),"
	    " ('<v2@x> vic@x.org', 'vic@x.org', 4, '" B "', '" A "',"
	    " 1600000100, 1, 'signed by a new key', 1600000100);") == 0,
	    "a version 4 store: a pending key, an unsigned message");
	if ((ts = trust_store_open(old, &cause)) == NULL) {
		TAP_OK(0, "it opens: %s", cause);
		free(cause);
		return;
	}
	TAP_OK(query_int(old, "PRAGMA user_version") == 6,
	    "migrated to version 6");
	TAP_OK(query_int(old, "SELECT count(*) FROM sqlite_master WHERE "
	    "name = 'dns'") == 1, "version 6 has the table of DNS answers");
	TAP_OK(query_int(old, "SELECT changed_level FROM pin") == 1,
	    "the pending key is taken as signed");
	TAP_OK(query_int(old, "SELECT final FROM message WHERE state = 1")
	    == 0 && query_int(old, "SELECT final FROM message WHERE "
	    "state = 4") == 1,
	    "the unsigned verdict is to be decided again, the other final");
	TAP_STR(msg(ts, "<v1@x> vic@x.org", "vic@x.org",
	    sig(TRUST_SIG_GOOD, A), &v), "known",
	    "the message stored unsigned before its key was known: known now");
	TAP_OK(!v.stored, "decided again, not read back");
	trust_verdict_free(&v);
	TAP_STR(msg(ts, "<v2@x> vic@x.org", "vic@x.org",
	    sig(TRUST_SIG_GOOD, A), &v), "key-changed",
	    "the key-changed message keeps the state it earned");
	TAP_OK(v.stored, "read back");
	trust_verdict_free(&v);
	{
		struct trust_sig c = sig(TRUST_SIG_NONE, NULL);
		c.claim = C;
		TAP_STR(msg(ts, "<v3@x>", "vic@x.org", c, NULL),
		    "key-changed", "an unsigned header with another key");
	}
	TAP_OK(trust_store_accept(ts, "vic@x.org", NULL, now++, &cause) == 0
	    && pinned_is(ts, "vic@x.org", B),
	    "accept takes the key pending before, not the claim after it");
	free(cause);
	trust_store_close(ts);
}

/*
 * Verdicts decided again: an unknown key, then known; a first contact
 * kept; a claim on its own message only.
 */
static void
test_again(void)
{
	struct trust_store	*ts;
	struct trust_verdict	 v;
	struct trust_sig	 s;
	char			 file[300], *cause = NULL;

	snprintf(file, sizeof file, "%s/again.sqlite", dir);
	if ((ts = trust_store_open(file, &cause)) == NULL) {
		TAP_OK(0, "store opens: %s", cause);
		free(cause);
		return;
	}
	s = sig(TRUST_SIG_NONE, NULL);
	s.unknown_key = 1;
	TAP_STR(msg(ts, "<g1@x>", "ron@x.org", s, &v), "unsigned",
	    "a signature by a key not known yet: unsigned");
	TAP_OK(v.evidence != NULL && strstr(v.evidence, "not known yet") &&
	    v.fpr == NULL, "says why, names no key (%s)", v.evidence);
	trust_verdict_free(&v);
	TAP_STR(msg(ts, "<g1@x>", "ron@x.org", s, NULL), "unsigned",
	    "still unsigned while the key is not known");
	s = sig(TRUST_SIG_NONE, NULL);
	s.claim = A;
	TAP_STR(msg(ts, "<g2@x>", "ron@x.org", s, &v), "unsigned",
	    "an unsigned message whose header brings the first key");
	TAP_OK(v.fpr != NULL && strcmp(v.fpr, A) == 0 &&
	    strstr(v.evidence, "brings key") != NULL,
	    "names it: %s", v.evidence);
	trust_verdict_free(&v);
	TAP_STR(msg(ts, "<g1@x>", "ron@x.org", sig(TRUST_SIG_GOOD, A), &v),
	    "known", "the first message, its key now known: known");
	TAP_OK(!v.stored && v.messages == 1, "decided now, counted once");
	trust_verdict_free(&v);
	TAP_STR(msg(ts, "<g1@x>", "ron@x.org", sig(TRUST_SIG_GOOD, A), &v),
	    "known", "and final: read back");
	TAP_OK(v.stored && v.messages == 1, "not counted twice");
	trust_verdict_free(&v);

	TAP_STR(msg(ts, "<g3@x>", "sue@x.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "first-contact", "sue's first signed message: first-contact");
	TAP_OK(trust_store_verify(ts, "sue@x.org", A, now++, &cause) == 0,
	    "sue's key verified");
	TAP_STR(msg(ts, "<g3@x>", "sue@x.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "first-contact", "the first-contact mark stays");
	s = sig(TRUST_SIG_NONE, NULL);
	s.claim = C;
	TAP_STR(msg(ts, "<g4@x>", "sue@x.org", s, &v), "key-changed",
	    "a forgery: unsigned, its header names another key");
	TAP_OK(v.fpr != NULL && v.other != NULL && strcmp(v.fpr, C) == 0 &&
	    strcmp(v.other, A) == 0, "it names both keys");
	trust_verdict_free(&v);
	TAP_STR(msg(ts, "<g5@x>", "sue@x.org", sig(TRUST_SIG_GOOD, A), NULL),
	    "verified", "sue's next signed message: not marked by it");
	TAP_OK(trust_store_accept(ts, "sue@x.org", NULL, now++, &cause) == -1
	    && strstr(cause, "Autocrypt header") != NULL && pinned_is(ts,
	    "sue@x.org", A), "accept without a fingerprint refuses the claim");
	free(cause);
	cause = NULL;
	TAP_STR(tafter(ts, "sue@x.org"), "verified A C",
	    "sue's address has the claim waiting");
	TAP_OK(trust_store_verify(ts, "sue@x.org", A, now++, &cause) == 0 &&
	    strcmp(tafter(ts, "sue@x.org"), "verified A -") == 0,
	    "verifying A again settles it");
	TAP_STR(msg(ts, "<g4@x>", "sue@x.org", s, NULL), "key-changed",
	    "the forgery opened again still shows its claim");
	TAP_STR(tafter(ts, "sue@x.org"), "verified A -",
	    "but does not raise it again for the address");
	TAP_OK(trust_store_accept(ts, "sue@x.org", C, now++, &cause) == 0 &&
	    pinned_is(ts, "sue@x.org", C), "named, it is accepted");
	free(cause);
	trust_store_close(ts);
}

/*
 * Order: one set of messages processed in many orders, each on a fresh
 * store, then each once more; the verdicts must all be the same. pat has
 * key A pinned before; quin's key D (S1) reaches gpg only with the
 * header of q1, so q2 is an unknown key until q1 was processed.
 */
#define NORDER	6
static void
test_order(void)
{
	static const char *names[NORDER] = { "p1", "p2", "p3", "p4", "q1",
	    "q2" };
	struct trust_store	*ts;
	struct trust_sig	 s;
	struct trust_verdict	 v;
	char			 file[300], first[NORDER][128], got[128];
	char			*cause = NULL;
	int			 order[NORDER], run, i, j, t, pass, seen_q1, same;
	unsigned		 r = 12345;

	for (run = 0; run < 12; run++) {
		for (i = 0; i < NORDER; i++)
			order[i] = i;
		for (i = NORDER - 1; run > 0 && i > 0; i--) {
			r = r * 1103515245 + 12345;
			j = (r >> 16) % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		snprintf(file, sizeof file, "%s/order%d.sqlite", dir, run);
		if ((ts = trust_store_open(file, &cause)) == NULL) {
			TAP_OK(0, "store opens: %s", cause);
			free(cause);
			return;
		}
		msg(ts, "<p0@x>", "pat@x.org", sig(TRUST_SIG_GOOD, A), NULL);
		seen_q1 = 0;
		same = 1;
		for (pass = 0; pass < 2; pass++) {
			for (j = 0; j < NORDER; j++) {
				i = pass == 0 ? order[j] : j;
				switch (i) {
				case 0:		/* signed by A, header A */
					s = sig(TRUST_SIG_GOOD, A);
					s.claim = A;
					break;
				case 1:		/* the forgery */
					s = sig(TRUST_SIG_NONE, NULL);
					s.claim = C;
					break;
				case 2:		/* pat's new key */
					s = sig(TRUST_SIG_GOOD, B);
					s.claim = B;
					break;
				case 3:		/* unsigned, header A */
					s = sig(TRUST_SIG_NONE, NULL);
					s.claim = A;
					break;
				case 4:
					s = sig(TRUST_SIG_NONE, NULL);
					s.claim = S1;
					seen_q1 = 1;
					break;
				default:
					s = sig(seen_q1 ? TRUST_SIG_GOOD :
					    TRUST_SIG_NONE, seen_q1 ? S1 :
					    NULL);
					s.unknown_key = !seen_q1;
					break;
				}
				msg(ts, names[i], i < 4 ? "pat@x.org" :
				    "quin@x.org", s, &v);
				if (pass == 0) {
					trust_verdict_free(&v);
					continue;
				}
				snprintf(got, sizeof got, "%s %s %s",
				    trust_state_name(v.state), tkey(v.fpr),
				    tkey(v.other));
				if (run == 0)
					snprintf(first[i], sizeof first[i],
					    "%s", got);
				else if (strcmp(got, first[i]) != 0) {
					printf("# order %d, %s: %s, not %s\n",
					    run, names[i], got, first[i]);
					same = 0;
				}
				trust_verdict_free(&v);
			}
		}
		if (run == 0)
			TAP_OK(strcmp(first[0], "known A -") == 0 &&
			    strcmp(first[1], "key-changed C A") == 0 &&
			    strcmp(first[2], "key-changed B A") == 0 &&
			    strcmp(first[3], "unsigned A -") == 0 &&
			    strcmp(first[4], "unsigned ? -") == 0 &&
			    strcmp(first[5], "known ? -") == 0,
			    "in the first order, the verdicts of the table");
		else
			TAP_OK(same, "order %d: the same verdicts", run);
		TAP_OK(pinned_is(ts, "pat@x.org", A) &&
		    strcmp(peer_state(ts, "pat@x.org", NULL), "key-changed")
		    == 0 && trust_store_accept(ts, "pat@x.org", NULL, now++,
		    &cause) == 0 && pinned_is(ts, "pat@x.org", B),
		    "order %d: pat's new key waits, accept pins it", run);
		free(cause);
		cause = NULL;
		trust_store_close(ts);
	}
}

/*
 * What DNS said of an address (trust-dns.c): a bogus answer is a mark
 * with its owner name, never a key; said once in the history; an
 * insecure answer leaves it, a secure one or a proven denial clears it;
 * the index reads the marks of many senders at once.
 */
static void
test_dns(void)
{
	struct trust_store	*ts;
	struct trust_dns	 d;
	struct trust_peer	 p;
	const char		*addrs[4] = { "DAN@Broken.Test", "sam@x.org",
				    NULL, "dan@broken.test" };
	char			 file[300], *cause = NULL;
	int			 bogus[4] = { 9, 9, 9, 9 };

	snprintf(file, sizeof file, "%s/dns.sqlite", dir);
	if ((ts = trust_store_open(file, &cause)) == NULL) {
		TAP_OK(0, "a new store: %s", cause);
		free(cause);
		return;
	}
	TAP_OK(trust_store_dns(ts, "dan@broken.test", &d, &cause) == 0 &&
	    d.checked == 0 && d.bogus == 0 && d.owner == NULL,
	    "dns: nothing recorded for an address never asked about");
	trust_dns_free(&d);
	TAP_OK(trust_store_dns_answer(ts, "dan@Broken.test", TRUST_DNS_BOGUS,
	    "abc._openpgpkey.broken.test", "signature crypto failed", now,
	    &cause) == 0, "dns: a bogus answer is recorded");
	TAP_OK(trust_store_dns(ts, "dan@broken.test", &d, &cause) == 0 &&
	    d.bogus == now && d.checked == 0 && d.owner != NULL &&
	    strcmp(d.owner, "abc._openpgpkey.broken.test") == 0 &&
	    d.why != NULL && strcmp(d.why, "signature crypto failed") == 0,
	    "dns: its time, owner name and reason are kept");
	trust_dns_free(&d);
	TAP_OK(trust_store_dns_bogus(ts, addrs, 4, bogus, &cause) == 0 &&
	    bogus[0] == 1 && bogus[1] == 0 && bogus[2] == 0 && bogus[3] == 1,
	    "dns: the index's marks, whatever the case of the address");
	TAP_OK(trust_store_peer(ts, "dan@broken.test", &p, &cause) == 0 &&
	    p.nkeys == 0 && p.v.state == TRUST_NONE && p.nhistory == 1,
	    "dns: no key and no state from it, one history line");
	trust_peer_free(&p);
	TAP_OK(trust_store_dns_answer(ts, "dan@broken.test", TRUST_DNS_BOGUS,
	    "abc._openpgpkey.broken.test", "again", now + 10, &cause) == 0 &&
	    trust_store_dns_answer(ts, "dan@broken.test", TRUST_DNS_INSECURE,
	    NULL, NULL, now + 20, &cause) == 0 &&
	    trust_store_dns(ts, "dan@broken.test", &d, &cause) == 0 &&
	    d.bogus == now + 10 && d.checked == now + 20,
	    "dns: bogus again moves the time; an insecure answer clears "
	    "nothing");
	trust_dns_free(&d);
	TAP_OK(trust_store_peer(ts, "dan@broken.test", &p, &cause) == 0 &&
	    p.nhistory == 1, "dns: still bogus is not said again");
	trust_peer_free(&p);
	TAP_OK(trust_store_dns_answer(ts, "dan@broken.test", TRUST_DNS_SECURE,
	    NULL, NULL, now + 30, &cause) == 0 &&
	    trust_store_dns(ts, "dan@broken.test", &d, &cause) == 0 &&
	    d.bogus == 0 && d.owner == NULL && d.checked == now + 30,
	    "dns: a secure answer clears the mark");
	trust_dns_free(&d);
	TAP_OK(trust_store_peer(ts, "dan@broken.test", &p, &cause) == 0 &&
	    p.nhistory == 2 && strstr(p.history[1].what, "validates again") !=
	    NULL, "dns: and the history says so");
	trust_peer_free(&p);
	TAP_OK(trust_store_dns_answer(ts, "dan@broken.test", TRUST_DNS_BOGUS,
	    "abc._openpgpkey.broken.test", "x", now + 40, &cause) == 0 &&
	    trust_store_dns_answer(ts, "dan@broken.test", TRUST_DNS_DENIED,
	    NULL, NULL, now + 50, &cause) == 0 &&
	    trust_store_dns_bogus(ts, addrs, 4, bogus, &cause) == 0 &&
	    bogus[0] == 0 && bogus[3] == 0,
	    "dns: a proven denial clears it too");
	TAP_OK(trust_store_dns_answer(ts, "not an address", TRUST_DNS_BOGUS,
	    NULL, NULL, now, &cause) == -1, "dns: a bad address is refused");
	free(cause);
	trust_store_close(ts);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/trust.sqlite", dir);
	test_rules();
	test_migrate();
	test_protocols();
	test_migrate3();
	test_crash();
	test_states();
	test_table();
	test_migrate4();
	test_again();
	test_order();
	test_dns();
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return TAP_DONE();
}
