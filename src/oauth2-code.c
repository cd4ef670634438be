/*
 * oauth2-code.c: the authorization code grant with PKCE (RFC 7636) and a
 * loopback redirect (RFC 8252), for signing in with a browser on this
 * machine (see oauth2.h). Owns the listener on 127.0.0.1 (a port the
 * kernel picks), the PKCE verifier and the state, for one sign-in.
 *
 * The browser comes back with one request, "GET /?code=...&state=...";
 * it is read bounded (OAUTH2_CODE_REQUEST_MAX bytes, the deadline), the
 * state must be the one sent (else anyone able to make the browser open
 * a URL could hand us their code), and the code is traded for tokens at
 * once with the verifier, which never left this process. Any other
 * request (a favicon) gets a 404 and the wait goes on. Never prints.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "buf.h"
#include "clock.h"
#include "command.h"
#include "frontend.h"
#include "hex.h"
#include "log.h"
#include "mime-cte.h"
#include "oauth2.h"
#include "strsafe.h"
#include "xmalloc.h"

#define OAUTH2_CODE_REQUEST_MAX	8192	/* bytes of the browser's request */
#define OAUTH2_CODE_PAGE	"steedmail: signed in. You can close this " \
				"page and go back to the terminal.\n"

void
oauth2_code_free(struct oauth2_code *c)
{
	if (c->fd != -1)
		close(c->fd);
	free(c->redirect_uri);
	freezero_str(c->verifier);
	free(c->state);
	free(c->url);
	memset(c, 0, sizeof *c);
	c->fd = -1;
}

/* base64url without padding (RFC 4648 5), of len bytes. */
static char *
oauth2_code_b64url(const void *data, size_t len)
{
	struct buf	 b;
	char		*s, *p;

	buf_init(&b);
	mime_cte_base64_encode(&b, data, len, 0);
	buf_addc(&b, '\0');
	s = buf_take(&b);
	for (p = s; *p != '\0'; p++) {
		if (*p == '+')
			*p = '-';
		else if (*p == '/')
			*p = '_';
		else if (*p == '=' || *p == '\r' || *p == '\n') {
			*p = '\0';
			break;
		}
	}
	return s;
}

/* n random bytes as base64url. NULL when the generator fails. */
static char *
oauth2_code_random(size_t n)
{
	unsigned char	r[64];

	if (n > sizeof r || gnutls_rnd(GNUTLS_RND_KEY, r, n) != 0)
		return NULL;
	return oauth2_code_b64url(r, n);
}

/* Add a query parameter, percent-encoded. */
static void
oauth2_code_param(struct buf *b, const char *name, const char *value)
{
	const unsigned char	*v = (const unsigned char *)value;

	if (value == NULL)
		return;
	if (b->len != 0)
		buf_addc(b, '&');
	buf_adds(b, name);
	buf_addc(b, '=');
	for (; *v != '\0'; v++) {
		if ((*v >= 'A' && *v <= 'Z') || (*v >= 'a' && *v <= 'z') ||
		    (*v >= '0' && *v <= '9') || *v == '-' || *v == '.' ||
		    *v == '_' || *v == '~')
			buf_addc(b, (char)*v);
		else
			buf_addf(b, "%%%02X", *v);
	}
}

int
oauth2_code_start(const struct oauth2_endpoints *e, struct oauth2_code *c,
    char **cause)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	unsigned char		 digest[32];
	struct buf		 u;
	char			*challenge;

	memset(c, 0, sizeof *c);
	c->fd = -1;
	if (e->auth_url == NULL || strncmp(e->auth_url, "https://", 8) != 0) {
		*cause = xasprintf("no https:// authorization URL is known "
		    "for this provider (%s): set oauth2-auth-url", e->source);
		return -1;
	}
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;
	if ((c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(c->fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    listen(c->fd, 4) == -1 ||
	    getsockname(c->fd, (struct sockaddr *)&sin, &len) == -1) {
		*cause = xasprintf("cannot listen on 127.0.0.1 for the "
		    "browser's answer: %s", strerror(errno));
		oauth2_code_free(c);
		return -1;
	}
	c->redirect_uri = xasprintf("http://127.0.0.1:%u/",
	    (unsigned)ntohs(sin.sin_port));
	c->verifier = oauth2_code_random(48);
	c->state = oauth2_code_random(16);
	if (c->verifier == NULL || c->state == NULL ||
	    gnutls_hash_fast(GNUTLS_DIG_SHA256, c->verifier,
	    strlen(c->verifier), digest) != 0) {
		*cause = xstrdup("no random numbers for the sign-in");
		oauth2_code_free(c);
		return -1;
	}
	challenge = oauth2_code_b64url(digest, sizeof digest);
	buf_init(&u);
	oauth2_code_param(&u, "response_type", "code");
	oauth2_code_param(&u, "client_id", e->client_id);
	oauth2_code_param(&u, "redirect_uri", c->redirect_uri);
	oauth2_code_param(&u, "scope", e->scope);
	oauth2_code_param(&u, "state", c->state);
	oauth2_code_param(&u, "code_challenge", challenge);
	oauth2_code_param(&u, "code_challenge_method", "S256");
	buf_addc(&u, '\0');
	c->url = xasprintf("%s%c%s", e->auth_url,
	    strchr(e->auth_url, '?') != NULL ? '&' : '?', u.data);
	buf_free(&u);
	free(challenge);
	return 0;
}

/* The value of name in a query (percent-decoded), or NULL. */
static char *
oauth2_code_query(const char *q, const char *name)
{
	size_t		 n = strlen(name);
	const char	*p, *end;
	struct buf	 b;
	int		 hi, lo;

	for (p = q; p != NULL && *p != '\0'; p = strchr(p, '&'),
	    p = p != NULL ? p + 1 : NULL) {
		if (strncmp(p, name, n) != 0 || p[n] != '=')
			continue;
		p += n + 1;
		end = p + strcspn(p, "& ");
		buf_init(&b);
		for (; p < end; p++) {
			if (*p == '%' && end - p >= 3 &&
			    (hi = hex_value(p[1])) != -1 &&
			    (lo = hex_value(p[2])) != -1) {
				buf_addc(&b, (char)(hi << 4 | lo));
				p += 2;
			} else
				buf_addc(&b, *p == '+' ? ' ' : *p);
		}
		buf_addc(&b, '\0');
		return buf_take(&b);
	}
	return NULL;
}

/* Answer the browser and close. */
static void
oauth2_code_reply(int fd, int status, const char *text)
{
	char	*r;
	ssize_t	 n;

	r = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: text/plain; "
	    "charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n"
	    "\r\n%s", status, status == 200 ? "OK" : status == 404 ?
	    "Not Found" : "Bad Request", strlen(text), text);
	n = write(fd, r, strlen(r));
	(void)n;
	free(r);
	close(fd);
}

/*
 * Read one request's first line from fd until the deadline. The line
 * (allocated), or NULL.
 */
static char *
oauth2_code_read(int fd, int64_t deadline)
{
	struct pollfd	pfd;
	char		buf[OAUTH2_CODE_REQUEST_MAX + 1], *eol;
	size_t		len = 0;
	ssize_t		n;
	int		left;

	for (;;) {
		if ((left = (int)(deadline - clock_ms())) <= 0)
			return NULL;
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left) <= 0)
			return NULL;
		n = read(fd, buf + len, OAUTH2_CODE_REQUEST_MAX - len);
		if (n <= 0)
			return NULL;
		len += (size_t)n;
		buf[len] = '\0';
		if ((eol = strstr(buf, "\r\n")) != NULL ||
		    (eol = strchr(buf, '\n')) != NULL)
			return xstrndup(buf, (size_t)(eol - buf));
		if (len == OAUTH2_CODE_REQUEST_MAX)
			return NULL;
	}
}

/*
 * Wait for the redirect: 0 and *code, or -1 and *cause. Requests that
 * are not the redirect are answered 404 and the wait goes on.
 */
static int
oauth2_code_wait(struct oauth2_code *c, int seconds, char **code,
    enum oauth2_failure *why, char **cause)
{
	int64_t		 deadline = clock_ms() + (int64_t)seconds * 1000;
	struct pollfd	 pfd;
	char		*line, *q, *state, *error, *safe;
	int		 fd, left;

	*code = NULL;
	*why = OAUTH2_EXPIRED;
	for (;;) {
		if ((left = (int)(deadline - clock_ms())) <= 0)
			break;
		if (fe_cancelled()) {
			*why = OAUTH2_CANCELLED;
			*cause = xstrdup("the sign-in was stopped");
			return -1;
		}
		/* a tenth of a second at most: a stop is seen at once */
		pfd.fd = c->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left > 100 ? 100 : left) <= 0)
			continue;
		if ((fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC)) == -1)
			continue;
		line = oauth2_code_read(fd, deadline);
		if (line == NULL || strncmp(line, "GET /", 5) != 0 ||
		    (q = strchr(line, '?')) == NULL) {
			oauth2_code_reply(fd, 404, "not here\n");
			free(line);
			continue;
		}
		q++;
		state = oauth2_code_query(q, "state");
		error = oauth2_code_query(q, "error");
		*code = oauth2_code_query(q, "code");
		free(line);
		if (state == NULL || strcmp(state, c->state) != 0) {
			oauth2_code_reply(fd, 400, "steedmail: this answer "
			    "is not for the sign-in under way.\n");
			free(state);
			free(error);
			freezero_str(*code);
			*code = NULL;
			continue;
		}
		free(state);
		if (error != NULL || *code == NULL) {
			oauth2_code_reply(fd, 400, "steedmail: the sign-in "
			    "was refused.\n");
			safe = strsafe(error != NULL ? error : "no code", 0);
			*why = OAUTH2_DENIED;
			*cause = xasprintf("the sign-in was refused at the "
			    "provider: %s", safe);
			free(safe);
			free(error);
			freezero_str(*code);
			*code = NULL;
			return -1;
		}
		oauth2_code_reply(fd, 200, OAUTH2_CODE_PAGE);
		return 0;
	}
	*cause = xasprintf("the browser did not come back within %d s",
	    seconds);
	return -1;
}

int
oauth2_code_finish(const struct oauth2_endpoints *e, struct oauth2_code *c,
    int seconds, struct oauth2_tokens *t, enum oauth2_failure *why,
    char **cause)
{
	enum oauth2_failure	 kind;
	char			*code;
	int			 rc;

	memset(t, 0, sizeof *t);
	if (why == NULL)
		why = &kind;
	if (oauth2_code_wait(c, seconds, &code, why, cause) == -1)
		return -1;
	*why = OAUTH2_FAILED;
	close(c->fd);
	c->fd = -1;
	log_secret_add(code);
	rc = oauth2_code_exchange(e, code, c->redirect_uri, c->verifier, t,
	    cause);
	log_secret_remove(code);
	freezero_str(code);
	return rc;
}

int
oauth2_browser_open(const char *url, int graphical, char **cause)
{
	const char	*browser = getenv("BROWSER");
	char		*env[1];
	int		 display, rc;

	display = getenv("DISPLAY") != NULL ||
	    getenv("WAYLAND_DISPLAY") != NULL;
	if (!display && (graphical || browser == NULL || *browser == '\0')) {
		*cause = xstrdup("no display to open a browser on");
		return -1;
	}
	/* the URL as an argument, never through the shell's parsing */
	env[0] = xasprintf("STEED_OAUTH2_URL=%s", url);
	rc = command_spawn(browser != NULL && *browser != '\0' ?
	    "exec $BROWSER \"$STEED_OAUTH2_URL\"" :
	    "exec xdg-open \"$STEED_OAUTH2_URL\"", env, 1, cause);
	free(env[0]);
	return rc;
}
