/*
 * imap-pre.c: an IMAP connection before login, spoken by steedmail's own
 * code (see imap-pre.h). Owns the bounded line reader, the tags of the
 * commands sent before login, the capabilities as last said, and the
 * server's last words. Every line is read whole into a fixed buffer of
 * IMAP_PRE_LINE_MAX bytes and parsed by imap-resp.c; a longer line, a line
 * that does not parse, or an answer that never comes after
 * IMAP_PRE_LINES_MAX untagged lines ends the dialogue with a cause in
 * plain words. Anyone on the path can write these lines before STARTTLS,
 * so nothing here trusts them beyond what the grammar allows, and nothing
 * of them reaches libetpan's parser.
 *
 * Secrets (the password, the SASL message) are written but never logged,
 * and the buffers that held them are wiped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "imap-alert.h"
#include "imap-frame.h"
#include "imap-pre.h"
#include "imap-resp.h"
#include "log.h"
#include "sasl.h"
#include "strsafe.h"
#include "xmalloc.h"

#define IMAP_PRE_WORDS_MAX	200	/* bytes of the server's text kept */
#define IMAP_PRE_CONTINUE	2	/* "+": the server waits for more */

struct imap_pre {
	mailstream	*s;
	char		*host;
	unsigned	 tag;
	char		**caps;
	size_t		 ncaps;
	int		 caps_known;
	int		 bye;		/* the server said BYE */
	char		*words;
	char		 line[IMAP_PRE_LINE_MAX + 2];
	size_t		 len;
};

struct imap_pre *
imap_pre_new(mailstream *s, const char *host)
{
	struct imap_pre	*p;

	p = xcalloc(1, sizeof *p);
	p->s = s;
	p->host = xstrdup(host);
	p->words = xstrdup("(no reason given)");
	return p;
}

void
imap_pre_forget(struct imap_pre *p)
{
	while (p->ncaps > 0)
		free(p->caps[--p->ncaps]);
	free(p->caps);
	p->caps = NULL;
	p->caps_known = 0;
}

void
imap_pre_free(struct imap_pre *p)
{
	if (p == NULL)
		return;
	if (p->s != NULL)
		mailstream_close(p->s);
	imap_pre_forget(p);
	free(p->host);
	free(p->words);
	explicit_bzero(p->line, sizeof p->line);
	free(p);
}

mailstream *
imap_pre_stream(struct imap_pre *p)
{
	return p->s;
}

const char *
imap_pre_words(struct imap_pre *p)
{
	return p->words;
}

int
imap_pre_offers(struct imap_pre *p, const char *name)
{
	size_t	i;

	for (i = 0; i < p->ncaps; i++)
		if (strcasecmp(p->caps[i], name) == 0)
			return 1;
	return 0;
}

/* Keep the text of a status line as the server's last words. */
static void
imap_pre_keep_words(struct imap_pre *p, const struct imap_resp *r)
{
	struct buf	b;
	size_t		n = r->textlen;

	free(p->words);
	if (n == 0) {
		p->words = xstrdup("(no reason given)");
		return;
	}
	buf_init(&b);
	if (n > IMAP_PRE_WORDS_MAX) {
		strsafe_add(&b, r->text, IMAP_PRE_WORDS_MAX, 0);
		buf_adds(&b, "...");
	} else
		strsafe_add(&b, r->text, n, 0);
	p->words = buf_take(&b);
}

/* The capabilities of a line, when it named any, replace the old ones. */
static void
imap_pre_take_caps(struct imap_pre *p, struct imap_resp *r)
{
	if (!r->has_caps || r->ncaps == 0)
		return;
	imap_pre_forget(p);
	p->caps = r->caps;
	p->ncaps = r->ncaps;
	p->caps_known = 1;
	r->caps = NULL;
	r->ncaps = 0;
}

static int
imap_pre_lost(struct imap_pre *p, const char *what, char **cause)
{
	if (p->bye)
		*cause = xasprintf("the server %s closed the connection during "
		    "%s: %s", p->host, what, p->words);
	else
		*cause = xasprintf("connection to %s lost during %s (closed, "
		    "or no answer in time)", p->host, what);
	return -1;
}

static int
imap_pre_malformed(struct imap_pre *p, const char *what, const char *why,
    char **cause)
{
	char	*line;

	line = strsafe(p->len > 120 ? "(a long line)" : p->line, 0);
	log_msg(LOG_INFO, "IMAP: %s: %s in %s: %s", p->host, why, what, line);
	free(line);
	if (strcmp(what, "the greeting") == 0)
		*cause = xasprintf("the server %s sent a malformed greeting: "
		    "%s", p->host, why);
	else
		*cause = xasprintf("the server %s sent a malformed answer to "
		    "%s: %s", p->host, what, why);
	return -1;
}

/*
 * Read one line into p->line, without its CRLF (a bare LF is taken too).
 * 0, or -1 and a cause.
 */
static int
imap_pre_read(struct imap_pre *p, const char *what, char **cause)
{
	char	ch;

	p->len = 0;
	for (;;) {
		if (p->s == NULL || mailstream_read(p->s, &ch, 1) != 1)
			return imap_pre_lost(p, what, cause);
		if (ch == '\n')
			break;
		if (p->len == IMAP_PRE_LINE_MAX + 1) {
			p->line[p->len] = '\0';
			return imap_pre_malformed(p, what, "a line longer "
			    "than 16384 bytes", cause);
		}
		p->line[p->len++] = ch;
	}
	if (p->len > 0 && p->line[p->len - 1] == '\r')
		p->len--;
	p->line[p->len] = '\0';
	if (log_level() >= LOG_PROTO) {
		char	*safe = strsafe(p->line, 0);

		log_msg(LOG_PROTO, "IMAP S: %.300s", safe);
		free(safe);
	}
	return 0;
}

static int
imap_pre_write(struct imap_pre *p, const char *data, size_t len,
    const char *what, char **cause)
{
	if (p->s == NULL || mailstream_write(p->s, data, len) == -1 ||
	    mailstream_flush(p->s) == -1)
		return imap_pre_lost(p, what, cause);
	return 0;
}

/* Send "TAG command CRLF" with the next tag; the command holds no secret. */
static int
imap_pre_send(struct imap_pre *p, const char *command, char **cause)
{
	char	*line;
	int	 rc;

	p->tag++;
	line = xasprintf("%u %s\r\n", p->tag, command);
	log_msg(LOG_PROTO, "IMAP C: %u %s", p->tag, command);
	rc = imap_pre_write(p, line, strlen(line), command, cause);
	free(line);
	return rc;
}

/*
 * Read up to the answer to the command of the current tag: IMAP_PRE_OK,
 * IMAP_PRE_NO (NO or BAD), IMAP_PRE_CONTINUE (only when cont says a "+"
 * may come), or -1 and a cause. Untagged lines on the way are read for
 * their capabilities and a BYE, and otherwise skipped.
 */
static int
imap_pre_answer(struct imap_pre *p, const char *what, int cont,
    char **cause)
{
	struct imap_resp	 r;
	char			 tag[16], *why;
	int			 n, rc;

	snprintf(tag, sizeof tag, "%u", p->tag);
	for (n = 0; n <= IMAP_PRE_LINES_MAX; n++) {
		if (imap_pre_read(p, what, cause) == -1)
			return -1;
		if (imap_resp_parse(p->line, p->len, &r, &why) == -1) {
			imap_resp_clear(&r);
			rc = imap_pre_malformed(p, what, why, cause);
			free(why);
			return rc;
		}
		imap_pre_take_caps(p, &r);
		imap_resp_clear(&r);
		imap_alert(&r);
		switch (r.kind) {
		case IMAP_RESP_CONTINUE:
			if (!cont)
				return imap_pre_malformed(p, what, "a "
				    "continuation request nobody asked for",
				    cause);
			return IMAP_PRE_CONTINUE;
		case IMAP_RESP_COND:
			if (!r.tagged) {
				if (r.cond == IMAP_RESP_PREAUTH)
					return imap_pre_malformed(p, what,
					    "PREAUTH after the greeting",
					    cause);
				if (r.cond == IMAP_RESP_BYE) {
					p->bye = 1;
					imap_pre_keep_words(p, &r);
				}
				continue;
			}
			if (strcmp(r.tag, tag) != 0)
				return imap_pre_malformed(p, what, "an answer "
				    "to a command that was not sent", cause);
			imap_pre_keep_words(p, &r);
			return r.cond == IMAP_RESP_OK ? IMAP_PRE_OK :
			    IMAP_PRE_NO;
		case IMAP_RESP_CAPABILITY:
		case IMAP_RESP_DATA:
			continue;
		}
	}
	return imap_pre_malformed(p, what, "more than 64 lines without an "
	    "answer", cause);
}

int
imap_pre_greeting(struct imap_pre *p, char **cause)
{
	struct imap_resp	 r;
	char			*why;
	int			 rc;

	if (imap_pre_read(p, "the greeting", cause) == -1)
		return -1;
	if (imap_resp_parse(p->line, p->len, &r, &why) == -1) {
		imap_resp_clear(&r);
		rc = imap_pre_malformed(p, "the greeting", why, cause);
		free(why);
		return rc;
	}
	imap_pre_take_caps(p, &r);
	imap_resp_clear(&r);
	imap_alert(&r);
	if (r.kind != IMAP_RESP_COND || r.tagged || r.cond == IMAP_RESP_NO ||
	    r.cond == IMAP_RESP_BAD)
		return imap_pre_malformed(p, "the greeting", "neither OK, "
		    "PREAUTH nor BYE", cause);
	imap_pre_keep_words(p, &r);
	if (r.cond == IMAP_RESP_BYE) {
		*cause = xasprintf("the server %s refused the connection: %s",
		    p->host, p->words);
		return -1;
	}
	return r.cond == IMAP_RESP_PREAUTH;
}

int
imap_pre_capability(struct imap_pre *p, char **cause)
{
	int	rc;

	if (p->caps_known)
		return 0;
	if (imap_pre_send(p, "CAPABILITY", cause) == -1)
		return -1;
	if ((rc = imap_pre_answer(p, "CAPABILITY", 0, cause)) == -1)
		return -1;
	if (rc != IMAP_PRE_OK) {
		*cause = xasprintf("the server %s refused CAPABILITY: %s",
		    p->host, p->words);
		return -1;
	}
	if (!p->caps_known) {
		*cause = xasprintf("%s sent no capabilities", p->host);
		return -1;
	}
	return 0;
}

int
imap_pre_starttls(struct imap_pre *p, char **cause)
{
	if (imap_pre_send(p, "STARTTLS", cause) == -1)
		return -1;
	return imap_pre_answer(p, "STARTTLS", 0, cause);
}

/* AUTHENTICATE PLAIN, the credentials sent after the server's "+". */
static int
imap_pre_auth_plain(struct imap_pre *p, const char *user, const char *pass,
    char **cause)
{
	char	*b64, *line;
	int	 rc;

	b64 = sasl_plain(user, pass);
	log_secret_add(b64);
	rc = imap_pre_send(p, "AUTHENTICATE PLAIN", cause);
	if (rc == 0)
		rc = imap_pre_answer(p, "login", 1, cause);
	if (rc == IMAP_PRE_CONTINUE) {
		line = xasprintf("%s\r\n", b64);
		rc = imap_pre_write(p, line, strlen(line), "login", cause);
		freezero_str(line);
		if (rc == 0)
			rc = imap_pre_answer(p, "login", 0, cause);
	}
	log_secret_remove(b64);
	freezero_str(b64);
	return rc;
}

/*
 * After a failed OAuth2 attempt the server sends "+ BASE64" (a JSON
 * object saying why, RFC 7628 3.2.2) and waits: the client answers with
 * the dummy response (OAUTHBEARER: ^A, XOAUTH2: an empty line) and the
 * server then says NO. What the JSON said joins the server's words.
 */
static int
imap_pre_oauth_failed(struct imap_pre *p, int bearer, char **cause)
{
	const char	*dummy = bearer ? "AQ==\r\n" : "\r\n";
	char		*why, *words;
	int		 rc;

	why = p->len > 2 ? sasl_oauth_error(p->line + 2) : NULL;
	if (imap_pre_write(p, dummy, strlen(dummy), "login", cause) == -1) {
		free(why);
		return -1;
	}
	rc = imap_pre_answer(p, "login", 0, cause);
	if (rc != -1 && why != NULL) {
		words = xasprintf("%s (the server says of the token: %s)",
		    p->words, why);
		free(p->words);
		p->words = words;
	}
	free(why);
	return rc;
}

int
imap_pre_auth_oauth(struct imap_pre *p, const char *mech, const char *user,
    const char *host, unsigned port, const char *token, char **cause)
{
	char	*b64, *line, *cmd;
	int	 bearer, rc;

	if (imap_pre_capability(p, cause) == -1)
		return -1;
	bearer = strcasecmp(mech, "OAUTHBEARER") == 0;
	b64 = bearer ? sasl_oauthbearer(user, host, port, token) :
	    sasl_xoauth2(user, token);
	log_secret_add(b64);
	cmd = xasprintf("AUTHENTICATE %s", bearer ? "OAUTHBEARER" :
	    "XOAUTH2");
	if (imap_pre_offers(p, "SASL-IR")) {
		/* one line, the token in it: written, never logged */
		p->tag++;
		log_msg(LOG_PROTO, "IMAP C: %u %s (token not logged)", p->tag,
		    cmd);
		line = xasprintf("%u %s %s\r\n", p->tag, cmd, b64);
		imap_pre_forget(p);
		rc = imap_pre_write(p, line, strlen(line), "login", cause);
		freezero_str(line);
		if (rc == 0)
			rc = imap_pre_answer(p, "login", 1, cause);
	} else {
		imap_pre_forget(p);
		rc = imap_pre_send(p, cmd, cause);
		if (rc == 0)
			rc = imap_pre_answer(p, "login", 1, cause);
		if (rc == IMAP_PRE_CONTINUE) {
			line = xasprintf("%s\r\n", b64);
			rc = imap_pre_write(p, line, strlen(line), "login",
			    cause);
			freezero_str(line);
			if (rc == 0)
				rc = imap_pre_answer(p, "login", 1, cause);
		}
	}
	free(cmd);
	log_secret_remove(b64);
	freezero_str(b64);
	if (rc == IMAP_PRE_CONTINUE)
		rc = imap_pre_oauth_failed(p, bearer, cause);
	if (rc == IMAP_PRE_CONTINUE)
		return imap_pre_malformed(p, "login", "a continuation "
		    "request nobody asked for", cause);
	if (rc != IMAP_PRE_OK)
		return rc;
	if (imap_pre_capability(p, cause) == -1)
		return -1;
	return IMAP_PRE_OK;
}

/* Can s go as a quoted string (7-bit, no CR, LF or NUL)? */
static int
imap_pre_quotable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s >= 0x80 || *s == '\r' || *s == '\n')
			return 0;
	return 1;
}

/* Add s as a quoted string at out; returns the end. */
static char *
imap_pre_quote(char *out, const char *s)
{
	*out++ = '"';
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			*out++ = '\\';
		*out++ = *s;
	}
	*out++ = '"';
	return out;
}

/*
 * LOGIN user pass, each a quoted string, or a literal (sent after the
 * server's "+") when it has 8-bit bytes or line ends. One buffer, sized
 * once, holds what goes out, so that the password is in one place to wipe.
 */
static int
imap_pre_login_plain(struct imap_pre *p, const char *user, const char *pass,
    char **cause)
{
	const char	*arg[2] = { user, pass };
	char		*out, *o;
	size_t		 size;
	int		 i, rc = 0;

	size = 64 + 2 * strlen(user) + 2 * strlen(pass) + 64;
	out = xmalloc(size);
	p->tag++;
	log_msg(LOG_PROTO, "IMAP C: %u LOGIN (credentials not logged)",
	    p->tag);
	o = out + snprintf(out, size, "%u LOGIN", p->tag);
	for (i = 0; i < 2 && rc == 0; i++) {
		*o++ = ' ';
		if (imap_pre_quotable(arg[i])) {
			o = imap_pre_quote(o, arg[i]);
			continue;
		}
		o += snprintf(o, 32, "{%zu}\r\n", strlen(arg[i]));
		rc = imap_pre_write(p, out, (size_t)(o - out), "login", cause);
		if (rc == 0)
			rc = imap_pre_answer(p, "login", 1, cause);
		if (rc == IMAP_PRE_CONTINUE)
			rc = 0;
		explicit_bzero(out, size);
		o = out;
		memcpy(o, arg[i], strlen(arg[i]));
		o += strlen(arg[i]);
	}
	if (rc == 0) {
		*o++ = '\r';
		*o++ = '\n';
		rc = imap_pre_write(p, out, (size_t)(o - out), "login", cause);
		if (rc == 0)
			rc = imap_pre_answer(p, "login", 0, cause);
	}
	explicit_bzero(out, size);
	free(out);
	return rc;
}

int
imap_pre_login(struct imap_pre *p, const char *user, const char *pass,
    char **cause)
{
	int	plain, disabled, rc;

	if (imap_pre_capability(p, cause) == -1)
		return -1;
	plain = imap_pre_offers(p, "AUTH=PLAIN");
	disabled = imap_pre_offers(p, "LOGINDISABLED");
	if (!plain && disabled) {
		*cause = xasprintf("server %s allows neither AUTHENTICATE "
		    "PLAIN nor LOGIN", p->host);
		return -1;
	}
	/* After login, the answer's capabilities, or asked again. */
	imap_pre_forget(p);
	if (plain)
		rc = imap_pre_auth_plain(p, user, pass, cause);
	else
		rc = imap_pre_login_plain(p, user, pass, cause);
	if (rc == IMAP_PRE_CONTINUE)	/* a second "+" */
		return imap_pre_malformed(p, "login", "a continuation "
		    "request nobody asked for", cause);
	if (rc != IMAP_PRE_OK)
		return rc;
	if (imap_pre_capability(p, cause) == -1)
		return -1;
	return IMAP_PRE_OK;
}

mailimap *
imap_pre_handoff(struct imap_pre *p, char **cause)
{
	struct mailimap_capability	*c;
	mailimap			*imap;
	clist				*list;
	size_t				 i;

	if ((imap = mailimap_new(0, NULL)) == NULL ||
	    (imap->imap_connection_info = mailimap_connection_info_new()) ==
	    NULL || (list = clist_new()) == NULL)
		fatal("out of memory");
	for (i = 0; i < p->ncaps; i++) {
		if (strncasecmp(p->caps[i], "AUTH=", 5) == 0)
			c = mailimap_capability_new(
			    MAILIMAP_CAPABILITY_AUTH_TYPE,
			    xstrdup(p->caps[i] + 5), NULL);
		else
			c = mailimap_capability_new(MAILIMAP_CAPABILITY_NAME,
			    NULL, xstrdup(p->caps[i]));
		if (c == NULL || clist_append(list, c) != 0)
			fatal("out of memory");
	}
	if ((imap->imap_connection_info->imap_capability =
	    mailimap_capability_data_new(list)) == NULL)
		fatal("out of memory");
	imap->imap_stream = p->s;
	imap->imap_state = MAILIMAP_STATE_AUTHENTICATED;
	imap->imap_tag = (int)p->tag;
	p->s = NULL;
	imap_pre_free(p);

	/* from here on libetpan's parser reads: under the guard */
	if (imap_frame_attach(imap->imap_stream) == -1) {
		if ((*cause = imap_frame_cause(imap->imap_stream, "login")) ==
		    NULL)
			*cause = xstrdup("the IMAP server's answer could not "
			    "be guarded");
		mailstream_close(imap->imap_stream);
		imap->imap_stream = NULL;
		mailimap_free(imap);
		return NULL;
	}
	return imap;
}
