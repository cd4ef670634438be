/*
 * autocrypt-parse.c: incoming Autocrypt headers (see autocrypt-parse.h).
 *
 * Level 1, section 2.1: attributes are "name=value" separated by ';'.
 * addr and keydata are required; prefer-encrypt is optional ("mutual"
 * means mutual, anything else no preference); an unknown attribute whose
 * name does not start with '_' makes the header invalid, one that does is
 * ignored. keydata may stand anywhere (the spec asks senders to put it
 * last, it does not let receivers refuse it elsewhere). A repeated
 * attribute makes the header invalid. More than one Autocrypt header, or
 * one over 10 KiB, and the message has none that counts.
 *
 * The key data must be exactly one OpenPGP public key: keydata.c checks
 * its packets before anything is imported, so a header cannot slip a
 * second key or secret material into the keyring.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "addr-list.h"
#include "autocrypt-parse.h"
#include "keydata.h"
#include "mime-cte.h"
#include "mime-header.h"
#include "xmalloc.h"

static int
autocrypt_parse_fail(char **cause, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
	return -1;
}

static void
autocrypt_parse_trim(const char **s, const char **e)
{
	while (*s < *e && strchr(" \t\r\n", **s) != NULL)
		(*s)++;
	while (*e > *s && strchr(" \t\r\n", (*e)[-1]) != NULL)
		(*e)--;
}

static int
autocrypt_parse_keydata(struct buf *out, const char *v, size_t len,
    char **cause)
{
	struct buf	b64;
	size_t		i;
	int		flags;

	buf_init(&b64);
	for (i = 0; i < len; i++) {
		if (strchr(" \t\r\n", v[i]) == NULL)
			buf_addc(&b64, v[i]);
	}
	flags = mime_cte_base64_decode(out, b64.data != NULL ? b64.data : "",
	    b64.len);
	buf_free(&b64);
	if (flags != 0 || out->len == 0)
		return autocrypt_parse_fail(cause, "keydata is not valid "
		    "base64");
	return 0;
}

int
autocrypt_parse_attrs(const char *value, size_t len,
    struct autocrypt_attrs *a, char **cause)
{
	const char	*p = value, *end = value + len, *semi, *s, *e, *eq;
	char		*raw;
	size_t		 nlen;
	int		 seen_pe = 0;

	memset(a, 0, sizeof *a);
	buf_init(&a->keydata);
	if (len > AUTOCRYPT_MAX_HEADER)
		return autocrypt_parse_fail(cause, "the header is longer than "
		    "%d bytes", AUTOCRYPT_MAX_HEADER);
	if (memchr(value, '\0', len) != NULL) {
		*cause = xstrdup("the header holds a NUL byte");
		goto fail;
	}
	while (p < end) {
		if ((semi = memchr(p, ';', end - p)) == NULL)
			semi = end;
		s = p;
		e = semi;
		p = semi < end ? semi + 1 : end;
		autocrypt_parse_trim(&s, &e);
		if (s == e)
			continue;
		if ((eq = memchr(s, '=', e - s)) == NULL) {
			*cause = xstrdup("an attribute without a value");
			goto fail;
		}
		nlen = eq - s;
		while (nlen > 0 && strchr(" \t", s[nlen - 1]) != NULL)
			nlen--;
		eq++;
		autocrypt_parse_trim(&eq, &e);
		if (nlen == 4 && memcmp(s, "addr", 4) == 0) {
			if (a->addr != NULL) {
				*cause = xstrdup("addr given twice");
				goto fail;
			}
			raw = xstrndup(eq, e - eq);
			a->addr = addr_list_lower(raw);
			free(raw);
			if (strchr(a->addr, '@') == NULL ||
			    strpbrk(a->addr, " \t<>") != NULL) {
				*cause = xstrdup("addr is not an address");
				goto fail;
			}
		} else if (nlen == 14 && memcmp(s, "prefer-encrypt", 14) == 0) {
			if (seen_pe++) {
				*cause = xstrdup("prefer-encrypt given twice");
				goto fail;
			}
			a->mutual = e - eq == 6 && memcmp(eq, "mutual", 6) == 0;
		} else if (nlen == 7 && memcmp(s, "keydata", 7) == 0) {
			if (a->keydata.len != 0) {
				*cause = xstrdup("keydata given twice");
				goto fail;
			}
			if (autocrypt_parse_keydata(&a->keydata, eq, e - eq,
			    cause) == -1)
				goto fail;
		} else if (nlen == 0 || *s != '_') {
			*cause = xasprintf("unknown critical attribute \"%.*s\"",
			    (int)(nlen > 40 ? 40 : nlen), s);
			goto fail;
		}
	}
	if (a->addr == NULL) {
		*cause = xstrdup("no addr attribute");
		goto fail;
	}
	if (a->keydata.len == 0) {
		*cause = xstrdup("no keydata attribute");
		goto fail;
	}
	return 0;

fail:
	autocrypt_attrs_free(a);
	return -1;
}

void
autocrypt_attrs_free(struct autocrypt_attrs *a)
{
	free(a->addr);
	a->addr = NULL;
	buf_free(&a->keydata);
}

static void
autocrypt_parse_add(struct autocrypt_result *r, const char *addr, char *fpr,
    int mutual, enum autocrypt_source src)
{
	struct autocrypt_key	*k;

	r->keys = xreallocarray(r->keys, r->nkeys + 1, sizeof *r->keys);
	k = &r->keys[r->nkeys++];
	k->addr = xstrdup(addr);
	k->fpr = fpr;
	k->mutual = mutual;
	k->source = src;
}

static void
autocrypt_parse_invalid(struct autocrypt_result *r, char *reason)
{
	r->state = AUTOCRYPT_INVALID;
	free(r->reason);
	r->reason = reason;
}

void
autocrypt_parse_header(struct autocrypt_result *r,
    const struct mime_header *h, const char *from, int report)
{
	const struct mime_field	*f, *g;
	struct autocrypt_attrs	 a;
	char			*v, *cause = NULL, *fpr;
	size_t			 len;

	if ((f = mime_header_find(h, "Autocrypt", NULL)) == NULL)
		return;
	if (report) {
		autocrypt_parse_invalid(r, xstrdup("a multipart/report "
		    "message: its Autocrypt header is ignored"));
		return;
	}
	if ((g = mime_header_find(h, "Autocrypt", f)) != NULL) {
		autocrypt_parse_invalid(r, xstrdup("more than one Autocrypt "
		    "header: none is used"));
		return;
	}
	if (f->valuelen > AUTOCRYPT_MAX_HEADER) {
		autocrypt_parse_invalid(r, xasprintf("the header is longer "
		    "than %d bytes", AUTOCRYPT_MAX_HEADER));
		return;
	}
	v = mime_header_unfold(f, &len);
	if (autocrypt_parse_attrs(v, len, &a, &cause) == -1) {
		free(v);
		autocrypt_parse_invalid(r, cause);
		return;
	}
	free(v);
	if (from == NULL || !addr_list_same(a.addr, from)) {
		autocrypt_parse_invalid(r, xasprintf("addr %s is not the From "
		    "address %s", a.addr, from != NULL ? from : "(none)"));
		autocrypt_attrs_free(&a);
		return;
	}
	fpr = keydata_import((const unsigned char *)a.keydata.data,
	    a.keydata.len, &cause);
	if (fpr == NULL) {
		autocrypt_parse_invalid(r, cause);
		autocrypt_attrs_free(&a);
		return;
	}
	r->state = AUTOCRYPT_VALID;
	autocrypt_parse_add(r, a.addr, fpr, a.mutual, AUTOCRYPT_HEADER);
	autocrypt_attrs_free(&a);
}

static void
autocrypt_parse_gwarn(struct autocrypt_result *r, const char *fmt, ...)
{
	va_list	ap;

	r->warnings = xreallocarray(r->warnings, r->nwarnings + 1,
	    sizeof *r->warnings);
	va_start(ap, fmt);
	r->warnings[r->nwarnings++] = xvasprintf(fmt, ap);
	va_end(ap);
}

void
autocrypt_parse_gossip(struct autocrypt_result *r,
    const struct mime_header *h, char **rcpt, size_t n)
{
	const struct mime_field	*f = NULL;
	struct autocrypt_attrs	 a;
	char			*v, *cause, *fpr;
	size_t			 len, i, k;
	int			 seen;

	while ((f = mime_header_find(h, "Autocrypt-Gossip", f)) != NULL) {
		cause = NULL;
		if (f->valuelen > AUTOCRYPT_MAX_HEADER) {
			autocrypt_parse_gwarn(r, "an Autocrypt-Gossip header "
			    "is longer than %d bytes: ignored",
			    AUTOCRYPT_MAX_HEADER);
			continue;
		}
		v = mime_header_unfold(f, &len);
		if (autocrypt_parse_attrs(v, len, &a, &cause) == -1) {
			autocrypt_parse_gwarn(r, "an Autocrypt-Gossip header "
			    "is invalid: %s", cause);
			free(cause);
			free(v);
			continue;
		}
		free(v);
		for (i = 0; i < n && !addr_list_same(rcpt[i], a.addr); i++)
			;
		seen = 0;
		for (k = 0; k < r->nkeys; k++) {
			if (r->keys[k].source == AUTOCRYPT_GOSSIP &&
			    addr_list_same(r->keys[k].addr, a.addr))
				seen = 1;
		}
		if (i == n)
			autocrypt_parse_gwarn(r, "Autocrypt-Gossip for %s, who "
			    "is not a recipient: ignored", a.addr);
		else if (seen)
			autocrypt_parse_gwarn(r, "a second Autocrypt-Gossip "
			    "for %s: ignored", a.addr);
		else if ((fpr = keydata_import(
		    (const unsigned char *)a.keydata.data, a.keydata.len,
		    &cause)) == NULL) {
			autocrypt_parse_gwarn(r, "Autocrypt-Gossip for %s: %s",
			    a.addr, cause);
			free(cause);
		} else
			autocrypt_parse_add(r, a.addr, fpr, 0,
			    AUTOCRYPT_GOSSIP);
		autocrypt_attrs_free(&a);
	}
}

void
autocrypt_result_free(struct autocrypt_result *r)
{
	size_t	i;

	for (i = 0; i < r->nkeys; i++) {
		free(r->keys[i].addr);
		free(r->keys[i].fpr);
	}
	free(r->keys);
	for (i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->reason);
	memset(r, 0, sizeof *r);
}
