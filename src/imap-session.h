/*
 * imap-session.h: an IMAP connection that is logged in, over TLS that was
 * checked (net-tls.h), ready for the rest of libetpan's mailimap calls.
 */
#ifndef STEED_IMAP_SESSION_H
#define STEED_IMAP_SESSION_H

#include <libetpan/libetpan.h>

#include "config.h"

/*
 * Connect to the account's IMAP server as its imap URL says (imaps://: TLS
 * at once; imap://: STARTTLS, which is then required), check the server's
 * certificate against the account's cert-fingerprint, else its ca-file,
 * else ca_file (the global setting; NULL: the system store), and log in as
 * the account's user. The password is sent only once TLS is up. Returns
 * NULL and a cause in plain words on any failure. The session's
 * capabilities (imap->imap_connection_info) are those after login.
 */
mailimap	*imap_session_open(const struct account *a, const char *ca_file,
		     const char *password, char **cause);

/* Log out (briefly waiting for the server), close and free. NULL is fine. */
void		 imap_session_close(mailimap *);

/*
 * Close and free without a word to the server: for a connection that is
 * lost or out of step, where LOGOUT would only wait. NULL is fine.
 */
void		 imap_session_drop(mailimap *);

/*
 * The server's own words from the last line it sent (the tagged reply, or
 * the greeting), without tag and status: "[CODE] text", bounded and
 * terminal-safe. Returns new memory.
 */
char		*imap_session_words(mailimap *);

#endif
