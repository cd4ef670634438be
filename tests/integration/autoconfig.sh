# tests/integration/autoconfig.sh: the setup wizard's discovery beyond DNS,
# with steedmail --setup against tests/env: the domain's autoconfig
# document over HTTPS (tests/env/web.sh serves it for autoconfig.test, whose
# zone has no SRV records), at its first URL and at the well-known one
# behind a redirect; a document's login, its advice and a server without
# TLS; every hostile answer (a billion laughs, an external entity, 100 MB,
# a redirect to plain HTTP, a wrong certificate, a server that never
# answers) said in a note, with discovery going on to the next step
# (the MX host's usual names) in good time; and steedmail's provider
# files, by the domain and by the MX host's domain, a broken one and a
# missing directory, and the shipped ones for a Google Workspace and a
# Microsoft 365 domain found through their MX hosts.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_ENV:-}" ] || bail "STEED_ENV not set: run inside tests/env/run"
[ -f "$T_TESTHOSTS" ] || bail "$T_TESTHOSTS not built"
[ -n "${STEED_HTTPS_PORT:-}" ] || bail "the test environment has no HTTPS server"
HOMES=
LOG=$STEED_WEB_DIR/requests.log
IMAPS=imaps://imap.steed.test:$STEED_IMAPS_PORT
SMTPS=smtps://smtp.steed.test:$STEED_SUBMISSIONS_PORT

# home NAME [SETTING...]: a new person's home (sets H): only the resolver,
# the CA and the settings given.
home() {
	H=$T_TMP/home-$1
	shift
	mkdir -p "$H/config/steedmail" "$H/data" "$H/cache"
	chmod 700 "$H" "$H/config" "$H/data" "$H/cache"
	{
		echo "dns-config = $STEED_DNS_CONF"
		echo "ca-file = $STEED_CA_FILE"
		for s; do echo "$s"; done
	} >"$H/config/steedmail/config"
	chmod 600 "$H/config/steedmail/config"
	HOMES="$HOMES $H"
}
as_home() {
	local h=$1
	shift
	HOME=$h XDG_CONFIG_HOME=$h/config XDG_DATA_HOME=$h/data \
	    XDG_CACHE_HOME=$h/cache GNUPGHOME=$h/data/steedmail/gnupg \
	    with_test_hosts "$@"
}
# setup ARGS...: steedmail --setup in $H, the password on standard input
# ($PW), output in $T_TMP/out, status in $rc, milliseconds in $ms.
setup() {
	local t0
	t0=$(date +%s%N)
	printf '%s\n' "${PW:-x}" | as_home "$H" "$STEEDMAIL" --setup "$@" \
	    >"$T_TMP/out" 2>&1
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
}
out_has() { has "$T_TMP/out" "$1" || { sed 's/^/#   /' "$T_TMP/out"; return 1; }; }
cleanup() {
	local h
	for h in $HOMES; do
		[ -d "$h/data/steedmail/gnupg" ] &&
			gpgconf --homedir "$h/data/steedmail/gnupg" --kill all \
			    >/dev/null 2>&1
	done
	rm -rf "$T_TMP"
}
trap cleanup EXIT

# --- autoconfig.test: found through its autoconfig document alone ---------

"$STEED_ENV_BIN/add-user" someone@autoconfig.test some-pw >/dev/null ||
	bail "add-user someone@autoconfig.test"
home someone
: >"$LOG.mark"
setup --address someone@autoconfig.test
ok "--address alone, no terminal: the servers are found and shown, then not used unconfirmed (exit 64)" \
	sh -c "[ $rc = 64 ] && grep -qF 'IMAP: $IMAPS (autoconfig https://autoconfig.autoconfig.test/mail/config-v1.1.xml (HTTPS), certificate verified)' '$T_TMP/out' &&
	grep -q 'run again with --yes' '$T_TMP/out'" 
PW=some-pw setup --address someone@autoconfig.test --yes
ok "--setup --address someone@autoconfig.test --yes: exit 0" test "$rc" = 0
ok "the IMAP server comes from the autoconfig document, verified" out_has \
	"IMAP: $IMAPS (autoconfig https://autoconfig.autoconfig.test/mail/config-v1.1.xml (HTTPS), certificate verified)"
ok "... and the submission server, its first one" out_has \
	"SMTP: $SMTPS (autoconfig https://autoconfig.autoconfig.test/mail/config-v1.1.xml (HTTPS), certificate verified)"
ok "... logged in to both" sh -c "grep -q '^IMAP login: ok' '$T_TMP/out' && grep -q '^SMTP login: ok' '$T_TMP/out'"
ok "the document was asked for with the address" \
	grep -qF "autoconfig.autoconfig.test /mail/config-v1.1.xml?emailaddress=someone%40autoconfig.test" "$LOG"
CONF=$H/config/steedmail/config
ok "the account is saved with those servers, and no name (none given)" sh -c "
	grep -qx 'imap = $IMAPS' '$CONF' && grep -qx 'smtp = $SMTPS' '$CONF' &&
	! grep -q '^name =' '$CONF'"
ok "the account works: --sync" as_home "$H" "$STEEDMAIL" --sync

# --- the second URL, behind an https:// redirect ------------------------------

home wellknown
setup --address x@wellknown.autoconfig.test --yes
ok "wellknown.autoconfig.test: the well-known URL, after a redirect, gives the STARTTLS servers" sh -c "
	grep -qF 'IMAP: imap://imap.steed.test:$STEED_IMAP_PORT (autoconfig https://wellknown.autoconfig.test/moved/config-v1.1.xml (HTTPS), STARTTLS, certificate verified)' '$T_TMP/out' &&
	grep -qF 'wellknown.autoconfig.test /.well-known/autoconfig/mail/config-v1.1.xml' '$LOG' &&
	grep -qF 'wellknown.autoconfig.test /moved/config-v1.1.xml' '$LOG'" 
ok "... and nothing there at the first URL is not worth a note" sh -c "! grep -q '^note: autoconfig' '$T_TMP/out'"

# --- what a document asks: OAuth2, an app password, IMAP switched on ----------

home oauth
setup --address x@oauth.autoconfig.test --yes
ok "its login, the local part, is shown and used" sh -c "
	grep -qx 'Login: x (as the servers.* document says)' '$T_TMP/out' &&
	grep -qx 'user = x' '$H/config/steedmail/config'"
ok "OAuth2 only: no password asked or tried; saved to sign in with OAuth2" sh -c "
	[ $rc = 0 ] &&
	! grep -q 'IMAP login' '$T_TMP/out' &&
	grep -qx 'auth = oauth2' '$H/config/steedmail/config' &&
	! grep -q '^password' '$H/config/steedmail/config' &&
	grep -q 'The account signs in with OAuth2 (auth = oauth2): no password is kept.' '$T_TMP/out'"
ok "... with the document's endpoints, and what is still to do" sh -c "
	grep -qx 'oauth2-token-url = https://127.0.0.1:$STEED_OAUTH_PORT/token' '$H/config/steedmail/config' &&
	grep -qx 'oauth2-device-url = https://127.0.0.1:$STEED_OAUTH_PORT/device' '$H/config/steedmail/config' &&
	grep -qx 'oauth2-scope = mail' '$H/config/steedmail/config' &&
	grep -q 'First set oauth2-client-id (the client ID you registered with the provider) in \[account x\].' '$T_TMP/out' &&
	grep -q 'Sign in with: steedmail -A x --oauth-login' '$T_TMP/out'"
ok "OAuth2 only: said before anything is tried" out_has \
	"advice: OAuth Test Mail takes only OAuth2 sign-in for IMAP and SMTP: a password will be refused there; set auth = oauth2"
ok "an app password, and where to make one" out_has \
	"advice: OAuth Test Mail wants an app password instead of your account's password: make one at https://oauth.autoconfig.test/app-passwords"
ok "IMAP to be switched on, where, in the document's words" out_has \
	"advice: OAuth Test Mail: first allow access by IMAP at https://oauth.autoconfig.test/settings/imap. Switch IMAP on under Settings, Mail programs"
ok "its server without TLS is not used, and said" out_has \
	"offers IMAP server imap.steed.test:143 without TLS: not used (steedmail never logs in in clear)"

# --- hostile answers: a note each, and the next step finds the servers -------

# hostile KIND NOTE: discovery for x@KIND.autoconfig.test (no --yes: it
# stops once the servers are shown) says NOTE and still finds the test
# servers, by its MX host's usual names, within 8 s.
hostile() {
	local kind=$1 note=$2
	home "$kind"
	setup --address "x@$kind.autoconfig.test"
	grep -qF "note: autoconfig: $note" "$T_TMP/out" &&
	grep -qF "IMAP: imaps://imap.steed.test (the domain of mail.steed.test, the MX host of $kind.autoconfig.test, certificate verified)" "$T_TMP/out" &&
	grep -qF "SMTP: smtps://smtp.steed.test (the domain of mail.steed.test, the MX host of $kind.autoconfig.test, certificate verified)" "$T_TMP/out" &&
	[ "$rc" = 64 ] && [ "$ms" -lt 8000 ] ||
		{ echo "# $ms ms"; sed 's/^/#   /' "$T_TMP/out"; return 1; }
}
W=https://autoconfig
ok "a billion laughs: refused at its DTD, the MX host's names found" hostile laughs \
	"$W.laughs.autoconfig.test/mail/config-v1.1.xml: it declares a DTD (<!DOCTYPE>)"
ok "an external entity: refused at its DTD" hostile external \
	"$W.external.autoconfig.test/mail/config-v1.1.xml: it declares a DTD (<!DOCTYPE>)"
ok "... and the URL it names was never asked" sh -c "! grep -q '/secret' '$LOG'"
ok "100 MB: not read past 64 kB" hostile huge \
	"$W.huge.autoconfig.test/mail/config-v1.1.xml: the answer is larger than 64 kB: not read further; not used"
sent() {
	n=$(sed -n 's/^huge: \([0-9]*\) bytes sent$/\1/p' "$LOG" | tail -1)
	echo "# the server got $n bytes out"
	[ -n "$n" ] && [ "$n" -lt $((10 * 1024 * 1024)) ]
}
ok "... the server could send less than 10 MB of the 100 before steedmail hung up" sent
ok "a redirect to plain HTTP: not followed" hostile redirect \
	"redirected to http://autoconfig.redirect.autoconfig.test/mail/config-v1.1.xml, which is not HTTPS: not followed"
ok "a certificate for another name: refused" hostile wrongcert \
	"$W.wrongcert.autoconfig.test/mail/config-v1.1.xml: the server's certificate does not verify:"
ok "a server that never answers: given up after 3 s" hostile silent \
	"$W.silent.autoconfig.test/mail/config-v1.1.xml: no answer within 3 s; not used"
"$STEED_ENV_BIN/add-user" x@laughs.autoconfig.test x-pw >/dev/null ||
	bail "add-user x@laughs.autoconfig.test"
home laughs2
PW=x-pw setup --address x@laughs.autoconfig.test --yes
ok "after a hostile answer, the servers found next work: logged in, saved" sh -c "
	[ $rc = 0 ] && grep -q '^IMAP login: ok' '$T_TMP/out' &&
	grep -q '^SMTP login: ok' '$T_TMP/out'"
ok "the server that redirected to plain HTTP was asked once, not again" sh -c "
	[ \$(grep -c 'autoconfig.redirect.autoconfig.test' '$LOG') = 1 ]"

# --- steedmail's provider files ----------------------------------------------

P=$T_TMP/providers
mkdir -p "$P"
cat >"$P/test-mail.xml" <<EOF
<?xml version="1.0"?>
<clientConfig version="1.1">
  <emailProvider id="provmail.steed.test">
    <domain>prov.plain.test</domain>
    <domain>provmail.steed.test</domain>
    <displayName>Test Provider</displayName>
    <incomingServer type="imap"><hostname>imap.steed.test</hostname>
      <port>$STEED_IMAPS_PORT</port><socketType>SSL</socketType>
      <authentication>password-cleartext</authentication>
      <username>%EMAILADDRESS%</username></incomingServer>
    <outgoingServer type="smtp"><hostname>smtp.steed.test</hostname>
      <port>$STEED_SUBMISSIONS_PORT</port><socketType>SSL</socketType>
      <authentication>password-cleartext</authentication>
      <username>%EMAILADDRESS%</username></outgoingServer>
    <appPassword visiturl="https://provmail.steed.test/apps"/>
  </emailProvider>
</clientConfig>
EOF
printf '<clientConfig><emailProvider>' >"$P/broken.xml"

home provider "provider-dir = $P"
setup --address x@prov.plain.test --yes
ok "a provider file, by the address's domain: its servers, verified" out_has \
	"IMAP: $IMAPS (steedmail's provider file test-mail.xml (Test Provider), certificate verified)"
ok "... what it asks: an app password" out_has \
	"advice: Test Provider wants an app password instead of your account's password: make one at https://provmail.steed.test/apps"
ok "... a broken provider file is said, and skipped" out_has \
	"note: provider file broken.xml: not well-formed XML"
"$STEED_ENV_BIN/zone-set" plain.test provmx MX "10 mx1.provmail.steed.test." >/dev/null ||
	bail "zone-set provmx.plain.test MX"
setup --address x@provmx.plain.test --yes
ok "by the MX host's domain, how sure that is: the unsigned MX answer" out_has \
	"IMAP: $IMAPS (steedmail's provider file test-mail.xml (Test Provider), for mx1.provmail.steed.test, the MX host of provmx.plain.test (not DNSSEC-signed: only a suggestion), certificate verified)"

home nodir "provider-dir = $T_TMP/no-such-dir"
setup --address x@prov.plain.test --yes
ok "a provider-dir that is not there: said, and the wizard goes on" sh -c "
	grep -qF 'note: the provider files in $T_TMP/no-such-dir cannot be read' '$T_TMP/out' &&
	grep -q '^IMAP: none found' '$T_TMP/out' && [ $rc = 69 ]"

# The shipped files, for domains whose MX hosts are at Google and at
# Microsoft: the provider's servers (which the test CA cannot verify, and
# which may be out of reach) are proposed unverified, with what they need.
home shipped "provider-dir = $PWD/contrib/providers"
"$STEED_ENV_BIN/zone-set" plain.test workspace MX "1 aspmx.l.google.com." >/dev/null ||
	bail "zone-set workspace.plain.test MX"
setup --address x@workspace.plain.test --yes
ok "a Google Workspace domain, by its MX host: Gmail's servers and its app password" sh -c "
	grep -qF 'IMAP: imaps://imap.gmail.com (steedmail'\''s provider file google.xml (Google (Gmail, Google Workspace)), for aspmx.l.google.com, the MX host of workspace.plain.test (not DNSSEC-signed: only a suggestion), not verified:' '$T_TMP/out' &&
	grep -qF 'SMTP: smtps://smtp.gmail.com' '$T_TMP/out' &&
	grep -qF 'advice: Gmail wants an app password instead of your account'\''s password: make one at https://myaccount.google.com/apppasswords. ' '$T_TMP/out'"
"$STEED_ENV_BIN/zone-set" plain.test m365 MX "0 m365-plain-test.mail.protection.outlook.com." >/dev/null ||
	bail "zone-set m365.plain.test MX"
setup --address x@m365.plain.test --yes
ok "a Microsoft 365 domain, by its MX host: Exchange Online, OAuth2 only" sh -c "
	grep -qF 'IMAP: imaps://outlook.office365.com (steedmail'\''s provider file microsoft365.xml' '$T_TMP/out' &&
	grep -qF 'SMTP: smtp://smtp.office365.com (steedmail'\''s provider file microsoft365.xml' '$T_TMP/out' &&
	grep -qF 'advice: Microsoft 365 takes only OAuth2 sign-in for IMAP and SMTP' '$T_TMP/out'"
for n in provmx workspace m365; do
	"$STEED_ENV_BIN/zone-set" --delete plain.test "$n" MX >/dev/null
done
