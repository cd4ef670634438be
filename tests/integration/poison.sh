# poison.sh: no message stops a sync. Messages that anyone can send, with
# about 200,000 '(' (and other deep nesting: '<', group openings, quotes)
# in From, To, Cc, Reply-To, Sender, the Autocrypt header and, inside a
# signed and encrypted part, the protected To and Autocrypt-Gossip, are
# put into the INBOX of the test Dovecot. --view and --inspect of each
# exit normally and say something sensible; --sync completes, names the
# messages it could not use and why, and the next --sync does not try them
# again. A message that kills the process in the middle of the trust step
# (STEEDMAIL_CRASH_AT=trust-uid-N stands in for a crash) is not tried
# again either: the sync after it completes. Run under the sanitizers,
# every run is also checked for their reports.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
command -v python3 >/dev/null 2>&1 || bail "python3 is needed to write the messages"
DOVE="doveadm -c $STEED_DOVECOT_CONF"
R=poison-$$@steed.test
"$STEED_ENV_BIN/add-user" "$R" p-pw || bail "add-user failed"
{ echo "ca-file = $STEED_CA_FILE"
  printf '\n[account p]\nname = Poison\naddress = %s\n' "$R"
  echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
  echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
  echo "password = p-pw"; } >"$T_TMP/r.conf"
chmod 600 "$T_TMP/r.conf"

alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
r() { XDG_DATA_HOME="$T_TMP/r" XDG_CACHE_HOME="$T_TMP/r-c" sm -F "$T_TMP/r.conf" "$@"; }
AH=$T_TMP/alice/steedmail/gnupg
RH=$T_TMP/r/steedmail/gnupg
trap 'for h in "$AH" "$RH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT

inbox() { $DOVE search -u "$R" mailbox INBOX all 2>/dev/null | wc -l; }
arrived() {
	for _ in $(seq 1 40); do
		[ "$(inbox)" -ge "$1" ] && return 0
		sleep 0.25
	done
	echo "the INBOX has $(inbox) messages, not $1"; return 1
}
# What the sanitizers (and a crash) leave in the output: never wanted.
SAN='AddressSanitizer|LeakSanitizer|runtime error|Segmentation'
u=$$-$(date +%s)

r --genkey >/dev/null 2>&1 || bail "--genkey failed"
r --export-key >"$T_TMP/r.asc" 2>/dev/null
alice --genkey >/dev/null 2>&1 || bail "alice --genkey failed"
alice --import-key - <"$T_TMP/r.asc" >/dev/null 2>&1
alice --export-key >"$T_TMP/a.asc" 2>/dev/null
r --import-key - <"$T_TMP/a.asc" >/dev/null 2>&1
rfpr=$(gpg --homedir "$RH" --with-colons -K 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
[ -n "$rfpr" ] || bail "no key for $R"

# The messages: m1..m10 plain, each with an Autocrypt header so that the
# trust step looks at it; m11 signed and encrypted by alice.
python3 - "$T_TMP" "$R" "$u" <<'PY'
import sys
d, rcpt, u = sys.argv[1:4]
N = 200000
bomb = "(" * N
def msg(i, fields, ac="addr=alice@steed.test; keydata=QUJD"):
    h = {"From": "Alice Example <alice@steed.test>", "To": rcpt}
    h.update(fields)
    s = "".join("%s: %s\r\n" % (k, v) for k, v in h.items())
    s += "Subject: poison %d %s\r\nMessage-ID: <poison-%d-%s@steed.test>\r\n" % (i, u, i, u)
    s += "Autocrypt: %s\r\n\r\npoison %d body\r\n" % (ac, i)
    open("%s/m%d.eml" % (d, i), "w").write(s)
msg(1, {"From": bomb})
msg(2, {"To": bomb})
msg(3, {"Cc": bomb})
msg(4, {"Reply-To": bomb})
msg(5, {"Sender": bomb})
msg(6, {"From": "<" * N + "alice@steed.test>"})
msg(7, {"To": "g:" * (N // 2) + rcpt + ";", "Cc": '"' * (N + 1)})
msg(8, {}, ac=bomb)
msg(9, {}, ac="addr=" + "(" * 10000 + "; keydata=QUJD")
msg(10, {"From": "a@b, " * (N // 5) + "(\\)" * (N // 3)})
# The inside of m11: protected headers whose To is a bomb, and gossip
# with a bombed addr, one too long, and one for a recipient in a group.
inner = ("Content-Type: text/plain; charset=utf-8; protected-headers=v1\r\n"
         "From: Alice Example <alice@steed.test>\r\n"
         "To: %s, team: (%s) %s;\r\nCc: %s\r\nSubject: poison 11 %s\r\n"
         "Autocrypt-Gossip: addr=%s; keydata=QUJD\r\n"
         "Autocrypt-Gossip: addr=bob@steed.test; keydata=%s\r\n\r\n"
         "poison 11 body\r\n" % (rcpt, "(" * 20 + ")" * 20, "bob@steed.test",
                                  bomb, u, "(" * 9000, bomb))
open("%s/inner.txt" % d, "w").write(inner)
PY
gpg --homedir "$AH" --batch --trust-model always --armor --sign --encrypt \
    -u alice@steed.test -r "$rfpr" -r alice@steed.test \
    <"$T_TMP/inner.txt" >"$T_TMP/inner.asc" 2>"$T_TMP/gpg.err" || bail "gpg: $(cat "$T_TMP/gpg.err")"
{ printf 'From: Alice Example <alice@steed.test>\r\nTo: %s\r\nSubject: ...\r\n' "$R"
  printf 'Message-ID: <poison-11-%s@steed.test>\r\nMIME-Version: 1.0\r\n' "$u"
  printf 'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="b"\r\n\r\n'
  printf -- '--b\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n\r\n'
  printf -- '--b\r\nContent-Type: application/octet-stream\r\n\r\n'
  sed 's/$/\r/' "$T_TMP/inner.asc"; printf -- '--b--\r\n'; } >"$T_TMP/m11.eml"

# Into the INBOX, then --sync.
for i in 1 2 3 4 5 6 7 8 9 10 11; do
	$DOVE save -u "$R" -m INBOX <"$T_TMP/m$i.eml"
done
ok "eleven messages in the INBOX" arrived 11
r --sync >"$T_TMP/s1" 2>&1; rc=$?
ok "--sync: exit 0, all 11 cached" sh -c "[ $rc = 0 ] && grep -qx '11 messages' '$T_TMP/s1' && ! grep -qE '$SAN' '$T_TMP/s1' || { echo rc $rc; cut -c1-300 '$T_TMP/s1'; false; }"
ok "--sync: the trust step processed 8 and skipped the 3 without a From address" sh -c "grep -qx 'steedmail: INBOX: trust: 8 messages processed, 3 skipped' '$T_TMP/s1' || { cut -c1-300 '$T_TMP/s1'; false; }"
ok "--sync: one warning names them and says why" sh -c "[ \$(grep -c warning '$T_TMP/s1') = 1 ] && grep -qx 'steedmail: warning: INBOX: trust: 3 messages left for when they are opened: UID 1 (the message has no single From address), UID 6 (the message has no single From address), UID 10 (the message has no single From address)' '$T_TMP/s1' || { cut -c1-300 '$T_TMP/s1'; false; }"
r --list >"$T_TMP/l1" 2>&1; rc=$?
ok "--list of the poisoned INBOX: exit 0, every subject" sh -c "[ $rc = 0 ] && [ \$(grep -c 'poison' '$T_TMP/l1') -ge 10 ] && ! grep -qE '$SAN' '$T_TMP/l1' || { echo rc $rc; cut -c1-300 '$T_TMP/l1'; false; }"
r --sync >"$T_TMP/s2" 2>&1; rc=$?
ok "a second --sync completes and tries none of them again" sh -c "[ $rc = 0 ] && grep -q 'nothing changed' '$T_TMP/s2' && ! grep -q 'trust' '$T_TMP/s2' || { echo rc $rc; cut -c1-300 '$T_TMP/s2'; false; }"
# Each message opened from its file.
for i in 1 2 3 4 5 6 7 8 9 10 11; do
	f=$T_TMP/m$i.eml
	r --view "$f" >"$T_TMP/v$i" 2>&1; rc=$?
	ok "m$i: --view exits 0" sh -c "[ $rc = 0 ] || { echo rc $rc; tail -5 '$T_TMP/v$i' | cut -c1-200; false; }"
	ok "m$i: --view shows the text, no sanitizer report" sh -c "grep -q '^poison $i body' '$T_TMP/v$i' && ! grep -qE '$SAN' '$T_TMP/v$i' || { tail -5 '$T_TMP/v$i' | cut -c1-200; false; }"
	r --inspect "$f" >"$T_TMP/i$i" 2>&1; rc=$?
	ok "m$i: --inspect exits 0 with a trust line" sh -c "[ $rc = 0 ] && grep -q '^trust.state: ' '$T_TMP/i$i' && ! grep -qE '$SAN' '$T_TMP/i$i' || { echo rc $rc; tail -5 '$T_TMP/i$i' | cut -c1-200; false; }"
done
# What the unreadable fields come to.
for i in 1 6 10; do
	ok "m$i: an unreadable From: no single From address, so no trust state" sh -c "grep -qx 'trust.evidence: the message has no single From address' '$T_TMP/i$i' && grep -qx 'trust.state: none' '$T_TMP/i$i' || { cat '$T_TMP/i$i'; false; }"
done
ok "m8: an Autocrypt header of 200,000 bytes is invalid, said why" grep -q '^autocrypt: invalid.*longer than 10240 bytes' "$T_TMP/i8"
ok "m9: a bombed addr is not an address" grep -q '^autocrypt: invalid.*addr is not an address' "$T_TMP/i9"
ok "m11: decrypted, signed by alice" sh -c "grep -qx 'encryption: openpgp' '$T_TMP/i11' && grep -qx 'signed: yes' '$T_TMP/i11' || { cat '$T_TMP/i11'; false; }"
ok "m11: the bombed gossip is invalid, the one for bob too long, both said" sh -c "grep -q 'Autocrypt-Gossip header is invalid: addr is not an address' '$T_TMP/i11' && grep -q 'Autocrypt-Gossip header is longer than 10240 bytes' '$T_TMP/i11' || { cat '$T_TMP/i11'; false; }"
ok "m11: --view shows the protected subject" grep -q "^Subject: poison 11 $u" "$T_TMP/v11"

for i in 1 2 11; do
	r --fetch "$i" >"$T_TMP/f$i" 2>"$T_TMP/fe$i"; rc=$?
	ok "--fetch $i: exit 0, the message as it was saved" sh -c "[ $rc = 0 ] && cmp -s '$T_TMP/f$i' '$T_TMP/m$i.eml' || { echo rc $rc; cut -c1-300 '$T_TMP/fe$i'; false; }"
	r --fetch "$i" --part 1 >"$T_TMP/p$i" 2>"$T_TMP/pe$i"; rc=$?
	ok "--fetch $i --part 1: exit 0, no sanitizer report" sh -c "[ $rc = 0 ] && ! grep -qE '$SAN' '$T_TMP/pe$i' || { echo rc $rc; cut -c1-300 '$T_TMP/pe$i'; false; }"
done

# Deep structure for --fetch --part: the server's BODYSTRUCTURE of it is
# read by steedmail's own bounded code, not by libetpan's parser.
python3 - "$T_TMP/m-deep.eml" "$R" <<'PY'
import sys
n = 50
head = "".join("Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (i, i) for i in range(n))
tail = "".join("--b%d--\r\n" % i for i in reversed(range(n)))
open(sys.argv[1], "w").write("From: Alice Example <alice@steed.test>\r\nTo: %s\r\n"
    "Subject: deep\r\nMIME-Version: 1.0\r\n" % sys.argv[2] + head
    + "Content-Type: text/plain\r\n\r\nthe innermost text\r\n" + tail)
PY
python3 - "$T_TMP/m-rfc822.eml" <<'PY'
import sys
open(sys.argv[1], "w").write("Subject: rfc822 all the way down\r\n"
    + "Content-Type: message/rfc822\r\n\r\n" * 3000 + "the end\r\n")
PY
n0=$(inbox)
$DOVE save -u "$R" -m INBOX <"$T_TMP/m-deep.eml"
$DOVE save -u "$R" -m INBOX <"$T_TMP/m-rfc822.eml"
ok "two nested messages in the INBOX" arrived $((n0 + 2))
r --sync >/dev/null 2>&1
deep=$((n0 + 1))
r --fetch $deep --part 1.1.1 >"$T_TMP/d1" 2>&1; rc=$?
ok "--fetch --part 1.1.1 of 50 nested multiparts: the fourth level's body" sh -c "tr -d '\r' <'$T_TMP/d1' | grep -qx -- --b3 && ! tr -d '\r' <'$T_TMP/d1' | grep -qx -- --b2 && [ $rc = 0 ] || { echo rc $rc; head -5 '$T_TMP/d1'; false; }"
r --fetch $deep --part 1.2 >"$T_TMP/d2" 2>&1; rc=$?
ok "--fetch --part 1.2 of it: no such part" sh -c "[ $rc != 0 ] && grep -q 'no part 1.2 in the message' '$T_TMP/d2' || { echo rc $rc; cat '$T_TMP/d2'; false; }"
p=1; for _ in $(seq 1 49); do p=$p.1; done
r --fetch $deep --part $p >"$T_TMP/d3" 2>&1; rc=$?
ok "--fetch of part 1.1...1 (50 levels): the innermost text" sh -c "[ $rc = 0 ] && grep -q '^the innermost text' '$T_TMP/d3' || { echo rc $rc; tail -3 '$T_TMP/d3' | cut -c1-200; false; }"
r --fetch $deep --part $p.1 >"$T_TMP/d5" 2>&1; rc=$?
ok "and one level further: no such part" sh -c "[ $rc != 0 ] && grep -q 'no part $p.1 in the message' '$T_TMP/d5' || { echo rc $rc; cut -c1-200 '$T_TMP/d5'; false; }"
r --fetch $((deep + 1)) --part 1.1.1 >"$T_TMP/d4" 2>&1; rc=$?
ok "--fetch --part 1.1.1 of 3000 nested message/rfc822: exits normally" sh -c "[ $rc -lt 128 ] && ! grep -qE '$SAN' '$T_TMP/d4' || { echo rc $rc; tail -3 '$T_TMP/d4' | cut -c1-200; false; }"
r --fetch $((deep + 1)) >/dev/null 2>&1; rc=$?
ok "and that message can still be fetched whole" test $rc = 0
r --fetch 999999 --part 1 >"$T_TMP/d6" 2>&1; rc=$?
ok "--fetch --part of a UID not in the folder: no such message" sh -c "[ $rc = 69 ] && grep -q 'no message with UID 999999' '$T_TMP/d6' || { echo rc $rc; cat '$T_TMP/d6'; false; }"

# A message that kills the process in the trust step: the next sync
# passes it by and completes. Two more from alice (m12 and m13, UIDs 14
# and 15), the first "fatal".
for i in 12 13; do
	sed -e "s/^Subject: poison [0-9]*/Subject: poison $i/" \
	    -e "s/^Message-ID: <poison-[0-9]*-/Message-ID: <poison-$i-/" \
	    -e "s/^poison [0-9]* body/poison $i body/" "$T_TMP/m2.eml" |
		sed '/^To:/c\To: '"$R"'\r' >"$T_TMP/m$i.eml"
	$DOVE save -u "$R" -m INBOX <"$T_TMP/m$i.eml"
done
ok "two more in the INBOX" arrived 15
STEEDMAIL_CRASH_AT=trust-uid-14 r --sync >"$T_TMP/s3" 2>&1; rc=$?
ok "a --sync killed while the trust step looks at UID 14" sh -c "[ $rc = 137 ] && ! grep -q 'trust:' '$T_TMP/s3' || { echo rc $rc; cut -c1-300 '$T_TMP/s3'; false; }"
STEEDMAIL_CRASH_AT=trust-uid-14 r --sync >"$T_TMP/s4" 2>&1; rc=$?
ok "the next --sync (same fault) passes UID 14 by and completes" sh -c "[ $rc = 0 ] && grep -q 'nothing changed' '$T_TMP/s4' && grep -qx 'steedmail: INBOX: trust: 1 message processed' '$T_TMP/s4' || { echo rc $rc; cut -c1-300 '$T_TMP/s4'; false; }"
r --sync >"$T_TMP/s5" 2>&1; rc=$?
ok "and the one after that has nothing left to do" sh -c "[ $rc = 0 ] && ! grep -q 'trust' '$T_TMP/s5' || { echo rc $rc; cut -c1-300 '$T_TMP/s5'; false; }"
r --inspect "$T_TMP/m12.eml" >"$T_TMP/i12" 2>&1; rc=$?
ok "UID 14 gets its state when it is opened" sh -c "[ $rc = 0 ] && grep -q '^trust.state: ' '$T_TMP/i12' && ! grep -qx 'trust.state: none' '$T_TMP/i12' || { cat '$T_TMP/i12'; false; }"
exit 0
