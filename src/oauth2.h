/*
 * oauth2.h: signing in to an account with OAuth2 (RFC 6749) rather than
 * a password, for the IMAP and SMTP logins (SASL OAUTHBEARER, RFC 7628,
 * or XOAUTH2; sasl.h).
 *
 * oauth2-grant.c speaks to the authorization server: the device
 * authorization grant (RFC 8628: a URL and a code the person types on
 * any device, which works over SSH) and the refresh of an access token,
 * each a form POSTed over verified HTTPS (net-https.h) and a JSON answer.
 *
 * oauth2.c keeps, per account and per process, the refresh token (read
 * once from its file, where it is encrypted to the account's own OpenPGP
 * key, as the wizard's password file is: never in clear on disk) and the
 * access token with the time it expires, and refreshes the access token
 * before it expires, or at once when a server has just refused it.
 *
 * Where the endpoints come from: the account's oauth2-* settings, else
 * the provider file (provider.h) that lists the address's domain.
 * Nothing here prints or prompts; the device grant's URL and code go
 * back to the front end, which shows them.
 */
#ifndef STEED_OAUTH2_H
#define STEED_OAUTH2_H

#include "config.h"

#define OAUTH2_SECONDS		30	/* for one request to the server */
#define OAUTH2_ANSWER_MAX	(64 * 1024)	/* bytes of its answer */
#define OAUTH2_MARGIN		60	/* seconds before expiry to refresh */
#define OAUTH2_DEFAULT_LIFE	3600	/* an answer without expires_in */

struct oauth2_endpoints {
	char	*token_url;
	char	*device_url;	/* NULL: the provider has no device grant */
	char	*auth_url;	/* NULL: no code flow (RFC 8252) */
	char	*scope;
	char	*client_id;
	char	*client_secret;	/* NULL: none (a public client) */
	char	*ca_file;	/* the account's, else cf's; NULL: system */
	char	*source;	/* "the configuration", "provider file X" */
};

struct oauth2_tokens {
	char	*access;
	char	*refresh;	/* NULL: the server sent none */
	long	 expires_in;	/* seconds */
};

struct oauth2_device {
	char	*device_code;
	char	*user_code;
	char	*uri;		/* verification_uri */
	char	*uri_complete;	/* with the code in it, or NULL */
	int	 interval;	/* seconds between polls */
	int	 expires_in;	/* seconds the code is good for */
};

/* Does the account sign in with OAuth2 (auth = oauth2)? */
int	 oauth2_account(const struct account *);

/*
 * The endpoints of account a: its settings, the gaps filled from the
 * provider file of its address's domain. -1 and *cause when there is no
 * token URL or client ID.
 */
int	 oauth2_endpoints(const struct config *cf, const struct account *a,
	    struct oauth2_endpoints *, char **cause);
void	 oauth2_endpoints_free(struct oauth2_endpoints *);

/* oauth2-grant.c. */
void	 oauth2_tokens_free(struct oauth2_tokens *);
void	 oauth2_device_free(struct oauth2_device *);


#define OAUTH2_PENDING	1	/* not yet approved: poll again */
#define OAUTH2_SLOWER	2	/* poll again, 5 s more apart */
/*
 * Ask once whether the device code was approved (RFC 8628 3.4): 0 with
 * the tokens, OAUTH2_PENDING, OAUTH2_SLOWER, or -1 and *cause (denied,
 * expired, or the server out of reach).
 */
int	 oauth2_device_poll(const struct oauth2_endpoints *,
	    const struct oauth2_device *, struct oauth2_tokens *,
	    char **cause);

/* Why a sign-in by the device grant ended without tokens. */
enum oauth2_failure {
	OAUTH2_FAILED,		/* the server refused it otherwise */
	OAUTH2_DENIED,		/* the person said no at the provider */
	OAUTH2_EXPIRED,		/* the code expired before it was approved */
	OAUTH2_UNREACHABLE,	/* the authorization server is out of reach */
	OAUTH2_CANCELLED	/* fe_cancelled(): the person stopped it */
};
#define OAUTH2_SLOWER_BY	5	/* seconds more between polls (3.5) */
/*
 * Poll until the device code is approved, refused or expires (RFC 8628
 * 3.5), as often as the server allows, slowing down when it says so; the
 * expiry counted on the monotonic clock. Blocks for as long as that
 * takes, but polls fe_cancelled() every 0.2 s between requests. 0 with
 * the tokens, or -1, *why and *cause.
 */
/* Ask for a device code (RFC 8628 3.1). 0, or -1, *why (when not NULL)
 * and *cause. */
int	 oauth2_device_start(const struct oauth2_endpoints *,
	    struct oauth2_device *, enum oauth2_failure *why, char **cause);
int	 oauth2_device_wait(const struct oauth2_endpoints *,
	    const struct oauth2_device *, struct oauth2_tokens *,
	    enum oauth2_failure *why, char **cause);

/*
 * A new access token for the refresh token (RFC 6749 6): 0 and the
 * tokens (a new refresh token when the server rotates them), or -1 and
 * *cause; *refused set when the server refused the refresh token itself
 * (revoked or expired: only signing in again helps), clear when it could
 * not be asked or failed otherwise (trying later may help).
 */
int	 oauth2_refresh(const struct oauth2_endpoints *, const char *refresh,
	    struct oauth2_tokens *, int *refused, char **cause);

/*
 * oauth2-code.c: the authorization code grant with PKCE (RFC 7636) and a
 * loopback redirect (RFC 8252), for a browser on this machine: a
 * listener on 127.0.0.1 at a port of its own, the URL to open, and the
 * wait for the browser to come back with the code.
 */
struct oauth2_code {
	int	 fd;		/* the listener; -1: none */
	char	*redirect_uri;	/* http://127.0.0.1:PORT/ */
	char	*verifier;	/* PKCE code_verifier */
	char	*state;
	char	*url;		/* the authorization URL to open */
};
int	 oauth2_code_start(const struct oauth2_endpoints *,
	    struct oauth2_code *, char **cause);
/*
 * Wait at most seconds for the browser's redirect, answer it with a
 * page, and trade its code for tokens: 0, or -1, *why (when not NULL:
 * refused at the provider, no answer in time, stopped by fe_cancelled(),
 * which is polled every 0.1 s) and *cause.
 */
int	 oauth2_code_finish(const struct oauth2_endpoints *,
	    struct oauth2_code *, int seconds, struct oauth2_tokens *,
	    enum oauth2_failure *why, char **cause);
/*
 * Open url in the web browser of this machine, and do not wait for it:
 * $BROWSER (which may hold arguments), else xdg-open when there is a
 * display; with graphical set, only when there is a display (a browser
 * in the terminal would fight a screen that owns it). Its output goes to
 * /dev/null. 0, or -1 and *cause when none was started.
 */
int	 oauth2_browser_open(const char *url, int graphical, char **cause);
void	 oauth2_code_free(struct oauth2_code *);
/* oauth2-grant.c: the code for tokens (RFC 6749 4.1.3, with PKCE). */
int	 oauth2_code_exchange(const struct oauth2_endpoints *,
	    const char *code, const char *redirect_uri, const char *verifier,
	    struct oauth2_tokens *, char **cause);

/* oauth2.c. */

/* The file of a's refresh token: its oauth2-token-file, else
 * $XDG_DATA_HOME/steedmail/oauth2-ID.asc. */
char	*oauth2_token_path(const struct account *, char **cause);

/*
 * Keep refresh (and the access token that came with it) for account a:
 * encrypted to the account's OpenPGP key (made when there is none yet)
 * in its token file, mode 0600. crypto_init() must have run.
 */
int	 oauth2_store(const struct config *cf, const struct account *a,
	    const struct oauth2_tokens *, char **cause);

/*
 * Keep the refresh token this process holds for account a (oauth2_store()
 * put it there) again, encrypted to a's key as it is now (another key
 * was chosen since). 0, or -1 and *cause.
 */
int	 oauth2_rekey(const struct account *a, char **cause);

#define OAUTH2_FORCE	0x1	/* the server refused the token: refresh */
/*
 * An access token for account a, refreshed first when it expires within
 * OAUTH2_MARGIN seconds (or flags has OAUTH2_FORCE). cf may be NULL once
 * the account's token was asked for in this process. The caller frees
 * the result with freezero_str(). NULL and *cause (saying what to do)
 * when there is none.
 */
char	*oauth2_access(const struct config *cf, const struct account *a,
	    int flags, char **cause);

/*
 * A sign-in given up before its account was saved: the token file at
 * path removed, and what this process keeps of it forgotten (wiped).
 */
void	 oauth2_discard(const char *path);

/* Forget every token kept in memory (wiped). */
void	 oauth2_forget(void);

#endif
