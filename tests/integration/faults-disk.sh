# faults-disk.sh: the disk fills up (a small tmpfs holds steedmail's data
# and cache directories) while the header cache, the trust store, a draft
# and the outbox are written. Each time: a clear error, no database
# damaged, nothing half-written left behind; and once there is room again
# the same commands complete. Mounting needs root (CI runs as root).
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
if [ "$(id -u)" != 0 ]; then
	echo "ok 1 - # SKIP mounting a small tmpfs needs root"
	exit 0
fi
PLAIN=3000
USER_ADDR=disk-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"
"$STEED_ENV_BIN/add-user" "$USER_ADDR" disk-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home" || bail "cannot create $home"
python3 tests/bench/genmaildir.py "$home/Maildir" "$PLAIN" >/dev/null ||
	bail "the generator failed"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" ||
	bail "chown failed"

SMALL=$T_TMP/small
mkdir -p "$SMALL"
mount -t tmpfs -o size=8m,mode=0700 steed-disk-test "$SMALL" ||
	bail "cannot mount a tmpfs"
trap 'umount -l "$SMALL" 2>/dev/null' EXIT
export XDG_DATA_HOME=$SMALL/data XDG_CACHE_HOME=$SMALL/cache
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME"

cat >"$T_TMP/d.conf" <<EOF2
ca-file = $STEED_CA_FILE
sync-trust-limit = 0

[account disk]
name = Disk
address = $USER_ADDR
imap = imaps://localhost:$STEED_IMAPS_PORT
smtp = smtp://localhost:$STEED_SUBMISSION_PORT
password = disk-pw
EOF2
chmod 600 "$T_TMP/d.conf"
s() { sm -F "$T_TMP/d.conf" "$@"; }
HCACHE=$XDG_CACHE_HOME/steedmail/disk.hcache
TRUST=$XDG_DATA_HOME/steedmail/trust.sqlite
integrity() { _r=$(sqlite3 -batch "$1" "PRAGMA integrity_check" 2>&1); [ "$_r" = ok ] || { echo "$1: $_r"; return 1; }; }
# fill LEFT_KB: leave about that much room on the small disk
fill() {
	rm -f "$SMALL/filler"
	_free=$(df -k --output=avail "$SMALL" | tail -1)
	[ "$_free" -gt "$1" ] &&
		dd if=/dev/zero of="$SMALL/filler" bs=1k count=$((_free - $1)) \
		    status=none 2>/dev/null
	sync
}
room() { rm -f "$SMALL/filler"; }

# --- the header cache
s --folders >/dev/null 2>&1	# the cache and its directories exist
fill 150
fails "a sync that finds the disk full fails" s --sync
s --sync >"$T_TMP/full" 2>&1
diag "sync: $(cat "$T_TMP/full")"
ok "... and says so in plain words" grep -qiE 'disk is full|no space' "$T_TMP/full"
room
ok "... the header cache is not damaged" integrity "$HCACHE"
ok "with room again the same sync completes" s --sync
ok "... and the cache holds every message once" \
    sh -c "[ \"\$(sqlite3 -batch '$HCACHE' 'SELECT count(*) || \" \" || count(DISTINCT uid) FROM message')\" = '$PLAIN $PLAIN' ]"

# --- the trust store: a key imported is a sighting written to it
G=$T_TMP/g
mkdir -p "$G" && chmod 700 "$G"
gpg --homedir "$G" --batch --quiet --pinentry-mode loopback --passphrase '' \
    --quick-gen-key "Full <full@example.net>" ed25519 default never ||
	bail "gpg could not make a key"
gpg --homedir "$G" --batch --armor --export full@example.net >"$T_TMP/full.asc"
gpgconf --homedir "$G" --kill all
s --trust list >/dev/null 2>&1	# the store exists
fill 20
s --import-key "$T_TMP/full.asc" >"$T_TMP/imp" 2>&1
rc=$?
diag "import: $(cat "$T_TMP/imp")"
ok "importing a key with the disk full says what went wrong" \
    sh -c "[ $rc != 0 ] || grep -qiE 'disk is full|no space|warning' '$T_TMP/imp'"
room
ok "... the trust store is not damaged" integrity "$TRUST"
ok "with room again the import completes" s --import-key "$T_TMP/full.asc"
ok "... and the trust store knows the key" sh -c "'$STEEDMAIL' -F '$T_TMP/d.conf' --trust list | grep -q '^full@example.net'"
ok "... and is whole" integrity "$TRUST"

# --- a draft, and the outbox
fill 4
echo "a draft that does not fit" >"$T_TMP/body"
head -c 200000 /dev/urandom | base64 >>"$T_TMP/body"
fails "postponing a draft with the disk full fails" \
    s -s "no room" --postpone bob@steed.test <"$T_TMP/body"
s -s "no room" --postpone bob@steed.test <"$T_TMP/body" >"$T_TMP/pp" 2>&1
diag "postpone: $(cat "$T_TMP/pp")"
ok "... and says so in plain words" grep -qiE 'disk is full|no space' "$T_TMP/pp"
ok "... and leaves no half-written draft behind" \
    sh -c "! find '$XDG_DATA_HOME' -path '*draft*' -type f -newer '$T_TMP/body' | grep -q ."
s -s "no room either" bob@steed.test <"$T_TMP/body" >"$T_TMP/send" 2>&1
rc=$?
diag "send: $(cat "$T_TMP/send")"
ok "sending with the disk full fails and says why" \
    sh -c "[ $rc != 0 ] && grep -qiE 'disk is full|no space' '$T_TMP/send'"
ok "... and nothing goes in clear because the trust store cannot be read" \
    sh -c "grep -q 'nothing was sent' '$T_TMP/send' && ! grep -q 'sent in clear' '$T_TMP/send'"
ok "... nothing half-written in the outbox" \
    sh -c "! find '$XDG_DATA_HOME' -path '*outbox*' -type f -size +0 -newer '$T_TMP/body' | grep -q ."
# room for the trust store, not for the draft itself
fill 150
s -s "no room" --postpone bob@steed.test <"$T_TMP/body" >"$T_TMP/pp2" 2>&1
rc=$?
diag "postpone, the store readable: $(cat "$T_TMP/pp2")"
ok "a draft larger than the room left is refused, in plain words" \
    sh -c "[ $rc != 0 ] && grep -qiE 'disk is full|no space' '$T_TMP/pp2'"
ok "... and leaves no half-written draft behind" \
    sh -c "! find '$XDG_DATA_HOME' -path '*draft*' -type f -newer '$T_TMP/body' | grep -q ."
room
ok "with room again the draft is postponed" \
    s -s "room now" --postpone bob@steed.test <"$T_TMP/body"
ok "... and the message is sent" s -s "room now" bob@steed.test <"$T_TMP/body"
