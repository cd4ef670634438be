# device.sh: one account on a second device. alice's home exports an
# Autocrypt Setup Message into her INBOX and shows its code once; a second
# home for the same account (her configuration, nothing else) imports the
# key with that code and then decrypts what bob encrypts to her. A wrong
# code, a tampered message (read from a file and found in INBOX), a
# message from another address and a malformed one import nothing (gpg -K
# stays empty); a code used once is not remembered. The secret key moves by
# hand too (--export-secret-key, --import-key), and the trust store with
# --trust export/import, merging without downgrading a verified key.
. "$(dirname "$0")/../lib.sh"

as=$STEED_ENV_BIN/as
u=$$-$(date +%s)
AH=$STEED_ENV/home/alice/data/steedmail/gnupg
homes=

# newhome NAME: an empty home for alice's account (her configuration only).
newhome() {
	_h=$T_TMP/$1
	mkdir -p -m 700 "$_h" "$_h/config" "$_h/data" "$_h/cache"
	mkdir -p -m 700 "$_h/config/steedmail"
	cp "$STEED_ENV/home/alice/config/steedmail/config" "$_h/config/steedmail/config"
	chmod 600 "$_h/config/steedmail/config"
	homes="$homes $_h"
}
# on NAME CMD...: run CMD in that home.
on() {
	_h=$T_TMP/$1; shift
	[ "$1" = steedmail ] && { shift; set -- "$STEEDMAIL" "$@"; }
	HOME=$_h XDG_CONFIG_HOME=$_h/config XDG_DATA_HOME=$_h/data \
	    XDG_CACHE_HOME=$_h/cache GNUPGHOME=$_h/data/steedmail/gnupg "$@"
}
secret_fprs() { on "$1" gpg --with-colons -K 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'; }
has_secret() { [ "$(secret_fprs "$1")" = "$2" ] || { on "$1" gpg -K; false; }; }
no_secret() { [ -z "$(secret_fprs "$1")" ] || { on "$1" gpg -K; false; }; }
trap 'for h in $homes; do gpgconf --homedir "$h/data/steedmail/gnupg" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT

# setup_part FILE OUT: the decoded application/autocrypt-setup part.
setup_part() {
	python3 -c '
import email, sys
m = email.message_from_bytes(open(sys.argv[1], "rb").read())
parts = [p for p in m.walk() if p.get_content_type() == "application/autocrypt-setup"]
assert len(parts) == 1, "parts: %d" % len(parts)
open(sys.argv[2], "wb").write(parts[0].get_payload(decode=True))
' "$1" "$2"
}
# rewrite FILE OUT PYTHON: OUT is FILE with its setup part's text t changed
# by the expression (t is a str; the part is encoded in base64 again).
rewrite() {
	python3 -c '
import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], "rb").read(), policy=email.policy.compat32)
for p in m.walk():
    if p.get_content_type() == "application/autocrypt-setup":
        t = p.get_payload(decode=True).decode()
        t = eval(sys.argv[3])
        del p["Content-Transfer-Encoding"]
        p.set_payload(t.encode())
        email.encoders.encode_base64(p)
open(sys.argv[2], "wb").write(m.as_bytes())
' "$1" "$2" "$3"
}
# append FILE: put FILE in alice's INBOX as any IMAP client could.
append() {
	python3 -c '
import imaplib, os, ssl, sys
c = ssl.create_default_context(cafile=os.environ["STEED_CA_FILE"])
i = imaplib.IMAP4_SSL(os.environ["STEED_HOST"], int(os.environ["STEED_IMAPS_PORT"]), ssl_context=c)
i.login(os.environ["STEED_ALICE"], os.environ["STEED_ALICE_PASS"])
typ, _ = i.append("INBOX", None, None, open(sys.argv[1], "rb").read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
assert typ == "OK", typ
i.logout()
' "$1"
}

# The first device: alice's home, with her key.
$as alice steedmail --genkey >/dev/null 2>&1
afpr=$($as alice gpg --with-colons -K 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
[ -n "$afpr" ] || bail "alice has no key"

$as alice steedmail --export-setup >"$T_TMP/export" 2>"$T_TMP/export.err"
rc=$?
code=$(sed -n 's/^Setup code: \([0-9]\{4\}\(-[0-9]\{4\}\)\{8\}\)$/\1/p' "$T_TMP/export")
ok "--export-setup: exit 0, a setup code of nine groups of four digits" sh -c "[ $rc = 0 ] && [ -n '$code' ] || { cat '$T_TMP/export' '$T_TMP/export.err'; false; }"
ok "it says to type the code on the other device, and that it is shown only now" sh -c "grep -q 'Type it on the other device' '$T_TMP/export' && grep -q 'shown only now' '$T_TMP/export'"
ok "the code appears once, on standard output only" sh -c "[ \$(grep -c -- '$code' '$T_TMP/export') = 1 ] && ! grep -q -- '$code' '$T_TMP/export.err'"
uid=$($as alice steedmail --list INBOX | grep -F 'Autocrypt Setup Message' | tail -1 | cut -f1)
ok "the setup message is in alice's INBOX" test -n "$uid"
$as alice steedmail --fetch "$uid" INBOX >"$T_TMP/asm.eml"
ok "it has Autocrypt-Setup-Message: v1, From and To alice" sh -c "grep -qx 'Autocrypt-Setup-Message: v1.' '$T_TMP/asm.eml' && grep -q '^From: .*<$STEED_ALICE>' '$T_TMP/asm.eml' && grep -q '^To: $STEED_ALICE' '$T_TMP/asm.eml'"
ok "a text/plain part says what it is" grep -q 'steedmail --import-setup' "$T_TMP/asm.eml"
setup_part "$T_TMP/asm.eml" "$T_TMP/asm.html"
begin=$(echo "$code" | cut -c1-2)
ok "the attachment: an armored PGP MESSAGE, numeric9x4, Passphrase-Begin $begin" sh -c "grep -qx -- '-----BEGIN PGP MESSAGE-----' '$T_TMP/asm.html' && grep -qx 'Passphrase-Format: numeric9x4' '$T_TMP/asm.html' && grep -qx 'Passphrase-Begin: $begin' '$T_TMP/asm.html' && grep -q 'autocrypt-setup-message.html' '$T_TMP/asm.eml'"
# What gpg sees, without the code: a passphrase-encrypted session key for
# AES-128 (cipher 7) and integrity-protected data (SEIPD, tag 18).
mkdir -m 700 "$T_TMP/g"
sed -n '/^-----BEGIN PGP MESSAGE-----$/,/^-----END PGP MESSAGE-----$/p' "$T_TMP/asm.html" >"$T_TMP/asm.asc"
gpg --homedir "$T_TMP/g" --batch --list-packets "$T_TMP/asm.asc" >"$T_TMP/packets" 2>&1
gpgconf --homedir "$T_TMP/g" --kill all >/dev/null 2>&1
ok "symmetrically encrypted with AES-128, integrity-protected, to no key" sh -c "grep -q '^:symkey enc packet: version 4, cipher 7,' '$T_TMP/packets' && grep -q 'tag=18' '$T_TMP/packets' && ! grep -q 'pubkey enc packet' '$T_TMP/packets' || { cat '$T_TMP/packets'; false; }"
echo "$code" | gpg --homedir "$T_TMP/g" --batch --pinentry-mode loopback --passphrase-fd 0 --no-symkey-cache -d "$T_TMP/asm.asc" 2>/dev/null >"$T_TMP/asm.key"
gpgconf --homedir "$T_TMP/g" --kill all >/dev/null 2>&1
ok "inside: alice's secret key, armored, with Autocrypt-Prefer-Encrypt: mutual" sh -c "grep -qx -- '-----BEGIN PGP PRIVATE KEY BLOCK-----' '$T_TMP/asm.key' && grep -qx 'Autocrypt-Prefer-Encrypt: mutual' '$T_TMP/asm.key' && gpg --homedir '$T_TMP/g' --show-keys --with-colons '$T_TMP/asm.key' 2>/dev/null | grep -q '^fpr:::::::::$afpr:'"
gpgconf --homedir "$T_TMP/g" --kill all >/dev/null 2>&1

# The second device: the same account, an empty home.
newhome two
wrong=$(echo "$code" | sed 's/.$/x/; s/x$/0/'); [ "$wrong" = "$code" ] && wrong=$(echo "$code" | sed 's/.$/1/')
echo "$wrong" | on two steedmail --import-setup >"$T_TMP/w1" 2>&1
rc=$?
ok "a wrong code: exit 65, nothing imported, says why" sh -c "[ $rc = 65 ] && grep -q 'nothing imported: the setup code does not open this message' '$T_TMP/w1' || { cat '$T_TMP/w1'; false; }"
ok "gpg -K in the second home is empty" no_secret two
other=99; [ "$begin" = 99 ] && other=98
echo "$other${code#??}" | on two steedmail --import-setup >"$T_TMP/w2" 2>&1
rc=$?
ok "a code not beginning with Passphrase-Begin: refused before gpg" sh -c "[ $rc = 65 ] && grep -q \"not the message's setup code, which begins with $begin\" '$T_TMP/w2' || { cat '$T_TMP/w2'; false; }"

echo "$code" | on two steedmail --import-setup >"$T_TMP/imp" 2>&1
rc=$?
ok "--import-setup with the code: exit 0, the fingerprint of alice's key" sh -c "[ $rc = 0 ] && grep -qx 'Imported the secret key $afpr of $STEED_ALICE.' '$T_TMP/imp' || { cat '$T_TMP/imp'; false; }"
ok "it showed Passphrase-Begin before asking" grep -q "its setup code begins with $begin" "$T_TMP/imp"
ok "the second home has alice's secret key, the same fingerprint" has_secret two "$afpr"
ok "the account uses it (no other key there)" grep -q 'The account .* uses this key' "$T_TMP/imp"

# bob writes to alice, encrypted; the second device reads it.
$as alice steedmail --export-key | $as bob steedmail --import-key - >/dev/null 2>&1
last=$(on two steedmail --list INBOX 2>/dev/null | tail -1 | cut -f1)
echo "only for alice $u" | $as bob steedmail -s "device $u" "$STEED_ALICE" >"$T_TMP/bsend" 2>&1
ok "bob's mail to alice is encrypted" grep -qx 'steedmail: encrypted to 1 recipient' "$T_TMP/bsend"
for _ in $(seq 1 30); do
	muid=$(on two steedmail --list INBOX 2>/dev/null | tail -1 | cut -f1)
	[ -n "$muid" ] && [ "$muid" -gt "${last:-0}" ] && break
	sleep 0.5
done
on two steedmail --fetch "$muid" INBOX >"$T_TMP/enc.eml" 2>/dev/null
ok "it arrives encrypted" grep -qi 'multipart/encrypted' "$T_TMP/enc.eml"
on two steedmail --view "$T_TMP/enc.eml" >"$T_TMP/view" 2>&1
ok "the second device decrypts it (--view shows the text)" grep -q "only for alice $u" "$T_TMP/view"
on two steedmail --inspect "$T_TMP/enc.eml" >"$T_TMP/insp" 2>&1
ok "--inspect: decrypted: yes" grep -qx 'decrypted: yes' "$T_TMP/insp"

# A code typed once is not remembered: without the key again, a wrong
# code (with the right first digits) imports nothing.
on two gpg --batch --yes --delete-secret-and-public-keys "$afpr" >/dev/null 2>&1
wrong2="$begin${wrong#??}"
echo "$wrong2" | on two steedmail --import-setup >"$T_TMP/w3" 2>&1
rc=$?
ok "right after the right code, a wrong one imports nothing (no passphrase cache)" sh -c "[ $rc = 65 ] && grep -q 'does not open' '$T_TMP/w3' || { cat '$T_TMP/w3'; false; }"
ok "gpg -K in the second home is empty again" no_secret two

# Tampered, malformed, from someone else: a third home, which stays empty.
newhome three
# One character of the second line of radix-64 changed.
rewrite "$T_TMP/asm.eml" "$T_TMP/tampered.eml" '(lambda l, j: "\n".join(l[:j] + [l[j][:10] + ("A" if l[j][10] != "A" else "B") + l[j][11:]] + l[j + 1:]))(t.split("\n"), t.split("\n").index("-----BEGIN PGP MESSAGE-----") + 5)'
setup_part "$T_TMP/tampered.eml" "$T_TMP/tampered.html"
ok "the tampered copy differs in one character of the armor" sh -c "[ \"\$(diff '$T_TMP/asm.html' '$T_TMP/tampered.html' | grep -c '^>')\" = 1 ]"
echo "$code" | on three steedmail --import-setup "$T_TMP/tampered.eml" >"$T_TMP/t1" 2>&1
rc=$?
ok "a tampered message (FILE) with the right code: exit 65, nothing imported" sh -c "[ $rc = 65 ] && grep -q 'nothing imported: the setup message is damaged' '$T_TMP/t1' || { cat '$T_TMP/t1'; false; }"
ok "gpg -K in the third home is empty" no_secret three
append "$T_TMP/tampered.eml"
echo "$code" | on three steedmail --import-setup >"$T_TMP/t2" 2>&1
rc=$?
ok "the tampered message in INBOX, newest: found, nothing imported" sh -c "[ $rc = 65 ] && grep -q 'nothing imported: the setup message is damaged' '$T_TMP/t2' || { cat '$T_TMP/t2'; false; }"
ok "gpg -K in the third home is still empty" no_secret three

sed 's/^From: .*/From: Bob <bob@steed.test>/' "$T_TMP/asm.eml" >"$T_TMP/frombob.eml"
echo "$code" | on three steedmail --import-setup "$T_TMP/frombob.eml" >"$T_TMP/f1" 2>&1
rc=$?
ok "a setup message from another address: refused with a warning" sh -c "[ $rc = 65 ] && grep -q 'steedmail: warning: .* refused, nothing imported: the setup message is from bob@steed.test, not from $STEED_ALICE' '$T_TMP/f1' || { cat '$T_TMP/f1'; false; }"
append "$T_TMP/frombob.eml"
echo "$code" | on three steedmail --import-setup >"$T_TMP/f2" 2>&1
ok "in INBOX it is passed over: the newest from alice is taken (the tampered one)" sh -c "grep -q 'nothing imported: the setup message is damaged' '$T_TMP/f2' || { cat '$T_TMP/f2'; false; }"
rewrite "$T_TMP/asm.eml" "$T_TMP/noformat.eml" 't.replace("Passphrase-Format: numeric9x4\n", "")'
echo "$code" | on three steedmail --import-setup "$T_TMP/noformat.eml" >"$T_TMP/m1" 2>&1
rc=$?
ok "without Passphrase-Format: malformed, refused with a warning" sh -c "[ $rc = 65 ] && grep -q 'warning: .* refused, nothing imported: no Passphrase-Format header' '$T_TMP/m1' || { cat '$T_TMP/m1'; false; }"
sed '/^Autocrypt-Setup-Message:/d' "$T_TMP/asm.eml" >"$T_TMP/nohdr.eml"
echo "$code" | on three steedmail --import-setup "$T_TMP/nohdr.eml" >"$T_TMP/m2" 2>&1
rc=$?
ok "without the Autocrypt-Setup-Message header: refused" sh -c "[ $rc = 65 ] && grep -q 'not an Autocrypt Setup Message' '$T_TMP/m2'"
ok "after all of these, gpg -K in the third home is empty" no_secret three
echo "$code" | on three steedmail --import-setup "$T_TMP/asm.eml" >"$T_TMP/ok3" 2>&1
ok "the untouched message from a file imports the key there" has_secret three "$afpr"

# By hand: the secret key exported and imported.
$as alice steedmail --export-secret-key >"$T_TMP/sec.asc" 2>"$T_TMP/sec.err"
ok "--export-secret-key: armored, with Autocrypt-Prefer-Encrypt, no warning when not on a terminal" sh -c "grep -qx -- '-----BEGIN PGP PRIVATE KEY BLOCK-----' '$T_TMP/sec.asc' && grep -qx 'Autocrypt-Prefer-Encrypt: mutual' '$T_TMP/sec.asc' && [ ! -s '$T_TMP/sec.err' ]"
python3 -c '
import os, subprocess, sys
m, s = os.openpty()
p = subprocess.run(sys.argv[1:], stdout=s, stderr=subprocess.PIPE)
os.close(s)
sys.stderr.buffer.write(p.stderr)
sys.exit(p.returncode)
' "$as" alice steedmail --export-secret-key 2>"$T_TMP/sec.tty"
ok "on a terminal, a warning on standard error" grep -q '^steedmail: warning: this is the secret key of alice@steed.test' "$T_TMP/sec.tty"
newhome four
on four steedmail --import-key "$T_TMP/sec.asc" >"$T_TMP/ik" 2>&1
ok "--import-key takes it and says it is a secret key" sh -c "grep -q '^$afpr .*: secret key\$' '$T_TMP/ik' && grep -q '^  a secret key: mail encrypted to it can be read here' '$T_TMP/ik' || { cat '$T_TMP/ik'; false; }"
ok "the fourth home has alice's secret key" has_secret four "$afpr"

# A home that made a key of its own for the account first: after the
# import, key = names alice's key, and that is the one used.
newhome nine
on nine steedmail --genkey >/dev/null 2>&1
nfpr=$(secret_fprs nine)
echo "$code" | on nine steedmail --import-setup "$T_TMP/asm.eml" >"$T_TMP/n1" 2>&1
ok "a home with its own key: the account now uses the imported one, key = written" sh -c "grep -q 'now uses the imported key (key = $afpr in ' '$T_TMP/n1' && grep -qx 'key = $afpr' '$T_TMP/nine/config/steedmail/config' && [ -n '$nfpr' ] && [ '$nfpr' != '$afpr' ] || { cat '$T_TMP/n1'; false; }"
on nine steedmail --genkey >"$T_TMP/n2" 2>&1
ok "--genkey there shows alice's key" grep -q "^OpenPGP key $afpr exists" "$T_TMP/n2"
on nine steedmail --check-config >"$T_TMP/n3" 2>&1
ok "the configuration still reads, its comments kept" sh -c "grep -q '1 account' '$T_TMP/n3' && [ \"\$(grep -c '^#' '$T_TMP/nine/config/steedmail/config')\" = \"\$(grep -c '^#' '$STEED_ENV/home/alice/config/steedmail/config')\" ]"

# The trust store moves too. Keys made for the occasion: bob's, a second
# key with bob's address, and carol's.
mkkey() {
	mkdir -p -m 700 "$T_TMP/k-$1"
	gpg --homedir "$T_TMP/k-$1" --batch --pinentry-mode loopback --passphrase '' \
	    --quick-gen-key "$2" ed25519 sign never >/dev/null 2>&1
	gpg --homedir "$T_TMP/k-$1" --armor --export >"$T_TMP/$1.pub" 2>/dev/null
	gpg --homedir "$T_TMP/k-$1" --with-colons -k 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'
	gpgconf --homedir "$T_TMP/k-$1" --kill all >/dev/null 2>&1
}
bfpr=$(mkkey bob "Bob <$STEED_BOB>")
b2fpr=$(mkkey bob2 "Bob <$STEED_BOB>")
cfpr=$(mkkey carol "Carol <carol@steed.test>")
[ -n "$bfpr" ] && [ -n "$b2fpr" ] && [ -n "$cfpr" ] || bail "gpg made no keys"
newhome five
on five steedmail --import-key "$T_TMP/bob.pub" >/dev/null 2>&1
on five steedmail --import-key "$T_TMP/carol.pub" >/dev/null 2>&1
on five steedmail --trust verify "$STEED_BOB" "$bfpr" >/dev/null 2>&1
: >"$T_TMP/five.trust"; chmod 644 "$T_TMP/five.trust"
on five steedmail --trust export "$T_TMP/five.trust" >"$T_TMP/x1" 2>&1
rc=$?
ok "--trust export: exit 0, says how many addresses and keys" sh -c "[ $rc = 0 ] && grep -qx '2 addresses, 2 keys written to $T_TMP/five.trust' '$T_TMP/x1' || { cat '$T_TMP/x1'; false; }"
ok "the file (there before, mode 644): versioned, now mode 0600" sh -c "[ \"\$(head -1 '$T_TMP/five.trust')\" = 'steedmail-trust-export 1' ] && [ \"\$(stat -c %a '$T_TMP/five.trust')\" = 600 ]"
ok "bob's key in it: verified, its source, its pin" sh -c "grep -q '^key $bfpr proto=openpgp sources=manual .* decision=verified ' '$T_TMP/five.trust' && grep -q '^pin openpgp pinned=$bfpr ' '$T_TMP/five.trust' && grep -q '^event [0-9]* .*verified' '$T_TMP/five.trust' || { cat '$T_TMP/five.trust'; false; }"
mkfifo "$T_TMP/five.fifo"
# a FIFO would hold open() until someone read it
( on five timeout 10 "$STEEDMAIL" --trust export "$T_TMP/five.fifo" >"$T_TMP/x2" 2>&1; echo $? >"$T_TMP/x2.rc" )
ok "--trust export to a FIFO: refused at once (73), in a sentence, nothing waits on it" sh -c "[ \"\$(cat '$T_TMP/x2.rc')\" = 73 ] && grep -qx 'steedmail: $T_TMP/five.fifo is not a regular file (a FIFO): not written' '$T_TMP/x2' && [ -p '$T_TMP/five.fifo' ] || { cat '$T_TMP/x2' '$T_TMP/x2.rc'; false; }"

newhome six
on six steedmail --trust import "$T_TMP/five.trust" >"$T_TMP/i1" 2>&1
rc=$?
ok "--trust import into an empty store: 2 keys added, 1 verified" sh -c "[ $rc = 0 ] && grep -q ': 2 addresses; 2 keys added, 0 already known, 1 verified, [0-9]* history lines added' '$T_TMP/i1' || { cat '$T_TMP/i1'; false; }"
on six steedmail --trust show "$STEED_BOB" >"$T_TMP/s6b" 2>&1
on six steedmail --trust show carol@steed.test >"$T_TMP/s6c" 2>&1
ok "there: bob verified and pinned, carol known and pinned" sh -c "grep -qx 'state: verified' '$T_TMP/s6b' && grep -qx 'pinned: $bfpr' '$T_TMP/s6b' && grep -qx 'state: known' '$T_TMP/s6c' && grep -qx 'pinned: $cfpr' '$T_TMP/s6c'"
ok "and bob's history came along" sh -c "[ \"\$(grep -c '^history: .*verified' '$T_TMP/s6b')\" -ge 1 ]"
on six steedmail --trust import "$T_TMP/five.trust" >"$T_TMP/i2" 2>&1
ok "importing it again adds nothing" grep -q ': 2 addresses; 0 keys added, 2 already known, 0 verified, 0 history lines added' "$T_TMP/i2"

# A store where bob's other key is verified: an import that says the first
# one is verified, or that a third key is pinned from an Autocrypt header,
# downgrades nothing.
newhome seven
on seven steedmail --import-key "$T_TMP/bob2.pub" >/dev/null 2>&1
on seven steedmail --trust verify "$STEED_BOB" "$b2fpr" >/dev/null 2>&1
on seven steedmail --trust import "$T_TMP/five.trust" >"$T_TMP/i3" 2>&1
rc=$?
ok "importing a file where another key of bob's is verified: kept, says so" sh -c "[ $rc = 0 ] && grep -q 'kept: $STEED_BOB: $b2fpr stays verified and used for encryption; the file.s verified key $bfpr is not taken' '$T_TMP/i3' || { cat '$T_TMP/i3'; false; }"
on seven steedmail --trust show "$STEED_BOB" >"$T_TMP/s7" 2>&1
ok "bob's verified key stays pinned and verified there" sh -c "grep -qx 'state: verified' '$T_TMP/s7' && grep -qx 'pinned: $b2fpr' '$T_TMP/s7' || { cat '$T_TMP/s7'; false; }"
ok "the file's key of bob is there too, not pinned" grep -q "^key: $bfpr openpgp " "$T_TMP/s7"
claim=0123456789ABCDEF0123456789ABCDEF01234567
cat >"$T_TMP/claim.trust" <<EOT
steedmail-trust-export 1
peer $STEED_BOB
pin openpgp pinned=$claim changed=- changed-by=- conflict=-
key $claim proto=openpgp sources=autocrypt first-seen=1 last-seen=2 last-sig=0 dns-confirmed=0 messages=0 decision=accepted revoked=0 expired=0
end
EOT
on seven steedmail --trust import "$T_TMP/claim.trust" >"$T_TMP/i4" 2>&1
on seven steedmail --trust show "$STEED_BOB" >"$T_TMP/s7b" 2>&1
ok "a file pinning a key only an Autocrypt header named: bob's verified key stays" sh -c "grep -q 'kept: $STEED_BOB: $b2fpr stays the key used for encryption' '$T_TMP/i4' && grep -qx 'state: verified' '$T_TMP/s7b' && grep -qx 'pinned: $b2fpr' '$T_TMP/s7b' || { cat '$T_TMP/i4' '$T_TMP/s7b'; false; }"

# Malformed files: refused with file:line, nothing imported.
newhome eight
sed '5s/decision=verified/decision=trusted/' "$T_TMP/five.trust" >"$T_TMP/bad1.trust"
grep -q 'decision=trusted' "$T_TMP/bad1.trust" || sed 's/decision=verified/decision=trusted/' "$T_TMP/five.trust" >"$T_TMP/bad1.trust"
badline=$(grep -n 'decision=trusted' "$T_TMP/bad1.trust" | cut -d: -f1)
on eight steedmail --trust import "$T_TMP/bad1.trust" >"$T_TMP/b1" 2>&1
rc=$?
ok "an unknown decision: exit 65, FILE:LINE named, nothing imported" sh -c "[ $rc = 65 ] && grep -qx 'steedmail: $T_TMP/bad1.trust:$badline: unknown decision \"trusted\"; nothing imported' '$T_TMP/b1' || { cat '$T_TMP/b1'; false; }"
ok "the store is still empty" sh -c "[ -z \"\$(on eight steedmail --trust list 2>/dev/null)\" ]"
{ cat "$T_TMP/five.trust"; printf 'peer dave@steed.test\nkey %s proto=openpgp\nend\n' "$cfpr"; } >"$T_TMP/bad2.trust"
on eight steedmail --trust import "$T_TMP/bad2.trust" >"$T_TMP/b2" 2>&1
rc=$?
ok "good peers then a bad one at the end: refused, none of them imported" sh -c "[ $rc = 65 ] && grep -q 'bad2.trust:[0-9]*: no sources; nothing imported' '$T_TMP/b2' && [ -z \"\$(on eight steedmail --trust list 2>/dev/null)\" ] || { cat '$T_TMP/b2'; false; }"
sed '1s/ 1$/ 2/' "$T_TMP/five.trust" >"$T_TMP/v2.trust"
on eight steedmail --trust import "$T_TMP/v2.trust" >"$T_TMP/b3" 2>&1
ok "a newer version of the format: refused at line 1" grep -q 'v2.trust:1: version "2" (this steedmail reads 1); nothing imported' "$T_TMP/b3"

echo "1..$t_n"
