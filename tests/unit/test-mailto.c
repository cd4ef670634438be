/*
 * test-mailto.c: mailto: URLs (RFC 6068) as mailto_parse() takes them:
 * the examples of the RFC, %-decoding, the allow-list (bcc, attach, from,
 * reply-to and any other header named in ignored, never taken), line
 * breaks where none may be, NUL, text that is not UTF-8, bad
 * %-encoding, addresses that are not plain, duplicates, overlong URLs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mailto.h"
#include "mime-parse.h"
#include "tap.h"

static struct mailto	m;
static char		*cause;

static int
parse(const char *url)
{
	free(cause);
	cause = NULL;
	mailto_free(&m);
	return mailto_parse(url, &m, &cause);
}

/* Is name in m.ignored? */
static int
ignored(const char *name)
{
	size_t	i;

	for (i = 0; i < m.nignored; i++) {
		if (strcmp(m.ignored[i], name) == 0)
			return 1;
	}
	return 0;
}

/* parse fails and the cause has want in it. */
static int
refused(const char *url, const char *want)
{
	if (parse(url) != -1) {
		printf("#   accepted: %s\n", url);
		return 0;
	}
	if (cause == NULL || strstr(cause, want) == NULL) {
		printf("#   cause: %s\n", cause != NULL ? cause : "(null)");
		return 0;
	}
	return m.nto == 0 && m.subject == NULL && m.body == NULL;
}

/* The List-Post address of a message with this header block. */
static char *
list_post(const char *head)
{
	struct mime_msg	*mm;
	char		*raw, *why = NULL, *addr;

	raw = malloc(strlen(head) + 16);
	sprintf(raw, "%s\r\nbody\r\n", head);
	if ((mm = mime_parse(raw, strlen(raw), &why)) == NULL) {
		free(why);
		return NULL;
	}
	addr = mailto_list_post(&mm->root->header);
	mime_msg_free(mm);
	return addr;
}

static int
list_post_is(const char *head, const char *want)
{
	char	*got = list_post(head);
	int	 same;

	same = want == NULL ? got == NULL : got != NULL &&
	    strcmp(got, want) == 0;
	if (!same)
		printf("# got %s\n", got != NULL ? got : "(none)");
	free(got);
	return same;
}

static void
test_list_post(void)
{
	TAP_OK(list_post_is("List-Post: <mailto:Steed-Users@steed.test?"
	    "subject=help>\r\n", "steed-users@steed.test"),
	    "List-Post: the address, lower case, without the query");
	TAP_OK(list_post_is("List-Post: <http://www.example.org/post>, "
	    "\r\n <mailto:list%40x@example.org>\r\n", NULL),
	    "an address that is not one once decoded: none");
	TAP_OK(list_post_is("List-Post: <http://x.test/post>,\r\n "
	    "<mailto:list@x.test>\r\n", "list@x.test"),
	    "folded, after a web URL: the mailto: one");
	TAP_OK(list_post_is("List-Post: NO (posting not allowed)\r\n", NULL),
	    "NO: none");
	TAP_OK(list_post_is("Subject: x\r\n", NULL), "no field: none");
	TAP_OK(list_post_is("List-Post: <mailto:list@x.test\r\n", NULL),
	    "no closing bracket: none");
}

int
main(void)
{
	char	*big;
	size_t	 i;

	/* RFC 6068 section 6.1 */
	TAP_OK(parse("mailto:chris@example.com") == 0 && m.nto == 1 &&
	    strcmp(m.to[0], "chris@example.com") == 0, "a plain address");
	TAP_OK(parse("mailto:infobot@example.com?subject=current-issue") ==
	    0 && strcmp(m.subject, "current-issue") == 0, "a subject");
	TAP_OK(parse("mailto:infobot@example.com?body=send%20current-issue")
	    == 0 && strcmp(m.body, "send current-issue") == 0,
	    "a %%-encoded body");
	TAP_OK(parse("mailto:infobot@example.com?body=send%20current-"
	    "issue%0D%0Asend%20index") == 0 &&
	    strcmp(m.body, "send current-issue\nsend index") == 0,
	    "CRLF in the body becomes a line end");
	TAP_OK(parse("mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C"
	    "@example.com%3E") == 0 && strcmp(m.in_reply_to,
	    "<3469A91.D10AF4C@example.com>") == 0,
	    "In-Reply-To, any case");
	TAP_OK(parse("mailto:joe@example.com?cc=bob@example.com&body=hello")
	    == 0 && m.ncc == 1 && strcmp(m.cc[0], "bob@example.com") == 0 &&
	    strcmp(m.body, "hello") == 0, "cc and body");
	TAP_OK(parse("mailto:?to=joe@example.com&cc=bob@example.com&body=hi")
	    == 0 && m.nto == 1 && strcmp(m.to[0], "joe@example.com") == 0,
	    "no address in the path, one in to=");
	TAP_OK(parse("mailto:gorby%25kremvax@example.com") == 0 &&
	    strcmp(m.to[0], "gorby%kremvax@example.com") == 0,
	    "%%25 is a %% in the local part (RFC 6068 6.1)");
	TAP_OK(parse("mailto:a@example.org,b@example.org?to=c%40example.org,"
	    "%20d@example.org") == 0 && m.nto == 4 &&
	    strcmp(m.to[2], "c@example.org") == 0 &&
	    strcmp(m.to[3], "d@example.org") == 0,
	    "addresses in path and to=, comma separated, %%40 decoded");
	TAP_OK(parse("MAILTO:a@example.org") == 0 && m.nto == 1,
	    "the scheme in any case");
	TAP_OK(parse("mailto:a@example.org?subject=caf%C3%A9%20%E2%9C%93") ==
	    0 && strcmp(m.subject, "caf\xc3\xa9 \xe2\x9c\x93") == 0,
	    "a UTF-8 subject");
	TAP_OK(parse("mailto:a@example.org?subject=1+1") == 0 &&
	    strcmp(m.subject, "1+1") == 0, "'+' is a plus, not a space");
	TAP_OK(parse("mailto:a@example.org?references=%3Ca@x%3E%20%3Cb@y%3E")
	    == 0 && strcmp(m.references, "<a@x> <b@y>") == 0,
	    "References");
	TAP_OK(parse("mailto:a@example.org?subject=&body=") == 0 &&
	    m.subject == NULL && m.body == NULL, "empty fields are none");

	/* the allow-list */
	TAP_OK(parse("mailto:a@example.org?bcc=spy@evil.test&subject=hi") ==
	    0 && m.nto == 1 && m.ncc == 0 && ignored("bcc") &&
	    strcmp(m.subject, "hi") == 0, "bcc= is ignored and named");
	TAP_OK(parse("mailto:a@example.org?attach=/home/u/.ssh/id_ed25519")
	    == 0 && ignored("attach") && m.body == NULL,
	    "attach= is ignored and named");
	TAP_OK(parse("mailto:a@example.org?from=boss@example.org&Reply-To="
	    "evil@evil.test") == 0 && ignored("from") && ignored("reply-to"),
	    "from= and Reply-To= are ignored");
	TAP_OK(parse("mailto:a@example.org?X-Mailer=x&Autocrypt=addr%3Db"
	    "&Content-Type=text/html&sender=x@y.test") == 0 &&
	    ignored("x-mailer") && ignored("autocrypt") &&
	    ignored("content-type") && ignored("sender") && m.nignored == 4,
	    "any other header is ignored and named, once each");
	TAP_OK(parse("mailto:a@example.org?%62cc=spy@evil.test") == 0 &&
	    ignored("bcc") && m.nto == 1, "a %%-encoded field name is "
	    "decoded first: bcc still ignored");
	TAP_OK(parse("mailto:a@example.org?%74o=b@example.org") == 0 &&
	    m.nto == 2, "... and to still taken");
	TAP_OK(parse("mailto:a@example.org?subject=x#frag") == 0 &&
	    strcmp(m.subject, "x") == 0 && ignored("#fragment"),
	    "a fragment is dropped and named");
	TAP_OK(parse("mailto:a@example.org?in-reply-to=nonsense") == 0 &&
	    m.in_reply_to == NULL && ignored("in-reply-to"),
	    "an In-Reply-To that is no message ID is dropped");
	TAP_OK(parse("mailto:a@example.org?&&subject=x&") == 0 &&
	    strcmp(m.subject, "x") == 0, "empty pairs are nothing");

	/* duplicates */
	TAP_OK(parse("mailto:a@example.org?to=b@example.org&to=c@example.org")
	    == 0 && m.nto == 3, "several to=: all taken");
	TAP_OK(parse("mailto:a@example.org?subject=first&subject=second") ==
	    0 && strcmp(m.subject, "first") == 0 && ignored("subject"),
	    "a second subject: the first counts, the second is named");

	/* refused */
	TAP_OK(refused("http://example.org/", "not a mailto"),
	    "not a mailto: URL");
	TAP_OK(refused("mailto:a@example.org?subject=hi%0ABcc:%20x@evil.test",
	    "line break"), "%%0A in the subject: refused");
	TAP_OK(refused("mailto:a@example.org?subject=hi%0D", "line break"),
	    "%%0D in the subject: refused");
	TAP_OK(refused("mailto:a@example.org?in-reply-to=%3Ca@b%3E%0D%0AX:%20y",
	    "line break"), "a line break in In-Reply-To: refused");
	TAP_OK(refused("mailto:a@example.org?references=%3Ca@b%3E%0A",
	    "line break"), "a line break in References: refused");
	TAP_OK(refused("mailto:a@example.org?subject=a%00b", "NUL"),
	    "%%00: refused");
	TAP_OK(refused("mailto:a@example.org?body=a%00b", "NUL"),
	    "%%00 in the body: refused");
	TAP_OK(refused("mailto:a@example.org?body=%1B%5B2J", "control"),
	    "an escape sequence in the body: refused");
	TAP_OK(refused("mailto:a@example.org?subject=%FF%FE", "not UTF-8"),
	    "not UTF-8: refused");
	TAP_OK(refused("mailto:a@example.org?subject=%C0%AF", "not UTF-8"),
	    "an overlong UTF-8 form: refused");
	TAP_OK(refused("mailto:a@example.org?subject=%4", "%-encoding"),
	    "a %% at the end: refused");
	TAP_OK(refused("mailto:a@example.org?subject=%zz", "%-encoding"),
	    "%% and no hex: refused");
	TAP_OK(refused("mailto:Joe%20%3Cjoe@example.org%3E", "plain address"),
	    "a display name in the path: refused");
	TAP_OK(refused("mailto:a@example.org%0A@evil.test", "line break"),
	    "a line break in the address: refused");
	TAP_OK(refused("mailto:a@example.org?cc=b@example.org%0D%0ABcc:%20x@y",
	    "line break"), "a line break in cc: refused");
	TAP_OK(refused("mailto:a@example.org?to=evil", "plain address"),
	    "to=evil: refused");

	big = malloc(300 * 1024);
	strcpy(big, "mailto:a@example.org?body=");
	for (i = strlen(big); i < 300 * 1024 - 1; i++)
		big[i] = 'x';
	big[i] = '\0';
	TAP_OK(refused(big, "too long"), "a URL of 300 KiB: refused");
	big[200 * 1024] = '\0';
	TAP_OK(parse(big) == 0 && strlen(m.body) > 199 * 1024,
	    "a body of 200 KiB is taken");
	free(big);
	big = malloc(200 * 20 + 64);
	strcpy(big, "mailto:");
	for (i = 0; i < 200; i++)
		sprintf(big + strlen(big), "%sr%zu@x.test", i ? "," : "", i);
	TAP_OK(refused(big, "recipients"), "200 recipients: refused");
	free(big);

	test_list_post();
	mailto_free(&m);
	free(cause);
	return TAP_DONE();
}
