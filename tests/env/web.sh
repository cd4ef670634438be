# tests/env/web.sh: the HTTPS server of the test environment (sourced by
# tests/env/run), for the setup wizard's autoconfig: web.py on
# 127.0.0.1:$SE_HTTPS_PORT with a certificate of the test CA for the names
# below, serving from $SE_DIR/web.
#
# The test domain is autoconfig.test (a signed zone of dns.sh, no SRV
# records): its autoconfig document, at
# https://autoconfig.autoconfig.test/mail/config-v1.1.xml, names the test
# Dovecot and Postfix (imap.steed.test, smtp.steed.test at the test ports).
# Below it:
#   wellknown.autoconfig.test  a document only at the second URL,
#                  https://DOMAIN/.well-known/autoconfig/mail/config-v1.1.xml,
#                  reached through an https:// redirect
#   oauth.autoconfig.test      a document that wants OAuth2 only (its
#                  endpoints those of oauth.py, no client ID), an app
#                  password and IMAP switched on, logs in with the local
#                  part, and offers a server without TLS
#   signin.autoconfig.test     OAuth2 only, as a provider that has
#                  registered steedmail would publish it: the test servers,
#                  the address as the login, oauth.py's endpoints and its
#                  client ID (the wizard's sign-in, tui-oauth2.sh)
#   either.autoconfig.test     a password or OAuth2, the person's choice,
#                  with oauth.py's endpoints and client ID, and an app
#                  password wanted
#   browser.autoconfig.test    OAuth2 only with no device grant, as Google
#                  publishes it: oauth.py's authorization (code flow) and
#                  token URLs and client ID; the login is alice@steed.test,
#                  whom oauth.py's /authorize signs in
#   laughs, external, huge, redirect, wrongcert, silent .autoconfig.test
#                  hostile answers (web.py says which); their MX is
#                  mail.steed.test, so discovery goes on to find the test
#                  servers by the MX host's usual names
# The names resolve to 127.0.0.1 in the zone and, for steedmail's
# getaddrinfo(), through tests/tools/testhosts.so (STEED_WEB_HOSTS), whose
# STEED_TEST_PORTS moves port 443 to $SE_HTTPS_PORT.
#
# Files under $SE_DIR/web: www/HOST/PATH (the documents), requests.log
# (one "HOST PATH" line per request), web.log, web.pid.

SE_WEB_ZONE=autoconfig.test
SE_WEB_HOSTILE="laughs external huge redirect wrongcert silent"
SE_WEB_HOSTS="autoconfig.autoconfig.test wellknown.autoconfig.test autoconfig.oauth.autoconfig.test autoconfig.signin.autoconfig.test autoconfig.either.autoconfig.test autoconfig.browser.autoconfig.test"
for _k in $SE_WEB_HOSTILE; do
	SE_WEB_HOSTS="$SE_WEB_HOSTS autoconfig.$_k.autoconfig.test"
done
unset _k

# se_web_server incoming|outgoing HOST PORT SOCKET AUTH USER: one server
# of a config-v1.1 document.
se_web_server() {
	printf '    <%sServer type="%s">\n' "$1" "$([ "$1" = incoming ] && echo imap || echo smtp)"
	printf '      <hostname>%s</hostname>\n      <port>%s</port>\n' "$2" "$3"
	printf '      <socketType>%s</socketType>\n' "$4"
	printf '      <authentication>%s</authentication>\n' "$5"
	printf '      <username>%s</username>\n    </%sServer>\n' "$6" "$1"
}

se_web_setup() {
	local _w _d
	_w=$SE_DIR/web
	mkdir -p "$_w/www" || se_fail "cannot create $_w"
	: >"$_w/requests.log"

	_d=$_w/www/autoconfig.autoconfig.test/mail
	mkdir -p "$_d"
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo '<clientConfig version="1.1">'
		echo '  <emailProvider id="autoconfig.test">'
		echo '    <domain>autoconfig.test</domain>'
		echo '    <displayName>Autoconfig Test Mail</displayName>'
		echo '    <incomingServer type="pop3"><hostname>pop.steed.test</hostname><port>995</port><socketType>SSL</socketType></incomingServer>'
		se_web_server incoming imap.steed.test "$SE_IMAPS_PORT" SSL password-cleartext '%EMAILADDRESS%'
		se_web_server outgoing smtp.steed.test "$SE_SUBMISSIONS_PORT" SSL password-cleartext '%EMAILADDRESS%'
		se_web_server outgoing smtp.steed.test "$SE_SUBMISSION_PORT" STARTTLS password-cleartext '%EMAILADDRESS%'
		echo '  </emailProvider>'
		echo '</clientConfig>'
	} >"$_d/config-v1.1.xml"

	# The second URL, moved by an https:// redirect.
	_d=$_w/www/wellknown.autoconfig.test
	mkdir -p "$_d/.well-known/autoconfig/mail"
	echo "https://wellknown.autoconfig.test/moved/config-v1.1.xml" \
	    >"$_d/.well-known/autoconfig/mail/config-v1.1.xml.moved"
	mkdir -p "$_d/moved"
	{
		echo '<?xml version="1.0"?>'
		echo '<clientConfig version="1.1"><emailProvider id="wellknown.autoconfig.test">'
		echo '    <domain>wellknown.autoconfig.test</domain>'
		echo '    <displayName>Well-Known Test Mail</displayName>'
		se_web_server incoming imap.steed.test "$SE_IMAP_PORT" STARTTLS password-cleartext '%EMAILADDRESS%'
		se_web_server outgoing smtp.steed.test "$SE_SUBMISSION_PORT" STARTTLS password-cleartext '%EMAILADDRESS%'
		echo '</emailProvider></clientConfig>'
	} >"$_d/moved/config-v1.1.xml"

	_d=$_w/www/autoconfig.oauth.autoconfig.test/mail
	mkdir -p "$_d"
	{
		echo '<?xml version="1.0"?>'
		echo '<clientConfig version="1.1"><emailProvider id="oauth.autoconfig.test">'
		echo '    <domain>oauth.autoconfig.test</domain>'
		echo '    <displayName>OAuth Test Mail</displayName>'
		se_web_server incoming imap.steed.test 143 plain password-cleartext '%EMAILLOCALPART%'
		se_web_server incoming imap.steed.test "$SE_IMAPS_PORT" SSL OAuth2 '%EMAILLOCALPART%'
		se_web_server outgoing smtp.steed.test "$SE_SUBMISSIONS_PORT" SSL OAuth2 '%EMAILLOCALPART%'
		echo '    <appPassword visiturl="https://oauth.autoconfig.test/app-passwords"/>'
		echo '    <enable visiturl="https://oauth.autoconfig.test/settings/imap">'
		echo '      <instruction lang="en">Switch IMAP on under Settings, Mail programs</instruction>'
		echo '    </enable>'
		echo '</emailProvider>'
		echo '<oAuth2><issuer>login.oauth.autoconfig.test</issuer><scope>mail</scope>'
		echo "<tokenURL>https://127.0.0.1:$SE_OAUTH_PORT/token</tokenURL>"
		echo "<deviceAuthURL>https://127.0.0.1:$SE_OAUTH_PORT/device</deviceAuthURL>"
		echo '</oAuth2>'
		echo '</clientConfig>'
	} >"$_d/config-v1.1.xml"

	_d=$_w/www/autoconfig.signin.autoconfig.test/mail
	mkdir -p "$_d"
	{
		echo '<?xml version="1.0"?>'
		echo '<clientConfig version="1.1"><emailProvider id="signin.autoconfig.test">'
		echo '    <domain>signin.autoconfig.test</domain>'
		echo '    <displayName>Sign-in Test Mail</displayName>'
		echo '    <displayShortName>Sign-in Test</displayShortName>'
		se_web_server incoming imap.steed.test "$SE_IMAPS_PORT" SSL OAuth2 '%EMAILADDRESS%'
		se_web_server outgoing smtp.steed.test "$SE_SUBMISSIONS_PORT" SSL OAuth2 '%EMAILADDRESS%'
		echo '</emailProvider>'
		echo '<oAuth2><issuer>login.signin.autoconfig.test</issuer><scope>mail</scope>'
		echo "<tokenURL>https://127.0.0.1:$SE_OAUTH_PORT/token</tokenURL>"
		echo "<deviceAuthURL>https://127.0.0.1:$SE_OAUTH_PORT/device</deviceAuthURL>"
		echo '<clientID>steedmail-test</clientID>'
		echo '</oAuth2>'
		echo '</clientConfig>'
	} >"$_d/config-v1.1.xml"

	_d=$_w/www/autoconfig.either.autoconfig.test/mail
	mkdir -p "$_d"
	{
		echo '<?xml version="1.0"?>'
		echo '<clientConfig version="1.1"><emailProvider id="either.autoconfig.test">'
		echo '    <domain>either.autoconfig.test</domain>'
		echo '    <displayName>Either Test Mail</displayName>'
		se_web_server incoming imap.steed.test "$SE_IMAPS_PORT" SSL password-cleartext '%EMAILADDRESS%' |
		    sed 's|^\(      <authentication>.*\)$|\1\n      <authentication>OAuth2</authentication>|'
		se_web_server outgoing smtp.steed.test "$SE_SUBMISSIONS_PORT" SSL password-cleartext '%EMAILADDRESS%' |
		    sed 's|^\(      <authentication>.*\)$|\1\n      <authentication>OAuth2</authentication>|'
		echo '    <appPassword visiturl="https://either.autoconfig.test/app-passwords"/>'
		echo '</emailProvider>'
		echo '<oAuth2><issuer>login.either.autoconfig.test</issuer><scope>mail</scope>'
		echo "<tokenURL>https://127.0.0.1:$SE_OAUTH_PORT/token</tokenURL>"
		echo "<deviceAuthURL>https://127.0.0.1:$SE_OAUTH_PORT/device</deviceAuthURL>"
		echo '<clientID>steedmail-test</clientID>'
		echo '</oAuth2>'
		echo '</clientConfig>'
	} >"$_d/config-v1.1.xml"

	_d=$_w/www/autoconfig.browser.autoconfig.test/mail
	mkdir -p "$_d"
	{
		echo '<?xml version="1.0"?>'
		echo '<clientConfig version="1.1"><emailProvider id="browser.autoconfig.test">'
		echo '    <domain>browser.autoconfig.test</domain>'
		echo '    <displayName>Browser Test Mail</displayName>'
		se_web_server incoming imap.steed.test "$SE_IMAPS_PORT" SSL OAuth2 alice@steed.test
		se_web_server outgoing smtp.steed.test "$SE_SUBMISSIONS_PORT" SSL OAuth2 alice@steed.test
		echo '</emailProvider>'
		echo '<oAuth2><issuer>login.browser.autoconfig.test</issuer><scope>mail</scope>'
		echo "<authURL>https://127.0.0.1:$SE_OAUTH_PORT/authorize</authURL>"
		echo "<tokenURL>https://127.0.0.1:$SE_OAUTH_PORT/token</tokenURL>"
		echo '<clientID>steedmail-test</clientID>'
		echo '</oAuth2>'
		echo '</clientConfig>'
	} >"$_d/config-v1.1.xml"
	chmod -R a+rX "$_w"
}

se_web_start() {
	se_need python3
	se_python "$SE_BIN/web.py" "$SE_HTTPS_PORT" "$SE_DIR/web" \
	    "$SE_DIR/tls/web.crt" "$SE_DIR/tls/web.key" \
	    "$SE_DIR/tls/wronghost.crt" "$SE_DIR/tls/wronghost.key" \
	    >"$SE_DIR/web/web.log" 2>&1 &
}

se_web_wait() {
	local _n _pid
	_n=0
	while [ $_n -lt 100 ] && ! _pid=$(se_pidfile_pid "$SE_DIR/web/web.pid" python); do
		sleep 0.05; _n=$((_n + 1))
	done
	[ -n "$_pid" ] || se_fail "web.py did not start" "$SE_DIR/web/web.log"
	se_wait_tcp "$SE_HTTPS_PORT" web.py "$SE_DIR/web/web.log" "$_pid"
}

se_web_stop() {
	local _pid
	_pid=$(se_pidfile_pid "$SE_DIR/web/web.pid" python) || return 0
	se_stop_tree "$_pid"
}
