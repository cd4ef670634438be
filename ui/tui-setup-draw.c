/*
 * tui-setup-draw.c: what the setup wizard's screen shows at each step: what
 * was typed, the servers found and where from, why a login failed, the key
 * and its fingerprint, the DNS records; and the status bar's keys. Reads
 * the wizard's state (struct ts), changes nothing; everything drawn goes
 * through tui_put().
 */
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"
#include "account/setup.h"
#include "tui.h"
#include "tui-setup.h"
#include "xmalloc.h"

/* ---- drawing ------------------------------------------------------------ */

/* Bytes of s that fill at most width columns, one a character. */
static size_t
ts_cut(const char *s, int width)
{
	size_t	n = 0;
	int	cols = 0;

	for (; s[n] != '\0'; n++) {
		if (((unsigned char)s[n] & 0xc0) == 0x80)
			continue;
		if (cols++ == width)
			break;
	}
	return n;
}

/*
 * Text wrapped at word boundaries from row y, column x; the next row. A
 * word wider than the line (a URL) is cut where the line ends, not lost.
 */
static int
ts_para(int y, int x, const char *text, int attr)
{
	int		 width = COLS - x - 2, last = TUI_FIRST_ROW + tui_rows();
	const char	*p = text, *sp;
	struct buf	 line, word;
	size_t		 n;

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
		while (line.len == 0 && tui_width(word.data) > width &&
		    y < last) {
			n = ts_cut(word.data, width);
			buf_add(&line, word.data, n);
			buf_add(&line, "", 0);
			tui_put(y++, x, width, line.data, attr);
			buf_reset(&line);
			memmove(word.data, word.data + n, word.len - n);
			word.len -= n;
			word.data[word.len] = '\0';
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

const char *
tui_setup_host(struct ts *t, enum setup_which w)
{
	const char *h = w == SETUP_IMAP ? t->in.imap.host : t->in.smtp.host;

	return h != NULL ? h : "the server";
}

/* The provider's name, or "your provider". */
static const char *
ts_provider(struct ts *t)
{
	return t->found.provider != NULL ? t->found.provider :
	    "your provider";
}

/* Before a password is asked: an app password wanted, and where. */
static int
ts_app_password(struct ts *t, int y)
{
	if (t->found.app_password == NULL)
		return y;
	y = ts_para(y, 2, "Not your usual password:", tui_attr(TC_TITLE));
	y = ts_para(y, 2, t->found.app_password, tui_attr(TC_HEADER));
	return y + 1;
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
		y = ts_app_password(t, y);
		y = ts_para(y, 2, "How should steedmail get your password?",
		    tui_attr(TC_NORMAL));
		y = ts_field(y, "  p  ", "type it now (kept encrypted to "
		    "your key, not in the configuration)", tui_attr(TC_NORMAL));
		y = ts_field(y, "  c  ", "a command that prints it, such as "
		    "pass show mail or secret-tool lookup ...",
		    tui_attr(TC_NORMAL));
		if (t->found.oauth2_offered)
			y = ts_field(y, "  o  ", "no password: sign in on your "
			    "provider's own page instead (OAuth2)",
			    tui_attr(TC_NORMAL));
		break;
	case WZ_PASSWORD:
		y = ts_app_password(t, y);
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

/* The colour of an origin's trust: the domain's or steedmail's word,
 * a suggestion, or a guess. */
static int
ts_origin_tone(enum setup_origin o)
{
	switch (o) {
	case SETUP_SRV_SECURE:
	case SETUP_AUTOCONFIG:
	case SETUP_PROVIDER:
		return TC_IND_GOOD;
	case SETUP_SRV_INSECURE:
		return TC_IND_WARN;
	default:
		return TC_NOTE;
	}
}

/* A server's URL and what its probe found. */
static int
ts_draw_server(struct ts *t, int y, int imap)
{
	const struct setup_server *sv = imap ? &t->found.imap : &t->found.smtp;
	const struct config_url	 *u = imap ? &t->in.imap : &t->in.smtp;
	enum setup_origin	  o = imap ? t->imap_origin : t->smtp_origin;
	char			 *s;

	s = tui_setup_url_string(u, imap);
	y = ts_field(y, imap ? "IMAP (reading):  " : "SMTP (sending):  ",
	    u->host != NULL ? s : "none found: type one", tui_attr(u->host !=
	    NULL ? TC_HEADER : TC_ERROR));
	free(s);
	if (u->host != NULL && o != SETUP_GIVEN && sv->probe != NULL)
		y = ts_para(y, 19, sv->probe, tui_attr(sv->verified ?
		    TC_IND_GOOD : TC_IND_WARN));
	return y;
}

/* Where a server came from, and how far that can be trusted. */
static int
ts_draw_from(struct ts *t, int y, int imap, const char *label)
{
	const struct setup_server *sv = imap ? &t->found.imap : &t->found.smtp;
	enum setup_origin	  o = imap ? t->imap_origin : t->smtp_origin;

	y = ts_field(y, label, "", tui_attr(TC_NORMAL));
	if (o != SETUP_GIVEN && sv->from != NULL)
		y = ts_para(y - 1, 19, sv->from, tui_attr(TC_NORMAL));
	else
		y--;
	return ts_para(y, 19, setup_origin_trust(o),
	    tui_attr(ts_origin_tone(o)));
}

static int
ts_draw_found(struct ts *t, int y)
{
	const struct setup_server *i = &t->found.imap, *s = &t->found.smtp;
	size_t	 n;
	char	*m;

	y = ts_para(y, 2, "Your mail servers", tui_attr(TC_TITLE));
	y++;
	y = ts_draw_server(t, y, 1);
	y = ts_draw_server(t, y, 0);
	if (t->in.user != NULL)
		y = ts_field(y, "Login:           ", t->in.user,
		    tui_attr(TC_HEADER));
	/* both from the same place: said once */
	if (t->in.imap.host != NULL && t->in.smtp.host != NULL &&
	    t->imap_origin == t->smtp_origin &&
	    (t->imap_origin == SETUP_GIVEN || (i->from != NULL &&
	    s->from != NULL && strcmp(i->from, s->from) == 0)))
		y = ts_draw_from(t, y, 1, "Found by:        ");
	else {
		if (t->in.imap.host != NULL)
			y = ts_draw_from(t, y, 1, "IMAP found by:   ");
		if (t->in.smtp.host != NULL)
			y = ts_draw_from(t, y, 0, "SMTP found by:   ");
	}
	if (t->in.oauth) {
		m = xasprintf("on %s's own page (OAuth2): no password here",
		    ts_provider(t));
		y = ts_field(y, "Sign-in:         ", m, tui_attr(TC_HEADER));
		free(m);
	}
	if (t->found.nadvice > (t->in.oauth && t->found.oauth2_advice ?
	    1 : 0)) {
		y++;
		y = ts_para(y, 2, "What your provider asks of you:",
		    tui_attr(TC_NORMAL));
		for (n = 0; n < t->found.nadvice; n++) {
			/* the wizard signs in itself: no command to run */
			if (t->in.oauth && n + 1 == t->found.oauth2_advice)
				continue;
			y = ts_para(y, 4, t->found.advice[n],
			    tui_attr(TC_HEADER));
		}
	}
	if (t->found.nnotes > 0) {
		y++;
		y = ts_para(y, 2, "On the way:", tui_attr(TC_NORMAL));
		for (n = 0; n < t->found.nnotes; n++)
			y = ts_para(y, 4, t->found.notes[n],
			    tui_attr(TC_IND_WARN));
	}
	return y;
}

static int
ts_draw_failed(struct ts *t, int y)
{
	const char	*host = tui_setup_host(t, t->which);
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

/* OAuth2: why the client ID is asked for. */
static int
ts_draw_client(struct ts *t, int y)
{
	char	*m;

	y = ts_para(y, 2, "Signing in: the client ID", tui_attr(TC_TITLE));
	m = xasprintf("%s takes no password from mail programs: you sign in "
	    "on its own page, for a program registered with it. steedmail "
	    "does not know the ID of a registration there: type the client "
	    "ID of the one you (or your administrator) made with %s. Its "
	    "documentation says how.", ts_provider(t), ts_provider(t));
	y = ts_para(y + 1, 2, m, tui_attr(TC_NORMAL));
	free(m);
	return y;
}

/* The time waited and the time left. */
static int
ts_draw_waited(struct ts *t, int y, const char *what, long life)
{
	char	*m;
	long	 waited, left;

	waited = (long)((clock_ms() - t->oauth_since) / 1000);
	left = life - waited;
	if (left < 0)
		left = 0;
	m = xasprintf("%s... %ld:%02ld so far; %ld:%02ld more at most.", what,
	    waited / 60, waited % 60, left / 60, left % 60);
	y = ts_para(y, 2, m, tui_attr(TC_NOTE));
	free(m);
	return y;
}

/* OAuth2 in a browser of this machine: the URL, and the time waited. */
static int
ts_draw_browser(struct ts *t, int y)
{
	char	*m;

	m = xasprintf("Sign in at %s", ts_provider(t));
	y = ts_para(y, 2, m, tui_attr(TC_TITLE));
	free(m);
	m = xasprintf("%s does not take your password in mail programs: you "
	    "sign in on its own web page, in a browser on this computer, and "
	    "steedmail never sees your password.", ts_provider(t));
	y = ts_para(y + 1, 2, m, tui_attr(TC_NORMAL));
	free(m);
	y++;
	y = ts_para(y, 2, t->opened ? "steedmail opened the page in your "
	    "browser. If none came up, open this address in a browser on "
	    "this computer:" : "Open this address in a web browser on this "
	    "computer:", tui_attr(TC_NORMAL));
	y = ts_para(y, 4, t->in.flow.url, tui_attr(TC_HEADER));
	y = ts_para(y, 2, "Sign in there and allow steedmail to read and send "
	    "your mail; the browser then comes back to steedmail by itself.",
	    tui_attr(TC_NORMAL));
	y++;
	return ts_draw_waited(t, y, "Waiting for the browser",
	    TUI_SETUP_BROWSER_WAIT);
}

/* OAuth2: the URL and the code, and the time waited. */
static int
ts_draw_oauth(struct ts *t, int y)
{
	const struct oauth2_device	*d = &t->in.dev;
	char				*m;
	long				 waited, left;

	if (t->in.browser)
		return ts_draw_browser(t, y);

	m = xasprintf("Sign in at %s", ts_provider(t));
	y = ts_para(y, 2, m, tui_attr(TC_TITLE));
	free(m);
	m = xasprintf("%s does not take your password in mail programs: you "
	    "sign in on its own web page, and steedmail never sees your "
	    "password. Any device will do, your phone too.", ts_provider(t));
	y = ts_para(y + 1, 2, m, tui_attr(TC_NORMAL));
	free(m);
	y++;
	y = ts_para(y, 2, "1. Open this address in a web browser:",
	    tui_attr(TC_NORMAL));
	y = ts_para(y, 7, d->uri, tui_attr(TC_HEADER));
	y = ts_para(y, 2, "2. Type this code there:", tui_attr(TC_NORMAL));
	y = ts_para(y, 7, d->user_code, tui_attr(TC_TITLE));
	y = ts_para(y, 2, "3. Sign in, and allow steedmail to read and send "
	    "your mail.", tui_attr(TC_NORMAL));
	y++;
	waited = (long)((clock_ms() - t->oauth_since) / 1000);
	left = (long)d->expires_in - waited;
	if (left < 0)
		left = 0;
	m = xasprintf("Waiting for your approval... %ld:%02ld so far; the code "
	    "works for %ld:%02ld more.", waited / 60, waited % 60, left / 60,
	    left % 60);
	y = ts_para(y, 2, m, tui_attr(TC_NOTE));
	free(m);
	return y;
}

/* OAuth2: the sign-in failed, in words, and what to do. */
static int
ts_draw_oauth_failed(struct ts *t, int y)
{
	const char	*h, *what;
	char		*m = NULL;

	switch (t->oauth_why) {
	case OAUTH2_DENIED:
		h = "The sign-in was refused.";
		what = "On the provider's page, access was not allowed. If "
		    "that was a mistake, get a new code and allow it.";
		break;
	case OAUTH2_EXPIRED:
		if (t->oauth_browser) {
			h = "The browser did not come back in time.";
			what = "r opens the sign-in page again.";
			break;
		}
		h = "The code expired before the sign-in was approved.";
		what = "A code works only for some minutes. Get a new one "
		    "and type it soon.";
		break;
	case OAUTH2_UNREACHABLE:
		m = xasprintf("The sign-in service of %s cannot be reached.",
		    ts_provider(t));
		h = m;
		what = "It may be down, or this computer offline. Try again "
		    "in a while.";
		break;
	default:
		h = "The sign-in did not work.";
		what = "Why, and what to do, is below.";
		break;
	}
	y = ts_para(y, 2, h, tui_attr(TC_BANNER_BAD));
	y = ts_para(y + 1, 2, what, tui_attr(TC_NORMAL));
	free(m);
	y++;
	y = ts_field(y, "r      ", t->oauth_browser ? "sign in again" :
	    "sign in again, with a new code", tui_attr(TC_NORMAL));
	y = ts_field(y, "e      ", "back to the servers", tui_attr(TC_NORMAL));
	y = ts_field(y, "Escape ", "back", tui_attr(TC_NORMAL));
	return y;
}

static int
ts_draw_records(struct ts *t, int y)
{
	char	*s;

	s = xasprintf("Your account is saved in %s.", tui.cf->path);
	y = ts_para(y, 2, s, tui_attr(TC_TITLE));
	free(s);
	if (t->pwfile != NULL) {
		s = xasprintf("Your password is kept encrypted to your key, in "
		    "%s.", t->pwfile);
		y = ts_para(y, 2, s, tui_attr(TC_NORMAL));
		free(s);
	} else if (t->in.oauth && t->tokenfile != NULL) {
		s = xasprintf("You sign in with OAuth2: no password is kept. "
		    "The sign-in is kept encrypted to your key, in %s.",
		    t->tokenfile);
		y = ts_para(y, 2, s, tui_attr(TC_NORMAL));
		free(s);
	}
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

void
tui_setup_draw(struct tui_screen *s)
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
		    "(SRV records, checked with DNSSEC) and the domain's web "
		    "server for its autoconfig file (over HTTPS only), looks "
		    "in its own list of providers, then tries the usual names "
		    "over TLS.", strchr(t->in.address, '@') + 1);
		y = ts_para(y + 1, 2, m, tui_attr(TC_NORMAL));
		free(m);
		break;
	case WZ_FOUND:
		y = ts_draw_found(t, y);
		break;
	case WZ_CHECK:
		y = ts_para(y, 2, "Checking: logging in...", tui_attr(TC_TITLE));
		m = xasprintf("To %s (reading) and %s (sending), before "
		    "anything is saved.", tui_setup_host(t, SETUP_IMAP),
		    tui_setup_host(t, SETUP_SMTP));
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
	case WZ_OAUTH_CLIENT:
		y = ts_draw_client(t, y);
		break;
	case WZ_OAUTH_START:
		m = xasprintf("Asking %s for a sign-in code...",
		    ts_provider(t));
		y = ts_para(y, 2, m, tui_attr(TC_TITLE));
		free(m);
		break;
	case WZ_OAUTH_WAIT:
		y = ts_draw_oauth(t, y);
		break;
	case WZ_OAUTH_FAILED:
		y = ts_draw_oauth_failed(t, y);
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

void
tui_setup_status(struct tui_screen *s, struct buf *b)
{
	struct ts	*t = s->data;

	switch (t->step) {
	case WZ_DISCOVER:
	case WZ_CHECK:
	case WZ_DEVICE_LOOK:
	case WZ_DEVICE_IMPORT:
	case WZ_KEY_MAKE:
	case WZ_OAUTH_START:
		buf_adds(b, " Escape: stop and go back");
		break;
	case WZ_OAUTH_WAIT:
		buf_adds(b, " waiting for your sign-in  Escape: stop and go "
		    "back");
		break;
	case WZ_SAVE:
		buf_adds(b, " saving");
		break;
	case WZ_RECORDS:
		buf_adds(b, " Enter: your inbox");
		break;
	case WZ_OAUTH_FAILED:
		buf_adds(b, " r: a new code  e: the servers  Escape: back");
		break;
	case WZ_OAUTH_CLIENT:
		buf_adds(b, " Enter: sign in  Escape: back to the servers");
		break;
	case WZ_FOUND:
		buf_adds(b, t->in.oauth && t->in.oauth_id == NULL ?
		    " Enter: sign in with these  i: IMAP  s: SMTP  Escape: "
		    "back" : " Enter: use these  i: IMAP "
		    "server  s: SMTP server  Escape: back");
		break;
	default:
		buf_adds(b, " Escape: back a step");
		break;
	}
}
