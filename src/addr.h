/*
 * addr.h: plain mail addresses (local@domain) as the command line and the
 * configuration take them, and as the trust store will key them.
 */
#ifndef STEED_ADDR_H
#define STEED_ADDR_H

/* A deliberately plain check: one @, no blanks, controls or specials. */
int	 addr_valid(const char *);
/* The domain part (after the @) of a valid address. */
const char *addr_domain(const char *);

#endif
