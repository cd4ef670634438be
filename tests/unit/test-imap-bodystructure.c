/*
 * test-imap-bodystructure.c: which parts a BODYSTRUCTURE answer says a
 * message has, read by steedmail's own bounded code: multiparts, messages
 * inside messages, literals, other messages' answers, and structures
 * nested far deeper than libetpan's recursive parser survives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "imap-bodystructure.h"
#include "tap.h"
#include "xmalloc.h"

/* What imap_bodystructure_find() says of part in text; *cause kept. */
static int
has(const char *text, const char *part, char **cause)
{
	free(*cause);
	*cause = NULL;
	return imap_bodystructure_find(text, strlen(text), 7, part, cause);
}

#define TEXT_PART \
	"(\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL \"7bit\" 5 1 " \
	"NIL NIL NIL NIL)"
#define ENVELOPE \
	"(NIL \"inner\" ((NIL NIL \"a\" \"example.org\")) NIL NIL NIL NIL " \
	"NIL NIL NIL)"

int
main(void)
{
	struct buf	 b;
	char		*cause = NULL, *text;
	size_t		 i;

	/* One text part: "1" is its body, nothing else exists. */
	text = "* 3 FETCH (UID 7 BODYSTRUCTURE " TEXT_PART ")\r\n";
	TAP_OK(has(text, "1", &cause) == 1, "a single part: 1 exists");
	TAP_OK(has(text, "2", &cause) == 0, "2 does not");
	TAP_OK(has(text, "1.1", &cause) == 0, "1.1 does not");

	/*
	 * multipart/mixed of a text, a message/rfc822 holding a multipart of
	 * two, and a message/rfc822 holding one text part.
	 */
	text = "* 3 FETCH (UID 7 BODYSTRUCTURE (" TEXT_PART
	    " (\"message\" \"rfc822\" NIL NIL NIL \"7bit\" 300 " ENVELOPE
	    " (" TEXT_PART " " TEXT_PART " \"alternative\" (\"boundary\" "
	    "\"x\") NIL NIL NIL) 12 NIL NIL NIL NIL)"
	    " (\"MESSAGE\" \"RFC822\" NIL NIL NIL \"7bit\" 100 " ENVELOPE " "
	    TEXT_PART " 3 NIL NIL NIL NIL)"
	    " \"mixed\" (\"boundary\" \"b\") NIL NIL NIL))\r\n";
	TAP_OK(has(text, "1", &cause) == 1 && has(text, "2", &cause) == 1 &&
	    has(text, "3", &cause) == 1, "the three parts of a multipart");
	TAP_OK(has(text, "4", &cause) == 0, "no fourth");
	TAP_OK(has(text, "2.1", &cause) == 1 && has(text, "2.2", &cause) == 1,
	    "the parts of the multipart inside an attached message");
	TAP_OK(has(text, "2.3", &cause) == 0 && has(text, "2.1.1", &cause) == 0,
	    "and nothing past them");
	TAP_OK(has(text, "3.1", &cause) == 1 && has(text, "3.2", &cause) == 0,
	    "an attached message of one part: its body is its part 1");
	TAP_OK(has(text, "1.1", &cause) == 0, "a text part has no parts");
	TAP_OK(has(text, "0", &cause) == 0 && has(text, "1.", &cause) == 0 &&
	    has(text, "x", &cause) == 0, "not part numbers: no such part");

	/* Literals (any bytes, parentheses too), bracketed names, order. */
	text = "* 2 FETCH (UID 9 BODYSTRUCTURE (" TEXT_PART " " TEXT_PART
	    " \"mixed\" NIL NIL NIL NIL))\r\n"
	    "* 3 FETCH (FLAGS (\\Seen) BODY[HEADER.FIELDS (A B)] {4}\r\n"
	    "((((\r\n UID 7 BODYSTRUCTURE ((\"text\" \"plain\" (\"name\" "
	    "{6}\r\n)\"()((\r\n) NIL NIL \"7bit\" 5 1 NIL NIL NIL NIL) \"mixed\" "
	    "NIL NIL NIL NIL))\r\n";
	TAP_OK(has(text, "1", &cause) == 1 && has(text, "2", &cause) == 0,
	    "literals and bracketed names are read; another UID's answer "
	    "is not taken");

	/* Hostile answers: each refused with a reason, nothing recursed. */
	buf_init(&b);
	buf_adds(&b, "* 3 FETCH (UID 7 BODYSTRUCTURE ");
	for (i = 0; i < 100000; i++)
		buf_addc(&b, '(');
	buf_adds(&b, TEXT_PART);
	for (i = 0; i < 100000; i++)
		buf_addc(&b, ')');
	buf_adds(&b, ")\r\n");
	TAP_OK(imap_bodystructure_find(b.data, b.len, 7, "1", &cause) == -1 &&
	    cause != NULL && strstr(cause, "more than 256 levels") != NULL,
	    "100,000 levels: refused (%s)", cause != NULL ? cause : "");
	buf_free(&b);
	buf_init(&b);
	buf_adds(&b, "* 3 FETCH (UID 7 BODYSTRUCTURE ");
	for (i = 0; i < IMAP_BODYSTRUCTURE_MAX_DEPTH - 3; i++)
		buf_addc(&b, '(');
	buf_adds(&b, TEXT_PART);
	for (i = 0; i < IMAP_BODYSTRUCTURE_MAX_DEPTH - 3; i++)
		buf_adds(&b, " \"mixed\")");
	buf_adds(&b, ")\r\n");
	free(cause);
	cause = NULL;
	TAP_OK(imap_bodystructure_find(b.data, b.len, 7, "1.1.1", &cause) == 1,
	    "%d levels in all are still read", IMAP_BODYSTRUCTURE_MAX_DEPTH);
	buf_free(&b);
	TAP_OK(has("* 3 FETCH (UID 7 BODYSTRUCTURE ((\r\n", "1", &cause) == -1 &&
	    strstr(cause, "malformed") != NULL, "unclosed: malformed");
	TAP_OK(has("* 3 FETCH (UID 7 BODYSTRUCTURE ({99}\r\nab))\r\n", "1",
	    &cause) == -1 && strstr(cause, "malformed") != NULL,
	    "a literal longer than the answer: malformed");
	TAP_OK(has("* 3 FETCH (UID 7 BODYSTRUCTURE (\"a))\r\n", "1",
	    &cause) == -1, "an unclosed quoted string: malformed");
	TAP_OK(has("* 3 FETCH (UID 7 FLAGS ())\r\n", "1", &cause) == -1 &&
	    strstr(cause, "no BODYSTRUCTURE") != NULL, "no BODYSTRUCTURE");
	TAP_OK(has("", "1", &cause) == -1 &&
	    strcmp(cause, "no message with UID 7 in this mailbox") == 0,
	    "no answer at all: no such message");
	TAP_OK(has("* 4 FETCH (UID 8 BODYSTRUCTURE " TEXT_PART ")\r\n", "1",
	    &cause) == -1 &&
	    strcmp(cause, "no message with UID 7 in this mailbox") == 0,
	    "only another message's answer: no such message");
	TAP_OK(has("* 3 FETCH (UID 7 BODYSTRUCTURE (\0", "1", &cause) == -1,
	    "a NUL byte: malformed");
	free(cause);
	return TAP_DONE();
}
