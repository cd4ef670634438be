# send.sh: steedmail -s end to end against the real Postfix and Dovecot:
# delivery, Sent copies, the outbox when the MTA is down, 5xx refusals,
# and SIGKILL at every step of a send (nothing lost, nothing twice).
. "$(dirname "$0")/../lib.sh"

alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$STEED_ENV/bob.conf" "$@"; }

# count WHO FOLDER TEXT: how many messages in FOLDER list TEXT.
count() { "$1" --list "$2" 2>/dev/null | grep -cF -- "$3"; }

# arrives WHO FOLDER TEXT N: wait up to 15 s for exactly N such messages.
arrives() {
	for _ in $(seq 1 30); do
		[ "$(count "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.5
	done
	echo "expected $4 message(s) '$3' in $1's $2; found $(count "$1" "$2" "$3")"
	"$1" --list "$2"
	return 1
}

outbox_empty() { [ -z "$(ls "$T_TMP/alice/steedmail/outbox/" 2>/dev/null | grep '\.env$')" ]; }

u=$$-$(date +%s)

echo "Hello Bob, this is line one." | alice -s "greeting $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "alice sends with -s: exit 0, one line on stderr: sent in clear, no key" sh -c "[ $? = 0 ] && [ \"\$(cat '$T_TMP/o')\" = 'steedmail: sent in clear: no key for bob@steed.test' ]"
ok "the message arrives in bob's INBOX (--list as bob)" arrives bob INBOX "greeting $u" 1
ok "a copy is in alice's Sent" arrives alice Sent "greeting $u" 1
ok "the outbox is empty afterwards" outbox_empty
uid=$(bob --list | grep -F "greeting $u" | cut -f1)
bob --fetch "$uid" >"$T_TMP/m" 2>&1
ok "--fetch gives the raw message with body and headers" sh -c "grep -q 'Hello Bob, this is line one.' '$T_TMP/m' && grep -q '^Subject: greeting $u' '$T_TMP/m' && grep -q '^From: .*alice@steed.test' '$T_TMP/m' && grep -q '^Message-ID: <' '$T_TMP/m'"
bob --sync >"$T_TMP/o" 2>/dev/null
ok "--sync prints the message count" grep -Eqx '[0-9]+ messages?' "$T_TMP/o"

"$STEED_ENV_BIN/add-user" "carol@steed.test" carol-pw >/dev/null 2>&1
echo "to many" | alice -s "many $u" -c carol@steed.test -b "$STEED_BOB" "$STEED_ALICE" >"$T_TMP/o" 2>&1
ok "Cc and Bcc recipients: exit 0" test $? = 0
ok "the Bcc recipient gets it" arrives bob INBOX "many $u" 1
uid=$(bob --list | grep -F "many $u" | cut -f1)
bob --fetch "$uid" >"$T_TMP/m" 2>&1
ok "no Bcc header in what was delivered" sh -c "! grep -qi '^Bcc:' '$T_TMP/m' && grep -q '^Cc: carol@steed.test' '$T_TMP/m'"

# An attachment, and one part of it fetched alone.
printf 'attached text, line one\n' >"$T_TMP/notes.txt"
echo "see attachment" | alice -s "attach $u" -a "$T_TMP/notes.txt" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "-a: sent with an attachment" test $? = 0
ok "the message with the attachment arrives" arrives bob INBOX "attach $u" 1
uid=$(bob --list | grep -F "attach $u" | cut -f1)
bob --fetch "$uid" --part 2 >"$T_TMP/p2" 2>"$T_TMP/e"
ok "--fetch --part 2 gives only the attachment's body" sh -c "base64 -d '$T_TMP/p2' 2>/dev/null | grep -q 'attached text, line one' || grep -q 'attached text, line one' '$T_TMP/p2'; r=\$?; ! grep -q 'see attachment' '$T_TMP/p2' && exit \$r"
bob --fetch "$uid" --part 1 >"$T_TMP/p1" 2>"$T_TMP/e"
ok "--fetch --part 1 gives the text" grep -q "see attachment" "$T_TMP/p1"
bob --fetch "$uid" --part 9 >"$T_TMP/p9" 2>&1
ok "--part of a part that does not exist: an error, not an empty success" sh -c "[ $? != 0 ] && grep -q 'no part 9' '$T_TMP/p9'"
bob --fetch "$uid" --part 'x]' >"$T_TMP/px" 2>&1
ok "--part with a bad section is refused" sh -c "[ $? != 0 ] && grep -q 'not a part number' '$T_TMP/px'"

echo x | alice -s "$(printf 'evil\r\nBcc: eve@evil.example')" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "CR/LF in the subject is refused with 64" sh -c "[ $? = 64 ] && grep -q 'line break' '$T_TMP/o'"
echo x | alice -s hi "$(printf 'bob@steed.test\r\nRCPT TO:<eve@evil.example>')" >"$T_TMP/o" 2>&1
ok "CR/LF in a recipient is refused with 64" test $? = 64
echo x | alice -s hi "not an address" >"$T_TMP/o" 2>&1
ok "a bad recipient is refused with 64, named" sh -c "[ $? = 64 ] && grep -q 'not a mail address' '$T_TMP/o'"
echo x | alice -s hi -a /nonexistent/file "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "an unreadable attachment is refused with 66" test $? = 66

# The MTA is down: the message waits in the outbox; --flush sends it.
postfix -c "$STEED_ENV/postfix" stop >/dev/null 2>&1
for _ in $(seq 1 50); do
	(exec 3<>/dev/tcp/127.0.0.1/$STEED_SUBMISSION_PORT) 2>/dev/null || break
	sleep 0.1
done
echo "while down" | alice -s "down $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
rc=$?
ok "MTA down: exit 0 with a note that it is queued" sh -c "[ $rc = 0 ] && grep -q 'queued' '$T_TMP/o' && grep -q 'steedmail --flush' '$T_TMP/o'"
ok "MTA down: the message is in the outbox" sh -c "! { ls '$T_TMP/alice/steedmail/outbox/' | grep -q '\.env$'; } && exit 1 || exit 0"
alice --flush >"$T_TMP/o" 2>&1
ok "--flush while still down: exit 75, still queued" sh -c "[ $? = 75 ] && ls '$T_TMP/alice/steedmail/outbox/' | grep -q '\.env$'"
postfix -c "$STEED_ENV/postfix" start >/dev/null 2>&1
for _ in $(seq 1 50); do
	(exec 3<>/dev/tcp/127.0.0.1/$STEED_SUBMISSION_PORT) 2>/dev/null && break
	sleep 0.1
done
alice --flush >"$T_TMP/o" 2>&1
ok "--flush once the MTA is back: exit 0" sh -c "[ $? = 0 ] && grep -q 'sent and saved' '$T_TMP/o'"
ok "the queued message arrives once" arrives bob INBOX "down $u" 1
ok "and is in Sent once" arrives alice Sent "down $u" 1
ok "the outbox is empty again" outbox_empty

# SIGKILL at every step of a send; the next flush finishes the job once.
for step in queued accepted appended saved; do
	echo "crash at $step" | STEEDMAIL_CRASH_AT=$step alice -s "crash-$step $u" "$STEED_BOB" >/dev/null 2>&1
	rc=$?
	alice --flush >"$T_TMP/o" 2>&1
	ok "killed at '$step' (status $rc): --flush completes it" sh -c "[ $rc = 137 ] && outbox_empty() { [ -z \"\$(ls '$T_TMP/alice/steedmail/outbox/' | grep '\.env$')\" ]; } && outbox_empty"
	ok "killed at '$step': bob has it exactly once" arrives bob INBOX "crash-$step $u" 1
	ok "killed at '$step': Sent has it exactly once" arrives alice Sent "crash-$step $u" 1
done

# A recipient the server refuses for good.
echo "nobody" | alice -s "refused $u" "nobody@steed.test" >"$T_TMP/o" 2>&1
rc=$?
ok "5xx recipient: exit 69, the recipient and the server's words named" sh -c "[ $rc = 69 ] && grep -q 'refused recipient nobody@steed.test: 550 5.1.1' '$T_TMP/o' && ! grep -q '\^J' '$T_TMP/o'"
ok "5xx: the message is kept in outbox/failed, not lost" sh -c "ls '$T_TMP/alice/steedmail/outbox/failed/' | grep -q '\.eml$'"

# A full disk: the message cannot be queued, so nothing is sent, and the
# user is told plainly; once there is room, sending works again.
full=$T_TMP/full
mkdir -p "$full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs "$full" 2>/dev/null; then
	trap 'umount "$full" 2>/dev/null; rm -rf "$T_TMP"' EXIT
	mkdir -p "$full/steedmail/outbox"
	dd if=/dev/zero of="$full/filler" bs=4k 2>/dev/null
	head -c 200000 /dev/urandom | base64 >"$T_TMP/big"
	XDG_DATA_HOME=$full XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" -s "full $u" "$STEED_BOB" <"$T_TMP/big" >"$T_TMP/o" 2>&1
	rc=$?
	ok "disk full: exit 75, 'nothing was sent', the reason named" sh -c "[ $rc = 75 ] && grep -q 'nothing was sent' '$T_TMP/o' && grep -q 'No space left on device' '$T_TMP/o'"
	ok "disk full: no half-written entry left in the outbox" sh -c "[ -z \"\$(ls -A '$full/steedmail/outbox' | grep -v '^.lock$')\" ]"
	rm -f "$full/filler"
	XDG_DATA_HOME=$full XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" -s "full $u" "$STEED_BOB" <"$T_TMP/big" >"$T_TMP/o" 2>&1
	ok "with room again, the same send works" test $? = 0
	ok "and it arrives once" arrives bob INBOX "full $u" 1
	umount "$full"
else
	echo "ok $((t_n + 1)) - disk full # SKIP needs root to mount a small tmpfs"
fi

# A wrong SMTP password (Postfix asks Dovecot): the login is refused, so
# the message is queued, not sent: said so with the server's words,
# nothing about it going out, and 75. The right password sends it; with
# sent-copy = no, --flush says no copy is kept, not that the server
# keeps one.
sed 's/^password = .*/password = not-the-password/' "$STEED_ENV/alice.conf" >"$T_TMP/badpw.conf"
{ cat "$STEED_ENV/alice.conf"; echo "sent-copy = no"; } >"$T_TMP/nocopy.conf"
chmod 600 "$T_TMP/badpw.conf" "$T_TMP/nocopy.conf"
badpw() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/badpw.conf" "$@"; }
nocopy() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$T_TMP/nocopy.conf" "$@"; }
envs() { ls "$T_TMP/alice/steedmail/outbox/" 2>/dev/null | grep -c '\.env$'; }
before=$(envs)
echo "wrong password" | badpw --no-encrypt -s "badpw $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
rc=$?
ok "wrong SMTP password: exit 75, queued, the login refused in the server's words" sh -c "cat '$T_TMP/o'; [ $rc = 75 ] && grep -q 'queued: SMTP login as alice@steed.test refused: 535' '$T_TMP/o' && grep -q 'not sent: it stays in the outbox' '$T_TMP/o'"
ok "... and no line says it was sent" sh -c "! grep -q '^steedmail: sent' '$T_TMP/o' && grep -qx 'steedmail: not sent yet; once it is: sent in clear: --no-encrypt' '$T_TMP/o'"
ok "... it is in the outbox, not in bob's INBOX" sh -c "[ \$(( \$(ls '$T_TMP/alice/steedmail/outbox/' | grep -c '\.env\$') - $before )) = 1 ] && sleep 1 && [ \$(doveadm -c '$STEED_DOVECOT_CONF' search -u '$STEED_BOB' mailbox INBOX subject 'badpw $u' | wc -l) = 0 ]"
badpw --flush >"$T_TMP/o" 2>&1
rc=$?
ok "--flush with the wrong password: 75, the same words" sh -c "[ $rc = 75 ] && grep -q ': queued: SMTP login as alice@steed.test refused: 535' '$T_TMP/o'"
nocopy --flush >"$T_TMP/o" 2>&1
rc=$?
ok "the right password and sent-copy = no: --flush sends it, says no copy is kept" sh -c "cat '$T_TMP/o'; [ $rc = 0 ] && grep -q ': sent; no copy kept in Sent (sent-copy = no)\$' '$T_TMP/o' && ! grep -q 'the server keeps' '$T_TMP/o'"
ok "... it arrives in bob's INBOX" arrives bob INBOX "badpw $u" 1
ok "... and Sent has no copy" sh -c "[ \$(doveadm -c '$STEED_DOVECOT_CONF' search -u '$STEED_BOB' mailbox INBOX subject 'badpw $u' | wc -l) = 1 ] && [ \$(doveadm -c '$STEED_DOVECOT_CONF' search -u '$STEED_ALICE' mailbox Sent subject 'badpw $u' | wc -l) = 0 ]"
exit 0
