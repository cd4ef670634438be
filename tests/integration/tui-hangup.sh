# tui-hangup.sh: the terminal goes away (an SSH connection drops) while the
# interface waits in a prompt: a line prompt (/, search) and a yes/no
# question ($, expunge). steedmail must end within seconds, not spin on a
# terminal that will never send a key again.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
H=$T_TMP/home
mkdir -p "$H"
sed 's/^\[account alice\]/[account hangup]/' "$STEED_ENV/alice.conf" >"$T_TMP/h.conf"
chmod 600 "$T_TMP/h.conf"

# hangup NAME KEY PROMPT [SHOWN]: open the prompt (once the index shows
# SHOWN), drop the terminal, time the end
hangup() {
	tui_start "$1" env HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
	    XDG_CONFIG_HOME="$H/config" "$STEEDMAIL" -F "$T_TMP/h.conf"
	tui_wait "$1" "${4:-INBOX}" 20 >/dev/null || return 1
	pid=$(pgrep -f -- "-F $T_TMP/h.conf" | head -1)
	[ -n "$pid" ] || { echo "no steedmail process"; return 1; }
	tui_keys "$1" "$2"
	tui_wait "$1" "$3" >/dev/null || return 1
	tui_tmux kill-session -t "$1"
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	echo "steedmail ($pid) still runs 10 s after the terminal went away:"
	ps -o pid,stat,pcpu,cmd -p "$pid"
	kill -KILL "$pid" 2>/dev/null
	return 1
}
ok "the terminal gone in the search prompt: steedmail ends" hangup s / "Search for:"
# $ asks only when something is marked deleted
printf 'From: Carol <carol@steed.test>\nTo: %s\nSubject: hangup deleted\n\nbody\n' \
    "$STEED_ALICE" | doveadm -c "$STEED_DOVECOT_CONF" save -u "$STEED_ALICE" -m INBOX &&
    doveadm -c "$STEED_DOVECOT_CONF" flags add -u "$STEED_ALICE" '\Deleted' \
    mailbox INBOX subject "hangup deleted" || bail "cannot save the deleted message"
ok "the terminal gone in a yes/no question: steedmail ends" hangup y '$' "(y/n)" "hangup deleted"
