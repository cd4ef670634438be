/*
 * tui-setup-pass.c: a passphrase for the key the wizard made, which has
 * none (ownkey.h: a person who never asked for one is never asked for
 * one). gpg asks for it itself, through pinentry on the terminal: the
 * screen is left for it as for an editor, with the interface thread's own
 * front-end hooks (tty_begin, tty_end) for the time of the call, and
 * drawn again after. Called by tui-setup.c on the interface thread when
 * the person presses p on the key step; the person is at the terminal, so
 * waiting here is waiting for them, not for the network.
 */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpgme.h>

#include "crypto.h"
#include "frontend.h"
#include "tui.h"
#include "tui-setup.h"
#include "xmalloc.h"

static const char *
pass_tty_begin(void *arg)
{
	(void)arg;
	tui_suspend_screen();
	return ttyname(0);
}

static void
pass_tty_end(void *arg)
{
	(void)arg;
	tui_resume_screen();
}

int
tui_setup_passphrase(const char *fpr, char **cause)
{
	const struct fe_hooks	*old;
	struct fe_hooks		 h;
	gpgme_ctx_t		 ctx;
	gpgme_key_t		 key = NULL;
	gpgme_error_t		 err;
	int			 rc = -1;

	memset(&h, 0, sizeof h);
	h.tty_begin = pass_tty_begin;
	h.tty_end = pass_tty_end;
	old = fe_set(&h);
	crypto_set_no_prompt(0);
	if ((ctx = crypto_ctx(GPGME_PROTOCOL_OpenPGP, cause)) == NULL)
		goto out;
	if ((err = crypto_key(ctx, fpr, 1, &key)) != 0) {
		*cause = xasprintf("the key %s: %s", fpr, gpgme_strerror(err));
		crypto_release(ctx);
		goto out;
	}
	if ((err = gpgme_op_passwd(ctx, key, 0)) != 0)
		*cause = xasprintf("the passphrase was not set: %s",
		    gpgme_strerror(err));
	else
		rc = 0;
	gpgme_key_unref(key);
	crypto_release(ctx);
out:
	fe_set(old);
	tui_dirty();
	return rc;
}
