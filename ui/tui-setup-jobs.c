/*
 * tui-setup-jobs.c: the setup wizard's slow steps, each run on a thread of
 * its own (tui_background()) so that the interface thread never waits on
 * DNS, a server or gpg: finding the servers (setup_discover), logging in
 * to IMAP then SMTP (setup_check), finding or making the key (ownkey.h),
 * listing the keys the user has (setup_keys), and saving the account with
 * its DNS records (setup_save, setup_records), and what the other jobs
 * share (the copy of what was typed, the stop flag, the OAuth2 settings
 * of the account being set up). Called by tui-setup*.c only;
 * nothing here draws or touches the interface's state: a job reads its
 * own copy of what was typed and hands back a struct tui_setup_out.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "oauth2.h"
#include "ownkey.h"
#include "password.h"
#include "account/setup.h"
#include "tui-setup.h"
#include "xmalloc.h"

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
url_copy(struct config_url *to, const struct config_url *from)
{
	to->tls = from->tls;
	to->port = from->port;
	to->host = dup_or_null(from->host);
}

struct tui_setup_stop *
tui_setup_stop_new(void)
{
	struct tui_setup_stop	*s = xcalloc(1, sizeof *s);

	atomic_init(&s->stop, 0);
	atomic_init(&s->refs, 1);
	return s;
}

struct tui_setup_stop *
tui_setup_stop_ref(struct tui_setup_stop *s)
{
	atomic_fetch_add(&s->refs, 1);
	return s;
}

void
tui_setup_stop_unref(struct tui_setup_stop *s)
{
	if (s != NULL && atomic_fetch_sub(&s->refs, 1) == 1)
		free(s);
}

void
tui_setup_flow_copy(struct oauth2_code *to, const struct oauth2_code *from)
{
	to->fd = from->fd != -1 ? fcntl(from->fd, F_DUPFD_CLOEXEC, 0) : -1;
	to->redirect_uri = dup_or_null(from->redirect_uri);
	to->verifier = dup_or_null(from->verifier);
	to->state = dup_or_null(from->state);
	to->url = dup_or_null(from->url);
}

void
tui_setup_flow_free(int *browser, struct oauth2_code *c)
{
	if (*browser) {
		if (c->verifier == NULL)
			c->verifier = xstrdup("");	/* freezero_str's */
		oauth2_code_free(c);
	}
	*browser = 0;
}

void
tui_setup_oauth_account(const struct tui_setup_in *in, struct account *a)
{
	if (in->oauth_id != NULL)
		a->id = in->oauth_id;
	a->auth = (char *)"oauth2";
	a->password = NULL;
	a->password_command = NULL;
	a->oauth2_token_url = in->token_url;
	a->oauth2_device_url = in->device_url;
	a->oauth2_auth_url = in->auth_url;
	a->oauth2_scope = in->scope;
	a->oauth2_client_id = in->client_id;
}

struct tui_setup_in *
tui_setup_in_copy(const struct tui_setup_in *in)
{
	struct tui_setup_in	*c = xcalloc(1, sizeof *c);

	c->cf = in->cf;
	c->name = dup_or_null(in->name);
	c->address = dup_or_null(in->address);
	c->user = dup_or_null(in->user);
	c->password = dup_or_null(in->password);
	c->command = dup_or_null(in->command);
	url_copy(&c->imap, &in->imap);
	url_copy(&c->smtp, &in->smtp);
	c->pin = dup_or_null(in->pin);
	c->key = dup_or_null(in->key);
	c->pwkey = dup_or_null(in->pwkey);
	c->smime = in->smime;
	buf_init(&c->raw);
	if (in->raw.len > 0)
		buf_add(&c->raw, in->raw.data, in->raw.len);
	c->code = dup_or_null(in->code);
	c->oauth = in->oauth;
	c->oauth_id = dup_or_null(in->oauth_id);
	c->token_url = dup_or_null(in->token_url);
	c->device_url = dup_or_null(in->device_url);
	c->auth_url = dup_or_null(in->auth_url);
	c->scope = dup_or_null(in->scope);
	c->client_id = dup_or_null(in->client_id);
	c->dev.device_code = dup_or_null(in->dev.device_code);
	c->dev.user_code = dup_or_null(in->dev.user_code);
	c->dev.uri = dup_or_null(in->dev.uri);
	c->dev.uri_complete = dup_or_null(in->dev.uri_complete);
	c->dev.interval = in->dev.interval;
	c->dev.expires_in = in->dev.expires_in;
	if ((c->browser = in->browser))
		tui_setup_flow_copy(&c->flow, &in->flow);
	c->stop = in->stop != NULL ? tui_setup_stop_ref(in->stop) : NULL;
	return c;
}

void
tui_setup_in_free(void *arg)
{
	struct tui_setup_in	*in = arg;

	if (in == NULL)
		return;
	free(in->name);
	free(in->address);
	free(in->user);
	if (in->password != NULL)
		freezero_str(in->password);
	free(in->command);
	free(in->imap.host);
	free(in->smtp.host);
	free(in->pin);
	free(in->key);
	free(in->pwkey);
	buf_free(&in->raw);
	if (in->code != NULL)
		freezero_str(in->code);
	free(in->oauth_id);
	free(in->token_url);
	free(in->device_url);
	free(in->auth_url);
	free(in->scope);
	free(in->client_id);
	if (in->dev.device_code != NULL)
		oauth2_device_free(&in->dev);
	else {
		free(in->dev.user_code);
		free(in->dev.uri);
		free(in->dev.uri_complete);
	}
	tui_setup_flow_free(&in->browser, &in->flow);
	tui_setup_stop_unref(in->stop);
	free(in);
}

void
tui_setup_out_free(void *arg)
{
	struct tui_setup_out	*out = arg;

	if (out == NULL)
		return;
	free(out->cause);
	setup_found_free(&out->found);
	setup_check_free(&out->check);
	free(out->fpr);
	free(out->uid);
	free(out->smime_fpr);
	setup_keys_free(out->keys, out->nkeys);
	if (out->saved != NULL)
		config_free(out->saved);
	free(out->id);
	free(out->records);
	free(out->records_file);
	free(out->advice);
	free(out->records_cause);
	free(out->pwfile);
	buf_free(&out->raw);
	if (out->dev.device_code != NULL)
		oauth2_device_free(&out->dev);
	tui_setup_flow_free(&out->browser, &out->flow);
	free(out->tokenfile);
	free(out);
}

/* The account as it would be saved, for the engine's steps; its strings
 * are in's (not to be freed). */
static void
fake_account(const struct tui_setup_in *in, struct account *a)
{
	memset(a, 0, sizeof *a);
	a->id = (char *)"setup";
	a->name = in->name;
	a->address = in->address;
	a->imap = in->imap;
	a->smtp = in->smtp;
	a->user = in->user;
	a->password = in->password;
	a->password_command = in->command;
	a->cert_fingerprint = in->pin;
	a->key = in->key;
	a->smime = in->smime;
	if (in->oauth)
		tui_setup_oauth_account(in, a);
}

void *
tui_setup_discover_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);

	if (setup_discover(in->cf, in->address, &out->found,
	    &out->cause) == -1 && out->cause == NULL)
		out->cause = xstrdup("the servers could not be looked for");
	tui_setup_in_free(in);
	return out;
}

void *
tui_setup_check_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);
	struct account		 a;
	char			*pw = NULL;

	fake_account(in, &a);
	if (in->oauth) {
		/* the access token the sign-in just got, as the password */
		if (in->oauth_id == NULL) {
			out->cause = xstrdup("not signed in yet");
			goto out;
		}
		if ((pw = oauth2_access(in->cf, &a, 0, &out->cause)) == NULL)
			goto out;
	} else if (in->command != NULL) {
		pw = password_run("setup", in->command,
		    PASSWORD_COMMAND_TIMEOUT, &out->cause);
		if (pw == NULL) {
			if (out->cause == NULL)
				out->cause = xstrdup("the password command "
				    "printed nothing");
			goto out;
		}
	}
	out->which = SETUP_IMAP;
	if (setup_check(in->cf, &a, pw != NULL ? pw : in->password,
	    SETUP_IMAP, &out->check) == 0) {
		setup_check_free(&out->check);
		memset(&out->check, 0, sizeof out->check);
		out->which = SETUP_SMTP;
		(void)setup_check(in->cf, &a, pw != NULL ? pw : in->password,
		    SETUP_SMTP, &out->check);
	}
out:
	if (pw != NULL)
		freezero_str(pw);
	tui_setup_in_free(in);
	return out;
}

int
tui_setup_make_key(struct tui_setup_in *in, const struct account *a,
    struct tui_setup_out *out, const char *none)
{
	struct ownkey	k;

	if (crypto_init(in->cf->gnupg_home, &out->cause) == -1)
		return -1;
	memset(&k, 0, sizeof k);
	if (ownkey_openpgp(a, 1, &k, &out->cause) != 0) {
		if (out->cause == NULL)
			out->cause = xstrdup(none);
		return -1;
	}
	out->fpr = k.fpr;
	out->uid = k.uid;
	k.fpr = k.uid = NULL;
	out->created = k.created;
	out->seconds = k.seconds;
	ownkey_free(&k);
	return 0;
}

void *
tui_setup_key_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);
	struct account		 a;
	struct ownkey		 k;

	fake_account(in, &a);
	if (tui_setup_make_key(in, &a, out, "no key could be made") == -1)
		goto out;
	if (in->smime) {
		memset(&k, 0, sizeof k);
		if (ownkey_smime(&a, 1, &k, &out->cause) != 0) {
			if (out->cause == NULL)
				out->cause = xstrdup("no certificate could "
				    "be made");
			goto out;
		}
		out->smime_fpr = k.fpr;
		k.fpr = NULL;
		ownkey_free(&k);
	}
out:
	tui_setup_in_free(in);
	return out;
}

void *
tui_setup_keys_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);

	if (crypto_init(in->cf->gnupg_home, &out->cause) == 0)
		(void)setup_keys(in->cf, in->address, &out->keys,
		    &out->nkeys, &out->cause);
	tui_setup_in_free(in);
	return out;
}

void *
tui_setup_save_run(void *arg)
{
	struct tui_setup_in	*in = arg;
	struct tui_setup_out	*out = xcalloc(1, sizeof *out);
	struct setup_account	 sa;
	struct account		*a, fa;

	memset(&sa, 0, sizeof sa);
	out->id = setup_account_id(in->cf, in->address);
	sa.id = out->id;
	sa.name = in->name;
	sa.address = in->address;
	sa.imap = in->imap;
	sa.smtp = in->smtp;
	sa.user = in->user;
	sa.password = in->command == NULL ? in->password : NULL;
	sa.password_key = in->pwkey;
	sa.password_command = in->command;
	sa.cert_fingerprint = in->pin;
	sa.key = in->key;
	sa.smime = in->smime;
	if (in->oauth) {
		/* the token was kept under this name when it came */
		if (in->oauth_id != NULL) {
			free(out->id);
			out->id = xstrdup(in->oauth_id);
			sa.id = out->id;
		}
		sa.password = NULL;
		sa.password_command = NULL;
		sa.oauth2 = 1;
		sa.oauth2_token_url = in->token_url;
		sa.oauth2_device_url = in->device_url;
		sa.oauth2_auth_url = in->auth_url;
		sa.oauth2_scope = in->scope;
		sa.oauth2_client_id = in->client_id;
	}
	if (crypto_init(in->cf->gnupg_home, &out->cause) == -1)
		goto out;
	if (in->oauth && in->oauth_id != NULL && in->key != NULL) {
		/* another key was chosen after the sign-in: the token is
		 * kept encrypted to that one */
		fake_account(in, &fa);
		if (oauth2_rekey(&fa, &out->cause) == -1)
			goto out;
	}
	if (setup_save(in->cf->path, &sa, &out->pwfile, &out->cause) == -1)
		goto out;
	if ((out->saved = config_load(in->cf->path, &out->cause)) == NULL)
		goto out;
	for (a = out->saved->accounts; a != NULL; a = a->next)
		if (strcmp(a->id, out->id) == 0)
			break;
	if (a == NULL) {
		out->cause = xstrdup("the account is not in the file it "
		    "was saved to");
		goto out;
	}
	/* records are advice: the account works without them */
	(void)setup_records(a, &out->records, &out->records_file,
	    &out->advice, &out->records_cause);
out:
	tui_setup_in_free(in);
	return out;
}

/* The URLs as setup.h reads and writes them, for the edit step. */
int
tui_setup_url_parse(const char *s, int imap, struct config_url *u,
    char **cause)
{
	s += strspn(s, " \t");
	return setup_url_parse(imap ? SETUP_IMAP : SETUP_SMTP, s, u, cause);
}

char *
tui_setup_url_string(const struct config_url *u, int imap)
{
	if (u->host == NULL)
		return xstrdup("");
	return setup_url_text(imap ? SETUP_IMAP : SETUP_SMTP, u);
}
