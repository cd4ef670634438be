/*
 * test-setup.c: the parts of account/ that need no server: SRV and MX
 * RDATA (src/dns-query.c) with every length check, the RFC 2782 order of
 * SRV targets, server URLs, the fingerprint in a refusal, account names,
 * and setup_save() on files written here (comments kept, mode 0600, a
 * second account appended, nothing changed on failure), each result read
 * back with config_load().
 */
#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account/setup-int.h"
#include "buf.h"
#include "config.h"
#include "tap.h"
#include "xmalloc.h"

static char	dir[] = "/tmp/steed-setup-XXXXXX";
static char	path[512];

/* SRV RDATA: priority, weight, port, then a wire-format name. */
static size_t
srv_rdata(unsigned char *p, unsigned prio, unsigned weight, unsigned port,
    const char *wire, size_t wlen)
{
	p[0] = prio >> 8; p[1] = prio & 0xff;
	p[2] = weight >> 8; p[3] = weight & 0xff;
	p[4] = port >> 8; p[5] = port & 0xff;
	memcpy(p + 6, wire, wlen);
	return 6 + wlen;
}

static void
test_srv_parse(void)
{
	unsigned char	 p[600];
	struct dns_srv	 s;
	char		*cause = NULL, big[330];
	size_t		 n, i;
	int		 r;

	n = srv_rdata(p, 10, 20, 993, "\4imap\5steed\4test", 17);
	r = dns_srv_parse(p, n, &s, &cause);
	TAP_OK(r == 0 && s.priority == 10 && s.weight == 20 && s.port == 993,
	    "SRV: priority, weight and port");
	TAP_STR(r == 0 ? s.target : NULL, "imap.steed.test", "SRV: target");
	free(s.target);

	n = srv_rdata(p, 0, 0, 0, "", 1);
	r = dns_srv_parse(p, n, &s, &cause);
	TAP_OK(r == 0 && strcmp(s.target, "") == 0,
	    "SRV: target \".\" is the empty name (not offered)");
	free(s.target);

	r = dns_srv_parse(p, 6, &s, &cause);
	TAP_OK(r == -1 && strstr(cause, "too short") != NULL,
	    "SRV: no name at all is refused (%s)", cause);
	free(cause);
	cause = NULL;

	n = srv_rdata(p, 0, 1, 1, "\10imap", 5);
	r = dns_srv_parse(p, n, &s, &cause);
	TAP_OK(r == -1 && strstr(cause, "past the end") != NULL,
	    "SRV: a label longer than the record is refused (%s)", cause);
	free(cause);
	cause = NULL;

	n = srv_rdata(p, 0, 1, 1, "\4imap\4test", 10);
	r = dns_srv_parse(p, n, &s, &cause);
	TAP_OK(r == -1, "SRV: a name without its final zero is refused");
	free(cause);
	cause = NULL;

	n = srv_rdata(p, 0, 1, 1, "\4imap\0junk", 10);
	r = dns_srv_parse(p, n, &s, &cause);
	TAP_OK(r == -1 && strstr(cause, "after the name") != NULL,
	    "SRV: octets after the name are refused");
	free(cause);
	cause = NULL;

	n = srv_rdata(p, 0, 1, 1, "\300\14", 2);
	r = dns_srv_parse(p, n, &s, &cause);
	TAP_OK(r == -1 && strstr(cause, "compressed") != NULL,
	    "SRV: a compression pointer is refused");
	free(cause);
	cause = NULL;

	n = srv_rdata(p, 0, 1, 1, "\4im\033p\4test", 11);
	r = dns_srv_parse(p, n, &s, &cause);
	TAP_OK(r == -1 && strstr(cause, "not a host name") != NULL,
	    "SRV: a control character in the name is refused");
	free(cause);
	cause = NULL;

	/* 5 labels of 63 octets: 320 octets, more than 255. */
	for (i = 0; i < 5; i++) {
		big[i * 64] = 63;
		memset(big + i * 64 + 1, 'a', 63);
	}
	big[320] = 0;
	n = srv_rdata(p, 0, 1, 1, big, 321);
	r = dns_srv_parse(p, n, &s, &cause);
	TAP_OK(r == -1 && strstr(cause, "255") != NULL,
	    "SRV: a name longer than 255 octets is refused");
	free(cause);
}

static void
test_mx_parse(void)
{
	unsigned char	 p[64] = { 0, 10 };
	struct dns_mx	 mx;
	char		*cause = NULL;
	int		 r;

	memcpy(p + 2, "\4mail\5steed\4test", 17);
	r = dns_mx_parse(p, 19, &mx, &cause);
	TAP_OK(r == 0 && mx.preference == 10 &&
	    strcmp(mx.host, "mail.steed.test") == 0, "MX: preference, host");
	free(mx.host);
	r = dns_mx_parse(p, 2, &mx, &cause);
	TAP_OK(r == -1, "MX: too short is refused");
	free(cause);
}

static void
test_srv_order(void)
{
	struct dns_srv	 s[5];
	size_t		 i, heavy_first = 0, zero_first = 0;
	int		 sorted = 1, round;

	for (round = 0; round < 400; round++) {
		memset(s, 0, sizeof s);
		s[0].priority = 20; s[0].weight = 5; s[0].port = 1;
		s[1].priority = 10; s[1].weight = 1; s[1].port = 2;
		s[2].priority = 10; s[2].weight = 99; s[2].port = 3;
		s[3].priority = 30; s[3].weight = 0; s[3].port = 4;
		s[4].priority = 10; s[4].weight = 0; s[4].port = 5;
		setup_srv_order(s, 5);
		for (i = 1; i < 5; i++)
			if (s[i - 1].priority > s[i].priority)
				sorted = 0;
		if (s[0].port == 3)
			heavy_first++;
		if (s[0].port == 5)
			zero_first++;
		if (s[3].port != 1 || s[4].port != 4)
			sorted = 0;
	}
	TAP_OK(sorted, "SRV order: lowest priority first, always");
	TAP_OK(heavy_first > 300,
	    "SRV order: weight 99 of 100 comes first most often (%zu/400)",
	    heavy_first);
	TAP_OK(zero_first < 40,
	    "SRV order: weight 0 comes first rarely (%zu/400)", zero_first);
}

static void
test_url(void)
{
	struct config_url	 u;
	char			*cause = NULL, *t;
	int			 r;

	r = setup_url_parse(SETUP_IMAP, "imaps://imap.example.org", &u,
	    &cause);
	TAP_OK(r == 0 && u.tls == CONFIG_TLS_IMPLICIT && u.port == 993 &&
	    strcmp(u.host, "imap.example.org") == 0, "URL: imaps://, 993");
	t = setup_url_text(SETUP_IMAP, &u);
	TAP_STR(t, "imaps://imap.example.org", "URL: the usual port is left "
	    "out");
	free(t);
	free(u.host);

	r = setup_url_parse(SETUP_SMTP, "smtp://mx.example.org:2525", &u,
	    &cause);
	TAP_OK(r == 0 && u.tls == CONFIG_TLS_STARTTLS && u.port == 2525,
	    "URL: smtp:// is STARTTLS, with its port");
	t = setup_url_text(SETUP_SMTP, &u);
	TAP_STR(t, "smtp://mx.example.org:2525", "URL: written back");
	free(t);
	free(u.host);

	r = setup_url_parse(SETUP_IMAP, "smtps://x.org", &u, &cause);
	TAP_OK(r == -1, "URL: the other protocol's scheme is refused");
	free(cause);
	cause = NULL;
	r = setup_url_parse(SETUP_IMAP, "imaps://user@x.org", &u, &cause);
	TAP_OK(r == -1, "URL: a user in the URL is refused");
	free(cause);
	cause = NULL;
	r = setup_url_parse(SETUP_IMAP, "imaps://x.org:99999", &u, &cause);
	TAP_OK(r == -1, "URL: a port past 65535 is refused");
	free(cause);
}

static void
test_fingerprint(void)
{
	char	*f;

	f = setup_fingerprint_in("TLS certificate of x not trusted: signer "
	    "unknown (SHA-256 75:B4:27:D9:99:66:60:DA:C4:59:80:C0:21:76:68:A1:"
	    "7B:41:63:98:3D:83:AA:03:A4:5A:07:1D:D1:C9:13:06)");
	TAP_STR(f, "75b427d9996660dac45980c0217668a17b4163983d83aa03a45a07"
	    "1dd1c91306", "the fingerprint in a refusal, as 64 hex digits");
	free(f);
	f = setup_fingerprint_in("cannot connect to x:1: Connection refused");
	TAP_OK(f == NULL, "no fingerprint in a connection failure");
	f = setup_fingerprint_in("(SHA-256 AB:CD)");
	TAP_OK(f == NULL, "a short fingerprint is none");
}

/* The whole file, allocated. */
static char *
get(void)
{
	struct buf	 b;

	buf_init(&b);
	if (buf_read_file(&b, path, 1 << 20) == -1)
		return NULL;
	buf_addc(&b, '\0');
	return buf_take(&b);
}

static mode_t
mode(void)
{
	struct stat	sb;

	return stat(path, &sb) == 0 ? (sb.st_mode & 07777) : 0;
}

/* Files beside the configuration in its directory. */
static int
leftovers(void)
{
	struct dirent	*de;
	DIR		*d;
	char		 sub[512];
	int		 n = 0;

	snprintf(sub, sizeof sub, "%s/sub", dir);
	if ((d = opendir(sub)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, "config") != 0)
			n++;
	closedir(d);
	return n;
}

static void
account(struct setup_account *sa, const char *name, const char *address)
{
	char	*cause = NULL;

	memset(sa, 0, sizeof *sa);
	sa->name = name;
	sa->address = address;
	if (setup_url_parse(SETUP_IMAP, "imaps://imap.example.org", &sa->imap,
	    &cause) == -1 || setup_url_parse(SETUP_SMTP,
	    "smtp://smtp.example.org:2525", &sa->smtp, &cause) == -1)
		abort();
}

static void
test_save(void)
{
	struct setup_account	 sa;
	struct config		*cf;
	struct account		*a;
	char			*cause = NULL, *before, *after, *id;
	FILE			*f;

	snprintf(path, sizeof path, "%s/sub/config", dir);
	account(&sa, "Carol Example", "Carol.X@example.org");
	sa.password = "se\"cret";
	TAP_OK(setup_save(path, &sa, NULL, &cause) == 0,
	    "save: a new file in a new directory (%s)", cause ? cause : "");
	TAP_OK(mode() == 0600, "save: the new file is 0600");
	cf = config_load(path, &cause);
	a = cf != NULL ? cf->accounts : NULL;
	TAP_OK(a != NULL && strcmp(a->id, "carol.x") == 0 &&
	    strcmp(a->name, "Carol Example") == 0 &&
	    strcmp(a->password, "se\"cret") == 0 &&
	    a->smtp.tls == CONFIG_TLS_STARTTLS && a->smtp.port == 2525,
	    "save: read back: id from the address, name, password, URL");
	id = setup_account_id(cf, "carol.x@other.org");
	TAP_STR(id, "carol.x-2", "account id: a used name gets a number");
	free(id);
	config_free(cf);
	free(sa.imap.host);
	free(sa.smtp.host);

	/* A file of the user's own, with comments and odd spacing. */
	f = fopen(path, "w");
	fputs("# my mail\n\nca-file = /etc/ssl/certs/ca-certificates.crt\n"
	    "\n[account work]   \n# work comes first\nname = W\n"
	    "address = w@example.org\nimap = imaps://imap.example.org\n"
	    "smtp = smtps://smtp.example.org\npassword-command = pass w\n",
	    f);
	fclose(f);
	chmod(path, 0644);
	before = get();
	account(&sa, "Dave", "dave@example.org");
	sa.password_command = "pass dave";
	sa.cert_fingerprint = "75b427d9996660dac45980c0217668a17b4163983d83aa"
	    "03a45a071dd1c91306";
	TAP_OK(setup_save(path, &sa, NULL, &cause) == 0, "save: a second account");
	after = get();
	TAP_OK(after != NULL && strncmp(after, before, strlen(before)) == 0,
	    "save: every byte of the file before is kept, in place");
	TAP_OK(after != NULL && strstr(after + strlen(before),
	    "[account dave]") != NULL, "save: the new account is appended");
	TAP_OK(mode() == 0600, "save: a 0644 file becomes 0600");
	cf = config_load(path, &cause);
	TAP_OK(cf != NULL && cf->naccounts == 2 &&
	    strcmp(cf->accounts->id, "work") == 0 &&
	    strcmp(cf->accounts->next->password_command, "pass dave") == 0 &&
	    cf->accounts->next->password == NULL &&
	    cf->accounts->next->cert_fingerprint != NULL,
	    "save: both accounts read back; the command, no password, the pin");
	config_free(cf);

	sa.id = "work";
	TAP_OK(setup_save(path, &sa, NULL, &cause) == -1 &&
	    strstr(cause, "already has an account") != NULL,
	    "save: an account name in use is refused");
	free(cause);
	cause = NULL;
	sa.id = NULL;
	sa.cert_fingerprint = "not hex";
	TAP_OK(setup_save(path, &sa, NULL, &cause) == -1,
	    "save: a value config_load() refuses is refused (%s)",
	    cause ? cause : "");
	free(cause);
	free(before);
	before = get();
	TAP_OK(before != NULL && strcmp(before, after) == 0,
	    "save: after a refusal the file is as it was");
	TAP_OK(leftovers() == 0, "save: no temporary file left");
	free(before);
	free(after);
	free(sa.imap.host);
	free(sa.smtp.host);
}

/* gpg in the test's GnuPG home; 0 when it succeeded. */
static int
gpg(const char *gdir, const char *args)
{
	char	*cmd;
	int	 rc;

	cmd = xasprintf("gpg --homedir %s --batch --quiet --pinentry-mode "
	    "loopback --passphrase '' %s >/dev/null 2>&1", gdir, args);
	rc = system(cmd);
	free(cmd);
	return rc;
}

static void
test_keys(void)
{
	struct setup_key	*k = NULL;
	struct config		 cf;
	char			 gdir[600], *cause = NULL, *cmd;
	size_t			 n = 0;
	int			 made;

	snprintf(gdir, sizeof gdir, "%s/gnupg", dir);
	made = mkdir(gdir, 0700) == 0 &&
	    gpg(gdir, "--quick-gen-key 'Other <other@example.org>' ed25519 "
	    "sign never") == 0 &&
	    gpg(gdir, "--quick-gen-key 'Carol <carol@example.org>' ed25519 "
	    "sign never") == 0 &&
	    gpg(gdir, "--faked-system-time 20200101T000000 --quick-gen-key "
	    "'Old <carol@example.org>' ed25519 sign 1y") == 0 &&
	    gpg(gdir, "--quick-gen-key 'Cert only <carol@example.org>' "
	    "ed25519 cert never") == 0;
	TAP_OK(made, "gpg makes four keys: two usable, one expired, one that "
	    "cannot sign");
	memset(&cf, 0, sizeof cf);
	cf.gnupg_home = gdir;
	TAP_OK(setup_keys(&cf, "Carol@Example.org", &k, &n, &cause) == 0,
	    "setup_keys lists the secret keys%s%s", cause ? ": " : "",
	    cause ? cause : "");
	TAP_OK(n == 2, "only the two usable keys (%zu)", n);
	if (n == 2) {
		TAP_OK(k[0].has_address && strstr(k[0].uid, "<carol@example.org>")
		    != NULL && !k[1].has_address &&
		    strstr(k[1].uid, "<other@example.org>") != NULL,
		    "the key with the address comes first");
		TAP_OK(strlen(k[0].fpr) == 40 &&
		    strspn(k[0].fpr, "0123456789ABCDEF") == 40,
		    "fingerprints are 40 upper-case hex digits");
		TAP_OK(!k[0].card && !k[1].card, "no key is on a card");
	}
	setup_keys_free(k, n);
	free(cause);
	cmd = xasprintf("gpgconf --homedir %s --kill all", gdir);
	(void)system(cmd);
	free(cmd);
}

int
main(void)
{
	char	cmd[600];

	if (mkdtemp(dir) == NULL)
		return 1;
	test_srv_parse();
	test_mx_parse();
	test_srv_order();
	test_url();
	test_fingerprint();
	test_save();
	test_keys();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	(void)system(cmd);
	return TAP_DONE();
}
