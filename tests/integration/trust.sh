# trust.sh: the trust store and encryption by default, end to end: alice
# sends bob signed mail through the real servers, bob's --inspect of what
# arrives gives first-contact, then known, then key-changed when alice's
# key changes; --trust verify makes it verified; her first S/MIME-signed
# message is first contact for S/MIME, not a change of her OpenPGP key,
# and --trust show has both pins; alice's -s encrypts on its own once she
# has bob's key, sends in clear with a note to a stranger, refuses with
# --require-encryption, and never uses a revoked key.
. "$(dirname "$0")/../lib.sh"

# Syncs (--list too) must not feed this file's mail to the trust store:
# it checks what --inspect records (sync-trust.sh checks what a sync
# records).
for _u in alice bob; do
	{ echo "sync-trust-limit = 0"; cat "$STEED_ENV/$_u.conf"; } >"$T_TMP/$_u.conf"
	chmod 600 "$T_TMP/$_u.conf"
done
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob.conf" "$@"; }
AH=$T_TMP/alice/steedmail/gnupg
BH=$T_TMP/bob/steedmail/gnupg
trap 'for h in "$AH" "$BH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT

arrives() {
	for _ in $(seq 1 30); do
		[ "$("$1" --list INBOX 2>/dev/null | grep -cF -- "$2")" -ge 1 ] && return 0
		sleep 0.5
	done
	echo "no '$2' in $1's INBOX"; return 1
}
# got WHO TEXT FILE: the newest message with TEXT, fetched into FILE.
got() {
	arrives "$1" "$2" || return 1
	_uid=$("$1" --list INBOX | grep -F -- "$2" | tail -1 | cut -f1)
	"$1" --fetch "$_uid" INBOX >"$3"
}
kv() { grep -qxF -- "$2: $3" "$1" || { echo "no \"$2: $3\" in:"; cat "$1"; return 1; }; }
outbox_empty() { [ -z "$(ls "$T_TMP/alice/steedmail/outbox/" 2>/dev/null | grep '\.env$')" ]; }
u=$$-$(date +%s)

echo "hello $u" | alice -s "first $u" --sign "$STEED_BOB" >/dev/null 2>&1
afpr=$(gpg --homedir "$AH" --with-colons -K 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
got bob "first $u" "$T_TMP/m1.eml"
bob --inspect "$T_TMP/m1.eml" >"$T_TMP/i1" 2>&1
ok "bob's first signed message from alice: first-contact" kv "$T_TMP/i1" trust.state first-contact
ok "trust.fpr is alice's key" kv "$T_TMP/i1" trust.fpr "$afpr"
ok "trust.messages: 1" kv "$T_TMP/i1" trust.messages 1
bob --inspect "$T_TMP/m1.eml" >"$T_TMP/i1b" 2>&1
ok "inspecting it again keeps first-contact" kv "$T_TMP/i1b" trust.state first-contact
bob --view "$T_TMP/m1.eml" >"$T_TMP/v1" 2>&1
ok "--view shows the trust state" grep -q "trust: first-contact, key $afpr" "$T_TMP/v1"

echo "again $u" | alice -s "second $u" "$STEED_BOB" >"$T_TMP/e2" 2>&1
got bob "second $u" "$T_TMP/m2.eml"
bob --inspect "$T_TMP/m2.eml" >"$T_TMP/i2" 2>&1
ok "without --sign alice's mail is signed (she has a key): known" kv "$T_TMP/i2" trust.state known
ok "known: 2 messages, since today" sh -c "grep -qx 'trust.messages: 2' '$T_TMP/i2' && grep -qx 'trust.since: $(date -u +%Y-%m-%d)' '$T_TMP/i2'"
ok "alice had no key for bob: sent in clear, one line saying so" sh -c "grep -qx 'steedmail: sent in clear: no key for bob@steed.test' '$T_TMP/e2' && [ \$(wc -l <'$T_TMP/e2') = 1 ]"

# Encrypt by default: alice learns bob's key from his mail's Autocrypt header.
bob --genkey >/dev/null 2>&1
echo "hi $u" | bob -s "from bob $u" "$STEED_ALICE" >"$T_TMP/eb" 2>&1
ok "bob (who has a key and alice's) writes to alice: encrypted by default" grep -qx "steedmail: encrypted to 1 recipient" "$T_TMP/eb"
bfpr=$(gpg --homedir "$BH" --with-colons -K 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
# (the trust step is off here: nothing decrypts it before --inspect)
got alice "(encrypted)" "$T_TMP/b1.eml"
alice --inspect "$T_TMP/b1.eml" >"$T_TMP/ib1" 2>&1
ok "alice's --inspect of bob's mail: first-contact, Autocrypt key imported" sh -c "grep -qx 'trust.state: first-contact' '$T_TMP/ib1' && grep -qx 'autocrypt.fpr: $bfpr' '$T_TMP/ib1'"
echo "secret $u" | alice -s "enc $u" "$STEED_BOB" >"$T_TMP/e3" 2>&1
ok "alice -s without flags encrypts: 'encrypted to 1 recipient'" sh -c "[ \"\$(cat '$T_TMP/e3')\" = 'steedmail: encrypted to 1 recipient' ] || { cat '$T_TMP/e3'; false; }"
got bob "(encrypted)" "$T_TMP/m3.eml"
ok "what bob gets is encrypted" grep -qi 'multipart/encrypted' "$T_TMP/m3.eml"
bob --inspect "$T_TMP/m3.eml" >"$T_TMP/i3" 2>&1
ok "bob decrypts it, alice still known" sh -c "grep -qx 'decrypted: yes' '$T_TMP/i3' && grep -qx 'trust.state: known' '$T_TMP/i3'"
# carol exists, so that the message really goes ("sent in clear" is said
# only of what the server took)
"$STEED_ENV_BIN/add-user" carol@steed.test carol-pw >/dev/null 2>&1
echo "x $u" | alice -s "stranger $u" -c carol@steed.test "$STEED_BOB" >"$T_TMP/e4" 2>&1
ok "an unknown recipient: sent in clear, the one line names her" sh -c "[ \$? = 0 ] && grep -qx 'steedmail: sent in clear: no key for carol@steed.test' '$T_TMP/e4'"
echo "x $u" | alice -s "req $u" --require-encryption -c carol@steed.test "$STEED_BOB" >"$T_TMP/e5" 2>&1
rc=$?
ok "--require-encryption with an unknown recipient: exit 69" sh -c "[ $rc = 69 ] && grep -q 'not sent, it cannot be encrypted: no key for carol@steed.test' '$T_TMP/e5'"
ok "nothing queued" outbox_empty
echo "x $u" | alice -s "never $u" --no-encrypt "$STEED_BOB" >"$T_TMP/e6" 2>&1
ok "--no-encrypt: in clear" grep -qx 'steedmail: sent in clear: --no-encrypt' "$T_TMP/e6"

# alice's key changes: a new GnuPG home, a new key.
gpgconf --homedir "$AH" --kill all >/dev/null 2>&1
mv "$AH" "$T_TMP/alice-old-gnupg"
echo "new key $u" | alice -s "newkey $u" --sign "$STEED_BOB" >/dev/null 2>&1
afpr2=$(gpg --homedir "$AH" --with-colons -K 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
got bob "newkey $u" "$T_TMP/m4.eml"
bob --inspect "$T_TMP/m4.eml" >"$T_TMP/i4" 2>&1
ok "a new key: key-changed, both fingerprints" sh -c "grep -qx 'trust.state: key-changed' '$T_TMP/i4' && grep -qx 'trust.fpr: $afpr2' '$T_TMP/i4' && grep -qx 'trust.other-fpr: $afpr' '$T_TMP/i4'"
bob --view "$T_TMP/m4.eml" >"$T_TMP/v4" 2>&1
ok "--view warns loudly" grep -q "trust: key-changed, key $afpr2 -- WARNING" "$T_TMP/v4"
bob --trust show "$STEED_ALICE" >"$T_TMP/s1" 2>&1
ok "--trust show: the old key stays pinned" sh -c "grep -qx 'pinned: $afpr' '$T_TMP/s1' && grep -q 'KEY CHANGED' '$T_TMP/s1'"
ok "bob --trust verify ADDR FPR" bob --trust verify "$STEED_ALICE" "$afpr2"
bob --trust list >"$T_TMP/l1" 2>&1
ok "--trust list: verified, the new key" sh -c "grep -qxF \"$STEED_ALICE	verified	$afpr2\" \"$T_TMP/l1\" || { cat \"$T_TMP/l1\"; false; }"
echo "v $u" | alice -s "after verify $u" --sign "$STEED_BOB" >/dev/null 2>&1
got bob "after verify $u" "$T_TMP/m5.eml"
bob --inspect "$T_TMP/m5.eml" >"$T_TMP/i5" 2>&1
ok "the next message: verified" kv "$T_TMP/i5" trust.state verified
bob --inspect "$T_TMP/m4.eml" >"$T_TMP/i4b" 2>&1
ok "the key-changed message keeps its indicator" kv "$T_TMP/i4b" trust.state key-changed

# S/MIME next to OpenPGP: bob has alice's OpenPGP key pinned (verified);
# her first S/MIME-signed message is first contact for S/MIME, not a key
# change, and bob's store then has a pin for each protocol.
{ cat "$T_TMP/alice.conf"; echo "smime = yes"; } >"$T_TMP/alice-smime.conf"
chmod 600 "$T_TMP/alice-smime.conf"
alice_s() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/alice-smime.conf" "$@"; }
alice_s --genkey >"$T_TMP/sgen" 2>&1
sfpr=$(sed -n 's/^S\/MIME certificate \([0-9A-F]*\) .*/\1/p' "$T_TMP/sgen")
ok "alice (smime = yes) has an S/MIME certificate" test -n "$sfpr"
echo "smime $u" | alice_s -s "smime signed $u" --smime --sign "$STEED_BOB" >"$T_TMP/es" 2>&1
ok "alice -s --smime --sign: exit 0" test $? = 0
got bob "smime signed $u" "$T_TMP/ms.eml"
bob --inspect "$T_TMP/ms.eml" >"$T_TMP/is" 2>&1
ok "bob's --inspect: an S/MIME signature" kv "$T_TMP/is" signature.1.protocol smime
ok "her first S/MIME signature: first-contact, not key-changed" sh -c "grep -qx 'trust.state: first-contact' '$T_TMP/is' && ! grep -q 'key-changed' '$T_TMP/is' || { cat '$T_TMP/is'; false; }"
ok "trust.fpr is her certificate" kv "$T_TMP/is" trust.fpr "$sfpr"
bob --trust show "$STEED_ALICE" >"$T_TMP/ss" 2>&1
ok "--trust show: both pins, OpenPGP's still verified" sh -c "grep -qx 'pin: openpgp $afpr2 verified' '$T_TMP/ss' && grep -qx 'pin: smime $sfpr known' '$T_TMP/ss' && grep -qx 'pinned: $afpr2' '$T_TMP/ss' && grep -qx 'state: verified' '$T_TMP/ss' || { cat '$T_TMP/ss'; false; }"
echo "smime again $u" | alice_s -s "smime again $u" --smime --sign "$STEED_BOB" >/dev/null 2>&1
got bob "smime again $u" "$T_TMP/ms2.eml"
bob --inspect "$T_TMP/ms2.eml" >"$T_TMP/is2" 2>&1
ok "the next S/MIME message: known" kv "$T_TMP/is2" trust.state known
echo "pgp again $u" | alice -s "pgp again $u" --sign "$STEED_BOB" >/dev/null 2>&1
got bob "pgp again $u" "$T_TMP/mp.eml"
bob --inspect "$T_TMP/mp.eml" >"$T_TMP/ip" 2>&1
ok "and an OpenPGP-signed one is still verified" kv "$T_TMP/ip" trust.state verified
bob --trust list >"$T_TMP/l2" 2>&1
ok "--trust list: one line for alice, the OpenPGP state and pin" sh -c "[ \$(grep -c '^$STEED_ALICE	' '$T_TMP/l2') = 1 ] && grep -qxF \"$STEED_ALICE	verified	$afpr2\" '$T_TMP/l2' || { cat '$T_TMP/l2'; false; }"

# A revoked key is never used: bob holds alice's verified key; revoke it.
gpg --homedir "$AH" --batch --yes --import "$AH/openpgp-revocs.d/$afpr2.rev" >/dev/null 2>&1 ||
	{ sed 's/^:-----/-----/' "$AH/openpgp-revocs.d/$afpr2.rev" | gpg --homedir "$AH" --batch --import >/dev/null 2>&1; }
gpg --homedir "$AH" --export "$afpr2" | gpg --homedir "$BH" --batch --import >/dev/null 2>&1
ok "alice's key is revoked in bob's home" sh -c "gpg --homedir '$BH' --with-colons -k '$afpr2' | grep -q '^pub:r:'"
echo "r $u" | bob -s "to revoked $u" "$STEED_ALICE" >"$T_TMP/e7" 2>&1
ok "bob -s to alice: sent in clear, her key is revoked" sh -c "grep -q 'sent in clear: alice@steed.test: the key $afpr2 is revoked' '$T_TMP/e7' || { cat '$T_TMP/e7'; false; }"
echo "r $u" | bob -s "req revoked $u" --require-encryption "$STEED_ALICE" >"$T_TMP/e8" 2>&1
ok "--require-encryption to the revoked key: 69" test $? = 69
bob --trust show "$STEED_ALICE" >"$T_TMP/s2" 2>&1
ok "--trust show says revoked" grep -qx 'state: revoked' "$T_TMP/s2"

# DNS: bob publishes his key in the signed zone; a fresh alice (no
# Autocrypt, no trust store) finds it there. A bogus record is refused.
{ echo "dns-config = $STEED_DNS_CONF"; cat "$STEED_ENV/alice.conf"; } >"$T_TMP/alice-dns.conf"
chmod 600 "$T_TMP/alice-dns.conf"
AH3=$T_TMP/alice3/steedmail/gnupg
trap 'for h in "$AH" "$BH" "$AH3"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT
alice3() { XDG_DATA_HOME="$T_TMP/alice3" XDG_CACHE_HOME="$T_TMP/alice3-c" sm -F "$T_TMP/alice-dns.conf" "$@"; }
zs() { "$STEED_ENV_BIN/zone-set" "$@" >"$T_TMP/zs.out" 2>&1 || { cat "$T_TMP/zs.out" >&2; return 1; }; }
hash() { printf '%s' "$1" | sha256sum | cut -c1-56; }
bob --dns-records >"$T_TMP/rec.bob" 2>/dev/null
owner=$(awk '!/^;/ { print $1; exit }' "$T_TMP/rec.bob")
rdata=$(awk '!/^;/ { print $5, $6, $7; exit }' "$T_TMP/rec.bob")
ok "bob's key goes into the signed zone" zs steed.test "$owner" TYPE61 "$rdata"
echo "dns $u" | alice3 -s "via dns $u" "$STEED_BOB" >"$T_TMP/e9" 2>&1
ok "a fresh alice encrypts to bob from DNS, no flag, no Autocrypt" sh -c "grep -qx 'steedmail: encrypted to 1 recipient' '$T_TMP/e9' || { cat '$T_TMP/e9'; false; }"
ok "bob's key is in her store from dns-secure" sh -c "XDG_DATA_HOME='$T_TMP/alice3' '$STEEDMAIL' -F '$T_TMP/alice-dns.conf' --trust show bob@steed.test | grep -q '^key: $bfpr openpgp accepted; from dns-secure'"
zs broken.test "$(hash dave)._openpgpkey" TYPE61 "$rdata"
zf=$STEED_ENV/dns/zones/broken.test.zone
awk -F '\t' -v OFS='\t' -v o="$(hash dave)._openpgpkey.broken.test." '
	tolower($1) == o && ($4 == "OPENPGPKEY" || $4 == "TYPE61") { $5 = "\\# 4 deadbeef" } { print }' "$zf" >"$zf.t" && mv "$zf.t" "$zf"
nsd-control -c "$STEED_ENV/dns/nsd.conf" reload broken.test >/dev/null 2>&1
sleep 0.5
echo "b $u" | alice3 -s "bogus $u" --require-encryption dave@broken.test >"$T_TMP/e10" 2>&1
rc=$?
ok "a bogus record is refused and named as a possible attack (69)" sh -c "[ $rc = 69 ] && grep -q 'bogus.*possibly an attack' '$T_TMP/e10' || { cat '$T_TMP/e10'; false; }"
