# draft.sh: postponed drafts end to end. alice postpones drafts with
# -s ... --postpone and sends them later with --resume through the real
# Postfix and Dovecot: a draft to a recipient without a key is kept in
# clear, one that would be encrypted is kept encrypted to alice's own key
# with its Subject protected, and both come back whole (recipients, Bcc,
# subject, body, attachment). A postponed reply to encrypted mail stays bound to
# be encrypted. What arrives is read with bob's own gpg, as another mail
# client would.
. "$(dirname "$0")/../lib.sh"

alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$STEED_ENV/bob.conf" "$@"; }
AH=$T_TMP/alice/steedmail/gnupg
BH=$T_TMP/bob/steedmail/gnupg
DD=$T_TMP/alice/steedmail/drafts
trap 'for h in "$AH" "$BH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT

count() { "$1" --list "$2" 2>/dev/null | grep -cF -- "$3"; }
arrives() {
	for _ in $(seq 1 30); do
		[ "$(count "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.5
	done
	echo "expected $4 message(s) '$3' in $1's $2"
	return 1
}
fetch() {
	_uid=$("$1" --list "$2" | grep -F -- "$3" | tail -1 | cut -f1)
	"$1" --fetch "$_uid" "$2" >"$4.eml" && python3 tests/tools/mimeparts.py "$4.eml" "$4"
}
mode() { stat -c %a "$1"; }
u=$$-$(date +%s)

alice --genkey >/dev/null 2>&1
bob --genkey >/dev/null 2>&1

# --- A draft kept in clear ---------------------------------------------
# bob's key is not known yet: the message would go in clear, so does the
# draft.
printf 'first line %s\nsecond line\n' "$u" >"$T_TMP/body"
echo "attached $u" >"$T_TMP/note.txt"
alice -s "plain draft $u" -b "$STEED_ALICE" -a "$T_TMP/note.txt" --postpone "$STEED_BOB" <"$T_TMP/body" >"$T_TMP/p1" 2>"$T_TMP/e1"
ok "-s --postpone: exit 0" test $? = 0
d1=$(cat "$T_TMP/p1")
ok "the draft's file name on stdout, in the drafts directory" sh -c "[ -f '$d1' ] && [ \"\$(dirname '$d1')\" = '$DD' ]"
ok "the file is mode 600, the directory 700" sh -c "[ \$(stat -c %a '$d1') = 600 ] && [ \$(stat -c %a '$DD') = 700 ]"
ok "stderr says it was postponed, not encrypted" sh -c "grep -q 'draft postponed; send it with steedmail --resume' '$T_TMP/e1' && ! grep -q 'encrypted' '$T_TMP/e1'"
ok "it is kept in clear, Bcc included" sh -c "grep -q '^Subject: plain draft $u' '$d1' && grep -q '^Bcc: $STEED_ALICE' '$d1'"
ok "nothing was sent" test "$(count bob INBOX "plain draft $u")" = 0
alice --resume "$d1" >"$T_TMP/o" 2>&1
ok "--resume: exit 0" test $? = 0
ok "it arrives at bob with its subject" arrives bob INBOX "plain draft $u" 1
ok "and at alice, its Bcc" arrives alice INBOX "plain draft $u" 1
fetch bob INBOX "plain draft $u" "$T_TMP/r1"
b64=$(base64 <"$T_TMP/note.txt")
ok "body and attachment came back whole" sh -c "grep -q 'first line $u' '$T_TMP/r1.eml' && grep -q 'second line' '$T_TMP/r1.eml' && grep -q 'note.txt' '$T_TMP/r1.eml' && grep -q '$b64' '$T_TMP/r1.eml'"
ok "To is bob, and no Bcc field went out" sh -c "grep -qi '^To: $STEED_BOB' '$T_TMP/r1/header' && ! grep -qi '^Bcc:' '$T_TMP/r1.eml' && ! grep -q 'X-Steedmail-Draft' '$T_TMP/r1.eml'"
ok "the draft is gone once queued" test ! -e "$d1"
fails "--resume of the same draft again fails" alice --resume "$d1"

# --- A draft kept encrypted --------------------------------------------
bob --export-key | alice --import-key - >/dev/null 2>&1
alice -s "secret draft $u" --postpone "$STEED_BOB" <"$T_TMP/body" >"$T_TMP/p2" 2>"$T_TMP/e2"
ok "with bob's key known, --postpone keeps the draft encrypted" sh -c "[ $? = 0 ] && grep -q 'draft postponed, encrypted to your own key' '$T_TMP/e2'"
d2=$(cat "$T_TMP/p2")
python3 tests/tools/mimeparts.py "$d2" "$T_TMP/d2"
ok "the file is PGP/MIME, its outer Subject '...', nothing readable" sh -c "grep -i '^content-type:' '$T_TMP/d2/header' | grep -q 'multipart/encrypted' && grep -qx 'Subject: \.\.\.' '$T_TMP/d2/header' && ! grep -q 'secret draft' '$d2' && ! grep -q 'first line' '$d2'"
gpg --homedir "$AH" --status-fd 2 --decrypt "$T_TMP/d2/part2.body" >"$T_TMP/d2.plain" 2>"$T_TMP/d2.status"
ok "encrypted to alice's key alone, signed by it" sh -c "grep -q DECRYPTION_OKAY '$T_TMP/d2.status' && [ \$(grep -c 'ENC_TO' '$T_TMP/d2.status') = 1 ] && grep -q 'VALIDSIG' '$T_TMP/d2.status'"
ok "the protected Subject and the recipient are inside" sh -c "grep -q '^Subject: secret draft $u' '$T_TMP/d2.plain' && grep -q '^To: $STEED_BOB' '$T_TMP/d2.plain'"
alice --export-key | bob --import-key - >/dev/null 2>&1
alice --resume "$d2" >"$T_TMP/o" 2>"$T_TMP/e3"
ok "--resume: exit 0, sent encrypted" sh -c "[ $? = 0 ] && grep -q 'encrypted' '$T_TMP/e3'"
ok "it arrives at bob, listed by its protected Subject" arrives bob INBOX "secret draft $u" 1
fetch bob INBOX "secret draft $u" "$T_TMP/r2"
gpg --homedir "$BH" --status-fd 2 --decrypt "$T_TMP/r2/part2.body" >"$T_TMP/r2.plain" 2>"$T_TMP/r2.status"
ok "bob decrypts it: the Subject survived the round trip, and the body" sh -c "grep -q DECRYPTION_OKAY '$T_TMP/r2.status' && grep -q '^Subject: secret draft $u' '$T_TMP/r2.plain' && grep -q 'first line $u' '$T_TMP/r2.plain'"
ok "no draft marks in what was sent" sh -c "! grep -q 'X-Steedmail-Draft' '$T_TMP/r2.plain' '$T_TMP/r2.eml'"

# --- A reply to encrypted mail stays bound to be encrypted ---------------
alice -s "re $u" --reply "$T_TMP/r2.eml" --postpone nokey@steed.test <"$T_TMP/body" >"$T_TMP/p3" 2>"$T_TMP/e4"
ok "a reply to encrypted mail is postponed encrypted, even with no key for its recipient" sh -c "[ $? = 0 ] && grep -q 'encrypted to your own key' '$T_TMP/e4'"
d3=$(cat "$T_TMP/p3")
alice --resume "$d3" >"$T_TMP/o" 2>"$T_TMP/e5"
ok "resumed, it is refused (69): never answered in clear" sh -c "[ $? = 69 ] && grep -q 'replies to encrypted mail' '$T_TMP/e5'"
ok "and the refused draft stays" test -f "$d3"
# nokey exists, so that the message really goes: "sent in clear" is said
# only of what the server took
"$STEED_ENV_BIN/add-user" nokey@steed.test nokey-pw >/dev/null 2>&1
alice --resume "$d3" --no-encrypt >"$T_TMP/o" 2>"$T_TMP/e6"
ok "--resume --no-encrypt overrides it, as -s --no-encrypt does" sh -c "grep -q 'sent in clear: --no-encrypt, although it replies to encrypted mail' '$T_TMP/e6' && [ ! -e '$d3' ]"

# --- Quoting --------------------------------------------------------------
echo "my answer $u" | alice -s "re quoted $u" --reply "$T_TMP/r2.eml" --quote --postpone "$STEED_BOB" >"$T_TMP/p4" 2>"$T_TMP/e7"
ok "--reply --quote: postponed (encrypted: it replies to encrypted mail)" sh -c "[ $? = 0 ] && grep -q 'encrypted to your own key' '$T_TMP/e7'"
python3 tests/tools/mimeparts.py "$(cat "$T_TMP/p4")" "$T_TMP/d4"
gpg --homedir "$AH" --decrypt "$T_TMP/d4/part2.body" >"$T_TMP/d4.plain" 2>/dev/null
ok "the text decrypted at the top is quoted, then the answer" sh -c "grep -q '^> first line $u' '$T_TMP/d4.plain' && grep -q '^> second line' '$T_TMP/d4.plain' && grep -q '^my answer $u' '$T_TMP/d4.plain'"
# bob wraps alice's encrypted message (which alice can decrypt) in a new
# encrypted message to alice: its plaintext was decrypted below the top.
gpg --homedir "$BH" --batch --trust-model always --armor --encrypt -r "$STEED_ALICE" -o "$T_TMP/wrap.asc" "$T_TMP/r2.eml" 2>/dev/null
{
	printf 'From: bob@steed.test\r\nTo: alice@steed.test\r\nSubject: wrapped %s\r\n' "$u"
	printf 'Message-ID: <wrap-%s@steed.test>\r\nMIME-Version: 1.0\r\n' "$u"
	printf 'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="w"\r\n\r\n'
	printf -- '--w\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n\r\n'
	printf -- '--w\r\nContent-Type: application/octet-stream\r\n\r\n'
	sed 's/$/\r/' "$T_TMP/wrap.asc"
	printf -- '--w--\r\n'
} >"$T_TMP/wrap.eml"
alice --view "$T_TMP/wrap.eml" >"$T_TMP/wv" 2>&1
ok "--view shows the wrapped message decrypted (so the rule below is tested)" grep -q "first line $u" "$T_TMP/wv"
echo "answer $u" | alice -s "re wrapped $u" --reply "$T_TMP/wrap.eml" --quote --postpone "$STEED_BOB" >"$T_TMP/p5" 2>/dev/null
python3 tests/tools/mimeparts.py "$(cat "$T_TMP/p5")" "$T_TMP/d5"
gpg --homedir "$AH" --decrypt "$T_TMP/d5/part2.body" >"$T_TMP/d5.plain" 2>/dev/null
ok "a reply never quotes plaintext decrypted below the top: it is named instead" sh -c "! grep -q 'first line $u' '$T_TMP/d5.plain' && grep -q 'decrypted for reading only: not quoted' '$T_TMP/d5.plain' && grep -q '^answer $u' '$T_TMP/d5.plain'"
fails "--quote goes with --reply" alice -s x --quote "$STEED_BOB"

# --- Forwarding (in clear here: bob's key is known by now) -----------
echo "see below $u" | alice -s "" --no-encrypt --forward-inline "$T_TMP/r1.eml" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "--forward-inline: exit 0" test $? = 0
ok "it arrives as 'Fwd: SUBJECT' (-s \"\")" arrives bob INBOX "Fwd: plain draft $u" 1
fetch bob INBOX "Fwd: plain draft $u" "$T_TMP/f1"
ok "what was written, then the forwarded header and text" sh -c "grep -q '^see below $u' '$T_TMP/f1.eml' && grep -q '^---------- Forwarded message ----------' '$T_TMP/f1.eml' && grep -q '^Subject: plain draft $u' '$T_TMP/f1.eml' && grep -q '^first line $u' '$T_TMP/f1.eml'"
alice -s "fw attached $u" --no-encrypt --forward "$T_TMP/r1.eml" "$STEED_BOB" </dev/null >"$T_TMP/o" 2>&1
ok "--forward: exit 0, it arrives" arrives bob INBOX "fw attached $u" 1
fetch bob INBOX "fw attached $u" "$T_TMP/f2"
ok "the message is attached as message/rfc822, as it came" sh -c "grep -qi '^Content-Type: message/rfc822' '$T_TMP/f2.eml' && grep -q '^Subject: plain draft $u' '$T_TMP/f2.eml' && grep -q '^first line $u' '$T_TMP/f2.eml'"
alice -s "fw secret $u" --forward "$T_TMP/r2.eml" nokey@steed.test </dev/null >"$T_TMP/o" 2>&1
ok "encrypted mail is forwarded encrypted or not at all (69)" sh -c "[ $? = 69 ] && grep -q 'it forwards encrypted mail, which is never sent on in clear' '$T_TMP/o'"
fails "--forward does not go with --reply" alice -s x --forward "$T_TMP/r1.eml" --reply "$T_TMP/r1.eml" "$STEED_BOB"

# --- Not a draft ---------------------------------------------------------
printf 'Subject: hi\n\nbody\n' >"$T_TMP/not"
alice --resume "$T_TMP/not" >"$T_TMP/o" 2>&1
ok "--resume of a file that is no draft: exit 65" sh -c "[ $? = 65 ] && grep -q 'is not a draft' '$T_TMP/o'"
fails "--postpone goes with -s only" alice --flush --postpone
