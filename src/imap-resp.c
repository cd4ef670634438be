/*
 * imap-resp.c: one line of what an IMAP server says before login, parsed
 * by steedmail's own code (see imap-resp.h). Whoever is on the path before
 * STARTTLS can write these lines, so the grammar is taken strictly where
 * RFC 3501 and RFC 9051 give one: a resp-text-code with a defined syntax
 * (BADCHARSET, CAPABILITY, PERMANENTFLAGS, UIDNEXT, UIDVALIDITY, UNSEEN)
 * must follow it, and any other code is an atom and text up to "]", which
 * is read and ignored. Nothing here recurses or allocates beyond the
 * capabilities it keeps (at most IMAP_RESP_CAPS_MAX, each at most
 * IMAP_RESP_ATOM_MAX bytes).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imap-resp.h"
#include "xmalloc.h"

struct imap_resp_cur {
	const char	*p, *end;
	char		*why;		/* the first thing found wrong */
};

static int
imap_resp_fail(struct imap_resp_cur *c, const char *why)
{
	if (c->why == NULL)
		c->why = xstrdup(why);
	return -1;
}

/* ATOM-CHAR: any 7-bit character but atom-specials and resp-specials. */
static int
imap_resp_atom_char(unsigned char ch)
{
	if (ch <= 0x1f || ch >= 0x7f)
		return 0;
	return strchr("(){ %*\"\\]", ch) == NULL;
}

static int
imap_resp_at_end(const struct imap_resp_cur *c)
{
	return c->p >= c->end;
}

static int
imap_resp_peek(const struct imap_resp_cur *c)
{
	return c->p < c->end ? (unsigned char)*c->p : -1;
}

static int
imap_resp_expect(struct imap_resp_cur *c, char ch, const char *why)
{
	if (imap_resp_peek(c) != (unsigned char)ch)
		return imap_resp_fail(c, why);
	c->p++;
	return 0;
}

/* An atom, copied upper case into out (size IMAP_RESP_ATOM_MAX + 1). */
static int
imap_resp_atom(struct imap_resp_cur *c, char *out, const char *what)
{
	size_t	n = 0;

	while (!imap_resp_at_end(c) && imap_resp_atom_char(*c->p)) {
		if (n == IMAP_RESP_ATOM_MAX)
			return imap_resp_fail(c, "an atom too long");
		out[n++] = (char)toupper((unsigned char)*c->p++);
	}
	out[n] = '\0';
	if (n == 0)
		return imap_resp_fail(c, what);
	return 0;
}

/* A quoted string, skipped: DQUOTE *(QUOTED-CHAR / "\" quoted-special). */
static int
imap_resp_quoted(struct imap_resp_cur *c)
{
	if (imap_resp_expect(c, '"', "a quoted string expected") == -1)
		return -1;
	while (!imap_resp_at_end(c) && *c->p != '"') {
		if (*c->p == '\\') {
			c->p++;
			if (imap_resp_at_end(c) ||
			    (*c->p != '"' && *c->p != '\\'))
				return imap_resp_fail(c,
				    "a backslash in a quoted string before "
				    "something it cannot escape");
		}
		c->p++;
	}
	return imap_resp_expect(c, '"', "a quoted string that does not end");
}

/* nz-number, within 32 bits. */
static int
imap_resp_nz_number(struct imap_resp_cur *c)
{
	uint64_t	v = 0;
	size_t		n = 0;

	if (imap_resp_peek(c) == '0')
		return imap_resp_fail(c, "a number that starts with 0");
	while (!imap_resp_at_end(c) && isdigit((unsigned char)*c->p)) {
		v = v * 10 + (uint64_t)(*c->p++ - '0');
		if (++n > 10 || v > UINT32_MAX)
			return imap_resp_fail(c, "a number too large");
	}
	if (n == 0)
		return imap_resp_fail(c, "a number expected");
	return 0;
}

/* *(SP capability), into r (each an atom); stops before "]" or the end. */
static int
imap_resp_caps(struct imap_resp_cur *c, struct imap_resp *r)
{
	char	atom[IMAP_RESP_ATOM_MAX + 1];

	if (r->has_caps) {	/* a second list in one line: the last */
		while (r->ncaps > 0)
			free(r->caps[--r->ncaps]);
	}
	r->has_caps = 1;
	while (imap_resp_peek(c) == ' ') {
		c->p++;
		if (imap_resp_atom(c, atom, "an empty capability") == -1)
			return -1;
		if (r->ncaps == IMAP_RESP_CAPS_MAX)
			return imap_resp_fail(c, "too many capabilities");
		if (r->caps == NULL)
			r->caps = xcalloc(IMAP_RESP_CAPS_MAX,
			    sizeof *r->caps);
		r->caps[r->ncaps++] = xstrdup(atom);
	}
	return 0;
}

/* BADCHARSET [SP "(" charset *(SP charset) ")"], charset = atom / quoted */
static int
imap_resp_badcharset(struct imap_resp_cur *c)
{
	char	atom[IMAP_RESP_ATOM_MAX + 1];

	if (imap_resp_peek(c) != ' ')
		return 0;
	c->p++;
	if (imap_resp_expect(c, '(', "a BADCHARSET code that is not a list "
	    "of charsets") == -1)
		return -1;
	for (;;) {
		if (imap_resp_peek(c) == '"') {
			if (imap_resp_quoted(c) == -1)
				return -1;
		} else if (imap_resp_atom(c, atom, "a BADCHARSET code that "
		    "is not a list of charsets") == -1)
			return -1;
		if (imap_resp_peek(c) != ' ')
			break;
		c->p++;
	}
	return imap_resp_expect(c, ')', "a BADCHARSET list that does not "
	    "end");
}

/* PERMANENTFLAGS SP "(" [flag-perm *(SP flag-perm)] ")" */
static int
imap_resp_permanentflags(struct imap_resp_cur *c)
{
	char	atom[IMAP_RESP_ATOM_MAX + 1];

	if (imap_resp_expect(c, ' ', "PERMANENTFLAGS without flags") == -1 ||
	    imap_resp_expect(c, '(', "PERMANENTFLAGS without a list") == -1)
		return -1;
	if (imap_resp_peek(c) == ')') {
		c->p++;
		return 0;
	}
	for (;;) {
		if (imap_resp_peek(c) == '\\') {
			c->p++;
			if (imap_resp_peek(c) == '*')
				c->p++;
			else if (imap_resp_atom(c, atom, "a flag expected") ==
			    -1)
				return -1;
		} else if (imap_resp_atom(c, atom, "a flag expected") == -1)
			return -1;
		if (imap_resp_peek(c) != ' ')
			break;
		c->p++;
	}
	return imap_resp_expect(c, ')', "a PERMANENTFLAGS list that does "
	    "not end");
}

/*
 * "[" resp-text-code "]", the "[" already read. Codes whose syntax the RFCs
 * give are held to it; any other is atom [SP 1*<TEXT-CHAR except "]">].
 */
static int
imap_resp_code(struct imap_resp_cur *c, struct imap_resp *r)
{
	const char	*p;

	if (imap_resp_atom(c, r->code, "an empty response code") == -1)
		return -1;
	if (strcmp(r->code, "CAPABILITY") == 0) {
		if (imap_resp_caps(c, r) == -1)
			return -1;
	} else if (strcmp(r->code, "BADCHARSET") == 0) {
		if (imap_resp_badcharset(c) == -1)
			return -1;
	} else if (strcmp(r->code, "PERMANENTFLAGS") == 0) {
		if (imap_resp_permanentflags(c) == -1)
			return -1;
	} else if (strcmp(r->code, "UIDNEXT") == 0 ||
	    strcmp(r->code, "UIDVALIDITY") == 0 ||
	    strcmp(r->code, "UNSEEN") == 0) {
		if (imap_resp_expect(c, ' ', "a response code without its "
		    "number") == -1 || imap_resp_nz_number(c) == -1)
			return -1;
	} else if (imap_resp_peek(c) == ' ') {
		c->p++;
		if (imap_resp_peek(c) == ']')
			return imap_resp_fail(c, "a response code with an "
			    "empty argument");
		while (!imap_resp_at_end(c) && *c->p != ']')
			c->p++;
	}
	if (imap_resp_expect(c, ']', "a response code that does not end "
	    "where it should") == -1)
		return -1;
	if (!imap_resp_at_end(c) && *c->p != ' ')
		return imap_resp_fail(c, "no space after a response code");
	/* RFC 3501 wants text after it; before login that is not needed */
	r->code_bare = 1;
	for (p = c->p; p < c->end; p++)
		if (*p != ' ' && *p != '\t')
			r->code_bare = 0;
	return 0;
}

/* resp-text after a status word: [SP ["[" code "]"] [SP text]]. */
static int
imap_resp_text(struct imap_resp_cur *c, struct imap_resp *r)
{
	if (imap_resp_at_end(c))
		return 0;		/* no text: tolerated */
	if (imap_resp_expect(c, ' ', "no space after the status word") == -1)
		return -1;
	/*
	 * One space, says the grammar; libetpan skips any number of blanks
	 * before a response code, so a code after several is read here too
	 * (and held to its grammar) rather than taken for text.
	 */
	while (imap_resp_peek(c) == ' ' || imap_resp_peek(c) == '\t')
		c->p++;
	r->text = c->p;
	r->textlen = (size_t)(c->end - c->p);
	if (imap_resp_peek(c) == '[') {
		c->p++;
		if (imap_resp_code(c, r) == -1)
			return -1;
	}
	return 0;
}

/* Does the line end in a literal's announcement, "{N}" or "{N+}"? */
static int
imap_resp_literal_end(const char *line, size_t len)
{
	size_t	i;

	if (len < 3 || line[len - 1] != '}')
		return 0;
	i = len - 1;
	if (line[i - 1] == '+')
		i--;
	if (i == 0 || !isdigit((unsigned char)line[i - 1]))
		return 0;
	while (i > 0 && isdigit((unsigned char)line[i - 1]))
		i--;
	return i > 0 && line[i - 1] == '{';
}

static enum imap_resp_cond
imap_resp_cond_word(const char *w)
{
	if (strcmp(w, "OK") == 0)
		return IMAP_RESP_OK;
	if (strcmp(w, "NO") == 0)
		return IMAP_RESP_NO;
	if (strcmp(w, "BAD") == 0)
		return IMAP_RESP_BAD;
	if (strcmp(w, "BYE") == 0)
		return IMAP_RESP_BYE;
	if (strcmp(w, "PREAUTH") == 0)
		return IMAP_RESP_PREAUTH;
	return IMAP_RESP_NONE;
}

static int
imap_resp_tag(struct imap_resp_cur *c, struct imap_resp *r)
{
	size_t	n = 0;

	/* tag = 1*<any ASTRING-CHAR except "+"> */
	while (!imap_resp_at_end(c) && *c->p != '+' &&
	    (imap_resp_atom_char(*c->p) || *c->p == ']')) {
		if (n == IMAP_RESP_TAG_MAX)
			return imap_resp_fail(c, "a tag too long");
		r->tag[n++] = *c->p++;
	}
	r->tag[n] = '\0';
	if (n == 0)
		return imap_resp_fail(c, "neither \"*\", \"+\" nor a tag at "
		    "the start of the line");
	r->tagged = 1;
	return 0;
}

int
imap_resp_parse(const char *line, size_t len, struct imap_resp *r,
    char **cause)
{
	struct imap_resp_cur	 c;
	char			 word[IMAP_RESP_ATOM_MAX + 1];

	memset(r, 0, sizeof *r);
	c.p = line;
	c.end = line + len;
	c.why = NULL;
	r->text = line;
	r->textlen = len;

	if (memchr(line, '\0', len) != NULL || memchr(line, '\r', len) !=
	    NULL || memchr(line, '\n', len) != NULL) {
		imap_resp_fail(&c, "a NUL or a bare CR or LF in a line");
		goto fail;
	}
	if (len > 0 && line[0] == '+') {
		/* "+" [SP] resp-text: a code there is read as elsewhere */
		r->kind = IMAP_RESP_CONTINUE;
		c.p++;
		while (imap_resp_peek(&c) == ' ' || imap_resp_peek(&c) == '\t')
			c.p++;
		r->text = c.p;
		r->textlen = (size_t)(c.end - c.p);
		if (imap_resp_peek(&c) == '[') {
			c.p++;
			if (imap_resp_code(&c, r) == -1)
				goto fail;
		}
		return 0;
	}
	if (len >= 2 && line[0] == '*' && line[1] == ' ')
		c.p += 2;
	else if (imap_resp_tag(&c, r) == -1 ||
	    imap_resp_expect(&c, ' ', "no space after the tag") == -1)
		goto fail;

	/* a status word, CAPABILITY, or data ("3" of "* 3 EXISTS") */
	if (imap_resp_atom(&c, word, "no status word") == -1)
		goto fail;
	r->cond = imap_resp_cond_word(word);
	if (r->cond != IMAP_RESP_NONE) {
		if (r->tagged && (r->cond == IMAP_RESP_BYE ||
		    r->cond == IMAP_RESP_PREAUTH)) {
			imap_resp_fail(&c, "a tagged BYE or PREAUTH");
			goto fail;
		}
		r->kind = IMAP_RESP_COND;
		if (imap_resp_text(&c, r) == -1)
			goto fail;
		return 0;
	}
	if (r->tagged) {
		imap_resp_fail(&c, "a tagged answer that is neither OK, NO "
		    "nor BAD");
		goto fail;
	}
	if (strcmp(word, "CAPABILITY") == 0) {
		r->kind = IMAP_RESP_CAPABILITY;
		if (imap_resp_caps(&c, r) == -1)
			goto fail;
		if (!imap_resp_at_end(&c)) {
			imap_resp_fail(&c, "something other than a "
			    "capability in a CAPABILITY line");
			goto fail;
		}
		return 0;
	}
	/*
	 * Any other untagged data is not steedmail's business before login
	 * and is skipped, but not one that announces a literal: its bytes
	 * would be read as lines.
	 */
	if (imap_resp_literal_end(line, len)) {
		imap_resp_fail(&c, "a literal before login");
		goto fail;
	}
	r->kind = IMAP_RESP_DATA;
	return 0;

fail:
	*cause = c.why;
	return -1;
}

void
imap_resp_clear(struct imap_resp *r)
{
	while (r->ncaps > 0)
		free(r->caps[--r->ncaps]);
	free(r->caps);
	r->caps = NULL;
	r->has_caps = 0;
}

int
imap_resp_check_status(const char *line, size_t len, char *code,
    char **cause)
{
	struct imap_resp	 r;
	const char		*p = line, *end = line + len, *w;
	char			*why = NULL;
	size_t			 n;
	int			 rc;

	if (code != NULL)
		*code = '\0';
	/*
	 * The second word, found however the words are spaced (libetpan is
	 * lenient there): a status word makes this a status line, which
	 * must then follow the grammar, spacing included.
	 */
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '+')
		goto check;		/* a continuation request (libetpan
					   skips blanks before it too) */
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (w = p, n = 0; w + n < end && w[n] != ' ' && w[n] != '\t'; n++)
		;
	if (!((n == 2 && (strncasecmp(w, "OK", 2) == 0 ||
	    strncasecmp(w, "NO", 2) == 0)) ||
	    (n == 3 && (strncasecmp(w, "BAD", 3) == 0 ||
	    strncasecmp(w, "BYE", 3) == 0)) ||
	    (n == 7 && strncasecmp(w, "PREAUTH", 7) == 0)))
		return 0;
check:
	rc = imap_resp_parse(line, len, &r, &why);
	imap_resp_clear(&r);
	if (rc == -1) {
		*cause = why;
		return -1;
	}
	if (code != NULL)
		memcpy(code, r.code, sizeof r.code);
	/* libetpan's parser reads the missing text through a NULL */
	if (r.code_bare) {
		*cause = xstrdup("a response code with no text after it");
		return -1;
	}
	return 0;
}
