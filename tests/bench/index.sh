#!/bin/bash
# tests/bench/index.sh: the index half of `make bench` (see doc/bench.md).
#
# Runs tests/bench/indexbench on a generated header cache of BENCH_INDEX_N
# (100000) messages, BENCH_INDEX_RUNS (5) times, and prints a markdown
# table of medians: opening the snapshot, making each view (sorting,
# threading) and the slowest of three pages of 50 rows (start, middle,
# end, trust states included) in every sort both ways, and a search, with
# the targets of issue 12: a page of any sort in at most 5 ms, the thread
# sort of 100,000 in at most 0.3 s. Missed targets are reported, not
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
$1 == "snapshot" { snap = $2 }
$1 == "open" { put("open", $2) }
$1 == "view" { put("view " $2, $3); sorts[$2] = 1 }
$1 == "page" { put("page " $2, $3) }
$1 == "search" { n = $NF; found = $(NF - 1); sub(/^search /, ""); sub(/ [0-9]+ [0-9.]+$/, ""); sexpr = $0; put("search", n) }
END {
	printf "Filling the cache (not in the table): %.1f s. Memory a snapshot takes (peak RSS growth while opening it): %.1f MB.\n\n", fill, snap / 1048576
	print "| what | median (min–max) |"
	print "|---|---|"
	m = med("open"); printf "| open the snapshot (index_open) | %s (%s–%s) |\n", ms(m), ms(lo["open"]), ms(hi["open"])
	worst = 0; tview = 0
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (k !~ /^view /) continue
		s = substr(k, 6)
		mv = med(k); mp = med("page " s)
		printf "| sort %s: make the view | %s (%s–%s) |\n", s, ms(mv), ms(lo[k]), ms(hi[k])
		printf "| sort %s: a page of 50, slowest of three | %s (%s–%s) |\n", s, ms(mp), ms(lo["page " s]), ms(hi["page " s])
		if (mp > worst) { worst = mp; wsort = s }
		if (s == "thread") tview = mv
	}
	m = med("search"); printf "| search %s (%d found): make the view | %s (%s–%s) |\n", sexpr, found, ms(m), ms(lo["search"]), ms(hi["search"])
	print ""
	print "| target | measured | wanted | |"
	print "|---|---|---|---|"
	printf "| a page of 50 rows, any sort (slowest: %s) | %s | ≤ 5 ms | %s |\n", wsort, ms(worst), worst <= 0.005 ? "met" : "**not met**"
	printf "| thread sort of all messages | %s | ≤ 0.3 s | %s |\n", ms(tview), tview <= 0.3 ? "met" : "**not met**"
}' "$T/out"
} >"$T/report.md"
cat "$T/report.md"
if [ -n "${BENCH_OUT:-}" ]; then cp "$T/report.md" "$BENCH_OUT" || say "cannot write $BENCH_OUT"; fi
exit 0
