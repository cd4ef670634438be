# tui-trust.sh: the trust screens in tmux at 80x24 (TERM=screen, LANG=C),
# against the real servers and gpg. alice sends bob signed mail; bob's
# K on it shows her fingerprint in groups and "first contact"; verify with
# a wrong group marks nothing, with the right groups marks her key
# verified (and --trust show agrees); her key changes twice: the key
# screen shows both keys, x rejects the first new key and a accepts the
# second, as --trust says; W lists every correspondent --trust list has.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

# alice's key is learnt from her mail here: none of hers in DNS, whatever
# a test before this one in the same environment published
"$STEED_ENV_BIN/zone-set" --delete steed.test \
    "$(printf alice | sha256sum | cut -c1-56)._openpgpkey" TYPE61 \
    >/dev/null 2>&1
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
AH=$T_TMP/alice/steedmail/gnupg
BH=$T_TMP/bob/steedmail/gnupg
trap 'for h in "$AH" "$BH" "$T_TMP"/old-*; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT

arrives() {
	for _ in $(seq 1 30); do
		[ "$(bob --list INBOX 2>/dev/null | grep -cF -- "$1")" -ge 1 ] && return 0
		sleep 0.5
	done
	echo "no '$1' in bob's INBOX"; return 1
}
afpr() { gpg --homedir "$AH" --with-colons -K 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'; }
# groups FPR [FROM TO]: the fingerprint's groups FROM to TO (1-based).
groups() { echo "$1" | sed 's/..../& /g' | cut -d' ' -f"${2:-1}-${3:-10}"; }
# newkey N: alice starts again with a new GnuPG home, so a new key.
newkey() {
	gpgconf --homedir "$AH" --kill all >/dev/null 2>&1
	mv "$AH" "$T_TMP/old-$1"
}
u=$$-$(date +%s)

cat >"$T_TMP/bob.conf" <<CONF
ca-file = $STEED_CA_FILE
dns-config = $STEED_DNS_CONF

[account bob]
name = Bob Example
address = bob@steed.test
imap = imaps://localhost:$STEED_IMAPS_PORT
smtp = smtp://localhost:$STEED_SUBMISSION_PORT
password = bob-pw
CONF
chmod 600 "$T_TMP/bob.conf"
# bob's interface, in LANG=C, on the INBOX (the cursor on the newest).
run_bob() {
	tui_start "$1" env XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" \
	    LANG=C TZ=UTC "$STEEDMAIL" -F "$T_TMP/bob.conf"
}
# ended NAME: steedmail in NAME has exited, with status 0.
ended() { _st=$(tui_ended "$1" 30) && [ "$_st" = 0 ] || { echo "status: $_st"; return 1; }; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob.conf" "$@"; }
# shown NAME FILE: the screen into FILE.
shown() { tui_capture "$1" >"$2"; }
# show_has FILE TEXT: --trust show of alice into FILE has the line TEXT.
show_has() {
	bob --trust show alice@steed.test >"$1" 2>&1
	grep -qxF -- "$2" "$1" || { echo "# no \"$2\" in:"; sed 's/^/# /' "$1"; return 1; }
}
# wide FPR: the fingerprint as the key screen groups it.
wide() { echo "$(groups "$1" 1 5)  $(groups "$1" 6 10)"; }

# --- first contact, verify ----------------------------------------------------
echo "hello $u" | alice -s "first $u" --sign bob@steed.test >/dev/null 2>&1
a1=$(afpr)
[ -n "$a1" ] || bail "alice has no key"
arrives "first $u" || bail "alice's mail did not arrive"
run_bob t1
ok "the index shows alice's signed message" tui_wait t1 "first $u" 20
tui_keys t1 K
ok "K: the sender's key screen, first contact" tui_wait t1 "first contact: accepted on first use"
shown t1 "$T_TMP/k1"
ok "it names her address" grep -q "Address *alice@steed.test" "$T_TMP/k1"
ok "her fingerprint in groups of four" grep -qF "Fingerprint $(wide "$a1")" "$T_TMP/k1"
ok "where the key came from and when" grep -q "OpenPGP, accepted; from signed mail, autocrypt; seen $(date -u +%Y-%m-%d)$" "$T_TMP/k1"
ok "what encryption to her would use, from the worker" tui_wait t1 "mail to it would be encrypted to key $(groups "$a1" 7 10)" 20

wrong=$(groups "$a1" 4 4)
[ "$wrong" = 0000 ] && wrong=1111 || wrong=0000
tui_keys t1 v
ok "v: the groups numbered, a column for what they read" tui_wait t1 "They read"
tui_type t1 "$(groups "$a1" 1 3) $wrong"
tui_keys t1 Enter
ok "a wrong group is said plainly" tui_wait t1 "group 4 differs: they do not match, nothing was marked"
shown t1 "$T_TMP/k2"
ok "the group is marked as differing" grep -q "^  4  $(groups "$a1" 4 4) *$wrong  differs" "$T_TMP/k2"
ok "nothing was marked: --trust show still says known" show_has "$T_TMP/s1" "state: known"
tui_keys t1 q
ok "q leaves the comparison" tui_wait t1 "Fingerprint $(wide "$a1")"
tui_keys t1 v
tui_wait t1 "They read" >/dev/null 2>&1
tui_type t1 "$(groups "$a1" 1 5 | tr 'A-F' 'a-f')"
tui_keys t1 Enter
ok "groups can come a few at a time" tui_wait t1 "Groups from 6 on:"
tui_type t1 "$(groups "$a1" 6 10)"
tui_keys t1 Enter
ok "all groups match: marked verified" tui_wait t1 "key verified in person: you compared the fingerprint with its owner"
ok "--trust show agrees" show_has "$T_TMP/s2" "state: verified"
ok "the verified key is the pinned one" show_has "$T_TMP/s3" "pinned: $a1"

tui_keys t1 q
tui_wait t1 "first $u" >/dev/null 2>&1
tui_keys t1 W
ok "W: the list of correspondents" tui_wait t1 "Correspondents:"
shown t1 "$T_TMP/l1"
ok "alice's row: verified, her key's last digits" grep -q "alice@steed.test .* key verified in person  *$(groups "$a1" 7 10)" "$T_TMP/l1"
bob --trust list >"$T_TMP/tl" 2>&1
ok "every address --trust list has is on the screen" sh -c "[ -s '$T_TMP/tl' ] && cut -f1 '$T_TMP/tl' | while read -r a; do grep -qF \"\$a\" '$T_TMP/l1' || exit 1; done"
tui_keys t1 Enter
ok "Enter: the key screen of the row" tui_wait t1 "Fingerprint $(wide "$a1")"
tui_keys t1 q q q
ok "q, q: back to the index, then out" ended t1

# --- a changed key: reject ----------------------------------------------------
newkey 1
echo "again $u" | alice -s "second $u" --sign bob@steed.test >/dev/null 2>&1
a2=$(afpr)
[ -n "$a2" ] && [ "$a2" != "$a1" ] || bail "alice has no new key"
arrives "second $u" || bail "alice's second mail did not arrive"
run_bob t2
tui_wait t2 "second $u" 20 >/dev/null
tui_keys t2 K
ok "a changed key: said so in the banner" tui_wait t2 "key changed: the pinned key stays until you decide"
shown t2 "$T_TMP/k3"
ok "the pinned key" grep -qF "Fingerprint $(wide "$a1")" "$T_TMP/k3"
ok "and the new key" grep -qF "New key     $(wide "$a2")" "$T_TMP/k3"
ok "each with its part" sh -c "grep -qF '$(wide "$a1")   pinned (in use)' '$T_TMP/k3' && grep -qF '$(wide "$a2")   new (not in use)' '$T_TMP/k3'"
tui_keys t2 a
ok "a asks first" tui_wait t2 "Replace a verified or DNSSEC-confirmed key with $(groups "$a2" 7 10)"
tui_keys t2 n
ok "no: nothing changed" tui_wait t2 "nothing was changed"
ok "--trust show: still the old key" show_has "$T_TMP/s4" "pinned: $a1"
tui_keys t2 x
ok "x asks first" tui_wait t2 "Reject key $(groups "$a2" 7 10) for alice@steed.test?"
tui_keys t2 y
ok "yes: rejected" tui_wait t2 "rejected key $(groups "$a2" 7 10)"
ok "--trust show: the old key stays pinned, verified" show_has "$T_TMP/s5" "state: verified"
ok "--trust show: the new key rejected" grep -q "^key: $a2 openpgp rejected" "$T_TMP/s5"
ok "the screen no longer offers a change" tui_gone t2 "New key"
tui_keys t2 q q
ended t2 >/dev/null

# --- a changed key: accept ----------------------------------------------------
newkey 2
echo "third $u" | alice -s "third $u" --sign bob@steed.test >/dev/null 2>&1
a3=$(afpr)
arrives "third $u" || bail "alice's third mail did not arrive"
run_bob t3
tui_wait t3 "third $u" 20 >/dev/null
tui_keys t3 K
ok "another new key" tui_wait t3 "New key     $(wide "$a3")"
tui_keys t3 a
tui_wait t3 "Replace a verified" >/dev/null
tui_keys t3 y
ok "yes: accepted" tui_wait t3 "accepted key $(groups "$a3" 7 10)"
ok "--trust show: the new key is pinned" show_has "$T_TMP/s6" "pinned: $a3"
ok "the screen shows it as the pinned key" tui_wait t3 "Fingerprint $(wide "$a3")"
ok "and encryption follows it" tui_wait t3 "mail to it would be encrypted to key $(groups "$a3" 7 10)" 20
tui_keys t3 q
tui_wait t3 "third $u" >/dev/null 2>&1
tui_keys t3 W
tui_wait t3 "Correspondents:" >/dev/null
ok "the list follows the decision" tui_wait t3 "$(groups "$a3" 7 10)"
tui_keys t3 / 
tui_type t3 "alice"
tui_keys t3 Enter
tui_keys t3 Enter
ok "/ finds the row, Enter opens it" tui_wait t3 "Fingerprint $(wide "$a3")"
tui_keys t3 q q q
ok "q on the index leaves steedmail, status 0" ended t3
