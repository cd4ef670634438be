# faults-kill.sh: steedmail killed with SIGKILL at random moments, 50
# times, while a sync writes the header cache and its trust step writes
# the trust store (an INBOX of 3000 plain messages and 240 with Autocrypt
# headers from 24 senders, each with a key of their own). After every
# kill both databases open, PRAGMA integrity_check says ok, and the next
# run goes on; in the end a sync completes with every message cached once
# and every sender known to the trust store. A cold sync fetches the
# newest first: whatever a kill left holds the newest message. Then kills
# land on runs that go on from what the one before left (its resume
# point, lowuid, going down), and the last run completes it.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
PLAIN=3000
SENDERS=24
PER=10
KILLS=${STEED_KILLS:-50}
USER_ADDR=kill-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"

"$STEED_ENV_BIN/add-user" "$USER_ADDR" kill-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home" || bail "cannot create $home"
python3 tests/bench/genmaildir.py "$home/Maildir" "$PLAIN" >/dev/null ||
	bail "the generator failed"

# The senders' keys and their Autocrypt mail, written into the Maildir.
G=$T_TMP/senders
mkdir -p "$G" && chmod 700 "$G"
g() { gpg --homedir "$G" --batch --quiet --no-tty --pinentry-mode loopback \
    --passphrase '' "$@"; }
i=1
while [ "$i" -le "$SENDERS" ]; do
	g --quick-gen-key "Sender $i <s$i@example.net>" ed25519 default never ||
		bail "gpg could not make a key"
	g --export --export-options export-minimal "s$i@example.net" |
	    base64 -w 0 >"$T_TMP/kd.$i"
	i=$((i + 1))
done
gpgconf --homedir "$G" --kill all
python3 - "$home/Maildir/cur" "$T_TMP" "$SENDERS" "$PER" <<'PY' ||
import os, sys, time
cur, tmp, senders, per = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
t0 = int(time.time()) - 86400
for s in range(1, senders + 1):
    kd = open(os.path.join(tmp, "kd.%d" % s)).read().strip()
    folded = "\r\n ".join(kd[i:i + 72] for i in range(0, len(kd), 72))
    for k in range(per):
        n = s * 1000 + k
        msg = ("From: Sender %d <s%d@example.net>\r\n"
               "To: kill@steed.test\r\n"
               "Subject: autocrypt %d/%d\r\n"
               "Date: %s\r\n"
               "Message-ID: <ac-%d@example.net>\r\n"
               "Autocrypt: addr=s%d@example.net; prefer-encrypt=mutual; "
               "keydata=\r\n %s\r\n"
               "\r\nhello %d\r\n") % (
            s, s, s, k, time.strftime("%a, %d %b %Y %H:%M:%S +0000",
                                      time.gmtime(t0 + n)), n, s, folded, n)
        data = msg.encode()
        name = "%d.ac%d.steed:2," % (t0 + n, n)
        with open(os.path.join(cur, name), "wb") as f:
            f.write(data)
PY
	bail "the Autocrypt messages could not be written"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" ||
	bail "chown failed"
N=$((PLAIN + SENDERS * PER))

cat >"$T_TMP/k.conf" <<EOF2
ca-file = $STEED_CA_FILE
sync-trust-limit = 1000

[account kill]
name = Kill
address = $USER_ADDR
imap = imaps://localhost:$STEED_IMAPS_PORT
smtp = smtp://localhost:$STEED_SUBMISSION_PORT
password = kill-pw
EOF2
chmod 600 "$T_TMP/k.conf"
HCACHE=$XDG_CACHE_HOME/steedmail/kill.hcache
TRUST=$XDG_DATA_HOME/steedmail/trust.sqlite
s() { sm -F "$T_TMP/k.conf" "$@"; }

integrity() { [ ! -e "$1" ] || [ "$(sqlite3 -batch "$1" 'PRAGMA integrity_check' 2>&1)" = ok ]; }
# how long one run takes from a cold cache, so that the kills can land
# anywhere inside one
# (the quickest of two, after a first that also imports the senders' keys
# into gpg); a run that still ends before its kill makes the span shorter
s --sync >/dev/null 2>&1
span=
for _ in 1 2; do
	rm -f "$HCACHE" "$HCACHE-wal" "$HCACHE-shm"
	t0=$(date +%s%N)
	s --sync >/dev/null 2>&1
	t=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ -n "$span" ] && [ "$span" -le "$t" ] || span=$t
done
diag "$(date +%T) the mailbox is ready; a cold run takes about $span ms"
span=$((span * 8 / 10))
[ "$span" -ge 50 ] || span=50
bad=0 killed=0 done_runs=0 i=0
# until KILLS runs were killed in the middle (at most twice as many runs)
while [ "$killed" -lt "$KILLS" ] && [ "$i" -lt $((KILLS * 2)) ]; do
	i=$((i + 1))
	# a cold cache every time: the headers are written again, and the
	# trust step (whose resume point is in the cache) writes the store
	# again, so that every kill lands in the middle of writes
	rm -f "$HCACHE" "$HCACHE-wal" "$HCACHE-shm"
	# steedmail itself in the background (a shell function would be a
	# subshell, and the kill would miss it)
	"$STEEDMAIL" -F "$T_TMP/k.conf" --sync >"$T_TMP/run.$i" 2>&1 &
	pid=$!
	sleep "$(awk -v r="$RANDOM" -v span="$span" 'BEGIN { printf "%.3f", (20 + r % span) / 1000 }')"
	if kill -KILL "$pid" 2>/dev/null; then
		killed=$((killed + 1))
	else
		done_runs=$((done_runs + 1))
		span=$((span * 8 / 10))
		[ "$span" -ge 30 ] || span=30
	fi
	wait "$pid" 2>/dev/null
	if ! integrity "$HCACHE" || ! integrity "$TRUST"; then
		bad=$((bad + 1))
		diag "run $i: a database is damaged"
	fi
	# what a kill left: rows, the highest UID, how far down
	[ ! -e "$HCACHE" ] || sqlite3 -batch "$HCACHE" "SELECT count(*) ||
	    ' ' || coalesce(max(uid), 0) FROM message" >>"$T_TMP/left" \
	    2>/dev/null
done
top=$(awk '$1 > 0 { print $2 }' "$T_TMP/left" | sort -n | tail -1)
partial=$(awk -v n="$N" '$1 > 0 && $1 < n' "$T_TMP/left" | wc -l)
nottop=$(awk -v n="$N" -v top="$top" '$1 > 0 && $1 < n && $2 != top' "$T_TMP/left" | wc -l)
diag "$partial kills left part of the mailbox cached"
ok "every kill that left part of the mailbox left its newest message (UID $top)" \
    [ "$nottop" = 0 ]
diag "$i runs: $killed killed in the middle, $done_runs ended first (kills within $span ms at the end)"
ok "steedmail was killed $KILLS times in the middle of its work" [ "$killed" -ge "$KILLS" ]
ok "after every kill both databases pass integrity_check" [ "$bad" = 0 ]
diag "$(date +%T) the kills are over"
# kills on runs that go on from what the one before left, in batches of
# 500 (the UID, sender, subject and size indexes are then made after the
# batches: a kill leaves them out until a sync has come all the way down)
rm -f "$HCACHE" "$HCACHE-wal" "$HCACHE-shm"
INDEXES="SELECT count(*) FROM sqlite_master WHERE type = 'index' AND
    name IN ('message_from', 'message_subject', 'message_size',
    'message_uid')"
resumed=0 prev=0 grew=1 listed=1
for k in 1 2 3 4 5 6; do
	STEEDMAIL_SYNC_BATCH=500 "$STEEDMAIL" -F "$T_TMP/k.conf" --sync \
	    >"$T_TMP/resume.$k" 2>&1 &
	pid=$!
	sleep "$(awk -v r="$RANDOM" -v span="$span" 'BEGIN { printf "%.3f", (span / 3 + r % (span / 2 + 1)) / 1000 }')"
	kill -KILL "$pid" 2>/dev/null && resumed=$((resumed + 1))
	wait "$pid" 2>/dev/null
	now_rows=$(sqlite3 -batch "$HCACHE" 'SELECT count(*) FROM message' 2>/dev/null || echo 0)
	low=$(sqlite3 -batch "$HCACHE" 'SELECT lowuid FROM mailbox' 2>/dev/null)
	idx=$(sqlite3 -batch "$HCACHE" "$INDEXES" 2>/dev/null)
	diag "resumed run $k: $now_rows rows, lowuid ${low:-none}, ${idx:-no} of the 4 deferred indexes"
	[ "$now_rows" -ge "$prev" ] || grew=0
	prev=$now_rows
	# with or without them, the index by sender lists what is cached
	if [ -e "$HCACHE" ]; then
		n=$(s --offline --list --sort from 2>/dev/null | wc -l)
		[ "$n" = "$now_rows" ] || { listed=0; diag "--list --sort from: $n rows of $now_rows"; }
	fi
done
ok "runs killed one after another on one cache never lose rows" [ "$grew" = 1 ]
ok "... and --list by sender shows every row kept after each" [ "$listed" = 1 ]
ok "the next run completes" sh -c "STEEDMAIL_SYNC_BATCH=500 '$STEEDMAIL' -F '$T_TMP/k.conf' --sync"
ok "... with the UID, sender, subject and size indexes there" \
    [ "$(sqlite3 -batch "$HCACHE" "$INDEXES")" = 4 ]
ok "... and a sync after it completes too" s --sync
ok "the header cache holds each of the $N messages once" \
    sh -c "[ \"\$(sqlite3 -batch '$HCACHE' 'SELECT count(*) || \" \" || count(DISTINCT uid) FROM message')\" = '$N $N' ]"
ok "the trust store opens for --trust list and knows every sender" \
    sh -c "s() { '$STEEDMAIL' -F '$T_TMP/k.conf' \"\$@\"; }; [ \$(s --trust list | grep -c '^s[0-9]*@example.net') = $SENDERS ]"
ok "the trust store is whole" integrity "$TRUST"
