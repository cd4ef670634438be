/*
 * oauth2-grant.c: the requests to an OAuth2 authorization server (see
 * oauth2.h): the device authorization grant (RFC 8628) and the refresh
 * grant (RFC 6749 6). Each is one form POSTed through net_https_post()
 * and a JSON object read with jansson, bounded (OAUTH2_ANSWER_MAX bytes,
 * OAUTH2_SECONDS). The wait for a device code's approval is here too, for
 * both front ends (steedmail --oauth-login, and the setup wizard's worker
 * thread, which stops it through fe_cancelled()). Owns nothing between
 * calls.
 *
 * What the server says is untrusted: only the members named here are
 * read, each checked for its type; the words of an error answer go
 * through strsafe() before they reach a message. The forms hold the
 * device code, the refresh token and the client secret: they are wiped
 * after use and never logged. Never prints.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "buf.h"
#include "clock.h"
#include "frontend.h"
#include "log.h"
#include "net-https.h"
#include "oauth2.h"
#include "strsafe.h"
#include "xmalloc.h"

#define OAUTH2_WORDS_MAX	200	/* bytes of the server's words shown */

void
oauth2_tokens_free(struct oauth2_tokens *t)
{
	if (t->access != NULL) {
		log_secret_remove(t->access);
		freezero_str(t->access);
	}
	if (t->refresh != NULL) {
		log_secret_remove(t->refresh);
		freezero_str(t->refresh);
	}
	memset(t, 0, sizeof *t);
}

void
oauth2_device_free(struct oauth2_device *d)
{
	freezero_str(d->device_code);
	free(d->user_code);
	free(d->uri);
	free(d->uri_complete);
	memset(d, 0, sizeof *d);
}

/* Add name=value to a form, the value percent-encoded. */
static void
oauth2_form_add(struct buf *b, const char *name, const char *value)
{
	static const char	 hex[] = "0123456789ABCDEF";
	unsigned char		 c;

	if (value == NULL)
		return;
	if (b->len != 0)
		buf_addc(b, '&');
	buf_adds(b, name);
	buf_addc(b, '=');
	for (; *value != '\0'; value++) {
		c = (unsigned char)*value;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~')
			buf_addc(b, (char)c);
		else {
			buf_addc(b, '%');
			buf_addc(b, hex[c >> 4]);
			buf_addc(b, hex[c & 15]);
		}
	}
}

/* The client's own members of every form. */
static void
oauth2_form_client(struct buf *b, const struct oauth2_endpoints *e)
{
	oauth2_form_add(b, "client_id", e->client_id);
	oauth2_form_add(b, "client_secret", e->client_secret);
}

/* A string member of o, or NULL. */
static const char *
oauth2_str(json_t *o, const char *name)
{
	return json_string_value(json_object_get(o, name));
}

/* A number member of o (a string of digits is taken too), or dflt. */
static long
oauth2_num(json_t *o, const char *name, long dflt)
{
	json_t		*v = json_object_get(o, name);
	const char	*s;
	char		*end;
	long		 n;

	if (json_is_integer(v))
		n = (long)json_integer_value(v);
	else if ((s = json_string_value(v)) != NULL) {
		n = strtol(s, &end, 10);
		if (end == s || *end != '\0')
			return dflt;
	} else
		return dflt;
	if (n <= 0 || n > 10L * 365 * 86400)
		return dflt;
	return n;
}

/* Untrusted words, made safe and bounded. */
static char *
oauth2_safe(const char *s)
{
	struct buf	b;
	size_t		n = strlen(s);

	buf_init(&b);
	strsafe_add(&b, s, n > OAUTH2_WORDS_MAX ? OAUTH2_WORDS_MAX : n, 0);
	if (n > OAUTH2_WORDS_MAX)
		buf_adds(&b, "...");
	if (b.len == 0)
		buf_adds(&b, "(nothing)");
	return buf_take(&b);
}

/*
 * POST form to url and read the JSON object of the answer: 0 with *o and
 * *status, or -1 and *cause (the server out of reach, or no JSON object).
 */
static int
oauth2_post(const struct oauth2_endpoints *e, const char *url,
    struct buf *form, json_t **o, long *status, int *unreached,
    char **cause)
{
	struct net_https	 req;
	struct buf		 body;
	json_error_t		 err;
	enum net_https_result	 r;
	char			*why = NULL;

	*o = NULL;
	if (unreached != NULL)
		*unreached = 0;
	req.ca_file = e->ca_file;
	req.seconds = OAUTH2_SECONDS;
	req.max = OAUTH2_ANSWER_MAX;
	req.redirects = 0;
	buf_init(&body);
	buf_addc(form, '\0');
	r = net_https_post(&req, url, form->data, &body, status, &why);
	explicit_bzero(form->data, form->len);
	buf_free(form);
	if (r != NET_HTTPS_OK) {
		if (unreached != NULL)
			*unreached = 1;
		*cause = xasprintf("the authorization server cannot be "
		    "reached: %s", why);
		free(why);
		buf_free(&body);
		return -1;
	}
	if (body.len != 0)
		*o = json_loadb(body.data, body.len, JSON_REJECT_DUPLICATES,
		    &err);
	if (body.data != NULL)
		explicit_bzero(body.data, body.len);
	buf_free(&body);
	if (*o == NULL || !json_is_object(*o)) {
		json_decref(*o);
		*o = NULL;
		*cause = xasprintf("the authorization server answered HTTP "
		    "%ld without a JSON object", *status);
		return -1;
	}
	return 0;
}

/* "error: error_description" of an error answer, made safe. */
static char *
oauth2_error_words(json_t *o)
{
	const char	*error, *descr;
	char		*e, *d, *s;

	error = oauth2_str(o, "error");
	descr = oauth2_str(o, "error_description");
	e = oauth2_safe(error != NULL ? error : "(no error code)");
	if (descr == NULL)
		return e;
	d = oauth2_safe(descr);
	s = xasprintf("%s: %s", e, d);
	free(e);
	free(d);
	return s;
}

/* The tokens of a successful token answer. 0, or -1 and *cause. */
static int
oauth2_take_tokens(json_t *o, struct oauth2_tokens *t, char **cause)
{
	const char	*access, *refresh, *type;

	memset(t, 0, sizeof *t);
	access = oauth2_str(o, "access_token");
	refresh = oauth2_str(o, "refresh_token");
	type = oauth2_str(o, "token_type");
	if (access == NULL || *access == '\0' ||
	    strcspn(access, "\r\n\001 ") != strlen(access)) {
		*cause = xstrdup("the authorization server's answer has no "
		    "usable access token");
		return -1;
	}
	if (type != NULL && strcasecmp(type, "bearer") != 0) {
		*cause = xstrdup("the authorization server gave a token that "
		    "is not a bearer token");
		return -1;
	}
	t->access = xstrdup(access);
	log_secret_add(t->access);
	if (refresh != NULL && *refresh != '\0' &&
	    strcspn(refresh, "\r\n") == strlen(refresh)) {
		t->refresh = xstrdup(refresh);
		log_secret_add(t->refresh);
	}
	t->expires_in = oauth2_num(o, "expires_in", OAUTH2_DEFAULT_LIFE);
	return 0;
}

int
oauth2_device_start(const struct oauth2_endpoints *e,
    struct oauth2_device *d, enum oauth2_failure *kind, char **cause)
{
	struct buf	 form;
	json_t		*o;
	const char	*code, *user, *uri, *complete;
	char		*why;
	long		 status;
	int		 unreached;

	memset(d, 0, sizeof *d);
	if (kind != NULL)
		*kind = OAUTH2_FAILED;
	if (e->device_url == NULL) {
		*cause = xasprintf("no device authorization URL is known for "
		    "this provider (%s): set oauth2-device-url", e->source);
		return -1;
	}
	buf_init(&form);
	oauth2_form_client(&form, e);
	oauth2_form_add(&form, "scope", e->scope);
	if (oauth2_post(e, e->device_url, &form, &o, &status, &unreached,
	    cause) == -1) {
		if (unreached && kind != NULL)
			*kind = OAUTH2_UNREACHABLE;
		return -1;
	}
	if (status != 200) {
		why = oauth2_error_words(o);
		*cause = xasprintf("the authorization server refused to start "
		    "the sign-in (HTTP %ld): %s", status, why);
		free(why);
		json_decref(o);
		return -1;
	}
	code = oauth2_str(o, "device_code");
	user = oauth2_str(o, "user_code");
	uri = oauth2_str(o, "verification_uri");
	if (uri == NULL)	/* Google's older name */
		uri = oauth2_str(o, "verification_url");
	complete = oauth2_str(o, "verification_uri_complete");
	if (code == NULL || user == NULL || uri == NULL ||
	    strncmp(uri, "https://", 8) != 0) {
		*cause = xstrdup("the authorization server's answer lacks a "
		    "device code, a user code or an https:// URL to visit");
		json_decref(o);
		return -1;
	}
	d->device_code = xstrdup(code);
	d->user_code = oauth2_safe(user);
	d->uri = oauth2_safe(uri);
	if (complete != NULL && strncmp(complete, "https://", 8) == 0)
		d->uri_complete = oauth2_safe(complete);
	d->interval = (int)oauth2_num(o, "interval", 5);
	if (d->interval > 60)
		d->interval = 60;
	d->expires_in = (int)oauth2_num(o, "expires_in", 600);
	json_decref(o);
	return 0;
}

/* One poll of the token endpoint, with why it failed (oauth2.h). */
static int
oauth2_device_ask(const struct oauth2_endpoints *e,
    const struct oauth2_device *d, struct oauth2_tokens *t,
    enum oauth2_failure *kind, char **cause)
{
	struct buf	 form;
	json_t		*o;
	const char	*error;
	char		*why;
	long		 status;
	int		 rc, unreached;

	memset(t, 0, sizeof *t);
	*kind = OAUTH2_FAILED;
	buf_init(&form);
	oauth2_form_add(&form, "grant_type",
	    "urn:ietf:params:oauth:grant-type:device_code");
	oauth2_form_add(&form, "device_code", d->device_code);
	oauth2_form_client(&form, e);
	if (oauth2_post(e, e->token_url, &form, &o, &status, &unreached,
	    cause) == -1) {
		if (unreached)
			*kind = OAUTH2_UNREACHABLE;
		return -1;
	}
	if (status == 200) {
		rc = oauth2_take_tokens(o, t, cause);
		json_decref(o);
		return rc;
	}
	error = oauth2_str(o, "error");
	if (error != NULL && strcmp(error, "authorization_pending") == 0)
		rc = OAUTH2_PENDING;
	else if (error != NULL && strcmp(error, "slow_down") == 0)
		rc = OAUTH2_SLOWER;
	else {
		why = oauth2_error_words(o);
		if (error != NULL && strcmp(error, "access_denied") == 0) {
			*kind = OAUTH2_DENIED;
			*cause = xasprintf("the sign-in was refused at the "
			    "provider: %s", why);
		} else if (error != NULL &&
		    strcmp(error, "expired_token") == 0) {
			*kind = OAUTH2_EXPIRED;
			*cause = xasprintf("the code expired before the "
			    "sign-in was approved: %s", why);
		} else
			*cause = xasprintf("the authorization server refused "
			    "the sign-in (HTTP %ld): %s", status, why);
		free(why);
		rc = -1;
	}
	json_decref(o);
	return rc;
}

int
oauth2_device_poll(const struct oauth2_endpoints *e,
    const struct oauth2_device *d, struct oauth2_tokens *t, char **cause)
{
	enum oauth2_failure	kind;

	return oauth2_device_ask(e, d, t, &kind, cause);
}

/* Sleep ms, in steps of 0.2 s: 1 when the person stopped it meanwhile. */
static int
oauth2_nap(int64_t ms)
{
	struct timespec	ts;
	int64_t		end = clock_ms() + ms, left;

	while ((left = end - clock_ms()) > 0) {
		if (fe_cancelled())
			return 1;
		if (left > 200)
			left = 200;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left * 1000000L;
		nanosleep(&ts, NULL);
	}
	return fe_cancelled();
}

int
oauth2_device_wait(const struct oauth2_endpoints *e,
    const struct oauth2_device *d, struct oauth2_tokens *t,
    enum oauth2_failure *why, char **cause)
{
	int64_t	deadline = clock_ms() + (int64_t)d->expires_in * 1000;
	int	interval = d->interval, rc;

	memset(t, 0, sizeof *t);
	for (;;) {
		if (clock_ms() + (int64_t)interval * 1000 > deadline) {
			*why = OAUTH2_EXPIRED;
			*cause = xasprintf("the code expired after %d s "
			    "without the sign-in being approved",
			    d->expires_in);
			return -1;
		}
		if (oauth2_nap((int64_t)interval * 1000)) {
			*why = OAUTH2_CANCELLED;
			*cause = xstrdup("the sign-in was stopped");
			return -1;
		}
		rc = oauth2_device_ask(e, d, t, why, cause);
		if (rc == 0)
			return 0;
		if (rc == -1)
			return -1;
		if (rc == OAUTH2_SLOWER)
			interval += OAUTH2_SLOWER_BY;
	}
}

int
oauth2_refresh(const struct oauth2_endpoints *e, const char *refresh,
    struct oauth2_tokens *t, int *refused, char **cause)
{
	struct buf	 form;
	json_t		*o;
	const char	*error;
	char		*why;
	long		 status;
	int		 rc;

	memset(t, 0, sizeof *t);
	*refused = 0;
	buf_init(&form);
	oauth2_form_add(&form, "grant_type", "refresh_token");
	oauth2_form_add(&form, "refresh_token", refresh);
	oauth2_form_client(&form, e);
	if (oauth2_post(e, e->token_url, &form, &o, &status, NULL,
	    cause) == -1)
		return -1;
	if (status == 200) {
		rc = oauth2_take_tokens(o, t, cause);
		json_decref(o);
		return rc;
	}
	error = oauth2_str(o, "error");
	why = oauth2_error_words(o);
	if (error != NULL && (strcmp(error, "invalid_grant") == 0 ||
	    strcmp(error, "unauthorized_client") == 0 ||
	    strcmp(error, "invalid_client") == 0)) {
		*refused = 1;
		*cause = xasprintf("the authorization server refused the "
		    "refresh token (revoked or expired): %s", why);
	} else
		*cause = xasprintf("the authorization server could not "
		    "refresh the access token (HTTP %ld): %s", status, why);
	free(why);
	json_decref(o);
	return -1;
}

int
oauth2_code_exchange(const struct oauth2_endpoints *e, const char *code,
    const char *redirect_uri, const char *verifier, struct oauth2_tokens *t,
    char **cause)
{
	struct buf	 form;
	json_t		*o;
	char		*why;
	long		 status;
	int		 rc;

	memset(t, 0, sizeof *t);
	buf_init(&form);
	oauth2_form_add(&form, "grant_type", "authorization_code");
	oauth2_form_add(&form, "code", code);
	oauth2_form_add(&form, "redirect_uri", redirect_uri);
	oauth2_form_add(&form, "code_verifier", verifier);
	oauth2_form_client(&form, e);
	if (oauth2_post(e, e->token_url, &form, &o, &status, NULL,
	    cause) == -1)
		return -1;
	if (status == 200)
		rc = oauth2_take_tokens(o, t, cause);
	else {
		why = oauth2_error_words(o);
		*cause = xasprintf("the authorization server refused the "
		    "code (HTTP %ld): %s", status, why);
		free(why);
		rc = -1;
	}
	json_decref(o);
	return rc;
}
