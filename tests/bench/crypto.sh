#!/bin/bash
# tests/bench/crypto.sh: the crypto half of `make bench` (see doc/bench.md
# and the crypto anchors in /work/shared/BENCH.md). No servers are needed.
#
# In a temporary directory it makes alice's and bob's keys with
# `steedmail --genkey`, swaps their public keys (--export-key,
# --import-key), and has steedmail itself build two signed and encrypted
# PGP/MIME messages from alice to bob, about 1 MB and about 10 kB: `-s
# --encrypt` queues the message in $XDG_DATA_HOME/steedmail/outbox/ID.msg
# before it sends, and with the smtp URL on a closed port it stays there.
# Then it times, interleaved in one run:
#   steedmail --inspect FILE                    as bob, on the whole message
#   gpg --homedir BOBHOME --batch --decrypt P   on the same message's
#                                               application/octet-stream part
#   tests/bench/msgopen BOBHOME FILE            one process, started once:
#                                               the message opened through
#                                               message.h (parse, decrypt,
#                                               verify, Autocrypt, trust,
#                                               display lines) per request,
#                                               after one warm-up: the
#                                               pager's case
# (BENCH_CRYPTO_REPS_BIG, 10, runs for 1 MB; BENCH_CRYPTO_REPS_SMALL, 30,
# for 10 kB), and `steedmail --genkey` for a fresh account, a fresh home
# each time (BENCH_GENKEY_REPS, 5). Every inspect run must say
# "decrypted: yes" and "signature.1.status: good", every gpg run
# DECRYPTION_OKAY and GOODSIG, every --genkey run "OpenPGP key ... created",
# so that a broken run cannot look fast.
#
# Prints a markdown table (median and min–max) and the targets of BENCH.md
# (inspect ≤ 1.2x gpg --decrypt; a message opened in a running process
# ≤ 1.2x gpg --decrypt; key creation < 1 s) with met / not met.
# Missed targets are reported, not failed: the exit status is non-zero only
# when something could not be measured.
#
# Environment: BENCH_CRYPTO_REPS_BIG, BENCH_CRYPTO_REPS_SMALL,
# BENCH_GENKEY_REPS, BENCH_LIMIT (seconds per run, 120), BENCH_OUT (the
# report is also appended to this file), BENCH_KEEP=1 (keep the temporary
# directory; the gpg-agents are stopped all the same).

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
STEEDMAIL=$ROOT/steedmail
REPS_BIG=${BENCH_CRYPTO_REPS_BIG:-10}
REPS_SMALL=${BENCH_CRYPTO_REPS_SMALL:-30}
REPS_GENKEY=${BENCH_GENKEY_REPS:-5}
LIMIT=${BENCH_LIMIT:-120}
BIG_ATTACH=700000	# random bytes attached: a message of about 1 MB
SMALL_ATTACH=5000	# and about 10 kB

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

for v in "$REPS_BIG" "$REPS_SMALL" "$REPS_GENKEY" "$LIMIT"; do
	case $v in ''|*[!0-9]*|0) die "repetitions and BENCH_LIMIT must be positive numbers, not '$v'" ;; esac
done
for p in gpg gpgconf python3; do
	command -v "$p" >/dev/null 2>&1 || die "$p is missing"
done
[ -x "$STEEDMAIL" ] || die "build first: make steedmail (or make bench)"

T=$(mktemp -d /tmp/steedcrypto.XXXXXX) || die "mktemp failed"
# Stop the agents of every GnuPG home made here: alice's, bob's and those
# of the --genkey runs (all are $T/*/steedmail/gnupg).
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
	local h sd
	trap - EXIT INT TERM HUP
	for h in "$T"/*/steedmail/gnupg; do
		[ -d "$h" ] || continue
		gpgconf --homedir "$h" --kill all >/dev/null 2>&1
		sd=$(gpgconf --homedir "$h" --list-dirs socketdir 2>/dev/null)
		case $sd in
		/run/user/*) gpgconf --homedir "$h" --remove-socketdir >/dev/null 2>&1 ;;
		esac
	done
	if [ "${BENCH_KEEP:-}" = 1 ]; then say "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# A port nothing listens on: sending fails at once, the message stays queued.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	die "cannot find a free port"

for u in alice bob; do
	cat >"$T/$u.conf" <<EOF
# steedmail configuration of $u for the crypto bench (no servers)
[account $u]
name = ${u^} Example
address = $u@steed.test
imap = imaps://127.0.0.1:$PORT
smtp = smtp://127.0.0.1:$PORT
password = $u-pw
EOF
	chmod 0600 "$T/$u.conf"
done
# sm_as WHO ARGS...: steedmail as alice or bob.
sm_as() {
	local u=$1
	shift
	XDG_DATA_HOME=$T/$u XDG_CACHE_HOME=$T/$u-cache XDG_CONFIG_HOME=$T/$u-config \
	    timeout "$LIMIT" "$STEEDMAIL" -F "$T/$u.conf" "$@"
}
BOBHOME=$T/bob/steedmail/gnupg

# --- keys -----------------------------------------------------------------

say "making alice's and bob's keys"
for u in alice bob; do
	sm_as $u --genkey </dev/null >"$T/$u.genkey" 2>&1 ||
		die "$u --genkey failed: $(cat "$T/$u.genkey")"
	grep -Eq '^OpenPGP key [0-9A-F]{40} created' "$T/$u.genkey" ||
		die "$u --genkey made no key: $(cat "$T/$u.genkey")"
done
sm_as bob --export-key </dev/null >"$T/bob.asc" 2>"$T/err" || die "bob --export-key failed: $(cat "$T/err")"
sm_as alice --export-key </dev/null >"$T/alice.asc" 2>"$T/err" || die "alice --export-key failed: $(cat "$T/err")"
sm_as alice --import-key - <"$T/bob.asc" >"$T/err" 2>&1 || die "alice --import-key failed: $(cat "$T/err")"
sm_as bob --import-key - <"$T/alice.asc" >"$T/err" 2>&1 || die "bob --import-key failed: $(cat "$T/err")"

# --- the messages -----------------------------------------------------------

# build NAME BYTES: alice's signed and encrypted message to bob, a short
# text and BYTES random bytes attached, as steedmail queues it, in
# $T/NAME.eml; its encrypted part in $T/NAME.pgp.
build() {
	local name=$1 bytes=$2 rc msg= f
	head -c "$bytes" /dev/urandom >"$T/$name.bin" || die "cannot make $T/$name.bin"
	rm -f "$T"/alice/steedmail/outbox/*
	printf 'Hello Bob,\n\nthe figures are attached.\n\nAlice\n' |
	    sm_as alice -s "bench $name" --encrypt -a "$T/$name.bin" bob@steed.test \
	    >"$T/err" 2>&1
	rc=$?
	for f in "$T"/alice/steedmail/outbox/*.msg; do
		[ -s "$f" ] && msg=$f
	done
	[ -n "$msg" ] ||
		die "alice -s --encrypt queued nothing (exit $rc): $(cat "$T/err")"
	mv "$msg" "$T/$name.eml" || die "cannot move $msg"
	rm -f "$T"/alice/steedmail/outbox/*
	python3 - "$T/$name.eml" "$T/$name.pgp" <<'PY' || die "$name: no PGP/MIME encrypted part"
import email, email.policy, sys
msg = email.message_from_binary_file(open(sys.argv[1], "rb"),
                                     policy=email.policy.compat32)
if msg.get_content_type() != "multipart/encrypted" or \
        msg.get_param("protocol") != "application/pgp-encrypted":
    sys.exit("not multipart/encrypted; protocol=application/pgp-encrypted")
parts = [p for p in msg.get_payload()
         if p.get_content_type() == "application/octet-stream"]
if len(parts) != 1:
    sys.exit("%d application/octet-stream parts" % len(parts))
data = parts[0].get_payload(decode=True)
if not data.startswith(b"-----BEGIN PGP MESSAGE-----"):
    sys.exit("the part is no armored OpenPGP message")
open(sys.argv[2], "wb").write(data)
PY
}
say "building the messages with steedmail -s --encrypt"
build big "$BIG_ATTACH"
build small "$SMALL_ATTACH"

# --- measuring ----------------------------------------------------------------

say "timing --inspect against gpg --decrypt ($REPS_BIG runs at 1 MB, $REPS_SMALL at 10 kB) and --genkey ($REPS_GENKEY runs)"
python3 - "$T" "$STEEDMAIL" "$BOBHOME" "$REPS_BIG" "$REPS_SMALL" "$REPS_GENKEY" "$LIMIT" \
    >"$T/results" <<'PY'
import os, re, subprocess, sys, time

T, SM, BOBHOME = sys.argv[1:4]
reps = {"big": int(sys.argv[4]), "small": int(sys.argv[5])}
reps_genkey, limit = int(sys.argv[6]), int(sys.argv[7])
failed = []

def env_of(who, data=None):
    e = dict(os.environ)
    e["XDG_DATA_HOME"] = data or "%s/%s" % (T, who)
    e["XDG_CACHE_HOME"] = "%s/%s-cache" % (T, who)
    e["XDG_CONFIG_HOME"] = "%s/%s-config" % (T, who)
    return e

def run(argv, env=None):
    """Run argv to completion; (seconds, exit status, stdout, stderr)."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=limit)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, "timeout", b"", b""
    return time.perf_counter() - t0, p.returncode, p.stdout, p.stderr

def fail(what, why, out=b"", err=b""):
    failed.append(what)
    sys.stderr.write("bench: %s not measured: %s\n" % (what, why))
    for line in (out + err).decode("utf-8", "replace").splitlines()[:10]:
        sys.stderr.write("bench:   %s\n" % line)

def inspect(size):
    dt, rc, out, err = run([SM, "-F", T + "/bob.conf", "--inspect",
                            "%s/%s.eml" % (T, size)], env_of("bob"))
    if rc != 0:
        return fail("inspect_" + size, "exit status %s" % rc, out, err)
    lines = out.decode("utf-8", "replace").splitlines()
    if "decrypted: yes" not in lines or \
            "signature.1.status: good" not in lines:
        return fail("inspect_" + size, "it did not decrypt and verify", out)
    return dt

BATCH = 10

def inspect_batch(size):
    """BATCH copies of the message in one --inspect process."""
    f = "%s/%s.eml" % (T, size)
    dt, rc, out, err = run([SM, "-F", T + "/bob.conf", "--inspect"] +
                           [f] * BATCH, env_of("bob"))
    if rc != 0:
        return fail("batch_" + size, "exit status %s" % rc, out, err)
    lines = out.decode("utf-8", "replace").splitlines()
    if lines.count("decrypted: yes") != BATCH or \
            lines.count("signature.1.status: good") != BATCH:
        return fail("batch_" + size, "not every copy was decrypted and "
                    "verified", out)
    return dt

def gpgmeinit():
    dt, rc, out, err = run([os.path.dirname(SM) + "/tests/bench/gpgmeinit",
                            BOBHOME])
    if rc != 0 or out != b"ok\n":
        return fail("gpgmeinit", "exit status %s" % rc, out, err)
    return dt

def gpg(size):
    dt, rc, out, err = run(["gpg", "--homedir", BOBHOME, "--batch",
                            "--status-fd", "2", "--decrypt",
                            "%s/%s.pgp" % (T, size)])
    if rc != 0:
        return fail("gpg_" + size, "exit status %s" % rc, out, err)
    if b"[GNUPG:] DECRYPTION_OKAY" not in err or \
            b"[GNUPG:] GOODSIG" not in err or len(out) < 1000:
        return fail("gpg_" + size, "it did not decrypt and verify", b"", err)
    return dt

n = 0
def genkey():
    global n
    n += 1
    data = "%s/genkey%d" % (T, n)
    dt, rc, out, err = run([SM, "-F", T + "/alice.conf", "--genkey"],
                           env_of("alice", data))
    m = re.search(rb"^OpenPGP key [0-9A-F]{40} created in ([0-9.]+) s$",
                  out + err, re.M)
    if rc != 0 or not m:
        return fail("genkey", "exit status %s, no key created" % rc, out, err)
    # Its agent stays up for the trap; stop it now so runs stay alike.
    subprocess.run(["gpgconf", "--homedir", data + "/steedmail/gnupg",
                    "--kill", "all"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    print("genkey_self", m.group(1).decode())
    return dt

MSGOPEN = {}

def msgopen_start(size):
    """The driver for size, started once and warmed up (untimed)."""
    p = subprocess.Popen([os.path.dirname(SM) + "/tests/bench/msgopen",
                          BOBHOME, "%s/%s.eml" % (T, size)],
                         env=env_of("bob"), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if p.stdout.readline() != "ready\n":
        p.kill()
        return fail("open_" + size, "the driver did not start",
                    b"", p.stderr.read().encode())
    MSGOPEN[size] = p
    return 0

def msgopen(size):
    p = MSGOPEN.get(size)
    if p is None:
        return None
    p.stdin.write("open\n")
    p.stdin.flush()
    ans = p.stdout.readline().split()
    if len(ans) != 2 or ans[0] != "ok":
        return fail("open_" + size, " ".join(ans) or "no answer")
    return float(ans[1])

def record(name, dt):
    if dt is not None:
        print(name, "%.6f" % dt)

# Warm up (untimed): the agent has bob's key loaded, the Autocrypt key is
# known, the files are in the page cache, for both alike.
for size in ("big", "small"):
    if inspect(size) is None or gpg(size) is None or \
            msgopen_start(size) is None:
        sys.exit(1)
print("batch", BATCH)

# Interleaved: inspect and gpg alternate, so that noise hits both.
for i in range(max(reps.values())):
    for size in ("big", "small"):
        if i < reps[size]:
            order = (inspect, gpg, msgopen) if i % 2 == 0 else \
                (msgopen, gpg, inspect)
            for f in order:
                record({inspect: "inspect_", gpg: "gpg_",
                        msgopen: "open_"}[f] + size, f(size))
            if i < max(3, reps[size] // 3):
                record("batch_" + size, inspect_batch(size))
    record("gpgmeinit", gpgmeinit())
for p in MSGOPEN.values():
    p.stdin.close()
    p.wait()
for i in range(reps_genkey):
    record("genkey", genkey())
if failed:
    sys.stderr.write("bench: could not measure: %s\n" %
                     " ".join(sorted(set(failed))))
    sys.exit(1)
PY
measured=$?

# --- the report ---------------------------------------------------------------

size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
gpg_v=$(gpg --version 2>/dev/null | sed -n '1s/^gpg (GnuPG) //p')
gpgme_v=$(dpkg-query -W -f='${Version}' libgpgme11 2>/dev/null)

report() {
	printf '## steedmail crypto bench, %s\n\n' "$(date '+%Y-%m-%d %H:%M')"
	printf -- '- messages built by steedmail -s --encrypt (signed and encrypted PGP/MIME, alice to bob): %s bytes and %s bytes; encrypted parts %s and %s bytes\n' \
	    "$(size_of "$T/big.eml")" "$(size_of "$T/small.eml")" \
	    "$(size_of "$T/big.pgp")" "$(size_of "$T/small.pgp")"
	printf -- '- GnuPG %s, gpgme %s; keys: Ed25519 + Cv25519 (steedmail --genkey)\n' \
	    "${gpg_v:-?}" "${gpgme_v:-?}"
	printf -- '- machine: %s cores, %s; runs interleaved, warm gpg-agent\n\n' \
	    "$(nproc)" "${cpu:-unknown CPU}"
	awk '
	function med(k,   n, i, j, t, a) {
		n = cnt[k]
		for (i = 1; i <= n; i++) a[i] = v[k, i]
		for (i = 2; i <= n; i++) {		# insertion sort
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
			a[j + 1] = t
		}
		lo[k] = a[1]; hi[k] = a[n]
		if (n % 2) return a[(n + 1) / 2]
		return (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ k = $1; cnt[k]++; v[k, cnt[k]] = $2 }
	function row(k, name) {
		if (!(k in cnt)) {
			printf "| %s | not measured | |\n", name
			return
		}
		M[k] = med(k)
		printf "| %s | %.1f ms (%.1f–%.1f) | %d |\n", name, M[k] * 1000,
		    lo[k] * 1000, hi[k] * 1000, cnt[k]
	}
	function ratio(what, a, b, op, lim, unit, scale,   r, ok) {
		if (a == "" || b == "" || b + 0 == 0) {
			printf "| %s | — | %s %s%s | not measured |\n", what, op, lim, unit
			return
		}
		r = a / b
		ok = (op == "≤") ? r <= lim : r < lim
		printf "| %s | %.*f%s | %s %s%s | %s |\n", what, scale, r, unit, op,
		    lim, unit, ok ? "met" : "**not met**"
	}
	END {
		print "| run | time, median (min–max) | runs |"
		print "|---|---|---|"
		row("inspect_big", "steedmail --inspect, 1 MB message")
		row("gpg_big", "gpg --decrypt, its encrypted part")
		row("inspect_small", "steedmail --inspect, 10 kB message")
		row("gpg_small", "gpg --decrypt, its encrypted part")
		row("genkey", "steedmail --genkey, fresh account")
		row("gpgmeinit", "gpgme start-up alone (tests/bench/gpgmeinit)")
		row("open_big", "message_open() in a running process, 1 MB message")
		row("open_small", "message_open() in a running process, 10 kB message")
		B = ("batch" in cnt) ? v["batch", 1] : 0
		row("batch_big", "steedmail --inspect, " B " copies of the 1 MB message, one process")
		row("batch_small", "steedmail --inspect, " B " copies of the 10 kB message, one process")
		if (B > 1 && ("batch_big" in cnt) && ("inspect_big" in cnt))
			per_big = (M["batch_big"] - M["inspect_big"]) / (B - 1)
		if (B > 1 && ("batch_small" in cnt) && ("inspect_small" in cnt))
			per_small = (M["batch_small"] - M["inspect_small"]) / (B - 1)
		if (per_big != "")
			printf "| steedmail --inspect, 1 MB, each message after the first in one process | %.1f ms | |\n", per_big * 1000
		if (per_small != "")
			printf "| steedmail --inspect, 10 kB, each message after the first in one process | %.1f ms | |\n", per_small * 1000
		if ("genkey_self" in cnt)
			gs = med("genkey_self")
		print ""
		print "| target | measured | wanted | |"
		print "|---|---|---|---|"
		ratio("--inspect / gpg --decrypt, 1 MB", M["inspect_big"], M["gpg_big"], "≤", 1.2, "", 2)
		ratio("--inspect / gpg --decrypt, 10 kB", M["inspect_small"], M["gpg_small"], "≤", 1.2, "", 2)
		ratio("message opened in a running process / gpg --decrypt, 1 MB", M["open_big"], M["gpg_big"], "≤", 1.2, "", 2)
		ratio("message opened in a running process / gpg --decrypt, 10 kB", M["open_small"], M["gpg_small"], "≤", 1.2, "", 2)
		ratio("--genkey, whole process", M["genkey"], 1, "<", 1, " s", 2)
		ratio("--inspect in one process, per message / gpg --decrypt, 1 MB", per_big, M["gpg_big"], "≤", 1.2, "", 2)
		ratio("--inspect in one process, per message / gpg --decrypt, 10 kB", per_small, M["gpg_small"], "≤", 1.2, "", 2)
		ratio("gpgme start-up alone / gpg --decrypt, 10 kB", M["gpgmeinit"], M["gpg_small"], "≤", 1.2, "", 2)
		print ""
		print "Times are whole processes, median of the runs; the ratios are of the medians."
		if (("inspect_big" in cnt) && ("gpg_big" in cnt) && ("inspect_small" in cnt) && ("gpg_small" in cnt))
			printf "What --inspect costs beyond gpg: %.1f ms at 1 MB, %.1f ms at 10 kB.\n",
			    (M["inspect_big"] - M["gpg_big"]) * 1000,
			    (M["inspect_small"] - M["gpg_small"]) * 1000
		if (gs != "")
			printf "--genkey reports %.2f s for the key itself (median).\n", gs
	}' "$T/results"
}

report >"$T/report.md"
cat "$T/report.md"
if [ -n "${BENCH_OUT:-}" ]; then
	{ echo; cat "$T/report.md"; } >>"$BENCH_OUT" || say "cannot write $BENCH_OUT"
fi

[ "$measured" = 0 ] || exit 1
exit 0
