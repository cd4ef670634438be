/*
 * oauth2.c: an account's OAuth2 tokens (see oauth2.h). Owns, per account
 * and per process, the endpoints, the refresh token (decrypted once from
 * its file) and the access token with its deadline on the monotonic
 * clock, so that a clock set wrong, or one that jumps, neither makes a
 * token look fresh nor stale: a token's life is counted from the moment
 * its answer came, as the server said it in seconds.
 *
 * Called by whoever logs in (password.c for the first login of a session
 * or a send, imap-conn.c when it connects again, send.c) from the thread
 * that drives the account: the interface's worker, or main in the batch
 * commands. One mutex guards the list of accounts, held only to find,
 * add or drop an entry; each account's own mutex guards its tokens and is
 * held across its refresh, so that two threads never spend one refresh
 * token twice, and an authorization server that is slow for one account
 * holds up no other. An entry dropped while a thread uses it (a new
 * sign-in replaced it) is freed by the last thread to let it go.
 *
 * The refresh token lives on disk only in its file, encrypted to the
 * account's own key (password-file.c does the encrypting); access tokens
 * never touch the disk. Every copy is registered with the log's scrubber
 * and wiped. Never prints: a rotated refresh token that cannot be kept is
 * a warning through fe_notice().
 */
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "crypto.h"
#include "frontend.h"
#include "log.h"
#include "oauth2.h"
#include "ownkey.h"
#include "password.h"
#include "paths.h"
#include "provider.h"
#include "xmalloc.h"

struct oauth2_state {
	char			*path;		/* the token file: the key */
	/* under oauth2_lock: */
	unsigned		 refs;		/* threads using it */
	int			 gone;		/* off the list: freed by the
						   last user */
	/* the rest under lock: */
	pthread_mutex_t		 lock;
	int			 loaded;	/* read from its file (or made
						   by oauth2_store) */
	struct oauth2_endpoints	 e;
	char			*refresh;
	char			*access;	/* NULL: none yet */
	int64_t			 expiry;	/* clock_ms() */
	int64_t			 margin;	/* ms before expiry to renew */
	char			*refused;	/* why the refresh token no
						   longer works, or NULL */
	struct timespec		 mtime;		/* of the file, when read */
	struct oauth2_state	*next;
};

static pthread_mutex_t		 oauth2_lock = PTHREAD_MUTEX_INITIALIZER;
static struct oauth2_state	*oauth2_states;

int
oauth2_account(const struct account *a)
{
	return a->auth != NULL && strcmp(a->auth, "oauth2") == 0;
}

void
oauth2_endpoints_free(struct oauth2_endpoints *e)
{
	free(e->token_url);
	free(e->device_url);
	free(e->auth_url);
	free(e->scope);
	free(e->client_id);
	freezero_str(e->client_secret);
	free(e->ca_file);
	free(e->source);
	memset(e, 0, sizeof *e);
}

static char *
oauth2_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

int
oauth2_endpoints(const struct config *cf, const struct account *a,
    struct oauth2_endpoints *e, char **cause)
{
	const struct autoconfig_oauth2	*p = NULL;
	struct provider_list		 l;
	const struct autoconfig		*ac = NULL;
	const char			*domain, *file = NULL, *bad;
	char				*why = NULL;

	memset(e, 0, sizeof *e);
	memset(&l, 0, sizeof l);
	domain = strrchr(a->address, '@');
	if (cf != NULL && domain != NULL && (a->oauth2_token_url == NULL ||
	    a->oauth2_client_id == NULL)) {
		if (provider_list_load(provider_dir(cf), 0, &l, &why) == -1) {
			log_msg(LOG_INFO, "oauth2: %s: provider files: %s",
			    a->id, why);
			free(why);
		} else if ((ac = provider_list_find(&l, domain + 1, &file)) !=
		    NULL)
			p = &ac->oauth2;
	}
	e->token_url = oauth2_dup(a->oauth2_token_url != NULL ?
	    a->oauth2_token_url : p != NULL ? p->token_url : NULL);
	e->device_url = oauth2_dup(a->oauth2_device_url != NULL ?
	    a->oauth2_device_url : p != NULL ? p->device_url : NULL);
	e->auth_url = oauth2_dup(a->oauth2_auth_url != NULL ?
	    a->oauth2_auth_url : p != NULL ? p->auth_url : NULL);
	e->scope = oauth2_dup(a->oauth2_scope != NULL ?
	    a->oauth2_scope : p != NULL ? p->scope : NULL);
	e->client_id = oauth2_dup(a->oauth2_client_id != NULL ?
	    a->oauth2_client_id : p != NULL ? p->client_id : NULL);
	e->client_secret = oauth2_dup(a->oauth2_client_secret != NULL ?
	    a->oauth2_client_secret : p != NULL ? p->client_secret : NULL);
	e->ca_file = oauth2_dup(a->ca_file != NULL ? a->ca_file :
	    cf != NULL ? cf->ca_file : NULL);
	if (file != NULL)
		e->source = xasprintf("the settings of account %s and the "
		    "provider file %s", a->id, file);
	else
		e->source = xasprintf("the settings of account %s", a->id);
	provider_list_free(&l);
	if ((bad = e->token_url) != NULL && strncmp(bad, "https://", 8) != 0)
		goto plain;
	if ((bad = e->device_url) != NULL && strncmp(bad, "https://", 8) != 0)
		goto plain;
	if ((bad = e->auth_url) != NULL && strncmp(bad, "https://", 8) != 0)
		goto plain;
	if (e->token_url == NULL || e->client_id == NULL) {
		*cause = xasprintf("account %s has no OAuth2 %s (not in %s): "
		    "set oauth2-token-url and oauth2-client-id", a->id,
		    e->token_url == NULL ? "token URL" : "client ID",
		    e->source);
		oauth2_endpoints_free(e);
		return -1;
	}
	return 0;

plain:
	*cause = xasprintf("account %s: the OAuth2 URL %s (from %s) is not "
	    "https://: tokens go over verified HTTPS only", a->id, bad,
	    e->source);
	oauth2_endpoints_free(e);
	return -1;
}

char *
oauth2_token_path(const struct account *a, char **cause)
{
	char	*dir, *path;

	if (a->oauth2_token_file != NULL)
		return xstrdup(a->oauth2_token_file);
	if ((dir = paths_data_dir(cause)) == NULL)
		return NULL;
	path = xasprintf("%s/oauth2-%s.asc", dir, a->id);
	free(dir);
	return path;
}

static struct oauth2_state *
oauth2_state_new(const char *path)
{
	struct oauth2_state	*s;

	s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

/* What s knows of its tokens, forgotten (wiped): it is read again. */
static void
oauth2_state_clear(struct oauth2_state *s)
{
	free(s->refused);
	s->refused = NULL;
	oauth2_endpoints_free(&s->e);
	if (s->refresh != NULL) {
		log_secret_remove(s->refresh);
		freezero_str(s->refresh);
		s->refresh = NULL;
	}
	if (s->access != NULL) {
		log_secret_remove(s->access);
		freezero_str(s->access);
		s->access = NULL;
	}
	s->loaded = 0;
}

static void
oauth2_state_free(struct oauth2_state *s)
{
	oauth2_state_clear(s);
	pthread_mutex_destroy(&s->lock);
	free(s->path);
	free(s);
}

static struct oauth2_state *
oauth2_find(const char *path)
{
	struct oauth2_state	*s;

	for (s = oauth2_states; s != NULL; s = s->next)
		if (strcmp(s->path, path) == 0)
			return s;
	return NULL;
}

/* Off the list; freed now, or by the last thread using it. Under
 * oauth2_lock. */
static void
oauth2_remove(struct oauth2_state *s)
{
	struct oauth2_state	**pp;

	for (pp = &oauth2_states; *pp != NULL; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	s->gone = 1;
	if (s->refs == 0)
		oauth2_state_free(s);
}

/* A thread is done with s (taken by oauth2_access). */
static void
oauth2_release(struct oauth2_state *s)
{
	pthread_mutex_lock(&oauth2_lock);
	if (--s->refs == 0 && s->gone)
		oauth2_state_free(s);
	pthread_mutex_unlock(&oauth2_lock);
}

void
oauth2_discard(const char *path)
{
	struct oauth2_state	*s;

	pthread_mutex_lock(&oauth2_lock);
	if ((s = oauth2_find(path)) != NULL)
		oauth2_remove(s);
	pthread_mutex_unlock(&oauth2_lock);
	if (unlink(path) == -1 && errno != ENOENT)
		log_msg(LOG_INFO, "oauth2: %s: cannot remove: %s", path,
		    strerror(errno));
}

void
oauth2_forget(void)
{
	pthread_mutex_lock(&oauth2_lock);
	while (oauth2_states != NULL)
		oauth2_remove(oauth2_states);
	pthread_mutex_unlock(&oauth2_lock);
}

/* Take the access token of t into s, with its deadline. */
static void
oauth2_take_access(struct oauth2_state *s, struct oauth2_tokens *t)
{
	int64_t	life = (int64_t)t->expires_in * 1000;

	if (s->access != NULL) {
		log_secret_remove(s->access);
		freezero_str(s->access);
	}
	s->access = t->access;
	t->access = NULL;
	s->expiry = clock_ms() + life;
	/* a short-lived token is renewed when a quarter of it is left */
	s->margin = life > 4 * OAUTH2_MARGIN * 1000 ? OAUTH2_MARGIN * 1000 :
	    life / 4;
}

/* Encrypt refresh to a's own key into path. */
static int
oauth2_write(const struct account *a, const char *path, const char *refresh,
    char **cause)
{
	struct ownkey	k;
	int		rc;

	memset(&k, 0, sizeof k);
	if (ownkey_openpgp(a, 1, &k, cause) == -1)
		return -1;
	rc = password_file_write(path, k.fpr, refresh, cause);
	ownkey_free(&k);
	return rc;
}

int
oauth2_store(const struct config *cf, const struct account *a,
    const struct oauth2_tokens *t, char **cause)
{
	struct oauth2_state	*s, *old;
	struct oauth2_tokens	 copy;
	char			*path;

	if (t->refresh == NULL) {
		*cause = xstrdup("the authorization server gave no refresh "
		    "token, so the sign-in could not outlast the access "
		    "token");
		return -1;
	}
	if ((path = oauth2_token_path(a, cause)) == NULL)
		return -1;
	if (oauth2_write(a, path, t->refresh, cause) == -1) {
		free(path);
		return -1;
	}
	/* and keep both for this process */
	s = oauth2_state_new(path);
	free(path);
	if (oauth2_endpoints(cf, a, &s->e, cause) == -1) {
		oauth2_state_free(s);
		return -1;
	}
	s->loaded = 1;
	s->refresh = xstrdup(t->refresh);
	log_secret_add(s->refresh);
	memset(&copy, 0, sizeof copy);
	copy.access = xstrdup(t->access);
	log_secret_add(copy.access);
	copy.expires_in = t->expires_in;
	oauth2_take_access(s, &copy);
	pthread_mutex_lock(&oauth2_lock);
	if ((old = oauth2_find(s->path)) != NULL)
		oauth2_remove(old);
	s->next = oauth2_states;
	oauth2_states = s;
	pthread_mutex_unlock(&oauth2_lock);
	return 0;
}

int
oauth2_rekey(const struct account *a, char **cause)
{
	struct oauth2_state	*s;
	char			*path;
	int			 rc = -1;

	if ((path = oauth2_token_path(a, cause)) == NULL)
		return -1;
	pthread_mutex_lock(&oauth2_lock);
	if ((s = oauth2_find(path)) != NULL)
		s->refs++;
	pthread_mutex_unlock(&oauth2_lock);
	if (s == NULL) {
		*cause = xasprintf("account %s has no OAuth2 sign-in in this "
		    "process to keep", a->id);
		free(path);
		return -1;
	}
	/* the account's own lock: encrypting holds up no other account */
	pthread_mutex_lock(&s->lock);
	if (s->refresh == NULL)
		*cause = xasprintf("account %s has no OAuth2 sign-in in this "
		    "process to keep", a->id);
	else
		rc = oauth2_write(a, path, s->refresh, cause);
	pthread_mutex_unlock(&s->lock);
	oauth2_release(s);
	free(path);
	return rc;
}

/* The refresh token in s's file, its time of change noted. */
static char *
oauth2_read(struct oauth2_state *s, char **cause)
{
	struct stat	st;

	if (stat(s->path, &st) == 0)
		s->mtime = st.st_mtim;
	return password_file_read(s->path, cause);
}

/*
 * A refused refresh token, and a file that changed since it was read
 * (steedmail --oauth-login ran meanwhile, in another process): read it
 * again, so that a running interface picks the new sign-in up at its
 * next connection. 1 when s works again.
 */
static int
oauth2_reread(struct oauth2_state *s)
{
	struct stat	 st;
	char		*refresh, *why = NULL;

	if (s->e.token_url == NULL || stat(s->path, &st) == -1 ||
	    (st.st_mtim.tv_sec == s->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == s->mtime.tv_nsec))
		return 0;
	if ((refresh = oauth2_read(s, &why)) == NULL) {
		log_msg(LOG_INFO, "oauth2: %s: %s", s->path, why);
		free(why);
		return 0;
	}
	if (s->refresh != NULL) {
		log_secret_remove(s->refresh);
		freezero_str(s->refresh);
	}
	s->refresh = refresh;
	log_secret_add(s->refresh);
	free(s->refused);
	s->refused = NULL;
	log_msg(LOG_INFO, "oauth2: %s: signed in again since: read anew",
	    s->path);
	return 1;
}

/*
 * Read s's tokens from its file (and its endpoints from the settings),
 * under s's lock. What could not be read stays as why (refused), so that
 * a later call without cf (a reconnection) says the same; one with cf
 * reads again.
 */
static void
oauth2_load(struct oauth2_state *s, const struct config *cf,
    const struct account *a)
{
	char	*why = NULL;

	if (s->loaded && s->refused != NULL && cf != NULL)
		oauth2_state_clear(s);	/* signed in again since, perhaps */
	if (s->loaded)
		return;
	s->loaded = 1;
	if (access(s->path, F_OK) != 0)
		s->refused = xasprintf("account %s is not signed in with "
		    "OAuth2 yet: run steedmail -A %s --oauth-login", a->id,
		    a->id);
	else if (oauth2_endpoints(cf, a, &s->e, &why) == -1)
		s->refused = why;
	else if (crypto_init(cf->gnupg_home, &why) == -1 ||
	    (s->refresh = oauth2_read(s, &why)) == NULL) {
		s->refused = xasprintf("cannot decrypt the OAuth2 refresh "
		    "token of account %s: %s", a->id, why != NULL ? why :
		    "no reason given");
		free(why);
	} else
		log_secret_add(s->refresh);
}

/* Refresh s's access token. 0, or -1 and *cause. */
static int
oauth2_renew(const struct account *a, struct oauth2_state *s, int flags,
    char **cause)
{
	struct oauth2_tokens	 t;
	char			*why = NULL, *warn = NULL;
	int			 refused;

	log_msg(LOG_INFO, "oauth2: %s: refreshing the access token%s", a->id,
	    flags & OAUTH2_FORCE ? " (the server refused the last one)" : "");
	if (oauth2_refresh(&s->e, s->refresh, &t, &refused, &why) == -1) {
		if (refused) {
			free(s->refused);
			s->refused = xasprintf("account %s must sign in again "
			    "(steedmail -A %s --oauth-login): %s", a->id,
			    a->id, why);
			*cause = xstrdup(s->refused);
			free(why);
			if (s->access != NULL) {
				log_secret_remove(s->access);
				freezero_str(s->access);
				s->access = NULL;
			}
			return -1;
		}
		if (!(flags & OAUTH2_FORCE) && s->access != NULL &&
		    clock_ms() < s->expiry) {
			/* not expired yet: use it while it lasts */
			log_msg(LOG_INFO, "oauth2: %s: %s; the access token "
			    "still has %lld s", a->id, why,
			    (long long)(s->expiry - clock_ms()) / 1000);
			free(why);
			return 0;
		}
		*cause = xasprintf("no fresh OAuth2 access token for account "
		    "%s: %s", a->id, why);
		free(why);
		return -1;
	}
	oauth2_take_access(s, &t);
	if (t.refresh != NULL && strcmp(t.refresh, s->refresh) != 0) {
		/* rotated: the old one may no longer work */
		if (oauth2_write(a, s->path, t.refresh, &warn) == -1) {
			fe_notice(FE_WARNING, "%s: the new OAuth2 refresh "
			    "token could not be kept (%s): you will have to "
			    "sign in again next time", a->id, warn);
			free(warn);
		}
		log_secret_remove(s->refresh);
		freezero_str(s->refresh);
		s->refresh = t.refresh;
		t.refresh = NULL;
	}
	oauth2_tokens_free(&t);
	return 0;
}

char *
oauth2_access(const struct config *cf, const struct account *a, int flags,
    char **cause)
{
	struct oauth2_state	*s;
	char			*path, *token = NULL;

	if ((path = oauth2_token_path(a, cause)) == NULL)
		return NULL;
	pthread_mutex_lock(&oauth2_lock);
	if ((s = oauth2_find(path)) == NULL && cf != NULL) {
		s = oauth2_state_new(path);
		s->next = oauth2_states;
		oauth2_states = s;
	}
	if (s != NULL)
		s->refs++;
	pthread_mutex_unlock(&oauth2_lock);
	free(path);
	if (s == NULL) {
		*cause = xasprintf("account %s has no OAuth2 token: sign in "
		    "with steedmail -A %s --oauth-login", a->id, a->id);
		return NULL;
	}

	pthread_mutex_lock(&s->lock);
	if (cf != NULL || s->loaded)
		oauth2_load(s, cf, a);
	if (!s->loaded) {
		/* made by a call with cf that has not read it yet */
		*cause = xasprintf("account %s has no OAuth2 token: sign in "
		    "with steedmail -A %s --oauth-login", a->id, a->id);
		goto out;
	}
	if (s->refused != NULL && !oauth2_reread(s)) {
		*cause = xstrdup(s->refused);
		goto out;
	}
	if ((flags & OAUTH2_FORCE) || s->access == NULL ||
	    clock_ms() >= s->expiry - s->margin) {
		if (oauth2_renew(a, s, flags, cause) == -1)
			goto out;
	}
	token = xstrdup(s->access);
out:
	pthread_mutex_unlock(&s->lock);
	oauth2_release(s);
	return token;
}
