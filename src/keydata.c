/*
 * keydata.c: one public key from mail into the GnuPG home (keydata.h).
 *
 * The memo is a cache and nothing more: a file that cannot be read or
 * written only means gpg imports the blob again. A blob is named by the
 * SHA-256 of its bytes, so a changed key (a new subkey, a new expiry, a
 * revocation) is a new blob and is imported. Removing a key from the home
 * by hand (gpg --delete-keys) should go with removing the directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gnutls/crypto.h>
#include <gpgme.h>

#include "crypto.h"
#include "atomic.h"
#include "keydata.h"
#include "log.h"
#include "xmalloc.h"

#define KEYDATA_TAG_SECKEY	5
#define KEYDATA_TAG_PUBKEY	6
#define KEYDATA_TAG_SECSUB	7

typedef void (*keydata_cb)(int tag, const unsigned char *body, size_t len,
    void *arg);

/* Call cb for every packet; -1 with *cause if the structure is broken. */
static int
keydata_walk(const unsigned char *p, size_t len, keydata_cb cb, void *arg,
    char **cause)
{
	size_t	off = 0, hl, bl, i;
	int	tag;

	while (off < len) {
		if ((p[off] & 0x80) == 0) {
			*cause = xasprintf("not OpenPGP data (byte %zu)", off);
			return -1;
		}
		if (p[off] & 0x40) {		/* new format */
			tag = p[off] & 0x3f;
			if (off + 1 >= len)
				goto short_hdr;
			if (p[off + 1] < 192) {
				hl = 2;
				bl = p[off + 1];
			} else if (p[off + 1] < 224) {
				if (off + 2 >= len)
					goto short_hdr;
				hl = 3;
				bl = ((size_t)(p[off + 1] - 192) << 8) +
				    p[off + 2] + 192;
			} else if (p[off + 1] == 255) {
				if (off + 5 >= len)
					goto short_hdr;
				hl = 6;
				bl = (size_t)p[off + 2] << 24 |
				    (size_t)p[off + 3] << 16 |
				    (size_t)p[off + 4] << 8 | p[off + 5];
			} else {
				*cause = xstrdup("a partial-length packet "
				    "in key data");
				return -1;
			}
		} else {			/* old format */
			tag = (p[off] >> 2) & 0x0f;
			if ((p[off] & 3) == 3) {
				*cause = xstrdup("a packet of indeterminate "
				    "length in key data");
				return -1;
			}
			hl = 1 + ((size_t)1 << (p[off] & 3));	/* 2, 3, 5 */
			if (off + hl > len)
				goto short_hdr;
			for (bl = 0, i = 1; i < hl; i++)
				bl = bl << 8 | p[off + i];
		}
		if (bl > len - off - hl) {
			*cause = xasprintf("a packet runs past the end of the "
			    "key data (byte %zu)", off);
			return -1;
		}
		cb(tag, p + off + hl, bl, arg);
		off += hl + bl;
	}
	return 0;

short_hdr:
	*cause = xstrdup("the key data ends inside a packet header");
	return -1;
}

struct keydata_count {
	int	npub, nsec;
};

static void
keydata_count_cb(int tag, const unsigned char *body, size_t len, void *arg)
{
	struct keydata_count	*c = arg;

	(void)body;
	(void)len;
	if (tag == KEYDATA_TAG_PUBKEY)
		c->npub++;
	else if (tag == KEYDATA_TAG_SECKEY || tag == KEYDATA_TAG_SECSUB)
		c->nsec++;
}

int
keydata_scan(const unsigned char *p, size_t len, int *npub, int *nsec,
    char **cause)
{
	struct keydata_count	c = { 0, 0 };
	int			rc;

	rc = keydata_walk(p, len, keydata_count_cb, &c, cause);
	*npub = c.npub;
	*nsec = c.nsec;
	return rc;
}

struct keydata_fprs {
	char	**fprs;
	size_t	  n;
};

/*
 * A primary key's fingerprint (RFC 4880 12.2, RFC 9580 5.5.4): version 4
 * is SHA-1 over 0x99, a two-octet length and the packet body; versions 5
 * and 6 are SHA-256 over 0x9a or 0x9b and a four-octet length. Version 3
 * keys (MD5, long obsolete) get "?".
 */
static void
keydata_fpr_cb(int tag, const unsigned char *body, size_t len, void *arg)
{
	struct keydata_fprs	*f = arg;
	gnutls_hash_hd_t	 h;
	unsigned char		 hdr[5], digest[32];
	size_t			 hlen, dlen, i;
	char			*hex;
	int			 alg;

	if (tag != KEYDATA_TAG_PUBKEY)
		return;
	f->fprs = xreallocarray(f->fprs, f->n + 1, sizeof *f->fprs);
	if (len > 0 && body[0] == 4 && len <= 0xffff) {
		hdr[0] = 0x99;
		hdr[1] = len >> 8;
		hdr[2] = len & 0xff;
		hlen = 3;
		alg = GNUTLS_DIG_SHA1;
		dlen = 20;
	} else if (len > 0 && (body[0] == 5 || body[0] == 6)) {
		hdr[0] = body[0] == 5 ? 0x9a : 0x9b;
		hdr[1] = (len >> 24) & 0xff;
		hdr[2] = (len >> 16) & 0xff;
		hdr[3] = (len >> 8) & 0xff;
		hdr[4] = len & 0xff;
		hlen = 5;
		alg = GNUTLS_DIG_SHA256;
		dlen = 32;
	} else {
		f->fprs[f->n++] = xstrdup("?");
		return;
	}
	if (gnutls_hash_init(&h, (gnutls_digest_algorithm_t)alg) != 0) {
		f->fprs[f->n++] = xstrdup("?");
		return;
	}
	gnutls_hash(h, hdr, hlen);
	gnutls_hash(h, body, len);
	gnutls_hash_deinit(h, digest);
	hex = xmalloc(2 * dlen + 1);
	for (i = 0; i < dlen; i++)
		snprintf(hex + 2 * i, 3, "%02X", digest[i]);
	f->fprs[f->n++] = hex;
}

int
keydata_fingerprints(const unsigned char *p, size_t len, char ***fprs,
    size_t *n, char **cause)
{
	struct keydata_fprs	f = { NULL, 0 };
	size_t			i;

	if (keydata_walk(p, len, keydata_fpr_cb, &f, cause) == -1) {
		for (i = 0; i < f.n; i++)
			free(f.fprs[i]);
		free(f.fprs);
		return -1;
	}
	*fprs = f.fprs;
	*n = f.n;
	return 0;
}

/* The memo file for the blob (allocated), or NULL. */
static char *
keydata_memo_path(const unsigned char *p, size_t len)
{
	unsigned char	 digest[32];
	char		 hex[65];
	size_t		 i;

	if (crypto_home() == NULL ||
	    gnutls_hash_fast(GNUTLS_DIG_SHA256, p, len, digest) != 0)
		return NULL;
	for (i = 0; i < sizeof digest; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	return xasprintf("%s/" KEYDATA_MEMO_DIR "/%s", crypto_home(), hex);
}

/* The fingerprint remembered for the blob, or NULL. */
static char *
keydata_memo_get(const char *path)
{
	char	 b[130];
	ssize_t	 n;
	size_t	 i;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	b[n] = '\0';
	b[strcspn(b, "\n")] = '\0';
	for (i = 0; b[i] != '\0'; i++) {
		if (!((b[i] >= '0' && b[i] <= '9') ||
		    (b[i] >= 'A' && b[i] <= 'F')))
			return NULL;
	}
	if (i != 40 && i != 64)
		return NULL;
	return xstrdup(b);
}

/* Remember the blob's fingerprint; failing only costs an import later. */
static void
keydata_memo_put(const char *path, const char *fpr)
{
	char	*dir, *line, *cause = NULL;

	dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		log_msg(LOG_INFO, "keydata: cannot make %s: %s", dir,
		    strerror(errno));
		free(dir);
		return;
	}
	free(dir);
	line = xasprintf("%s\n", fpr);
	if (atomic_write(path, line, strlen(line), &cause) == -1) {
		log_msg(LOG_INFO, "keydata: %s", cause);
		free(cause);
	}
	free(line);
}

static _Thread_local int	 keydata_deferring;
static _Thread_local unsigned	 keydata_ndeferred;

void
keydata_defer(int on)
{
	keydata_deferring = on;
	keydata_ndeferred = 0;
}

unsigned
keydata_deferred(void)
{
	return keydata_ndeferred;
}

char *
keydata_import(const unsigned char *p, size_t len, char **cause)
{
	gpgme_ctx_t		ctx;
	gpgme_data_t		d = NULL;
	gpgme_import_result_t	ir;
	gpgme_import_status_t	is;
	gpgme_error_t		err;
	char			*path, *fpr = NULL;
	int			 npub, nsec;

	if (keydata_scan(p, len, &npub, &nsec, cause) == -1)
		return NULL;
	if (npub != 1 || nsec != 0) {
		*cause = xasprintf("keydata must hold one public key (it holds "
		    "%d key%s%s)", npub + nsec, npub + nsec == 1 ? "" : "s",
		    nsec != 0 ? ", with secret material" : "");
		return NULL;
	}
	path = keydata_memo_path(p, len);
	if (path != NULL && (fpr = keydata_memo_get(path)) != NULL) {
		free(path);
		return fpr;
	}
	if (keydata_deferring) {
		keydata_ndeferred++;
		free(path);
		*cause = xstrdup("the key's import was deferred");
		return NULL;
	}
	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL) {
		free(path);
		return NULL;
	}
	if ((err = gpgme_data_new_from_mem(&d, (const char *)p, len, 0)) != 0)
		*cause = crypto_error("keydata cannot be read", err);
	else if ((err = gpgme_op_import(ctx, d)) != 0)
		*cause = crypto_error("the key cannot be imported", err);
	else {
		ir = gpgme_op_import_result(ctx);
		for (is = ir != NULL ? ir->imports : NULL; is != NULL;
		    is = is->next) {
			if (is->result == 0 && is->fpr != NULL) {
				fpr = xstrdup(is->fpr);
				break;
			}
		}
		if (fpr == NULL)
			*cause = xstrdup("the key was not imported");
		else {
			log_msg(LOG_INFO, "keydata: imported key %s", fpr);
			if (path != NULL)
				keydata_memo_put(path, fpr);
		}
	}
	if (d != NULL)
		gpgme_data_release(d);
	crypto_release(ctx);
	free(path);
	return fpr;
}
