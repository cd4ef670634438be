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
