/*
 * test-draft.c: drafts started from a message (src/draft.c): who a reply
 * and a group reply go to, the subject, the thread's message IDs, what
 * is quoted and what a forward carries. The messages are plain (no gpg
 * here); tests/integration/draft.sh covers the encrypted side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "draft.h"
#include "mime-build.h"
#include "mime-parse.h"
#include "tap.h"

static const char msg1[] =
    "From: Bob Example <bob@steed.test>\r\n"
    "To: alice@steed.test, Carol <carol@steed.test>\r\n"
    "Cc: dave@steed.test, ALICE@steed.test\r\n"
    "Subject: =?utf-8?q?caf=C3=A9?= plans\r\n"
    "Message-ID: <m1@steed.test>\r\n"
    "References: <r0@steed.test> <r1@steed.test>\r\n"
    "Content-Type: multipart/mixed; boundary=b\r\n"
    "\r\n"
    "--b\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "\r\n"
    "line one\r\n"
    "\r\n"
    "line two\r\n"
    "--b\r\n"
    "Content-Type: application/octet-stream\r\n"
    "Content-Disposition: attachment; filename=x.bin\r\n"
    "\r\n"
    "not text\r\n"
    "--b--\r\n";

static const char msg2[] =
    "From: bob@steed.test\r\n"
    "Reply-To: list@steed.test\r\n"
    "To: alice@steed.test\r\n"
    "Subject: RE: again\r\n"
    "Message-ID: <m2@steed.test>\r\n"
    "In-Reply-To: <p1@steed.test> <p2@steed.test>\r\n"
    "\r\n"
    "-----BEGIN PGP MESSAGE-----\r\n"
    "\r\n"
    "hQEMA0000000000000AQf/\r\n"
    "-----END PGP MESSAGE-----\r\n";

static struct mime_msg *
parse(const char *s)
{
	char	*cause = NULL;

	return mime_parse_copy(s, strlen(s), &cause);
}

int
main(void)
{
	struct account	 a;
	struct draft	*d;
	struct mime_msg	*m;
	struct mime_out	 mo;
	struct buf	 out;
	char		*cause = NULL;

	memset(&a, 0, sizeof a);
	a.id = "alice";
	a.name = "Alice";
	a.address = "alice@steed.test";

	m = parse(msg1);
	d = draft_new(&a);
	TAP_OK(draft_reply(d, m, DRAFT_QUOTE, &cause) == 0, "a reply");
	TAP_OK(d->nto == 1 && strcmp(d->to[0], "bob@steed.test") == 0 &&
	    d->ncc == 0, "goes to the sender alone");
	TAP_STR(d->subject, "Re: caf\xc3\xa9 plans", "Re: and the decoded "
	    "subject");
	TAP_STR(d->in_reply_to, "<m1@steed.test>", "In-Reply-To");
	TAP_STR(d->references, "<r0@steed.test> <r1@steed.test> "
	    "<m1@steed.test>", "References: the thread and the message");
	TAP_STR(d->body, "Bob Example <bob@steed.test> wrote:\n"
	    "> line one\n> \n> line two\n", "the text quoted, blank line "
	    "too, not the attachment");
	TAP_OK(!d->from_encrypted, "plain mail: no rule to encrypt");
	draft_set_body(d, strdup("my answer\n\n"
	    "Bob Example <bob@steed.test> wrote:\n> line one\n> \n"
	    "> line two\nafter\n"));
	draft_unquote(d);
	TAP_STR(d->body, "my answer\n\nafter\n", "draft_unquote: the quote "
	    "and its attribution out, the rest kept");
	draft_set_body(d, strdup("I wrote:\nno quote here\n"));
	draft_unquote(d);
	TAP_STR(d->body, "I wrote:\nno quote here\n", "... a line ending in "
	    "wrote: that starts no quote stays");
	draft_free(d);

	d = draft_new(&a);
	TAP_OK(draft_reply(d, m, DRAFT_GROUP, &cause) == 0, "a group reply");
	TAP_OK(d->nto == 1 && d->ncc == 2 &&
	    strcmp(d->cc[0], "carol@steed.test") == 0 &&
	    strcmp(d->cc[1], "dave@steed.test") == 0,
	    "Cc: the others, without the account's own address (any case)");
	TAP_OK(d->body == NULL, "nothing quoted unless asked");
	draft_free(d);

	d = draft_new(&a);
	draft_add(d, DRAFT_TO, "x@steed.test");
	draft_set_subject(d, "mine");
	TAP_OK(draft_reply(d, m, DRAFT_KEEP, &cause) == 0 && d->nto == 1 &&
	    strcmp(d->to[0], "x@steed.test") == 0 &&
	    strcmp(d->subject, "mine") == 0 && d->in_reply_to != NULL,
	    "DRAFT_KEEP: recipients and subject kept, thread taken");
	draft_free(d);

	d = draft_new(&a);
	TAP_OK(draft_forward(d, m, msg1, strlen(msg1), DRAFT_INLINE,
	    &cause) == 0, "an inline forward");
	TAP_STR(d->subject, "Fwd: caf\xc3\xa9 plans", "Fwd: subject");
	TAP_OK(d->body != NULL && strstr(d->body, "---------- Forwarded "
	    "message ----------\nFrom: Bob Example <bob@steed.test>\n") &&
	    strstr(d->body, "\nline one\n\nline two\n") != NULL &&
	    d->nto == 0 && d->in_reply_to == NULL,
	    "its header and text in the body, no recipient, not threaded");
	draft_free(d);

	d = draft_new(&a);
	draft_add(d, DRAFT_TO, "carol@steed.test");
	TAP_OK(draft_forward(d, m, msg1, strlen(msg1), 0, &cause) == 0 &&
	    d->nblobs == 1 && strcmp(d->blobs[0].type, "message/rfc822") == 0
	    && d->blobs[0].len == strlen(msg1), "a forward as attachment");
	buf_init(&out);
	draft_mime(d, &mo);
	TAP_OK(mime_build(&mo, &out, &cause) == 0 && strstr(out.data,
	    "Content-Type: message/rfc822") != NULL && strstr(out.data,
	    "Content-Transfer-Encoding: 7bit") != NULL && strstr(out.data,
	    "\r\nMessage-ID: <m1@steed.test>\r\n") != NULL,
	    "it goes as message/rfc822, as it came");
	draft_mime_free(&mo);
	buf_free(&out);
	draft_free(d);
	mime_msg_free(m);

	m = parse(msg2);
	d = draft_new(&a);
	TAP_OK(draft_reply(d, m, 0, &cause) == 0, "a reply to msg2");
	TAP_OK(d->nto == 1 && strcmp(d->to[0], "list@steed.test") == 0,
	    "Reply-To wins over From");
	TAP_STR(d->subject, "RE: again", "an existing Re: is not doubled");
	TAP_STR(d->references, "<p1@steed.test> <m2@steed.test>",
	    "without References: the first In-Reply-To ID, then its own");
	TAP_OK(d->from_encrypted, "armored OpenPGP text: encrypted content, "
	    "the reply must be encrypted");
	draft_free(d);
	mime_msg_free(m);

	d = draft_new(&a);
	draft_add(d, DRAFT_TO, "ok@steed.test");
	draft_add(d, DRAFT_BCC, "not an address");
	{
		enum draft_field f;
		TAP_OK(draft_bad_addr(d, &f) != NULL && f == DRAFT_BCC,
		    "a bad Bcc address is found");
	}
	draft_free(d);
	return TAP_DONE();
}
