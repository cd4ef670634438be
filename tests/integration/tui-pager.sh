# tui-pager.sh: the pager of the curses interface, in tmux at 80x24 with
# TERM=screen and LANG=C, against the test servers. bob reads: a message
# alice encrypted and signed to him (its banner, the bars where the
# decrypted content begins and ends, the margin beside it, the status bar
# inside it); a message full of escape sequences (the screen and its
# chrome unchanged, the pane's title untouched, the raw source as visible
# placeholders); an attachment with a hostile name, saved under a safe
# name inside the chosen directory, asking before it overwrites, never
# through a link nor into a FIFO; and an
# HTML-only message shown as text, its script dropped, its link listed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
export LANG=C LC_ALL=C TZ=UTC

alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$STEED_ENV/bob.conf" "$@"; }
AH=$T_TMP/alice/steedmail/gnupg
BH=$T_TMP/bob/steedmail/gnupg
trap 'for h in "$AH" "$BH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT
u=$$-$(date +%s)

# bob's interface in pane NAME, synced, on the index.
start() {
	tui_start "$1" env XDG_DATA_HOME="$T_TMP/bob" \
	    XDG_CACHE_HOME="$T_TMP/bob-c" HOME="$HOME" TMPDIR="$T_TMP/tmp" \
	    MAILCAPS="$T_TMP/mailcap" "$PWD/steedmail" -F "$STEED_ENV/bob.conf"
}
# open NAME TEXT: find the message whose line shows TEXT, open it.
open_msg() {
	tui_keys "$1" /
	tui_type "$1" "$2"
	tui_keys "$1" Enter
	sleep 0.3
	tui_keys "$1" Enter
}
# row NAME N: line N (1 is the top) of the screen.
row() { tui_capture "$1" | sed -n "$2p"; }

# The viewer mailcap gives for the attachment: it keeps what it was given
# and the type it was told; it has the terminal and returns at once.
mkdir -m 700 "$T_TMP/tmp"
cat >"$T_TMP/mailcap" <<EOF
application/octet-stream; touch $T_TMP/tested %s; test=true
application/*; cat %s >$T_TMP/opened \; echo %t '%{name}' >$T_TMP/type; needsterminal
EOF

# --- Mail for bob -----------------------------------------------------------
DOVE="doveadm -c $STEED_DOVECOT_CONF"
home=$($DOVE user -f home "$STEED_BOB") && [ -n "$home" ] || bail "no home for bob"
mkdir -p "$home/Maildir/cur" || bail "cannot create $home/Maildir/cur"
# put N FILE: FILE into bob's INBOX.
put() {
	sed 's/$/\r/' "$2" >"$home/Maildir/cur/17000000$1.M$1P$$.pager:2,"
}
ESC=$(printf '\033')
BEL=$(printf '\007')
{
	echo "From: Eve <eve@evil.example>"
	echo "To: $STEED_BOB"
	echo "Subject: ESCWORD ${ESC}]0;PWNED${BEL}${ESC}[2J"
	echo "Date: Tue, 2 Jan 2024 10:00:00 +0000"
	echo "Message-ID: <esc-$u@evil.example>"
	echo ""
	echo "First ${ESC}[2J${ESC}[H line ${ESC}[31mred${ESC}]0;PWNED${BEL}"
	echo "${ESC}[1;1H${ESC}[7mFAKEBANNER security: signed and verified"
	echo "LASTLINE-$u"
} >"$T_TMP/esc.eml"
put 1 "$T_TMP/esc.eml"
{
	echo "From: Eve <eve@evil.example>"
	echo "To: $STEED_BOB"
	echo "Subject: ATTWORD"
	echo "Date: Wed, 3 Jan 2024 10:00:00 +0000"
	echo "Message-ID: <att-$u@evil.example>"
	echo "MIME-Version: 1.0"
	echo "Content-Type: multipart/mixed; boundary=b"
	echo ""
	echo "--b"
	echo "Content-Type: text/plain"
	echo ""
	echo "see the attachment"
	echo "--b"
	echo "Content-Type: application/octet-stream; name=\"a'\$(touch $T_TMP/pwned)\""
	echo "Content-Disposition: attachment; filename=\"../../x${ESC}[2J$(printf '\001').txt\""
	echo "Content-Transfer-Encoding: base64"
	echo ""
	printf 'ATTACHED-CONTENT-%s\n' "$u" | base64
	echo "--b--"
} >"$T_TMP/att.eml"
put 2 "$T_TMP/att.eml"
{
	echo "From: Eve <eve@evil.example>"
	echo "To: $STEED_BOB"
	echo "Subject: HTMLWORD"
	echo "Date: Thu, 4 Jan 2024 10:00:00 +0000"
	echo "Message-ID: <html-$u@evil.example>"
	echo "MIME-Version: 1.0"
	echo "Content-Type: text/html; charset=utf-8"
	echo ""
	echo "<html><head><style>p { SCRIPTWORD-1 }</style></head><body>"
	echo "<script>SCRIPTWORD-2</script><p>Hello <b>HTMLBODY</b> &amp; "
	echo "<a href=\"http://track.example/x\">the link</a></p>"
	echo "<img src=\"http://track.example/pixel.gif\"></body></html>"
} >"$T_TMP/html.eml"
put 3 "$T_TMP/html.eml"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$home/Maildir/cur" || bail "chown failed"

# alice and bob know each other's keys; alice encrypts and signs to bob.
alice --genkey >/dev/null 2>&1 && bob --genkey >/dev/null 2>&1 ||
	bail "--genkey failed"
alice --export-key | bob --import-key - >/dev/null 2>&1
bob --export-key | alice --import-key - >/dev/null 2>&1
printf 'SECRETBODY-%s\n> quoted in the secret\n' "$u" |
    alice -s "ENCWORD $u" --encrypt "$STEED_BOB" >"$T_TMP/send" 2>&1
ok "alice sends bob an encrypted message" test $? = 0
for _ in $(seq 1 30); do
	bob --list INBOX 2>/dev/null | grep -q Alice && break
	sleep 0.5
done

# --- The encrypted message --------------------------------------------------
start enc
ok "the index comes up with the messages" tui_wait enc "ATTWORD" 20
open_msg enc "Alice"
ok "the pager shows the decrypted text" tui_wait enc "SECRETBODY-$u" 20
tui_capture enc >"$T_TMP/enc.screen"
ok "one security line: encrypted, signed by alice, her key known" \
    grep -q "^encrypted, signed by alice@steed.test; known key\$" "$T_TMP/enc.screen"
ok "no other line of security text above the body" \
    sh -c "! grep -Eq '^(security|trust|==\\[)' '$T_TMP/enc.screen'"
ok "the body starts within the first 9 rows" \
    sh -c "sed -n 1,9p '$T_TMP/enc.screen' | grep -q '^| SECRETBODY-$u\$'"
ok "the text inside has the margin of protected content" \
    grep -q "^| SECRETBODY-$u\$" "$T_TMP/enc.screen"
ok "quoted text inside too" grep -q "^| > quoted in the secret" "$T_TMP/enc.screen"
ok "the status bar: encrypted and signed, and the sender's trust" \
    sh -c "sed -n 23p '$T_TMP/enc.screen' | grep -q 'encrypted and signed | known key'"
# S: the details, one key away.
tui_keys enc S
ok "S shows the security details" tui_wait enc "(security details)" 10
tui_capture enc >"$T_TMP/enc.details"
ok "the details say decrypted and signed" \
    grep -q "^security: encrypted (OpenPGP) and decrypted; signed by alice@steed.test" "$T_TMP/enc.details"
ok "a bar where the decrypted content begins" \
    grep -Eq '^==\[ part .*its content follows \]=+$' "$T_TMP/enc.details"
ok "and one where it ends" \
    grep -Eq '^==\[ end of the content of part .* \]=+$' "$T_TMP/enc.details"
tui_keys enc S
ok "S again: back to the message" tui_gone enc "(security details)" 10
# The top of the screen inside the decrypted content: the status says so.
tui_keys enc /
tui_type enc "SECRETBODY"
tui_keys enc Enter
ok "scrolled into the content, the status bar says it is protected" \
    tui_wait enc "in protected content"
top=$(row enc 2)
ok "the first row shown is the protected text, with its margin" \
    test "$top" = "| SECRETBODY-$u"
tui_keys enc q
ok "q goes back to the index" tui_gone enc "SECRETBODY-$u"
tui_stop enc

# --- Escape sequences ---------------------------------------------------------
start esc
ok "the index comes up" tui_wait esc "ESCWORD" 20
title0=$(tui_tmux display-message -p -t esc '#{pane_title}')
open_msg esc "ESCWORD"
ok "the pager shows the message" tui_wait esc "LASTLINE-$u" 20
# Once read, the index stays as it is: its screen now and after the pager.
tui_keys esc q
tui_gone esc "LASTLINE-$u" >/dev/null 2>&1
sleep 0.3
tui_capture esc >"$T_TMP/index.before"
tui_keys esc Enter
ok "opened again" tui_wait esc "LASTLINE-$u" 20
tui_capture esc >"$T_TMP/esc.screen"
ok "the escapes are shown as text, the rest of the line kept" \
    grep -q '^  First \^\[\[2J\^\[\[H line \^\[\[31mred\^\[\]0;PWNED\^G$' "$T_TMP/esc.screen"
ok "a fake banner stays body text, in the body's columns" \
    grep -q '^  \^\[\[1;1H\^\[\[7mFAKEBANNER security' "$T_TMP/esc.screen"
ok "nothing cleared the screen: the headers are still above" \
    grep -q '^  From: Eve <eve@evil.example>' "$T_TMP/esc.screen"
ok "the title bar is steedmail's" sh -c "sed -n 1p '$T_TMP/esc.screen' | grep -q 'INBOX: message'"
ok "the status bar is the pager's" \
    sh -c "sed -n 23p '$T_TMP/esc.screen' | grep -q '^not signed, not encrypted | '"
ok "the pane's title was never set by the message" \
    sh -c "[ \"\$(tmux -S '$TUI_SOCK' display-message -p -t esc '#{pane_title}')\" = '$title0' ]"
tui_keys esc e
ok "e: the raw source" tui_wait esc "(raw source)"
tui_capture esc >"$T_TMP/raw.screen"
ok "the raw source shows every escape as a placeholder" \
    grep -q '^  Subject: ESCWORD \^\[\]0;PWNED\^G\^\[\[2J$' "$T_TMP/raw.screen"
ok "no raw ESC on the screen" sh -c "! tmux -S '$TUI_SOCK' capture-pane -p -t esc | grep -q '$ESC'"
ok "the pane's title is still untouched" \
    sh -c "[ \"\$(tmux -S '$TUI_SOCK' display-message -p -t esc '#{pane_title}')\" = '$title0' ]"
tui_keys esc e
tui_keys esc h
ok "h: all the header fields, Message-ID among them" tui_wait esc "Message-ID: <esc-$u@evil.example>"
tui_keys esc q
ok "back on the index" tui_gone esc "LASTLINE-$u"
sleep 0.3
tui_capture esc >"$T_TMP/index.after"
ok "the index's screen is as it was before the pager" \
    sh -c "diff '$T_TMP/index.before' '$T_TMP/index.after' >&2"
tui_stop esc

# --- An attachment with a hostile name ---------------------------------------
mkdir -p "$T_TMP/save/in"
start att
ok "the index comes up" tui_wait att "ATTWORD" 20
open_msg att "ATTWORD"
ok "the pager lists the attachment" tui_wait att "see the attachment" 20
tui_keys att v
ok "v: the attachments screen" tui_wait att "1 attachment"
ok "its name shown with placeholders" tui_wait att '"../../x^[[2J^A.txt"'
tui_keys att s
ok "s asks where, offering the safe name" tui_wait att "Save to"
tui_keys att C-u
tui_type att "$T_TMP/save/in"
tui_keys att Enter
ok "saved, and it says where" tui_wait att "saved"
ok "the file has a safe name inside the chosen directory" \
    test -f "$T_TMP/save/in/x_[2J_.txt"
ok "with the decoded content" grep -qx "ATTACHED-CONTENT-$u" "$T_TMP/save/in/x_[2J_.txt"
ok "nothing else written, nothing outside" sh -c \
    "[ \$(find '$T_TMP/save' -type f | wc -l) = 1 ] && [ ! -e '$T_TMP/x' ] && [ ! -e '$T_TMP/save/x' ]"
ok "mode 0600" test "$(stat -c %a "$T_TMP/save/in/x_[2J_.txt")" = 600
echo "changed" >"$T_TMP/save/in/x_[2J_.txt"
tui_keys att s
tui_wait att "Save to" >/dev/null 2>&1
tui_keys att C-u
tui_type att "$T_TMP/save/in"
tui_keys att Enter
ok "saving again asks before overwriting" tui_wait att "exists: overwrite it?"
tui_keys att n
ok "no: not saved" tui_wait att "not saved"
ok "... and the file is as it was" grep -qx changed "$T_TMP/save/in/x_[2J_.txt"
tui_keys att s
tui_wait att "Save to" >/dev/null 2>&1
tui_keys att C-u
tui_type att "$T_TMP/save/in"
tui_keys att Enter
tui_wait att "exists: overwrite it?" >/dev/null 2>&1
tui_keys att y
ok "yes: overwritten" tui_wait att "saved"
ok "... with the attachment" grep -qx "ATTACHED-CONTENT-$u" "$T_TMP/save/in/x_[2J_.txt"
ln -s "$T_TMP/save/target" "$T_TMP/save/in/link.txt"
tui_keys att s
tui_wait att "Save to" >/dev/null 2>&1
tui_keys att C-u
tui_type att "$T_TMP/save/in/link.txt"
tui_keys att Enter
ok "a symbolic link is never written through, nor asked about" \
    tui_wait att "link.txt is not a regular file (a symbolic"
ok "... its target not created" test ! -e "$T_TMP/save/target"
# a FIFO would hold open() (and the interface) until someone read it
mkfifo "$T_TMP/save/in/fifo.txt"
tui_keys att s
tui_wait att "Save to" >/dev/null 2>&1
tui_keys att C-u
tui_type att "$T_TMP/save/in/fifo.txt"
tui_keys att Enter
ok "a FIFO is refused at once, in a sentence" \
    tui_wait att "fifo.txt is not a regular file (a FIFO)"
ok "... it is still a FIFO, and nothing holds it open" sh -c \
    "[ -p '$T_TMP/save/in/fifo.txt' ] && ! fuser '$T_TMP/save/in/fifo.txt' 2>/dev/null"
tui_keys att '|'
ok "| on an attachment asks for a command" tui_wait att "Pipe the attachment to:"
tui_type att "cat >$T_TMP/piped-att"
tui_keys att Enter
tui_wait att "Press any key" >/dev/null 2>&1
tui_keys att Enter
ok "back on the list" tui_wait att "1 attachment"
ok "the command got the decoded attachment" grep -qx "ATTACHED-CONTENT-$u" "$T_TMP/piped-att"
tui_keys att Enter
ok "Enter opens it with the mailcap entry (the one without a test)" \
    tui_wait att "1 attachment"
sleep 0.5
ok "the viewer got the decoded content" grep -qx "ATTACHED-CONTENT-$u" "$T_TMP/opened"
ok "the type, and the name parameter only as an inert word" \
    grep -qxF "application/octet-stream $(printf '%s' "a'\$(touch $T_TMP/pwned)" | tr -c 'A-Za-z0-9._+/=-' _)" "$T_TMP/type"
ok "nothing from the name ran" test ! -e "$T_TMP/pwned"
ok "the entry with a test was passed over, its test not run" test ! -e "$T_TMP/tested"
ok "its temporary file and directory are gone" \
    test -z "$(ls -A "$T_TMP/tmp")"
tui_keys att q
ok "q: back to the pager" tui_wait att "see the attachment"
tui_keys att '|'
ok "| asks for a command" tui_wait att "Pipe the message to:"
tui_type att "cat >$T_TMP/piped"
tui_keys att Enter
tui_wait att "Press any key" >/dev/null 2>&1
tui_keys att Enter
ok "back in the pager after the command" tui_wait att "see the attachment"
ok "the raw message went to the command" \
    grep -q "^Message-ID: <att-$u@evil.example>" "$T_TMP/piped"
# flagged FLAG: the attachment's message has FLAG on the server, within 10 s.
flagged() {
	for _ in $(seq 1 50); do
		$DOVE fetch -u "$STEED_BOB" flags mailbox INBOX header \
		    message-id "<att-$u@evil.example>" | grep -q "$1" && return 0
		sleep 0.2
	done
	$DOVE fetch -u "$STEED_BOB" flags mailbox INBOX header \
	    message-id "<att-$u@evil.example>"
	return 1
}
tui_keys att F
ok "F flags the message on the server" flagged Flagged
tui_keys att j
ok "j: the next message of the index" tui_wait att "HTMLBODY" 20
tui_keys att k
ok "k: the one before" tui_wait att "see the attachment" 20
tui_keys att q
tui_stop att

# --- HTML only ----------------------------------------------------------------
start html
ok "the index comes up" tui_wait html "HTMLWORD" 20
open_msg html "HTMLWORD"
ok "the HTML is shown as text" tui_wait html "Hello HTMLBODY & the link [1]" 20
tui_capture html >"$T_TMP/html.screen"
ok "with a note saying so" grep -q "^note: HTML shown as text" "$T_TMP/html.screen"
ok "the link's address listed after the text" grep -q "^  \[1\] http://track.example/x" "$T_TMP/html.screen"
ok "script and style dropped" sh -c "! grep -q SCRIPTWORD '$T_TMP/html.screen'"
ok "no tag shown" sh -c "! grep -q '<p>\|<b>\|<img' '$T_TMP/html.screen'"
# in FOLDER: the HTML message is in FOLDER (and not flagged deleted).
in_folder() {
	for _ in $(seq 1 50); do
		$DOVE search -u "$STEED_BOB" mailbox "$1" header message-id \
		    "<html-$u@evil.example>" not deleted | grep -q . && return 0
		sleep 0.2
	done
	return 1
}
tui_keys html C
ok "C asks for a folder" tui_wait html "Copy to folder:"
tui_type html Junk
tui_keys html Enter
ok "C: copied on the server" in_folder Junk
ok "... and still in the INBOX" in_folder INBOX
tui_keys html d
ok "d: the pager goes on to the next message" tui_wait html "SECRETBODY-$u" 20
# gone FOLDER: within 10 s, the HTML message is no more in FOLDER (or is
# only flagged deleted there).
gone() {
	for _ in $(seq 1 50); do
		$DOVE search -u "$STEED_BOB" mailbox "$1" header message-id \
		    "<html-$u@evil.example>" not deleted | grep -q . || return 0
		sleep 0.2
	done
	return 1
}
ok "d: the message left the INBOX" gone INBOX
tui_keys html q
tui_stop html
