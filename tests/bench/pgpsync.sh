#!/bin/bash
# tests/bench/pgpsync.sh: encrypted mail in `make bench` (issue 22; see
# doc/bench.md): what the sync's trust step costs per signed and encrypted
# message, and how many decryptions opening a message and replying to it
# take.
#
# Starts a tests/env instance; alice and bob make their keys (steedmail
# --genkey, no passphrase) and import each other's (--export-key,
# --import-key). alice's steedmail builds one signed and encrypted PGP/MIME
# message to bob with its protected header (RFC 9788), `-s --encrypt`
# queued to a closed port as crypto.sh does; tests/bench/pgpgen.py makes
# BENCH_PGP_N (5000) of that form from it, each with a subject of its own,
# signed by alice and encrypted to both in one gpg pass as steedmail does,
# BENCH_PGP_JOBS (2) gpg processes at once, and APPENDs them to bob's
# INBOX over IMAPS (python imaplib) while it makes the next ones. Then, with bob's gpg-agent warm:
#   (1) bob's `steedmail --sync`, timed as a whole process: it fetches the
#       N new messages and its trust step decrypts and verifies each; then
#       `gpg --decrypt` of each message's encrypted part, one process per
#       message, as bob (each must say DECRYPTION_OKAY and GOODSIG). Per
#       message: the sync's time over N against gpg's median. Afterwards
#       `steedmail --list` must show every message by its real subject
#       (not "(encrypted)", not "..."), or the bench fails.
#   (2) bob's gpg-agent restarted with `debug ipc` and a log file: every
#       PKDECRYPT request (one per decryption of a session key with bob's
#       secret key) is a line there. bob's interface runs in tmux at 80x24;
#       once its index is drawn and quiet, Enter opens the message under
#       the cursor and r replies to it (an $EDITOR that keeps what it was
#       given). The PKDECRYPT lines are counted at start-up, after the
#       opening and after the reply; the target is one in all.
# Prints markdown tables with met / not met. Missed targets are reported,
# not failed, except that the run fails (non-zero) when --list does not
# show every real subject, when the decryptions could not be counted, or
# when anything else could not be measured.
#
# Environment: BENCH_PGP_N, BENCH_PGP_JOBS, BENCH_LIMIT (seconds per step,
# 600 for the sync), BENCH_OUT (the report is appended to this file),
# BENCH_KEEP=1 (keep the temporary directory and the test environment's).

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
STEEDMAIL=$ROOT/steedmail
GEN=$ROOT/tests/bench/pgpgen.py
N=${BENCH_PGP_N:-5000}
JOBS=${BENCH_PGP_JOBS:-2}
LIMIT=${BENCH_LIMIT:-600}

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

for v in "$N" "$JOBS" "$LIMIT"; do
	case $v in ''|*[!0-9]*|0) die "BENCH_PGP_N, BENCH_PGP_JOBS and BENCH_LIMIT must be positive numbers, not '$v'" ;; esac
done
for p in gpg gpgconf python3 tmux timeout awk; do
	command -v "$p" >/dev/null 2>&1 || die "$p is missing"
done
[ -x /usr/bin/time ] || die "time is missing (run contrib/install-deps --bench)"
[ -x "$STEEDMAIL" ] || die "build first: make steedmail (or make bench)"
export STEEDMAIL

T=$(mktemp -d /tmp/steedpgp.XXXXXX) || die "mktemp failed"
ENVDIR=
TMUX_SOCK=$T/tmux.sock
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
	trap - EXIT INT TERM HUP
	tmux -S "$TMUX_SOCK" kill-server >/dev/null 2>&1
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

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# --- the server and the keys ------------------------------------------------

say "starting the test environment"
out=$("$ROOT/tests/env/run" start) || die "tests/env/run start failed"
ENVDIR=$(printf '%s\n' "$out" | tail -n 1)
[ -f "$ENVDIR/env.sh" ] || die "tests/env/run start printed no instance directory"
# shellcheck disable=SC1091
. "$ENVDIR/env.sh"
export STEED_ENV
as() { "$STEED_ENV_BIN/as" "$@"; }
AH=$STEED_ENV/home/alice/data/steedmail/gnupg
BH=$STEED_ENV/home/bob/data/steedmail/gnupg

say "making alice's and bob's keys"
for u in alice bob; do
	as $u steedmail --genkey </dev/null >"$T/$u.genkey" 2>&1 ||
		die "$u --genkey failed: $(cat "$T/$u.genkey")"
done
as bob steedmail --export-key </dev/null >"$T/bob.asc" 2>"$T/err" || die "bob --export-key failed: $(cat "$T/err")"
as alice steedmail --export-key </dev/null >"$T/alice.asc" 2>"$T/err" || die "alice --export-key failed: $(cat "$T/err")"
as alice steedmail --import-key - <"$T/bob.asc" >"$T/err" 2>&1 || die "alice --import-key failed: $(cat "$T/err")"
as bob steedmail --import-key - <"$T/alice.asc" >"$T/err" 2>&1 || die "bob --import-key failed: $(cat "$T/err")"

# --- the messages -------------------------------------------------------------

# A port nothing listens on: alice's message stays queued in her outbox.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	die "cannot find a free port"
sed "s|^smtp = .*|smtp = smtp://127.0.0.1:$PORT|" \
    "$STEED_ENV/home/alice/config/steedmail/config" >"$T/alice.conf"
chmod 0600 "$T/alice.conf"
OUTBOX=$STEED_ENV/home/alice/data/steedmail/outbox
say "building the template with steedmail -s --encrypt"
printf 'Hello Bob,\n\nthe figures are on the table.\n\nAlice\n' |
    as alice steedmail -F "$T/alice.conf" -s "bench template" --encrypt bob@steed.test \
    >"$T/err" 2>&1
tmpl=
for f in "$OUTBOX"/*.msg; do [ -s "$f" ] && tmpl=$f; done
[ -n "$tmpl" ] || die "alice -s --encrypt queued nothing: $(cat "$T/err")"
mv "$tmpl" "$T/template.eml" && rm -f "$OUTBOX"/*
sed -n '/^-----BEGIN PGP MESSAGE-----/,/^-----END PGP MESSAGE-----/p' "$T/template.eml" |
    tr -d '\r' >"$T/template.asc"
as bob gpg --batch --decrypt "$T/template.asc" >"$T/template.inner" 2>"$T/err" ||
	die "bob cannot decrypt the template: $(cat "$T/err")"
grep -q '^Subject: bench template' "$T/template.inner" ||
	die "the template has no protected Subject"

say "making $N signed and encrypted messages ($JOBS gpg at once) and APPENDing them to bob's INBOX"
mkdir "$T/msg" || die "mkdir failed"
t0=$(now)
python3 "$GEN" "$T/template.eml" "$T/template.inner" "$AH" alice@steed.test \
    bob@steed.test alice@steed.test -- "$T/msg" "$N" "$JOBS" \
    "$STEED_IMAPS_PORT" "$STEED_CA_FILE" "$STEED_BOB" bob-pw ||
	die "the generator failed"
gen_s=$(since "$t0")

# --- (1) the sync against gpg --decrypt -----------------------------------------

# Warm up bob's agent (untimed): his key is loaded for both alike.
as bob gpg --batch --decrypt "$T/msg/00001.asc" >/dev/null 2>&1 ||
	die "bob cannot decrypt message 1"

FAILED=
say "timing bob's steedmail --sync of the $N new messages"
/usr/bin/time -f '%e %M %U %S' -o "$T/sync.time" timeout "$LIMIT" \
    "$STEED_ENV_BIN/as" bob "$STEEDMAIL" --sync </dev/null >"$T/sync.out" 2>"$T/sync.err"
rc=$?
read -r SYNC_S SYNC_RSS SYNC_USR SYNC_SYS <<<"$(tail -n 1 "$T/sync.time")"
if [ $rc -ne 0 ]; then
	say "steedmail --sync: exit status $rc"
	sed 's/^/bench:   /' "$T/sync.err" | head -n 10 >&2
	FAILED="$FAILED sync"
elif grep -q 'not decrypted' "$T/sync.out" "$T/sync.err"; then
	say "the sync left messages undecrypted:"
	grep 'not decrypted' "$T/sync.out" "$T/sync.err" | head -n 5 >&2
	FAILED="$FAILED sync"
fi

say "timing gpg --decrypt of the $N encrypted parts, one process each"
python3 - "$BH" "$T/msg" "$N" >"$T/gpg.times" <<'PY' || FAILED="$FAILED gpg"
import os, subprocess, sys, time
home, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ, GNUPGHOME=home)
for i in range(1, n + 1):
    f = os.path.join(d, "%05d.asc" % i)
    t0 = time.perf_counter()
    p = subprocess.run(["gpg", "--batch", "--status-fd", "2", "--decrypt", f],
                       env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0 or b"[GNUPG:] DECRYPTION_OKAY" not in p.stderr or \
            b"[GNUPG:] GOODSIG" not in p.stderr or \
            b"Subject: Bench subject" not in p.stdout:
        sys.exit("bench: gpg --decrypt of message %d failed: %s" %
                 (i, p.stderr.decode("utf-8", "replace")[-500:]))
    print("%.6f" % dt)
PY

say "checking that --list shows every real subject"
as bob steedmail --list </dev/null >"$T/list" 2>"$T/list.err" || FAILED="$FAILED list"
awk -F '\t' '{ print $5 }' "$T/list" | sort >"$T/list.subjects"
cut -f 2 "$T/msg/subjects" | sort >"$T/want.subjects"
LISTED=$(grep -c '^Bench subject ' "$T/list.subjects")
HIDDEN=$(grep -c -x -e '(encrypted)' -e '\.\.\.' "$T/list.subjects")
MISSING=$(comm -23 "$T/want.subjects" "$T/list.subjects" | wc -l)
if [ "$MISSING" -ne 0 ] || [ "$LISTED" -ne "$N" ]; then
	say "--list misses $MISSING real subjects ($HIDDEN shown as (encrypted) or ...):"
	comm -23 "$T/want.subjects" "$T/list.subjects" | head -n 5 | sed 's/^/bench:   /' >&2
	FAILED="$FAILED subjects"
fi

# --- (2) opening a message and replying: decryptions --------------------------

say "counting the decryptions of opening a message and replying to it"
printf 'log-file %s\ndebug ipc\n' "$T/agent.log" >>"$BH/gpg-agent.conf"
gpgconf --homedir "$BH" --kill gpg-agent >/dev/null 2>&1
pkdecrypt() { cat "$T/agent.log" 2>/dev/null | grep -c ' <- PKDECRYPT'; }
cat >"$T/editor" <<EOF
#!/bin/sh
cp "\$1" "$T/seen"
printf 'noted\n' >>"\$1"
EOF
chmod +x "$T/editor"
printf 'set -g remain-on-exit on\nset -g status off\n' >"$T/tmux.conf"
tx() { tmux -S "$TMUX_SOCK" "$@"; }
screen() { tx capture-pane -p -t b; }
# wait_for TEXT [S]: until the screen shows TEXT (fixed string).
wait_for() {
	local i
	for i in $(seq 1 $((${2:-30} * 10))); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	say "the screen never showed '$1':"
	screen | sed 's/^/bench:   |/' >&2
	return 1
}
# quiet: until the agent's log has not grown for a second.
quiet() {
	local a b i
	for i in $(seq 1 30); do
		a=$(stat -c %s "$T/agent.log" 2>/dev/null || echo 0)
		sleep 1
		b=$(stat -c %s "$T/agent.log" 2>/dev/null || echo 0)
		[ "$a" = "$b" ] && return 0
	done
}
DEC_START= DEC_OPEN= DEC_REPLY= OPENED=
tx -f "$T/tmux.conf" new-session -d -s b -x 80 -y 24 \
    "env TERM=screen LANG=C.UTF-8 EDITOR=$T/editor $STEED_ENV_BIN/as bob $STEEDMAIL 2>$T/tui.err" ||
	die "tmux failed"
tx resize-window -t b -x 80 -y 24 >/dev/null 2>&1
if wait_for "Bench subject" 60 && wait_for "sort:" 10; then
	sleep 2
	quiet
	DEC_START=$(pkdecrypt)
	# the newest message is under the cursor
	OPENED=$(screen | grep -o 'Bench subject [0-9]*' | sort | tail -n 1 | awk '{ print $3 }')
	tx send-keys -t b Enter
	if wait_for "of the sync bench." 30; then
		quiet
		DEC_OPEN=$(pkdecrypt)
		tx send-keys -t b r
		for _ in $(seq 1 300); do [ -s "$T/seen" ] && break; sleep 0.1; done
		if [ -s "$T/seen" ] && wait_for "Re: Bench subject" 30; then
			quiet
			DEC_REPLY=$(pkdecrypt)
			grep -q '^> Message .* of the sync bench\.' "$T/seen" ||
				{ say "the reply does not quote the message"; DEC_REPLY=; }
		fi
	fi
	screen >"$T/last.screen"
	# leave: the compose screen asks before it discards
	for _ in 1 2 3 4 5 6; do
		if screen | grep -q "discard this message?"; then tx send-keys -t b y
		else tx send-keys -t b q; fi
		sleep 0.5
		[ "$(tx display-message -p -t b '#{pane_dead}' 2>/dev/null)" = 1 ] && break
	done
fi
tx kill-server >/dev/null 2>&1
if [ -z "$DEC_REPLY" ]; then
	say "the decryptions were not counted"
	sed 's/^/bench:   /' "$T/tui.err" 2>/dev/null | head -n 10 >&2
	FAILED="$FAILED decryptions"
fi

# --- the report -----------------------------------------------------------------

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
gpg_v=$(gpg --version 2>/dev/null | sed -n '1s/^gpg (GnuPG) //p')
dovecot_v=$(dovecot --version 2>/dev/null | cut -d' ' -f1)
size=$(stat -c %s "$T/msg/00001.eml" 2>/dev/null || echo 0)
trusted=$(sed -n 's/.*trust: \([0-9]*\) messages processed.*/\1/p' "$T/sync.err" | tail -n 1)

report() {
	printf '## steedmail encrypted-mail bench, %s\n\n' "$(date '+%Y-%m-%d %H:%M')"
	printf -- '- %s signed and encrypted PGP/MIME messages (alice to bob, protected header, about %s bytes each, the form of steedmail -s --encrypt), APPENDed to bob'\''s INBOX (Dovecot %s, IMAPS on loopback)\n' \
	    "$N" "$size" "${dovecot_v:-?}"
	printf -- '- the sync said: %s new, trust step: %s messages processed\n' \
	    "$(sed -n 's/.*INBOX: \([0-9]*\) new,.*/\1/p' "$T/sync.err" | tail -n 1)" "${trusted:-?}"
	printf -- '- opened and replied to in the interface: "Bench subject %s" (tmux, 80x24)\n' "${OPENED:-?}"
	printf -- '- GnuPG %s; keys: Ed25519 + Cv25519 (steedmail --genkey), no passphrase; warm gpg-agent\n' "${gpg_v:-?}"
	printf -- '- machine: %s cores, %s; load average at the end: %s\n' \
	    "$(nproc)" "${cpu:-unknown CPU}" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf -- '- setup (not in the table): making and APPENDing the messages %s s\n\n' "$gen_s"
	awk -v n="$N" -v sync_s="${SYNC_S:-}" -v rss="${SYNC_RSS:-0}" \
	    -v usr="${SYNC_USR:-0}" -v sys="${SYNC_SYS:-0}" \
	    -v listed="$LISTED" -v hidden="$HIDDEN" -v missing="$MISSING" \
	    -v d0="$DEC_START" -v d1="$DEC_OPEN" -v d2="$DEC_REPLY" '
	{ a[++c] = $1; total += $1 }
	END {
		for (i = 2; i <= c; i++) {		# insertion sort
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
			a[j + 1] = t
		}
		if (c) gmed = (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
		print "| run | total | per message | |"
		print "|---|---|---|---|"
		if (sync_s != "")
			printf "| steedmail --sync, %d new messages (fetch, decrypt, verify, store) | %.2f s | %.1f ms | peak RSS %.1f MB, CPU %.2f s |\n",
			    n, sync_s, sync_s * 1000 / n, rss / 1024, usr + sys
		else
			print "| steedmail --sync | not measured | | |"
		if (c == n)
			printf "| gpg --decrypt, one process per message | %.2f s | %.1f ms median (%.1f–%.1f) | |\n",
			    total, gmed * 1000, a[1] * 1000, a[c] * 1000
		else
			print "| gpg --decrypt, one process per message | not measured | | |"
		print ""
		print "| target | measured | wanted | |"
		print "|---|---|---|---|"
		if (sync_s != "" && c == n) {
			r = (sync_s / n) / gmed
			printf "| --sync per message / gpg --decrypt per message | %.2f | ≤ 1.2 | %s |\n",
			    r, r <= 1.2 ? "met" : "**not met**"
		} else
			print "| --sync per message / gpg --decrypt per message | — | ≤ 1.2 | not measured |"
		printf "| --list after the sync: real subjects shown | %d of %d (%d as (encrypted) or ...) | all | %s |\n",
		    listed, n, hidden, (listed == n && missing == 0) ? "met" : "**not met**"
		if (d2 != "") {
			printf "| decryptions (PKDECRYPT) to open a message and reply to it | %d (open %d, reply %d) | 1 | %s |\n",
			    d2 - d0, d1 - d0, d2 - d1, (d2 - d0 == 1) ? "met" : "**not met**"
			printf "| decryptions at the interface'\''s start-up (nothing new) | %d | 0 | %s |\n",
			    d0, d0 == 0 ? "met" : "**not met**"
		} else
			print "| decryptions (PKDECRYPT) to open a message and reply to it | — | 1 | not measured |"
		print ""
		print "The sync is timed as a whole process (connect, TLS, login, fetch of the"
		print "headers and of the encrypted bodies, decryption and verification by the"
		print "trust step, the header cache); gpg is timed per process."
		print "Decryptions are the PKDECRYPT requests bob'\''s gpg-agent logged (debug ipc):"
		print "one per use of his secret key, whoever asked."
	}' "$T/gpg.times"
}

report >"$T/report.md"
cat "$T/report.md"
if [ -n "${BENCH_OUT:-}" ]; then
	{ echo; cat "$T/report.md"; } >>"$BENCH_OUT" || say "cannot write $BENCH_OUT"
fi

if [ -n "$FAILED" ]; then
	say "failed:$FAILED"
	exit 1
fi
exit 0
