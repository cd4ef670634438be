/*
 * net-https.h: one HTTPS GET, with its bounds, through libcurl (GnuTLS).
 * The setup wizard reads a domain's autoconfig document with it
 * (account/discover-web.c); OAuth2's token requests (oauth2.h) are
 * POSTs through net_https_post(). Only https:// is ever spoken: a redirect is followed only to
 * another https:// URL, and a redirect to plain HTTP is refused and said.
 * The certificate is verified against the ca-file or the system store,
 * as for IMAP and SMTP (net-tls.h).
 */
#ifndef STEED_NET_HTTPS_H
#define STEED_NET_HTTPS_H

#include <stddef.h>

#include "buf.h"

/* What became of a request. */
enum net_https_result {
	NET_HTTPS_OK,		/* 200, the body read */
	NET_HTTPS_ABSENT,	/* nothing there, the ordinary way: no such
				   host, nobody listening, 404 or 410 */
	NET_HTTPS_REFUSED	/* an answer that is not used: a
				   certificate that does not verify, a
				   redirect to plain HTTP, a body too
				   large, no answer in time, another
				   status */
};

struct net_https {
	const char	*ca_file;	/* PEM CAs; NULL: the system store */
	int		 seconds;	/* for everything, redirects too */
	size_t		 max;		/* bytes of the body, at most */
	int		 redirects;	/* followed, at most */
};

/* libcurl's global set-up, once per process (any thread may call it). */
int	 net_https_init(char **cause);

/*
 * GET url (https:// only) as req says. The body goes into body (reset
 * first); *final (allocated, may be NULL) is the URL that answered after
 * redirects; *cause (allocated) says what happened unless the result is
 * NET_HTTPS_OK, naming URLs without their query. Blocks for at most
 * req->seconds.
 */
enum net_https_result net_https_get(const struct net_https *req,
	    const char *url, struct buf *body, char **final, char **cause);

/*
 * POST form (application/x-www-form-urlencoded, already encoded) to url
 * (https:// only; no redirect followed), as OAuth2's token requests want.
 * NET_HTTPS_OK for any HTTP answer, its status in *status and its body in
 * body (an error answer carries words worth reading); otherwise as
 * net_https_get(). The form is never logged.
 */
enum net_https_result net_https_post(const struct net_https *req,
	    const char *url, const char *form, struct buf *body, long *status,
	    char **cause);

#endif
