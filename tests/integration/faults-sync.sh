# faults-sync.sh: the connection to the real Dovecot drops, again and
# again, in the middle of a cold sync of 10,000 messages
# (tests/tools/faultproxy.py cuts it after some bytes from the server).
# A cold sync fetches the newest first and goes back: what the first run
# cut short kept are the newest messages, and the cache says how far down
# it came (lowuid). Every run keeps what it stored; the runs after go on
# from there, down as well as up; in the end the header cache holds each
# of the 10,000 messages exactly once: no gap, no duplicate, and --list
# shows them all.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
N=10000
USER_ADDR=faults-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"

"$STEED_ENV_BIN/add-user" "$USER_ADDR" faults-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home" || bail "cannot create $home"
python3 tests/bench/genmaildir.py "$home/Maildir" "$N" >/dev/null ||
	bail "the generator failed"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" ||
	bail "chown failed"

PLAN=$T_TMP/plan
PLOG=$T_TMP/proxy.log
python3 tests/tools/faultproxy.py "$STEED_IMAPS_PORT" "$PLAN" "$PLOG" \
    >"$T_TMP/port" &
proxy=$!
trap 'kill $proxy 2>/dev/null' EXIT
for i in $(seq 50); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
port=$(cat "$T_TMP/port")
[ -n "$port" ] || bail "the fault proxy did not start"

cat >"$T_TMP/f.conf" <<EOF2
ca-file = $STEED_CA_FILE

[account faults]
name = Faults
address = $USER_ADDR
imap = imaps://127.0.0.1:$port
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = faults-pw
EOF2
chmod 600 "$T_TMP/f.conf"
s() { XDG_CACHE_HOME="$T_TMP/cache" sm -F "$T_TMP/f.conf" "$@"; }
HCACHE=$T_TMP/cache/steedmail/faults.hcache

# Each connection takes the next line: the first five are cut after some
# hundred kB from the server (in the TLS handshake, the login, the middle
# of the FETCH answers), then they go through.
printf '%s\n' "cut down 3000" "cut down 250000" "cut down 400000" \
    "cut down 150000" "cut down 300000" >"$PLAN"
runs=0 done=
while [ "$runs" -lt 12 ]; do
	runs=$((runs + 1))
	if s --sync >"$T_TMP/sync.$runs" 2>&1; then
		done=$runs
		break
	fi
	sqlite3 -batch "$HCACHE" 'SELECT count(*) FROM message' \
	    >>"$T_TMP/kept" 2>/dev/null || echo 0 >>"$T_TMP/kept"
	sqlite3 -batch "$HCACHE" "SELECT count(*) || ' ' || min(m.uid) ||
	    ' ' || max(m.uid) || ' ' || b.lowuid FROM message m JOIN mailbox b
	    ON b.id = m.mailbox" >>"$T_TMP/span" 2>/dev/null
done
diag "rows, lowest and highest UID, lowuid after each: $(tr '\n' ',' <"$T_TMP/span")"
diag "kept after each cut-short run: $(tr '\n' ' ' <"$T_TMP/kept")"
diag "sync runs: $runs; proxy: $(grep -c dropped "$PLOG") connections dropped"
ok "the connection was cut five times" sh -c "[ \$(grep -c '^cut down .*: dropped' '$PLOG') = 5 ]"
cat "$T_TMP"/sync.* | sed "s/^/# /"
ok "a run cut short keeps what it stored: the next starts from there" \
    sh -c "sort -n -u '$T_TMP/kept' | cmp -s - '$T_TMP/kept' && [ \$(head -1 '$T_TMP/kept') -gt 0 ]"
first=$(awk '$1 > 0 { print; exit }' "$T_TMP/span")
set -- $first
ok "the first run that kept rows kept the newest: UID $N, not UID 1" \
    [ "${3:-}" = "$N" ] && [ "${2:-0}" -gt 1 ]
ok "... and the cache says how far down it came (lowuid ${4:-})" \
    [ "${4:-0}" -gt 1 ] && [ "${4:-0}" -le "${2:-0}" ]
ok "a sync completes in the end" [ -n "$done" ]
ok "... and nothing is left below (lowuid 0)" \
    [ "$(sqlite3 -batch "$HCACHE" 'SELECT lowuid FROM mailbox')" = 0 ]
ok "... and says it holds $N messages" grep -q "$N" "$T_TMP/sync.$runs"
ok "a sync cut short says so in plain words" \
    grep -qiE 'connection|lost|closed|server' "$T_TMP/sync.1"
count() { sqlite3 -batch "$HCACHE" "$1"; }
ok "the cache holds $N rows" [ "$(count 'SELECT count(*) FROM message')" = "$N" ]
ok "... each UID once" [ "$(count 'SELECT count(DISTINCT uid) FROM message')" = "$N" ]
ok "... with no gap: UIDs 1 to $N" [ "$(count 'SELECT min(uid) || " " || max(uid) FROM message')" = "1 $N" ]
ok "... and each message once (Message-IDs distinct)" \
    [ "$(count 'SELECT count(DISTINCT message_id) FROM message')" = "$N" ]
s --list >"$T_TMP/list" 2>&1
ok "--list shows $N messages" [ "$(wc -l <"$T_TMP/list")" = "$N" ]
ok "the database is whole (integrity_check)" \
    [ "$(count 'PRAGMA integrity_check')" = ok ]
s --sync >"$T_TMP/warm" 2>&1
ok "a warm sync afterwards is still right" sh -c "[ \$(sqlite3 -batch '$HCACHE' 'SELECT count(*) FROM message') = $N ]"

# Once more from a cold cache in batches of 1,000, so that the sync makes
# the UID, sender, subject and size indexes after its batches instead of during
# them (cache_index_defer()): cut four times in the middle of the FETCH
# answers, each run cut short makes them on its way out, and the run that
# completes leaves them there with every message cached once.
INDEXES="SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
    WHERE type = 'index' AND name IN ('message_from', 'message_subject',
    'message_size', 'message_uid') ORDER BY name)"
WANT="message_from message_size message_subject message_uid"
rm -f "$HCACHE" "$HCACHE-wal" "$HCACHE-shm"
printf '%s\n' "cut down 700000" "cut down 1200000" "cut down 900000" \
    "cut down 1500000" >"$PLAN"
cut0=$(grep -c '^cut down .*: dropped' "$PLOG")
runs=0 done= kept=0 missing=0 grew=1
while [ "$runs" -lt 12 ]; do
	runs=$((runs + 1))
	if STEEDMAIL_SYNC_BATCH=1000 s --sync -d 1 >"$T_TMP/small.$runs" 2>&1
	then
		done=$runs
		break
	fi
	now=$(count 'SELECT count(*) FROM message')
	[ "$now" -ge "$kept" ] || grew=0
	kept=$now
	[ "$(count "$INDEXES")" = "$WANT" ] || missing=$((missing + 1))
	diag "batches of 1000, run $runs cut short: $now rows, lowuid $(count 'SELECT lowuid FROM mailbox'), indexes: $(count "$INDEXES")"
done
ok "batches of 1000: the connection was cut four times" \
    sh -c "[ \$(grep -c '^cut down .*: dropped' '$PLOG') = $((cut0 + 4)) ]"
ok "... the indexes were made after the batches" \
    grep -q 'indexes made after them' "$T_TMP/cache/steedmail/debug.log"
ok "... every run cut short made them again on its way out" [ "$missing" = 0 ]
ok "... and kept what it stored" [ "$grew" = 1 ]
ok "... a sync completes in the end" [ -n "$done" ]
ok "... with the indexes there" [ "$(count "$INDEXES")" = "$WANT" ]
ok "... the cache holds $N rows, each UID once, 1 to $N" \
    [ "$(count 'SELECT count(*) || " " || count(DISTINCT uid) || " " || min(uid) || " " || max(uid) FROM message')" = "$N $N 1 $N" ]
ok "... the database is whole (integrity_check)" \
    [ "$(count 'PRAGMA integrity_check')" = ok ]
s --list --sort from >"$T_TMP/list-from" 2>&1
ok "... --list by sender shows $N messages" [ "$(wc -l <"$T_TMP/list-from")" = "$N" ]
