/*
 * imap-frame.c: the guard of imap-frame.h. Owns one scanner per guarded
 * stream, handed to net-tls.c as the stream's read filter; net-tls knows
 * nothing of IMAP. Called by imap-session.c when a session is handed to
 * libetpan after login, and by the code that turns libetpan's failures
 * into words (imap-ops.c, imap-sync.c, imap-fetch.c). It never reads from
 * a stream and never changes a byte: it only sees them go past, and
 * passes each [ALERT] in a status response it checks to imap-alert.c.
 *
 * The scanner must agree with libetpan 1.9.4 on where literals are, or a
 * server could hide bytes from it (a "literal" that libetpan reads as
 * lines) or from the bounds (a literal libetpan reads that the scanner
 * took for text). So it follows what that parser does, unstrict syntax
 * and all:
 *
 *  - a response is read to the line feed that ends it, CR or not; a
 *    literal's count at the end of a line continues the same response
 *    after the literal's bytes;
 *  - in the data of a response, "{" can only start a literal (no atom,
 *    number or flag has one): blanks and '-' may come before the digits
 *    ("{-5}" is read as 0 bytes, a workaround for Free's servers), blanks
 *    and one '+' (LITERAL+) before "}", blanks before the line's end. A
 *    count not followed by the line's end is refused: libetpan would take
 *    the literal to start right there (a workaround for Lotus Domino);
 *  - the text of a status response (OK, NO, BAD, BYE, PREAUTH, or a "+"
 *    continuation) is text to the end of its line: a "{5}" at its end is
 *    not a literal for libetpan, nor are quotes or parentheses anything.
 *    The one exception is a BADCHARSET response code, whose charsets
 *    libetpan reads as strings and so as literals: a "{" on such a line
 *    is refused, as no server sends one there;
 *  - quoted strings end at an unescaped '"'; "\" escapes the next byte.
 *
 * What it bounds is what libetpan keeps of one response at a time (the
 * line, a literal, the nesting); see doc/mime.md for what it does not.
 * The answers imap-fetch.c streams are not libetpan's to hold: their
 * lines are not bounded (imap_frame_streamed()), up to the end of each
 * one's tagged reply, found in the bytes as every response's end is.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imap-alert.h"
#include "imap-bodystructure.h"
#include "imap-frame.h"
#include "imap-resp.h"
#include "log.h"
#include "net-tls.h"
#include "xmalloc.h"

#if IMAP_FRAME_DEPTH_MAX < IMAP_BODYSTRUCTURE_MAX_DEPTH
#error "the guard would refuse BODYSTRUCTUREs imap-bodystructure.c accepts"
#endif

/* Where in a response (struct imap_frame's state). */
enum {
	IMAP_FRAME_HEAD,	/* its first words: tag, status */
	IMAP_FRAME_DATA,	/* its data: strings, lists, literals count */
	IMAP_FRAME_QUOTED,	/* in a quoted string */
	IMAP_FRAME_ESCAPE,	/* after a backslash in one */
	IMAP_FRAME_TEXT,	/* the text of a status response */
	IMAP_FRAME_BRACE,	/* after "{": blanks and '-' */
	IMAP_FRAME_DIGITS,	/* the literal's size */
	IMAP_FRAME_CLOSE,	/* after its digits, before "}" */
	IMAP_FRAME_AFTER,	/* after "}", before the line's end */
	IMAP_FRAME_CR,		/* after "}" and CR */
	IMAP_FRAME_LITERAL	/* passing the literal's bytes */
};

/* Where in the first words of a response (head). */
enum {
	IMAP_FRAME_WORD1,	/* the tag, "*" or "+" */
	IMAP_FRAME_BLANK1,
	IMAP_FRAME_WORD2,	/* a status word, or anything else */
	IMAP_FRAME_BLANK2,	/* after a status word or "+" */
	IMAP_FRAME_CODE		/* after "[": is it BADCHARSET? */
};

#define IMAP_FRAME_MB(n)	((n) / (1024 * 1024))

/*
 * The bytes that end a run of bytes meaning nothing: in the data of a
 * response (IMAP_FRAME_STOP_DATA: NUL, LF, '"', '(', ')', '{') and in a
 * quoted string (IMAP_FRAME_STOP_QUOTED: NUL, LF, '"', '\\'). A run is
 * passed at once; the byte that ends it goes through imap_frame_byte().
 */
#define IMAP_FRAME_STOP_DATA	1
#define IMAP_FRAME_STOP_QUOTED	2
static const unsigned char imap_frame_stop_at[256] = {
	3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0,	/* 00 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 10 */
	0, 0, 3, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0,	/* 20 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 30 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 40 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,	/* 50 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 60 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,	/* 70 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 80 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 90 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* a0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* b0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* c0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* d0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* e0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* f0 */
};

void
imap_frame_init(struct imap_frame *f)
{
	memset(f, 0, sizeof *f);
	f->state = IMAP_FRAME_HEAD;
	f->head = IMAP_FRAME_WORD1;
	f->collect = 1;
}

static int __attribute__((format(printf, 2, 3)))
imap_frame_stop(struct imap_frame *f, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(f->why, sizeof f->why, fmt, ap);
	va_end(ap);
	f->stopped = 1;
	return -1;
}

/* The end of a response: the next byte starts another. */
static void
imap_frame_end(struct imap_frame *f)
{
	f->line = 0;
	f->depth = 0;
	f->state = IMAP_FRAME_HEAD;
	f->head = IMAP_FRAME_WORD1;
	f->wlen = 0;
	f->strict = 0;
	f->slen = 0;
	f->collect = 1;
	if (f->tagged && f->streamed > 0)
		f->streamed--;
	if (f->tagged && f->namespace > 0)
		f->namespace--;
	if (f->tagged)
		f->badcharsets = 0;
	f->statusdata = f->emptylist = 0;
	f->tagged = 0;
}

/*
 * One more byte c of the response's line. A CR may be the one byte past
 * the bound, for the CRLF that ends a line of exactly the bound.
 */
static int
imap_frame_count(struct imap_frame *f, unsigned char c)
{
	if (++f->line <= IMAP_FRAME_LINE_MAX || f->streamed > 0 ||
	    (c == '\r' && f->line == IMAP_FRAME_LINE_MAX + 1))
		return 0;
	return imap_frame_stop(f, "a line longer than %d MB",
	    IMAP_FRAME_MB(IMAP_FRAME_LINE_MAX));
}

static int
imap_frame_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* May c be part of a tag or status word? */
static int
imap_frame_wordc(unsigned char c)
{
	return !imap_frame_blank(c) && strchr("\"(){\r\n", c) == NULL;
}

static int
imap_frame_status(const struct imap_frame *f)
{
	static const char	*words[] = { "OK", "NO", "BAD", "BYE", "PREAUTH" };
	size_t			 i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (strlen(words[i]) == f->wlen &&
		    strncasecmp(words[i], f->word, f->wlen) == 0)
			return 1;
	}
	return 0;
}

/*
 * Is the response, whose second word has just been read, untagged data of
 * an extension steedmail never uses? libetpan parses those with parsers
 * of their own (ACL, QUOTA, NAMESPACE, ID, ANNOTATEMORE, XLIST, ENABLE,
 * QRESYNC, SORT), registered whether or not a command asked for them;
 * the ANNOTATEMORE one frees a list it never made on a broken answer
 * (found by fuzzing libetpan built with the fuzzer's instrumentation).
 * No command of steedmail's asks for any of them but NAMESPACE (asked once
 * per role lookup, imap-role.c), so a server sending one is refused rather
 * than let into those parsers; NAMESPACE only between the command and its
 * tagged reply. Nor is a tagged response
 * that is not a status. -1 when it is one of these.
 */
static int
imap_frame_unasked(struct imap_frame *f)
{
	static const char	*words[] = { "ACL", "LISTRIGHTS", "MYRIGHTS",
	    "QUOTA", "QUOTAROOT", "NAMESPACE", "ID", "ANNOTATION", "XLIST",
	    "ENABLED", "VANISHED", "SORT", "METADATA", "THREAD" };
	size_t			 i;

	/*
	 * A tagged response is OK, NO or BAD and its text: libetpan, finding
	 * none of them ("C{5}"), gives up on the line, while the scan here
	 * would go on to a literal that libetpan then never reads
	 */
	if (f->tagged && (f->head == IMAP_FRAME_WORD1 ||
	    f->head == IMAP_FRAME_BLANK1 ||
	    (f->head == IMAP_FRAME_WORD2 && !imap_frame_status(f))))
		return imap_frame_stop(f, "a tagged response that is not OK, "
		    "NO or BAD");
	if (f->tagged || f->head != IMAP_FRAME_WORD2)
		return 0;
	f->statusdata = f->wlen == 6 && strncasecmp(f->word, "STATUS", 6) == 0;
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (strlen(words[i]) != f->wlen ||
		    strncasecmp(words[i], f->word, f->wlen) != 0)
			continue;
		/* asked for once QRESYNC is enabled */
		if (f->qresync && (strcmp(words[i], "ENABLED") == 0 ||
		    strcmp(words[i], "VANISHED") == 0))
			return 0;
		/* the answer to a NAMESPACE just sent, up to its tagged
		 * reply (imap_frame_namespace()) */
		if (f->namespace > 0 && strcmp(words[i], "NAMESPACE") == 0)
			return 0;
		return imap_frame_stop(f, "an untagged %s response, "
		    "which steedmail never asks for", words[i]);
	}
	return 0;
}

/*
 * The first words of a response, never a line feed: 0 when c was taken
 * here, 1 when the response turned out to be data (c is then data too),
 * -1 when it is data steedmail refuses (imap_frame_unasked()).
 */
static int
imap_frame_head(struct imap_frame *f, unsigned char c)
{
	static const char	code[] = "BADCHARSET";

	switch (f->head) {
	case IMAP_FRAME_WORD1:
		if (f->wlen == 0 && imap_frame_blank(c))
			return 0;
		if (f->wlen == 0 && c == '+') {		/* continuation */
			f->head = IMAP_FRAME_BLANK2;
			return 0;
		}
		if (f->wlen != 0 && imap_frame_blank(c)) {
			f->head = IMAP_FRAME_BLANK1;
			return 0;
		}
		/*
		 * A response starts with "*", "+" or a tag, never with a
		 * string, a list or a literal; libetpan's parser, finding no
		 * response there, reads on past it (a "{4}" hid a malformed
		 * BYE from the checks here)
		 */
		if (f->wlen == 0 && (c == '{' || c == '(' || c == ')' ||
		    c == '"'))
			return imap_frame_stop(f, "a response that starts with "
			    "'%c'", c);
		if (f->wlen == 0 && (c < 0x20 || c >= 0x7f))
			return imap_frame_stop(f, "a response that starts with "
			    "the byte 0x%02x", c);
		if (!imap_frame_wordc(c))
			break;
		if (f->wlen == 0)
			f->tagged = c != '*';
		f->wlen = 1;
		return 0;
	case IMAP_FRAME_BLANK1:
		if (imap_frame_blank(c))
			return 0;
		f->head = IMAP_FRAME_WORD2;
		f->wlen = 0;
		/* FALLTHROUGH */
	case IMAP_FRAME_WORD2:
		if (imap_frame_blank(c) && imap_frame_status(f)) {
			f->head = IMAP_FRAME_BLANK2;
			return 0;
		}
		if (!imap_frame_wordc(c) || f->wlen == sizeof f->word)
			break;
		f->word[f->wlen++] = (char)c;
		return 0;
	case IMAP_FRAME_BLANK2:
		if (imap_frame_blank(c))
			return 0;
		if (c == '[') {
			f->head = IMAP_FRAME_CODE;
			f->wlen = 0;
		} else
			f->state = IMAP_FRAME_TEXT;
		return 0;
	case IMAP_FRAME_CODE:
		if (f->wlen == 0 && imap_frame_blank(c))
			return 0;
		if ((c | 0x20) != (code[f->wlen] | 0x20))
			f->state = IMAP_FRAME_TEXT;
		else if (++f->wlen == sizeof code - 1) {
			f->state = IMAP_FRAME_TEXT;
			f->strict = 1;
		}
		return 0;
	}
	if (imap_frame_unasked(f) == -1)
		return -1;
	f->state = IMAP_FRAME_DATA;
	f->collect = 0;
	return 1;
}

/* Keep n more bytes of what may be a status response. */
static void
imap_frame_keep(struct imap_frame *f, const unsigned char *p, size_t n)
{
	size_t	room = sizeof f->status - 1 - f->slen;

	if (f->slen >= sizeof f->status - 1) {
		f->slen = sizeof f->status;	/* too long */
		return;
	}
	if (n > room) {
		memcpy(f->status + f->slen, p, room);
		f->slen = sizeof f->status;
		return;
	}
	memcpy(f->status + f->slen, p, n);
	f->slen += n;
}

/*
 * A status response has ended: held to its grammar before libetpan,
 * which reads it next, sees its end.
 */
static int
imap_frame_check(struct imap_frame *f)
{
	size_t	 n = f->slen;
	char	*why = NULL, code[IMAP_RESP_ATOM_MAX + 1];
	int	 rc;

	if (n > 0 && n <= IMAP_FRAME_STATUS_MAX + 1 &&
	    f->status[n - 1] == '\r')
		n--;
	if (n > IMAP_FRAME_STATUS_MAX)
		return imap_frame_stop(f, "a status response longer than "
		    "%d kB", IMAP_FRAME_STATUS_MAX / 1024);
	if (imap_resp_check_status(f->status, n, code, &why) == 0) {
		/*
		 * libetpan frees the charsets of a BADCHARSET code twice when
		 * another comes in the same answer: one an answer at most.
		 */
		if (strcmp(code, "BADCHARSET") == 0 && f->badcharsets++ > 0)
			return imap_frame_stop(f, "two BADCHARSET codes in one "
			    "answer");
		/* shown as it passes, a bounded number per connection */
		if (strcmp(code, "ALERT") == 0 &&
		    f->alerts < IMAP_FRAME_ALERTS_MAX &&
		    imap_alert_line(f->status, n) == 1 &&
		    ++f->alerts == IMAP_FRAME_ALERTS_MAX)
			log_msg(LOG_INFO, "IMAP: %d alerts shown: the server's "
			    "next ones only logged", IMAP_FRAME_ALERTS_MAX);
		return 0;
	}
	rc = imap_frame_stop(f, "a malformed status response (%s)", why);
	free(why);
	return rc;
}

/* A digit of a literal's size: counted without overflow. */
static void
imap_frame_digit(struct imap_frame *f, unsigned char c)
{
	if (f->digits == 0 && c == '0')
		return;
	if (f->digits < sizeof f->num - 1) {
		f->num[f->digits] = (char)c;
		f->num[f->digits + 1] = '\0';
	}
	f->digits++;
	if (f->size <= IMAP_FRAME_LITERAL_MAX)
		f->size = f->size * 10 + (c - '0');
}

/* The line's end after "{N}": N bytes of literal follow. */
static int
imap_frame_literal(struct imap_frame *f)
{
	if (f->minus)
		f->size = 0;
	if (f->size > IMAP_FRAME_LITERAL_MAX) {
		if (f->digits < sizeof f->num)
			return imap_frame_stop(f, "a literal of %s bytes (more "
			    "than %d MB)", f->num,
			    IMAP_FRAME_MB(IMAP_FRAME_LITERAL_MAX));
		return imap_frame_stop(f, "a literal of a %u-digit number of "
		    "bytes (more than %d MB)", f->digits,
		    IMAP_FRAME_MB(IMAP_FRAME_LITERAL_MAX));
	}
	f->left = f->size;
	f->state = f->left != 0 ? IMAP_FRAME_LITERAL : IMAP_FRAME_DATA;
	return 0;
}

static int
imap_frame_byte(struct imap_frame *f, unsigned char c)
{
	int	rc;

	if (c == '\n' && f->state != IMAP_FRAME_AFTER &&
	    f->state != IMAP_FRAME_CR) {
		if (f->collect && f->state == IMAP_FRAME_TEXT &&
		    imap_frame_check(f) == -1)
			return -1;
		if (f->state == IMAP_FRAME_HEAD && imap_frame_unasked(f) == -1)
			return -1;
		imap_frame_end(f);
		return 0;
	}
	if (imap_frame_count(f, c) == -1)
		return -1;
	/*
	 * No NUL outside a literal: libetpan reads its lines as C strings,
	 * so a NUL hides the rest of the line from its parser but not from
	 * the checks here
	 */
	if (c == '\0')
		return imap_frame_stop(f, "a NUL byte outside a literal");
	if (f->collect)
		imap_frame_keep(f, &c, 1);
	for (;;) {
		switch (f->state) {
		case IMAP_FRAME_HEAD:
			if ((rc = imap_frame_head(f, c)) <= 0)
				return rc;
			continue;
		case IMAP_FRAME_DATA:
			if (!imap_frame_blank(c) && c != ')')
				f->emptylist = 0;
			switch (c) {
			case '"':
				f->state = IMAP_FRAME_QUOTED;
				break;
			case '(':
				if (++f->depth > IMAP_FRAME_DEPTH_MAX)
					return imap_frame_stop(f, "lists "
					    "nested more than %d deep",
					    IMAP_FRAME_DEPTH_MAX);
				f->emptylist = f->statusdata && f->depth == 1;
				break;
			case ')':
				/*
				 * "* STATUS INBOX ()" is IMAP, but libetpan's
				 * parser frees a list it never made on it
				 */
				if (f->emptylist && f->depth == 1)
					return imap_frame_stop(f, "a STATUS "
					    "response without counts");
				if (f->depth > 0)
					f->depth--;
				break;
			case '{':
				f->state = IMAP_FRAME_BRACE;
				f->size = 0;
				f->digits = 0;
				f->minus = f->plus = 0;
				f->num[0] = '\0';
				break;
			}
			return 0;
		case IMAP_FRAME_QUOTED:
			if (c == '"')
				f->state = IMAP_FRAME_DATA;
			else if (c == '\\')
				f->state = IMAP_FRAME_ESCAPE;
			return 0;
		case IMAP_FRAME_ESCAPE:
			f->state = IMAP_FRAME_QUOTED;
			return 0;
		case IMAP_FRAME_TEXT:
			if (f->strict && c == '{')
				return imap_frame_stop(f, "a literal in a "
				    "BADCHARSET response code");
			return 0;
		case IMAP_FRAME_BRACE:
			if (imap_frame_blank(c))
				return 0;
			if (c == '-') {
				f->minus = 1;
				return 0;
			}
			if (c < '0' || c > '9') {
				f->state = IMAP_FRAME_DATA;
				continue;
			}
			f->state = IMAP_FRAME_DIGITS;
			/* FALLTHROUGH */
		case IMAP_FRAME_DIGITS:
			if (c >= '0' && c <= '9') {
				imap_frame_digit(f, c);
				return 0;
			}
			f->state = IMAP_FRAME_CLOSE;
			/* FALLTHROUGH */
		case IMAP_FRAME_CLOSE:
			if (imap_frame_blank(c))
				return 0;
			if (c == '+' && !f->plus) {
				f->plus = 1;
				return 0;
			}
			if (c == '}') {
				f->state = IMAP_FRAME_AFTER;
				return 0;
			}
			f->state = IMAP_FRAME_DATA;	/* not a literal */
			continue;
		case IMAP_FRAME_AFTER:
			if (imap_frame_blank(c))
				return 0;
			if (c == '\r') {
				f->state = IMAP_FRAME_CR;
				return 0;
			}
			if (c == '\n')
				return imap_frame_literal(f);
			return imap_frame_stop(f, "a literal announced in the "
			    "middle of a line");
		case IMAP_FRAME_CR:
			if (c == '\n')
				return imap_frame_literal(f);
			return imap_frame_stop(f, "a literal announced in the "
			    "middle of a line");
		default:
			return 0;	/* literals do not come here */
		}
	}
}

/*
 * How many of the n bytes at p can be taken at once in the current state:
 * those that mean nothing there, as long as the line stays within its
 * bound (the byte that passes it goes through imap_frame_byte()).
 */
static size_t
imap_frame_run(const struct imap_frame *f, const unsigned char *p, size_t n)
{
	const unsigned char	*nl;
	size_t			 i, room;
	int			 stop;

	if (f->streamed == 0) {
		if (f->line >= IMAP_FRAME_LINE_MAX)
			return 0;
		room = IMAP_FRAME_LINE_MAX - f->line;
		if (n > room)
			n = room;
	}
	switch (f->state) {
	case IMAP_FRAME_DATA:
	case IMAP_FRAME_QUOTED:
		stop = f->state == IMAP_FRAME_DATA ? IMAP_FRAME_STOP_DATA :
		    IMAP_FRAME_STOP_QUOTED;
		for (i = 0; i < n && (imap_frame_stop_at[p[i]] & stop) == 0;
		    i++)
			;
		return i;
	case IMAP_FRAME_TEXT:
		if (f->strict)
			return 0;
		if ((nl = memchr(p, '\n', n)) != NULL)
			n = (size_t)(nl - p);
		if ((nl = memchr(p, '\0', n)) != NULL)
			n = (size_t)(nl - p);
		return n;
	default:
		return 0;
	}
}

int
imap_frame_scan(struct imap_frame *f, const void *buf, size_t len)
{
	const unsigned char	*p = buf, *end = p + len;
	size_t			 n, i;

	if (f->stopped)
		return -1;
	while (p < end) {
		if (f->state == IMAP_FRAME_LITERAL) {
			n = (size_t)(end - p);
			if (n > f->left)
				n = (size_t)f->left;
			f->left -= n;
			p += n;
			if (f->left == 0)
				f->state = IMAP_FRAME_DATA;
			continue;
		}
		if ((n = imap_frame_run(f, p, (size_t)(end - p))) != 0) {
			if (f->collect)
				imap_frame_keep(f, p, n);
			for (i = 0; f->emptylist && i < n; i++)
				if (!imap_frame_blank(p[i]))
					f->emptylist = 0;
			f->line += n;
			p += n;
			continue;
		}
		if (imap_frame_byte(f, *p++) == -1)
			return -1;
	}
	return 0;
}

const char *
imap_frame_error(const struct imap_frame *f)
{
	return f->stopped ? f->why : NULL;
}

/* The read filter of a guarded stream (net_tls_set_filter()). */
static int
imap_frame_filter(void *arg, const void *buf, size_t n)
{
	struct imap_frame	*f = arg;
	int			 was = f->stopped;

	if (imap_frame_scan(f, buf, n) == 0)
		return 0;
	if (!was)
		log_msg(LOG_INFO, "IMAP: the server sent %s: the connection "
		    "is dropped", f->why);
	return -1;
}

void
imap_frame_streamed_one(struct imap_frame *f)
{
	if (f->streamed < UINT_MAX)
		f->streamed++;
}

void
imap_frame_streamed(mailstream *s)
{
	struct imap_frame	*f;

	if ((f = net_tls_filter_arg(s, imap_frame_filter)) != NULL)
		imap_frame_streamed_one(f);
}

void
imap_frame_namespace_one(struct imap_frame *f)
{
	if (f->namespace < UINT_MAX)
		f->namespace++;
}

void
imap_frame_namespace(mailstream *s)
{
	struct imap_frame	*f;

	if (s != NULL && (f = net_tls_filter_arg(s, imap_frame_filter)) !=
	    NULL)
		imap_frame_namespace_one(f);
}

void
imap_frame_qresync(mailstream *s, int on)
{
	struct imap_frame	*f;

	if (s != NULL && (f = net_tls_filter_arg(s, imap_frame_filter)) !=
	    NULL)
		f->qresync = on;
}

int
imap_frame_qresynced(mailstream *s)
{
	struct imap_frame	*f;

	if (s == NULL || (f = net_tls_filter_arg(s, imap_frame_filter)) ==
	    NULL)
		return 0;
	return f->qresync;
}

int
imap_frame_attach(mailstream *s)
{
	struct imap_frame	*f;

	if (s == NULL || !net_tls_active(s) ||
	    net_tls_filter_arg(s, imap_frame_filter) != NULL)
		return 0;
	f = xmalloc(sizeof *f);
	imap_frame_init(f);
	if (s->read_buffer_len > 0 &&
	    imap_frame_scan(f, s->read_buffer, s->read_buffer_len) == -1) {
		log_msg(LOG_INFO, "IMAP: the server sent %s: the connection "
		    "is dropped", f->why);
		s->read_buffer_len = 0;		/* never to be parsed */
	}
	if (net_tls_set_filter(s, imap_frame_filter, f, free) == -1) {
		free(f);
		return 0;
	}
	return imap_frame_error(f) != NULL ? -1 : 0;
}

const char *
imap_frame_stopped(mailstream *s)
{
	struct imap_frame	*f;

	if (s == NULL || (f = net_tls_filter_arg(s, imap_frame_filter)) ==
	    NULL)
		return NULL;
	return imap_frame_error(f);
}

char *
imap_frame_cause(mailstream *s, const char *what)
{
	const char	*why, *host;

	if ((why = imap_frame_stopped(s)) == NULL)
		return NULL;
	host = net_tls_host(s);
	return xasprintf("the %s%s sent %s%s%s; connection closed",
	    host != NULL ? "server " : "IMAP server", host != NULL ? host : "",
	    why, what != NULL ? " in its answer to " : "",
	    what != NULL ? what : "");
}
