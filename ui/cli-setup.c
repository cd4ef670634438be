/*
 * cli-setup.c: steedmail --setup --address A [--name N] [--imap URL]
 * [--smtp URL] [--password-command CMD] [--pin SHA256] [--yes] [--smime],
 * the setup wizard's steps (account/setup.h) from the command line, for
 * scripts and provisioning: find the servers (unless both are given),
 * show where they came from, log in to both before anything is saved,
 * find or make the key, save the account, print the DNS records that
 * publish the key.
 *
 * It decides what is printed and the exit code; the steps do the work.
 * Server text and names from DNS reach the terminal through cmd_print()
 * (strsafe). A password read here is wiped after use.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "addr.h"
#include "cli.h"
#include "frontend.h"
#include "net-tls.h"
#include "ownkey.h"
#include "password.h"
#include "tui.h"
#include "account/setup.h"
#include "xmalloc.h"

#define SETUP_LINE_MAX	1024	/* a password on standard input */

struct cli_setup {
	struct cmd_ctx		*ctx;
	struct setup_found	 found;
	struct config_url	 imap, smtp;	/* what will be used */
	char			*pin;		/* 64 lower-case hex, or NULL */
	const char		*user;		/* the login discovery found,
						   or NULL: the address */
	char			*fpr;		/* the account's OpenPGP key */
	char			*password;
	char			*id;
	int			 tty;
};

/* --pin: 64 hex digits, colons between pairs allowed; lower-case. */
static char *
cli_setup_pin(const char *text)
{
	char	hex[65];
	size_t	n = 0;

	for (; *text != '\0'; text++) {
		if (*text == ':')
			continue;
		if (!isxdigit((unsigned char)*text) || n == 64)
			return NULL;
		hex[n++] = (char)tolower((unsigned char)*text);
	}
	if (n != 64)
		return NULL;
	hex[n] = '\0';
	return xstrdup(hex);
}

/* One server, given or found: a line, and whether there is one. */
static int
cli_setup_show(enum setup_which which, const char *given,
    const struct setup_server *found, struct config_url *use)
{
	const char	*what = which == SETUP_IMAP ? "IMAP" : "SMTP";
	char		*url, *cause = NULL;

	if (given != NULL) {
		if (setup_url_parse(which, given, use, &cause) == -1) {
			cmd_error("%s", cause);
			free(cause);
			return -1;
		}
		url = setup_url_text(which, use);
		cmd_print(stdout, "", "%s: %s (given)", what, url);
		free(url);
		return 0;
	}
	if (found->url.host == NULL) {
		cmd_print(stdout, "", "%s: none found", what);
		return 0;
	}
	use->tls = found->url.tls;
	use->host = xstrdup(found->url.host);
	use->port = found->url.port;
	url = setup_url_text(which, use);
	cmd_print(stdout, "", "%s: %s (%s)", what, url, found->how);
	free(url);
	return 0;
}

/* Find the servers and show them; an exit code. */
static int
cli_setup_servers(struct cli_setup *s)
{
	struct cmd_ctx	*ctx = s->ctx;
	const char	*domain = strrchr(ctx->setup_address, '@') + 1;
	char		*cause = NULL;
	size_t		 i;

	if (ctx->setup_imap == NULL || ctx->setup_smtp == NULL) {
		if (setup_discover(ctx->cf, ctx->setup_address, &s->found,
		    &cause) == -1) {
			cmd_error("cannot look for the servers of %s: %s",
			    domain, cause);
			free(cause);
			return EX_UNAVAILABLE;
		}
	}
	if (cli_setup_show(SETUP_IMAP, ctx->setup_imap, &s->found.imap,
	    &s->imap) == -1 ||
	    cli_setup_show(SETUP_SMTP, ctx->setup_smtp, &s->found.smtp,
	    &s->smtp) == -1)
		return EX_USAGE;
	if (s->found.user != NULL && ctx->setup_imap == NULL &&
	    ctx->setup_smtp == NULL) {
		s->user = s->found.user;
		cmd_print(stdout, "", "Login: %s (as the servers' document says)",
		    s->user);
	}
	for (i = 0; i < s->found.nadvice; i++)
		cmd_print(stdout, "advice: ", "%s", s->found.advice[i]);
	for (i = 0; i < s->found.nnotes; i++)
		cmd_print(stdout, "note: ", "%s", s->found.notes[i]);
	if (s->imap.host == NULL || s->smtp.host == NULL) {
		cmd_error("no %s server found for %s: give it with %s",
		    s->imap.host == NULL ? "IMAP" : "submission", domain,
		    s->imap.host == NULL ? "--imap imaps://HOST[:PORT]" :
		    "--smtp smtps://HOST[:PORT]");
		return EX_UNAVAILABLE;
	}
	if (ctx->yes || (ctx->setup_imap != NULL && ctx->setup_smtp != NULL))
		return EX_OK;
	if (!s->tty) {
		cmd_error("not on a terminal, so nobody can confirm the "
		    "servers found: run again with --yes to use them, or give "
		    "both --imap and --smtp");
		return EX_USAGE;
	}
	fflush(stdout);
	if (!fe_confirm("Use these servers?")) {
		cmd_error("nothing saved: give the servers with --imap and "
		    "--smtp");
		return EX_USAGE;
	}
	return EX_OK;
}

/*
 * Do the servers found take only OAuth2 (and were they not given)? Then
 * no password is asked or checked: the account is saved to sign in with
 * OAuth2 (steedmail --oauth-login), which needs no password at all.
 */
static int
cli_setup_oauth2(const struct cli_setup *s)
{
	return s->found.oauth2 && s->ctx->setup_imap == NULL &&
	    s->ctx->setup_smtp == NULL;
}

/* The password: the command's, the terminal's, or standard input's. */
static int
cli_setup_password(struct cli_setup *s)
{
	struct cmd_ctx	*ctx = s->ctx;
	char		 line[SETUP_LINE_MAX], *prompt, *cause = NULL;
	size_t		 n;

	if (ctx->setup_password_command != NULL) {
		s->password = password_run("setup",
		    ctx->setup_password_command, PASSWORD_COMMAND_TIMEOUT,
		    &cause);
		if (s->password == NULL) {
			cmd_error("--password-command: %s", cause);
			free(cause);
			return EX_USAGE;
		}
		return EX_OK;
	}
	if (s->tty) {
		prompt = xasprintf("Password for %s: ", ctx->setup_address);
		s->password = fe_secret(prompt, &cause);
		free(prompt);
		if (s->password == NULL) {
			cmd_error("no password: %s", cause);
			free(cause);
			return EX_USAGE;
		}
		return EX_OK;
	}
	if (fgets(line, sizeof line, stdin) == NULL) {
		cmd_error("no password: give --password-command, or the "
		    "password on the first line of standard input");
		return EX_USAGE;
	}
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	s->password = xstrdup(line);
	explicit_bzero(line, sizeof line);
	if (n == 0) {
		cmd_error("no password: the first line of standard input is "
		    "empty");
		return EX_USAGE;
	}
	return EX_OK;
}

/* What to do about a failed check; an exit code. */
static int
cli_setup_failed(struct cli_setup *s, enum setup_which which,
    const struct config_url *u, const struct setup_check *r)
{
	const char	*what = which == SETUP_IMAP ? "IMAP" : "SMTP";
	const char	*opt = which == SETUP_IMAP ? "--imap" : "--smtp";
	char		*pretty;

	cmd_error("%s login to %s failed: %s", what, u->host, r->message);
	switch (r->result) {
	case SETUP_PASSWORD:
		cmd_error("the server refused the user name or password: run "
		    "again with the right password");
		return EX_NOPERM;
	case SETUP_CERT:
		pretty = net_tls_fingerprint_pretty(r->fingerprint);
		cmd_error("the server's certificate is not trusted (SHA-256 "
		    "%s); if you know it is the right one, accept exactly "
		    "this certificate by running again with --pin %s", pretty,
		    r->fingerprint);
		free(pretty);
		return EX_UNAVAILABLE;
	case SETUP_UNREACHABLE:
		cmd_error("cannot reach %s port %u: check the server's name "
		    "and port, or give it with %s URL", u->host, u->port, opt);
		return EX_TEMPFAIL;
	case SETUP_NO_TLS:
		cmd_error("%s offers no TLS, and steedmail never sends a "
		    "password in clear: use a server with TLS (%s %s://HOST)",
		    u->host, opt, which == SETUP_IMAP ? "imaps" : "smtps");
		return EX_UNAVAILABLE;
	default:
		(void)s;
		return EX_UNAVAILABLE;
	}
}

/* The account as the steps see it (nothing allocated). */
static void
cli_setup_account(struct cli_setup *s, struct account *a)
{
	memset(a, 0, sizeof *a);
	a->id = s->id;
	a->name = (char *)s->ctx->setup_name;
	a->address = (char *)s->ctx->setup_address;
	a->imap = s->imap;
	a->smtp = s->smtp;
	a->user = s->user != NULL ? (char *)s->user : a->address;
	a->cert_fingerprint = s->pin;
	a->smime = s->ctx->smime;
}

static int
cli_setup_check(struct cli_setup *s)
{
	struct setup_check	 r;
	struct account		 a;
	enum setup_which	 w;
	int			 rc;

	cli_setup_account(s, &a);
	for (w = SETUP_IMAP; w <= SETUP_SMTP; w++) {
		if (setup_check(s->ctx->cf, &a, s->password, w, &r) == 0) {
			printf("%s login: ok\n", w == SETUP_IMAP ? "IMAP" :
			    "SMTP");
			setup_check_free(&r);
			continue;
		}
		rc = cli_setup_failed(s, w, w == SETUP_IMAP ? &a.imap :
		    &a.smtp, &r);
		setup_check_free(&r);
		cmd_error("nothing was saved");
		return rc;
	}
	return EX_OK;
}

/* Find or make the keys and show them. */
static int
cli_setup_keys(struct cli_setup *s)
{
	struct account	 a;
	struct ownkey	 k;
	char		*cause = NULL;

	if (cmd_key_init(s->ctx) == -1)
		return EX_UNAVAILABLE;
	cli_setup_account(s, &a);
	if (ownkey_openpgp(&a, 1, &k, &cause) == -1) {
		cmd_error("cannot make the OpenPGP key: %s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	printf("OpenPGP key: %s (%s)\n", k.fpr, k.created ? "made now" :
	    "already in the keyring");
	free(s->fpr);
	s->fpr = xstrdup(k.fpr);
	ownkey_free(&k);
	if (!s->ctx->smime)
		return EX_OK;
	if (ownkey_smime(&a, 1, &k, &cause) == -1) {
		cmd_error("cannot make the S/MIME certificate: %s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	printf("S/MIME certificate: %s (%s)\n", k.fpr, k.created ?
	    "made now" : "already in the keyring");
	ownkey_free(&k);
	return EX_OK;
}

static int
cli_setup_save(struct cli_setup *s)
{
	struct setup_account	 sa;
	struct cmd_ctx		*ctx = s->ctx;
	char			*cause = NULL, *pwfile = NULL;

	memset(&sa, 0, sizeof sa);
	sa.id = s->id;
	sa.name = ctx->setup_name;
	sa.address = ctx->setup_address;
	sa.imap = s->imap;
	sa.smtp = s->smtp;
	sa.user = s->user;
	sa.password_command = ctx->setup_password_command;
	sa.password = ctx->setup_password_command == NULL ? s->password :
	    NULL;
	sa.password_key = s->fpr;
	sa.cert_fingerprint = s->pin;
	sa.smime = ctx->smime;
	if (cli_setup_oauth2(s)) {
		sa.oauth2 = 1;
		sa.password = NULL;
		sa.password_command = NULL;
		sa.oauth2_token_url = s->found.oauth2_token_url;
		sa.oauth2_device_url = s->found.oauth2_device_url;
		sa.oauth2_auth_url = s->found.oauth2_auth_url;
		sa.oauth2_scope = s->found.oauth2_scope;
		sa.oauth2_client_id = s->found.oauth2_client_id;
	}
	if (setup_save(ctx->config_path, &sa, &pwfile, &cause) == -1) {
		cmd_error("cannot save the account: %s", cause);
		free(cause);
		return EX_CANTCREAT;
	}
	cmd_print(stdout, "", "Account %s saved in %s", s->id,
	    ctx->config_path != NULL ? ctx->config_path : ctx->cf->path);
	if (pwfile != NULL)
		cmd_print(stdout, "", "The password is kept encrypted to the "
		    "account's key in %s (password-file), not in the "
		    "configuration.", pwfile);
	free(pwfile);
	if (sa.oauth2) {
		cmd_print(stdout, "", "The account signs in with OAuth2 (auth "
		    "= oauth2): no password is kept.");
		if (sa.oauth2_client_id == NULL)
			cmd_print(stdout, "", "First set oauth2-client-id (the "
			    "client ID you registered with the provider) in "
			    "[account %s].", s->id);
		cmd_print(stdout, "", "Sign in with: steedmail -A %s "
		    "--oauth-login", s->id);
	}
	return EX_OK;
}

static int
cli_setup_records(struct cli_setup *s)
{
	struct account	 a;
	char		*text, *file, *advice, *cause = NULL;

	cli_setup_account(s, &a);
	if (setup_records(&a, &text, &file, &advice, &cause) == -1) {
		cmd_error("cannot make the DNS records: %s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	printf("\nDNS records that publish the key:\n%s", text);
	cmd_print(stdout, "", "They are saved in %s.", file);
	printf("%s\n", advice);
	free(text);
	free(file);
	free(advice);
	return EX_OK;
}

int
cmd_setup(struct cmd_ctx *ctx)
{
	struct cli_setup	 s;
	int			 rc;

	memset(&s, 0, sizeof s);
	s.ctx = ctx;
	s.tty = isatty(STDIN_FILENO);
	if (ctx->setup_name == NULL && ctx->setup_address == NULL &&
	    s.tty) {
		/* on a terminal with neither: the wizard's screens */
		if (isatty(STDOUT_FILENO))
			return tui_setup_main(ctx->cf);
	}
	if (ctx->setup_address == NULL) {
		cmd_error("--setup needs --address ADDRESS (and --name NAME, "
		    "the name people see)");
		return EX_USAGE;
	}
	if (!addr_valid(ctx->setup_address) ||
	    strchr(ctx->setup_address, '@') == NULL) {
		cmd_error("\"%s\" is not a mail address", ctx->setup_address);
		return EX_USAGE;
	}
	if (ctx->setup_pin != NULL &&
	    (s.pin = cli_setup_pin(ctx->setup_pin)) == NULL) {
		cmd_error("--pin: a SHA-256 fingerprint is 64 hex digits "
		    "(AB:CD:... as steedmail prints it)");
		return EX_USAGE;
	}
	s.id = setup_account_id(ctx->cf, ctx->setup_address);

	if ((rc = cli_setup_servers(&s)) == EX_OK &&
	    (cli_setup_oauth2(&s) ||
	    ((rc = cli_setup_password(&s)) == EX_OK &&
	    (rc = cli_setup_check(&s)) == EX_OK)) &&
	    (rc = cli_setup_keys(&s)) == EX_OK &&
	    (rc = cli_setup_save(&s)) == EX_OK &&
	    (rc = cli_setup_records(&s)) == EX_OK)
		printf("\nDone: %s.\n", cli_setup_oauth2(&s) ? "sign in "
		    "with --oauth-login, then run steedmail to open the inbox" :
		    "run steedmail to open the inbox");

	if (s.password != NULL)
		freezero_str(s.password);
	setup_found_free(&s.found);
	free(s.imap.host);
	free(s.smtp.host);
	free(s.pin);
	free(s.fpr);
	free(s.id);
	if (fflush(stdout) != 0 && rc == EX_OK)
		rc = EX_IOERR;
	return rc;
}
