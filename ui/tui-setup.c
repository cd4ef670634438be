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
 * screen says what it waits for, and their answers come back as events.
 * Escape goes back a step. Nothing here touches the network, gpg or the
 * file; everything drawn goes through tui_put().
 */
#include <curses.h>
#include <ctype.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "account/setup.h"
#include "tui.h"
#include "tui-setup.h"
#include "xmalloc.h"

enum ts_step {
	WZ_NAME,
	WZ_ADDRESS,
	WZ_HOW,			/* password or password command */
	WZ_PASSWORD,
	WZ_COMMAND,
	WZ_DISCOVER,		/* waits: looking for the servers */
	WZ_FOUND,		/* the servers, to accept or edit */
	WZ_CHECK,		/* waits: logging in */
	WZ_FAILED,		/* the login failed: what to do */
	WZ_DEVICE_LOOK,		/* waits: a setup message in the INBOX? */
	WZ_DEVICE,		/* there is one: use its key? */
	WZ_DEVICE_IMPORT,	/* waits: importing it with the code */
	WZ_KEY_MAKE,		/* waits: finding or making the key */
	WZ_KEY,			/* the key, and its options */
	WZ_KEYS,		/* the keys the user has, to pick one */
	WZ_SAVE,		/* waits: saving */
	WZ_RECORDS		/* saved: the DNS records */
};

struct ts {
	enum ts_step		 step;
	struct tui_setup_in	 in;
	int			 use_command;
	uint64_t		 job;		/* the job waited for, or 0 */
	char			*error;		/* said on the current step */

	struct setup_found	 found;
	int			 looked;	/* the servers were looked for */
	enum setup_origin	 imap_origin, smtp_origin;

	enum setup_which	 which;		/* WZ_FAILED */
	struct setup_check	 check;

	char			*fpr, *uid, *smime_fpr;
	int			 created, chosen, passphrase;
	int			 from_device;	/* the key came from the
						   other device's message */
	char			 begin[3];	/* its code's first digits */
	double			 seconds;

	struct setup_key	*keys;
	size_t			 nkeys, cursor;

	struct tui_account	*ta;		/* the account saved */
	char			*records, *records_file, *advice;
	char			*records_cause;
};

static void	ts_start(struct ts *, enum ts_step);

/* ---- drawing ------------------------------------------------------------ */

/* Text wrapped at word boundaries from row y, column x; the next row. */
static int
ts_para(int y, int x, const char *text, int attr)
{
	int		 width = COLS - x - 2, last = TUI_FIRST_ROW + tui_rows();
	const char	*p = text, *sp;
	struct buf	 line, word;

	if (width < 10)
		width = 10;
	buf_init(&line);
	buf_init(&word);
	while (*p != '\0' && y < last) {
		sp = p + strcspn(p, " ");
		buf_reset(&word);
		buf_add(&word, p, (size_t)(sp - p));
		buf_add(&word, "", 0);
		if (line.len > 0 && tui_width(line.data) + 1 +
		    tui_width(word.data) > width) {
			tui_put(y++, x, width, line.data, attr);
			buf_reset(&line);
		}
		if (line.len > 0)
			buf_adds(&line, " ");
		buf_adds(&line, word.data);
		p = *sp == ' ' ? sp + 1 : sp;
	}
	if (line.len > 0 && y < last)
		tui_put(y++, x, width, line.data, attr);
	buf_free(&line);
	buf_free(&word);
	return y;
}

/* A line "  label  value" with the value made safe. */
static int
ts_field(int y, const char *label, const char *value, int attr)
{
	int	w;

	if (y >= TUI_FIRST_ROW + tui_rows())
		return y;
	w = tui_put(y, 2, COLS - 4, label, tui_attr(TC_HEADER_NAME));
	tui_put(y, 2 + w, COLS - 4 - w, value != NULL ? value : "", attr);
	return y + 1;
}

/* 64 hex digits as AB:CD:...; two lines of 16 bytes each. */
static void
ts_pretty_fpr(const char *hex, char *l1, char *l2)
{
	size_t	 i, n = strlen(hex);
	char	*o = l1;

	*l1 = *l2 = '\0';
	for (i = 0; i + 1 < n && i < 64; i += 2) {
		if (i == 32)
			o = l2;
		else if (i > 0)
			*o++ = ':';
		*o++ = (char)toupper((unsigned char)hex[i]);
		*o++ = (char)toupper((unsigned char)hex[i + 1]);
		*o = '\0';
	}
}

/* An OpenPGP fingerprint in groups of four. */
static char *
ts_groups(const char *fpr)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; fpr[i] != '\0'; i++) {
		if (i > 0 && i % 4 == 0)
			buf_adds(&b, i == 20 ? "  " : " ");
		buf_add(&b, &fpr[i], 1);
	}
	buf_add(&b, "", 0);
	return b.data != NULL ? b.data : xstrdup("");
}

static const char *
ts_host(struct ts *t, enum setup_which w)
{
	const char *h = w == SETUP_IMAP ? t->in.imap.host : t->in.smtp.host;

	return h != NULL ? h : "the server";
}

static int
ts_draw_you(struct ts *t, int y)
{
	const char	*pw;

	y = ts_para(y, 2, "Welcome to steedmail.", tui_attr(TC_TITLE));
	y = ts_para(y + 1, 2, "Your name, your address and your password: "
	    "steedmail then finds your mail servers, makes your key and "
	    "opens your inbox. Escape goes back a step.", tui_attr(TC_NORMAL));
	y++;
	y = ts_field(y, "Name:      ", t->in.name, tui_attr(TC_HEADER));
	if (t->step > WZ_NAME)
		y = ts_field(y, "Address:   ", t->in.address,
		    tui_attr(TC_HEADER));
	if (t->step == WZ_PASSWORD || (t->step > WZ_HOW && !t->use_command))
		pw = t->in.password != NULL ? "(typed, hidden)" : "";
	else if (t->step > WZ_HOW)
		pw = t->in.command != NULL ? t->in.command : "";
	else
		pw = NULL;
	if (pw != NULL)
		y = ts_field(y, t->use_command ? "Command:   " : "Password:  ",
		    pw, tui_attr(TC_HEADER));
	y++;
	switch (t->step) {
	case WZ_NAME:
		y = ts_para(y, 2, "Your name, as the people you write to "
		    "will see it.", tui_attr(TC_NORMAL));
		break;
	case WZ_ADDRESS:
		y = ts_para(y, 2, "Your mail address, such as "
		    "someone@example.org.", tui_attr(TC_NORMAL));
		break;
	case WZ_HOW:
		y = ts_para(y, 2, "How should steedmail get your password?",
		    tui_attr(TC_NORMAL));
		y = ts_field(y, "  p  ", "type it now (kept in the "
		    "configuration file, which only you can read)",
		    tui_attr(TC_NORMAL));
		y = ts_field(y, "  c  ", "a command that prints it, such as "
		    "pass show mail or secret-tool lookup ...",
		    tui_attr(TC_NORMAL));
		break;
	case WZ_PASSWORD:
		y = ts_para(y, 2, "Your password: what you type is not shown.",
		    tui_attr(TC_NORMAL));
		break;
	case WZ_COMMAND:
		y = ts_para(y, 2, "A command that prints your password on its "
		    "first line, such as: pass show mail", tui_attr(TC_NORMAL));
		break;
	default:
		break;
	}
	return y;
}

/* Where a server came from, in words (setup_origin_name() is a token). */
static const char *
ts_origin(enum setup_origin o)
{
	switch (o) {
	case SETUP_SRV_SECURE:
		return "secure SRV record (DNSSEC)";
	case SETUP_SRV_INSECURE:
		return "insecure SRV record, only a suggestion";
	case SETUP_GUESS:
		return "probed name";
	case SETUP_MX:
		return "the mail (MX) host's domain, probed";
	case SETUP_GIVEN:
		return "typed by you";
	default:
		return "found";
	}
}

static int
ts_draw_server(struct ts *t, int y, int imap)
{
	const struct setup_server *sv = imap ? &t->found.imap : &t->found.smtp;
	const struct config_url	 *u = imap ? &t->in.imap : &t->in.smtp;
	enum setup_origin	  o = imap ? t->imap_origin : t->smtp_origin;
	char			 *s, *from;

	s = tui_setup_url_string(u, imap);
	y = ts_field(y, imap ? "IMAP (reading):  " : "SMTP (sending):  ",
	    u->host != NULL ? s : "none found: type one", tui_attr(u->host !=
	    NULL ? TC_HEADER : TC_ERROR));
	free(s);
	if (u->host == NULL)
		return y;
	if (o == SETUP_GIVEN)
		from = xstrdup("typed by you");
	else {
		from = xasprintf("%s%s%s", ts_origin(o),
		    sv->how != NULL ? ": " : "", sv->how != NULL ? sv->how : "");
	}
	y = ts_para(y, 19, from, tui_attr(o == SETUP_SRV_SECURE ?
	    TC_IND_GOOD : o == SETUP_SRV_INSECURE ? TC_IND_WARN : TC_NOTE));
	free(from);
	return y;
}

static int
ts_draw_found(struct ts *t, int y)
{
	size_t	i;

	y = ts_para(y, 2, "Your mail servers", tui_attr(TC_TITLE));
	y++;
	y = ts_draw_server(t, y, 1);
	y = ts_draw_server(t, y, 0);
	if (t->found.nnotes > 0) {
		y++;
		y = ts_para(y, 2, "On the way:", tui_attr(TC_NORMAL));
		for (i = 0; i < t->found.nnotes; i++)
			y = ts_para(y, 4, t->found.notes[i],
			    tui_attr(TC_IND_WARN));
	}
	y++;
	y = ts_field(y, "Enter  ", "use these", tui_attr(TC_NORMAL));
	y = ts_field(y, "i      ", "change the IMAP server", tui_attr(TC_NORMAL));
	y = ts_field(y, "s      ", "change the SMTP server", tui_attr(TC_NORMAL));
	y = ts_field(y, "Escape ", "back", tui_attr(TC_NORMAL));
	return y;
}

static int
ts_draw_failed(struct ts *t, int y)
{
	const char	*host = ts_host(t, t->which);
	char		*h, l1[64], l2[64];

	switch (t->check.result) {
	case SETUP_CERT:
		h = xasprintf("The certificate of %s could not be verified.",
		    host);
		break;
	case SETUP_UNREACHABLE:
		h = xasprintf("%s could not be reached.", host);
		break;
	case SETUP_NO_TLS:
		h = xasprintf("%s offers no TLS: steedmail never sends your "
		    "password in clear text. Choose another server.", host);
		break;
	default:
		h = xasprintf("Logging in to %s failed.", host);
		break;
	}
	y = ts_para(y, 2, h, tui_attr(TC_BANNER_BAD));
	free(h);
	if (t->check.message != NULL)
		y = ts_para(y + 1, 2, t->check.message, tui_attr(TC_NORMAL));
	y++;
	if (t->check.result == SETUP_CERT && t->check.fingerprint != NULL) {
		ts_pretty_fpr(t->check.fingerprint, l1, l2);
		y = ts_para(y, 2, "Its SHA-256 fingerprint:", tui_attr(TC_NORMAL));
		y = ts_field(y, "  ", l1, tui_attr(TC_HEADER));
		y = ts_field(y, "  ", l2, tui_attr(TC_HEADER));
		y = ts_para(y + 1, 2, "If this is your server's certificate "
		    "(its administrator can tell you the fingerprint), "
		    "steedmail can trust exactly this certificate and no "
		    "other.", tui_attr(TC_NORMAL));
		y++;
		y = ts_field(y, "p      ", "pin this certificate",
		    tui_attr(TC_NORMAL));
	}
	y = ts_field(y, "e      ", "change the servers", tui_attr(TC_NORMAL));
	if (t->check.result != SETUP_NO_TLS)
		y = ts_field(y, "r      ", "try again", tui_attr(TC_NORMAL));
	y = ts_field(y, "Escape ", "back", tui_attr(TC_NORMAL));
	return y;
}

static int
ts_draw_key(struct ts *t, int y)
{
	char	*g, *how;

	y = ts_para(y, 2, "Your key", tui_attr(TC_TITLE));
	y++;
	if (t->fpr != NULL) {
		g = ts_groups(t->fpr);
		y = ts_field(y, "OpenPGP:  ", g, tui_attr(TC_HEADER));
		free(g);
		if (t->uid != NULL)
			y = ts_field(y, "          ", t->uid, tui_attr(TC_NORMAL));
		if (t->from_device)
			how = xstrdup("from your other device");
		else if (t->chosen)
			how = xstrdup("chosen from the keys you have");
		else if (t->created)
			how = xasprintf("made now, in %.1f seconds", t->seconds);
		else
			how = xstrdup("already in your keyring");
		y = ts_field(y, "          ", how, tui_attr(TC_NOTE));
		free(how);
	}
	if (t->smime_fpr != NULL) {
		g = ts_groups(t->smime_fpr);
		y = ts_field(y, "S/MIME:   ", g, tui_attr(TC_HEADER));
		free(g);
	}
	if (t->fpr != NULL)
		y = ts_para(y + 1, 2, t->passphrase ? "It has a passphrase." :
		    "It has no passphrase: anyone who can read your files can "
		    "use it. A passphrase is optional.", tui_attr(TC_NORMAL));
	y++;
	y = ts_field(y, "Enter  ", "save the account", tui_attr(TC_NORMAL));
	y = ts_field(y, "k      ", "use another key you have",
	    tui_attr(TC_NORMAL));
	if (t->smime_fpr == NULL)
		y = ts_field(y, "m      ", "also make an S/MIME certificate",
		    tui_attr(TC_NORMAL));
	if (t->fpr != NULL && !t->passphrase)
		y = ts_field(y, "p      ", "set a passphrase (optional)",
		    tui_attr(TC_NORMAL));
	y = ts_field(y, "Escape ", "back", tui_attr(TC_NORMAL));
	return y;
}

static int
ts_draw_device(struct ts *t, int y)
{
	char	*m;

	y = ts_para(y, 2, "A key from your other device", tui_attr(TC_TITLE));
	m = xasprintf("Your INBOX holds an Autocrypt Setup Message from %s: "
	    "the key of your other device, locked with the setup code that "
	    "device showed you (nine groups of four digits; the first "
	    "begins with %s). With it, both devices use the same key.",
	    t->in.address, t->begin);
	y = ts_para(y + 1, 2, m, tui_attr(TC_NORMAL));
	free(m);
	y++;
	y = ts_field(y, "u      ", "use the key from your other device: type "
	    "the setup code", tui_attr(TC_NORMAL));
	y = ts_field(y, "n      ", "make a new key instead", tui_attr(TC_NORMAL));
	y = ts_field(y, "Escape ", "back", tui_attr(TC_NORMAL));
	return y;
}

static int
ts_draw_keys(struct ts *t, int y)
{
	size_t	 i;
	char	*line;

	y = ts_para(y, 2, "The keys you have", tui_attr(TC_TITLE));
	y++;
	if (t->job != 0)
		return ts_para(y, 2, "Looking in your keyring...",
		    tui_attr(TC_NORMAL));
	if (t->nkeys == 0)
		y = ts_para(y, 2, "You have no other key that can sign.",
		    tui_attr(TC_NORMAL));
	for (i = 0; i < t->nkeys && y < TUI_FIRST_ROW + tui_rows() - 2; i++) {
		line = xasprintf("%s  %s%s", t->keys[i].fpr,
		    t->keys[i].uid != NULL ? t->keys[i].uid : "",
		    t->keys[i].card ? "  [smartcard]" : "");
		tui_putfill(y++, 2, COLS - 4, line, tui_attr(i == t->cursor ?
		    TC_SELECTED : TC_NORMAL));
		free(line);
	}
	y++;
	y = ts_field(y, "Enter  ", "use this key; Escape: back",
	    tui_attr(TC_NORMAL));
	return y;
}

static int
ts_draw_records(struct ts *t, int y)
{
	char	*s;

	s = xasprintf("Your account is saved in %s.", tui.cf->path);
	y = ts_para(y, 2, s, tui_attr(TC_TITLE));
	free(s);
	y++;
	if (t->records != NULL) {
		y = ts_para(y, 2, "To let others find your key, these DNS "
		    "records go in your domain's zone:", tui_attr(TC_NORMAL));
		{
			char	*copy = xstrdup(t->records), *line, *p = copy;

			while ((line = strsep(&p, "\n")) != NULL)
				if (*line != '\0')
					y = ts_field(y, "  ", line,
					    tui_attr(TC_HEADER));
			free(copy);
		}
		if (t->records_file != NULL) {
			s = xasprintf("They are also in %s.", t->records_file);
			y = ts_para(y, 2, s, tui_attr(TC_NORMAL));
			free(s);
		}
		if (t->advice != NULL)
			y = ts_para(y + 1, 2, t->advice, tui_attr(TC_NORMAL));
	} else if (t->records_cause != NULL)
		y = ts_para(y, 2, t->records_cause, tui_attr(TC_IND_WARN));
	y++;
	y = ts_field(y, "Enter  ", "open your inbox", tui_attr(TC_NORMAL));
	return y;
}

static void
ts_draw(struct tui_screen *s)
{
	struct ts	*t = s->data;
	int		 y = TUI_FIRST_ROW + 1;
	char		*m;

	switch (t->step) {
	case WZ_NAME:
	case WZ_ADDRESS:
	case WZ_HOW:
	case WZ_PASSWORD:
	case WZ_COMMAND:
		y = ts_draw_you(t, y);
		break;
	case WZ_DISCOVER:
		y = ts_para(y, 2, "Looking for your mail servers...",
		    tui_attr(TC_TITLE));
		m = xasprintf("steedmail asks DNS for the servers of %s "
		    "(SRV records, checked with DNSSEC), then tries the "
		    "usual names over TLS.", strchr(t->in.address, '@') + 1);
		y = ts_para(y + 1, 2, m, tui_attr(TC_NORMAL));
		free(m);
		break;
	case WZ_FOUND:
		y = ts_draw_found(t, y);
		break;
	case WZ_CHECK:
		y = ts_para(y, 2, "Checking: logging in...", tui_attr(TC_TITLE));
		m = xasprintf("To %s (reading) and %s (sending), before "
		    "anything is saved.", ts_host(t, SETUP_IMAP),
		    ts_host(t, SETUP_SMTP));
		y = ts_para(y + 1, 2, m, tui_attr(TC_NORMAL));
		free(m);
		break;
	case WZ_FAILED:
		y = ts_draw_failed(t, y);
		break;
	case WZ_DEVICE_LOOK:
		y = ts_para(y, 2, "Looking in your INBOX for a key from "
		    "another device...", tui_attr(TC_TITLE));
		break;
	case WZ_DEVICE:
		y = ts_draw_device(t, y);
		break;
	case WZ_DEVICE_IMPORT:
		y = ts_para(y, 2, "Importing the key from your other device...",
		    tui_attr(TC_TITLE));
		break;
	case WZ_KEY_MAKE:
		y = ts_para(y, 2, "Making your key...", tui_attr(TC_TITLE));
		m = xasprintf("An OpenPGP key for %s, so that mail to you "
		    "can be encrypted and yours signed.", t->in.address);
		y = ts_para(y + 1, 2, m, tui_attr(TC_NORMAL));
		free(m);
		break;
	case WZ_KEY:
		y = ts_draw_key(t, y);
		break;
	case WZ_KEYS:
		y = ts_draw_keys(t, y);
		break;
	case WZ_SAVE:
		y = ts_para(y, 2, "Saving your account...", tui_attr(TC_TITLE));
		break;
	case WZ_RECORDS:
		y = ts_draw_records(t, y);
		break;
	}
	if (t->error != NULL)
		ts_para(y + 1, 2, t->error, tui_attr(TC_ERROR));
}

static void
ts_status(struct tui_screen *s, struct buf *b)
{
	struct ts	*t = s->data;

	switch (t->step) {
	case WZ_DISCOVER:
	case WZ_CHECK:
	case WZ_DEVICE_LOOK:
	case WZ_DEVICE_IMPORT:
	case WZ_KEY_MAKE:
		buf_adds(b, " Escape: stop and go back");
		break;
	case WZ_SAVE:
		buf_adds(b, " saving");
		break;
	case WZ_RECORDS:
		buf_adds(b, " Enter: your inbox");
		break;
	default:
		buf_adds(b, " Escape: back a step");
		break;
	}
}

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
		[WZ_KEYS] = "Setup: your key", [WZ_SAVE] = "Setup: saving",
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
	case WZ_SAVE:
		t->job = ts_job(t, tui_setup_save_run);
		break;
	default:
		break;
	}
	tui_dirty();
}

/* The password was given: on to the servers, or the check again. */
static void
ts_after_password(struct ts *t)
{
	if (!t->looked)
		ts_start(t, WZ_DISCOVER);
	else
		ts_start(t, WZ_CHECK);
}

/* The wizard is done or given up: the inbox of the account saved, or
 * what was there before. */
static void
ts_leave(struct ts *t)
{
	struct tui_account	*ta = t->ta;

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

static void
ts_set(char **field, char *value)
{
	free(*field);
	*field = value;
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
		if (t->in.address == NULL || strcmp(t->in.address, v) != 0)
			t->looked = 0;	/* another domain: look again */
		ts_set(&t->in.address, v);
		ts_error(t, NULL);
		t->step = WZ_HOW;
		break;
	case WZ_HOW:
		if ((c = ts_key("pc", "p or c? ")) == 0)
			return;
		if (c == 27)
			t->step = WZ_ADDRESS;
		else if (c == 'c') {
			t->use_command = 1;
			t->step = WZ_COMMAND;
		} else if (c == 'p' || c == '\n') {
			t->use_command = 0;
			t->step = WZ_PASSWORD;
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
		ts_start(t, WZ_CHECK);
		break;
	}
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
		return 0;	/* waiting for a job: the loop waits */
	}
	if (tui.top == s)	/* else the wizard is gone */
		ts_title(s, t);
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
	t->step = WZ_FOUND;
}

static void
ts_checked(struct ts *t, struct tui_setup_out *out)
{
	const char	*what;

	if (out->cause != NULL) {
		ts_error(t, "%s", out->cause);
		t->step = WZ_COMMAND;
		return;
	}
	if (out->check.result == SETUP_OK) {
		ts_error(t, NULL);
		/* a key chosen or brought over is not looked for again */
		ts_start(t, t->in.key != NULL ? WZ_KEY_MAKE : WZ_DEVICE_LOOK);
		return;
	}
	what = out->which == SETUP_IMAP ? "IMAP" : "SMTP";
	if (out->check.result == SETUP_PASSWORD) {
		ts_error(t, "The %s server %s refused the %s (%s). %s", what,
		    ts_host(t, out->which), t->use_command ?
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
	/* the password is in the file or behind its command now */
	if (t->in.password != NULL)
		freezero_str(t->in.password);
	t->in.password = NULL;
	t->step = WZ_RECORDS;
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
		t->step = t->use_command ? WZ_COMMAND : WZ_PASSWORD;
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
	if (t->in.password != NULL)
		freezero_str(t->in.password);
	free(t->in.command);
	free(t->in.imap.host);
	free(t->in.smtp.host);
	free(t->in.pin);
	free(t->in.key);
	buf_free(&t->in.raw);
	if (t->in.code != NULL)
		freezero_str(t->in.code);
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
	s->draw = ts_draw;
	s->action = ts_action;
	s->event = ts_event;
	s->status = ts_status;
	s->free = ts_free;
	s->ready = ts_ready;
	ts_title(s, t);
	return s;
}
