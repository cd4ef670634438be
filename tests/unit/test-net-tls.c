/*
 * test-net-tls.c: net-tls.c against a GnuTLS server in a child process over
 * a socket pair, with a certificate made here: chain, host name and pin
 * checks, the causes they give, the handshake time-out, and the STARTTLS
 * upgrade with and without injected bytes.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "net-tls.h"
#include "tap.h"
#include "xmalloc.h"

#define HOST	"tls.test.example"

static gnutls_x509_crt_t	 crt;
static gnutls_x509_privkey_t	 key;
static char			 certfile[] = "/tmp/steed-net-tls-XXXXXX";
static char			 fp[65], *fp_pretty;

/* A self-signed certificate for HOST and 127.0.0.1, good for an hour. */
static void
make_cert(void)
{
	unsigned char	 serial[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	unsigned char	 ip[4] = { 127, 0, 0, 1 };
	unsigned char	 digest[32];
	size_t		 size = sizeof digest, i;
	gnutls_datum_t	 pem, der;
	const char	*err;
	FILE		*f;
	int		 fd;

	gnutls_x509_privkey_init(&key);
	gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
	    GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
	gnutls_x509_crt_init(&crt);
	gnutls_x509_crt_set_version(crt, 3);
	gnutls_x509_crt_set_serial(crt, serial, sizeof serial);
	gnutls_x509_crt_set_activation_time(crt, time(NULL) - 60);
	gnutls_x509_crt_set_expiration_time(crt, time(NULL) + 3600);
	gnutls_x509_crt_set_dn(crt, "CN=" HOST, &err);
	gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, HOST,
	    strlen(HOST), GNUTLS_FSAN_SET);
	gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip,
	    sizeof ip, GNUTLS_FSAN_APPEND);
	gnutls_x509_crt_set_basic_constraints(crt, 1, -1);
	gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE |
	    GNUTLS_KEY_KEY_CERT_SIGN);
	gnutls_x509_crt_set_key(crt, key);
	if (gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0) < 0)
		fatal("cannot sign the test certificate");

	gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &pem);
	if ((fd = mkstemp(certfile)) == -1 || (f = fdopen(fd, "w")) == NULL)
		fatal("cannot write %s", certfile);
	fwrite(pem.data, 1, pem.size, f);
	fclose(f);
	gnutls_free(pem.data);

	gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_DER, &der);
	gnutls_fingerprint(GNUTLS_DIG_SHA256, &der, digest, &size);
	gnutls_free(der.data);
	for (i = 0; i < size; i++)
		snprintf(fp + 2 * i, 3, "%02x", digest[i]);
	fp_pretty = net_tls_fingerprint_pretty(fp);
}

/* TAP_OK evaluates its condition twice: conditions here have no effects. */
static int
starts(const char *s, const char *prefix)
{
	return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

enum server_mode {
	SERVE_TLS,		/* handshake, send a line, read until EOF */
	SERVE_SILENT,		/* say nothing, wait */
	SERVE_PLAIN,		/* not TLS at all */
	SERVE_STARTTLS,		/* a plain line first, then TLS */
	SERVE_INJECT		/* OK and injected bytes in one write */
};

static void
serve_tls(int fd)
{
	gnutls_certificate_credentials_t	 cred;
	gnutls_session_t			 s;
	char					 buf[256];
	int					 r;

	gnutls_certificate_allocate_credentials(&cred);
	gnutls_certificate_set_x509_key(cred, &crt, 1, key);
	gnutls_init(&s, GNUTLS_SERVER);
	gnutls_set_default_priority(s);
	gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
	gnutls_transport_set_int(s, fd);
	do
		r = gnutls_handshake(s);
	while (r < 0 && !gnutls_error_is_fatal(r));
	if (r < 0)
		_exit(0);
	gnutls_record_send(s, "* OK hello\r\n", 12);
	while (gnutls_record_recv(s, buf, sizeof buf) > 0)
		;
	_exit(0);
}

/* A server in a child process; returns our end of the socket pair. */
static int
server(enum server_mode mode, pid_t *pid)
{
	char	buf[64];
	int	sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		fatal("socketpair");
	if ((*pid = fork()) == -1)
		fatal("fork");
	if (*pid != 0) {
		close(sv[1]);
		return sv[0];
	}
	close(sv[0]);
	alarm(10);
	switch (mode) {
	case SERVE_TLS:
		serve_tls(sv[1]);
		break;
	case SERVE_SILENT:
		pause();
		break;
	case SERVE_PLAIN:
		write(sv[1], "* OK plain text\r\n", 17);
		read(sv[1], buf, sizeof buf);
		break;
	case SERVE_STARTTLS:
		write(sv[1], "a OK begin\r\n", 12);
		serve_tls(sv[1]);
		break;
	case SERVE_INJECT:
		write(sv[1], "a OK begin\r\n* OK injected\r\n", 28);
		read(sv[1], buf, sizeof buf);
		break;
	}
	_exit(0);
}

static void
reap(int fd, pid_t pid)
{
	if (fd != -1)
		close(fd);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* Open TLS with this policy; returns the cause, or NULL on success. */
static char *
try_open(const char *host, const char *ca, const char *pin, char **line)
{
	struct net_tls_policy	 p = { host, ca, pin, 5 };
	mailstream		*s;
	MMAPString		*str;
	char			*cause = NULL, *got;
	pid_t			 pid;
	int			 fd;

	fd = server(SERVE_TLS, &pid);
	if ((s = net_tls_open(fd, &p, &cause)) == NULL) {
		reap(fd, pid);
		return cause;
	}
	str = mmap_string_new("");
	got = mailstream_read_line_remove_eol(s, str);
	if (line != NULL)
		*line = xstrdup(got != NULL ? got : "(nothing)");
	got = net_tls_fingerprint(s);
	TAP_STR(got, fp, "fingerprint of the open stream");
	free(got);
	mmap_string_free(str);
	mailstream_close(s);
	reap(-1, pid);
	return NULL;
}

static void
test_verify(void)
{
	char	*cause, *line = NULL, *want, pin[128];
	size_t	 i, n;

	cause = try_open(HOST, certfile, NULL, &line);
	TAP_OK(cause == NULL, "trusted by the CA file: accepted (%s)",
	    cause != NULL ? cause : "ok");
	TAP_STR(line, "* OK hello", "data read over TLS");
	free(cause);
	free(line);

	cause = try_open("127.0.0.1", certfile, NULL, NULL);
	TAP_OK(cause == NULL, "address matched against the IP name (%s)",
	    cause != NULL ? cause : "ok");
	free(cause);

	cause = try_open("other.example", certfile, NULL, NULL);
	want = xasprintf("TLS certificate of other.example is for " HOST
	    ", 127.0.0.1, not other.example (SHA-256 %s)", fp_pretty);
	TAP_STR(cause, want, "certificate for another host: refused");
	free(want);
	free(cause);

	cause = try_open(HOST, NULL, NULL, NULL);
	want = xasprintf("TLS certificate of " HOST " not trusted: signed by "
	    "an unknown authority (SHA-256 %s)", fp_pretty);
	if (starts(cause, "no system CA certificates"))
		printf("ok %d - # SKIP no system CA store\n", ++tap_n);
	else
		TAP_STR(cause, want, "unknown authority (system store): "
		    "refused");
	free(want);
	free(cause);

	cause = try_open("other.example", NULL, fp, NULL);
	TAP_OK(cause == NULL, "pinned: accepted, whoever signed it and for "
	    "whatever name");
	free(cause);

	/* The pin in the upper-case, colon-separated form people copy. */
	cause = try_open(HOST, NULL, fp_pretty, NULL);
	TAP_OK(cause == NULL, "pin with colons and capitals: accepted");
	free(cause);

	snprintf(pin, sizeof pin, "%s", fp);
	pin[0] = pin[0] == '0' ? '1' : '0';
	cause = try_open(HOST, certfile, pin, NULL);
	want = xasprintf("TLS certificate of " HOST " does not match the "
	    "pinned fingerprint (server sent SHA-256 %s)", fp_pretty);
	TAP_STR(cause, want, "wrong pin: refused, even with a trusted chain");
	free(want);
	free(cause);

	n = strlen(fp);
	snprintf(pin, sizeof pin, "%.*s", (int)(n - 2), fp);
	cause = try_open(HOST, NULL, pin, NULL);
	TAP_OK(cause != NULL, "pin too short: refused");
	free(cause);
	for (i = 0; i < n; i++)
		pin[i] = fp[i];
	pin[n] = 'a';
	pin[n + 1] = '\0';
	cause = try_open(HOST, NULL, pin, NULL);
	TAP_OK(cause != NULL, "pin too long: refused");
	free(cause);

	cause = try_open(HOST, "/nonexistent/ca.pem", NULL, NULL);
	TAP_OK(starts(cause, "cannot read CA file /nonexistent/ca.pem: "),
	    "missing CA file: %s",
	    cause != NULL ? cause : "accepted");
	free(cause);
}

static void
test_handshake(void)
{
	struct net_tls_policy	 p = { HOST, NULL, NULL, 1 };
	mailstream		*s;
	char			*cause = NULL;
	time_t			 t0;
	pid_t			 pid;
	int			 fd;

	fd = server(SERVE_SILENT, &pid);
	t0 = time(NULL);
	s = net_tls_open(fd, &p, &cause);
	TAP_STR(cause, "TLS handshake with " HOST " timed out after 1 s",
	    "silent server: handshake times out");
	TAP_OK(s == NULL && time(NULL) - t0 <= 3, "and within the time-out");
	free(cause);
	reap(fd, pid);

	fd = server(SERVE_PLAIN, &pid);
	cause = NULL;
	s = net_tls_open(fd, &p, &cause);
	TAP_OK(s == NULL && starts(cause, "TLS handshake with " HOST
	    " failed: "), "server that does not speak TLS: %s", cause);
	free(cause);
	reap(fd, pid);
}

static void
test_starttls(void)
{
	struct net_tls_policy	 p = { HOST, NULL, NULL, 5 };
	mailstream		*s;
	MMAPString		*str;
	char			*cause = NULL, *line;
	pid_t			 pid;
	int			 fd, r;

	p.pin_sha256 = fp;
	str = mmap_string_new("");

	fd = server(SERVE_INJECT, &pid);
	s = mailstream_socket_open(fd);
	line = mailstream_read_line_remove_eol(s, str);
	TAP_STR(line, "a OK begin", "plain reply to STARTTLS");
	TAP_OK(!net_tls_active(s) && net_tls_pending(s),
	    "plain stream with bytes waiting");
	r = net_tls_starttls(s, &p, &cause);
	TAP_OK(r == -1, "injected bytes: upgrade refused");
	TAP_STR(cause, "server " HOST " sent data before the TLS handshake; "
	    "possible injection attack", "and the cause says why");
	free(cause);
	mailstream_close(s);
	reap(-1, pid);

	fd = server(SERVE_STARTTLS, &pid);
	s = mailstream_socket_open(fd);
	line = mailstream_read_line_remove_eol(s, str);
	TAP_STR(line, "a OK begin", "plain reply to STARTTLS");
	cause = NULL;
	r = net_tls_starttls(s, &p, &cause);
	TAP_OK(r == 0, "upgraded (%s)", cause != NULL ? cause : "ok");
	free(cause);
	TAP_OK(net_tls_active(s), "TLS is active on the same stream");
	line = mailstream_read_line_remove_eol(s, str);
	TAP_STR(line, "* OK hello", "data read over TLS after the upgrade");
	cause = NULL;
	r = net_tls_starttls(s, &p, &cause);
	TAP_OK(r == -1, "no second upgrade");
	free(cause);
	mailstream_close(s);
	reap(-1, pid);
	mmap_string_free(str);
}

static void
test_connect(void)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	char			*cause = NULL, *want;
	int			 fd, r;

	/* A port that was just free: nothing listens there. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&sin, sizeof sin);
	getsockname(fd, (struct sockaddr *)&sin, &len);
	close(fd);
	r = net_connect("127.0.0.1", ntohs(sin.sin_port), 5, &cause);
	TAP_OK(r == -1, "connection refused");
	want = xasprintf("cannot connect to 127.0.0.1:%u: Connection refused",
	    ntohs(sin.sin_port));
	TAP_STR(cause, want, "cause names host, port and reason");
	free(want);
	free(cause);

	cause = NULL;
	r = net_connect("::1", ntohs(sin.sin_port), 5, &cause);
	TAP_OK(r == -1 && starts(cause, "cannot connect to [::1]:"),
	    "IPv6 address in brackets: %s", cause);
	free(cause);

	cause = NULL;
	r = net_connect("no-such-host.invalid", 993, 5, &cause);
	TAP_OK(r == -1 && starts(cause, "cannot connect to "
	    "no-such-host.invalid:993: "), "unknown name: %s", cause);
	free(cause);
}

int
main(void)
{
	char	*s;

	signal(SIGPIPE, SIG_IGN);
	make_cert();

	s = net_tls_fingerprint_pretty("0a1bff");
	TAP_STR(s, "0A:1B:FF", "fingerprint shown in pairs");
	free(s);

	test_connect();
	test_verify();
	test_handshake();
	test_starttls();

	unlink(certfile);
	free(fp_pretty);
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
	return TAP_DONE();
}
