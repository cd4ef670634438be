# pinentry.sh: a passphrase on the account's key, typed in a real
# terminal. steedmail makes alice's key (no passphrase), the test gives it
# one, and `steedmail -s --sign` runs in tmux terminals: gpg-agent's
# pinentry-curses must ask on the terminal steedmail runs in (the agent
# was started elsewhere, without one, as when logging in over SSH), also
# when only standard error is a terminal; the message then waits in the
# outbox (the smtp URL is a port nothing listens on) and --inspect finds
# a good signature by alice on it. A wrong passphrase, Cancel, and no
# terminal at all must stop -s with a clear error, exit 69, and leave
# nothing in the outbox. No server needed; every agent and tmux server
# started here is stopped at the end, also on failure.
. "$(dirname "$0")/../lib.sh"

for p in gpg gpgconf gpg-connect-agent tmux pinentry-curses python3 setsid; do
	if ! command -v $p >/dev/null 2>&1; then
		echo "ok 1 - pinentry in a terminal # SKIP $p is not installed"
		exit 0
	fi
done

GH=$XDG_DATA_HOME/steedmail/gnupg
SOCK=$T_TMP/tmux.sock
OUTBOX=$XDG_DATA_HOME/steedmail/outbox
PASS='correct horse 7'
export LC_ALL=C
unset GPG_TTY DISPLAY WAYLAND_DISPLAY

cleanup() {
	tmux -S "$SOCK" kill-server >/dev/null 2>&1
	gpgconf --homedir "$GH" --kill all >/dev/null 2>&1
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	bail "no free port"
CONF=$T_TMP/alice.conf
cat >"$CONF" <<EOF
# alice; nothing listens on the port, so -s leaves the message queued.
# No encryption: this is about signing, and no DNS look-up is wanted.
encrypt = never
[account alice]
name = Alice Example
address = alice@example.org
imap = imaps://127.0.0.1:$PORT
smtp = smtp://127.0.0.1:$PORT
password = alice-pw
EOF
chmod 600 "$CONF"
printf 'Hello Bob,\nthis one is signed with a key that has a passphrase.\n' \
    >"$T_TMP/body"

# The agent asks every time (no cache), with pinentry-curses.
mkdir -p "$GH"
chmod 700 "$XDG_DATA_HOME/steedmail" "$GH"
cat >"$GH/gpg-agent.conf" <<EOF
pinentry-program $(command -v pinentry-curses)
ignore-cache-for-signing
default-cache-ttl 0
max-cache-ttl 0
EOF

ok "--genkey makes alice's key" sh -c \
    "'$STEEDMAIL' -F '$CONF' --genkey </dev/null >'$T_TMP/genkey' 2>&1"
FPR=$(gpg --homedir "$GH" --batch --with-colons -K alice@example.org 2>/dev/null |
    awk -F: '/^fpr/ { print $10; exit }')
ok "gpg gives the key a passphrase" gpg --homedir "$GH" --batch --quiet \
    --pinentry-mode loopback --passphrase "$PASS" --passwd "$FPR"
fails "the key cannot be used without it" sh -c \
    "echo x | gpg --homedir '$GH' --batch --pinentry-mode loopback \
    --passphrase '' -u '$FPR' --clearsign"
# A fresh agent, started here without a terminal: like an agent started
# at login, used from an SSH session, it learns the terminal from the
# request, and from nowhere else.
gpgconf --homedir "$GH" --kill gpg-agent >/dev/null 2>&1
ok "gpg-agent runs, started without a terminal" sh -c \
    "gpg-connect-agent --homedir '$GH' /bye </dev/null >/dev/null 2>&1"

# term NAME COMMAND: run the shell COMMAND in the new 100x30 terminal
# NAME, in this test's directories; $T_TMP/NAME.rc gets its exit status.
term() {
	cat >"$T_TMP/$1.sh" <<EOF
export HOME='$HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' \
    XDG_DATA_HOME='$XDG_DATA_HOME' XDG_CACHE_HOME='$XDG_CACHE_HOME' LC_ALL=C
unset GPG_TTY DISPLAY WAYLAND_DISPLAY
$2
echo \$? >'$T_TMP/$1.rc.new' && mv '$T_TMP/$1.rc.new' '$T_TMP/$1.rc'
exec sleep 300
EOF
	tmux -S "$SOCK" -f /dev/null new-session -d -s "$1" -x 100 -y 30 \
	    "sh '$T_TMP/$1.sh'"
}
# shows NAME [-e]: what terminal NAME shows (-e: with attributes).
shows() { tmux -S "$SOCK" capture-pane -p ${2:-} -t "$1"; }
# waitfor NAME TEXT [-e]: until terminal NAME shows TEXT (20 s at most).
waitfor() {
	_end=$(($(date +%s) + 20))
	while :; do
		shows "$1" "${3:-}" >"$T_TMP/$1.screen" 2>&1
		grep -qF -- "$2" "$T_TMP/$1.screen" && return 0
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "terminal $1 never showed \"$2\"; it shows:"
			grep -v '^$' "$T_TMP/$1.screen"
			return 1
		fi
		sleep 0.1
	done
}
# waitrc NAME: until the command in terminal NAME has ended (30 s).
waitrc() {
	_end=$(($(date +%s) + 30))
	while [ ! -e "$T_TMP/$1.rc" ]; do
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "the command in terminal $1 did not end; it shows:"
			shows "$1" | grep -v '^$'
			return 1
		fi
		sleep 0.1
	done
}
# keys NAME TEXT: type TEXT and Enter into terminal NAME.
keys() {
	tmux -S "$SOCK" send-keys -t "$1" -l "$2" &&
	    tmux -S "$SOCK" send-keys -t "$1" Enter
}
# ended NAME STATUS: the command in terminal NAME ended with STATUS.
ended() {
	[ "$(cat "$T_TMP/$1.rc")" = "$2" ] && return 0
	echo "exit status $(cat "$T_TMP/$1.rc"), not $2"
	cat "$T_TMP/$1".out "$T_TMP/$1".err 2>/dev/null
	shows "$1" | grep -v '^$'
	return 1
}
queued() { ls "$OUTBOX"/*.msg 2>/dev/null; }
PROMPT="Please enter the passphrase to unlock the OpenPGP secret key"
SEND="'$STEEDMAIL' -F '$CONF' -s 'Signed with a passphrase' --sign bob@example.org <'$T_TMP/body'"

# inspect_queued: the one message queued has a good signature by alice.
inspect_queued() {
	set -- $(queued)
	[ $# = 1 ] || { echo "$# messages queued"; return 1; }
	sm --inspect "$1" >"$T_TMP/inspect" 2>&1 || { cat "$T_TMP/inspect"; return 1; }
	for l in "signed: yes" "signature.1.status: good" \
	    "signature.1.fpr: $FPR" "signature.1.matches-from: yes"; do
		grep -qxF "$l" "$T_TMP/inspect" ||
		    { echo "no \"$l\" in:"; cat "$T_TMP/inspect"; return 1; }
	done
	grep -qi '^Content-Type: multipart/signed' "$1"
}

# 1. Everything on the terminal but the body.
term one "$SEND"
ok "1: pinentry asks on steedmail's terminal" waitfor one "$PROMPT"
ok "1: ... for alice's key" waitfor one "Alice Example <alice@example.org>"
keys one "$PASS"
ok "1: -s ends after the passphrase" waitrc one
ok "1: ... with status 0, the message queued" ended one 0
ok "1: it says the message stays in the outbox" waitfor one "it stays in the outbox"
ok "1: the queued message carries alice's good signature" inspect_queued
rm -f "$OUTBOX"/*

# 2. Only standard error is a terminal: steedmail must tell gpg-agent
# which one (GPG_TTY), as gpgme only looks at standard output. A new
# terminal, so pinentry cannot be shown on the last one by mistake.
term two "$SEND >'$T_TMP/two.out'"
ok "2: pinentry asks when only standard error is a terminal" waitfor two "$PROMPT"
keys two "$PASS"
ok "2: -s ends" waitrc two
ok "2: ... with status 0" ended two 0
ok "2: the queued message carries alice's good signature" inspect_queued
rm -f "$OUTBOX"/*

# 3. A wrong passphrase, three times (gpg-agent's limit).
term three "$SEND 2>'$T_TMP/three.err'"
ok "3: pinentry asks" waitfor three "$PROMPT"
keys three "not it"
ok "3: pinentry asks again after a wrong passphrase" waitfor three "try 2 of 3"
keys three "not it either"
ok "3: ... and a third time" waitfor three "try 3 of 3"
keys three "still wrong"
ok "3: -s ends" waitrc three
ok "3: with status 69" ended three 69
ok "3: the error says the passphrase was wrong and nothing was sent" \
    grep -q "nothing was sent: .*Bad passphrase" "$T_TMP/three.err"
ok "3: nothing is queued" test -z "$(queued)"

# 4. Cancel (Tab, Tab to the button, Enter).
term four "$SEND 2>'$T_TMP/four.err'"
ok "4: pinentry asks" waitfor four "$PROMPT"
tmux -S "$SOCK" send-keys -t four Tab
ok "4: Tab moves to OK" waitfor four "7m<OK>" -e
tmux -S "$SOCK" send-keys -t four Tab
ok "4: Tab moves to Cancel" waitfor four "7m<Cancel>" -e
tmux -S "$SOCK" send-keys -t four Enter
ok "4: -s ends" waitrc four
ok "4: with status 69" ended four 69
ok "4: the error says it was cancelled and nothing was sent" \
    grep -q "nothing was sent: .*Operation cancelled" "$T_TMP/four.err"
ok "4: nothing is queued" test -z "$(queued)"

# 5. No terminal at all (its own session, nothing on a terminal): no
# prompt anywhere, no hang, a reason that says what is missing.
term five "setsid -w $SEND >'$T_TMP/five.out' 2>'$T_TMP/five.err'"
ok "5: -s ends without a terminal" waitrc five
ok "5: with status 69" ended five 69
ok "5: the error says there is no terminal to ask on" \
    grep -q "nothing was sent: .*no terminal" "$T_TMP/five.err"
ok "5: nothing is queued" test -z "$(queued)"
AGENT=$(gpg-connect-agent --homedir "$GH" 'getinfo pid' /bye 2>/dev/null |
    awk '$1 == "D" { print $2 }')
ok "no pinentry is left running" sh -c \
    "test -n '$AGENT' && ! pgrep -P '$AGENT' -x pinentry-curses"
exit 0
