/*
 * imap-fetch.c: the streaming FETCH reader of imap-fetch.h.
 *
 * The reader owns one window of bytes taken from its source and parses it
 * a byte at a time, never needing a whole token or line in memory: quoted
 * strings and literals are copied into fixed field buffers up to
 * IMAP_FETCH_FIELD_MAX and the rest is read past. Every loop takes at
 * least one byte or fails, and every failure marks the reader broken, so
 * hostile input ends in an error, not in a loop or an overrun.
 *
 * The header fields (References, Content-Type) are not kept whole either:
 * they pass through a small line reader that keeps the end of References
 * (where the parent is) and the start of Content-Type, and the Date is
 * parsed here, so that imap-sync stores what the index needs as it is.
 *
 * Called by imap-sync for new messages; it must never print, and never
 * take bytes past the tagged reply it waits for (the mailstream source
 * below stops at any line that could be one).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "cache.h"
#include "imap-fetch.h"
#include "imap-frame.h"
#include "log.h"
#include "strsafe.h"
#include "xmalloc.h"

#define IMAP_FETCH_WINDOW	16384	/* bytes taken from the source */
#define IMAP_FETCH_WORD		64	/* longest atom compared */
#define IMAP_FETCH_TEXT		300	/* bytes kept of a reply's text */
#define IMAP_FETCH_REFS		8192	/* bytes kept of References, the last */
#define IMAP_FETCH_CTYPE	300	/* bytes kept of Content-Type */
#define IMAP_FETCH_FROM		1000	/* bytes kept of From: more is cut */

#define IMAP_FETCH_MALFORMED	"server sent a malformed FETCH response"
#define IMAP_FETCH_LOST		"UID FETCH: the connection to the IMAP " \
				"server was lost"

enum imap_fetch_field {
	IMAP_FETCH_F_DATE,
	IMAP_FETCH_F_SUBJECT,
	IMAP_FETCH_F_NAME,
	IMAP_FETCH_F_MAILBOX,
	IMAP_FETCH_F_HOST,
	IMAP_FETCH_F_MID,
	IMAP_FETCH_F_IDATE,
	IMAP_FETCH_F_RCPT,	/* To and Cc, built from their addresses */
	IMAP_FETCH_F_ANAME,	/* one address of To or Cc */
	IMAP_FETCH_F_AMBOX,
	IMAP_FETCH_F_AHOST,
	IMAP_FETCH_F_IRT,
	IMAP_FETCH_F_REFS,	/* built from the header fields */
	IMAP_FETCH_F_COUNT
};

/*
 * The header fields, read as they stream past: of References the last
 * IMAP_FETCH_REFS bytes (a ring: the parent is the last id, however long
 * the field), of Content-Type the first IMAP_FETCH_CTYPE, of From (every
 * From field, a comma between) the first IMAP_FETCH_FROM, and whether
 * there was more (or a NUL): the sync reads the sender itself from it.
 */
#define IMAP_FETCH_H_BOL	0	/* at the start of a line */
#define IMAP_FETCH_H_NAME	1
#define IMAP_FETCH_H_VALUE	2
#define IMAP_FETCH_H_OTHER	0
#define IMAP_FETCH_H_REFS	1
#define IMAP_FETCH_H_CTYPE	2
#define IMAP_FETCH_H_FROM	3
struct imap_fetch_hdr {
	int	 state, field, seen;
	char	 name[16];
	size_t	 nlen;
	char	 refs[IMAP_FETCH_REFS];
	size_t	 rlen;			/* bytes ever put in refs */
	char	 ctype[IMAP_FETCH_CTYPE + 1];
	size_t	 clen;
	char	 from[IMAP_FETCH_FROM + 1];
	size_t	 flen;
	int	 fseen, fcut;
	int	 cseen, cmore;		/* a Content-Type; more than kept */
	int	 autocrypt;		/* an Autocrypt field */
};

struct imap_fetch_str {
	size_t	 len;
	size_t	 cap;		/* bytes kept at most */
	int	 nil;
	char	*s;		/* cap + 1 bytes */
};

struct imap_fetch {
	imap_fetch_read_fn	 read;
	void			*arg;
	size_t			 pos, len;	/* the window: buf[pos..len) */
	int			 bol;		/* last byte taken was LF */
	int			 broken;
	char			*why;		/* why broken */
	uint32_t		*exists;
	imap_fetch_num_fn	 num;		/* SEARCH numbers go here */
	void			*num_arg;
	char			*num_failed;	/* why num() failed */

	struct imap_fetch_msg	 msg;
	struct imap_fetch_str	 f[IMAP_FETCH_F_COUNT];
	char			 section[IMAP_FETCH_WORD];
	char			 text[IMAP_FETCH_TEXT + 1];
	char			 buf[IMAP_FETCH_WINDOW];
	char			 store[IMAP_FETCH_F_COUNT]
				     [IMAP_FETCH_FIELD_MAX + 1];
	struct imap_fetch_hdr	 h;
};

/* Reading bytes. */

static ssize_t	imap_fetch_stream_read(void *, char *, size_t, int);

static int
imap_fetch_fail(struct imap_fetch *r, const char *why)
{
	if (!r->broken) {
		r->broken = 1;
		r->why = xstrdup(why);
	}
	return -1;
}

/* The source failed: lost, or ended by the guard below (imap-frame.h). */
static int
imap_fetch_lost(struct imap_fetch *r)
{
	char	*why = NULL;
	int	 rc;

	if (r->read == imap_fetch_stream_read)
		why = imap_frame_cause(r->arg, "UID FETCH");
	rc = imap_fetch_fail(r, why != NULL ? why : IMAP_FETCH_LOST);
	free(why);
	return rc;
}

static int
imap_fetch_bad(struct imap_fetch *r)
{
	return imap_fetch_fail(r, IMAP_FETCH_MALFORMED);
}

static int
imap_fetch_fill(struct imap_fetch *r)
{
	ssize_t	n;

	if (r->broken)
		return -1;
	n = r->read(r->arg, r->buf, sizeof r->buf, r->bol);
	if (n <= 0 || (size_t)n > sizeof r->buf)
		return imap_fetch_lost(r);
	r->pos = 0;
	r->len = (size_t)n;
	r->bol = r->buf[r->len - 1] == '\n';
	return 0;
}

/* The next byte, not taken; -1 when there is none (the reader broke). */
static inline int
imap_fetch_peek(struct imap_fetch *r)
{
	if (r->pos == r->len && imap_fetch_fill(r) == -1)
		return -1;
	return (unsigned char)r->buf[r->pos];
}

static inline int
imap_fetch_getc(struct imap_fetch *r)
{
	int	c;

	if ((c = imap_fetch_peek(r)) != -1)
		r->pos++;
	return c;
}

static int
imap_fetch_expect(struct imap_fetch *r, int want)
{
	int	c;

	if ((c = imap_fetch_getc(r)) == -1)
		return -1;
	return c == want ? 0 : imap_fetch_bad(r);
}

/* One space or more. */
static int
imap_fetch_sp(struct imap_fetch *r)
{
	int	c;

	if (imap_fetch_expect(r, ' ') == -1)
		return -1;
	while ((c = imap_fetch_peek(r)) == ' ')
		r->pos++;
	return c == -1 ? -1 : 0;
}

static int
imap_fetch_crlf(struct imap_fetch *r)
{
	int	c;

	if ((c = imap_fetch_getc(r)) == '\r')
		c = imap_fetch_getc(r);
	if (c == -1)
		return -1;
	return c == '\n' ? 0 : imap_fetch_bad(r);
}

/* Take n bytes, copying what still fits into f (NULL: none). */
static int
imap_fetch_take(struct imap_fetch *r, struct imap_fetch_str *f, uint64_t n)
{
	size_t	have, k;

	while (n > 0) {
		if (r->pos == r->len && imap_fetch_fill(r) == -1)
			return -1;
		have = r->len - r->pos;
		if (have > n)
			have = (size_t)n;
		if (f != NULL && f->len < f->cap) {
			k = f->cap - f->len;
			if (k > have)
				k = have;
			memcpy(f->s + f->len, r->buf + r->pos, k);
			f->len += k;
		}
		r->pos += have;
		n -= have;
	}
	return 0;
}

/* Tokens. */

static int
imap_fetch_number(struct imap_fetch *r, uint64_t max, uint64_t *out)
{
	uint64_t	v = 0;
	int		c, n = 0;

	while ((c = imap_fetch_peek(r)) >= '0' && c <= '9') {
		r->pos++;
		v = v * 10 + (uint64_t)(c - '0');
		if (v > max)
			return imap_fetch_bad(r);
		n++;
	}
	if (c == -1)
		return -1;
	if (n == 0)
		return imap_fetch_bad(r);
	*out = v;
	return 0;
}

static int
imap_fetch_u32(struct imap_fetch *r, uint32_t *out)
{
	uint64_t	v;

	if (imap_fetch_number(r, UINT32_MAX, &v) == -1)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int
imap_fetch_atom_char(int c)
{
	return c > ' ' && c < 0x7f && c != '(' && c != ')' && c != '[' &&
	    c != ']' && c != '{' && c != '"';
}

/*
 * An atom into w (cut to cap - 1 bytes); *n is its whole length, which
 * may be 0 when the next byte cannot start one.
 */
static int
imap_fetch_atom(struct imap_fetch *r, char *w, size_t cap, size_t *n)
{
	size_t	len = 0, i, k;
	int	c;

	/* the atom's bytes in the window at once, the window filled again
	   while it ends there */
	while ((c = imap_fetch_peek(r)) != -1) {
		for (i = r->pos; i < r->len &&
		    imap_fetch_atom_char((unsigned char)r->buf[i]); i++)
			;
		k = i - r->pos;
		if (len + 1 < cap)
			memcpy(w + len, r->buf + r->pos,
			    k < cap - 1 - len ? k : cap - 1 - len);
		len += k;
		r->pos = i;
		if (i < r->len)
			break;
	}
	w[len < cap ? len : cap - 1] = '\0';
	*n = len;
	return c == -1 ? -1 : 0;
}

static int
imap_fetch_is(const char *w, size_t n, const char *name)
{
	return n == strlen(name) && strcasecmp(w, name) == 0;
}

/* Does c end a run of a quoted string's plain bytes? */
static inline int
imap_fetch_quoted_stop(unsigned char c)
{
	return c == '"' || c == '\\' || c == '\r' || c == '\n';
}

/* The rest of a quoted string, its opening quote taken. */
static int
imap_fetch_quoted(struct imap_fetch *r, struct imap_fetch_str *f)
{
	size_t	i, k;
	int	c;

	for (;;) {
		/* the plain bytes in the window, at once */
		for (i = r->pos; i < r->len &&
		    !imap_fetch_quoted_stop((unsigned char)r->buf[i]); i++)
			;
		if (f != NULL && f->len < f->cap) {
			k = i - r->pos;
			if (k > f->cap - f->len)
				k = f->cap - f->len;
			memcpy(f->s + f->len, r->buf + r->pos, k);
			f->len += k;
		}
		r->pos = i;
		if ((c = imap_fetch_getc(r)) == -1)
			return -1;
		if (c == '"')
			return 0;
		if (c == '\\' && (c = imap_fetch_getc(r)) == -1)
			return -1;
		if (c == '\r' || c == '\n')
			return imap_fetch_bad(r);
		if (f != NULL && f->len < f->cap)
			f->s[f->len++] = (char)c;
	}
}

/* A literal's length, its "{" taken: "n}" (or "n+}") and CRLF. */
static int
imap_fetch_literal_size(struct imap_fetch *r, uint64_t *n)
{
	if (imap_fetch_number(r, UINT32_MAX, n) == -1)
		return -1;
	if (imap_fetch_peek(r) == '+')
		r->pos++;
	if (imap_fetch_expect(r, '}') == -1 ||
	    imap_fetch_expect(r, '\r') == -1 ||
	    imap_fetch_expect(r, '\n') == -1)
		return -1;
	return 0;
}

/* The rest of a literal, its "{" taken: "n}" CRLF and n bytes. */
static int
imap_fetch_literal(struct imap_fetch *r, struct imap_fetch_str *f)
{
	uint64_t	n;

	if (imap_fetch_literal_size(r, &n) == -1)
		return -1;
	return imap_fetch_take(r, f, n);
}

/* NIL, a quoted string or a literal, into f (NULL: read and dropped). */
static int
imap_fetch_nstring(struct imap_fetch *r, struct imap_fetch_str *f)
{
	char	w[8];
	size_t	n;
	int	c, rc;

	if (f != NULL) {
		f->len = 0;
		f->nil = 0;
	}
	if ((c = imap_fetch_peek(r)) == -1)
		return -1;
	if (c == '"' || c == '{') {
		r->pos++;
		if (c == '"')
			rc = imap_fetch_quoted(r, f);
		else
			rc = imap_fetch_literal(r, f);
		if (rc == -1)
			return -1;
		if (f != NULL)
			f->s[f->len] = '\0';
		return 0;
	}
	if (imap_fetch_atom(r, w, sizeof w, &n) == -1)
		return -1;
	if (!imap_fetch_is(w, n, "NIL"))
		return imap_fetch_bad(r);
	if (f != NULL) {
		f->nil = 1;
		f->s[0] = '\0';
	}
	return 0;
}

/* Any value, read past: an atom, a string, or a list of them. */
static int
imap_fetch_skip_value(struct imap_fetch *r)
{
	char	w[IMAP_FETCH_WORD];
	size_t	n;
	int	c, depth = 0;

	do {
		if ((c = imap_fetch_peek(r)) == -1)
			return -1;
		switch (c) {
		case '(':
			r->pos++;
			depth++;
			break;
		case ')':
			if (depth == 0)
				return imap_fetch_bad(r);
			r->pos++;
			depth--;
			break;
		case '"':
		case '{':
			if (imap_fetch_nstring(r, NULL) == -1)
				return -1;
			break;
		case ' ':
			if (depth == 0)
				return imap_fetch_bad(r);
			r->pos++;
			break;
		case '\r':
		case '\n':
			return imap_fetch_bad(r);
		default:
			if (imap_fetch_atom(r, w, sizeof w, &n) == -1)
				return -1;
			if (n == 0)
				r->pos++;	/* "[", "]" or a control */
			break;
		}
	} while (depth > 0);
	return 0;
}

/* The rest of a line, literals included. */
static int
imap_fetch_skip_line(struct imap_fetch *r)
{
	uint64_t	lit = 0;
	int		c, digits = 0;
	int		state = 0;	/* 1 "{n", 2 "{n}", 3 "{n}\r" */

	for (;;) {
		if ((c = imap_fetch_getc(r)) == -1)
			return -1;
		if (c == '\n') {
			if (state < 2)
				return 0;
			if (imap_fetch_take(r, NULL, lit) == -1)
				return -1;
			state = 0;
			continue;
		}
		if (c == '{') {
			state = 1;
			lit = 0;
			digits = 0;
		} else if (state == 1 && c >= '0' && c <= '9') {
			lit = lit * 10 + (uint64_t)(c - '0');
			digits++;
			if (lit > UINT32_MAX)
				state = 0;
		} else if (state == 1 && c == '+' && digits > 0)
			continue;
		else if (state == 1 && c == '}' && digits > 0)
			state = 2;
		else if (state == 2 && c == '\r')
			state = 3;
		else
			state = 0;
	}
}

/* The rest of a line as text, kept in r->text (bounded, raw). */
static int
imap_fetch_text(struct imap_fetch *r)
{
	size_t	n = 0;
	int	c;

	while ((c = imap_fetch_getc(r)) != -1 && c != '\n') {
		if (c != '\r' && n < IMAP_FETCH_TEXT)
			r->text[n++] = (char)c;
	}
	r->text[n] = '\0';
	return c == -1 ? -1 : 0;
}

/* A message's parts. */

static int
imap_fetch_flags(struct imap_fetch *r, char *out)
{
	char	w[IMAP_FETCH_WORD];
	size_t	n;
	int	c, d = 0, f = 0, a = 0, s = 0, t = 0;

	if (imap_fetch_expect(r, '(') == -1)
		return -1;
	for (;;) {
		if ((c = imap_fetch_peek(r)) == -1)
			return -1;
		if (c == ')') {
			r->pos++;
			break;
		}
		if (c == ' ') {
			r->pos++;
			continue;
		}
		if (imap_fetch_atom(r, w, sizeof w, &n) == -1)
			return -1;
		if (n == 0)
			return imap_fetch_bad(r);
		if (imap_fetch_is(w, n, "\\Draft"))
			d = 1;
		else if (imap_fetch_is(w, n, "\\Flagged"))
			f = 1;
		else if (imap_fetch_is(w, n, "\\Answered"))
			a = 1;
		else if (imap_fetch_is(w, n, "\\Seen"))
			s = 1;
		else if (imap_fetch_is(w, n, "\\Deleted"))
			t = 1;
	}
	if (d) *out++ = 'D';
	if (f) *out++ = 'F';
	if (a) *out++ = 'R';
	if (s) *out++ = 'S';
	if (t) *out++ = 'T';
	*out = '\0';
	return 0;
}

/* Digits at s[*i], at least lo and at most hi of them. */
static int
imap_fetch_digits(const char *s, size_t *i, int lo, int hi, int *v)
{
	int	n = 0;

	*v = 0;
	while (n < hi && s[*i] >= '0' && s[*i] <= '9') {
		*v = *v * 10 + (s[*i] - '0');
		(*i)++;
		n++;
	}
	return n >= lo ? 0 : -1;
}

/* "17-Jul-1996 02:44:25 -0700" (the day may be space-padded); 0: not. */
static time_t
imap_fetch_date(const char *s)
{
	static const char	 months[] = "JanFebMarAprMayJunJulAugSepOct"
				     "NovDec";
	struct tm		 tm;
	size_t			 i = 0;
	int			 day, mon, year, hh, mm, ss, zone, off, sign;

	if (s[i] == ' ')
		i++;
	if (imap_fetch_digits(s, &i, 1, 2, &day) == -1 || s[i++] != '-')
		return 0;
	for (mon = 0; mon < 12; mon++)
		if (strncasecmp(s + i, months + 3 * mon, 3) == 0)
			break;
	if (mon == 12)
		return 0;
	i += 3;
	if (s[i++] != '-' || imap_fetch_digits(s, &i, 4, 4, &year) == -1 ||
	    s[i++] != ' ' || imap_fetch_digits(s, &i, 2, 2, &hh) == -1 ||
	    s[i++] != ':' || imap_fetch_digits(s, &i, 2, 2, &mm) == -1 ||
	    s[i++] != ':' || imap_fetch_digits(s, &i, 2, 2, &ss) == -1 ||
	    s[i++] != ' ')
		return 0;
	if (s[i] != '+' && s[i] != '-')
		return 0;
	sign = s[i++] == '-' ? -1 : 1;
	if (imap_fetch_digits(s, &i, 4, 4, &zone) == -1 || s[i] != '\0')
		return 0;
	if (day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60)
		return 0;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = year - 1900;
	tm.tm_mon = mon;
	tm.tm_mday = day;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	off = (zone / 100) * 3600 + (zone % 100) * 60;
	return timegm(&tm) - sign * off;
}

/* What to do with the addresses of a list. */
#define IMAP_FETCH_A_SKIP	0
#define IMAP_FETCH_A_FIRST	1	/* keep the first (From) */
#define IMAP_FETCH_A_RCPT	2	/* add each to F_RCPT */

/* Add the address in F_A* to F_RCPT, whole or not at all. */
static void
imap_fetch_rcpt_add(struct imap_fetch *r)
{
	struct imap_fetch_str	*to = &r->f[IMAP_FETCH_F_RCPT];
	struct imap_fetch_str	*name = &r->f[IMAP_FETCH_F_ANAME];
	struct imap_fetch_str	*mbox = &r->f[IMAP_FETCH_F_AMBOX];
	struct imap_fetch_str	*host = &r->f[IMAP_FETCH_F_AHOST];
	size_t			 need;
	int			 named;

	/* A group's start or end (RFC 3501 7.4.2): no address. */
	if (mbox->nil || host->nil)
		return;
	named = !name->nil && name->len > 0;
	need = (to->nil ? 0 : 2) + mbox->len + 1 + host->len +
	    (named ? name->len + 3 : 0);
	if (to->len + need > to->cap)
		return;
	if (!to->nil) {
		memcpy(to->s + to->len, ", ", 2);
		to->len += 2;
	}
	to->nil = 0;
	if (named) {
		memcpy(to->s + to->len, name->s, name->len);
		to->len += name->len;
		memcpy(to->s + to->len, " <", 2);
		to->len += 2;
	}
	memcpy(to->s + to->len, mbox->s, mbox->len);
	to->len += mbox->len;
	to->s[to->len++] = '@';
	memcpy(to->s + to->len, host->s, host->len);
	to->len += host->len;
	if (named)
		to->s[to->len++] = '>';
	to->s[to->len] = '\0';
}

/* One address, kept as how says. */
static int
imap_fetch_address(struct imap_fetch *r, int how)
{
	struct imap_fetch_str	*f = r->f, *name = NULL, *mbox = NULL;
	struct imap_fetch_str	*host = NULL;

	if (how == IMAP_FETCH_A_FIRST) {
		name = &f[IMAP_FETCH_F_NAME];
		mbox = &f[IMAP_FETCH_F_MAILBOX];
		host = &f[IMAP_FETCH_F_HOST];
	} else if (how == IMAP_FETCH_A_RCPT) {
		name = &f[IMAP_FETCH_F_ANAME];
		mbox = &f[IMAP_FETCH_F_AMBOX];
		host = &f[IMAP_FETCH_F_AHOST];
	}
	if (imap_fetch_expect(r, '(') == -1 ||
	    imap_fetch_nstring(r, name) == -1 ||
	    imap_fetch_sp(r) == -1 ||
	    imap_fetch_nstring(r, NULL) == -1 ||
	    imap_fetch_sp(r) == -1 ||
	    imap_fetch_nstring(r, mbox) == -1 ||
	    imap_fetch_sp(r) == -1 ||
	    imap_fetch_nstring(r, host) == -1 ||
	    imap_fetch_expect(r, ')') == -1)
		return -1;
	if (how == IMAP_FETCH_A_RCPT)
		imap_fetch_rcpt_add(r);
	return 0;
}

/* NIL or a list of addresses. */
static int
imap_fetch_addresses(struct imap_fetch *r, int how)
{
	char	w[8];
	size_t	n;
	int	c, count = 0;

	if ((c = imap_fetch_peek(r)) == -1)
		return -1;
	if (c != '(') {
		if (imap_fetch_atom(r, w, sizeof w, &n) == -1)
			return -1;
		return imap_fetch_is(w, n, "NIL") ? 0 : imap_fetch_bad(r);
	}
	r->pos++;
	for (;;) {
		if ((c = imap_fetch_peek(r)) == -1)
			return -1;
		if (c == ')') {
			r->pos++;
			return 0;
		}
		if (c == ' ') {
			r->pos++;
			continue;
		}
		if (imap_fetch_address(r, how == IMAP_FETCH_A_FIRST &&
		    count > 0 ? IMAP_FETCH_A_SKIP : how) == -1)
			return -1;
		count++;
	}
}

static int
imap_fetch_envelope(struct imap_fetch *r)
{
	struct imap_fetch_str	*f = r->f;
	int			 i;

	f[IMAP_FETCH_F_NAME].nil = f[IMAP_FETCH_F_MAILBOX].nil =
	    f[IMAP_FETCH_F_HOST].nil = 1;
	if (imap_fetch_expect(r, '(') == -1 ||
	    imap_fetch_nstring(r, &f[IMAP_FETCH_F_DATE]) == -1 ||
	    imap_fetch_sp(r) == -1 ||
	    imap_fetch_nstring(r, &f[IMAP_FETCH_F_SUBJECT]) == -1)
		return -1;
	/* From, Sender, Reply-To, To, Cc, Bcc. */
	for (i = 0; i < 6; i++) {
		if (imap_fetch_sp(r) == -1 ||
		    imap_fetch_addresses(r, i == 0 ? IMAP_FETCH_A_FIRST :
		    (i == 3 || i == 4) ? IMAP_FETCH_A_RCPT :
		    IMAP_FETCH_A_SKIP) == -1)
			return -1;
	}
	if (imap_fetch_sp(r) == -1 ||
	    imap_fetch_nstring(r, &f[IMAP_FETCH_F_IRT]) == -1 ||
	    imap_fetch_sp(r) == -1 ||
	    imap_fetch_nstring(r, &f[IMAP_FETCH_F_MID]) == -1)
		return -1;
	/* Some servers add more; read past it. */
	while (imap_fetch_peek(r) == ' ') {
		if (imap_fetch_sp(r) == -1)
			return -1;
		if (imap_fetch_peek(r) == ')')
			break;
		if (imap_fetch_skip_value(r) == -1)
			return -1;
	}
	return imap_fetch_expect(r, ')');
}

/*
 * A section ("[...]") and partial ("<...>") after an item's name; the
 * section's first bytes are kept in r->section.
 */
static int
imap_fetch_section(struct imap_fetch *r)
{
	size_t	n = 0;
	int	c;

	r->section[0] = '\0';
	if (imap_fetch_peek(r) != '[')
		return r->broken ? -1 : 0;
	r->pos++;
	while ((c = imap_fetch_getc(r)) != ']') {
		if (c == -1)
			return -1;
		if (c == '\r' || c == '\n')
			return imap_fetch_bad(r);
		if (n + 1 < sizeof r->section)
			r->section[n++] = (char)c;
	}
	r->section[n] = '\0';
	if (imap_fetch_peek(r) != '<')
		return r->broken ? -1 : 0;
	r->pos++;
	while ((c = imap_fetch_getc(r)) != '>') {
		if (c == -1)
			return -1;
		if ((c < '0' || c > '9') && c != '.')
			return imap_fetch_bad(r);
	}
	return 0;
}

static const char *
imap_fetch_field(struct imap_fetch *r, enum imap_fetch_field i)
{
	return r->f[i].nil ? NULL : r->f[i].s;
}

/* The header fields: References and Content-Type. */

static void
imap_fetch_hdr_put(struct imap_fetch_hdr *h, int c)
{
	if (h->field == IMAP_FETCH_H_REFS)
		h->refs[h->rlen++ % IMAP_FETCH_REFS] = (char)c;
	else if (h->field == IMAP_FETCH_H_CTYPE) {
		if (h->clen < IMAP_FETCH_CTYPE && c != '\0')
			h->ctype[h->clen++] = (char)c;
		else
			h->cmore = 1;
	}
	else if (h->field == IMAP_FETCH_H_FROM) {
		if (h->flen < IMAP_FETCH_FROM && c != '\0')
			h->from[h->flen++] = (char)c;
		else
			h->fcut = 1;
	}
}

/* One byte of the header fields. */
static void
imap_fetch_hdr_byte(struct imap_fetch_hdr *h, int c)
{
	if (c == '\r')
		return;
	switch (h->state) {
	case IMAP_FETCH_H_BOL:
		if (c == ' ' || c == '\t') {		/* folded */
			h->state = IMAP_FETCH_H_VALUE;
			imap_fetch_hdr_put(h, ' ');
			return;
		}
		h->field = IMAP_FETCH_H_OTHER;
		if (c == '\n')
			return;
		h->state = IMAP_FETCH_H_NAME;
		h->nlen = 0;
		/* FALLTHROUGH */
	case IMAP_FETCH_H_NAME:
		if (c == ':') {
			h->name[h->nlen < sizeof h->name ? h->nlen :
			    sizeof h->name - 1] = '\0';
			if (h->nlen == 10 && strcasecmp(h->name,
			    "References") == 0)
				h->field = IMAP_FETCH_H_REFS;
			else if (h->nlen == 12 && strcasecmp(h->name,
			    "Content-Type") == 0) {
				if (!h->cseen)
					h->field = IMAP_FETCH_H_CTYPE;
				else
					h->cmore = 1;
				h->cseen = 1;
			} else if (h->nlen == 9 && strcasecmp(h->name,
			    "Autocrypt") == 0)
				h->autocrypt = 1;
			else if (h->nlen == 4 && strcasecmp(h->name,
			    "From") == 0) {
				h->field = IMAP_FETCH_H_FROM;
				if (h->fseen)
					imap_fetch_hdr_put(h, ',');
				h->fseen = 1;
			}
			h->state = IMAP_FETCH_H_VALUE;
		} else if (c == '\n')
			h->state = IMAP_FETCH_H_BOL;
		else {
			if (h->nlen < sizeof h->name - 1)
				h->name[h->nlen] = (char)c;
			h->nlen++;
		}
		return;
	default:
		if (c == '\n')
			h->state = IMAP_FETCH_H_BOL;
		else
			imap_fetch_hdr_put(h, c);
		return;
	}
}

/* The header fields' value: a literal, streamed; anything else read past. */
static int
imap_fetch_hdr_value(struct imap_fetch *r)
{
	struct imap_fetch_hdr	*h = &r->h;
	uint64_t		 n;
	size_t			 have, i;

	h->seen = 1;
	if (imap_fetch_peek(r) != '{')
		return r->broken ? -1 : imap_fetch_nstring(r, NULL);
	r->pos++;
	if (imap_fetch_literal_size(r, &n) == -1)
		return -1;
	while (n > 0) {
		if (r->pos == r->len && imap_fetch_fill(r) == -1)
			return -1;
		have = r->len - r->pos;
		if (have > n)
			have = (size_t)n;
		for (i = 0; i < have; i++)
			imap_fetch_hdr_byte(h, (unsigned char)r->buf[r->pos + i]);
		r->pos += have;
		n -= have;
	}
	return 0;
}

/*
 * The message-ids of v into f: the last ones that fit, in their order,
 * one space between them. Anything not "<...>" is left out.
 */
static void
imap_fetch_refs(const char *v, struct imap_fetch_str *f)
{
	size_t	vlen = strlen(v), end = vlen, start, first = vlen;
	size_t	total = 0, len, i;

	/* Backwards: how far back the ids that fit begin. */
	while (end > 0) {
		while (end > 0 && v[end - 1] != '>')
			end--;
		if (end == 0)
			break;
		start = end - 1;
		while (start > 0 && v[start - 1] != '<' && v[start - 1] != '>')
			start--;
		if (start == 0 || v[start - 1] != '<') {
			end = start;
			continue;
		}
		start--;
		len = end - start;
		if (total + len + (total > 0) > f->cap)
			break;
		total += len + (total > 0);
		first = start;
		end = start;
	}
	f->len = 0;
	for (i = first; i < vlen && total > 0; i++) {
		if (v[i] != '<')
			continue;
		start = i;
		while (i < vlen && v[i] != '>' && (i == start || v[i] != '<'))
			i++;
		if (i == vlen || v[i] != '>') {
			i--;
			continue;
		}
		len = i + 1 - start;
		if (f->len + len + (f->len > 0) > f->cap)
			break;
		if (f->len > 0)
			f->s[f->len++] = ' ';
		memcpy(f->s + f->len, v + start, len);
		f->len += len;
	}
	f->s[f->len] = '\0';
	f->nil = f->len == 0;
}

/* References and the Content-Type's hints from the header fields. */
static void
imap_fetch_headers(struct imap_fetch *r)
{
	struct imap_fetch_hdr	*h = &r->h;
	char			 v[IMAP_FETCH_REFS + 1];
	size_t			 at;

	r->msg.hints = CACHE_HINT_NOFIELDS;
	r->msg.from_field = NULL;
	r->msg.from_cut = 0;
	r->f[IMAP_FETCH_F_REFS].nil = 1;
	if (!h->seen)
		return;
	if (h->fseen) {
		h->from[h->flen] = '\0';
		r->msg.from_field = h->from;
		r->msg.from_cut = h->fcut;
	}
	if (h->rlen <= IMAP_FETCH_REFS) {
		memcpy(v, h->refs, h->rlen);
		v[h->rlen] = '\0';
	} else {
		/* The ring, oldest byte first; a cut id is left out. */
		at = h->rlen % IMAP_FETCH_REFS;
		memcpy(v, h->refs + at, IMAP_FETCH_REFS - at);
		memcpy(v + IMAP_FETCH_REFS - at, h->refs, at);
		v[IMAP_FETCH_REFS] = '\0';
	}
	/* A NUL from the server ends the value here; that is all. */
	imap_fetch_refs(v, &r->f[IMAP_FETCH_F_REFS]);
	h->ctype[h->clen] = '\0';
	r->msg.hints = imap_fetch_parse_ctype(h->ctype);
	/* what the trust step's SEARCH would find, or more (sync-trust.h) */
	if (h->autocrypt || h->cmore || imap_fetch_ctype_evidence(h->ctype))
		r->msg.hints |= CACHE_HINT_EVIDENCE;
}

/* Does the parameter name of Content-Type value v contain what? */
static int
imap_fetch_param_has(const char *v, const char *name, const char *what)
{
	const char	*p = v, *q;
	size_t		 n = strlen(name), w = strlen(what);

	while ((p = strchr(p, ';')) != NULL) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncasecmp(p, name, n) != 0 || p[n] != '=')
			continue;
		for (q = p + n + 1; *q != '\0' && *q != ';'; q++)
			if (strncasecmp(q, what, w) == 0)
				return 1;
	}
	return 0;
}

const char *const imap_fetch_evidence_types[IMAP_FETCH_EVIDENCE_TYPES] = {
	"multipart/signed",
	"multipart/encrypted",
	"application/pkcs7-mime",
	"application/x-pkcs7-mime",
};

int
imap_fetch_ctype_evidence(const char *v)
{
	size_t	i;

	for (i = 0; i < IMAP_FETCH_EVIDENCE_TYPES; i++)
		if (strcasestr(v, imap_fetch_evidence_types[i]) != NULL)
			return 1;
	return 0;
}

unsigned
imap_fetch_parse_ctype(const char *v)
{
	while (*v == ' ' || *v == '\t')
		v++;
	if (strncasecmp(v, "multipart/mixed", 15) == 0)
		return CACHE_HINT_ATTACH;
	if (strncasecmp(v, "multipart/signed", 16) == 0)
		return CACHE_HINT_SIGNED | (imap_fetch_param_has(v, "protocol",
		    "pkcs7") ? CACHE_HINT_SMIME : 0);
	if (strncasecmp(v, "multipart/encrypted", 19) == 0)
		return CACHE_HINT_ENCRYPTED;
	if (strncasecmp(v, "application/pkcs7-mime", 22) == 0 ||
	    strncasecmp(v, "application/x-pkcs7-mime", 24) == 0)
		return CACHE_HINT_SMIME | (imap_fetch_param_has(v,
		    "smime-type", "signed-data") ? CACHE_HINT_SIGNED :
		    CACHE_HINT_ENCRYPTED);
	return 0;
}

/* The Date header (RFC 5322 3.3, with the obsolete forms). */

static const char *
imap_fetch_cfws(const char *s)
{
	int	depth;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (*s != '(')
			return s;
		for (depth = 0; *s != '\0'; s++) {
			if (*s == '\\' && s[1] != '\0')
				s++;
			else if (*s == '(')
				depth++;
			else if (*s == ')' && --depth == 0) {
				s++;
				break;
			}
		}
	}
}

static int
imap_fetch_dnum(const char **s, int lo, int hi, int *v)
{
	size_t	i = 0;
	int	rc;

	rc = imap_fetch_digits(*s, &i, lo, hi, v);
	*s += i;
	return rc;
}

time_t
imap_fetch_parse_date(const char *s)
{
	static const char	 months[] = "janfebmaraprmayjunjulaugsepoct"
				     "novdec";
	static const struct {
		const char	*name;
		int		 off;	/* hours */
	}			 zones[] = {
		{ "UT", 0 }, { "GMT", 0 }, { "Z", 0 },
		{ "EST", -5 }, { "EDT", -4 }, { "CST", -6 }, { "CDT", -5 },
		{ "MST", -7 }, { "MDT", -6 }, { "PST", -8 }, { "PDT", -7 },
	};
	struct tm		 tm;
	const char		*p;
	size_t			 i;
	int			 day, mon, year, hh, mm, ss = 0, zone = 0, sign;

	s = imap_fetch_cfws(s);
	if ((p = strchr(s, ',')) != NULL && p - s <= 12)
		s = imap_fetch_cfws(p + 1);
	if (imap_fetch_dnum(&s, 1, 2, &day) == -1)
		return 0;
	s = imap_fetch_cfws(s);
	for (mon = 0; mon < 12; mon++)
		if (strncasecmp(s, months + 3 * mon, 3) == 0)
			break;
	if (mon == 12)
		return 0;
	s = imap_fetch_cfws(s + 3);
	if (imap_fetch_dnum(&s, 2, 4, &year) == -1)
		return 0;
	if (year < 50)
		year += 2000;
	else if (year < 1000)
		year += 1900;
	s = imap_fetch_cfws(s);
	if (imap_fetch_dnum(&s, 1, 2, &hh) == -1 || *s++ != ':' ||
	    imap_fetch_dnum(&s, 2, 2, &mm) == -1)
		return 0;
	if (*s == ':' && (s++, imap_fetch_dnum(&s, 2, 2, &ss)) == -1)
		return 0;
	s = imap_fetch_cfws(s);
	if (*s == '+' || *s == '-') {
		sign = *s++ == '-' ? -1 : 1;
		if (imap_fetch_dnum(&s, 4, 4, &zone) == -1)
			return 0;
		zone = sign * ((zone / 100) * 3600 + (zone % 100) * 60);
	} else {
		for (i = 0; i < sizeof zones / sizeof zones[0]; i++) {
			if (strncasecmp(s, zones[i].name,
			    strlen(zones[i].name)) == 0) {
				zone = zones[i].off * 3600;
				break;
			}
		}
	}
	if (day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 ||
	    year < 1970 || year > 9999)
		return 0;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = year - 1900;
	tm.tm_mon = mon;
	tm.tm_mday = day;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	return timegm(&tm) - zone;
}

/* "(" item SP value *(SP item SP value) ")", into r->msg. */
static int
imap_fetch_msg_att(struct imap_fetch *r)
{
	struct imap_fetch_msg	*m = &r->msg;
	char			 w[IMAP_FETCH_WORD];
	size_t			 n;
	int			 c, i, rc, plain;

	m->uid = m->size = 0;
	m->internaldate = 0;
	m->has_flags = m->has_envelope = 0;
	m->flags[0] = '\0';
	for (i = 0; i < IMAP_FETCH_F_COUNT; i++) {
		r->f[i].nil = 1;
		r->f[i].len = 0;
		r->f[i].s[0] = '\0';
	}
	r->h.state = IMAP_FETCH_H_BOL;
	r->h.field = IMAP_FETCH_H_OTHER;
	r->h.seen = 0;
	r->h.rlen = r->h.clen = r->h.flen = 0;
	r->h.fseen = r->h.fcut = 0;
	r->h.cseen = r->h.cmore = r->h.autocrypt = 0;
	if (imap_fetch_expect(r, '(') == -1)
		return -1;
	for (;;) {
		if ((c = imap_fetch_peek(r)) == -1)
			return -1;
		if (c == ')') {
			r->pos++;
			break;
		}
		if (imap_fetch_atom(r, w, sizeof w, &n) == -1)
			return -1;
		if (n == 0)
			return imap_fetch_bad(r);
		plain = imap_fetch_peek(r) != '[';
		if (imap_fetch_section(r) == -1 || imap_fetch_sp(r) == -1)
			return -1;
		if (plain && imap_fetch_is(w, n, "UID"))
			rc = imap_fetch_u32(r, &m->uid);
		else if (plain && imap_fetch_is(w, n, "RFC822.SIZE"))
			rc = imap_fetch_u32(r, &m->size);
		else if (plain && imap_fetch_is(w, n, "FLAGS")) {
			rc = imap_fetch_flags(r, m->flags);
			m->has_flags = 1;
		} else if (plain && imap_fetch_is(w, n, "INTERNALDATE")) {
			rc = imap_fetch_nstring(r, &r->f[IMAP_FETCH_F_IDATE]);
			if (rc == 0 && !r->f[IMAP_FETCH_F_IDATE].nil)
				m->internaldate = imap_fetch_date(
				    r->f[IMAP_FETCH_F_IDATE].s);
		} else if (plain && imap_fetch_is(w, n, "ENVELOPE")) {
			rc = imap_fetch_envelope(r);
			m->has_envelope = 1;
		} else if (!plain && imap_fetch_is(w, n, "BODY") &&
		    strncasecmp(r->section, "HEADER.FIELDS", 13) == 0)
			rc = imap_fetch_hdr_value(r);
		else
			rc = imap_fetch_skip_value(r);
		if (rc == -1)
			return -1;
		if ((c = imap_fetch_peek(r)) == ' ')
			r->pos++;
		else if (c != ')')
			return c == -1 ? -1 : imap_fetch_bad(r);
	}
	m->date = imap_fetch_field(r, IMAP_FETCH_F_DATE);
	m->subject = imap_fetch_field(r, IMAP_FETCH_F_SUBJECT);
	m->from_name = imap_fetch_field(r, IMAP_FETCH_F_NAME);
	m->from_mailbox = imap_fetch_field(r, IMAP_FETCH_F_MAILBOX);
	m->from_host = imap_fetch_field(r, IMAP_FETCH_F_HOST);
	m->message_id = imap_fetch_field(r, IMAP_FETCH_F_MID);
	m->rcpt = imap_fetch_field(r, IMAP_FETCH_F_RCPT);
	m->in_reply_to = imap_fetch_field(r, IMAP_FETCH_F_IRT);
	m->sent = m->date != NULL ? imap_fetch_parse_date(m->date) : 0;
	imap_fetch_headers(r);
	m->references = imap_fetch_field(r, IMAP_FETCH_F_REFS);
	return 0;
}

/* Responses. */

#define IMAP_FETCH_LINE_OTHER	0	/* skipped, or counted */
#define IMAP_FETCH_LINE_MSG	1	/* a FETCH, in r->msg */
#define IMAP_FETCH_LINE_DONE	2	/* tag's reply: OK */
#define IMAP_FETCH_LINE_NO	3	/* tag's reply: NO or BAD */

/*
 * The numbers of "* SEARCH 2 5 9", handed to r->num one at a time as
 * they are read: the line is never held, however many there are. What
 * follows the numbers ("(MODSEQ n)" of RFC 7162) is read past.
 */
static int
imap_fetch_search(struct imap_fetch *r)
{
	uint32_t	num;
	int		c;

	for (;;) {
		if ((c = imap_fetch_peek(r)) == -1)
			return -1;
		if (c == '\r' || c == '\n')
			break;
		if (imap_fetch_expect(r, ' ') == -1)
			return -1;
		if ((c = imap_fetch_peek(r)) == -1)
			return -1;
		if (c < '0' || c > '9')
			break;
		if (imap_fetch_u32(r, &num) == -1)
			return -1;
		if (num == 0)
			return imap_fetch_bad(r);
		if (r->num_failed == NULL &&
		    r->num(num, r->num_arg, &r->num_failed) == -1 &&
		    r->num_failed == NULL)
			r->num_failed = xstrdup("storing a number failed");
	}
	return imap_fetch_skip_line(r) == -1 ? -1 : IMAP_FETCH_LINE_OTHER;
}

/* "* ..." after the star and space. */
static int
imap_fetch_untagged(struct imap_fetch *r)
{
	char		w[IMAP_FETCH_WORD];
	struct buf	b;
	size_t		n;
	uint32_t	num;
	int		c;

	if ((c = imap_fetch_peek(r)) == -1)
		return -1;
	if (c >= '0' && c <= '9') {
		if (imap_fetch_u32(r, &num) == -1 || imap_fetch_sp(r) == -1 ||
		    imap_fetch_atom(r, w, sizeof w, &n) == -1)
			return -1;
		if (imap_fetch_is(w, n, "FETCH")) {
			r->msg.seq = num;
			if (imap_fetch_sp(r) == -1 ||
			    imap_fetch_msg_att(r) == -1 ||
			    imap_fetch_crlf(r) == -1)
				return -1;
			return IMAP_FETCH_LINE_MSG;
		}
		if (r->exists != NULL && imap_fetch_is(w, n, "EXISTS"))
			*r->exists = num;
		else if (r->exists != NULL && *r->exists > 0 &&
		    imap_fetch_is(w, n, "EXPUNGE"))
			(*r->exists)--;
		return imap_fetch_skip_line(r) == -1 ? -1 :
		    IMAP_FETCH_LINE_OTHER;
	}
	if (imap_fetch_atom(r, w, sizeof w, &n) == -1)
		return -1;
	if (r->num != NULL && imap_fetch_is(w, n, "SEARCH"))
		return imap_fetch_search(r);
	if (imap_fetch_is(w, n, "BYE")) {
		if (imap_fetch_text(r) == -1)
			return -1;
		buf_init(&b);
		buf_adds(&b, "the IMAP server closed the connection:");
		strsafe_add(&b, r->text, strlen(r->text), 0);
		imap_fetch_fail(r, b.data);
		buf_free(&b);
		return -1;
	}
	if (imap_fetch_is(w, n, "OK") || imap_fetch_is(w, n, "NO") ||
	    imap_fetch_is(w, n, "BAD") || imap_fetch_is(w, n, "PREAUTH"))
		return imap_fetch_text(r) == -1 ? -1 : IMAP_FETCH_LINE_OTHER;
	return imap_fetch_skip_line(r) == -1 ? -1 : IMAP_FETCH_LINE_OTHER;
}

/* One response, literals and all. */
static int
imap_fetch_line(struct imap_fetch *r, const char *tag)
{
	char	w[IMAP_FETCH_WORD];
	size_t	n;
	int	c;

	if ((c = imap_fetch_peek(r)) == -1)
		return -1;
	if (c == '*') {
		r->pos++;
		if (imap_fetch_sp(r) == -1)
			return -1;
		return imap_fetch_untagged(r);
	}
	/* A tagged reply; only tag's may come. */
	if (imap_fetch_atom(r, w, sizeof w, &n) == -1)
		return -1;
	if (n != strlen(tag) || strcmp(w, tag) != 0 ||
	    imap_fetch_expect(r, ' ') == -1 ||
	    imap_fetch_atom(r, w, sizeof w, &n) == -1)
		return imap_fetch_bad(r);
	if (imap_fetch_is(w, n, "OK"))
		c = IMAP_FETCH_LINE_DONE;
	else if (imap_fetch_is(w, n, "NO") || imap_fetch_is(w, n, "BAD"))
		c = IMAP_FETCH_LINE_NO;
	else
		return imap_fetch_bad(r);
	if (imap_fetch_peek(r) == ' ')
		r->pos++;
	if (imap_fetch_text(r) == -1)
		return -1;
	/* in the protocol log, as libetpan's own replies are */
	log_msg(LOG_PROTO, "IMAP S: %s %s %.200s", tag,
	    c == IMAP_FETCH_LINE_DONE ? "OK" : "NO/BAD", r->text);
	return c;
}

/* The answer to tag; what says the command that failed ("UID FETCH"). */
static int
imap_fetch_answer(struct imap_fetch *r, const char *tag, const char *what,
    imap_fetch_msg_fn fn, void *arg, char **cause)
{
	struct buf	 b;
	char		*failed = NULL;
	int		 rc;

	for (;;) {
		if (r->broken) {
			free(failed);
			*cause = xstrdup(r->why);
			return IMAP_FETCH_BROKEN;
		}
		rc = imap_fetch_line(r, tag);
		if (rc == -1 && !r->broken)
			imap_fetch_bad(r);
		if (rc == IMAP_FETCH_LINE_MSG && r->msg.uid != 0 &&
		    fn != NULL && failed == NULL) {
			if (fn(&r->msg, arg, &failed) == -1 && failed == NULL)
				failed = xstrdup("storing a message failed");
		}
		if (rc == IMAP_FETCH_LINE_DONE || rc == IMAP_FETCH_LINE_NO)
			break;
	}
	if (failed != NULL) {
		*cause = failed;
		return IMAP_FETCH_LOCAL;
	}
	if (rc == IMAP_FETCH_LINE_DONE)
		return IMAP_FETCH_OK;
	buf_init(&b);
	buf_addf(&b, "%s failed: ", what);
	strsafe_add(&b, r->text, strlen(r->text), 0);
	*cause = buf_take(&b);
	return IMAP_FETCH_REFUSED;
}

int
imap_fetch_response(struct imap_fetch *r, const char *tag,
    imap_fetch_msg_fn fn, void *arg, char **cause)
{
	return imap_fetch_answer(r, tag, "UID FETCH", fn, arg, cause);
}

int
imap_fetch_search_response(struct imap_fetch *r, const char *tag,
    imap_fetch_num_fn fn, void *arg, char **cause)
{
	int	rc;

	r->num = fn;
	r->num_arg = arg;
	r->num_failed = NULL;
	rc = imap_fetch_answer(r, tag, "UID SEARCH", NULL, NULL, cause);
	r->num = NULL;
	if (r->num_failed != NULL) {
		if (rc == IMAP_FETCH_BROKEN) {
			free(r->num_failed);
			r->num_failed = NULL;
			return rc;
		}
		if (rc == IMAP_FETCH_REFUSED)
			free(*cause);
		*cause = r->num_failed;
		r->num_failed = NULL;
		return IMAP_FETCH_LOCAL;
	}
	return rc;
}

/* The reader. */

struct imap_fetch *
imap_fetch_new(imap_fetch_read_fn fn, void *arg)
{
	struct imap_fetch	*r;
	int			 i;

	r = xmalloc(sizeof *r);
	memset(r, 0, offsetof(struct imap_fetch, f));
	for (i = 0; i < IMAP_FETCH_F_COUNT; i++) {
		r->f[i].len = 0;
		r->f[i].nil = 1;
		r->f[i].s = r->store[i];
		r->f[i].cap = IMAP_FETCH_FIELD_MAX;
		r->f[i].s[0] = '\0';
	}
	r->read = fn;
	r->arg = arg;
	r->bol = 1;	/* libetpan reads whole lines */
	return r;
}

/*
 * Bytes from libetpan's buffer, never beyond what it holds (more would
 * wait for the network), and never into a line that does not start with
 * "*": that could be the tagged reply, after which the bytes are
 * libetpan's again.
 */
static ssize_t
imap_fetch_stream_read(void *arg, char *dst, size_t max, int bol)
{
	mailstream	*s = arg;
	const char	*b, *nl;
	size_t		 n, i = 0;
	ssize_t		 got;

	if ((got = mailstream_feed_read_buffer(s)) <= 0)
		return got;
	b = s->read_buffer;
	n = s->read_buffer_len < max ? s->read_buffer_len : max;
	if (bol && b[0] != '*') {
		if ((nl = memchr(b, '\n', n)) != NULL)
			n = (size_t)(nl - b) + 1;
	} else {
		while (i < n && (nl = memchr(b + i, '\n', n - i)) != NULL) {
			i = (size_t)(nl - b) + 1;
			if (i < n && b[i] != '*') {
				n = i;
				break;
			}
		}
	}
	return mailstream_read(s, dst, n);
}

struct imap_fetch *
imap_fetch_new_stream(mailstream *s)
{
	return imap_fetch_new(imap_fetch_stream_read, s);
}

void
imap_fetch_free(struct imap_fetch *r)
{
	if (r == NULL)
		return;
	free(r->num_failed);
	free(r->why);
	free(r);
}

void
imap_fetch_track_exists(struct imap_fetch *r, uint32_t *exists)
{
	r->exists = exists;
}

/* Write cmd (a whole command line) and flush it; its answer is streamed. */
static int
imap_fetch_write(mailstream *s, const char *cmd, const char *what,
    char **cause)
{
	size_t	len = strlen(cmd);

	/* logged as imap-pre.c logs libetpan's commands (no credentials) */
	log_msg(LOG_PROTO, "IMAP C: %.*s", (int)(len > 2 ? len - 2 : 0), cmd);
	if (mailstream_write(s, cmd, len) != (ssize_t)len ||
	    mailstream_flush(s) != 0) {
		if ((*cause = imap_frame_cause(s, what)) == NULL)
			*cause = xstrdup(IMAP_FETCH_LOST);
		return -1;
	}
	/* its answer is read here, a window at a time, not by lines */
	imap_frame_streamed(s);
	return 0;
}

int
imap_fetch_send_search(mailstream *s, const char *tag, uint32_t first,
    uint32_t last, char **cause)
{
	char	*cmd;
	int	 rc;

	if (last == 0)
		cmd = xasprintf("%s UID SEARCH UID %u:*\r\n", tag, first);
	else
		cmd = xasprintf("%s UID SEARCH UID %u:%u\r\n", tag, first,
		    last);
	rc = imap_fetch_write(s, cmd, "UID SEARCH", cause);
	free(cmd);
	return rc;
}

int
imap_fetch_send(mailstream *s, const char *tag, const char *set,
    int envelope, char **cause)
{
	return imap_fetch_send_by(s, tag, set, envelope, 1, cause);
}

int
imap_fetch_send_by(mailstream *s, const char *tag, const char *set,
    int envelope, int by_uid, char **cause)
{
	char	*cmd;
	int	 rc;

	/*
	 * Autocrypt is asked for though nothing here reads it: the server
	 * reads it with the other fields (a message file opened once), and
	 * the trust step's SEARCH for it (sync-trust.c) is answered from
	 * what the server keeps of fields asked for, instead of opening
	 * every message again (88 s of Dovecot's time for 1,000,000 Maildir
	 * messages, against 1.2 s; doc/bench.md).
	 */
	cmd = xasprintf("%s %sFETCH %s (UID FLAGS%s)\r\n", tag,
	    by_uid ? "UID " : "", set,
	    envelope ? " INTERNALDATE RFC822.SIZE ENVELOPE BODY.PEEK["
	    "HEADER.FIELDS (REFERENCES CONTENT-TYPE FROM AUTOCRYPT)]" : "");
	rc = imap_fetch_write(s, cmd, "UID FETCH", cause);
	free(cmd);
	return rc;
}
