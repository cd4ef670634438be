# dns-senders.sh: the trust step of --sync looks the senders of signed mail
# up in DNS (OPENPGPKEY) against the real NSD of the test environment.
# Three senders sign mail to a new user, none with an Autocrypt header, so
# DNS is the only place their keys can come from: sam publishes his key in
# the signed zone steed.test (his message ends dns-confirmed, --list says
# so), pat in the unsigned plain.test (first contact, the key sighted as
# dns-insecure), dan in broken.test, where the record is changed after
# signing (bogus: the address is marked, shown by --list, --trust show and
# --inspect, and the key is not imported). A secure answer for dan later
# clears the mark. A DNS server that never answers costs the sync at most
# dns-timeout, one warning, and records nothing.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
DOVE="doveadm -c $STEED_DOVECOT_CONF"
R=ds-$$@steed.test
"$STEED_ENV_BIN/add-user" "$R" ds-pw || bail "add-user failed"

# conf FILE [GLOBAL-LINE...]: a configuration for the new user.
conf() {
	_f=$1; shift
	{ echo "ca-file = $STEED_CA_FILE"; [ $# -gt 0 ] && printf '%s\n' "$@"
	  printf '\n[account ds]\nname = DNS Senders\naddress = %s\n' "$R"
	  echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
	  echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
	  echo "password = ds-pw"; } >"$_f"
	chmod 600 "$_f"
}
conf "$T_TMP/r.conf" "dns-config = $STEED_DNS_CONF"
# r DIR ARGS: the user, with data and cache under $T_TMP/DIR.
r() {
	_p=$1; shift
	XDG_DATA_HOME="$T_TMP/$_p" XDG_CACHE_HOME="$T_TMP/$_p-c" sm -F "${RCONF:-$T_TMP/r.conf}" "$@"
}
G=$T_TMP/senders
RH=$T_TMP/r/steedmail/gnupg
trap 'for h in "$G" "$RH" "$T_TMP/hole/steedmail/gnupg" "$T_TMP/ctl/steedmail/gnupg"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; kill "${hole_pid:-}" 2>/dev/null; rm -rf "$T_TMP"' EXIT
mkdir -m 700 "$G"
sgpg() { gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase '' "$@"; }
zs() { "$STEED_ENV_BIN/zone-set" "$@" >"$T_TMP/zs.out" 2>&1 || { cat "$T_TMP/zs.out" >&2; return 1; }; }
hash() { printf '%s' "$1" | sha256sum | cut -c1-56; }
# fpr UID: the fingerprint of the (first) key with that user ID.
fpr() { sgpg --with-colons -k "=$1" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'; }
# rdata FPR: the key, minimal, as generic RDATA "\# LEN HEX".
rdata() {
	sgpg --export-options export-minimal --export "$1" >"$T_TMP/k.bin"
	printf '\\# %s %s' "$(wc -c <"$T_TMP/k.bin" | tr -d ' ')" "$(od -An -v -tx1 "$T_TMP/k.bin" | tr -d ' \n')"
}
u=$$-$(date +%s)

for who in "Sam <sam@steed.test>" "Pat <pat@plain.test>" "Dan <dan@broken.test>" "Not Dan <dan@broken.test>"; do
	sgpg --quick-gen-key "$who" future-default default 1y >/dev/null 2>&1 || bail "no key for $who"
done
sam=$(fpr "Sam <sam@steed.test>")
pat=$(fpr "Pat <pat@plain.test>")
dan=$(fpr "Dan <dan@broken.test>")
notdan=$(fpr "Not Dan <dan@broken.test>")
[ -n "$sam" ] && [ -n "$pat" ] && [ -n "$dan" ] && [ -n "$notdan" ] || bail "keys not made"

# signed N FROM FPR: a PGP/MIME message signed by FPR into $T_TMP/N.eml.
signed() {
	_body=$(printf 'Content-Type: text/plain; charset=utf-8\r\n\r\nfrom %s, %s' "$2" "$u")
	printf '%s' "$_body" | sgpg -u "$3" --armor --detach-sign --digest-algo SHA256 >"$T_TMP/$1.sig" || return 1
	{ printf 'From: %s\r\nTo: %s\r\nSubject: %s %s\r\nMessage-ID: <%s-%s@dns-senders.test>\r\n' "$2" "$R" "$1" "$u" "$1" "$u"
	  printf 'Date: %s\r\nMIME-Version: 1.0\r\n' "$(date -R)"
	  printf 'Content-Type: multipart/signed; micalg=pgp-sha256; protocol="application/pgp-signature"; boundary="b-%s"\r\n\r\n' "$u"
	  printf -- '--b-%s\r\n%s\r\n--b-%s\r\nContent-Type: application/pgp-signature\r\n\r\n' "$u" "$_body" "$u"
	  sed 's/$/\r/' "$T_TMP/$1.sig"; printf -- '--b-%s--\r\n' "$u"; } >"$T_TMP/$1.eml"
}
put() { $DOVE save -u "$R" -m INBOX <"$T_TMP/$1.eml"; }
# ends WORD TAIL: the --list line ($T_TMP/list) of the message with subject
# "WORD $u" ends in a tab and TAIL ("" for no field after the subject).
ends() {
	grep -P "\t$1 $u(\t|\$)" "$T_TMP/list" >"$T_TMP/line" || { echo "no line for $1"; cat "$T_TMP/list"; return 1; }
	if [ -z "$2" ]; then
		awk -F '\t' 'NF != 5 { exit 1 }' "$T_TMP/line"
	else
		awk -F '\t' -v t="$2" 'NF != 6 || $6 != t { exit 1 }' "$T_TMP/line"
	fi || { cat "$T_TMP/line"; return 1; }
}

# Publish: sam securely, pat insecurely, dan in broken.test, where the
# record is then replaced by another key's behind the signatures.
ok "sam's key goes into the signed zone steed.test" zs steed.test "$(hash sam)._openpgpkey" TYPE61 "$(rdata "$sam")"
ok "pat's key goes into the unsigned zone plain.test" zs plain.test "$(hash pat)._openpgpkey" TYPE61 "$(rdata "$pat")"
ok "dan's key goes into broken.test" zs broken.test "$(hash dan)._openpgpkey" TYPE61 "$(rdata "$dan")"
zf=$STEED_ENV/dns/zones/broken.test.zone
awk -F '\t' -v OFS='\t' -v o="$(hash dan)._openpgpkey.broken.test." -v r="$(rdata "$notdan")" '
	tolower($1) == o && ($4 == "OPENPGPKEY" || $4 == "TYPE61") { $5 = r } { print }' "$zf" >"$zf.t" && mv "$zf.t" "$zf"
nsd-control -c "$STEED_ENV/dns/nsd.conf" reload broken.test >/dev/null 2>&1
# bogus_now N: a fresh resolver and cache says dan's answer is bogus.
bogus_now() {
	XDG_CACHE_HOME="$T_TMP/probe-$1" sm -F "$T_TMP/r.conf" --lookup dan@broken.test 2>/dev/null |
		grep -q "	OPENPGPKEY	bogus"
}
for i in $(seq 1 50); do bogus_now "$i" && break; sleep 0.1; done
ok "dan's answer is bogus now" bogus_now last

signed sam "Sam <sam@steed.test>" "$sam" && put sam
signed pat "Pat <pat@plain.test>" "$pat" && put pat
signed dan "Dan <dan@broken.test>" "$dan" && put dan

r r --sync >"$T_TMP/s1" 2>&1 </dev/null
rc=$?
ok "--sync: exit 0, no warning about DNS" sh -c "[ $rc = 0 ] && ! grep -q 'DNS' '$T_TMP/s1' || { cat '$T_TMP/s1'; false; }"
r r --list >"$T_TMP/list" 2>&1

# sam: secure, so his message is dns-confirmed, and --list says so.
r r --inspect "$T_TMP/sam.eml" >"$T_TMP/i-sam" 2>&1
ok "sam's message is dns-confirmed" sh -c "grep -qx 'trust.state: dns-confirmed' '$T_TMP/i-sam' && grep -qx 'trust.fpr: $sam' '$T_TMP/i-sam' || { cat '$T_TMP/i-sam'; false; }"
ok "--list: sam's line ends in dns-confirmed" ends sam dns-confirmed
r r --trust show sam@steed.test >"$T_TMP/t-sam" 2>&1
ok "--trust show sam: his key, pinned, from dns-secure, no bogus line" sh -c "grep -qx 'state: dns-confirmed' '$T_TMP/t-sam' && grep -q '^key: $sam openpgp accepted; from dns-secure;.*; 1 signed message, .*; pinned' '$T_TMP/t-sam' && ! grep -q '^dns:' '$T_TMP/t-sam' || { cat '$T_TMP/t-sam'; false; }"

# pat: insecure, a hint only: first contact by his signature, sighted too.
r r --inspect "$T_TMP/pat.eml" >"$T_TMP/i-pat" 2>&1
ok "pat's message stays first contact" sh -c "grep -qx 'trust.state: first-contact' '$T_TMP/i-pat' && grep -qx 'trust.fpr: $pat' '$T_TMP/i-pat' || { cat '$T_TMP/i-pat'; false; }"
r r --trust show pat@plain.test >"$T_TMP/t-pat" 2>&1
ok "--trust show pat: the key was sighted as dns-insecure" sh -c "grep -q '^key: $pat openpgp accepted; from dns-insecure;' '$T_TMP/t-pat' && grep -qx 'state: known' '$T_TMP/t-pat' || { cat '$T_TMP/t-pat'; false; }"
ok "--list: pat's line has no DNS word" ends pat ""

# dan: bogus. Marked, shown, nothing taken from it.
ok "--list: dan's line ends in dns-bogus" ends dan dns-bogus
r r --trust show dan@broken.test >"$T_TMP/t-dan" 2>&1
ok "--trust show dan: DNS answer bogus, the date and the owner name" sh -c "grep -qx 'dns: DNS answer bogus ($(date -u +%Y-%m-%d), $(hash dan)._openpgpkey.broken.test)' '$T_TMP/t-dan' || { cat '$T_TMP/t-dan'; false; }"
ok "... and no key of dan's in the store" sh -c "! grep -q '^key:' '$T_TMP/t-dan' || { cat '$T_TMP/t-dan'; false; }"
ok "neither of dan's keys is in the user's GnuPG home" sh -c "! gpg --homedir '$RH' --batch -k '$dan' >/dev/null 2>&1 && ! gpg --homedir '$RH' --batch -k '$notdan' >/dev/null 2>&1"
r r --inspect "$T_TMP/dan.eml" >"$T_TMP/i-dan" 2>&1
ok "--inspect of dan's message: the evidence names the bogus answer" sh -c "grep -q '^trust.evidence: .*the last DNS answer for the sender.s key was bogus' '$T_TMP/i-dan' || { cat '$T_TMP/i-dan'; false; }"
ok "... and it is not dns-confirmed" sh -c "! grep -qx 'trust.state: dns-confirmed' '$T_TMP/i-dan'"

# dan's record made whole again (zone-set re-signs): the next signed
# message from him is looked up again, secure, and the mark goes.
ok "dan's record is published properly" zs broken.test "$(hash dan)._openpgpkey" TYPE61 "$(rdata "$dan")"
signed dan2 "Dan <dan@broken.test>" "$dan" && put dan2
r r --sync >"$T_TMP/s2" 2>&1 </dev/null
r r --list >"$T_TMP/list" 2>&1
ok "after a secure answer, dan's new message is dns-confirmed" ends dan2 dns-confirmed
ok "... and the bogus mark is gone from his lines" sh -c "! grep -q dns-bogus '$T_TMP/list'"
r r --trust show dan@broken.test >"$T_TMP/t-dan2" 2>&1
ok "--trust show dan: no bogus line, the history has both" sh -c "! grep -q '^dns:' '$T_TMP/t-dan2' && grep -q '^history: .* the DNS answer for the key .* is bogus' '$T_TMP/t-dan2' && grep -q '^history: .* validates again (secure)' '$T_TMP/t-dan2' || { cat '$T_TMP/t-dan2'; false; }"

# A DNS server that takes queries and never answers (UDP and TCP).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 - "$port" <<'PY' >/dev/null 2>&1 &
import socket, sys, time
port = int(sys.argv[1])
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("127.0.0.1", port))
udp.settimeout(0.05)
tcp = socket.socket()
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("127.0.0.1", port))
tcp.listen(16)
tcp.setblocking(False)
kept = []
stop = time.time() + 120
while time.time() < stop:
    try:
        udp.recvfrom(4096)
    except OSError:
        pass
    try:
        kept.append(tcp.accept())
    except OSError:
        pass
PY
hole_pid=$!
sleep 0.3
{ printf 'server:\n\tdo-not-query-localhost: no\n\tlocal-zone: "test." nodefault\n\ttrust-anchor-file: "%s"\n' "$STEED_DNS_TA"
  for z in steed.test plain.test broken.test; do printf 'stub-zone:\n\tname: "%s"\n\tstub-addr: 127.0.0.1@%s\n' "$z" "$port"; done; } >"$T_TMP/hole.unbound.conf"
conf "$T_TMP/hole.conf" "dns-config = $T_TMP/hole.unbound.conf" "dns-timeout = 2"
# The yardstick: the same cold sync (a new data and cache directory), DNS
# answering.
start=$(date +%s%N)
r ctl --sync >"$T_TMP/s-ctl" 2>&1 </dev/null
base_ms=$(( ($(date +%s%N) - start) / 1000000 ))
diag "a cold --sync with DNS answering took $base_ms ms"
start=$(date +%s%N)
RCONF=$T_TMP/hole.conf r hole --sync >"$T_TMP/s3" 2>&1 </dev/null
rc=$?
hole_ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill "$hole_pid" 2>/dev/null
diag "the same cold --sync against a silent DNS server took $hole_ms ms"
ok "a silent DNS server: the sync succeeds, with one warning" sh -c "[ $rc = 0 ] && [ \$(grep -c 'not looked up in DNS' '$T_TMP/s3') = 1 ] && grep -qx 'steedmail: warning: INBOX: trust: the keys of 3 senders were not looked up in DNS: .*' '$T_TMP/s3' || { cat '$T_TMP/s3'; false; }"
# The deadline, plus room for a machine shared with other tests.
ok "... and costs about the deadline (2 s) more than one that answers" test "$hole_ms" -lt $((base_ms + 2000 + 2000))
RCONF=$T_TMP/hole.conf r hole --trust show sam@steed.test >"$T_TMP/t-hole" 2>&1
RCONF=$T_TMP/hole.conf r hole --trust show dan@broken.test >>"$T_TMP/t-hole" 2>&1
RCONF=$T_TMP/hole.conf r hole --list >"$T_TMP/list" 2>&1
ok "... and records nothing: no DNS sighting, no bogus mark, no DNS word" sh -c "! grep -q 'dns-secure\|dns-insecure\|^dns:' '$T_TMP/t-hole' && ! grep -q 'dns-' '$T_TMP/list' || { cat '$T_TMP/t-hole' '$T_TMP/list'; false; }"
