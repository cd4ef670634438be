/*
 * addr-show.c: the display form of address fields and of the index's
 * sender (see addr-show.h). Called by view.c (From, Sender, Reply-To of
 * a message and of attached messages, the protected ones when vouched
 * for) and by the index screen; nothing here draws or prints, and what it
 * returns is raw text the caller makes safe.
 *
 * The rules, from "Johnny, You Are Fired" (USENIX Security 2019) and the
 * ways a From was made to lie to steedmail's screens:
 * - The address is what the crypto and trust code compare (addr-list.c
 *   reads both), and it is never cut. A display name is: blanks folded
 *   into one, invisible characters dropped, and at most
 *   ADDR_SHOW_NAME_MAX characters, so no padding can push the address
 *   off the screen.
 * - A field from which no address can be read says so, whatever its text
 *   decodes to: an encoded word that decodes to "Alice <alice@x>" is a
 *   name at most, never a sender.
 * - A name holding an address other than its own, or characters that
 *   turn text around or act on the terminal, is flagged, for the screens
 *   to mark with the real address next to it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr-list.h"
#include "addr-show.h"
#include "buf.h"
#include "mime-header.h"
#include "rfc2047.h"
#include "strsafe.h"
#include "xmalloc.h"

/* Blanks: folded into one space. The Hangul fillers and the braille
 * blank draw as blanks and are padding's favourites. */
static int
addr_show_blank(uint32_t c)
{
	return c == ' ' || c == '\t' || c == 0xa0 || c == 0x1680 ||
	    (c >= 0x2000 && c <= 0x200a) || c == 0x202f || c == 0x205f ||
	    c == 0x3000 || c == 0x115f || c == 0x1160 || c == 0x3164 ||
	    c == 0xffa0 || c == 0x2800;
}

/* Characters that draw nothing at all: dropped. */
static int
addr_show_invisible(uint32_t c)
{
	return c == 0xad || c == 0x34f || c == 0x180e || c == 0x200b ||
	    (c >= 0x2060 && c <= 0x2064) || c == 0xfeff;
}

/* What ends an address-like word in a name. */
static int
addr_show_stop(char c)
{
	return c == ' ' || strchr("<>()[]\"',;:", c) != NULL;
}

/*
 * The first address-like word of s other than addr (an at sign, ASCII,
 * full width or small, with something on both sides), or NULL.
 */
static char *
addr_show_other(const char *s, const char *addr)
{
	static const char	*ats[] = { "@", "\xef\xbc\xa0", "\xef\xb9\xab" };
	const char		*p, *l, *r;
	size_t			 i, n;
	char			*w;

	for (p = s; *p != '\0'; p++) {
		for (i = 0; i < sizeof ats / sizeof *ats; i++) {
			n = strlen(ats[i]);
			if (strncmp(p, ats[i], n) == 0)
				break;
		}
		if (i == sizeof ats / sizeof *ats)
			continue;
		for (l = p; l > s && !addr_show_stop(l[-1]) && l[-1] != '@';
		    l--)
			;
		for (r = p + n; *r != '\0' && !addr_show_stop(*r) &&
		    *r != '@'; r++)
			;
		if (l == p || r == p + n)
			continue;
		w = xstrndup(l, r - l);
		if (addr == NULL || strcasecmp(w, addr) != 0)
			return w;
		free(w);
		p = r - 1;
	}
	return NULL;
}

/*
 * Fold the len bytes at name into out: blanks into one space, none at
 * either end, invisible characters dropped, a NUL as U+FFFD. Returns how
 * many characters went; *cutoff is the length of out at
 * ADDR_SHOW_NAME_MAX characters (or all of it).
 */
static size_t
addr_show_fold(struct buf *out, const char *name, size_t len, int *flags,
    size_t *cutoff)
{
	size_t		 i = 0, n, chars = 0, dropped = 0;
	uint32_t	 c;
	int		 blank = 0;

	*cutoff = (size_t)-1;
	while (i < len) {
		if ((n = strsafe_utf8_decode(name + i, len - i, &c)) == 0) {
			n = 1;
			c = 0xfffd;	/* drawn as \xHH: visible */
		}
		if (addr_show_blank(c) || addr_show_invisible(c)) {
			if (!addr_show_blank(c) || blank || out->len == 0)
				dropped++;
			blank |= addr_show_blank(c);
			i += n;
			continue;
		}
		if (c < 0x20 || c == 0x7f || strsafe_dangerous(c))
			*flags |= ADDR_SHOW_BIDI;
		if (blank && out->len > 0) {
			if (chars++ == ADDR_SHOW_NAME_MAX)
				*cutoff = out->len;
			buf_addc(out, ' ');
		}
		blank = 0;
		if (chars++ == ADDR_SHOW_NAME_MAX)
			*cutoff = out->len;
		if (c == 0)
			buf_adds(out, "\xef\xbf\xbd");
		else
			buf_add(out, name + i, n);
		i += n;
	}
	if (blank)
		dropped++;
	if (*cutoff == (size_t)-1)
		*cutoff = out->len;
	return dropped;
}

/* The name as shown, or NULL; *other: an address it holds, not addr. */
static char *
addr_show_name_other(const char *name, size_t len, const char *addr,
    int *flags, char **other)
{
	struct buf	 b;
	size_t		 cutoff, dropped, full;
	char		*w;

	buf_init(&b);
	dropped = addr_show_fold(&b, name, len, flags, &cutoff);
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	full = b.len;
	if ((w = addr_show_other(b.data, addr)) != NULL) {
		*flags |= ADDR_SHOW_OTHER_ADDR;
		if (other != NULL && *other == NULL)
			*other = w;
		else
			free(w);
	}
	/* A blank or two at the ends is nothing; more is padding. */
	if (dropped > 2 || cutoff < full)
		*flags |= ADDR_SHOW_PADDED;
	if (cutoff < full) {
		b.len = cutoff;
		buf_adds(&b, " [...]");
	}
	return buf_take(&b);
}

char *
addr_show_name(const char *name, size_t len, const char *addr, int *flags)
{
	return addr_show_name_other(name, len, addr, flags, NULL);
}

/* A name, quoted as RFC 5322 would when it holds specials. */
static void
addr_show_quoted(struct buf *out, const char *s)
{
	const char	*p;

	if (strpbrk(s, "<>@\",;:()\\") == NULL) {
		buf_adds(out, s);
		return;
	}
	buf_addc(out, '"');
	for (p = s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			buf_addc(out, '\\');
		buf_addc(out, *p);
	}
	buf_addc(out, '"');
}

/* Decoded, folded and cut text of a name or a piece, or NULL. */
static char *
addr_show_decoded(const char *raw, const char *addr, int *flags,
    char **other)
{
	struct buf	 d;
	char		*s;

	buf_init(&d);
	rfc2047_decode(&d, raw, strlen(raw));
	s = addr_show_name_other(d.data != NULL ? d.data : "", d.len, addr,
	    flags, other);
	buf_free(&d);
	return s;
}

/* A field with no mailbox at all ("undisclosed-recipients:;"). */
static void
addr_show_empty(const struct mime_header *h, const char *field,
    struct buf *out, int *flags)
{
	const struct mime_field	*f = NULL;
	struct buf		 raw;
	char			*v, *s;
	size_t			 len;

	buf_init(&raw);
	while ((f = mime_header_find(h, field, f)) != NULL) {
		v = mime_header_unfold(f, &len);
		if (raw.len > 0)
			buf_adds(&raw, ", ");
		buf_add(&raw, v, len < ADDR_LIST_MAX_BYTES ? len :
		    ADDR_LIST_MAX_BYTES);
		free(v);
	}
	if ((s = addr_show_decoded(raw.data != NULL ? raw.data : "", NULL,
	    flags, NULL)) != NULL) {
		addr_show_quoted(out, s);
		buf_addc(out, ' ');
		free(s);
	}
	buf_adds(out, "(no address)");
	buf_free(&raw);
}

int
addr_show_field(const struct mime_header *h, const char *field,
    struct addr_show *out)
{
	struct addr_mailbox	*v = NULL;
	struct buf		 t, a;
	size_t			 n = 0, i, bad;
	int			 nf = 0;
	char			*s, *other = NULL;

	memset(out, 0, sizeof *out);
	if (mime_header_find(h, field, NULL) == NULL)
		return 0;
	bad = addr_list_mailboxes(h, field, &v, &n);
	buf_init(&t);
	buf_init(&a);
	for (i = 0; i < n && i < ADDR_SHOW_MAX; i++) {
		if (t.len > 0)
			buf_adds(&t, ", ");
		if (v[i].addr == NULL) {
			out->flags |= ADDR_SHOW_UNREAD;
			s = addr_show_decoded(v[i].text, NULL, &nf, NULL);
			out->flags |= nf & ADDR_SHOW_BIDI;
			if (s != NULL) {
				addr_show_quoted(&t, s);
				buf_addc(&t, ' ');
			}
			buf_adds(&t, "(no address)");
			free(s);
			continue;
		}
		s = v[i].name == NULL ? NULL : addr_show_decoded(v[i].name,
		    v[i].addr, &out->flags, &other);
		if (s != NULL) {
			addr_show_quoted(&t, s);
			buf_adds(&t, " <");
		}
		buf_adds(&t, v[i].addr);
		if (s != NULL)
			buf_addc(&t, '>');
		free(s);
		if (a.len > 0)
			buf_adds(&a, ", ");
		buf_adds(&a, v[i].addr);
	}
	if (n > ADDR_SHOW_MAX)
		buf_addf(&t, " [... %zu more]", n - ADDR_SHOW_MAX);
	if (n == 0)
		addr_show_empty(h, field, &t, &out->flags);
	if (bad > 0)
		out->flags |= ADDR_SHOW_UNREAD;
	if (a.len == 0)
		out->flags |= ADDR_SHOW_NO_ADDR;
	out->text = buf_take(&t);
	if (a.len > 0)
		out->addrs = buf_take(&a);
	else
		buf_free(&a);
	out->other = other;
	addr_list_mailboxes_free(v, n);
	return 1;
}

char *
addr_show_sender(const char *name, const char *addr, int *warn)
{
	int	 flags = 0;
	char	*s;

	*warn = 0;
	if (addr == NULL || !addr_list_plausible(addr)) {
		*warn = 1;
		return xstrdup("(no address)");
	}
	if (name == NULL || *name == '\0')
		return xstrdup(addr);
	s = addr_show_name(name, strlen(name), addr, &flags);
	if (s == NULL || flags != 0 || strpbrk(s, "@<") != NULL ||
	    strstr(s, "=?") != NULL) {
		*warn = (flags & (ADDR_SHOW_OTHER_ADDR | ADDR_SHOW_BIDI)) != 0;
		free(s);
		return xstrdup(addr);
	}
	return s;
}

char *
addr_show_warning(const char *field, const struct addr_show *s)
{
	struct buf	b;

	if (!(s->flags & ADDR_SHOW_WARN))
		return NULL;
	buf_init(&b);
	if (s->flags & ADDR_SHOW_NO_ADDR) {
		buf_addf(&b, "%s: no address can be read from it, whatever its "
		    "text says: it names nobody", field);
		return buf_take(&b);
	}
	buf_addf(&b, "%s: ", field);
	if (s->flags & ADDR_SHOW_OTHER_ADDR)
		buf_addf(&b, "a name in it holds the address %s, which is not "
		    "its own; ", s->other != NULL ? s->other : "?");
	if (s->flags & ADDR_SHOW_BIDI)
		buf_adds(&b, "a name in it holds characters that turn text "
		    "around or act on the terminal; ");
	if (s->flags & ADDR_SHOW_UNREAD)
		buf_adds(&b, "a part of it holds no address that can be read; ");
	buf_addf(&b, "the address%s: %s", strchr(s->addrs, ',') != NULL ?
	    "es" : "", s->addrs);
	return buf_take(&b);
}

void
addr_show_free(struct addr_show *s)
{
	free(s->text);
	free(s->addrs);
	free(s->other);
	memset(s, 0, sizeof *s);
}
