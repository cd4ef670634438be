/*
 * smtp-session.h: a submission connection that is authenticated, over TLS
 * that was checked (net-tls.h), ready for mailesmtp_mail() and the rest.
 */
#ifndef STEED_SMTP_SESSION_H
#define STEED_SMTP_SESSION_H

#include <libetpan/libetpan.h>

#include "config.h"

/*
 * Connect to the account's submission server as its smtp URL says
 * (smtps://: TLS at once; smtp://: STARTTLS, which is then required), check
 * the certificate as imap_session_open() does (cert-fingerprint, else the
 * account's ca-file, else ca_file, else the system store), say EHLO and
 * authenticate as the account's user with AUTH PLAIN or LOGIN. Returns
 * NULL and a cause with the server's words on any failure.
 */
mailsmtp	*smtp_session_open(const struct account *a, const char *ca_file,
		     const char *password, char **cause);

/*
 * Where smtp_session_open_stage() stopped, so that the setup wizard can
 * say what to correct.
 */
enum smtp_session_stage {
	SMTP_SESSION_CONNECT,	/* no connection, or implicit TLS failed */
	SMTP_SESSION_NO_TLS,	/* smtp:// and the server offers no STARTTLS */
	SMTP_SESSION_TLS,	/* STARTTLS refused, or its TLS failed */
	SMTP_SESSION_LOGIN,	/* the server refused the user and password */
	SMTP_SESSION_OTHER	/* anything else (or no failure) */
};
mailsmtp	*smtp_session_open_stage(const struct account *a,
		     const char *ca_file, const char *password,
		     enum smtp_session_stage *, char **cause);

/*
 * Connect to the server of u, say EHLO and start TLS as the URL says,
 * checking the certificate as p says, without logging in (the setup
 * wizard's probe).
 */
struct net_tls_policy;
mailsmtp	*smtp_session_connect(const struct config_url *u,
		     const struct net_tls_policy *p,
		     enum smtp_session_stage *, char **cause);

/*
 * Send one line (CRLF added) and read the whole reply, at most 100 lines,
 * for the commands libetpan does not speak (AUTH): returns its code, 0 when
 * the connection broke, -1 when the reply was not SMTP; its text, the lines
 * joined by spaces, goes to words (as the server sent it: unsafe).
 */
struct buf;
int		 smtp_session_command(mailsmtp *, const char *line,
		     struct buf *words);

/*
 * Say EHLO (our address as an address literal) and take the extensions of
 * the reply with smtp_session_extensions(): -1 and a cause when the server
 * refused it or the connection broke.
 */
int		 smtp_session_ehlo(mailsmtp *, const char *host, char **cause);

/*
 * The OAuth2 mechanisms, which libetpan has no flag for, kept in smtp's
 * auth beside its own (bits it does not use).
 */
#define SMTP_SESSION_AUTH_OAUTHBEARER	0x10000
#define SMTP_SESSION_AUTH_XOAUTH2	0x20000

/*
 * The extensions an EHLO reply names (its lines joined by newlines, the
 * first the greeting) into smtp's esmtp, auth and smtp_max_msg_size, as
 * libetpan's own commands read them; everything named before is
 * forgotten.
 */
void		 smtp_session_extensions(mailsmtp *, const char *reply);

/* "CODE text" from a reply's code and text: terminal-safe, the text cut
 * at 200 bytes, "(no reason given)" for none. */
char		*smtp_session_words(int code, const char *text);

/* Say QUIT (briefly waiting for the server), close and free. NULL is fine. */
void		 smtp_session_close(mailsmtp *);

#endif
