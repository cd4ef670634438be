# protected.sh: protected headers (RFC 9788) wherever headers are shown.
# alice sends bob PGP/MIME and S/MIME mail, signed and encrypted, through
# steedmail and the real servers; gpg and gpgsm make the rest by hand (an
# encrypted-only message with a legacy display and References only
# inside, one to a key bob does not have, an S/MIME enveloped one no
# signature covers). After bob's --sync, with no message opened, --list
# shows the real subjects, sorts and limits by them and threads by the
# References inside; the one he cannot decrypt is "(encrypted)", and the
# enveloped one keeps its outer Subject (nothing vouches for the inner
# one). The header cache is 0600; cache-protected-headers = no forgets
# the decrypted subjects, file and journal. In tmux at 80x24 (UTF-8 and
# LANG=C) bob's index shows the real subject and "(encrypted)"; once the
# missing key is there, opening that message fills its row in.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
export TZ=UTC
DOVE="doveadm -c $STEED_DOVECOT_CONF"

# Both with S/MIME certificates too, the test zones for DNS; bob also
# with the cache of protected values turned off.
for _u in alice bob; do
	{ echo "dns-config = $STEED_DNS_CONF"; cat "$STEED_ENV/$_u.conf"
	  echo "smime = yes"; } >"$T_TMP/$_u.conf"
done
{ echo "cache-protected-headers = no"; cat "$T_TMP/bob.conf"; } >"$T_TMP/bob-off.conf"
chmod 600 "$T_TMP"/*.conf
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob.conf" "$@"; }
bob_off() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob-off.conf" "$@"; }
AH=$T_TMP/alice/steedmail/gnupg
BH=$T_TMP/bob/steedmail/gnupg
CH=$T_TMP/carol			# gpg: a key bob does not have
SH=$T_TMP/gpgsm			# gpgsm: bob's certificate, for enveloping
mkdir -m 700 "$CH" "$SH"
trap 'for h in "$AH" "$BH" "$CH" "$SH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT
u=$$-$(date +%s)

# --- Keys ---------------------------------------------------------------
alice --genkey >/dev/null 2>&1 || bail "alice --genkey failed"
bob --genkey >/dev/null 2>&1 || bail "bob --genkey failed"
bob --export-key | alice --import-key - >/dev/null 2>&1
bob --export-key --smime | alice --import-key - >/dev/null 2>&1
alice --export-key | bob --import-key - >/dev/null 2>&1
alice --export-key --smime | bob --import-key - >/dev/null 2>&1
g() { _h=$1; shift; gpg --homedir "$_h" --batch --quiet --no-tty \
    --pinentry-mode loopback --passphrase '' --trust-model always "$@"; }
g "$CH" --quick-gen-key "Carol <carol@steed.test>" default default never 2>/dev/null
bob --export-key >"$T_TMP/bob.asc" 2>/dev/null
g "$CH" --import "$T_TMP/bob.asc" 2>/dev/null
bob --export-key --smime >"$T_TMP/bob.crt" 2>/dev/null
gpgsm --homedir "$SH" --batch --import "$T_TMP/bob.crt" >/dev/null 2>&1
gpgsm --homedir "$SH" --with-colons -k 2>/dev/null | awk -F: '/^fpr/ { print $10 " S relax" }' >"$SH/trustlist.txt"
gpgconf --homedir "$SH" --reload gpg-agent >/dev/null 2>&1
ok "keys: alice and bob, both protocols; carol's, which bob lacks" sh -c "
	gpg --homedir '$BH' -K bob@steed.test && gpgsm --homedir '$BH' -K bob@steed.test &&
	gpg --homedir '$CH' -K carol@steed.test && ! gpg --homedir '$BH' -K carol@steed.test"

# --- The mail ---------------------------------------------------------------
home=$($DOVE user -f home "$STEED_BOB") && [ -n "$home" ] || bail "no home for bob"
inbox() { $DOVE search -u "$STEED_BOB" mailbox INBOX all 2>/dev/null | wc -l; }
arrived() {
	for _ in $(seq 1 60); do
		[ "$(inbox)" -ge "$1" ] && return 0
		sleep 0.25
	done
	echo "bob's INBOX has $(inbox) messages, not $1"; return 1
}
save() { sed 's/$/\r/' | $DOVE save -u "$STEED_BOB" -m INBOX; }
crlf() { sed 's/$/\r/'; }

# 1: steedmail, PGP/MIME signed and encrypted.
echo "the plan is in the garden $u" | alice -s "Garden plan $u" --encrypt "$STEED_BOB" >/dev/null 2>&1
ok "1: alice's signed and encrypted message arrives" arrived 1
mid1=$($DOVE fetch -u "$STEED_BOB" hdr mailbox INBOX all 2>/dev/null | sed -n 's/^Message-ID: *//Ip' | head -1 | tr -d '\r')
# 2: plain, later.
printf 'From: Dave <dave@steed.test>\nTo: %s\nSubject: Zucchini for sale %s\nMessage-ID: <plain-%s@steed.test>\nDate: Tue, 2 Jan 2024 10:00:00 +0000\n\nfresh\n' \
    "$STEED_BOB" "$u" "$u" | save
# 3: gpg, PGP/MIME encrypted only (no signature), an answer to 1 whose
# References are only inside, with a legacy display (RFC 9788 4.5.3).
{ printf 'Content-Type: text/plain; charset=utf-8; hp="cipher"; hp-legacy-display="1"\n'
  printf 'Subject: Apple harvest %s\nFrom: Alice Example <alice@steed.test>\nTo: %s\n' "$u" "$STEED_BOB"
  printf 'Date: Wed, 3 Jan 2024 10:00:00 +0000\nMessage-ID: <gpg-%s@steed.test>\n' "$u"
  printf 'In-Reply-To: %s\nReferences: %s\nHP-Outer: Subject: [...]\n\n' "$mid1" "$mid1"
  printf 'Subject: Apple harvest %s\n\nLEGACYTEST the apples are ripe %s\n' "$u" "$u"; } | crlf |
	g "$CH" --armor --encrypt -r "$STEED_BOB" >"$T_TMP/3.asc" 2>/dev/null
# encrypted TO FILE SUBJECT MID: a PGP/MIME message around FILE.
encrypted() {
	printf 'From: %s\nTo: %s\nSubject: %s\nMessage-ID: <%s>\nDate: Wed, 3 Jan 2024 10:00:00 +0000\nMIME-Version: 1.0\n' \
	    "$1" "$STEED_BOB" "$3" "$4"
	printf 'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="b"\n\n'
	printf -- '--b\nContent-Type: application/pgp-encrypted\n\nVersion: 1\n\n'
	printf -- '--b\nContent-Type: application/octet-stream\n\n'
	cat "$2"; printf -- '--b--\n'
}
encrypted "Alice Example <alice@steed.test>" "$T_TMP/3.asc" "[...]" "gpg-$u@steed.test" | save
# 4: gpg, to carol's key: bob cannot decrypt it.
printf 'Content-Type: text/plain; charset=utf-8; hp="cipher"\nSubject: Carrots for carol %s\nFrom: Carol <carol@steed.test>\nTo: %s\n\nCARROTBODY %s\n' \
    "$u" "$STEED_BOB" "$u" | crlf | g "$CH" --armor --encrypt -r carol@steed.test >"$T_TMP/4.asc" 2>/dev/null
encrypted "Carol <carol@steed.test>" "$T_TMP/4.asc" "..." "carol-$u@steed.test" | save
# 5: steedmail, S/MIME signed and enveloped.
echo "smime secret $u" | alice -s "Smime melons $u" --encrypt --smime "$STEED_BOB" >/dev/null 2>&1
ok "5: alice's S/MIME message arrives" arrived 5
# 6: gpgsm, S/MIME enveloped only: nothing vouches for its inner header.
{ printf 'Content-Type: text/plain; charset=utf-8; hp="cipher"; hp-legacy-display="1"\n'
  printf 'Subject: Unvouched %s\nFrom: Alice Example <alice@steed.test>\n\n' "$u"
  printf 'Subject: Unvouched %s\n\nENVELOPED %s\n' "$u" "$u"; } | crlf >"$T_TMP/6.in"
gpgsm --homedir "$SH" --batch --disable-crl-checks --disable-dirmngr -r "$STEED_BOB" \
    --encrypt "$T_TMP/6.in" 2>/dev/null | base64 >"$T_TMP/6.b64"
{ printf 'From: Alice Example <alice@steed.test>\nTo: %s\nSubject: ...\nMessage-ID: <env-%s@steed.test>\n' "$STEED_BOB" "$u"
  printf 'Date: Thu, 4 Jan 2024 10:00:00 +0000\nMIME-Version: 1.0\n'
  printf 'Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m\n'
  printf 'Content-Transfer-Encoding: base64\n\n'; cat "$T_TMP/6.b64"; } | save
ok "six messages in bob's INBOX, none of them opened" sh -c "[ \$($DOVE search -u '$STEED_BOB' mailbox INBOX unseen 2>/dev/null | wc -l) = 6 ]"
# Message N has UID B+N (UIDs go on from mail the files before left).
B=$(( $($DOVE search -u "$STEED_BOB" mailbox INBOX all 2>/dev/null | awk '{ print $2 }' | sort -n | head -1) - 1 ))
U() { echo $((B + $1)); }
# nums: the UIDs on standard input as message numbers, on one line.
nums() { cut -f1 | awk -v b="$B" '{ printf "%d ", $1 - b }'; }
ok "the outer headers hide the real subjects" sh -c "$DOVE fetch -u '$STEED_BOB' hdr mailbox INBOX all | grep '^Subject:' | tr -d '\r' >'$T_TMP/outer'; ! grep -q 'Garden\|Apple\|Carrots\|melons' '$T_TMP/outer'"

# --- --sync, then --list ----------------------------------------------------
bob --sync >"$T_TMP/sync" 2>&1
ok "bob's --sync: its trust step opens them, one left for later" sh -c "grep -q '6 messages' '$T_TMP/sync' && grep -q 'UID $(U 4) (not decrypted' '$T_TMP/sync' || { cat '$T_TMP/sync'; false; }"
bob --list >"$T_TMP/list" 2>"$T_TMP/list.err"
subj() { awk -F '\t' -v u="$(U "$1")" '$1 == u { print $5 }' "$T_TMP/list"; }
is() { [ "$1" = "$2" ] || { echo "got '$1', want '$2'"; cat "$T_TMP/list"; false; }; }
ok "--list: 1 by its real subject (steedmail, PGP/MIME signed and encrypted)" is "$(subj 1)" "Garden plan $u"
ok "--list: 2, plain, as it was" is "$(subj 2)" "Zucchini for sale $u"
ok "--list: 3 by its real subject (gpg, encrypted only)" is "$(subj 3)" "Apple harvest $u"
ok "--list: 4, not decrypted: (encrypted)" is "$(subj 4)" "(encrypted)"
ok "--list: 5 by its real subject (steedmail, S/MIME signed and enveloped)" is "$(subj 5)" "Smime melons $u"
ok "--list: 6, S/MIME enveloped without a signature: its outer Subject, not the unvouched one" is "$(subj 6)" "..."
ok "--list: nowhere '...' for a message it could read" sh -c "[ \$(grep -c '	\.\.\.$' '$T_TMP/list') = 1 ]"
bob --list --sort subject >"$T_TMP/sorted" 2>/dev/null
ok "--sort subject sorts by the real subjects" is "$(nums <"$T_TMP/sorted")" "4 6 3 1 5 2 "
bob --list --limit "~s harvest" >"$T_TMP/lim" 2>/dev/null
ok "--limit '~s harvest' finds the protected subject" is "$(nums <"$T_TMP/lim")" "3 "
bob --list --limit "~s ..." >"$T_TMP/lim2" 2>/dev/null
ok "--limit '~s ...' finds only the one that shows it" is "$(nums <"$T_TMP/lim2")" "6 "
bob --list --sort thread >"$T_TMP/thread" 2>/dev/null
ok "--sort thread: 3 right after 1, by the References inside it" sh -c "echo ' $(nums <"$T_TMP/thread")' | grep -q ' 1 3 ' || { cat '$T_TMP/thread'; false; }"

cache=$T_TMP/bob-c/steedmail/bob.hcache
ok "the header cache is mode 0600, in a 0700 directory" sh -c "[ \$(stat -c %a '$cache') = 600 ] && [ \$(stat -c %a '$T_TMP/bob-c/steedmail') = 700 ]"
ok "... and holds the decrypted subjects (the documented trade-off)" sh -c "sqlite3 '$cache' 'SELECT subject FROM protected' | grep -q 'Garden plan $u'"
ok "... apart from the outer ones" sh -c "[ \"\$(sqlite3 '$cache' \"SELECT subject FROM message WHERE uid = $(U 1)\")\" = '...' ]"

# The legacy display: hidden where its protected header is used, shown
# where it is not.
bob --fetch "$(U 3)" >"$T_TMP/3.eml" 2>/dev/null && bob --view "$T_TMP/3.eml" >"$T_TMP/3.view" 2>&1
ok "--view of 3: the protected Subject, the legacy display hidden" sh -c "grep -qx 'Subject: Apple harvest $u' '$T_TMP/3.view' && [ \$(grep -c 'Apple harvest' '$T_TMP/3.view') = 1 ] && grep -q 'LEGACYTEST' '$T_TMP/3.view' || { cat '$T_TMP/3.view'; false; }"
bob --fetch "$(U 6)" >"$T_TMP/6.eml" 2>/dev/null && bob --view "$T_TMP/6.eml" >"$T_TMP/6.view" 2>&1
ok "--view of 6: the outer Subject, the legacy display shown, marked as not protected" sh -c "grep -qx 'Subject: \.\.\.' '$T_TMP/6.view' && grep -qx 'Subject: Unvouched $u' '$T_TMP/6.view' && grep -q 'NOT PROTECTED' '$T_TMP/6.view' || { cat '$T_TMP/6.view'; false; }"

# A header cache made anew: its protected values come back with the sync,
# though the trust store knew every message already.
rm -rf "$T_TMP/bob-c"
bob --list >"$T_TMP/list2" 2>/dev/null
ok "a cold --list shows the real subjects again" sh -c "grep -q '	Garden plan $u\$' '$T_TMP/list2' && grep -q '	Smime melons $u\$' '$T_TMP/list2' || { cat '$T_TMP/list2'; false; }"

# cache-protected-headers = no.
bob_off --list >"$T_TMP/off" 2>"$T_TMP/off.err"
ok "cache-protected-headers = no: the encrypted ones are (encrypted)" sh -c "[ \"\$(awk -F '\t' '\$1 == $(U 1) || \$1 == $(U 3) || \$1 == $(U 5) { print \$5 }' '$T_TMP/off' | sort -u)\" = '(encrypted)' ] || { cat '$T_TMP/off' '$T_TMP/off.err'; false; }"
ok "... and not one of their subjects is left in the cache, file or journal" sh -c "! grep -qa 'Garden plan\|Apple harvest\|Smime melons' '$cache' '$cache-wal' && [ \"\$(sqlite3 '$cache' 'SELECT count(*) FROM protected')\" = 0 ]"
echo "late secret $u" | alice -s "Late pears $u" --encrypt "$STEED_BOB" >/dev/null 2>&1
arrived 7 >/dev/null
bob_off --list >"$T_TMP/off2" 2>/dev/null
ok "... nor does a new one's get there" sh -c "grep -q '^$(U 7)	.*	(encrypted)\$' '$T_TMP/off2' && ! grep -qa 'Late pears' '$cache' '$cache-wal'"

# --- The index, in tmux -------------------------------------------------------
rm -rf "$T_TMP/bob-c"
run_bob() {
	tui_start "$1" env XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" \
	    HOME="$T_TMP" LANG="$2" "$STEEDMAIL" -F "$T_TMP/bob.conf"
}
run_bob u C.UTF-8
ok "80x24, UTF-8: the index shows the real subject after the sync" tui_wait u "Garden plan $u" 30
ok "... the new one's too" tui_wait u "Late pears $u" 20
ok "... and the others'" sh -c "tmux -S '$TUI_SOCK' capture-pane -p -t u >'$T_TMP/s0'; grep -q 'Apple harvest $u' '$T_TMP/s0' && grep -q 'Smime melons $u' '$T_TMP/s0'"
tui_capture u >"$T_TMP/screen"
ok "... (encrypted) for the one whose key bob does not have" sh -c "grep 'Carol' '$T_TMP/screen' | grep -q '(encrypted)'"
check "... 24 lines, none longer than 80 columns" python3 -c "
import sys; l = open(sys.argv[1], encoding='utf-8').read().split('\\n')[:-1]
sys.exit(not (len(l) == 24 and max(map(len, l)) <= 80))" "$T_TMP/screen"
# carol's key reaches bob's home; opening her message fills its row in.
g "$CH" --export-secret-keys carol@steed.test | g "$BH" --import 2>/dev/null
tui_keys u /; tui_wait u "Search for:" >/dev/null; tui_type u "~f carol"; tui_keys u Enter
sleep 0.3
tui_keys u Enter
ok "opening it decrypts it now" tui_wait u "CARROTBODY $u" 30
tui_keys u q
ok "back on the index, its row shows the real subject" tui_wait u "Carrots for carol $u" 20
check "... and (encrypted) is gone" sh -c "! tmux -S '$TUI_SOCK' capture-pane -p -t u | grep -q '(encrypted)'"
tui_keys u q
tui_ended u >/dev/null
tui_stop u

run_bob c C
ok "LANG=C: the real subjects too" tui_wait c "Carrots for carol $u" 30
tui_keys c q
tui_ended c >/dev/null
tui_stop c

[ "$t_failed" = 0 ]
