/*
 * imap-pre.h: an IMAP connection before login, spoken by steedmail's own
 * bounded reader and parser (imap-resp.h): the greeting, CAPABILITY,
 * STARTTLS and the login. libetpan's response parser sees nothing of the
 * connection until imap_pre_handoff() gives it a logged-in session in a
 * known state. Who decides when TLS and a login may happen is
 * imap-session.c; this file only talks.
 */
#ifndef STEED_IMAP_PRE_H
#define STEED_IMAP_PRE_H

#include <libetpan/libetpan.h>

#define IMAP_PRE_LINE_MAX	16384	/* bytes of one line before login */
#define IMAP_PRE_LINES_MAX	64	/* untagged lines before an answer */

struct imap_pre;

/* Answers of a command. */
#define IMAP_PRE_OK		0
#define IMAP_PRE_NO		1	/* NO or BAD: refused, words kept */

/* Take over stream s (NULL: none yet, as a harness may want). */
struct imap_pre	*imap_pre_new(mailstream *s, const char *host);

/* Close the stream (without a word to the server) and free. NULL is fine. */
void		 imap_pre_free(struct imap_pre *);

mailstream	*imap_pre_stream(struct imap_pre *);

/*
 * Read the greeting: 0 for OK, 1 for PREAUTH, -1 and a cause for BYE, a
 * lost connection or anything malformed ("the server HOST sent a
 * malformed greeting: ...").
 */
int		 imap_pre_greeting(struct imap_pre *, char **cause);

/*
 * Make sure the capabilities are known, asking with CAPABILITY unless the
 * server named them unasked. -1 and a cause when it did not.
 */
int		 imap_pre_capability(struct imap_pre *, char **cause);

/* Does the server name this capability ("STARTTLS", "AUTH=PLAIN")? */
int		 imap_pre_offers(struct imap_pre *, const char *name);

/* Forget the capabilities (what was said before TLS may be forged). */
void		 imap_pre_forget(struct imap_pre *);

/*
 * STARTTLS: IMAP_PRE_OK when the server agreed (TLS itself is the
 * caller's), IMAP_PRE_NO when it refused, -1 and a cause otherwise.
 */
int		 imap_pre_starttls(struct imap_pre *, char **cause);

/*
 * Log in as user with pass: AUTHENTICATE PLAIN where offered, else LOGIN
 * unless LOGINDISABLED. The capabilities are then those of the answer, or
 * asked again. IMAP_PRE_OK, IMAP_PRE_NO (refused: imap_pre_words() has
 * the server's reason), or -1 and a cause.
 */
int		 imap_pre_login(struct imap_pre *, const char *user,
		     const char *pass, char **cause);

/*
 * Log in as user with an OAuth2 access token: AUTHENTICATE mech
 * ("OAUTHBEARER", RFC 7628, naming host and port; or "XOAUTH2"), the
 * response on the command line where SASL-IR is offered. Answers as
 * imap_pre_login(); a refusal's words include what the server said of
 * the token.
 */
int		 imap_pre_auth_oauth(struct imap_pre *, const char *mech,
		     const char *user, const char *host, unsigned port,
		     const char *token, char **cause);

/*
 * The server's own words from its last status answer or greeting:
 * "[CODE] text", bounded and terminal-safe, "(no reason given)" when it
 * gave none. Valid until the next call.
 */
const char	*imap_pre_words(struct imap_pre *);

/*
 * Give the logged-in connection to libetpan: a mailimap in the
 * authenticated state, its capabilities those read here, its next tag
 * after the last one used, its stream under the frame guard
 * (imap-frame.h) that bounds what libetpan's parser reads. Frees the
 * imap_pre. NULL and a cause when bytes the server already sent break a
 * bound (the connection is then closed).
 */
mailimap	*imap_pre_handoff(struct imap_pre *, char **cause);

#endif
