#!/bin/bash
# tests/bench/tui.sh: the interface part of `make bench` (see doc/bench.md):
# steedmail's curses interface and NeoMutt side by side, measured from
# outside under a pseudo-terminal of 80x24, TERM=xterm-256color, by
# tests/bench/ptydrive.py.
#
# Starts a tests/env instance, fills the INBOX of bench@steed.test with
# BENCH_TUI_N (100000) messages (tests/bench/genmaildir.py), lets Dovecot
# index them and warms its cache with one untimed open by each client.
# Then, in BENCH_TUI_REPS (3) interleaved rounds, for each client:
#   cold   header cache deleted: the time from exec until the first index
#          screen shows a message row (steedmail draws what its cache has
#          while it fetches the rest; NeoMutt draws once all is loaded),
#          and the peak RSS once the output is quiet (the load over)
#   warm   the same with the header cache of the run before (the row of
#          the message the client puts first: steedmail the newest, NeoMutt
#          the oldest, under its cursor), then the
#          keys, each timed from the write of the key until the screen
#          shows what it must (ptydrive.py says how): Home (untimed),
#          BENCH_TUI_KEYS (5) times page down (the next page drawn to its
#          last row) and next (the cursor on the next message), End (the
#          newest message shown), the thread sort from the subject order
#          (until the newest message's neighbour is shown again), and the
#          peak RSS at the end
# NeoMutt is started as `neomutt -n -F RC` (no -e needed: under the pty it
# shows the index and waits for keys) with the muttrc of tests/bench/run.
# Prints a markdown table (medians, min–max) and the targets of BENCH.md
# with met / not met. Missed targets are reported, not failed: the exit
# status is non-zero only when something could not be measured.
#
# Environment: BENCH_TUI_N, BENCH_TUI_REPS, BENCH_TUI_KEYS, BENCH_LIMIT
# (seconds per step, 120), BENCH_NEOMUTT_LIMIT (seconds per step of NeoMutt,
# BENCH_LIMIT: a first screen that takes longer is reported as "did not
# finish in N s", and NeoMutt is not run again), BENCH_TUI_COMPLETE=1 (an
# untimed `steedmail --sync` between steedmail's cold and warm runs, so that
# the warm run has the whole mailbox in its cache: the cold run is quit
# once its output is quiet, which at a million messages is long before its
# fetch ends; the default from BENCH_LARGE messages on), BENCH_CACHE and
# BENCH_IMAP_VSZ (the mailbox kept between runs: tests/bench/mailbox.sh),
# BENCH_OUT (the report is appended to this file),
# BENCH_KEEP=1 (keep the temporary directory and the test environment's),
# BENCH_TUI_ENV=DIR (use the running tests/env instance in DIR, whose
# bench@steed.test already holds BENCH_TUI_N messages, and leave it up),
# BENCH_TUI_CLIENTS ("steed neomutt": the clients measured).

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
STEEDMAIL=$ROOT/steedmail
ETPANFETCH=$ROOT/tests/bench/etpanfetch
DRIVE=$ROOT/tests/bench/ptydrive.py
GEN=$ROOT/tests/bench/genmaildir.py
N=${BENCH_TUI_N:-100000}
REPS=${BENCH_TUI_REPS:-3}
KEYS=${BENCH_TUI_KEYS:-5}
LIMIT=${BENCH_LIMIT:-120}
NEOMUTT_LIMIT=${BENCH_NEOMUTT_LIMIT:-$LIMIT}
CLIENTS=${BENCH_TUI_CLIENTS:-steed neomutt}
USER_ADDR=bench@steed.test
USER_PASS=bench-pw

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

for v in "$N" "$REPS" "$KEYS" "$LIMIT" "$NEOMUTT_LIMIT"; do
	case $v in ''|*[!0-9]*|0) die "BENCH_TUI_* and BENCH_LIMIT must be positive numbers, not '$v'" ;; esac
done
[ "$N" -ge 100 ] || die "BENCH_TUI_N must be at least 100"
command -v neomutt >/dev/null 2>&1 || die "neomutt is missing (run contrib/install-deps --bench)"
for p in python3 doveadm awk timeout flock sha256sum; do
	command -v "$p" >/dev/null 2>&1 || die "$p is missing"
done
[ -x "$STEEDMAIL" ] && [ -x "$ETPANFETCH" ] ||
	die "build first: make steedmail tests/bench/etpanfetch (or make bench)"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# shellcheck source=tests/bench/mailbox.sh
. "$ROOT/tests/bench/mailbox.sh"
COMPLETE=${BENCH_TUI_COMPLETE:-}
if [ -z "$COMPLETE" ]; then
	COMPLETE=0
	[ "$N" -lt "$BENCH_LARGE" ] || COMPLETE=1
fi

T=$(mktemp -d /tmp/steedtui.XXXXXX) || die "mktemp failed"
ENVDIR=
OWN_ENV=0
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
	trap - EXIT INT TERM HUP
	if [ -n "$ENVDIR" ] && [ $OWN_ENV = 1 ]; then
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

# --- the server and the mailbox ---------------------------------------

if [ -n "${BENCH_TUI_ENV:-}" ]; then
	ENVDIR=$BENCH_TUI_ENV
	# shellcheck disable=SC1091
	. "$ENVDIR/env.sh" || die "no test environment in $ENVDIR"
	DOVEADM="doveadm -c $STEED_DOVECOT_CONF"
else
	say "starting the test environment"
	bench_mailbox_env "$N"
	out=$("$ROOT/tests/env/run" start) || die "tests/env/run start failed"
	ENVDIR=$(printf '%s\n' "$out" | tail -n 1)
	OWN_ENV=1
	[ -f "$ENVDIR/env.sh" ] || die "tests/env/run start printed no instance directory"
	# shellcheck disable=SC1091
	. "$ENVDIR/env.sh"
	DOVEADM="doveadm -c $STEED_DOVECOT_CONF"
	"$STEED_ENV_BIN/add-user" "$USER_ADDR" "$USER_PASS" || die "add-user failed"
	home=$($DOVEADM user -f home "$USER_ADDR") || die "doveadm user $USER_ADDR failed"
	parent=$(dirname "$home")
	if [ ! -d "$parent" ]; then
		mkdir -p "$parent" && chown "$STEED_MAIL_UID:$STEED_MAIL_GID" "$parent" ||
			die "cannot create $parent"
	fi
	mkdir -p "$home" || die "cannot create $home"
	bench_mailbox_fill "$home" "$N"
fi
count=$($DOVEADM mailbox status -u "$USER_ADDR" messages INBOX 2>/dev/null |
    sed -n 's/.*messages=\([0-9]*\).*/\1/p')
[ "$count" = "$N" ] || die "Dovecot sees ${count:-no} messages, expected $N"

# --- the clients ---------------------------------------------------------

mkdir -p "$T/cache" "$T/config" "$T/hcache" "$T/home" || die "mkdir in $T failed"
cat >"$T/bench.conf" <<EOF
# steedmail configuration of the interface benchmark
ca-file = $STEED_CA_FILE

[account bench]
name = Bench
address = $USER_ADDR
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = $USER_PASS
EOF
chmod 0600 "$T/bench.conf"
HCACHE=$T/cache/steedmail/bench.hcache
cat >"$T/muttrc" <<EOF
set folder="imaps://127.0.0.1:$STEED_IMAPS_PORT/"
set spoolfile="+INBOX"
set imap_user="$USER_ADDR"
set imap_pass="$USER_PASS"
set ssl_ca_certificates_file="$STEED_CA_FILE"
set ssl_verify_host=yes
set certificate_file="$T/neomutt-certificates"
set header_cache="$T/hcache/"
set imap_check_subscribed=no
set mail_check_stats=no
set quit=yes
EOF
chmod 0600 "$T/muttrc"

STEED_CMD=(env XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"
    XDG_DATA_HOME="$T/data" "$STEEDMAIL" -F "$T/bench.conf")
NEOMUTT_CMD=(env HOME="$T/home" neomutt -n -F "$T/muttrc")

# The rows waited for. Warm, the newest message's row for steedmail (it
# opens at the end of the date order) and the oldest's for NeoMutt (date
# order, the cursor on the first unread). Cold, steedmail draws the first
# rows of the header cache while its worker fetches the rest: any message
# row counts; NeoMutt draws only when its load ends.
ROW='(#|zu [a-z]+ )'
first_row() {
	case $1-$2 in
	steed-cold) printf '%s[0-9]+(?![0-9])' "$ROW" ;;
	steed-warm) printf '%s%d(?![0-9])' "$ROW" "$N" ;;
	neomutt-*) printf '%s1(?![0-9])' "$ROW" ;;
	esac
}

# Scripts for ptydrive.py. Keys by their terminfo names: khome, knp
# (PageDown), kcud1 (Down), kend. The thread sort: "o", then "thread" and
# Enter at steedmail's prompt, "t" at NeoMutt's, from the subject order
# (same prompts), timed until the newest message's neighbour in date
# order is shown again. Cold, the peak RSS is read once the output has been
# quiet for 3 s (steedmail's load in the background over).
script_cold() {
	printf 'wait first %s\nsettle 3\nrss rss\nquit q\n' "$(first_row "$1" cold)"
}
script_warm() {
	printf 'wait first %s\n' "$(first_row "$1" warm)"
	printf 'send khome\n'
	printf 'pages pagedown knp %d\n' "$KEYS"
	printf 'steps next kcud1 %d\n' "$KEYS"
	printf 'key end kend %s%d(?![0-9])\n' "$ROW" "$N"
	# steedmail: the folder limited to one sender's mail (l, "~f ada"),
	# timed until the status line counts the view, then every message
	# again (untimed: ^U empties the prompt, Enter).
	if [ "$1" = steed ]; then
		printf 'send l\nsend ~f ada\n'
		printf 'key limit \\r [0-9]+/[0-9]+ of %d(?![0-9])\n' "$N"
		printf 'send l\nsend \\x15\\r\n'
	fi
	# With the cursor on the newest message, sorted by subject first
	# (untimed, then 2 s of quiet: a sort writes nothing while it works),
	# the thread sort must bring its neighbour in date order back onto
	# the screen.
	if [ "$1" = steed ]; then
		printf 'send o\nsend subject\nsend \\r\nsettle 2\nsend o\nsend thread\n'
		printf 'key sort_thread \\r %s%d(?![0-9])\n' "$ROW" $((N - 1))
	else
		printf 'send o\nsend s\nsettle 2\nsend o\n'
		# At a million NeoMutt's newest thread starts a page of its
		# own, without the neighbour: the step fails there (doc/bench.md).
		printf 'key sort_thread t %s%d(?![0-9])\n' "$ROW" $((N - 1))
	fi
	printf 'rss rss\nquit q\n'
}

FAILED=
NEOMUTT_DNF=
# drive CLIENT MODE: one run; its figures appended to $T/results as
# "CLIENT MODE NAME VALUE". NeoMutt's first screen not shown within
# NEOMUTT_LIMIT is "CLIENT MODE dnf LIMIT", and NeoMutt is not run again.
drive() {
	local client=$1 mode=$2 cmd limit=$LIMIT
	if [ "$client" = steed ]; then
		cmd=("${STEED_CMD[@]}")
	else
		[ -z "$NEOMUTT_DNF" ] || return 0
		cmd=("${NEOMUTT_CMD[@]}")
		limit=$NEOMUTT_LIMIT
	fi
	"script_$mode" "$client" >"$T/steps"
	if TERM=xterm-256color timeout $((limit * 3)) python3 "$DRIVE" -t "$limit" \
	    "$T/steps" -- "${cmd[@]}" >"$T/out" 2>"$T/err"; then
		sed "s/^/$client $mode /" "$T/out" >>"$T/results"
	elif [ "$client" = neomutt ] &&
	    grep -q '^ptydrive: first: nothing matched .* within' "$T/err"; then
		say "neomutt $mode: no first screen within $limit s"
		echo "$client $mode dnf $limit" >>"$T/results"
		NEOMUTT_DNF=$mode
	elif [ "$client" = neomutt ] &&
	    grep -q '^ptydrive: sort_thread: nothing matched' "$T/err"; then
		# At a million NeoMutt shows its newest thread on a page of
		# its own: the neighbour never comes (doc/bench.md). The steps
		# before were measured; this one is reported as not measured.
		sed "s/^/$client $mode /" "$T/out" >>"$T/results"
		say "neomutt $mode: the thread sort not measured (the neighbour never shown within $limit s)"
	else
		# The steps done before the one that failed were measured.
		sed "s/^/$client $mode /" "$T/out" >>"$T/results"
		say "$client $mode not measured:"
		sed 's/^/bench:   /' "$T/err" | head -n 30 >&2
		FAILED="$FAILED ${client}_$mode"
	fi
}
cold() {
	if [ "$1" = steed ]; then
		rm -f "$HCACHE" "$HCACHE-journal" "$HCACHE-wal" "$HCACHE-shm"
	else
		rm -rf "${T:?}/hcache/"*
	fi
	drive "$1" cold
}
: >"$T/results"

# server_first: the server's part of a cold first screen, with a bare
# client (etpanfetch): connect, TLS, log in, SELECT and the FETCH of the
# newest 200 messages with the items of steedmail's sync, timed from exec
# to the tagged reply; "server cold first SECONDS" in $T/results, or
# "server cold after SECONDS" with the argument after (run right after
# steedmail's cold run, so that its session sits between two bare ones).
SYNC_ITEMS="UID FLAGS INTERNALDATE RFC822.SIZE ENVELOPE BODY.PEEK[HEADER.FIELDS (REFERENCES CONTENT-TYPE FROM AUTOCRYPT)]"
server_first() {
	local t0 t
	t0=$(now)
	if "$ETPANFETCH" -i "$SYNC_ITEMS" -w -n 200 127.0.0.1 "$STEED_IMAPS_PORT" \
	    "$STEED_CA_FILE" "$USER_ADDR" "$USER_PASS" >/dev/null 2>"$T/err"; then
		t=$(since "$t0")
		echo "server cold ${1:-first} $t" >>"$T/results"
	else
		say "the server's part of the first screen not measured: $(cat "$T/err")"
	fi
}

# complete: the rest of the cold run's fetch, untimed (BENCH_TUI_COMPLETE).
complete() {
	[ "$COMPLETE" = 1 ] || return 0
	say "completing steedmail's header cache (untimed --sync)"
	timeout "$LIMIT" "${STEED_CMD[@]}" --sync </dev/null >/dev/null 2>"$T/err" ||
		{ say "steedmail --sync failed:"; sed 's/^/bench:   /' "$T/err" | head -n 10 >&2; }
}

say "warming up the server: one open by each client, untimed"
for c in $CLIENTS; do
	drive "$c" cold
done
[ -z "$FAILED" ] || die "a client could not open the mailbox:$FAILED"
if [ -n "$NEOMUTT_DNF" ]; then
	say "NeoMutt's first open did not finish in $NEOMUTT_LIMIT s (it is tried once more, timed)"
	NEOMUTT_DNF=
fi
[ "$OWN_ENV" = 0 ] || bench_mailbox_keep "$home" "$N"
: >"$T/results"

for r in $(seq 1 "$REPS"); do
	say "round $r of $REPS"
	for c in $CLIENTS; do
		[ "$c" != steed ] || server_first
		cold "$c"
		[ "$c" != steed ] || server_first after
		[ "$c" != steed ] || complete
		drive "$c" warm
	done
done

# --- the report ---------------------------------------------------------

neomutt_v=$(neomutt -v 2>/dev/null | sed -n '1s/^NeoMutt //p')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
	printf '## steedmail interface bench, %s\n\n' "$(date '+%Y-%m-%d %H:%M')"
	printf -- '- %s messages in INBOX (Maildir, Dovecot, IMAPS on loopback); %s rounds, interleaved; %s presses of each repeated key a round\n' \
	    "$N" "$REPS" "$KEYS"
	printf -- '- pseudo-terminal 80x24, TERM=xterm-256color, driven by tests/bench/ptydrive.py; NeoMutt %s\n' "$neomutt_v"
	printf -- '- machine: %s cores, %s; load average at the end: %s\n' "$(nproc)" \
	    "${cpu:-unknown CPU}" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf -- '- NeoMutt limited to %s s a step' "$NEOMUTT_LIMIT"
	if [ "$COMPLETE" = 1 ]; then
		printf -- "; steedmail's cold run followed by an untimed --sync before its warm run"
	fi
	printf "\n\n"
	awk -v n="$N" -v large="$BENCH_LARGE" '
	function med(k,   n, i, j, t, a) {
		n = cnt[k]
		for (i = 1; i <= n; i++) a[i] = v[k, i]
		for (i = 2; i <= n; i++) {
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
			a[j + 1] = t
		}
		lo[k] = a[1]; hi[k] = a[n]
		if (n % 2) return a[(n + 1) / 2]
		return (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$3 == "dnf" { dnf[$1 " " $2] = $4; next }
	{ k = $1 " " $2 " " $3; cnt[k]++; v[k, cnt[k]] = $4 }
	function cell(k, unit,   m, w) {
		if (!(k in cnt)) {
			split(k, w, " ")
			if ((w[1] " " w[2]) in dnf) {
				if (w[3] == "first")
					return "did not finish in " dnf[w[1] " " w[2]] " s"
				return "—"
			}
			if ((w[1] " cold") in dnf)
				return "not run (cold did not finish)"
			return "not measured"
		}
		m = med(k); M[k] = m
		if (unit == "s")
			return sprintf("%.3f s (%.3f–%.3f)", m, lo[k], hi[k])
		if (unit == "ms")
			return sprintf("%.1f ms (%.1f–%.1f)", m * 1000, lo[k] * 1000, hi[k] * 1000)
		M[k] = hi[k]	# RSS: the highest run
		return sprintf("%.1f MB (%.1f–%.1f)", hi[k] / 1024, lo[k] / 1024, hi[k] / 1024)
	}
	function row(what, sk, nk, unit, target, lim, absolute,   s, n, r, ok, rs) {
		s = cell(sk, unit); n = cell(nk, unit)
		rs = "—"; ok = "not measured"
		if ((sk in M) && (nk in M) && M[nk] > 0) {
			r = M[sk] / M[nk]; rs = sprintf("%.2f", r)
		} else if ((sk in M) && nk ~ / first$/ && (substr(nk, 1, length(nk) - 6) in dnf)) {
			# NeoMutt took longer than its limit: the ratio is below this.
			rs = sprintf("< %.3f", M[sk] / dnf[substr(nk, 1, length(nk) - 6)])
		}
		if (absolute && (sk in M))
			ok = (M[sk] <= lim) ? "met" : "**not met**"
		else if (!absolute && rs != "—")
			ok = (r <= lim) ? "met" : "**not met**"
		printf "| %s | %s | %s | %s | %s | %s |\n", what, s, n, rs, target, ok
	}
	END {
		print "| what | steedmail | NeoMutt | ratio | target | met? |"
		print "|---|---|---|---|---|---|"
		row("first index screen, cold (no header cache)", "steed cold first", "neomutt cold first", "s", "≤ 0.3 s", 0.3, 1)
		row("first index screen, warm", "steed warm first", "neomutt warm first", "s", "≤ 0.1 s", 0.1, 1)
		row("page down, redrawn to the last row", "steed warm pagedown", "neomutt warm pagedown", "ms", "≤ 16 ms", 0.016, 1)
		row("next message (cursor moved)", "steed warm next", "neomutt warm next", "ms", "≤ 16 ms", 0.016, 1)
		row("End (the newest message shown)", "steed warm end", "neomutt warm end", "ms", "≤ 16 ms", 0.016, 1)
		row("thread sort, from the subject order", "steed warm sort_thread", "neomutt warm sort_thread", "ms", "≤ 16 ms", 0.016, 1)
		if (n + 0 >= large + 0)
			row("limit to a sender (l ~f ada)", "steed warm limit", "neomutt warm limit", "ms", "≤ 100 ms", 0.1, 1)
		else
			row("limit to a sender (l ~f ada)", "steed warm limit", "neomutt warm limit", "ms", "≤ 16 ms", 0.016, 1)
		if (n + 0 >= large + 0) {
			# BENCH.md: at a million messages, 64 MB whatever NeoMutt needs.
			row("peak RSS, mailbox open, cold", "steed cold rss", "neomutt cold rss", "kb", "≤ 64 MB", 65536, 1)
			row("peak RSS, mailbox open, after the keys", "steed warm rss", "neomutt warm rss", "kb", "≤ 64 MB", 65536, 1)
		} else {
			row("peak RSS, mailbox open, cold", "steed cold rss", "neomutt cold rss", "kb", "≤ 0.25x", 0.25, 0)
			row("peak RSS, mailbox open, after the keys", "steed warm rss", "neomutt warm rss", "kb", "≤ 0.25x", 0.25, 0)
		}
		print ""
		if ("server cold first" in cnt)
			printf "The server\x27s part of a cold first screen (a bare client: connect, TLS, log in, SELECT, FETCH of the newest 200 with the sync\x27s items; run just before each of steedmail\x27s cold runs): %s", cell("server cold first", "s")
		if ("server cold after" in cnt)
			printf "; the same, run right after them: %s", cell("server cold after", "s")
		if ("server cold first" in cnt)
			printf ".\n\n"
		print "Times are medians (min–max) over the rounds (keys: over every press); the"
		print "first screen is timed from exec, a key from its write, both until the"
		print "screen model shows the expected row. Peak RSS is VmHWM before quitting,"
		print "the highest run of each; ratios are steedmail / NeoMutt."
	}' "$T/results"
} >"$T/report.md"
cat "$T/report.md"
if [ -n "${BENCH_OUT:-}" ]; then
	{ printf '\n'; cat "$T/report.md"; } >>"$BENCH_OUT" || say "cannot write $BENCH_OUT"
fi
if [ -n "$FAILED" ]; then
	say "could not measure:$FAILED"
	exit 1
fi
exit 0
