# tui-hooks.sh: new-mail-command and source in the curses interface, in
# tmux against the test Dovecot: the command runs once per batch of mail
# IDLE brings (two messages moved in at once: one run, for 2), with the
# folder and the count as %f and %n and in its environment, and never
# holds up the screen (it sleeps before it writes, and the index shows
# the mail first); the configuration sources the account's password from
# a file of its own.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

ADDR=hooks-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"
"$STEED_ENV_BIN/add-user" "$ADDR" hooks-pw || bail "add-user failed"
$DOVE mailbox create -u "$ADDR" Later || bail "cannot create a folder"
save() {
	printf 'From: Carol <carol@steed.test>\nTo: %s\nSubject: %s\n\nbody\n' \
	    "$ADDR" "$2" | $DOVE save -u "$ADDR" -m "$1" || bail "cannot save"
}
save INBOX "hooks first"
save Later "hooks batch one"
save Later "hooks batch two"

LOG=$T_TMP/new-mail.log
cat >"$T_TMP/notify" <<EOF2
#!/bin/sh
# the screen must not wait for this
sleep 2
echo "\$1 \$2 env:\$STEED_FOLDER \$STEED_NEW \$STEED_ACCOUNT" >>'$LOG'
EOF2
chmod +x "$T_TMP/notify"
echo "password = hooks-pw" >"$T_TMP/secrets"
chmod 600 "$T_TMP/secrets"
cat >"$T_TMP/hooks.conf" <<EOF2
ca-file = $STEED_CA_FILE
new-mail-command = $T_TMP/notify %f %n
[account hooks]
address = $ADDR
imap = imaps://localhost:$STEED_IMAPS_PORT
smtp = smtp://localhost:$STEED_SUBMISSION_PORT
source secrets
EOF2
chmod 600 "$T_TMP/hooks.conf"

tui_start h env LANG=C.UTF-8 XDG_DATA_HOME="$T_TMP/data" \
    XDG_CACHE_HOME="$T_TMP/cache" "$STEEDMAIL" -F "$T_TMP/hooks.conf"
ok "the password comes from the sourced file: the index opens" \
    tui_wait h "hooks first" 30
tui_wait h "? help" 10 >/dev/null
sleep 1
check "the first sync runs no new-mail-command" test ! -e "$LOG"

$DOVE move -u "$ADDR" INBOX mailbox Later ALL || bail "cannot move"
ok "IDLE brings both messages to the index" tui_wait h "hooks batch two" 20
check "... before the command has written anything (it sleeps)" test ! -e "$LOG"
tui_keys h j
ok "... and the screen answers keys meanwhile" tui_wait h "INBOX  2/3" 5
i=0
while [ ! -s "$LOG" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
ok "new-mail-command ran once for the batch, with %f and %n" \
    sh -c "[ \$(wc -l <'$LOG') = 1 ] && grep -qx 'INBOX 2 env:INBOX 2 hooks' '$LOG'"

save INBOX "hooks single"
tui_wait h "hooks single" 20 >/dev/null
i=0
while [ "$(wc -l <"$LOG")" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ok "one more message: one more run, for 1" \
    sh -c "[ \$(wc -l <'$LOG') = 2 ] && tail -1 '$LOG' | grep -qx 'INBOX 1 env:INBOX 1 hooks'"
tui_keys h q
st=$(tui_ended h 10)
ok "steedmail quits" test "$st" = 0
