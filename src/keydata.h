/*
 * keydata.h: OpenPGP key data from mail (Autocrypt keydata, gossip) into
 * steedmail's GnuPG home. The data must hold exactly one public key and no
 * secret key material, which is checked on the packet headers (RFC 4880,
 * 4.2) before gpg sees it. Data imported once is remembered by its SHA-256
 * in the home (steedmail-imported.d/, one file per blob holding the key's
 * fingerprint), so the same Autocrypt header on the next message costs no
 * gpg at all. Fingerprints are also computed here, so that showing what a
 * DNS record holds needs no gpg. Callers: autocrypt-parse.c, ui/cli-dns.c.
 */
#ifndef STEED_KEYDATA_H
#define STEED_KEYDATA_H

#include <stddef.h>

#define KEYDATA_MEMO_DIR	"steedmail-imported.d"

/*
 * Count the packets of binary OpenPGP data: public keys (tag 6) and secret
 * keys or subkeys (tags 5, 7). -1 with *cause if the packet structure is
 * broken (a bad header, a length past the end, a partial length).
 */
int	 keydata_scan(const unsigned char *, size_t, int *npub, int *nsec,
	     char **cause);
/*
 * The fingerprints (upper-case hex, allocated) of every primary public key
 * in the data, computed here from the key packets, without gpg; "?" for a
 * key of a version without one. -1 with *cause if the structure is broken.
 */
int	 keydata_fingerprints(const unsigned char *, size_t, char ***fprs,
	     size_t *n, char **cause);
/*
 * Import data holding one public key into the home of crypto.h (once per
 * blob); its primary fingerprint (allocated), or NULL with *cause.
 */
char	*keydata_import(const unsigned char *, size_t, char **cause);
/*
 * On this thread only: while deferring, data not imported before (not
 * remembered) is not given to gpg; keydata_import() fails, and
 * keydata_deferred() counts it (reset by keydata_defer()). The trust
 * step's decryptions on a second thread defer, so that only the thread
 * going through the messages in order ever changes the keyring.
 */
void	 keydata_defer(int on);
unsigned keydata_deferred(void);

#endif
