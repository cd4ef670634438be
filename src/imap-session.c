/*
 * imap-session.c: opening and closing a logged-in IMAP session (see
 * imap-session.h). Owns the order of events up to login: connect, TLS
 * (implicit, or STARTTLS with net-tls.c checking the upgrade), capabilities,
 * authentication, and the moment the session is handed to libetpan.
 * Called by the IMAP worker, the batch commands and the setup wizard.
 *
 * Everything the server says before login is read by steedmail's own
 * bounded code (imap-pre.c, imap-resp.c), never by libetpan's parser:
 * anyone on the path can write those bytes before STARTTLS, and one
 * malformed greeting was enough to crash that parser.
 *
 * It must never send the password unless TLS with a checked certificate is
 * up, and never trust what the server said before TLS: capabilities are
 * read again after STARTTLS, and a PREAUTH greeting on a connection that
 * still has to start TLS is refused (the login would be skipped, and TLS
 * with it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "imap-frame.h"
#include "imap-pre.h"
#include "imap-session.h"
#include "log.h"
#include "net-tls.h"
#include "oauth2.h"
#include "smtp-words.h"
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

int
imap_session_broken(int err)
{
	switch (err) {
	case MAILIMAP_ERROR_STREAM:
	case MAILIMAP_ERROR_PARSE:
	case MAILIMAP_ERROR_PROTOCOL:
	case MAILIMAP_ERROR_MEMORY:
	case MAILIMAP_ERROR_FATAL:
		return 1;
	}
	return 0;
}

void
imap_session_lose(mailimap *imap)
{
	if (imap->imap_stream != NULL) {
		mailstream_close(imap->imap_stream);
		imap->imap_stream = NULL;
	}
	imap->imap_state = MAILIMAP_STATE_DISCONNECTED;
}

static struct mailimap_capability_data *
imap_session_caps(mailimap *imap)
{
	if (imap->imap_connection_info == NULL)
		return NULL;
	return imap->imap_connection_info->imap_capability;
}

int
imap_session_offers(mailimap *imap, const char *name)
{
	struct mailimap_capability_data	*caps = imap_session_caps(imap);
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

static int
imap_session_starttls(struct imap_pre *pre, const struct net_tls_policy *p,
    enum imap_session_stage *stage, char **cause)
{
	int	r;

	if (imap_pre_capability(pre, cause) == -1)
		return -1;
	if (!imap_pre_offers(pre, "STARTTLS")) {
		*stage = IMAP_SESSION_NO_TLS;
		*cause = xasprintf("server %s does not offer STARTTLS; "
		    "refusing to send the password in clear", p->host);
		return -1;
	}
	if ((r = imap_pre_starttls(pre, cause)) == -1)
		return -1;
	if (r != IMAP_PRE_OK) {
		*cause = xasprintf("%s refused STARTTLS: %s", p->host,
		    imap_pre_words(pre));
		return -1;
	}
	if (imap_pre_stream(pre)->read_buffer_len > 0) {
		*cause = xasprintf("server %s sent data before the TLS "
		    "handshake; possible injection attack", p->host);
		return -1;
	}
	if (net_tls_starttls(imap_pre_stream(pre), p, cause) == -1)
		return -1;

	/* What was said in the clear may have been forged. */
	imap_pre_forget(pre);
	return imap_pre_capability(pre, cause);
}

/*
 * The SASL mechanism for an OAuth2 token: the one the account names, else
 * OAUTHBEARER (the standard) where offered, else XOAUTH2; NULL and a
 * cause when the server offers neither.
 */
static const char *
imap_session_oauth_mech(struct imap_pre *pre, const struct account *a,
    char **cause)
{
	const char	*want = a->oauth2_mechanism;
	char		 cap[32];

	if (imap_pre_capability(pre, cause) == -1)
		return NULL;
	if (want != NULL) {
		snprintf(cap, sizeof cap, "AUTH=%s", want);
		if (imap_pre_offers(pre, cap))
			return strcasecmp(want, "xoauth2") == 0 ? "XOAUTH2" :
			    "OAUTHBEARER";
	} else if (imap_pre_offers(pre, "AUTH=OAUTHBEARER"))
		return "OAUTHBEARER";
	else if (imap_pre_offers(pre, "AUTH=XOAUTH2"))
		return "XOAUTH2";
	*cause = xasprintf("server %s offers no OAuth2 login (%s)",
	    a->imap.host, want != NULL ? want : "neither OAUTHBEARER nor "
	    "XOAUTH2");
	return NULL;
}

static int
imap_session_login(struct imap_pre *pre, const struct account *a,
    const char *password, enum imap_session_stage *stage, char **cause)
{
	const char	*host = a->imap.host, *user = a->user, *mech = NULL;
	const char	*explain;
	int		 r;

	if (!net_tls_active(imap_pre_stream(pre))) {
		*cause = xasprintf("refusing to send the password to %s "
		    "without TLS", host);
		return -1;
	}
	if (password == NULL) {
		*cause = xasprintf("no password to log in to %s as %s", host,
		    user);
		return -1;
	}
	if (oauth2_account(a)) {
		if ((mech = imap_session_oauth_mech(pre, a, cause)) == NULL)
			return -1;
		r = imap_pre_auth_oauth(pre, mech, user, host, a->imap.port,
		    password, cause);
	} else
		r = imap_pre_login(pre, user, password, cause);
	if (r == -1)
		return -1;
	if (r != IMAP_PRE_OK) {
		*stage = IMAP_SESSION_LOGIN;
		explain = smtp_words_explain(imap_pre_words(pre));
		*cause = xasprintf("IMAP login as %s refused%s: %s%s%s%s",
		    user, mech != NULL ? " (OAuth2)" : "", imap_pre_words(pre),
		    explain != NULL ? " (that is: " : "",
		    explain != NULL ? explain : "", explain != NULL ? ")" : "");
		return -1;
	}
	log_msg(LOG_INFO, "IMAP: logged in to %s as %s%s%s", host, user,
	    mech != NULL ? " with " : "", mech != NULL ? mech : "");
	return 0;
}

struct imap_pre *
imap_session_connect(const struct config_url *u,
    const struct net_tls_policy *p, int *preauth,
    enum imap_session_stage *stage, char **cause)
{
	struct imap_pre	*pre;
	mailstream	*s;
	int		 r;

	*stage = IMAP_SESSION_CONNECT;
	if ((s = net_open(u, p, cause)) == NULL)
		return NULL;
	pre = imap_pre_new(s, u->host);

	*stage = IMAP_SESSION_OTHER;
	if ((r = imap_pre_greeting(pre, cause)) == -1)
		goto fail;
	*preauth = r;
	if (u->tls == CONFIG_TLS_STARTTLS) {
		if (*preauth) {
			*cause = xasprintf("server %s greeted with PREAUTH "
			    "before TLS; refusing", u->host);
			goto fail;
		}
		*stage = IMAP_SESSION_TLS;
		if (imap_session_starttls(pre, p, stage, cause) == -1)
			goto fail;
		*stage = IMAP_SESSION_OTHER;
	}
	return pre;

fail:
	imap_pre_free(pre);
	return NULL;
}

/*
 * QRESYNC (RFC 7162) where the server offers it with CONDSTORE, asked for
 * right after the login (ENABLE is not allowed once a mailbox is
 * selected), with the guard below libetpan told first that its ENABLED
 * and VANISHED answers are wanted now (imap-frame.h); the guard says
 * from then on whether it is on (imap_frame_qresynced()). A server that
 * does not enable it is used without; so is every server when
 * STEEDMAIL_NO_QRESYNC is set in the environment, which the tests use to
 * sync with a real server the way a server without it is synced.
 */
static void
imap_session_qresync(mailimap *imap)
{
	struct mailimap_capability_data	*want, *got = NULL;
	struct mailimap_capability	*cap;
	clistiter			*it;
	clist				*l;
	int				 err, on = 0;

	if (!imap_session_offers(imap, "QRESYNC") ||
	    !imap_session_offers(imap, "CONDSTORE") ||
	    getenv("STEEDMAIL_NO_QRESYNC") != NULL)
		return;
	imap_frame_qresync(imap->imap_stream, 1);
	if (!imap_frame_qresynced(imap->imap_stream))
		return;		/* not guarded: not asked for */
	if ((l = clist_new()) == NULL ||
	    (cap = mailimap_capability_new(MAILIMAP_CAPABILITY_NAME, NULL,
	    xstrdup("QRESYNC"))) == NULL || clist_append(l, cap) != 0 ||
	    (want = mailimap_capability_data_new(l)) == NULL)
		fatal("out of memory");
	err = mailimap_enable(imap, want, &got);
	mailimap_capability_data_free(want);
	for (it = got != NULL ? clist_begin(got->cap_list) : NULL; it != NULL;
	    it = clist_next(it)) {
		cap = clist_content(it);
		if (cap->cap_type == MAILIMAP_CAPABILITY_NAME &&
		    cap->cap_data.cap_name != NULL &&
		    strcasecmp(cap->cap_data.cap_name, "QRESYNC") == 0)
			on = 1;
	}
	if (got != NULL)
		mailimap_capability_data_free(got);
	if (err != MAILIMAP_NO_ERROR)
		on = 0;
	imap_frame_qresync(imap->imap_stream, on);
	log_msg(LOG_INFO, "IMAP: QRESYNC %s", on ? "enabled" :
	    "not enabled");
}

mailimap *
imap_session_open_stage(const struct account *a, const char *ca_file,
    const char *password, enum imap_session_stage *stage, char **cause)
{
	const struct config_url	*u = &a->imap;
	struct net_tls_policy	 p;
	struct imap_pre		*pre;
	mailimap		*imap = NULL;
	int			 preauth;

	net_tls_policy_account(&p, a, u, ca_file);
	log_secret_add(password);
	if ((pre = imap_session_connect(u, &p, &preauth, stage, cause)) ==
	    NULL)
		goto out;
	if (preauth) {
		log_msg(LOG_INFO, "IMAP: %s says we are logged in already",
		    u->host);
		if (imap_pre_capability(pre, cause) == -1)
			goto fail;
	} else if (imap_session_login(pre, a, password, stage, cause) == -1)
		goto fail;
	if ((imap = imap_pre_handoff(pre, cause)) == NULL)
		goto out;
	mailimap_set_timeout(imap, p.timeout);
	imap_session_qresync(imap);
out:
	log_secret_remove(password);
	return imap;

fail:
	imap_pre_free(pre);
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
