/*
 * tui-setup-add.c: an account the wizard has just saved joins the running
 * interface without a restart: it is taken out of the configuration read
 * again after saving and appended to the interface's own (whose accounts
 * the other workers point into, so it is never replaced), its worker is
 * started, and it becomes the account shown. Called by tui-setup.c on the
 * interface thread; it never reads the file itself.
 */
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui-setup.h"
#include "xmalloc.h"

struct tui_account *
tui_setup_adopt(struct config *saved, const char *id)
{
	struct account		**ap, *a, **tail;
	struct tui_account	 *ta;

	for (ap = &saved->accounts; *ap != NULL; ap = &(*ap)->next)
		if (strcmp((*ap)->id, id) == 0)
			break;
	if ((a = *ap) == NULL)
		return NULL;
	*ap = a->next;
	saved->naccounts--;
	a->next = NULL;

	for (tail = &tui.cf->accounts; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = a;
	tui.cf->naccounts++;

	tui.accounts = xreallocarray(tui.accounts, tui.naccounts + 1,
	    sizeof *tui.accounts);
	ta = tui_account_start(tui.cf, a);
	tui.accounts[tui.naccounts] = ta;
	tui.current = tui.naccounts++;
	tui_account_run(ta);
	return ta;
}
