# tui-ops.sh: the keys that change a mailbox, in tmux at 80x24 against the
# test Dovecot, each checked afterwards on the server with doveadm (not on
# the screen alone): d marks \Deleted (never \Draft), u takes it away, $
# then y expunges it and its row leaves; F and N set and clear \Flagged
# and \Seen; s moves to another folder and the row leaves at once; C
# copies; t tags, T tags by an expression, ';' applies d, F or s to every
# tagged message; in the pager F flags, t tags and d marks deleted. Each key's
# result is said on the message line.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

ADDR=ops-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"
"$STEED_ENV_BIN/add-user" "$ADDR" ops-pw || bail "add-user failed"
$DOVE mailbox create -u "$ADDR" Archive || bail "cannot create Archive"

# save SUBJECT DAY: a message into INBOX, dated the DAYth of March 2026,
# so that the index's date order is the order of the days.
save() {
	printf 'From: Carol <carol@steed.test>\nTo: %s\nDate: %s Mar 2026 10:00:00 +0000\nMessage-ID: <%s-%s@steed.test>\nSubject: %s\n\nbody of %s\n' \
	    "$ADDR" "$2" "$2" "$$" "$1" "$1" | $DOVE save -u "$ADDR" -m INBOX ||
	    bail "cannot save $1"
}
save "ops one" 1
save "ops two" 2
save "ops three" 3
save "ops four" 4
save "ops five" 5
save "ops six" 6

# flags FOLDER SUBJECT: the server's flags of the message, "none" if it
# has none, nothing if it is not there.
flags() {
	$DOVE fetch -u "$ADDR" flags mailbox "$1" subject "$2" 2>/dev/null |
	    sed -n 's/^flags: *//p' | sed 's/^$/none/'
}
# count FOLDER SUBJECT: how many messages of the folder have the subject.
count() {
	$DOVE search -u "$ADDR" mailbox "$1" subject "$2" 2>/dev/null | wc -l
}
# has_flag FOLDER SUBJECT FLAG
has_flag() { flags "$1" "$2" | grep -qw -- "$3"; }
# server_is FOLDER SUBJECT TEST...: wait up to 10 s for the server to
# show what TEST says (the worker answers while the screen goes on).
server_is() {
	_end=$(($(date +%s) + 10))
	while ! eval "$3"; do
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "# $1 \"$2\": flags \"$(flags "$1" "$2")\", count $(count "$1" "$2")"
			return 1
		fi
		sleep 0.1
	done
}

conf=$T_TMP/ops.conf
{
	echo "ca-file = $STEED_CA_FILE"
	echo "[account ops]"
	echo "address = $ADDR"
	echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
	echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
	echo "password = ops-pw"
} >"$conf"
chmod 600 "$conf"

tui_start o env LANG=C.UTF-8 XDG_DATA_HOME="$T_TMP/data" \
    XDG_CACHE_HOME="$T_TMP/cache" "$STEEDMAIL" -F "$conf" ||
    bail "tmux did not start"
tui_wait o "ops six" 20 || bail "the index never showed the messages"
tui_wait o "INBOX  6/6" 10 || bail "the cursor is not on the newest"

# ---- d, u, $ -------------------------------------------------------------

tui_keys o d
ok "d: the server has the message \\Deleted" server_is INBOX "ops six" 'has_flag INBOX "ops six" "\\\\Deleted"'
ok "... and not \\Draft" sh -c "! flags INBOX 'ops six' | grep -q Draft"
tui_keys o u
ok "u: \\Deleted is gone from the server" server_is INBOX "ops six" '! has_flag INBOX "ops six" "\\\\Deleted"'
tui_keys o d
server_is INBOX "ops six" 'has_flag INBOX "ops six" "\\\\Deleted"' >/dev/null
tui_keys o '$'
tui_wait o "for good?" 5 >/dev/null
tui_keys o y
ok "\$ y: the message is expunged on the server" server_is INBOX "ops six" '[ "$(count INBOX "ops six")" = 0 ]'
ok "... its row leaves the index" tui_gone o "ops six"
ok "... and the message line says what the server did" tui_wait o "1 message removed from INBOX for good"
ok "the others are all still there" test "$(count INBOX ops)" = 5

# ---- F, N ----------------------------------------------------------------

tui_keys o G
tui_wait o "INBOX  5/5" 10 >/dev/null
tui_keys o F
ok "F: \\Flagged on the server" server_is INBOX "ops five" 'has_flag INBOX "ops five" "\\\\Flagged"'
tui_keys o F
ok "F again: \\Flagged taken away, in one press" server_is INBOX "ops five" '! has_flag INBOX "ops five" "\\\\Flagged"'
tui_keys o N
ok "N on a new message: \\Seen on the server" server_is INBOX "ops five" 'has_flag INBOX "ops five" "\\\\Seen"'
tui_keys o N
ok "N again: new again on the server" server_is INBOX "ops five" '! has_flag INBOX "ops five" "\\\\Seen"'

# ---- s, C ----------------------------------------------------------------

tui_keys o s
tui_wait o "Move to folder:" 5 >/dev/null
tui_type o "Archive"
tui_keys o Enter
ok "s: the message is in Archive on the server" server_is Archive "ops five" '[ "$(count Archive "ops five")" = 1 ]'
ok "... and no longer in INBOX" test "$(count INBOX "ops five")" = 0
ok "... its row leaves the index without a restart" tui_gone o "ops five"
ok "... said on the message line" tui_wait o "1 message moved to Archive"

tui_wait o "INBOX  4/4" 10 >/dev/null
tui_keys o s
tui_wait o "Move to folder:" 5 >/dev/null
tui_type o "Nowhere"
tui_keys o Enter
ok "s to a folder that is not there: refused, with the server's reason" tui_wait_re o "1 message refused: .*(TRYCREATE|not exist|no such)"
ok "... the row stays" tui_wait o "ops four"
ok "... and the message is still in INBOX on the server" test "$(count INBOX "ops four")" = 1
tui_keys o C
tui_wait o "Copy to folder:" 5 >/dev/null
tui_type o "Archive"
tui_keys o Enter
ok "C: a copy in Archive on the server" server_is Archive "ops four" '[ "$(count Archive "ops four")" = 1 ]'
ok "... the original still in INBOX" test "$(count INBOX "ops four")" = 1
ok "... said on the message line" tui_wait o "1 message copied to Archive"

# ---- t, ;, T -------------------------------------------------------------

tui_keys o k
tui_keys o t
tui_keys o t
ok "t twice: two tagged, in the status line" tui_wait o "tagged: 2"
ok "... each row marked" sh -c "[ \$(tmux -S '$TUI_SOCK' capture-pane -p -t o | grep -c '^\\*.*ops t[hw]*[or]' ) -ge 1 ]"
tui_keys o '\;'
ok "; says what it is for" tui_wait o "for the 2 tagged"
tui_keys o d
ok ";d: both tagged messages \\Deleted on the server" server_is INBOX "ops three" 'has_flag INBOX "ops three" "\\\\Deleted" && has_flag INBOX "ops four" "\\\\Deleted"'
ok "... and no other" sh -c "! flags INBOX 'ops two' | grep -q Deleted && ! flags INBOX 'ops one' | grep -q Deleted"
ok "... said for both" tui_wait o "2 messages marked deleted"
tui_keys o '\;'
tui_keys o u
ok ";u: \\Deleted taken from both" server_is INBOX "ops three" '! has_flag INBOX "ops three" "\\\\Deleted" && ! has_flag INBOX "ops four" "\\\\Deleted"'
tui_keys o '\;'
tui_keys o F
ok ";F: both flagged on the server" server_is INBOX "ops three" 'has_flag INBOX "ops three" "\\\\Flagged" && has_flag INBOX "ops four" "\\\\Flagged"'

tui_keys o T
tui_wait o "Tag messages matching" 5 >/dev/null
tui_type o "~s one"
tui_keys o Enter
ok "T ~s one: one more tagged" tui_wait o "tagged: 3"
tui_keys o '\;'
tui_keys o s
tui_wait o "Move to folder:" 5 >/dev/null
tui_type o "Archive"
tui_keys o Enter
ok ";s: the three tagged moved to Archive on the server" server_is Archive "ops one" '[ "$(count Archive "ops one")" = 1 ] && [ "$(count Archive "ops three")" = 1 ] && [ "$(count Archive "ops four")" = 2 ]'
ok "... only ops two left in INBOX" sh -c "[ \$($DOVE search -u '$ADDR' mailbox INBOX all | wc -l) = 1 ] && [ $(count INBOX 'ops two') = 1 ]"
ok "... their rows leave the index" tui_wait o "INBOX  1/1"
ok "... the tags with them" tui_gone o "tagged:"

# ---- the pager -----------------------------------------------------------

tui_keys o Enter
tui_wait o "body of ops two" 10 >/dev/null
tui_keys o F
ok "F in the pager: \\Flagged on the server" server_is INBOX "ops two" 'has_flag INBOX "ops two" "\\\\Flagged"'
tui_keys o t
ok "t in the pager tags the message in the index" tui_wait o "tagged;"
tui_keys o d
ok "d in the pager: \\Deleted on the server, as in the index" server_is INBOX "ops two" 'has_flag INBOX "ops two" "\\Deleted"'
tui_keys o q
ok "back in the index, the row shows it deleted and tagged" tui_wait_re o '^\*D.*ops two'
tui_keys o '$'
tui_wait o "for good?" 5 >/dev/null
tui_keys o y
ok "\$ y: gone from the server" server_is INBOX "ops two" '[ "$(count INBOX "ops two")" = 0 ]'
ok "... and from the index" tui_wait o "INBOX  0/0"

tui_keys o q
tui_ended o 20 >/dev/null
tui_stop o
exit 0
