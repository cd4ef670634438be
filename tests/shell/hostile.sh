# hostile.sh: the view survives every message in tests/hostile/ and every
# large one tests/hostile/gen.sh writes: exit 0, in a few seconds, and not
# one raw control character, C1 control or bidirectional override in what
# it prints. Then a few checks that the limits did what they say, and
# steedmail --view and --inspect on the header and address bombs.
. "$(dirname "$0")/../lib.sh"

VT=tests/tools/viewtest
[ -x "$VT" ] || bail "$VT is not built (make check builds it)"
command -v python3 >/dev/null 2>&1 || bail "python3 is needed to check the output"

# Sanitizer builds run several times slower.
limit=5
if nm "$VT" 2>/dev/null | grep -q __asan_init; then
	limit=40
fi

# clean FILE: FILE is UTF-8 with no C0 control but TAB and LF, no DEL, no
# C1 control, no bidi control, no line or paragraph separator.
clean() {
	python3 - "$1" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    print("output is not UTF-8 at byte %d" % e.start)
    sys.exit(1)
m = re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f"
              "\u2028-\u202e\u2066-\u2069]", text)
if m:
    print("raw U+%04X at character %d" % (ord(m.group()), m.start()))
    sys.exit(1)
PY
}

# run FILE: view it; record exit status and time taken.
run() {
	_s=$(date +%s%N)
	timeout -k 5 120 "$VT" "$1" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	_e=$(date +%s%N)
	ms=$(( (_e - _s) / 1000000 ))
}

MARK=$(printf '\342\224\203')	# U+2503, the mark of the view's own lines
gen="$T_TMP/gen"
ok "gen.sh writes the large messages" sh tests/hostile/gen.sh "$gen"

for f in tests/hostile/*.eml "$gen"/*.eml; do
	name=${f##*/}
	run "$f"
	ok "$name: exit 0 (got $rc)" test "$rc" = 0
	ok "$name: nothing raw reaches the terminal" clean "$T_TMP/out"
	ok "$name: done in ${ms} ms (limit ${limit} s)" test "$ms" -le $((limit * 1000))
	case $name in
	nest-100.eml|nest-20000.eml|nest-rfc822.eml)
		ok "$name: deeper parts shown as nested too deeply" \
		    has "$T_TMP/out" "nested too deeply, not shown"
		"$VT" -t "$f" >"$T_TMP/tree"
		ok "$name: no part deeper than 32" sh -c \
		    "awk '/^[0-9]+ / && \$1 + 0 > 32 { exit 1 }' '$T_TMP/tree'" ;;
	parts-10000.eml|parts-empty.eml)
		ok "$name: the parts past 1000 are cut, and it says so" \
		    has "$T_TMP/out" "more than 1000 parts" ;;
	big-text.eml)
		ok "$name: a huge text is cut, and it says so" \
		    has "$T_TMP/out" "only the first" ;;
	big-attachment.eml)
		ok "$name: the 50 MB part is listed with its size" \
		    has "$T_TMP/out" "37.0 MB  \"big.bin\"" ;;
	boundary-quote.eml)
		ok "$name: the part after boundary=\"\\\"\" is shown" \
		    has "$T_TMP/out" "hi" ;;
	boundary-prefix.eml)
		ok "$name: a boundary that prefixes another splits right" \
		    sh -c "grep -c '^$MARK part' '$T_TMP/out' | grep -qx 3" ;;
	marker-forgery.eml)
		ok "$name: only the view's own lines start with the mark" \
		    sh -c "grep -c '^$MARK' '$T_TMP/out' | grep -qx 3" ;;
	esac
done
# The whole program on the header bombs: --view and --inspect read the
# address and Autocrypt fields (addr-list.c, autocrypt-parse.c) too, which
# the view alone does not. Each exits 0, says the From field gave no
# address where it has none, and leaves no sanitizer report.
SM_GPG=$XDG_DATA_HOME/steedmail/gnupg
trap 'gpgconf --homedir "$SM_GPG" --kill all >/dev/null 2>&1; rm -rf "$T_TMP"' EXIT
for f in tests/hostile/addr-*.eml "$gen"/addr-*.eml "$gen"/paren-bomb.eml \
    "$gen"/quote-bomb.eml "$gen"/encoded-word-bomb.eml; do
	name=${f##*/}
	for cmd in view inspect; do
		_s=$(date +%s%N)
		timeout -k 5 120 "$STEEDMAIL" --$cmd "$f" >"$T_TMP/out" 2>&1
		rc=$?
		ms=$(( ($(date +%s%N) - _s) / 1000000 ))
		ok "$name: --$cmd exits 0 (got $rc), in ${ms} ms (limit ${limit} s)" \
		    test "$rc" = 0 -a "$ms" -le $((limit * 1000))
		ok "$name: --$cmd: no sanitizer report" sh -c \
		    "! grep -qE 'Sanitizer|runtime error' '$T_TMP/out'"
		[ $cmd = view ] && ok "$name: --view: nothing raw reaches the terminal" \
		    clean "$T_TMP/out"
		case $cmd/$name in
		view/addr-*) ok "$name: --view: the body is shown" \
		    sh -c "grep -v '^$MARK' '$T_TMP/out' | grep -q 'body'" ;;
		esac
	done
	case $name in
	addr-paren.eml|addr-nest.eml|addr-slow.eml|paren-bomb.eml)
		ok "$name: --inspect: no single From address, no trust state" \
		    sh -c "grep -qx 'trust.evidence: the message has no single From address' '$T_TMP/out' && grep -qx 'trust.state: none' '$T_TMP/out'" ;;
	addr-ok.eml)
		ok "$name: --inspect: the From address beside the bombs is read" \
		    sh -c "grep -q 'no key known' '$T_TMP/out' && ! grep -q 'no single From' '$T_TMP/out'" ;;
	esac
done
rm -rf "$gen"
exit 0
