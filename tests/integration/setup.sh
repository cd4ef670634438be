# tests/integration/setup.sh: steedmail --setup, the batch form of the
# setup wizard, against the real servers of tests/env.
#
# A new person's home holds only what the machine would give them: the
# DNS resolver's configuration (the test zones) and the CA file (the test
# CA), no account. steedmail reaches the servers by the names the zones
# give (imap.steed.test, ...) through tests/tools/testhosts.so
# (with_test_hosts). Covered: servers from secure SRV records, an account
# that works (--list, --sync), the key and its DNS record found secure by
# --lookup, a second account beside the first with the comments kept and
# its password not in the file but encrypted to its key (password-file),
# decrypting to the password;
# refused: a wrong password, an untrusted certificate, a closed port, a
# server without TLS, servers nobody confirmed; discovery of an insecure
# SRV (a suggestion), a bogus one (refused), an MX host's domain, and a
# domain with nothing (quickly).
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_ENV:-}" ] || bail "STEED_ENV not set: run inside tests/env/run"
[ -f "$T_TESTHOSTS" ] || bail "$T_TESTHOSTS not built"
FS=$PWD/tests/tools/fakesrv.py
HOMES=

# home NAME: a new person's home (sets H), its configuration with only the
# resolver, the CA, and a comment that must survive.
home() {
	H=$T_TMP/home-$1
	mkdir -p "$H/config/steedmail" "$H/data" "$H/cache"
	chmod 700 "$H" "$H/config" "$H/data" "$H/cache"
	cat >"$H/config/steedmail/config" <<EOF
# $1's own comment: kept by --setup
dns-config = $STEED_DNS_CONF
ca-file = $STEED_CA_FILE
EOF
	chmod 600 "$H/config/steedmail/config"
	HOMES="$HOMES $H"
}

# as_home HOME CMD...: run CMD as the person of HOME, with the test hosts.
as_home() {
	local h=$1
	shift
	HOME=$h XDG_CONFIG_HOME=$h/config XDG_DATA_HOME=$h/data \
	    XDG_CACHE_HOME=$h/cache GNUPGHOME=$h/data/steedmail/gnupg \
	    with_test_hosts "$@"
}

# setup HOME ARGS...: steedmail --setup in HOME, output in $T_TMP/out,
# exit status in $rc.
setup() {
	local h=$1
	shift
	as_home "$h" "$STEEDMAIL" --setup "$@" >"$T_TMP/out" 2>&1 </dev/null
	rc=$?
	sed 's/^/#   /' "$T_TMP/out" >"$T_TMP/out.shown"
}
out_has() { has "$T_TMP/out" "$1" || { cat "$T_TMP/out.shown"; return 1; }; }
no_account() { ! grep -q '^\[account' "$1/config/steedmail/config"; }

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

# fake MODE [CERT KEY]: start fakesrv; sets FPORT, FLOG and FPID.
fake() {
	local mode=$1 portf=$T_TMP/fake.port
	shift
	FLOG=$T_TMP/fake.$mode.log
	: >"$FLOG"
	: >"$portf"
	python3 "$FS" "$mode" "$FLOG" "$@" --timeout 30 >"$portf" &
	FPID=$!
	for _ in $(seq 100); do
		[ -s "$portf" ] && break
		sleep 0.05
	done
	FPORT=$(cat "$portf")
	[ -n "$FPORT" ] || bail "fakesrv $mode did not start"
}

IMAPS=imaps://imap.steed.test:$STEED_IMAPS_PORT
SMTPS=smtps://smtp.steed.test:$STEED_SUBMISSIONS_PORT

# --- a new account, from secure SRV records -----------------------------

"$STEED_ENV_BIN/add-user" carol@steed.test carol-pw >/dev/null ||
	bail "add-user carol@steed.test"
home carol
C=$H
setup "$C" --name "Carol Example" --address carol@steed.test \
	--password-command 'echo carol-pw' --yes
ok "--setup for carol@steed.test: exit 0" test "$rc" = 0
ok "the IMAP server comes from the secure SRV record, verified" out_has \
	"IMAP: $IMAPS (DNS SRV _imaps._tcp.steed.test (DNSSEC-secure), certificate verified)"
ok "the submission server comes from the secure SRV record, verified" out_has \
	"SMTP: $SMTPS (DNS SRV _submissions._tcp.steed.test (DNSSEC-secure), certificate verified)"
ok "both logins were checked" sh -c "grep -q '^IMAP login: ok' '$T_TMP/out' &&
	grep -q '^SMTP login: ok' '$T_TMP/out'"
cp "$T_TMP/out" "$T_TMP/carol.out"

fpr=$(sed -n 's/^OpenPGP key: \([0-9A-F]\{40\}\) (made now)$/\1/p' "$T_TMP/carol.out")
ok "a key was made and its fingerprint printed" test -n "$fpr"
secret_key() {
	as_home "$C" gpg --batch --with-colons --list-secret-keys carol@steed.test |
		grep -q "^fpr:::::::::$fpr:"
}
ok "the printed fingerprint is carol's secret key in her GnuPG home" secret_key

CONF=$C/config/steedmail/config
saved() {
	grep -qx '\[account carol\]' "$CONF" &&
	grep -qx 'address = carol@steed.test' "$CONF" &&
	grep -qx "imap = $IMAPS" "$CONF" &&
	grep -qx "smtp = $SMTPS" "$CONF" &&
	grep -qx 'password-command = echo carol-pw' "$CONF" &&
	! grep -q '^password =' "$CONF" &&
	head -n 1 "$CONF" | grep -qx "# carol's own comment: kept by --setup" &&
	[ "$(stat -c %a "$CONF")" = 600 ]
}
ok "the account is saved (0600, the comment kept, no password in it)" saved

REC=$C/data/steedmail/dns-records-carol.zone
records() {
	[ "$(stat -c %a "$REC")" = 600 ] &&
	grep -q "IN TYPE61 " "$REC" &&
	grep -F "IN TYPE61 " "$T_TMP/carol.out" | cmp -s - <(grep -F "IN TYPE61 " "$REC") &&
	grep -qF "They are saved in $REC." "$T_TMP/carol.out" &&
	grep -qF "Give these lines to the administrator of the DNS of steed.test" "$T_TMP/carol.out" &&
	grep -qF "must be signed with DNSSEC" "$T_TMP/carol.out"
}
ok "the records are printed, saved in a 0600 file, with the advice" records

ok "the new account works: --sync" as_home "$C" "$STEEDMAIL" --sync
ok "the new account works: --list" as_home "$C" "$STEEDMAIL" --list
ok "the new account sends: -s to itself" as_home "$C" sh -c \
	'echo hello | "$0" -s "set up" carol@steed.test' "$STEEDMAIL"

# The printed record, published in the signed zone, is found secure.
line=$(grep -m1 -F "._openpgpkey.steed.test. " "$T_TMP/carol.out")
owner=$(echo "$line" | awk '{print $1}')
rdata=$(echo "$line" | sed 's/.* IN TYPE61 //')
"$STEED_ENV_BIN/zone-set" steed.test "$owner" TYPE61 "$rdata" >/dev/null ||
	bail "zone-set of carol's record"
lookup_secure() {
	# An answer bob's cache holds from before would hide the new record.
	rm -f "$STEED_ENV/home/bob/cache/steedmail/dns.sqlite"
	"$STEED_ENV_BIN/as" bob steedmail --lookup carol@steed.test \
	    >"$T_TMP/lookup" 2>&1
	grep -E "^carol@steed.test[[:space:]]+OPENPGPKEY[[:space:]]+secure[[:space:]].*$fpr" \
	    "$T_TMP/lookup" ||
		{ sed 's/^/#   /' "$T_TMP/lookup"; return 1; }
}
ok "the printed record, added to the zone: bob's --lookup finds carol's key, secure" \
	lookup_secure
"$STEED_ENV_BIN/zone-set" --delete steed.test "$owner" TYPE61 >/dev/null ||
	bail "zone-set --delete of carol's record"

# --- refusals: nothing is saved -----------------------------------------

home wrongpw
setup "$H" --name W --address carol@steed.test --password-command 'echo nope' --yes
ok "a wrong password: exit 77" test "$rc" = 77
ok "a wrong password: the server's words and what to do" sh -c "
	grep -q 'IMAP login as carol@steed.test refused: .*uthentication failed' '$T_TMP/out' &&
	grep -q 'run again with the right password' '$T_TMP/out'"
ok "a wrong password: no account saved" no_account "$H"

home cert
fake tls-cert "$STEED_UNTRUSTED_CERT" "$STEED_UNTRUSTED_KEY"
setup "$H" --name W --address carol@steed.test --password-command 'echo carol-pw' \
	--imap "imaps://imap.steed.test:$FPORT" --smtp "$SMTPS"
wait "$FPID" 2>/dev/null
want=$(openssl x509 -in "$STEED_UNTRUSTED_CERT" -noout -fingerprint -sha256 | sed 's/.*=//')
plain=$(echo "$want" | tr -d : | tr A-F a-f)
ok "an untrusted certificate: exit 69" test "$rc" = 69
ok "an untrusted certificate: its SHA-256, and --pin to accept exactly it" sh -c "
	grep -qF 'certificate is not trusted (SHA-256 $want)' '$T_TMP/out' &&
	grep -qF 'running again with --pin $plain' '$T_TMP/out'"
ok "an untrusted certificate: no login was sent" sh -c "! grep -qiE 'LOGIN|AUTHENTICATE|carol-pw' '$FLOG'"
ok "an untrusted certificate: no account saved" no_account "$H"

home closed
setup "$H" --name W --address carol@steed.test --password-command 'echo carol-pw' \
	--imap "imaps://imap.steed.test:1" --smtp "$SMTPS"
ok "a closed port: exit 75" test "$rc" = 75
ok "a closed port: what cannot be reached and how to correct it" sh -c "
	grep -q 'cannot connect to imap.steed.test' '$T_TMP/out' &&
	grep -q 'cannot reach imap.steed.test port 1: check the server' '$T_TMP/out'"
ok "a closed port: no account saved" no_account "$H"

home notls
fake imap-nostarttls
setup "$H" --name W --address carol@steed.test --password-command 'echo carol-pw' \
	--imap "imap://imap.steed.test:$FPORT" --smtp "$SMTPS"
wait "$FPID" 2>/dev/null
ok "IMAP without STARTTLS: refused, exit 69" test "$rc" = 69
ok "IMAP without STARTTLS: says no TLS, never in clear" out_has \
	"offers no TLS, and steedmail never sends a password in clear"
ok "IMAP without STARTTLS: no login was sent" sh -c "! grep -qiE 'LOGIN|AUTHENTICATE|carol-pw' '$FLOG'"
fake smtp-nostarttls
setup "$H" --name W --address carol@steed.test --password-command 'echo carol-pw' \
	--imap "$IMAPS" --smtp "smtp://smtp.steed.test:$FPORT"
wait "$FPID" 2>/dev/null
ok "SMTP without STARTTLS: refused, exit 69, says why" sh -c "[ $rc = 69 ] &&
	grep -q 'SMTP login to smtp.steed.test failed' '$T_TMP/out' &&
	grep -q 'offers no TLS' '$T_TMP/out'"
ok "SMTP without STARTTLS: no AUTH was sent" sh -c "! grep -qiE '^AUTH|carol-pw' '$FLOG'"
ok "no TLS: no account saved" no_account "$H"

setup "$H" --name W --address carol@steed.test --password-command 'echo carol-pw'
ok "servers found but not confirmed, no terminal: refused, exit 64" sh -c "[ $rc = 64 ] &&
	grep -q 'run again with --yes' '$T_TMP/out'"
ok "not confirmed: no account saved" no_account "$H"

# The certificate refused above, pinned: a home without the test CA, and
# -F naming a file that does not exist yet (made by --setup).
home pin
rm "$H/config/steedmail/config"
P=$H/new.conf
setup "$H" -F "$P" --name W --address carol@steed.test --password-command 'echo carol-pw' \
	--imap "$IMAPS" --smtp "smtp://smtp.steed.test:$STEED_SUBMISSION_PORT"
server=$(openssl x509 -in "$STEED_SERVER_CERT" -noout -fingerprint -sha256 | sed 's/.*=//')
ok "without the CA: the server's certificate is refused with its fingerprint" sh -c "
	[ $rc = 69 ] && grep -qF 'not trusted (SHA-256 $server)' '$T_TMP/out' && [ ! -e '$P' ]"
setup "$H" -F "$P" --name W --address carol@steed.test --password-command 'echo carol-pw' \
	--imap "$IMAPS" --smtp "smtp://smtp.steed.test:$STEED_SUBMISSION_PORT" --pin "$server"
pinned() {
	[ "$rc" = 0 ] && [ "$(stat -c %a "$P")" = 600 ] &&
	grep -qx "cert-fingerprint = $(echo "$server" | tr -d : | tr A-F a-f)" "$P" &&
	as_home "$H" "$STEEDMAIL" -F "$P" --folders | grep -q '^INBOX'
}
ok "run again with --pin: the account is saved with the pin, in the new file, and works" pinned
setup "$H" --name W --address carol@steed.test --imap "$IMAPS" --smtp "$SMTPS" --pin 12:34
ok "--pin with something that is not a fingerprint: exit 64" test "$rc" = 64

# --- a second account beside the first ----------------------------------

"$STEED_ENV_BIN/add-user" dave@steed.test dave-pw >/dev/null ||
	bail "add-user dave@steed.test"
echo dave-pw >"$T_TMP/pw"
as_home "$C" "$STEEDMAIL" --setup --name "Dave Example" --address dave@steed.test \
	--imap "$IMAPS" --smtp "$SMTPS" <"$T_TMP/pw" >"$T_TMP/out" 2>&1
rc=$?
ok "a second account, servers given, password on standard input: exit 0" \
	test "$rc" = 0
both() {
	grep -qx '\[account carol\]' "$CONF" &&
	grep -qx '\[account dave\]' "$CONF" &&
	head -n 1 "$CONF" | grep -qx "# carol's own comment: kept by --setup" &&
	[ "$(stat -c %a "$CONF")" = 600 ]
}
ok "the configuration holds both accounts, the comment, mode 0600" both
PWF=$C/data/steedmail/password-dave.asc
no_clear() {
	! grep -q '^password =' "$CONF" && ! grep -q 'dave-pw' "$CONF" &&
	grep -qx "password-file = $PWF" "$CONF" &&
	grep -qF "The password is kept encrypted to the account's key in $PWF (password-file), not in the configuration." "$T_TMP/out"
}
ok "no password in clear: the configuration names the file it is kept in" no_clear
pw_file() {
	[ "$(stat -c %a "$PWF")" = 600 ] && ! grep -q 'dave-pw' "$PWF" &&
	head -n 1 "$PWF" | grep -qx -- '-----BEGIN PGP MESSAGE-----' &&
	[ "$(as_home "$C" gpg --batch --quiet --decrypt "$PWF" 2>/dev/null)" = dave-pw ]
}
ok "... that file (0600) is encrypted to the account's key and decrypts to the password" pw_file
no_warning() {
	as_home "$C" "$STEEDMAIL" --check-config >"$T_TMP/cc" 2>&1 &&
	grep -q '2 accounts' "$T_TMP/cc" && ! grep -q 'in clear' "$T_TMP/cc"
}
ok "--check-config: no warning about a password in clear" no_warning
ok "the first account still works (-A carol --list)" as_home "$C" "$STEEDMAIL" -A carol --list
ok "the second account works (-A dave --sync), its password decrypted from the file" \
	as_home "$C" "$STEEDMAIL" -A dave --sync

# --- discovery ----------------------------------------------------------

home disc
setup "$H" --name W --address w@plain.test --password-command 'echo x' --yes
ok "plain.test: the SRV target is only a suggestion, and said so" out_has \
	"IMAP: imaps://mail.plain.test:$STEED_IMAPS_PORT (DNS SRV _imaps._tcp.plain.test (not DNSSEC-signed: only a suggestion)"
ok "plain.test: its certificate does not verify, nothing saved" sh -c "[ $rc != 0 ] &&
	grep -q 'not verified: TLS certificate of mail.plain.test is for' '$T_TMP/out'"
setup "$H" --name W --address w@broken.test --password-command 'echo x' --yes
ok "broken.test: the bogus SRV answers are refused with a note" sh -c "[ $rc = 69 ] &&
	grep -q '^note: DNS SRV _imaps._tcp.broken.test is bogus (DNSSEC validation failed' '$T_TMP/out' &&
	grep -q '^IMAP: none found' '$T_TMP/out'"
quick_nothing() {
	local t0 t1
	t0=$(date +%s%N)
	setup "$H" --name W --address w@nothing.plain.test --password-command 'echo x' --yes
	t1=$(date +%s%N)
	[ "$rc" = 69 ] && out_has "IMAP: none found" && out_has "SMTP: none found" &&
		out_has "no IMAP server found for nothing.plain.test: give it with --imap" &&
		[ $(( (t1 - t0) / 1000000 )) -lt 8000 ]
}
ok "a domain with nothing: both missing, in under 8 s" quick_nothing
"$STEED_ENV_BIN/zone-set" plain.test mx MX "10 mail.steed.test." >/dev/null ||
	bail "zone-set of mx.plain.test MX"
setup "$H" --name W --address carol@mx.plain.test --password-command 'echo carol-pw' --yes
ok "no SRV, an MX host: the usual names of its domain, probed and verified" sh -c "
	grep -qF 'IMAP: imaps://imap.steed.test (the domain of mail.steed.test, the MX host of mx.plain.test, certificate verified)' '$T_TMP/out' &&
	grep -qF 'SMTP: smtps://smtp.steed.test (the domain of mail.steed.test, the MX host of mx.plain.test, certificate verified)' '$T_TMP/out'"
"$STEED_ENV_BIN/zone-set" --delete plain.test mx MX >/dev/null ||
	bail "zone-set --delete of mx.plain.test MX"

# No SRV and no MX elsewhere: the usual names of the domain itself. The
# steed.test SRV records are taken away for this, then put back as
# tests/env/dns.sh made them (also if the script dies on the way).
srv_restore() {
	local z=$STEED_ENV_BIN/zone-set
	"$z" steed.test _imaps._tcp SRV "0 1 $STEED_IMAPS_PORT imap.steed.test." &&
	"$z" steed.test _imap._tcp SRV "0 1 $STEED_IMAP_PORT imap.steed.test." &&
	"$z" steed.test _submissions._tcp SRV "0 1 $STEED_SUBMISSIONS_PORT smtp.steed.test." &&
	"$z" steed.test _submission._tcp SRV "0 1 $STEED_SUBMISSION_PORT smtp.steed.test."
}
trap 'srv_restore >/dev/null; cleanup' EXIT
for s in _imaps._tcp _imap._tcp _submissions._tcp _submission._tcp; do
	"$STEED_ENV_BIN/zone-set" --delete steed.test "$s" SRV >/dev/null ||
		bail "zone-set --delete steed.test $s SRV"
done
setup "$H" --name W --address carol@steed.test --password-command 'echo carol-pw' --yes
ok "no SRV: the usual names imap. and smtp. of the domain, probed and verified" sh -c "
	grep -qF 'IMAP: imaps://imap.steed.test (the usual name for steed.test, certificate verified)' '$T_TMP/out' &&
	grep -qF 'SMTP: smtps://smtp.steed.test (the usual name for steed.test, certificate verified)' '$T_TMP/out'"
srv_restore >/dev/null || bail "putting the steed.test SRV records back"
trap cleanup EXIT
srv_back() {
	tests/tools/dnsq -c "$STEED_DNS_CONF" _imaps._tcp.steed.test SRV | grep -q '^status=secure .*count=1'
}
ok "the steed.test SRV records are back, secure" srv_back
