# policy.sh: the encryption policy of -s end to end, through the real
# servers: the settings encrypt and fallback and the flags that override
# them, Bcc, a revoked key, a bogus DNS answer, fallback = ask on a real
# terminal (tmux), replies to encrypted mail (--reply), and that
# encryption and Autocrypt-Gossip use the key the trust store pins, not
# the newest one in the home (OpenPGP and S/MIME). What is delivered is
# fetched from the recipient's mailbox and checked for its structure and
# with --inspect as the recipient; a refused message must leave nothing
# in the outbox and reach nobody.
. "$(dirname "$0")/../lib.sh"

u=$$-$(date +%s)
# Mailboxes of its own, so that no other test's mail is mixed with these.
AL=alice.p$$@steed.test BO=bob.p$$@steed.test CA=carol.p$$@steed.test
for w in alice bob carol; do
	"$STEED_ENV_BIN/add-user" "$w.p$$@steed.test" "$w-p$$" >/dev/null || bail "cannot add $w.p$$"
	sed "s/$w@steed.test/$w.p$$@steed.test/; s/= $w-pw/= $w-p$$/" "$STEED_ENV/$w.conf" >"$T_TMP/$w.base"
done
sed "s/bob.p$$@/carol.p$$@/; s/= bob-p$$/= carol-p$$/; s/Bob/Carol/" "$T_TMP/bob.base" >"$T_TMP/carol.base"
# conf NAME BASE SETTING...: $T_TMP/NAME.conf, the settings ahead of BASE.
conf() {
	_n=$1 _b=$2; shift 2
	{ echo "dns-config = $STEED_DNS_CONF"; for _s; do echo "$_s"; done; cat "$_b"; } >"$T_TMP/$_n.conf"
	chmod 600 "$T_TMP/$_n.conf"
}
conf bob "$T_TMP/bob.base"
conf carol "$T_TMP/carol.base"
conf a-default "$T_TMP/alice.base"
conf a-always "$T_TMP/alice.base" "encrypt = always"
conf a-never "$T_TMP/alice.base" "encrypt = never"
conf a-refuse "$T_TMP/alice.base" "fallback = refuse"
conf a-plain "$T_TMP/alice.base" "encrypt = opportunistic" "fallback = plaintext"
conf a-ask "$T_TMP/alice.base" "fallback = ask"

AH=$T_TMP/alice/steedmail/gnupg
BH=$T_TMP/bob/steedmail/gnupg
CH=$T_TMP/carol/steedmail/gnupg
G=$T_TMP/g			# scratch keys: dave's
EH=$T_TMP/g-empty		# no keys: for looking at packets
mkdir -m 700 "$G" "$EH"
mkdir -p -m 700 "$T_TMP/carol" "$T_TMP/carol/steedmail" "$CH"
TM=$T_TMP/tmux.sock
trap 'tmux -S "$TM" kill-server >/dev/null 2>&1; for h in "$AH" "$BH" "$CH" "$G" "$EH" "$T_TMP/ge"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT

# A CONF ARGS...: steedmail as alice with $T_TMP/CONF.conf.
A() { _c=$1; shift; XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/$_c.conf" "$@"; }
alice() { A a-default "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob.conf" "$@"; }
carol() { XDG_DATA_HOME="$T_TMP/carol" XDG_CACHE_HOME="$T_TMP/carol-c" sm -F "$T_TMP/carol.conf" "$@"; }

# snd NAME CONF ARGS...: alice sends "body NAME" with the subject NAME;
# standard error goes to $T_TMP/NAME.err, the exit status to NAME.rc.
snd() {
	_n=$1 _c=$2; shift 2
	echo "body $_n $u" | A "$_c" -s "$_n $u" "$@" >"$T_TMP/$_n.out" 2>"$T_TMP/$_n.err"
	echo $? >"$T_TMP/$_n.rc"
}
exits() { [ "$(cat "$T_TMP/$1.rc")" = "$2" ] || { echo "exit $(cat "$T_TMP/$1.rc"), not $2:"; cat "$T_TMP/$1.err"; return 1; }; }
# said NAME LINE: standard error is exactly the one line "steedmail: LINE".
said() { [ "$(cat "$T_TMP/$1.err")" = "steedmail: $2" ] || { echo "stderr was:"; cat "$T_TMP/$1.err"; return 1; }; }
sent() { exits "$1" 0 && said "$1" "$2"; }
outbox_empty() {
	[ -z "$(find "$T_TMP/alice/steedmail/outbox" -type f ! -name .lock 2>/dev/null)" ] ||
		{ find "$T_TMP/alice/steedmail/outbox" -type f; return 1; }
}
refused() { exits "$1" 69 && said "$1" "$2" && outbox_empty; }

count() { "$1" --list INBOX 2>/dev/null | grep -c .; }
# got WHO FILE: wait for WHO's next message (one more than last time) and
# fetch it into FILE. Two new messages are an error: a refused message
# that reached the server anyway arrives before the next one sent.
declare -A seen
got() {
	_want=$((seen[$1] + 1))
	for _ in $(seq 1 100); do
		[ "$(count "$1")" -ge "$_want" ] && break
		sleep 0.1
	done
	_have=$(count "$1")
	seen[$1]=$_have
	[ "$_have" = "$_want" ] || { echo "$1 has $_have messages, expected $_want"; return 1; }
	_uid=$("$1" --list INBOX | cut -f1 | sort -n | tail -1)
	"$1" --fetch "$_uid" INBOX >"$2"
}
# toptype FILE: the message's own Content-Type, without parameters.
toptype() {
	tr -d '\r' <"$1" | awk '/^$/ { exit } tolower($0) ~ /^content-type:/ {
		sub(/^[^:]*:[ \t]*/, ""); sub(/;.*/, ""); print tolower($0); exit }'
}
# hdr FILE FIELD: the first FIELD of the message's header, unfolded.
hdr() {
	tr -d '\r' <"$1" | awk -v f="$2:" '/^$/ { exit }
		/^[ \t]/ { if (on) v = v $0; next } { if (on) exit; on = 0 }
		tolower(substr($0, 1, length(f))) == tolower(f) { on = 1; v = substr($0, length(f) + 1) }
		END { gsub(/[ \t]+/, " ", v); sub(/^ /, "", v); print v }'
}
encrypted() { [ "$(toptype "$1")" = multipart/encrypted ] || { echo "not encrypted: $(toptype "$1")"; return 1; }; }
clear_with() {
	[ "$(toptype "$1")" != multipart/encrypted ] && grep -q "body $2 $u" "$1" ||
		{ echo "not in clear with 'body $2 $u':"; head -30 "$1"; return 1; }
}
same() { [ "$1" = "$2" ] || { echo "'$1', not '$2'"; return 1; }; }
hdr_is() { _v=$(hdr "$1" "$2"); [ "$_v" = "$3" ] || { echo "$2: '$_v', not '$3'"; return 1; }; }
kv() { grep -qxF -- "$2: $3" "$1" || { echo "no \"$2: $3\" in:"; cat "$1"; return 1; }; }
# keyids FILE: the key IDs the PGP/MIME message FILE is encrypted to.
keyids() {
	python3 tests/tools/mimeparts.py "$1" "$1.d" &&
	gpg --homedir "$EH" --list-packets "$1.d/part2.body" 2>&1 |
	    sed -n 's/.*pubkey enc packet:.* keyid \([0-9A-F]*\).*/\1/p'
}
subkeyid() { gpg --homedir "$1" --with-colons -k "$2" 2>/dev/null | awk -F: '/^sub/ { print $5; exit }'; }
fprof() { gpg --homedir "$1" --with-colons -k "$2" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'; }

# --- Keys: alice and bob have keys and each other's; carol has none yet.
alice --genkey >/dev/null 2>&1 || bail "alice --genkey"
bob --genkey >/dev/null 2>&1 || bail "bob --genkey"
bob --export-key | alice --import-key - >/dev/null 2>&1
alice --export-key | bob --import-key - >/dev/null 2>&1
bfpr=$(fprof "$BH" "$BO")
for w in alice bob carol; do seen[$w]=$(count $w); done

# --- encrypt = always ----------------------------------------------------
snd always-nokey a-always -c "$CA" "$BO"
ok "encrypt = always, carol has no key: exit 69, the line names her and why, nothing queued" \
	refused always-nokey "not sent, it cannot be encrypted: no key for $CA (encrypt = always)"
snd always-bcc a-always -b "$CA" "$BO"
ok "encrypt = always, a Bcc recipient without a key: refused the same way" \
	refused always-bcc "not sent, it cannot be encrypted: no key for $CA (encrypt = always)"
snd always a-always "$BO"
ok "encrypt = always, bob has a key: 'encrypted to 1 recipient'" sent always "encrypted to 1 recipient"
ok "bob's next message is that one: none of the refused ones reached him" got bob "$T_TMP/always.eml"
ok "it is multipart/encrypted" encrypted "$T_TMP/always.eml"
bob --inspect "$T_TMP/always.eml" >"$T_TMP/always.i" 2>&1
ok "bob --inspect: decrypted" kv "$T_TMP/always.i" decrypted yes

# --- encrypt = never -----------------------------------------------------
snd never a-never "$BO"
ok "encrypt = never, bob has a key: 'sent in clear: encrypt = never'" sent never "sent in clear: encrypt = never"
ok "bob gets it" got bob "$T_TMP/never.eml"
ok "in clear: not multipart/encrypted, the text readable" clear_with "$T_TMP/never.eml" never
bob --inspect "$T_TMP/never.eml" >"$T_TMP/never.i" 2>&1
ok "bob --inspect: encryption none, signed (alice has a key)" sh -c "grep -qx 'encryption: none' '$T_TMP/never.i' && grep -qx 'signed: yes' '$T_TMP/never.i'"

# --- fallback = refuse / plaintext: bob has a key, carol has none ----------
snd refuse a-refuse -c "$CA" "$BO"
ok "fallback = refuse: exit 69, carol (only) named with the reason, nothing queued" \
	refused refuse "not sent, it cannot be encrypted: no key for $CA (fallback = refuse)"
snd plain a-plain -c "$CA" "$BO"
ok "fallback = plaintext: exit 0, 'sent in clear: no key for $CA'" sent plain "sent in clear: no key for $CA"
ok "bob gets it" got bob "$T_TMP/plain.eml"
ok "bob's copy is in clear" clear_with "$T_TMP/plain.eml" plain
ok "carol's first message is this one: no refused one reached her" got carol "$T_TMP/plain-c.eml"
ok "carol's copy is in clear too" clear_with "$T_TMP/plain-c.eml" plain

# --- The flags override the settings ---------------------------------------
snd ov-noenc a-always --no-encrypt "$BO"
ok "encrypt = always with --no-encrypt: 'sent in clear: --no-encrypt'" sent ov-noenc "sent in clear: --no-encrypt"
ok "bob gets it" got bob "$T_TMP/ov-noenc.eml"
ok "... not encrypted" clear_with "$T_TMP/ov-noenc.eml" ov-noenc
snd ov-req a-never --require-encryption "$BO"
ok "encrypt = never with --require-encryption: 'encrypted to 1 recipient'" sent ov-req "encrypted to 1 recipient"
ok "bob gets it" got bob "$T_TMP/ov-req.eml"
ok "... and what bob gets is encrypted" encrypted "$T_TMP/ov-req.eml"
snd ov-enc a-never --encrypt "$BO"
ok "encrypt = never with --encrypt: encrypted" sent ov-enc "encrypted to 1 recipient"
ok "bob gets it" got bob "$T_TMP/ov-enc.eml"
ok "... multipart/encrypted" encrypted "$T_TMP/ov-enc.eml"
snd ov-req-no a-never --require-encryption -c "$CA" "$BO"
ok "encrypt = never, --require-encryption, carol without a key: 69, nothing queued" \
	refused ov-req-no "not sent, it cannot be encrypted: no key for $CA"
snd ov-plain-req a-plain --require-encryption -c "$CA" "$BO"
ok "fallback = plaintext does not beat --require-encryption: 69" \
	refused ov-plain-req "not sent, it cannot be encrypted: no key for $CA"
snd ov-enc-no a-plain --encrypt -c "$CA" "$BO"
ok "--encrypt with carol without a key: 69, as --encrypt says it" \
	refused ov-enc-no "no OpenPGP key for $CA: not sent (add it with steedmail --import-key)"
snd ov-def-no a-default --no-encrypt "$BO"
ok "the defaults, bob has a key, --no-encrypt: in clear" sent ov-def-no "sent in clear: --no-encrypt"
ok "bob gets it" got bob "$T_TMP/ov-def-no.eml"
ok "... bob's next message is this one, in clear" clear_with "$T_TMP/ov-def-no.eml" ov-def-no

# --- Bcc without a key --------------------------------------------------------
snd bcc-plain a-default -b "$CA" "$BO"
ok "the defaults, carol Bcc without a key: in clear, and she is named" sent bcc-plain "sent in clear: no key for $CA"
ok "carol gets it" got carol "$T_TMP/bcc-plain-c.eml"
ok "carol (Bcc) gets it in clear" clear_with "$T_TMP/bcc-plain-c.eml" bcc-plain
ok "bob gets it" got bob "$T_TMP/bcc-plain.eml"
ok "bob's copy does not name carol" sh -c "! grep -qi carol '$T_TMP/bcc-plain.eml'"
snd bcc-refuse a-refuse -b "$CA" "$BO"
ok "fallback = refuse, Bcc without a key: 69" \
	refused bcc-refuse "not sent, it cannot be encrypted: no key for $CA (fallback = refuse)"

# --- fallback = ask --------------------------------------------------------------
echo "body ask-none $u" | setsid -w sh -c "XDG_DATA_HOME='$T_TMP/alice' XDG_CACHE_HOME='$T_TMP/alice-c' '$STEEDMAIL' -F '$T_TMP/a-ask.conf' -s 'ask-none $u' -c "$CA" $BO" >/dev/null 2>"$T_TMP/ask-none.err"
echo $? >"$T_TMP/ask-none.rc"
ok "fallback = ask without a terminal: 69, says nobody could be asked" \
	refused ask-none "not sent, it cannot be encrypted: no key for $CA (fallback = ask, but nobody could be asked: there is no terminal)"
# ask NAME ANSWER: alice sends NAME to bob and carol with fallback = ask in
# a tmux pane, the body on standard input, and answers ANSWER on the
# terminal once the question is there; the pane is kept in NAME.pane.
ask() {
	cat >"$T_TMP/$1.sh" <<-EOS
	echo "body $1 $u" | XDG_DATA_HOME='$T_TMP/alice' XDG_CACHE_HOME='$T_TMP/alice-c' \
	    '$STEEDMAIL' -F '$T_TMP/a-ask.conf' -s '$1 $u' -c $CA $BO \
	    2>'$T_TMP/$1.err'
	echo \$? >'$T_TMP/$1.rc.t' && mv '$T_TMP/$1.rc.t' '$T_TMP/$1.rc'
	EOS
	rm -f "$T_TMP/$1.rc"
	tmux -S "$TM" new-session -d -x 160 -y 20 "sh '$T_TMP/$1.sh'" || return 1
	for _ in $(seq 1 100); do
		tmux -S "$TM" capture-pane -p >"$T_TMP/$1.pane" 2>/dev/null
		grep -q 'send in clear? \[y/N\]' "$T_TMP/$1.pane" && break
		sleep 0.1
	done
	tmux -S "$TM" send-keys "$2" Enter
	for _ in $(seq 1 100); do [ -e "$T_TMP/$1.rc" ] && break; sleep 0.1; done
	[ -e "$T_TMP/$1.rc" ] || { echo "steedmail did not finish"; cat "$T_TMP/$1.pane"; return 1; }
}
ok "fallback = ask in a terminal: the question is put on it" ask ask-yes y
ok "... naming carol and why, before 'send in clear? [y/N]'" sh -c "grep -qx '  $CA: no key known' '$T_TMP/ask-yes.pane' && ! grep -q '$BO' '$T_TMP/ask-yes.pane' || { cat '$T_TMP/ask-yes.pane'; false; }"
ok "answered y: sent in clear, and stderr says so" sent ask-yes "sent in clear, as you agreed: no key for $CA"
ok "carol gets it" got carol "$T_TMP/ask-yes-c.eml"
ok "carol gets it in clear" clear_with "$T_TMP/ask-yes-c.eml" ask-yes
ok "bob gets it" got bob "$T_TMP/ask-yes.eml"
ok "bob too" clear_with "$T_TMP/ask-yes.eml" ask-yes
ok "fallback = ask, answered n" ask ask-no n
ok "answered n: 69, nothing queued" \
	refused ask-no "not sent, it cannot be encrypted: no key for $CA (you did not agree to send it in clear)"

# --- Two keys for carol: the pinned (older) one is used, and gossiped ------
cgpg() { gpg --homedir "$CH" --batch --yes --pinentry-mode loopback --passphrase '' "$@" >/dev/null 2>&1; }
primaries() { gpg --homedir "$1" --with-colons -k "$2" 2>/dev/null | awk -F: '/^pub/ { p = 1; next } p && /^fpr/ { print $10; p = 0 }'; }
cgpg --faked-system-time "$(($(date +%s) - 86400))" --quick-gen-key "Carol Example <$CA>" future-default default 3y
k1=$(primaries "$CH" "$CA")
gpg --homedir "$CH" --export "$k1" | alice --import-key - >/dev/null 2>&1
snd pin1 a-default "$CA"
ok "alice has carol's key now: encrypted to 1 recipient" sent pin1 "encrypted to 1 recipient"
ok "the trust store pins it" sh -c "XDG_DATA_HOME='$T_TMP/alice' '$STEEDMAIL' -F '$T_TMP/a-default.conf' --trust show $CA | grep -qx 'pinned: $k1'"
ok "carol gets it" got carol "$T_TMP/pin1.eml"
carol --inspect "$T_TMP/pin1.eml" >"$T_TMP/pin1.i" 2>&1
ok "carol decrypts it" kv "$T_TMP/pin1.i" decrypted yes
cgpg --quick-gen-key "Carol Example <$CA>" future-default default 2y
k2=$(primaries "$CH" "$CA" | grep -vx "$k1")
gpg --homedir "$CH" --export "$k2" | alice --import-key - >/dev/null 2>&1
created() { gpg --homedir "$AH" --with-colons -k "$1" 2>/dev/null | awk -F: '/^pub/ { print $6; exit }'; }
ok "alice's home has both of carol's keys, the unpinned one newer" sh -c "[ -n '$k2' ] && [ '$(created "$k2")' -gt '$(created "$k1")' ]"
snd pin2 a-default -c "$BO" "$CA"
ok "to carol and bob: encrypted to 2 recipients" sent pin2 "encrypted to 2 recipients"
ok "carol gets it" got carol "$T_TMP/pin2.eml"
keyids "$T_TMP/pin2.eml" >"$T_TMP/pin2.ids"
ok "encrypted to carol's pinned key, not to her newer one" sh -c "grep -qx '$(subkeyid "$CH" "$k1")' '$T_TMP/pin2.ids' && ! grep -qx '$(subkeyid "$CH" "$k2")' '$T_TMP/pin2.ids' || { cat '$T_TMP/pin2.ids'; false; }"
gpg --homedir "$CH" --decrypt "$T_TMP/pin2.eml.d/part2.body" >"$T_TMP/pin2.plain" 2>/dev/null
# gossip FILE ADDR: the fingerprint in FILE's Autocrypt-Gossip for ADDR.
gossip() {
	tr -d '\r' <"$1" | awk '/^$/ { exit } /^[ \t]/ { l = l $0; next } { if (l != "") print l; l = $0 } END { if (l != "") print l }' |
	    grep -i "^Autocrypt-Gossip: addr=$2;" | sed 's/.*keydata=//; s/[ \t]//g' | base64 -d 2>/dev/null |
	    gpg --homedir "$EH" --with-colons --show-keys 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'
}
ok "the Autocrypt-Gossip header for carol carries the pinned key" same "$(gossip "$T_TMP/pin2.plain" "$CA")" "$k1"
ok "... and the one for bob his key" same "$(gossip "$T_TMP/pin2.plain" "$BO")" "$bfpr"
carol --inspect "$T_TMP/pin2.eml" >"$T_TMP/pin2.i" 2>&1
ok "carol --inspect: decrypted" kv "$T_TMP/pin2.i" decrypted yes
ok "bob gets it" got bob "$T_TMP/pin2-b.eml"
bob --inspect "$T_TMP/pin2-b.eml" >"$T_TMP/pin2-b.i" 2>&1
ok "bob decrypts his copy" kv "$T_TMP/pin2-b.i" decrypted yes

# --- Bcc with a key: a hidden recipient ---------------------------------------
snd bcc-enc a-default -b "$CA" "$BO"
ok "carol Bcc with a key: encrypted to 2 recipients" sent bcc-enc "encrypted to 2 recipients"
ok "carol gets it" got carol "$T_TMP/bcc-enc.eml"
carol --inspect "$T_TMP/bcc-enc.eml" >"$T_TMP/bcc-enc.i" 2>&1
ok "carol decrypts her Bcc copy" kv "$T_TMP/bcc-enc.i" decrypted yes
ok "her address is nowhere in the message" sh -c "! grep -qi carol '$T_TMP/bcc-enc.eml'"
keyids "$T_TMP/bcc-enc.eml" >"$T_TMP/bcc-enc.ids"
ok "... and a zero key id stands for her" grep -qx 0000000000000000 "$T_TMP/bcc-enc.ids"
ok "bob gets it" got bob "$T_TMP/bcc-enc-b.eml"
ok "bob gets it encrypted" encrypted "$T_TMP/bcc-enc-b.eml"

# --- Replies: --reply FILE ----------------------------------------------------
echo "question $u" | bob -s "question $u" "$AL" >/dev/null 2>"$T_TMP/q.err"
ok "bob writes to alice, encrypted (he has her key)" same "$(cat "$T_TMP/q.err")" "steedmail: encrypted to 1 recipient"
ok "alice gets it" got alice "$T_TMP/q.eml"
qid=$(hdr "$T_TMP/q.eml" Message-ID)
snd re-never a-never --reply "$T_TMP/q.eml" "$BO"
ok "a reply to encrypted mail with encrypt = never: encrypted all the same" sent re-never "encrypted to 1 recipient"
ok "bob gets it" got bob "$T_TMP/re-never.eml"
ok "... bob gets it encrypted" encrypted "$T_TMP/re-never.eml"
ok "... with In-Reply-To: bob's Message-ID" hdr_is "$T_TMP/re-never.eml" In-Reply-To "$qid"
ok "... and References: the same" hdr_is "$T_TMP/re-never.eml" References "$qid"
bob --inspect "$T_TMP/re-never.eml" >"$T_TMP/re-never.i" 2>&1
ok "bob decrypts the reply" kv "$T_TMP/re-never.i" decrypted yes
snd re-refuse a-plain --reply "$T_TMP/q.eml" -c dave@steed.test "$BO"
ok "a reply to encrypted mail, dave without a key, fallback = plaintext: refused, and why" \
	refused re-refuse "not sent, it cannot be encrypted: no key for dave@steed.test (it replies to encrypted mail, which is never answered in clear)"
snd re-ask a-ask --reply "$T_TMP/q.eml" -c dave@steed.test "$BO"
ok "... with fallback = ask too: nothing is asked, it is refused" \
	refused re-ask "not sent, it cannot be encrypted: no key for dave@steed.test (it replies to encrypted mail, which is never answered in clear)"
snd re-noenc a-default --reply "$T_TMP/q.eml" --no-encrypt "$BO"
ok "--no-encrypt overrides it, and says so plainly" sent re-noenc "sent in clear: --no-encrypt, although it replies to encrypted mail"
ok "bob gets it" got bob "$T_TMP/re-noenc.eml"
ok "... bob gets it in clear" clear_with "$T_TMP/re-noenc.eml" re-noenc
ok "... still a reply to bob's message" hdr_is "$T_TMP/re-noenc.eml" In-Reply-To "$qid"
# A plain message with a thread behind it.
printf 'From: Bob Example <bob@steed.test>\r\nTo: alice@steed.test\r\nSubject: plain\r\nMessage-ID: <p1.%s@steed.test>\r\nReferences: <r0@steed.test>\r\n (a comment) <r1@steed.test>\r\n\r\nhello\r\n' "$u" >"$T_TMP/plain-q.eml"
snd re-plain a-never --reply "$T_TMP/plain-q.eml" "$BO"
ok "a reply to plain mail follows the settings: encrypt = never, in clear" sent re-plain "sent in clear: encrypt = never"
ok "bob gets it" got bob "$T_TMP/re-plain.eml"
ok "... In-Reply-To: its Message-ID" hdr_is "$T_TMP/re-plain.eml" In-Reply-To "<p1.$u@steed.test>"
ok "... References: its References, then its Message-ID" hdr_is "$T_TMP/re-plain.eml" References "<r0@steed.test> <r1@steed.test> <p1.$u@steed.test>"
# Encrypted content below the top counts too (crypto-in opens only the top).
{
	printf 'From: bob@steed.test\r\nTo: alice@steed.test\r\nSubject: nested\r\nMessage-ID: <n1.%s@steed.test>\r\n' "$u"
	printf 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nsee below\r\n--b1\r\n'
	printf 'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="b2"\r\n\r\n'
	printf -- '--b2\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n--b2\r\nContent-Type: application/octet-stream\r\n\r\n'
	printf -- '-----BEGIN PGP MESSAGE-----\r\n\r\nhQEMA1234\r\n-----END PGP MESSAGE-----\r\n--b2--\r\n--b1--\r\n'
} >"$T_TMP/nested-q.eml"
snd re-nested a-never --reply "$T_TMP/nested-q.eml" "$BO"
ok "a reply to mail with an encrypted part below the top: encrypted" sent re-nested "encrypted to 1 recipient"
ok "bob gets it" got bob "$T_TMP/re-nested.eml"
ok "... bob gets it encrypted" encrypted "$T_TMP/re-nested.eml"
snd re-stdin a-default --reply - "$BO"
ok "--reply - is refused: standard input is the body (64)" sh -c "grep -q 'standard input is the message body' '$T_TMP/re-stdin.err' && [ \$(cat '$T_TMP/re-stdin.rc') = 64 ]"
snd re-none a-default --reply "$T_TMP/no-such.eml" "$BO"
ok "--reply FILE that cannot be read: 66, nothing queued" sh -c "[ \$(cat '$T_TMP/re-none.rc') = 66 ] && grep -q 'cannot open' '$T_TMP/re-none.err'"
ok "nothing queued" outbox_empty
fails "--reply goes with -s only" alice --list --reply "$T_TMP/q.eml"

# --- A bogus DNS answer is refused, its key not used --------------------------
dgpg() { gpg --homedir "$G" --batch --yes --pinentry-mode loopback --passphrase '' "$@" >/dev/null 2>&1; }
dgpg --quick-gen-key "Dave <dave@broken.test>" future-default default 1y
dgpg --quick-gen-key "Not Dave <dave@broken.test>" future-default default 1y
d1=$(primaries "$G" dave@broken.test | head -1)
d2=$(primaries "$G" dave@broken.test | tail -1)
# dane FPR: the key's OPENPGPKEY record data; owner: its name.
dane() { gpg --homedir "$G" --export-options export-dane --export "$1" | sed -n '/TYPE61/,$p' | tr -d '()\n\t' | sed 's/^[^ ]* TYPE61 *//'; }
owner=$(gpg --homedir "$G" --export-options export-dane --export "$d1" | awk '/TYPE61/ { print $1; exit }')
ok "dave's key goes into the signed zone broken.test" "$STEED_ENV_BIN/zone-set" broken.test "$owner._openpgpkey" TYPE61 "$(dane "$d1")"
# Another key in place of the signed one: the signature no longer fits.
zf=$STEED_ENV/dns/zones/broken.test.zone
awk -F '\t' -v OFS='\t' -v o="$owner._openpgpkey.broken.test." -v r="$(dane "$d2")" '
	tolower($1) == o && ($4 == "OPENPGPKEY" || $4 == "TYPE61") { $5 = r } { print }' "$zf" >"$zf.t" && mv "$zf.t" "$zf"
nsd-control -c "$STEED_ENV/dns/nsd.conf" reload broken.test >/dev/null 2>&1
# bogus_now N: steedmail's own resolver (a fresh cache each time) says so.
bogus_now() {
	XDG_DATA_HOME="$T_TMP/look" XDG_CACHE_HOME="$T_TMP/look-c$1" sm -F "$T_TMP/a-default.conf" \
	    --lookup dave@broken.test 2>/dev/null | grep -q "	OPENPGPKEY	bogus"
}
for i in $(seq 1 50); do bogus_now "$i" && break; sleep 0.1; done
ok "dave's OPENPGPKEY answer is bogus now" bogus_now last
snd bogus a-always dave@broken.test
ok "encrypt = always to dave: 69, the bogus answer named as a possible attack" sh -c "[ \$(cat '$T_TMP/bogus.rc') = 69 ] && grep -q '^steedmail: warning: the DNS answer for dave@broken.test.s key is bogus .*possibly an attack' '$T_TMP/bogus.err' || { cat '$T_TMP/bogus.err'; false; }"
ok "... and the line says why dave has no key" grep -qx "steedmail: not sent, it cannot be encrypted: dave@broken.test: the DNS answer for it was forged (possible attack) (encrypt = always)" "$T_TMP/bogus.err"
# The defaults send mail to a recipient without a key in clear; a bogus
# answer is no "no key": it holds the message, whatever fallback says.
for c in a-default a-plain a-ask a-refuse; do
	snd "bogus-$c" "$c" dave@broken.test
	ok "$c to dave: held, exit 69, the sentence, nothing queued" sh -c "[ \$(cat '$T_TMP/bogus-$c.rc') = 69 ] && grep -qx 'steedmail: held: the DNS answer for dave@broken.test was forged (possible attack); nothing was sent (--no-encrypt sends it in clear)' '$T_TMP/bogus-$c.err' || { cat '$T_TMP/bogus-$c.err'; false; }"
	ok "... nothing in the outbox" outbox_empty
done
snd bogus-cc a-default -c "$BO" dave@broken.test
ok "bob has a key, dave a bogus answer: the whole message is held (69)" sh -c "[ \$(cat '$T_TMP/bogus-cc.rc') = 69 ] && grep -q '^steedmail: held: the DNS answer for dave@broken.test was forged' '$T_TMP/bogus-cc.err'"
ok "... nothing in the outbox" outbox_empty
snd bogus-no a-default --no-encrypt dave@broken.test
ok "--no-encrypt to dave: sent in clear, as asked" sent bogus-no "sent in clear: --no-encrypt"
ok "neither of the keys is imported, nothing queued" sh -c "! gpg --homedir '$AH' -k dave@broken.test >/dev/null 2>&1" && outbox_empty
ok "the trust store has no key for dave" sh -c "! XDG_DATA_HOME='$T_TMP/alice' '$STEEDMAIL' -F '$T_TMP/a-default.conf' --trust show dave@broken.test 2>&1 | grep -q '^key:'"

# --- S/MIME from DNS: SMIMEA ---------------------------------------------------
# Bob publishes his certificate as SMIMEA 3 0 0 in the signed zone; a fresh
# alice (her own data home: no store, no certificate of his) finds it there.
{ cat "$T_TMP/bob.conf"; echo "smime = yes"; } >"$T_TMP/bob-s.conf"
bobs() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob-s.conf" "$@"; }
FH=$T_TMP/fresh/steedmail/gnupg
trap 'tmux -S "$TM" kill-server >/dev/null 2>&1; for h in "$AH" "$BH" "$CH" "$G" "$EH" "$FH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT
fresh() { XDG_DATA_HOME="$T_TMP/fresh" XDG_CACHE_HOME="$T_TMP/fresh-c" sm -F "$T_TMP/a-default.conf" "$@"; }
# fsnd NAME ARGS...: as snd, from the fresh alice.
fsnd() {
	_n=$1; shift
	echo "body $_n $u" | fresh -s "$_n $u" "$@" >"$T_TMP/$_n.out" 2>"$T_TMP/$_n.err"
	echo $? >"$T_TMP/$_n.rc"
}
fresh_refused() {
	exits "$1" 69 && said "$1" "$2" &&
	{ [ -z "$(find "$T_TMP/fresh/steedmail/outbox" -type f ! -name .lock 2>/dev/null)" ] ||
		{ find "$T_TMP/fresh/steedmail/outbox" -type f; false; }; }
}
hash() { printf '%s' "$1" | sha256sum | cut -c1-56; }
zs() { "$STEED_ENV_BIN/zone-set" "$@" >"$T_TMP/zs.out" 2>&1 || { cat "$T_TMP/zs.out"; return 1; }; }
bobs --genkey >"$T_TMP/sgen0" 2>&1
bsfpr=$(sed -n 's/^S\/MIME certificate \([0-9A-F]*\) .*/\1/p' "$T_TMP/sgen0")
bobs --dns-records >"$T_TMP/srec" 2>&1
srdata=$(awk '$4 == "TYPE53" { print $5, $6, $7; exit }' "$T_TMP/srec")
ok "bob has a certificate, and --dns-records prints its SMIMEA 3 0 0 record" sh -c "[ -n '$bsfpr' ] && case '$srdata' in '\\# '*' 030000'*) true;; *) false;; esac || { cat '$T_TMP/srec'; false; }"
ok "it goes into the signed zone steed.test" zs steed.test "$(hash "bob.p$$")._smimecert" TYPE53 "$srdata"
fsnd sdns --smime --encrypt "$BO"
ok "a fresh alice, -s --smime --encrypt to bob: encrypted, the certificate from DNS (dns-secure)" \
	sent sdns "encrypted to 1 recipient ($BO: certificate from DNS, dns-secure)"
ok "bob gets it" got bob "$T_TMP/sdns.eml"
ok "it is S/MIME enveloped data" sh -c "tr -d '\r' <'$T_TMP/sdns.eml' | awk '/^\$/ { exit } { print }' | grep -qi 'application/pkcs7-mime; smime-type=enveloped-data' || { head -20 '$T_TMP/sdns.eml'; false; }"
bob --inspect "$T_TMP/sdns.eml" >"$T_TMP/sdns.i" 2>&1
ok "bob --inspect decrypts it" sh -c "grep -qx 'encryption: smime' '$T_TMP/sdns.i' && grep -qx 'decrypted: yes' '$T_TMP/sdns.i' || { cat '$T_TMP/sdns.i'; false; }"
fresh --trust show "$BO" >"$T_TMP/sdns.s" 2>&1
ok "alice's trust store: bob's certificate, from dns-secure, her S/MIME pin for him" sh -c "grep -q '^key: $bsfpr smime accepted; from dns-secure' '$T_TMP/sdns.s' && grep -q '^pinned: $bsfpr' '$T_TMP/sdns.s' || { cat '$T_TMP/sdns.s'; false; }"
ok "gpgsm trusts it as a root on that evidence (trustlist.txt)" grep -q "^$bsfpr S relax" "$FH/trustlist.txt"
fsnd sdns2 --smime --encrypt "$BO"
ok "the next message: the store's certificate, nothing more to say" sent sdns2 "encrypted to 1 recipient"
ok "bob gets it" got bob "$T_TMP/sdns2.eml"
bob --inspect "$T_TMP/sdns2.eml" >"$T_TMP/sdns2.i" 2>&1
ok "... and decrypts it" kv "$T_TMP/sdns2.i" decrypted yes
ok "trustlist.txt names it once" test "$(grep -c "^$bsfpr " "$FH/trustlist.txt")" = 1

# A hash of the certificate only (3 0 1): it can confirm, not give a key.
# unhex: hexadecimal digits on stdin as bytes (od and python3 are what
# every machine the tests run on has; xxd is not).
unhex() { python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))'; }
shash=$(echo "$srdata" | awk '{ print substr($3, 7) }' | unhex | sha256sum | cut -c1-64)
ok "a hash-only SMIMEA record (3 0 1) for hugo" zs steed.test "$(hash "hugo.p$$")._smimecert" TYPE53 "\\# 35 030001$shash"
fsnd shash --smime --require-encryption "hugo.p$$@steed.test"
ok "--smime --require-encryption to hugo: 69, no certificate in the record" \
	fresh_refused shash "not sent, it cannot be encrypted: hugo.p$$@steed.test: no certificate in the record (its SMIMEA record holds a hash only)"

# smimea NAME USAGE KEYUSAGE: a self-signed certificate for NAME.p$$@steed.test
# made by openssl, published as SMIMEA USAGE 0 0.
smimea() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$G/$1.key" -out "$G/$1.pem" -days 30 \
	    -subj "/CN=$1" -addext "subjectAltName=email:$1.p$$@steed.test" \
	    -addext "keyUsage=$3" >/dev/null 2>&1 || return 1
	_hex=$(openssl x509 -in "$G/$1.pem" -outform der | od -An -v -tx1 | tr -d ' \n')
	zs steed.test "$(hash "$1.p$$")._smimecert" TYPE53 "\\# $(( ${#_hex} / 2 + 3 )) 0$2""0000$_hex"
}
ok "a CA certificate (keyCertSign) for ca.p$$ as SMIMEA 3 0 0" smimea ca 3 keyCertSign,digitalSignature,keyEncipherment
fsnd sca --smime --require-encryption "ca.p$$@steed.test"
ok "it is not made a trusted root: 69, and why" \
	fresh_refused sca "not sent, it cannot be encrypted: ca.p$$@steed.test: the certificate in its SMIMEA record could certify others (a CA), so it is not trusted"
ok "a self-signed certificate for pkix.p$$ as SMIMEA 1 0 0 (PKIX-EE)" smimea pkix 1 digitalSignature,keyEncipherment
fsnd spkix --smime --require-encryption "pkix.p$$@steed.test"
ok "usage 1 needs a valid chain, and gpgsm finds none: 69" \
	fresh_refused spkix "not sent, it cannot be encrypted: pkix.p$$@steed.test: the certificate in its SMIMEA record does not chain to a trusted root"
sha1() { openssl x509 -in "$G/$1.pem" -noout -fingerprint -sha1 | sed 's/.*=//; s/://g'; }
ok "... and neither stays in gpgsm's home" sh -c "gpgsm --homedir '$FH' --with-colons -k >'$T_TMP/fh.k' 2>/dev/null && grep -q '^crt' '$T_TMP/fh.k' && ! grep -qi 'ca.p$$@\|pkix.p$$@' '$T_TMP/fh.k' || { cat '$T_TMP/fh.k'; false; }"
ok "neither is in trustlist.txt" sh -c "! grep -qi '^$(sha1 ca) ' '$FH/trustlist.txt' && ! grep -qi '^$(sha1 pkix) ' '$FH/trustlist.txt' && [ -n '$(sha1 ca)' ]"

# Bob's certificate under another address, in an unsigned zone.
ok "bob's certificate as SMIMEA of bob.p$$@plain.test (unsigned)" zs plain.test "$(hash "bob.p$$")._smimecert" TYPE53 "$srdata"
fsnd sother --smime --require-encryption "bob.p$$@plain.test"
ok "a certificate that is not for the address is not used: 69" \
	fresh_refused sother "not sent, it cannot be encrypted: bob.p$$@plain.test: the certificate in its SMIMEA record is not for the address"

# The same record in broken.test, changed after signing: bogus.
ok "bob's certificate into the signed zone broken.test" zs broken.test "$(hash "bob.p$$")._smimecert" TYPE53 "$srdata"
zf=$STEED_ENV/dns/zones/broken.test.zone
awk -F '\t' -v OFS='\t' -v o="$(hash "bob.p$$")._smimecert.broken.test." -v r="\\# 35 030001$shash" '
	tolower($1) == o && ($4 == "SMIMEA" || $4 == "TYPE53") { $5 = r } { print }' "$zf" >"$zf.t" && mv "$zf.t" "$zf"
nsd-control -c "$STEED_ENV/dns/nsd.conf" reload broken.test >/dev/null 2>&1
sbogus_now() {
	XDG_DATA_HOME="$T_TMP/look" XDG_CACHE_HOME="$T_TMP/slook-c$1" sm -F "$T_TMP/a-default.conf" \
	    --lookup "bob.p$$@broken.test" 2>/dev/null | grep -q "	SMIMEA	bogus"
}
for i in $(seq 1 50); do sbogus_now "$i" && break; sleep 0.1; done
ok "its SMIMEA answer is bogus now" sbogus_now last
fsnd sbogus --smime --require-encryption "bob.p$$@broken.test"
ok "--smime --require-encryption: 69, the bogus answer named as a possible attack" sh -c "[ \$(cat '$T_TMP/sbogus.rc') = 69 ] && grep -q '^steedmail: warning: the DNS answer for bob.p$$@broken.test.s certificate is bogus .*possibly an attack' '$T_TMP/sbogus.err' || { cat '$T_TMP/sbogus.err'; false; }"
ok "... and the line says why" grep -qx "steedmail: not sent, it cannot be encrypted: bob.p$$@broken.test: the DNS answer for it was forged (possible attack)" "$T_TMP/sbogus.err"
ok "nothing for that address in the store" sh -c "! fresh --trust show 'bob.p$$@broken.test' 2>&1 | grep -q '^key:'"

# --- S/MIME: the certificate used first stays, a newer one does not replace it
bob --genkey --smime >"$T_TMP/sgen" 2>&1
ok "bob's S/MIME certificate is the one in DNS" same "$(sed -n 's/^S\/MIME certificate \([0-9A-F]*\) .*/\1/p' "$T_TMP/sgen")" "$bsfpr"
bob --export-key --smime | alice --import-key - >/dev/null 2>&1
snd smime1 a-default --encrypt --smime "$BO"
ok "--encrypt --smime to bob: encrypted to 1 recipient" sent smime1 "encrypted to 1 recipient"
XDG_DATA_HOME="$T_TMP/alice" "$STEEDMAIL" -F "$T_TMP/a-default.conf" --trust show "$BO" >"$T_TMP/smime1.s" 2>&1
ok "bob's certificate is alice's S/MIME pin for him, his OpenPGP key her OpenPGP one" sh -c "grep -qx 'pin: smime $bsfpr known' '$T_TMP/smime1.s' && grep -qx 'pin: openpgp $bfpr known' '$T_TMP/smime1.s' || { cat '$T_TMP/smime1.s'; false; }"
ok "bob gets it" got bob "$T_TMP/smime1.eml"
bob --inspect "$T_TMP/smime1.eml" >"$T_TMP/smime1.i" 2>&1
ok "bob gets S/MIME enveloped data and decrypts it" sh -c "grep -qx 'encryption: smime' '$T_TMP/smime1.i' && grep -qx 'decrypted: yes' '$T_TMP/smime1.i' || { cat '$T_TMP/smime1.i'; false; }"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$G/other.key" -out "$G/other.pem" -days 30 \
    -subj "/CN=Bob Other" -addext "subjectAltName=email:$BO" \
    -addext "keyUsage=digitalSignature,keyEncipherment" >/dev/null 2>&1
ok "another certificate for bob's address, newer, in alice's home" sh -c "XDG_DATA_HOME='$T_TMP/alice' '$STEEDMAIL' -F '$T_TMP/a-default.conf' --import-key '$G/other.pem' | grep -q ': new'"
snd smime2 a-default --encrypt --smime "$BO"
ok "--encrypt --smime again: encrypted" sent smime2 "encrypted to 1 recipient"
ok "bob gets it" got bob "$T_TMP/smime2.eml"
bob --inspect "$T_TMP/smime2.eml" >"$T_TMP/smime2.i" 2>&1
ok "bob still decrypts it: the first certificate was used, not the newer" kv "$T_TMP/smime2.i" decrypted yes
snd smime-req a-default --smime --require-encryption "$CA"
ok "--smime --require-encryption, carol has no certificate: 69, not sent in clear" \
	refused smime-req "not sent, it cannot be encrypted: no key for $CA"

# --- A revoked key is not encrypted to ------------------------------------
sed 's/^:-----/-----/' "$BH/openpgp-revocs.d/$bfpr.rev" | gpg --homedir "$AH" --batch --import >/dev/null 2>&1
ok "bob's only key is revoked in alice's home" sh -c "gpg --homedir '$AH' --with-colons -k '$bfpr' | grep -q '^pub:r:'"
snd rev a-default "$BO"
ok "the defaults: sent in clear, the line says bob's key is revoked" sent rev "sent in clear: $BO: the key $bfpr is revoked"
ok "bob gets it" got bob "$T_TMP/rev.eml"
ok "bob gets it in clear" clear_with "$T_TMP/rev.eml" rev
snd rev-always a-always "$BO"
ok "encrypt = always: refused, the revoked key named" \
	refused rev-always "not sent, it cannot be encrypted: $BO: the key $bfpr is revoked (encrypt = always)"
snd rev-req a-default --require-encryption -c "$CA" "$BO"
ok "--require-encryption with carol (who has a key): refused, only bob named" \
	refused rev-req "not sent, it cannot be encrypted: $BO: the key $bfpr is revoked"

# --- A key that only claims an address is never used ------------------------
# mallory's mail carries a valid Autocrypt header (addr = From) whose key
# has a user ID of victim's address. It lands in alice's home; sending to
# victim must still find no key: the store never saw it for victim.
VI=victim.p$$@steed.test
gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase '' \
    --quick-gen-key "Victim <$VI>" ed25519 sign never >/dev/null 2>&1
mfpr=$(gpg --homedir "$G" --with-colons -k "$VI" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase '' \
    --quick-add-key "$mfpr" cv25519 encr never >/dev/null 2>&1
kd=$(gpg --homedir "$G" --export "$mfpr" | base64 -w 0)
{ printf 'From: Mallory <mallory.p%s@steed.test>\r\nTo: %s\r\nSubject: hello %s\r\n' "$$" "$AL" "$u"
  printf 'Message-ID: <mallory-%s@steed.test>\r\nDate: Thu, 03 Dec 2026 12:00:00 +0000\r\n' "$u"
  printf 'Autocrypt: addr=mallory.p%s@steed.test; keydata=%s\r\n' "$$" "$kd"
  printf 'MIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nhi\r\n'; } >"$T_TMP/mallory.eml"
alice --inspect "$T_TMP/mallory.eml" >"$T_TMP/mallory.i" 2>&1
ok "mallory's Autocrypt header is valid, his key (it can encrypt) is in alice's home" sh -c "grep -qx 'autocrypt: valid' '$T_TMP/mallory.i' && gpg --homedir '$AH' --with-colons -k '$VI' | grep -q '^fpr:::::::::$mfpr:' && gpg --homedir '$AH' --with-colons -k '$VI' | grep -q '^sub:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:e' || { cat '$T_TMP/mallory.i'; false; }"
snd inject a-default --require-encryption "$VI"
ok "sending to victim: no key (the one claiming victim is not used), refused" \
	refused inject "not sent, it cannot be encrypted: no key for $VI"

# --- An expired key, renewed, is used again ----------------------------------
# erin's key expired (made in 2020 for a year); alice imports it and cannot
# encrypt to her. erin renews it (new self-signatures, no expiry); alice
# imports the renewal and encrypts to the same key again.
EA=erin.p$$@steed.test GE=$T_TMP/ge
"$STEED_ENV_BIN/add-user" "$EA" "erin-p$$" >/dev/null || bail "cannot add $EA"
mkdir -m 700 "$GE"
gpg --homedir "$GE" --batch --pinentry-mode loopback --passphrase '' --faked-system-time 20200101T000000 \
    --quick-gen-key "Erin <$EA>" ed25519 sign 1y >/dev/null 2>&1
efpr=$(gpg --homedir "$GE" --with-colons -k "$EA" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
gpg --homedir "$GE" --batch --pinentry-mode loopback --passphrase '' --faked-system-time 20200101T000100 \
    --quick-add-key "$efpr" cv25519 encr 1y >/dev/null 2>&1
gpg --homedir "$GE" --export "$efpr" >"$T_TMP/erin-old.gpg"
ok "erin's key is expired" sh -c "gpg --homedir '$GE' --with-colons -k '$efpr' | grep -q '^pub:e:'"
A a-default --import-key "$T_TMP/erin-old.gpg" >/dev/null 2>&1
snd exp1 a-default --require-encryption "$EA"
ok "her expired key: refused, the key named as expired" \
	refused exp1 "not sent, it cannot be encrypted: $EA: the key $efpr has expired"
gpg --homedir "$GE" --batch --pinentry-mode loopback --passphrase '' --quick-set-expire "$efpr" never >/dev/null 2>&1
esub=$(gpg --homedir "$GE" --with-colons -k "$efpr" 2>/dev/null | awk -F: '/^fpr/ { if (++n == 2) print $10 }')
gpg --homedir "$GE" --batch --pinentry-mode loopback --passphrase '' --quick-set-expire "$efpr" never "$esub" >/dev/null 2>&1
gpg --homedir "$GE" --export "$efpr" >"$T_TMP/erin-new.gpg"
ok "erin renewed it, subkey too" sh -c "gpg --homedir '$GE' --with-colons -k '$efpr' | grep -q '^pub:[-uq]:' && gpg --homedir '$GE' --with-colons -k '$efpr' | grep -q '^sub:[-uq]:'"
A a-default --import-key "$T_TMP/erin-new.gpg" >/dev/null 2>&1
snd exp2 a-default --require-encryption "$EA"
ok "the renewal imported: encrypted to her again" sent exp2 "encrypted to 1 recipient"
