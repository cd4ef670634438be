/*
 * probe.c: setup_probe(), one short, verified TLS connection to a server
 * that discovery found or guessed (setup-int.h). It goes through the same
 * connection code as the account will (imap_session_connect(),
 * smtp_session_connect(): net-tls.c checks the certificate; STARTTLS is
 * required on the plain ports) and stops before any login: nothing
 * secret is sent to a server that is only a guess.
 *
 * Runs on discover.c's probe threads, several at once; never prints.
 */
#include <stdlib.h>
#include <string.h>

#include "imap-pre.h"
#include "imap-session.h"
#include "net-tls.h"
#include "setup-int.h"
#include "smtp-session.h"
#include "xmalloc.h"

unsigned
setup_usual_port(enum setup_which which, enum config_tls tls)
{
	if (which == SETUP_IMAP)
		return tls == CONFIG_TLS_IMPLICIT ? 993 : 143;
	return tls == CONFIG_TLS_IMPLICIT ? 465 : 587;
}

int
setup_probe(const struct config *cf, enum setup_which which,
    const struct config_url *url, int seconds, char **cause)
{
	struct net_tls_policy	 p;
	enum imap_session_stage	 is;
	enum smtp_session_stage	 ss;
	struct imap_pre		*imap;
	int			 preauth;
	mailsmtp		*smtp;

	memset(&p, 0, sizeof p);
	p.host = url->host;
	p.ca_file = cf != NULL ? cf->ca_file : NULL;
	p.timeout = seconds;
	if (which == SETUP_IMAP) {
		if ((imap = imap_session_connect(url, &p, &preauth, &is,
		    cause)) == NULL)
			return -1;
		imap_pre_free(imap);
		return 0;
	}
	if ((smtp = smtp_session_connect(url, &p, &ss, cause)) == NULL)
		return -1;
	smtp_session_close(smtp);
	return 0;
}
