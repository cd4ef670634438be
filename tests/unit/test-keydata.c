/*
 * test-keydata.c: the packet check of key data from mail, and the memo
 * that spares gpg the second import of the same blob (keydata.h), and a
 * thread that defers imports (the trust step's second thread). The
 * import runs real gpg in a temporary home.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto.h"
#include "keydata.h"
#include "tap.h"
#include "xmalloc.h"

static int
scan(const unsigned char *p, size_t len, int *npub, int *nsec, char **why)
{
	*why = NULL;
	return keydata_scan(p, len, npub, nsec, why);
}

static int
broken(const unsigned char *p, size_t len, const char *want)
{
	char	*why;
	int	 npub, nsec, ok;

	ok = scan(p, len, &npub, &nsec, &why) == -1 && why != NULL &&
	    strstr(why, want) != NULL;
	if (!ok)
		printf("# got: %s\n", why != NULL ? why : "(accepted)");
	free(why);
	return ok;
}

/* Read a whole file; NULL if it cannot be. */
static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE		*f;
	unsigned char	*b;
	long		 n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = xmalloc(n > 0 ? n : 1);
	*len = fread(b, 1, n, f);
	fclose(f);
	return b;
}

int
main(void)
{
	/* new format: public key (len 3), user ID (len 2), subkey (len 1) */
	static const unsigned char one[] = { 0xc6, 3, 4, 0, 0, 0xcd, 2, 'a',
	    'b', 0xce, 1, 4 };
	/* old format: public key (1-octet length), user ID (2-octet) */
	static const unsigned char old[] = { 0x98, 2, 4, 0, 0xb5, 0, 1, 'a' };
	static const unsigned char v3[] = { 0xc6, 2, 3, 0 };
	static const unsigned char two[] = { 0xc6, 1, 4, 0xc6, 1, 4 };
	static const unsigned char sec[] = { 0xc6, 1, 4, 0xc7, 1, 4 };
	static const unsigned char seckey[] = { 0xc5, 1, 4 };
	static const unsigned char past[] = { 0xc6, 9, 4 };
	static const unsigned char hdr[] = { 0xc6, 0xc0 };
	static const unsigned char partial[] = { 0xc6, 0xe1, 4, 4 };
	static const unsigned char indet[] = { 0x9b, 4 };
	static const unsigned char notpgp[] = { 'm', 'Q', 'I', 'N' };
	static const unsigned char big[] = { 0xc6, 0xff, 0xff, 0xff, 0xff,
	    0xf0, 4 };
	char		 dir[] = "/tmp/test-keydata.XXXXXX", *cmd, *why, *fpr,
			*fpr2, *memo, *path, **fprs;
	unsigned char	*kd;
	size_t		 kdlen = 0, nfprs = 0, i;
	int		 npub, nsec;

	TAP_OK(scan(one, sizeof one, &npub, &nsec, &why) == 0 && npub == 1 &&
	    nsec == 0, "a key, a user ID and a subkey: one public key");
	TAP_OK(scan(old, sizeof old, &npub, &nsec, &why) == 0 && npub == 1 &&
	    nsec == 0, "old-format headers are read");
	TAP_OK(scan(two, sizeof two, &npub, &nsec, &why) == 0 && npub == 2,
	    "two public keys are counted");
	TAP_OK(scan(sec, sizeof sec, &npub, &nsec, &why) == 0 && nsec == 1,
	    "a secret subkey is seen");
	TAP_OK(scan(seckey, sizeof seckey, &npub, &nsec, &why) == 0 &&
	    npub == 0 && nsec == 1, "a secret key is seen");
	TAP_OK(broken(past, sizeof past, "past the end"),
	    "a length past the end is refused");
	TAP_OK(broken(hdr, sizeof hdr, "inside a packet header"),
	    "a cut two-octet length is refused");
	TAP_OK(broken(partial, sizeof partial, "partial-length"),
	    "a partial length is refused");
	TAP_OK(broken(indet, sizeof indet, "indeterminate"),
	    "an indeterminate length is refused");
	TAP_OK(broken(notpgp, sizeof notpgp, "not OpenPGP"),
	    "armor or text is not packet data");
	TAP_OK(broken(big, sizeof big, "past the end"),
	    "a four-octet length near 4 GiB does not wrap");

	TAP_OK(keydata_import(sec, sizeof sec, &why) == NULL && why != NULL &&
	    strstr(why, "secret material") != NULL,
	    "secret material is never imported (%s)", why);
	free(why);
	why = NULL;
	TAP_OK(keydata_import(two, sizeof two, &why) == NULL && why != NULL &&
	    strstr(why, "holds 2 keys") != NULL, "two keys are refused (%s)",
	    why);
	free(why);
	why = NULL;

	if (mkdtemp(dir) == NULL || crypto_init(dir, &why) == -1) {
		TAP_OK(0, "a GnuPG home for the import: %s", why);
		return TAP_DONE();
	}
	cmd = xasprintf("gpg --homedir %s/gen --batch --quiet "
	    "--pinentry-mode loopback --passphrase '' --quick-gen-key "
	    "'Test <test@example.org>' ed25519 sign never 2>/dev/null && "
	    "gpg --homedir %s/gen --batch --export test@example.org "
	    ">%s/key.gpg", dir, dir, dir);
	path = xasprintf("mkdir -m 700 %s/gen && %s", dir, cmd);
	TAP_OK(system(path) == 0, "gpg makes a key to import");
	free(path);
	free(cmd);
	path = xasprintf("%s/key.gpg", dir);
	kd = slurp(path, &kdlen);
	free(path);
	TAP_OK(kd != NULL && kdlen > 0, "the exported key is read");
	if (kd == NULL)
		return TAP_DONE();

	/* Deferring (a thread of the trust step's): gpg is not asked. */
	keydata_defer(1);
	fpr = keydata_import(kd, kdlen, &why);
	TAP_OK(fpr == NULL && why != NULL && keydata_deferred() == 1,
	    "deferring: a blob not imported before is not imported (%s)",
	    why != NULL ? why : "imported");
	keydata_defer(0);
	TAP_OK(keydata_deferred() == 0, "the count starts again");
	free(fpr);
	free(why);
	why = NULL;
	fpr = keydata_import(kd, kdlen, &why);
	TAP_OK(fpr != NULL && strlen(fpr) == 40, "the key is imported: %s",
	    fpr != NULL ? fpr : why);
	keydata_defer(1);
	fpr2 = keydata_import(kd, kdlen, &why);
	TAP_STR(fpr2, fpr, "deferring, the same blob again: the memo answers");
	TAP_OK(keydata_deferred() == 0, "... and nothing was deferred");
	keydata_defer(0);
	free(fpr2);
	fprs = NULL;
	TAP_OK(keydata_fingerprints(kd, kdlen, &fprs, &nfprs, &why) == 0 &&
	    nfprs == 1, "one primary key in the exported data");
	TAP_STR(nfprs == 1 ? fprs[0] : NULL, fpr,
	    "the fingerprint computed from the packets is gpg's");
	for (i = 0; i < nfprs; i++)
		free(fprs[i]);
	free(fprs);
	TAP_OK(keydata_fingerprints(v3, sizeof v3, &fprs, &nfprs,
	    &why) == 0 && nfprs == 1 && strcmp(fprs[0], "?") == 0,
	    "a key packet of an unknown version: ?");
	free(fprs[0]);
	free(fprs);
	TAP_OK(keydata_fingerprints(past, sizeof past, &fprs, &nfprs,
	    &why) == -1, "broken data: no fingerprints");
	free(why);
	path = xasprintf("%s/" KEYDATA_MEMO_DIR, dir);
	TAP_OK(access(path, F_OK) == 0, "the memo directory exists");
	free(path);

	/*
	 * Overwrite the memo with another fingerprint: if the second import
	 * of the same blob asks gpg, it gives the real one back.
	 */
	cmd = xasprintf("for f in %s/" KEYDATA_MEMO_DIR "/*; do "
	    "printf '%s\\n' >\"$f\"; done", dir,
	    "0123456789ABCDEF0123456789ABCDEF01234567");
	TAP_OK(system(cmd) == 0, "the memo is rewritten");
	free(cmd);
	fpr2 = keydata_import(kd, kdlen, &why);
	TAP_STR(fpr2, "0123456789ABCDEF0123456789ABCDEF01234567",
	    "the same blob again: the memo answers, gpg is not asked");
	free(fpr2);

	/* A memo that is not a fingerprint is ignored: gpg is asked. */
	memo = xasprintf("for f in %s/" KEYDATA_MEMO_DIR "/*; do "
	    "printf 'garbage\\n' >\"$f\"; done", dir);
	TAP_OK(system(memo) == 0, "the memo is spoiled");
	free(memo);
	fpr2 = keydata_import(kd, kdlen, &why);
	TAP_STR(fpr2, fpr, "a spoiled memo: gpg imports and tells again");
	free(fpr2);

	free(fpr);
	free(kd);
	cmd = xasprintf("gpgconf --homedir %s --kill all; "
	    "gpgconf --homedir %s/gen --kill all; rm -rf %s", dir, dir, dir);
	if (system(cmd) != 0)
		printf("# cleaning up %s failed\n", dir);
	free(cmd);
	return TAP_DONE();
}
