/*
 * nettest.c: drives the connection layer (net-tls, imap-session,
 * smtp-session, password) without the main program, for
 * tests/integration/tls.sh.
 *
 *   nettest imap CONFIG [ACCOUNT]     log in, print the capabilities
 *   nettest imap-list CONFIG [ACCOUNT]
 *                                     log in, list the folders with their
 *                                     counts (imap_mailbox_list())
 *   nettest smtp CONFIG [ACCOUNT]     log in to the submission server
 *   nettest password CONFIG [ACCOUNT] print the account's password
 *   nettest tls HOST PORT [CAFILE|-] [PIN]
 *                                     TLS handshake, print the fingerprint
 *   nettest connect HOST PORT         TCP connection only
 *
 * Success prints "ok ..." and exits 0; failure prints "nettest: CAUSE" on
 * standard error and exits 1. With NETTEST_LOG=FILE, a debug log at the
 * protocol level is written to FILE.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "imap-mailbox.h"
#include "imap-session.h"
#include "log.h"
#include "net-tls.h"
#include "password.h"
#include "smtp-session.h"
#include "xmalloc.h"

static void __attribute__((noreturn))
nettest_fail(char *cause)
{
	fprintf(stderr, "nettest: %s\n", cause);
	free(cause);
	exit(1);
}

static void __attribute__((noreturn))
nettest_usage(void)
{
	fprintf(stderr, "usage: nettest imap|imap-list|smtp|password CONFIG "
	    "[ACCOUNT]\n"
	    "       nettest tls HOST PORT [CAFILE|-] [PIN]\n"
	    "       nettest connect HOST PORT\n");
	exit(2);
}

static void
nettest_print_caps(mailimap *imap)
{
	struct mailimap_capability_data	*caps;
	struct mailimap_capability	*c;
	clistiter			*it;

	caps = imap->imap_connection_info != NULL ?
	    imap->imap_connection_info->imap_capability : NULL;
	printf("capabilities:");
	if (caps != NULL) {
		for (it = clist_begin(caps->cap_list); it != NULL;
		    it = clist_next(it)) {
			c = clist_content(it);
			if (c->cap_type == MAILIMAP_CAPABILITY_AUTH_TYPE)
				printf(" AUTH=%s", c->cap_data.cap_auth_type);
			else
				printf(" %s", c->cap_data.cap_name);
		}
	}
	printf("\n");
}

/* The folders, one a line, or the failure (the session is dropped). */
static void
nettest_list(mailimap *imap)
{
	struct imap_folder	*f;
	size_t			 n, i;
	char			*cause = NULL;

	if (imap_mailbox_list(imap, &f, &n, &cause) == -1) {
		imap_session_drop(imap);
		nettest_fail(cause);
	}
	for (i = 0; i < n; i++)
		printf("folder %s %u/%u\n", f[i].name, f[i].unseen,
		    f[i].total);
	printf("ok imap-list %zu folders\n", n);
	imap_mailbox_list_free(f, n);
}

static int
nettest_account(int argc, char **argv)
{
	struct config	*cf;
	struct account	*a;
	mailimap	*imap;
	mailsmtp	*smtp;
	char		*cause = NULL, *pw, *fp;

	if (argc < 3 || argc > 4)
		nettest_usage();
	if ((cf = config_load(argv[2], &cause)) == NULL)
		nettest_fail(cause);
	a = config_account(cf, argc == 4 ? argv[3] : NULL, &cause);
	if (a == NULL)
		nettest_fail(cause);
	if ((pw = password_get(cf, a, &cause)) == NULL)
		nettest_fail(cause);

	if (strcmp(argv[1], "password") == 0) {
		printf("ok password %s\n", pw);
	} else if (strcmp(argv[1], "imap") == 0) {
		if ((imap = imap_session_open(a, cf->ca_file, pw, &cause)) ==
		    NULL)
			nettest_fail(cause);
		fp = net_tls_fingerprint(imap->imap_stream);
		printf("ok imap logged in to %s as %s (SHA-256 %s)\n",
		    a->imap.host, a->user, fp != NULL ? fp : "none");
		free(fp);
		nettest_print_caps(imap);
		imap_session_close(imap);
	} else if (strcmp(argv[1], "imap-list") == 0) {
		if ((imap = imap_session_open(a, cf->ca_file, pw, &cause)) ==
		    NULL)
			nettest_fail(cause);
		nettest_list(imap);
		imap_session_close(imap);
	} else if (strcmp(argv[1], "smtp") == 0) {
		if ((smtp = smtp_session_open(a, cf->ca_file, pw, &cause)) ==
		    NULL)
			nettest_fail(cause);
		fp = net_tls_fingerprint(smtp->stream);
		printf("ok smtp logged in to %s as %s (SHA-256 %s)\n",
		    a->smtp.host, a->user, fp != NULL ? fp : "none");
		free(fp);
		smtp_session_close(smtp);
	} else
		nettest_usage();
	freezero_str(pw);
	config_free(cf);
	return 0;
}

static int
nettest_tls(int argc, char **argv)
{
	struct net_tls_policy	 p;
	mailstream		*s;
	char			*cause = NULL, *fp;
	int			 fd;

	if (argc < 4 || argc > 6)
		nettest_usage();
	memset(&p, 0, sizeof p);
	p.host = argv[2];
	if (argc > 4 && strcmp(argv[4], "-") != 0)
		p.ca_file = argv[4];
	if (argc > 5)
		p.pin_sha256 = argv[5];
	p.timeout = 10;
	if ((fd = net_connect(argv[2], (unsigned)atoi(argv[3]), p.timeout,
	    &cause)) == -1)
		nettest_fail(cause);
	if (strcmp(argv[1], "connect") == 0) {
		printf("ok connected\n");
		close(fd);
		return 0;
	}
	if ((s = net_tls_open(fd, &p, &cause)) == NULL) {
		close(fd);
		nettest_fail(cause);
	}
	fp = net_tls_fingerprint(s);
	printf("ok tls %s\n", fp);
	free(fp);
	mailstream_close(s);
	return 0;
}

int
main(int argc, char **argv)
{
	char	*cause = NULL, *log;

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((log = getenv("NETTEST_LOG")) != NULL &&
	    log_open(log, LOG_PROTO, &cause) == -1)
		nettest_fail(cause);
	if (argc < 2)
		nettest_usage();
	if (strcmp(argv[1], "tls") == 0 || strcmp(argv[1], "connect") == 0)
		return nettest_tls(argc, argv);
	return nettest_account(argc, argv);
}
