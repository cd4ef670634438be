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

#include "crypto.h"
#include "frontend.h"
#include "ownkey.h"
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
	int			 rc;

	memset(&h, 0, sizeof h);
	h.tty_begin = pass_tty_begin;
	h.tty_end = pass_tty_end;
	old = fe_set(&h);
	crypto_set_no_prompt(0);
	rc = ownkey_passwd(fpr, cause);
	fe_set(old);
	tui_dirty();
	return rc;
}
