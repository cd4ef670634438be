# tui-keys.sh: the interface's keys, help and folders screens, in tmux at
# 80x24 against the test Dovecot. A user of its own, with `bind` lines in
# its configuration: a good one changes a key, a bad one is reported on the
# message line and steedmail goes on; `?` on the index lists every default
# binding of the index and the generic map (from tests/unit/test-tui-keys
# --defaults) and the legend of the indicators in the locale's form (the
# ASCII forms with LANG=C, the UTF-8 ones with a UTF-8 locale, both read
# from ui/tui-draw.c); the folders screen lists INBOX, the special-use
# folders and a folder with a non-ASCII name, with the server's counts,
# several accounts each under its heading (one of them offline, saying
# why), and Enter opens a folder.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
KEYS=$PWD/tests/unit/test-tui-keys
[ -x "$KEYS" ] || bail "tests/unit/test-tui-keys is not built (make tests/unit/test-tui-keys)"

ADDR=keys-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"
"$STEED_ENV_BIN/add-user" "$ADDR" keys-pw || bail "add-user failed"
$DOVE mailbox create -u "$ADDR" "Entwürfe" "日本語 😀" ||
    bail "cannot create the folders"

# save FOLDER SUBJECT [FLAGS]: a message straight into a folder.
save() {
	printf 'From: Carol <carol@steed.test>\nTo: %s\nSubject: %s\n\nbody\n' \
	    "$ADDR" "$2" | $DOVE save -u "$ADDR" -m "$1" ||
	    bail "cannot save into $1"
	if [ -n "${3:-}" ]; then
		$DOVE flags add -u "$ADDR" "$3" mailbox "$1" subject "$2" ||
		    bail "cannot flag in $1"
	fi
}
save INBOX "keys one"
save INBOX "keys two" '\Seen'
save INBOX "keys three"
save Sent "keys sent"
save Trash "keys trash one" '\Seen'
save Trash "keys trash two" '\Seen'
save "Entwürfe" "keys draft"

# The configuration: bind lines (global, before the accounts), this
# user's account, then one whose server does not answer.
conf=$T_TMP/keys.conf
{
	echo "ca-file = $STEED_CA_FILE"
	echo "bind = index x help"
	echo "bind = index <Nope> quit"
	echo "bind = index G noop"
	echo "[account keys]"
	echo "address = $ADDR"
	echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
	echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
	echo "password = keys-pw"
	echo "[account gone]"
	echo "address = gone@steed.test"
	echo "imap = imaps://127.0.0.1:1"
	echo "smtp = smtp://127.0.0.1:1"
	echo "password = gone-pw"
} >"$conf"
chmod 600 "$conf"

run() {
	tui_start "$1" env LANG="$2" XDG_DATA_HOME="$T_TMP/data" \
	    XDG_CACHE_HOME="$T_TMP/cache" "$STEEDMAIL" -F "$conf"
}
# exited_ok NAME: steedmail in pane NAME has exited with status 0, and
# said nothing on standard error.
exited_ok() {
	_st=$(tui_ended "$1" 20)
	[ "$_st" = 0 ] || { echo "exit status \"$_st\""; tui_stderr "$1"; return 1; }
	[ -z "$(tui_stderr "$1")" ] || { tui_stderr "$1"; return 1; }
}
# holds 'SHELL TEST': for checks that need the functions here.
holds() { eval "$1"; }

# help_text NAME: the rows of every page of the help screen, from its top.
help_text() {
	tui_keys "$1" Home
	sleep 0.3
	while :; do
		_s=$(tui_capture "$1")
		printf '%s\n' "$_s" | sed 1d | head -n $((TUI_LINES - 3))
		_pos=$(printf '%s\n' "$_s" |
		    sed -n 's/.*lines \([0-9]*-[0-9]*\) of \([0-9]*\).*/\1 \2/p')
		[ -n "$_pos" ] || break
		set -- "$1" $_pos
		[ "${2#*-}" != "$3" ] || break
		tui_keys "$1" PageDown
		tui_gone "$1" "lines $2 of" 5 || break
	done
}

# bindings_shown FILE: every binding the help of the index should list
# after the bind lines above (tests/unit/test-tui-keys --shown) is a row
# "KEYS ACTION DESCRIPTION" of the help in FILE, and no other.
bindings_shown() {
	"$KEYS" --shown index "index x help" "index G noop" 2>/dev/null |
	    awk -v help="$1" '
	    BEGIN {
		while ((getline l < help) > 0) {
			if (l !~ /^ [^ ]/ || length(l) < 22)
				continue
			n = split(substr(l, 2, 18), k, " ")
			a = substr(l, 21, 16); sub(/ +$/, "", a)
			for (i = 1; i <= n; i++) shown[k[i] " " a] = 1
		}
	    }
	    { want[$2 " " $3] = 1 }
	    END {
		bad = NR < 30
		for (b in want)
			if (!(b in shown)) { print "not shown: " b; bad = 1 }
		for (b in shown)
			if (!(b in want)) { print "shown: " b; bad = 1 }
		exit bad
	    }'
}

# legend_shown FILE FORM: each glyph of ui/tui-draw.c, in FORM (1: UTF-8,
# 2: ASCII), then its name, is a row of the help in FILE.
legend_shown() {
	sed -n 's/^[[:space:]]*\[TG_[A-Z_]*\] =[[:space:]]*{ "\([^"]*\)", "\([^"]*\)", "\([^"]*\)" },.*/\1\t\2\t\3/p' \
	    ui/tui-draw.c >"$T_TMP/glyphs"
	[ "$(wc -l <"$T_TMP/glyphs")" -ge 10 ] || { echo "no glyphs read"; return 1; }
	sed 's/ *$//' "$1" | tr -s ' ' >"$T_TMP/rows"
	_bad=0
	while IFS='	' read -r _u _a _n; do
		if [ "$2" = 1 ]; then _g=$(printf '%b' "$_u"); else _g=$_a; fi
		_want=$(printf ' %s %s' "$_g" "$_n" | tr -s ' ')
		grep -qxF -- "$_want" "$T_TMP/rows" ||
		    { echo "not shown: \"$_want\""; _bad=1; }
	done <"$T_TMP/glyphs"
	return $_bad
}

# ---- LANG=C -------------------------------------------------------------

run c C || bail "tmux did not start"
ok "steedmail starts on the INBOX" tui_wait c "keys one" 20
ok "a bad bind line is reported on the message line" \
    tui_wait c 'bind index <Nope> quit: unknown key "<Nope>"'
ok "and steedmail goes on: the index takes keys" \
    holds 'tui_keys c = && tui_wait c "INBOX  1/3"'

tui_keys c '?'
ok "? shows the help of the index" tui_wait c "Keys of this screen (index)"
help_text c >"$T_TMP/help-c"
ok "the help lists every binding of the index and the generic ones" \
    bindings_shown "$T_TMP/help-c"
ok "the legend is in ASCII with LANG=C" legend_shown "$T_TMP/help-c" 2
ok "q leaves the help for the index" \
    holds 'tui_keys c q && tui_wait c "sort: date" && tui_gone c "Indicators"'

ok "a bind line changes a key: x is help on the index" \
    holds 'tui_keys c x && tui_wait c "Keys of this screen (index)"'
tui_keys c q
ok "noop takes a key away: G is no longer sync" \
    holds 'tui_wait c "sort: date" && tui_keys c G && tui_wait c "G: not bound here"'

tui_keys c y
ok "y opens the folders screen" tui_wait c "  Entw"
sleep 0.5
tui_capture c >"$T_TMP/folders-c"
# count FOLDER unseen|messages: what the server says.
count() { $DOVE -f flow mailbox status -u "$ADDR" "$2" "$1" | sed 's/.*=//'; }
# counts FILE FOLDER [SHOWN]: the folder's row in the screen in FILE (where
# its name is SHOWN) has the server's counts.
counts() {
	_u=$(count "$2" unseen) _m=$(count "$2" messages)
	_r=$(grep -E "^  ${3:-$2} " "$1" | tr -s ' ' | sed 's/ $//')
	if [ "$_u" -gt 0 ]; then _w=" ${3:-$2} $_u new $_m"; else _w=" ${3:-$2} $_m"; fi
	[ "$_r" = "$_w" ] || { echo "row \"$_r\", want \"$_w\""; return 1; }
}
for f in INBOX Drafts Sent Trash Junk; do
	ok "the folders screen shows $f with the server's counts" \
	    counts "$T_TMP/folders-c" $f
done
line() { grep -nE "^  $1 " "$T_TMP/folders-c" | cut -d: -f1; }
ok "INBOX first, the special-use folders before the others" \
    holds '[ "$(line INBOX)" -lt "$(line Drafts)" ] &&
    for f in Drafts Sent Trash Junk; do
	[ "$(line $f)" -lt "$(line "Entw.rfe")" ] || exit 1; done'
ok "each account has its heading; the one not answering says why" \
    holds 'grep -q "^keys <$ADDR>" "$T_TMP/folders-c" &&
    tui_wait c "gone <gone@steed.test>  offline: "'

tui_keys c '/'
tui_type c Trash
tui_keys c Enter
tui_keys c Enter
ok "Enter opens the folder under the cursor in place of the index" \
    holds 'tui_wait c "keys trash two" && tui_wait c "| Trash" &&
    tui_gone c "keys one"'
ok "q on that index leaves steedmail" holds 'tui_keys c q && exited_ok c'

# ---- UTF-8 --------------------------------------------------------------

run u C.UTF-8 || bail "tmux did not start"
ok "with a UTF-8 locale too" tui_wait u "keys one" 20
tui_keys u '?'
tui_wait u "Keys of this screen (index)" >/dev/null 2>&1
help_text u >"$T_TMP/help-u"
ok "the legend is in UTF-8 with a UTF-8 locale" legend_shown "$T_TMP/help-u" 1
tui_keys u q y
ok "a folder's name in modified UTF-7 is shown decoded" \
    tui_wait u "  Entwürfe"
tui_capture u >"$T_TMP/folders-u"
ok "with the server's counts" counts "$T_TMP/folders-u" "Entwürfe"
ok "characters beyond 16 bits too (UTF-16 surrogates in UTF-7)" \
    counts "$T_TMP/folders-u" "日本語 😀"
tui_keys u q q
ok "q from the folders, then the index, leaves steedmail" exited_ok u

[ "$t_failed" -eq 0 ]
exit 0
