/*
 * tui-setup-device.c: the wizard's look for a key from the user's other
 * device. Once the login works, the INBOX is searched for an Autocrypt
 * Setup Message from the address (setup_message_find(), checked with
 * setup_message_check()); when there is one, the wizard offers to use that
 * key instead of making one, and imports it with the setup code the person
 * types (setup_message_import(): nothing is imported that the code did
 * not decrypt). Both run on threads of their own (tui_background()),
 * called by tui-setup.c; nothing here draws.
 *
 * The account is not saved yet: the session is opened on a copy of the
 * interface's configuration that holds only the account being set up,
 * under the name it will be saved with, so that the header cache it makes
 * is the one the account uses afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "session.h"
#include "setup-message.h"
#include "tui-setup.h"
#include "xmalloc.h"

/* The account being set up, as session_open() and the import want it. */
static void
device_account(const struct tui_setup_in *in, struct account *a, char *id)
{
	memset(a, 0, sizeof *a);
	a->id = id;
	a->name = in->name;
	a->address = in->address;
	a->user = in->address;	/* as config.c fills it in */
	a->imap = in->imap;
	a->smtp = in->smtp;
	a->password = in->password;
	a->password_command = in->command;
	a->cert_fingerprint = in->pin;
	if (in->oauth) {
		/* the token kept by the sign-in, under the name it used */
		tui_setup_oauth_account(in, a);
		a->user = in->user != NULL ? in->user : in->address;
	}
}

void *
tui_setup_device_find_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);
	struct config		 cf;
	struct account		 a;
	struct session		*s = NULL;
	char			*id, *cause = NULL;
	int			 rc;

	buf_init(&out->raw);
	id = in->oauth_id != NULL ? xstrdup(in->oauth_id) :
	    setup_account_id(in->cf, in->address);
	device_account(in, &a, id);
	cf = *in->cf;
	cf.accounts = &a;
	cf.naccounts = 1;
	cf.default_account = NULL;
	if (crypto_init(in->cf->gnupg_home, &cause) == -1)
		goto out;
	if (session_open(&cf, id, &s, &cause) != 0)
		goto out;
	if (session_down(s) != NULL)
		goto out;
	rc = setup_message_find(s, &out->raw, &cause);
	if (rc == 0) {
		if (setup_message_check(&a, out->raw.data, out->raw.len,
		    out->begin, &cause) == 0)
			out->message = 1;
		else {
			/* malformed, or not from this address: said, and
			 * a key is made as if there were none */
			out->cause = xasprintf("A setup message in your INBOX "
			    "was refused: %s", cause);
		}
	}
out:
	/* nothing found, or nothing could be looked at: a new key */
	free(cause);
	session_close(s);
	free(id);
	tui_setup_in_free(in);
	return out;
}

void *
tui_setup_device_import_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);
	struct account		 a;
	char			*id;

	id = setup_account_id(in->cf, in->address);
	device_account(in, &a, id);
	if (crypto_init(in->cf->gnupg_home, &out->cause) == 0 &&
	    setup_message_import(&a, in->raw.data, in->raw.len, in->code,
	    &out->fpr, &out->cause) == 0)
		out->message = 1;
	free(id);
	tui_setup_in_free(in);
	return out;
}
