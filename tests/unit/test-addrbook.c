/*
 * test-addrbook.c: address completion (addrbook.h) from a temporary alias
 * file, trust store and header cache: mutt's alias forms, comments,
 * quoted names, bad lines skipped, matching by alias, name word and
 * address in any case, the order of the sources, each address once, the
 * limit, addrbook_alias() and addrbook_format(); and that completion in a
 * cache of 100,000 messages stays fast.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addrbook.h"
#include "cache.h"
#include "config.h"
#include "trust-store.h"
#include "tap.h"

static char	dir[] = "/tmp/steed-addrbook-XXXXXX";

static const char aliases[] =
    "# the team\n"
    "alias bob Bob Example <bob@example.org>\n"
    "alias carol \"Lindqvist, Carol\" <carol@example.org>  # work\n"
    "alias team bob@example.org, Dave O <dave@example.org>, erin@x.test\n"
    "alias -group friends fred fred@example.net\n"
    "alias broken Bob <bob@example.org\n"
    "aliens are not aliases\n"
    "alias nothing\n"
    "alias bad not-an-address\n"
    "alias utf Zoë Ünal <zoe@example.org>\n"
    "   \n"
    "alias trail a@example.com,\n";

static void
write_file(const char *path, const char *text)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

static void
put(struct cache *c, struct cache_mailbox *mb, uint32_t uid, const char *from,
    const char *addr, time_t when)
{
	struct cache_msg	 m;
	char			*cause = NULL;

	memset(&m, 0, sizeof m);
	m.uid = uid;
	strcpy(m.flags, "S");
	m.subject = "hello";
	m.from = from;
	m.from_addr = addr;
	m.internaldate = when;
	if (cache_put(c, mb, &m, &cause) == -1) {
		printf("# put: %s\n", cause);
		free(cause);
	}
}

/* Where addr is in v (its index), or -1. */
static int
find(struct addrbook_entry *v, int n, const char *addr)
{
	int	i;

	for (i = 0; i < n; i++) {
		if (strcmp(v[i].addr, addr) == 0)
			return i;
	}
	return -1;
}

static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(void)
{
	struct config		 cf;
	struct trust_store	*ts;
	struct cache		*c, *big;
	struct cache_mailbox	 mb;
	struct addrbook_entry	*v, e;
	char			 path[512], tpath[512], cpath[512], bpath[512];
	char			*cause = NULL, **addrs, *s;
	size_t			 na, i;
	int			 n, k, dup;
	double			 t0, ms;
	time_t			 now = time(NULL);

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/aliases", dir);
	snprintf(tpath, sizeof tpath, "%s/trust.sqlite", dir);
	snprintf(cpath, sizeof cpath, "%s/a.hcache", dir);
	snprintf(bpath, sizeof bpath, "%s/big.hcache", dir);
	memset(&cf, 0, sizeof cf);
	cf.alias_file = path;

	/* --- a missing file: no aliases, no error -------------------------- */
	n = addrbook_complete(&cf, NULL, NULL, "b", 10, &v, &cause);
	TAP_OK(n == 0, "a missing alias file: nothing, no error");
	addrbook_free(v, n > 0 ? n : 0);
	TAP_OK(addrbook_alias(&cf, "bob", &addrs, &na, &cause) == 0,
	    "a missing alias file: no alias bob");

	write_file(path, aliases);

	/* --- the alias file -------------------------------------------------- */
	n = addrbook_complete(&cf, NULL, NULL, "bo", 10, &v, &cause);
	TAP_OK(n == 2 && strcmp(v[1].alias, "team") == 0,
	    "\"bo\": the alias bob, then team (bob@ is one of its addresses)");
	if (n >= 1) {
		TAP_STR(v[0].alias, "bob", "its alias");
		TAP_STR(v[0].name, "Bob Example", "its display name");
		TAP_STR(v[0].addr, "bob@example.org", "its address");
		TAP_STR(v[0].source, "alias", "its source");
		s = addrbook_format(&v[0]);
		TAP_STR(s, "Bob Example <bob@example.org>", "formatted");
		free(s);
	}
	addrbook_free(v, n);

	n = addrbook_complete(&cf, NULL, NULL, "LIND", 10, &v, &cause);
	TAP_OK(n == 1 && strcmp(v[0].addr, "carol@example.org") == 0,
	    "a word of the display name, any case, the comment dropped");
	if (n == 1) {
		TAP_STR(v[0].name, "Lindqvist, Carol", "the quotes taken off");
		s = addrbook_format(&v[0]);
		TAP_STR(s, "\"Lindqvist, Carol\" <carol@example.org>",
		    "quoted again when formatted");
		free(s);
	}
	addrbook_free(v, n);

	n = addrbook_complete(&cf, NULL, NULL, "carol", 10, &v, &cause);
	TAP_OK(n == 1, "the second word of the name");
	addrbook_free(v, n);

	n = addrbook_complete(&cf, NULL, NULL, "team", 10, &v, &cause);
	TAP_OK(n == 1 && v[0].name == NULL && strcmp(v[0].addr,
	    "bob@example.org, dave@example.org, erin@x.test") == 0,
	    "an alias of three: its addresses in one entry");
	if (n == 1) {
		s = addrbook_format(&v[0]);
		TAP_STR(s, "bob@example.org, dave@example.org, erin@x.test",
		    "formatted as the list");
		free(s);
	}
	addrbook_free(v, n);

	n = addrbook_complete(&cf, NULL, NULL, "fred", 10, &v, &cause);
	TAP_OK(n == 1 && strcmp(v[0].addr, "fred@example.net") == 0,
	    "mutt's -group before the name");
	addrbook_free(v, n);

	n = addrbook_complete(&cf, NULL, NULL, "zo", 10, &v, &cause);
	TAP_OK(n == 1 && strcmp(v[0].name, "Zoë Ünal") == 0,
	    "a UTF-8 display name");
	addrbook_free(v, n);
	n = addrbook_complete(&cf, NULL, NULL, "Ün", 10, &v, &cause);
	TAP_OK(n == 1, "its second word, in UTF-8 (case is ASCII's only)");
	addrbook_free(v, n);

	n = addrbook_complete(&cf, NULL, NULL, "", 100, &v, &cause);
	TAP_OK(n == 6, "bad lines skipped: 6 aliases of 12 lines (got %d)", n);
	TAP_OK(find(v, n, "a@example.com") >= 0, "a trailing comma is allowed");
	TAP_OK(find(v, n, "not-an-address") == -1 &&
	    find(v, n, "bob@example.org") >= 0,
	    "not an address: the line is skipped");
	addrbook_free(v, n);

	TAP_OK(addrbook_alias(&cf, "TEAM", &addrs, &na, &cause) == 1 &&
	    na == 3 && strcmp(addrs[1], "dave@example.org") == 0,
	    "addrbook_alias: any case, the addresses without names");
	for (i = 0; i < na; i++)
		free(addrs[i]);
	free(addrs);
	TAP_OK(addrbook_alias(&cf, "te", &addrs, &na, &cause) == 0,
	    "addrbook_alias: exact names only");
	TAP_OK(addrbook_alias(&cf, "broken", &addrs, &na, &cause) == 0,
	    "addrbook_alias: a bad line is no alias");

	/* --- the trust store and the header cache --------------------------- */
	if ((ts = trust_store_open(tpath, &cause)) == NULL) {
		printf("# %s\n", cause);
		return 1;
	}
	TAP_OK(trust_store_sighting(ts, "bob@example.org", "AAAA0000AAAA0000"
	    "AAAA0000AAAA0000AAAA0000", NULL, TRUST_SRC_AUTOCRYPT, now,
	    &cause) == 0 && trust_store_sighting(ts, "bea@example.org",
	    "BBBB0000BBBB0000BBBB0000BBBB0000BBBB0000", NULL,
	    TRUST_SRC_AUTOCRYPT, now, &cause) == 0,
	    "two correspondents in the trust store");
	c = cache_open_path(cpath, &cause);
	TAP_OK(c != NULL && cache_mailbox(c, "INBOX", 1, &mb, &cause) == 0,
	    "a header cache");
	put(c, &mb, 1, "Bea Bauer", "bea@example.org", now - 50);
	put(c, &mb, 2, "Boris Ng", "boris@example.org", now - 40);
	put(c, &mb, 3, "Boris Ng", "boris@example.org", now - 30);
	put(c, &mb, 4, "Boris Ng", "Boris@Example.org", now - 20);
	put(c, &mb, 5, "ben@example.org", "ben@example.org", now - 10);
	put(c, &mb, 6, "Anna 100%_b", "anna@example.org", now - 5);

	n = addrbook_complete(&cf, ts, c, "b", 20, &v, &cause);
	TAP_OK(n > 0 && strcmp(v[0].source, "alias") == 0,
	    "aliases first");
	k = find(v, n, "bob@example.org");
	TAP_OK(k >= 0 && strcmp(v[k].source, "alias") == 0,
	    "bob once, from the alias (the first source wins)");
	for (i = 0, dup = 0; i < (size_t)n; i++)
		dup += strcasecmp(v[i].addr, "bob@example.org") == 0;
	TAP_OK(dup == 1, "each address once");
	k = find(v, n, "bea@example.org");
	TAP_OK(k >= 0 && strcmp(v[k].source, "trust store") == 0 &&
	    v[k].name != NULL && strcmp(v[k].name, "Bea Bauer") == 0,
	    "bea from the trust store, with the name her mail gave");
	k = find(v, n, "boris@example.org");
	if (k == -1)
		k = find(v, n, "Boris@Example.org");
	TAP_OK(k >= 0 && strcmp(v[k].source, "mail seen") == 0 &&
	    strcmp(v[k].name, "Boris Ng") == 0, "boris from the mail seen");
	TAP_OK(k >= 0 && k < find(v, n, "ben@example.org"),
	    "boris (3 messages) before ben (1)");
	k = find(v, n, "ben@example.org");
	TAP_OK(k >= 0 && v[k].name == NULL,
	    "a sender without a display name has none");
	addrbook_free(v, n);

	n = addrbook_complete(&cf, ts, c, "ng", 20, &v, &cause);
	TAP_OK(n == 1 && strcmp(v[0].name, "Boris Ng") == 0,
	    "a sender by the second word of his name");
	addrbook_free(v, n);
	n = addrbook_complete(&cf, ts, c, "%", 20, &v, &cause);
	TAP_OK(n == 0, "LIKE's %% is a character, not a wildcard");
	addrbook_free(v, n);
	n = addrbook_complete(&cf, ts, c, "100%_", 20, &v, &cause);
	TAP_OK(n == 1, "... and matches itself");
	addrbook_free(v, n);
	n = addrbook_complete(&cf, ts, c, "b", 2, &v, &cause);
	TAP_OK(n == 2, "at most max entries");
	addrbook_free(v, n);

	e.alias = NULL;
	e.name = "Dr. \"Who\"";
	e.addr = "who@example.org";
	s = addrbook_format(&e);
	TAP_STR(s, "\"Dr. \\\"Who\\\"\" <who@example.org>",
	    "specials and quotes in a name: quoted and escaped");
	free(s);
	e.name = NULL;
	s = addrbook_format(&e);
	TAP_STR(s, "who@example.org", "no name: the address");
	free(s);

	/* --- an alias file that cannot be read ------------------------------ */
	chmod(path, 0);
	/* root reads any file: a directory is what cannot be read then */
	if (access(path, R_OK) == 0)
		cf.alias_file = dir;
	n = addrbook_complete(&cf, ts, c, "b", 10, &v, &cause);
	TAP_OK(n == -1 && cause != NULL && strstr(cause, "alias file") != NULL,
	    "an alias file that cannot be read: an error");
	free(cause);
	cause = NULL;
	cf.alias_file = path;
	chmod(path, 0600);
	cache_close(c);
	trust_store_close(ts);

	/* --- 100,000 messages ---------------------------------------------- */
	big = cache_open_path(bpath, &cause);
	if (big != NULL && cache_mailbox(big, "INBOX", 1, &mb, &cause) == 0 &&
	    cache_begin(big, &cause) == 0) {
		char	name[64], addr[64];
		for (i = 1; i <= 100000; i++) {
			snprintf(name, sizeof name, "Person %zu Smith",
			    i % 5000);
			snprintf(addr, sizeof addr, "p%zu@example.org", i % 5000);
			put(big, &mb, (uint32_t)i, name, addr,
			    now - (time_t)i);
		}
		cache_commit(big, &cause);
	}
	write_file(path, "");
	n = addrbook_complete(&cf, NULL, big, "p12", 10, &v, &cause);
	addrbook_free(v, n);
	t0 = now_ms();
	for (k = 0; k < 5; k++) {
		n = addrbook_complete(&cf, NULL, big, "p12", 10, &v, &cause);
		addrbook_free(v, n > 0 ? n : 0);
	}
	ms = (now_ms() - t0) / 5;
	TAP_OK(n == 10, "100,000 messages: 10 of the senders starting p12");
	printf("# 100,000 messages, 5,000 senders: %.1f ms a completion\n", ms);
	t0 = now_ms();
	n = addrbook_complete(&cf, NULL, big, "smi", 10, &v, &cause);
	ms = now_ms() - t0;
	TAP_OK(n == 10, "... and by a word of their names");
	printf("# by a name's word: %.1f ms\n", ms);
	addrbook_free(v, n > 0 ? n : 0);
	cache_close(big);

	unlink(path);
	unlink(tpath);
	unlink(cpath);
	unlink(bpath);
	snprintf(tpath, sizeof tpath, "rm -rf %s", dir);
	if (system(tpath) != 0)
		printf("# cannot remove %s\n", dir);
	return TAP_DONE();
}
