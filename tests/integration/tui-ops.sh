# tui-ops.sh: the keys that change a mailbox, in tmux at 80x24, on each of
# the test environment's IMAP servers (Dovecot, Cyrus, Courier), each
# checked afterwards on the server with another client
# (tests/tools/imapcheck.py, Python's imaplib), not on the screen alone:
# d marks \Deleted (never \Draft), u takes it away, $ then y expunges it
# and its row leaves; F and N set and clear \Flagged and \Seen; s moves to
# another folder and the row leaves at once, a move the server refuses
# keeps its row and says why; C copies; t tags, T tags by an expression,
# ';' applies d, u, F or s to every tagged message; in the pager N, F,
# C, d, u, t and s do the same to the message shown. Each key's result
# is said on the message line.
#
# steed-env-servers: cyrus courier
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

IC="python3 tests/tools/imapcheck.py"

# save SUBJECT DAY: a message into INBOX of server $S, dated the DAYth of
# March 2026, so that the index's date order is the order of the days.
save() {
	printf 'From: Carol <carol@steed.test>\nTo: %s\nDate: %s Mar 2026 10:00:00 +0000\nMessage-ID: <%s-%s-%s@steed.test>\nSubject: %s\n\nbody of %s\n' \
	    "$STEED_ALICE" "$2" "$2" "$S" "$$" "$1" "$1" >"$T_TMP/msg" &&
	    $IC --server "$S" append INBOX "$T_TMP/msg" >/dev/null ||
	    bail "$S: cannot save $1"
}

# uids FOLDER SUBJECT: the UIDs of the messages of FOLDER on server $S
# whose subject has SUBJECT.
uids() { $IC --server "$S" search "$1" "$2" 2>/dev/null; }
# count FOLDER SUBJECT: how many there are.
count() { uids "$1" "$2" | grep -c .; }
# flags FOLDER SUBJECT: the server's flags of that message.
flags() {
	_u=$(uids "$1" "$2" | head -1)
	[ -n "$_u" ] || return 0
	$IC --server "$S" flags "$1" | awk -v u="$_u" '$1 == u { $1 = ""; print }'
}
# has_flag FOLDER SUBJECT NAME: the message has the system flag \NAME
# (Deleted, Seen, ...), in any case (Cyrus writes some in lower case).
has_flag() {
	flags "$1" "$2" | awk -v f="$3" '{ for (i = 1; i <= NF; i++)
	    if (tolower($i) == tolower("\\" f)) found = 1 }
	    END { exit !found }'
}
# holds 'SHELL TEST': for checks that need the functions here.
holds() { eval "$1"; }
# server_is FOLDER SUBJECT TEST: wait up to 10 s for the server to show
# what TEST says (the worker answers while the screen goes on).
server_is() {
	_end=$(($(date +%s) + 10))
	while ! eval "$3"; do
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "# $S $1 \"$2\": flags \"$(flags "$1" "$2")\", count $(count "$1" "$2")"
			return 1
		fi
		sleep 0.2
	done
}

for S in dovecot cyrus courier; do
case $S in
cyrus) port=${STEED_CYRUS_IMAPS_PORT:-} ;;
courier) port=${STEED_COURIER_IMAPS_PORT:-} ;;
*) port=$STEED_IMAPS_PORT ;;
esac
if [ -z "$port" ]; then
	t_n=$((t_n + 1))
	echo "ok $t_n - $S: the mailbox keys # SKIP $S not started (STEED_ENV_SERVERS)"
	continue
fi
diag "--- $S"
# Dovecot's folders are at the top; Cyrus's and Courier's below INBOX.
case $S in dovecot) A=Archive ;; *) A=INBOX.Archive ;; esac
$IC --server "$S" create "$A" >/dev/null || bail "$S: cannot create $A"
save "ops one" 1
save "ops two" 2
save "ops three" 3
save "ops four" 4
save "ops five" 5
save "ops six" 6
conf=$(server_account "ops$S" "$S") || bail "$S: no account"

tui_start o env LANG=C.UTF-8 XDG_DATA_HOME="$T_TMP/$S-data" \
    XDG_CACHE_HOME="$T_TMP/$S-cache" "$STEEDMAIL" -F "$conf" ||
    bail "tmux did not start"
tui_wait o "ops six" 20 || bail "$S: the index never showed the messages"
tui_wait o "INBOX  6/6" 10 || bail "$S: the cursor is not on the newest"

# ---- d, u, $ -------------------------------------------------------------

tui_keys o d
ok "$S: d: the server has the message \\Deleted" server_is INBOX "ops six" 'has_flag INBOX "ops six" Deleted'
ok "$S: ... and not \\Draft" holds '! has_flag INBOX "ops six" Draft'
tui_keys o u
ok "$S: u: \\Deleted is gone from the server" server_is INBOX "ops six" '! has_flag INBOX "ops six" Deleted'
tui_keys o d
server_is INBOX "ops six" 'has_flag INBOX "ops six" Deleted' >/dev/null
tui_keys o '$'
ok "$S: \$ asks, counting what is marked deleted" tui_wait o "Remove the 1 message marked deleted from INBOX for good?"
tui_keys o y
ok "$S: \$ y: the message is expunged on the server" server_is INBOX "ops six" '[ "$(count INBOX "ops six")" = 0 ]'
ok "$S: ... its row leaves the index" tui_gone o "ops six"
ok "$S: ... and the message line says what the server did" tui_wait o "1 message removed from INBOX for good"
ok "$S: the others are all still there" test "$(count INBOX ops)" = 5
tui_keys o '$'
ok "$S: \$ with nothing marked deleted asks nothing, and says so" tui_wait o "nothing in INBOX is marked deleted"

# ---- F, N ----------------------------------------------------------------

tui_keys o G
tui_wait o "INBOX  5/5" 10 >/dev/null
tui_keys o F
ok "$S: F: \\Flagged on the server" server_is INBOX "ops five" 'has_flag INBOX "ops five" Flagged'
tui_keys o F
ok "$S: F again: \\Flagged taken away, in one press" server_is INBOX "ops five" '! has_flag INBOX "ops five" Flagged'
tui_keys o N
ok "$S: N on a new message: \\Seen on the server" server_is INBOX "ops five" 'has_flag INBOX "ops five" Seen'
tui_keys o N
ok "$S: N again: new again on the server" server_is INBOX "ops five" '! has_flag INBOX "ops five" Seen'

# ---- s, C ----------------------------------------------------------------

tui_keys o s
tui_wait o "Move to folder:" 5 >/dev/null
tui_type o "$A"
tui_keys o Enter
ok "$S: s: the message is in $A on the server" server_is $A "ops five" '[ "$(count $A "ops five")" = 1 ]'
ok "$S: ... and no longer in INBOX" test "$(count INBOX "ops five")" = 0
ok "$S: ... its row leaves the index without a restart" tui_gone o "ops five"
ok "$S: ... said on the message line" tui_wait o "1 message moved to $A"

tui_wait o "INBOX  4/4" 10 >/dev/null
tui_keys o s
tui_wait o "Move to folder:" 5 >/dev/null
tui_type o "Nowhere"
tui_keys o Enter
ok "$S: s to a folder that is not there: refused, with the server's reason" tui_wait_re o "1 message refused: the IMAP server refused UID (MOVE|COPY)"
ok "$S: ... the row stays" tui_wait o "ops four"
ok "$S: ... and the message is still in INBOX on the server" test "$(count INBOX "ops four")" = 1
tui_keys o C
tui_wait o "Copy to folder:" 5 >/dev/null
tui_type o "$A"
tui_keys o Enter
ok "$S: C: a copy in $A on the server" server_is $A "ops four" '[ "$(count $A "ops four")" = 1 ]'
ok "$S: ... the original still in INBOX" test "$(count INBOX "ops four")" = 1
ok "$S: ... said on the message line" tui_wait o "1 message copied to $A"

# ---- t, ;, T -------------------------------------------------------------

tui_keys o k
tui_keys o t
tui_keys o t
ok "$S: t twice: two tagged, in the status line" tui_wait o "tagged: 2"
ok "$S: ... each row marked" holds '[ "$(tui_capture o | grep -c "^\*.*ops \(three\|four\)")" = 2 ]'
tui_keys o '\;'
ok "$S: ; says what it is for" tui_wait o "for the 2 tagged"
tui_keys o d
ok "$S: ;d: both tagged messages \\Deleted on the server" server_is INBOX "ops three" 'has_flag INBOX "ops three" Deleted && has_flag INBOX "ops four" Deleted'
ok "$S: ... and no other" holds '! has_flag INBOX "ops two" Deleted && ! has_flag INBOX "ops one" Deleted'
ok "$S: ... said for both" tui_wait o "2 messages marked deleted"
tui_keys o '\;'
tui_keys o u
ok "$S: ;u: \\Deleted taken from both" server_is INBOX "ops three" '! has_flag INBOX "ops three" Deleted && ! has_flag INBOX "ops four" Deleted'
tui_keys o '\;'
tui_keys o F
ok "$S: ;F: both flagged on the server" server_is INBOX "ops three" 'has_flag INBOX "ops three" Flagged && has_flag INBOX "ops four" Flagged'

tui_keys o T
tui_wait o "Tag messages matching" 5 >/dev/null
tui_type o "~s one"
tui_keys o Enter
ok "$S: T ~s one: one more tagged" tui_wait o "tagged: 3"
ok "$S: ... said with the count" tui_wait o "tagged 1 message matching ~s one; 3 tagged in all"
tui_keys o '\;'
tui_keys o s
tui_wait o "Move to folder:" 5 >/dev/null
tui_type o "$A"
tui_keys o Enter
ok "$S: ;s: the three tagged moved to $A on the server" server_is $A "ops one" '[ "$(count $A "ops one")" = 1 ] && [ "$(count $A "ops three")" = 1 ] && [ "$(count $A "ops four")" = 2 ]'
ok "$S: ... only ops two left in INBOX" holds '[ "$(count INBOX ops)" = 1 ] && [ "$(count INBOX "ops two")" = 1 ]'
ok "$S: ... their rows leave the index" tui_wait o "INBOX  1/1"
ok "$S: ... the tags with them" tui_gone o "tagged:"

# ---- the pager -----------------------------------------------------------

tui_keys o Enter
tui_wait o "body of ops two" 10 >/dev/null
ok "$S: opening the message marks it read on the server" server_is INBOX "ops two" 'has_flag INBOX "ops two" Seen'
tui_keys o N
ok "$S: N in the pager: new again on the server" server_is INBOX "ops two" '! has_flag INBOX "ops two" Seen'
tui_keys o F
ok "$S: F in the pager: \\Flagged on the server" server_is INBOX "ops two" 'has_flag INBOX "ops two" Flagged'
tui_keys o C
tui_wait o "Copy to folder:" 5 >/dev/null
tui_type o "$A"
tui_keys o Enter
ok "$S: C in the pager: a copy in $A on the server" server_is "$A" "ops two" '[ "$(count "$A" "ops two")" = 1 ]'
tui_keys o d
ok "$S: d in the pager: \\Deleted on the server" server_is INBOX "ops two" 'has_flag INBOX "ops two" Deleted'
tui_keys o u
ok "$S: u in the pager: \\Deleted taken away on the server" server_is INBOX "ops two" '! has_flag INBOX "ops two" Deleted'
tui_keys o t
ok "$S: t in the pager tags the message in the index" tui_wait o "tagged (; in the index"
tui_keys o s
tui_wait o "Move to folder:" 5 >/dev/null
tui_type o "$A"
tui_keys o Enter
ok "$S: s in the pager: moved to $A on the server" server_is "$A" "ops two" '[ "$(count "$A" "ops two")" = 2 ] && [ "$(count INBOX "ops two")" = 0 ]'
tui_keys o q
ok "$S: back in the index, its row is gone" tui_wait o "INBOX  0/0"

# ---- a folder that is not there -----------------------------------------

tui_keys o c
tui_wait o "Open folder:" 5 >/dev/null
tui_type o "Nowhere"
tui_keys o Enter
ok "$S: c to a folder that is not there: the server's refusal is said" tui_wait o "Nowhere: SELECT failed"
sleep 1
ok "$S: ... and the account is not said to be offline" holds '! tui_capture o | grep -q offline'

tui_keys o q
tui_ended o 20 >/dev/null
tui_stop o
done
exit 0
