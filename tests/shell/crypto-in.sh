# crypto-in.sh: incoming security verdicts, asserted through
# "steedmail --inspect" and "--view" on the corpus tests/crypto/gen.sh
# makes with real gpg at test time: good, bad, foreign and unknown
# signatures, signatures by revoked and expired keys (and the trust
# store's marks on them, until a renewed key signs), expired signatures
# and certificates, signatures dated in the future or before their key
# (OpenPGP and S/MIME, one made by openssl), partial signatures, a part
# no signature covers in each place it can sit, forwarded and nested
# content, EFAIL cases (no MDC, tampered ciphertext), forged status text,
# senders made to lie (padded, encoded, another address in the name, bidi,
# Reply-To, the protected From), protected headers, Autocrypt headers good
# and bad, gossip. No server needed.
. "$(dirname "$0")/../lib.sh"

command -v gpg >/dev/null 2>&1 || bail "gpg is needed"
command -v python3 >/dev/null 2>&1 || bail "python3 is needed"

C=$T_TMP/c
SM=$XDG_DATA_HOME/steedmail/gnupg
cleanup() {
	for h in "$C"/homes/* "$SM"; do	# the agents gen.sh and steedmail started
		[ -d "$h" ] && gpgconf --homedir "$h" --kill all >/dev/null 2>&1
	done
	rm -rf "$T_TMP"
}
trap cleanup EXIT

ok "gen.sh makes keys and messages" sh tests/crypto/gen.sh "$C" "$SM"
fpr() { awk -v n="$1" '$1 == n { print $2 }' "$C/fprs"; }
ALICE=$(fpr alice)
MALLORY=$(fpr mallory)
DAVE=$(fpr dave)
RITA=$(fpr rita)
ERIN=$(fpr erin)
SAM=$(fpr sam)
MARK=$(printf '\342\224\203')

# inspect NAME: run --inspect on NAME.eml into $T_TMP/NAME.out.
inspect() {
	sm --inspect "$C/$1.eml" >"$T_TMP/$1.out" 2>"$T_TMP/$1.err"
	echo $? >"$T_TMP/$1.rc"
}
# kv NAME KEY VALUE: the inspect output of NAME has the line "KEY: VALUE".
kv() { grep -qxF -- "$2: $3" "$T_TMP/$1.out" || {
	echo "no \"$2: $3\" in:"; cat "$T_TMP/$1.out"; return 1; }; }
# nokv NAME KEY: no line for KEY.
nokv() { ! grep -q -- "^$2: " "$T_TMP/$1.out"; }
# hasnt NAME TEXT: TEXT appears nowhere in the inspect and view output.
hasnt() { ! grep -qF -- "$2" "$T_TMP/$1.out" "$T_TMP/$1.view"; }
view() { sm --view "$C/$1.eml" >"$T_TMP/$1.view" 2>&1; echo $? >"$T_TMP/$1.vrc"; }

for f in "$C"/*.eml; do
	n=${f##*/}; n=${n%.eml}
	inspect "$n"
	view "$n"
	ok "$n: --inspect exits 0" test "$(cat "$T_TMP/$n.rc")" = 0
	ok "$n: --view exits 0" test "$(cat "$T_TMP/$n.vrc")" = 0
done

ok "plain: not signed, not encrypted" sh -c \
    "grep -qx 'encryption: none' '$T_TMP/plain.out' &&
     grep -qx 'signed: no' '$T_TMP/plain.out'"
ok "plain: the view says it is not signed" \
    has "$T_TMP/plain.view" "$MARK security: not signed, not encrypted"

# Signatures.
for n in signed signed-crlf; do
	ok "$n: signed yes" kv $n signed yes
	ok "$n: covers the root" kv $n signature.1.part root
	ok "$n: good" kv $n signature.1.status good
	ok "$n: alice's fingerprint" kv $n signature.1.fpr "$ALICE"
	ok "$n: signer from the key" kv $n signature.1.signer alice@example.org
	ok "$n: matches From" kv $n signature.1.matches-from yes
done
ok "signed: the view shows the good signature above the part" \
    has "$T_TMP/signed.view" "$MARK security of part root: good signature (OpenPGP) by alice@example.org"
ok "signed-tampered: bad" kv signed-tampered signature.1.status bad
ok "signed-tampered: not signed" kv signed-tampered signed invalid
ok "signed-tampered: the key (named by key ID) is still looked up" \
    kv signed-tampered signature.1.fpr "$ALICE"
ok "wrong-signer: good math, someone else" kv wrong-signer signature.1.status good
ok "wrong-signer: signer is mallory" kv wrong-signer signature.1.signer mallory@evil.example
ok "wrong-signer: does not match From" kv wrong-signer signature.1.matches-from no
ok "wrong-signer: verdict someone-else" kv wrong-signer signed someone-else
ok "wrong-signer: a warning names the signer" \
    has "$T_TMP/wrong-signer.out" "warning: part root is signed by someone else: mallory@evil.example"
ok "wrong-signer: the view never says good" sh -c \
    "! grep -q 'good signature' '$T_TMP/wrong-signer.view'"
ok "wrong-signer: the view says someone else" \
    has "$T_TMP/wrong-signer.view" "by someone else: mallory@evil.example"
ok "unknown-key: unknown-key" kv unknown-key signature.1.status unknown-key
ok "unknown-key: verdict unverified" kv unknown-key signed unverified

# Signatures that do not count (any more): none is ever called good, in
# --inspect or in a line --view draws, and none is blamed on someone else.
# notgood NAME: no "good" in NAME's inspect output or steedmail's lines.
notgood() {
	! grep -qi good "$T_TMP/$1.out" &&
	    ! grep "^$MARK" "$T_TMP/$1.view" | grep -qi good
}
for n in signed-tampered unknown-key signed-revoked signed-key-expired \
    signed-sig-expired smime-cert-expired signed-future signed-before-key \
    smime-future smime-before-cert; do
	[ -e "$T_TMP/$n.out" ] || continue
	ok "$n: never called good" notgood $n
	ok "$n: no warning blames someone else" sh -c \
	    "! grep -q '^warning: .*someone else' '$T_TMP/$n.out'"
done
ok "signed-tampered: summary" kv signed-tampered summary "the signature is bad"
ok "signed-tampered: the view says BAD above the part" sh -c \
    "grep -q '^$MARK security of part root: BAD signature (OpenPGP)' '$T_TMP/signed-tampered.view'"
ok "signed-tampered: trust unsigned" kv signed-tampered trust.state unsigned
ok "unknown-key: summary names the key" sh -c \
    "grep -q '^summary: signed with an unknown key [0-9A-F]\{16,40\}$' '$T_TMP/unknown-key.out'"
ok "unknown-key: no signer" kv unknown-key signature.1.signer none
ok "unknown-key: matches no From" kv unknown-key signature.1.matches-from no
ok "unknown-key: trust unsigned" kv unknown-key trust.state unsigned

ok "signed-revoked: revoked" kv signed-revoked signature.1.status revoked
ok "signed-revoked: not signed" kv signed-revoked signed invalid
ok "signed-revoked: summary" kv signed-revoked summary "the signature is revoked"
ok "signed-revoked: rita's key" kv signed-revoked signature.1.fpr "$RITA"
ok "signed-revoked: the signer from the revoked key" \
    kv signed-revoked signature.1.signer rita@example.org
ok "signed-revoked: the revoked key is the sender's" \
    kv signed-revoked signature.1.matches-from yes
ok "signed-revoked: why" kv signed-revoked signature.1.reason "the key was revoked"
ok "signed-revoked: the view says REVOKED above the part" \
    has "$T_TMP/signed-revoked.view" "$MARK security of part root: REVOKED key: the signature (OpenPGP) by rita@example.org (key $RITA) does not count"
ok "signed-revoked: trust state revoked" kv signed-revoked trust.state revoked
ok "signed-revoked: trust names the key" kv signed-revoked trust.fpr "$RITA"
ok "signed-revoked: the view says trust revoked" \
    has "$T_TMP/signed-revoked.view" "$MARK trust: revoked, key $RITA"

ok "signed-key-expired: expired" kv signed-key-expired signature.1.status expired
ok "signed-key-expired: not signed" kv signed-key-expired signed invalid
ok "signed-key-expired: summary" kv signed-key-expired summary "the signature is expired"
ok "signed-key-expired: erin's key" kv signed-key-expired signature.1.fpr "$ERIN"
ok "signed-key-expired: matches From" kv signed-key-expired signature.1.matches-from yes
ok "signed-key-expired: why" kv signed-key-expired signature.1.reason "the key has expired"
ok "signed-key-expired: the view says EXPIRED above the part" \
    has "$T_TMP/signed-key-expired.view" "$MARK security of part root: EXPIRED key: the signature (OpenPGP) by erin@example.org (key $ERIN) does not count"
ok "signed-key-expired: trust state expired" kv signed-key-expired trust.state expired
ok "signed-key-expired: trust names the key" kv signed-key-expired trust.fpr "$ERIN"

ok "signed-sig-expired: expired" kv signed-sig-expired signature.1.status expired
ok "signed-sig-expired: not signed" kv signed-sig-expired signed invalid
ok "signed-sig-expired: matches From" kv signed-sig-expired signature.1.matches-from yes
ok "signed-sig-expired: why" kv signed-sig-expired signature.1.reason "the signature has expired"
ok "signed-sig-expired: the view says EXPIRED above the part" \
    has "$T_TMP/signed-sig-expired.view" "$MARK security of part root: EXPIRED signature (OpenPGP) by sam@example.org (key $SAM): it does not count any more"
# The key is fine: an expired signature says nothing about it.
ok "signed-sig-expired: trust unsigned, the key not called expired" \
    kv signed-sig-expired trust.state unsigned
mkdir -p "$T_TMP/later"
for i in 1 2; do inspect later/sam-$i; done
ok "sam's next signed message: first contact" kv later/sam-1 trust.state first-contact
ok "... and the one after: known, not expired" kv later/sam-2 trust.state known

# A signature dated in the future, or before its key existed, does not
# count: its verdict names the date. gpg made them with a faked clock.
year() { date -u -d "@$(($(date +%s) + $1 * 86400))" +%Y; }
ok "signed-future: an error, not good" kv signed-future signature.1.status error
ok "signed-future: not signed" kv signed-future signed invalid
ok "signed-future: its date, in the future" sh -c \
    "grep -q '^signature.1.created: $(year 1094)-' '$T_TMP/signed-future.out'"
ok "signed-future: the reason names the date" sh -c \
    "grep -q '^signature.1.reason: it is dated $(year 1094)-[0-9-]*, in the future' '$T_TMP/signed-future.out'"
ok "signed-future: the summary names the date" sh -c \
    "grep -q '^summary: the signature does not count: it is dated $(year 1094)-' '$T_TMP/signed-future.out'"
ok "signed-future: the view says so above the part" sh -c \
    "grep -q '^$MARK security of part root: signature (OpenPGP) by alice@example.org (key $ALICE) DATED IN THE FUTURE, $(year 1094)-[0-9-]*: it does not count' '$T_TMP/signed-future.view'"
ok "signed-future: no trust from it" kv signed-future trust.state unsigned
ok "signed-soon: an hour ahead is within the allowance: good" \
    kv signed-soon signature.1.status good
ok "signed-soon: signed" kv signed-soon signed yes
ok "signed-before-key: an error, not good" \
    kv signed-before-key signature.1.status error
ok "signed-before-key: dated 2020" kv signed-before-key signature.1.created 2020-01-01
ok "signed-before-key: the reason names both dates" sh -c \
    "grep -q '^signature.1.reason: it is dated 2020-01-01, before its key was made ([0-9]\{4\}-' '$T_TMP/signed-before-key.out'"
ok "signed-before-key: the view says so above the part" sh -c \
    "grep -q '^$MARK security of part root: signature (OpenPGP) by alice@example.org (key $ALICE) dated 2020-01-01, BEFORE ITS KEY WAS MADE' '$T_TMP/signed-before-key.view'"
ok "signed-before-key: no trust from it" kv signed-before-key trust.state unsigned
if [ -e "$C/smime" ]; then
	ok "smime-future: an error, not good" kv smime-future signature.1.status error
	ok "smime-future: S/MIME" kv smime-future signature.1.protocol smime
	ok "smime-future: the view names the date" sh -c \
	    "grep -q '^$MARK security of part root: signature (S/MIME) by alice@example.org (key [0-9A-F]*) DATED IN THE FUTURE, $(year 729)-' '$T_TMP/smime-future.view'"
fi
if [ -e "$C/smime-before-cert.eml" ]; then
	n=smime-before-cert
	ok "$n: openssl's signature before the certificate: an error" \
	    kv $n signature.1.status error
	ok "$n: vera's, the sender's" kv $n signature.1.matches-from yes
	ok "$n: the reason names both dates" sh -c \
	    "grep -q '^signature.1.reason: it is dated [0-9-]*, before its certificate was valid (2030-01-01)' '$T_TMP/$n.out'"
	ok "$n: the view says so above the part" sh -c \
	    "grep -q '^$MARK security of part root: signature (S/MIME) by vera@example.org (key [0-9A-F]*) dated [0-9-]*, BEFORE ITS CERTIFICATE WAS VALID (2030-01-01)' '$T_TMP/$n.view'"
else
	echo "ok $((t_n + 1)) - S/MIME made by openssl # SKIP gpgsm or openssl not installed"
	t_n=$((t_n + 1))
fi

# The trust store marks revoked and expired keys, never used for
# encryption; sam's key is not marked.
for a in rita erin sam; do
	sm --trust show $a@example.org >"$T_TMP/trust-$a" 2>&1
done
ok "the trust store marks rita's key revoked" \
    grep -q "^key: $RITA openpgp .*; revoked" "$T_TMP/trust-rita"
ok "the trust store marks erin's key expired" \
    grep -q "^key: $ERIN openpgp .*; expired" "$T_TMP/trust-erin"
ok "... neither is pinned for encryption" sh -c \
    "grep -qx 'pinned: none' '$T_TMP/trust-rita' && grep -qx 'pinned: none' '$T_TMP/trust-erin'"
ok "sam's key is pinned, usable, not marked" sh -c \
    "grep -qx 'pinned: $SAM' '$T_TMP/trust-sam' &&
     ! grep -q '; expired\|; revoked' '$T_TMP/trust-sam'"
# erin renews her key, and steedmail's home gets the renewed one: her
# next signatures are good, and her key is no longer called expired.
ok "erin's renewed key is imported" \
    gpg --homedir "$SM" --batch --quiet --import "$C/later/erin.pub"
for i in 1 2; do inspect later/erin-$i; done
ok "erin, renewed: a good signature" kv later/erin-1 signature.1.status good
ok "erin, renewed: first contact" kv later/erin-1 trust.state first-contact
ok "erin, renewed: then known, not expired" kv later/erin-2 trust.state known
sm --trust show erin@example.org >"$T_TMP/trust-erin2" 2>&1
ok "erin's renewed key is pinned, usable, not marked expired" sh -c \
    "grep -qx 'pinned: $ERIN' '$T_TMP/trust-erin2' &&
     ! grep -q '; expired' '$T_TMP/trust-erin2'"
ok "partly-signed: partly" kv partly-signed signed partly
ok "partly-signed: the signature covers part 2" kv partly-signed signature.1.part 2
ok "partly-signed: summary says which part" kv partly-signed summary \
    "part 2 is signed by alice@example.org, the rest is not"
ok "partly-signed: part 1 is marked unsigned" kv partly-signed part.1 \
    "not signed, not encrypted"
ok "partly-signed: the view marks part 1 unsigned" \
    has "$T_TMP/partly-signed.view" "$MARK security of part 1: not signed, not encrypted"
# Every part no signature covers is marked, wherever it sits.
# unmarked NAME PART WORD: --inspect has "part.PART: not signed, not
# encrypted", and --view says so just above the part that holds WORD.
unmarked() {
	kv $1 part.$2 "not signed, not encrypted" &&
	    grep -B2 "^UNSIGNED-$3:" "$T_TMP/$1.view" | grep -qxF \
	    "$MARK security of part $2: not signed, not encrypted"
}
ok "unsigned-middle: the first part is marked" unmarked unsigned-middle 1 FIRST
ok "unsigned-middle: the part after the signed one is marked" \
    unmarked unsigned-middle 3 MIDDLE
ok "unsigned-middle: the signed part is not" sh -c \
    "grep -q '^part.2: good signature' '$T_TMP/unsigned-middle.out'"
ok "unsigned-appended: the part appended after the signed part is marked" \
    unmarked unsigned-appended 2 APPENDED
ok "unsigned-appended: only partly signed" kv unsigned-appended signed partly
ok "unsigned-after-sig: a part added after the signature is marked" \
    unmarked unsigned-after-sig 3 AFTERSIG
ok "unsigned-after-sig: the signature does not count" \
    kv unsigned-after-sig signed invalid
ok "unsigned-after-sig: the signed text is not called signed either" \
    kv unsigned-after-sig part.1 "not signed, not encrypted"
ok "unsigned-in-forward: the part appended in a forwarded message is marked" \
    unmarked unsigned-in-forward 2.2 FORWARDED
ok "unsigned-in-forward: the forwarding text is marked" \
    kv unsigned-in-forward part.1 "not signed, not encrypted"
ok "forwarded-signed: only partly signed" kv forwarded-signed signed partly
ok "forwarded-signed: the signature covers the forwarded part" \
    kv forwarded-signed signature.1.part 2
ok "forwarded-signed: held against the forwarded message's From" \
    kv forwarded-signed signature.1.from alice@example.org
ok "inline-signed: good, root" sh -c \
    "grep -qx 'signature.1.status: good' '$T_TMP/inline-signed.out' &&
     grep -qx 'signed: yes' '$T_TMP/inline-signed.out'"
ok "inline-signed-extra: the unsigned text is not shown" sh -c \
    "! grep -q 'Unsigned text before' '$T_TMP/inline-signed-extra.view'"
ok "inline-signed-extra: warned" \
    has "$T_TMP/inline-signed-extra.out" "text outside its OpenPGP block"

# Forged status text.
ok "fake-status: no signature" kv fake-status signatures 0
ok "fake-status: not signed" kv fake-status signed no
ok "fake-status: no view line says Good signature" sh -c \
    "! grep '^$MARK' '$T_TMP/fake-status.view' | grep -v 'attachments:\|^$MARK   2 ' | grep -q 'Good signature'"
ok "fake-status: the forged mark is escaped in body and file name" sh -c \
    "grep -c '<U+2503> Good signature' '$T_TMP/fake-status.view' | grep -qx 3"
for f in "$T_TMP"/*.view; do
	n=${f##*/}
	ok "${n%.view}: every view line is steedmail's own" sh -c \
	    "! grep '^$MARK' '$f' | grep -v '^$MARK \(security\|trust: \|part \|end of\|attachments:\|  [0-9]\|warning: \|protected headers\|note: \|(empty)\|attached message\|end of attached\)' | grep -q ."
done

# Senders made to lie, each signed by mallory: the view's header block
# shows the address the signature is held against, whole, and marks what
# may mislead; the trust store hears of mallory or of nobody, never alice.
# head_of NAME: the view's header block.
head_of() { sed -n '1,/^$/p' "$T_TMP/$1.view"; }
# hline NAME LINE: the header block has the line LINE.
hline() { head_of $1 | grep -qxF -- "$2" || { head_of $1; return 1; }; }
ok "spoof-padded: 3000 blanks folded, the address right after the name" \
    hline spoof-padded "From: Alice x <mallory@evil.example>"
ok "spoof-padded: the signature is held against mallory" \
    kv spoof-padded signature.1.from mallory@evil.example
ok "spoof-encoded: an encoded word decoding to alice's From has no address" \
    hline spoof-encoded 'From: "Alice <alice@example.org>" (no address)'
ok "spoof-encoded: steedmail says so under it" \
    hline spoof-encoded "$MARK warning: From: no address can be read from it, whatever its text says: it names nobody"
ok "spoof-encoded: nobody is the sender for the trust store" \
    kv spoof-encoded trust.state none
ok "spoof-encoded: the signature is not held against alice" \
    kv spoof-encoded signature.1.from none
for n in spoof-other spoof-fullwidth; do
	ok "$n: the real address next to the name" sh -c \
	    "sed -n '1,/^\$/p' '$T_TMP/$n.view' | grep -q '^From: .* <mallory@evil.example>\$'"
	ok "$n: marked, naming the address the name holds" sh -c \
	    "grep -q '^$MARK warning: From: a name in it holds the address alice.example.org, which is not its own; the address: mallory@evil.example\$' '$T_TMP/$n.view'"
	ok "$n: trust is about mallory" sh -c \
	    "grep -qx 'signature.1.from: mallory@evil.example' '$T_TMP/$n.out'"
done
ok "spoof-bidi: the override shown as a placeholder" \
    hline spoof-bidi 'From: "Alice <U+202E>gro.elpmaxe@ecila" <mallory@evil.example>'
ok "spoof-bidi: marked for it" sh -c \
    "grep -q '^$MARK warning: From: .*characters that turn text around or act on the terminal; the address: mallory@evil.example\$' '$T_TMP/spoof-bidi.view'"
ok "spoof-ambiguous: an address before an angle address names nobody" \
    hline spoof-ambiguous 'From: "alice@example.org <mallory@evil.example>" (no address)'
ok "spoof-ambiguous: no sender for the trust store" kv spoof-ambiguous trust.state none
ok "spoof-reply-to: Reply-To shown, the real address next to the name" \
    hline spoof-reply-to 'Reply-To: "alice@example.org" <mallory@evil.example>'
ok "spoof-reply-to: and marked" \
    hline spoof-reply-to "$MARK warning: Reply-To: a name in it holds the address alice@example.org, which is not its own; the address: mallory@evil.example"
ok "spoof-reply-to: a Sender that is not From is shown" \
    hline spoof-reply-to "Sender: Alice <alice@example.org>"
ok "protected-from-other: the protected From marked like an outer one" \
    hline protected-from-other "$MARK warning: From: a name in it holds the address bob@example.org, which is not its own; the address: alice@example.org"
ok "protected-from-other: its address whole" \
    hline protected-from-other 'From: "bob@example.org" <alice@example.org>'

# Encryption.
for n in signed-encrypted sign-then-encrypt inline-encrypted; do
	ok "$n: openpgp" kv $n encryption openpgp
	ok "$n: integrity ok" kv $n integrity ok
	ok "$n: decrypted" kv $n decrypted yes
	ok "$n: signed by the sender, over everything" kv $n signed yes
	ok "$n: the signature covers the root" kv $n signature.1.part root
done
ok "signed-encrypted: protected headers" kv signed-encrypted protected-headers yes
ok "signed-encrypted: the view shows the protected subject" \
    has "$T_TMP/signed-encrypted.view" "Subject: The real subject"
ok "signed-encrypted: the view says so" \
    has "$T_TMP/signed-encrypted.view" "$MARK protected headers used"
ok "signed-encrypted: the view draws where the decrypted content ends" \
    has "$T_TMP/signed-encrypted.view" "$MARK end of the content of part"
# The legacy display element (RFC 9788 4.5.3): left out where the
# protected header it repeats is shown, shown where it is not.
# once NAME TEXT: the view has the line TEXT exactly once.
once() { [ "$(grep -cxF -- "$2" "$T_TMP/$1.view")" = 1 ] || {
	echo "\"$2\" not once in:"; cat "$T_TMP/$1.view"; return 1; }; }
for n in hp-legacy-both hp-legacy-enc hp-legacy-html hp-legacy-part \
    hp-legacy-smime-both; do
	[ -e "$C/$n.eml" ] || continue
	ok "$n: the protected Subject above, the legacy display left out" \
	    once $n "Subject: Dinner plans"
	ok "$n: ... and the text after it shown" \
	    has "$T_TMP/$n.view" "Let's meet at Rama's Roti Shop at 8pm."
	ok "$n: ... under the protected headers' note" \
	    has "$T_TMP/$n.view" "$MARK protected headers used"
done
ok "hp-legacy-enc: encrypted only, integrity protected: its headers used" \
    kv hp-legacy-enc protected-headers yes
ok "hp-legacy-html: the div's own text is gone too" \
    sh -c "! grep -q nested '$T_TMP/hp-legacy-html.view'"
ok "hp-legacy-part: the text/rfc822-headers part is neither shown nor listed" \
    sh -c "! grep -q 'rfc822-headers' '$T_TMP/hp-legacy-part.view'"
ok "hp-legacy-unknown: a signature nobody can check: the outer Subject" \
    once hp-legacy-unknown "Subject: Dinner (outer)"
ok "hp-legacy-unknown: ... and the legacy display shown in the text" \
    once hp-legacy-unknown "Subject: Dinner plans"
if [ -e "$C/hp-legacy-smime-enc.eml" ]; then
	n=hp-legacy-smime-enc
	ok "$n: enveloped only, no integrity: the outer Subject" \
	    once $n "Subject: [...]"
	ok "$n: ... the legacy display shown in the text" \
	    once $n "Subject: Dinner plans"
	ok "$n: ... which keeps its no-integrity mark" sh -c \
	    "grep -q '^$MARK security of part root: NOT PROTECTED' '$T_TMP/$n.view'"
fi
ok "encrypted-unsigned: decrypted, not signed" sh -c \
    "grep -qx 'decrypted: yes' '$T_TMP/encrypted-unsigned.out' &&
     grep -qx 'signed: no' '$T_TMP/encrypted-unsigned.out'"
ok "encrypted-signed-by-mallory: someone else" \
    kv encrypted-signed-by-mallory signed someone-else
ok "nomdc: integrity none" kv nomdc integrity none
ok "nomdc: not decrypted" kv nomdc decrypted "no (no integrity protection)"
ok "nomdc: no plaintext anywhere" hasnt nomdc SWORDFISH
ok "nomdc: the view says why" has "$T_TMP/nomdc.view" "NOT SHOWN: it has no integrity protection"
ok "tampered-encrypted: integrity failed" kv tampered-encrypted integrity failed
ok "tampered-encrypted: no plaintext anywhere" hasnt tampered-encrypted SWORDFISH
ok "tampered-encrypted: not decrypted" sh -c \
    "grep -q '^decrypted: no (' '$T_TMP/tampered-encrypted.out'"
ok "no-seckey: not decrypted, no secret key" \
    kv no-seckey decrypted "no (no secret key for it)"
for n in mixed-encrypted nested-foreign; do
	ok "$n: the ciphertext below the top is not opened" kv $n part.2 \
	    "encrypted part not opened: not at the top of the message"
	ok "$n: no plaintext anywhere" hasnt $n SWORDFISH
	ok "$n: the message is not called encrypted" kv $n encryption none
done

# S/MIME.
if [ -e "$C/smime" ]; then
	for n in smime-signed smime-opaque; do
		ok "$n: good, by alice, over the root" sh -c \
		    "grep -qx 'signature.1.status: good' '$T_TMP/$n.out' &&
		     grep -qx 'signature.1.protocol: smime' '$T_TMP/$n.out' &&
		     grep -qx 'signature.1.signer: alice@example.org' '$T_TMP/$n.out' &&
		     grep -qx 'signed: yes' '$T_TMP/$n.out'"
	done
	ok "smime-encrypted: S/MIME without a signature has no integrity" \
	    kv smime-encrypted integrity none
	# Issue 12, section 6: shown, text only, under steedmail's banner.
	ok "smime-encrypted: its text is shown under a banner saying it may be altered" sh -c \
	    "grep -q '^$MARK security of part root: encrypted (S/MIME) and decrypted, WITHOUT INTEGRITY PROTECTION' '$T_TMP/smime-encrypted.view' &&
	     grep -q SWORDFISH '$T_TMP/smime-encrypted.view'"
	ok "smime-signed-encrypted: decrypted" kv smime-signed-encrypted decrypted yes
	ok "smime-signed-encrypted: integrity from the signature" \
	    kv smime-signed-encrypted integrity ok
	ok "smime-signed-encrypted: signed by alice" kv smime-signed-encrypted signed yes
	ok "smime-signed-encrypted: the view shows the plaintext" \
	    has "$T_TMP/smime-signed-encrypted.view" SWORDFISH
	n=smime-cert-expired
	ok "$n: expired" kv $n signature.1.status expired
	ok "$n: S/MIME" kv $n signature.1.protocol smime
	ok "$n: not signed" kv $n signed invalid
	ok "$n: otto's certificate, the sender's" sh -c \
	    "grep -qx 'signature.1.signer: otto@example.org' '$T_TMP/$n.out' &&
	     grep -qx 'signature.1.matches-from: yes' '$T_TMP/$n.out'"
	ok "$n: why" kv $n signature.1.reason "the key has expired"
	ok "$n: the view says EXPIRED above the part" sh -c \
	    "grep -q '^$MARK security of part root: EXPIRED key: the signature (S/MIME) by otto@example.org' '$T_TMP/$n.view'"
	ok "$n: trust state expired" kv $n trust.state expired
else
	echo "ok - S/MIME # SKIP gpgsm not installed"
fi

# Autocrypt.
ok "autocrypt-good: valid" kv autocrypt-good autocrypt valid
ok "autocrypt-good: addr" kv autocrypt-good autocrypt.addr alice@example.org
ok "autocrypt-good: the imported fingerprint" kv autocrypt-good autocrypt.fpr "$ALICE"
ok "autocrypt-good: prefer-encrypt" kv autocrypt-good autocrypt.prefer-encrypt mutual
ok "autocrypt-good: the key is in steedmail's home" sh -c \
    "gpg --homedir '$SM' --batch --with-colons -k '$ALICE' >/dev/null"
ok "autocrypt-mismatch: invalid" sh -c \
    "grep -q '^autocrypt: invalid (addr mallory@evil.example is not the From' '$T_TMP/autocrypt-mismatch.out'"
ok "autocrypt-two: invalid" kv autocrypt-two autocrypt \
    "invalid (more than one Autocrypt header: none is used)"
ok "autocrypt-big: invalid" kv autocrypt-big autocrypt \
    "invalid (the header is longer than 10240 bytes)"
ok "autocrypt-critical: invalid" kv autocrypt-critical autocrypt \
    "invalid (unknown critical attribute \"color\")"
ok "autocrypt-underscore: valid" kv autocrypt-underscore autocrypt valid
ok "autocrypt-keydata-first: valid (Level 1 allows it)" \
    kv autocrypt-keydata-first autocrypt valid
for n in autocrypt-mismatch autocrypt-two autocrypt-big autocrypt-critical; do
	ok "$n: nothing imported" nokv $n autocrypt.fpr
done
ok "gossip: dave's key from inside signed, encrypted content" \
    kv gossip gossip.1.addr dave@example.net
ok "gossip: dave's fingerprint" kv gossip gossip.1.fpr "$DAVE"
ok "gossip: not for mallory, who is no recipient" sh -c \
    "! grep -q 'gossip.*mallory' '$T_TMP/gossip.out' &&
     grep -q 'mallory@evil.example, who is not a recipient' '$T_TMP/gossip.out'"
ok "gossip-unsigned: gossip not read without a signature" \
    nokv gossip-unsigned gossip.1.addr

# Reading.
fails "--inspect on a missing file fails" sm --inspect "$T_TMP/nope.eml"
sm --inspect "$T_TMP/nope.eml" >/dev/null 2>&1
ok "... with 65" test $? = 65
ok "--inspect - reads standard input" sh -c \
    "'$STEEDMAIL' --inspect - <'$C/signed.eml' | grep -qx 'signed: yes'"
ok "no config file needed" test ! -e "$XDG_CONFIG_HOME/steedmail/config"
ok "the debug log never gets decrypted text" sh -c \
    "'$STEEDMAIL' -d 3 --view '$C/signed-encrypted.eml' >/dev/null 2>&1;
     ! grep -rq SWORDFISH '$XDG_CACHE_HOME'"
exit 0
