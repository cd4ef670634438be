# tui-oauth2.sh: the setup wizard signing in with OAuth2, in tmux at 80x24
# against tests/env. An address at signin.autoconfig.test, whose
# autoconfig document takes OAuth2 only (web.sh): the wizard asks no
# password, shows the servers and that the sign-in is on the provider's
# page, then the device grant's URL and code (tests/env/oauth.py) and
# waits; the code approved at the test authorization server, the account
# is saved with auth = oauth2 and no password, the refresh token kept in
# a file that is an OpenPGP message, and the new account lists its INBOX
# (steedmail --list) and opens in the interface; another key chosen after
# the sign-in gets the token file encrypted to it. At oauth.autoconfig.test
# (OAuth2 only, no client ID in its document) the client ID is asked
# for; a code denied at the provider, one that expires, an authorization
# server that is down: each said in plain words, the wizard still up;
# Escape stops the wait. At either.autoconfig.test, whose servers take a
# password or OAuth2, o chooses OAuth2 and p the password, below the
# sentence saying that an app password is wanted and where to make one.
# At browser.autoconfig.test (no device grant, as Google), the code flow:
# the page opened in a $BROWSER script (there is a DISPLAY), its address
# on the screen, refused once, then signed in and saved.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
[ -n "${STEED_OAUTH_URL:-}" ] || bail "the test environment has no authorization server"
[ -f "$T_TESTHOSTS" ] || bail "$T_TESTHOSTS is not built (make)"
command -v curl >/dev/null 2>&1 || bail "curl is not installed (contrib/install-deps installs it)"

AS=$STEED_OAUTH_URL
A=wiz-$$@signin.autoconfig.test
# Dovecot knows the user (its password is never used: the token names it)
"$STEED_ENV_BIN/add-user" "$A" never-used-pw || bail "add-user failed"
mhome=$(doveadm -c "$STEED_DOVECOT_CONF" user -f home "$A") && [ -n "$mhome" ] ||
	bail "no home for $A"
mkdir -p "$mhome/Maildir/cur" "$mhome/Maildir/new" "$mhome/Maildir/tmp" ||
	bail "cannot create $mhome"
printf 'From: Bob <bob@steed.test>\r\nTo: %s\r\nSubject: Signed in with a token\r\nDate: Tue, 2 Jan 2024 10:00:00 +0000\r\nMessage-ID: <o1@tui.test>\r\n\r\nhello\r\n' \
    "$A" >"$mhome/Maildir/cur/1700000001.M1P1.tui:2,S"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$mhome" || bail "chown failed"

# newhome NAME: an empty home (only the test DNS and CA), as tui-setup.sh.
newhome() {
	h=$STEED_ENV/home/$1
	rm -rf "$h"
	mkdir -p "$h/config/steedmail" "$h/data/steedmail/gnupg" "$h/cache" &&
		chmod 0700 "$h" "$h/data/steedmail/gnupg" || bail "cannot make $h"
	cat >"$h/config/steedmail/config" <<EOF
# the test environment's DNS and CA; no account yet
dns-config = $STEED_ENV/dns/unbound.conf
ca-file = $STEED_CA_FILE
EOF
	chmod 0600 "$h/config/steedmail/config"
}

start() {
	tui_start w env "LD_PRELOAD=$T_TESTHOSTS" \
	    "STEED_TEST_HOSTS=imap.steed.test smtp.steed.test mail.steed.test $STEED_WEB_HOSTS" \
	    "STEED_TEST_PORTS=993:$STEED_IMAPS_PORT 465:$STEED_SUBMISSIONS_PORT 143:$STEED_IMAP_PORT 587:$STEED_SUBMISSION_PORT 443:$STEED_HTTPS_PORT" \
	    "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    "STEEDMAIL=$STEEDMAIL" "$STEED_ENV_BIN/as" "$1" steedmail
}

# you NAME ADDRESS: the first screen's answers, no password.
you() {
	tui_wait w "Your name:" && tui_type w "$1" && tui_keys w Enter &&
	tui_wait w "Your address:" && tui_type w "$2" && tui_keys w Enter
}

# the code the screen shows (the line below "Type this code there:")
shown_code() {
	tui_capture w | sed -n '/Type this code there:/{n;s/^ *\([0-9][0-9-]*\) *$/\1/p;}'
}
approve() {
	curl -s --cacert "$STEED_CA_FILE" "$AS/verify?user_code=$1&user=$2${3:+&deny=1}"
}
fails_grep() { ! grep -qE -- "$1" "$2"; }
screen_has_not() {
	! tui_capture w | grep -qF -- "$1" || { tui_capture w | sed 's/^/# /'; false; }
}

# --- OAuth2 only: no password, the code shown, approved, the inbox ----------
newhome tuioauth
H=$STEED_ENV/home/tuioauth
cf=$H/config/steedmail/config
# another key the person has, to choose after signing in
"$STEED_ENV_BIN/as" tuioauth gpg --batch --quiet --pinentry-mode loopback \
    --passphrase '' --quick-gen-key 'Olga Other <olga@other.test>' default default never \
    >/dev/null 2>&1 || bail "cannot make a key"
other=$("$STEED_ENV_BIN/as" tuioauth gpg --with-colons --list-keys olga@other.test |
    awk -F: '$1 == "fpr" { print $10; exit }')
othersub=$("$STEED_ENV_BIN/as" tuioauth gpg --with-colons --list-keys olga@other.test |
    awk -F: '$1 == "sub" { print $5; exit }')
start tuioauth
ok "the wizard opens" tui_wait w "Welcome to steedmail."
ok "name and address" you "Olga Example" "$A"
ok "the servers are found, before any password" tui_wait w "Your mail servers" 20
ok "... and the sign-in is on the provider's page, no password" \
    tui_wait w "Sign-in:         on Sign-in Test Mail's own page (OAuth2): no password here"
ok "no password was asked" screen_has_not "Password:"
ok "... nor is a command to run shown" screen_has_not "--oauth-login"
tui_capture w >"$T_TMP/found.txt"
tui_keys w Enter
ok "Enter: the URL to open" tui_wait w "$AS/verify" 20
ok "... and the code to type there" tui_wait_re w "^ +[0-9]{4}-[0-9]{4} *$"
ok "... in words for someone new to it" \
    tui_wait w "steedmail never sees your password"
ok "... while it waits, counting" tui_wait_re w "Waiting for your approval\.\.\. 0:0[1-9] so far"
ok "still no password prompt" screen_has_not "Password:"
tui_capture w >"$T_TMP/code.txt"
code=$(shown_code)
ok "the code read off the screen" sh -c "echo '$code' | grep -qE '^[0-9]{4}-[0-9]{4}$'"
approve "$code" "$A" >/dev/null
ok "approved: the wizard goes on as after a password, to the key" \
    tui_wait w "OpenPGP:  " 60
ok "... the key made for the sign-in" tui_wait w "made now, in"
tui_keys w k
tui_wait w "Olga Other" 20
tui_keys w j
tui_keys w Enter
ok "another key chosen after the sign-in" tui_wait w "chosen from the keys you have"
tui_keys w Enter
ok "saved" tui_wait w "Your account is saved in" 30
ok "... with where the sign-in is kept" \
    tui_wait w "You sign in with OAuth2: no password is kept."
tui_capture w >"$T_TMP/saved.txt"
tui_keys w Enter
ok "then the new account's inbox, with its mail" \
    eval "tui_wait w '| $A | INBOX' 20 && tui_wait w 'Signed in with a token' 30"
tui_keys w q
tui_ended w 10 >/dev/null
tui_stop w

ok "the configuration says auth = oauth2" grep -qx 'auth = oauth2' "$cf"
ok "... with the document's endpoints and client ID" sh -c "
	grep -qx 'oauth2-token-url = $AS/token' '$cf' &&
	grep -qx 'oauth2-device-url = $AS/device' '$cf' &&
	grep -qx 'oauth2-client-id = steedmail-test' '$cf'"
ok "... and no password of any kind" fails_grep '^password' "$cf"
tf=$H/data/steedmail/oauth2-wiz-$$.asc
ok "the token file exists, mode 0600" sh -c "[ \"\$(stat -c %a '$tf')\" = 600 ]"
ok "... an OpenPGP message, not the token in clear" sh -c "
	head -1 '$tf' | grep -q 'BEGIN PGP MESSAGE' && ! grep -qa 'rt-' '$tf'"
ok "... encrypted to the key chosen, which the account names" sh -c "
	[ -n '$othersub' ] && grep -qx 'key = $other' '$cf' &&
	'$STEED_ENV_BIN/as' tuioauth gpg --batch --list-packets '$tf' 2>&1 | grep -qi 'keyid $othersub'"
ok "... that decrypts with the account's key to a refresh token" sh -c "
	'$STEED_ENV_BIN/as' tuioauth gpg --batch --quiet --decrypt '$tf' 2>/dev/null | grep -q '^rt-'"
ok "no token in clear anywhere in that home" sh -c "! grep -rqaE '(at|rt)-[A-Za-z0-9_-]{20}' '$H'"
with_test_hosts "$STEED_ENV_BIN/as" tuioauth "$STEEDMAIL" --list >"$T_TMP/list" 2>&1
ok "steedmail --list: the new account lists its INBOX with the token" sh -c "
	[ $? = 0 ] && grep -q 'Signed in with a token' '$T_TMP/list' || { cat '$T_TMP/list'; false; }"
ok "... logging in with OAUTHBEARER" grep -q "user=<$A>, method=OAUTHBEARER" "$STEED_DOVECOT_LOG"
ok "no sanitizer report" fails_grep 'Sanitizer|runtime error' "$T_TMP/tui-w.err"

# --- no client ID known, denied, expired, down, Escape ----------------------
newhome tuioauth2
start tuioauth2
you "Oscar Example" "x-$$@oauth.autoconfig.test"
ok "OAuth2 only, no client ID: the servers, no password" tui_wait w "Your mail servers" 20
tui_keys w Enter
ok "the client ID is asked for, and why" \
    eval "tui_wait w 'Client ID:' && tui_wait w 'type the client ID of the one you'"
tui_type w steedmail-test
tui_keys w Enter
tui_wait w "Type this code there:" 20
code=$(shown_code)
approve "$code" "x-$$@oauth.autoconfig.test" deny >/dev/null
ok "a sign-in denied at the provider: said in plain words" \
    tui_wait w "The sign-in was refused." 20
ok "... with the provider's words, and a way on" \
    eval "tui_wait w 'the user said no' && tui_wait w 'sign in again, with a new code'"
tui_capture w >"$T_TMP/denied.txt"
echo 3 >"$STEED_OAUTH_DIR/device-expires-in"
tui_keys w r
ok "r: a new code" tui_wait w "Type this code there:" 20
ok "a code that expires before it is approved: said" \
    tui_wait w "The code expired before the sign-in was approved." 20
tui_capture w >"$T_TMP/expired.txt"
rm -f "$STEED_OAUTH_DIR/device-expires-in"
touch "$STEED_OAUTH_DIR/down"
tui_keys w r
ok "the authorization server down: said" \
    tui_wait w "The sign-in service of OAuth Test Mail cannot be reached." 40
tui_capture w >"$T_TMP/down.txt"
rm -f "$STEED_OAUTH_DIR/down"
tui_keys w r
tui_wait w "Type this code there:" 20
tui_keys w Escape
ok "Escape stops the wait and goes back to the servers" \
    eval "tui_wait w 'The sign-in was stopped.' && tui_wait w 'Your mail servers'"
ok "... and nothing was saved" fails_grep '^\[account' \
    "$STEED_ENV/home/tuioauth2/config/steedmail/config"
ok "... nor a token kept" sh -c "! ls '$STEED_ENV/home/tuioauth2/data/steedmail/' | grep -q oauth2-"
tui_keys w Escape
ok "Escape from the servers: back to the address" tui_wait w "Your address:"
tui_keys w Escape
tui_wait w "Your name:"
tui_keys w Escape
ok "... and out" tui_ended w 10
ok "no sanitizer report" fails_grep 'Sanitizer|runtime error' "$T_TMP/tui-w.err"
tui_stop w
# --- a password or OAuth2: the person chooses --------------------------------
newhome tuioauth3
start tuioauth3
you "Eve Example" "e-$$@either.autoconfig.test"
ok "servers that take a password or OAuth2: the choice is offered" \
    eval "tui_wait w 'p, c or o?' 20 && tui_wait w 'sign in on your provider'"
ok "... and, before any password, that an app password is wanted and where" \
    tui_wait w "make one at https://either.autoconfig.test/app-passwords"
tui_capture w >"$T_TMP/either.txt"
tui_keys w o
ok "o: the servers, to sign in on the provider's page" \
    tui_wait w "Sign-in:         on Either Test Mail's own page (OAuth2)" 20
tui_keys w Enter
ok "... Enter: the code" tui_wait w "Type this code there:" 20
tui_keys w Escape
tui_wait w "Your mail servers"
tui_keys w Escape
ok "Escape twice: the choice again" tui_wait w "p, c or o?"
tui_keys w p
ok "p: the password after all, the app password said above it" \
    eval "tui_wait w 'Password:' && tui_wait w 'Not your usual password:'"
tui_capture w >"$T_TMP/either-password.txt"
tui_keys w Escape
tui_wait w "p, c or o?"
tui_keys w Escape
tui_wait w "Your address:"
tui_keys w Escape
tui_wait w "Your name:"
tui_keys w Escape
ok "... and out" tui_ended w 10
tui_stop w

# --- no device grant: a browser on this computer (the code flow) ------------
# The browser: the provider's page, whose redirect it follows back to
# steedmail's port on 127.0.0.1.
cat >"$T_TMP/browser" <<EOF
#!/bin/sh
echo "\$1" >"$T_TMP/browser.url"
sleep 2
curl -s -L --cacert "$STEED_CA_FILE" "\$1" >"$T_TMP/page"
EOF
chmod +x "$T_TMP/browser"
newhome tuioauth4
H4=$STEED_ENV/home/tuioauth4
tui_start w env "LD_PRELOAD=$T_TESTHOSTS" DISPLAY=:99 "BROWSER=$T_TMP/browser" \
    "STEED_TEST_HOSTS=imap.steed.test smtp.steed.test mail.steed.test $STEED_WEB_HOSTS" \
    "STEED_TEST_PORTS=993:$STEED_IMAPS_PORT 465:$STEED_SUBMISSIONS_PORT 143:$STEED_IMAP_PORT 587:$STEED_SUBMISSION_PORT 443:$STEED_HTTPS_PORT" \
    "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "STEEDMAIL=$STEEDMAIL" "$STEED_ENV_BIN/as" tuioauth4 steedmail
you "Bea Example" "b-$$@browser.autoconfig.test"
ok "no device grant: the servers, no password" \
    tui_wait w "Sign-in:         on Browser Test Mail's own page (OAuth2)" 20
touch "$STEED_OAUTH_DIR/deny"
tui_keys w Enter
ok "refused in the browser: said" tui_wait w "The sign-in was refused." 30
tui_capture w >"$T_TMP/browser-denied.txt"
ok "... the browser was sent to the provider's page, with PKCE" \
    grep -q "^$AS/authorize?.*code_challenge_method=S256" "$T_TMP/browser.url"
rm -f "$STEED_OAUTH_DIR/deny"
tui_keys w r
ok "r: the page opened in the browser, its address shown, the return waited for" \
    eval "tui_wait w 'steedmail opened the page in your browser.' 20 &&
	tui_wait w '$AS/authorize?' && tui_wait w 'Waiting for the browser...'"
tui_capture w >"$T_TMP/browser-wait.txt"
ok "r: the browser signs in and comes back; the wizard goes on to the key" \
    tui_wait w "OpenPGP:  " 60
ok "... and the browser was told it worked" grep -q "steedmail: signed in" "$T_TMP/page"
tui_keys w Enter
ok "saved" tui_wait w "You sign in with OAuth2: no password is kept." 30
tui_keys w Enter
ok "the inbox" tui_wait w "| b-$$@browser.autoconfig.test | INBOX" 20
tui_keys w q
tui_ended w 10 >/dev/null
tui_stop w
cf4=$H4/config/steedmail/config
ok "the configuration: auth = oauth2, the authorization URL, no password" sh -c "
	grep -qx 'auth = oauth2' '$cf4' &&
	grep -qx 'oauth2-auth-url = $AS/authorize' '$cf4' &&
	! grep -q '^password' '$cf4'"
ok "... the token file an OpenPGP message" \
    sh -c "head -1 '$H4/data/steedmail/oauth2-b-$$.asc' | grep -q 'BEGIN PGP MESSAGE'"
ok "no sanitizer report" fails_grep 'Sanitizer|runtime error' "$T_TMP/tui-w.err"

# --- signed in, then given up before saving: no token file is left ---------
newhome tuigiveup
H5=$STEED_ENV/home/tuigiveup
start tuigiveup
you "Gus Giveup" "$A" >/dev/null
tui_wait w "Sign-in:         on Sign-in Test Mail's own page" 20 >/dev/null
tui_keys w Enter
tui_wait_re w "^ +[0-9]{4}-[0-9]{4} *$" 20 >/dev/null
approve "$(shown_code)" "$A" >/dev/null
ok "approved, at the key step" tui_wait w "OpenPGP:  " 60
ok "... the token file is there while the wizard is" \
    sh -c "ls '$H5'/data/steedmail/oauth2-*.asc >/dev/null 2>&1"
for _ in 1 2 3 4 5 6 7 8; do
	[ -s "$T_TMP/tui-w.status" ] && break
	tui_keys w Escape
	sleep 0.5
done
ok "Escape back out of the wizard, nothing saved" tui_ended w 10
tui_stop w
ok "... and no token file is left behind" \
    sh -c "! ls '$H5'/data/steedmail/oauth2-*.asc 2>/dev/null | grep -q ."
ok "... nor an account in the configuration" \
    fails_grep '^\[account' "$H5/config/steedmail/config"
ok "no sanitizer report" fails_grep 'Sanitizer|runtime error' "$T_TMP/tui-w.err"

if [ -n "${TUI_OAUTH_SCREENS:-}" ]; then
	mkdir -p "$TUI_OAUTH_SCREENS"
	cp "$T_TMP"/*.txt "$TUI_OAUTH_SCREENS/"
fi
