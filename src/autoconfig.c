/*
 * autoconfig.c: config-v1.1.xml documents read into a struct autoconfig
 * (autoconfig.h), with expat. The bytes come from strangers: a domain's
 * web server, or whoever answered for it.
 *
 * Bounds, whatever the document: at most AUTOCONFIG_MAX bytes, 32 levels
 * of elements, 4 kB of text in one element, AUTOCONFIG_SERVERS servers,
 * AUTOCONFIG_DOMAINS domains. A DTD is refused outright, at its first
 * byte (the start of <!DOCTYPE), so no entity is ever declared: nothing
 * can expand (the "billion laughs") and nothing external is ever named,
 * let alone fetched (expat fetches nothing by itself, and no handler for
 * external entities is set). An entity reference without a declaration is
 * then an error of expat's own.
 *
 * Elements are recognised by their name and their parent's, from one
 * table; any other element and its content are skipped, so that a newer
 * document with more in it still reads. Never prints.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <expat.h>

#include "autoconfig.h"
#include "buf.h"
#include "xmalloc.h"

#define AC_DEPTH	32		/* levels of elements */
#define AC_TEXT		4096		/* bytes of text in one element */

/* The elements steedmail reads. */
enum ac_elem {
	AC_OTHER,		/* skipped, with everything in it */
	AC_ROOT,		/* above the document element */
	AC_CLIENTCONFIG,
	AC_PROVIDER,
	AC_DOMAIN,
	AC_DISPLAYNAME,
	AC_SHORTNAME,
	AC_INCOMING,
	AC_OUTGOING,
	AC_HOSTNAME,
	AC_PORT,
	AC_SOCKET,
	AC_AUTH,
	AC_USERNAME,
	AC_ENABLE,
	AC_DOCUMENTATION,
	AC_APPPASSWORD,
	AC_INSTRUCTION,		/* in <enable> or <appPassword> */
	AC_DESCR,		/* in <documentation> */
	AC_OAUTH2,
	AC_ISSUER,
	AC_SCOPE,
	AC_AUTHURL,
	AC_TOKENURL,
	AC_DEVICEURL,
	AC_CLIENTID,
	AC_CLIENTSECRET
};

/* Element name under parent is elem; leaf elements hold text. */
static const struct ac_rule {
	enum ac_elem	 parent;
	const char	*name;
	enum ac_elem	 elem;
	int		 leaf;
} ac_rules[] = {
	{ AC_ROOT, "clientConfig", AC_CLIENTCONFIG, 0 },
	{ AC_CLIENTCONFIG, "emailProvider", AC_PROVIDER, 0 },
	{ AC_CLIENTCONFIG, "oAuth2", AC_OAUTH2, 0 },
	{ AC_PROVIDER, "oAuth2", AC_OAUTH2, 0 },
	{ AC_PROVIDER, "domain", AC_DOMAIN, 1 },
	{ AC_PROVIDER, "displayName", AC_DISPLAYNAME, 1 },
	{ AC_PROVIDER, "displayShortName", AC_SHORTNAME, 1 },
	{ AC_PROVIDER, "incomingServer", AC_INCOMING, 0 },
	{ AC_PROVIDER, "outgoingServer", AC_OUTGOING, 0 },
	{ AC_PROVIDER, "enable", AC_ENABLE, 0 },
	{ AC_PROVIDER, "documentation", AC_DOCUMENTATION, 0 },
	{ AC_PROVIDER, "appPassword", AC_APPPASSWORD, 0 },
	{ AC_INCOMING, "hostname", AC_HOSTNAME, 1 },
	{ AC_INCOMING, "port", AC_PORT, 1 },
	{ AC_INCOMING, "socketType", AC_SOCKET, 1 },
	{ AC_INCOMING, "authentication", AC_AUTH, 1 },
	{ AC_INCOMING, "username", AC_USERNAME, 1 },
	{ AC_OUTGOING, "hostname", AC_HOSTNAME, 1 },
	{ AC_OUTGOING, "port", AC_PORT, 1 },
	{ AC_OUTGOING, "socketType", AC_SOCKET, 1 },
	{ AC_OUTGOING, "authentication", AC_AUTH, 1 },
	{ AC_OUTGOING, "username", AC_USERNAME, 1 },
	{ AC_ENABLE, "instruction", AC_INSTRUCTION, 1 },
	{ AC_APPPASSWORD, "instruction", AC_INSTRUCTION, 1 },
	{ AC_DOCUMENTATION, "descr", AC_DESCR, 1 },
	{ AC_OAUTH2, "issuer", AC_ISSUER, 1 },
	{ AC_OAUTH2, "scope", AC_SCOPE, 1 },
	{ AC_OAUTH2, "authURL", AC_AUTHURL, 1 },
	{ AC_OAUTH2, "tokenURL", AC_TOKENURL, 1 },
	{ AC_OAUTH2, "deviceAuthURL", AC_DEVICEURL, 1 },
	{ AC_OAUTH2, "clientID", AC_CLIENTID, 1 },
	{ AC_OAUTH2, "clientSecret", AC_CLIENTSECRET, 1 }
};
#define AC_NRULES	(sizeof ac_rules / sizeof ac_rules[0])

struct ac_parser {
	XML_Parser		 x;
	struct autoconfig	*ac;
	char			*cause;		/* why it stopped */
	enum ac_elem		 stack[AC_DEPTH + 1];
	int			 depth;		/* 0: above the root */
	int			 providers;	/* <emailProvider>s begun */
	int			 oauth2s;	/* <oAuth2>s begun */
	struct buf		 text;		/* of the leaf being read */
	int			 leaf;		/* reading one */
	struct autoconfig_server *server;	/* being read; NULL: skipped */
	struct autoconfig_link	*link;		/* being read; NULL: skipped */
	int			 link_english;	/* link->text is English */
	int			 text_english;	/* the leaf's xml:lang/lang */
	char			*short_name;	/* the name when there is no
						   displayName */
};

static void
ac_stop(struct ac_parser *p, char *cause)
{
	if (p->cause == NULL)
		p->cause = cause;
	else
		free(cause);
	XML_StopParser(p->x, XML_FALSE);
}

static const char *
ac_attr(const XML_Char **attrs, const char *name)
{
	size_t	i;

	for (i = 0; attrs[i] != NULL && attrs[i + 1] != NULL; i += 2)
		if (strcmp(attrs[i], name) == 0)
			return attrs[i + 1];
	return NULL;
}

/* No lang, or one that is English ("en", "en-GB", ...). */
static int
ac_english(const XML_Char **attrs)
{
	const char	*lang;

	if ((lang = ac_attr(attrs, "lang")) == NULL &&
	    (lang = ac_attr(attrs, "xml:lang")) == NULL)
		return 1;
	return strncasecmp(lang, "en", 2) == 0 &&
	    (lang[2] == '\0' || lang[2] == '-' || lang[2] == '_');
}

/* A copy of s with XML's blanks at either end removed; NULL if empty. */
static char *
ac_trim(const char *s, size_t len)
{
	while (len > 0 && strchr(" \t\r\n", *s) != NULL) {
		s++;
		len--;
	}
	while (len > 0 && strchr(" \t\r\n", s[len - 1]) != NULL)
		len--;
	return len > 0 ? xstrndup(s, len) : NULL;
}

static void
ac_set(char **field, char *value)
{
	if (*field == NULL)
		*field = value;		/* the first one given counts */
	else
		free(value);
}

static unsigned
ac_port(const char *s)
{
	unsigned long	 n = 0;

	if (s == NULL || *s == '\0' || strlen(s) > 5)
		return 0;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return 0;
		n = n * 10 + (unsigned long)(*s - '0');
	}
	return n <= 65535 ? (unsigned)n : 0;
}

static enum autoconfig_socket
ac_socket(const char *s)
{
	if (s == NULL)
		return AUTOCONFIG_SOCKET_NONE;
	if (strcasecmp(s, "SSL") == 0 || strcasecmp(s, "TLS") == 0)
		return AUTOCONFIG_SOCKET_SSL;
	if (strcasecmp(s, "STARTTLS") == 0)
		return AUTOCONFIG_SOCKET_STARTTLS;
	if (strcasecmp(s, "plain") == 0)
		return AUTOCONFIG_SOCKET_PLAIN;
	return AUTOCONFIG_SOCKET_NONE;
}

static unsigned
ac_auth(const char *s)
{
	if (s == NULL)
		return 0;
	if (strcasecmp(s, "password-cleartext") == 0 ||
	    strcasecmp(s, "plain") == 0)
		return AUTOCONFIG_AUTH_PASSWORD;
	if (strcasecmp(s, "password-encrypted") == 0 ||
	    strcasecmp(s, "secure") == 0)
		return AUTOCONFIG_AUTH_PASSWORD_HASH;
	if (strcasecmp(s, "OAuth2") == 0)
		return AUTOCONFIG_AUTH_OAUTH2;
	return AUTOCONFIG_AUTH_OTHER;
}

/* A leaf's text, where it belongs. */
static void
ac_leaf_end(struct ac_parser *p, enum ac_elem e)
{
	struct autoconfig	*ac = p->ac;
	struct autoconfig_oauth2 *o = &ac->oauth2;
	char			*v = ac_trim(p->text.data != NULL ?
				    p->text.data : "", p->text.len);

	if (v == NULL)
		return;
	switch (e) {
	case AC_DOMAIN:
		if (ac->ndomains < AUTOCONFIG_DOMAINS) {
			ac->domains = xreallocarray(ac->domains,
			    ac->ndomains + 1, sizeof *ac->domains);
			ac->domains[ac->ndomains++] = v;
			return;
		}
		break;
	case AC_DISPLAYNAME:
		ac_set(&ac->name, v);
		return;
	case AC_SHORTNAME:
		ac_set(&p->short_name, v);
		return;
	case AC_HOSTNAME:
		if (p->server != NULL) {
			ac_set(&p->server->hostname, v);
			return;
		}
		break;
	case AC_PORT:
		if (p->server != NULL && p->server->port == 0)
			p->server->port = ac_port(v);
		break;
	case AC_SOCKET:
		if (p->server != NULL &&
		    p->server->socket == AUTOCONFIG_SOCKET_NONE)
			p->server->socket = ac_socket(v);
		break;
	case AC_AUTH:
		if (p->server != NULL)
			p->server->auth |= ac_auth(v);
		break;
	case AC_USERNAME:
		if (p->server != NULL) {
			ac_set(&p->server->username, v);
			return;
		}
		break;
	case AC_INSTRUCTION:
	case AC_DESCR:
		/* the first text, replaced once by the first English one */
		if (p->link != NULL && (p->link->text == NULL ||
		    (p->text_english && !p->link_english))) {
			free(p->link->text);
			p->link->text = v;
			p->link_english = p->text_english;
			return;
		}
		break;
	case AC_ISSUER:
		ac_set(&o->issuer, v);
		return;
	case AC_SCOPE:
		ac_set(&o->scope, v);
		return;
	case AC_AUTHURL:
		ac_set(&o->auth_url, v);
		return;
	case AC_TOKENURL:
		ac_set(&o->token_url, v);
		return;
	case AC_DEVICEURL:
		ac_set(&o->device_url, v);
		return;
	case AC_CLIENTID:
		ac_set(&o->client_id, v);
		return;
	case AC_CLIENTSECRET:
		ac_set(&o->client_secret, v);
		return;
	default:
		break;
	}
	free(v);
}

/* An <incomingServer> or <outgoingServer> begins: kept, or skipped. */
static void
ac_server_start(struct ac_parser *p, enum ac_elem e, const XML_Char **attrs)
{
	struct autoconfig	*ac = p->ac;
	const char		*type = ac_attr(attrs, "type");
	enum autoconfig_kind	 kind;

	p->server = NULL;
	if (type == NULL)
		return;
	if (e == AC_INCOMING && strcasecmp(type, "imap") == 0)
		kind = AUTOCONFIG_IMAP;
	else if (e == AC_OUTGOING && strcasecmp(type, "smtp") == 0)
		kind = AUTOCONFIG_SMTP;
	else
		return;			/* POP3, JMAP, Exchange, ... */
	if (ac->nservers == AUTOCONFIG_SERVERS) {
		ac->dropped++;
		return;
	}
	p->server = &ac->servers[ac->nservers++];
	memset(p->server, 0, sizeof *p->server);
	p->server->kind = kind;
}

static struct autoconfig_link *
ac_link(struct ac_parser *p, enum ac_elem e, const XML_Char **attrs)
{
	struct autoconfig_link	*l;
	const char		*url;

	if (e == AC_ENABLE)
		l = &p->ac->enable;
	else if (e == AC_DOCUMENTATION)
		l = &p->ac->documentation;
	else
		l = &p->ac->app_password;
	url = ac_attr(attrs, e == AC_DOCUMENTATION ? "url" : "visiturl");
	if (l->url != NULL || l->text != NULL)
		return NULL;		/* the first one counts */
	if (url != NULL)
		l->url = ac_trim(url, strlen(url));
	p->link_english = 0;
	return l;
}

static void XMLCALL
ac_start(void *arg, const XML_Char *name, const XML_Char **attrs)
{
	struct ac_parser	*p = arg;
	enum ac_elem		 top = p->stack[p->depth], e = AC_OTHER;
	size_t			 i;
	int			 leaf = 0;

	if (p->cause != NULL)
		return;
	if (p->depth == AC_DEPTH) {
		ac_stop(p, xasprintf("elements nested deeper than %d "
		    "levels", AC_DEPTH));
		return;
	}
	if (p->depth == 0 && strcmp(name, "clientConfig") != 0) {
		ac_stop(p, xasprintf("not a config-v1.1 document: its root "
		    "element is <%.64s>, not <clientConfig>", name));
		return;
	}
	if (top != AC_OTHER) {
		for (i = 0; i < AC_NRULES; i++)
			if (ac_rules[i].parent == top &&
			    strcmp(ac_rules[i].name, name) == 0) {
				e = ac_rules[i].elem;
				leaf = ac_rules[i].leaf;
				break;
			}
	}
	/* Only the first provider, and the first <oAuth2>. */
	if (e == AC_PROVIDER && p->providers++ > 0)
		e = AC_OTHER;
	if (e == AC_OAUTH2 && p->oauth2s++ > 0)
		e = AC_OTHER;
	switch (e) {
	case AC_PROVIDER:
		if (p->ac->id == NULL && ac_attr(attrs, "id") != NULL)
			p->ac->id = xstrdup(ac_attr(attrs, "id"));
		break;
	case AC_INCOMING:
	case AC_OUTGOING:
		ac_server_start(p, e, attrs);
		break;
	case AC_ENABLE:
	case AC_DOCUMENTATION:
	case AC_APPPASSWORD:
		p->link = ac_link(p, e, attrs);
		break;
	case AC_INSTRUCTION:
	case AC_DESCR:
		p->text_english = ac_english(attrs);
		break;
	default:
		break;
	}
	p->stack[++p->depth] = e;
	p->leaf = leaf;
	buf_reset(&p->text);
}

static void XMLCALL
ac_end(void *arg, const XML_Char *name)
{
	struct ac_parser	*p = arg;
	enum ac_elem		 e = p->stack[p->depth];

	(void)name;
	/* expat may still call this once after ac_stop() (an empty
	 * element stopped at its start): its start was not counted */
	if (p->cause != NULL || p->depth == 0)
		return;
	if (p->leaf)
		ac_leaf_end(p, e);
	switch (e) {
	case AC_INCOMING:
	case AC_OUTGOING:
		p->server = NULL;
		break;
	case AC_ENABLE:
	case AC_DOCUMENTATION:
	case AC_APPPASSWORD:
		p->link = NULL;
		break;
	default:
		break;
	}
	p->leaf = 0;
	buf_reset(&p->text);
	p->depth--;
}

static void XMLCALL
ac_text(void *arg, const XML_Char *s, int len)
{
	struct ac_parser	*p = arg;

	if (p->cause != NULL || !p->leaf || len <= 0)
		return;
	if (p->text.len + (size_t)len > AC_TEXT) {
		ac_stop(p, xasprintf("the text of an element is longer than "
		    "%d bytes", AC_TEXT));
		return;
	}
	buf_add(&p->text, s, (size_t)len);
}

static void XMLCALL
ac_doctype(void *arg, const XML_Char *name, const XML_Char *sysid,
    const XML_Char *pubid, int internal)
{
	struct ac_parser	*p = arg;

	(void)name;
	(void)sysid;
	(void)pubid;
	(void)internal;
	ac_stop(p, xstrdup("it declares a DTD (<!DOCTYPE>), which a "
	    "config-v1.1 document has no use for: refused unread, so that "
	    "no entity in it can expand or name another file"));
}

/* Never reached while DTDs are refused; a second lock on the same door. */
static void XMLCALL
ac_entity(void *arg, const XML_Char *name, int param, const XML_Char *value,
    int vlen, const XML_Char *base, const XML_Char *sysid,
    const XML_Char *pubid, const XML_Char *notation)
{
	struct ac_parser	*p = arg;

	(void)name; (void)param; (void)value; (void)vlen; (void)base;
	(void)sysid; (void)pubid; (void)notation;
	ac_stop(p, xstrdup("it declares an entity: refused"));
}

int
autoconfig_parse(const char *data, size_t len, struct autoconfig **out,
    char **cause)
{
	struct ac_parser	 p;
	enum XML_Status		 st;
	int			 rc = -1;

	*out = NULL;
	if (len > AUTOCONFIG_MAX) {
		*cause = xasprintf("%zu bytes, more than the %d a "
		    "config-v1.1 document may have", len, AUTOCONFIG_MAX);
		return -1;
	}
	memset(&p, 0, sizeof p);
	if ((p.x = XML_ParserCreate(NULL)) == NULL)
		fatal("XML_ParserCreate: out of memory");
	p.ac = xcalloc(1, sizeof *p.ac);
	p.stack[0] = AC_ROOT;
	buf_init(&p.text);
	XML_SetUserData(p.x, &p);
	XML_SetElementHandler(p.x, ac_start, ac_end);
	XML_SetCharacterDataHandler(p.x, ac_text);
	XML_SetStartDoctypeDeclHandler(p.x, ac_doctype);
	XML_SetEntityDeclHandler(p.x, ac_entity);
	XML_SetParamEntityParsing(p.x, XML_PARAM_ENTITY_PARSING_NEVER);

	st = XML_Parse(p.x, data, (int)len, XML_TRUE);
	if (p.cause != NULL) {
		*cause = p.cause;
		p.cause = NULL;
	} else if (st != XML_STATUS_OK)
		*cause = xasprintf("not well-formed XML (line %lu: %s)",
		    (unsigned long)XML_GetCurrentLineNumber(p.x),
		    XML_ErrorString(XML_GetErrorCode(p.x)));
	else if (p.providers == 0)
		*cause = xstrdup("it has no <emailProvider>");
	else
		rc = 0;
	if (p.ac->name == NULL && p.short_name != NULL)
		p.ac->name = xstrdup(p.short_name);
	if (p.ac->name == NULL && p.ac->id != NULL)
		p.ac->name = xstrdup(p.ac->id);
	p.ac->short_name = p.short_name;
	if (p.ac->short_name == NULL && p.ac->name != NULL)
		p.ac->short_name = xstrdup(p.ac->name);
	buf_free(&p.text);
	XML_ParserFree(p.x);
	if (rc == -1) {
		autoconfig_free(p.ac);
		return -1;
	}
	*out = p.ac;
	return 0;
}

static void
ac_link_free(struct autoconfig_link *l)
{
	free(l->url);
	free(l->text);
}

void
autoconfig_free(struct autoconfig *ac)
{
	size_t	i;

	if (ac == NULL)
		return;
	free(ac->id);
	free(ac->name);
	free(ac->short_name);
	for (i = 0; i < ac->ndomains; i++)
		free(ac->domains[i]);
	free(ac->domains);
	for (i = 0; i < ac->nservers; i++) {
		free(ac->servers[i].hostname);
		free(ac->servers[i].username);
	}
	ac_link_free(&ac->enable);
	ac_link_free(&ac->documentation);
	ac_link_free(&ac->app_password);
	free(ac->oauth2.issuer);
	free(ac->oauth2.scope);
	free(ac->oauth2.auth_url);
	free(ac->oauth2.token_url);
	free(ac->oauth2.device_url);
	free(ac->oauth2.client_id);
	free(ac->oauth2.client_secret);
	free(ac);
}

int
autoconfig_has_domain(const struct autoconfig *ac, const char *domain)
{
	size_t	i;

	for (i = 0; i < ac->ndomains; i++)
		if (strcasecmp(ac->domains[i], domain) == 0)
			return 1;
	return 0;
}

char *
autoconfig_expand(const char *text, const char *address)
{
	static const char *words[] = {
		"%EMAILADDRESS%", "%EMAILLOCALPART%", "%EMAILDOMAIN%"
	};
	const char	*at = strrchr(address, '@'), *p;
	struct buf	 b;
	size_t		 i, n;

	if (at == NULL)
		return NULL;
	buf_init(&b);
	for (p = text; *p != '\0'; ) {
		if (*p != '%') {
			buf_addc(&b, *p++);
			continue;
		}
		for (i = 0; i < 3; i++)
			if (strncmp(p, words[i], strlen(words[i])) == 0)
				break;
		if (i == 3) {
			buf_free(&b);
			return NULL;
		}
		if (i == 0)
			buf_adds(&b, address);
		else if (i == 1) {
			n = (size_t)(at - address);
			buf_add(&b, address, n);
		} else
			buf_adds(&b, at + 1);
		p += strlen(words[i]);
	}
	buf_addc(&b, '\0');
	return buf_take(&b);
}

const char *
autoconfig_kind_name(enum autoconfig_kind k)
{
	return k == AUTOCONFIG_IMAP ? "IMAP" : "SMTP";
}

const char *
autoconfig_socket_name(enum autoconfig_socket s)
{
	switch (s) {
	case AUTOCONFIG_SOCKET_PLAIN:		return "plain";
	case AUTOCONFIG_SOCKET_SSL:		return "SSL";
	case AUTOCONFIG_SOCKET_STARTTLS:	return "STARTTLS";
	default:				return "none";
	}
}
