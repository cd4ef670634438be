#!/bin/bash
# tests/bench/pgpsync.sh: encrypted mail in `make bench` (issue 22; see
# doc/bench.md): what the sync's trust step costs per signed and encrypted
# message, and how many decryptions opening a message and replying to it
# take.
#
# Starts a tests/env instance; alice and bob make their keys (steedmail
# --genkey, no passphrase) and import each other's (--export-key,
# --import-key). bob's gpg-agent gets `debug ipc` and a log file: every
# PKDECRYPT request (one per use of his secret key to decrypt a session
# key, whoever asks) is a line there, and the decryptions below are
# counted so. alice's steedmail builds one signed and encrypted PGP/MIME
# message to bob with its protected header (RFC 9788), `-s --encrypt`
# queued to a closed port as crypto.sh does; tests/bench/pgpgen.py makes
# BENCH_PGP_N (5000) of that form from it, each with a subject of its own,
# signed by alice and encrypted to both in one gpg pass as steedmail does,
# BENCH_PGP_JOBS (2) gpg processes at once, and APPENDs them to bob's INBOX
# over IMAPS (python imaplib) while it makes the next ones. Then, with
# bob's gpg-agent warm:
#   (1) bob's `steedmail --sync`, timed as a whole process, twice, each
#       from an empty header cache: with the default settings (its trust
#       step decrypts and verifies the newest sync-trust-limit new
#       messages, then the older ones, the newest first), and with
#       sync-trust-limit = N (every one before it would return). The
#       second finds bob's trust store knowing every message, and opens
#       each for its protected header only. Then `gpg --decrypt` of each message's encrypted
#       part, one process per message, as bob (each must say
#       DECRYPTION_OKAY and GOODSIG). Per decryption: the sync's time over
#       its decryptions against gpg's median. After each sync `steedmail
#       --list` must show every message by its real subject (not
#       "(encrypted)", not "..."), or the bench fails.
#   (2) bob's interface runs in tmux at 80x24; once its index is drawn and
#       the agent quiet, Enter opens the message under the cursor and r
#       replies to it (an $EDITOR that keeps what it was given). The
#       decryptions are counted at start-up, after the opening and after
#       the reply; the target is one in all.
# Prints markdown tables with met / not met. Missed targets are reported,
# not failed, except that the run fails (non-zero) when --list does not
# show every real subject, when the decryptions could not be counted, or
# when anything else could not be measured.
#
# Environment: BENCH_PGP_N, BENCH_PGP_JOBS, BENCH_LIMIT (seconds per step,
# 600 for the sync), BENCH_OUT (the report is appended to this file),
# BENCH_KEEP=1 (keep the temporary directory and the test environment's),
# BENCH_STEEDMAIL (another steedmail binary to measure, e.g. an older
# commit's; the tree's by default).

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
STEEDMAIL=${BENCH_STEEDMAIL:-$ROOT/steedmail}
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
[ "$N" -le 100000 ] || die "BENCH_PGP_N must be at most 100000 (sync-trust-limit)"
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

# Every PKDECRYPT request to bob's agent (one per use of his secret key to
# decrypt a session key, whoever asks) is a line in its log from now on.
printf 'log-file %s\ndebug ipc\n' "$T/agent.log" >>"$BH/gpg-agent.conf"
gpgconf --homedir "$BH" --kill gpg-agent >/dev/null 2>&1
pkdecrypt() { cat "$T/agent.log" 2>/dev/null | grep -c ' <- PKDECRYPT'; }

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
dflt_S='' dflt_RSS=0 dflt_CPU=0 dflt_DEC=0 dflt_LISTED=0 dflt_HIDDEN=0 dflt_OK=0
all_S='' all_RSS=0 all_CPU=0 all_DEC=0 all_LISTED=0 all_HIDDEN=0 all_OK=0
BOBCONF=$STEED_ENV/home/bob/config/steedmail/config
{ echo "sync-trust-limit = $N"; cat "$BOBCONF"; } >"$T/bob-all.conf"
chmod 0600 "$T/bob-all.conf"

# sync_run NAME [ARGS...]: bob's cold --sync (no header cache), timed; then
# his --list with the same ARGS, its subjects checked against the ones
# made. Sets NAME_S, NAME_RSS, NAME_CPU, NAME_DEC (the decryptions bob's
# agent did meanwhile), NAME_LISTED (real subjects listed), NAME_HIDDEN
# ("(encrypted)" or "..." listed), NAME_OK (1: every real subject shown).
sync_run() {
	local name=$1 rc s rss usr sys dec listed hidden missing
	shift
	rm -rf "$STEED_ENV/home/bob/cache"
	dec=$(pkdecrypt)
	say "timing bob's steedmail${*:+ $*} --sync of the $N new messages (no header cache)"
	/usr/bin/time -f '%e %M %U %S' -o "$T/$name.time" timeout "$LIMIT" \
	    "$STEED_ENV_BIN/as" bob "$STEEDMAIL" "$@" --sync </dev/null \
	    >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	read -r s rss usr sys <<<"$(tail -n 1 "$T/$name.time")"
	dec=$(($(pkdecrypt) - dec))
	if [ $rc -ne 0 ]; then
		say "steedmail --sync: exit status $rc"
		sed 's/^/bench:   /' "$T/$name.err" | head -n 10 >&2
		FAILED="$FAILED $name"
		return
	fi
	if grep -q 'not decrypted' "$T/$name.out" "$T/$name.err"; then
		say "the sync left messages undecrypted:"
		grep 'not decrypted' "$T/$name.out" "$T/$name.err" | head -n 5 >&2
	fi
	as bob steedmail "$@" --list </dev/null >"$T/$name.list" 2>"$T/err" ||
		{ say "--list failed: $(cat "$T/err")"; FAILED="$FAILED $name"; return; }
	awk -F '\t' '{ print $5 }' "$T/$name.list" | sort >"$T/$name.subjects"
	listed=$(grep -c '^Bench subject ' "$T/$name.subjects")
	hidden=$(grep -c -x -e '(encrypted)' -e '\.\.\.' "$T/$name.subjects")
	missing=$(comm -23 "$T/want.subjects" "$T/$name.subjects" | wc -l)
	printf -v "${name}_S" %s "$s"
	printf -v "${name}_RSS" %s "$rss"
	printf -v "${name}_CPU" %s "$(awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }')"
	printf -v "${name}_DEC" %s "$dec"
	printf -v "${name}_LISTED" %s "$listed"
	printf -v "${name}_HIDDEN" %s "$hidden"
	if [ "$missing" -eq 0 ] && [ "$listed" -eq "$N" ]; then
		printf -v "${name}_OK" 1
	else
		printf -v "${name}_OK" 0
		say "--list${*:+ $*} after the sync misses $missing real subjects ($hidden shown as (encrypted) or ...):"
		comm -23 "$T/want.subjects" "$T/$name.subjects" | head -n 3 | sed 's/^/bench:   /' >&2
		FAILED="$FAILED ${name}_subjects"
	fi
}
cut -f 2 "$T/msg/subjects" | sort >"$T/want.subjects"
# As a user has it (the default sync-trust-limit), then with a limit that
# takes in every new message: each from an empty header cache.
sync_run dflt
sync_run all -F "$T/bob-all.conf"

say "timing gpg --decrypt of the $N encrypted parts, one process each"
GPG_DEC=$(pkdecrypt)
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
GPG_DEC=$(($(pkdecrypt) - GPG_DEC))

# --- (2) opening a message and replying: decryptions --------------------------

say "counting the decryptions of opening a message and replying to it"
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
	for _ in $(seq 1 $((${2:-30} * 10))); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	say "the screen never showed '$1':"
	screen | sed 's/^/bench:   |/' >&2
	return 1
}
# quiet: until the agent's log has not grown for a second.
quiet() {
	local a b
	for _ in $(seq 1 30); do
		a=$(stat -c %s "$T/agent.log" 2>/dev/null || echo 0)
		sleep 1
		b=$(stat -c %s "$T/agent.log" 2>/dev/null || echo 0)
		[ "$a" = "$b" ] && return 0
	done
}
DEC_START='' DEC_OPEN='' DEC_REPLY='' OPENED=''
DEC_BASE=$(pkdecrypt)
tx -f "$T/tmux.conf" new-session -d -s b -x 80 -y 24 \
    "env TERM=screen LANG=C.UTF-8 EDITOR=$T/editor $STEED_ENV_BIN/as bob $STEEDMAIL 2>$T/tui.err" ||
	die "tmux failed"
tx resize-window -t b -x 80 -y 24 >/dev/null 2>&1
if wait_for "Bench subject" 60 && wait_for "sort:" 10; then
	sleep 2
	quiet
	DEC_START=$(($(pkdecrypt) - DEC_BASE))
	# the newest message is under the cursor
	OPENED=$(screen | grep -o 'Bench subject [0-9]*' | sort | tail -n 1 | awk '{ print $3 }')
	tx send-keys -t b Enter
	if wait_for "of the sync bench." 30; then
		quiet
		DEC_OPEN=$(($(pkdecrypt) - DEC_BASE))
		tx send-keys -t b r
		for _ in $(seq 1 300); do [ -s "$T/seen" ] && break; sleep 0.1; done
		if [ -s "$T/seen" ] && wait_for "Re: Bench subject" 30; then
			quiet
			DEC_REPLY=$(($(pkdecrypt) - DEC_BASE))
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

report() {
	printf '## steedmail encrypted-mail bench, %s\n\n' "$(date '+%Y-%m-%d %H:%M')"
	printf -- '- %s signed and encrypted PGP/MIME messages (alice to bob, protected header, about %s bytes each, the form of steedmail -s --encrypt), APPENDed to bob'\''s INBOX (Dovecot %s, IMAPS on loopback)\n' \
	    "$N" "$size" "${dovecot_v:-?}"
	printf -- '- GnuPG %s; keys: Ed25519 + Cv25519 (steedmail --genkey), no passphrase; warm gpg-agent\n' "${gpg_v:-?}"
	printf -- '- machine: %s cores, %s; load average at the end: %s\n' \
	    "$(nproc)" "${cpu:-unknown CPU}" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf -- '- setup (not in the tables): making and APPENDing the messages %s s\n' "$gen_s"
	printf -- '- opened and replied to in the interface: "Bench subject %s" (tmux, 80x24)\n\n' "${OPENED:-?}"
	awk -v n="$N" \
	    -v ds="$dflt_S" -v drss="$dflt_RSS" -v dcpu="$dflt_CPU" \
	    -v dtr="$dflt_DEC" -v dl="$dflt_LISTED" -v dh="$dflt_HIDDEN" -v dok="$dflt_OK" \
	    -v as="$all_S" -v arss="$all_RSS" -v acpu="$all_CPU" \
	    -v atr="$all_DEC" -v al="$all_LISTED" -v ah="$all_HIDDEN" -v aok="$all_OK" \
	    -v gdec="$GPG_DEC" -v d0="$DEC_START" -v d1="$DEC_OPEN" -v d2="$DEC_REPLY" '
	function syncrow(name, s, rss, cpu, tr) {
		if (s == "") {
			printf "| %s | not measured | | | |\n", name
			return
		}
		printf "| %s | %.2f s | %d | %s | %.1f MB, %.2f s |\n", name, s, tr,
		    (tr > 0) ? sprintf("%.1f ms", s * 1000 / tr) : "—", rss / 1024, cpu
	}
	function listrow(name, s, l, h, ok) {
		if (s == "") {
			printf "| %s | — | all %d | not measured |\n", name, n
			return
		}
		printf "| %s | %d of %d (%d as (encrypted) or ...) | all %d | %s |\n",
		    name, l, n, h, n, ok == 1 ? "met" : "**not met**"
	}
	{ a[++c] = $1; total += $1 }
	END {
		for (i = 2; i <= c; i++) {		# insertion sort
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
			a[j + 1] = t
		}
		if (c) gmed = (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
		print "| run | time | decryptions (PKDECRYPT) | per decryption | peak RSS, CPU |"
		print "|---|---|---|---|---|"
		syncrow("steedmail --sync, default settings", ds, drss, dcpu, dtr)
		syncrow("steedmail --sync, sync-trust-limit = " n, as, arss, acpu, atr)
		if (c == n)
			printf "| gpg --decrypt, one process per message | %.2f s | %d | %.1f ms median (%.1f–%.1f) | |\n",
			    total, gdec, gmed * 1000, a[1] * 1000, a[c] * 1000
		else
			print "| gpg --decrypt, one process per message | not measured | | | |"
		print ""
		print "| target | measured | wanted | |"
		print "|---|---|---|---|"
		if (ds != "" && c == n && dtr >= n) {
			r = (ds / n) / gmed
			printf "| --sync, default settings (every message decrypted, states recorded) per message / gpg --decrypt per message | %.2f | ≤ 1.2 | %s |\n",
			    r, r <= 1.2 ? "met" : "**not met**"
		} else
			print "| --sync, default settings (every message decrypted, states recorded) per message / gpg --decrypt per message | — | ≤ 1.2 | not measured or not every message decrypted |"
		if (as != "" && c == n && atr == n) {
			r = (as / n) / gmed
			printf "| --sync (every message decrypted) per message / gpg --decrypt per message | %.2f | ≤ 1.2 | %s |\n",
			    r, r <= 1.2 ? "met" : "**not met**"
		} else
			print "| --sync (every message decrypted) per message / gpg --decrypt per message | — | ≤ 1.2 | not measured |"
		listrow("--list after the sync, default settings: real subjects", ds, dl, dh, dok)
		listrow("--list after the sync, sync-trust-limit = " n ": real subjects", as, al, ah, aok)
		if (d2 != "") {
			printf "| decryptions (PKDECRYPT) to open a message and reply to it | %d (open %d, reply %d) | 1 | %s |\n",
			    d2 - d0, d1 - d0, d2 - d1, (d2 - d0 == 1) ? "met" : "**not met**"
			printf "| decryptions at the interface'\''s start-up (nothing new) | %d | 0 | %s |\n",
			    d0, d0 == 0 ? "met" : "**not met**"
		} else
			print "| decryptions (PKDECRYPT) to open a message and reply to it | — | 1 | not measured |"
		print ""
		print "Each sync starts from an empty header cache and is timed as a whole"
		print "process: connect, TLS, login, the header fetch, then the trust step,"
		print "which fetches each new signed or encrypted message (the newest"
		print "sync-trust-limit first, then the older ones, the newest first),"
		print "decrypts and verifies it, and keeps its protected header; the first"
		print "sync records each state in bob'\''s trust store, the second finds them"
		print "there. Per decryption is the whole time over the number of"
		print "decryptions. gpg is timed per process."
		print "Decryptions are the PKDECRYPT requests bob'\''s gpg-agent logged (debug ipc)"
		print "meanwhile: one per use of his secret key, whoever asked."
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
