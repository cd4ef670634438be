# sync-trust.sh: --sync feeds the new messages into the trust store. alice
# sends a new user signed mail, signed and encrypted mail and plain mail
# through the real servers; a message with a broken signature and one
# with a broken structure are put into the INBOX with doveadm. The user's
# --sync alone (no --inspect, no --view) gives alice first contact and
# her signed message count; a second --sync, and a cold one with the
# header cache gone, fetch nothing again; sync-trust-limit is honoured
# (0 turns it off; --list looks at the newest only, --sync then at every
# one left behind, the newest first, also after a crash, and with more
# encrypted messages than the limit --list shows every real subject after
# --sync; messages opened three at once get the verdicts of one after the
# other: a key the first brings counts for the next); a message whose decryption needs a passphrase is
# skipped without a prompt, so is one over 2 MB, and a GnuPG home that
# cannot be used only costs a warning: the sync always succeeds.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
DOVE="doveadm -c $STEED_DOVECOT_CONF"
R=st-$$@steed.test
"$STEED_ENV_BIN/add-user" "$R" st-pw || bail "add-user failed"

# conf FILE [SETTING]: a configuration for the new user.
conf() {
	{ echo "ca-file = $STEED_CA_FILE"; [ -n "${2:-}" ] && echo "$2"
	  printf '\n[account st]\nname = Sync Trust\naddress = %s\n' "$R"
	  echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
	  echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
	  echo "password = st-pw"; } >"$1"
	chmod 600 "$1"
}
conf "$T_TMP/r.conf"
conf "$T_TMP/off.conf" "sync-trust-limit = 0"
conf "$T_TMP/two.conf" "sync-trust-limit = 2"
conf "$T_TMP/bad.conf" "sync-trust-limit = many"
# A GnuPG home that cannot be made: gpg cannot be used.
: >"$T_TMP/notadir"
conf "$T_TMP/nogpg.conf" "gnupg-home = $T_TMP/notadir/gnupg"

alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
# A second alice with no key at all: her mail carries no evidence.
plain_alice() { XDG_DATA_HOME="$T_TMP/alice-plain" XDG_CACHE_HOME="$T_TMP/alice-plain-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
# r [-d DATA] [-c CACHE] [-f CONF] ARGS: the new user.
r() {
	_d=$T_TMP/r _c=$T_TMP/r-c _f=$T_TMP/r.conf
	while :; do
		case $1 in
		-d) _d=$2; shift 2 ;;
		-c) _c=$2; shift 2 ;;
		-f) _f=$2; shift 2 ;;
		*) break ;;
		esac
	done
	XDG_DATA_HOME="$_d" XDG_CACHE_HOME="$_c" sm -F "$_f" "$@"
}
AH=$T_TMP/alice/steedmail/gnupg
RH=$T_TMP/r/steedmail/gnupg
PH=$T_TMP/rp/steedmail/gnupg
trap 'for h in "$AH" "$RH" "$PH" "$T_TMP/alice-plain/steedmail/gnupg"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT

inbox() { $DOVE search -u "$R" mailbox INBOX all 2>/dev/null | wc -l; }
# arrived N: wait until the INBOX holds N messages (without steedmail).
arrived() {
	for _ in $(seq 1 40); do
		[ "$(inbox)" -ge "$1" ] && return 0
		sleep 0.25
	done
	echo "the INBOX has $(inbox) messages, not $1"; return 1
}
u=$$-$(date +%s)

r --genkey >/dev/null 2>&1 || bail "--genkey failed"
r --export-key >"$T_TMP/r.asc" 2>/dev/null
alice --genkey >/dev/null 2>&1 || bail "alice --genkey failed"
alice --import-key - <"$T_TMP/r.asc" >/dev/null 2>&1
afpr=$(gpg --homedir "$AH" --with-colons -K 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')

# 1: signed, 2: signed and encrypted, 3: plain.
echo "signed $u" | alice -s "signed $u" --sign --no-encrypt "$R" >/dev/null 2>&1
ok "alice's signed message arrives" arrived 1
echo "secret $u" | alice -s "enc $u" --encrypt "$R" >/dev/null 2>&1
ok "her signed and encrypted one arrives" arrived 2
echo "plain $u" | plain_alice -s "plain $u" --no-encrypt "$R" >/dev/null 2>&1
ok "a plain one arrives" arrived 3
# 4: the signed message with its text changed (and a Message-ID of its own).
r --fetch 1 >"$T_TMP/m1.eml"
sed -e "s/^Message-ID: <\(.*\)>/Message-ID: <broken.\1>/I" \
    -e "s/^signed $u/changed $u/" "$T_TMP/m1.eml" >"$T_TMP/m4.eml"
ok "the altered copy differs in its signed text" sh -c "grep -q '^changed $u' '$T_TMP/m4.eml' && grep -qi '^Message-ID: <broken\.' '$T_TMP/m4.eml'"
$DOVE save -u "$R" -m INBOX <"$T_TMP/m4.eml"
# 5: multipart/signed without a boundary or a signature.
printf 'From: Alice Example <alice@steed.test>\r\nTo: %s\r\nSubject: broken %s\r\nMessage-ID: <broken-%s@steed.test>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/signed; protocol="application/pgp-signature"\r\n\r\nno parts here\r\n' "$R" "$u" "$u" |
	$DOVE save -u "$R" -m INBOX
ok "five messages in the INBOX" arrived 5

# The first --sync: four of them can carry evidence. The bad signature
# is evidence of nothing (unsigned); the broken structure cannot be
# checked, so it is left for when it is opened, with a warning.
r --sync >"$T_TMP/s1" 2>"$T_TMP/e1" </dev/null; rc=$?
cat "$T_TMP/e1" >>"$T_TMP/s1"
ok "--sync: exit 0" sh -c "[ $rc = 0 ] || { cat '$T_TMP/s1'; false; }"
ok "5 messages" grep -qx "5 messages" "$T_TMP/s1"
ok "one line: trust: 3 messages processed, 1 skipped" sh -c "grep -qx 'steedmail: INBOX: trust: 3 messages processed, 1 skipped' '$T_TMP/e1' || { cat '$T_TMP/e1'; false; }"
ok "one warning line names the broken one" sh -c "[ \$(grep -c warning '$T_TMP/e1') = 1 ] && grep -qx 'steedmail: warning: INBOX: trust: 1 message left for when it is opened: UID 5 (its signature could not be checked: .*)' '$T_TMP/e1' || { cat '$T_TMP/e1'; false; }"
r --trust show alice@steed.test >"$T_TMP/t1" 2>&1
ok "--trust show alice, without any --inspect: her key, from Autocrypt" sh -c "grep -q '^key: $afpr openpgp accepted; from autocrypt' '$T_TMP/t1' || { cat '$T_TMP/t1'; false; }"
ok "2 signed messages (the broken signature does not count)" sh -c "grep -q '^key: $afpr .*; 2 signed messages' '$T_TMP/t1' && grep -qx 'state: known' '$T_TMP/t1' && grep -qx 'pinned: $afpr' '$T_TMP/t1' || { cat '$T_TMP/t1'; false; }"
# What --inspect says now is what the sync stored: message 1 stays first contact.
r --inspect "$T_TMP/m1.eml" >"$T_TMP/i1" 2>&1
ok "--inspect of message 1 afterwards: the first-contact it earned at sync time" sh -c "grep -qx 'trust.state: first-contact' '$T_TMP/i1' && grep -qx 'trust.messages: 1' '$T_TMP/i1' || { cat '$T_TMP/i1'; false; }"
r --inspect "$T_TMP/m4.eml" >"$T_TMP/i4" 2>&1
ok "message 4 (changed text) is stored as unsigned: a bad signature counts for nothing" sh -c "grep -qx 'trust.state: unsigned' '$T_TMP/i4' && grep -q '^signature.1.status: bad' '$T_TMP/i4' || { cat '$T_TMP/i4'; false; }"

# Nothing new: nothing is processed again.
r --sync >"$T_TMP/s2" 2>&1
ok "a second --sync: nothing changed, no trust line" sh -c "grep -q 'nothing changed' '$T_TMP/s2' && ! grep -q 'trust:' '$T_TMP/s2' || { cat '$T_TMP/s2'; false; }"
# The header cache gone: all five are new again, but none is fetched again.
rm -rf "$T_TMP/r-c"
r --sync -d 2 >"$T_TMP/s3" 2>&1; rc=$?
ok "a cold --sync with the same trust store: 0 processed, 3 processed before" sh -c "[ $rc = 0 ] && grep -qx 'steedmail: INBOX: trust: 0 messages processed, 3 processed before, 1 skipped' '$T_TMP/s3' || { cat '$T_TMP/s3'; false; }"
ok "... its candidates came from the header cache the sync filled, not from a SEARCH of the server" \
    grep -q 'sync-trust: UIDs 1:5, the candidates from the header cache' "$T_TMP/r-c/steedmail/debug.log"
# A cache whose rows were stored before they carried the trust step's
# hints (evuid above them), its trust step to be done again: the server is
# asked, with the same outcome.
HC=$(ls "$T_TMP"/r-c/steedmail/*.hcache)
sqlite3 -batch "$HC" "UPDATE mailbox SET evuid = 100, trust_uid = 0" || bail "cannot age the cache"
: >"$T_TMP/r-c/steedmail/debug.log"
r --sync -d 2 >"$T_TMP/s3b" 2>&1; rc=$?
ok "rows without the hints: the trust step asks the server, and finds the same" sh -c "[ $rc = 0 ] && grep -qx 'steedmail: INBOX: trust: 0 messages processed, 3 processed before, 1 skipped' '$T_TMP/s3b' && grep -q 'sync-trust: UIDs 1:5, 4 with evidence' '$T_TMP/r-c/steedmail/debug.log' && ! grep -q 'from the header cache' '$T_TMP/r-c/steedmail/debug.log' || { cat '$T_TMP/s3b' '$T_TMP/r-c/steedmail/debug.log'; false; }"
r --trust show alice@steed.test >"$T_TMP/t2" 2>&1
ok "alice's count is unchanged: 2 signed messages" grep -q "^key: $afpr .*; 2 signed messages" "$T_TMP/t2"

# sync-trust-limit = 0: nothing at all.
r -d "$T_TMP/off" -c "$T_TMP/off-c" -f "$T_TMP/off.conf" --sync >"$T_TMP/s4" 2>&1; rc=$?
ok "sync-trust-limit = 0: the sync works, no trust line" sh -c "[ $rc = 0 ] && grep -qx '5 messages' '$T_TMP/s4' && ! grep -q 'trust' '$T_TMP/s4' || { cat '$T_TMP/s4'; false; }"
ok "and the trust store knows nobody" sh -c "[ -z \"\$(XDG_DATA_HOME='$T_TMP/off' '$STEEDMAIL' -F '$T_TMP/off.conf' --trust list 2>/dev/null)\" ]"
# sync-trust-limit = 2: --list looks at the newest two only (4 and 5)...
r -d "$T_TMP/two" -c "$T_TMP/two-c" -f "$T_TMP/two.conf" --list >"$T_TMP/s5" 2>&1
r -d "$T_TMP/two" -f "$T_TMP/two.conf" --trust show alice@steed.test >"$T_TMP/t5" 2>&1
ok "sync-trust-limit = 2, --list: only message 4's Autocrypt key counts, none of her signed messages" sh -c "grep -q '^key: $afpr .*; 0 signed messages' '$T_TMP/t5' || { cat '$T_TMP/s5' '$T_TMP/t5'; false; }"
# ... and the older ones stay pending: the next --sync, with nothing new,
# looks at them (2 and 1, the newest first; this home has no key for 2).
r -d "$T_TMP/two" -c "$T_TMP/two-c" -f "$T_TMP/two.conf" --sync >"$T_TMP/s5b" 2>&1
ok "then --sync, nothing new: the two left behind are looked at" sh -c "grep -q 'nothing changed' '$T_TMP/s5b' && grep -qx 'steedmail: INBOX: trust: 1 message processed, 1 skipped' '$T_TMP/s5b' && grep -q 'UID 2 (not decrypted: no secret key for it)' '$T_TMP/s5b' || { cat '$T_TMP/s5b'; false; }"
r -d "$T_TMP/two" -f "$T_TMP/two.conf" --trust show alice@steed.test >"$T_TMP/t5b" 2>&1
ok "and her signed message 1 counts now" sh -c "grep -q '^key: $afpr .*; 1 signed message,' '$T_TMP/t5b' || { cat '$T_TMP/t5b'; false; }"
r -d "$T_TMP/two" -c "$T_TMP/two-c" -f "$T_TMP/two.conf" --sync >"$T_TMP/s5c" 2>&1
ok "and the --sync after that nothing more" sh -c "! grep -q 'trust:' '$T_TMP/s5c' || { cat '$T_TMP/s5c'; false; }"
r -d "$T_TMP/bad" -c "$T_TMP/bad-c" -f "$T_TMP/bad.conf" --sync >"$T_TMP/s6" 2>&1; rc=$?
ok "sync-trust-limit = many: a warning, the default is used" sh -c "[ $rc = 0 ] && grep -q 'sync-trust-limit: \"many\" is not a number' '$T_TMP/s6' && grep -q 'trust: .* processed' '$T_TMP/s6' || { cat '$T_TMP/s6'; false; }"

r -d "$T_TMP/nogpg" -c "$T_TMP/nogpg-c" -f "$T_TMP/nogpg.conf" --sync >"$T_TMP/s8" 2>&1; rc=$?
ok "gpg cannot be used: the sync still works, one warning says why nothing was processed" sh -c "[ $rc = 0 ] && grep -qx '5 messages' '$T_TMP/s8' && [ \$(grep -c warning '$T_TMP/s8') = 1 ] && grep -q '^steedmail: warning: INBOX: trust: nothing processed: .*notadir' '$T_TMP/s8' || { cat '$T_TMP/s8'; false; }"

# A key with a passphrase: decryption fails instead of prompting.
mkdir -p "$PH" && chmod 700 "$T_TMP/rp" "$T_TMP/rp/steedmail" "$PH"
gpg --homedir "$PH" --batch --pinentry-mode loopback --passphrase 'pp' \
    --quick-gen-key "Sync Trust <$R>" future-default default never >/dev/null 2>&1
pfpr=$(gpg --homedir "$PH" --with-colons -k 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
printf 'Content-Type: text/plain\r\n\r\nfor the protected key %s\r\n' "$u" |
	gpg --homedir "$PH" --batch --trust-model always --armor --encrypt -r "$pfpr" >"$T_TMP/p.asc" 2>/dev/null
{ printf 'From: Alice Example <alice@steed.test>\r\nTo: %s\r\nSubject: protected %s\r\n' "$R" "$u"
  printf 'Message-ID: <protected-%s@steed.test>\r\nMIME-Version: 1.0\r\n' "$u"
  printf 'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="b"\r\n\r\n'
  printf -- '--b\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n\r\n'
  printf -- '--b\r\nContent-Type: application/octet-stream\r\n\r\n'
  sed 's/$/\r/' "$T_TMP/p.asc"; printf -- '--b--\r\n'; } | $DOVE save -u "$R" -m INBOX
ok "an encrypted message to the protected key is in the INBOX" arrived 6
ok "the key has a passphrase" sh -c "gpg-connect-agent --homedir '$PH' 'KEYINFO --list' /bye | grep -q ' P '"
env -u DISPLAY -u WAYLAND_DISPLAY -u GPG_TTY timeout 60 sh -c "XDG_DATA_HOME='$T_TMP/rp' XDG_CACHE_HOME='$T_TMP/rp-c' '$STEEDMAIL' -F '$T_TMP/r.conf' --sync </dev/null" >"$T_TMP/s7" 2>&1; rc=$?
ok "--sync in that home: exit 0, no prompt, no hang" sh -c "[ $rc = 0 ] || { echo rc $rc; cat '$T_TMP/s7'; false; }"
ok "the encrypted messages are left for when they are opened, and said so" sh -c "grep -q 'warning: INBOX: trust: 3 messages left for when they are opened: UID 2 (not decrypted: [^)]*), UID 5 (.*), UID 6 (not decrypted: [^)]*)' '$T_TMP/s7' || { cat '$T_TMP/s7'; false; }"
ok "the others are processed" grep -qx "steedmail: INBOX: trust: 2 messages processed, 3 skipped" "$T_TMP/s7"

# Over 2 MB: not fetched at sync time.
{ printf 'From: Alice Example <alice@steed.test>\r\nTo: %s\r\nSubject: big %s\r\n' "$R" "$u"
  printf 'Message-ID: <big-%s@steed.test>\r\nMIME-Version: 1.0\r\n' "$u"
  printf 'Content-Type: multipart/signed; protocol="application/pgp-signature"; micalg=pgp-sha256; boundary="s"\r\n\r\n'
  printf -- '--s\r\nContent-Type: text/plain\r\n\r\n'
  head -c 2400000 /dev/zero | tr '\0' 'x' | fold -w 76 | sed 's/$/\r/'
  printf -- '--s\r\nContent-Type: application/pgp-signature\r\n\r\nnone\r\n--s--\r\n'; } | $DOVE save -u "$R" -m INBOX
ok "a signed message of 2.4 MB is in the INBOX" arrived 7
rm -rf "$T_TMP/r-c"
r --sync >"$T_TMP/s9" 2>&1; rc=$?
ok "a cold --sync: the three done before are not fetched, the big one is skipped" sh -c "[ $rc = 0 ] && grep -qx 'steedmail: INBOX: trust: 0 messages processed, 3 processed before, 3 skipped' '$T_TMP/s9' && grep -q 'UID 6 (not decrypted: .*), UID 7 (larger than 2 MB)\$' '$T_TMP/s9' || { cat '$T_TMP/s9'; false; }"

# New mail with no signature, encryption or Autocrypt header: nothing to
# process, so no trust line at all (the sync's own line only).
echo "plain again $u" | plain_alice -s "plain again $u" --no-encrypt "$R" >/dev/null 2>&1
ok "another plain message arrives" arrived 8
r --sync >"$T_TMP/s10" 2>&1; rc=$?
ok "--sync of plain new mail: no trust line" sh -c "[ $rc = 0 ] && grep -q '1 new' '$T_TMP/s10' && ! grep -q 'trust:' '$T_TMP/s10' || { cat '$T_TMP/s10'; false; }"

# A sync killed after it stored the envelopes, before its trust step: the
# next sync (the envelopes are cached now) still gives the message to
# the trust store, instead of the header cache hiding it.
echo "late $u" | alice -s "late $u" --sign --no-encrypt "$R" >/dev/null 2>&1
ok "one more signed message arrives" arrived 9
STEEDMAIL_CRASH_AT=synced r --sync >"$T_TMP/s11" 2>&1; rc=$?
ok "a --sync killed before its trust step (SIGKILL)" sh -c "[ $rc = 137 ] && ! grep -q 'trust:' '$T_TMP/s11' || { echo rc $rc; cat '$T_TMP/s11'; false; }"
r --sync >"$T_TMP/s12" 2>&1; rc=$?
ok "the next --sync has nothing new, but does the trust step it missed" sh -c "[ $rc = 0 ] && grep -q 'nothing changed' '$T_TMP/s12' && grep -qx 'steedmail: INBOX: trust: 1 message processed' '$T_TMP/s12' || { cat '$T_TMP/s12'; false; }"
r --sync >"$T_TMP/s13" 2>&1; rc=$?
ok "and the one after that nothing more" sh -c "[ $rc = 0 ] && ! grep -q 'trust:' '$T_TMP/s13' || { cat '$T_TMP/s13'; false; }"

# More new encrypted messages than sync-trust-limit: --sync does the
# newest three first, then goes on, the newest first, with the others, so
# that --list shows every real subject (not "(encrypted)"). A sync killed
# on one of those left behind goes on after it the next time.
R2=st2-$$@steed.test
"$STEED_ENV_BIN/add-user" "$R2" st2-pw || bail "add-user failed"
{ echo "ca-file = $STEED_CA_FILE"; echo "sync-trust-limit = 3"
  printf '\n[account st2]\nname = Sync Trust Two\naddress = %s\n' "$R2"
  echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
  echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
  echo "password = st2-pw"; } >"$T_TMP/r2.conf"
chmod 600 "$T_TMP/r2.conf"
r2() { XDG_DATA_HOME="$T_TMP/r2" XDG_CACHE_HOME="${R2C:-$T_TMP/r2-c}" sm -F "$T_TMP/r2.conf" "$@"; }
R2H=$T_TMP/r2/steedmail/gnupg
trap 'for h in "$AH" "$RH" "$PH" "$R2H" "$T_TMP/alice-plain/steedmail/gnupg"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT
r2 --genkey >/dev/null 2>&1 || bail "--genkey failed"
r2 --export-key >"$T_TMP/r2.asc" 2>/dev/null
alice --import-key - <"$T_TMP/r2.asc" >/dev/null 2>&1
inbox2() { $DOVE search -u "$R2" mailbox INBOX all 2>/dev/null | wc -l; }
for i in 1 2 3 4 5 6 7 8; do
	echo "secret $i $u" | alice -s "sealed $i $u" --encrypt "$R2" >/dev/null 2>&1
done
for _ in $(seq 1 80); do [ "$(inbox2)" -ge 8 ] && break; sleep 0.25; done
ok "eight signed and encrypted messages arrive" sh -c "[ \$($DOVE search -u '$R2' mailbox INBOX all 2>/dev/null | wc -l) = 8 ]"
r2 --sync >"$T_TMP/s20" 2>&1; rc=$?
ok "--sync with sync-trust-limit = 3: all eight processed" sh -c "[ $rc = 0 ] && grep -qx 'steedmail: INBOX: trust: 8 messages processed' '$T_TMP/s20' || { cat '$T_TMP/s20'; false; }"
r2 --list >"$T_TMP/l20" 2>&1
ok "--list after it: every real subject, none (encrypted)" sh -c "[ \$(grep -c 'sealed [1-8] $u' '$T_TMP/l20') = 8 ] && ! grep -q '(encrypted)' '$T_TMP/l20' || { cat '$T_TMP/l20'; false; }"
# The same from a cold header cache and a trust store that knows them:
# killed on UID 4 (the newest three, 6 to 8, first; then those left
# behind, 5, 4, ..., three at a time).
R2C=$T_TMP/r2-c2
export R2C
STEEDMAIL_CRASH_AT=trust-uid-4 r2 --sync >"$T_TMP/s21" 2>&1; rc=$?
ok "a cold --sync killed on UID 4, one of those left behind" sh -c "[ $rc = 137 ] || { echo rc $rc; cat '$T_TMP/s21'; false; }"
r2 --list >"$T_TMP/l21" 2>&1
# (5 may have been being opened on the side when the process died: it
# dies with it.)
ok "--list then: 6 to 8 by their real subjects, 1 to 4 not yet" sh -c "[ \$(grep -c 'sealed [6-8] $u' '$T_TMP/l21') = 3 ] && [ \$(grep -c '^[1-4]	.*(encrypted)' '$T_TMP/l21') = 4 ] || { cat '$T_TMP/l21'; false; }"
r2 --sync >"$T_TMP/s22" 2>&1; rc=$?
r2 --list >"$T_TMP/l22" 2>&1
ok "the next --sync goes on after UID 4: 1 to 3 by their real subjects, 4 left for when it is opened" sh -c "[ $rc = 0 ] && [ \$(grep -c 'sealed [1-3] $u' '$T_TMP/l22') = 3 ] && grep -q '^4	.*(encrypted)' '$T_TMP/l22' || { cat '$T_TMP/s22' '$T_TMP/l22'; false; }"
unset R2C

# Messages opened at once give the verdicts of one after the other:
# carol's first signed message brings her key (Autocrypt), the two after
# it are signed by the same key and bring nothing. Opened on the side,
# those two would not find her key; in order they do, so all three count.
R3=st3-$$@steed.test
"$STEED_ENV_BIN/add-user" "$R3" st3-pw || bail "add-user failed"
sed -e "s/^address = .*/address = $R3/" -e 's/^password = .*/password = st3-pw/' \
    -e 's/^\[account st2\]/[account st3]/' "$T_TMP/r2.conf" >"$T_TMP/r3.conf"
chmod 600 "$T_TMP/r3.conf"
r3() { XDG_DATA_HOME="$T_TMP/r3" XDG_CACHE_HOME="$T_TMP/r3-c" sm -F "$T_TMP/r3.conf" "$@"; }
CH=$T_TMP/carol
mkdir -m 700 "$CH"
trap 'for h in "$AH" "$RH" "$PH" "$R2H" "$CH" "$T_TMP/r3/steedmail/gnupg" "$T_TMP/alice-plain/steedmail/gnupg"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT
gpg --homedir "$CH" --batch --pinentry-mode loopback --passphrase '' \
    --quick-gen-key "Carol <carol@steed.test>" ed25519 sign never >/dev/null 2>&1
cfpr=$(gpg --homedir "$CH" --with-colons -k 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
ckd=$(gpg --homedir "$CH" --export --export-options export-minimal "$cfpr" | base64 -w 72 | sed 's/^/ /')
# carol_msg N [autocrypt]: signed by carol, with her key or not.
carol_msg() {
	printf 'Content-Type: text/plain; charset=us-ascii\r\n\r\nfrom carol %s %s\r\n' "$1" "$u" >"$T_TMP/c$1.part"
	gpg --homedir "$CH" --batch --armor --detach-sign --digest-algo sha256 \
	    -u "$cfpr" -o - "$T_TMP/c$1.part" 2>/dev/null | sed 's/$/\r/' >"$T_TMP/c$1.sig"
	{ printf 'From: Carol <carol@steed.test>\r\nTo: %s\r\nSubject: carol %s %s\r\n' "$R3" "$1" "$u"
	  printf 'Date: Sat, 05 Dec 2026 10:0%s:00 +0000\r\nMessage-ID: <carol-%s-%s@steed.test>\r\n' "$1" "$1" "$u"
	  [ -n "${2:-}" ] && { printf 'Autocrypt: addr=carol@steed.test; keydata=\r\n'; printf '%s\n' "$ckd" | sed 's/$/\r/'; }
	  printf 'MIME-Version: 1.0\r\nContent-Type: multipart/signed; micalg=pgp-sha256;\r\n protocol="application/pgp-signature"; boundary="s"\r\n\r\n'
	  printf -- '--s\r\n'; cat "$T_TMP/c$1.part"
	  printf -- '\r\n--s\r\nContent-Type: application/pgp-signature\r\n\r\n'; cat "$T_TMP/c$1.sig"
	  printf -- '\r\n--s--\r\n'; } | $DOVE save -u "$R3" -m INBOX
}
carol_msg 1 autocrypt
carol_msg 2
carol_msg 3
ok "carol's three signed messages are in the INBOX" sh -c "[ \$($DOVE search -u '$R3' mailbox INBOX all 2>/dev/null | wc -l) = 3 ]"
r3 --sync >"$T_TMP/s30" 2>&1; rc=$?
ok "--sync: all three processed" sh -c "[ $rc = 0 ] && grep -qx 'steedmail: INBOX: trust: 3 messages processed' '$T_TMP/s30' || { cat '$T_TMP/s30'; false; }"
r3 --trust show carol@steed.test >"$T_TMP/t30" 2>&1
ok "her key from the first, and 3 signed messages: the two after it found it" sh -c "grep -q '^key: $cfpr openpgp accepted; from autocrypt.*; 3 signed messages' '$T_TMP/t30' || { cat '$T_TMP/t30'; false; }"

# The interface, from a cold header cache: the newest three before the
# first screen, then its worker fills the index in, the newest first, in
# the background, down to the oldest.
tui_start i env XDG_DATA_HOME="$T_TMP/r2" XDG_CACHE_HOME="$T_TMP/r2-c3" \
    HOME="$T_TMP" LANG=C.UTF-8 "$STEEDMAIL" -F "$T_TMP/r2.conf"
ok "80x24: the index shows the newest by its real subject" tui_wait i "sealed 8 $u" 30
ok "... and the worker fills in the oldest too" tui_wait i "sealed 1 $u" 60
check "... no (encrypted) row is left" sh -c "! tmux -S '$TUI_SOCK' capture-pane -p -t i | grep -q '(encrypted)'"
ok "... and no progress is left on the screen when it is done" tui_gone i "trust: checking" 10
tui_keys i q
tui_ended i >/dev/null
tui_stop i
