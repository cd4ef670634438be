# fuzz.sh: the smoke run of every fuzzer of tests/fuzz (make check): each
# reads its seed corpus, the regressions included, then mutates for a few
# seconds, with a fixed random seed so that a failure here is repeatable.
# A crash, a leak, a time-out or a broken promise fails the check when it
# happens again with its input alone (one that does not is said, with
# the report and the input, and passes: the check wants what repeats);
# tests/fuzz/README says how to run a long campaign.
. "$(dirname "$0")/../lib.sh"

secs=${STEED_FUZZ_SMOKE_SECONDS:-3}
names=$(sed -n 's|^[[:space:]]*tests/fuzz/fuzz-\([a-z0-9-]*\).*|\1|p' Makefile.in)
[ -n "$names" ] || bail "no fuzzer listed in Makefile.in"
for n in $names; do
	if [ ! -x "tests/fuzz/fuzz-$n" ]; then
		echo "ok $((t_n += 1)) - fuzz-$n # SKIP not built: ./configure" \
		    "found no clang with libFuzzer (contrib/install-deps installs it)"
		continue
	fi
	ok "fuzz-$n: its seeds and ${secs} s of mutation, nothing found" \
	    env STEED_FUZZ_WORK="$T_TMP/fuzz" STEED_FUZZ_SMOKE=1 \
	    tests/fuzz/run "$n" "$secs" -seed=1
	# a finding that did not repeat passed, but is shown
	if grep -q 'not repeatable' "$T_TMP/out.$t_n"; then
		sed 's/^/# /' "$T_TMP/out.$t_n"
	fi
done
exit 0
