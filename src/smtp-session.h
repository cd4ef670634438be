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

/* Say QUIT (briefly waiting for the server), close and free. NULL is fine. */
void		 smtp_session_close(mailsmtp *);

#endif
