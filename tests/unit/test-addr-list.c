/*
 * test-addr-list.c: the shapes of an address addr_list_simple() reads
 * without libetpan (src/addr-list.c) must come out exactly as libetpan
 * reads them. Fixed cases first, then many generated pieces, each one
 * the fast reading takes compared with libetpan's, and what it refuses
 * still read by addr_list_value().
 */
#include <stdlib.h>
#include <string.h>

#include <libetpan/libetpan.h>

#include "addr-list.h"
#include "tap.h"
#include "xmalloc.h"

/* libetpan's reading of s as one mailbox: 1 with name (NULL: none) and
 * addr, 0 if it reads something else or not all of s. */
static int
etpan_read(const char *s, char **name, char **addr)
{
	struct mailimf_address_list	*al;
	struct mailimf_address		*a;
	struct mailimf_mailbox		*mb;
	size_t				 idx = 0, len = strlen(s);
	int				 ok = 0;

	*name = *addr = NULL;
	if (mailimf_address_list_parse(s, len, &idx, &al) != MAILIMF_NO_ERROR)
		return 0;
	if (idx == len && clist_count(al->ad_list) == 1) {
		a = clist_content(clist_begin(al->ad_list));
		if (a->ad_type == MAILIMF_ADDRESS_MAILBOX) {
			mb = a->ad_data.ad_mailbox;
			if (mb->mb_display_name != NULL &&
			    *mb->mb_display_name != '\0')
				*name = xstrdup(mb->mb_display_name);
			*addr = xstrdup(mb->mb_addr_spec);
			ok = 1;
		}
	}
	mailimf_address_list_free(al);
	return ok;
}

static int
same(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* Does the fast reading of s agree with libetpan's and addr_list_value()?
 * *taken: whether the fast reading took it. */
static int
agrees(const char *s, int *taken)
{
	struct addr_mailbox	*v = NULL;
	size_t			 n = 0;
	char			*fn, *fa, *en, *ea;
	int			 ok = 1;

	*taken = addr_list_simple(s, strlen(s), &fn, &fa);
	if (*taken) {
		ok = etpan_read(s, &en, &ea) && same(fn, en) && same(fa, ea);
		if (!ok)
			printf("# \"%s\": fast \"%s\" <%s>, libetpan \"%s\" "
			    "<%s>\n", s, fn ? fn : "-", fa ? fa : "-",
			    en ? en : "-", ea ? ea : "-");
		free(en);
		free(ea);
		addr_list_value(s, strlen(s), &v, &n);
		if (n != 1 || !same(v[0].name, fn) || !same(v[0].addr, fa))
			ok = 0;
		addr_list_mailboxes_free(v, n);
	}
	free(fn);
	free(fa);
	return ok;
}

#define TAKEN(s, what) do {						\
	int t_;								\
	TAP_OK(agrees(s, &t_) && t_, "%s: read fast, as libetpan", what);\
} while (0)
#define LEFT(s, what) do {						\
	int t_;								\
	TAP_OK(agrees(s, &t_) && !t_, "%s: left to libetpan", what);	\
} while (0)

/* A piece made of random parts, most of them near the shapes taken. */
static void
gen(char *out, size_t cap, unsigned *seed)
{
	static const char *const parts[] = {
		"a", "Bob", "x9", "o'neil", "=?utf-8?q?J=C3=B6rg?=", "#", "_",
		" ", " ", "  ", ".", "..", "@", "@", "<", ">", "\"", "(", ")",
		",", "\t", "a.b", "example.org", "[1.2.3.4]", "\\", ":", ";",
		"-", "~", "\xc3\xa9", "x@y", "<a@b.c>", " <", "a@b.c",
		"{|}", "!$&*+/^`", "%", "\r\n", "Bob <", "\x7f", "\x01",
	};
	size_t	np = sizeof parts / sizeof parts[0], len = 0, k, i;

	out[0] = '\0';
	k = 1 + rand_r(seed) % 8;
	for (i = 0; i < k; i++) {
		const char *p = parts[rand_r(seed) % np];

		if (len + strlen(p) + 1 >= cap)
			break;
		memcpy(out + len, p, strlen(p) + 1);
		len += strlen(p);
	}
}

int
main(void)
{
	char		 s[128];
	unsigned	 seed = 26;
	size_t		 i, taken = 0, bad = 0;
	int		 t;

	TAKEN("alice@example.org", "a bare address");
	TAKEN("Alice <alice@example.org>", "a name and an address");
	TAKEN("Alice B Cooper <a.b.cooper@mail.example.org>",
	    "three words, dots in the address");
	LEFT("Alice B. Cooper <a@example.org>", "a dot in the name");
	LEFT("=?utf-8?q?J=C3=B6rg?= <j@example.org>", "an encoded word");
	LEFT("x=?utf-8?q?J=C3=B6rg?=y <j@example.org>",
	    "an encoded word inside a word");
	TAKEN("o'neil+tag@example.org", "atext in the local part");
	LEFT("\"Alice\" <alice@example.org>", "a quoted name");
	LEFT("Alice  <alice@example.org>", "two spaces before '<'");
	LEFT("Alice<alice@example.org>", "no space before '<'");
	LEFT("Alice (home) <alice@example.org>", "a comment");
	LEFT("alice@example.org (Alice)", "a trailing comment");
	LEFT("alice@x <mallory@y>", "an '@' in the name");
	LEFT("a..b@example.org", "two dots");
	LEFT("alice@[127.0.0.1]", "a domain literal");
	LEFT("J\xc3\xb6rg <j@example.org>", "8-bit bytes");
	LEFT("Alice <alice@example.org> x", "text after the address");
	LEFT("<alice@example.org>", "angle brackets, no name");

	for (i = 0; i < 200000; i++) {
		gen(s, sizeof s, &seed);
		if (!agrees(s, &t))
			bad++;
		taken += t != 0;
	}
	printf("# %zu of 200000 generated pieces read fast\n", taken);
	TAP_OK(bad == 0, "generated pieces: %zu disagreements", bad);
	TAP_OK(taken > 1000, "generated pieces: enough read fast (%zu)",
	    taken);
	return TAP_DONE();
}
