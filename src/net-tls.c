/*
 * net-tls.c: connections to mail servers (see net-tls.h). Owns the socket
 * of each connection and, once TLS is up, its GnuTLS session, behind a
 * libetpan low-level stream driver of our own. Called by imap-session.c
 * and smtp-session.c. It must never hand back a stream whose certificate
 * the policy does not allow: verification is done right after the
 * handshake, before a single byte of the protocol is sent over it.
 *
 * Under TLS the socket is non-blocking; the handshake, each read and each
 * write wait in poll() for at most the stream's timeout. A self-pipe lets
 * mailstream_cancel() from another thread end a wait: once cancelled, the
 * stream fails every further read and write.
 *
 * A stream may carry one read filter (net_tls_set_filter()), which sees
 * the bytes as they come off TLS and can end the stream as if it broke;
 * what it looks for is its owner's business (imap-frame.c's guard).
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "buf.h"
#include "clock.h"
#include "log.h"
#include "net-tls.h"
#include "strsafe.h"
#include "xmalloc.h"

#define NET_TLS_PRIORITY	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
#define NET_TLS_MAX_NAMES	4	/* names quoted from a wrong cert */
#define NET_TLS_MAX_RETRIES	32	/* non-fatal results in a row */

struct net_tls {
	int				 fd;
	int				 cancel[2];	/* self-pipe */
	char				*host;
	gnutls_session_t		 session;
	gnutls_certificate_credentials_t cred;

	net_tls_filter_fn		 filter;	/* sees every read */
	void				*filter_arg;
	void				(*filter_free)(void *);
	int				 filtered_out;	/* it said -1 */
};

static ssize_t	 net_tls_read(mailstream_low *, void *, size_t);
static ssize_t	 net_tls_write(mailstream_low *, const void *, size_t);
static int	 net_tls_close(mailstream_low *);
static int	 net_tls_get_fd(mailstream_low *);
static void	 net_tls_free(mailstream_low *);
static void	 net_tls_cancel(mailstream_low *);
static carray	*net_tls_chain(mailstream_low *);

/*
 * No get_cancel: libetpan's struct mailstream_cancel is not in its public
 * headers, so mailstream_wait_idle() does not work on these streams; IDLE
 * polls the descriptor itself (after net_tls_pending()).
 */
static mailstream_low_driver net_tls_driver = {
	.mailstream_read = net_tls_read,
	.mailstream_write = net_tls_write,
	.mailstream_close = net_tls_close,
	.mailstream_get_fd = net_tls_get_fd,
	.mailstream_free = net_tls_free,
	.mailstream_cancel = net_tls_cancel,
	.mailstream_get_cancel = NULL,
	.mailstream_get_certificate_chain = net_tls_chain,
	.mailstream_setup_idle = NULL,
	.mailstream_unsetup_idle = NULL,
	.mailstream_interrupt_idle = NULL,
};


/* "host:port", with brackets around an IPv6 address. */
static char *
net_where(const char *host, unsigned port)
{
	if (strchr(host, ':') != NULL)
		return xasprintf("[%s]:%u", host, port);
	return xasprintf("%s:%u", host, port);
}

static int
net_is_address(const char *host)
{
	unsigned char	addr[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, addr) == 1 ||
	    inet_pton(AF_INET6, host, addr) == 1;
}

static int
net_set_blocking(int fd, int blocking)
{
	int	flags;

	if ((flags = fcntl(fd, F_GETFL)) == -1)
		return -1;
	if (blocking)
		flags &= ~O_NONBLOCK;
	else
		flags |= O_NONBLOCK;
	return fcntl(fd, F_SETFL, flags);
}

/* Connect to one address; returns the socket or -1 with *error set. */
static int
net_connect_one(const struct addrinfo *ai, int timeout, int *error)
{
	struct pollfd	pfd;
	socklen_t	len;
	long long	deadline;
	int		fd, r, soerr;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, ai->ai_protocol);
	if (fd == -1) {
		*error = errno;
		return -1;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1) {
		if (errno != EINPROGRESS)
			goto fail;
		deadline = clock_ms() + (long long)timeout * 1000;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do {
			long long left = deadline - clock_ms();

			if (left <= 0) {
				r = 0;
				break;
			}
			if (left > INT_MAX)
				left = INT_MAX;
			r = poll(&pfd, 1, (int)left);
		} while (r == -1 && errno == EINTR);
		if (r == 0)
			errno = ETIMEDOUT;
		if (r <= 0)
			goto fail;
		len = sizeof soerr;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
			goto fail;
		if (soerr != 0) {
			errno = soerr;
			goto fail;
		}
	}
	if (net_set_blocking(fd, 1) == -1)
		goto fail;
	return fd;

fail:
	*error = errno;
	close(fd);
	return -1;
}

int
net_connect(const char *host, unsigned port, int timeout, char **cause)
{
	struct addrinfo	 hints, *res, *ai;
	char		 portstr[16], *where;
	int		 fd = -1, r, error = ECONNREFUSED;

	if (timeout <= 0)
		timeout = NET_TIMEOUT;
	where = net_where(host, port);
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	snprintf(portstr, sizeof portstr, "%u", port);
	if ((r = getaddrinfo(host, portstr, &hints, &res)) != 0) {
		*cause = xasprintf("cannot connect to %s: %s", where,
		    r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
		free(where);
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = net_connect_one(ai, timeout, &error)) != -1)
			break;
	}
	freeaddrinfo(res);
	if (fd == -1)
		*cause = xasprintf("cannot connect to %s: %s", where,
		    strerror(error));
	else
		log_msg(LOG_INFO, "connected to %s", where);
	free(where);
	return fd;
}

static int
net_tls_cancelled(struct net_tls *t)
{
	struct pollfd	pfd;

	pfd.fd = t->cancel[0];
	pfd.events = POLLIN;
	return poll(&pfd, 1, 0) != 0;
}

/*
 * Wait until the socket is ready for what the session needs next. Returns
 * 1 when ready, 0 on time-out, -1 when cancelled or on error.
 */
static int
net_tls_wait(struct net_tls *t, long long deadline)
{
	struct pollfd	pfd[2];
	long long	left;
	int		r;

	pfd[0].fd = t->fd;
	pfd[0].events = gnutls_record_get_direction(t->session) ?
	    POLLOUT : POLLIN;
	pfd[1].fd = t->cancel[0];
	pfd[1].events = POLLIN;
	do {
		if ((left = deadline - clock_ms()) <= 0)
			return 0;
		r = poll(pfd, 2, (int)(left > INT_MAX ? INT_MAX : left));
	} while (r == -1 && errno == EINTR);
	if (r <= 0)
		return r;
	if (pfd[1].revents != 0)
		return -1;
	return 1;	/* includes POLLERR and POLLHUP: GnuTLS finds out */
}

static long long
net_tls_deadline(mailstream_low *s)
{
	long long	ms;

	if (s->timeout != 0)
		ms = (long long)s->timeout * 1000;
	else
		ms = (long long)mailstream_network_delay.tv_sec * 1000 +
		    mailstream_network_delay.tv_usec / 1000;
	return clock_ms() + ms;
}

static ssize_t
net_tls_read(mailstream_low *s, void *buf, size_t len)
{
	struct net_tls	*t = s->data;
	long long	 deadline;
	ssize_t		 n;
	int		 tries = 0;

	if (t->fd == -1 || t->filtered_out || net_tls_cancelled(t))
		return -1;
	deadline = net_tls_deadline(s);
	for (;;) {
		n = gnutls_record_recv(t->session, buf, len);
		if (n > 0 && t->filter != NULL &&
		    t->filter(t->filter_arg, buf, (size_t)n) == -1) {
			log_msg(LOG_INFO, "TLS read from %s: refused by the "
			    "stream's filter", t->host);
			t->filtered_out = 1;
			return -1;
		}
		if (n > 0)
			return n;
		if (n == 0) {
			/* the server closed: an error for every reader here
			 * (net_plain_read() says why) */
			log_msg(LOG_INFO, "TLS: %s closed the connection",
			    t->host);
			return -1;
		}
		if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
			if (net_tls_wait(t, deadline) != 1) {
				log_msg(LOG_INFO, "TLS read from %s timed out "
				    "or was cancelled", t->host);
				return -1;
			}
			continue;
		}
		if (!gnutls_error_is_fatal((int)n) &&
		    n != GNUTLS_E_REHANDSHAKE && ++tries < NET_TLS_MAX_RETRIES)
			continue;
		log_msg(LOG_INFO, "TLS read from %s: %s", t->host,
		    gnutls_strerror((int)n));
		return -1;
	}
}

static ssize_t
net_tls_write(mailstream_low *s, const void *buf, size_t len)
{
	struct net_tls	*t = s->data;
	long long	 deadline;
	ssize_t		 n;
	int		 tries = 0;

	if (t->fd == -1 || t->filtered_out || net_tls_cancelled(t))
		return -1;
	deadline = net_tls_deadline(s);
	for (;;) {
		n = gnutls_record_send(t->session, buf, len);
		if (n >= 0)
			return n;
		if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
			if (net_tls_wait(t, deadline) != 1) {
				log_msg(LOG_INFO, "TLS write to %s timed out "
				    "or was cancelled", t->host);
				return -1;
			}
			continue;
		}
		if (!gnutls_error_is_fatal((int)n) &&
		    ++tries < NET_TLS_MAX_RETRIES)
			continue;
		log_msg(LOG_INFO, "TLS write to %s: %s", t->host,
		    gnutls_strerror((int)n));
		return -1;
	}
}

static int
net_tls_close(mailstream_low *s)
{
	struct net_tls	*t = s->data;

	if (t->fd != -1) {
		/* One try at close_notify; the socket is non-blocking. */
		(void)gnutls_bye(t->session, GNUTLS_SHUT_WR);
		close(t->fd);
		t->fd = -1;
	}
	return 0;
}

static int
net_tls_get_fd(mailstream_low *s)
{
	struct net_tls	*t = s->data;

	return t->fd;
}

/* Free everything but the socket, which belongs to whoever holds it. */
static void
net_tls_free_data(struct net_tls *t)
{
	if (t == NULL)
		return;
	if (t->filter_free != NULL)
		t->filter_free(t->filter_arg);
	if (t->session != NULL)
		gnutls_deinit(t->session);
	if (t->cred != NULL)
		gnutls_certificate_free_credentials(t->cred);
	if (t->cancel[0] != -1)
		close(t->cancel[0]);
	if (t->cancel[1] != -1)
		close(t->cancel[1]);
	free(t->host);
	free(t);
}

static void
net_tls_free(mailstream_low *s)
{
	net_tls_free_data(s->data);
	s->data = NULL;
	free(s);
}

static void
net_tls_cancel(mailstream_low *s)
{
	struct net_tls	*t = s->data;
	ssize_t		 n;

	do
		n = write(t->cancel[1], "x", 1);
	while (n == -1 && errno == EINTR);
}

/* The server's chain as DER, the way libetpan's own drivers return it. */
static carray *
net_tls_chain(mailstream_low *s)
{
	struct net_tls		*t = s->data;
	const gnutls_datum_t	*certs;
	unsigned		 n, i;
	carray			*a;
	MMAPString		*str;

	if ((certs = gnutls_certificate_get_peers(t->session, &n)) == NULL)
		return NULL;
	if ((a = carray_new(n)) == NULL)
		fatal("out of memory");
	for (i = 0; i < n; i++) {
		str = mmap_string_new_len((const char *)certs[i].data,
		    certs[i].size);
		if (str == NULL || carray_add(a, str, NULL) != 0)
			fatal("out of memory");
	}
	return a;
}

static int
net_tls_sha256(const gnutls_datum_t *der, char hex[65])
{
	unsigned char	digest[32];
	size_t		size = sizeof digest, i;

	if (gnutls_fingerprint(GNUTLS_DIG_SHA256, der, digest, &size) < 0 ||
	    size != sizeof digest)
		return -1;
	for (i = 0; i < size; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	return 0;
}

char *
net_tls_fingerprint_pretty(const char *hex)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; hex[i] != '\0' && hex[i + 1] != '\0'; i += 2) {
		if (i != 0)
			buf_addc(&b, ':');
		buf_addc(&b, (char)(hex[i] >= 'a' && hex[i] <= 'f' ?
		    hex[i] - 'a' + 'A' : hex[i]));
		buf_addc(&b, (char)(hex[i + 1] >= 'a' && hex[i + 1] <= 'f' ?
		    hex[i + 1] - 'a' + 'A' : hex[i + 1]));
	}
	return buf_take(&b);
}

/* Does the pin (hex, any case, colons allowed) name this fingerprint? */
static int
net_tls_pin_matches(const char *pin, const char *hex)
{
	size_t	n = 0;
	char	c;

	for (; *pin != '\0'; pin++) {
		if (*pin == ':')
			continue;
		c = *pin >= 'A' && *pin <= 'F' ? *pin - 'A' + 'a' : *pin;
		if (n == 64 || c != hex[n])
			return 0;
		n++;
	}
	return n == 64;
}

/* Plain words for what is wrong with a chain. */
static char *
net_tls_status_words(unsigned status)
{
	static const struct {
		unsigned	 flag;
		const char	*words;
	} why[] = {
		{ GNUTLS_CERT_SIGNER_NOT_FOUND,
		  "signed by an unknown authority" },
		{ GNUTLS_CERT_EXPIRED, "expired" },
		{ GNUTLS_CERT_NOT_ACTIVATED, "not valid yet" },
		{ GNUTLS_CERT_REVOKED, "revoked" },
		{ GNUTLS_CERT_SIGNER_NOT_CA,
		  "signed by a certificate that is not an authority" },
		{ GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE,
		  "outside what its authority may sign" },
		{ GNUTLS_CERT_INSECURE_ALGORITHM,
		  "signed with an insecure algorithm" },
		{ GNUTLS_CERT_SIGNATURE_FAILURE, "its signature is wrong" },
		{ GNUTLS_CERT_PURPOSE_MISMATCH, "not meant for a server" },
	};
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < sizeof why / sizeof why[0]; i++) {
		if ((status & why[i].flag) == 0)
			continue;
		if (b.len != 0)
			buf_adds(&b, ", ");
		buf_adds(&b, why[i].words);
	}
	if (b.len == 0)
		buf_adds(&b, "it failed verification");
	return buf_take(&b);
}

/* The names a certificate is for, to show when it is not for our host. */
static char *
net_tls_names(const gnutls_datum_t *der)
{
	gnutls_x509_crt_t	 crt;
	struct buf		 b;
	char			 name[256], addr[INET6_ADDRSTRLEN];
	size_t			 size;
	unsigned		 i, shown = 0, more = 0;
	int			 type;

	buf_init(&b);
	if (gnutls_x509_crt_init(&crt) < 0)
		fatal("out of memory");
	if (gnutls_x509_crt_import(crt, der, GNUTLS_X509_FMT_DER) < 0) {
		gnutls_x509_crt_deinit(crt);
		buf_adds(&b, "an unreadable name");
		return buf_take(&b);
	}
	for (i = 0;; i++) {
		size = sizeof name - 1;
		type = gnutls_x509_crt_get_subject_alt_name(crt, i, name,
		    &size, NULL);
		if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			break;
		if (type == GNUTLS_SAN_DNSNAME)
			name[size] = '\0';
		else if (type == GNUTLS_SAN_IPADDRESS && (size == 4 ||
		    size == 16) && inet_ntop(size == 4 ? AF_INET : AF_INET6,
		    name, addr, sizeof addr) != NULL)
			strcpy(name, addr);
		else
			continue;
		if (shown == NET_TLS_MAX_NAMES) {
			more++;
			continue;
		}
		if (shown++ != 0)
			buf_adds(&b, ", ");
		strsafe_add(&b, name, strlen(name), 0);
	}
	if (shown == 0) {
		size = sizeof name;
		if (gnutls_x509_crt_get_dn_by_oid(crt,
		    GNUTLS_OID_X520_COMMON_NAME, 0, 0, name, &size) == 0)
			strsafe_add(&b, name, strlen(name), 0);
		else
			buf_adds(&b, "no name at all");
	}
	if (more != 0)
		buf_addf(&b, " and %u more", more);
	gnutls_x509_crt_deinit(crt);
	return buf_take(&b);
}

/* Is the server's certificate the one the policy allows? */
static int
net_tls_verify(struct net_tls *t, const struct net_tls_policy *p,
    char **cause)
{
	const gnutls_datum_t	*certs;
	gnutls_typed_vdata_st	 data[2];
	unsigned		 n, status;
	char			 hex[65], *pretty, *words;
	int			 r, ret = -1;

	certs = gnutls_certificate_get_peers(t->session, &n);
	if (certs == NULL || n == 0) {
		*cause = xasprintf("%s sent no TLS certificate", p->host);
		return -1;
	}
	if (net_tls_sha256(&certs[0], hex) == -1) {
		*cause = xasprintf("cannot compute the fingerprint of the TLS "
		    "certificate of %s", p->host);
		return -1;
	}
	pretty = net_tls_fingerprint_pretty(hex);

	if (p->pin_sha256 != NULL) {
		if (net_tls_pin_matches(p->pin_sha256, hex))
			ret = 0;
		else
			*cause = xasprintf("TLS certificate of %s does not "
			    "match the pinned fingerprint (server sent "
			    "SHA-256 %s)", p->host, pretty);
		goto out;
	}

	memset(data, 0, sizeof data);
	data[0].type = GNUTLS_DT_DNS_HOSTNAME;
	data[0].data = (unsigned char *)(uintptr_t)p->host;
	data[1].type = GNUTLS_DT_KEY_PURPOSE_OID;
	data[1].data = (unsigned char *)(uintptr_t)GNUTLS_KP_TLS_WWW_SERVER;
	r = gnutls_certificate_verify_peers(t->session, data, 2, &status);
	if (r < 0) {
		*cause = xasprintf("cannot check the TLS certificate of %s: "
		    "%s (SHA-256 %s)", p->host, gnutls_strerror(r), pretty);
		goto out;
	}
	if ((status & ~(GNUTLS_CERT_INVALID | GNUTLS_CERT_UNEXPECTED_OWNER))
	    != 0 || status == GNUTLS_CERT_INVALID) {
		words = net_tls_status_words(status);
		*cause = xasprintf("TLS certificate of %s not trusted: %s "
		    "(SHA-256 %s)", p->host, words, pretty);
		free(words);
		goto out;
	}
	if (status & GNUTLS_CERT_UNEXPECTED_OWNER) {
		words = net_tls_names(&certs[0]);
		*cause = xasprintf("TLS certificate of %s is for %s, not %s "
		    "(SHA-256 %s)", p->host, words, p->host, pretty);
		free(words);
		goto out;
	}
	ret = 0;

out:
	if (ret == 0)
		log_msg(LOG_INFO, "TLS certificate of %s accepted (%s, "
		    "SHA-256 %s)", p->host, p->pin_sha256 != NULL ? "pinned" :
		    "chain and name", pretty);
	free(pretty);
	return ret;
}

static int
net_tls_handshake(struct net_tls *t, int timeout, char **cause)
{
	long long	deadline;
	int		r, tries = 0;

	deadline = clock_ms() + (long long)timeout * 1000;
	for (;;) {
		r = gnutls_handshake(t->session);
		if (r == 0)
			return 0;
		if (r != GNUTLS_E_AGAIN && r != GNUTLS_E_INTERRUPTED) {
			/* A warning alert, say: carry on, a few times. */
			if (!gnutls_error_is_fatal(r) &&
			    ++tries < NET_TLS_MAX_RETRIES)
				continue;
			break;
		}
		if ((r = net_tls_wait(t, deadline)) == 1)
			continue;
		if (r == 0)
			*cause = xasprintf("TLS handshake with %s timed out "
			    "after %d s", t->host, timeout);
		else
			*cause = xasprintf("TLS handshake with %s cancelled",
			    t->host);
		return -1;
	}
	if (r == GNUTLS_E_FATAL_ALERT_RECEIVED) {
		*cause = xasprintf("TLS handshake with %s failed: the server "
		    "sent the alert \"%s\"", t->host,
		    gnutls_alert_get_name(gnutls_alert_get(t->session)));
	} else
		*cause = xasprintf("TLS handshake with %s failed: %s", t->host,
		    gnutls_strerror(r));
	return -1;
}

/* Load what we trust: the CA file, or else the system store. */
static int
net_tls_trust(struct net_tls *t, const struct net_tls_policy *p,
    char **cause)
{
	int	n;

	if (p->ca_file != NULL) {
		n = gnutls_certificate_set_x509_trust_file(t->cred, p->ca_file,
		    GNUTLS_X509_FMT_PEM);
		if (n < 0) {
			*cause = xasprintf("cannot read CA file %s: %s",
			    p->ca_file, gnutls_strerror(n));
			return -1;
		}
		if (n == 0) {
			*cause = xasprintf("CA file %s holds no certificates",
			    p->ca_file);
			return -1;
		}
		return 0;
	}
	n = gnutls_certificate_set_x509_system_trust(t->cred);
	if (n <= 0) {
		*cause = xasprintf("no system CA certificates to check %s "
		    "against (%s); install ca-certificates or set ca-file",
		    p->host, n < 0 ? gnutls_strerror(n) : "none found");
		return -1;
	}
	return 0;
}

/* Handshake on fd and check the certificate; NULL and a cause on failure. */
static mailstream_low *
net_tls_low_open(int fd, const struct net_tls_policy *p, char **cause)
{
	struct net_tls	*t;
	mailstream_low	*low;
	const char	*errpos;
	char		*desc;
	int		 timeout, r;

	timeout = p->timeout > 0 ? p->timeout : NET_TIMEOUT;
	t = xcalloc(1, sizeof *t);
	t->fd = fd;
	t->cancel[0] = t->cancel[1] = -1;
	t->host = xstrdup(p->host);
	if (pipe2(t->cancel, O_CLOEXEC | O_NONBLOCK) == -1) {
		*cause = xasprintf("cannot make a pipe: %s", strerror(errno));
		goto fail;
	}
	if (gnutls_certificate_allocate_credentials(&t->cred) < 0)
		fatal("out of memory");
	if (p->pin_sha256 == NULL && net_tls_trust(t, p, cause) == -1)
		goto fail;
	if (gnutls_init(&t->session, GNUTLS_CLIENT | GNUTLS_NO_SIGNAL) < 0)
		fatal("out of memory");
	r = gnutls_priority_set_direct(t->session, NET_TLS_PRIORITY, &errpos);
	if (r < 0) {
		*cause = xasprintf("TLS priorities rejected: %s",
		    gnutls_strerror(r));
		goto fail;
	}
	gnutls_credentials_set(t->session, GNUTLS_CRD_CERTIFICATE, t->cred);
	if (!net_is_address(p->host))
		gnutls_server_name_set(t->session, GNUTLS_NAME_DNS, p->host,
		    strlen(p->host));
	gnutls_transport_set_int(t->session, fd);
	if (net_set_blocking(fd, 0) == -1) {
		*cause = xasprintf("connection to %s: %s", p->host,
		    strerror(errno));
		goto fail;
	}
	if (net_tls_handshake(t, timeout, cause) == -1)
		goto fail_blocking;
	if (net_tls_verify(t, p, cause) == -1) {
		(void)gnutls_alert_send(t->session, GNUTLS_AL_FATAL,
		    GNUTLS_A_BAD_CERTIFICATE);
		goto fail_blocking;
	}
	if ((desc = gnutls_session_get_desc(t->session)) != NULL) {
		log_msg(LOG_INFO, "TLS with %s: %s", p->host, desc);
		gnutls_free(desc);
	}

	if ((low = mailstream_low_new(t, &net_tls_driver)) == NULL)
		fatal("out of memory");
	mailstream_low_set_timeout(low, timeout);
	return low;

fail_blocking:
	(void)net_set_blocking(fd, 1);
fail:
	net_tls_free_data(t);
	return NULL;
}

mailstream *
net_tls_open(int fd, const struct net_tls_policy *p, char **cause)
{
	mailstream_low	*low;
	mailstream	*s;

	if ((low = net_tls_low_open(fd, p, cause)) == NULL)
		return NULL;
	if ((s = mailstream_new(low, 8192)) == NULL)
		fatal("out of memory");
	return s;
}

int
net_tls_starttls(mailstream *s, const struct net_tls_policy *p,
    char **cause)
{
	mailstream_low	*old, *low;
	int		 fd;

	if (net_tls_active(s)) {
		*cause = xasprintf("TLS with %s is already active", p->host);
		return -1;
	}
	/*
	 * Whatever the server sent after its reply to STARTTLS came in the
	 * clear, yet would be read as if it came over TLS.
	 */
	if (s->read_buffer_len > 0) {
		*cause = xasprintf("server %s sent data before the TLS "
		    "handshake; possible injection attack", p->host);
		return -1;
	}
	if (s->write_buffer_len > 0) {
		*cause = xasprintf("unsent data before the TLS handshake "
		    "with %s", p->host);
		return -1;
	}
	old = mailstream_get_low(s);
	if ((fd = mailstream_low_get_fd(old)) == -1) {
		*cause = xasprintf("connection to %s is closed", p->host);
		return -1;
	}
	if ((low = net_tls_low_open(fd, p, cause)) == NULL)
		return -1;
	/* Freeing a socket low-level stream leaves its descriptor open. */
	mailstream_low_free(old);
	mailstream_set_low(s, low);
	return 0;
}

int
net_tls_active(mailstream *s)
{
	mailstream_low	*low;

	if (s == NULL || (low = mailstream_get_low(s)) == NULL)
		return 0;
	return low->driver == &net_tls_driver &&
	    ((struct net_tls *)low->data)->fd != -1;
}

int
net_tls_pending(mailstream *s)
{
	struct net_tls	*t;

	if (s == NULL)
		return 0;
	if (s->read_buffer_len > 0)
		return 1;
	if (!net_tls_active(s))
		return 0;
	t = mailstream_get_low(s)->data;
	/* a read fails at once: let whoever waits find out */
	if (t->filtered_out)
		return 1;
	return gnutls_record_check_pending(t->session) > 0;
}

/* The state of a stream of ours, or NULL. */
static struct net_tls *
net_tls_of(mailstream *s)
{
	mailstream_low	*low;

	if (s == NULL || (low = mailstream_get_low(s)) == NULL ||
	    low->driver != &net_tls_driver)
		return NULL;
	return low->data;
}

int
net_tls_set_filter(mailstream *s, net_tls_filter_fn fn, void *arg,
    void (*arg_free)(void *))
{
	struct net_tls	*t;

	if ((t = net_tls_of(s)) == NULL)
		return -1;
	if (t->filter_free != NULL)
		t->filter_free(t->filter_arg);
	t->filter = fn;
	t->filter_arg = arg;
	t->filter_free = arg_free;
	t->filtered_out = 0;
	return 0;
}

void *
net_tls_filter_arg(mailstream *s, net_tls_filter_fn fn)
{
	struct net_tls	*t;

	if ((t = net_tls_of(s)) == NULL || t->filter != fn)
		return NULL;
	return t->filter_arg;
}

const char *
net_tls_host(mailstream *s)
{
	struct net_tls	*t;

	return (t = net_tls_of(s)) != NULL ? t->host : NULL;
}

char *
net_tls_fingerprint(mailstream *s)
{
	struct net_tls		*t;
	const gnutls_datum_t	*certs;
	unsigned		 n;
	char			 hex[65];

	if (!net_tls_active(s))
		return NULL;
	t = mailstream_get_low(s)->data;
	certs = gnutls_certificate_get_peers(t->session, &n);
	if (certs == NULL || n == 0 || net_tls_sha256(&certs[0], hex) == -1)
		return NULL;
	return xstrdup(hex);
}

void
net_tls_policy_account(struct net_tls_policy *p, const struct account *a,
    const struct config_url *u, const char *ca_file)
{
	memset(p, 0, sizeof *p);
	p->host = u->host;
	p->ca_file = a->ca_file != NULL ? a->ca_file : ca_file;
	p->pin_sha256 = a->cert_fingerprint;
	p->timeout = NET_TIMEOUT;
}

/*
 * The clear part of a STARTTLS connection: libetpan's socket stream, with
 * two changes to its reading. The end of the stream is an error (-1)
 * rather than 0, as over TLS: libetpan 1.9.4 reads a literal until it has
 * its bytes or an error, and takes 0 for neither, so a server, or anyone
 * on the path before STARTTLS, that announces a literal and closes would
 * keep it reading for ever. And at most NET_PLAIN_MAX bytes are read in
 * the clear (a greeting, the capabilities and the answer to STARTTLS take
 * a few hundred): libetpan keeps a line until its end, so a line that
 * never ends would take all the memory there is.
 */
#define NET_PLAIN_MAX	(64 * 1024)

struct net_plain {
	const mailstream_low	*low;
	size_t			 got;
	struct net_plain	*next;
};
static mailstream_low_driver	net_plain_driver;
static pthread_once_t		net_plain_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t		net_plain_mu = PTHREAD_MUTEX_INITIALIZER;
static struct net_plain		*net_plain_streams;	/* a few at most */

static ssize_t
net_plain_read(mailstream_low *s, void *buf, size_t len)
{
	struct net_plain	*p;
	ssize_t			 n;

	n = mailstream_socket_driver->mailstream_read(s, buf, len);
	if (n <= 0)
		return -1;
	pthread_mutex_lock(&net_plain_mu);
	for (p = net_plain_streams; p != NULL && p->low != s; p = p->next)
		;
	if (p == NULL) {
		p = xcalloc(1, sizeof *p);
		p->low = s;
		p->next = net_plain_streams;
		net_plain_streams = p;
	}
	p->got += (size_t)n;
	if (p->got > NET_PLAIN_MAX)
		n = -1;
	pthread_mutex_unlock(&net_plain_mu);
	if (n == -1)
		log_msg(LOG_INFO, "more than %d bytes before TLS: the "
		    "connection is dropped", NET_PLAIN_MAX);
	return n;
}

static void
net_plain_free(mailstream_low *s)
{
	struct net_plain	**pp, *p;

	pthread_mutex_lock(&net_plain_mu);
	for (pp = &net_plain_streams; (p = *pp) != NULL; pp = &p->next) {
		if (p->low == s) {
			*pp = p->next;
			free(p);
			break;
		}
	}
	pthread_mutex_unlock(&net_plain_mu);
	mailstream_socket_driver->mailstream_free(s);
}

static void
net_plain_init(void)
{
	net_plain_driver = *mailstream_socket_driver;
	net_plain_driver.mailstream_read = net_plain_read;
	net_plain_driver.mailstream_free = net_plain_free;
}

mailstream *
net_open(const struct config_url *u, const struct net_tls_policy *p,
    char **cause)
{
	mailstream	*s;
	int		 fd;

	if ((fd = net_connect(u->host, u->port, p->timeout, cause)) == -1)
		return NULL;
	if (u->tls == CONFIG_TLS_IMPLICIT) {
		if ((s = net_tls_open(fd, p, cause)) == NULL)
			close(fd);
		return s;
	}
	if ((s = mailstream_socket_open_timeout(fd, p->timeout)) == NULL)
		fatal("out of memory");
	pthread_once(&net_plain_once, net_plain_init);
	mailstream_get_low(s)->driver = &net_plain_driver;
	return s;
}
