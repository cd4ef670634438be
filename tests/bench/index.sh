#!/bin/bash
# tests/bench/index.sh: the index half of `make bench` (see doc/bench.md).
#
# Runs tests/bench/indexbench on a generated header cache of BENCH_INDEX_N
# (100000) messages, BENCH_INDEX_RUNS (5) times, and prints a markdown
# table of medians: opening the index, counting each view (with
# threading) and the slowest of three pages of 50 rows (start, middle,
# end, trust states included) in every sort both ways, and a search, with
# the targets of issue 12: a page of any sort in at most 5 ms, the thread
# sort of 100,000 in at most 0.3 s. Then the memory the index takes:
# indexbench -m on that cache and on one of a tenth of its size (the
# reads the interface makes: every view, paging, stepping, a search),
# whose peak RSS must be the same within 25 % (nothing in memory grows
# with the mailbox; issue 26). Missed targets are reported, not
# failed: the exit status is non-zero only when something could not be
# measured. BENCH_OUT: also write the report there; BENCH_KEEP=1: keep
# the temporary directory.

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
DRIVER=$ROOT/tests/bench/indexbench
N=${BENCH_INDEX_N:-100000}
RUNS=${BENCH_INDEX_RUNS:-5}

say() { printf 'bench: %s\n' "$*" >&2; }
case $N in ''|*[!0-9]*) say "BENCH_INDEX_N must be a number"; exit 2 ;; esac
case $RUNS in ''|*[!0-9]*|0) say "BENCH_INDEX_RUNS must be a positive number"; exit 2 ;; esac
[ -x "$DRIVER" ] || { say "build first: make tests/bench/indexbench (or make bench)"; exit 1; }

T=$(mktemp -d /tmp/steedindex.XXXXXX) || exit 1
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() { [ "${BENCH_KEEP:-}" = 1 ] && say "kept $T" || rm -rf "$T"; }
trap cleanup EXIT

say "index: filling a cache of $N messages and timing $RUNS runs"
if ! "$DRIVER" -n "$N" -r "$RUNS" "$T" >"$T/out" 2>"$T/err"; then
	say "indexbench failed: $(cat "$T/err")"
	exit 1
fi

small=$((N / 10))
[ "$small" -ge 100 ] || small=100
mkdir "$T/small" || exit 1
say "index: memory at $N and at $small messages"
if ! "$DRIVER" -n "$small" -r 1 "$T/small" >/dev/null 2>"$T/err" ||
    ! "$DRIVER" -m "$T" >"$T/peak.big" 2>"$T/err" ||
    ! "$DRIVER" -m "$T/small" >"$T/peak.small" 2>"$T/err"; then
	say "indexbench -m failed: $(cat "$T/err")"
	exit 1
fi
peak_big=$(awk '$1 == "peak" { print $2 }' "$T/peak.big")
peak_small=$(awk '$1 == "peak" { print $2 }' "$T/peak.small")

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
printf '## steedmail index bench, %s\n\n' "$(date '+%Y-%m-%d %H:%M')"
printf -- '- %s messages in a generated header cache (about half of them replies, one in ten of those to a message not in the mailbox); one trust state in twenty stored\n' "$N"
printf -- '- machine: %s cores, %s; load average %s\n' "$(nproc)" "${cpu:-unknown CPU}" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf -- '- %s runs; medians (min–max)\n\n' "$RUNS"
awk '
function med(k,   n, i, j, t, a) {
	n = cnt[k]
	for (i = 1; i <= n; i++) a[i] = v[k, i]
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	lo[k] = a[1]; hi[k] = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ms(s) { return s < 0.001 ? sprintf("%.0f µs", s * 1e6) : sprintf("%.1f ms", s * 1e3) }
function put(k, x) { if (!((k) in cnt)) order[++nk] = k; cnt[k]++; v[k, cnt[k]] = x }
$1 == "fill" { fill = $3 }
$1 == "threads" { threads = $2 }
$1 == "threads-new" { tnew = $3 }
$1 == "snapshot" { snap = $2 }
$1 == "open" { put("open", $2) }
$1 == "view" { put("view " $2, $3); sorts[$2] = 1 }
$1 == "page" { put("page " $2, $3) }
$1 == "search" { n = $NF; found = $(NF - 1); sub(/^search /, ""); sub(/ [0-9]+ [0-9.]+$/, ""); sexpr = $0; put("search", n) }
$1 == "limit" { n = $NF; lfound = $(NF - 1); sub(/^limit /, ""); sub(/ [0-9]+ [0-9.]+$/, ""); lexpr = $0; put("limit", n) }
END {
	printf "Filling the cache (not in the table): %.1f s; making its stored thread order: %.2f s", fill, threads
	if (tnew != "") printf "; 1,000 new messages stored, then threaded into it: %.2f s", tnew
	printf ".\n\n"
	print "| what | median (min–max) |"
	print "|---|---|"
	m = med("open"); printf "| open the index (index_open) | %s (%s–%s) |\n", ms(m), ms(lo["open"]), ms(hi["open"])
	worst = 0; tview = 0
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (k !~ /^view /) continue
		s = substr(k, 6)
		mv = med(k); mp = med("page " s)
		printf "| sort %s: count the view | %s (%s–%s) |\n", s, ms(mv), ms(lo[k]), ms(hi[k])
		printf "| sort %s: a page of 50, slowest of three | %s (%s–%s) |\n", s, ms(mp), ms(lo["page " s]), ms(hi["page " s])
		if (mp > worst) { worst = mp; wsort = s }
		if (s == "thread") tview = mv
	}
	m = med("search"); printf "| search %s (%d found): make the view | %s (%s–%s) |\n", sexpr, found, ms(m), ms(lo["search"]), ms(hi["search"])
	print ""
	print "| target | measured | wanted | |"
	print "|---|---|---|---|"
	printf "| a page of 50 rows, any sort (slowest: %s) | %s | ≤ 5 ms | %s |\n", wsort, ms(worst), worst <= 0.005 ? "met" : "**not met**"
	printf "| thread sort of all messages (its stored order made: %s) | %s | ≤ 0.3 s | %s |\n", ms(threads), ms(tview), tview <= 0.3 ? "met" : "**not met**"
	if ("limit" in cnt) { m = med("limit"); printf "| limit by sender %s (%d found): count and first page, newest first | %s | ≤ 100 ms | %s |\n", lexpr, lfound, ms(m), m <= 0.1 ? "met" : "**not met**" }
}' "$T/out"
awk -v n="$N" -v s="$small" -v b="$peak_big" -v l="$peak_small" 'BEGIN {
	r = b / l
	printf "| peak RSS of the index'"'"'s reads (every view, paging, stepping, a search), %d against %d messages | %.1f MB against %.1f MB (%.2fx) | ≤ 1.25x (flat) | %s |\n", n, s, b / 1048576, l / 1048576, r, r <= 1.25 ? "met" : "**not met**"
}'
} >"$T/report.md"
cat "$T/report.md"
if [ -n "${BENCH_OUT:-}" ]; then cp "$T/report.md" "$BENCH_OUT" || say "cannot write $BENCH_OUT"; fi
exit 0
