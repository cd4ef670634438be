# bodies.sh: the body cache and --offline, against the real Dovecot. bob
# fetches a message once; it is kept as the server sent it (the same
# bytes), in a 0600 file of his cache directory; --offline (no password
# asked, no connection) and a server that cannot be reached both give it
# again, a part of it too, while a message never fetched is refused with
# a sentence that says why. --list --offline shows the cached index and
# exits 0. A small body-cache-size evicts the oldest first;
# body-prefetch-days fetches the newest mail after a sync. In tmux at
# 80x24: a message read before opens with Dovecot stopped, one never
# read says it is not cached; started with --offline, the status line
# says so, cached mail opens and the rest says what is missing.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
export LANG=C LC_ALL=C TZ=UTC
DOVE="doveadm -c $STEED_DOVECOT_CONF"
trap 'tui_cleanup; $DOVE reload >/dev/null 2>&1 || dovecot -c "$STEED_DOVECOT_CONF" >/dev/null 2>&1' EXIT

# bob's configurations: as the environment made it; with a port where
# nothing listens; with a body cache of 3 KB; without a password at all.
cp "$STEED_ENV/bob.conf" "$T_TMP/bob.conf"
sed 's|^imap = .*|imap = imaps://localhost:1|' "$STEED_ENV/bob.conf" >"$T_TMP/down.conf"
{ echo "body-cache-size = 3K"; cat "$STEED_ENV/bob.conf"; } >"$T_TMP/small.conf"
sed '/^password/d' "$STEED_ENV/bob.conf" >"$T_TMP/nopw.conf"
chmod 600 "$T_TMP"/*.conf
b() { _c=$1; shift; XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/$_c.conf" "$@"; }
bob() { b bob "$@"; }

u=$$-$(date +%s)
save() { sed 's/$/\r/' | $DOVE save -u "$STEED_BOB" -m INBOX; }
for i in alpha bravo charlie delta; do
	printf 'From: Carol <carol@steed.test>\nTo: %s\nSubject: kept %s %s\nMessage-ID: <kept%s-%s@steed.test>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nthe body of message %s\n--b\nContent-Type: text/plain; name=notes.txt\nContent-Disposition: attachment; filename=notes.txt\n\nattached words %s\n%s\n--b--\n' \
	    "$STEED_BOB" "$i" "$u" "$i" "$u" "$i" "$i" "$(printf '%0900d' 0)" | save || bail "doveadm save failed"
done
bob --sync >/dev/null 2>&1 || bail "bob --sync failed"
uid() { bob --list 2>/dev/null | grep -F -- "kept $1 $u" | cut -f1 | head -1; }
U1=$(uid alpha); U2=$(uid bravo); U3=$(uid charlie); U4=$(uid delta)
[ -n "$U1" ] && [ -n "$U4" ] || bail "the messages are not listed"
DB=$T_TMP/bob-c/steedmail/bob.bodies

# --- Fetched once, kept as fetched ----------------------------------------
bob --fetch "$U1" >"$T_TMP/m1" 2>"$T_TMP/e1"
ok "--fetch: the message" has "$T_TMP/m1" "the body of message alpha"
$DOVE fetch -u "$STEED_BOB" text mailbox INBOX uid "$U1" | sed '1d' >"$T_TMP/server1"
ok "it is kept in the account's cache directory, mode 0600" sh -c "[ \"\$(stat -c %a '$DB')\" = 600 ]"
sqlite3 "$DB" "SELECT writefile('$T_TMP/stored1', r.raw) FROM body b JOIN body_raw r ON r.id = b.id WHERE b.uid = $U1" >/dev/null
ok "... byte for byte as the server sent it" sh -c "cmp '$T_TMP/m1' '$T_TMP/stored1' && grep -q 'the body of message alpha' '$T_TMP/server1' && tr -d '\\r' <'$T_TMP/m1' | diff - '$T_TMP/server1'"
ok "... and only what was fetched" sh -c "[ \"\$(sqlite3 '$DB' 'SELECT count(*) FROM body')\" = 1 ]"

# --- --offline ----------------------------------------------------------------
b nopw --offline --fetch "$U1" >"$T_TMP/o1" 2>"$T_TMP/oe1" </dev/null
rc=$?
ok "--offline --fetch: a cached message, without a password or a server" sh -c "[ $rc = 0 ] && cmp '$T_TMP/m1' '$T_TMP/o1'"
b nopw --offline --fetch "$U1" --part 2 >"$T_TMP/p2" 2>&1 </dev/null
ok "--offline --fetch --part 2: a part of it" has "$T_TMP/p2" "attached words alpha"
b nopw --offline --fetch "$U2" >"$T_TMP/o2" 2>"$T_TMP/oe2" </dev/null
rc=$?
ok "--offline --fetch of a message never fetched: exit 75" sh -c "[ $rc = 75 ] && [ ! -s '$T_TMP/o2' ]"
ok "... saying it is not cached, and why there is no server" sh -c "grep -q 'UID $U2 is not in the body cache' '$T_TMP/oe2' && grep -q 'started with --offline' '$T_TMP/oe2'"
b nopw --offline --list >"$T_TMP/ol" 2>"$T_TMP/ole" </dev/null
rc=$?
ok "--offline --list: the cached index, exit 0" sh -c "[ $rc = 0 ] && grep -qF 'kept delta $u' '$T_TMP/ol' && grep -q 'started with --offline' '$T_TMP/ole'"
b nopw --offline --flag "$U3" +F >/dev/null 2>"$T_TMP/fe" </dev/null
ok "--offline --flag: saved for later" has "$T_TMP/fe" "saved"
bob --list >/dev/null 2>&1
ok "... and sent the next time bob is online" sh -c "$DOVE fetch -u '$STEED_BOB' flags mailbox INBOX uid '$U3' | grep -q Flagged"

# --- The server out of reach -------------------------------------------------
b down --fetch "$U1" >"$T_TMP/d1" 2>"$T_TMP/de1"
rc=$?
ok "server out of reach: --fetch of a cached message works" sh -c "[ $rc = 0 ] && cmp '$T_TMP/m1' '$T_TMP/d1'"
b down --fetch "$U2" >/dev/null 2>"$T_TMP/de2"
rc=$?
ok "... one never fetched: exit 75, not cached, and why" sh -c "[ $rc = 75 ] && grep -q 'UID $U2 is not in the body cache' '$T_TMP/de2'"

# --- The size limit -------------------------------------------------------------
for n in "$U2" "$U3" "$U4"; do b small --fetch "$n" >/dev/null 2>&1; done
ok "body-cache-size = 3K: the oldest message is evicted first" sh -c "
	! sqlite3 '$DB' 'SELECT uid FROM body' | grep -qx '$U1' &&
	sqlite3 '$DB' 'SELECT uid FROM body' | grep -qx '$U4' &&
	[ \"\$(sqlite3 '$DB' 'SELECT sum(size) FROM body')\" -le 3072 ]"
b down --fetch "$U1" >/dev/null 2>"$T_TMP/ev"
ok "... and is no longer there without the server" has "$T_TMP/ev" "not in the body cache"

# --- body-prefetch-days: the newest mail fetched after a sync ------------------
{ echo "body-prefetch-days = 30"; cat "$STEED_ENV/bob.conf"; } >"$T_TMP/pre.conf"
chmod 600 "$T_TMP/pre.conf"
pre() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/pre-c" sm -F "$T_TMP/$1.conf" "${@:2}"; }
pre bob --sync >/dev/null 2>"$T_TMP/pre0"
ok "body-prefetch-days unset (0): a sync fetches no message" sh -c "! grep -q 'fetched for reading offline' '$T_TMP/pre0' && [ \"\$(sqlite3 '$T_TMP/pre-c/steedmail/bob.bodies' 'SELECT count(*) FROM body')\" = 0 ]"
pre pre --sync >/dev/null 2>"$T_TMP/pre1"
ok "body-prefetch-days = 30: the sync fetches the four new ones, and says so" has "$T_TMP/pre1" "INBOX: 4 messages fetched for reading offline"
pre nopw --offline --fetch "$U2" >"$T_TMP/pre2" 2>&1 </dev/null
ok "... one never opened reads offline" has "$T_TMP/pre2" "the body of message bravo"
pre nopw --offline --search bravo >"$T_TMP/pre3" 2>&1 </dev/null
ok "... and is in the full-text index" has "$T_TMP/pre3" "kept bravo $u"
pre pre --sync >/dev/null 2>"$T_TMP/pre4"
ok "... the next sync fetches nothing again" sh -c "! grep -q 'fetched for reading offline' '$T_TMP/pre4'"
{ echo "body-prefetch-days = soon"; cat "$STEED_ENV/bob.conf"; } >"$T_TMP/prebad.conf"
chmod 600 "$T_TMP/prebad.conf"
pre prebad --sync >/dev/null 2>"$T_TMP/pre5"
ok "... a setting it cannot read is a warning" has "$T_TMP/pre5" "body-prefetch-days soon: not a number of days"

# --- The interface ------------------------------------------------------------
start() {
	_n=$1; shift
	tui_start "$_n" env XDG_DATA_HOME="$T_TMP/bob" \
	    XDG_CACHE_HOME="$T_TMP/bob-c" HOME="$HOME" "$PWD/steedmail" "$@"
}
# open NAME TEXT: the message whose line shows TEXT, opened.
open_msg() {
	tui_keys "$1" /
	tui_wait "$1" "Search for:" >/dev/null
	tui_type "$1" "$2"
	tui_keys "$1" Enter
	sleep 0.3
	tui_keys "$1" Enter
}
start t -F "$T_TMP/bob.conf"
tui_wait t "kept delta $u" 20 >/dev/null || bail "the index did not show"
open_msg t "kept charlie $u"
ok "the interface opens a message" tui_wait t "the body of message charlie"
tui_keys t q
tui_wait t "kept delta $u" >/dev/null
$DOVE stop >/dev/null 2>&1
ok "Dovecot stopped: the status line says the server is out of reach" tui_wait t "offline:" 20
open_msg t "kept charlie $u"
ok "... the message read before still opens" tui_wait t "the body of message charlie"
tui_keys t q
tui_wait t "kept delta $u" >/dev/null
open_msg t "kept alpha $u"
ok "... one not cached says so" tui_wait t "is not in the body cache"
tui_keys t q
tui_keys t q
tui_ended t >/dev/null
dovecot -c "$STEED_DOVECOT_CONF" >/dev/null 2>&1 || bail "dovecot did not start again"

start o --offline -F "$T_TMP/nopw.conf"
ok "--offline: the status line says so" tui_wait o "offline: started with --offline" 20
ok "... the index is the cached one" tui_wait o "kept delta $u"
open_msg o "kept delta $u"
ok "... a cached message opens" tui_wait o "the body of message delta"
ok "... and the status line still says offline" tui_wait o "offline: started with --offline"
tui_keys o q
tui_wait o "kept alpha $u" >/dev/null
open_msg o "kept alpha $u"
ok "... one not cached says what is missing" tui_wait o "is not in the body cache (started with --offline"
tui_keys o q
tui_keys o q
tui_ended o >/dev/null

exit 0
