/*
 * search-text.c: a message's text for the full-text index (search-text.h).
 * Reads the MIME tree (mime-parse.h) and decodes what is text; never
 * calls gpg itself: search_text_opened() takes what message_open() has
 * already decrypted. The text is for the tokenizer only, never shown, so
 * it is not made terminal-safe here.
 */
#include <stdlib.h>
#include <string.h>

#include "cache-protected.h"
#include "html-text.h"
#include "imap-fetch.h"
#include "message.h"
#include "mime-body.h"
#include "mime-parse.h"
#include "rfc2047.h"
#include "search-text.h"
#include "xmalloc.h"

/* Header fields whose words count as text too. */
static const char *search_text_more[] = {
	"Message-ID", "List-Id", "Organization", "Keywords", NULL
};

void
search_text_init(struct search_text *t)
{
	memset(t, 0, sizeof *t);
	buf_init(&t->sender);
	buf_init(&t->rcpt);
	buf_init(&t->subject);
	buf_init(&t->body);
}

static void
search_text_wipe(struct buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->cap);
	buf_free(b);
}

void
search_text_free(struct search_text *t)
{
	search_text_wipe(&t->sender);
	search_text_wipe(&t->rcpt);
	search_text_wipe(&t->subject);
	search_text_wipe(&t->body);
}

/* Every field named name, decoded, after what b holds. */
static void
search_text_field(struct buf *b, const struct mime_header *h,
    const char *name)
{
	const struct mime_field	*f = NULL;
	char			*v;
	size_t			 len;

	while ((f = mime_header_find(h, name, f)) != NULL) {
		if ((v = mime_header_unfold(f, &len)) == NULL)
			continue;
		if (b->len > 0)
			buf_addc(b, '\n');
		rfc2047_decode(b, v, len);
		free(v);
	}
}

static void
search_text_headers(struct search_text *t, const struct mime_header *h)
{
	char	*date;
	size_t	 i;

	search_text_field(&t->sender, h, "From");
	search_text_field(&t->sender, h, "Sender");
	search_text_field(&t->sender, h, "Reply-To");
	search_text_field(&t->rcpt, h, "To");
	search_text_field(&t->rcpt, h, "Cc");
	search_text_field(&t->subject, h, "Subject");
	for (i = 0; search_text_more[i] != NULL; i++)
		search_text_field(&t->body, h, search_text_more[i]);
	if ((date = mime_header_get(h, "Date", NULL)) != NULL) {
		t->sent = imap_fetch_parse_date(date);
		free(date);
	}
}

/* Is p encrypted content, or inside some? */
static int
search_text_sealed(const struct mime_part *p)
{
	for (; p != NULL; p = p->parent)
		if (mime_part_is(p, "multipart", "encrypted") ||
		    mime_part_is(p, "application", "pkcs7-mime") ||
		    mime_part_is(p, "application", "x-pkcs7-mime"))
			return 1;
	return 0;
}

static void
search_text_part(struct search_text *t, const struct mime_part *p)
{
	struct buf	 text;
	char		*note = NULL;
	size_t		 room;

	if (p->filename != NULL) {
		buf_addc(&t->body, '\n');
		buf_adds(&t->body, p->filename);
	}
	if (t->body.len >= SEARCH_TEXT_MAX || !mime_part_is(p, "text", NULL))
		return;
	room = SEARCH_TEXT_MAX - t->body.len;
	buf_init(&text);
	mime_body_text(p, room, &text, &note);
	free(note);
	if (text.len > 0 && memmem(text.data, text.len,
	    "-----BEGIN PGP MESSAGE-----", 27) != NULL)
		t->encrypted = 1;	/* inline PGP: ciphertext */
	else if (mime_part_is(p, "text", "html")) {
		buf_addc(&t->body, '\n');
		html_text(text.data != NULL ? text.data : "", text.len, room,
		    &t->body);
	} else if (text.len > 0) {
		buf_addc(&t->body, '\n');
		buf_add(&t->body, text.data, text.len);
	}
	buf_free(&text);
}

void
search_text_raw(struct search_text *t, const char *raw, size_t len)
{
	struct mime_msg		*msg;
	struct mime_part	*p;
	char			*cause = NULL;

	if ((msg = mime_parse_copy(raw, len, &cause)) == NULL) {
		free(cause);
		return;
	}
	search_text_headers(t, &msg->root->header);
	for (p = msg->root; p != NULL; p = mime_part_next(p)) {
		if (search_text_sealed(p)) {
			t->encrypted = 1;
			continue;
		}
		search_text_part(t, p);
	}
	mime_msg_free(msg);
}

void
search_text_opened(struct search_text *t, struct message *m)
{
	struct cache_protected	 prot;
	size_t			 i;

	search_text_headers(t, &m->mime->root->header);
	for (i = 0; i < m->nparts; i++)
		if (m->parts[i].protection == MESSAGE_ENCRYPTED ||
		    m->parts[i].protection == MESSAGE_SIGNED_ENCRYPTED ||
		    m->parts[i].protection == MESSAGE_UNPROTECTED)
			t->decrypted = 1;
	/* the protected header's values beside the outer ones */
	if (cache_protected_of(m, &prot) == 1) {
		if (prot.subject != NULL) {
			buf_addc(&t->subject, '\n');
			buf_adds(&t->subject, prot.subject);
		}
		if (prot.from != NULL) {
			buf_addc(&t->sender, '\n');
			buf_adds(&t->sender, prot.from);
		}
		if (prot.from_addr != NULL) {
			buf_addc(&t->sender, '\n');
			buf_adds(&t->sender, prot.from_addr);
		}
		if (prot.rcpt != NULL) {
			buf_addc(&t->rcpt, '\n');
			buf_adds(&t->rcpt, prot.rcpt);
		}
	}
	cache_protected_free(&prot);
	/* the text as the pager shows it: the decrypted parts in place,
	   attachment names listed */
	buf_addc(&t->body, '\n');
	message_render(m, &t->body);
	if (t->body.len > SEARCH_TEXT_MAX)
		t->body.len = SEARCH_TEXT_MAX;
}
