# tests/env/unpacked.sh: servers run from the packages contrib/install-deps
# unpacked instead of installing (Cyrus, Courier: they conflict with Dovecot
# as Debian packages). Sourced by tests/env/run.
#
# Each such server has a directory $SE_DIR/NAME: NAME/root/{etc,var,run} are
# what the server sees over the machine's /etc, /var and /run (tests/env/nsroot),
# NAME/init is the script that runs as pid 1 of its namespace, NAME/ns.pid
# the pid of nsroot (unshare) outside, NAME/init.log what init printed.

SE_SERVER_ROOT=${STEED_SERVER_CACHE:-/var/cache/steedmail-test-servers}/root

# se_unpacked_need PATH...: fail unless the unpacked packages have PATH.
se_unpacked_need() {
	local _p
	[ "$(id -u)" -eq 0 ] ||
		se_fail "Cyrus and Courier run in a namespace of their own: the test environment must run as root"
	command -v unshare >/dev/null 2>&1 || se_fail "required program 'unshare' not found (install util-linux)"
	for _p in "$@"; do
		[ -e "$SE_SERVER_ROOT/$_p" ] ||
			se_fail "$SE_SERVER_ROOT/$_p is missing (run contrib/install-deps, which unpacks Cyrus and Courier there)"
	done
}

# se_user_name UID: the name of the account with that uid.
se_user_name() {
	getent passwd "$1" | cut -d: -f1
}

# se_ns_start NAME: start $SE_DIR/NAME/init as pid 1 of a namespace of its own.
se_ns_start() {
	local _d=$SE_DIR/$1
	setsid "$SE_BIN/nsroot" "$_d" "$_d/init" </dev/null >>"$_d/init.log" 2>&1 &
	echo $! >"$_d/ns.pid"
}

# se_ns_pid NAME: the pid of NAME's nsroot, if it still runs.
se_ns_pid() {
	se_pidfile_pid "$SE_DIR/$1/ns.pid" unshare
}

# se_ns_stop NAME: end NAME's namespace: TERM to every process of it (init
# stops its servers and exits, and with it goes whatever is left), KILL
# after 5 s.
se_ns_stop() {
	local _pid
	_pid=$(se_ns_pid "$1") || return 0
	se_stop_tree "$_pid" TERM all
}
