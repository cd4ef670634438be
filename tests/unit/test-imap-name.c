/*
 * test-imap-name.c: mailbox names to and from modified UTF-7 (RFC 3501
 * 5.1.3): the RFC's own example, names of several scripts both ways,
 * what the strict decoder refuses, and round trips.
 */
#include <stdlib.h>
#include <string.h>

#include "imap-name.h"
#include "tap.h"
#include "xmalloc.h"

static void
both(const char *utf8, const char *wire)
{
	char	*e, *d, *cause = NULL;

	e = imap_name_encode(utf8, &cause);
	TAP_STR(e, wire, "encode %s", wire);
	d = imap_name_decode(wire);
	TAP_STR(d, utf8, "decode %s", wire);
	free(e);
	free(d);
	free(cause);
}

static void
refused(const char *wire, const char *why)
{
	char	*d = imap_name_decode(wire);
	char	*shown = imap_name_from_wire(wire);

	TAP_OK(d == NULL, "decode refuses %s", why);
	TAP_STR(shown, wire, "%s: shown as the server spelled it", why);
	free(d);
	free(shown);
}

static void
bad_utf8(const char *utf8, const char *why)
{
	char	*cause = NULL, *e = imap_name_encode(utf8, &cause);

	TAP_OK(e == NULL && cause != NULL, "encode refuses %s", why);
	free(e);
	free(cause);
}

/* Every code point of a range, alone and between letters. */
static void
roundtrip_range(unsigned long from, unsigned long to, unsigned long step)
{
	unsigned long	 cp;
	char		 u[16], *e, *d;
	int		 bad = 0;

	for (cp = from; cp <= to; cp += step) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		if (cp < 0x80) {
			u[0] = 'a'; u[1] = (char)cp; u[2] = 'b'; u[3] = '\0';
		} else if (cp < 0x800) {
			u[0] = 'a'; u[1] = (char)(0xc0 | (cp >> 6));
			u[2] = (char)(0x80 | (cp & 0x3f)); u[3] = 'b';
			u[4] = '\0';
		} else if (cp < 0x10000) {
			u[0] = (char)(0xe0 | (cp >> 12));
			u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
			u[2] = (char)(0x80 | (cp & 0x3f)); u[3] = '\0';
		} else {
			u[0] = (char)(0xf0 | (cp >> 18));
			u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
			u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
			u[3] = (char)(0x80 | (cp & 0x3f)); u[4] = 'x';
			u[5] = '\0';
		}
		e = imap_name_encode(u, NULL);
		d = e != NULL ? imap_name_decode(e) : NULL;
		if (d == NULL || strcmp(d, u) != 0)
			bad++;
		free(e);
		free(d);
	}
	TAP_OK(bad == 0, "round trip U+%04lX..U+%04lX (%d wrong)", from, to,
	    bad);
}

int
main(void)
{
	/* RFC 3501 5.1.3's example: "~peter/mail/日本語/台北" */
	both("~peter/mail/\xe5\x8f\xb0\xe5\x8c\x97/"
	    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
	    "~peter/mail/&U,BTFw-/&ZeVnLIqe-");
	both("INBOX", "INBOX");
	both("", "");
	both("A&B", "A&-B");
	both("&", "&-");
	both("B\xc3\xbc" "cher", "B&APw-cher");
	both("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "&ZeVnLIqe-");
	both("Entw\xc3\xbc" "rfe", "Entw&APw-rfe");
	both("\xd0\x92\xd1\x85\xd0\xbe\xd0\xb4\xd1\x8f\xd1\x89\xd0\xb8\xd0\xb5",
	    "&BBIERQQ+BDQETwRJBDgENQ-");
	/* outside the BMP: a surrogate pair */
	both("\xf0\x9f\x93\xa7 mail", "&2D3c5w- mail");
	/* a control character is encoded, not sent raw */
	both("a\tb", "a&AAk-b");
	both("\xc3\xbc&\xc3\xbc", "&APw-&-&APw-");

	refused("B\xc3\xbc" "cher", "8-bit bytes");
	refused("a\tb", "a raw control byte");
	refused("&APw", "an unterminated run");
	refused("&APw-&APw-", "two runs side by side");
	refused("&AGE-", "a printable character encoded");
	refused("&ACY-", "\"&\" encoded");
	refused("&AAA-", "U+0000");
	refused("&2D0-", "a lone high surrogate");
	refused("&3OcAYQ-", "a lone low surrogate");
	refused("&APx-", "padding bits that are not zero");
	refused("&APwA-", "a base64 character too many");
	refused("&A/w-", "\"/\" in place of \",\"");
	refused("&=-", "not base64");
	refused("A&B", "a bare \"&\"");

	bad_utf8("\xc0\xaf", "an overlong form");
	bad_utf8("\xed\xa0\x80", "a surrogate");
	bad_utf8("B\xfc" "cher", "Latin-1");
	bad_utf8("\xe6\x97", "a truncated sequence");
	bad_utf8("\xf4\x90\x80\x80", "beyond U+10FFFF");

	roundtrip_range(1, 0x7f, 1);
	roundtrip_range(0x80, 0xffff, 1);
	roundtrip_range(0x10000, 0x10ffff, 97);
	return TAP_DONE();
}
