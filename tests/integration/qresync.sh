# qresync.sh: a warm sync with QRESYNC (RFC 7162), which the test Dovecot
# offers, against the same without it. After a cold --sync of 300
# messages, some are expunged and some flagged on the server: the next
# --sync learns both from its SELECT (the flags of what changed, the
# expunged UIDs as VANISHED), asks for no list of every UID and no flag
# of every message, and leaves the header cache as the server has it;
# with nothing changed it stops at the modseq. IDLE hears of an expunge
# as VANISHED too (the interface, in tmux: the row goes). Then the same
# server synced without QRESYNC (STEEDMAIL_NO_QRESYNC): the expunges
# from a SEARCH of every UID, read as it streams. Last, a second sync on
# a connection that has the folder selected still (as when IDLE wakes the
# interface's worker up) asks for no new SELECT.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
N=300
USER_ADDR=qresync-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"

"$STEED_ENV_BIN/add-user" "$USER_ADDR" qresync-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home" || bail "cannot create $home"
python3 tests/bench/genmaildir.py "$home/Maildir" "$N" >/dev/null ||
	bail "the generator failed"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" ||
	bail "chown failed"

cat >"$T_TMP/q.conf" <<EOF
ca-file = $STEED_CA_FILE
dns-config = $STEED_DNS_CONF

[account q]
name = Q
address = $USER_ADDR
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = qresync-pw
EOF
chmod 600 "$T_TMP/q.conf"
s() { sm -F "$T_TMP/q.conf" -d 3 "$@"; }
HCACHE=$XDG_CACHE_HOME/steedmail/q.hcache
LOG=$XDG_CACHE_HOME/steedmail/debug.log
q() { sqlite3 -batch "$HCACHE" "$1"; }

s --sync >"$T_TMP/cold" 2>&1
ok "a cold sync caches all $N" [ "$(q 'SELECT count(*) FROM message')" = "$N" ]

# on the server: 5 expunged (two of them next to each other), 3 flagged
$DOVE expunge -u "$USER_ADDR" mailbox INBOX uid 10,11,50,120,299 ||
	bail "doveadm expunge failed"
$DOVE flags add -u "$USER_ADDR" '\Flagged' mailbox INBOX uid 7,8,200 ||
	bail "doveadm flags failed"
: >"$LOG"
s --sync >"$T_TMP/warm" 2>&1
ok "the warm sync succeeds" grep -q "expunged" "$T_TMP/warm"
ok "... says 5 expunged and 3 flag updates" \
    grep -q "3 flag updates, 5 expunged" "$T_TMP/warm"
ok "... learnt them from its SELECT (QRESYNC, VANISHED)" \
    grep -q "QRESYNC: 3 flag updates, 5 vanished" "$LOG"
ok "... asked for no list of every UID" sh -c "! grep -q 'UID SEARCH' '$LOG'"
ok "... nor for the flags of every message" \
    sh -c "! grep -Eq 'UID FETCH 1:[0-9]+ \\(UID FLAGS\\)' '$LOG'"
ok "the cache holds $((N - 5)) rows" [ "$(q 'SELECT count(*) FROM message')" = "$((N - 5))" ]
ok "... not the expunged ones" [ "$(q 'SELECT count(*) FROM message WHERE uid IN (10,11,50,120,299)')" = 0 ]
ok "... the flagged ones flagged" [ "$(q "SELECT count(*) FROM message WHERE uid IN (7,8,200) AND flags LIKE '%F%'")" = 3 ]
: >"$LOG"
s --sync >"$T_TMP/again" 2>&1
ok "nothing changed: the next sync stops at the modseq" \
    grep -q "nothing changed" "$LOG"
s --list >"$T_TMP/list" 2>&1
ok "--list shows $((N - 5))" [ "$(wc -l <"$T_TMP/list")" = "$((N - 5))" ]

# IDLE: the interface open, a message expunged on the server
export TZ=UTC
H=$T_TMP/home
mkdir -p "$H"
cp -a "$XDG_CACHE_HOME" "$H/cache"
tui_start t env HOME="$H" XDG_DATA_HOME="$XDG_DATA_HOME" \
    XDG_CACHE_HOME="$H/cache" XDG_CONFIG_HOME="$H/config" LANG=C.UTF-8 \
    TZ=UTC "$STEEDMAIL" -F "$T_TMP/q.conf"
ok "the interface shows the folder" tui_wait t "INBOX  $((N - 5))/$((N - 5))" 30
sleep 2
$DOVE expunge -u "$USER_ADDR" mailbox INBOX uid 300 || bail "doveadm expunge failed"
ok "an expunge while it waits in IDLE: the row goes" \
    tui_wait t "INBOX  $((N - 6))/$((N - 6))" 60
tui_keys t q
tui_ended t 10 >/dev/null

# The same server synced as one without QRESYNC is (STEEDMAIL_NO_QRESYNC):
# a cold sync in batches, then expunges and flags on the server; the warm
# sync lists the server's UIDs (the SEARCH read as it streams) and the
# flags changed since the modseq (CONDSTORE), and leaves the cache as the
# server has it.
C2=$T_TMP/c2
mkdir -p "$C2"
n() { STEEDMAIL_NO_QRESYNC=1 XDG_CACHE_HOME="$C2" sm -F "$T_TMP/q.conf" -d 3 "$@"; }
q2() { sqlite3 -batch "$C2/steedmail/q.hcache" "$1"; }
LOG2=$C2/steedmail/debug.log
M=$((N - 6))
STEEDMAIL_SYNC_BATCH=50 n --sync >"$T_TMP/n-cold" 2>&1
ok "without QRESYNC: a cold sync in batches of 50 caches all $M" \
    [ "$(q2 'SELECT count(*) FROM message')" = "$M" ]
ok "... QRESYNC neither asked for nor on" sh -c "! grep -q 'ENABLE QRESYNC\|QRESYNC enabled' '$LOG2'"
# Each batch is asked for while the one two before it is still being
# answered (once no more than a batch is left to come), not after: the
# server has the next one to work on while the client reads.
ahead() {
	awk '/IMAP C: S[0-9]+ FETCH/ { sub(/.*IMAP C: S/, ""); c[$1 + 0] = NR }
	    /IMAP S: S[0-9]+ OK/ { sub(/.*IMAP S: S/, ""); s[$1 + 0] = NR }
	    END { for (k = 4; k in c; k++)
		if (!((k - 2) in s) || c[k] > s[k - 2]) exit 1
		exit k < 6 }' "$1"
}
ok "... each FETCH sent before the answer two before it ended" ahead "$LOG2"
$DOVE expunge -u "$USER_ADDR" mailbox INBOX uid 20,21,150,250 ||
	bail "doveadm expunge failed"
$DOVE flags add -u "$USER_ADDR" '\Seen' mailbox INBOX uid 30,31 ||
	bail "doveadm flags failed"
: >"$LOG2"
n --sync >"$T_TMP/n-warm" 2>&1
ok "without QRESYNC, the warm sync says 2 flag updates, 4 expunged" \
    grep -q "2 flag updates, 4 expunged" "$T_TMP/n-warm"
ok "... from a list of the server's UIDs, streamed (UID SEARCH UID 1:*)" \
    grep -q "IMAP C: U1 UID SEARCH UID 1:\*" "$LOG2"
ok "... and no VANISHED" sh -c "! grep -q 'VANISHED\|vanished' '$LOG2'"
ok "the cache holds $((M - 4)) rows" [ "$(q2 'SELECT count(*) FROM message')" = $((M - 4)) ]
ok "... not the expunged ones" [ "$(q2 'SELECT count(*) FROM message WHERE uid IN (20,21,150,250)')" = 0 ]
ok "... the flags of 30 and 31 as the server has them" \
    [ "$(q2 "SELECT count(*) FROM message WHERE uid IN (30,31) AND flags LIKE '%S%'")" = 2 ]
ok "... and the same rows as the cache synced with QRESYNC, less those four" \
    [ "$(q2 'SELECT group_concat(uid) FROM message ORDER BY uid')" = "$(q 'SELECT group_concat(uid) FROM message WHERE uid NOT IN (20,21,150,250,300) ORDER BY uid')" ]
: >"$LOG2"
n --sync >"$T_TMP/n-again" 2>&1
ok "nothing changed: the next sync stops at the modseq" grep -q "nothing changed" "$LOG2"

# The folder still selected on the connection, as when IDLE wakes up the
# interface's worker: the next sync asks for no new SELECT (it costs a
# large mailbox seconds, doc/bench.md) but for what changed since the
# cached modseq, over every UID, then for the new messages. Meanwhile on
# the server: 2 expunged, 2 answered, 3 new.
ST=$PWD/tests/tools/sessiontool
[ -x "$ST" ] || bail "tests/tools/sessiontool is not built"
LOG3=$T_TMP/st.log
printf 'From: New <new@example.net>\r\nSubject: new one\r\n\r\nhello\r\n' >"$T_TMP/new.eml"
change="$DOVE expunge -u $USER_ADDR mailbox INBOX uid 60,61 &&
$DOVE flags add -u $USER_ADDR '\\Answered' mailbox INBOX uid 62,63 &&
for i in 1 2 3; do $DOVE save -u $USER_ADDR -m INBOX <$T_TMP/new.eml || exit 1; done"
SESSIONTOOL_LOG=$LOG3 "$ST" "$T_TMP/q.conf" sync-again INBOX "$change" \
    >"$T_TMP/again2" 2>&1
status() { $DOVE -f flow mailbox status -u "$USER_ADDR" "$1" INBOX | sed 's/.*=//'; }
total=$(status messages)
ok "still selected: the second sync fetched 3, 2 flag updates, 2 expunged, $total in all" \
    grep -qx "again 3 2 2 $total" "$T_TMP/again2"
ok "... without a SELECT: what changed since the cached modseq" \
    grep -q "sync: INBOX selected already" "$LOG3"
ok "... the cache holds $total rows, as the server does" \
    [ "$(q 'SELECT count(*) FROM message')" = "$total" ]
ok "... not 60 and 61" [ "$(q 'SELECT count(*) FROM message WHERE uid IN (60,61)')" = 0 ]
ok "... 62 and 63 answered" \
    [ "$(q "SELECT count(*) FROM message WHERE uid IN (62,63) AND flags LIKE '%R%'")" = 2 ]
ok "... the 3 new ones" \
    [ "$(q "SELECT count(*) FROM message WHERE subject = 'new one'")" = 3 ]
ok "... its modseq the server's HIGHESTMODSEQ" \
    [ "$(q "SELECT highestmodseq FROM mailbox WHERE name = 'INBOX'")" = "$(status highestmodseq)" ]
: >"$LOG"
s --sync >"$T_TMP/after" 2>&1
ok "... so that a sync on a new connection stops at the modseq" \
    grep -q "nothing changed" "$LOG"
