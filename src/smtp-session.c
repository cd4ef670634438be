/*
 * smtp-session.c: opening and closing an authenticated submission session
 * (see smtp-session.h). Owns the order of events up to AUTH: connect, TLS
 * (implicit, or STARTTLS upgraded by net-tls.c, never by libetpan's
 * mailsmtp_socket_starttls, which checks no certificate), EHLO, AUTH.
 * Called by the code that submits mail.
 *
 * It must never send credentials unless TLS with a checked certificate is
 * up, and forgets the extensions the server named in the clear: EHLO is
 * said again over TLS.
 *
 * AUTH PLAIN and AUTH LOGIN are spoken here: libetpan 1.9.4 sends them
 * through Cyrus SASL, whose PLAIN and LOGIN plugins may not be installed.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>


#include "buf.h"
#include "log.h"
#include "net-tls.h"
#include "oauth2.h"
#include "sasl.h"
#include "smtp-session.h"
#include "smtp-words.h"
#include "strsafe.h"
#include "xmalloc.h"

#define SMTP_SESSION_WORDS_MAX	200	/* bytes of server text shown */
#define SMTP_SESSION_BYE_WAIT	5	/* seconds to wait for QUIT */
#define SMTP_SESSION_MAX_LINES	100	/* lines in one reply */

char *
smtp_session_words(int code, const char *text)
{
	struct buf	 b, safe;
	size_t		 n;
	char		*s;

	buf_init(&b);
	if (code > 0)
		buf_addf(&b, "%d ", code);
	for (s = text != NULL ? xstrdup(text) : xstrdup(""), n = 0;
	    s[n] != '\0'; n++) {
		if (s[n] == '\n' || s[n] == '\r')
			s[n] = ' ';
	}
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	buf_init(&safe);
	if (n > SMTP_SESSION_WORDS_MAX) {
		strsafe_add(&safe, s, SMTP_SESSION_WORDS_MAX, 0);
		buf_adds(&safe, "...");
	} else
		strsafe_add(&safe, s, n, 0);
	buf_adds(&b, safe.len != 0 ? safe.data : "(no reason given)");
	buf_free(&safe);
	free(s);
	return buf_take(&b);
}

static char *
smtp_session_error(mailsmtp *smtp, int r, const char *host, const char *what)
{
	char	*words, *cause;

	switch (r) {
	case MAILSMTP_ERROR_STREAM:
		return xasprintf("connection to %s lost during %s (closed, or "
		    "no answer in time)", host, what);
	case MAILSMTP_ERROR_MEMORY:
		fatal("out of memory");
	}
	words = smtp_session_words(smtp->response_code, smtp->response);
	cause = xasprintf("%s refused %s: %s", host, what, words);
	free(words);
	return cause;
}

/* Close at once, without QUIT: after a refusal there is nothing to say. */
static void
smtp_session_abort(mailsmtp *smtp)
{
	if (smtp->stream != NULL) {
		mailstream_close(smtp->stream);
		smtp->stream = NULL;
	}
	mailsmtp_free(smtp);
}

static int
smtp_session_starttls(mailsmtp *smtp, const struct net_tls_policy *p,
    enum smtp_session_stage *stage, char **cause)
{
	int	r;

	if (!(smtp->esmtp & MAILSMTP_ESMTP_STARTTLS)) {
		*stage = SMTP_SESSION_NO_TLS;
		*cause = xasprintf("server %s does not offer STARTTLS; "
		    "refusing to send the password in clear", p->host);
		return -1;
	}
	r = mailesmtp_starttls(smtp);
	if (r != MAILSMTP_NO_ERROR) {
		if (smtp->stream->read_buffer_len > 0)
			*cause = xasprintf("server %s sent data before the TLS "
			    "handshake; possible injection attack", p->host);
		else
			*cause = smtp_session_error(smtp, r, p->host,
			    "STARTTLS");
		return -1;
	}
	if (net_tls_starttls(smtp->stream, p, cause) == -1)
		return -1;
	return smtp_session_ehlo(smtp, p->host, cause);
}


static int
smtp_session_reply(mailsmtp *smtp, const char *line, struct buf *words,
    char sep)
{
	MMAPString	*in;
	char		*l;
	int		 code = 0, n;

	buf_reset(words);
	if (mailstream_write(smtp->stream, line, strlen(line)) == -1 ||
	    mailstream_write(smtp->stream, "\r\n", 2) == -1 ||
	    mailstream_flush(smtp->stream) == -1)
		return 0;
	if ((in = mmap_string_new("")) == NULL)
		fatal("out of memory");
	for (n = 0; n < SMTP_SESSION_MAX_LINES; n++) {
		l = mailstream_read_line_remove_eol(smtp->stream, in);
		if (l == NULL) {
			code = 0;
			break;
		}
		if (!isdigit((unsigned char)l[0]) ||
		    !isdigit((unsigned char)l[1]) ||
		    !isdigit((unsigned char)l[2]) ||
		    (l[3] != '\0' && l[3] != ' ' && l[3] != '-')) {
			buf_adds(words, l);
			code = -1;
			break;
		}
		code = (l[0] - '0') * 100 + (l[1] - '0') * 10 + (l[2] - '0');
		if (words->len != 0)
			buf_addc(words, sep);
		buf_adds(words, l[3] == '\0' ? l + 3 : l + 4);
		if (l[3] != '-')
			break;
	}
	mmap_string_free(in);
	return code;
}

int
smtp_session_command(mailsmtp *smtp, const char *line, struct buf *words)
{
	return smtp_session_reply(smtp, line, words, ' ');
}

/*
 * What EHLO says we are: our address as an address literal rather than our
 * host name, which is nobody's business; the name only if the address is
 * unknown.
 */
static char *
smtp_session_helo_name(mailsmtp *smtp)
{
	struct sockaddr_storage	 ss;
	socklen_t		 sl = sizeof ss;
	char			 a[INET6_ADDRSTRLEN], h[256];
	int			 fd;

	fd = mailstream_low_get_fd(mailstream_get_low(smtp->stream));
	if (fd != -1 && getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET && inet_ntop(AF_INET,
		    &((struct sockaddr_in *)&ss)->sin_addr, a, sizeof a))
			return xasprintf("[%s]", a);
		if (ss.ss_family == AF_INET6 && inet_ntop(AF_INET6,
		    &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof a))
			return xasprintf("[IPv6:%s]", a);
	}
	if (gethostname(h, sizeof h) == 0 && h[0] != '\0' &&
	    h[strcspn(h, " \t\r\n")] == '\0') {
		h[sizeof h - 1] = '\0';
		return xstrdup(h);
	}
	return xstrdup("localhost");
}

/* word is the keyword at the start of s, followed by the end or a blank. */
static int
smtp_session_keyword(const char *s, const char *word)
{
	size_t	n = strlen(word);

	return strncasecmp(s, word, n) == 0 &&
	    (s[n] == '\0' || s[n] == '\n' || s[n] == ' ' || s[n] == '\t' ||
	    s[n] == '=');
}

void
smtp_session_extensions(mailsmtp *smtp, const char *reply)
{
	static const struct { const char *name; int flag; } ext[] = {
		{ "STARTTLS", MAILSMTP_ESMTP_STARTTLS },
		{ "8BITMIME", MAILSMTP_ESMTP_8BITMIME },
		{ "PIPELINING", MAILSMTP_ESMTP_PIPELINING },
		{ "DSN", MAILSMTP_ESMTP_DSN },
		{ "EXPN", MAILSMTP_ESMTP_EXPN },
		{ "ETRN", MAILSMTP_ESMTP_ETRN },
		{ "CLIENTID", MAILSMTP_ESMTP_CLIENTID },
	};
	static const struct { const char *name; int flag; } mech[] = {
		{ "PLAIN", MAILSMTP_AUTH_PLAIN },
		{ "LOGIN", MAILSMTP_AUTH_LOGIN },
		{ "OAUTHBEARER", SMTP_SESSION_AUTH_OAUTHBEARER },
		{ "XOAUTH2", SMTP_SESSION_AUTH_XOAUTH2 },
		{ "CRAM-MD5", MAILSMTP_AUTH_CRAM_MD5 },
		{ "DIGEST-MD5", MAILSMTP_AUTH_DIGEST_MD5 },
		{ "GSSAPI", MAILSMTP_AUTH_GSSAPI },
		{ "NTLM", MAILSMTP_AUTH_NTLM },
	};
	const char	*l, *end, *w;
	size_t		 i, n;
	unsigned long	 size;

	smtp->esmtp = MAILSMTP_ESMTP;
	smtp->auth = MAILSMTP_AUTH_CHECKED;
	smtp->smtp_max_msg_size = 0;
	/* the first line greets; each other line names one extension */
	if ((l = strchr(reply, '\n')) == NULL)
		return;
	for (l++; *l != '\0'; l = *end == '\0' ? end : end + 1) {
		end = l + strcspn(l, "\n");
		for (i = 0; i < sizeof ext / sizeof ext[0]; i++)
			if (smtp_session_keyword(l, ext[i].name))
				smtp->esmtp |= ext[i].flag;
		if (smtp_session_keyword(l, "SIZE")) {
			smtp->esmtp |= MAILSMTP_ESMTP_SIZE;
			size = strtoul(l + 4, NULL, 10);
			smtp->smtp_max_msg_size = size;
		}
		/* "AUTH=" is what some old servers say */
		if (!smtp_session_keyword(l, "AUTH"))
			continue;
		for (w = l + 5; w < end; w += n) {
			w += strspn(w, " \t");
			n = strcspn(w, " \t\n");
			if (n == 0)
				break;
			for (i = 0; i < sizeof mech / sizeof mech[0]; i++)
				if (n == strlen(mech[i].name) &&
				    strncasecmp(w, mech[i].name, n) == 0)
					smtp->auth |= mech[i].flag;
		}
	}
}

/*
 * EHLO, said and read here rather than by libetpan's mailesmtp_ehlo(),
 * whose reading of the reply never ends on a tab after an unknown AUTH
 * mechanism: a server, or anyone on the path before STARTTLS, could hang
 * the sending for ever with one byte.
 */
int
smtp_session_ehlo(mailsmtp *smtp, const char *host, char **cause)
{
	struct buf	 words;
	char		*line, *name, *said;
	int		 code;

	name = smtp_session_helo_name(smtp);
	line = xasprintf("EHLO %s", name);
	free(name);
	buf_init(&words);
	code = smtp_session_reply(smtp, line, &words, '\n');
	free(line);
	if (code == 250) {
		smtp_session_extensions(smtp, words.len != 0 ? words.data : "");
		buf_free(&words);
		return 0;
	}
	if (code == 0)
		*cause = xasprintf("connection to %s lost during EHLO (closed, "
		    "or no answer in time)", host);
	else {
		said = smtp_session_words(code > 0 ? code : 0,
		    words.len != 0 ? words.data : "");
		*cause = xasprintf("%s refused EHLO: %s", host, said);
		free(said);
	}
	buf_free(&words);
	return -1;
}

/* Send a secret line: registered for the log, and marked private. */
static int
smtp_session_secret(mailsmtp *smtp, const char *line, struct buf *words)
{
	int	code;

	log_secret_add(line);
	mailstream_set_privacy(smtp->stream, 0);
	code = smtp_session_command(smtp, line, words);
	mailstream_set_privacy(smtp->stream, 1);
	log_secret_remove(line);
	return code;
}

/*
 * AUTH with an OAuth2 token: mech OAUTHBEARER (RFC 7628) or XOAUTH2, the
 * response on the command line. A 334 after it carries the server's
 * reason (base64 JSON); the dummy response gets the final refusal, and
 * the reason goes into words. Returns the final code, as
 * smtp_session_command().
 */
static int
smtp_session_oauth(mailsmtp *smtp, const struct account *a, const char *mech,
    const char *token, struct buf *words)
{
	char	*b64, *line, *why;
	int	 bearer, code;

	bearer = strcmp(mech, "OAUTHBEARER") == 0;
	b64 = bearer ? sasl_oauthbearer(a->user, a->smtp.host, a->smtp.port,
	    token) : sasl_xoauth2(a->user, token);
	line = xasprintf("AUTH %s %s", mech, b64);
	log_secret_add(b64);
	code = smtp_session_secret(smtp, line, words);
	log_secret_remove(b64);
	freezero_str(line);
	freezero_str(b64);
	if (code != 334)
		return code;
	buf_addc(words, '\0');
	why = sasl_oauth_error(words->data);
	buf_reset(words);
	code = smtp_session_command(smtp, bearer ? "AQ==" : "", words);
	if (why != NULL) {
		buf_addf(words, " (the server says of the token: %s)", why);
		free(why);
	}
	return code;
}

static int
smtp_session_auth(mailsmtp *smtp, const struct account *a,
    const char *password, enum smtp_session_stage *stage, char **cause)
{
	const char	*host = a->smtp.host, *user = a->user, *mech;
	const char	*explain;
	struct buf	 words;
	char		*b64, *line, *said;
	int		 code;

	if (!net_tls_active(smtp->stream)) {
		*cause = xasprintf("refusing to send the password to %s "
		    "without TLS", host);
		return -1;
	}
	if (password == NULL) {
		*cause = xasprintf("no password to log in to %s as %s", host,
		    user);
		return -1;
	}
	buf_init(&words);
	if (oauth2_account(a)) {
		/* the one named, else OAUTHBEARER unless only XOAUTH2 is
		 * offered; a server that names neither is asked anyway */
		if (a->oauth2_mechanism != NULL)
			mech = strcasecmp(a->oauth2_mechanism, "xoauth2") == 0 ?
			    "XOAUTH2" : "OAUTHBEARER";
		else if ((smtp->auth & SMTP_SESSION_AUTH_XOAUTH2) &&
		    !(smtp->auth & SMTP_SESSION_AUTH_OAUTHBEARER))
			mech = "XOAUTH2";
		else
			mech = "OAUTHBEARER";
		code = smtp_session_oauth(smtp, a, mech, password, &words);
		if (code == 504 && a->oauth2_mechanism == NULL &&
		    strcmp(mech, "OAUTHBEARER") == 0) {
			mech = "XOAUTH2";
			buf_reset(&words);
			code = smtp_session_oauth(smtp, a, mech, password,
			    &words);
		}
	} else if (smtp->auth & MAILSMTP_AUTH_PLAIN) {
		b64 = sasl_plain(user, password);
		line = xasprintf("AUTH PLAIN %s", b64);
		log_secret_add(b64);
		code = smtp_session_secret(smtp, line, &words);
		log_secret_remove(b64);
		freezero_str(line);
		freezero_str(b64);
	} else if (smtp->auth & MAILSMTP_AUTH_LOGIN) {
		code = smtp_session_command(smtp, "AUTH LOGIN", &words);
		if (code == 334) {
			b64 = sasl_base64(user);
			code = smtp_session_command(smtp, b64, &words);
			free(b64);
		}
		if (code == 334) {
			b64 = sasl_base64(password);
			code = smtp_session_secret(smtp, b64, &words);
			freezero_str(b64);
		}
	} else {
		*cause = xasprintf("server %s offers neither AUTH PLAIN nor "
		    "AUTH LOGIN", host);
		return -1;
	}

	if (code == 235) {
		buf_free(&words);
		log_msg(LOG_INFO, "SMTP: logged in to %s as %s", host, user);
		return 0;
	}
	if (code == 0)
		*cause = xasprintf("connection to %s lost during AUTH (closed, "
		    "or no answer in time)", host);
	else {
		if (code >= 500 && code <= 599)
			*stage = SMTP_SESSION_LOGIN;
		said = smtp_session_words(code, words.data);
		explain = smtp_words_explain(said);
		*cause = xasprintf("SMTP login as %s refused: %s%s%s%s", user,
		    said, explain != NULL ? " (that is: " : "",
		    explain != NULL ? explain : "", explain != NULL ? ")" : "");
		free(said);
	}
	buf_free(&words);
	return -1;
}

mailsmtp *
smtp_session_connect(const struct config_url *u,
    const struct net_tls_policy *p, enum smtp_session_stage *stage,
    char **cause)
{
	mailstream	*s;
	mailsmtp	*smtp;
	int		 r;

	*stage = SMTP_SESSION_CONNECT;
	if ((s = net_open(u, p, cause)) == NULL)
		return NULL;
	if ((smtp = mailsmtp_new(0, NULL)) == NULL)
		fatal("out of memory");
	mailsmtp_set_timeout(smtp, p->timeout);

	*stage = SMTP_SESSION_OTHER;
	/* On failure, mailsmtp_connect() closes the stream itself. */
	if ((r = mailsmtp_connect(smtp, s)) != MAILSMTP_NO_ERROR) {
		*cause = smtp_session_error(smtp, r, u->host, "the connection");
		goto fail;
	}
	if (smtp_session_ehlo(smtp, u->host, cause) == -1)
		goto fail;
	if (u->tls == CONFIG_TLS_STARTTLS) {
		*stage = SMTP_SESSION_TLS;
		if (smtp_session_starttls(smtp, p, stage, cause) == -1)
			goto fail;
		*stage = SMTP_SESSION_OTHER;
	}
	return smtp;

fail:
	smtp_session_abort(smtp);
	return NULL;
}

mailsmtp *
smtp_session_open_stage(const struct account *a, const char *ca_file,
    const char *password, enum smtp_session_stage *stage, char **cause)
{
	const struct config_url	*u = &a->smtp;
	struct net_tls_policy	 p;
	mailsmtp		*smtp;

	net_tls_policy_account(&p, a, u, ca_file);
	log_secret_add(password);
	if ((smtp = smtp_session_connect(u, &p, stage, cause)) != NULL &&
	    smtp_session_auth(smtp, a, password, stage, cause) == -1) {
		smtp_session_abort(smtp);
		smtp = NULL;
	}
	log_secret_remove(password);
	return smtp;
}

mailsmtp *
smtp_session_open(const struct account *a, const char *ca_file,
    const char *password, char **cause)
{
	enum smtp_session_stage	stage;

	return smtp_session_open_stage(a, ca_file, password, &stage, cause);
}

void
smtp_session_close(mailsmtp *smtp)
{
	if (smtp == NULL)
		return;
	if (smtp->stream != NULL) {
		mailstream_low_set_timeout(mailstream_get_low(smtp->stream),
		    SMTP_SESSION_BYE_WAIT);
		mailsmtp_quit(smtp);
	}
	mailsmtp_free(smtp);
}
