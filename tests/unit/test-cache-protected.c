/*
 * test-cache-protected.c: what an opened message's protected header gives
 * the header cache (cache-protected.h): names and the Subject decoded,
 * addresses as written, recipients whole and bounded, the Date as a time,
 * the last message-ids of References that fit; nothing for a message
 * that was neither decrypted nor has a protected header. The verdicts
 * are made by hand here (the crypto is crypto-in's, tested elsewhere):
 * the protected header is the header of the message's one part.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cache-protected.h"
#include "crypto-in.h"
#include "message.h"
#include "mime-parse.h"
#include "tap.h"
#include "xmalloc.h"

/*
 * A message whose inner part carries hdr as its protected header (NULL:
 * none), decrypted or not.
 */
static struct message *
opened(const char *hdr, int decrypted)
{
	struct message	*m;
	struct buf	 b;
	char		*cause = NULL;
	size_t		 len;

	buf_init(&b);
	buf_adds(&b, "From: outer@example.org\r\nSubject: ...\r\n"
	    "Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n--B\r\n");
	buf_adds(&b, hdr != NULL ? hdr : "Content-Type: text/plain\r\n");
	buf_adds(&b, "\r\ntext\r\n--B--\r\n");
	len = b.len;
	m = xcalloc(1, sizeof *m);
	m->mime = mime_parse(buf_take(&b), len, &cause);
	m->ci = xcalloc(1, sizeof *m->ci);
	m->ci->msg = m->mime;
	m->ci->decrypted = decrypted;
	if (hdr != NULL) {
		m->ci->protected_part = TAILQ_FIRST(&m->mime->root->children);
		m->ci->protected = &m->ci->protected_part->header;
	}
	return m;
}

static void
done(struct message *m)
{
	free(m->ci);
	mime_msg_free(m->mime);
	free(m);
}

int
main(void)
{
	struct cache_protected	 p;
	struct message		*m;
	struct buf		 refs, to;
	const char		*last;
	int			 i, rc;

	m = opened("Subject: =?utf-8?q?D=C3=AEner?= plans\r\n"
	    "From: =?utf-8?q?Al=C3=AFce?= <Alice@Example.org>\r\n"
	    "To: Bob <bob@example.org>, carol@example.net\r\n"
	    "Cc: \"Dave, D.\" <dave@example.com>\r\n"
	    "Date: Mon, 1 Jan 2024 10:00:00 +0000\r\n"
	    "Message-ID: <inner@example.org>\r\n"
	    "In-Reply-To: <parent@example.org>\r\n"
	    "References: <root@example.org>\r\n <parent@example.org>\r\n", 1);
	rc = cache_protected_of(m, &p);
	TAP_OK(rc == 1, "a protected header: something to keep");
	TAP_STR(p.subject, "D\xc3\xaener plans", "the Subject, decoded");
	TAP_STR(p.from, "Al\xc3\xaf" "ce", "the From's name, decoded");
	TAP_STR(p.from_addr, "Alice@Example.org", "... its address as written");
	TAP_STR(p.rcpt, "Bob <bob@example.org>, carol@example.net, Dave, D. "
	    "<dave@example.com>", "To and Cc, names decoded, in order");
	TAP_STR(p.date, "Mon, 1 Jan 2024 10:00:00 +0000", "the Date as sent");
	TAP_OK(p.sent == 1704103200, "... and as a time (%lld)",
	    (long long)p.sent);
	TAP_STR(p.message_id, "<inner@example.org>", "the Message-ID");
	TAP_STR(p.in_reply_to, "<parent@example.org>", "In-Reply-To");
	TAP_STR(p.references, "<root@example.org> <parent@example.org>",
	    "References, unfolded, one space between the ids");
	TAP_OK(p.how == 0, "nothing made by hand here vouches: how %u", p.how);
	cache_protected_free(&p);
	done(m);

	/* What the protected header lacks stays NULL: the outer one stands. */
	m = opened("Content-Type: text/plain\r\nSubject: Only this\r\n", 1);
	TAP_OK(cache_protected_of(m, &p) == 1 && p.from == NULL &&
	    p.from_addr == NULL && p.rcpt == NULL && p.date == NULL &&
	    p.sent == 0 && p.message_id == NULL && p.references == NULL,
	    "fields it does not have are NULL");
	cache_protected_free(&p);
	done(m);

	/* An unreadable From gives none (the outer one stands). */
	m = opened("Subject: x\r\nFrom: <<<\r\nTo: ,,,\r\n", 1);
	TAP_OK(cache_protected_of(m, &p) == 1 && p.from_addr == NULL &&
	    p.rcpt == NULL, "an unreadable From or To gives none");
	cache_protected_free(&p);
	done(m);

	/* References of 300 ids: the last ones that fit, the parent last. */
	buf_init(&refs);
	buf_adds(&refs, "Subject: x\r\nReferences:");
	for (i = 0; i < 300; i++)
		buf_addf(&refs, " <id%03d@example.org>", i);
	buf_adds(&refs, "\r\n");
	m = opened(refs.data, 1);
	cache_protected_of(m, &p);
	last = p.references != NULL ? strrchr(p.references, ' ') : NULL;
	TAP_OK(p.references != NULL && strlen(p.references) <= 998 &&
	    strlen(p.references) > 900 && last != NULL &&
	    strcmp(last, " <id299@example.org>") == 0 &&
	    p.references[0] == '<',
	    "300 References: the last that fit in 998 bytes (%zu), whole",
	    p.references != NULL ? strlen(p.references) : 0);
	cache_protected_free(&p);
	done(m);
	buf_free(&refs);

	/* 200 recipients: whole addresses up to 998 bytes. */
	buf_init(&to);
	buf_adds(&to, "Subject: x\r\nTo: ");
	for (i = 0; i < 200; i++)
		buf_addf(&to, "%sPerson %d <person%d@example.org>", i ? ", " :
		    "", i, i);
	buf_adds(&to, "\r\n");
	m = opened(to.data, 1);
	cache_protected_of(m, &p);
	TAP_OK(p.rcpt != NULL && strlen(p.rcpt) <= 998 &&
	    strlen(p.rcpt) > 900 && p.rcpt[strlen(p.rcpt) - 1] == '>',
	    "200 recipients: whole addresses up to 998 bytes (%zu)",
	    p.rcpt != NULL ? strlen(p.rcpt) : 0);
	cache_protected_free(&p);
	done(m);
	buf_free(&to);

	/* Decrypted, no protected header: opened, nothing to show. */
	m = opened(NULL, 1);
	TAP_OK(cache_protected_of(m, &p) == 1 && p.how == 0 &&
	    p.subject == NULL && p.from == NULL,
	    "decrypted without a protected header: kept as opened, no values");
	cache_protected_free(&p);
	done(m);

	/* Neither: nothing at all. */
	m = opened(NULL, 0);
	TAP_OK(cache_protected_of(m, &p) == 0, "neither decrypted nor "
	    "protected: nothing to keep");
	cache_protected_free(&p);
	done(m);
	return TAP_DONE();
}
