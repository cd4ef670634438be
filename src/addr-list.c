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

/*
 * Where the addresses read go: plain and lower case into *v, or as
 * written with their display names into *nv.
 */
struct addr_list_sink {
	char			***v;
	struct addr_named	**nv;
	size_t			 *n;
};

static void
addr_list_push(struct addr_list_sink *k, const struct mailimf_mailbox *mb)
{
	const char	*a = mb->mb_addr_spec, *name = mb->mb_display_name;

	if (a == NULL || *a == '\0' || strchr(a, '@') == NULL)
		return;
	if (k->nv != NULL) {
		*k->nv = xreallocarray(*k->nv, *k->n + 1, sizeof **k->nv);
		(*k->nv)[*k->n].addr = xstrdup(a);
		(*k->nv)[(*k->n)++].name = name != NULL && *name != '\0' ?
		    xstrdup(name) : NULL;
		return;
	}
	*k->v = xreallocarray(*k->v, *k->n + 1, sizeof **k->v);
	(*k->v)[(*k->n)++] = addr_list_lower(a);
}

static void
addr_list_mailboxes(struct mailimf_mailbox_list *l, struct addr_list_sink *k)
{
	clistiter			*it;

	if (l == NULL)
		return;
	for (it = clist_begin(l->mb_list); it != NULL &&
	    *k->n < ADDR_LIST_MAX; it = clist_next(it))
		addr_list_push(k, clist_content(it));
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

/* One piece of a field: 0 if it was read (or empty), -1 if not. */
static int
addr_list_piece(const char *s, size_t len, struct addr_list_sink *k)
{
	struct mailimf_address_list	*al;
	struct mailimf_address		*a;
	clistiter			*it;
	size_t				 idx = 0;

	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	if (len == 0)
		return 0;	/* "a@b, , c@d" (RFC 5322 4.4) */
	if (!mime_header_parsable(s, len) ||
	    mailimf_address_list_parse(s, len, &idx, &al) != MAILIMF_NO_ERROR)
		return -1;
	for (it = clist_begin(al->ad_list); it != NULL; it = clist_next(it)) {
		if (*k->n >= ADDR_LIST_MAX)
			break;
		a = clist_content(it);
		if (a->ad_type == MAILIMF_ADDRESS_MAILBOX)
			addr_list_push(k, a->ad_data.ad_mailbox);
		else if (a->ad_data.ad_group != NULL)
			addr_list_mailboxes(a->ad_data.ad_group->grp_mb_list,
			    k);
	}
	mailimf_address_list_free(al);
	return 0;
}

static size_t
addr_list_read(const struct mime_header *h, const char *name,
    struct addr_list_sink *k)
{
	const struct mime_field	*f = NULL;
	size_t			*n = k->n;
	size_t			 len, off, item, read = 0, bad = 0;
	char			*s;

	while ((f = mime_header_find(h, name, f)) != NULL) {
		s = mime_header_unfold(f, &len);
		for (off = 0; off < len; off += item + 1) {
			item = addr_list_item(s + off, len - off);
			if (*n >= ADDR_LIST_MAX ||
			    read + item > ADDR_LIST_MAX_BYTES) {
				bad++;	/* this piece and the rest of the field */
				break;
			}
			read += item;
			if (addr_list_piece(s + off, item, k) == -1)
				bad++;
		}
		free(s);
	}
	return bad;
}

size_t
addr_list_get(const struct mime_header *h, const char *name, char ***v,
    size_t *n)
{
	struct addr_list_sink	k = { v, NULL, n };

	return addr_list_read(h, name, &k);
}

size_t
addr_list_named(const struct mime_header *h, const char *name,
    struct addr_named **v, size_t *n)
{
	struct addr_list_sink	k = { NULL, v, n };

	return addr_list_read(h, name, &k);
}

void
addr_named_free(struct addr_named *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].addr);
	}
	free(v);
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
