# faults-dns.sh: key lookups through a DNS relay that breaks them
# (tests/tools/dnsfault.py in front of the test NSD): SERVFAIL, no answer,
# a UDP answer truncated that must be asked again over TCP, signatures
# stripped, NXDOMAIN and NODATA without proof, in a signed and in an
# unsigned zone. Each is classified as doc/dns.md says; and when a lookup
# fails, mail to that recipient goes in clear only where the policy allows
# it, and then says why; with encrypt = always or fallback = refuse
# nothing is sent. A lookup that hangs does not hold the interface: q
# leaves at once.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_DNS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
conf() {
	_f=$1 _src=$2; shift 2
	{ printf '%s\n' "$@"; cat "$_src"; } >"$_f"
	chmod 600 "$_f"
}
zs() { "$STEED_ENV_BIN/zone-set" "$@" >"$T_TMP/zs.out" 2>&1 || { cat "$T_TMP/zs.out" >&2; return 1; }; }
hash() { printf '%s' "$1" | sha256sum | cut -c1-56; }

# bob's key, published in the signed zone (taken out again at the end)
conf "$T_TMP/bob.conf" "$STEED_ENV/bob.conf" "dns-config = $STEED_DNS_CONF"
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob.conf" "$@"; }
bob --genkey >"$T_TMP/gen" 2>&1 || bail "bob --genkey failed"
bob --dns-records >"$T_TMP/rec" 2>&1 || bail "bob --dns-records failed"
owner=$(awk '!/^;/ { print $1; exit }' "$T_TMP/rec")
zs steed.test "$owner" TYPE61 "$(awk '!/^;/ { print $5, $6, $7; exit }' "$T_TMP/rec")" ||
	bail "zone-set failed"
trap 'zs --delete steed.test "$owner" TYPE61; kill $relay 2>/dev/null; tui_cleanup' EXIT

MODE=$T_TMP/mode
RLOG=$T_TMP/relay.log
python3 tests/tools/dnsfault.py "$STEED_DNS_PORT" "$MODE" "$RLOG" >"$T_TMP/port" &
relay=$!
for i in $(seq 50); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
port=$(head -1 "$T_TMP/port")
[ -n "$port" ] || bail "dnsfault did not start"
cat >"$T_TMP/fault.unbound.conf" <<EOF2
server:
	do-not-query-localhost: no
	local-zone: "test." nodefault
	trust-anchor-file: "$STEED_DNS_TA"
stub-zone:
	name: "steed.test"
	stub-addr: 127.0.0.1@$port
stub-zone:
	name: "plain.test"
	stub-addr: 127.0.0.1@$port
EOF2
conf "$T_TMP/a.conf" "$STEED_ENV/alice.conf" \
    "dns-config = $T_TMP/fault.unbound.conf" "dns-timeout = 2"
conf "$T_TMP/always.conf" "$STEED_ENV/alice.conf" \
    "dns-config = $T_TMP/fault.unbound.conf" "dns-timeout = 2" "encrypt = always"
conf "$T_TMP/refuse.conf" "$STEED_ENV/alice.conf" \
    "dns-config = $T_TMP/fault.unbound.conf" "dns-timeout = 2" "fallback = refuse"
# each lookup with a DNS cache of its own: what is asked is asked afresh
n=0
look() {	# look MODE ADDRESS: the OPENPGPKEY status field into $T_TMP/st
	n=$((n + 1))
	echo "$1" >"$MODE"
	XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/c.$n" \
	    sm -F "$T_TMP/a.conf" --lookup "$2" >"$T_TMP/o.$n" 2>&1
	awk -F '\t' '$2 == "OPENPGPKEY" { print $3; exit }' "$T_TMP/o.$n" >"$T_TMP/st"
	diag "$1 $2: $(cat "$T_TMP/st")"
}
st() { cat "$T_TMP/st"; }

look pass bob@steed.test
ok "through the relay untouched: secure" [ "$(st)" = secure ]
look servfail bob@steed.test
ok "SERVFAIL: servfail, not none" sh -c "case '$(st)' in servfail*) exit 0;; esac; exit 1"
look drop bob@steed.test
ok "no answer: timeout, not none" sh -c "case '$(st)' in timeout*) exit 0;; esac; exit 1"
: >"$RLOG"
look truncate bob@steed.test
ok "a truncated UDP answer is asked again over TCP: secure" [ "$(st)" = secure ]
ok "... the relay saw the TCP query" grep -q '^tcp truncate' "$RLOG"
look strip bob@steed.test
ok "signatures stripped: refused (servfail or bogus), never a key or none" \
    sh -c "case '$(st)' in servfail*|bogus*) exit 0;; esac; exit 1"
look nxdomain bob@steed.test
ok "NXDOMAIN without proof in a signed zone: bogus, not none" sh -c "case '$(st)' in bogus*) exit 0;; esac; exit 1"
look nodata bob@steed.test
ok "NODATA without proof in a signed zone: bogus, not none" sh -c "case '$(st)' in bogus*) exit 0;; esac; exit 1"
look nxdomain carol@plain.test
ok "NXDOMAIN in an unsigned zone: none, without a proof of it" [ "$(st)" = none ]
look nodata carol@plain.test
ok "NODATA in an unsigned zone: none, without a proof of it" [ "$(st)" = none ]

# What a failed lookup does to mail for bob.
send() {	# send CONF MODE: exit status into $T_TMP/rc, output in $T_TMP/s
	n=$((n + 1))
	echo "$2" >"$MODE"
	echo "body $2" | XDG_DATA_HOME="$T_TMP/alice.$n" XDG_CACHE_HOME="$T_TMP/c.$n" \
	    sm -F "$T_TMP/$1.conf" -s "dns fault $2 $1 $$" bob@steed.test \
	    >"$T_TMP/s" 2>&1
	echo $? >"$T_TMP/rc"
	diag "send $1 $2: exit $(cat "$T_TMP/rc"): $(cat "$T_TMP/s")"
}
for m in servfail drop nodata; do
	send always "$m"
	ok "$m, encrypt = always: nothing sent (exit 69), the DNS answer named" \
	    sh -c "[ \$(cat '$T_TMP/rc') = 69 ] && grep -qiE 'DNS lookup failed|bogus' '$T_TMP/s'"
	send refuse "$m"
	ok "$m, fallback = refuse: nothing sent (exit 69)" \
	    sh -c "[ \$(cat '$T_TMP/rc') = 69 ] && ! grep -q 'sent in clear' '$T_TMP/s'"
	send a "$m"
	ok "$m, the defaults: in clear only with the reason said" \
	    sh -c "[ \$(cat '$T_TMP/rc') != 0 ] || grep -qiE 'sent in clear.*(DNS lookup failed|bogus)' '$T_TMP/s'"
done

# The interface: the security line's lookup hangs (no answer, a long
# time-out); q, y (discard) and q leave at once, status 0, without
# waiting for it.
conf "$T_TMP/slow.conf" "$STEED_ENV/alice.conf" \
    "dns-config = $T_TMP/fault.unbound.conf" "dns-timeout = 30"
printf '#!/bin/sh\necho "a line" >>"$1"\n' >"$T_TMP/editor"
chmod +x "$T_TMP/editor"
echo drop >"$MODE"
tui_start q env LANG=C.UTF-8 VISUAL= EDITOR="$T_TMP/editor" TMPDIR="$T_TMP" \
    XDG_DATA_HOME="$T_TMP/tq" XDG_CACHE_HOME="$T_TMP/tq-c" \
    "$STEEDMAIL" -F "$T_TMP/slow.conf"
tui_wait q "sort: date" 30 >/dev/null || bail "the index did not open"
tui_keys q m
tui_wait q "| compose" >/dev/null
tui_keys q t; tui_type q "bob@steed.test"; tui_keys q Enter
ok "a lookup with no answer: the security line says it is looking" tui_wait q "looking up..."
tui_keys q q; tui_wait q "discard this message?" >/dev/null; tui_keys q y
tui_wait q "sort: date" >/dev/null
t0=$(date +%s)
tui_keys q q
st=$(tui_ended q 15)
t1=$(date +%s)
diag "q took $((t1 - t0)) s, status ${st:-none}"
ok "q leaves while the lookup still waits, with status 0" [ "${st:-}" = 0 ]
ok "... at once, not after the lookup's time-out" [ $((t1 - t0)) -le 8 ]
ok "... with nothing on standard error" sh -c "! grep -v 'can be read by others' '$T_TMP/tui-q.err' | grep -q ."
