/*
 * check.c: setup_check(), logging in to the IMAP or submission server as
 * the account will, before anything is saved (setup.h, step 2).
 *
 * The login is imap-session.c's and smtp-session.c's own (their _stage
 * variants say where they stopped); this file only sorts a failure into
 * the classes of setup.h, so the front end can say what to correct: a
 * server out of reach, a certificate (with its SHA-256 fingerprint, to
 * pin), a server without TLS (refused: there is no clear-text way), a
 * refused password (with the server's words), anything else.
 *
 * Blocks; never prints.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "imap-session.h"
#include "net-tls.h"
#include "setup-int.h"
#include "smtp-session.h"
#include "xmalloc.h"

char *
setup_fingerprint_in(const char *text)
{
	const char	*p;
	char		 hex[65];
	size_t		 n = 0;

	if (text == NULL || (p = strstr(text, "SHA-256 ")) == NULL)
		return NULL;
	for (p += 8; *p != '\0' && n < 64; p++) {
		if (*p == ':')
			continue;
		if (!isxdigit((unsigned char)*p))
			break;
		hex[n++] = (char)tolower((unsigned char)*p);
	}
	if (n != 64 || isxdigit((unsigned char)*p))
		return NULL;
	hex[n] = '\0';
	return xstrdup(hex);
}

/* Sort a failure: where the session code stopped, and what it said. */
static enum setup_result
check_class(int connect_stage, int tls_stage, int no_tls, int login,
    const char *cause, char **fpr)
{
	if (no_tls)
		return SETUP_NO_TLS;
	if (login)
		return SETUP_PASSWORD;
	if (connect_stage || tls_stage) {
		if ((*fpr = setup_fingerprint_in(cause)) != NULL)
			return SETUP_CERT;
		/* net_connect()'s words (net-tls.h): no connection. */
		if (connect_stage && strncmp(cause, "cannot connect", 14) == 0)
			return SETUP_UNREACHABLE;
	}
	return SETUP_FAILED;
}

int
setup_check(const struct config *cf, const struct account *a,
    const char *password, enum setup_which which, struct setup_check *r)
{
	const struct config_url	*u = which == SETUP_IMAP ? &a->imap : &a->smtp;
	struct account		 acct;
	enum imap_session_stage	 is;
	enum smtp_session_stage	 ss;
	mailimap		*imap;
	mailsmtp		*smtp;
	char			*cause = NULL;

	memset(r, 0, sizeof *r);
	if (u->host == NULL) {
		r->result = SETUP_FAILED;
		r->message = xstrdup(which == SETUP_IMAP ? "no IMAP server" :
		    "no submission server");
		return -1;
	}
	acct = *a;
	if (acct.user == NULL)
		acct.user = acct.address;
	if (which == SETUP_IMAP) {
		imap = imap_session_open_stage(&acct, cf->ca_file, password,
		    &is, &cause);
		if (imap != NULL) {
			imap_session_close(imap);
			r->result = SETUP_OK;
			return 0;
		}
		r->result = check_class(is == IMAP_SESSION_CONNECT,
		    is == IMAP_SESSION_TLS, is == IMAP_SESSION_NO_TLS,
		    is == IMAP_SESSION_LOGIN, cause, &r->fingerprint);
	} else {
		smtp = smtp_session_open_stage(&acct, cf->ca_file, password,
		    &ss, &cause);
		if (smtp != NULL) {
			smtp_session_close(smtp);
			r->result = SETUP_OK;
			return 0;
		}
		r->result = check_class(ss == SMTP_SESSION_CONNECT,
		    ss == SMTP_SESSION_TLS, ss == SMTP_SESSION_NO_TLS,
		    ss == SMTP_SESSION_LOGIN, cause, &r->fingerprint);
	}
	r->message = cause;
	return -1;
}

void
setup_check_free(struct setup_check *r)
{
	if (r == NULL)
		return;
	free(r->message);
	free(r->fingerprint);
	memset(r, 0, sizeof *r);
}
