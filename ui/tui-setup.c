/*
 * tui-setup.c: the setup wizard's screen. It owns the wizard's state (what
 * was typed, what was found, the step it is at) and walks the steps of
 * account/setup.h in their order: name, address and password (or a
 * password command); the servers found, to accept or edit; the login
 * check, with a way to correct each kind of failure; the key, made
 * without asking, with its options; saving; the DNS records; the inbox.
 *
 * The loop (tui-main.c) pushes it when no account is configured and for
 * steedmail --setup; the folders screen pushes it on A. Input is read on
 * the loop's ready hook, modally on the bottom line as every prompt is;
 * the slow steps run on threads of their own (tui-setup-jobs.c) while the
 * screen says what it waits for (tui-setup-draw.c), and their answers come
 * back as events. Escape goes back a step. Nothing here touches the
 * network, gpg or the file.
 */
#include <curses.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"
#include "account/setup.h"
#include "oauth2.h"
#include "tui.h"
#include "tui-setup.h"
#include "xmalloc.h"

static void	ts_start(struct ts *, enum ts_step);
static void	ts_oauth_stop(struct ts *);
static void	ts_oauth_forget(struct ts *);

/* ---- moving between steps ----------------------------------------------- */

static void
ts_error(struct ts *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
ts_error(struct ts *t, const char *fmt, ...)
{
	va_list	ap;

	free(t->error);
	t->error = NULL;
	if (fmt != NULL) {
		va_start(ap, fmt);
		t->error = xvasprintf(fmt, ap);
		va_end(ap);
	}
	tui_dirty();
}

static void
ts_title(struct tui_screen *s, struct ts *t)
{
	static const char *titles[] = {
		[WZ_NAME] = "Setup: you", [WZ_ADDRESS] = "Setup: you",
		[WZ_HOW] = "Setup: you", [WZ_PASSWORD] = "Setup: you",
		[WZ_COMMAND] = "Setup: you",
		[WZ_DISCOVER] = "Setup: servers", [WZ_FOUND] = "Setup: servers",
		[WZ_CHECK] = "Setup: checking", [WZ_FAILED] = "Setup: checking",
		[WZ_DEVICE_LOOK] = "Setup: your key",
		[WZ_DEVICE] = "Setup: your key",
		[WZ_DEVICE_IMPORT] = "Setup: your key",
		[WZ_KEY_MAKE] = "Setup: your key", [WZ_KEY] = "Setup: your key",
		[WZ_KEYS] = "Setup: your key",
		[WZ_OAUTH_CLIENT] = "Setup: signing in",
		[WZ_OAUTH_START] = "Setup: signing in",
		[WZ_OAUTH_WAIT] = "Setup: signing in",
		[WZ_OAUTH_FAILED] = "Setup: signing in",
		[WZ_SAVE] = "Setup: saving",
		[WZ_RECORDS] = "Setup: saved"
	};

	s->title = titles[t->step];
}

static uint64_t
ts_job(struct ts *t, void *(*fn)(void *))
{
	return tui_background(fn, tui_setup_in_copy(&t->in),
	    tui_setup_out_free);
}

/* Go to step (starting its job when it has one). */
static void
ts_start(struct ts *t, enum ts_step step)
{
	t->step = step;
	t->job = 0;
	switch (step) {
	case WZ_DISCOVER:
		t->job = ts_job(t, tui_setup_discover_run);
		break;
	case WZ_CHECK:
		t->job = ts_job(t, tui_setup_check_run);
		break;
	case WZ_DEVICE_LOOK:
		t->job = ts_job(t, tui_setup_device_find_run);
		break;
	case WZ_DEVICE_IMPORT:
		t->job = ts_job(t, tui_setup_device_import_run);
		break;
	case WZ_KEY_MAKE:
		t->job = ts_job(t, tui_setup_key_run);
		break;
	case WZ_KEYS:
		t->cursor = 0;
		t->job = ts_job(t, tui_setup_keys_run);
		break;
	case WZ_OAUTH_START:
		ts_oauth_forget(t);
		t->job = ts_job(t, tui_setup_oauth_start_run);
		break;
	case WZ_OAUTH_WAIT:
		t->oauth_since = clock_ms();
		ts_oauth_stop(t);
		t->in.stop = tui_setup_stop_new();
		t->job = ts_job(t, tui_setup_oauth_wait_run);
		break;
	case WZ_SAVE:
		t->job = ts_job(t, tui_setup_save_run);
		break;
	default:
		break;
	}
	tui_dirty();
}

/* Stop the wait for an approval, if one runs. */
static void
ts_oauth_stop(struct ts *t)
{
	if (t->in.stop != NULL) {
		atomic_store(&t->in.stop->stop, 1);
		tui_setup_stop_unref(t->in.stop);
		t->in.stop = NULL;
	}
}

/* Forget the code shown (a new one is asked for). */
static void
ts_oauth_forget(struct ts *t)
{
	ts_oauth_stop(t);
	if (t->in.dev.device_code != NULL)
		oauth2_device_free(&t->in.dev);
	memset(&t->in.dev, 0, sizeof t->in.dev);
	tui_setup_flow_free(&t->in.browser, &t->in.flow);
}

/* The servers were accepted: the sign-in (its client ID first when none
 * is known), or the login check with the password. */
static void
ts_accepted(struct ts *t)
{
	t->accepted = 1;
	if (!t->in.oauth)
		ts_start(t, WZ_CHECK);
	else if (t->in.oauth_id != NULL)
		ts_start(t, WZ_CHECK);	/* signed in already */
	else if (t->in.client_id == NULL)
		t->step = WZ_OAUTH_CLIENT;
	else
		ts_start(t, WZ_OAUTH_START);
	tui_dirty();
}

/* The address is given and its servers looked for: OAuth2 needs no
 * password; else how to get the password. */
static void
ts_after_address(struct ts *t)
{
	if (t->in.oauth)
		t->step = WZ_FOUND;
	else if (t->in.password != NULL || t->in.command != NULL)
		t->step = WZ_FOUND;
	else
		t->step = WZ_HOW;
	tui_dirty();
}

/* The password was given: on to the servers, or the check again. */
static void
ts_after_password(struct ts *t)
{
	if (!t->looked)
		ts_start(t, WZ_DISCOVER);
	else if (!t->accepted)
		t->step = WZ_FOUND;
	else
		ts_start(t, WZ_CHECK);
	tui_dirty();
}

static void
ts_set(char **field, char *value)
{
	free(*field);
	*field = value;
}

/* A sign-in whose account was not saved leaves no token file behind. */
static void
ts_token_discard(struct ts *t)
{
	if (t->tokenfile != NULL && !t->saved)
		oauth2_discard(t->tokenfile);
	ts_set(&t->tokenfile, NULL);
}

/* The wizard is done or given up: the inbox of the account saved, or
 * what was there before. */
static void
ts_leave(struct ts *t)
{
	struct tui_account	*ta = t->ta;

	if (ta == NULL)
		ts_token_discard(t);	/* given up */
	if (ta == NULL && tui.naccounts == 0) {
		tui.quit = 1;
		return;
	}
	if (ta == NULL) {
		tui_pop();		/* frees t */
		return;
	}
	while (tui.top != NULL)
		tui_pop();
	tui_push(tui_index_new(ta, "INBOX"));
}

/* getch() failed: has the terminal gone? */
static int
ts_gone(void)
{
	struct pollfd	pfd;

	pfd.fd = 0;
	pfd.events = POLLIN;
	pfd.revents = 0;
	return poll(&pfd, 1, 0) == 1 &&
	    (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* A key from the set keys (Enter is '\n', Escape 27, the arrows), or 0
 * when the screen must be drawn again first. */
static int
ts_key(const char *keys, const char *hint)
{
	int	c;

	if (hint != NULL) {
		tui_putfill(LINES - 1, 0, COLS, hint, tui_attr(TC_NORMAL));
		refresh();
	}
	nodelay(stdscr, FALSE);
	for (;;) {
		c = getch();
		if (c == ERR && ts_gone()) {
			/* the terminal is gone (a dropped SSH session):
			 * leave, rather than ask it for ever */
			tui.quit = 1;
			c = 27;
			break;
		}
		if (c == KEY_RESIZE) {
			c = 0;
			tui_dirty();
			break;
		}
		if (c == '\r' || c == KEY_ENTER)
			c = '\n';
		if (c == 3 || c == 7)		/* ^C, ^G */
			c = 27;
		if (c == 27 || c == '\n' || c == KEY_UP || c == KEY_DOWN)
			break;
		if (c > 0 && c < 256 && strchr(keys, c) != NULL)
			break;
	}
	nodelay(stdscr, TRUE);
	tui_dirty();
	return c;
}

/* Sign in with OAuth2, with the endpoints discovery found. */
static void
ts_oauth_use(struct ts *t)
{
	const struct setup_found	*f = &t->found;

	t->in.oauth = 1;
	t->use_command = 0;
	if (t->in.password != NULL)
		freezero_str(t->in.password);
	t->in.password = NULL;
	ts_set(&t->in.command, NULL);
	ts_set(&t->in.token_url, f->oauth2_token_url != NULL ?
	    xstrdup(f->oauth2_token_url) : NULL);
	ts_set(&t->in.device_url, f->oauth2_device_url != NULL ?
	    xstrdup(f->oauth2_device_url) : NULL);
	ts_set(&t->in.auth_url, f->oauth2_auth_url != NULL ?
	    xstrdup(f->oauth2_auth_url) : NULL);
	ts_set(&t->in.scope, f->oauth2_scope != NULL ?
	    xstrdup(f->oauth2_scope) : NULL);
	if (f->oauth2_client_id != NULL)
		ts_set(&t->in.client_id, xstrdup(f->oauth2_client_id));
}

/* Another address: no OAuth2 settings, no sign-in. */
static void
ts_oauth_reset(struct ts *t)
{
	ts_oauth_forget(t);
	ts_token_discard(t);
	t->in.oauth = 0;
	ts_set(&t->in.oauth_id, NULL);
	ts_set(&t->in.token_url, NULL);
	ts_set(&t->in.device_url, NULL);
	ts_set(&t->in.auth_url, NULL);
	ts_set(&t->in.scope, NULL);
	ts_set(&t->in.client_id, NULL);
	ts_set(&t->tokenfile, NULL);
}

static void
ts_ask_you(struct ts *t)
{
	char	*v, *at;
	int	 c;

	switch (t->step) {
	case WZ_NAME:
		if ((v = tui_prompt("Your name: ", t->in.name, 0, NULL,
		    NULL)) == NULL) {
			ts_leave(t);
			return;
		}
		if (*v == '\0') {
			free(v);
			ts_error(t, "A name, please: it is what people see.");
			return;
		}
		ts_set(&t->in.name, v);
		ts_error(t, NULL);
		t->step = WZ_ADDRESS;
		break;
	case WZ_ADDRESS:
		if ((v = tui_prompt("Your address: ", t->in.address, 0, NULL,
		    NULL)) == NULL) {
			t->step = WZ_NAME;
			break;
		}
		at = strchr(v, '@');
		if (at == NULL || at == v || at[1] == '\0' ||
		    strchr(at + 1, '@') != NULL || strpbrk(v, " \t<>,") != NULL ||
		    strchr(at + 1, '.') == NULL) {
			ts_error(t, "\"%s\" is not a mail address: it looks "
			    "like someone@example.org.", v);
			free(v);
			return;
		}
		if (t->in.address == NULL || strcmp(t->in.address, v) != 0) {
			t->looked = 0;	/* another domain: look again */
			t->accepted = 0;
			ts_set(&t->in.user, NULL);
			ts_oauth_reset(t);
		}
		ts_set(&t->in.address, v);
		ts_error(t, NULL);
		/* the servers first: they say whether a password is wanted */
		if (!t->looked)
			ts_start(t, WZ_DISCOVER);
		else
			ts_after_address(t);
		break;
	case WZ_HOW:
		if ((c = ts_key(t->found.oauth2_offered ? "pco" : "pc",
		    t->found.oauth2_offered ? "p, c or o? " : "p or c? ")) == 0)
			return;
		if (c == 27)
			t->step = WZ_ADDRESS;
		else if (c == 'c') {
			t->use_command = 1;
			t->step = WZ_COMMAND;
		} else if (c == 'p' || c == '\n') {
			t->use_command = 0;
			t->step = WZ_PASSWORD;
		} else if (c == 'o' && t->found.oauth2_offered) {
			ts_oauth_use(t);
			t->step = WZ_FOUND;
		}
		break;
	case WZ_PASSWORD:
		if ((v = tui_prompt("Password: ", NULL, 1, NULL,
		    NULL)) == NULL) {
			t->step = WZ_HOW;
			break;
		}
		if (t->in.password != NULL)
			freezero_str(t->in.password);
		t->in.password = v;
		ts_set(&t->in.command, NULL);
		ts_error(t, NULL);
		ts_after_password(t);
		break;
	case WZ_COMMAND:
		if ((v = tui_prompt("Password command: ", t->in.command, 0,
		    NULL, NULL)) == NULL) {
			t->step = WZ_HOW;
			break;
		}
		if (*v == '\0') {
			free(v);
			ts_error(t, "A command, please, or Escape and p to "
			    "type the password.");
			return;
		}
		ts_set(&t->in.command, v);
		if (t->in.password != NULL)
			freezero_str(t->in.password);
		t->in.password = NULL;
		ts_error(t, NULL);
		ts_after_password(t);
		break;
	default:
		break;
	}
	tui_dirty();
}

static void
ts_edit_url(struct ts *t, int imap)
{
	struct config_url	 u, *to = imap ? &t->in.imap : &t->in.smtp;
	char			*cur, *v, *cause = NULL;

	cur = tui_setup_url_string(to, imap);
	if (*cur == '\0') {
		free(cur);
		cur = xstrdup(imap ? "imaps://" : "smtps://");
	}
	v = tui_prompt(imap ? "IMAP server: " : "SMTP server: ", cur, 0,
	    NULL, NULL);
	free(cur);
	if (v == NULL)
		return;
	if (tui_setup_url_parse(v, imap, &u, &cause) == -1) {
		ts_error(t, "%s", cause);
		free(cause);
		free(v);
		return;
	}
	free(v);
	free(to->host);
	*to = u;
	if (imap)
		t->imap_origin = SETUP_GIVEN;
	else
		t->smtp_origin = SETUP_GIVEN;
	/* a pin was for the certificate of the server it was shown for */
	ts_set(&t->in.pin, NULL);
	ts_error(t, NULL);
}

static void
ts_ask_found(struct ts *t)
{
	int	c;

	if ((c = ts_key("is", NULL)) == 0)
		return;
	switch (c) {
	case 27:
		ts_error(t, NULL);
		if (t->in.oauth && t->found.oauth2_offered) {
			t->in.oauth = 0;	/* the choice again */
			t->step = WZ_HOW;
		} else if (t->in.oauth)
			t->step = WZ_ADDRESS;
		else
			t->step = t->use_command ? WZ_COMMAND : WZ_PASSWORD;
		break;
	case 'i':
		ts_edit_url(t, 1);
		break;
	case 's':
		ts_edit_url(t, 0);
		break;
	case '\n':
		if (t->in.imap.host == NULL || t->in.smtp.host == NULL) {
			ts_error(t, "No %s server yet: press %s to type one.",
			    t->in.imap.host == NULL ? "IMAP" : "SMTP",
			    t->in.imap.host == NULL ? "i" : "s");
			break;
		}
		ts_error(t, NULL);
		ts_accepted(t);
		break;
	}
}

/* OAuth2: the client ID, when neither discovery nor a provider file
 * knows one. */
static void
ts_ask_client(struct ts *t)
{
	char	*v;

	if ((v = tui_prompt("Client ID: ", t->in.client_id, 0, NULL,
	    NULL)) == NULL) {
		ts_error(t, NULL);
		t->step = WZ_FOUND;
		return;
	}
	if (*v == '\0' || strpbrk(v, " \t") != NULL) {
		free(v);
		ts_error(t, "A client ID, please: one word, as the provider "
		    "gave it. Escape goes back.");
		return;
	}
	ts_set(&t->in.client_id, v);
	ts_error(t, NULL);
	ts_start(t, WZ_OAUTH_START);
}

/* OAuth2: the sign-in failed; a new code, or back. */
static void
ts_ask_oauth_failed(struct ts *t)
{
	int	c;

	if ((c = ts_key("re", NULL)) == 0)
		return;
	switch (c) {
	case 'r':
	case '\n':
		ts_error(t, NULL);
		ts_start(t, WZ_OAUTH_START);
		break;
	case 'e':
	case 27:
		ts_error(t, NULL);
		t->step = WZ_FOUND;
		break;
	}
	tui_dirty();
}

static void
ts_ask_failed(struct ts *t)
{
	int	c;

	c = ts_key(t->check.result == SETUP_CERT ? "per" : "er", NULL);
	if (c == 0)
		return;
	switch (c) {
	case 'p':
		if (t->check.fingerprint != NULL) {
			ts_set(&t->in.pin, xstrdup(t->check.fingerprint));
			ts_start(t, WZ_CHECK);
		}
		break;
	case 'r':
		if (t->check.result != SETUP_NO_TLS)
			ts_start(t, WZ_CHECK);
		break;
	case 'e':
	case 27:
		t->step = WZ_FOUND;
		break;
	}
	tui_dirty();
}

static void
ts_ask_device(struct ts *t)
{
	char	*v;
	int	 c;

	if ((c = ts_key("un", NULL)) == 0)
		return;
	switch (c) {
	case 'u':
		v = tui_prompt("Setup code: ", NULL, 0, NULL, NULL);
		if (v == NULL || *v == '\0') {
			free(v);
			break;
		}
		if (t->in.code != NULL)
			freezero_str(t->in.code);
		t->in.code = v;
		ts_error(t, NULL);
		ts_start(t, WZ_DEVICE_IMPORT);
		break;
	case 'n':
		ts_error(t, NULL);
		ts_start(t, WZ_KEY_MAKE);
		break;
	case 27:
		ts_error(t, NULL);
		t->step = WZ_FOUND;
		break;
	}
	tui_dirty();
}

static void
ts_ask_key(struct ts *t)
{
	char	*cause = NULL;
	int	 c;

	if ((c = ts_key("kmp", NULL)) == 0)
		return;
	switch (c) {
	case '\n':
		ts_error(t, NULL);
		/* the password is kept encrypted to the key shown */
		ts_set(&t->in.pwkey, t->fpr != NULL ? xstrdup(t->fpr) : NULL);
		ts_start(t, WZ_SAVE);
		break;
	case 'k':
		ts_error(t, NULL);
		ts_start(t, WZ_KEYS);
		break;
	case 'm':
		if (t->smime_fpr == NULL) {
			t->in.smime = 1;
			ts_error(t, NULL);
			ts_start(t, WZ_KEY_MAKE);
		}
		break;
	case 'p':
		if (t->fpr == NULL || t->passphrase)
			break;
		if (tui_setup_passphrase(t->fpr, &cause) == -1) {
			ts_error(t, "%s", cause);
			free(cause);
		} else {
			t->passphrase = 1;
			ts_error(t, NULL);
		}
		break;
	case 27:
		ts_error(t, NULL);
		t->step = WZ_FOUND;
		break;
	}
	tui_dirty();
}

static void
ts_ask_keys(struct ts *t)
{
	int	c;

	if (t->job != 0)
		return;
	if ((c = ts_key("jk", NULL)) == 0)
		return;
	if ((c == KEY_UP || c == 'k') && t->cursor > 0)
		t->cursor--;
	else if ((c == KEY_DOWN || c == 'j') && t->cursor + 1 < t->nkeys)
		t->cursor++;
	else if (c == '\n' && t->nkeys > 0) {
		ts_set(&t->in.key, xstrdup(t->keys[t->cursor].fpr));
		ts_set(&t->fpr, xstrdup(t->keys[t->cursor].fpr));
		ts_set(&t->uid, t->keys[t->cursor].uid != NULL ?
		    xstrdup(t->keys[t->cursor].uid) : NULL);
		t->chosen = 1;
		t->from_device = 0;
		t->created = 0;
		t->step = WZ_KEY;
	} else if (c == 27)
		t->step = WZ_KEY;
	tui_dirty();
}

/* The loop's ready hook: ask what this step asks, if it asks anything. */
static int
ts_ready(struct tui_screen *s)
{
	struct ts	*t = s->data;

	switch (t->step) {
	case WZ_NAME:
	case WZ_ADDRESS:
	case WZ_HOW:
	case WZ_PASSWORD:
	case WZ_COMMAND:
		ts_ask_you(t);
		break;
	case WZ_FOUND:
		ts_ask_found(t);
		break;
	case WZ_OAUTH_CLIENT:
		ts_ask_client(t);
		break;
	case WZ_OAUTH_FAILED:
		ts_ask_oauth_failed(t);
		break;
	case WZ_FAILED:
		ts_ask_failed(t);
		break;
	case WZ_KEY:
		ts_ask_key(t);
		break;
	case WZ_DEVICE:
		ts_ask_device(t);
		break;
	case WZ_KEYS:
		if (t->job != 0)
			return 0;
		ts_ask_keys(t);
		break;
	case WZ_RECORDS:
		if (ts_key("q", NULL) == 0)
			return 1;
		ts_leave(t);	/* t may be gone */
		return 1;
	default:
		/* waiting for a job: the loop waits (and, while the
		 * approval is waited for, counts the time each second) */
		s->ticking = t->step == WZ_OAUTH_WAIT;
		return 0;
	}
	if (tui.top == s) {	/* else the wizard is gone */
		s->ticking = 0;
		ts_title(s, t);
	}
	return 1;
}

/* ---- the jobs' answers ---------------------------------------------------- */

static void
ts_url_take(struct config_url *to, const struct config_url *from)
{
	free(to->host);
	to->tls = from->tls;
	to->port = from->port;
	to->host = from->host != NULL ? xstrdup(from->host) : NULL;
}

static void
ts_found(struct ts *t, struct tui_setup_out *out)
{
	setup_found_free(&t->found);
	t->found = out->found;
	memset(&out->found, 0, sizeof out->found);
	t->looked = 1;
	if (out->cause != NULL)
		ts_error(t, "The servers could not be looked for: %s. Type "
		    "them with i and s.", out->cause);
	if (t->found.imap.url.host != NULL) {
		ts_url_take(&t->in.imap, &t->found.imap.url);
		t->imap_origin = t->found.imap.origin;
	}
	if (t->found.smtp.url.host != NULL) {
		ts_url_take(&t->in.smtp, &t->found.smtp.url);
		t->smtp_origin = t->found.smtp.origin;
	}
	ts_set(&t->in.user, t->found.user != NULL ?
	    xstrdup(t->found.user) : NULL);
	/* a provider that takes only OAuth2: no password is asked */
	if (t->found.oauth2)
		ts_oauth_use(t);
	else
		t->in.oauth = 0;
	ts_after_address(t);
}

static void
ts_checked(struct ts *t, struct tui_setup_out *out)
{
	const char	*what;

	if (out->cause != NULL) {
		ts_error(t, "%s", out->cause);
		/* OAuth2: no usable token; Enter signs in again */
		if (t->in.oauth)
			ts_set(&t->in.oauth_id, NULL);
		t->step = t->in.oauth ? WZ_FOUND : WZ_COMMAND;
		return;
	}
	if (out->check.result == SETUP_OK) {
		ts_error(t, NULL);
		/* a key chosen or brought over is not looked for again */
		ts_start(t, t->in.key != NULL ? WZ_KEY_MAKE : WZ_DEVICE_LOOK);
		return;
	}
	what = out->which == SETUP_IMAP ? "IMAP" : "SMTP";
	if (out->check.result == SETUP_PASSWORD && t->in.oauth) {
		ts_error(t, "The %s server %s refused the sign-in (%s). "
		    "Press r to sign in again.", what,
		    tui_setup_host(t, out->which), out->check.message != NULL ?
		    out->check.message : "no reason given");
		ts_set(&t->in.oauth_id, NULL);
		t->oauth_why = OAUTH2_FAILED;
		t->step = WZ_OAUTH_FAILED;
		return;
	}
	if (out->check.result == SETUP_PASSWORD) {
		ts_error(t, "The %s server %s refused the %s (%s). %s", what,
		    tui_setup_host(t, out->which), t->use_command ?
		    "password your command printed" : "password",
		    out->check.message != NULL ? out->check.message :
		    "no reason given", t->use_command ? "Correct the command." :
		    "Type it again.");
		t->step = t->use_command ? WZ_COMMAND : WZ_PASSWORD;
		return;
	}
	setup_check_free(&t->check);
	t->check = out->check;
	memset(&out->check, 0, sizeof out->check);
	t->which = out->which;
	ts_error(t, NULL);
	t->step = WZ_FAILED;
}

static void
ts_device_found(struct ts *t, struct tui_setup_out *out)
{
	if (!out->message) {
		if (out->cause != NULL)
			ts_error(t, "%s", out->cause);
		ts_start(t, WZ_KEY_MAKE);
		return;
	}
	buf_free(&t->in.raw);
	t->in.raw = out->raw;
	buf_init(&out->raw);
	memcpy(t->begin, out->begin, sizeof t->begin);
	t->step = WZ_DEVICE;
}

static void
ts_device_imported(struct ts *t, struct tui_setup_out *out)
{
	if (!out->message) {
		ts_error(t, "Nothing was imported: %s", out->cause != NULL ?
		    out->cause : "the code did not open it");
		t->step = WZ_DEVICE;
		return;
	}
	ts_set(&t->in.key, out->fpr);
	out->fpr = NULL;
	t->from_device = t->chosen = 1;
	t->created = 0;
	ts_error(t, NULL);
	/* the key as the account will find it: its user ID, usable */
	ts_start(t, WZ_KEY_MAKE);
}

static void
ts_keyed(struct ts *t, struct tui_setup_out *out)
{
	if (out->cause != NULL)
		ts_error(t, "%s", out->cause);
	if (out->fpr != NULL) {
		/* the same key found again (m): it was still made here */
		if (t->fpr == NULL || strcmp(t->fpr, out->fpr) != 0) {
			t->created = out->created;
			t->seconds = out->seconds;
		}
		ts_set(&t->fpr, out->fpr);
		ts_set(&t->uid, out->uid);
		out->fpr = out->uid = NULL;
	}
	if (out->smime_fpr != NULL) {
		ts_set(&t->smime_fpr, out->smime_fpr);
		out->smime_fpr = NULL;
	} else
		t->in.smime = 0;
	t->step = WZ_KEY;
}

static void
ts_saved(struct ts *t, struct tui_setup_out *out)
{
	if (out->cause != NULL) {
		ts_error(t, "The account was not saved: %s. Enter tries "
		    "again.", out->cause);
		t->step = WZ_KEY;
		return;
	}
	t->saved = 1;
	if ((t->ta = tui_setup_adopt(out->saved, out->id)) == NULL) {
		ts_error(t, "The account was saved, but could not be "
		    "opened: restart steedmail.");
		t->step = WZ_KEY;
		return;
	}
	t->records = out->records;
	t->records_file = out->records_file;
	t->advice = out->advice;
	t->records_cause = out->records_cause;
	out->records = out->records_file = out->advice = NULL;
	out->records_cause = NULL;
	t->pwfile = out->pwfile;
	out->pwfile = NULL;
	/* the password is in the file or behind its command now */
	if (t->in.password != NULL)
		freezero_str(t->in.password);
	t->in.password = NULL;
	t->step = WZ_RECORDS;
}

/* The code came, or why not. */
static void
ts_oauth_started(struct ts *t, struct tui_setup_out *out)
{
	if (out->cause != NULL || (out->dev.device_code == NULL &&
	    !out->browser)) {
		ts_error(t, "%s", out->cause != NULL ? out->cause :
		    "no sign-in code came");
		t->oauth_why = out->oauth_why;
		t->step = WZ_OAUTH_FAILED;
		return;
	}
	ts_oauth_forget(t);
	t->in.dev = out->dev;
	memset(&out->dev, 0, sizeof out->dev);
	t->in.browser = out->browser;
	t->in.flow = out->flow;
	memset(&out->flow, 0, sizeof out->flow);
	out->browser = 0;
	t->opened = out->opened;
	t->oauth_browser = t->in.browser;
	ts_error(t, NULL);
	ts_start(t, WZ_OAUTH_WAIT);
}

/* Approved and kept, or why not. */
static void
ts_oauth_done(struct ts *t, struct tui_setup_out *out)
{
	ts_oauth_forget(t);	/* the code, or the listener, is spent */
	if (out->cause != NULL || out->id == NULL) {
		ts_error(t, "%s", out->cause != NULL ? out->cause :
		    "the sign-in was not kept");
		t->oauth_why = out->oauth_why;
		t->step = WZ_OAUTH_FAILED;
		return;
	}
	ts_set(&t->in.oauth_id, out->id);
	out->id = NULL;
	ts_set(&t->tokenfile, out->tokenfile);
	out->tokenfile = NULL;
	/* the key the token is encrypted to: the key step shows it */
	if (out->fpr != NULL) {
		ts_set(&t->fpr, out->fpr);
		ts_set(&t->uid, out->uid);
		out->fpr = out->uid = NULL;
		t->created = out->created;
		t->seconds = out->seconds;
	}
	ts_error(t, NULL);
	/* as after a password: the login checked, then the key */
	ts_start(t, WZ_CHECK);
}

static void
ts_event(struct tui_screen *s, struct tui_event *ev)
{
	struct ts		*t = s->data;
	struct tui_setup_out	*out;

	if (ev->kind != TE_DONE || ev->acct != NULL || t->job == 0 ||
	    ev->job != t->job)
		return;
	out = ev->data;
	t->job = 0;
	switch (t->step) {
	case WZ_DISCOVER:
		ts_found(t, out);
		break;
	case WZ_CHECK:
		ts_checked(t, out);
		break;
	case WZ_DEVICE_LOOK:
		ts_device_found(t, out);
		break;
	case WZ_DEVICE_IMPORT:
		ts_device_imported(t, out);
		break;
	case WZ_KEY_MAKE:
		ts_keyed(t, out);
		break;
	case WZ_KEYS:
		setup_keys_free(t->keys, t->nkeys);
		t->keys = out->keys;
		t->nkeys = out->nkeys;
		out->keys = NULL;
		out->nkeys = 0;
		if (out->cause != NULL)
			ts_error(t, "%s", out->cause);
		break;
	case WZ_SAVE:
		ts_saved(t, out);
		break;
	case WZ_OAUTH_START:
		ts_oauth_started(t, out);
		break;
	case WZ_OAUTH_WAIT:
		ts_oauth_done(t, out);
		break;
	default:
		break;
	}
	ts_title(s, t);
	tui_dirty();
}

/* ---- keys while a job runs, and the screen's life --------------------------- */

static int
ts_action(struct tui_screen *s, enum tui_action a, int key)
{
	struct ts	*t = s->data;

	(void)key;
	if (a == TA_REDRAW || a == TA_HELP)
		return 0;
	if (a != TA_BACK && a != TA_QUIT && a != TA_CANCEL)
		return 1;
	/* stop waiting; the job's answer, when it comes, is dropped */
	switch (t->step) {
	case WZ_DISCOVER:
		t->step = WZ_ADDRESS;
		break;
	case WZ_OAUTH_START:
	case WZ_OAUTH_WAIT:
		/* the wait stops at once; the code is not used */
		ts_oauth_forget(t);
		/* on the message line: the servers may fill the screen */
		ts_error(t, NULL);
		tui_message("The sign-in was stopped. Enter signs in again "
		    "with a new code.");
		s->ticking = 0;
		t->step = WZ_FOUND;
		break;
	case WZ_CHECK:
	case WZ_DEVICE_LOOK:
	case WZ_KEY_MAKE:
		t->step = WZ_FOUND;
		break;
	case WZ_DEVICE_IMPORT:
		t->step = WZ_DEVICE;
		break;
	case WZ_KEYS:
		t->step = WZ_KEY;
		break;
	default:
		/* saving is not stopped half-way: the file would hold an
		 * account the interface does not know */
		return 1;
	}
	t->job = 0;
	ts_title(s, t);
	tui_dirty();
	return 1;
}

static void
ts_free(struct tui_screen *s)
{
	struct ts	*t = s->data;

	free(t->in.name);
	free(t->in.address);
	free(t->in.user);
	if (t->in.password != NULL)
		freezero_str(t->in.password);
	free(t->in.command);
	free(t->in.imap.host);
	free(t->in.smtp.host);
	free(t->in.pin);
	free(t->in.key);
	free(t->in.pwkey);
	buf_free(&t->in.raw);
	if (t->in.code != NULL)
		freezero_str(t->in.code);
	ts_oauth_forget(t);
	free(t->in.oauth_id);
	free(t->in.token_url);
	free(t->in.device_url);
	free(t->in.auth_url);
	free(t->in.scope);
	free(t->in.client_id);
	ts_token_discard(t);
	free(t->error);
	setup_found_free(&t->found);
	setup_check_free(&t->check);
	free(t->fpr);
	free(t->uid);
	free(t->smime_fpr);
	setup_keys_free(t->keys, t->nkeys);
	free(t->records);
	free(t->records_file);
	free(t->advice);
	free(t->records_cause);
	free(t->pwfile);
	free(t);
	free(s);
}

struct tui_screen *
tui_setup_new(void)
{
	struct tui_screen	*s = xcalloc(1, sizeof *s);
	struct ts		*t = xcalloc(1, sizeof *t);

	t->in.cf = tui.cf;
	t->step = WZ_NAME;
	s->data = t;
	s->map = TM_GENERIC;
	s->draw = tui_setup_draw;
	s->action = ts_action;
	s->event = ts_event;
	s->status = tui_setup_status;
	s->free = ts_free;
	s->ready = ts_ready;
	ts_title(s, t);
	return s;
}
