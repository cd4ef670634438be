# config.sh: configuration files as a user meets them: where they are read
# from, how errors read, and that secrets stay out of the debug log.
. "$(dirname "$0")/../lib.sh"

good() {
	cat >"$1" <<CONF
# test configuration
[account one]
name = Alice
address = alice@steed.test
imap = imaps://imap.steed.test
smtp = smtp://smtp.steed.test
password = s3cret-Value

[account two]
address = bob@steed.test
imap = imap://imap.steed.test:1143
smtp = smtps://smtp.steed.test:1465
password-command = echo hunter2
CONF
	chmod 600 "$1"
}

# Default location: $XDG_CONFIG_HOME/steedmail/config (tests/run sets it).
ok "missing default config is an empty configuration" sh -c '"$STEEDMAIL" --check-config | grep -q "no accounts"'
mkdir -p "$XDG_CONFIG_HOME/steedmail"
good "$XDG_CONFIG_HOME/steedmail/config"
ok "default config read from XDG_CONFIG_HOME" sh -c '"$STEEDMAIL" --check-config | grep -q "2 accounts"'
ok "first account is the default" sh -c '"$STEEDMAIL" --check-config | grep -q "^\* one <alice@steed.test>"'
ok "-A selects an account" sh -c '"$STEEDMAIL" -A two --check-config | grep -q "^\* two"'
sm -A three --check-config >"$T_TMP/o" 2>&1; rc=$?
ok "-A with an unknown account fails clearly" sh -c "[ $rc = 64 ] && grep -q 'no account named \"three\"' '$T_TMP/o'"
rm -rf "$XDG_CONFIG_HOME/steedmail"

XDG_CONFIG_HOME=relative/path sm --check-config >"$T_TMP/o" 2>&1
ok "relative XDG_CONFIG_HOME ignored for ~/.config" sh -c "grep -q '$HOME/.config/steedmail/config' '$T_TMP/o'"

good "$T_TMP/c"
echo "colour = blue" >>"$T_TMP/c"
sm -F "$T_TMP/c" --check-config >"$T_TMP/o" 2>&1; rc=$?
ok "unknown key: file:line: message, exit 78" sh -c "[ $rc = 78 ] && grep -qx '$T_TMP/c:14: unknown setting \"colour\"' '$T_TMP/o'"

printf '[account x]\nname = \033]0;evil\007\n' >"$T_TMP/c"
sm -F "$T_TMP/c" --check-config >"$T_TMP/o" 2>&1
ok "control characters in a bad file never reach the terminal" sh -c "! grep -q \"\$(printf '\\033')\" '$T_TMP/o' && grep -q ':2: name: control characters' '$T_TMP/o'"

printf 'colour\033[31m = 1\n' >"$T_TMP/c"
sm -F "$T_TMP/c" --check-config >"$T_TMP/o" 2>&1
ok "an unknown key is shown escaped" sh -c "grep -qF 'unknown setting \"colour^[[31m\"' '$T_TMP/o'"

sm -F "$T_TMP/nonexistent" --check-config >"$T_TMP/o" 2>&1; rc=$?
ok "explicit missing file is an error" sh -c "[ $rc = 78 ] && grep -q 'No such file' '$T_TMP/o'"

good "$T_TMP/c"
chmod 644 "$T_TMP/c"
sm -F "$T_TMP/c" --check-config >"$T_TMP/o" 2>&1; rc=$?
ok "password in a readable file: warning, still works" sh -c "[ $rc = 0 ] && grep -q 'warning: .*chmod 600' '$T_TMP/o'"
chmod 600 "$T_TMP/c"
sm -F "$T_TMP/c" --check-config >"$T_TMP/o" 2>&1
ok "mode 0600: no warning about the mode" sh -c "! grep -q 'chmod' '$T_TMP/o'"
ok "--check-config warns about a password in clear: where, and what to do instead" \
	grep -qx "steedmail: warning: $T_TMP/c:7: account one keeps its password in clear (password = ...); steedmail --setup keeps it encrypted to the account's key (password-file), or let a command give it (password-command)" "$T_TMP/o"
ok "... once: not for the account with a password command" sh -c "[ \$(grep -c 'in clear' '$T_TMP/o') = 1 ]"
sed 's/^password = s3cret-Value$/password-file = ~\/pw.asc/' "$T_TMP/c" >"$T_TMP/c2"
chmod 600 "$T_TMP/c2"
sm -F "$T_TMP/c2" --check-config >"$T_TMP/o" 2>&1; rc=$?
ok "password-file instead: read (~ expanded), no warning" sh -c "[ $rc = 0 ] && ! grep -q warning '$T_TMP/o'"
printf '[account x]\naddress = x@steed.test\nimap = imaps://h\nsmtp = smtps://h\npassword-file = /f\npassword-command = pass x\n' >"$T_TMP/c2"
sm -F "$T_TMP/c2" --check-config >"$T_TMP/o" 2>&1; rc=$?
ok "password-file and password-command together: an error" sh -c "[ $rc = 78 ] && grep -q 'more than one of \"password\", \"password-command\" and \"password-file\"; keep one' '$T_TMP/o'"

sm -F "$T_TMP/c" -d 3 --check-config >/dev/null 2>&1
log="$XDG_CACHE_HOME/steedmail/debug.log"
ok "-d 3 writes a debug log under the cache dir" test -s "$log"
ok "the debug log never holds the password" sh -c "! grep -q 's3cret-Value' '$log' && grep -q 'one.password = (secret)' '$log'"
ok "debug log is mode 0600" sh -c "[ \"\$(stat -c %a '$log')\" = 600 ]"
ok "cache dir created with mode 0700" sh -c "[ \"\$(stat -c %a '$XDG_CACHE_HOME/steedmail')\" = 700 ]"
