/*
 * cli-oauth.c: steedmail --oauth-login, signing an account in with
 * OAuth2 by the device authorization grant (RFC 8628): it shows a URL
 * and a code to type there on any device (a phone will do; nothing needs
 * a browser on this machine, so it works over SSH), waits while the
 * person approves, and keeps the refresh token encrypted to the
 * account's own key (oauth2.h). With --browser, the authorization code
 * flow with PKCE and a loopback redirect instead (RFC 8252): the browser
 * of this machine ($BROWSER, else xdg-open when there is a display) is
 * sent to the provider, and comes back to a port on 127.0.0.1. The
 * waiting is the batch command's own: the interface never waits on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cli.h"
#include "crypto.h"
#include "oauth2.h"
#include "xmalloc.h"

#define CLI_OAUTH_BROWSER_WAIT	300	/* seconds for the browser's return */

/* The code flow: 0 and the tokens, or -1 and *cause. */
static int
cmd_oauth2_browser(const struct oauth2_endpoints *e,
    struct oauth2_tokens *t, char **cause)
{
	struct oauth2_code	 c;
	char			*why = NULL;
	int			 rc;

	if (oauth2_code_start(e, &c, cause) == -1)
		return -1;
	cmd_print(stdout, "", "Open this URL in a browser on this computer "
	    "and sign in there:");
	cmd_print(stdout, "  ", "%s", c.url);
	cmd_print(stdout, "", "Waiting for the browser to come back to %s "
	    "(%d minutes at most)...", c.redirect_uri,
	    CLI_OAUTH_BROWSER_WAIT / 60);
	fflush(stdout);
	if (oauth2_browser_open(c.url, 0, &why) == -1)
		free(why);	/* the URL is printed above */
	rc = oauth2_code_finish(e, &c, CLI_OAUTH_BROWSER_WAIT, t, NULL,
	    cause);
	oauth2_code_free(&c);
	return rc;
}

int
cmd_oauth2_login(struct cmd_ctx *ctx)
{
	struct account		*a;
	struct oauth2_endpoints	 e;
	struct oauth2_device	 d;
	struct oauth2_tokens	 t;
	enum oauth2_failure	 why;
	char			*cause = NULL, *path;
	int			 rc = EX_UNAVAILABLE;

	if ((a = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	if (!oauth2_account(a)) {
		cmd_error("account %s does not sign in with OAuth2: set auth = "
		    "oauth2 in its section", a->id);
		return EX_CONFIG;
	}
	if (crypto_init(ctx->cf->gnupg_home, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	if (oauth2_endpoints(ctx->cf, a, &e, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_CONFIG;
	}
	memset(&d, 0, sizeof d);
	memset(&t, 0, sizeof t);
	if (ctx->browser || (e.device_url == NULL && e.auth_url != NULL)) {
		if (cmd_oauth2_browser(&e, &t, &cause) == -1)
			goto fail;
		goto store;
	}
	if (oauth2_device_start(&e, &d, NULL, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		oauth2_endpoints_free(&e);
		return EX_UNAVAILABLE;
	}
	cmd_print(stdout, "", "To sign in account %s (%s), visit", a->id,
	    a->address);
	cmd_print(stdout, "  ", "%s", d.uri);
	cmd_print(stdout, "", "and enter the code %s", d.user_code);
	if (d.uri_complete != NULL)
		cmd_print(stdout, "", "(or visit %s)", d.uri_complete);
	cmd_print(stdout, "", "Waiting for the approval (%d minutes at "
	    "most)...", (d.expires_in + 59) / 60);
	fflush(stdout);
	if (oauth2_device_wait(&e, &d, &t, &why, &cause) == -1)
		goto fail;
store:
	if (oauth2_store(ctx->cf, a, &t, &cause) == -1)
		goto fail;
	if ((path = oauth2_token_path(a, &cause)) == NULL)
		goto fail;
	cmd_print(stdout, "", "Signed in. The refresh token is kept "
	    "encrypted to your key in %s", path);
	free(path);
	rc = EX_OK;
	goto out;
fail:
	cmd_error("%s", cause);
	free(cause);
out:
	oauth2_tokens_free(&t);
	oauth2_device_free(&d);
	oauth2_endpoints_free(&e);
	return rc;
}
