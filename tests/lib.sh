# tests/lib.sh: shared helpers for integration test scripts (sourced).
#
# Every test script prints TAP lines ("ok N - what", "not ok N - what") and
# exits 0; tests/run counts them. A script that dies before printing a
# result for every check it planned is counted as a failure.
# Scripts run inside tests/env/run, so $STEED_ENV/env.sh is there.

t_n=0
t_failed=0

# ok DESCRIPTION COMMAND...: run COMMAND, report its success.
ok() {
	_d=$1; shift
	t_n=$((t_n + 1))
	if "$@" >"$T_TMP/out.$t_n" 2>&1; then
		echo "ok $t_n - $_d"
	else
		echo "not ok $t_n - $_d"
		sed 's/^/#   /' "$T_TMP/out.$t_n" | head -40
		t_failed=$((t_failed + 1))
	fi
}

# fails DESCRIPTION COMMAND...: COMMAND must fail (exit non-zero).
fails() {
	_d=$1; shift
	t_n=$((t_n + 1))
	if "$@" >"$T_TMP/out.$t_n" 2>&1; then
		echo "not ok $t_n - $_d (command succeeded)"
		sed 's/^/#   /' "$T_TMP/out.$t_n" | head -40
		t_failed=$((t_failed + 1))
	else
		echo "ok $t_n - $_d"
	fi
}

# check DESCRIPTION TEST-EXPRESSION...: like ok, for "[ ... ]" style checks.
check() { ok "$@"; }

# diag TEXT: a comment line in the output.
diag() { echo "# $*"; }

# bail TEXT: the environment itself is broken; fail loudly.
bail() { echo "not ok $((t_n + 1)) - $*"; exit 1; }

[ -n "${STEED_ENV:-}" ] && [ -f "$STEED_ENV/env.sh" ] && . "$STEED_ENV/env.sh"
T_TMP=$(mktemp -d "${STEED_ENV:-/tmp}/t.XXXXXX")
trap 'rm -rf "$T_TMP"' EXIT

# The binary under test (tests/run sets STEEDMAIL).
: "${STEEDMAIL:=$PWD/steedmail}"
sm() { "$STEEDMAIL" "$@"; }

# has FILE TEXT: FILE contains TEXT (fixed string).
has() { grep -qF -- "$2" "$1"; }

# with_test_hosts CMD...: run CMD with tests/tools/testhosts.so preloaded,
# so that the names in STEED_TEST_HOSTS (default: the test zones' mail
# hosts and the HTTPS server's names, STEED_WEB_HOSTS) resolve to
# 127.0.0.1 through getaddrinfo(), and for them the usual ports (993, 465,
# 143, 587, and 443 for HTTPS) go to the test servers' (STEED_TEST_PORTS,
# default made from env.sh, so that probing imap.steed.test:993 works).
# Sanitizer builds want their runtime first among the libraries:
# verify_asan_link_order=0 is added to whatever ASAN_OPTIONS holds.
T_TESTHOSTS=$PWD/tests/tools/testhosts.so
with_test_hosts() {
	LD_PRELOAD="$T_TESTHOSTS${LD_PRELOAD:+ $LD_PRELOAD}" \
	STEED_TEST_HOSTS="${STEED_TEST_HOSTS:-imap.steed.test smtp.steed.test mail.steed.test mail.plain.test ${STEED_WEB_HOSTS:-}}" \
	STEED_TEST_PORTS="${STEED_TEST_PORTS:-993:${STEED_IMAPS_PORT:-993} 465:${STEED_SUBMISSIONS_PORT:-465} 143:${STEED_IMAP_PORT:-143} 587:${STEED_SUBMISSION_PORT:-587} 443:${STEED_HTTPS_PORT:-443}}" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    "$@"
}

# server_account NAME SERVER [USER [starttls]]: write a steedmail
# configuration whose one account, NAME, is USER (alice, the default, or
# bob) on the IMAP server SERVER of the environment (dovecot, cyrus or
# courier; the last two only where tests/env/run started them:
# STEED_ENV_SERVERS), over IMAPS (or, with "starttls", IMAP and STARTTLS),
# with Postfix's submission for SMTP, the test CA and the password inline.
# The file is $T_TMP/NAME.conf; its path is printed. Use it with sm -F.
server_account() {
	local _name=$1 _srv=$2 _user=${3:-alice} _port _f _addr _pass _url=imaps _v
	case $_srv in
	dovecot) _v=STEED_IMAPS_PORT ;;
	cyrus) _v=STEED_CYRUS_IMAPS_PORT ;;
	courier) _v=STEED_COURIER_IMAPS_PORT ;;
	*) echo "server_account: unknown server '$_srv'" >&2; return 2 ;;
	esac
	if [ "${4:-}" = starttls ]; then
		_v=${_v%S_PORT}_PORT _url=imap
	fi
	_port=${!_v:-}
	[ -n "$_port" ] || {
		echo "server_account: $_srv is not running in this environment (STEED_ENV_SERVERS)" >&2
		return 2
	}
	case $_user in
	alice) _addr=$STEED_ALICE _pass=$STEED_ALICE_PASS ;;
	bob) _addr=$STEED_BOB _pass=$STEED_BOB_PASS ;;
	*) echo "server_account: unknown user '$_user'" >&2; return 2 ;;
	esac
	_f=$T_TMP/$_name.conf
	cat >"$_f" <<EOC
# $_user on the test environment's $_srv (tests/lib.sh server_account)
ca-file = $STEED_CA_FILE

[account $_name]
name = $_user on $_srv
address = $_addr
imap = $_url://localhost:$_port
smtp = smtp://localhost:$STEED_SUBMISSION_PORT
password = $_pass
EOC
	chmod 0600 "$_f"
	echo "$_f"
}
