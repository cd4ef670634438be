# crypto-out.sh: keys and outgoing protection end to end. alice and bob
# make their keys with --genkey, swap public keys with --export-key and
# --import-key, alice sends bob PGP/MIME signed and encrypted mail and
# S/MIME signed and enveloped mail through the real Postfix and Dovecot;
# what arrives is checked with the gpg and gpgsm command line tools
# against bob's own steedmail home, as another mail client would.
. "$(dirname "$0")/../lib.sh"

# Both accounts also want S/MIME certificates.
for _u in alice bob; do
	{ cat "$STEED_ENV/$_u.conf"; echo "smime = yes"; } >"$T_TMP/$_u.conf"
	chmod 600 "$T_TMP/$_u.conf"
done
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob.conf" "$@"; }
AH=$T_TMP/alice/steedmail/gnupg
BH=$T_TMP/bob/steedmail/gnupg
EH=$T_TMP/g-empty		# a home with no keys, for looking at data
mkdir -m 700 "$EH"
trap 'for h in "$AH" "$BH" "$EH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT

count() { "$1" --list "$2" 2>/dev/null | grep -cF -- "$3"; }
arrives() {
	for _ in $(seq 1 30); do
		[ "$(count "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.5
	done
	echo "expected $4 message(s) '$3' in $1's $2"
	return 1
}
# fetch WHO FOLDER TEXT DIR: the message, split into DIR (mimeparts.py).
fetch() {
	_uid=$("$1" --list "$2" | grep -F -- "$3" | tail -1 | cut -f1)
	"$1" --fetch "$_uid" "$2" >"$4.eml" && python3 tests/tools/mimeparts.py "$4.eml" "$4"
}
outbox_empty() { [ -z "$(ls "$T_TMP/alice/steedmail/outbox/" 2>/dev/null | grep '\.env$')" ]; }
u=$$-$(date +%s)

# --- Keys ---------------------------------------------------------------
alice --genkey >"$T_TMP/gen" 2>&1
ok "alice --genkey: exit 0, fingerprint, expiry, revocation certificate" sh -c "[ $? = 0 ] && grep -Eq '^OpenPGP key [0-9A-F]{40} created in [0-9.]+ s' '$T_TMP/gen' && grep -q 'expires: 20' '$T_TMP/gen' && grep -q 'revocation certificate: $AH/openpgp-revocs.d/' '$T_TMP/gen'"
secs=$(sed -n 's/^OpenPGP key .* created in \([0-9.]*\) s$/\1/p' "$T_TMP/gen")
diag "alice's OpenPGP key took $secs s"
# The time is a benchmark figure (make bench, crypto half), not a test:
# this only catches a generation that hangs or waits for entropy.
ok "OpenPGP key generation finishes promptly ($secs s, under 15 s)" awk "BEGIN { exit !($secs < 15) }"
afpr=$(sed -n 's/^OpenPGP key \([0-9A-F]*\) .*/\1/p' "$T_TMP/gen")
ok "the revocation certificate it names exists" test -s "$AH/openpgp-revocs.d/$afpr.rev"
gpg --homedir "$AH" --with-colons -K "$afpr" >"$T_TMP/k" 2>/dev/null
ok "Ed25519 primary (sign, certify) and Cv25519 subkey (encrypt), both expiring" sh -c "grep -Eq '^sec:u:255:22:[0-9A-F]+:[0-9]+:[0-9]+:.*:sc[A-Za-z]*:.*:ed25519:' '$T_TMP/k' && grep -Eq '^ssb:u:255:18:[0-9A-F]+:[0-9]+:[0-9]+:.*:e:.*:cv25519:' '$T_TMP/k'"
ok "user ID is 'Name <address>'" grep -q '^uid:.*:Alice Example <alice@steed.test>:' "$T_TMP/k"
ok "no passphrase on the secret key" sh -c "gpg-connect-agent --homedir '$AH' 'KEYINFO --list' /bye | grep -q ' C '"
ok "and an S/MIME certificate (smime = yes)" grep -Eq '^S/MIME certificate [0-9A-F]{40} created in' "$T_TMP/gen"
ssecs=$(sed -n 's/^S\/MIME certificate .* created in \([0-9.]*\) s$/\1/p' "$T_TMP/gen")
diag "alice's S/MIME certificate (RSA 2048) took $ssecs s"
alice --genkey >"$T_TMP/gen2" 2>&1
ok "a second --genkey reports the same key, makes no other" sh -c "grep -q '^OpenPGP key $afpr exists' '$T_TMP/gen2' && [ \$(gpg --homedir '$AH' --with-colons -K | grep -c '^sec') = 1 ] && grep -q '^S/MIME certificate .* exists' '$T_TMP/gen2'"
# Less than 60 days left: the next look-up renews primary key and subkey.
gpg --homedir "$AH" --batch --pinentry-mode loopback --passphrase '' --quick-set-expire "$afpr" 30d >/dev/null 2>&1
gpg --homedir "$AH" --batch --pinentry-mode loopback --passphrase '' --quick-set-expire "$afpr" 30d '*' >/dev/null 2>&1
alice --genkey >"$T_TMP/gen3" 2>&1
ok "30 days left: --genkey renews the expiry by two years" sh -c "grep -q '^OpenPGP key $afpr exists; its expiry was renewed' '$T_TMP/gen3' && [ \$(gpg --homedir '$AH' --with-colons -k '$afpr' | awk -F: '/^(pub|sub):/ && \$7 > $(date +%s) + 700 * 86400' | wc -l) = 2 ]"
bob --genkey >"$T_TMP/bgen" 2>&1
ok "bob --genkey" grep -q '^OpenPGP key .* created' "$T_TMP/bgen"
bfpr=$(sed -n 's/^OpenPGP key \([0-9A-F]*\) .*/\1/p' "$T_TMP/bgen")

bob --export-key >"$T_TMP/bob.asc" 2>"$T_TMP/err"
ok "--export-key: an ASCII-armored public key, no secret" sh -c "head -1 '$T_TMP/bob.asc' | grep -q 'BEGIN PGP PUBLIC KEY BLOCK' && ! grep -q PRIVATE '$T_TMP/bob.asc'"
alice --import-key - <"$T_TMP/bob.asc" >"$T_TMP/o" 2>&1
ok "alice --import-key -: names bob's key as new" grep -q "^$bfpr Bob Example <bob@steed.test>: new" "$T_TMP/o"
alice --export-key | bob --import-key - >/dev/null 2>&1
bob --export-key --smime | alice --import-key - >"$T_TMP/o" 2>&1
ok "S/MIME certificates imported too (--export-key --smime)" grep -q ': new' "$T_TMP/o"
alice --export-key --smime | bob --import-key - >/dev/null 2>&1
echo "not a key" >"$T_TMP/junk"
fails "--import-key of something that is no key fails" alice --import-key "$T_TMP/junk"

# --- PGP/MIME signed ----------------------------------------------------
echo "signed body $u" | alice -s "signed $u" --sign --no-encrypt "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "-s --sign: exit 0" test $? = 0
ok "it arrives" arrives bob INBOX "signed $u" 1
fetch bob INBOX "signed $u" "$T_TMP/s"
ok "multipart/signed, protocol application/pgp-signature, micalg=pgp-sha256" sh -c "grep -i '^content-type:' '$T_TMP/s/header' | grep -q 'multipart/signed' && grep -i '^content-type:' '$T_TMP/s/header' | grep -q 'protocol=\"application/pgp-signature\"' && grep -i '^content-type:' '$T_TMP/s/header' | grep -q 'micalg=pgp-sha256'"
gpg --homedir "$BH" --status-fd 1 --verify "$T_TMP/s/part2.body" "$T_TMP/s/part1" >"$T_TMP/v" 2>&1
ok "bob's gpg verifies the signature: good, by alice's key" sh -c "grep -q GOODSIG '$T_TMP/v' && grep -q 'VALIDSIG $afpr' '$T_TMP/v'"
ok "signed only: real Subject outside, protected copy inside with hp=\"clear\"" sh -c "grep -q '^Subject: signed $u' '$T_TMP/s/header' && grep -q '^Subject: signed $u' '$T_TMP/s/part1' && grep -q 'hp=\"clear\"' '$T_TMP/s/part1' && grep -q '^Message-ID:' '$T_TMP/s/part1'"
# The Autocrypt header: well formed, keydata is alice's key.
grep '^Autocrypt:' "$T_TMP/s/header" >"$T_TMP/ac"
ok "Autocrypt header: addr=alice@steed.test; prefer-encrypt=mutual; keydata=" grep -Eq '^Autocrypt: addr=alice@steed.test; prefer-encrypt=mutual; keydata= ?[A-Za-z0-9+/= ]+$' "$T_TMP/ac"
sed 's/.*keydata=//; s/ //g' "$T_TMP/ac" | base64 -d >"$T_TMP/ac.key" 2>/dev/null
gpg --homedir "$EH" --with-colons --show-keys "$T_TMP/ac.key" >"$T_TMP/ack" 2>&1
ok "keydata decodes to alice's public key (gpg --show-keys)" sh -c "grep -q '^fpr:::::::::$afpr:' '$T_TMP/ack' && ! grep -q '^sec' '$T_TMP/ack'"
ok "the folded Autocrypt lines are at most 78 characters" sh -c "! awk '/^Autocrypt:/{a=1; print; next} a && /^[ \t]/{print; next} {a=0}' '$T_TMP/s.eml' | tr -d '\r' | grep -q '.\{79\}'"

# --- PGP/MIME signed and encrypted ---------------------------------------
echo "secret body $u" | alice -s "enc $u" --encrypt "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "-s --encrypt: exit 0" test $? = 0
ok "it arrives, listed by its protected Subject once --list decrypted it" arrives bob INBOX "enc $u" 1
fetch bob INBOX "enc $u" "$T_TMP/e"
ok "multipart/encrypted, application/pgp-encrypted Version: 1" sh -c "grep -i '^content-type:' '$T_TMP/e/header' | grep -q 'multipart/encrypted.*protocol=\"application/pgp-encrypted\"' && grep -q '^Version: 1' '$T_TMP/e/part1.body'"
ok "outer Subject is '...', the real one is nowhere in clear" sh -c "grep -qx 'Subject: \.\.\.' '$T_TMP/e/header' && ! grep -q 'enc $u' '$T_TMP/e.eml' && ! grep -q 'secret body' '$T_TMP/e.eml'"
ok "Autocrypt header on the encrypted message too" grep -q '^Autocrypt: addr=alice@steed.test;' "$T_TMP/e/header"
gpg --homedir "$BH" --status-fd 2 --decrypt "$T_TMP/e/part2.body" >"$T_TMP/e.plain" 2>"$T_TMP/e.status"
ok "bob's gpg decrypts it, signed inside by alice" sh -c "grep -q DECRYPTION_OKAY '$T_TMP/e.status' && grep -q 'VALIDSIG $afpr' '$T_TMP/e.status'"
ok "the plaintext holds the real Subject and the other fields, hp=\"cipher\"" sh -c "grep -q '^Subject: enc $u' '$T_TMP/e.plain' && grep -q '^From: Alice Example <alice@steed.test>' '$T_TMP/e.plain' && grep -q '^To: bob@steed.test' '$T_TMP/e.plain' && grep -q '^Date: ' '$T_TMP/e.plain' && grep -q 'hp=\"cipher\"' '$T_TMP/e.plain' && grep -q 'secret body $u' '$T_TMP/e.plain'"
ok "HP-Outer records the outer Subject" grep -q '^HP-Outer: Subject: \.\.\.' "$T_TMP/e.plain"
ok "the Message-ID inside is the one outside" sh -c "[ \"\$(grep -i '^Message-ID:' '$T_TMP/e/header')\" = \"\$(grep -i '^Message-ID:' '$T_TMP/e.plain' | tr -d '\r')\" ]"
ok "one recipient: no Autocrypt-Gossip" sh -c "! grep -q '^Autocrypt-Gossip' '$T_TMP/e.plain'"
gpg --homedir "$AH" --status-fd 2 --decrypt "$T_TMP/e/part2.body" >/dev/null 2>"$T_TMP/e.astatus"
ok "encrypted to alice's own key too: she can read what she sent" grep -q DECRYPTION_OKAY "$T_TMP/e.astatus"

# Two recipients: gossip for each, inside only.
echo "to two $u" | alice -s "two $u" --encrypt -c "$STEED_ALICE" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "encrypted to two (To bob, Cc alice): exit 0" test $? = 0
ok "alice gets her Cc copy" arrives alice INBOX "two $u" 1
fetch alice INBOX "two $u" "$T_TMP/t"
gpg --homedir "$AH" --decrypt "$T_TMP/t/part2.body" >"$T_TMP/t.plain" 2>/dev/null
ok "Autocrypt-Gossip for bob and alice inside, none outside" sh -c "grep -q '^Autocrypt-Gossip: addr=bob@steed.test; keydata=' '$T_TMP/t.plain' && grep -q '^Autocrypt-Gossip: addr=alice@steed.test; keydata=' '$T_TMP/t.plain' && ! grep -q 'Autocrypt-Gossip' '$T_TMP/t/header'"

# Bcc: a hidden recipient. Alice's Sent copy is exactly what was sent.
echo "bcc body $u" | alice -s "bcc $u" --encrypt -b "$STEED_BOB" "$STEED_ALICE" >"$T_TMP/o" 2>&1
ok "encrypted with a Bcc recipient: exit 0" test $? = 0
ok "bob (Bcc) receives it" arrives bob INBOX "bcc $u" 1
for _ in $(seq 1 30); do [ "$(count alice Sent "bcc $u")" -ge 1 ] && break; sleep 0.5; done
fetch alice Sent "bcc $u" "$T_TMP/b"
gpg --homedir "$BH" --status-fd 2 --decrypt "$T_TMP/b/part2.body" >"$T_TMP/b.plain" 2>"$T_TMP/b.status"
ok "bob decrypts his Bcc copy" sh -c "grep -q DECRYPTION_OKAY '$T_TMP/b.status' && grep -q 'bcc body $u' '$T_TMP/b.plain'"
ok "bob's address is nowhere in the message, outside or inside" sh -c "! grep -qi 'bob@steed.test' '$T_TMP/b.eml' && ! grep -qi 'bob@steed.test' '$T_TMP/b.plain'"
gpg --homedir "$EH" --list-packets "$T_TMP/b/part2.body" >"$T_TMP/b.pk" 2>&1
ok "bob's key id is hidden (a zero key id), alice's is not" sh -c "grep -q 'keyid 0000000000000000' '$T_TMP/b.pk' && [ \$(grep -c ':pubkey enc packet:' '$T_TMP/b.pk') = 2 ]"

# A recipient without a key: nothing is sent, and she is named.
echo "x" | alice -s "nokey $u" --encrypt -c carol@steed.test "$STEED_BOB" >"$T_TMP/o" 2>&1
rc=$?
ok "--encrypt to a recipient without a key: exit 69, names only her" sh -c "[ $rc = 69 ] && grep -q 'no OpenPGP key for carol@steed.test: not sent' '$T_TMP/o' && ! grep -q 'bob@steed.test' '$T_TMP/o'"
ok "nothing queued" outbox_empty
ok "the Sent folder has no such message" sh -c "[ \$(XDG_DATA_HOME='$T_TMP/alice' XDG_CACHE_HOME='$T_TMP/alice-c' '$STEEDMAIL' -F '$T_TMP/alice.conf' --list Sent | grep -c 'nokey $u') = 0 ]"

# --- S/MIME ---------------------------------------------------------------
echo "smime signed $u" | alice -s "ssigned $u" --sign --smime "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "-s --sign --smime: exit 0" test $? = 0
ok "it arrives" arrives bob INBOX "ssigned $u" 1
fetch bob INBOX "ssigned $u" "$T_TMP/ss"
ok "multipart/signed, protocol application/pkcs7-signature, micalg=sha-256" sh -c "grep -i '^content-type:' '$T_TMP/ss/header' | grep -q 'multipart/signed.*micalg=sha-256; protocol=\"application/pkcs7-signature\"'"
tr -d "\r" <"$T_TMP/ss/part2.body" | base64 -d >"$T_TMP/ss.p7s" 2>/dev/null
gpgsm --homedir "$BH" --disable-crl-checks --status-fd 1 --verify "$T_TMP/ss.p7s" "$T_TMP/ss/part1" >"$T_TMP/ssv" 2>&1
ok "bob's gpgsm verifies the S/MIME signature" sh -c "grep -q GOODSIG '$T_TMP/ssv' && grep -q VALIDSIG '$T_TMP/ssv'"
ok "Autocrypt header on S/MIME mail too (the account has an OpenPGP key)" grep -q '^Autocrypt: addr=alice@steed.test;' "$T_TMP/ss/header"

echo "smime secret $u" | alice -s "senc $u" --encrypt --smime "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "-s --encrypt --smime: exit 0" test $? = 0
ok "it arrives" arrives bob INBOX "senc $u" 1
fetch bob INBOX "senc $u" "$T_TMP/se"
ok "application/pkcs7-mime; smime-type=enveloped-data, outer Subject '...'" sh -c "grep -i '^content-type:' '$T_TMP/se/header' | grep -q 'application/pkcs7-mime; smime-type=enveloped-data' && grep -qx 'Subject: \.\.\.' '$T_TMP/se/header' && ! grep -q 'senc $u' '$T_TMP/se.eml'"
tr -d "\r" <"$T_TMP/se/body" | base64 -d >"$T_TMP/se.p7m" 2>/dev/null
gpgsm --homedir "$BH" --disable-crl-checks --decrypt "$T_TMP/se.p7m" >"$T_TMP/se.plain" 2>"$T_TMP/se.err"
ok "bob's gpgsm decrypts it: a signed entity with the real Subject inside" sh -c "grep -q 'multipart/signed' '$T_TMP/se.plain' && grep -q '^Subject: senc $u' '$T_TMP/se.plain' && grep -q 'hp=\"cipher\"' '$T_TMP/se.plain' && grep -q 'smime secret $u' '$T_TMP/se.plain'"
python3 tests/tools/mimeparts.py "$T_TMP/se.plain" "$T_TMP/sei"
tr -d "\r" <"$T_TMP/sei/part2.body" | base64 -d >"$T_TMP/sei.p7s" 2>/dev/null
gpgsm --homedir "$BH" --disable-crl-checks --status-fd 1 --verify "$T_TMP/sei.p7s" "$T_TMP/sei/part1" >"$T_TMP/seiv" 2>&1
ok "and the signature inside verifies" grep -q GOODSIG "$T_TMP/seiv"
gpgsm --homedir "$AH" --disable-crl-checks --decrypt "$T_TMP/se.p7m" >"$T_TMP/se.aplain" 2>&1
ok "alice can decrypt it too (encrypted to her certificate)" grep -q "smime secret $u" "$T_TMP/se.aplain"
echo x | alice -s "sbcc $u" --encrypt --smime -b "$STEED_BOB" "$STEED_ALICE" >"$T_TMP/o" 2>&1
ok "S/MIME with Bcc: refused with 69 (S/MIME cannot hide them), nothing queued" sh -c "[ $? = 69 ] && grep -q 'cannot hide Bcc' '$T_TMP/o'" 
ok "nothing queued after the refusals" outbox_empty
