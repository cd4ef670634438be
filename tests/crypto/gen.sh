#!/bin/sh
# tests/crypto/gen.sh DIR SMHOME: make the keys and the hostile corpus of
# tests/shell/crypto-in.sh, with real gpg, at test time (no private key is
# ever committed). Throwaway homes go under DIR/homes; steedmail's own
# GnuPG home SMHOME gets bob's secret key (bob is steedmail's user) and
# the public keys of alice, mallory, rita (revoked), erin (expired) and
# sam; carol's key stays unknown to it. With gpgsm, S/MIME certificates
# for bob, alice, otto (valid in 2020 only) and, made by openssl, vera
# (valid from 2030 on), all trusted. Messages go to DIR/*.eml, and to
# DIR/later/*.eml those to be read after all the others. Prints the
# fingerprints as "NAME FPR" lines to DIR/fprs. The caller kills the
# agents: gpgconf --homedir H --kill all for DIR/homes/* and SMHOME.
set -eu
D=$1
SM=$2
H=$D/homes
mkdir -p "$H" "$SM"
chmod 700 "$SM"

g() { _h=$1; shift; gpg --homedir "$_h" --batch --quiet --no-tty \
    --pinentry-mode loopback --passphrase '' --trust-model always "$@"; }

key() {	# key HOME UID ALGO
	mkdir -p "$1"; chmod 700 "$1"
	g "$1" --quick-gen-key "$2" "$3" default never
}
fpr() { gpg --homedir "$1" --batch --with-colons -k "$2" |
    awk -F: '/^fpr/ { print $10; exit }'; }

# bob: RSA, so that a message without MDC (--rfc2440) can be made to him.
mkdir -p "$SM"
g "$SM" --quick-gen-key bob@example.org rsa2048 sign,cert never
g "$SM" --quick-add-key "$(fpr "$SM" bob@example.org)" rsa2048 encr never
key "$H/alice" "Alice <alice@example.org>" default
key "$H/mallory" "Mallory <mallory@evil.example>" default
key "$H/carol" "Carol <carol@example.net>" default
key "$H/dave" "Dave <dave@example.net>" default
g "$SM" --export bob@example.org | g "$H/alice" --import
g "$SM" --export bob@example.org | g "$H/mallory" --import
g "$H/alice" --export alice@example.org | g "$SM" --import
g "$H/mallory" --export mallory@evil.example | g "$SM" --import
g "$H/carol" --export carol@example.net | g "$H/alice" --import
g "$H/alice" --export alice@example.org >"$D/alice.pub"
g "$H/mallory" --export mallory@evil.example >"$D/mallory.pub"
g "$H/dave" --export dave@example.net >"$D/dave.pub"
# Keys whose signatures are no longer good ones. rita signs (below) and
# then revokes her key, with the certificate gpg made along with it.
# erin's key was made in 2020 and expired a year later; sam's never
# expires, but what he signed in 2020 carries a signature that expired a
# day after it was made. The past comes from --faked-system-time.
past() { _t=$1; _h=$2; shift 2
	g "$_h" --faked-system-time "$_t!" "$@" 2>/dev/null; }
key "$H/rita" "Rita <rita@example.org>" future-default
mkdir -p "$H/erin" "$H/sam"; chmod 700 "$H/erin" "$H/sam"
past 20200101T000000 "$H/erin" --quick-gen-key "Erin <erin@example.org>" \
    ed25519 sign 1y
past 20200101T000000 "$H/sam" --quick-gen-key "Sam <sam@example.org>" \
    ed25519 sign never
g "$H/erin" --export erin@example.org | g "$SM" --import
g "$H/sam" --export sam@example.org | g "$SM" --import
{
	echo "bob $(fpr "$SM" bob@example.org)"
	echo "alice $(fpr "$H/alice" alice@example.org)"
	echo "mallory $(fpr "$H/mallory" mallory@evil.example)"
	echo "carol $(fpr "$H/carol" carol@example.net)"
	echo "dave $(fpr "$H/dave" dave@example.net)"
	echo "rita $(fpr "$H/rita" rita@example.org)"
	echo "erin $(fpr "$H/erin" erin@example.org)"
	echo "sam $(fpr "$H/sam" sam@example.org)"
} >"$D/fprs"

# S/MIME: self-signed certificates for bob (in SMHOME) and alice, and
# otto's, valid in 2020 only, each trusted by every home (trustlist.txt),
# if gpgsm is there.
S="--batch --pinentry-mode loopback --passphrase-fd 0 --disable-crl-checks --disable-dirmngr"
if command -v gpgsm >/dev/null 2>&1; then
	mkdir -p "$H/salice"; chmod 700 "$H/salice"
	for u in bob alice; do
		[ $u = bob ] && h=$SM || h=$H/salice
		printf 'Key-Type: RSA\nKey-Length: 2048\nKey-Usage: sign, encrypt\nSerial: random\nName-DN: CN=%s,O=Example\nName-Email: %s@example.org\n' \
		    $u $u >"$D/$u.parm"
		gpgsm --homedir "$h" $S --gen-key "$D/$u.parm" </dev/null \
		    >"$D/$u.crt" 2>/dev/null
	done
	mkdir -p "$H/sotto"; chmod 700 "$H/sotto"
	printf 'Key-Type: RSA\nKey-Length: 2048\nKey-Usage: sign, encrypt\nSerial: random\nName-DN: CN=otto,O=Example\nName-Email: otto@example.org\nNot-Before: 2020-01-01\nNot-After: 2020-12-31\n' \
	    >"$D/otto.parm"
	gpgsm --homedir "$H/sotto" $S --faked-system-time 20200601T000000 \
	    --gen-key "$D/otto.parm" </dev/null >"$D/otto.crt" 2>/dev/null
	# vera's certificate, made by openssl, is valid from 2030 on only;
	# she signs (below) now, before it is.
	if command -v openssl >/dev/null 2>&1; then
		O=$D/ossl
		mkdir -p "$O"
		printf '%s\n' '[ca]' 'default_ca = own' '[own]' "dir = $O" \
		    "database = $O/index.txt" "new_certs_dir = $O" \
		    "serial = $O/serial" 'default_md = sha256' 'policy = any' \
		    'x509_extensions = ext' '[any]' 'commonName = supplied' \
		    'organizationName = optional' '[ext]' \
		    'basicConstraints = critical, CA:TRUE' \
		    'keyUsage = critical, digitalSignature, keyCertSign' \
		    'subjectAltName = email:vera@example.org' >"$O/ca.cnf"
		: >"$O/index.txt"
		echo 01 >"$O/serial"
		openssl req -new -newkey rsa:2048 -nodes -keyout "$O/vera.key" \
		    -subj "/CN=vera/O=Example" -out "$O/vera.csr" 2>/dev/null
		openssl ca -config "$O/ca.cnf" -selfsign -keyfile "$O/vera.key" \
		    -in "$O/vera.csr" -startdate 20300101000000Z \
		    -enddate 20311231000000Z -batch -notext \
		    -out "$D/vera.crt" 2>/dev/null
	fi
	for h in "$SM" "$H/salice" "$H/sotto"; do
		for u in bob alice otto vera; do
			[ -e "$D/$u.crt" ] || continue
			gpgsm --homedir "$h" --batch --import "$D/$u.crt" 2>/dev/null
		done
		gpgsm --homedir "$h" --with-colons -k | awk -F: \
		    '/^fpr/ { print $10 " S relax" }' >"$h/trustlist.txt"
		gpgconf --homedir "$h" --reload gpg-agent
	done
	touch "$D/smime"
fi

python3 - "$D" "$SM" <<'PY'
import base64, glob, os, re, subprocess, sys
D, SM = sys.argv[1], sys.argv[2]
H = D + "/homes"

def gpg(home, args, data):
    return subprocess.run(["gpg", "--homedir", home, "--batch", "--quiet",
        "--no-tty", "--pinentry-mode", "loopback", "--passphrase", "",
        "--trust-model", "always"] + args, input=data,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout

def crlf(s):
    return s.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")

def write(name, msg, lf=True):
    if lf:
        msg = msg.replace(b"\r\n", b"\n")
    open("%s/%s.eml" % (D, name), "wb").write(msg)

def hdr(frm="Alice <alice@example.org>", to="Bob <bob@example.org>",
        subject="Test", extra=b""):
    return (b"From: " + frm.encode() + b"\r\nTo: " + to.encode() +
        b"\r\nSubject: " + subject.encode() +
        b"\r\nDate: Mon, 1 Jan 2024 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"
        + extra)

def text(body, extra=b""):
    return crlf(b"Content-Type: text/plain; charset=utf-8\r\n" + extra +
        b"\r\n" + body)

def signed(entity, home, bnd=b"SIG", opts=[]):
    sig = gpg(home, opts + ["--detach-sign", "--armor", "--digest-algo",
        "SHA256"], entity)
    return (b"Content-Type: multipart/signed; micalg=pgp-sha256;\r\n"
        b" protocol=\"application/pgp-signature\"; boundary=\"" + bnd +
        b"\"\r\n\r\n--" + bnd + b"\r\n" + entity + b"\r\n--" + bnd +
        b"\r\nContent-Type: application/pgp-signature; name=signature.asc"
        b"\r\n\r\n" + crlf(sig) + b"\r\n--" + bnd + b"--\r\n")

def encrypted(cipher, bnd=b"ENC"):
    return (b"Content-Type: multipart/encrypted;\r\n"
        b" protocol=\"application/pgp-encrypted\"; boundary=\"" + bnd +
        b"\"\r\n\r\n--" + bnd + b"\r\nContent-Type: application/pgp-encrypted"
        b"\r\n\r\nVersion: 1\r\n\r\n--" + bnd +
        b"\r\nContent-Type: application/octet-stream\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n" +
        base64.encodebytes(cipher).replace(b"\n", b"\r\n") + b"\r\n--" +
        bnd + b"--\r\n")

def mixed(parts, bnd=b"MIX"):
    out = b"Content-Type: multipart/mixed; boundary=\"" + bnd + b"\"\r\n\r\n"
    for p in parts:
        out += b"--" + bnd + b"\r\n" + p + b"\r\n"
    return out + b"--" + bnd + b"--\r\n"

A, M, C = H + "/alice", H + "/mallory", H + "/carol"
body = text(b"Hello Bob,\r\nthe meeting is at noon.\r\n")

write("plain", hdr() + text(b"Nothing special here.\r\n"))
write("signed", hdr(subject="Signed") + signed(body, A))
write("signed-crlf", hdr(subject="Signed CRLF") + signed(body, A), lf=False)
s = signed(body, A)
write("signed-tampered", hdr(subject="Tampered") +
    s.replace(b"at noon", b"at nine"))
write("wrong-signer", hdr(subject="From alice, signed by mallory") +
    signed(body, M))
write("unknown-key", hdr(subject="Signed by carol") + signed(body, C))
# Signatures that are no longer good ones (see the keys above). rita's
# key is revoked after she signed, and steedmail's home gets it as it is
# then. The messages in DIR/later, signed now, are read after all others.
R, E, S = H + "/rita", H + "/erin", H + "/sam"
os.makedirs(D + "/later", exist_ok=True)
in2020 = ["--faked-system-time", "20200601T000000!"]
write("signed-revoked", hdr(frm="Rita <rita@example.org>",
    subject="Signed, then revoked") + signed(body, R))
rev = open(glob.glob(R + "/openpgp-revocs.d/*.rev")[0], "rb").read()
gpg(R, ["--import"], re.sub(rb"(?m)^:-----BEGIN", b"-----BEGIN", rev))
gpg(SM, ["--import"], gpg(R, ["--export", "rita@example.org"], b""))
write("signed-key-expired", hdr(frm="Erin <erin@example.org>",
    subject="Signed in 2020") + signed(body, E, opts=in2020))
# Then erin renews her key (as steedmail renews its own) and signs again;
# her renewed key is for steedmail's home to get later, in DIR/later.
efpr = [l.split(b":")[9] for l in gpg(E, ["--with-colons", "-k",
    "erin@example.org"], b"").splitlines() if l.startswith(b"fpr:")][0]
gpg(E, ["--quick-set-expire", efpr.decode(), "2y"], b"")
open(D + "/later/erin.pub", "wb").write(gpg(E, ["--export",
    "erin@example.org"], b""))
write("signed-sig-expired", hdr(frm="Sam <sam@example.org>",
    subject="Signed in 2020, for a day") + signed(body, S,
    opts=in2020 + ["--default-sig-expire", "1d"]))
for i in (1, 2):
    write("later/sam-%d" % i, hdr(frm="Sam <sam@example.org>",
        subject="Signed now, %d" % i) + signed(body, S))
    write("later/erin-%d" % i, hdr(frm="Erin <erin@example.org>",
        subject="Renewed, %d" % i) + signed(body, E))
# Signatures whose date cannot be right, made by gpg with a faked clock:
# years ahead, a little ahead (within the day allowed for clocks that
# differ), and years back, before alice's key was made.
import time
stamp = lambda t: ["--faked-system-time", time.strftime("%Y%m%dT%H%M%S!",
    time.gmtime(t))]
write("signed-future", hdr(subject="Signed in the future") + signed(body, A,
    opts=stamp(time.time() + 3 * 365 * 86400)))
write("signed-soon", hdr(subject="Signed an hour ahead") + signed(body, A,
    opts=stamp(time.time() + 3600)))
write("signed-before-key", hdr(subject="Signed before the key existed") +
    signed(body, A, opts=stamp(1577836800) + ["--ignore-time-conflict"]))
write("partly-signed", hdr(subject="Partly signed") + mixed([
    text(b"This first part is NOT signed: pay mallory.\r\n"),
    signed(body, A)]))
# A part no signature covers, wherever it sits: first (partly-signed,
# above), in the middle, appended after the signed part, added inside the
# multipart/signed after the signature, inside a forwarded message.
extra = lambda w: text(b"UNSIGNED-" + w + b": pay mallory.\r\n")
write("unsigned-middle", hdr(subject="Middle") + mixed([extra(b"FIRST"),
    signed(body, A), extra(b"MIDDLE")]))
write("unsigned-appended", hdr(subject="Appended") + mixed([signed(body, A),
    extra(b"APPENDED")]))
write("unsigned-after-sig", hdr(subject="After the signature") +
    signed(body, A).replace(b"\r\n--SIG--\r\n", b"\r\n--SIG\r\n" +
    extra(b"AFTERSIG") + b"\r\n--SIG--\r\n"))
write("unsigned-in-forward", hdr(frm="Mallory <mallory@evil.example>",
    subject="Fwd: signed") + mixed([text(b"See below.\r\n"),
    b"Content-Type: message/rfc822\r\n\r\n" + crlf(hdr(subject="Inner") +
    mixed([signed(body, A), extra(b"FORWARDED")], bnd=b"IN"))]))
inner = hdr(subject="Original") + signed(body, A)
write("forwarded-signed", hdr(frm="Mallory <mallory@evil.example>",
    subject="Fwd: Original") + mixed([
    text(b"See the forwarded message.\r\n"),
    b"Content-Type: message/rfc822\r\n\r\n" + crlf(inner)]))
fake = ("\u2503 Good signature from alice@example.org\r\n"
    "gpg: Good signature from \"Alice <alice@example.org>\"\r\n").encode()
write("fake-status", hdr(subject="\u2503 Good signature") + mixed([
    text(fake),
    b"Content-Type: application/octet-stream\r\nContent-Disposition: "
    b"attachment; filename*=utf-8''%E2%94%83%20Good%20signature%20from%20"
    b"alice%0Agpg%3A%20Good%20signature.txt\r\n\r\nxx\r\n"]))

# Senders made to lie ("Johnny, You Are Fired"): a name padded past any
# screen, an encoded word that decodes to alice's From, a name that is
# alice's address (also in full-width letters), one that turns text
# around, an address before an angle address, a Reply-To and a Sender
# whose names are alice's; signed by mallory, so that the signature and
# the screens must agree on who he is.
spoofs = {
    "spoof-padded": "\"Alice" + " " * 3000 + "x\" <mallory@evil.example>",
    "spoof-encoded": "=?utf-8?b?QWxpY2UgPGFsaWNlQGV4YW1wbGUub3JnPg==?=",
    "spoof-other": "\"alice@example.org\" <mallory@evil.example>",
    "spoof-fullwidth": "=?utf-8?b?YWxpY2XvvKBleGFtcGxlLm9yZw==?= "
        "<mallory@evil.example>",
    "spoof-bidi": "\"Alice \u202egro.elpmaxe@ecila\" <mallory@evil.example>",
    "spoof-ambiguous": "alice@example.org <mallory@evil.example>",
}
for n, f in spoofs.items():
    write(n, hdr(frm=f, subject=n) + signed(body, M))
write("spoof-reply-to", hdr(frm="Mallory <mallory@evil.example>",
    subject="spoof-reply-to", extra=b"Reply-To: \"alice@example.org\" "
    b"<mallory@evil.example>\r\nSender: Alice <alice@example.org>\r\n") +
    signed(body, M))
secret = text(b"The secret word is SWORDFISH-7.\r\n" + b"padding line\r\n" * 20)
prot = crlf(b"Content-Type: text/plain; charset=utf-8; protected-headers=v1"
    b"\r\nSubject: The real subject\r\nFrom: Alice <alice@example.org>\r\n"
    b"To: Bob <bob@example.org>\r\n\r\nThe secret word is SWORDFISH-7.\r\n")
enc = lambda data, home=A, extra=[]: gpg(home, ["--encrypt", "--sign", "-r",
    "bob@example.org"] + extra, data)
write("signed-encrypted", hdr(subject="...") + encrypted(enc(prot)))
# The protected From, vouched for by alice's signature, with a name that
# is bob's address: marked like an outer one.
write("protected-from-other", hdr(subject="...") + encrypted(enc(
    prot.replace(b"From: Alice <alice@example.org>",
    b"From: \"bob@example.org\" <alice@example.org>"))))
write("encrypted-unsigned", hdr(subject="Enc") + encrypted(gpg(A,
    ["--encrypt", "-r", "bob@example.org"], secret)))
write("sign-then-encrypt", hdr(subject="...") + encrypted(gpg(A,
    ["--encrypt", "-r", "bob@example.org"], signed(secret, A))))
write("encrypted-signed-by-mallory", hdr(subject="Enc") + encrypted(
    enc(secret, M)))
write("nomdc", hdr(subject="No MDC") + encrypted(gpg(A, ["--encrypt",
    "--rfc2440", "--cipher-algo", "AES", "-r", "bob@example.org"], secret)))
c = bytearray(gpg(A, ["--encrypt", "--compress-algo", "none", "-r",
    "bob@example.org"], secret))
c[-60] ^= 0x01
write("tampered-encrypted", hdr(subject="Tampered") + encrypted(bytes(c)))
write("no-seckey", hdr(subject="To carol") + encrypted(gpg(A, ["--encrypt",
    "-r", "carol@example.net"], secret)))
write("mixed-encrypted", hdr(subject="Mixed") + mixed([
    text(b"Plain text next to the ciphertext.\r\n"),
    encrypted(enc(secret))]))
fwd = hdr(subject="Old secret") + encrypted(enc(secret))
write("nested-foreign", hdr(frm="Mallory <mallory@evil.example>",
    subject="Fwd: old") + mixed([text(b"Please quote this back.\r\n"),
    b"Content-Type: message/rfc822\r\n\r\n" + crlf(fwd)]))
arm = gpg(A, ["--encrypt", "--sign", "--armor", "-r", "bob@example.org"],
    b"Inline secret SWORDFISH-7.\n")
write("inline-encrypted", hdr(subject="Inline") + text(arm))
cs = gpg(A, ["--clearsign"], b"Inline signed text from alice.\n")
write("inline-signed", hdr(subject="Clearsigned") + text(cs))
write("inline-signed-extra", hdr(subject="Clearsigned") + text(
    b"Unsigned text before.\r\n" + cs))

# Protected headers with a legacy display element (RFC 9788 4.5.3, its
# Appendix E.1): hidden where the protected header is used, shown where
# nothing vouches for it (carol's key is unknown to steedmail's home).
hpf = (b"Subject: Dinner plans\r\nFrom: Alice <alice@example.org>\r\n"
    b"To: Bob <bob@example.org>\r\nMessage-ID: <hp@example.org>\r\n"
    b"Date: Mon, 1 Jan 2024 10:00:00 +0000\r\n")
def hp(how=b"cipher"):
    return crlf(b"Content-Type: text/plain; charset=us-ascii; hp=\"" + how +
        b"\"; hp-legacy-display=\"1\"\r\n" + hpf +
        b"HP-Outer: Subject: [...]\r\n\r\nSubject: Dinner plans\r\n\r\n"
        b"Let's meet at Rama's Roti Shop at 8pm.\r\n")
hphtml = crlf(b"Content-Type: text/html; charset=us-ascii; hp=\"cipher\"; "
    b"hp-legacy-display=\"1\"\r\n" + hpf + b"\r\n<html><body><div class="
    b"\"header-protection-legacy-display\"><pre>Subject: Dinner plans</pre>"
    b"<div>nested</div></div><p>Let's meet at Rama's Roti Shop at 8pm.</p>"
    b"</body></html>\r\n")
hppart = crlf(b"Content-Type: multipart/mixed; boundary=\"LD\"; "
    b"protected-headers=\"v1\"\r\n" + hpf + b"\r\n--LD\r\nContent-Type: "
    b"text/rfc822-headers; protected-headers=\"v1\"\r\nContent-Disposition:"
    b" inline\r\n\r\nSubject: Dinner plans\r\n\r\n--LD\r\nContent-Type: "
    b"text/plain; charset=us-ascii\r\n\r\nLet's meet at Rama's Roti Shop "
    b"at 8pm.\r\n--LD--\r\n")
hpout = lambda s=b"[...]": hdr(subject=s.decode())
write("hp-legacy-both", hpout() + encrypted(enc(hp())))
write("hp-legacy-enc", hpout() + encrypted(gpg(A, ["--encrypt", "-r",
    "bob@example.org"], hp())))
write("hp-legacy-html", hpout() + encrypted(enc(hphtml)))
write("hp-legacy-part", hpout() + encrypted(enc(hppart)))
write("hp-legacy-unknown", hpout(b"Dinner (outer)") + signed(hp(b"clear"),
    C))

def ac(keyfile, addr="alice@example.org", pre=b"", post=b""):
    kd = base64.b64encode(open(keyfile, "rb").read())
    folded = b"\r\n ".join(kd[i:i + 72] for i in range(0, len(kd), 72))
    return (b"Autocrypt: " + pre + b"addr=" + addr.encode() +
        b"; prefer-encrypt=mutual; " + post + b"keydata=\r\n " + folded +
        b"\r\n")
AP = D + "/alice.pub"
write("autocrypt-good", hdr(extra=ac(AP)) + body)
write("autocrypt-mismatch", hdr(extra=ac(D + "/mallory.pub",
    addr="mallory@evil.example")) + body)
write("autocrypt-two", hdr(extra=ac(AP) + ac(AP)) + body)
write("autocrypt-critical", hdr(extra=ac(AP, post=b"color=red; ")) + body)
write("autocrypt-underscore", hdr(extra=ac(AP, post=b"_color=red; ")) + body)
kd = base64.b64encode(open(AP, "rb").read())
write("autocrypt-keydata-first", hdr(extra=b"Autocrypt: keydata=" + kd +
    b"; addr=alice@example.org\r\n") + body)
write("autocrypt-big", hdr(extra=ac(AP, post=b"_pad=" + b"x" * 11000 +
    b"; ")) + body)
gkd = base64.b64encode(open(D + "/dave.pub", "rb").read())
gos = crlf(b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Autocrypt-Gossip: addr=dave@example.net; keydata=" + gkd + b"\r\n"
    b"Autocrypt-Gossip: addr=mallory@evil.example; keydata=" +
    base64.b64encode(open(D + "/mallory.pub", "rb").read()) +
    b"\r\n\r\nHi both.\r\n")
write("gossip", hdr(to="bob@example.org, dave@example.net") +
    encrypted(enc(gos)))
if os.path.exists(D + "/smime"):
    SA = H + "/salice"
    def gpgsm(args, data, home=SA):
        # The key has no passphrase; the data comes from a file, as
        # gpgsm would take the first line of standard input for one.
        open(D + "/smime.in", "wb").write(data)
        return subprocess.run(["gpgsm", "--homedir", home, "--batch",
            "--disable-crl-checks", "--disable-dirmngr"] + args +
            [D + "/smime.in"], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            check=True).stdout
    b64 = lambda d: base64.encodebytes(d).replace(b"\n", b"\r\n")
    def smime_signed(entity, home=SA, who="alice@example.org", extra=[]):
        sig = gpgsm(extra + ["-u", who, "--detach-sign"], entity, home)
        return (b"Content-Type: multipart/signed; protocol=\"application/"
            b"pkcs7-signature\"; micalg=sha-256; boundary=\"SB\"\r\n\r\n"
            b"--SB\r\n" + entity + b"\r\n--SB\r\nContent-Type: application/"
            b"pkcs7-signature; name=smime.p7s\r\nContent-Transfer-Encoding: "
            b"base64\r\n\r\n" + b64(sig) + b"\r\n--SB--\r\n")
    def p7m(kind, der):
        return (b"Content-Type: application/pkcs7-mime; smime-type=" + kind +
            b"; name=smime.p7m\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + b64(der))
    write("smime-signed", hdr(subject="S/MIME signed") + smime_signed(body))
    # Signed in 2020, while otto's certificate was valid.
    write("smime-cert-expired", hdr(frm="Otto <otto@example.org>",
        subject="S/MIME, 2020") + smime_signed(body, H + "/sotto",
        "otto@example.org", ["--faked-system-time", "20200601T000000"]))
    # alice's signature dated two years ahead (gpgsm with a faked clock).
    fut = time.strftime("%Y%m%dT%H%M%S", time.gmtime(time.time() +
        2 * 365 * 86400))
    write("smime-future", hdr(subject="S/MIME, in the future") +
        smime_signed(body, extra=["--faked-system-time", fut]))
    # vera's, made by openssl now, before her certificate is valid.
    if os.path.exists(D + "/vera.crt"):
        open(D + "/ossl/body", "wb").write(body)
        sig = subprocess.run(["openssl", "cms", "-sign", "-binary",
            "-signer", D + "/vera.crt", "-inkey", D + "/ossl/vera.key",
            "-in", D + "/ossl/body", "-outform", "DER"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            check=True).stdout
        write("smime-before-cert", hdr(frm="Vera <vera@example.org>",
            subject="S/MIME, before the certificate") +
            b"Content-Type: multipart/signed; protocol=\"application/"
            b"pkcs7-signature\"; micalg=sha-256; boundary=\"SB\"\r\n\r\n"
            b"--SB\r\n" + body + b"\r\n--SB\r\nContent-Type: application/"
            b"pkcs7-signature; name=smime.p7s\r\nContent-Transfer-Encoding: "
            b"base64\r\n\r\n" + b64(sig) + b"\r\n--SB--\r\n")
    write("smime-opaque", hdr(subject="S/MIME opaque") + p7m(b"signed-data",
        gpgsm(["-u", "alice@example.org", "--sign"], body)))
    write("smime-encrypted", hdr(subject="S/MIME enc") + p7m(
        b"enveloped-data", gpgsm(["-r", "bob@example.org", "--encrypt"],
        secret)))
    write("smime-signed-encrypted", hdr(subject="S/MIME both") + p7m(
        b"enveloped-data", gpgsm(["-r", "bob@example.org", "--encrypt"],
        smime_signed(secret))))
    write("hp-legacy-smime-both", hpout() + p7m(b"enveloped-data",
        gpgsm(["-r", "bob@example.org", "--encrypt"], smime_signed(hp()))))
    write("hp-legacy-smime-enc", hpout() + p7m(b"enveloped-data",
        gpgsm(["-r", "bob@example.org", "--encrypt"], hp())))
write("gossip-unsigned", hdr(to="bob@example.org, dave@example.net") +
    encrypted(gpg(A, ["--encrypt", "-r", "bob@example.org"], gos)))
PY
