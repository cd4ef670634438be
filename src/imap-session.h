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
 * capabilities (imap->imap_connection_info) are those after login. Nothing
 * before login goes through libetpan's parser (imap-pre.h).
 */
mailimap	*imap_session_open(const struct account *a, const char *ca_file,
		     const char *password, char **cause);

/*
 * Where imap_session_open_stage() stopped, so that the setup wizard can
 * say what to correct.
 */
enum imap_session_stage {
	IMAP_SESSION_CONNECT,	/* no connection, or implicit TLS failed */
	IMAP_SESSION_NO_TLS,	/* imap:// and the server offers no STARTTLS */
	IMAP_SESSION_TLS,	/* STARTTLS refused, or its TLS failed */
	IMAP_SESSION_LOGIN,	/* the server refused the user and password */
	IMAP_SESSION_OTHER	/* anything else (or no failure) */
};
mailimap	*imap_session_open_stage(const struct account *a,
		     const char *ca_file, const char *password,
		     enum imap_session_stage *, char **cause);

/*
 * Connect to the server of u and start TLS as the URL says, checking the
 * certificate as p says, without logging in (the setup wizard's probe,
 * and the first half of imap_session_open_stage()). *preauth says whether
 * the server greeted with PREAUTH (only ever over TLS). Free the result
 * with imap_pre_free().
 */
struct net_tls_policy;
struct imap_pre;
struct imap_pre	*imap_session_connect(const struct config_url *u,
		     const struct net_tls_policy *p, int *preauth,
		     enum imap_session_stage *, char **cause);

/*
 * Does the logged-in server name this capability ("MOVE", "AUTH=PLAIN")?
 * What libetpan's mailimap_has_extension() and its mailimap_has_*()
 * answer, but safe where they are not: a capability list with nothing in
 * it leaves a list they read through a NULL.
 */
int		 imap_session_offers(mailimap *, const char *name);

/* Log out (briefly waiting for the server), close and free. NULL is fine. */
void		 imap_session_close(mailimap *);

/*
 * Close and free without a word to the server: for a connection that is
 * lost or out of step, where LOGOUT would only wait. NULL is fine.
 */
void		 imap_session_drop(mailimap *);

/*
 * What libetpan's error err says of the connection: 1 when it is lost or
 * out of step with the server (an answer broke off or could not be
 * parsed, no memory for it), 0 when the server only refused a command.
 */
int		 imap_session_broken(int err);

/*
 * After a broken answer (imap_session_broken()): close the stream at
 * once, so that nothing more the server sent is read. libetpan gives up
 * on an answer it cannot parse wherever it stood in it, and would read
 * the next answer from that point, not where the guard below it
 * (imap-frame.h) left off: the two would no longer agree on what is a
 * literal, and the guard would check the wrong bytes. Every command after
 * this fails as on a lost connection; the mailimap stays to be freed.
 */
void		 imap_session_lose(mailimap *);

/*
 * The server's own words from the last line it sent (the tagged reply, or
 * the greeting), without tag and status: "[CODE] text", bounded and
 * terminal-safe. Returns new memory.
 */
char		*imap_session_words(mailimap *);

#endif
