# tui-setup.sh: the setup wizard's screens, driven in tmux at 80x24 against
# tests/env. A new person with an empty home (only the test zones' DNS and
# the test CA configured, no account) starts steedmail: the wizard opens by
# itself; name, address, password; the servers found from the signed
# zone's SRV records, said to be secure; a wrong password is refused in
# plain words and typed again; the key is made and its fingerprint shown,
# the one gpg in that home then lists; the account is saved (0600), its
# password not in it but in the file it names, encrypted to the key, and
# the inbox opens. A second account added from the folders screen (A) appears
# without a restart, and Tab shows the other account's inbox; --setup on a
# terminal opens the wizard. In a third home: an untrusted certificate
# (fakesrv.py with the self-signed test certificate, typed as the IMAP URL)
# shows its SHA-256 fingerprint; a closed port says the server could not
# be reached and offers a way back; the setup message the first home
# exported is found, a wrong code imports nothing, the right one gives the
# same key; p sets a passphrase through pinentry. An address at
# autoconfig.test gets its servers from the domain's autoconfig document,
# and the screen says so and how far that is trusted. Last, contrib/demo
# --new opens the wizard for a new person, whose printed password works.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
[ -f "$T_TESTHOSTS" ] || bail "$T_TESTHOSTS is not built (make)"
FS=$PWD/tests/tools/fakesrv.py
DOVE="doveadm -c $STEED_DOVECOT_CONF"

A=tuisetup-$$@steed.test
B=tuisetup2-$$@steed.test
"$STEED_ENV_BIN/add-user" "$A" right-pw || bail "add-user failed"
"$STEED_ENV_BIN/add-user" "$B" other-pw || bail "add-user failed"

# A message in the first person's INBOX, to tell the two inboxes apart.
mhome=$($DOVE user -f home "$A") && [ -n "$mhome" ] || bail "no home for $A"
mkdir -p "$mhome/Maildir/cur" "$mhome/Maildir/new" "$mhome/Maildir/tmp" ||
	bail "cannot create $mhome"
printf 'From: Bob <bob@steed.test>\r\nTo: %s\r\nSubject: Welcome aboard\r\nDate: Tue, 2 Jan 2024 10:00:00 +0000\r\nMessage-ID: <w1@tui.test>\r\n\r\nhello\r\n' \
    "$A" >"$mhome/Maildir/cur/1700000001.M1P1.tui:2,S"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$mhome" || bail "chown failed"

# newhome NAME: an empty home in the environment (its GnuPG agent is
# stopped at teardown): no account, only the test DNS and CA.
newhome() {
	h=$STEED_ENV/home/$1
	rm -rf "$h"
	mkdir -p "$h/config/steedmail" "$h/data/steedmail/gnupg" "$h/cache" &&
		chmod 0700 "$h" "$h/data/steedmail/gnupg" || bail "cannot make $h"
	echo allow-loopback-pinentry >"$h/data/steedmail/gnupg/gpg-agent.conf"
	cat >"$h/config/steedmail/config" <<EOF
# the test environment's DNS and CA; no account yet
dns-config = $STEED_ENV/dns/unbound.conf
ca-file = $STEED_CA_FILE
EOF
	chmod 0600 "$h/config/steedmail/config"
}

# start NAME [OPTION]: steedmail in NAME's home, with the test zones' host names
# (with_test_hosts, spelled out: the pane runs a command, not a function).
start() {
	tui_start w env "LD_PRELOAD=$T_TESTHOSTS" \
	    "STEED_TEST_HOSTS=imap.steed.test smtp.steed.test mail.steed.test mail.plain.test $STEED_WEB_HOSTS" \
	    "STEED_TEST_PORTS=993:$STEED_IMAPS_PORT 465:$STEED_SUBMISSIONS_PORT 143:$STEED_IMAP_PORT 587:$STEED_SUBMISSION_PORT 443:$STEED_HTTPS_PORT" \
	    "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    "STEEDMAIL=$STEEDMAIL" "$STEED_ENV_BIN/as" "$1" steedmail ${2:+"$2"}
}

# you NAME ADDRESS PASSWORD: the first screen's three answers (in the
# pane $P, w unless set).
you() {
	tui_wait ${P:-w} "Your name:" && tui_type ${P:-w} "$1" &&
	tui_keys ${P:-w} Enter &&
	tui_wait ${P:-w} "Your address:" && tui_type ${P:-w} "$2" &&
	tui_keys ${P:-w} Enter &&
	tui_wait ${P:-w} "p or c?" && tui_keys ${P:-w} p &&
	tui_wait ${P:-w} "Password:" && tui_type ${P:-w} "$3" &&
	tui_keys ${P:-w} Enter
}

fails_grep() { ! grep -qE -- "$1" "$2"; }

# --- a new person, from an empty home to the inbox ------------------------
newhome tuisetup
cf=$STEED_ENV/home/tuisetup/config/steedmail/config
start tuisetup
ok "with no account, the wizard opens by itself" tui_wait w "Welcome to steedmail."
ok "name, address, password" you "Dora Example" "$A" wrong-pw
ok "the servers are found" tui_wait w "Your mail servers" 20
imap_secure() {
	tui_capture w >"$T_TMP/screen"
	grep -A1 'IMAP (reading):  imaps://imap.steed.test' "$T_TMP/screen" |
	    grep -q 'certificate verified' &&
	grep -A1 'IMAP found by:   DNS SRV _imaps._tcp.steed.test (DNSSEC-secure)' \
	    "$T_TMP/screen" | grep -q "the domain's own word, signed with DNSSEC" ||
		{ sed 's/^/# /' "$T_TMP/screen"; false; }
}
ok "... IMAP from the signed zone's SRV record, said to be secure" imap_secure
ok "... and the SMTP server" tui_wait_re w "SMTP \(sending\):  smtps?://smtp.steed.test"
tui_keys w Enter
ok "a wrong password: refused, in plain words" \
    tui_wait w "refused the password" 20
ok "... and asked again" tui_wait w "Password:"
tui_type w right-pw
tui_keys w Enter
ok "the key is made and its fingerprint shown" tui_wait w "OpenPGP:  " 60
fpr=$(tui_capture w | sed -n 's/^  OpenPGP:  //p' | tr -d ' ')
ok "... a whole fingerprint" sh -c "echo '$fpr' | grep -qE '^[0-9A-F]{40}$'"
ok "... without a passphrase, which is offered" tui_wait w "set a passphrase (optional)"
tui_keys w Enter
ok "saved: where, and the DNS records" tui_wait w "Your account is saved in" 20
ok "... where the password is kept, encrypted" \
    tui_wait w "Your password is kept encrypted to your key, in"
ok "... the OPENPGPKEY record shown" tui_wait w "OPENPGPKEY"
tui_keys w Enter
ok "then the inbox of the new account" tui_wait w "| $A | INBOX" 20
ok "... with its mail" tui_wait w "Welcome aboard" 20
ok "the configuration file exists, mode 0600" \
    sh -c "[ \"\$(stat -c %a '$cf')\" = 600 ]"
ok "... with the account, and no password in it" \
    sh -c "grep -q 'address = $A' '$cf' && ! grep -q 'right-pw' '$cf' &&
	! grep -q '^password =' '$cf'"
pwfile=$(sed -n 's/^password-file = //p' "$cf")
pw_kept() {
	[ -n "$pwfile" ] && [ "$(stat -c %a "$pwfile")" = 600 ] &&
	[ "$("$STEED_ENV_BIN/as" tuisetup gpg --batch --quiet --decrypt "$pwfile" 2>/dev/null)" = right-pw ]
}
ok "... but the file it names, 0600, encrypted to the key, holding it" pw_kept
ok "... and the comment it had" grep -q "no account yet" "$cf"
ok "gpg in that home lists the key shown, with the address" sh -c "
	'$STEED_ENV_BIN/as' tuisetup gpg --list-secret-keys --with-colons '<$A>' |
	    grep '^fpr' | head -1 | grep -q ':$fpr:'"

# --- a second account, added while steedmail runs ---------------------------
tui_keys w y
ok "the folders screen" tui_wait w "INBOX"
tui_keys w A
ok "A on the folders screen opens the wizard" tui_wait w "Welcome to steedmail."
you "Dora at work" "$B" other-pw
ok "the second account's servers" tui_wait w "Your mail servers" 20
tui_keys w Enter
ok "... its key" tui_wait w "OpenPGP:  " 60
tui_keys w Enter
tui_wait w "Your account is saved in" 20
tui_keys w Enter
ok "the second account's inbox, without a restart" tui_wait w "| $B | INBOX" 20
ok "... which is not the first one's" tui_gone w "Welcome aboard" 5
tui_keys w Tab
ok "Tab shows the other account's inbox" tui_wait w "| $A | INBOX" 10
ok "... with its mail" tui_wait w "Welcome aboard" 20
ok "... the status bar names the account" tui_wait_re w "^ \[[^]]+\] INBOX  1/1"
ok "both accounts are in the file" sh -c "grep -c '^address = ' '$cf' | grep -qx 2"
tui_keys w q
ok "q leaves" tui_ended w 10 >/dev/null
tui_stop w

# --- steedmail --setup on a terminal: the wizard, over the inbox ------------
start tuisetup --setup
ok "steedmail --setup on a terminal opens the wizard" \
    tui_wait w "Welcome to steedmail."
tui_keys w Escape
ok "... and Escape leaves it for the default account's inbox" \
    tui_wait w "| $A | INBOX"
tui_keys w q
tui_ended w 10 >/dev/null
tui_stop w

# --- an untrusted certificate, an unreachable server ------------------------
# fake MODE [CERT KEY]: start fakesrv; sets FPORT and FPID.
fake() {
	local mode=$1 portf=$T_TMP/fake.port
	shift
	: >"$portf"
	python3 "$FS" "$mode" "$T_TMP/fake.log" "$@" --timeout 60 >"$portf" &
	FPID=$!
	for _ in $(seq 100); do
		[ -s "$portf" ] && break
		sleep 0.05
	done
	FPORT=$(cat "$portf")
	[ -n "$FPORT" ] || bail "fakesrv $mode did not start"
}
fake tls-cert "$STEED_UNTRUSTED_CERT" "$STEED_UNTRUSTED_KEY"
# the first half of its SHA-256 fingerprint as the screen shows it
half=$(openssl x509 -in "$STEED_UNTRUSTED_CERT" -noout -fingerprint -sha256 |
    sed 's/.*=//' | cut -c1-47)

# the first home leaves a setup message for another device in the INBOX
with_test_hosts "$STEED_ENV_BIN/as" tuisetup "$STEEDMAIL" --export-setup \
    >"$T_TMP/export" 2>&1
code=$(sed -n 's/^Setup code: \([0-9]\{4\}\(-[0-9]\{4\}\)\{8\}\)$/\1/p' "$T_TMP/export")
ok "the first home exports a setup message (--export-setup)" test -n "$code"

newhome tuisetup3
start tuisetup3
you "Erin Example" "$A" right-pw
tui_wait w "Your mail servers" 20
tui_keys w i
tui_wait w "IMAP server:"
tui_keys w C-u
tui_type w "imaps://imap.steed.test:$FPORT"
tui_keys w Enter
ok "an IMAP URL typed in: said to be typed" tui_wait w "typed by you"
tui_keys w Enter
ok "an untrusted certificate: said so" \
    tui_wait w "The certificate of imap.steed.test could not be verified." 20
ok "... with its SHA-256 fingerprint" tui_wait w "$half"
ok "... and the choice to pin it" tui_wait w "pin this certificate"
kill "$FPID" 2>/dev/null
wait "$FPID" 2>/dev/null
tui_keys w Escape
ok "Escape goes back to the servers" tui_wait w "Your mail servers"

# a port nobody listens on
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
tui_keys w i
tui_wait w "IMAP server:"
tui_keys w C-u
tui_type w "imaps://imap.steed.test:$closed"
tui_keys w Enter
tui_wait w "typed by you"
tui_keys w Enter
ok "an unreachable server: said so" tui_wait w "imap.steed.test could not be reached." 30
ways() {
	tui_capture w >"$T_TMP/screen"
	grep -q 'e      change the servers' "$T_TMP/screen" &&
	    grep -q 'r      try again' "$T_TMP/screen"
}
ok "... with a way to change the servers and to try again" ways
tui_keys w e
ok "e goes back to the servers" tui_wait w "Your mail servers"
tui_keys w i
tui_wait w "IMAP server:"
tui_keys w C-u
tui_type w "imaps://imap.steed.test"
tui_keys w Enter
tui_keys w Enter
ok "corrected, the check goes on" \
    tui_wait w "A key from your other device" 60
ok "... and finds the other device's setup message, with its code's start" \
    tui_wait w "the first begins with $(echo "$code" | cut -c1-2))"
tui_keys w u
tui_wait w "Setup code:"
tui_type w "1111-2222-3333-4444-5555-6666-7777-8888-9999"
tui_keys w Enter
ok "a wrong setup code imports nothing, and says so" \
    tui_wait w "Nothing was imported" 30
tui_keys w u
tui_wait w "Setup code:"
tui_type w "$code"
tui_keys w Enter
ok "the right one: the key from the other device" \
    tui_wait_re w "^ +from your other device$" 60
fpr3=$(tui_capture w | sed -n 's/^  OpenPGP:  //p' | tr -d ' ')
same_key() {
	[ "$fpr3" = "$fpr" ] || { echo "# shown $fpr3, the first home's $fpr"; false; }
}
ok "... the first home's key" same_key
# p: gpg's pinentry gets the terminal; it asks for each of the key's
# (sub)keys' new passphrase and to repeat it
passphrase() {
	for _ in 1 2 3 4 5 6; do
		tui_wait_re w "Passphrase:|It has a passphrase\." 10 || return 1
		tui_capture w | grep -q "It has a passphrase." && return 0
		tui_type w "a passphrase 4 this key"
		tui_keys w Enter
		tui_gone w "Passphrase:" 2 2>/dev/null
	done
	tui_wait w "It has a passphrase." 10
}
tui_keys w p
ok "p: pinentry asks for a passphrase" tui_wait w "Please enter the new passphrase" 20
ok "... and the key has one" passphrase
# Escape back to the first step, and out: nothing was saved
tui_keys w Escape
tui_wait w "Your mail servers"
tui_keys w Escape
tui_wait w "Password:"
tui_keys w Escape
tui_wait w "p or c?"
tui_keys w Escape
tui_wait w "Your address:"
tui_keys w Escape
tui_wait w "Your name:"
tui_keys w Escape
ok "Escape on the first step leaves steedmail" tui_ended w 10
ok "... with no account saved" fails_grep '^\[account' \
    "$STEED_ENV/home/tuisetup3/config/steedmail/config"
ok "no sanitizer report" fails_grep 'Sanitizer|runtime error' "$T_TMP/tui-w.err"
tui_stop w

# --- servers from the domain's autoconfig ------------------------------------
newhome tuisetup4
start tuisetup4
you "Ann Example" "ann-$$@autoconfig.test" some-pw
ok "autoconfig.test: the servers are found" tui_wait w "Your mail servers" 20
from_autoconfig() {
	tui_capture w >"$T_TMP/screen"
	# the line wraps where it can: the URL may stand on a line of its own
	grep -A1 'IMAP (reading):  imaps://imap.steed.test' "$T_TMP/screen" |
	    grep -q 'certificate verified' &&
	grep -A2 'Found by:        autoconfig' "$T_TMP/screen" |
	    grep -q 'https://autoconfig.autoconfig.test/mail/config-v1.1.xml' &&
	grep -A4 'Found by:' "$T_TMP/screen" |
	    grep -q "the domain's own word over HTTPS: as sure as its web" ||
		{ sed 's/^/# /' "$T_TMP/screen"; false; }
}
ok "... from its autoconfig document, and how far that is trusted" from_autoconfig
tui_keys w Escape
tui_wait w "Password:"
tui_keys w Escape
tui_wait w "p or c?"
tui_keys w Escape
tui_wait w "Your address:"
tui_keys w Escape
tui_wait w "Your name:"
tui_keys w Escape
ok "... Escape all the way out" tui_ended w 10
tui_stop w

# --- contrib/demo --new -------------------------------------------------------
# a demo of its own (its own servers); its run file kept out of the user's
export STEED_DEMO_RUNFILE=$T_TMP/demo.run
P=d
tui_start d contrib/demo --new
ok "contrib/demo --new opens the setup wizard" \
    tui_wait d "Welcome to steedmail." 180
pw=$(sed -n 's/^demo: a new person: address zoe@steed.test, password //p' \
    "$T_TMP/tui-d.err")
ok "... and says which address and password to type" test -n "$pw"
you "Zoe Example" zoe@steed.test "$pw"
ok "... which find the servers" tui_wait d "Your mail servers" 30
tui_keys d Enter
ok "... and log in" tui_wait d "OpenPGP:  " 60
tui_keys d Enter
tui_wait d "Your account is saved in" 20
tui_keys d Enter
ok "... to zoe's inbox" tui_wait d "| zoe@steed.test | INBOX" 20
tui_keys d q
ok "q ends the demo" tui_ended d 60
