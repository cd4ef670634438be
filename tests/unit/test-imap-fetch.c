/*
 * test-imap-fetch.c: the streaming FETCH reader on canned server answers,
 * fed from memory in pieces of every size, and through a libetpan stream
 * on a socketpair to show that it leaves libetpan's bytes alone; and the
 * streaming SEARCH reader, on answers of a few UIDs and of 2,000,000
 * (a line of 16 MB, past what libetpan's path takes) read in small
 * pieces.
 */
#include <sys/socket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cache.h"
#include "imap-fetch.h"
#include "tap.h"

struct mem {
	const char	*data;
	size_t		 len, pos, chunk;
};

static ssize_t
mem_read(void *arg, char *dst, size_t max, int bol)
{
	struct mem	*m = arg;
	size_t		 n = m->len - m->pos;

	(void)bol;
	if (n > m->chunk)
		n = m->chunk;
	if (n > max)
		n = max;
	memcpy(dst, m->data + m->pos, n);
	m->pos += n;
	return (ssize_t)n;
}

/* What the callback saw, copied. */
#define GOT_MAX	8
struct got {
	size_t		n;
	uint32_t	uid[GOT_MAX], size[GOT_MAX];
	long long	idate[GOT_MAX];
	int		env[GOT_MAX];
	char		flags[GOT_MAX][8];
	char		*date[GOT_MAX], *subject[GOT_MAX], *name[GOT_MAX];
	char		*mailbox[GOT_MAX], *host[GOT_MAX], *mid[GOT_MAX];
	char		*rcpt[GOT_MAX], *irt[GOT_MAX], *refs[GOT_MAX];
	char		*from[GOT_MAX];
	int		 from_cut[GOT_MAX];
	long long	 sent[GOT_MAX];
	unsigned	 hints[GOT_MAX];
	int		 fail_at;	/* 1-based: fail on this message */
};

static char *
dup_or_null(const char *s)
{
	return s == NULL ? NULL : strdup(s);
}

static int
collect(const struct imap_fetch_msg *m, void *arg, char **cause)
{
	struct got	*g = arg;
	size_t		 i = g->n;

	if (g->fail_at != 0 && (int)i + 1 == g->fail_at) {
		*cause = strdup("disk full");
		return -1;
	}
	if (i >= GOT_MAX)
		return 0;
	g->uid[i] = m->uid;
	g->size[i] = m->size;
	g->idate[i] = (long long)m->internaldate;
	g->env[i] = m->has_envelope;
	memcpy(g->flags[i], m->flags, 8);
	g->date[i] = dup_or_null(m->date);
	g->subject[i] = dup_or_null(m->subject);
	g->name[i] = dup_or_null(m->from_name);
	g->mailbox[i] = dup_or_null(m->from_mailbox);
	g->host[i] = dup_or_null(m->from_host);
	g->mid[i] = dup_or_null(m->message_id);
	g->rcpt[i] = dup_or_null(m->rcpt);
	g->irt[i] = dup_or_null(m->in_reply_to);
	g->refs[i] = dup_or_null(m->references);
	g->from[i] = dup_or_null(m->from_field);
	g->from_cut[i] = m->from_cut;
	g->sent[i] = (long long)m->sent;
	g->hints[i] = m->hints;
	g->n++;
	return 0;
}

static void
got_free(struct got *g)
{
	size_t	i;

	for (i = 0; i < g->n; i++) {
		free(g->date[i]);
		free(g->subject[i]);
		free(g->name[i]);
		free(g->mailbox[i]);
		free(g->from[i]);
		free(g->host[i]);
		free(g->mid[i]);
		free(g->rcpt[i]);
		free(g->irt[i]);
		free(g->refs[i]);
	}
	memset(g, 0, sizeof *g);
}

/* Parse data (len bytes) up to tag's reply, in pieces of chunk bytes. */
static int
run(const char *data, size_t len, size_t chunk, const char *tag,
    struct got *g, char **cause)
{
	struct mem		 m = { data, len, 0, chunk };
	struct imap_fetch	*r;
	int			 rc;

	*cause = NULL;
	r = imap_fetch_new(mem_read, &m);
	rc = imap_fetch_response(r, tag, collect, g, cause);
	imap_fetch_free(r);
	return rc;
}

static int
runs(const char *data, struct got *g, char **cause)
{
	return run(data, strlen(data), 7, "S1", g, cause);
}

#define ENV_NORMAL \
	"(\"Mon, 7 Feb 1994 21:52:25 -0800\" \"Re: the plan\" " \
	"((\"Ada Lovelace\" NIL \"ada\" \"example.org\")) " \
	"((NIL NIL \"ada\" \"example.org\")) NIL " \
	"((NIL NIL \"bob\" \"steed.test\")) NIL NIL NIL " \
	"\"<1@example.org>\")"

static void
test_normal(void)
{
	const char	*in =
	    "* 1 FETCH (UID 101 FLAGS (\\Seen \\Flagged $Junk) "
	    "INTERNALDATE \"17-Jul-1996 02:44:25 -0700\" RFC822.SIZE 4286 "
	    "ENVELOPE " ENV_NORMAL ")\r\n"
	    "* 2 FETCH (UID 102 FLAGS () INTERNALDATE \" 1-Jan-2020 00:00:00 "
	    "+0000\" RFC822.SIZE 1 ENVELOPE (NIL NIL NIL NIL NIL NIL NIL NIL "
	    "NIL NIL))\r\n"
	    "S1 OK Fetch completed.\r\n";
	size_t		 chunks[] = { 1, 2, 3, 5, 64, 100000 };
	struct got	 g;
	char		*cause;
	size_t		 i;
	int		 rc, good = 1;

	memset(&g, 0, sizeof g);
	rc = runs(in, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_OK && g.n == 2, "two messages, OK");
	TAP_OK(g.uid[0] == 101 && g.size[0] == 4286, "UID and size");
	TAP_STR(g.flags[0], "FS", "flags as sorted letters, keywords left out");
	TAP_OK(g.idate[0] == 837596665, "INTERNALDATE with a zone");
	TAP_STR(g.date[0], "Mon, 7 Feb 1994 21:52:25 -0800", "Date");
	TAP_STR(g.subject[0], "Re: the plan", "Subject");
	TAP_STR(g.name[0], "Ada Lovelace", "From: the name");
	TAP_STR(g.mailbox[0], "ada", "From: the mailbox");
	TAP_STR(g.host[0], "example.org", "From: the host");
	TAP_STR(g.mid[0], "<1@example.org>", "Message-ID");
	TAP_OK(g.idate[1] == 1577836800, "a space-padded day");
	TAP_OK(g.flags[1][0] == '\0' && g.env[1], "no flags");
	TAP_OK(g.date[1] == NULL && g.subject[1] == NULL &&
	    g.name[1] == NULL && g.mailbox[1] == NULL && g.mid[1] == NULL,
	    "NIL everywhere: all NULL");
	got_free(&g);
	for (i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		rc = run(in, strlen(in), chunks[i], "S1", &g, &cause);
		if (rc != IMAP_FETCH_OK || g.n != 2 || g.subject[0] == NULL ||
		    strcmp(g.subject[0], "Re: the plan") != 0 ||
		    g.uid[1] != 102)
			good = 0;
		got_free(&g);
	}
	TAP_OK(good, "the same whatever the pieces the bytes come in");
}

static void
test_strings(void)
{
	char		*in, *big, *cause;
	struct got	 g;
	size_t		 i;
	int		 rc, good;

	memset(&g, 0, sizeof g);
	rc = runs("* 1 FETCH (UID 5 ENVELOPE (NIL {12}\r\nhi (there)\r\n "
	    "(({7}\r\n\"Ad\" a) NIL {3}\r\nada {0}\r\n)) NIL NIL NIL NIL NIL "
	    "NIL \"a \\\"quoted\\\" \\\\ id\") FLAGS (\\Draft \\Answered "
	    "\\Deleted))\r\nS1 OK\r\n", &g, &cause);
	TAP_OK(rc == IMAP_FETCH_OK && g.n == 1, "literals in the envelope");
	TAP_STR(g.subject[0], "hi (there)\r\n", "a literal keeps its bytes");
	TAP_STR(g.name[0], "\"Ad\" a)", "a literal with quotes and a paren");
	TAP_STR(g.host[0], "", "an empty literal");
	TAP_STR(g.mid[0], "a \"quoted\" \\ id", "quoted escapes");
	TAP_STR(g.flags[0], "DRT", "flags after the envelope");
	got_free(&g);

	rc = runs("* 1 FETCH (UID 6 ENVELOPE (NIL \"R\xc3\xbc\xff\x01\" NIL "
	    "NIL NIL NIL NIL NIL NIL NIL))\r\nS1 OK\r\n", &g, &cause);
	TAP_STR(g.subject[0], "R\xc3\xbc\xff\x01",
	    "8-bit bytes and controls are handed on as they are");
	got_free(&g);

	/* A literal of 3 MB: cut, read past, the rest still parsed. */
	big = malloc(3000001);
	memset(big, 'x', 3000000);
	big[3000000] = '\0';
	if (asprintf(&in, "* 1 FETCH (UID 7 ENVELOPE (NIL {3000000}\r\n%s "
	    "NIL NIL NIL NIL NIL NIL NIL \"<big>\") RFC822.SIZE 9)\r\n"
	    "* 2 FETCH (UID 8 ENVELOPE (NIL \"%.5000s\" NIL NIL NIL NIL NIL "
	    "NIL NIL NIL))\r\nS1 OK\r\n", big, big) == -1)
		return;
	rc = run(in, strlen(in), 4093, "S1", &g, &cause);
	TAP_OK(rc == IMAP_FETCH_OK && g.n == 2, "a huge literal is read past");
	TAP_OK(g.subject[0] != NULL &&
	    strlen(g.subject[0]) == IMAP_FETCH_FIELD_MAX,
	    "and cut to %d bytes", IMAP_FETCH_FIELD_MAX);
	TAP_STR(g.mid[0], "<big>", "what follows it is read");
	TAP_OK(g.size[0] == 9, "the items after the envelope too");
	TAP_OK(g.subject[1] != NULL &&
	    strlen(g.subject[1]) == IMAP_FETCH_FIELD_MAX,
	    "a long quoted string is cut as well");
	got_free(&g);
	free(in);
	free(big);

	/* Every prefix of a response ends in "lost", never in a hang. */
	in = "* 1 FETCH (UID 5 FLAGS (\\Seen) ENVELOPE (NIL {3}\r\nabc NIL "
	    "NIL NIL NIL NIL NIL NIL NIL))\r\nS1 OK\r\n";
	good = 1;
	for (i = 0; i < strlen(in); i++) {
		rc = run(in, i, 3, "S1", &g, &cause);
		if (rc != IMAP_FETCH_BROKEN || cause == NULL ||
		    strstr(cause, "lost") == NULL)
			good = 0;
		free(cause);
		got_free(&g);
	}
	TAP_OK(good, "every truncation of the input: the connection is lost");
}

static void
test_untagged(void)
{
	const char	*in =
	    "* 3 EXISTS\r\n"
	    "* 2 RECENT\r\n"
	    "* OK [ALERT] \"unbalanced {5}\r\n"
	    "* FLAGS (\\Seen \\Draft)\r\n"
	    "* 4 FETCH (FLAGS (\\Seen))\r\n"
	    "* 1 EXPUNGE\r\n"
	    "* LIST () \"/\" {5}\r\nINBOX\r\n"
	    "* 5 FETCH (MODSEQ (123) UID 9 BODY[HEADER.FIELDS (X-A)]<0> {3}\r\n"
	    "abc X-UNKNOWN (a (b \"c)\" {2}\r\n)) d)) FLAGS (\\Seen) "
	    "ENVELOPE " ENV_NORMAL ")\r\n"
	    "* 9 EXISTS\r\n"
	    "S1 OK done\r\n";
	struct imap_fetch	*r;
	struct mem		 m = { in, strlen(in), 0, 11 };
	struct got		 g;
	uint32_t		 exists = 0;
	char			*cause = NULL;
	int			 rc;

	memset(&g, 0, sizeof g);
	r = imap_fetch_new(mem_read, &m);
	imap_fetch_track_exists(r, &exists);
	rc = imap_fetch_response(r, "S1", collect, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_OK, "other untagged responses are skipped");
	TAP_OK(g.n == 1 && g.uid[0] == 9,
	    "a FETCH without UID is not handed on; unknown items skipped");
	TAP_STR(g.subject[0], "Re: the plan", "the envelope after them");
	TAP_OK(exists == 9, "EXISTS and EXPUNGE are tracked");
	got_free(&g);
	imap_fetch_free(r);
}

static void
test_replies(void)
{
	const char	*in = "* 1 FETCH (UID 1 FLAGS ())\r\n"
			      "S1 NO [SERVERBUG] Internal \x1b[31merror\r\n"
			      "* 2 FETCH (UID 2 FLAGS ())\r\n"
			      "S2 BAD Syntax\r\n"
			      "* 3 FETCH (UID 3 FLAGS ())\r\n"
			      "* 4 FETCH (UID 4 FLAGS ())\r\n"
			      "S3 OK\r\n"
			      "S4 OK\r\n";
	struct imap_fetch	*r;
	struct mem		 m = { in, strlen(in), 0, 5 };
	struct got		 g;
	char			*cause = NULL;
	int			 rc;

	memset(&g, 0, sizeof g);
	r = imap_fetch_new(mem_read, &m);
	rc = imap_fetch_response(r, "S1", collect, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_REFUSED, "NO: refused");
	TAP_STR(cause, "UID FETCH failed: [SERVERBUG] Internal ^[[31merror",
	    "with the server's words, made safe");
	free(cause);
	rc = imap_fetch_response(r, "S2", collect, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_REFUSED && strstr(cause, "Syntax") != NULL,
	    "BAD: refused too, and the reader is still in step");
	free(cause);
	g.fail_at = g.n + 1;
	rc = imap_fetch_response(r, "S3", collect, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_LOCAL && strcmp(cause, "disk full") == 0,
	    "a failing callback: its cause, the answer read to its end");
	free(cause);
	g.fail_at = 0;
	rc = imap_fetch_response(r, "S4", collect, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_OK && g.n == 2, "and the next one reads fine");
	got_free(&g);
	imap_fetch_free(r);

	rc = runs("* 1 FETCH (UID 1 FLAGS ())\r\n* BYE shutting down\r\n",
	    &g, &cause);
	TAP_OK(rc == IMAP_FETCH_BROKEN && cause != NULL &&
	    strstr(cause, "closed the connection: shutting down") != NULL,
	    "BYE: the connection is gone, with the server's words");
	free(cause);
	got_free(&g);
}

static void
test_garbage(void)
{
	const char	*bad[] = {
		"* 1 FETCH UID 1\r\nS1 OK\r\n",
		"* 1 FETCH (UID x)\r\nS1 OK\r\n",
		"* 1 FETCH (UID 99999999999)\r\nS1 OK\r\n",
		"* 1 FETCH (ENVELOPE (NIL))\r\nS1 OK\r\n",
		"* 1 FETCH (ENVELOPE (NIL NIL NOPE NIL NIL NIL NIL NIL NIL "
		    "NIL))\r\nS1 OK\r\n",
		"* 1 FETCH (ENVELOPE (NIL \"a\r\n\" NIL NIL NIL NIL NIL NIL "
		    "NIL NIL))\r\nS1 OK\r\n",
		"* 1 FETCH (ENVELOPE (NIL {3x}\r\nabc NIL NIL NIL NIL NIL NIL "
		    "NIL NIL))\r\nS1 OK\r\n",
		"* 1 FETCH (UID 1) trailing\r\nS1 OK\r\n",
		"* 1 FETCH (X ))\r\nS1 OK\r\n",
		"S9 OK not ours\r\n",
		"S1 MAYBE\r\n",
		"+ go on\r\n",
		")))\r\n",
	};
	struct got	 g;
	char		*cause, *noise;
	size_t		 i, j, len;
	int		 rc, good = 1;

	memset(&g, 0, sizeof g);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rc = runs(bad[i], &g, &cause);
		if (rc != IMAP_FETCH_BROKEN || cause == NULL ||
		    strcmp(cause, "server sent a malformed FETCH response")
		    != 0) {
			printf("# not refused: %s", bad[i]);
			good = 0;
		}
		free(cause);
		got_free(&g);
	}
	TAP_OK(good, "malformed answers: a hard error, the connection unusable");

	/* Noise: whatever it is, an answer comes, without overruns. */
	srand(1);
	good = 1;
	len = 4000;
	noise = malloc(len);
	for (i = 0; i < 300; i++) {
		for (j = 0; j < len; j++) {
			static const char pick[] = "* ()\"\\{}0123456789\r\n"
			    "FETCH UID ENVELOPE NIL S1 OK";
			noise[j] = i % 2 ? (char)(rand() & 0xff) :
			    pick[rand() % (sizeof pick - 1)];
		}
		rc = run(noise, len, 1 + i % 50, "S1", &g, &cause);
		if (rc == IMAP_FETCH_OK && g.n > GOT_MAX)
			good = 0;
		free(cause);
		got_free(&g);
	}
	free(noise);
	TAP_OK(good, "random noise ends in an answer");
}

/* Through libetpan: the reader stops at its reply and no further. */
static void
test_stream(void)
{
	const char	*srv =
	    "* 1 FETCH (UID 1 FLAGS (\\Seen) ENVELOPE (NIL {4}\r\n*\r\nS NIL "
	    "NIL NIL NIL NIL NIL NIL NIL))\r\n"
	    "S1 OK [x] * done\r\n"
	    "* 2 FETCH (UID 2 FLAGS ())\r\n"
	    "S2 OK\r\n"
	    "* 7 EXISTS\r\n"
	    "12 OK libetpan's turn\r\n";
	struct imap_fetch	*r;
	mailstream		*s;
	MMAPString		*line;
	struct got		 g;
	char			*cause = NULL, *got;
	int			 sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1 ||
	    write(sv[1], srv, strlen(srv)) != (ssize_t)strlen(srv)) {
		TAP_OK(0, "socketpair");
		return;
	}
	close(sv[1]);
	s = mailstream_socket_open(sv[0]);
	memset(&g, 0, sizeof g);
	r = imap_fetch_new_stream(s);
	rc = imap_fetch_response(r, "S1", collect, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_OK && g.n == 1, "a stream: the first reply");
	TAP_STR(g.subject[0], "*\r\nS", "a literal that looks like a reply");
	rc = imap_fetch_response(r, "S2", collect, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_OK && g.n == 2, "the pipelined second one");
	imap_fetch_free(r);
	line = mmap_string_new("");
	got = mailstream_read_line(s, line);
	TAP_STR(got, "* 7 EXISTS\r\n", "libetpan reads on where the reader "
	    "stopped");
	got = mailstream_read_line(s, line);
	TAP_STR(got, "12 OK libetpan's turn\r\n", "and the line after");
	mmap_string_free(line);
	mailstream_close(s);
	got_free(&g);
}

/* What the index needs: recipients, threading, Date, Content-Type. */
static void
test_index_fields(void)
{
	const char	*hdr =
	    "References: <a@x>\r\n <b@x>  junk\r\n\t<c@x>\r\n"
	    "Content-Type: multipart/signed; micalg=sha-256;\r\n"
	    " protocol=\"application/pkcs7-signature\"\r\n\r\n";
	char		 in[4096], *cause, *big;
	size_t		 i, len;
	struct got	 g;
	int		 rc, good = 1;

	snprintf(in, sizeof in, "* 1 FETCH (UID 7 ENVELOPE (\"Tue, 2 Jan "
	    "2024 10:00:00 +0100\" NIL ((NIL NIL \"a\" \"x\")) NIL NIL "
	    "((\"=?utf-8?q?B=C3=A9a?=\" NIL \"bea\" \"x\") (NIL NIL "
	    "\"team\" NIL) (NIL NIL \"cy\" \"x\") (NIL NIL NIL NIL)) "
	    "((\"Di\" NIL \"di\" \"y\")) ((NIL NIL \"hidden\" \"x\")) "
	    "\"<c@x>\" \"<d@x>\") BODY[HEADER.FIELDS (REFERENCES "
	    "CONTENT-TYPE)] {%zu}\r\n%s)\r\nS1 OK\r\n", strlen(hdr), hdr);
	memset(&g, 0, sizeof g);
	rc = runs(in, &g, &cause);
	TAP_OK(rc == IMAP_FETCH_OK && g.n == 1, "a FETCH with the header "
	    "fields");
	TAP_STR(g.rcpt[0], "=?utf-8?q?B=C3=A9a?= <bea@x>, cy@x, Di <di@y>",
	    "To and Cc, groups left out, Bcc not there");
	TAP_STR(g.irt[0], "<c@x>", "In-Reply-To");
	TAP_STR(g.refs[0], "<a@x> <b@x> <c@x>", "References, unfolded, "
	    "ids only");
	TAP_OK(g.sent[0] == 1704186000, "the Date header as a time");
	TAP_OK(g.hints[0] == (CACHE_HINT_SIGNED | CACHE_HINT_SMIME |
	    CACHE_HINT_EVIDENCE), "S/MIME signed, from a folded "
	    "Content-Type: evidence for the trust step");
	got_free(&g);

	/* References too long: the last ids, the parent among them. */
	big = malloc(20000);
	len = (size_t)snprintf(big, 20000, "References:");
	for (i = 0; i < 500; i++)
		len += (size_t)snprintf(big + len, 20000 - len,
		    " <%03zu.long.id@example.org>\r\n", i);
	len += (size_t)snprintf(big + len, 20000 - len, "\r\n");
	snprintf(in, sizeof in, "* 1 FETCH (UID 8 BODY[HEADER.FIELDS "
	    "(REFERENCES CONTENT-TYPE)] {%zu}\r\n", len);
	{
		size_t	 a = strlen(in);
		char	*all = malloc(a + len + 64);

		memcpy(all, in, a);
		memcpy(all + a, big, len);
		strcpy(all + a + len, " ENVELOPE (NIL NIL NIL NIL NIL NIL NIL "
		    "NIL NIL NIL))\r\nS1 OK\r\n");
		rc = run(all, strlen(all), 5, "S1", &g, &cause);
		free(all);
	}
	TAP_OK(rc == IMAP_FETCH_OK && g.n == 1 && g.refs[0] != NULL &&
	    strlen(g.refs[0]) <= IMAP_FETCH_FIELD_MAX,
	    "500 References: what fits is kept");
	if (g.refs[0] != NULL) {
		len = strlen(g.refs[0]);
		good = len > 20 && strcmp(g.refs[0] + len - 25,
		    "<499.long.id@example.org>") == 0;
		good = good && g.refs[0][0] == '<';
	} else
		good = 0;
	if (!good && g.refs[0] != NULL)
		printf("# got ...%s\n", g.refs[0] + strlen(g.refs[0]) - 60);
	TAP_OK(good, "... the last ones, whole, the parent last");
	got_free(&g);
	free(big);

	/* From, as sent, for the sync to read itself: every field, a comma
	 * between; longer than kept, or with a NUL: said so. */
	{
		static const char *hf[] = {
			"From: =?utf-8?b?QWxpY2U=?=\r\n <a@x.example>\r\n\r\n",
			"FROM: a@x\r\nReferences: <r@x>\r\nfrom: b@y\r\n\r\n",
			"Subject: no sender\r\n\r\n",
		};
		static const char *want[] = {
			" =?utf-8?b?QWxpY2U=?= <a@x.example>", " a@x, b@y", NULL
		};
		char	 one[512];

		good = 1;
		for (i = 0; i < sizeof hf / sizeof hf[0]; i++) {
			snprintf(one, sizeof one, "* 1 FETCH (UID 9 BODY["
			    "HEADER.FIELDS (REFERENCES CONTENT-TYPE FROM)] "
			    "{%zu}\r\n%s)\r\nS1 OK\r\n", strlen(hf[i]), hf[i]);
			memset(&g, 0, sizeof g);
			rc = runs(one, &g, &cause);
			if (rc != IMAP_FETCH_OK || g.n != 1 ||
			    (want[i] == NULL) != (g.from[0] == NULL) ||
			    (want[i] != NULL && strcmp(want[i], g.from[0]) !=
			    0) || g.from_cut[0]) {
				printf("# case %zu: [%s]\n", i, g.from[0] ?
				    g.from[0] : "(none)");
				good = 0;
			}
			got_free(&g);
		}
		TAP_OK(good, "From as sent, folds as blanks, every field");
		big = malloc(3000);
		len = (size_t)snprintf(big, 3000, "From: \"Alice%2000s\" "
		    "<m@evil.example>\r\n\r\n", "");
		snprintf(in, sizeof in, "* 1 FETCH (UID 9 BODY[HEADER.FIELDS "
		    "(FROM)] {%zu}\r\n", len);
		{
			size_t	 a = strlen(in);
			char	*all = malloc(a + len + 32);

			memcpy(all, in, a);
			memcpy(all + a, big, len);
			strcpy(all + a + len, ")\r\nS1 OK\r\n");
			memset(&g, 0, sizeof g);
			rc = run(all, strlen(all), 5, "S1", &g, &cause);
			free(all);
		}
		TAP_OK(rc == IMAP_FETCH_OK && g.n == 1 && g.from[0] != NULL &&
		    strlen(g.from[0]) == 1000 && g.from_cut[0],
		    "a From of 2,000 bytes: the first 1,000, and cut");
		got_free(&g);
		memcpy(big, "From: a\0b@x\r\n\r\n", 15);
		snprintf(in, sizeof in, "* 1 FETCH (UID 9 BODY[HEADER.FIELDS "
		    "(FROM)] {15}\r\n");
		{
			size_t	 a = strlen(in);
			char	*all = malloc(a + 15 + 32);

			memcpy(all, in, a);
			memcpy(all + a, big, 15);
			strcpy(all + a + 15, ")\r\nS1 OK\r\n");
			memset(&g, 0, sizeof g);
			rc = run(all, a + 15 + strlen(")\r\nS1 OK\r\n"), 5,
			    "S1", &g, &cause);
			free(all);
		}
		TAP_OK(rc == IMAP_FETCH_OK && g.n == 1 && g.from_cut[0],
		    "a NUL in From: cut");
		got_free(&g);
		free(big);
	}

	/* Hostile header fields: nothing but a bounded, sane result. */
	{
		static const char *bad[] = {
			"References: <<<<<<<<<<<<<<<<<<<<<<<<<<<<<<\r\n\r\n",
			"References: >>>> <a@x\r\n <b@x> <\r\n\r\n",
			"X-A-Field-Name-Far-Longer-Than-Sixteen-Bytes: "
			    "<no@x>\r\nReferences: <ok@x>\r\n\r\n",
			"References <not@x>\r\nContent-Type multipart/mixed"
			    "\r\n\r\n",
			" folded at the start: <f@x>\r\n\r\n",
		};
		static const char *want[] = { NULL, "<b@x>", "<ok@x>", NULL,
			NULL };
		char	 one[512];

		good = 1;
		for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			snprintf(one, sizeof one, "* 1 FETCH (UID 9 BODY["
			    "HEADER.FIELDS (REFERENCES CONTENT-TYPE)] {%zu}"
			    "\r\n%s)\r\nS1 OK\r\n", strlen(bad[i]), bad[i]);
			memset(&g, 0, sizeof g);
			rc = runs(one, &g, &cause);
			if (rc != IMAP_FETCH_OK || g.n != 1 ||
			    (want[i] == NULL) != (g.refs[0] == NULL) ||
			    (want[i] != NULL && strcmp(want[i],
			    g.refs[0]) != 0) || g.hints[0] != 0) {
				printf("# case %zu: %s\n", i, g.refs[0] ?
				    g.refs[0] : "(none)");
				good = 0;
			}
			got_free(&g);
		}
		TAP_OK(good, "hostile header fields: only whole ids kept, no "
		    "field without its colon");
	}

	TAP_OK(imap_fetch_parse_date("Fri, 21 Nov 1997 09:55:06 -0600") ==
	    880127706, "Date: RFC 5322");
	TAP_OK(imap_fetch_parse_date("21 Nov 97 09:55 EST (comment)") ==
	    880124100, "Date: obsolete forms");
	TAP_OK(imap_fetch_parse_date("yesterday") == 0 &&
	    imap_fetch_parse_date("") == 0 &&
	    imap_fetch_parse_date("32 Jan 2024 10:00 +0000") == 0,
	    "Date: nonsense is 0");
	TAP_OK(imap_fetch_parse_ctype("Multipart/Mixed; boundary=x") ==
	    CACHE_HINT_ATTACH, "Content-Type: attachments");
	TAP_OK(imap_fetch_parse_ctype("multipart/encrypted; protocol="
	    "\"application/pgp-encrypted\"") == CACHE_HINT_ENCRYPTED,
	    "Content-Type: PGP/MIME encrypted");
	TAP_OK(imap_fetch_parse_ctype("multipart/signed; protocol="
	    "\"application/pgp-signature\"") == CACHE_HINT_SIGNED,
	    "Content-Type: PGP/MIME signed");
	TAP_OK(imap_fetch_parse_ctype("application/pkcs7-mime; "
	    "smime-type=enveloped-data") == (CACHE_HINT_SMIME |
	    CACHE_HINT_ENCRYPTED), "Content-Type: S/MIME enveloped");
	TAP_OK(imap_fetch_parse_ctype("application/x-pkcs7-mime; "
	    "smime-type=signed-data") == (CACHE_HINT_SMIME |
	    CACHE_HINT_SIGNED), "Content-Type: S/MIME signed-data");
	TAP_OK(imap_fetch_parse_ctype("text/plain") == 0,
	    "Content-Type: plain text, no hint");
}

/*
 * The trust step's hint (CACHE_HINT_EVIDENCE): set for what its SEARCH
 * of the server would find (an Autocrypt field, one of the Content-Types
 * anywhere in the field), and where the Content-Type was not all kept;
 * the header fields missing give CACHE_HINT_NOFIELDS instead.
 */
static void
test_evidence(void)
{
	static const struct {
		const char	*hdr;		/* NULL: no header fields */
		unsigned	 hints;
		const char	*what;
	} t[] = {
		{ "From: a@x\r\nContent-Type: text/plain\r\n\r\n", 0,
		    "plain text: no evidence" },
		{ "Autocrypt: addr=a@x; keydata=AAAA\r\n\r\n",
		    CACHE_HINT_EVIDENCE, "an Autocrypt field" },
		{ "autocrypt:addr=a@x\r\n\r\n", CACHE_HINT_EVIDENCE,
		    "an Autocrypt field in lower case" },
		{ "Autocrypt-Gossip: addr=a@x\r\n\r\n", 0,
		    "another field's name that begins the same: none" },
		{ "Content-Type: MULTIPART/SIGNED; protocol=\"application/"
		    "pgp-signature\"\r\n\r\n", CACHE_HINT_SIGNED |
		    CACHE_HINT_EVIDENCE, "multipart/signed in capitals" },
		{ "Content-Type: text/plain; x=\"multipart/encrypted\"\r\n"
		    "\r\n", CACHE_HINT_EVIDENCE,
		    "a type named in a parameter, as the SEARCH finds it" },
		{ "Content-Type: text/plain\r\nContent-Type: multipart/"
		    "signed\r\n\r\n", CACHE_HINT_EVIDENCE,
		    "a second Content-Type field" },
		{ NULL, CACHE_HINT_NOFIELDS, "no header fields: unknown" },
	};
	char		 in[2048], pad[400];
	struct got	 g;
	char		*cause;
	size_t		 i;
	int		 rc;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (t[i].hdr == NULL)
			snprintf(in, sizeof in, "* 1 FETCH (UID 9 ENVELOPE "
			    ENV_NORMAL ")\r\nS1 OK\r\n");
		else
			snprintf(in, sizeof in, "* 1 FETCH (UID 9 ENVELOPE "
			    ENV_NORMAL " BODY[HEADER.FIELDS (CONTENT-TYPE "
			    "AUTOCRYPT)] {%zu}\r\n%s)\r\nS1 OK\r\n",
			    strlen(t[i].hdr), t[i].hdr);
		memset(&g, 0, sizeof g);
		rc = runs(in, &g, &cause);
		TAP_OK(rc == IMAP_FETCH_OK && g.n == 1 &&
		    g.hints[0] == t[i].hints, "%s", t[i].what);
		got_free(&g);
	}

	/* A Content-Type longer than is kept, the type at its end. */
	memset(pad, 'p', sizeof pad - 1);
	pad[sizeof pad - 1] = '\0';
	snprintf(in, sizeof in, "Content-Type: text/plain; x=%s; "
	    "y=multipart/signed\r\n\r\n", pad);
	{
		char	 msg[4096];

		snprintf(msg, sizeof msg, "* 1 FETCH (UID 9 BODY[HEADER."
		    "FIELDS (CONTENT-TYPE)] {%zu}\r\n%s)\r\nS1 OK\r\n",
		    strlen(in), in);
		memset(&g, 0, sizeof g);
		rc = runs(msg, &g, &cause);
		TAP_OK(rc == IMAP_FETCH_OK && g.n == 1 &&
		    g.hints[0] == CACHE_HINT_EVIDENCE, "a Content-Type longer "
		    "than is kept: evidence, whatever its end says");
		got_free(&g);
	}
	TAP_OK(imap_fetch_ctype_evidence("application/X-PKCS7-MIME; "
	    "smime-type=signed-data") && !imap_fetch_ctype_evidence(
	    "multipart/mixed; boundary=signed"), "the types, any case, "
	    "and nothing else");
}

/* The UIDs a SEARCH gave: their count, sum and the last, or a failure. */
struct nums {
	size_t		n;
	uint64_t	sum;
	uint32_t	last;
	size_t		fail_at;	/* 1-based */
};

static int
num_collect(uint32_t uid, void *arg, char **cause)
{
	struct nums	*u = arg;

	if (u->fail_at != 0 && u->n + 1 == u->fail_at) {
		*cause = strdup("out of room");
		return -1;
	}
	u->n++;
	u->sum += uid;
	u->last = uid;
	return 0;
}

static int
search(const char *data, size_t len, size_t chunk, struct nums *u,
    char **cause)
{
	struct mem		 m = { data, len, 0, chunk };
	struct imap_fetch	*r;
	int			 rc;

	*cause = NULL;
	r = imap_fetch_new(mem_read, &m);
	rc = imap_fetch_search_response(r, "U1", num_collect, u, cause);
	imap_fetch_free(r);
	return rc;
}

static void
test_search(void)
{
	const struct {
		const char	*in;
		int		 rc;
		size_t		 n;
		uint64_t	 sum;
		const char	*what;
	} c[] = {
		{ "* SEARCH 2 5 9\r\nU1 OK done\r\n", IMAP_FETCH_OK, 3, 16,
		  "three UIDs" },
		{ "* SEARCH\r\nU1 OK\r\n", IMAP_FETCH_OK, 0, 0, "none" },
		{ "* SEARCH \r\nU1 OK\r\n", IMAP_FETCH_OK, 0, 0,
		  "none, with a space" },
		{ "* SEARCH 4 7 (MODSEQ 917162500)\r\nU1 OK\r\n",
		  IMAP_FETCH_OK, 2, 11, "a MODSEQ after them (RFC 7162)" },
		{ "* 3 EXISTS\r\n* SEARCH 1\r\n* 1 FETCH (FLAGS ())\r\n"
		  "* SEARCH 3\r\nU1 OK\r\n", IMAP_FETCH_OK, 2, 4,
		  "other responses between, two SEARCH lines" },
		{ "* SEARCH 1 2\r\nU1 NO [SERVERBUG] no\r\n",
		  IMAP_FETCH_REFUSED, 2, 3, "NO: refused" },
		{ "* SEARCH 1 x2\r\nU1 OK\r\n", IMAP_FETCH_OK, 1, 1,
		  "what is not a number ends the numbers" },
		{ "* SEARCH 1 0 2\r\nU1 OK\r\n", IMAP_FETCH_BROKEN, 1, 1,
		  "UID 0: broken" },
		{ "* SEARCH 1 4294967296\r\nU1 OK\r\n", IMAP_FETCH_BROKEN, 1,
		  1, "a UID past 32 bits: broken" },
		{ "* SEARCH 1 2", IMAP_FETCH_BROKEN, 1, 1,
		  "cut off: broken" },
		{ "* SEARCH 1\r\n* BYE bye\r\n", IMAP_FETCH_BROKEN, 1, 1,
		  "BYE: broken" },
	};
	struct nums	 u;
	struct buf	 big;
	char		*cause;
	size_t		 i, chunk;
	uint32_t	 uid;
	int		 rc;

	for (i = 0; i < sizeof c / sizeof *c; i++) {
		for (chunk = 1; chunk <= 64; chunk *= 4) {
			memset(&u, 0, sizeof u);
			rc = search(c[i].in, strlen(c[i].in), chunk, &u,
			    &cause);
			TAP_OK(rc == c[i].rc && u.n == c[i].n &&
			    u.sum == c[i].sum && (rc == IMAP_FETCH_OK) ==
			    (cause == NULL), "SEARCH, %s, in pieces of %zu: "
			    "rc %d, %zu UIDs, sum %llu", c[i].what, chunk, rc,
			    u.n, (unsigned long long)u.sum);
			free(cause);
		}
	}
	memset(&u, 0, sizeof u);
	u.fail_at = 2;
	rc = search("* SEARCH 1 2 3\r\nU1 NO why\r\n", 27, 5, &u, &cause);
	TAP_OK(rc == IMAP_FETCH_LOCAL && u.n == 1 && cause != NULL &&
	    strcmp(cause, "out of room") == 0, "the callback fails: its "
	    "cause, the answer read to its end");
	free(cause);

	/* 2,000,000 UIDs of 7 digits: a line of 16 MB, read in pieces */
	buf_init(&big);
	buf_adds(&big, "* SEARCH");
	for (uid = 1000000; uid < 3000000; uid++)
		buf_addf(&big, " %u", uid);
	buf_adds(&big, "\r\nU1 OK SEARCH completed\r\n");
	memset(&u, 0, sizeof u);
	rc = search(big.data, big.len, 4000, &u, &cause);
	TAP_OK(rc == IMAP_FETCH_OK && u.n == 2000000 && u.last == 2999999 &&
	    u.sum == 2000000ull * (1000000 + 2999999) / 2, "a line of %zu "
	    "bytes: every UID, in order (%zu)", big.len, u.n);
	free(cause);
	buf_free(&big);
}

int
main(void)
{
	test_normal();
	test_search();
	test_strings();
	test_untagged();
	test_replies();
	test_garbage();
	test_stream();
	test_index_fields();
	test_evidence();
	return TAP_DONE();
}
