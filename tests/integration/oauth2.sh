# tests/integration/oauth2.sh: signing in with OAuth2 against the real
# servers of tests/env: the device grant at the test authorization server
# (tests/env/oauth.py) with steedmail --oauth-login; Dovecot's oauth2
# passdb taking the access token (SASL OAUTHBEARER, and XOAUTH2 when the
# account asks for it) for IMAP, and Postfix submission through Dovecot's
# SASL; the refresh token kept encrypted, never a token in clear on disk;
# the access token refreshed before it expires, and once more when the
# server refuses it before its time (mid-session, across a dropped
# connection); a revoked refresh token and an authorization server that
# is down, each said in words, the outbox keeping what waits until the
# sign-in works again.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_OAUTH_URL:-}" ] || bail "the test environment has no authorization server"
command -v curl >/dev/null 2>&1 || bail "curl is not installed (contrib/install-deps installs it)"

AS=$STEED_OAUTH_URL
LOG=$STEED_OAUTH_DIR/requests.log
D=$T_TMP/alice
dove() { doveadm -c "$STEED_DOVECOT_CONF" "$@"; }

# conf FILE [SETTING...]: alice's configuration, signing in with OAuth2.
conf() {
	_f=$1; shift
	{
		echo "ca-file = $STEED_CA_FILE"
		echo "[account alice]"
		echo "name = Alice Example"
		echo "address = alice@steed.test"
		echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
		echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
		echo "auth = oauth2"
		echo "oauth2-token-url = $AS/token"
		echo "oauth2-device-url = $AS/device"
		echo "oauth2-auth-url = $AS/authorize"
		echo "oauth2-client-id = steedmail-test"
		echo "oauth2-scope = mail"
		for _s in "$@"; do echo "$_s"; done
	} >"$_f"
	chmod 0600 "$_f"
}
conf "$T_TMP/alice.conf"
conf "$T_TMP/xoauth2.conf" "oauth2-mechanism = xoauth2"

alice() { XDG_DATA_HOME="$D" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/alice.conf" "$@"; }
alicex() { XDG_DATA_HOME="$D" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/xoauth2.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$STEED_ENV/bob.conf" "$@"; }
as_post() { curl -s --cacert "$STEED_CA_FILE" -X POST "$AS$1" >/dev/null; }
# approve CODE [deny]: the person at the verification page.
approve() {
	curl -s --cacert "$STEED_CA_FILE" "$AS/verify?user_code=$1&user=alice@steed.test${2:+&deny=1}"
}
count() { "$1" --list "$2" 2>/dev/null | grep -cF -- "$3"; }
arrives() {
	for _ in $(seq 1 30); do
		[ "$(count "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.5
	done
	echo "expected $4 message(s) '$3' in $1's $2; found $(count "$1" "$2" "$3")"
	return 1
}
refreshes() { grep -c "POST /token refresh_token" "$LOG"; }
queued() { ls "$D/steedmail/outbox/" 2>/dev/null | grep -c '\.env$'; }
# login [deny]: steedmail --oauth-login, the code approved (or denied).
login() {
	alice --oauth-login >"$T_TMP/login" 2>&1 &
	_p=$!
	# a loaded machine (a sanitizer build beside other work) can take
	# seconds to print the code; and a sign-in that is never approved
	# polls until its code expires: neither may hang the test
	for _ in $(seq 1 300); do
		grep -q "enter the code" "$T_TMP/login" && break
		sleep 0.1
	done
	_c=$(sed -n 's/^and enter the code \([0-9-]*\)$/\1/p' "$T_TMP/login")
	approve "$_c" "$@" >/dev/null
	( sleep 90; kill "$_p" 2>/dev/null ) &
	_w=$!
	wait "$_p"
	_rc=$?
	kill "$_w" 2>/dev/null
	wait "$_w" 2>/dev/null
	return $_rc
}
u=$$-$(date +%s)

# --- before signing in ------------------------------------------------------
alice --sync >"$T_TMP/o" 2>&1
ok "not signed in yet: --sync fails and says how to sign in" sh -c "[ $? != 0 ] && grep -q 'not signed in with OAuth2 yet: run steedmail -A alice --oauth-login' '$T_TMP/o'"

alice --check-config >"$T_TMP/o" 2>&1
ok "--check-config: not signed in yet, said with what to run" grep -q 'warning: account alice signs in with OAuth2 and is not signed in yet: run steedmail -A alice --oauth-login' "$T_TMP/o"
sed "s|^oauth2-token-url = https://|oauth2-token-url = http://|" "$T_TMP/alice.conf" >"$T_TMP/plain.conf"
chmod 0600 "$T_TMP/plain.conf"
XDG_DATA_HOME="$D" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/plain.conf" --check-config >"$T_TMP/o" 2>&1
ok "--check-config: a token URL over plain http:// is refused" grep -q "the OAuth2 URL http://127.0.0.1:$STEED_OAUTH_PORT/token (from the settings of account alice) is not https://" "$T_TMP/o"

# --- the device grant -------------------------------------------------------
login deny
ok "the sign-in denied at the provider: said, nothing kept" sh -c "[ $? != 0 ] && grep -q 'the sign-in was refused at the provider: access_denied: the user said no' '$T_TMP/login' && [ ! -e '$D/steedmail/oauth2-alice.asc' ]"
login
ok "--oauth-login shows a URL and a code, and is signed in once approved" sh -c "[ $? = 0 ] && grep -q '^  $AS/verify\$' '$T_TMP/login' && grep -q '^Signed in. The refresh token is kept encrypted to your key in $D/steedmail/oauth2-alice.asc' '$T_TMP/login'"
alice --check-config >"$T_TMP/o" 2>&1
ok "--check-config: once signed in, no warning" sh -c "! grep -q warning '$T_TMP/o'"
ok "the refresh token file is an OpenPGP message, mode 0600" sh -c "head -1 '$D/steedmail/oauth2-alice.asc' | grep -q 'BEGIN PGP MESSAGE' && [ \"\$(stat -c %a '$D/steedmail/oauth2-alice.asc')\" = 600 ]"
gpg --homedir "$D/steedmail/gnupg" --batch -q -d "$D/steedmail/oauth2-alice.asc" >"$T_TMP/rt" 2>/dev/null
ok "it holds a refresh token, encrypted to alice's own key" grep -q '^rt-' "$T_TMP/rt"

# --- IMAP and SMTP with the token ---------------------------------------------
alice --sync >"$T_TMP/o" 2>&1
ok "--sync logs in to Dovecot with the token" sh -c "[ $? = 0 ] && grep -q 'method=OAUTHBEARER' '$STEED_DOVECOT_LOG'"
alicex --sync >"$T_TMP/o" 2>&1
ok "oauth2-mechanism = xoauth2: Dovecot sees XOAUTH2" sh -c "[ $? = 0 ] && grep -q 'method=XOAUTH2' '$STEED_DOVECOT_LOG'"
echo "sent with XOAUTH2" | alicex -s "xoauth2 send $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "... and Postfix, through Dovecot's SASL, for the submission" sh -c "[ $? = 0 ] && grep -q 'sasl_method=XOAUTH2, sasl_username=alice@steed.test' '$STEED_POSTFIX_LOG'"
# The endpoints from a provider file when the account names none.
mkdir -p "$T_TMP/providers"
cat >"$T_TMP/providers/steed.xml" <<EOF
<?xml version="1.0"?>
<clientConfig version="1.1"><emailProvider id="steed.test">
<domain>steed.test</domain><displayName>Steed Test Mail</displayName>
<incomingServer type="imap"><hostname>localhost</hostname>
<port>$STEED_IMAPS_PORT</port><socketType>SSL</socketType>
<authentication>OAuth2</authentication></incomingServer>
</emailProvider>
<oAuth2><issuer>127.0.0.1</issuer><scope>mail</scope>
<tokenURL>$AS/token</tokenURL><deviceAuthURL>$AS/device</deviceAuthURL>
<clientID>steedmail-test</clientID></oAuth2></clientConfig>
EOF
grep -v '^oauth2-' "$T_TMP/alice.conf" | sed "1a provider-dir = $T_TMP/providers" >"$T_TMP/provider.conf"
chmod 0600 "$T_TMP/provider.conf"
n=$(refreshes)
XDG_DATA_HOME="$D" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/provider.conf" --sync >"$T_TMP/o" 2>&1
ok "no oauth2-* settings: the token URL and client ID come from the provider file" sh -c "[ $? = 0 ] && [ $(refreshes) = $((n + 1)) ]"
grep -v '^provider-dir' "$T_TMP/provider.conf" >"$T_TMP/none.conf"
chmod 0600 "$T_TMP/none.conf"
XDG_DATA_HOME="$D" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/none.conf" --oauth-login >"$T_TMP/o" 2>&1
ok "no settings and no provider file: --oauth-login says what to set" sh -c "[ $? != 0 ] && grep -q 'account alice has no OAuth2 token URL (not in the settings of account alice): set oauth2-token-url and oauth2-client-id' '$T_TMP/o'"

echo "sent with a token" | alice -s "oauth send $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "-s sends through Postfix, which asks Dovecot about the token" sh -c "[ $? = 0 ] && grep -q 'sasl_method=OAUTHBEARER, sasl_username=alice@steed.test' '$STEED_POSTFIX_LOG'"
ok "it arrives at bob's" arrives bob INBOX "oauth send $u" 1
ok "and a copy is in alice's Sent" arrives alice Sent "oauth send $u" 1
echo "bob to alice" | bob -s "to alice $u" "$STEED_ALICE" >/dev/null 2>&1
ok "alice reads her INBOX with the token" arrives alice INBOX "to alice $u" 1
ok "the refresh token rotated at each refresh: the file holds the newest" sh -c "gpg --homedir '$D/steedmail/gnupg' --batch -q -d '$D/steedmail/oauth2-alice.asc' 2>/dev/null | grep -q '^rt-' && ! gpg --homedir '$D/steedmail/gnupg' --batch -q -d '$D/steedmail/oauth2-alice.asc' 2>/dev/null | grep -qxF '$(cat "$T_TMP/rt")'"
alice -d 3 --sync >/dev/null 2>&1
ok "no token in clear anywhere under the data or cache directory" sh -c "! grep -rqaE '(at|rt)-[A-Za-z0-9_-]{20}' '$D' '$T_TMP/alice-c'"

# --- expiry: before, and refused before its time mid-session --------------------
echo 8 >"$STEED_OAUTH_DIR/expires-in"
DLOG=$T_TMP/alice-c/steedmail/debug.log
n=$(refreshes)
rm -f "$DLOG"
alice -d 3 --idle --timeout 20 >"$T_TMP/idle" 2>&1 &
pid=$!
# in IDLE before its token is made to expire (a slow start, a sanitizer
# build under load, would otherwise log in after the kick)
for _ in $(seq 100); do
	grep -q 'IMAP: IDLE for up to' "$DLOG" 2>/dev/null && break
	sleep 0.1
done
as_post /test/expire
dove kick "$STEED_ALICE" >/dev/null
sleep 1
echo "after the kick" | bob -s "kick $u" "$STEED_ALICE" >/dev/null 2>&1
wait "$pid"; rc=$?
ok "a token refused before its time mid-session: --idle refreshes it and goes on" sh -c "[ $rc = 0 ] && grep -qx 'new mail' '$T_TMP/idle' && [ $(refreshes) -ge $((n + 2)) ]"
ok "the server refused the old token once; the new one was asked for then" sh -c "[ \$(grep -c 'IMAP login as alice@steed.test refused (OAuth2)' '$DLOG') = 1 ] && grep -q 'refreshing the access token (the server refused the last one)' '$DLOG'"
n=$(refreshes)
rm -f "$DLOG"
# (the time-out only bounds the wait: the new mail ends it; under load
# the reconnection, refresh and delivery may take more than a second).
# The kick comes 6.5 s after IDLE began, so at least that long after the
# token of 8 s was issued: less than its last quarter is left, whenever a
# slow start under load logged in.
alice -d 3 --idle --timeout 20 >"$T_TMP/idle" 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -q 'IMAP: IDLE for up to' "$DLOG" 2>/dev/null && break
	sleep 0.1
done
sleep 6.5
dove kick "$STEED_ALICE" >/dev/null
sleep 1
echo "near expiry" | bob -s "near $u" "$STEED_ALICE" >/dev/null 2>&1
wait "$pid"
ok "an access token about to expire is refreshed before it is used" sh -c "grep -qx 'new mail' '$T_TMP/idle' && [ $(refreshes) -ge $((n + 2)) ] && ! grep -q 'refused' '$DLOG'"
echo 3600 >"$STEED_OAUTH_DIR/expires-in"

# --- the interface: a token refused mid-session, then sending ------------------
printf '#!/bin/sh\necho "written in the interface" >>"$1"\n' >"$T_TMP/editor"
chmod +x "$T_TMP/editor"
tui_start ui env XDG_DATA_HOME="$D" XDG_CACHE_HOME="$T_TMP/alice-c" LANG=C.UTF-8 \
    TZ=UTC VISUAL= EDITOR="$T_TMP/editor" TMPDIR="$T_TMP" \
    "$STEEDMAIL" -F "$T_TMP/alice.conf"
ok "the interface opens alice's INBOX with the token" eval "tui_wait ui 'sort: date' 30 && tui_wait ui 'to alice $u' 30"
sleep 1
as_post /test/expire
dove kick "$STEED_ALICE" >/dev/null
echo "while the token was refused" | bob -s "ui kick $u" "$STEED_ALICE" >/dev/null 2>&1
ok "its token refused after a drop: the worker refreshes it, the new mail shows" tui_wait ui "ui kick $u" 60
tui_keys ui m
tui_wait ui "| compose" >/dev/null
# m asks To, then Subject, then opens the editor
tui_type ui "$STEED_BOB"; tui_keys ui Enter
for _ in $(seq 1 50); do
	tui_capture ui | tail -1 | grep -q '^Subject:' && break
	sleep 0.1
done
tui_type ui "from the interface $u"; tui_keys ui Enter
tui_wait ui "written in the interface" >/dev/null
tui_wait ui "Subject: from the interface $u" >/dev/null
tui_keys ui y
ok "y in compose: sent with the token" eval "tui_wait ui 'sent' 60 && tui_wait ui 'sort: date'"
ok "it arrives at bob's" arrives bob INBOX "from the interface $u" 1
tui_stop ui

# --- hostile answers from the token endpoint: said, nothing used --------------
hostile() {
	echo "$1" >"$STEED_OAUTH_DIR/hostile"
	alice --sync >"$T_TMP/o" 2>&1
	_rc=$?
	rm -f "$STEED_OAUTH_DIR/hostile"
	[ $_rc != 0 ] && grep -q -- "$2" "$T_TMP/o" || { cat "$T_TMP/o"; return 1; }
}
ok "1 MB from the token endpoint: not read further" hostile huge "the answer is larger than 64 kB"
ok "a web page instead of JSON: said" hostile html "answered HTTP 200 without a JSON object"
ok "an access token with a line end in it: refused, never sent" hostile crlf "has no usable access token"
ok "a redirect to plain http://: the form is not sent on" hostile redirect "redirected (HTTP 302): a form is never sent on"
sed "s|^oauth2-token-url = .*|oauth2-token-url = https://127.0.0.1:$STEED_HTTPS_PORT/token|" "$T_TMP/alice.conf" >"$T_TMP/wrongcert.conf"
chmod 0600 "$T_TMP/wrongcert.conf"
XDG_DATA_HOME="$D" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/wrongcert.conf" --sync >"$T_TMP/o" 2>&1
ok "a token endpoint whose certificate does not name it: refused" sh -c "[ $? != 0 ] && grep -q \"the server's certificate does not verify\" '$T_TMP/o'"
alice --sync >"$T_TMP/o" 2>&1
ok "after all that, the refresh token still works" sh -c "[ $? = 0 ] || { cat '$T_TMP/o'; exit 1; }"

# --- the authorization server down ----------------------------------------------
touch "$STEED_OAUTH_DIR/down"
echo "while it is down" | alice -s "down $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "authorization server down: -s keeps the message in the outbox and says why" sh -c "grep -q 'queued: .*the authorization server cannot be reached' '$T_TMP/o' && [ $(queued) = 1 ]"
alice --list >"$T_TMP/o" 2>"$T_TMP/e"
ok "--list still shows the cached headers, with the reason" sh -c "grep -qF 'to alice $u' '$T_TMP/o' && grep -q 'authorization server cannot be reached' '$T_TMP/e'"
rm -f "$STEED_OAUTH_DIR/down"
alice --flush >"$T_TMP/o" 2>&1
ok "the server back: --flush sends what waited" sh -c "[ $? = 0 ] && [ $(queued) = 0 ]"
ok "it arrives at bob's, once" arrives bob INBOX "down $u" 1

# --- a revoked refresh token ----------------------------------------------------------
as_post /test/revoke
alice --sync >"$T_TMP/o" 2>&1
ok "refresh token revoked: --sync says to sign in again" sh -c "[ $? != 0 ] && grep -q 'account alice must sign in again (steedmail -A alice --oauth-login): the authorization server refused the refresh token (revoked or expired): invalid_grant' '$T_TMP/o'"
echo "after the revocation" | alice -s "revoked $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "and -s keeps the message in the outbox" sh -c "grep -q 'queued: account alice must sign in again' '$T_TMP/o' && [ $(queued) = 1 ]"
TUI_COLS=200
tui_start rv env XDG_DATA_HOME="$D" XDG_CACHE_HOME="$T_TMP/alice-c" LANG=C.UTF-8 \
    TZ=UTC "$STEEDMAIL" -F "$T_TMP/alice.conf"
ok "the interface, refresh token revoked: the cached mail, and what to run" eval "tui_wait rv 'to alice $u' 30 && tui_wait rv 'must sign in again (steedmail -A alice --oauth-login)' 30"
login
ok "signed in again, in another terminal" test $? = 0
echo "after signing in again" | bob -s "again $u" "$STEED_ALICE" >/dev/null 2>&1
ok "the running interface takes the new sign-in at its next try: the new mail shows" tui_wait rv "again $u" 40
tui_stop rv
TUI_COLS=80
alice --flush >"$T_TMP/o" 2>&1
ok "--flush then sends it" sh -c "[ $? = 0 ] && [ $(queued) = 0 ]"
ok "it arrives at bob's, once" arrives bob INBOX "revoked $u" 1

# --- the code flow with PKCE, the browser on this machine (RFC 8252) -----------
# The browser: first a forged answer to the loopback port (another state),
# then the provider's page, whose redirect it follows back to steedmail.
cat >"$T_TMP/browser" <<EOF
#!/bin/sh
port=\$(printf %s "\$1" | sed -n 's/.*redirect_uri=http%3A%2F%2F127.0.0.1%3A\([0-9]*\)%2F.*/\1/p')
curl -s "http://127.0.0.1:\$port/?code=forged&state=forged" >"$T_TMP/forged"
curl -s -L --cacert "$STEED_CA_FILE" "\$1" >"$T_TMP/page"
EOF
chmod +x "$T_TMP/browser"
as_post /test/revoke
touch "$STEED_OAUTH_DIR/deny"
BROWSER=$T_TMP/browser alice --oauth-login --browser >"$T_TMP/o" 2>&1
ok "--browser, refused at the provider: said" sh -c "[ $? != 0 ] && grep -q 'the sign-in was refused at the provider: access_denied' '$T_TMP/o'"
rm -f "$STEED_OAUTH_DIR/deny"
BROWSER=$T_TMP/browser alice --oauth-login --browser >"$T_TMP/o" 2>&1
ok "--browser: signed in through the loopback redirect" sh -c "[ $? = 0 ] && grep -q '^Open this URL in a browser' '$T_TMP/o' && grep -q 'code_challenge_method=S256' '$T_TMP/o' && grep -q 'Signed in' '$T_TMP/o' && grep -q 'steedmail: signed in' '$T_TMP/page'"
ok "an answer with another state was turned away" grep -q 'not for the sign-in under way' "$T_TMP/forged"
alice --sync >"$T_TMP/o" 2>&1
ok "and the token from the code flow logs in" test $? = 0

# --- a password account is untouched ------------------------------------------------------
bob --sync >/dev/null 2>&1
ok "bob, with a password, still logs in with PLAIN" sh -c "[ $? = 0 ] && grep -q 'user=<bob@steed.test>, method=PLAIN' '$STEED_DOVECOT_LOG'"

