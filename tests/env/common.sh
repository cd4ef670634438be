# tests/env/common.sh: helpers shared by tests/env/run, zone-set and add-user.
# Sourced, not executed. Everything here only touches the instance directory
# ($SE_DIR) and processes started from it.

se_log() { printf 'steed-env: %s\n' "$*" >&2; }

# se_trace WHAT: with STEED_ENV_TRACE=1, log WHAT with the elapsed time.
se_trace() {
	[ "${STEED_ENV_TRACE:-0}" = 1 ] || return 0
	local _now=${EPOCHREALTIME/./}
	: "${SE_T0:=$_now}"
	se_log "$(( (_now - SE_T0) / 1000 )) ms: $*"
}

# se_fail WHAT [LOGFILE]: one clear line naming what failed, then the tail
# of the log that explains it, then exit 1 (the EXIT trap tears down).
se_fail() {
	printf 'steed-env: FAILED: %s\n' "$1" >&2
	if [ -n "${2:-}" ] && [ -s "$2" ]; then
		printf 'steed-env: last lines of %s:\n' "$2" >&2
		tail -n 15 "$2" | sed 's/^/steed-env:   | /' >&2
	fi
	exit 1
}

# se_need PROGRAM...: fail unless every program can be found.
se_need() {
	local _p
	for _p in "$@"; do
		command -v "$_p" >/dev/null 2>&1 ||
			se_fail "required program '$_p' not found (install it)"
	done
}

# The python interpreter used for small helpers (port picking, sweeps).
se_python() {
	if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$@"; else python3 "$@"; fi
}

# se_pick_ports N: print N distinct ports that are currently free on
# 127.0.0.1 for both TCP and UDP. Ports are drawn at random outside the
# kernel's ephemeral range, so outgoing connections don't grab them before
# the servers bind.
se_pick_ports() {
	se_python - "$1" <<'EOF'
import random, socket, sys
n = int(sys.argv[1])
try:
    with open('/proc/sys/net/ipv4/ip_local_port_range') as f:
        lo, hi = (int(x) for x in f.read().split())
except (OSError, ValueError):
    lo, hi = 32768, 60999
if lo > 12000:
    span = (10000, lo - 1)
elif hi < 63000:
    span = (hi + 1, 65535)
else:
    span = (10000, 65535)
rnd = random.SystemRandom()
held, got = [], []
tries = 0
while len(got) < n:
    tries += 1
    if tries > 5000:
        sys.exit("cannot find free ports")
    p = rnd.randint(*span)
    if p in got:
        continue
    socks = []
    try:
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
            s = socket.socket(socket.AF_INET, kind)
            socks.append(s)
            s.bind(('127.0.0.1', p))
    except OSError:
        for s in socks:
            s.close()
        continue
    held.extend(socks)
    got.append(p)
print(' '.join(str(p) for p in got))
EOF
}

# se_alive PID: true if PID exists and is not a zombie.
se_alive() {
	local _st
	_st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case $_st in Z*|'') return 1 ;; esac
	return 0
}

# se_tree PID: PID and all its descendants, one per line.
se_tree() {
	ps -e -o pid=,ppid= 2>/dev/null | awk -v root="$1" '
		{ parent[$1] = $2; pids[NR] = $1 }
		END {
			keep[root] = 1; print root
			changed = 1
			while (changed) {
				changed = 0
				for (i = 1; i <= NR; i++) {
					p = pids[i]
					if (!(p in keep) && (parent[p] in keep)) {
						keep[p] = 1; print p; changed = 1
					}
				}
			}
		}'
}

# se_wait_gone TIMEOUT_TENTHS PID...: wait until none of the PIDs is alive.
se_wait_gone() {
	local _t=$1 _any _p; shift
	while [ "$_t" -gt 0 ]; do
		_any=
		for _p in "$@"; do se_alive "$_p" && { _any=1; break; }; done
		[ -z "$_any" ] && return 0
		sleep 0.1
		_t=$((_t - 1))
	done
	return 1
}

# se_pidfile_pid FILE COMM: the pid in FILE, if that process is alive and its
# command name starts with COMM (guards against stale pid files and pid reuse).
se_pidfile_pid() {
	local _pid _comm
	[ -s "$1" ] || return 1
	_pid=$(awk 'NR == 1 { print $1 }' "$1")
	case $_pid in ''|*[!0-9]*) return 1 ;; esac
	se_alive "$_pid" || return 1
	_comm=$(ps -o comm= -p "$_pid" 2>/dev/null)
	case $_comm in "$2"*) ;; *) return 1 ;; esac
	echo "$_pid"
}

# se_stop_tree PID [SIGNAL [all]]: signal PID (default TERM; with "all"
# every process of its tree), wait up to 5 s for it and every process it
# had started to exit, then SIGKILL leftovers.
se_stop_tree() {
	local _tree
	_tree=$(se_tree "$1" | tr '\n' ' ')
	if [ "${3:-}" = all ]; then
		# shellcheck disable=SC2086
		kill "-${2:-TERM}" $_tree 2>/dev/null
	else
		kill "-${2:-TERM}" "$1" 2>/dev/null
	fi
	se_wait_gone 50 $_tree && return 0
	# shellcheck disable=SC2086
	kill -KILL $_tree 2>/dev/null
	se_wait_gone 20 $_tree
}

# se_wait_tcp PORT WHAT LOG [PID]: wait until 127.0.0.1:PORT accepts
# connections (up to ~15 s); fail early if PID died.
se_wait_tcp() {
	local _n=0
	while [ $_n -lt 300 ]; do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
			return 0
		fi
		if [ -n "${4:-}" ] && ! se_alive "$4"; then
			se_fail "$2 exited before listening on port $1" "$3"
		fi
		sleep 0.05
		_n=$((_n + 1))
	done
	se_fail "$2 did not listen on 127.0.0.1:$1 within 15 s" "$3"
}

# se_sweep DIR: kill every process that still refers to DIR (command line,
# working directory, or STEED_ENV=DIR in its environment), except this
# process and its ancestors. Catches daemons a test left behind.
se_sweep() {
	se_python - "$1" <<'EOF'
import os, signal, sys, time
d = os.path.realpath(sys.argv[1])
marks = (d.encode() + b'/', b'STEED_ENV=' + d.encode() + b'\0')
me = os.getpid()
skip = set()
p = me
while p > 1:
    skip.add(p)
    try:
        with open('/proc/%d/stat' % p) as f:
            p = int(f.read().rsplit(')', 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        break
def victims():
    out = []
    for e in os.listdir('/proc'):
        if not e.isdigit():
            continue
        pid = int(e)
        if pid in skip:
            continue
        try:
            with open('/proc/%d/stat' % pid) as f:
                if f.read().rsplit(')', 1)[1].split()[0] == 'Z':
                    continue
            hit = False
            try:
                cwd = os.readlink('/proc/%d/cwd' % pid)
                hit = cwd == d or cwd.startswith(d + '/')
            except OSError:
                pass
            if not hit:
                with open('/proc/%d/cmdline' % pid, 'rb') as f:
                    c = f.read() + b'\0'
                hit = marks[0] in c or (d.encode() + b'\0') in c
            if not hit:
                try:
                    with open('/proc/%d/environ' % pid, 'rb') as f:
                        hit = marks[1] in f.read() + b'\0'
                except OSError:
                    pass
            if hit:
                out.append(pid)
        except OSError:
            continue
    return out
v = victims()
for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 2.0)):
    if not v:
        break
    for pid in v:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
    end = time.time() + wait
    while time.time() < end:
        v = victims()
        if not v:
            break
        time.sleep(0.05)
if v:
    sys.exit("processes still running: %s" % v)
EOF
}
