/*
 * sasl.h: the credentials of SASL PLAIN (RFC 4616) and LOGIN, base64 on
 * one line, for the IMAP and SMTP logins. Intermediate copies of the
 * password are wiped; the caller wipes the result with freezero_str().
 */
#ifndef STEED_SASL_H
#define STEED_SASL_H

/* base64 of "\0user\0password". */
char	*sasl_plain(const char *user, const char *password);
/* base64 of one string (AUTH LOGIN's user name or password). */
char	*sasl_base64(const char *s);

#endif
