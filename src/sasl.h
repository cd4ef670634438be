/*
 * sasl.h: the credentials of SASL PLAIN (RFC 4616), LOGIN, OAUTHBEARER
 * (RFC 7628) and XOAUTH2, base64 on one line, for the IMAP and SMTP
 * logins. Intermediate copies of the
 * password are wiped; the caller wipes the result with freezero_str().
 */
#ifndef STEED_SASL_H
#define STEED_SASL_H

/* base64 of "\0user\0password". */
char	*sasl_plain(const char *user, const char *password);
/* base64 of one string (AUTH LOGIN's user name or password). */
char	*sasl_base64(const char *s);

/*
 * The initial client response of OAUTHBEARER (RFC 7628):
 * "n,a=USER,^Ahost=HOST^Aport=PORT^Aauth=Bearer TOKEN^A^A", base64.
 */
char	*sasl_oauthbearer(const char *user, const char *host, unsigned port,
	    const char *token);
/* XOAUTH2 (Google's, also Microsoft's): "user=USER^Aauth=Bearer TOKEN^A^A". */
char	*sasl_xoauth2(const char *user, const char *token);
/*
 * What a server said with its failed OAUTHBEARER or XOAUTH2 challenge
 * (base64 of a JSON object, RFC 7628 3.2.2): the status and scope in
 * words, terminal-safe, or NULL when it does not decode.
 */
char	*sasl_oauth_error(const char *b64);

#endif
