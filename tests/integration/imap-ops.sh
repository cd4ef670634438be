# imap-ops.sh: changing mail on the real Dovecot: --flag, --move, --delete
# and --idle as bob; the fallbacks for servers without MOVE, UIDPLUS or
# IDLE (tests/tools/imaptool forgets the capabilities); a connection
# dropped mid-session (doveadm kick); flag changes saved while the server
# refuses the login, sent exactly once when it is back; and a UIDVALIDITY
# change that makes saved changes meaningless.
. "$(dirname "$0")/../lib.sh"

IT=$PWD/tests/tools/imaptool
[ -x "$IT" ] || bail "tests/tools/imaptool is not built (make tests/tools/imaptool)"
[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

BOBCONF=$STEED_ENV/bob.conf
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$BOBCONF" "$@"; }
it() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" "$IT" "$@"; }
dove() { doveadm -c "$STEED_DOVECOT_CONF" "$@"; }

u=$$-$(date +%s)

# uid FOLDER TEXT: the UID of the message whose line in --list has TEXT.
uid() { bob --list "$1" 2>/dev/null | grep -F -- "$2" | cut -f1 | head -1; }
# listed FOLDER UID: the flags --list shows for UID.
listed() { bob --list "$1" 2>/dev/null | awk -F '\t' -v u="$2" '$1 == u { print $2 }'; }
# server FOLDER UID: the flags Dovecot has for UID, as IMAP names.
server() { dove fetch -u "$STEED_BOB" flags mailbox "$1" uid "$2" | sed -n 's/^flags: *//p'; }
# holds 'SHELL TEST': for checks that need the functions here.
holds() { eval "$1"; }
# has_flag FOLDER UID FLAG: the server has FLAG (e.g. Seen) on UID.
has_flag() { server "$1" "$2" | grep -q "\\$3"; }
lacks_flag() { ! has_flag "$@"; }
# listed_text FOLDER TEXT: --list FOLDER shows TEXT.
listed_text() { bob --list "$1" 2>/dev/null | grep -qF -- "$2"; }
# count FOLDER TEXT: how many messages in FOLDER (server side) have TEXT in
# the subject.
count() { dove search -u "$STEED_BOB" mailbox "$1" subject "$2" | wc -l; }
# save FOLDER SUBJECT: put a message straight into a folder.
save() { printf 'From: x@steed.test\nSubject: %s\n\nbody\n' "$2" | dove save -u "$STEED_BOB" -m "$1"; }
# arrives TEXT: wait up to 15 s for TEXT in bob's INBOX.
arrives() {
	for _ in $(seq 1 30); do
		[ "$(count INBOX "$1")" -ge 1 ] && return 0
		sleep 0.5
	done
	return 1
}
# waitfor FILE TEXT: wait up to 10 s for TEXT in FILE.
waitfor() {
	for _ in $(seq 1 100); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

for i in 1 2 3; do
	echo "message $i" | alice -s "ops$i $u" "$STEED_BOB" >/dev/null 2>&1
done
for i in 1 2 3; do arrives "ops$i $u" || bail "ops$i was not delivered"; done
u1=$(uid INBOX "ops1 $u"); u2=$(uid INBOX "ops2 $u"); u3=$(uid INBOX "ops3 $u")
[ -n "$u1" ] && [ -n "$u2" ] && [ -n "$u3" ] || bail "the test messages are not listed"

# --- flags -------------------------------------------------------------------
bob --flag "$u1" +S >"$T_TMP/o" 2>&1; rc=$?
ok "--flag +S: exit 0, silent" sh -c "[ $rc = 0 ] && [ ! -s '$T_TMP/o' ]"
ok "--list shows it seen" test "$(listed INBOX "$u1")" = S
ok "the server has \\Seen" test "$(server INBOX "$u1")" = '\Seen'
bob --flag "$u1" +FR-S >/dev/null 2>&1
ok "+FR-S: flagged and replied, no longer seen" test "$(listed INBOX "$u1")" = FR
ok "the server agrees" holds 'has_flag INBOX $u1 Flagged && has_flag INBOX $u1 Answered && lacks_flag INBOX $u1 Seen'
bob --flag "$u1" -F >"$T_TMP/o" 2>&1; rc=$?
ok "a FLAGS word starting with - right after the UID is not an option" sh -c "[ $rc = 0 ] && [ '$(listed INBOX "$u1")' = R ]"
bob --flag "$u1" -- -R+D >/dev/null 2>&1
ok "after --, too" test "$(listed INBOX "$u1")" = D
bob --flag "$u1" +X >"$T_TMP/o" 2>&1; rc=$?
ok "an unknown flag letter: exit 64, named" sh -c "[ $rc = 64 ] && grep -q \"'X'.*not a flag letter\" '$T_TMP/o'"
bob --flag "$u1" +S-S >"$T_TMP/o" 2>&1; rc=$?
ok "adding and removing a letter at once: 64" sh -c "[ $rc = 64 ] && grep -q 'both add and remove S' '$T_TMP/o'"
bob --flag abc +S >"$T_TMP/o" 2>&1; rc=$?
ok "a UID that is not a number: 64" sh -c "[ $rc = 64 ] && grep -q 'is not a UID' '$T_TMP/o'"
bob --flag 999999 +S >"$T_TMP/o" 2>&1; rc=$?
ok "a UID not in the folder: 69, said" sh -c "[ $rc = 69 ] && grep -q 'no message with UID 999999' '$T_TMP/o'"
bob --flag "$u2,$u3" +F >"$T_TMP/o" 2>&1; rc=$?
ok "--flag on a list of UIDs: exit 0, silent, both flagged on the server" sh -c "[ $rc = 0 ] && [ ! -s '$T_TMP/o' ]" 
ok "... the server has both \\Flagged" holds 'has_flag INBOX $u2 Flagged && has_flag INBOX $u3 Flagged'
bob --flag "$u2:$u3" -F >/dev/null 2>&1
ok "--flag on a range: both unflagged on the server" holds '! has_flag INBOX $u2 Flagged && ! has_flag INBOX $u3 Flagged'
bob --flag "$u2,999999" +S >"$T_TMP/o" 2>&1; rc=$?
ok "a list with one UID not in the folder: 69, how many were done and why not" sh -c "[ $rc = 69 ] && grep -q '1 message marked read; 1 message refused: .*999999' '$T_TMP/o'"
ok "... the other was done on the server" holds 'has_flag INBOX $u2 Seen'
bob --flag "$u2" -S >/dev/null 2>&1
bob --flag "3,x" +S >"$T_TMP/o" 2>&1; rc=$?
ok "a list with a word in it: 64" sh -c "[ $rc = 64 ] && grep -q 'not a UID, nor a list' '$T_TMP/o'"
bob --flag "1:4294967295" +S >"$T_TMP/o" 2>&1; rc=$?
ok "a range of four billion UIDs is refused before anything is asked" sh -c "[ $rc = 64 ] && grep -q 'more than 1000000 UIDs' '$T_TMP/o'"
bob --flag "$u1" +S Nonexistent >"$T_TMP/o" 2>&1; rc=$?
ok "a folder that does not exist: 69 with the server's words" sh -c "[ $rc = 69 ] && grep -q 'refused SELECT' '$T_TMP/o'"

# --- move --------------------------------------------------------------------
dove mailbox create -u "$STEED_BOB" "Archive-$u" || bail "cannot create Archive-$u"
A=Archive-$u
bob --move "$u2" "$A" >"$T_TMP/o" 2>&1; rc=$?
ok "--move: exit 0, silent" sh -c "[ $rc = 0 ] && [ ! -s '$T_TMP/o' ]"
ok "the message left INBOX (--list and the server)" holds '! listed_text INBOX "ops2 $u" && [ $(count INBOX "ops2 $u") = 0 ]'
ok "and is in $A" listed_text "$A" "ops2 $u"
bob --move "$u3" "Nowhere-$u" >"$T_TMP/o" 2>&1; rc=$?
ok "--move to a folder that does not exist: 69, the server's words" sh -c "[ $rc = 69 ] && grep -q 'TRYCREATE' '$T_TMP/o'"
ok "and the message stays" test "$(count INBOX "ops3 $u")" = 1
bob --move "$u3" INBOX >"$T_TMP/o" 2>&1; rc=$?
ok "--move to the folder it is in: refused" sh -c "[ $rc = 69 ] && grep -q 'in INBOX already' '$T_TMP/o'"

save INBOX "nomove $u"; save INBOX "nouidplus $u"
n1=$(uid INBOX "nomove $u"); n2=$(uid INBOX "nouidplus $u")
it -x MOVE "$BOBCONF" move INBOX "$n1" "$A" >"$T_TMP/o" 2>&1
ok "without MOVE: copy, flag and UID EXPUNGE of that UID" sh -c "grep -qx moved '$T_TMP/o' && [ $(count INBOX "nomove $u") = 0 ] && [ $(count "$A" "nomove $u") = 1 ]"
bob --flag "$u3" +T >/dev/null 2>&1
it -x MOVE,UIDPLUS "$BOBCONF" move INBOX "$n2" "$A" >"$T_TMP/o" 2>&1
ok "without MOVE and UIDPLUS: copied, the original left flagged deleted" sh -c "grep -qx copied-kept '$T_TMP/o' && [ $(count "$A" "nouidplus $u") = 1 ] && [ $(count INBOX "nouidplus $u") = 1 ]"
ok "--list shows the original flagged deleted" test "$(listed INBOX "$n2")" = T
ok "and another message flagged deleted was not expunged with it" test "$(count INBOX "ops3 $u")" = 1
bob --flag "$u3" -T >/dev/null 2>&1

# --- delete ------------------------------------------------------------------
bob --delete "$u3" >"$T_TMP/o" 2>&1; rc=$?
ok "--delete: exit 0, the message moved to Trash" sh -c "[ $rc = 0 ] && [ $(count INBOX "ops3 $u") = 0 ] && [ $(count Trash "ops3 $u") = 1 ]"
t3=$(uid Trash "ops3 $u")
bob --delete "$t3" Trash >"$T_TMP/o" 2>&1; rc=$?
ok "--delete in Trash: expunged for good" sh -c "[ $rc = 0 ] && [ $(count Trash "ops3 $u") = 0 ]"
ok "and gone from --list Trash" holds '! listed_text Trash "ops3 $u"'
save Trash "trash-keep $u"; save Trash "trash-other $u"
k1=$(uid Trash "trash-keep $u"); k2=$(uid Trash "trash-other $u")
bob --flag "$k2" +T Trash >/dev/null 2>&1
it -x UIDPLUS "$BOBCONF" delete Trash "$k1" >"$T_TMP/o" 2>&1
ok "in Trash without UIDPLUS: only flagged deleted" sh -c "grep -q '^marked Trash' '$T_TMP/o' && [ $(count Trash "trash-keep $u") = 1 ]"
ok "the other deleted message in Trash is still there" test "$(count Trash "trash-other $u")" = 1
ok "the server has \\Deleted on it" has_flag Trash "$k1" Deleted

# --- idle --------------------------------------------------------------------
start=$(date +%s)
bob --idle --timeout 2 >"$T_TMP/o" 2>&1; rc=$?
took=$(( $(date +%s) - start ))
ok "--idle with nothing happening: 'timeout', exit 1, after the time asked" sh -c "[ $rc = 1 ] && grep -qx timeout '$T_TMP/o' && [ $took -ge 2 ] && [ $took -le 6 ]"
(sleep 1; echo idle | alice -s "idle $u" "$STEED_BOB" >/dev/null 2>&1) &
start=$(date +%s)
bob --idle --timeout 30 >"$T_TMP/o" 2>&1; rc=$?
took=$(( $(date +%s) - start ))
wait
ok "--idle wakes up for a delivery: 'new mail', exit 0" sh -c "[ $rc = 0 ] && grep -qx 'new mail' '$T_TMP/o' && [ $took -lt 15 ]"
(sleep 1; dove flags add -u "$STEED_BOB" '\Flagged' mailbox INBOX uid "$u1") &
bob --idle --timeout 30 >"$T_TMP/o" 2>&1; rc=$?
wait
ok "a flag changed by another client: 'flags changed'" sh -c "[ $rc = 0 ] && grep -qx 'flags changed' '$T_TMP/o'"
i1=$(uid INBOX "idle $u")
(sleep 1; dove expunge -u "$STEED_BOB" mailbox INBOX uid "$i1") &
bob --idle --timeout 30 >"$T_TMP/o" 2>&1; rc=$?
wait
ok "a message expunged elsewhere: 'expunged'" sh -c "[ $rc = 0 ] && grep -qx expunged '$T_TMP/o'"
(sleep 1.5; echo x | alice -s "noop $u" "$STEED_BOB" >/dev/null 2>&1) &
it -x IDLE -p 1 "$BOBCONF" idle INBOX 30 >"$T_TMP/o" 2>&1
wait
ok "without IDLE, NOOP polling sees the delivery" grep -q '^exists' "$T_TMP/o"
(sleep 3; echo x | alice -s "renew $u" "$STEED_BOB" >/dev/null 2>&1) &
IMAPTOOL_LOG=$T_TMP/renew.log it -r 1 "$BOBCONF" idle INBOX 30 >"$T_TMP/o" 2>&1
wait
ok "IDLE renewed every second still wakes up for a delivery" sh -c "grep -q '^exists' '$T_TMP/o' && [ \$(grep -c 'IDLE for up to' '$T_TMP/renew.log') -ge 2 ]"
bob --timeout 5 --list >"$T_TMP/o" 2>&1; rc=$?
ok "--timeout without --idle: 64" test "$rc" = 64
bob --idle --timeout 0 >"$T_TMP/o" 2>&1; rc=$?
ok "--timeout 0: 64" test "$rc" = 64

# --- a connection dropped mid-session ----------------------------------------
rm -f "$T_TMP/in"; mkfifo "$T_TMP/in"
it -w "$BOBCONF" flag INBOX "$u1" +S <"$T_TMP/in" >"$T_TMP/o" 2>&1 &
pid=$!
exec 3>"$T_TMP/in"
waitfor "$T_TMP/o" ready || diag "imaptool did not get ready"
dove kick "$STEED_BOB" >/dev/null
sleep 0.5
echo go >&3
exec 3>&-
wait "$pid"; rc=$?
ok "kicked between select and store: the flag change reconnects and succeeds" sh -c "[ $rc = 0 ] && grep -qx ok '$T_TMP/o' && grep -qx 'reconnects 1' '$T_TMP/o'"
ok "the flag landed on the server" has_flag INBOX "$u1" Seen
bob --idle --timeout 30 >"$T_TMP/o" 2>&1 &
pid=$!
sleep 1
dove kick "$STEED_BOB" >/dev/null
sleep 1
echo x | alice -s "kick $u" "$STEED_BOB" >/dev/null 2>&1
wait "$pid"; rc=$?
ok "--idle kicked while waiting: reconnects, still sees the new mail" sh -c "[ $rc = 0 ] && grep -qx 'new mail' '$T_TMP/o'"

# --- the server refuses the login: changes are saved, sent later, once ------
bob --flag "$u1" -F >/dev/null 2>&1
bob --list >/dev/null 2>&1
"$STEED_ENV_BIN/add-user" "$STEED_BOB" not-bobs-pw >/dev/null 2>&1
bob --flag "$u1" +F >"$T_TMP/o" 2>&1; rc=$?
ok "login refused: --flag exits 75, says the change is saved" sh -c "[ $rc = 75 ] && grep -q 'saved and will be sent' '$T_TMP/o' && grep -q 'AUTHENTICATIONFAILED' '$T_TMP/o'"
bob --flag "$u1" -S >/dev/null 2>&1
bob --list >"$T_TMP/o" 2>"$T_TMP/e"; rc=$?
ok "--list offline: exit 75, the cached copy, with a note" sh -c "[ $rc = 75 ] && grep -q 'showing the cached copy' '$T_TMP/e' && grep -qF 'ops1 $u' '$T_TMP/o'"
ok "the cached flags show both saved changes" sh -c "awk -F '\t' '\$1 == $u1 { print \$2 }' '$T_TMP/o' | grep -qx DF"
ok "the server does not have them yet" holds 'lacks_flag INBOX $u1 Flagged && has_flag INBOX $u1 Seen'
bob --flag 999999 +F >"$T_TMP/o" 2>&1; rc=$?
ok "offline, a UID not in the cache: 75, not saved" sh -c "[ $rc = 75 ] && grep -q 'was not saved' '$T_TMP/o'"
bob --flag 1 +F "Never-synced-$u" >"$T_TMP/o" 2>&1; rc=$?
ok "offline, a folder never synced: 75, not saved" sh -c "[ $rc = 75 ] && grep -q 'never synced' '$T_TMP/o'"
bob --move "$u1" "$A" >"$T_TMP/o" 2>&1; rc=$?
ok "offline --move: 75, nothing moved" sh -c "[ $rc = 75 ] && grep -q 'nothing was moved' '$T_TMP/o' && [ $(count INBOX "ops1 $u") = 1 ]"
bob --idle --timeout 2 >"$T_TMP/o" 2>&1; rc=$?
ok "offline --idle: 75" test "$rc" = 75
"$STEED_ENV_BIN/add-user" "$STEED_BOB" "$STEED_BOB_PASS" >/dev/null 2>&1
bob --sync >"$T_TMP/o" 2>&1; rc=$?
ok "back online: --sync sends the saved changes first" sh -c "[ $rc = 0 ] && grep -q '2 saved flag changes sent' '$T_TMP/o'"
ok "the server has them now" holds 'has_flag INBOX $u1 Flagged && lacks_flag INBOX $u1 Seen'
bob --flag "$u1" -F >/dev/null 2>&1
bob --sync >"$T_TMP/o" 2>&1
ok "a second --sync sends nothing again" sh -c "! grep -q 'saved flag change' '$T_TMP/o'"
ok "exactly once: the later removal of \\Flagged stands" lacks_flag INBOX "$u1" Flagged

# A closed port instead of a refused login.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed "s|^imap = .*|imap = imaps://localhost:$port|" "$BOBCONF" >"$T_TMP/closed.conf"
chmod 600 "$T_TMP/closed.conf"
BOBCONF=$T_TMP/closed.conf
bob --flag "$u1" +R >"$T_TMP/o" 2>&1; rc=$?
ok "server down: --flag saved, 75, naming the connection failure" sh -c "[ $rc = 75 ] && grep -q 'saved and will be sent' '$T_TMP/o' && grep -q 'cannot connect' '$T_TMP/o'"
BOBCONF=$STEED_ENV/bob.conf
bob --list >/dev/null 2>"$T_TMP/o"
ok "server back: sent by --list" holds 'has "$T_TMP/o" "1 saved flag change sent" && has_flag INBOX $u1 Answered'

# --- UIDVALIDITY changes while a change waits ---------------------------------
bob --list "$A" >/dev/null 2>&1
a2=$(uid "$A" "ops2 $u")
"$STEED_ENV_BIN/add-user" "$STEED_BOB" not-bobs-pw >/dev/null 2>&1
bob --flag "$a2" +F "$A" >/dev/null 2>&1; rc=$?
ok "a change saved for $A" test "$rc" = 75
dove mailbox update -u "$STEED_BOB" --uid-validity 4242 "$A"
"$STEED_ENV_BIN/add-user" "$STEED_BOB" "$STEED_BOB_PASS" >/dev/null 2>&1
bob --sync "$A" >"$T_TMP/o" 2>&1; rc=$?
ok "its UIDVALIDITY changed meanwhile: dropped with a warning" sh -c "[ $rc = 0 ] && grep -q 'warning: the UIDVALIDITY of $A changed' '$T_TMP/o' && ! grep -q 'saved flag change sent' '$T_TMP/o'"
ok "and not applied to whatever has that UID now" lacks_flag "$A" "$a2" Flagged
bob --sync "$A" >"$T_TMP/o" 2>&1
ok "nothing is left to drop" sh -c "! grep -q warning '$T_TMP/o'"

dove mailbox delete -u "$STEED_BOB" "$A" >/dev/null 2>&1
exit 0
