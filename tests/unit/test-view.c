/*
 * test-view.c: what "steedmail --view" prints, exactly; that nothing from
 * the message can start a view line; the status line hook; and the
 * display model under it: each line's role, quote level, inner depth and
 * part, rendered back to the same text.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mime-parse.h"
#include "tap.h"
#include "view.h"
#include "xmalloc.h"

#define M	VIEW_MARK

static char *
render(const char *msg)
{
	struct buf	 out;
	char		*cause;

	buf_init(&out);
	if (view_render(msg, strlen(msg), &out, &cause) != 0) {
		free(cause);
		return NULL;
	}
	return buf_take(&out);
}

#define VIEW(msg, want, what) do {					\
	char *view_got = render(msg);					\
	TAP_STR(view_got, want, what);					\
	free(view_got);							\
} while (0)

/* The status hook: a line for multipart/signed, nothing elsewhere. */
static char *
status(const struct mime_part *p, void *arg)
{
	(*(int *)arg)++;
	if (mime_part_is(p, "multipart", "signed"))
		return xstrdup("signed by \x1b[32mtrusted\x1b[0m \xe2\x94\x83");
	return NULL;
}

/* The inner hook: an application/x-box part shows the tree at arg. */
static struct mime_part *
inner(const struct mime_part *p, void *arg)
{
	if (mime_part_is(p, "application", "x-box"))
		return ((struct mime_msg *)arg)->root;
	return NULL;
}

static char *
box_status(const struct mime_part *p, void *arg)
{
	(void)arg;
	if (mime_part_is(p, "application", "x-box"))
		return xstrdup("boxed \x1b[1m");
	return NULL;
}

static void
test_lines(void)
{
	const char		*msg = "From: a@example.org\nSubject: s\n"
	    "Content-Type: multipart/mixed; boundary=b\n\n--b\n\nhi\n"
	    "> q1\n>> q2\n> > > q3\n--b\nContent-Type: application/x-box\n\n"
	    "xx\n--b\nContent-Type: image/png\n\nAAAA\n--b--\n";
	const char		*in = "Content-Type: text/plain\n\ninside\n";
	struct view_note	 notes[] = {
		{ VIEW_BANNER, "security: \xe2\x94\x83 test" },
		{ VIEW_NOTE, "warning: w" }
	};
	struct view_hooks	 h;
	struct view_lines	 l;
	struct mime_msg		*m, *im;
	struct buf		 roles, quotes, inners, a, b;
	char			*cause;
	size_t			 i;
	int			 chrome_ok = 1;

	m = mime_parse_copy(msg, strlen(msg), &cause);
	im = mime_parse_copy(in, strlen(in), &cause);
	memset(&h, 0, sizeof h);
	h.status = box_status;
	h.inner = inner;
	h.notes = notes;
	h.nnotes = 2;
	h.arg = im;
	memset(&l, 0, sizeof l);
	view_lines(m, &h, &l);
	buf_init(&roles);
	buf_init(&quotes);
	buf_init(&inners);
	for (i = 0; i < l.n; i++) {
		buf_addf(&roles, "%s%s", i ? " " : "",
		    view_role_name(l.v[i].role));
		buf_addf(&quotes, "%d", l.v[i].quote);
		buf_addf(&inners, "%d", l.v[i].inner);
		if (strchr(l.v[i].text, '\n') != NULL ||
		    strstr(l.v[i].text, "\xe2\x94\x83") != NULL ||
		    strchr(l.v[i].text, '\x1b') != NULL)
			chrome_ok = 0;
	}
	TAP_STR(roles.data, "header header space banner note part text text "
	    "text text banner boundary part text boundary attachment "
	    "attachment", "each line has its role");
	TAP_STR(quotes.data, "00000001230000000",
	    "text lines know their quote level");
	TAP_STR(inners.data, "00000000000011000",
	    "lines of content shown in place of a part are inner");
	TAP_OK(chrome_ok, "no line holds a newline, the mark or an escape");
	TAP_STR(l.v[5].text, "part 1: text/plain", "a part line's text");
	TAP_STR(l.v[10].text, "boxed ^[[1m", "a banner's text, made safe");
	TAP_STR(l.v[3].text, "security: <U+2503> test",
	    "a note's text, made safe");
	TAP_OK(l.v[6].part == TAILQ_FIRST(&m->root->children),
	    "a text line belongs to its part");
	TAP_OK(l.v[12].part == im->root && l.v[11].part == l.v[14].part &&
	    mime_part_is(l.v[11].part, "application", "x-box"),
	    "inner lines belong to the inner part, boundaries to the host");
	TAP_OK(l.v[3].part == NULL, "message-level lines belong to no part");
	buf_init(&a);
	buf_init(&b);
	view_lines_render(&l, &a);
	view_render_hooks(m, &b, &h);
	TAP_STR(a.data, b.data, "the lines render as the view prints");
	TAP_OK(strstr(a.data, M "end of the content of part 2\n") != NULL &&
	    strstr(a.data, "\n> q1\n") != NULL,
	    "chrome after the mark, text as it is");
	buf_free(&a);
	buf_free(&b);
	buf_free(&roles);
	buf_free(&quotes);
	buf_free(&inners);
	view_lines_free(&l);
	TAP_OK(l.n == 0 && l.v == NULL, "freed lines are empty");
	mime_msg_free(im);
	mime_msg_free(m);
}

int
main(void)
{
	struct buf	 out;
	struct mime_msg	*m;
	const char	*signed_msg;
	char		*cause, *got;
	int		 calls = 0;

	VIEW("Subject: hi\nX-Other: no\nFrom: a@example.org\nDate: d\n"
	    "To: b@example.org\nCc: c@example.org\n\nhello\nworld\n",
	    "Date: d\nFrom: a@example.org\nTo: b@example.org\n"
	    "Cc: c@example.org\nSubject: hi\n\n"
	    M "part 1: text/plain\nhello\nworld\n",
	    "headers in a fixed order, then the text");

	VIEW("Subject: =?utf-8?q?=1B]0;x=07_=E2=80=AE?=\n\n\x1b[2Jbody\r\n"
	    "tab\tok\x9b\n",
	    "Subject: ^[]0;x^G <U+202E>\n\n"
	    M "part 1: text/plain\n"
	    M "note: 1 invalid byte for charset us-ascii replaced with "
	    "U+FFFD\n"
	    "^[[2Jbody\ntab\tok\xef\xbf\xbd\n",
	    "controls escaped in headers and text, TAB and LF kept");

	VIEW("Subject: \xe2\x94\x83 forged\nContent-Type: text/plain; "
	    "charset=utf-8\n\n\xe2\x94\x83 part 2: text/plain\nok\n",
	    "Subject: <U+2503> forged\n\n"
	    M "part 1: text/plain, charset utf-8\n"
	    "<U+2503> part 2: text/plain\nok\n",
	    "the mark never comes from the message");

	VIEW("Content-Type: multipart/alternative; boundary=b\n\n--b\n"
	    "Content-Type: text/plain\n\nplain\n--b\nContent-Type: text/html\n"
	    "\n<p>html</p>\n--b\nContent-Type: image/png; name=\"a\x1b.png\"\n"
	    "Content-Transfer-Encoding: base64\n\niVBORw0KGgo=\n--b--\n",
	    "\n" M "part 1: text/plain\nplain\n"
	    M "attachments:\n"
	    M "  2  text/html  11 B  (HTML, not shown)\n"
	    M "  3  image/png  8 B  \"a^[.png\"\n",
	    "HTML and images listed with size and name");

	VIEW("Content-Type: multipart/mixed; boundary=b\n\n--b\n\none\n--b\n"
	    "Content-Type: message/rfc822\n\nFrom: x@example.org\n"
	    "Subject: inner\n\ninner text\n--b--\n",
	    "\n" M "part 1: text/plain\none\n"
	    M "part 2: message/rfc822, attached message:\n"
	    "From: x@example.org\nSubject: inner\n"
	    M "part 2.1: text/plain\ninner text\n"
	    M "end of attached message 2\n",
	    "an attached message, inline");

	/* Address fields: the address whole, steedmail's word on what may
	 * mislead right under the field, Sender and Reply-To when they are
	 * not From. */
	VIEW("From: \"alice@example.org\" <mallory@evil.example>\n"
	    "Reply-To: Mallory <MALLORY@evil.example>\n"
	    "Sender: list@lists.example\nSubject: s\n\nx\n",
	    "From: \"alice@example.org\" <mallory@evil.example>\n"
	    M "warning: From: a name in it holds the address "
	    "alice@example.org, which is not its own; the address: "
	    "mallory@evil.example\n"
	    "Sender: list@lists.example\nSubject: s\n\n"
	    M "part 1: text/plain\nx\n",
	    "a name holding another address is marked; Reply-To same as From "
	    "left out, Sender shown");
	VIEW("From: =?utf-8?b?QWxpY2UgPGFsaWNlQHN0ZWVkLnRlc3Q+?=\n"
	    "Reply-To: a@example.org\n\nx\n",
	    "From: \"Alice <alice@steed.test>\" (no address)\n"
	    M "warning: From: no address can be read from it, whatever its "
	    "text says: it names nobody\nReply-To: a@example.org\n\n"
	    M "part 1: text/plain\nx\n",
	    "an encoded word that decodes to an address is no sender");
	VIEW("From: Bob =?utf-8?q?=E2=80=AE?=moc.evil <b@evil.example>\n"
	    "\nx\n",
	    "From: Bob <U+202E> moc.evil <b@evil.example>\n"
	    M "warning: From: a name in it holds characters that turn text "
	    "around or act on the terminal; the address: b@evil.example\n\n"
	    M "part 1: text/plain\nx\n", "a name with a bidi override");

	VIEW("", M "(empty message)\n", "empty message");
	VIEW("Subject: s\n", "Subject: s\n\n" M "part 1: text/plain\n"
	    M "(empty)\n", "only a header");
	VIEW("Content-Type: text/plain; charset=x-none\n\nab\xc3\xa9\n",
	    "\n" M "part 1: text/plain, charset x-none\n"
	    M "note: unknown charset x-none: bytes above 0x7F are shown as "
	    "\\xHH\n"
	    "ab\\xC3\\xA9\n", "unknown charset: bytes escaped, noted");
	VIEW("Content-Type: text/plain\nContent-Disposition: attachment; "
	    "filename=notes.txt\n\nsome notes\n",
	    "\n" M "attachments:\n" M "  1  text/plain  11 B  \"notes.txt\"\n",
	    "a text attachment is listed, not shown");
	VIEW("Content-Type: multipart/mixed; boundary=b\n\n--b\n\n"
	    "no end\n",
	    "\n" M "note: the multipart has no closing boundary: the message "
	    "may be incomplete\n" M "part 1: text/plain\nno end\n",
	    "an unclosed multipart is noted");

	signed_msg = "Content-Type: multipart/signed; boundary=s\n\n"
	    "--s\n\nsigned text\n--s\nContent-Type: application/pgp-signature"
	    "\n\nsig\n--s--\n";
	m = mime_parse_copy(signed_msg, strlen(signed_msg), &cause);
	buf_init(&out);
	view_render_msg(m, &out, status, &calls);
	got = buf_take(&out);
	TAP_STR(got, "\n" M "signed by ^[[32mtrusted^[[0m <U+2503>\n"
	    M "part 1: text/plain\nsigned text\n"
	    M "attachments:\n" M "  2  application/pgp-signature  3 B\n",
	    "a status line, drawn by the view and made safe");
	TAP_OK(calls == 3, "the hook is called for every part (%d)", calls);
	free(got);
	mime_msg_free(m);
	test_lines();
	return TAP_DONE();
}
