# message.sh: the message model (src/message.h) as the batch commands
# show it. One analysis path: --view runs the same steps as --inspect
# (Autocrypt included), so the trust store learns the same facts whichever
# command opens a message first. S/MIME enveloped data that no signature
# covers (made here with the real gpgsm) is shown, text only, under
# steedmail's banner that nothing protects its integrity, and never counts
# as protected; OpenPGP without MDC stays refused. No server needed.
. "$(dirname "$0")/../lib.sh"

command -v gpg >/dev/null 2>&1 || bail "gpg is needed"
command -v python3 >/dev/null 2>&1 || bail "python3 is needed"

C=$T_TMP/c
SM=$XDG_DATA_HOME/steedmail/gnupg
cleanup() {
	for h in "$C"/homes/* "$SM" "$T_TMP"/d*/steedmail/gnupg; do
		[ -d "$h" ] && gpgconf --homedir "$h" --kill all >/dev/null 2>&1
	done
	rm -rf "$T_TMP"
}
trap cleanup EXIT

ok "gen.sh makes keys and messages" sh tests/crypto/gen.sh "$C" "$SM"
ALICE=$(awk '$1 == "alice" { print $2 }' "$C/fprs")
MARK=$(printf '\342\224\203')

# The data home as gen.sh left it, before any message was opened, twice.
gpgconf --homedir "$SM" --kill all >/dev/null 2>&1
cp -a "$XDG_DATA_HOME" "$T_TMP/d1"
cp -a "$XDG_DATA_HOME" "$T_TMP/d2"
# same GOT WANT: equal, and not empty.
same() { [ -n "$1" ] && [ "$1" = "$2" ] || {
	echo "got:"; echo "$1"; echo "want:"; echo "$2"; return 1; }; }
in1() { XDG_DATA_HOME="$T_TMP/d1" sm "$@"; }
in2() { XDG_DATA_HOME="$T_TMP/d2" sm "$@"; }

# --- One analysis path: --view first learns what --inspect learns.
in1 --view "$C/autocrypt-good.eml" >"$T_TMP/ag.view" 2>&1
ok "--view of a message with an Autocrypt header exits 0" \
    has "$T_TMP/ag.view" "Subject:"
in1 --trust show alice@example.org >"$T_TMP/ag.show" 2>&1
ok "--view first: its Autocrypt key reaches the trust store" \
    grep -q "^key: $ALICE openpgp" "$T_TMP/ag.show"
ok "--view first: the address has a state" sh -c \
    "! grep -qx 'state: none' '$T_TMP/ag.show'"

# The same messages opened in the opposite order, by the other command
# first: every message's trust line is the same either way.
set -- autocrypt-good signed wrong-signer unknown-key gossip plain
for n; do
	in1 --view "$C/$n.eml" >"$T_TMP/$n.v1" 2>&1
	in1 --inspect "$C/$n.eml" >"$T_TMP/$n.i1" 2>&1
done
for n; do
	in2 --inspect "$C/$n.eml" >"$T_TMP/$n.i2" 2>&1
	in2 --view "$C/$n.eml" >"$T_TMP/$n.v2" 2>&1
done
for n; do
	ok "$n: --view says the same whichever command came first" \
	    same "$(grep "^$MARK trust:" "$T_TMP/$n.v1")" \
	    "$(grep "^$MARK trust:" "$T_TMP/$n.v2")"
	ok "$n: --inspect says the same whichever command came first" \
	    same "$(grep '^trust\.' "$T_TMP/$n.i1")" \
	    "$(grep '^trust\.' "$T_TMP/$n.i2")"
	ok "$n: --view's trust line is --inspect's state" sh -c \
	    "grep -q '^$MARK trust: '\"\$(sed -n 's/^trust.state: //p' \
	    '$T_TMP/$n.i1')\" '$T_TMP/$n.v1'"
	ok "$n: --view shows --inspect's warnings" sh -c \
	    "sed -n 's/^warning: /$MARK warning: /p' '$T_TMP/$n.i1' |
	     while IFS= read -r l; do grep -qxF -- \"\$l\" '$T_TMP/$n.v1' ||
	     exit 1; done"
done
ok "gossip: its warning is a note line of --view too" \
    grep -q "^$MARK warning: Autocrypt-Gossip for mallory@evil.example" \
    "$T_TMP/gossip.v1"

# --- The display model of the hostile corpus: its lines, drawn as --view
# draws them (chrome after the mark), are the view, line for line, and
# only chrome roles carry the mark.
VT=$(dirname "$STEEDMAIL")/tests/tools/viewtest
for f in tests/hostile/*.eml; do
	n=${f##*/}
	ok "$n: the display model draws the view" python3 -c "
import subprocess, sys
vt, f = sys.argv[1:3]
view = subprocess.run([vt, f], capture_output=True, check=True).stdout
model = subprocess.run([vt, '-l', f], capture_output=True,
    check=True).stdout
mark = '\u2503 '.encode()
out = b''
for line in model.split(b'\n')[:-1]:
    head, text = line.split(b'|', 1)
    role = head.split(b' ')[0]
    assert mark not in text, line
    chrome = role not in (b'header', b'space', b'text')
    out += (mark if chrome else b'') + text + b'\n'
assert out == view, (len(out), len(view))
" "$VT" "$f"
done

# --- OpenPGP without MDC stays refused.
sm --inspect "$C/nomdc.eml" >"$T_TMP/nomdc.i" 2>&1
sm --view "$C/nomdc.eml" >"$T_TMP/nomdc.v" 2>&1
ok "nomdc: still not decrypted" grep -qx \
    "decrypted: no (no integrity protection)" "$T_TMP/nomdc.i"
ok "nomdc: its text is nowhere" sh -c \
    "! grep -q SWORDFISH '$T_TMP/nomdc.i' '$T_TMP/nomdc.v'"

# --- S/MIME enveloped data without a signature.
if [ ! -e "$C/smime" ]; then
	echo "ok $((t_n + 1)) - S/MIME # SKIP gpgsm not installed"
	t_n=$((t_n + 1))
	exit 0
fi

# p7m NAME SUBJECT ENTITY-FILE: NAME.eml, the entity enveloped for bob by
# alice's gpgsm, with no signature.
p7m() {
	gpgsm --homedir "$C/homes/salice" --batch --disable-crl-checks \
	    --disable-dirmngr -r bob@example.org --encrypt "$3" \
	    >"$T_TMP/$1.der" 2>/dev/null || return 1
	{
		printf 'From: Alice <alice@example.org>\r\n'
		printf 'To: Bob <bob@example.org>\r\n'
		printf 'Subject: %s\r\n' "$2"
		printf 'Date: Mon, 1 Jan 2024 10:00:00 +0000\r\n'
		printf 'Message-ID: <%s@example.org>\r\nMIME-Version: 1.0\r\n' "$1"
		printf 'Content-Type: application/pkcs7-mime; '
		printf 'smime-type=enveloped-data; name=smime.p7m\r\n'
		printf 'Content-Transfer-Encoding: base64\r\n\r\n'
		base64 "$T_TMP/$1.der" | sed 's/$/\r/'
	} >"$T_TMP/$1.eml"
}

# Text and HTML, and a Subject inside that would be a protected header if
# anything protected it.
printf '%s\r\n' 'Subject: INNER-SUBJECT' 'From: Mallory <mallory@evil.example>' \
    'Content-Type: multipart/alternative; boundary="AB"' '' '--AB' \
    'Content-Type: text/plain; charset=utf-8' '' 'Pay PLAINWORD-1 now.' \
    '> quoted QUOTEWORD-4' '--AB' 'Content-Type: text/html; charset=utf-8' \
    '' '<p>Pay <b>HTMLWORD-2</b> now.</p>' '--AB--' >"$T_TMP/alt.in"
ok "gpgsm envelopes text and HTML without a signature" \
    p7m alt "Outer subject" "$T_TMP/alt.in"
sm --inspect "$T_TMP/alt.eml" >"$T_TMP/alt.i" 2>&1
sm --view "$T_TMP/alt.eml" >"$T_TMP/alt.v" 2>&1
ok "alt: decrypted" grep -qx "decrypted: yes" "$T_TMP/alt.i"
ok "alt: integrity none" grep -qx "integrity: none" "$T_TMP/alt.i"
ok "alt: not signed" grep -qx "signed: no" "$T_TMP/alt.i"
ok "alt: the summary says it may have been altered" grep -qx \
    "summary: encrypted (S/MIME) WITHOUT INTEGRITY PROTECTION and decrypted: it may have been altered; not signed" \
    "$T_TMP/alt.i"
ok "alt: never called protected" sh -c \
    "! grep -qi 'integrity protected\|, protected\|protected by' '$T_TMP/alt.i' '$T_TMP/alt.v'"
ok "alt: no protected headers" grep -qx "protected-headers: no" "$T_TMP/alt.i"
ok "alt: the outer Subject is shown, not the one inside" sh -c \
    "grep -qx 'Subject: Outer subject' '$T_TMP/alt.v' &&
     ! grep -q INNER-SUBJECT '$T_TMP/alt.v'"
ok "alt: the From inside is not the sender" \
    grep -qx "From: Alice <alice@example.org>" "$T_TMP/alt.v"
ok "alt: the text part is shown" grep -qx "Pay PLAINWORD-1 now." "$T_TMP/alt.v"
ok "alt: the HTML is never rendered" sh -c \
    "! grep -q HTMLWORD-2 '$T_TMP/alt.v' &&
     grep -q '^$MARK   2  text/html  .*(HTML, not shown)' '$T_TMP/alt.v'"
ok "alt: steedmail's banner above the content says it may be altered" \
    grep -q "^$MARK security of part root: encrypted (S/MIME) and decrypted, WITHOUT INTEGRITY PROTECTION: no signature covers it, so it may have been altered on the way" \
    "$T_TMP/alt.v"
ok "alt: the text part has its own banner" grep -qx \
    "$MARK security of part 1: NOT PROTECTED: decrypted, but nothing protects its integrity, it may have been altered; not signed" \
    "$T_TMP/alt.v"
ok "alt: banner, then the boundary, then the text, then the end" python3 -c "
import sys
v = open(sys.argv[1], encoding='utf-8').read().split('\n')
m = '\u2503 '
i = [n for n, l in enumerate(v) if 'WITHOUT INTEGRITY PROTECTION: no' in l][0]
assert v[i + 1] == m + 'part 1: application/pkcs7-mime, its content follows', v[i + 1]
t = v.index('Pay PLAINWORD-1 now.')
e = v.index(m + 'end of the content of part 1')
assert i < t < e, (i, t, e)
assert all(l.startswith(m) for l in v[i:t] if l), v[i:t]
" "$T_TMP/alt.v"
ok "alt: trust: unsigned" grep -qx "trust.state: unsigned" "$T_TMP/alt.i"

# Someone else's old PGP ciphertext, enveloped anew: not opened.
python3 - "$C/encrypted-unsigned.eml" "$T_TMP/pgp.in" <<'EOF'
import sys
raw = open(sys.argv[1], 'rb').read().replace(b'\r\n', b'\n')
head, body = raw.split(b'\n\n', 1)
ct, keep = [], False
for l in head.split(b'\n'):
    if l[:1] in (b' ', b'\t'):
        if keep:
            ct.append(l)
        continue
    keep = l.lower().startswith(b'content-type:')
    if keep:
        ct.append(l)
open(sys.argv[2], 'wb').write(b'\n'.join(ct) + b'\n\n' + body)
EOF
ok "gpgsm envelopes a PGP/MIME message without a signature" \
    p7m pgp "Forwarded?" "$T_TMP/pgp.in"
sm --inspect "$T_TMP/pgp.eml" >"$T_TMP/pgp.i" 2>&1
sm --view "$T_TMP/pgp.eml" >"$T_TMP/pgp.v" 2>&1
ok "pgp: the ciphertext inside is not opened" sh -c \
    "! grep -q SWORDFISH '$T_TMP/pgp.i' '$T_TMP/pgp.v' &&
     grep -q 'encrypted part not opened: not at the top of the message' '$T_TMP/pgp.i'"
ok "pgp: integrity none" grep -qx "integrity: none" "$T_TMP/pgp.i"
ok "pgp: the message is S/MIME, decrypted, whatever lay inside" sh -c \
    "grep -qx 'encryption: smime' '$T_TMP/pgp.i' &&
     grep -qx 'decrypted: yes' '$T_TMP/pgp.i' &&
     grep -q '^summary: encrypted (S/MIME) WITHOUT INTEGRITY PROTECTION' '$T_TMP/pgp.i'"

# A signed message inside stays what it was: signed-encrypted is shown
# as before, with integrity from the signature.
sm --inspect "$C/smime-signed-encrypted.eml" >"$T_TMP/se.i" 2>&1
ok "smime-signed-encrypted: integrity ok, not the new banner" sh -c \
    "grep -qx 'integrity: ok' '$T_TMP/se.i' &&
     ! grep -q 'WITHOUT INTEGRITY' '$T_TMP/se.i'"
