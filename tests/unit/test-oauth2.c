/*
 * test-oauth2.c: oauth2_access() from several threads, as the interface's
 * workers call it. Two accounts signed in (oauth2_store(), their refresh
 * tokens kept encrypted to keys made in a GnuPG home of the test's own);
 * their token endpoint is a local port that takes connections and never
 * answers. While one thread refreshes account "slow" there (and waits):
 *   - account "fast", whose access token is fresh, gets it at once;
 *   - a second thread that wants "slow" refreshed waits for the first
 *     instead of spending the same refresh token in a second request;
 * and when the endpoint lets go, both "slow" refreshes end with a cause.
 */
#include <sys/socket.h>
#include <sys/time.h>

#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "crypto.h"
#include "oauth2.h"
#include "tap.h"
#include "xmalloc.h"

#define MAXCONN	8

/* The endpoint that never answers: its connections, held until let go. */
static int		 listen_fd;
static int		 conns[MAXCONN];
static atomic_int	 nconns;
static atomic_int	 let_go;

static void *
endpoint(void *arg)
{
	struct pollfd	pfd;
	int		fd, i;

	(void)arg;
	pfd.fd = listen_fd;
	pfd.events = POLLIN;
	while (!atomic_load(&let_go)) {
		if (poll(&pfd, 1, 50) != 1)
			continue;
		if ((fd = accept(listen_fd, NULL, NULL)) == -1)
			continue;
		if (atomic_load(&nconns) < MAXCONN)
			conns[atomic_fetch_add(&nconns, 1)] = fd;
		else
			close(fd);
	}
	for (i = 0; i < atomic_load(&nconns); i++)
		close(conns[i]);
	return NULL;
}

struct call {
	struct config		*cf;
	struct account		*a;
	char			*token, *cause;
};

static void *
refresh(void *arg)
{
	struct call	*c = arg;

	c->token = oauth2_access(c->cf, c->a, OAUTH2_FORCE, &c->cause);
	return NULL;
}

static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait up to ms for n connections to the endpoint. */
static int
wait_conns(int n, int ms)
{
	int64_t	end = now_ms() + ms;

	while (atomic_load(&nconns) < n && now_ms() < end)
		usleep(10000);
	return atomic_load(&nconns) >= n;
}

static void
account_init(struct account *a, const char *id, const char *address,
    const char *url)
{
	memset(a, 0, sizeof *a);
	a->id = xstrdup(id);
	a->name = xstrdup(id);
	a->address = xstrdup(address);
	a->auth = xstrdup("oauth2");
	a->oauth2_token_url = xstrdup(url);
	a->oauth2_client_id = xstrdup("steedmail-test");
}

static void
account_done(struct account *a)
{
	free(a->id);
	free(a->name);
	free(a->address);
	free(a->auth);
	free(a->oauth2_token_url);
	free(a->oauth2_client_id);
}

static int
store(struct config *cf, struct account *a, const char *access,
    const char *refresh_token)
{
	struct oauth2_tokens	 t;
	char			*cause = NULL;
	int			 rc;

	memset(&t, 0, sizeof t);
	t.access = xstrdup(access);
	t.refresh = xstrdup(refresh_token);
	t.expires_in = 3600;
	rc = oauth2_store(cf, a, &t, &cause);
	TAP_OK(rc == 0, "account %s signed in (%s)", a->id,
	    cause != NULL ? cause : "its refresh token encrypted to its key");
	free(cause);
	oauth2_tokens_free(&t);
	return rc;
}

int
main(void)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	struct config		 cf;
	struct account		 slow, fast;
	struct call		 c1, c2;
	pthread_t		 ep, t1, t2;
	char			 dir[] = "/tmp/test-oauth2.XXXXXX";
	char			*home, *data, *url, *tok, *cause = NULL, *cmd;
	int64_t			 t0, took;

	if (mkdtemp(dir) == NULL)
		return 1;
	home = xasprintf("%s/gnupg", dir);
	data = xasprintf("%s/data", dir);
	setenv("XDG_DATA_HOME", data, 1);

	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (listen_fd == -1 || bind(listen_fd, (struct sockaddr *)&sin,
	    sizeof sin) == -1 || listen(listen_fd, 8) == -1 ||
	    getsockname(listen_fd, (struct sockaddr *)&sin, &len) == -1) {
		TAP_OK(0, "a local port for the token endpoint");
		return TAP_DONE();
	}
	url = xasprintf("https://127.0.0.1:%u/token", ntohs(sin.sin_port));
	pthread_create(&ep, NULL, endpoint, NULL);

	memset(&cf, 0, sizeof cf);
	cf.gnupg_home = home;
	account_init(&slow, "slow", "slow@example.org", url);
	account_init(&fast, "fast", "fast@example.org", url);
	if (crypto_library_init(&cause) == -1 ||
	    crypto_init(home, &cause) == -1) {
		TAP_OK(0, "gpgme in a home of its own (%s)", cause);
		free(cause);
		goto out;
	}
	if (store(&cf, &slow, "slow-access-1", "slow-refresh") == -1 ||
	    store(&cf, &fast, "fast-access-1", "fast-refresh") == -1)
		goto out;

	/* one thread refreshes "slow" and waits on the endpoint */
	memset(&c1, 0, sizeof c1);
	c1.cf = &cf;
	c1.a = &slow;
	pthread_create(&t1, NULL, refresh, &c1);
	TAP_OK(wait_conns(1, 10000), "the refresh of slow reached the "
	    "endpoint, which does not answer");

	t0 = now_ms();
	tok = oauth2_access(&cf, &fast, 0, &cause);
	took = now_ms() - t0;
	TAP_STR(tok, "fast-access-1", "meanwhile, fast's fresh access token "
	    "(%s)", cause != NULL ? cause : "no error");
	TAP_OK(took < 1000, "... at once: %lld ms, not after slow's refresh",
	    (long long)took);
	freezero_str(tok);
	free(cause);
	cause = NULL;

	/* a second refresh of "slow" waits for the first */
	memset(&c2, 0, sizeof c2);
	c2.cf = &cf;
	c2.a = &slow;
	pthread_create(&t2, NULL, refresh, &c2);
	usleep(500000);
	TAP_OK(atomic_load(&nconns) == 1, "a second refresh of slow waits "
	    "for the first: %d connection(s) to the endpoint",
	    atomic_load(&nconns));

	/* the endpoint lets go: both end, with a cause and no token */
	atomic_store(&let_go, 1);
	pthread_join(ep, NULL);
	close(listen_fd);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	TAP_OK(c1.token == NULL && c1.cause != NULL && strstr(c1.cause,
	    "no fresh OAuth2 access token for account slow") != NULL,
	    "the endpoint gone: slow's refresh says so (%s)",
	    c1.cause != NULL ? c1.cause : "no cause");
	TAP_OK(c2.token == NULL && c2.cause != NULL,
	    "... and so does the one that waited (%s)",
	    c2.cause != NULL ? c2.cause : "no cause");
	freezero_str(c1.token);
	freezero_str(c2.token);
	free(c1.cause);
	free(c2.cause);

	/* a new sign-in while nobody uses the old one replaces it */
	if (store(&cf, &slow, "slow-access-2", "slow-refresh-2") == 0) {
		tok = oauth2_access(&cf, &slow, 0, &cause);
		TAP_STR(tok, "slow-access-2", "after a new sign-in, its "
		    "access token (%s)", cause != NULL ? cause : "no error");
		freezero_str(tok);
		free(cause);
		cause = NULL;
	}
out:
	oauth2_forget();
	if (!atomic_load(&let_go)) {
		atomic_store(&let_go, 1);
		pthread_join(ep, NULL);
		close(listen_fd);
	}
	account_done(&slow);
	account_done(&fast);
	cmd = xasprintf("gpgconf --homedir %s --kill all >/dev/null 2>&1; "
	    "rm -rf %s", home, dir);
	if (system(cmd) != 0)
		TAP_OK(0, "cleaning %s", dir);
	free(cmd);
	free(home);
	free(data);
	free(url);
	return TAP_DONE();
}
