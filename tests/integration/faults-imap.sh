# faults-imap.sh: the connection to the real Dovecot drops in the middle
# of what changes the mailbox (tests/tools/faultproxy.py between them):
# the APPEND of a sent message to Sent and a MOVE with the server's answer
# withheld (the server did it, steedmail cannot know), a flag change whose
# answer never comes, and an IDLE cut while it waits. Nothing is lost or
# doubled: an APPEND that may have happened is looked for by Message-ID
# before it is repeated, a MOVE tried again whose message has left its
# mailbox is found done by its Message-ID in the destination; IDLE
# connects again by itself and sees the mail that came meanwhile.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
PLAN=$T_TMP/plan
PLOG=$T_TMP/proxy.log
python3 tests/tools/faultproxy.py "$STEED_IMAPS_PORT" "$PLAN" "$PLOG" \
    >"$T_TMP/port" &
proxy=$!
trap 'kill $proxy 2>/dev/null' EXIT
for i in $(seq 50); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
port=$(cat "$T_TMP/port")
[ -n "$port" ] || bail "the fault proxy did not start"
sed "s|^imap = .*|imap = imaps://localhost:$port|" "$STEED_ENV/alice.conf" \
    >"$T_TMP/a.conf"
chmod 600 "$T_TMP/a.conf"
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/a.conf" "$@"; }
# alice straight to Dovecot, to see what the server holds
direct() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-d" sm -F "$STEED_ENV/alice.conf" "$@"; }
count() { direct --list "$1" 2>/dev/null | grep -cF -- "$2"; }
plan() { printf '%s\n' "$@" >"$PLAN"; : >"$PLOG"; }
dropped() { grep -q ': dropped' "$PLOG"; }
u=$$-$(date +%s)
# upbytes: the bytes steedmail sent on the last connection through the
# proxy. A command run once with "pass" tells how many bytes the same
# command sends in all; its last two TLS records are LOGOUT and the
# close alert (about 57 bytes), so holding the answers once all but the
# last 70 bytes went up holds the answer to the command itself.
upbytes() { sed -n 's/.* after up \([0-9]*\) down .*/\1/p' "$PLOG" | tail -1; }

# --- APPEND to Sent: the server stores it, its OK never comes
{ echo "a sent message"; head -c 150000 /dev/urandom | base64; } >"$T_TMP/body"
plan "cutreply up 150000"
alice -s "append $u" --no-encrypt bob@steed.test <"$T_TMP/body" >"$T_TMP/o" 2>&1
rc=$?
diag "send, APPEND cut: exit $rc: $(tr '\n' ' ' <"$T_TMP/o")"
ok "the APPEND's answer was withheld and the connection dropped" dropped
alice --flush >"$T_TMP/f" 2>&1
alice --flush >>"$T_TMP/f" 2>&1
ok "after the next flushes the outbox is empty" \
    sh -c "[ -z \"\$(ls '$T_TMP/alice/steedmail/outbox/' | grep '\.env$')\" ]"
ok "Sent holds the message once, not twice" [ "$(count Sent "append $u")" = 1 ]

# --- MOVE: done by the server, the answer withheld
echo "to move" | direct -s "move $u" --no-encrypt alice@steed.test >/dev/null 2>&1
for i in $(seq 30); do [ "$(count INBOX "move $u")" = 1 ] && break; sleep 0.5; done
alice --sync >/dev/null 2>&1
uid=$(alice --list 2>/dev/null | awk -v s="move $u" 'index($0, s) { print $1; exit }')
[ -n "$uid" ] || bail "the message to move did not arrive"
echo "calibration" | direct -s "calm $u" --no-encrypt alice@steed.test >/dev/null 2>&1
for i in $(seq 30); do [ "$(count INBOX "calm $u")" = 1 ] && break; sleep 0.5; done
alice --sync >/dev/null 2>&1
cuid=$(alice --list 2>/dev/null | awk -v s="calm $u" 'index($0, s) { print $1; exit }')
plan pass
alice --move "$cuid" Trash >/dev/null 2>&1
n=$(( $(upbytes) - 70 ))
plan "cutreply up $n"
alice --move "$uid" Trash >"$T_TMP/m" 2>&1
rc=$?
diag "move, answer withheld: exit $rc: $(tr '\n' ' ' <"$T_TMP/m")"
ok "the move whose answer was lost is found done (its Message-ID in Trash): exit 0" \
    [ "$rc" = 0 ]
alice --sync >/dev/null 2>&1
ok "the message is in Trash once" [ "$(count Trash "move $u")" = 1 ]
ok "... and no longer in INBOX" [ "$(count INBOX "move $u")" = 0 ]
ok "alice's cache agrees: not in her INBOX" \
    sh -c "! XDG_DATA_HOME='$T_TMP/alice' XDG_CACHE_HOME='$T_TMP/alice-c' '$STEEDMAIL' -F '$T_TMP/a.conf' --list INBOX 2>/dev/null | grep -qF 'move $u'"

# --- a flag change whose answer never comes
echo "to flag" | direct -s "flag $u" --no-encrypt alice@steed.test >/dev/null 2>&1
for i in $(seq 30); do [ "$(count INBOX "flag $u")" = 1 ] && break; sleep 0.5; done
alice --sync >/dev/null 2>&1
uid=$(alice --list 2>/dev/null | awk -v s="flag $u" 'index($0, s) { print $1; exit }')
[ -n "$uid" ] || bail "the message to flag did not arrive"
echo "calibration" | direct -s "calf $u" --no-encrypt alice@steed.test >/dev/null 2>&1
for i in $(seq 30); do [ "$(count INBOX "calf $u")" = 1 ] && break; sleep 0.5; done
alice --sync >/dev/null 2>&1
cuid=$(alice --list 2>/dev/null | awk -v s="calf $u" 'index($0, s) { print $1; exit }')
plan pass
alice --flag "$cuid" +F >/dev/null 2>&1
n=$(( $(upbytes) - 70 ))
plan "cutreply up $n" "cutreply up $n"
alice --flag "$uid" +F >"$T_TMP/fl" 2>&1
rc=$?
diag "flag, answers withheld: exit $rc: $(tr '\n' ' ' <"$T_TMP/fl")"
ok "the flag change is kept (the cache shows it flagged)" \
    sh -c "XDG_DATA_HOME='$T_TMP/alice' XDG_CACHE_HOME='$T_TMP/alice-c' '$STEEDMAIL' -F '$T_TMP/a.conf' --list 2>/dev/null | grep -F 'flag $u' | grep -q 'F'"
plan pass
alice --sync >"$T_TMP/s" 2>&1
ok "the next run sends it: the server has the message flagged" \
    sh -c "direct() { XDG_DATA_HOME='$T_TMP/alice' XDG_CACHE_HOME='$T_TMP/alice-e' '$STEEDMAIL' -F '$STEED_ENV/alice.conf' \"\$@\"; }; direct --sync >/dev/null 2>&1; direct --list | grep -F 'flag $u' | awk '{ print \$2 }' | grep -q F"

# --- IDLE cut while it waits; new mail comes meanwhile
plan "cuttime 3"
alice --idle --timeout 40 >"$T_TMP/idle" 2>&1 &
idle=$!
sleep 5
echo "while idle" | direct -s "idle $u" --no-encrypt alice@steed.test >/dev/null 2>&1
for i in $(seq 100); do kill -0 "$idle" 2>/dev/null || break; sleep 0.3; done
kill "$idle" 2>/dev/null
wait "$idle" 2>/dev/null
diag "idle: $(tr '\n' ' ' <"$T_TMP/idle")"
ok "the IDLE connection was cut" dropped
ok "IDLE came back by itself and saw the new mail" grep -q 'new mail' "$T_TMP/idle"
