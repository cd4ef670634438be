# tests/integration/malformed.sh: a server (or anyone on the path before
# STARTTLS) that greets with one malformed line,
#   * OK [BADCHARSET (\HasNoChildren) "/" INBOX]
# which crashed libetpan's greeting parser. steedmail reads everything
# before login itself: in clear (imap://) and over TLS (imaps://), in
# --sync and in the interface, it says "sent a malformed greeting", exits
# 75 (or stays up), and sends nothing secret. tests/tools/fakesrv.py plays
# the server.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

FS=$PWD/tests/tools/fakesrv.py
[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
H=$STEED_HOST
FAKE_PW=fake-secret-pw

# fake MODE [CERT KEY]: start fakesrv serving one connection after another;
# sets FPORT, FLOG and FPID.
fake() {
	local mode=$1 portf
	shift
	FLOG=$T_TMP/fake.$mode.$t_n.log
	portf=$T_TMP/fake.port
	: >"$FLOG"
	: >"$portf"
	python3 "$FS" "$mode" "$FLOG" "$@" --many --timeout 60 >"$portf" &
	FPID=$!
	for _ in $(seq 100); do
		[ -s "$portf" ] && break
		sleep 0.05
	done
	FPORT=$(cat "$portf")
	[ -n "$FPORT" ] || bail "fakesrv $mode did not start"
}
fake_stop() { kill "$FPID" 2>/dev/null; wait "$FPID" 2>/dev/null; }

# conf NAME imap|imaps: a configuration whose IMAP server is the fake one.
conf() {
	local f=$T_TMP/$1.conf
	cat >"$f" <<EOF
ca-file = $STEED_CA_FILE
[account t]
address = $STEED_ALICE
imap = $2://$H:$FPORT
smtp = smtps://$H:$STEED_SUBMISSIONS_PORT
password = $FAKE_PW
EOF
	chmod 600 "$f"
	echo "$f"
}

home() { echo "$T_TMP/home-$1"; }
sync_fake() {	# sync_fake CONF NAME: --sync, its status in $T_TMP/rc
	local h
	h=$(home "$2")
	mkdir -p "$h"
	HOME="$h" XDG_DATA_HOME="$h/data" XDG_CACHE_HOME="$h/cache" \
	    timeout 30 "$STEEDMAIL" -F "$1" --sync >"$T_TMP/out" 2>&1
	echo $? >"$T_TMP/rc"
	cat "$T_TMP/out"
}
rc_is() { [ "$(cat "$T_TMP/rc")" = "$1" ] || { echo "status $(cat "$T_TMP/rc")"; return 1; }; }
clean() {	# no sanitizer report, no crash
	if grep -qE 'Sanitizer|runtime error|Segmentation' "$T_TMP/out"; then
		echo "a sanitizer report or a crash"
		return 1
	fi
}
# nopw: the fake server got no login command and no password
nopw() {
	sed 's/^/log: /' "$FLOG"
	! grep -qiE '^[^ ]+ (LOGIN|AUTHENTICATE)( |$)' "$FLOG" &&
	    ! grep -qF "$FAKE_PW" "$FLOG"
}

# --- --sync ----------------------------------------------------------------

fake imap-badcharset
c=$(conf clear imap)
sync_fake "$c" clear
ok "imap://: --sync exits 75 on the BADCHARSET greeting" rc_is 75
ok "... saying the server sent a malformed greeting" has "$T_TMP/out" \
    "the server $H sent a malformed greeting: a BADCHARSET code that is not a list of charsets"
ok "... and no crash" clean
ok "... no login, no password sent" nopw
fake_stop

fake imaps-badcharset "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf tls imaps)
sync_fake "$c" tls
ok "imaps://: --sync exits 75 on the BADCHARSET greeting" rc_is 75
ok "... saying the server sent a malformed greeting" has "$T_TMP/out" \
    "the server $H sent a malformed greeting"
ok "... and no crash" clean
ok "... no login, no password sent" nopw
fake_stop

fake imap-badcharset-tagged
c=$(conf tagged imap)
sync_fake "$c" tagged
ok "the same code in a tagged answer: --sync exits 75" rc_is 75
ok "... saying the answer was malformed" has "$T_TMP/out" \
    "the server $H sent a malformed answer to CAPABILITY: a BADCHARSET code"
ok "... no login, no password sent" nopw
fake_stop

# --- the interface -------------------------------------------------------

for mode in imap-badcharset imaps-badcharset; do
	if [ $mode = imaps-badcharset ]; then
		fake $mode "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
		c=$(conf tui-$mode imaps)
	else
		fake $mode
		c=$(conf tui-$mode imap)
	fi
	h=$(home tui-$mode)
	mkdir -p "$h"
	tui_start $mode env HOME="$h" XDG_DATA_HOME="$h/data" \
	    XDG_CACHE_HOME="$h/cache" XDG_CONFIG_HOME="$h/config" \
	    LANG=C.UTF-8 "$STEEDMAIL" -F "$c"
	ok "$mode: the interface says the greeting was malformed" \
	    tui_wait $mode "malformed greeting" 20
	tui_capture $mode >"$T_TMP/screen"
	ok "... in the status line, and names the server" \
	    sh -c "grep -F 'malformed greeting' '$T_TMP/screen' | grep -qF '$H'"
	# still up: it answers keys (the help screen opens and closes)
	tui_keys $mode '?'
	ok "... and it stays up: the help screen opens" tui_wait $mode "Keys" 10
	tui_keys $mode q
	tui_keys $mode q
	st=$(tui_ended $mode 15)
	ok "... q leaves with status 0" [ "$st" = 0 ]
	tui_stderr $mode >"$T_TMP/out"
	ok "... no crash or sanitizer report" clean
	ok "... no login, no password sent" nopw
	fake_stop
done

exit 0
