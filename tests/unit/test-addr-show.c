/*
 * test-addr-show.c: what the screens show of From, Sender and Reply-To,
 * and of the index's sender (src/addr-show.c), against the ways a sender
 * was made to lie: a display name padded until the address is off the
 * screen, an encoded word that decodes to "Name <address>", a name that
 * holds another address (also in full-width letters), bidirectional and
 * control characters, invisible padding; and that the address is never
 * cut and what the crypto code compares is what is shown.
 */
#include <stdlib.h>
#include <string.h>

#include "addr-list.h"
#include "addr-show.h"
#include "buf.h"
#include "mime-parse.h"
#include "tap.h"
#include "xmalloc.h"

/* The field of a one-field header "NAME: VALUE". */
static struct addr_show
field(const char *name, const char *value)
{
	struct addr_show	 a;
	struct mime_msg		*m;
	char			*raw, *cause = NULL;

	raw = xasprintf("%s: %s\nSubject: s\n\nbody\n", name, value);
	m = mime_parse_copy(raw, strlen(raw), &cause);
	free(raw);
	if (m == NULL || !addr_show_field(&m->root->header, name, &a))
		memset(&a, 0, sizeof a);
	mime_msg_free(m);
	return a;
}

#define SHOW(value, want, wflags, what) do {				\
	struct addr_show s_ = field("From", value);			\
	TAP_STR(s_.text, want, "%s: shown", what);			\
	TAP_OK(s_.flags == (wflags), "%s: flags 0x%x, want 0x%x", what,	\
	    s_.flags, (wflags));					\
	addr_show_free(&s_);						\
} while (0)

#define SENDER(name, addr, want, wantwarn, what) do {			\
	int w_;								\
	char *s_ = addr_show_sender(name, addr, &w_);			\
	TAP_STR(s_, want, "index: %s", what);				\
	TAP_OK(w_ == (wantwarn), "index: %s: %s", what,			\
	    (wantwarn) ? "marked" : "not marked");			\
	free(s_);							\
} while (0)

static void
test_field(void)
{
	struct addr_show	 a;
	struct buf		 b;
	char			*w, *s;
	int			 i;

	SHOW("Alice <alice@steed.test>", "Alice <alice@steed.test>", 0,
	    "a name and an address");
	SHOW("alice@steed.test", "alice@steed.test", 0, "an address alone");
	SHOW("\"Smith, Alice\" <a@steed.test>", "\"Smith, Alice\" <a@steed.test>",
	    0, "a name with a comma, quoted again");
	SHOW("=?utf-8?q?J=C3=B6rg?= <j@steed.test>", "J\xc3\xb6rg <j@steed.test>",
	    0, "an encoded name, decoded");
	SHOW("\"alice@steed.test\" <alice@steed.test>",
	    "\"alice@steed.test\" <alice@steed.test>", 0,
	    "a name that is its own address");

	/* The address is what counts; the name goes, never the address. */
	buf_init(&b);
	buf_adds(&b, "\"Alice");
	for (i = 0; i < 3000; i++)
		buf_addc(&b, ' ');
	buf_adds(&b, "x\" <mallory@evil.example>");
	SHOW(b.data, "Alice x <mallory@evil.example>", 0,
	    "a name padded with 3000 blanks: folded, the address right after");
	buf_reset(&b);
	buf_adds(&b, "=?utf-8?q?Alice?=");
	for (i = 0; i < 300; i++)
		buf_adds(&b, " =?utf-8?q?__________?=");
	buf_adds(&b, " =?utf-8?q?x?= <mallory@evil.example>");
	SHOW(b.data, "Alice x <mallory@evil.example>", ADDR_SHOW_PADDED,
	    "3000 blanks in encoded words: folded, and flagged as padding");
	buf_reset(&b);
	buf_adds(&b, "\"Alice");
	for (i = 0; i < 500; i++)
		buf_adds(&b, "\xe2\x80\x8b\xe3\x85\xa4");	/* ZWSP, filler */
	buf_adds(&b, "\" <mallory@evil.example>");
	SHOW(b.data, "Alice <mallory@evil.example>", ADDR_SHOW_PADDED,
	    "a name padded with invisible characters and Hangul fillers");
	buf_reset(&b);
	buf_addc(&b, '"');
	for (i = 0; i < 100; i++)
		buf_adds(&b, "Al");
	buf_adds(&b, "\" <mallory@evil.example>");
	a = field("From", b.data);
	TAP_OK(a.text != NULL && strlen(a.text) == 64 + strlen(" [...] "
	    "<mallory@evil.example>") && strstr(a.text,
	    " [...] <mallory@evil.example>") != NULL,
	    "a long name is cut at 64 characters, the address whole: %s",
	    a.text);
	TAP_OK(a.flags == ADDR_SHOW_PADDED, "... and flagged as cut");
	addr_show_free(&a);
	buf_free(&b);

	/* Nothing read: the field says so, whatever its text decodes to. */
	SHOW("=?utf-8?b?QWxpY2UgPGFsaWNlQHN0ZWVkLnRlc3Q+?=",
	    "\"Alice <alice@steed.test>\" (no address)", ADDR_SHOW_NO_ADDR |
	    ADDR_SHOW_UNREAD, "an encoded word that decodes to an address");
	SHOW("=?utf-8?q?Alice_<alice@steed.test>?=",
	    "\"Alice <alice@steed.test>\" (no address)", ADDR_SHOW_NO_ADDR |
	    ADDR_SHOW_UNREAD, "an encoded word with an address half inside it");
	SHOW("Alice", "Alice (no address)", ADDR_SHOW_NO_ADDR |
	    ADDR_SHOW_UNREAD, "a name alone");
	SHOW("undisclosed-recipients:;", "\"undisclosed-recipients:;\" "
	    "(no address)", ADDR_SHOW_NO_ADDR, "an empty group");
	SHOW("Alice <alice@steed.test> trailing words",
	    "\"Alice <alice@steed.test> trailing words\" (no address)",
	    ADDR_SHOW_NO_ADDR | ADDR_SHOW_UNREAD,
	    "an address followed by words libetpan would leave unread");
	SHOW("alice@steed.test <mallory@evil.example>",
	    "\"alice@steed.test <mallory@evil.example>\" (no address)",
	    ADDR_SHOW_NO_ADDR | ADDR_SHOW_UNREAD,
	    "an unquoted address before an angle address: parsers disagree");
	SHOW("\"alice@steed.test\" <mallory@evil.example>, team: a@steed.test, "
	    "B <b@steed.test>;", "\"alice@steed.test\" <mallory@evil.example>, "
	    "a@steed.test, B <b@steed.test>", ADDR_SHOW_OTHER_ADDR,
	    "quoted, or in a group after a comma: no ambiguity");
	SHOW("a@steed.test, Bob, <c@steed.test>",
	    "a@steed.test, Bob (no address), c@steed.test", ADDR_SHOW_UNREAD,
	    "one piece of three holds no address");

	/* A name that holds another address, or turns text around. */
	SHOW("\"alice@steed.test\" <mallory@evil.example>",
	    "\"alice@steed.test\" <mallory@evil.example>",
	    ADDR_SHOW_OTHER_ADDR, "a name that is another address");
	SHOW("=?utf-8?b?QWxpY2UgPGFsaWNlQHN0ZWVkLnRlc3Q+?= "
	    "<mallory@evil.example>",
	    "\"Alice <alice@steed.test>\" <mallory@evil.example>",
	    ADDR_SHOW_OTHER_ADDR, "an encoded name that decodes to an address");
	SHOW("\"alice\xef\xbc\xa0steed.test\" <mallory@evil.example>",
	    "alice\xef\xbc\xa0steed.test <mallory@evil.example>",
	    ADDR_SHOW_OTHER_ADDR, "an address with a full-width at sign");
	SHOW("\"Bob \xe2\x80\xae" "elgoog\" <bob@evil.example>",
	    "Bob \xe2\x80\xae" "elgoog <bob@evil.example>", ADDR_SHOW_BIDI,
	    "a name with a right-to-left override (made safe when drawn)");
	SHOW("=?utf-8?q?Bob=1B[2J?= <bob@evil.example>",
	    "Bob\x1b[2J <bob@evil.example>", ADDR_SHOW_BIDI,
	    "a name with an escape from an encoded word");

	a = field("From", "\"alice@steed.test\" <mallory@evil.example>");
	w = addr_show_warning("From", &a);
	TAP_STR(w, "From: a name in it holds the address alice@steed.test, "
	    "which is not its own; the address: mallory@evil.example",
	    "the warning names the address a name holds, and the real one");
	free(w);
	addr_show_free(&a);
	a = field("From", "=?utf-8?b?QWxpY2UgPGFsaWNlQHN0ZWVkLnRlc3Q+?=");
	w = addr_show_warning("From", &a);
	TAP_STR(w, "From: no address can be read from it, whatever its text "
	    "says: it names nobody", "the warning of a field with no address");
	free(w);
	addr_show_free(&a);
	a = field("From", "Alice <alice@steed.test>");
	TAP_OK(addr_show_warning("From", &a) == NULL,
	    "an ordinary From has no warning");
	TAP_STR(a.addrs, "alice@steed.test", "its address");
	addr_show_free(&a);
	a = field("Reply-To", "a@steed.test, \"Bob \xe2\x81\xa7\" <b@steed.test>");
	w = addr_show_warning("Reply-To", &a);
	TAP_STR(w, "Reply-To: a name in it holds characters that turn text "
	    "around or act on the terminal; the addresses: a@steed.test, "
	    "b@steed.test", "Reply-To: its own name, every address");
	free(w);
	addr_show_free(&a);

	buf_init(&b);
	for (i = 0; i < 150; i++)
		buf_addf(&b, "%sa%d@steed.test", i ? ", " : "", i);
	a = field("To", b.data);
	TAP_OK(a.text != NULL && strstr(a.text, "a99@steed.test [... 50 "
	    "more]") != NULL && a.flags == 0,
	    "150 addresses: 100 shown, the rest counted");
	addr_show_free(&a);
	buf_free(&b);
	a = field("Sender", "x@steed.test");
	TAP_OK(a.text != NULL, "a field of another name is read too");
	addr_show_free(&a);

	/* A name with a NUL from an encoded word stays one string. */
	a = field("From", "=?utf-8?q?Al=00ice?= <a@steed.test>");
	s = a.text;
	TAP_STR(s, "Al\xef\xbf\xbdice <a@steed.test>",
	    "a NUL in a name becomes U+FFFD");
	TAP_OK(a.flags == ADDR_SHOW_BIDI, "... and a control is flagged");
	addr_show_free(&a);
}

static void
test_sender(void)
{
	char	*s;
	int	 i;
	struct buf b;

	SENDER("Alice", "alice@steed.test", "Alice", 0, "an ordinary name");
	SENDER(NULL, "alice@steed.test", "alice@steed.test", 0, "no name");
	SENDER("alice@steed.test", "mallory@evil.example",
	    "mallory@evil.example", 1, "a name that is another address");
	SENDER("bob@evil.example", "bob@evil.example", "bob@evil.example", 0,
	    "a name that is its own address");
	SENDER("Alice <a", "mallory@evil.example", "mallory@evil.example", 0,
	    "a name with '<'");
	SENDER("=?utf-8?q?Alice_", "alice@steed.test", "alice@steed.test", 0,
	    "a name with an encoded word left undecoded");
	SENDER("Bob \xe2\x80\xae", "bob@evil.example", "bob@evil.example", 1,
	    "a name with a bidirectional override");
	SENDER("=?utf-8?b?QWxpY2U=?=", "=?utf-8?b?QWxpY2U=?=@MISSING_DOMAIN",
	    "(no address)", 1, "the server's placeholder for no domain");
	SENDER(NULL, "undisclosed-recipients@", "(no address)", 1,
	    "a group's name with no host");
	SENDER("Alice", NULL, "(no address)", 1, "no address at all");
	buf_init(&b);
	buf_adds(&b, "Alice");
	for (i = 0; i < 40; i++)
		buf_addc(&b, ' ');
	buf_adds(&b, "x");
	SENDER(b.data, "mallory@evil.example", "mallory@evil.example", 0,
	    "a padded name");
	buf_reset(&b);
	for (i = 0; i < 70; i++)
		buf_addc(&b, 'n');
	SENDER(b.data, "n@steed.test", "n@steed.test", 0,
	    "a name too long to show whole");
	buf_free(&b);
	s = addr_show_name("  Alice  ", 9, "a@b.c", &i);
	TAP_STR(s, "Alice", "blanks at the ends go");
	free(s);
}

static void
test_plausible(void)
{
	TAP_OK(addr_list_plausible("alice@steed.test"), "an address");
	TAP_OK(addr_list_plausible("\"a b\"@steed.test"),
	    "a quoted local part");
	TAP_OK(addr_list_plausible("a@[192.0.2.1]"), "a domain literal");
	TAP_OK(addr_list_plausible("j\xc3\xb6rg@m\xc3\xbcller.example"),
	    "8-bit letters");
	TAP_OK(!addr_list_plausible("Alice"), "no at sign");
	TAP_OK(!addr_list_plausible("a@MISSING_DOMAIN"), "an underscore");
	TAP_OK(!addr_list_plausible("a@.MISSING-HOST-NAME."), "a leading dot");
	TAP_OK(!addr_list_plausible("a@"), "no domain");
	TAP_OK(!addr_list_plausible("@b.c"), "no local part");
	TAP_OK(!addr_list_plausible("=?utf-8?q?Alice_<alice@steed.test"),
	    "'<' in the local part");
	TAP_OK(!addr_list_plausible("a b@c.d"), "a blank");
	TAP_OK(!addr_list_plausible("a\x1b@c.d"), "a control");
	TAP_OK(!addr_list_plausible("a..b@c.d"), "two dots");
}

int
main(void)
{
	test_field();
	test_sender();
	test_plausible();
	return TAP_DONE();
}
