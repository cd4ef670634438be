# tui-large.sh: the index of a large INBOX (STEED_LARGE_N, 100,000
# messages) in the curses interface, in tmux at 80x24 against the test
# Dovecot, from an empty header cache: the first screen that shows any
# message shows the newest (a cold sync fetches the newest first), the
# rest comes behind it, the thread sort and a limit by sender answer,
# new mail delivered while it waits in IDLE shows up, and the process's
# peak memory (VmHWM) stays under STEED_LARGE_MB (64) MB through all of it.
# Under CI (CI=true: a sanitizer build, with a time limit for the whole
# suite) the INBOX has 20,000 messages unless STEED_LARGE_N says. In a
# sanitizer build AddressSanitizer keeps freed memory in a quarantine
# (256 MB unless told), which counts in the peak however little is alive
# at once: the quarantine is cut to 32 MB and the bound is 256 MB.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
if [ "${CI:-}" = true ]; then N=${STEED_LARGE_N:-20000}; else N=${STEED_LARGE_N:-100000}; fi
ASAN=
if nm "$STEEDMAIL" 2>/dev/null | grep -q __asan_init; then
	MB=${STEED_LARGE_MB:-256}
	ASAN="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=32"
else
	MB=${STEED_LARGE_MB:-64}
fi
NEW=100
USER_ADDR=large-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"

"$STEED_ENV_BIN/add-user" "$USER_ADDR" large-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home" || bail "cannot create $home"
python3 tests/bench/genmaildir.py "$home/Maildir" "$N" >/dev/null ||
	bail "the generator failed"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" ||
	bail "chown failed"
$DOVE index -u "$USER_ADDR" INBOX || bail "doveadm index failed"
diag "$(date +%T) $N messages in the INBOX"

cat >"$T_TMP/large.conf" <<EOF
ca-file = $STEED_CA_FILE
dns-config = $STEED_DNS_CONF

[account large]
name = Large
address = $USER_ADDR
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = large-pw
EOF
chmod 0600 "$T_TMP/large.conf"
H=$T_TMP/home
mkdir -p "$H"
tui_start l env ${ASAN:+"$ASAN"} HOME="$H" XDG_DATA_HOME="$H/data" \
    XDG_CACHE_HOME="$H/cache" XDG_CONFIG_HOME="$H/config" LANG=C.UTF-8 \
    TZ=UTC "$STEEDMAIL" \
    -F "$T_TMP/large.conf"
# the pane runs a shell script; steedmail is its child
ppid_=$(tui_tmux display -p -t l '#{pane_pid}')
pid=
for _ in $(seq 50); do
	pid=$(pgrep -n -P "$ppid_" 2>/dev/null) && [ -n "$pid" ] && break
	sleep 0.1
done
[ -n "$pid" ] || bail "steedmail did not start"
hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status"; }

# the first screen with any message on it, as soon as there is one
first=
i=0
while [ $i -lt 600 ]; do
	tui_capture l >"$T_TMP/first"
	if grep -Eq "INBOX  [0-9]+/[1-9]" "$T_TMP/first"; then
		first=1
		break
	fi
	sleep 0.05
	i=$((i + 1))
done
ok "a first screen of messages came" [ -n "$first" ]
shown=$(sed -n 's/.*INBOX  [0-9]*\/\([0-9]*\).*/\1/p' "$T_TMP/first")
diag "the first screen came with ${shown:-?} of $N messages cached"
ok "... it shows the newest message (#$N), not the oldest" \
    grep -q "#$N\$\|#$N " "$T_TMP/first"
ok "the whole INBOX comes behind it" tui_wait l "INBOX  $N/$N" 120
ok "... the newest still on the screen" tui_wait l "#$N" 10
diag "$(date +%T) all cached; VmHWM $(hwm) kB"

tui_keys l End
tui_keys l o
ok "the sort prompt" tui_wait l "Sort by" 10
tui_type l thread
tui_keys l Enter
ok "the thread sort: the status says so" tui_wait l "sort: thread" 30
ok "... and its rows come (the stored thread order, made on a thread of its own)" \
    tui_wait_re l "INBOX  [0-9]+/$N  sort: thread" 60
tui_keys l o
tui_wait l "Sort by" 10
tui_type l date
tui_keys l Enter
tui_wait l "sort: date" 10
before=$(hwm)

# new mail while it waits in IDLE
python3 - "$home/Maildir/new" "$N" "$NEW" <<'PY' || bail "delivery failed"
import os, sys, time
new, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = int(time.time())
for i in range(n + 1, n + k + 1):
    msg = ("From: Late Sender <late@example.org>\n"
           "To: Bench <bench@steed.test>\n"
           "Subject: arrived in IDLE #%d\n"
           "Date: %s\n"
           "Message-ID: <late.%d@example.org>\n\nlate %d\n") % (
        i, time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(t + i)),
        i, i)
    tmp = os.path.join(os.path.dirname(new), "tmp", "%d.late%d.steed" % (t, i))
    with open(tmp, "w") as f:
        f.write(msg)
    os.rename(tmp, os.path.join(new, "%d.late%d.steed" % (t, i)))
PY
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$home/Maildir" || bail "chown failed"
total=$((N + NEW))
ok "the $NEW messages delivered show up while it waits" \
    tui_wait l "/$total" 90
tui_keys l l
ok "the limit prompt" tui_wait l "Limit to" 10
tui_type l "~f ada.lovelace"
tui_keys l Enter
ok "a limit by sender: the status counts what matches" \
    tui_wait_re l "INBOX  [0-9]+/[0-9]+ of $total .*limit: ~f ada.lovelace" 30
tui_capture l >"$T_TMP/limited"
ok "... and the rows are Ada Lovelace's" grep -q "Ada Lovelace" "$T_TMP/limited"
ok "... nobody else's" sh -c "! grep -E '(Boris|Chen|Dana) ' '$T_TMP/limited'"
after=$(hwm)
diag "VmHWM before the new mail $before kB, after $after kB"
ok "peak memory through it all under $MB MB ($after kB)" \
    [ "$after" -le $((MB * 1024)) ]
tui_keys l q
tui_ended l 10 >/dev/null
ok "no sanitizer report on its standard error" \
    sh -c "! grep -qE 'runtime error|Sanitizer' '$T_TMP/tui-l.err'"
