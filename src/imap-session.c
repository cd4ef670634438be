/*
 * imap-session.c: opening and closing a logged-in IMAP session (see
 * imap-session.h). Owns the order of events up to login: connect, TLS
 * (implicit, or STARTTLS with net-tls.c checking the upgrade), capabilities,
 * authentication. Called by the IMAP worker and the batch commands.
 *
 * It must never send the password unless TLS with a checked certificate is
 * up, and never trust what the server said before TLS: capabilities are
 * read again after STARTTLS, and a PREAUTH greeting on a connection that
 * still has to start TLS is refused (the login would be skipped, and TLS
 * with it).
 *
 * AUTHENTICATE PLAIN is spoken here rather than through mailimap_authenticate,
 * which needs a Cyrus SASL plugin that may not be installed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>


#include "buf.h"
#include "imap-frame.h"	/* frame guard: lead merges */
#include "imap-session.h"
#include "log.h"
#include "net-tls.h"
#include "sasl.h"
#include "strsafe.h"
#include "xmalloc.h"

#define IMAP_SESSION_WORDS_MAX	200	/* bytes of server text shown */
#define IMAP_SESSION_BYE_WAIT	5	/* seconds to wait for LOGOUT */

char *
imap_session_words(mailimap *imap)
{
	const char	*buf, *line, *end, *p;
	struct buf	 b;
	size_t		 n;

	buf_init(&b);
	buf = imap->imap_stream_buffer != NULL ?
	    imap->imap_stream_buffer->str : "";
	end = buf + strlen(buf);
	while (end > buf && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	for (line = end; line > buf && line[-1] != '\n'; line--)
		;
	p = line;
	p += strcspn(p, " ");				/* tag or "*" */
	p += strspn(p, " ");
	n = strcspn(p, " ");
	if ((n == 2 && strncasecmp(p, "OK", 2) == 0) ||
	    (n == 2 && strncasecmp(p, "NO", 2) == 0) ||
	    (n == 3 && strncasecmp(p, "BAD", 3) == 0) ||
	    (n == 3 && strncasecmp(p, "BYE", 3) == 0) ||
	    (n == 7 && strncasecmp(p, "PREAUTH", 7) == 0)) {
		p += n;
		p += strspn(p, " ");
	}
	if (p > end)
		p = end;
	n = (size_t)(end - p);
	if (n == 0) {
		buf_adds(&b, "(no reason given)");
		return buf_take(&b);
	}
	if (n > IMAP_SESSION_WORDS_MAX) {
		strsafe_add(&b, p, IMAP_SESSION_WORDS_MAX, 0);
		buf_adds(&b, "...");
	} else
		strsafe_add(&b, p, n, 0);
	return buf_take(&b);
}

/* A cause for libetpan's result r of doing what. */
static char *
imap_session_error(mailimap *imap, int r, const char *host, const char *what)
{
	char	*words, *cause;

	switch (r) {
	case MAILIMAP_ERROR_STREAM:
		return xasprintf("connection to %s lost during %s (closed, or "
		    "no answer in time)", host, what);
	case MAILIMAP_ERROR_PARSE:
		return xasprintf("%s sent something that is not IMAP during %s",
		    host, what);
	case MAILIMAP_ERROR_MEMORY:
		/* a literal as large as the server says (imap_ops_error()) */
		return xasprintf("%s sent a reply to %s too large to hold in "
		    "memory", host, what);
	}
	words = imap_session_words(imap);
	if (r == MAILIMAP_ERROR_FATAL ||
	    r == MAILIMAP_ERROR_DONT_ACCEPT_CONNECTION)
		cause = xasprintf("%s closed the connection during %s: %s",
		    host, what, words);
	else
		cause = xasprintf("%s refused %s: %s", host, what, words);
	free(words);
	return cause;
}

/*
 * Close at once, without LOGOUT: after a refusal there is nothing to say,
 * and on a lost connection nobody to say it to. (mailimap_free() itself
 * would send LOGOUT while the stream is there.)
 */
void
imap_session_drop(mailimap *imap)
{
	if (imap == NULL)
		return;
	if (imap->imap_stream != NULL) {
		mailstream_close(imap->imap_stream);
		imap->imap_stream = NULL;
	}
	mailimap_free(imap);
}

static struct mailimap_capability_data *
imap_session_caps(mailimap *imap)
{
	if (imap->imap_connection_info == NULL)
		return NULL;
	return imap->imap_connection_info->imap_capability;
}

/* Forget the capabilities, handing them to the caller (who frees them). */
static struct mailimap_capability_data *
imap_session_take_caps(mailimap *imap)
{
	struct mailimap_capability_data	*caps;

	if ((caps = imap_session_caps(imap)) != NULL)
		imap->imap_connection_info->imap_capability = NULL;
	return caps;
}

/* Is name ("IDLE", "AUTH=PLAIN") among the capabilities? */
static int
imap_session_has(struct mailimap_capability_data *caps, const char *name)
{
	struct mailimap_capability	*c;
	clistiter			*it;

	if (caps == NULL || caps->cap_list == NULL)
		return 0;
	for (it = clist_begin(caps->cap_list); it != NULL;
	    it = clist_next(it)) {
		c = clist_content(it);
		if (c == NULL)
			continue;
		if (c->cap_type == MAILIMAP_CAPABILITY_NAME &&
		    c->cap_data.cap_name != NULL &&
		    strcasecmp(c->cap_data.cap_name, name) == 0)
			return 1;
		if (c->cap_type == MAILIMAP_CAPABILITY_AUTH_TYPE &&
		    c->cap_data.cap_auth_type != NULL &&
		    strncasecmp(name, "AUTH=", 5) == 0 &&
		    strcasecmp(c->cap_data.cap_auth_type, name + 5) == 0)
			return 1;
	}
	return 0;
}

int
imap_session_offers(mailimap *imap, const char *name)
{
	return imap_session_has(imap_session_caps(imap), name);
}

/*
 * Ask for the capabilities unless the server told them unasked. Not with
 * mailimap_capability(), which copies what the answer left without looking
 * and so dies on a NULL when a server (or anyone on the path before
 * STARTTLS) answers OK without a CAPABILITY line: the untagged line is
 * kept by libetpan's reader whichever command it answers.
 */
int
imap_session_capability(mailimap *imap, const char *host, char **cause)
{
	int	r;

	if (imap_session_caps(imap) != NULL)
		return 0;
	if ((r = mailimap_custom_command(imap, "CAPABILITY")) !=
	    MAILIMAP_NO_ERROR) {
		*cause = imap_session_error(imap, r, host, "CAPABILITY");
		return -1;
	}
	if (imap_session_caps(imap) == NULL) {
		*cause = xasprintf("%s sent no capabilities", host);
		return -1;
	}
	return 0;
}

static int
imap_session_starttls(mailimap *imap, const struct net_tls_policy *p,
    enum imap_session_stage *stage, char **cause)
{
	int	r;

	if (imap_session_capability(imap, p->host, cause) == -1)
		return -1;
	if (!imap_session_has(imap_session_caps(imap), "STARTTLS")) {
		*stage = IMAP_SESSION_NO_TLS;
		*cause = xasprintf("server %s does not offer STARTTLS; "
		    "refusing to send the password in clear", p->host);
		return -1;
	}
	r = mailimap_starttls(imap);
	if (r != MAILIMAP_NO_ERROR) {
		if (imap->imap_stream->read_buffer_len > 0)
			*cause = xasprintf("server %s sent data before the TLS "
			    "handshake; possible injection attack", p->host);
		else
			*cause = imap_session_error(imap, r, p->host,
			    "STARTTLS");
		return -1;
	}
	if (net_tls_starttls(imap->imap_stream, p, cause) == -1)
		return -1;

	/* What was said in the clear may have been forged. */
	mailimap_capability_data_free(imap_session_take_caps(imap));
	return imap_session_capability(imap, p->host, cause);
}


static int
imap_session_send(mailstream *s, const char *text)
{
	if (mailstream_write(s, text, strlen(text)) == -1 ||
	    mailstream_flush(s) == -1)
		return MAILIMAP_ERROR_STREAM;
	return MAILIMAP_NO_ERROR;
}

/*
 * AUTHENTICATE PLAIN, waiting for the server's "+" before sending the
 * credentials (every server takes that; SASL-IR would save a round trip).
 */
static int
imap_session_auth_plain(mailimap *imap, const char *user, const char *pass)
{
	struct mailimap_response	*resp;
	mailstream			*s = imap->imap_stream;
	char				*b64, *line;
	int				 r, type;

	b64 = sasl_plain(user, pass);
	log_secret_add(b64);

	mailstream_set_privacy(s, 0);
	r = mailimap_send_current_tag(imap);
	if (r == MAILIMAP_NO_ERROR)
		r = imap_session_send(s, "AUTHENTICATE PLAIN\r\n");
	line = NULL;
	if (r == MAILIMAP_NO_ERROR) {
		/* Untagged data may come first; the reply may be a refusal. */
		do
			line = mailimap_read_line(imap);
		while (line != NULL && line[0] == '*' && line[1] == ' ');
		if (line == NULL)
			r = MAILIMAP_ERROR_STREAM;
	}
	if (r == MAILIMAP_NO_ERROR && line[0] == '+') {
		if ((r = imap_session_send(s, b64)) == MAILIMAP_NO_ERROR)
			r = imap_session_send(s, "\r\n");
		if (r == MAILIMAP_NO_ERROR && mailimap_read_line(imap) == NULL)
			r = MAILIMAP_ERROR_STREAM;
	}
	mailstream_set_privacy(s, 1);
	log_secret_remove(b64);
	freezero_str(b64);

	if (r != MAILIMAP_NO_ERROR)
		return r;
	if ((r = mailimap_parse_response(imap, &resp)) != MAILIMAP_NO_ERROR)
		return r;
	type = resp->rsp_resp_done->rsp_data.rsp_tagged->rsp_cond_state->
	    rsp_type;
	mailimap_response_free(resp);
	if (type != MAILIMAP_RESP_COND_STATE_OK)
		return MAILIMAP_ERROR_LOGIN;
	imap->imap_state = MAILIMAP_STATE_AUTHENTICATED;
	return MAILIMAP_NO_ERROR;
}

static int
imap_session_login(mailimap *imap, const char *host, const char *user,
    const char *password, enum imap_session_stage *stage, char **cause)
{
	struct mailimap_capability_data	*caps;
	char				*words;
	int				 r;

	if (!net_tls_active(imap->imap_stream)) {
		*cause = xasprintf("refusing to send the password to %s "
		    "without TLS", host);
		return -1;
	}
	if (password == NULL) {
		*cause = xasprintf("no password to log in to %s as %s", host,
		    user);
		return -1;
	}
	if (imap_session_capability(imap, host, cause) == -1)
		return -1;
	/*
	 * Set the old capabilities aside: if the reply to the login carries
	 * new ones, libetpan stores them; if not, they are asked for.
	 */
	caps = imap_session_take_caps(imap);
	if (imap_session_has(caps, "AUTH=PLAIN"))
		r = imap_session_auth_plain(imap, user, password);
	else if (imap_session_has(caps, "LOGINDISABLED")) {
		*cause = xasprintf("server %s allows neither AUTHENTICATE "
		    "PLAIN nor LOGIN", host);
		mailimap_capability_data_free(caps);
		return -1;
	} else
		r = mailimap_login(imap, user, password);
	mailimap_capability_data_free(caps);

	if (r == MAILIMAP_ERROR_LOGIN) {
		*stage = IMAP_SESSION_LOGIN;
		words = imap_session_words(imap);
		*cause = xasprintf("IMAP login as %s refused: %s", user, words);
		free(words);
		return -1;
	}
	if (r != MAILIMAP_NO_ERROR) {
		*cause = imap_session_error(imap, r, host, "login");
		return -1;
	}
	log_msg(LOG_INFO, "IMAP: logged in to %s as %s", host, user);
	return imap_session_capability(imap, host, cause);
}

mailimap *
imap_session_connect(const struct config_url *u,
    const struct net_tls_policy *p, enum imap_session_stage *stage,
    char **cause)
{
	mailstream	*s;
	mailimap	*imap;
	int		 r;

	*stage = IMAP_SESSION_CONNECT;
	if ((s = net_open(u, p, cause)) == NULL)
		return NULL;
	if ((imap = mailimap_new(0, NULL)) == NULL)
		fatal("out of memory");
	mailimap_set_timeout(imap, p->timeout);

	*stage = IMAP_SESSION_OTHER;
	r = mailimap_connect(imap, s);
	if (r != MAILIMAP_NO_ERROR_AUTHENTICATED &&
	    r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED) {
		if (imap->imap_stream == NULL)
			mailstream_close(s);
		*cause = imap_session_error(imap, r, u->host, "the greeting");
		goto fail;
	}
	if (u->tls == CONFIG_TLS_STARTTLS) {
		if (r == MAILIMAP_NO_ERROR_AUTHENTICATED) {
			*cause = xasprintf("server %s greeted with PREAUTH "
			    "before TLS; refusing", u->host);
			goto fail;
		}
		*stage = IMAP_SESSION_TLS;
		if (imap_session_starttls(imap, p, stage, cause) == -1)
			goto fail;
		*stage = IMAP_SESSION_OTHER;
	}
	return imap;

fail:
	imap_session_drop(imap);
	return NULL;
}

mailimap *
imap_session_open_stage(const struct account *a, const char *ca_file,
    const char *password, enum imap_session_stage *stage, char **cause)
{
	const struct config_url	*u = &a->imap;
	struct net_tls_policy	 p;
	mailimap		*imap;

	net_tls_policy_account(&p, a, u, ca_file);
	log_secret_add(password);
	if ((imap = imap_session_connect(u, &p, stage, cause)) == NULL)
		goto out;
	if (imap->imap_state == MAILIMAP_STATE_AUTHENTICATED) {
		log_msg(LOG_INFO, "IMAP: %s says we are logged in already",
		    u->host);
		if (imap_session_capability(imap, u->host, cause) == -1)
			goto fail;
	} else if (imap_session_login(imap, u->host, a->user, password,
	    stage, cause) == -1)
		goto fail;
	if (imap_frame_attach(imap->imap_stream) == -1 &&	/* frame guard: lead merges */
	    (*cause = imap_frame_cause(imap->imap_stream, NULL)) != NULL)
		goto fail;
out:
	log_secret_remove(password);
	return imap;

fail:
	imap_session_drop(imap);
	imap = NULL;
	goto out;
}

mailimap *
imap_session_open(const struct account *a, const char *ca_file,
    const char *password, char **cause)
{
	enum imap_session_stage	stage;

	return imap_session_open_stage(a, ca_file, password, &stage, cause);
}

void
imap_session_close(mailimap *imap)
{
	if (imap == NULL)
		return;
	if (imap->imap_stream != NULL) {
		mailstream_low_set_timeout(
		    mailstream_get_low(imap->imap_stream),
		    IMAP_SESSION_BYE_WAIT);
		mailimap_logout(imap);
	}
	mailimap_free(imap);
}
