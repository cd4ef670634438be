/*
 * net-https.c: net_https_get() (net-https.h), one bounded HTTPS GET with
 * libcurl's easy interface. Owns nothing between calls: each request
 * has a handle of its own, so that several threads may fetch at once
 * (the setup wizard asks two URLs together).
 *
 * Redirects are followed here, not by libcurl, so that one to plain HTTP
 * can be refused with its own words rather than libcurl's. The deadline
 * covers all of it; libcurl resolves names on a thread of its own
 * (CURLOPT_NOSIGNAL: no alarm signal in a program with threads), so a
 * resolver that never answers costs the deadline too. The body is cut
 * at req->max bytes: a larger one (said by its Content-Length or found
 * while reading) is abandoned, not read to the end. No compressed
 * encoding is asked for, so nothing is inflated. Never prints.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "clock.h"
#include "log.h"
#include "net-https.h"
#include "version.h"
#include "xmalloc.h"

#define NET_HTTPS_URL_SHOWN	200	/* bytes of a URL in a message */

static pthread_once_t	net_https_once = PTHREAD_ONCE_INIT;
static CURLcode		net_https_init_rc;

/* The body, and whether it went over the limit. */
struct net_https_sink {
	struct buf	*body;
	size_t		 max;
	int		 over;
};

static void
net_https_global(void)
{
	net_https_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int
net_https_init(char **cause)
{
	pthread_once(&net_https_once, net_https_global);
	if (net_https_init_rc != CURLE_OK) {
		*cause = xasprintf("libcurl cannot be set up: %s",
		    curl_easy_strerror(net_https_init_rc));
		return -1;
	}
	return 0;
}

static size_t
net_https_write(char *data, size_t size, size_t n, void *arg)
{
	struct net_https_sink	*s = arg;
	size_t			 len = size * n;

	if (len > s->max || s->body->len > s->max - len) {
		s->over = 1;
		return 0;		/* libcurl stops: CURLE_WRITE_ERROR */
	}
	buf_add(s->body, data, len);
	return len;
}

/* A URL as a message holds it: without its query (which may carry the
 * address), shortened. */
static char *
net_https_shown(const char *url)
{
	size_t	n = strcspn(url, "?#");

	if (n <= NET_HTTPS_URL_SHOWN)
		return xstrndup(url, n);
	return xasprintf("%.*s...", NET_HTTPS_URL_SHOWN, url);
}

/* libcurl's failure, sorted. */
static enum net_https_result
net_https_failed(CURLcode rc, const char *errbuf, const char *url,
    const struct net_https *req, const struct net_https_sink *sink,
    char **cause)
{
	const char	*why = errbuf[0] != '\0' ? errbuf :
			    curl_easy_strerror(rc);
	char		*shown = net_https_shown(url);
	enum net_https_result r = NET_HTTPS_REFUSED;

	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
		*cause = xasprintf("%s: cannot connect: %s", shown, why);
		r = NET_HTTPS_ABSENT;
		break;
	case CURLE_OPERATION_TIMEDOUT:
		*cause = xasprintf("%s: no answer within %d s", shown,
		    req->seconds);
		break;
	case CURLE_FILESIZE_EXCEEDED:
		*cause = xasprintf("%s: the answer is larger than %zu kB: "
		    "not read", shown, req->max / 1024);
		break;
	case CURLE_WRITE_ERROR:
		if (sink->over) {
			*cause = xasprintf("%s: the answer is larger than "
			    "%zu kB: not read further", shown,
			    req->max / 1024);
			break;
		}
		*cause = xasprintf("%s: %s", shown, why);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
		*cause = xasprintf("%s: the server's certificate does not "
		    "verify: %s", shown, why);
		break;
	case CURLE_SSL_CONNECT_ERROR:
		*cause = xasprintf("%s: no TLS connection: %s", shown, why);
		break;
	default:
		*cause = xasprintf("%s: %s", shown, why);
		break;
	}
	free(shown);
	return r;
}

/*
 * One request to url, no redirect followed; *location: where to. With
 * form, a POST of it (application/x-www-form-urlencoded); with statusp,
 * any HTTP answer is NET_HTTPS_OK and its status goes there.
 */
static enum net_https_result
net_https_one(const struct net_https *req, const char *url, long ms,
    const char *form, long *statusp, struct buf *body, char **location,
    char **cause)
{
	struct net_https_sink	 sink;
	char			 errbuf[CURL_ERROR_SIZE];
	char			*where = NULL, *shown;
	CURL			*c;
	CURLcode		 rc;
	long			 status = 0;
	enum net_https_result	 r;

	*location = NULL;
	if ((c = curl_easy_init()) == NULL) {
		*cause = xstrdup("libcurl: cannot make a request");
		return NET_HTTPS_REFUSED;
	}
	buf_reset(body);
	sink.body = body;
	sink.max = req->max;
	sink.over = 0;
	errbuf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (req->ca_file != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)req->max);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, net_https_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "steedmail/" STEED_VERSION);
	if (form != NULL) {
		/* the form holds secrets: libcurl copies it, we wipe ours */
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(form));
		curl_easy_setopt(c, CURLOPT_COPYPOSTFIELDS, form);
	}

	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		r = net_https_failed(rc, errbuf, url, req, &sink, cause);
		curl_easy_cleanup(c);
		return r;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	shown = net_https_shown(url);
	if (statusp != NULL) {
		*statusp = status;
		r = NET_HTTPS_OK;
	} else if (status == 200)
		r = NET_HTTPS_OK;
	else if (status >= 300 && status < 400 &&
	    curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &where) == CURLE_OK &&
	    where != NULL) {
		*location = xstrdup(where);
		r = NET_HTTPS_OK;
	} else if (status == 404 || status == 410) {
		*cause = xasprintf("%s: not there (HTTP %ld)", shown, status);
		r = NET_HTTPS_ABSENT;
	} else {
		*cause = xasprintf("%s: HTTP status %ld", shown, status);
		r = NET_HTTPS_REFUSED;
	}
	free(shown);
	curl_easy_cleanup(c);
	return r;
}

enum net_https_result
net_https_get(const struct net_https *req, const char *url, struct buf *body,
    char **final, char **cause)
{
	enum net_https_result	 r;
	int64_t			 deadline;
	long			 left;
	char			*at, *next = NULL, *shown;
	int			 hops;

	*final = NULL;
	if (net_https_init(cause) == -1)
		return NET_HTTPS_REFUSED;
	if (strncmp(url, "https://", 8) != 0) {
		shown = net_https_shown(url);
		*cause = xasprintf("%s: not an https:// URL: not asked",
		    shown);
		free(shown);
		return NET_HTTPS_REFUSED;
	}
	deadline = clock_ms() + (int64_t)req->seconds * 1000;
	at = xstrdup(url);
	for (hops = 0;; hops++) {
		if ((left = (long)(deadline - clock_ms())) <= 0) {
			shown = net_https_shown(at);
			*cause = xasprintf("%s: no answer within %d s", shown,
			    req->seconds);
			free(shown);
			r = NET_HTTPS_REFUSED;
			break;
		}
		log_msg(LOG_INFO, "https: GET %s", at);
		r = net_https_one(req, at, left, NULL, NULL, body, &next,
		    cause);
		if (r != NET_HTTPS_OK || next == NULL)
			break;
		shown = net_https_shown(next);
		if (strncmp(next, "https://", 8) != 0) {
			*cause = xasprintf("redirected to %s, which is not "
			    "HTTPS: not followed (steedmail reads it over "
			    "HTTPS only)", shown);
			r = NET_HTTPS_REFUSED;
		} else if (hops == req->redirects) {
			*cause = xasprintf("more than %d redirects (the last "
			    "to %s): not followed", req->redirects, shown);
			r = NET_HTTPS_REFUSED;
		}
		free(shown);
		free(at);
		at = next;
		next = NULL;
		if (r != NET_HTTPS_OK)
			break;
	}
	free(next);
	if (r != NET_HTTPS_OK)
		buf_reset(body);
	*final = at;
	return r;
}

enum net_https_result
net_https_post(const struct net_https *req, const char *url,
    const char *form, struct buf *body, long *status, char **cause)
{
	enum net_https_result	 r;
	char			*next = NULL, *shown;

	*status = 0;
	if (net_https_init(cause) == -1)
		return NET_HTTPS_REFUSED;
	shown = net_https_shown(url);
	if (strncmp(url, "https://", 8) != 0) {
		*cause = xasprintf("%s: not an https:// URL: not asked",
		    shown);
		free(shown);
		return NET_HTTPS_REFUSED;
	}
	log_msg(LOG_INFO, "https: POST %s", shown);
	r = net_https_one(req, url, (long)req->seconds * 1000, form, status,
	    body, &next, cause);
	if (r == NET_HTTPS_OK && *status >= 300 && *status < 400) {
		*cause = xasprintf("%s: redirected (HTTP %ld): a form is "
		    "never sent on", shown, *status);
		r = NET_HTTPS_REFUSED;
	}
	free(next);
	free(shown);
	if (r != NET_HTTPS_OK)
		buf_reset(body);
	return r;
}
