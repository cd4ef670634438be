#!/bin/bash
# tests/bench/idle.sh: the load part of `make bench` (see doc/bench.md).
# The curses interface sits in IDLE on an INBOX of BENCH_IDLE_N (100000)
# messages; BENCH_IDLE_NEW (1000) new ones are delivered into the Maildir
# in bursts while it waits, the last 50 of each round from 10 senders with
# Autocrypt headers (keys of their own), so that the trust step has work;
# in BENCH_IDLE_ROUNDS (4) rounds, so that what the first one leaves and
# what each later one adds can be told apart.
# Measured from outside (tmux at 80x24): the time until the index shows
# them all, the resident and peak memory (VmRSS, VmHWM of /proc) before
# and after the delivery; checked: the header cache holds every new
# message once, in UID order, and the trust store knows the 10 senders.
# Prints a markdown table. Missed expectations are reported, not failed:
# the exit status is non-zero only when something could not be measured.
#
# Environment: BENCH_IDLE_N, BENCH_IDLE_NEW, BENCH_IDLE_ROUNDS, BENCH_LIMIT (seconds per
# step, 300), BENCH_OUT (the report is appended to this file),
# BENCH_KEEP=1 (keep the temporary directory and the environment),
# BENCH_IMAP_VSZ (the imap processes' address space limit from 500,000
# messages on, 4G, as in tests/bench/mailbox.sh).

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
STEEDMAIL=$ROOT/steedmail
GEN=$ROOT/tests/bench/genmaildir.py
N=${BENCH_IDLE_N:-100000}
NEW=${BENCH_IDLE_NEW:-1000}
ROUNDS=${BENCH_IDLE_ROUNDS:-4}
LIMIT=${BENCH_LIMIT:-300}
USER_ADDR=idle@steed.test
USER_PASS=idle-pw
SENDERS=10
SOCK=steedidle.$$

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
for v in "$N" "$NEW" "$ROUNDS" "$LIMIT"; do
	case $v in ''|*[!0-9]*|0) die "BENCH_IDLE_* and BENCH_LIMIT must be positive numbers, not '$v'" ;; esac
done
[ $((NEW / ROUNDS)) -ge 50 ] || die "BENCH_IDLE_NEW / BENCH_IDLE_ROUNDS must be at least 50"
for p in python3 doveadm tmux gpg sqlite3; do
	command -v "$p" >/dev/null 2>&1 || die "$p is missing (contrib/install-deps)"
done
[ -x "$STEEDMAIL" ] || die "build first: make steedmail (or make bench)"

T=$(mktemp -d /tmp/steedidle.XXXXXX) || die "mktemp failed"
ENVDIR=
cleanup() {
	trap - EXIT INT TERM HUP
	tmux -L "$SOCK" kill-server >/dev/null 2>&1
	[ -d "$T/g" ] && gpgconf --homedir "$T/g" --kill all 2>/dev/null
	if [ -n "$ENVDIR" ]; then
		if [ "${BENCH_KEEP:-}" = 1 ]; then
			STEED_ENV_KEEP=1 "$ROOT/tests/env/run" stop "$ENVDIR" >/dev/null 2>&1
		else
			"$ROOT/tests/env/run" stop "$ENVDIR" >/dev/null 2>&1
		fi
	fi
	if [ "${BENCH_KEEP:-}" = 1 ]; then say "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

say "starting the test environment"
# Dovecot's imap process needs more than the environment's address space
# limit for the first FETCH of a Maildir this large (as tests/bench/run).
if [ "$N" -ge "${BENCH_LARGE:-500000}" ]; then
	export STEED_ENV_IMAP_VSZ_LIMIT="${BENCH_IMAP_VSZ:-4G}"
fi
out=$("$ROOT/tests/env/run" start) || die "tests/env/run start failed"
ENVDIR=$(printf '%s\n' "$out" | tail -n 1)
# shellcheck disable=SC1091
. "$ENVDIR/env.sh" || die "no env.sh in $ENVDIR"
DOVEADM="doveadm -c $STEED_DOVECOT_CONF"
"$STEED_ENV_BIN/add-user" "$USER_ADDR" "$USER_PASS" || die "add-user failed"
home=$($DOVEADM user -f home "$USER_ADDR") || die "doveadm user failed"
mkdir -p "$home" && chown "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" ||
	die "cannot create $home"
say "writing $N messages into $home/Maildir"
python3 "$GEN" "$home/Maildir" "$N" >/dev/null || die "the generator failed"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$home" || die "chown failed"
$DOVEADM index -u "$USER_ADDR" INBOX || die "doveadm index failed"

# the senders' keys, for the Autocrypt messages among the new ones
mkdir -p "$T/g" && chmod 700 "$T/g"
for i in $(seq "$SENDERS"); do
	gpg --homedir "$T/g" --batch --quiet --pinentry-mode loopback \
	    --passphrase '' --quick-gen-key "Load $i <load$i@example.net>" \
	    ed25519 default never || die "gpg could not make a key"
	gpg --homedir "$T/g" --batch --export --export-options export-minimal \
	    "load$i@example.net" | base64 -w 0 >"$T/kd.$i"
done

mkdir -p "$T/cache" "$T/data" "$T/config"
cat >"$T/idle.conf" <<EOF
ca-file = $STEED_CA_FILE

[account idle]
name = Idle
address = $USER_ADDR
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = $USER_PASS
EOF
chmod 0600 "$T/idle.conf"
HCACHE=$T/cache/steedmail/idle.hcache
TRUSTDB=$T/data/steedmail/trust.sqlite

screen() { tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null; }
# wait_for TEXT: until the screen shows TEXT, at most LIMIT seconds
wait_for() {
	_end=$(( $(date +%s) + LIMIT ))
	while ! screen | grep -qF -- "$1"; do
		[ "$(date +%s)" -ge "$_end" ] && return 1
		sleep 0.2
	done
}
mem() {	# mem FIELD: VmRSS or VmHWM of steedmail, in kB
	awk -v f="$1:" '$1 == f { print $2 }' "/proc/$pid/status"
}
quiet() {	# until the resident size stays the same for 2 s
	_prev=0
	while :; do
		_r=$(mem VmRSS); [ "$_r" = "$_prev" ] && break; _prev=$_r; sleep 2
	done
}
# senders the trust store knows (read straight from its file)
known() {
	sqlite3 -batch "file:$TRUSTDB?mode=ro" \
	    "SELECT count(DISTINCT addr) FROM key WHERE addr LIKE 'load%@example.net'" 2>/dev/null || echo 0
}

say "starting steedmail in tmux; the cold sync of $N messages"
tmux -L "$SOCK" new-session -d -s s -x 80 -y 24 \
    "env TERM=screen HOME=$T XDG_CONFIG_HOME=$T/config XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$T/cache $STEEDMAIL -F $T/idle.conf" ||
	die "tmux failed"
wait_for "/$N" || die "the index never showed $N messages: $(screen | tail -2)"
pid=$(pgrep -f "^$STEEDMAIL -F $T/idle.conf" | head -1)
[ -n "$pid" ] || die "no steedmail process"
end=$(( $(date +%s) + LIMIT ))
until [ "$(sqlite3 -batch "$HCACHE" 'SELECT count(*) FROM message' 2>/dev/null)" = "$N" ]; do
	[ "$(date +%s)" -ge "$end" ] && die "the header cache never held $N messages"
	sleep 0.5
done
quiet
rss0=$(mem VmRSS) hwm0=$(mem VmHWM)
say "in IDLE: RSS $rss0 kB, peak $hwm0 kB; delivering $NEW messages"

# the new messages, in ROUNDS rounds of NEW/ROUNDS, in bursts of 25 every 0.1 s,
# straight into new/; after each round: until the index shows them all
# and the trust step is over, then RSS and peak
deliver() {	# deliver FIRST COUNT
	STEED_MAIL_UID=$STEED_MAIL_UID STEED_MAIL_GID=$STEED_MAIL_GID \
	python3 - "$home/Maildir" "$1" "$2" "$NEW" "$SENDERS" "$T" <<'PY' || die "delivery failed"
import os, sys, time
md, first, count, new, senders, t = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
uid, gid = int(os.environ["STEED_MAIL_UID"]), int(os.environ["STEED_MAIL_GID"])
kd = {}
for s in range(1, senders + 1):
    d = open(os.path.join(t, "kd.%d" % s)).read().strip()
    kd[s] = "\r\n ".join(d[i:i + 72] for i in range(0, len(d), 72))
t0 = int(time.time())
for k in range(first, first + count):
    # the last 50 of each round from the senders with Autocrypt headers
    if k > first + count - 51:
        s = (k % senders) + 1
        frm = "Load %d <load%d@example.net>" % (s, s)
        extra = "Autocrypt: addr=load%d@example.net; keydata=\r\n %s\r\n" % (
            s, kd[s])
    else:
        frm = "Loader <loader@example.net>"
        extra = ""
    msg = ("From: %s\r\nTo: idle@steed.test\r\nSubject: load %05d\r\n"
           "Date: %s\r\nMessage-ID: <load-%d@example.net>\r\n%s\r\n"
           "new message %d\r\n") % (frm, k, time.strftime(
               "%a, %d %b %Y %H:%M:%S +0000", time.gmtime(t0 + k)), k,
               extra, k)
    name = "%d.load%d.steed" % (t0, k)
    tmp = os.path.join(md, "tmp", name)
    with open(tmp, "wb") as f:
        f.write(msg.encode())
    os.chown(tmp, uid, gid)
    os.rename(tmp, os.path.join(md, "new", name))
    if k % 25 == 0:
        time.sleep(0.1)
PY
}
half=$((NEW / ROUNDS))
shown= rss=" $((rss0 / 1024)) MB" hwm=" $((hwm0 / 1024)) MB"
for round in $(seq "$ROUNDS"); do
	deliver $(( (round - 1) * half + 1 )) "$half"
	start=$(date +%s%N)
	total=$((N + round * half))
	if wait_for "/$total"; then
		shown="$shown $(( ($(date +%s%N) - start) / 1000000 )) ms"
	else
		shown="$shown not within $LIMIT s"
	fi
	end=$(( $(date +%s) + LIMIT ))
	until [ "$(known)" = "$SENDERS" ]; do
		[ "$(date +%s)" -ge "$end" ] && break
		sleep 1
	done
	quiet
	rss="$rss, $(( $(mem VmRSS) / 1024 )) MB"
	hwm="$hwm, $(( $(mem VmHWM) / 1024 )) MB"
done
total=$((N + ROUNDS * half))
rows=$(sqlite3 -batch "$HCACHE" "SELECT count(*) || ' ' || count(DISTINCT uid) FROM message")
# each new message once, every one after the old ones (the server gives
# the UIDs, in the order it finds the files: not the order written)
news=$(sqlite3 -batch "$HCACHE" "SELECT count(DISTINCT subject) FROM message WHERE subject LIKE 'load %'")
after=$(sqlite3 -batch "$HCACHE" "SELECT min(uid) > $N FROM message WHERE subject LIKE 'load %'")
top=$(screen | head -4)

report() {
	echo "### Load: $NEW new messages while in IDLE on $N, $(date -u '+%Y-%m-%d %H:%M') UTC, load $(cut -d' ' -f1 /proc/loadavg)"
	echo
	echo "| what | measured |"
	echo "|---|---|"
	echo "| rounds of $half shown in the index, after the last of each was delivered |$shown |"
	echo "| header cache rows, distinct UIDs | $rows (expected $total $total) |"
	echo "| new messages cached once each, all after the old ones | $news of $((ROUNDS * half)), $( [ "$after" = 1 ] && echo yes || echo no) |"
	echo "| senders of Autocrypt mail in the trust store | $(known) of $SENDERS |"
	echo "| RSS in IDLE: before, after each round |$rss |"
	echo "| peak RSS (VmHWM): before, after each round |$hwm |"
	echo
	echo "The top of the screen afterwards:"
	echo
	echo '```'
	echo "$top"
	echo '```'
}
report
[ -n "${BENCH_OUT:-}" ] && report >>"$BENCH_OUT"
exit 0
