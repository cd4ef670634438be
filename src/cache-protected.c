/*
 * cache-protected.c: an opened message's protected header values, as the
 * header cache keeps them (cache-protected.h).
 *
 * The values are cut as the sync cuts the outer ones (imap-fetch.h): at
 * most CACHE_PROTECTED_MAX bytes of a field, whole addresses only in the
 * recipients, the last message-ids of References that fit, the Date read
 * by the same parser, so that a protected value sorts and threads exactly
 * as an outer one would. Names and the Subject are decoded (RFC 2047);
 * nothing is made terminal-safe here, as nothing in the cache is: the
 * front ends do that when they draw. It never prints, and never logs a
 * value (they may be what the sender encrypted).
 */
#include <stdlib.h>
#include <string.h>

#include "addr-list.h"
#include "buf.h"
#include "cache-protected.h"
#include "crypto-in.h"
#include "imap-fetch.h"
#include "message.h"
#include "mime-header.h"
#include "rfc2047.h"
#include "xmalloc.h"

#define CACHE_PROTECTED_MAX	998	/* bytes of a field kept */
#define CACHE_PROTECTED_DATE	200	/* bytes of the Date's text kept */

/* The first field name of h, unfolded and cut at max bytes, or NULL. */
static char *
cache_protected_field(const struct mime_header *h, const char *name,
    size_t max)
{
	char	*v;
	size_t	 len;

	if ((v = mime_header_get(h, name, &len)) == NULL)
		return NULL;
	if (len > max)
		v[max] = '\0';
	if (strlen(v) == 0) {
		free(v);
		return NULL;
	}
	return v;
}

/* The same, RFC 2047 decoded. */
static char *
cache_protected_text(const struct mime_header *h, const char *name)
{
	char	*v, *d;

	if ((v = cache_protected_field(h, name, CACHE_PROTECTED_MAX)) == NULL)
		return NULL;
	d = rfc2047_decode_str(v);
	free(v);
	return d;
}

/*
 * The message-ids of References: the last ones that fit in max bytes, in
 * their order, one space between them (the parent is the last one).
 * Read from the end, so that a field of any length costs only what fits.
 */
static char *
cache_protected_refs(const struct mime_header *h, size_t max)
{
	const struct mime_field	*f;
	char			*v, *out;
	size_t			 len, end, start, first, total = 0, n, i, o;

	if ((f = mime_header_find(h, "References", NULL)) == NULL)
		return NULL;
	v = mime_header_unfold(f, &len);
	first = end = len;
	while (end > 0) {
		/* the last "<...>" before end with no '<' or '>' inside */
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
		n = end - start + (total > 0);
		if (total + n > max)
			break;
		total += n;
		first = start;
		end = start;
	}
	out = NULL;
	if (total > 0) {
		/* forwards from the first that fits, one space between */
		out = xmalloc(total + 1);
		for (i = first, o = 0; i < len; i++) {
			if (v[i] != '<')
				continue;
			for (n = i + 1; n < len && v[n] != '<' && v[n] != '>';
			    n++)
				;
			if (n == len || v[n] != '>') {
				i = n - 1;
				continue;
			}
			if (o > 0)
				out[o++] = ' ';
			memcpy(out + o, v + i, n + 1 - i);
			o += n + 1 - i;
			i = n;
		}
		out[o] = '\0';
	}
	free(v);
	return out;
}

/* "Name <addr>, addr, ..." of To and Cc: whole addresses, at most max. */
static char *
cache_protected_rcpt(const struct mime_header *h, size_t max)
{
	struct addr_mailbox	*v = NULL;
	struct buf		 b;
	char			*name, *one;
	size_t			 n = 0, i;

	if (mime_header_find(h, "To", NULL) == NULL &&
	    mime_header_find(h, "Cc", NULL) == NULL)
		return NULL;
	addr_list_mailboxes(h, "To", &v, &n);
	addr_list_mailboxes(h, "Cc", &v, &n);
	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (v[i].addr == NULL)		/* a piece with no address */
			continue;
		if (v[i].name != NULL) {
			name = rfc2047_decode_str(v[i].name);
			one = xasprintf("%s <%s>", name, v[i].addr);
			free(name);
		} else
			one = xstrdup(v[i].addr);
		if (b.len + (b.len > 0 ? 2 : 0) + strlen(one) <= max) {
			if (b.len > 0)
				buf_adds(&b, ", ");
			buf_adds(&b, one);
		}
		free(one);
	}
	addr_list_mailboxes_free(v, n);
	/* fields without a readable address: the outer value stands */
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b);
}

int
cache_protected_of(const struct message *m, struct cache_protected *p)
{
	const struct crypto_in		*ci = m->ci;
	const struct mime_header	*h = ci->protected;
	struct addr_mailbox		*from = NULL;
	size_t				 nfrom = 0;
	int				 sig, enc, weak;
	char				*date;

	memset(p, 0, sizeof *p);
	if (h == NULL)
		return ci->decrypted;	/* opened, with nothing to show */
	crypto_in_coverage(ci, ci->protected_part, &sig, &enc, &weak);
	p->how = (enc ? CACHE_OPENED_DECRYPTED : 0) |
	    (sig ? CACHE_OPENED_SIGNED : 0);
	p->subject = cache_protected_text(h, "Subject");
	addr_list_mailboxes(h, "From", &from, &nfrom);
	if (nfrom > 0 && from[0].addr != NULL &&
	    strlen(from[0].addr) <= CACHE_PROTECTED_MAX) {
		p->from_addr = xstrdup(from[0].addr);
		p->from = from[0].name != NULL ?
		    rfc2047_decode_str(from[0].name) : xstrdup(from[0].addr);
	}
	addr_list_mailboxes_free(from, nfrom);
	p->rcpt = cache_protected_rcpt(h, CACHE_PROTECTED_MAX);
	if ((date = cache_protected_field(h, "Date",
	    CACHE_PROTECTED_DATE)) != NULL) {
		p->date = date;
		p->sent = imap_fetch_parse_date(date);
	}
	p->message_id = cache_protected_field(h, "Message-ID",
	    CACHE_PROTECTED_MAX);
	p->in_reply_to = cache_protected_field(h, "In-Reply-To",
	    CACHE_PROTECTED_MAX);
	p->references = cache_protected_refs(h, CACHE_PROTECTED_MAX);
	return 1;
}

void
cache_protected_free(struct cache_protected *p)
{
	/* what the sender may have encrypted: not left in freed memory */
	if (p->subject != NULL)
		explicit_bzero((char *)p->subject, strlen(p->subject));
	free((char *)p->date);
	free((char *)p->from);
	free((char *)p->from_addr);
	free((char *)p->rcpt);
	free((char *)p->subject);
	free((char *)p->message_id);
	free((char *)p->in_reply_to);
	free((char *)p->references);
	memset(p, 0, sizeof *p);
}

int
cache_protected_keep(struct cache *c, const struct cache_mailbox *mb,
    uint32_t uid, const struct message *m, char **cause)
{
	struct cache_protected	p;
	int			rc = 0;

	if (cache_protected_of(m, &p) == 1)
		rc = cache_protected_put(c, mb, uid, &p, cause);
	cache_protected_free(&p);
	return rc;
}
