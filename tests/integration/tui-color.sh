# tui-color.sh: the configuration's `color` lines in the curses
# interface, in tmux at 80x24 against the test Dovecot, as the terminal
# receives them (capture-pane -e keeps the escape sequences): the
# defaults, a line for the top bar in 256 and direct colours, mutt's
# `color index ... ~N` for a new message, the bars always in reverse
# video and body text never, NO_COLOR over every color line, and a line
# that would give body text reverse video refused with its line number.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

ADDR=color-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"
"$STEED_ENV_BIN/add-user" "$ADDR" color-pw || bail "add-user failed"
printf 'From: Carol <carol@steed.test>\nTo: %s\nSubject: colour new\n\nplain body text\n\n-- \nCarol, signing off\n' \
    "$ADDR" | $DOVE save -u "$ADDR" -m INBOX || bail "cannot save"
printf 'From: Dan <dan@steed.test>\nTo: %s\nSubject: colour read\n\nread\n' \
    "$ADDR" | $DOVE save -u "$ADDR" -m INBOX || bail "cannot save"
$DOVE flags add -u "$ADDR" '\Seen' mailbox INBOX subject "colour read" ||
    bail "cannot flag"

# conf FILE LINE...: the account, after the given global lines.
conf() {
	_f=$1; shift
	{
		echo "ca-file = $STEED_CA_FILE"
		for l in "$@"; do echo "$l"; done
		echo "[account color]"
		echo "address = $ADDR"
		echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
		echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
		echo "password = color-pw"
	} >"$_f"
	chmod 600 "$_f"
}
# run NAME CONF [ENV...]: steedmail in a 256-colour pane (or $TERM_IS).
run() {
	_n=$1 _c=$2; shift 2
	TUI_TERM=${TERM_IS:-screen-256color} tui_start "$_n" env LANG=C.UTF-8 \
	    XDG_DATA_HOME="$T_TMP/data" XDG_CACHE_HOME="$T_TMP/cache" "$@" \
	    "$STEEDMAIL" -F "$_c"
	tui_wait "$_n" "colour read" 30 && tui_wait "$_n" "? help" 10
}
# esc NAME: the screen with its escape sequences, ESC as "E".
esc() { tui_tmux capture-pane -e -p -t "$1" | tr '\033' E; }
# sgr FILE TEXT CODE: the first row holding TEXT sets CODE (an SGR
# parameter, an ERE: "7" reverse video, "31" red, "38;5;196").
sgr() {
	grep -F -- "$2" "$1" | head -1 | grep -qE "E\[([0-9;]*;)?($3)[;m]" &&
	    return 0
	echo "# the row: $(grep -F -- "$2" "$1" | head -1)"
	return 1
}
nosgr() { ! sgr "$@" >/dev/null; }

conf "$T_TMP/plain.conf"
run p "$T_TMP/plain.conf" || bail "steedmail did not start"
esc p >"$T_TMP/plain"
ok "by default the top bar is drawn in reverse video" sgr "$T_TMP/plain" "steedmail |" 7
ok "... with colours" sgr "$T_TMP/plain" "steedmail |" "3[0-7]|38;5;[0-9]+"
ok "a new message's row is bold" sgr "$T_TMP/plain" "colour new" 1
ok "... a read one not" nosgr "$T_TMP/plain" "colour read" 1
tui_keys p q
tui_ended p 10 >/dev/null

conf "$T_TMP/color.conf" "color = title color123 #ff0000 bold" \
    "color index red default ~N" "color index brightgreen default" \
    "color signature color200 default" "color tilde yellow default" \
    "color trust-known color201 default bold"
run c "$T_TMP/color.conf" || bail "steedmail did not start"
esc c >"$T_TMP/color"
# tmux draws reverse video as it was given: the colours swapped, then 7
ok "a color line for the title: color123 on #ff0000 (196 of 256)" \
    sgr "$T_TMP/color" "steedmail |" "38;5;196"
ok "... both colours" sgr "$T_TMP/color" "steedmail |" "48;5;123"
ok "... still in reverse video" sgr "$T_TMP/color" "steedmail |" 7
ok "mutt's color index ... ~N colours the new message red" \
    sgr "$T_TMP/color" "colour new" 31
tui_keys c Home
tui_wait c "INBOX  1/2" 10 >/dev/null
esc c >"$T_TMP/color2"
ok "color index colours a read one bright green" \
    sgr "$T_TMP/color2" "colour read" "92|38;5;10"
check "the lines differ from the defaults" sh -c "! cmp -s '$T_TMP/plain' '$T_TMP/color'"
# the legend of the marks, on the help's last pages
tui_keys c '?'
tui_wait c "help" 5 >/dev/null
i=0
while ! tui_capture c | grep -q "known key" && [ $i -lt 15 ]; do
	tui_keys c PageDown; sleep 0.2; i=$((i + 1))
done
esc c >"$T_TMP/legend"
ok "a trust state's colour: the legend's known key" \
    sgr "$T_TMP/legend" "known key" "38;5;201"
check "... and not the first contact's" nosgr "$T_TMP/legend" "first contact" "38;5;201"
tui_keys c q
tui_wait c "INBOX  1/2" 5 >/dev/null
tui_keys c Enter
ok "the first message opens" tui_wait c "plain body text" 20
sleep 0.5
esc c >"$T_TMP/pager"
ok "its signature is in the signature's colour" \
    sgr "$T_TMP/pager" "signing off" "38;5;200"
check "... its body not" nosgr "$T_TMP/pager" "plain body text" "38;5;200"
ok "... the lines past its end in the tilde's" sgr "$T_TMP/pager" "~" 33
ok "the security line is in reverse video" sgr "$T_TMP/pager" "not signed, not encrypted" 7
check "body text is not" nosgr "$T_TMP/pager" "plain body text" 7
tui_keys c q q
tui_ended c 10 >/dev/null

run n "$T_TMP/color.conf" NO_COLOR=1 || bail "steedmail did not start"
esc n >"$T_TMP/nocolor"
ok "NO_COLOR wins over every color line: no colour at all" \
    sh -c "! grep -qE 'E\\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]' '$T_TMP/nocolor'"
ok "... the bars still in reverse video" sgr "$T_TMP/nocolor" "steedmail |" 7
tui_keys n q
tui_ended n 10 >/dev/null

# direct colours, where the terminal has them (terminfo from ncurses-term)
if infocmp xterm-direct >/dev/null 2>&1; then
	conf "$T_TMP/direct.conf" "color title #ff8000 #123456" \
	    "color index color200 default"
	TERM_IS=xterm-direct run d "$T_TMP/direct.conf" || bail "steedmail did not start"
	esc d >"$T_TMP/direct"
	# in reverse video: the background given is the pair's foreground
	ok "on a terminal of direct colours, #ff8000 on #123456 as they are" \
	    sgr "$T_TMP/direct" "steedmail |" "48;2;255;128;0"
	ok "... both" sgr "$T_TMP/direct" "steedmail |" "38;2;18;52;86"
	ok "... in reverse video" sgr "$T_TMP/direct" "steedmail |" 7
	# (the pager above has read "colour new": an index row now)
	ok "... and color200 as its value, #ff00d7" \
	    sgr "$T_TMP/direct" "colour new" "38;2;255;0;215"
	tui_keys d q
	tui_ended d 10 >/dev/null
else
	echo "ok $((t_n + 1)) # SKIP no xterm-direct terminfo (ncurses-term)"
	t_n=$((t_n + 1))
fi

conf "$T_TMP/bad.conf" "color quoted white blue reverse"
"$STEEDMAIL" -F "$T_TMP/bad.conf" --check-config >"$T_TMP/bad.out" 2>&1
ok "a color line that gives body text reverse video is refused, with its line" \
    grep -q "bad.conf:2: color: quoted is text from messages" "$T_TMP/bad.out"
conf "$T_TMP/mutt.conf" "color sidebar_new red default" "color body red default x"
"$STEEDMAIL" -F "$T_TMP/mutt.conf" --check-config >"$T_TMP/mutt.out" 2>&1
ok "mutt objects steedmail does not draw are skipped with a warning" \
    sh -c "grep -q 'mutt.conf:2: color: steedmail draws no sidebar_new' '$T_TMP/mutt.out' && grep -q 'mutt.conf:3: color: ' '$T_TMP/mutt.out'"
