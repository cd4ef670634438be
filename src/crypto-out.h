/*
 * crypto-out.h: protection of outgoing mail. From the two halves
 * mime-build.h writes, it makes the final message: signed or signed and
 * encrypted, as PGP/MIME (RFC 3156) or S/MIME (RFC 8551), with the header
 * fields protected (RFC 9788) and the Autocrypt header added. Which
 * protection a message gets is the caller's choice; this file never
 * decides, never prints, and never returns a half-protected message.
 */
#ifndef STEED_CRYPTO_OUT_H
#define STEED_CRYPTO_OUT_H

#include <stddef.h>

#include <gpgme.h>

#include "buf.h"
#include "mime-build.h"

struct crypto_out {
	gpgme_protocol_t proto;		/* OpenPGP or CMS */
	int		 sign;
	int		 encrypt;	/* implies sign */
	const char	*signer;	/* fingerprint of the sender's key */
	/*
	 * The sender's OpenPGP key for the Autocrypt header, or NULL (then
	 * no header). Set for every message of an account with a key.
	 */
	const char	*autocrypt;
	/*
	 * With encrypt: the key for each recipient, To, Cc then Bcc, as the
	 * encryption policy chose it (the trust store's key for the
	 * address); encryption and Autocrypt-Gossip use exactly these. A
	 * recipient without one stops the message: no key is ever looked up
	 * by address here.
	 */
	const char * const *rcpt_fprs;
	/*
	 * With encrypt: encrypted to the signer alone, recipients and
	 * gossip left out (a postponed draft, kept for its writer).
	 */
	int		 self_only;
};

/*
 * The whole message into out, CRLF line ends. Returns -1 with *cause if
 * anything cannot be done as asked (a key missing, gpg failing, a bad
 * header value); out is then to be thrown away.
 *
 * Bcc recipients are encrypted to as hidden recipients (OpenPGP: the key
 * id is zero, as gpg --hidden-recipient); S/MIME cannot hide them, so
 * encrypting to a Bcc recipient with S/MIME is refused.
 */
int	 crypto_out_build(const struct mime_out *m, const struct crypto_out *,
	    struct buf *out, char **cause);

#endif
