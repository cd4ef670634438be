/*
 * test-trust-move.c: the text of a trust store export (trust-file.c):
 * read and written again byte for byte, history text with controls and
 * backslashes carried, and every kind of damage refused with the file's
 * name and the line, leaving nothing parsed. Merging into a store is
 * tests/integration/device.sh's, with the real command.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "trust-move.h"
#include "tap.h"

#define A "0123456789ABCDEF0123456789ABCDEF01234567"
#define B "89ABCDEF0123456789ABCDEF0123456789ABCDEF"
#define C "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

static const char good[] =
    "steedmail-trust-export 1\n"
    "# a comment\n"
    "peer bob@steed.test\n"
    "pin openpgp pinned=" A " changed=" B " changed-by=claim conflict=-\n"
    "pin smime pinned=" C " changed=- changed-by=- conflict=-\n"
    "key " A " proto=openpgp sources=dns-secure,autocrypt first-seen=100 "
    "last-seen=200 last-sig=150 dns-confirmed=120 messages=7 "
    "decision=verified revoked=0 expired=0\n"
    "key " B " proto=openpgp sources=autocrypt first-seen=300 last-seen=300 "
    "last-sig=0 dns-confirmed=0 messages=0 decision=none revoked=0 "
    "expired=1\n"
    "key " C " proto=smime sources=none first-seen=1 last-seen=2 last-sig=2 "
    "dns-confirmed=0 messages=1 decision=accepted revoked=1 expired=0\n"
    "event 100 first contact: key " A " accepted (autocrypt)\n"
    "event 300 a\\\\b\\nc\\x01d\n"
    "end\n"
    "peer carol@Steed.TEST\n"
    "end\n";

/* The text written for what good says (the comment line differs). */
static void
test_roundtrip(void)
{
	struct trust_move	 m, m2;
	struct buf		 out, out2;
	char			*cause = NULL;
	int			 rc;

	rc = trust_move_parse(good, strlen(good), "t", &m, &cause);
	TAP_OK(rc == 0, "a good file is read (%s)", cause ? cause : "ok");
	if (rc != 0)
		return;
	TAP_OK(m.npeers == 2 && m.peers[0].nkeys == 3 &&
	    m.peers[0].nevents == 2, "2 peers, 3 keys, 2 events");
	TAP_STR(m.peers[1].addr, "carol@steed.test", "the domain in lower "
	    "case");
	TAP_OK(m.peers[0].pins[TRUST_OPENPGP].present &&
	    strcmp(m.peers[0].pins[TRUST_OPENPGP].changed, B) == 0 &&
	    !m.peers[0].pins[TRUST_OPENPGP].signed_change &&
	    m.peers[0].pins[TRUST_OPENPGP].conflict == NULL,
	    "the OpenPGP pin: a claimed change, no conflict");
	TAP_OK(m.peers[0].keys[0].sources == ((1u << TRUST_SRC_DNS_SECURE) |
	    (1u << TRUST_SRC_AUTOCRYPT)) && m.peers[0].keys[0].messages == 7 &&
	    m.peers[0].keys[0].dns_confirmed == 120 &&
	    strcmp(m.peers[0].keys[0].decision, "verified") == 0,
	    "a key's sources, count, dates and decision");
	TAP_OK(m.peers[0].keys[2].sources == 0 && m.peers[0].keys[2].revoked &&
	    strcmp(m.peers[0].keys[2].proto, "smime") == 0,
	    "sources=none, revoked, S/MIME");
	TAP_STR(m.peers[0].events[1].what, "a\\b\nc\001d",
	    "an event's escapes undone");
	buf_init(&out);
	trust_move_write(&m, 0, &out);
	buf_addc(&out, '\0');
	TAP_OK(strncmp(out.data, "steedmail-trust-export 1\n# ", 27) == 0,
	    "written: the version line, then a comment");
	TAP_STR(strstr(out.data, "peer "), "peer bob@steed.test\n" "pin "
	    "openpgp pinned=" A " changed=" B " changed-by=claim "
	    "conflict=-\n" "pin smime pinned=" C " changed=- changed-by=- "
	    "conflict=-\n" "key " A " proto=openpgp "
	    "sources=dns-secure,autocrypt first-seen=100 last-seen=200 "
	    "last-sig=150 dns-confirmed=120 messages=7 decision=verified "
	    "revoked=0 expired=0\n" "key " B " proto=openpgp sources=autocrypt "
	    "first-seen=300 last-seen=300 last-sig=0 dns-confirmed=0 "
	    "messages=0 decision=none revoked=0 expired=1\n" "key " C " "
	    "proto=smime sources=none first-seen=1 last-seen=2 last-sig=2 "
	    "dns-confirmed=0 messages=1 decision=accepted revoked=1 "
	    "expired=0\n" "event 100 first contact: key " A " accepted "
	    "(autocrypt)\n" "event 300 a\\\\b\\nc\\x01d\n" "end\n"
	    "peer carol@steed.test\n" "end\n",
	    "written again: the same peers, fields and escapes");
	rc = trust_move_parse(out.data, out.len - 1, "t2", &m2, &cause);
	buf_init(&out2);
	if (rc == 0)
		trust_move_write(&m2, 0, &out2);
	buf_addc(&out2, '\0');
	TAP_STR(out2.data, out.data, "what was written reads back the same");
	if (rc == 0)
		trust_move_free(&m2);
	buf_free(&out);
	buf_free(&out2);
	trust_move_free(&m);
}

/* good with from replaced by to must be refused with want. */
static void
bad(const char *from, const char *to, const char *want, const char *what)
{
	struct trust_move	 m;
	const char		*p = strstr(good, from);
	char			*s, *cause = NULL;
	int			 rc;

	if (p == NULL) {
		TAP_OK(0, "%s: \"%s\" not in the sample", what, from);
		return;
	}
	s = malloc(sizeof good + strlen(to));
	memcpy(s, good, p - good);
	strcpy(s + (p - good), to);
	strcat(s, p + strlen(from));
	memset(&m, 0xff, sizeof m);
	rc = trust_move_parse(s, strlen(s), "f", &m, &cause);
	TAP_OK(rc == -1 && m.npeers == 0 && m.peers == NULL &&
	    cause != NULL && strcmp(cause, want) == 0, "%s: \"%s\"", what,
	    cause != NULL ? cause : "accepted");
	if (rc == 0)
		trust_move_free(&m);
	free(cause);
	free(s);
}

static void
test_bad(void)
{
	bad("steedmail-trust-export 1", "steedmail-trust-export 2",
	    "f:1: version \"2\" (this steedmail reads 1)", "a newer version");
	bad("steedmail-trust-export 1", "something else",
	    "f:1: not a trust store export of steedmail", "not an export");
	bad("peer bob@steed.test\n", "",
	    "f:3: \"pin\" outside a peer", "pin before any peer");
	bad("peer carol@Steed.TEST\nend\n", "peer carol@steed.test\n",
	    "f:13: the file ends inside a peer (no \"end\")", "no end");
	bad("peer carol@Steed.TEST", "peer bob@STEED.test",
	    "f:12: bob@STEED.test given twice", "an address twice");
	bad("peer carol@Steed.TEST", "peer carol", "f:12: \"peer\" wants one "
	    "address", "not an address");
	bad("decision=verified", "decision=trusted",
	    "f:6: unknown decision \"trusted\"", "an unknown decision");
	bad("sources=autocrypt first-seen=300", "sources=autocrypt,fax "
	    "first-seen=300", "f:7: unknown source \"fax\"", "a source");
	bad("messages=7", "messages=-7", "f:6: messages: not a number from 0 "
	    "to 2147483647", "a negative count");
	bad("messages=7 ", "", "f:6: no messages", "a field missing");
	bad("messages=7", "messages=7 messages=8", "f:6: messages given twice",
	    "a field twice");
	bad("messages=7", "messages=7 colour=red",
	    "f:6: unknown field \"colour\"", "an unknown field");
	bad("key " B, "key " B "0", "f:7: key: not a fingerprint",
	    "41 hex digits");
	bad("key " C " proto=smime", "key " A " proto=smime",
	    "f:8: key " A " given twice", "a key twice");
	bad("proto=smime", "proto=pem", "f:8: unknown protocol \"pem\"",
	    "an unknown protocol");
	bad("pin smime pinned=" C, "pin smime pinned=" B, "f:11: the smime "
	    "pin of bob@steed.test names " B ", which is not one of its smime "
	    "keys", "a pin naming a key of the other protocol");
	bad("changed-by=claim", "changed-by=-", "f:4: changed-by: "
	    "\"signature\" or \"claim\" with a changed key, else \"-\"",
	    "a change without how it came");
	bad("pin smime", "pin openpgp", "f:5: a second openpgp pin",
	    "two pins of a protocol");
	bad("event 300 a", "event 300 \\qa", "f:10: a bad escape in an event",
	    "a bad escape");
	bad("\\x01", "\\x00", "f:10: a bad escape in an event", "an escaped "
	    "NUL");
	bad("event 100 first", "event soon first", "f:9: event: not a number "
	    "from 0 to 253402300799", "an event without a time");
	bad("end\npeer carol", "end\nfrobnicate\npeer carol",
	    "f:12: \"frobnicate\" outside a peer", "an unknown line");
	bad("# a comment\n", "# a comment\nkey x\n", "f:3: \"key\" outside "
	    "a peer", "a key outside a peer");
	bad("expired=1", "expired=2", "f:7: expired: not a number from 0 to "
	    "1", "a flag other than 0 or 1");
	bad("revoked=0 expired=0\nkey " B, "revoked=0  expired=0\nkey " B,
	    "f:6: two spaces in a row", "two spaces");
}

static void
test_empty(void)
{
	struct trust_move	 m;
	char			*cause = NULL;

	TAP_OK(trust_move_parse("", 0, "e", &m, &cause) == -1 &&
	    cause != NULL && strcmp(cause, "e:1: empty") == 0,
	    "an empty file: \"%s\"", cause != NULL ? cause : "accepted");
	free(cause);
	cause = NULL;
	TAP_OK(trust_move_parse("steedmail-trust-export 1\n", 25, "v", &m,
	    &cause) == 0 && m.npeers == 0, "the version line alone: no "
	    "addresses");
	trust_move_free(&m);
	free(cause);
}

int
main(void)
{
	test_roundtrip();
	test_bad();
	test_empty();
	printf("1..%d\n", tap_n);
	return TAP_DONE();
}
