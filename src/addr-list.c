/*
 * addr-list.c: addresses out of header fields (see addr-list.h). Called by
 * crypto-in.c, autocrypt-parse.c and sync-trust.c on every message they
 * look at; it must never crash or take long on any field, and never
 * prints.
 *
 * libetpan's mailimf_address_list_parse() reads the addresses, but never
 * a whole field: it recurses once per nested comment with no limit (a
 * From of 200,000 '(' overflows the stack) and some constructs cost it
 * time that grows with the length. So a field is first cut here, in one
 * linear pass, at the commas between addresses (those outside quoted
 * strings, comments, angle brackets and groups), and each piece reaches
 * libetpan only if mime_header_parsable() lets it; a piece that does not,
 * or that libetpan cannot read, adds nothing and is counted. At most
 * ADDR_LIST_MAX_BYTES of a call's fields are read, and at most
 * ADDR_LIST_MAX addresses kept.
 *
 * libetpan is lenient: it takes "Alice" for an address, and stops where it
 * stops understanding, so that '=?utf-8?q?Alice_<alice@x>?=' gives the
 * "address" '=?utf-8?q?Alice_<alice@x'. Here a piece counts as read only
 * when libetpan read all of it (what is left may only be blanks and
 * comments), and an address only when addr_list_plausible() says it looks
 * like one; anything else holds no address. What a person is shown of a
 * field (addr-show.c) and what the crypto and trust code compare are read
 * by the same rules, so they cannot disagree on who the sender is.
 *
 * Comparison is done on lower-cased addresses, local part included: mail
 * systems that treat "Alice" and "alice" as different mailboxes exist in
 * theory only, and Autocrypt Level 1 asks for exactly this comparison.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <libetpan/libetpan.h>

#include "addr-list.h"
#include "mime-header.h"
#include "xmalloc.h"

char *
addr_list_lower(const char *s)
{
	char	*l = xstrdup(s), *p;

	for (p = l; *p != '\0'; p++)
		*p = tolower((unsigned char)*p);
	return l;
}

int
addr_list_same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcasecmp(a, b) == 0;
}

/* A domain: labels of letters, digits, '-' and 8-bit bytes, or [...]. */
static int
addr_list_domain(const char *d)
{
	size_t	len = strlen(d), i;

	if (len == 0)
		return 0;
	if (d[0] == '[')
		return len > 2 && d[len - 1] == ']' &&
		    strcspn(d + 1, "[]\\ \t\r\n") == len - 2;
	if (d[0] == '.' || d[len - 1] == '.' || strstr(d, "..") != NULL)
		return 0;
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)d[i]) && d[i] != '-' &&
		    d[i] != '.' && (unsigned char)d[i] < 0x80)
			return 0;
	}
	return 1;
}

int
addr_list_plausible(const char *s)
{
	const char	*at = strrchr(s, '@'), *p;
	size_t		 n;

	if (at == NULL || at == s || !addr_list_domain(at + 1))
		return 0;
	n = at - s;
	if (s[0] == '"') {	/* a quoted string, whole */
		for (p = s + 1; p < at - 1; p++) {
			if (*p == '\\' && p + 1 < at - 1)
				p++;
			else if (*p == '"' || (unsigned char)*p < 0x20 ||
			    *p == 0x7f)
				return 0;
		}
		return n >= 2 && at[-1] == '"' && at - 1 > s;
	}
	if (s[0] == '.' || at[-1] == '.')
		return 0;
	for (p = s; p < at; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f ||
		    strchr("()<>[]:;@\\,\"", *p) != NULL ||
		    (*p == '.' && p[1] == '.'))
			return 0;
	}
	return 1;
}

static void
addr_list_push_mb(struct addr_mailbox **v, size_t *n, const char *name,
    const char *addr, const char *text, size_t tlen)
{
	struct addr_mailbox	*m;

	if (*n >= ADDR_LIST_MAX)
		return;
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	m = &(*v)[(*n)++];
	m->name = name != NULL && *name != '\0' ? xstrdup(name) : NULL;
	m->addr = addr != NULL ? xstrdup(addr) : NULL;
	m->text = addr == NULL ? xstrndup(text, tlen) : NULL;
}

/* The mailboxes of a list: those that hold no plausible address are
 * pieces that hold none (with their own text, name and address). */
static void
addr_list_mb(struct mailimf_mailbox *mb, struct addr_mailbox **v, size_t *n)
{
	const char	*a = mb->mb_addr_spec;
	char		*t;

	if (a != NULL && addr_list_plausible(a)) {
		addr_list_push_mb(v, n, mb->mb_display_name, a, NULL, 0);
		return;
	}
	t = xasprintf("%s%s%s%s", mb->mb_display_name != NULL ?
	    mb->mb_display_name : "", mb->mb_display_name != NULL ? " <" :
	    "", a != NULL ? a : "", mb->mb_display_name != NULL ? ">" : "");
	addr_list_push_mb(v, n, NULL, NULL, t, strlen(t));
	free(t);
}

static void
addr_list_group(struct mailimf_mailbox_list *l, struct addr_mailbox **v,
    size_t *n)
{
	clistiter	*it;

	if (l == NULL)
		return;
	for (it = clist_begin(l->mb_list); it != NULL && *n < ADDR_LIST_MAX;
	    it = clist_next(it))
		addr_list_mb(clist_content(it), v, n);
}

/* Is what libetpan left of a piece only blanks and comments? */
static int
addr_list_rest(const char *s, size_t len)
{
	size_t	i, depth = 0;

	for (i = 0; i < len; i++) {
		if (depth > 0 && s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && depth > 0)
			depth--;
		else if (depth == 0 && strchr(" \t\r\n", s[i]) == NULL)
			return 0;
	}
	return depth == 0;
}

/*
 * The length of the address or group at the start of the len bytes at s:
 * up to the first ',' outside a quoted string, a comment, angle brackets
 * and a group. It only decides where libetpan is asked to start reading;
 * if a broken field is cut in the wrong place, libetpan refuses the
 * pieces and they add nothing.
 */
static size_t
addr_list_item(const char *s, size_t len)
{
	size_t	i, comment = 0;
	int	quote = 0, angle = 0, group = 0;

	for (i = 0; i < len; i++) {
		if ((quote || comment > 0) && s[i] == '\\') {
			i++;		/* a quoted-pair */
			continue;
		}
		if (quote) {
			quote = s[i] != '"';
			continue;
		}
		if (s[i] == '(') {
			comment++;
			continue;
		}
		if (comment > 0) {
			if (s[i] == ')')
				comment--;
			continue;
		}
		switch (s[i]) {
		case '"':
			quote = 1;
			break;
		case '<':
			angle = 1;
			break;
		case '>':
			angle = 0;
			break;
		case ':':
			group |= !angle;
			break;
		case ';':
			group &= angle;
			break;
		case ',':
			if (!angle && !group)
				return i;
			break;
		}
	}
	return len;
}

/*
 * Does the piece put an '@' before an angle address, outside quotes and
 * comments ("alice@x <mallory@y>")? That is no display name (RFC 5322
 * has no '@' in an atom), and parsers disagree on it: libetpan takes the
 * angle address, Dovecot's ENVELOPE the first. Such a piece names nobody.
 */
static int
addr_list_ambiguous(const char *s, size_t len)
{
	size_t	i, comment = 0;
	int	quote = 0, at = 0;

	for (i = 0; i < len; i++) {
		if ((quote || comment > 0) && s[i] == '\\') {
			i++;
			continue;
		}
		if (quote) {
			quote = s[i] != '"';
			continue;
		}
		if (s[i] == '(')
			comment++;
		else if (comment > 0) {
			if (s[i] == ')')
				comment--;
		} else if (s[i] == '"')
			quote = 1;
		else if (s[i] == '@')
			at = 1;
		else if (s[i] == ',' || s[i] == ':' || s[i] == ';' ||
		    s[i] == '>')
			at = 0;
		else if (s[i] == '<' && at)
			return 1;
	}
	return 0;
}

/* An RFC 5322 atext character, ASCII only. */
static int
addr_list_atext(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL);
}

/* A dot-atom of len bytes at s: atext, single dots between. */
static int
addr_list_dot_atom(const char *s, size_t len)
{
	size_t	i;

	if (len == 0 || s[0] == '.' || s[len - 1] == '.')
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '.' ? s[i + 1] == '.' :
		    !addr_list_atext((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

int
addr_list_simple(const char *s, size_t len, char **name, char **addr)
{
	const char	*spec = s, *at, *lt;
	size_t		 slen = len, nlen = 0, i;
	char		*a;

	*name = *addr = NULL;
	if ((lt = memchr(s, '<', len)) != NULL) {
		/* words of atext, one space between and before the '<' */
		nlen = (size_t)(lt - s);
		if (nlen < 2 || s[nlen - 1] != ' ' || s[len - 1] != '>')
			return 0;
		nlen--;
		/* no '?': libetpan cuts an encoded word out of a word */
		for (i = 0; i < nlen; i++) {
			if (s[i] == ' ' ? i == 0 || s[i + 1] == ' ' :
			    !addr_list_atext((unsigned char)s[i]) ||
			    s[i] == '?')
				return 0;
		}
		spec = lt + 1;
		slen = len - (size_t)(spec - s) - 1;
	}
	if ((at = memchr(spec, '@', slen)) == NULL ||
	    !addr_list_dot_atom(spec, (size_t)(at - spec)) ||
	    !addr_list_dot_atom(at + 1, slen - (size_t)(at - spec) - 1))
		return 0;
	a = xstrndup(spec, slen);
	if (!addr_list_plausible(a)) {
		free(a);
		return 0;
	}
	*addr = a;
	if (nlen > 0)
		*name = xstrndup(s, nlen);
	return 1;
}

/*
 * One piece of a field: 0 if it was read (or empty), -1 if not, when it
 * is kept as a piece that holds no address.
 */
static int
addr_list_piece(const char *s, size_t len, struct addr_mailbox **v,
    size_t *n)
{
	struct mailimf_address_list	*al;
	struct mailimf_address		*a;
	clistiter			*it;
	size_t				 idx = 0;
	char				*name, *addr;

	while (len > 0 && strchr(" \t\r\n", *s) != NULL) {
		s++;
		len--;
	}
	while (len > 0 && strchr(" \t\r\n", s[len - 1]) != NULL)
		len--;
	if (len == 0)
		return 0;	/* "a@b, , c@d" (RFC 5322 4.4) */
	if (addr_list_simple(s, len, &name, &addr)) {
		addr_list_push_mb(v, n, name, addr, NULL, 0);
		free(name);
		free(addr);
		return 0;
	}
	if (!mime_header_parsable(s, len) || addr_list_ambiguous(s, len) ||
	    mailimf_address_list_parse(s, len, &idx, &al) != MAILIMF_NO_ERROR) {
		addr_list_push_mb(v, n, NULL, NULL, s, len);
		return -1;
	}
	if (idx > len || !addr_list_rest(s + idx, len - idx)) {
		mailimf_address_list_free(al);
		addr_list_push_mb(v, n, NULL, NULL, s, len);
		return -1;
	}
	for (it = clist_begin(al->ad_list); it != NULL; it = clist_next(it)) {
		if (*n >= ADDR_LIST_MAX)
			break;
		a = clist_content(it);
		if (a->ad_type == MAILIMF_ADDRESS_MAILBOX)
			addr_list_mb(a->ad_data.ad_mailbox, v, n);
		else if (a->ad_data.ad_group != NULL)
			addr_list_group(a->ad_data.ad_group->grp_mb_list, v, n);
	}
	mailimf_address_list_free(al);
	return 0;
}

/* The pieces of one unfolded value; *read counts the bytes read. */
static size_t
addr_list_value_read(const char *s, size_t len, struct addr_mailbox **v,
    size_t *n, size_t *read)
{
	size_t	off, item, bad = 0;

	for (off = 0; off < len; off += item + 1) {
		item = addr_list_item(s + off, len - off);
		if (*n >= ADDR_LIST_MAX || *read + item > ADDR_LIST_MAX_BYTES) {
			bad++;	/* this piece and the rest of the field */
			break;
		}
		*read += item;
		if (addr_list_piece(s + off, item, v, n) == -1)
			bad++;
	}
	return bad;
}

size_t
addr_list_mailboxes(const struct mime_header *h, const char *name,
    struct addr_mailbox **v, size_t *n)
{
	const struct mime_field	*f = NULL;
	size_t			 len, read = 0, bad = 0;
	char			*s;

	while ((f = mime_header_find(h, name, f)) != NULL) {
		s = mime_header_unfold(f, &len);
		bad += addr_list_value_read(s, len, v, n, &read);
		free(s);
	}
	return bad;
}

size_t
addr_list_value(const char *s, size_t len, struct addr_mailbox **v,
    size_t *n)
{
	size_t	read = 0;

	return addr_list_value_read(s, len, v, n, &read);
}

void
addr_list_mailboxes_free(struct addr_mailbox *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].addr);
		free(v[i].text);
	}
	free(v);
}

size_t
addr_list_get(const struct mime_header *h, const char *name, char ***v,
    size_t *n)
{
	struct addr_mailbox	*mb = NULL;
	size_t			 nmb = 0, i, bad;

	bad = addr_list_mailboxes(h, name, &mb, &nmb);
	for (i = 0; i < nmb && *n < ADDR_LIST_MAX; i++) {
		if (mb[i].addr == NULL)
			continue;
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		(*v)[(*n)++] = addr_list_lower(mb[i].addr);
	}
	addr_list_mailboxes_free(mb, nmb);
	return bad;
}

char *
addr_list_from(const struct mime_header *h)
{
	char	**v = NULL, *a = NULL;
	size_t	  n = 0;

	addr_list_get(h, "From", &v, &n);
	if (n == 1) {
		a = v[0];
		free(v);
		return a;
	}
	addr_list_free(v, n);
	return NULL;
}

void
addr_list_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
