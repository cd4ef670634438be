# tests/integration/untagged.sh: what a server says unasked, against
# tests/tools/fakesrv.py's imap-mailbox (a mailbox of five messages whose
# IDLE says what each check wants) and the real Dovecot: an EXPUNGE
# followed by the EXISTS of the count it left is not new mail (RFC 3501
# 7.4.1, as Courier answers), an EXISTS above it is; the fake server's
# log shows each line was sent inside the IDLE. Then [ALERT]s (RFC 3501
# 7.1) in the greeting, the answer to the login and inside an IDLE: each
# is a warning on standard error, its bytes made terminal-safe, and in
# the interface (tmux, 80x24) a line in the message line.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

FS=$PWD/tests/tools/fakesrv.py
[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

# fake [OPTION...]: start fakesrv imap-mailbox with the options
# (--idle-says, --login-says, --greeting-says); sets FPORT, FLOG, FPID and
# CONF, a configuration of one account on it.
fake() {
	local portf=$T_TMP/fake.port
	FLOG=$T_TMP/fake.$t_n.log
	: >"$FLOG"
	: >"$portf"
	python3 "$FS" imap-mailbox "$FLOG" "$STEED_SERVER_CERT" \
	    "$STEED_SERVER_KEY" "$@" --timeout 30 >"$portf" &
	FPID=$!
	for _ in $(seq 100); do
		[ -s "$portf" ] && break
		sleep 0.05
	done
	FPORT=$(cat "$portf")
	[ -n "$FPORT" ] || bail "fakesrv imap-mailbox did not start"
	CONF=$T_TMP/fake.conf
	{
		echo "[account t]"
		echo "address = $STEED_ALICE"
		echo "imap = imaps://$STEED_HOST:$FPORT"
		echo "smtp = smtps://$STEED_HOST:$FPORT"
		echo "password = fake-pw"
		echo "ca-file = $STEED_CA_FILE"
	} >"$CONF"
	chmod 600 "$CONF"
}

# idle_says LINES EXPECTED: --idle against a server whose IDLE says
# LINES prints EXPECTED, and the server said them inside the IDLE (after
# IDLE, before DONE).
idle_says() {
	fake --idle-says "$1"
	sm -F "$CONF" --idle --timeout 3 >"$T_TMP/o" 2>"$T_TMP/e"
	echo "rc $?: $(cat "$T_TMP/o") / $(cat "$T_TMP/e")"
	wait "$FPID"
	cat "$FLOG"
	grep -qx -- "$2" "$T_TMP/o" || return 1
	sed -n '/ IDLE$/,/^DONE$/p' "$FLOG" | grep -q '^# said'
}

ok "IDLE: '* 3 EXPUNGE' then '* 4 EXISTS' of 5 is no new mail: 'expunged'" \
    idle_says '* 3 EXPUNGE\r\n* 4 EXISTS' expunged
ok "IDLE: two EXPUNGEs then '* 3 EXISTS' of 5: 'expunged'" \
    idle_says '* 2 EXPUNGE\r\n* 2 EXPUNGE\r\n* 3 EXISTS' expunged
ok "IDLE: '* 3 EXPUNGE' then '* 5 EXISTS' of 5: one came in: 'new mail'" \
    idle_says '* 3 EXPUNGE\r\n* 5 EXISTS' 'new mail'
ok "IDLE: '* 6 EXISTS' then '* 2 EXPUNGE' of 5: 'new mail'" \
    idle_says '* 6 EXISTS\r\n* 2 EXPUNGE' 'new mail'
ok "IDLE: '* 6 EXISTS' of 5: 'new mail'" \
    idle_says '* 6 EXISTS' 'new mail'
ok "IDLE: '* 5 EXISTS' of 5 changes nothing: 'timeout'" \
    idle_says '* 5 EXISTS' timeout

# --- [ALERT] ------------------------------------------------------------------
fake --greeting-says '* OK [ALERT] maintenance at 22:00 \x1b[31mtonight' \
    --login-says '* OK [ALERT] your password expires in 3 days\r\n* NO [ALERT] quota: 99% used' \
    --idle-says '* OK [ALERT] the disk is full\r\n* 6 EXISTS'
sm -F "$CONF" --idle --timeout 5 >"$T_TMP/o" 2>"$T_TMP/e"; rc=$?
wait "$FPID"
cat "$FLOG" >"$T_TMP/alert.log"
# alerted TEXT: standard error has the warning line with TEXT, once.
alerted() {
	cat "$T_TMP/e"
	[ "$(grep -cxF -- "steedmail: warning: the server says: $1" "$T_TMP/e")" = 1 ]
}
ok "the server said its alerts (greeting, login, IDLE)" \
    sh -c "[ \$(grep -c '^# said .*\[ALERT\]' '$T_TMP/alert.log') = 4 ]"
ok "an ALERT in the greeting is a warning, ESC shown as ^[" \
    alerted 'maintenance at 22:00 ^[[31mtonight'
ok "an OK [ALERT] in the answer to the login is a warning" \
    alerted 'your password expires in 3 days'
ok "a NO [ALERT] in the answer to the login is a warning" \
    alerted 'quota: 99% used'
ok "an ALERT inside IDLE (after login) is a warning" \
    alerted 'the disk is full'
ok "... and the command goes on: 'new mail', exit 0" \
    sh -c "[ $rc = 0 ] && grep -qx 'new mail' '$T_TMP/o'"
noesc() { ! grep -q "$(printf '\033')" "$T_TMP/e"; }
ok "no raw ESC reaches the terminal" noesc

fake --many --login-says '* OK [ALERT] maintenance tonight at 22:00'
tui_start alert "$STEEDMAIL" -F "$CONF"
ok "the interface: an ALERT at login in the message line" \
    tui_wait alert "the server says: maintenance tonight at 22:00" 20
tui_stop alert
kill "$FPID" 2>/dev/null
wait "$FPID" 2>/dev/null

# --- the real Dovecot: an expunge, then a delivery ----------------------------
dove() { doveadm -c "$STEED_DOVECOT_CONF" "$@"; }
bob() { sm -F "$STEED_ENV/bob.conf" "$@"; }
u=$$-$(date +%s)
printf 'From: x@steed.test\nSubject: untagged %s\n\nbody\n' "$u" |
    dove save -u "$STEED_BOB" -m INBOX || bail "doveadm save failed"
(sleep 1; dove expunge -u "$STEED_BOB" mailbox INBOX subject "untagged $u") &
bob --idle --timeout 20 >"$T_TMP/o" 2>&1
wait
ok "Dovecot: a message expunged elsewhere: 'expunged'" grep -qx expunged "$T_TMP/o"
ok "... and gone from the server" \
    sh -c "[ -z \"\$(doveadm -c '$STEED_DOVECOT_CONF' search -u '$STEED_BOB' mailbox INBOX subject 'untagged $u')\" ]"
(sleep 1; printf 'From: x@steed.test\nSubject: untagged new %s\n\nbody\n' "$u" |
    dove save -u "$STEED_BOB" -m INBOX) &
bob --idle --timeout 20 >"$T_TMP/o" 2>&1
wait
ok "Dovecot: a message delivered: 'new mail'" grep -qx 'new mail' "$T_TMP/o"

exit 0
