/*
 * autocrypt-header.h: the Autocrypt Level 1 headers steedmail writes:
 * "Autocrypt:" on every outgoing message of an account with an OpenPGP
 * key, "Autocrypt-Gossip:" inside encrypted mail to several people.
 * Reading them is autocrypt-parse.h's job.
 */
#ifndef STEED_AUTOCRYPT_HEADER_H
#define STEED_AUTOCRYPT_HEADER_H

#include <stddef.h>

#include "buf.h"

#define AUTOCRYPT_HEADER_LINE	76	/* keydata characters per line */

/*
 * Append "NAME: addr=ADDR; [prefer-encrypt=mutual; ]keydata=" and the key
 * in base64 on continuation lines of a space and at most
 * AUTOCRYPT_HEADER_LINE characters, each line ending in CRLF.
 */
void	 autocrypt_header_format(struct buf *out, const char *name,
	    const char *addr, int mutual, const void *key, size_t len);
/*
 * The public key fpr as Autocrypt keydata: a minimal binary export (the
 * key, its self-signatures, its subkeys; no third-party signatures).
 */
int	 autocrypt_header_keydata(const char *fpr, struct buf *out,
	    char **cause);
/* Both: the header for the key fpr, appended to out. */
int	 autocrypt_header_add(struct buf *out, const char *name,
	    const char *addr, int mutual, const char *fpr, char **cause);

#endif
