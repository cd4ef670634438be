/*
 * imap-bodystructure.c: a message's BODYSTRUCTURE, read and walked with
 * bounded code (imap-bodystructure.h).
 *
 * libetpan's mailimap_body_parse() recurses once per nested multipart or
 * message/rfc822 part, and its body-extension parser once per nested
 * list, with no limit; what a server says here is derived from a message
 * anyone can send. So the command goes out with a tag of our own (as
 * imap-sync.c does), its answer is read line by line from libetpan's
 * stream (literals by their count), kept up to
 * IMAP_BODYSTRUCTURE_MAX_SIZE bytes, and split into a tree of lists,
 * atoms and strings without recursion, at most
 * IMAP_BODYSTRUCTURE_MAX_DEPTH lists deep. Reading stops at the tagged
 * reply and never takes a byte past it, so libetpan's own calls go on
 * from there. The walk down the tree to a part is a loop.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "imap-bodystructure.h"
#include "imap-frame.h"
#include "xmalloc.h"

enum imap_bs_type {
	IMAP_BS_LIST,
	IMAP_BS_ATOM,		/* NIL, numbers, names */
	IMAP_BS_STRING		/* quoted (still escaped) or literal */
};

/* A node; child and next are indices into the tree, 0 for none. */
struct imap_bs_node {
	enum imap_bs_type	 type;
	const char		*s;
	size_t			 len;
	size_t			 child;
	size_t			 next;
};

struct imap_bs_tree {
	struct imap_bs_node	*n;	/* n[0]: the list of everything */
	size_t			 count;
	size_t			 cap;
};

static size_t
imap_bs_add(struct imap_bs_tree *t, enum imap_bs_type type, const char *s,
    size_t len)
{
	if (t->count == t->cap) {
		t->cap = t->cap == 0 ? 256 : t->cap * 2;
		t->n = xreallocarray(t->n, t->cap, sizeof *t->n);
	}
	memset(&t->n[t->count], 0, sizeof *t->n);
	t->n[t->count].type = type;
	t->n[t->count].s = s;
	t->n[t->count].len = len;
	return t->count++;
}

/* The length of an atom at s: up to a space, paren, quote or line end. */
static size_t
imap_bs_atom(const char *s, size_t len)
{
	size_t	i;
	int	bracket = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '[')
			bracket = 1;	/* BODY[HEADER.FIELDS (A B)] */
		else if (s[i] == ']')
			bracket = 0;
		else if (!bracket && strchr(" ()\"{\r\n", s[i]) != NULL)
			break;
		else if (s[i] == '\r' || s[i] == '\n')
			break;
	}
	return i;
}

/*
 * Split text into the tree: one pass, no recursion, lists at most
 * IMAP_BODYSTRUCTURE_MAX_DEPTH deep. -1 and *cause if it cannot be read.
 */
static int
imap_bs_split(struct imap_bs_tree *t, const char *s, size_t len,
    char **cause)
{
	size_t	 open[IMAP_BODYSTRUCTURE_MAX_DEPTH + 1];
	size_t	 last[IMAP_BODYSTRUCTURE_MAX_DEPTH + 1];
	size_t	 i = 0, j, n, node, depth = 0;
	char	*end;

	memset(t, 0, sizeof *t);
	open[0] = imap_bs_add(t, IMAP_BS_LIST, s, len);
	last[0] = 0;
	while (i < len) {
		if (strchr(" \r\n", s[i]) != NULL && s[i] != '\0') {
			i++;
			continue;
		}
		if (s[i] == ')') {
			if (depth == 0)
				goto bad;
			depth--;
			i++;
			continue;
		}
		if (s[i] == '(') {
			if (depth == IMAP_BODYSTRUCTURE_MAX_DEPTH) {
				*cause = xasprintf("the server's BODYSTRUCTURE "
				    "is nested more than %d levels deep",
				    IMAP_BODYSTRUCTURE_MAX_DEPTH);
				return -1;
			}
			node = imap_bs_add(t, IMAP_BS_LIST, s + i, 0);
			i++;
		} else if (s[i] == '"') {
			for (j = i + 1; j < len && s[j] != '"'; j++) {
				if (s[j] == '\\')
					j++;
			}
			if (j >= len)
				goto bad;
			node = imap_bs_add(t, IMAP_BS_STRING, s + i + 1,
			    j - i - 1);
			i = j + 1;
		} else if (s[i] == '{') {
			n = strtoul(s + i + 1, &end, 10);
			if (end == s + i + 1 || (size_t)(end - s) + 3 > len ||
			    memcmp(end, "}\r\n", 3) != 0)
				goto bad;
			i = (end - s) + 3;
			if (n > len - i)
				goto bad;
			node = imap_bs_add(t, IMAP_BS_STRING, s + i, n);
			i += n;
		} else {
			n = imap_bs_atom(s + i, len - i);
			if (n == 0)
				goto bad;
			node = imap_bs_add(t, IMAP_BS_ATOM, s + i, n);
			i += n;
		}
		if (last[depth] == 0)
			t->n[open[depth]].child = node;
		else
			t->n[last[depth]].next = node;
		last[depth] = node;
		if (t->n[node].type == IMAP_BS_LIST) {
			depth++;
			open[depth] = node;
			last[depth] = 0;
		}
	}
	if (depth == 0)
		return 0;
bad:
	*cause = xstrdup("the server sent a malformed BODYSTRUCTURE");
	return -1;
}

static int
imap_bs_is(const struct imap_bs_tree *t, size_t i, const char *word)
{
	return i != 0 && t->n[i].type != IMAP_BS_LIST &&
	    t->n[i].len == strlen(word) &&
	    strncasecmp(t->n[i].s, word, t->n[i].len) == 0;
}

static int
imap_bs_list(const struct imap_bs_tree *t, size_t i)
{
	return i != 0 && t->n[i].type == IMAP_BS_LIST;
}

/* The n-th (from 1) part of a multipart body, or 0. */
static size_t
imap_bs_child(const struct imap_bs_tree *t, size_t body, unsigned long n)
{
	size_t	c;

	for (c = t->n[body].child; imap_bs_list(t, c); c = t->n[c].next) {
		if (--n == 0)
			return c;
	}
	return 0;
}

/* Is the body a multipart (its first element a body itself)? */
static int
imap_bs_multi(const struct imap_bs_tree *t, size_t body)
{
	return imap_bs_list(t, t->n[body].child);
}

/*
 * The body inside a message/rfc822 (or global) part, or 0: type,
 * subtype, parameters, id, description, encoding, size, envelope, body
 * (RFC 3501 body-type-msg).
 */
static size_t
imap_bs_inner(const struct imap_bs_tree *t, size_t body)
{
	size_t	c = t->n[body].child;
	int	i;

	if (!imap_bs_is(t, c, "MESSAGE") ||
	    (!imap_bs_is(t, t->n[c].next, "RFC822") &&
	    !imap_bs_is(t, t->n[c].next, "GLOBAL")))
		return 0;
	for (i = 0; i < 8 && c != 0; i++)
		c = t->n[c].next;
	return imap_bs_list(t, c) ? c : 0;
}

/*
 * Down from the top body to the part: a number picks a part of a
 * multipart; in a message/rfc822 part (not the top), the parts of the
 * message inside it, whose body is its part 1 when it is not multipart;
 * "1" of a message that is not multipart is its body.
 */
static int
imap_bs_has(const struct imap_bs_tree *t, size_t top, const char *part)
{
	size_t		 cur = top, inner;
	const char	*p = part;
	char		*end;
	unsigned long	 id;
	int		 first = 1;

	while (cur != 0) {
		id = strtoul(p, &end, 10);
		if (end == p || id == 0)
			return 0;
		if (imap_bs_multi(t, cur))
			cur = imap_bs_child(t, cur, id);
		else if (!first && (inner = imap_bs_inner(t, cur)) != 0) {
			if (imap_bs_multi(t, inner))
				cur = imap_bs_child(t, inner, id);
			else
				cur = id == 1 ? inner : 0;
		} else if (!first || id != 1)
			cur = 0;
		if (*end == '\0')
			return cur != 0;
		if (*end != '.')
			return 0;
		p = end + 1;
		first = 0;
	}
	return 0;
}

int
imap_bodystructure_find(const char *text, size_t len, uint32_t uid,
    const char *part, char **cause)
{
	struct imap_bs_tree	 t;
	size_t			 c, a, body;
	int			 rc = -1, mine = 0;

	if (imap_bs_split(&t, text, len, cause) == -1)
		goto out;
	/*
	 * "* n FETCH (... UID uid ... BODYSTRUCTURE (...) ...)"; none at all
	 * when there is no such message (RFC 3501 6.4.8).
	 */
	for (c = t.n[0].child; c != 0; c = t.n[c].next) {
		if (!imap_bs_is(&t, c, "FETCH") || !imap_bs_list(&t,
		    t.n[c].next))
			continue;
		body = 0;
		for (a = t.n[t.n[c].next].child; a != 0 && t.n[a].next != 0;
		    a = t.n[t.n[a].next].next) {
			if (imap_bs_is(&t, a, "BODYSTRUCTURE") &&
			    imap_bs_list(&t, t.n[a].next))
				body = t.n[a].next;
			else if (imap_bs_is(&t, a, "UID") &&
			    t.n[t.n[a].next].type == IMAP_BS_ATOM) {
				if (strtoul(t.n[t.n[a].next].s, NULL, 10) !=
				    uid)
					break;	/* another message's */
				mine = 1;
			}
		}
		if (body != 0 && (a == 0 || t.n[a].next == 0)) {
			rc = imap_bs_has(&t, body, part);
			goto out;
		}
	}
	if (mine)
		*cause = xstrdup("the server sent no BODYSTRUCTURE");
	else
		*cause = xasprintf("no message with UID %u in this mailbox",
		    uid);
out:
	free(t.n);
	return rc;
}

/* Why s failed: the guard's reason (imap-frame.h), or lost. */
static char *
imap_bs_lost(mailstream *s)
{
	char	*cause;

	if ((cause = imap_frame_cause(s, "UID FETCH BODYSTRUCTURE")) != NULL)
		return cause;
	return xstrdup("the connection was lost");
}

/*
 * The untagged responses to the command tagged tag, literals inline, into
 * out (at most IMAP_BODYSTRUCTURE_MAX_SIZE bytes; the rest is read and
 * dropped). 0 on OK, -1 and *cause otherwise.
 */
static int
imap_bs_read(mailstream *s, const char *tag, struct buf *out, char **cause)
{
	MMAPString	*line;
	char		 chunk[4096], *brace, *end;
	size_t		 taglen = strlen(tag), n, want;
	ssize_t		 got;
	int		 cont = 0, rc = -1, big = 0;

	if ((line = mmap_string_new("")) == NULL)
		fatal("out of memory");
	for (;;) {
		mmap_string_truncate(line, 0);
		/* at the end of the stream libetpan hands out an empty line,
		 * not NULL, again and again: that is the end too */
		if (mailstream_read_line(s, line) == NULL || line->len == 0) {
			*cause = imap_bs_lost(s);
			break;
		}
		if (!cont && line->len > taglen && memcmp(line->str, tag,
		    taglen) == 0 && line->str[taglen] == ' ') {
			if (line->len >= taglen + 3 &&
			    strncasecmp(line->str + taglen + 1, "OK", 2) == 0)
				rc = 0;
			else
				*cause = xasprintf("UID FETCH BODYSTRUCTURE "
				    "failed: %.200s", line->str + taglen + 1);
			break;
		}
		if (out->len + line->len > IMAP_BODYSTRUCTURE_MAX_SIZE)
			big = 1;
		if (!big)
			buf_add(out, line->str, line->len);
		/* A line that ends in "{n}" is followed by n bytes. */
		cont = 0;
		if (line->len >= 4 && memcmp(line->str + line->len - 3, "}\r\n",
		    3) == 0 && (brace = strrchr(line->str, '{')) != NULL) {
			n = strtoul(brace + 1, &end, 10);
			if (end == brace + 1 || *end != '}')
				continue;
			cont = 1;
			for (; n > 0; n -= (size_t)got) {
				want = n < sizeof chunk ? n : sizeof chunk;
				if ((got = mailstream_read(s, chunk, want)) <= 0)
					break;
				if (out->len + got > IMAP_BODYSTRUCTURE_MAX_SIZE)
					big = 1;
				if (!big)
					buf_add(out, chunk, got);
			}
			if (n > 0) {
				*cause = imap_bs_lost(s);
				break;
			}
		}
	}
	mmap_string_free(line);
	if (rc == 0 && big) {
		*cause = xasprintf("the server's BODYSTRUCTURE is larger than "
		    "%d MB", IMAP_BODYSTRUCTURE_MAX_SIZE / (1024 * 1024));
		rc = -1;
	}
	return rc;
}

int
imap_bodystructure_has_part(mailimap *imap, uint32_t uid, const char *part,
    char **cause)
{
	struct buf	 out;
	char		*cmd;
	size_t		 len;
	int		 rc = -1;

	if (imap->imap_stream == NULL) {
		*cause = xstrdup("not connected");
		return -1;
	}
	cmd = xasprintf("B1 UID FETCH %u (BODYSTRUCTURE)\r\n", uid);
	len = strlen(cmd);
	if (mailstream_write(imap->imap_stream, cmd, len) != (ssize_t)len ||
	    mailstream_flush(imap->imap_stream) != 0) {
		free(cmd);
		*cause = imap_bs_lost(imap->imap_stream);
		return -1;
	}
	free(cmd);
	buf_init(&out);
	if (imap_bs_read(imap->imap_stream, "B1", &out, cause) == 0)
		rc = imap_bodystructure_find(out.data != NULL ? out.data : "",
		    out.len, uid, part, cause);
	buf_free(&out);
	return rc;
}
