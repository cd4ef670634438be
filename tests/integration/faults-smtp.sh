# faults-smtp.sh: the connection to the real Postfix drops after the
# message's final dot, before the server's reply (tests/tools/
# faultproxy.py lets everything the client sends through and withholds
# the answer, over TLS). The server has the message; steedmail cannot
# know it. doc/sending.md says which way it errs: the message is treated
# as not sent, it stays in the outbox and goes again with the next flush,
# so that it is never lost, at the cost of a possible second copy. This
# test holds steedmail to that, and to saying it plainly.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_SUBMISSIONS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
PLAN=$T_TMP/plan
PLOG=$T_TMP/proxy.log
python3 tests/tools/faultproxy.py "$STEED_SUBMISSIONS_PORT" "$PLAN" "$PLOG" \
    >"$T_TMP/port" &
proxy=$!
trap 'kill $proxy 2>/dev/null' EXIT
for i in $(seq 50); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
port=$(cat "$T_TMP/port")
[ -n "$port" ] || bail "the fault proxy did not start"
sed "s|^smtp = .*|smtp = smtps://localhost:$port|" "$STEED_ENV/alice.conf" \
    >"$T_TMP/a.conf"
chmod 600 "$T_TMP/a.conf"
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/a.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$STEED_ENV/bob.conf" "$@"; }
count() { "$1" --list "$2" 2>/dev/null | grep -cF -- "$3"; }
arrives() {
	for _ in $(seq 1 30); do
		[ "$(count "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.5
	done
	echo "expected $4 message(s) '$3' in $1's $2; found $(count "$1" "$2" "$3")"
	return 1
}
queued() { ls "$T_TMP/alice/steedmail/outbox/" 2>/dev/null | grep -c '\.env$'; }

u=$$-$(date +%s)
{ echo "a message whose acceptance is never heard"
  head -c 150000 /dev/urandom | base64; } >"$T_TMP/body"
# the body is about 200 kB: once 180 kB went up, the answer is withheld
echo "cutreply up 180000" >"$PLAN"
alice -s "dot $u" --no-encrypt bob@steed.test <"$T_TMP/body" >"$T_TMP/o" 2>&1
rc=$?
diag "exit $rc: $(tr '\n' ' ' <"$T_TMP/o")"
ok "the proxy withheld the server's answer" grep -q '^cutreply up 180000: dropped' "$PLOG"
ok "steedmail says it is queued, that it may have arrived, and that it goes again" \
    sh -c "[ $rc = 0 ] && grep -q 'queued: ' '$T_TMP/o' && grep -q 'may have arrived' '$T_TMP/o' && grep -q 'stays in the outbox' '$T_TMP/o'"
ok "... it is still queued" [ "$(queued)" = 1 ]
ok "the server had it: bob has one copy" arrives bob INBOX "dot $u" 1
ok "no copy in Sent yet: nothing was confirmed" sh -c "[ \$(XDG_DATA_HOME='$T_TMP/alice' XDG_CACHE_HOME='$T_TMP/alice-c' '$STEEDMAIL' -F '$T_TMP/a.conf' --list Sent 2>/dev/null | grep -cF 'dot $u') = 0 ]"
alice --flush >"$T_TMP/f" 2>&1
ok "the next flush sends it again and empties the outbox" \
    sh -c "[ \$? = 0 ] && [ \$(ls '$T_TMP/alice/steedmail/outbox/' | grep -c '\.env$') = 0 ]"
ok "... so bob has a second copy: a duplicate, never a loss" arrives bob INBOX "dot $u" 2
ok "... and Sent has it once" arrives alice Sent "dot $u" 1
