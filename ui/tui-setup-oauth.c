/*
 * tui-setup-oauth.c: the setup wizard's sign-in with OAuth2, for a
 * provider that takes no password in mail programs (or offers the choice):
 * the device authorization grant of RFC 8628, which works over SSH, as
 * steedmail --oauth-login runs it, with the same engine calls (oauth2.h).
 *
 * Two jobs, each on a thread of its own (tui_background()): the first
 * asks the provider for a code (oauth2_device_start()), whose URL and
 * user code the screen then shows; the second waits for the person to
 * approve it (oauth2_device_wait(), stopped through the frontend.h cancel
 * flag the screen sets on Escape) and keeps the refresh token encrypted
 * to the account's own key, made now if need be (oauth2_store(), as
 * --oauth-login does), under the name the account will be saved with.
 * The access token stays in the process's memory (oauth2.c), where the
 * login check, the look for another device's key and the account's
 * worker find it. A provider with no device grant but a browser sign-in
 * (Google) gets the code flow with PKCE instead, as --oauth-login
 * --browser: the first job makes the loopback listener and opens the
 * page in the browser of this machine when there is a display (never a
 * browser in the terminal the screen owns), the second waits for the
 * browser to come back (oauth2_code_finish()). Called by tui-setup.c
 * only; nothing here draws.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "oauth2.h"
#include "tui-setup.h"
#include "xmalloc.h"

/* The account as --oauth-login would see it once saved, under id. */
static void
oauth_account(const struct tui_setup_in *in, struct account *a, char *id)
{
	memset(a, 0, sizeof *a);
	a->id = id;
	a->name = in->name;
	a->address = in->address;
	a->user = in->user != NULL ? in->user : in->address;
	a->imap = in->imap;
	a->smtp = in->smtp;
	a->key = in->key;
	tui_setup_oauth_account(in, a);
	a->id = id;
}

void *
tui_setup_oauth_start_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);
	struct oauth2_endpoints	 e;
	struct account		 a;
	char			*id, *why = NULL;

	id = setup_account_id(in->cf, in->address);
	oauth_account(in, &a, id);
	out->oauth_why = OAUTH2_FAILED;
	if (oauth2_endpoints(in->cf, &a, &e, &out->cause) == 0) {
		if (e.device_url == NULL && e.auth_url != NULL) {
			/* Google's way: a browser on this machine, which
			 * comes back to a port of 127.0.0.1 (RFC 8252) */
			if (oauth2_code_start(&e, &out->flow,
			    &out->cause) == 0) {
				out->browser = 1;
				out->opened = oauth2_browser_open(
				    out->flow.url, 1, &why) == 0;
				free(why);
			}
		} else
			(void)oauth2_device_start(&e, &out->dev,
			    &out->oauth_why, &out->cause);
		oauth2_endpoints_free(&e);
	}
	free(id);
	tui_setup_in_free(in);
	return out;
}

void *
tui_setup_oauth_wait_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);
	struct oauth2_endpoints	 e;
	struct oauth2_tokens	 t;
	struct fe_hooks		 h;
	const struct fe_hooks	*old;
	struct account		 a;

	memset(&h, 0, sizeof h);
	memset(&t, 0, sizeof t);
	if (in->stop != NULL)
		h.cancel = &in->stop->stop;
	old = fe_set(&h);
	out->id = setup_account_id(in->cf, in->address);
	oauth_account(in, &a, out->id);
	out->oauth_why = OAUTH2_FAILED;
	if (oauth2_endpoints(in->cf, &a, &e, &out->cause) == -1)
		goto out;
	if ((in->browser ? oauth2_code_finish(&e, &in->flow,
	    TUI_SETUP_BROWSER_WAIT, &t, &out->oauth_why, &out->cause) :
	    oauth2_device_wait(&e, &in->dev, &t, &out->oauth_why,
	    &out->cause)) == -1) {
		oauth2_endpoints_free(&e);
		goto out;
	}
	oauth2_endpoints_free(&e);
	out->oauth_why = OAUTH2_FAILED;
	/* the key the token is kept encrypted to, made now if need be: the
	 * key step then shows it as made here */
	if (tui_setup_make_key(in, &a, out, "no key could be made to keep "
	    "the sign-in encrypted to") == -1)
		goto out;
	if (oauth2_store(in->cf, &a, &t, &out->cause) == -1)
		goto out;
	out->tokenfile = oauth2_token_path(&a, &out->cause);
out:
	if (out->cause != NULL) {
		free(out->id);
		out->id = NULL;
	}
	oauth2_tokens_free(&t);
	fe_set(old);
	tui_setup_in_free(in);
	return out;
}
