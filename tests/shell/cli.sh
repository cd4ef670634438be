# cli.sh: the command line itself: help, version, usage errors.
. "$(dirname "$0")/../lib.sh"

ok "--help exits 0 and shows usage" sh -c '"$STEEDMAIL" --help | grep -q "^usage: steedmail"'
ok "-h is --help" sh -c '"$STEEDMAIL" -h | grep -q "check-config"'
ok "--version prints the version" sh -c '"$STEEDMAIL" --version | grep -Eq "^steedmail [0-9]+\.[0-9]+\.[0-9]+$"'
sm >"$T_TMP/o" 2>&1; rc=$?
ok "no command: exit 64 and says so" sh -c "[ $rc = 64 ] && grep -q 'no command given' '$T_TMP/o'"
sm --bogus >"$T_TMP/o" 2>&1; rc=$?
ok "unknown option: exit 64" test "$rc" = 64
sm --check-config extra >"$T_TMP/o" 2>&1; rc=$?
ok "stray argument: exit 64, named" sh -c "[ $rc = 64 ] && grep -q 'unexpected argument \"extra\"' '$T_TMP/o'"
sm -d 9 --check-config >"$T_TMP/o" 2>&1; rc=$?
ok "bad debug level refused" sh -c "[ $rc != 0 ] && grep -q 'level from 1 to 3' '$T_TMP/o'"
ok "--help-config lists every account setting" sh -c '"$STEEDMAIL" --help-config | grep -q "^account  imap "'

# Which options go with which command comes from one table: an option
# given to another command is refused before anything runs, naming the
# commands it goes with.
usage_error() {
	_want=$1; shift
	sm "$@" >"$T_TMP/o" 2>&1; _rc=$?
	[ "$_rc" = 64 ] && grep -qxF "steedmail: $_want" "$T_TMP/o" || { cat "$T_TMP/o"; false; }
}
ok "--sort with --sync: goes with --list" usage_error "--sort goes with --list" --sync --sort date
ok "-c without -s: goes with -s" usage_error "-c goes with -s" --list -c bob@steed.test
ok "--sign with --list: -s or --resume" usage_error "--sign goes with -s or --resume" --list --sign
ok "--smime with --list: every command it goes with" usage_error "--smime goes with -s, --resume, --genkey, --export-key or --setup" --list --smime
ok "--yes with --list: --publish or --setup" usage_error "--yes goes with --publish or --setup" --list --yes
ok "two commands: one at a time" usage_error "give one command at a time" --list --sync
ok "--list with two folders: the second named" usage_error 'unexpected argument "b"' --list a b
ok "--quote without --reply" usage_error "--quote goes with --reply" -s x --quote bob@steed.test
ok "--no-encrypt with --encrypt" usage_error "--no-encrypt contradicts --encrypt and --require-encryption" -s x --no-encrypt --encrypt bob@steed.test
ok "--timeout 0: refused" usage_error "--timeout wants seconds, from 1 to 86400" --idle --timeout 0
ok "-F, -A, -d and --offline go with any command" sh -c "'$STEEDMAIL' -F /nonexistent -A x --offline --help-config >/dev/null"
