# tui-index.sh: the index screen of the curses interface, driven in tmux at
# 80x24 (TERM=screen) against the test Dovecot: the first rows, a sender
# whose display name imitates an address shown by its address, a subject
# full of escape sequences that leaves the screen intact, threads collapsed
# and expanded (UTF-8 and LANG=C trees), search, limit, a search of the
# text on the server, a resize, flags, and the IMAP server stopped while
# the index is open: the status line says so, and the index comes back
# when the server does.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
USER_ADDR=tuiix-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"

"$STEED_ENV_BIN/add-user" "$USER_ADDR" tuiix-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home/Maildir/cur" "$home/Maildir/new" "$home/Maildir/tmp" ||
	bail "cannot create $home"

# msg N FLAGS HEADERS...: message N, body "body N" plus what BODY says.
BODY=
msg() {
	n=$1 fl=$2; shift 2
	{ for h in "$@"; do printf '%s\r\n' "$h"; done
	  printf 'Message-ID: <%s@tui.test>\r\n\r\nbody %s\r\n%s\r\n' "$n" "$n" "$BODY"
	} >"$home/Maildir/cur/17000$(printf %05d "$n").M${n}P1.tui:2,$fl"
}
msg 1 S 'From: "alice@bank.example" <mallory@evil.example>' 'To: '"$USER_ADDR" \
    'Subject: Your account' 'Date: Tue, 2 Jan 2024 10:00:00 +0000'
msg 2 S 'From: Bob <bob@steed.test>' 'Subject: Re: Your account' \
    'Date: Wed, 3 Jan 2024 10:00:00 +0000' 'In-Reply-To: <1@tui.test>' \
    'References: <1@tui.test>'
msg 3 S 'From: Carol <carol@steed.test>' 'Subject: Re: Re: Your account' \
    'Date: Thu, 4 Jan 2024 10:00:00 +0000' 'References: <1@tui.test> <2@tui.test>'
esc=$(printf 'Subject: \033[2J\033[H\033]0;pwned\007\033[31mRED\rover\bX \033[?1049h end')
msg 4 S 'From: =?utf-8?q?Esc=1B=5B31m?= <esc@plain.test>' "$esc" \
    'Date: Fri, 5 Jan 2024 10:00:00 +0000'
i=5
while [ $i -le 40 ]; do
	BODY=
	[ $i = 17 ] && BODY="the secret word is pumpernickel"
	msg $i S "From: Sender $i <s$i@steed.test>" "Subject: filler message $i" \
	    "Date: Sat, 6 Jan 2024 10:$(printf %02d $i):00 +0000"
	i=$((i + 1))
done
BODY=
msg 41 '' 'From: Newest <new@steed.test>' 'Subject: the newest one' \
    'Date: Mon, 8 Jan 2024 10:00:00 +0000'
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" || bail "chown failed"

cat >"$T_TMP/tui.conf" <<EOF
ca-file = $STEED_CA_FILE
dns-config = $STEED_DNS_CONF

[account tui]
name = Tui
address = $USER_ADDR
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = tuiix-pw
EOF
chmod 0600 "$T_TMP/tui.conf"
export TZ=UTC
H=$T_TMP/home
mkdir -p "$H"
run_sm() {
	tui_start "$1" env HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
	    XDG_CONFIG_HOME="$H/config" LANG="$2" TZ=UTC "$STEEDMAIL" -F "$T_TMP/tui.conf"
}

# --- UTF-8 ------------------------------------------------------------------
run_sm u C.UTF-8
ok "the index shows the newest message" tui_wait u "the newest one" 20
tui_capture u >"$T_TMP/first"
ok "the top bar names the account and the folder" has "$T_TMP/first" "steedmail | $USER_ADDR | INBOX"
ok "the status bar counts the messages, the cursor on the newest" has "$T_TMP/first" "INBOX  41/41"
ok "the newest message is marked new" sh -c "grep 'the newest one' '$T_TMP/first' | grep -q '^ N'"

tui_keys u Home
ok "Home goes to the first message" tui_wait u "INBOX  1/41"
tui_capture u >"$T_TMP/top"
ok "a display name that imitates an address is shown as the address" \
    sh -c "grep 'Your account' '$T_TMP/top' | head -1 | grep -q 'mallory@evil.example'"
check "... and the name it imitates is not" sh -c "! grep -q 'alice@bank.example' '$T_TMP/top'"
ok "the escape-sequence subject is drawn with the stand-ins every screen uses" sh -c "grep -qF '^[[2J^[[H^[]0;pwned^G^[[31mRED over^HX' '$T_TMP/top'"
check "... the screen is intact: title on the first line" sh -c "head -1 '$T_TMP/top' | grep -q '^ steedmail | '"
check "... status bar on the 23rd line" sh -c "sed -n 23p '$T_TMP/top' | grep -q '^ INBOX  1/41'"
check "... no title was set through the terminal" sh -c "[ \"\$(tmux -S '$TUI_SOCK' display-message -p -t u '#{pane_title}')\" != pwned ]"
check "... 24 lines, none longer than 80 columns" python3 -c "
import sys; l = open(sys.argv[1], encoding='utf-8').read().split('\\n')[:-1]
sys.exit(not (len(l) == 24 and max(map(len, l)) <= 80))" "$T_TMP/top"

tui_keys u o; tui_wait u "Sort by" >/dev/null; tui_type u thread; tui_keys u Enter
ok "sorting by thread" tui_wait u "sort: thread"
tui_keys u Home
tui_wait u "INBOX  1/41" >/dev/null
tui_capture u >"$T_TMP/thr"
ok "the replies hang under their thread in a tree" sh -c "grep -q ' └─>Re: Your account' '$T_TMP/thr' && grep -q '   └─>Re: Re: Your account' '$T_TMP/thr'"
tui_keys u z
ok "z collapses the thread: its replies are hidden" tui_gone u "Re: Re: Your account"
ok "... the collapsed thread shows how many it holds" tui_wait u "▸3 Your account"
ok "... and the count of rows follows" tui_wait u "INBOX  1/39"
tui_keys u z
ok "z again expands it" tui_wait u "Re: Re: Your account"
tui_keys u Z
ok "Z collapses every thread" tui_wait u "INBOX  1/39"
tui_keys u Z
ok "Z again expands them all" tui_wait u "INBOX  1/41"
tui_keys u j j
tui_wait u "INBOX  3/41" >/dev/null
tui_keys u z
ok "z on the last reply of a thread: the cursor goes up to the thread's row" tui_wait u "INBOX  1/39"
tui_keys u z
ok "... so that z again expands that thread, not the next" tui_wait u "Re: Re: Your account"
ok "... and the cursor stays on the thread's first message" tui_wait u "INBOX  1/41"

tui_keys u /; tui_wait u "Search for:" >/dev/null; tui_type u "filler message 30"; tui_keys u Enter
ok "/ moves the cursor to the message found" tui_wait u "INBOX  30/41"
tui_keys u l; tui_wait u "Limit to" >/dev/null; tui_type u "~s account"; tui_keys u Enter
ok "l limits the index to what matches" tui_wait u "3/3 of 41"
tui_keys u l; tui_wait u "Limit to" >/dev/null; tui_keys u C-u Enter
ok "an empty limit shows everything again" tui_wait u "/41  sort"
tui_keys u B; tui_wait u "Search the text" >/dev/null; tui_type u pumpernickel; tui_keys u Enter
ok "B searches the text on the server: one message has the word" tui_wait u '1 found in the cached mail and the server for "pumpernickel"'
ok "... and the index shows only it" tui_wait u "filler message 17"
tui_keys u l; tui_wait u "Limit to" >/dev/null; tui_keys u Enter
tui_wait u "/41  sort" >/dev/null

# status_at LINE: until the status bar is on LINE of the screen (10 s)
status_at() {
	for _ in $(seq 100); do
		tui_capture u | sed -n "${1}p" | grep -q '/41  sort' && return 0
		sleep 0.1
	done
	tui_capture u | sed 's/^/#|/' >&2
	return 1
}
tui_resize u 100 30
ok "a resize redraws at the new size" status_at 29
tui_resize u 80 24
ok "... and back" status_at 23

tui_keys u End
tui_wait u "41/41" >/dev/null
tui_keys u F
ok "F shows the message flagged" tui_wait_re u '^ N!.*the newest one' 
ok "... and on the server" sh -c "for i in \$(seq 50); do $DOVE fetch -u '$USER_ADDR' flags mailbox INBOX subject newest 2>/dev/null | grep -q Flagged && exit 0; sleep 0.1; done; exit 1"

# The server goes away while the index is open, then comes back.
$DOVE stop >/dev/null 2>&1
ok "the status line says the server is out of reach" tui_wait u "offline:" 20
tui_keys u Home
ok "... and the index still works from the cache" tui_wait u "INBOX  1/41"
dovecot -c "$STEED_DOVECOT_CONF" >/dev/null 2>&1 || bail "dovecot did not start again"
sleep 1
tui_keys u G
ok "once it is back, the index is connected again" tui_gone u "offline:" 30
check "... in the same place" sh -c "tmux -S '$TUI_SOCK' capture-pane -p -t u | grep -q 'INBOX  1/41'"

# New mail while the index is open comes through IDLE.
printf 'From: Late <late@steed.test>\r\nSubject: arrived while open\r\nMessage-ID: <late@tui.test>\r\nDate: Tue, 9 Jan 2024 10:00:00 +0000\r\n\r\nhi\r\n' |
	$DOVE save -u "$USER_ADDR" -m INBOX || bail "doveadm save failed"
ok "new mail appears by itself (IDLE): counted" tui_wait u "/42  sort" 20
tui_keys u End
ok "... and listed" tui_wait u "arrived while open"

# The shell escape gives the terminal to a program and takes it back.
tui_keys u q
st=$(tui_ended u 10)
check "q quits with status 0" [ "$st" = 0 ]
tui_stop u
TUI_SHELL='echo INSIDE-THE-SHELL; read x'
tui_start sh env SHELL="$TUI_SHELL" HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
    LANG=C.UTF-8 "$STEEDMAIL" -F "$T_TMP/tui.conf"
tui_wait sh "/42  sort" 20 >/dev/null
tui_keys sh !
ok "! runs the shell on the whole terminal" tui_wait sh INSIDE-THE-SHELL
check "... with steedmail's screen gone" sh -c "! tmux -S '$TUI_SOCK' capture-pane -p -t sh | grep -q 'sort: date'"
tui_keys sh Enter
ok "... and the index is back when it ends" tui_wait sh "/42  sort"
tui_keys sh q
tui_ended sh >/dev/null
tui_stop sh

# Ctrl-Z stops steedmail as a job of the shell; fg brings the screen back.
TUI_TTY_STDERR=1 tui_start job env HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
    LANG=C.UTF-8 PS1='$ ' bash --norc -i
tui_wait job '$' >/dev/null
tui_type job "$STEEDMAIL -F $T_TMP/tui.conf"; tui_keys job Enter
tui_wait job "/42  sort" 20 >/dev/null
tui_keys job C-z
ok "Ctrl-Z gives the terminal back to the shell" tui_wait job "Stopped"
tui_type job fg; tui_keys job Enter
ok "fg draws the index again" tui_wait job "/42  sort"
tui_keys job q
ok "... and q still quits" tui_gone job "/42  sort"
tui_stop job

# LANG=C: ASCII forms of every glyph, placeholders for what is not ASCII.
run_sm c C
ok "LANG=C: the index is drawn" tui_wait c "/42  sort" 20
tui_keys c o; tui_wait c "Sort by" >/dev/null; tui_type c thread; tui_keys c Enter
tui_keys c Home
tui_wait c "INBOX  1/42" >/dev/null
tui_capture c >"$T_TMP/ascii"
ok "LANG=C: the thread tree is ASCII" sh -c "grep -q ' \`->Re: Your account' '$T_TMP/ascii' && grep -q '   \`->Re: Re: Your account' '$T_TMP/ascii'"
check "LANG=C: nothing but ASCII on the screen" sh -c "! LC_ALL=C grep -q '[^ -~]' '$T_TMP/ascii'"
check "LANG=C: the escape sequences have the same stand-ins" sh -c "grep -qF '^[[31mRED over^HX' '$T_TMP/ascii' || { grep Esc '$T_TMP/ascii'; exit 1; }"
tui_keys c q
tui_ended c >/dev/null
tui_stop c

# Two accounts: Tab goes to the other one's INBOX.
USER2=tuiix2-$$@steed.test
"$STEED_ENV_BIN/add-user" "$USER2" tuiix2-pw || bail "add-user failed"
printf 'From: Zed <zed@steed.test>\r\nSubject: for the second account\r\nMessage-ID: <z@tui.test>\r\nDate: Tue, 9 Jan 2024 10:00:00 +0000\r\n\r\nhi\r\n' |
	$DOVE save -u "$USER2" -m INBOX || bail "doveadm save failed"
{ cat "$T_TMP/tui.conf"; cat <<EOF

[account second]
address = $USER2
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = tuiix2-pw
EOF
} >"$T_TMP/two.conf"
chmod 0600 "$T_TMP/two.conf"
tui_start two env HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
    LANG=C.UTF-8 "$STEEDMAIL" -F "$T_TMP/two.conf"
ok "two accounts: the first is shown" tui_wait two "steedmail | $USER_ADDR | INBOX" 20
tui_keys two Tab
ok "Tab shows the second account's INBOX" tui_wait two "steedmail | $USER2 | INBOX" 20
ok "... with its own mail" tui_wait two "for the second account" 20
tui_keys two Tab
ok "Tab again: back to the first" tui_wait two "steedmail | $USER_ADDR | INBOX"
tui_keys two q
tui_ended two >/dev/null
tui_stop two

# Other terminals, and no colours.
for term in vt100 xterm-256color tmux-256color; do
	TUI_TERM=$term tui_start "t$term" env NO_COLOR=1 HOME="$H" XDG_DATA_HOME="$H/data" \
	    XDG_CACHE_HOME="$H/cache" LANG=C.UTF-8 "$STEEDMAIL" -d 3 -F "$T_TMP/tui.conf"
	ok "TERM=$term (NO_COLOR): the index is drawn" tui_wait "t$term" "/42  sort" 20
	tui_keys "t$term" Home
	ok "TERM=$term: Home, as this terminal sends it" tui_wait "t$term" "INBOX  1/42"
	tui_keys "t$term" End
	ok "TERM=$term: End" tui_wait "t$term" "INBOX  42/42"
	tui_keys "t$term" q
	st=$(tui_ended "t$term" 10)
	check "TERM=$term: q quits cleanly" sh -c "[ '$st' = 0 ] || { echo status $st; cat '$T_TMP/tui-t$term.err'; tail -15 '$H/cache/steedmail/debug.log'; tmux -S '$TUI_SOCK' capture-pane -p -t 't$term'; exit 1; }"
	tui_stop "t$term"
done
