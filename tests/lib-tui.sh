# tests/lib-tui.sh: driving steedmail's curses interface in tmux, for the
# screen tests (sourced after tests/lib.sh). Each test gets a tmux server
# of its own (a socket in $T_TMP), stopped when the script exits. Panes
# are 80x24 unless TUI_COLS/TUI_LINES say otherwise.
#
#   tui_start NAME CMD...     run CMD in a new pane (TERM=screen unless
#                             TUI_TERM is set; LANG from the caller)
#   tui_keys NAME KEY...      tmux send-keys (key names as tmux has them:
#                             Enter, Escape, Up, PageDown, C-c, ...)
#   tui_type NAME TEXT        the text, literally
#   tui_wait NAME TEXT [S]    until the screen shows TEXT (fixed string),
#                             at most S seconds (10); 1 and the screen
#                             on standard error when it does not
#   tui_gone NAME TEXT [S]    until the screen no longer shows TEXT
#   tui_capture NAME          the screen as text on standard output
#   tui_ended NAME [S]        until CMD has exited; prints its status
#   tui_stderr NAME           what CMD wrote on standard error (unless
#                             TUI_TTY_STDERR is set: then the pane has it)
#   tui_resize NAME COLS ROWS
#   tui_stop NAME

TUI_SOCK="$T_TMP/tmux.sock"
TUI_COLS=${TUI_COLS:-80}
TUI_LINES=${TUI_LINES:-24}

command -v tmux >/dev/null 2>&1 || bail "tmux is not installed (contrib/install-deps installs it)"

tui_tmux() { tmux -S "$TUI_SOCK" "$@"; }

tui_cleanup() {
	tmux -S "$TUI_SOCK" kill-server >/dev/null 2>&1
	rm -rf "$T_TMP"
}
trap tui_cleanup EXIT

tui_start() {
	_n=$1; shift
	# a script the pane runs, so arguments keep their quoting
	{
		echo "export TERM=${TUI_TERM:-screen}"
		printf 'rm -f %q\n' "$T_TMP/tui-$_n.status"
		printf ' %q' "$@"
		if [ -n "${TUI_TTY_STDERR:-}" ]; then echo; else
			printf ' 2>>%q\n' "$T_TMP/tui-$_n.err"; fi
		# the status, for tui_ended (tmux does not always know it)
		printf 'echo $? >%q\n' "$T_TMP/tui-$_n.status"
	} >"$T_TMP/tui-$_n.sh"
	# the pane stays after its program ends (its status is read), from
	# the first moment: a global option in the server's own file. The
	# server stays when its last session is stopped: a session started
	# while it was going away failed ("server exited unexpectedly").
	printf 'set -g remain-on-exit on\nset -g status off\nset -s exit-empty off\n' \
	    >"$T_TMP/tmux.conf"
	tui_tmux -f "$T_TMP/tmux.conf" new-session -d -s "$_n" -x "$TUI_COLS" \
	    -y "$TUI_LINES" "bash $T_TMP/tui-$_n.sh" || return 1
	tui_tmux resize-window -t "$_n" -x "$TUI_COLS" -y "$TUI_LINES" \
	    >/dev/null 2>&1
	return 0
}

tui_stderr() { cat "$T_TMP/tui-$1.err" 2>/dev/null; }
tui_keys() { _n=$1; shift; tui_tmux send-keys -t "$_n" "$@"; }
tui_type() { tui_tmux send-keys -t "$1" -l -- "$2"; }
tui_capture() { tui_tmux capture-pane -p -t "$1"; }
tui_resize() { tui_tmux resize-window -t "$1" -x "$2" -y "$3"; }
tui_stop() { tui_tmux kill-session -t "$1" >/dev/null 2>&1; }

tui_wait() {
	_n=$1 _t=$2 _s=${3:-10}
	_end=$(($(date +%s) + _s))
	while :; do
		if tui_capture "$_n" | grep -qF -- "$_t"; then
			return 0
		fi
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "# the screen never showed: $_t" >&2
			tui_capture "$_n" | sed 's/^/#|/' >&2
			return 1
		fi
		sleep 0.1
	done
}

# tui_wait_re NAME ERE [SECONDS]: like tui_wait, for a line matching ERE.
tui_wait_re() {
	_n=$1 _t=$2 _s=${3:-10}
	_end=$(($(date +%s) + _s))
	while :; do
		if tui_capture "$_n" | grep -qE -- "$_t"; then
			return 0
		fi
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "# no line on the screen matched: $_t" >&2
			tui_capture "$_n" | sed 's/^/#|/' >&2
			return 1
		fi
		sleep 0.1
	done
}

tui_gone() {
	_n=$1 _t=$2 _s=${3:-10}
	_end=$(($(date +%s) + _s))
	while tui_capture "$_n" | grep -qF -- "$_t"; do
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "# the screen still shows: $_t" >&2
			tui_capture "$_n" | sed 's/^/#|/' >&2
			return 1
		fi
		sleep 0.1
	done
	return 0
}

tui_ended() {
	_n=$1 _s=${2:-10}
	_end=$(($(date +%s) + _s))
	while [ ! -s "$T_TMP/tui-$_n.status" ]; do
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "# still running; the screen:" >&2
			tui_capture "$_n" | sed 's/^/#|/' >&2
			return 1
		fi
		sleep 0.1
	done
	cat "$T_TMP/tui-$_n.status"
}
