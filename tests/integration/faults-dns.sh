# faults-dns.sh: key lookups through a DNS relay that breaks them
# (tests/tools/dnsfault.py in front of the test NSD): SERVFAIL, no answer,
# a UDP answer truncated that must be asked again over TCP, signatures
# stripped, NXDOMAIN and NODATA without proof, in a signed and in an
# unsigned zone. Each is classified as doc/dns.md says. Mail to a
# recipient whose lookup fails never goes in clear for it, whatever the
# policy: no answer (or no resolver) keeps it in the outbox, a bogus one
# holds it (69). A held message is looked at again by --flush: while the
# zone answers bogus it stays, saying why; once it answers, it goes
# encrypted. After dns-wait it is given up (or, at a terminal, asked
# about, no by default), never sent in clear. A lookup that hangs does
# not hold the interface: q leaves at once.
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

# What a failed lookup does to mail for bob: never "no key", never in
# clear. No answer (servfail, a time-out) keeps the message in the outbox,
# whatever the policy; a bogus answer (NODATA without its proof) holds it:
# nothing is sent, exit 69.
send() {	# send CONF MODE: exit status into $T_TMP/rc, output in $T_TMP/s
	n=$((n + 1))
	echo "$2" >"$MODE"
	echo "body $2" | XDG_DATA_HOME="$T_TMP/alice.$n" XDG_CACHE_HOME="$T_TMP/c.$n" \
	    sm -F "$T_TMP/$1.conf" -s "dns fault $2 $1 $$" bob@steed.test \
	    >"$T_TMP/s" 2>&1
	echo $? >"$T_TMP/rc"
	diag "send $1 $2: exit $(cat "$T_TMP/rc"): $(cat "$T_TMP/s")"
}
# held_in DIR: the outbox under DIR holds one message, held (a draft and
# why, no message to submit), the draft encrypted to alice's own key.
held_in() {
	_o=$1/steedmail/outbox
	[ "$(ls "$_o" | grep -c '\.env$')" = 1 ] && [ "$(ls "$_o" | grep -c '\.held$')" = 1 ] &&
	    [ "$(ls "$_o" | grep -c '\.msg$')" = 0 ] && grep -q 'BEGIN PGP MESSAGE' "$_o"/*.draft &&
	    ! grep -q 'body ' "$_o"/*.draft && return 0
	ls -l "$_o"; cat "$_o"/*.held; return 1
}
for m in servfail drop; do
	st=$m; [ "$m" = drop ] && st=timeout
	for c in always refuse a; do
		send "$c" "$m"
		ok "$m, $c: not sent, held in the outbox (exit 0), the failure named" \
		    sh -c "[ \$(cat '$T_TMP/rc') = 0 ] && grep -q '^steedmail: queued, not sent: waits for DNS: no answer for bob@steed.test ($st); it is never sent in clear because DNS failed' '$T_TMP/s' && ! grep -q 'sent in clear:' '$T_TMP/s'"
		ok "... the outbox holds it, encrypted to alice" held_in "$T_TMP/alice.$n"
	done
done
for c in always refuse a; do
	send "$c" nodata
	ok "nodata (bogus), $c: nothing sent (exit 69), the forged answer named" \
	    sh -c "[ \$(cat '$T_TMP/rc') = 69 ] && grep -q 'the DNS answer for.*forged (possible attack)' '$T_TMP/s' && ! grep -q 'sent in clear' '$T_TMP/s'"
	ok "... nothing in the outbox" sh -c "! ls '$T_TMP/alice.$n/steedmail/outbox' 2>/dev/null | grep -q env"
done

# No resolver at all (an unbound.conf it cannot read): no answer either.
printf 'server:\n\tno-such-option: yes\n' >"$T_TMP/broken.unbound.conf"
conf "$T_TMP/nores.conf" "$STEED_ENV/alice.conf" \
    "dns-config = $T_TMP/broken.unbound.conf" "dns-timeout = 2"
send nores pass
ok "no resolver: held in the outbox (exit 0), and why no lookup could be made" \
    sh -c "[ \$(cat '$T_TMP/rc') = 0 ] && grep -q '^steedmail: queued, not sent: waits for DNS: no answer for bob@steed.test (error); no DNS lookup can be made: dns-config ' '$T_TMP/s'"
ok "... the outbox holds it" held_in "$T_TMP/alice.$n"

# --- held, looked at again, sent encrypted -------------------------------------
# A message to bob while his lookups get no answer; then his zone answers
# bogus (its DNSSEC broken between the send and the flush); then properly.
H=$T_TMP/held
hsm() { XDG_DATA_HOME="$H" XDG_CACHE_HOME="$H-c" sm -F "$T_TMP/a.conf" "$@"; }
bob_count() { bob --list INBOX 2>/dev/null | grep -c .; }
before=$(bob_count)
echo drop >"$MODE"
echo "the held body $$" | hsm -s "held $$" bob@steed.test >"$T_TMP/h0" 2>&1
echo $? >"$T_TMP/h0.rc"
ok "DNS silent: -s holds the message (exit 0)" sh -c "[ \$(cat '$T_TMP/h0.rc') = 0 ] && grep -q 'waits for DNS: no answer for bob@steed.test (timeout)' '$T_TMP/h0'"
ok "... in the outbox, encrypted to alice" held_in "$H"
echo nodata >"$MODE"
hsm --flush >"$T_TMP/h1" 2>&1
echo $? >"$T_TMP/h1.rc"
diag "flush, bogus: exit $(cat "$T_TMP/h1.rc"): $(cat "$T_TMP/h1")"
ok "DNSSEC broken now: --flush looks again, keeps it and says why (75)" \
    sh -c "[ \$(cat '$T_TMP/h1.rc') = 75 ] && grep -q ': held: the DNS answer for bob@steed.test was forged (possible attack); held since .*; it stays in the outbox' '$T_TMP/h1'"
ok "... still held" held_in "$H"
ok "... and bob got nothing" [ "$(bob_count)" = "$before" ]
ok "... the reason is kept with it" grep -q '^why held: the DNS answer for bob@steed.test was forged' "$H"/steedmail/outbox/*.held
echo pass >"$MODE"
hsm --flush >"$T_TMP/h2" 2>&1
echo $? >"$T_TMP/h2.rc"
diag "flush, secure: exit $(cat "$T_TMP/h2.rc"): $(cat "$T_TMP/h2")"
ok "a valid answer: --flush sends it, encrypted (exit 0)" \
    sh -c "[ \$(cat '$T_TMP/h2.rc') = 0 ] && grep -q ': encrypted to 1 recipient; sent and saved in Sent' '$T_TMP/h2'"
ok "... the outbox is empty" sh -c "[ -z \"\$(ls '$H/steedmail/outbox' | grep -v '^failed$')\" ]"
for _ in $(seq 1 40); do [ "$(bob_count)" -gt "$before" ] && break; sleep 0.25; done
uid=$(bob --list INBOX 2>/dev/null | cut -f1 | sort -n | tail -1)
bob --fetch "${uid:-0}" INBOX >"$T_TMP/held.eml" 2>/dev/null
bob --view "$T_TMP/held.eml" >"$T_TMP/held.view" 2>&1
ok "bob gets it encrypted, and decrypts the text" sh -c "grep -q 'BEGIN PGP MESSAGE' '$T_TMP/held.eml' && ! grep -q 'the held body' '$T_TMP/held.eml' && grep -q 'the held body $$' '$T_TMP/held.view'"

# --- waited too long: given up, never in clear --------------------------------------
conf "$T_TMP/w.conf" "$STEED_ENV/alice.conf" \
    "dns-config = $T_TMP/fault.unbound.conf" "dns-timeout = 2" "dns-wait = 2"
W=$T_TMP/waited
# without a controlling terminal: nobody can be asked
wsm() { XDG_DATA_HOME="$W" XDG_CACHE_HOME="$W-c" setsid -w "$STEEDMAIL" -F "$T_TMP/w.conf" "$@" </dev/null; }
before=$(bob_count)
echo servfail >"$MODE"
echo "too late $$" | XDG_DATA_HOME="$W" XDG_CACHE_HOME="$W-c" sm -F "$T_TMP/w.conf" \
    -s "late $$" bob@steed.test >"$T_TMP/w0" 2>&1
ok "dns-wait = 2: held, the line says for how long" grep -q 'steedmail --flush looks again, for 2 seconds (dns-wait)' "$T_TMP/w0"
wsm --flush >"$T_TMP/w1" 2>&1
echo $? >"$T_TMP/w1.rc"
ok "--flush within dns-wait: still held (75)" sh -c "[ \$(cat '$T_TMP/w1.rc') = 75 ] && grep -q 'held since' '$T_TMP/w1'"
sleep 3
wsm --flush >"$T_TMP/w2" 2>&1
echo $? >"$T_TMP/w2.rc"
diag "after dns-wait: exit $(cat "$T_TMP/w2.rc"): $(cat "$T_TMP/w2")"
ok "after dns-wait, nobody to ask: given up (69), why said, never in clear" \
    sh -c "[ \$(cat '$T_TMP/w2.rc') = 69 ] && grep -q ': not sent: waits for DNS: no answer for bob@steed.test (servfail), for 2 seconds (dns-wait); it is never sent in clear for want of a DNS answer; the message is kept in .*/failed/' '$T_TMP/w2'"
ok "... the outbox keeps it in failed/, with its draft" sh -c "[ -z \"\$(ls '$W/steedmail/outbox' | grep -v '^failed$')\" ] && ls '$W/steedmail/outbox/failed' | grep -q '\\.eml$' && ls '$W/steedmail/outbox/failed' | grep -q '\\.draft$'"
ok "... and bob got nothing" [ "$(bob_count)" = "$before" ]

# The same with somebody at the terminal: asked, and Enter is no.
A=$T_TMP/asked
echo "asked $$" | XDG_DATA_HOME="$A" XDG_CACHE_HOME="$A-c" sm -F "$T_TMP/w.conf" \
    -s "asked $$" bob@steed.test >"$T_TMP/a0" 2>&1
sleep 3
TUI_COLS=200 tui_start ask env XDG_DATA_HOME="$A" XDG_CACHE_HOME="$A-c" "$STEEDMAIL" -F "$T_TMP/w.conf" --flush
ok "--flush at a terminal after dns-wait: asked, no by default" tui_wait ask "send it in clear? A message to bob@steed.test has waited 2 seconds: waits for DNS: no answer for bob@steed.test (servfail) [y/N]" 20
tui_keys ask Enter
st=$(tui_ended ask 20)
ok "... Enter: given up (69), not sent" [ "${st:-}" = 69 ]
ok "... kept in failed/" sh -c "ls '$A/steedmail/outbox/failed' | grep -q '\\.eml$'"
ok "... and bob got nothing" [ "$(bob_count)" = "$before" ]
# ... and y sends it in clear, as agreed
Y=$T_TMP/agreed
echo "agreed $$" | XDG_DATA_HOME="$Y" XDG_CACHE_HOME="$Y-c" sm -F "$T_TMP/w.conf" \
    -s "agreed $$" bob@steed.test >"$T_TMP/y0" 2>&1
sleep 3
TUI_COLS=200 tui_start yes env XDG_DATA_HOME="$Y" XDG_CACHE_HOME="$Y-c" "$STEEDMAIL" -F "$T_TMP/w.conf" --flush
tui_wait yes "send it in clear? A message to bob@steed.test" 20 >/dev/null
tui_keys yes y Enter
st=$(tui_ended yes 30)
ok "... y: sent (0)" [ "${st:-}" = 0 ]
ok "... in clear, as agreed, and said" tui_wait yes "sent in clear, as you agreed: waits for DNS: no answer for bob@steed.test (servfail); sent and saved in Sent"
for _ in $(seq 1 40); do [ "$(bob_count)" -gt "$before" ] && break; sleep 0.25; done
uid=$(bob --list INBOX 2>/dev/null | cut -f1 | sort -n | tail -1)
bob --fetch "${uid:-0}" INBOX >"$T_TMP/agreed.eml" 2>/dev/null
ok "... bob gets it in clear" sh -c "grep -q 'agreed $$' '$T_TMP/agreed.eml' && ! grep -q 'BEGIN PGP MESSAGE' '$T_TMP/agreed.eml' || { cat '$T_TMP/agreed.eml'; false; }"

# The interface: the security line's lookup hangs (no answer, a long
# time-out); q, y (discard) and q leave at once, status 0, without
# waiting for it.
conf "$T_TMP/slow.conf" "$STEED_ENV/alice.conf" \
    "dns-config = $T_TMP/fault.unbound.conf" "dns-timeout = 30" "autoedit = yes"
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
