/*
 * imap-name.h: mailbox names between UTF-8, which is what every layer
 * above the wire (the header cache, the commands, the screens) holds, and
 * IMAP's modified UTF-7 (RFC 3501 5.1.3), which is what goes to and comes
 * from the server. Pure functions: no session, no allocation failure
 * (xmalloc), nothing printed.
 */
#ifndef STEED_IMAP_NAME_H
#define STEED_IMAP_NAME_H

/*
 * The modified UTF-7 form of a UTF-8 name, allocated. NULL when name is
 * not valid UTF-8 (an overlong form, a surrogate, a truncated sequence),
 * with a cause when cause is not NULL.
 */
char	*imap_name_encode(const char *name, char **cause);
/*
 * The UTF-8 form of a name as the server spells it, allocated. NULL when
 * wire is not modified UTF-7 in the one form an encoder writes (8-bit or
 * control bytes, bad base64, a lone surrogate, U+0000, a printable
 * character or "&" encoded, two encoded runs side by side): only then is
 * imap_name_encode(imap_name_decode(w)) always w again.
 */
char	*imap_name_decode(const char *wire);
/*
 * What a name from the server is called above the wire: decoded, or the
 * wire form as it is when it does not decode (imap_name_decode()).
 */
char	*imap_name_from_wire(const char *wire);

#endif
