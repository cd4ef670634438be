# dns.sh: steedmail --lookup and --dns-records against the real NSD of the
# test environment: secure, insecure, bogus and denied answers, the
# lower-case fallback, the cache and its TTL, a server that never answers,
# many addresses at once, and publishing what --dns-records prints.
. "$(dirname "$0")/../lib.sh"

# conf FILE ACCOUNT-CONF GLOBAL-LINE...: ACCOUNT-CONF with global lines first.
conf() {
	_f=$1 _src=$2; shift 2
	{ printf '%s\n' "$@"; cat "$_src"; } >"$_f"
	chmod 600 "$_f"
}
conf "$T_TMP/alice.conf" "$STEED_ENV/alice.conf" "dns-config = $STEED_DNS_CONF"
conf "$T_TMP/bob.conf" "$STEED_ENV/bob.conf" "dns-config = $STEED_DNS_CONF"
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob.conf" "$@"; }
zs() { "$STEED_ENV_BIN/zone-set" "$@" >"$T_TMP/zs.out" 2>&1 || { cat "$T_TMP/zs.out" >&2; return 1; }; }
# field N: the Nth tab-separated field of the OPENPGPKEY line of $T_TMP/o.
field() { awk -F '\t' -v n="$1" '$2 == "OPENPGPKEY" { print $n; exit }' "$T_TMP/o"; }
hash() { printf '%s' "$1" | sha256sum | cut -c1-56; }
# rdata FILE: the "\# LEN HEX" of the first record line --dns-records printed.
rdata() { awk '!/^;/ { print $5, $6, $7; exit }' "$1"; }

# A fresh start even in a reused environment.
zs --delete steed.test "$(hash bob)._smimecert" TYPE53

# Bob makes his key and publishes what --dns-records prints.
bob --genkey >"$T_TMP/gen" 2>&1 || bail "bob --genkey failed: $(cat "$T_TMP/gen")"
bobfpr=$(awk '/^OpenPGP key/ { print $3; exit }' "$T_TMP/gen")
bob --dns-records >"$T_TMP/rec.bob" 2>"$T_TMP/err"
ok "--dns-records: exit 0, one commented record (local part already lower-case)" sh -c "[ $? = 0 ] && [ \$(grep -vc '^;' '$T_TMP/rec.bob') = 1 ] && grep -q '^; OPENPGPKEY for bob@steed.test, key $bobfpr' '$T_TMP/rec.bob'"
owner=$(awk '!/^;/ { print $1; exit }' "$T_TMP/rec.bob")
ok "--dns-records: the RFC 7929 owner name, TYPE61, generic RDATA" sh -c "[ '$owner' = '$(hash bob)._openpgpkey.steed.test.' ] && awk '!/^;/ { exit !(\$4 == \"TYPE61\" && \$5 == \"\\\\#\") }' '$T_TMP/rec.bob'"
ok "zone-set accepts the record" zs steed.test "$owner" TYPE61 "$(rdata "$T_TMP/rec.bob")"

alice --lookup bob@steed.test >"$T_TMP/o" 2>"$T_TMP/err"
rc=$?
ok "--lookup of a published key: exit 0, secure" sh -c "[ $rc = 0 ] && [ '$(field 3)' = secure ]"
ok "the fingerprint is bob's key, the TTL the zone's" sh -c "[ '$(field 5)' = '$bobfpr' ] && [ '$(field 4)' -gt 0 ] && [ '$(field 4)' -le 3600 ]"
ok "one line per type: SMIMEA none with secure denial" grep -qP '^bob@steed.test\tSMIMEA\tnone \(secure denial\)\t' "$T_TMP/o"
alice --lookup bob@steed.test >"$T_TMP/o" 2>&1
ok "asked again: answered from the cache" sh -c "[ '$(field 6)' = cached ] && [ '$(field 5)' = '$bobfpr' ]"

# Only the lower-cased owner exists: Bob@ finds it through the fallback.
alice --lookup Bob@steed.test >"$T_TMP/o" 2>&1
ok "Bob@steed.test: the lower-cased owner name is used" sh -c "[ '$(field 3)' = secure ] && [ '$(field 5)' = '$bobfpr' ] && grep -q 'lower-case' '$T_TMP/o'"

# An unsigned zone: insecure.
zs plain.test "$(hash carol)._openpgpkey" TYPE61 "$(rdata "$T_TMP/rec.bob")"
alice --lookup carol@plain.test >"$T_TMP/o" 2>&1
ok "a key in an unsigned zone is insecure (exit 0)" sh -c "[ $? = 0 ] && [ '$(field 3)' = insecure ] && [ '$(field 5)' = '$bobfpr' ]"

# A signed zone whose record is changed after signing: bogus.
zs broken.test "$(hash dave)._openpgpkey" TYPE61 "$(rdata "$T_TMP/rec.bob")"
zf=$STEED_ENV/dns/zones/broken.test.zone
awk -F '\t' -v OFS='\t' -v o="$(hash dave)._openpgpkey.broken.test." '
	tolower($1) == o && ($4 == "OPENPGPKEY" || $4 == "TYPE61") { $5 = "\\# 4 deadbeef" } { print }' "$zf" >"$zf.t" && mv "$zf.t" "$zf"
nsd-control -c "$STEED_ENV/dns/nsd.conf" reload broken.test >/dev/null 2>&1
sleep 0.5
alice --lookup dave@broken.test >"$T_TMP/o" 2>&1
rc=$?
ok "a record changed after signing is bogus, called a possible attack" sh -c "[ $rc = 0 ] && grep -qP '^dave@broken.test\tOPENPGPKEY\tbogus \\(possible attack: .+\\)\t0\t-$' '$T_TMP/o'"

alice --lookup nobody@steed.test >"$T_TMP/o" 2>&1
ok "no record in a signed zone: none, with secure denial" sh -c "[ '$(field 3)' = 'none (secure denial)' ] && [ '$(field 5)' = - ]"
alice --lookup nobody@plain.test >"$T_TMP/o" 2>&1
ok "no record in an unsigned zone: none, no proof" sh -c "[ '$(field 3)' = 'none' ]"

# A record that changes while cached: the cached answer until its TTL
# (10 s: enough for the change to be published on a busy machine).
alice --genkey >"$T_TMP/gen.a" 2>&1 || bail "alice --genkey failed"
alicefpr=$(awk '/^OpenPGP key/ { print $3; exit }' "$T_TMP/gen.a")
alice --dns-records >"$T_TMP/rec.alice" 2>&1
zs --ttl 10 steed.test "$(hash erin)._openpgpkey" TYPE61 "$(rdata "$T_TMP/rec.bob")"
alice --lookup erin@steed.test >"$T_TMP/o" 2>&1
cached_at=$(date +%s)
ok "short-TTL record: bob's key, TTL 10" sh -c "[ '$(field 5)' = '$bobfpr' ] && [ '$(field 4)' -le 10 ]"
zs --ttl 10 steed.test "$(hash erin)._openpgpkey" TYPE61 "$(rdata "$T_TMP/rec.alice")"
alice --lookup erin@steed.test >"$T_TMP/o" 2>&1
ok "changed in DNS, still cached: the old key, marked cached" sh -c "[ '$(field 5)' = '$bobfpr' ] && [ '$(field 6)' = cached ]"
wait_s=$(( cached_at + 11 - $(date +%s) ))
[ "$wait_s" -gt 0 ] && sleep "$wait_s"
alice --lookup erin@steed.test >"$T_TMP/o" 2>&1
ok "after the TTL: the new key" sh -c "[ '$(field 5)' = '$alicefpr' ] && [ '$(field 6)' = '' ]"

# Twenty addresses at once.
addrs=
for i in $(seq 1 20); do
	addrs="$addrs user$i@steed.test"
	[ $((i % 4)) = 0 ] && zs steed.test "$(hash "user$i")._openpgpkey" TYPE61 "$(rdata "$T_TMP/rec.alice")"
done
start=$(date +%s%N)
# shellcheck disable=SC2086
alice --lookup $addrs >"$T_TMP/o" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
diag "20 addresses, 40 lookups: $ms ms"
ok "20 addresses: exit 0, 40 lines, none failed" sh -c "[ $rc = 0 ] && [ \$(wc -l <'$T_TMP/o') = 40 ] && ! grep -qP '\t(timeout|error|servfail|bogus)' '$T_TMP/o'"
ok "20 addresses: the 5 published keys secure, the rest denied" sh -c "[ \$(grep -cP '\tOPENPGPKEY\tsecure\t' '$T_TMP/o') = 5 ] && [ \$(grep -cP '\tnone \(secure denial\)\t' '$T_TMP/o') = 35 ]"

# A server that takes queries and never answers (UDP and TCP).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 - "$port" <<'PY' >/dev/null 2>&1 &
import socket, sys, time
p = int(sys.argv[1])
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", p))
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.1", p)); t.listen(64); t.setblocking(False)
held = []
end = time.time() + 120
while time.time() < end:
    try:
        u.settimeout(0.05); u.recvfrom(4096)
    except Exception:
        pass
    try:
        held.append(t.accept())
    except Exception:
        pass
PY
blackhole=$!
sleep 0.3
cat >"$T_TMP/hole.unbound.conf" <<EOF
server:
	do-not-query-localhost: no
	local-zone: "test." nodefault
	trust-anchor-file: "$STEED_DNS_TA"
stub-zone:
	name: "steed.test"
	stub-addr: 127.0.0.1@$port
EOF
conf "$T_TMP/hole.conf" "$STEED_ENV/alice.conf" "dns-config = $T_TMP/hole.unbound.conf" "dns-timeout = 2"
start=$(date +%s%N)
XDG_CACHE_HOME="$T_TMP/hole-c" sm -F "$T_TMP/hole.conf" --lookup bob@steed.test user1@steed.test >"$T_TMP/o" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill "$blackhole" 2>/dev/null
diag "silent server: $ms ms"
ok "a server that never answers: timeout, exit 75" sh -c "[ $rc = 75 ] && [ \$(grep -cP '\ttimeout \(' '$T_TMP/o') = 4 ]"
ok "and within the deadline (dns-timeout 2 s, took $ms ms)" test "$ms" -lt 4000

# An upstream that strips DNSSEC (here NSD itself as the forwarder, with
# the root's key as anchor): one configuration problem, not attacks.
cat >"$T_TMP/fwd.unbound.conf" <<EOF
server:
	local-zone: "test." nodefault
EOF
conf "$T_TMP/fwd.conf" "$STEED_ENV/alice.conf" "dns-config = $T_TMP/fwd.unbound.conf" \
	"dns-forwarder = 127.0.0.1@$STEED_DNS_PORT" "dns-trust-anchor = /usr/share/dns/root.key" "dns-timeout = 4"
XDG_CACHE_HOME="$T_TMP/fwd-c" sm -F "$T_TMP/fwd.conf" --lookup bob@steed.test carol@plain.test >"$T_TMP/o" 2>"$T_TMP/err"
rc=$?
ok "a resolver without DNSSEC: said once, answers are errors, not bogus" sh -c "[ $rc = 69 ] && [ \$(grep -c 'does not pass DNSSEC' '$T_TMP/err') = 1 ] && ! grep -q bogus '$T_TMP/o' && grep -qP '^bob@steed.test\tOPENPGPKEY\terror \(your DNS resolver' '$T_TMP/o'"

# S/MIME: a certificate published as SMIMEA 3 0 0.
conf "$T_TMP/bobs.conf" "$STEED_ENV/bob.conf" "dns-config = $STEED_DNS_CONF"
printf 'smime = yes\n' >>"$T_TMP/bobs.conf"
bobs() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bobs-c" sm -F "$T_TMP/bobs.conf" "$@"; }
bobs --genkey >"$T_TMP/gen.s" 2>&1
certfpr=$(awk '/^S\/MIME certificate/ { print $3; exit }' "$T_TMP/gen.s")
bobs --dns-records >"$T_TMP/rec.s" 2>&1
ok "--dns-records with smime: an SMIMEA 3 0 0 record" sh -c "grep -q '^; SMIMEA for bob@steed.test, certificate $certfpr' '$T_TMP/rec.s' && grep -q ' IN TYPE53 \\\\# [0-9]* 030000' '$T_TMP/rec.s'"
sm_line=$(grep ' TYPE53 ' "$T_TMP/rec.s" | head -1)
ok "zone-set accepts the SMIMEA record" zs steed.test "$(echo "$sm_line" | awk '{print $1}')" TYPE53 "$(echo "$sm_line" | awk '{print $5, $6, $7}')"
bobs --lookup bob@steed.test >"$T_TMP/o" 2>&1
ok "SMIMEA lookup: secure, the certificate's fingerprint" grep -qP "^bob@steed.test\tSMIMEA\tsecure\t[0-9]+\tusage 3 cert $certfpr" "$T_TMP/o"

alice --lookup "not an address" >"$T_TMP/o" 2>&1
ok "a bad operand: exit 64" test $? = 64
