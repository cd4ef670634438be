# sync.sh: a cold --sync of 4500 messages (every other one with header
# text chosen to be hard on an envelope parser, tests/bench/genmaildir.py
# --hostile), three pipelined FETCH batches, fills the header cache with
# exactly what sync.expected says: the --list output and the cached rows
# (dates, sizes, Message-IDs) of the first 500 UIDs in full, and a SHA-256
# of those of all 4500.
# sync.expected was made with the libetpan FETCH parser that the streaming
# reader (src/imap-fetch.c) replaced; the two must agree. Then: a warm
# sync finds nothing to do, and the session still works after the
# pipelined FETCHes (a flag change goes through on the same run's cache).
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
EXPECTED=$PWD/tests/integration/sync.expected
N=4500
SHOWN=500
USER_ADDR=sync-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"

"$STEED_ENV_BIN/add-user" "$USER_ADDR" sync-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home" || bail "cannot create $home"
python3 tests/bench/genmaildir.py --hostile "$home/Maildir" "$N" ||
	bail "the generator failed"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" ||
	bail "chown failed"

cat >"$T_TMP/sync.conf" <<EOF
ca-file = $STEED_CA_FILE

[account sync]
name = Sync
address = $USER_ADDR
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = sync-pw
EOF
chmod 0600 "$T_TMP/sync.conf"
export TZ=UTC
# Batches of 1000 UIDs: five pipelined FETCHes for 4500 messages.
s() { STEEDMAIL_SYNC_BATCH=1000 XDG_CACHE_HOME="$T_TMP/cache" sm -F "$T_TMP/sync.conf" "$@"; }
HCACHE=$T_TMP/cache/steedmail/sync.hcache

s --sync >"$T_TMP/sync.out" 2>&1; rc=$?
ok "cold --sync of $N messages: exit 0" test "$rc" = 0
ok "it reports $N new ones" grep -q "$N" "$T_TMP/sync.out"

s --list INBOX >"$T_TMP/list" 2>&1
# The rows as the cache holds them (sender is the From shown).
if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 -batch "$HCACHE" "SELECT uid, flags, internaldate, size,
	    quote(date), quote(sender), quote(subject), quote(message_id)
	    FROM message ORDER BY uid" >"$T_TMP/rows" 2>&1
else
	echo "(sqlite3 missing)" >"$T_TMP/rows"
fi
{ echo "== --list INBOX"; cat "$T_TMP/list"; echo "== cache rows"
  cat "$T_TMP/rows"; } >"$T_TMP/all"
# The first SHOWN of each, to read; a digest of everything.
{ echo "sha256 $(sha256sum <"$T_TMP/all" | cut -d' ' -f1)"
  awk -F '\t' -v n="$SHOWN" '$1 !~ /^[0-9]+$/ || $1 <= n' "$T_TMP/list" |
      sed '1i == --list INBOX'
  echo "== cache rows"
  awk -F '|' -v n="$SHOWN" '$1 <= n' "$T_TMP/rows"; } >"$T_TMP/got"
if [ -n "${SYNC_EXPECTED_WRITE:-}" ]; then
	cp "$T_TMP/got" "$SYNC_EXPECTED_WRITE"
	diag "wrote $SYNC_EXPECTED_WRITE"
fi
ok "--list shows $N messages" test "$(wc -l <"$T_TMP/list")" = "$N"
ok "the cache holds what the libetpan parser stored (sync.expected)" \
    diff -u "$EXPECTED" "$T_TMP/got"

s --sync >"$T_TMP/warm.out" 2>&1; rc=$?
ok "a warm --sync: exit 0" test "$rc" = 0
ok "and nothing changed" grep -qi "nothing changed\|0 new" "$T_TMP/warm.out"

s --flag 2 +F >"$T_TMP/flag.out" 2>&1; rc=$?
ok "a flag change after the sync goes through" test "$rc" = 0
ok "the server has it" sh -c "$DOVE fetch -u '$USER_ADDR' flags mailbox INBOX uid 2 | grep -q Flagged"
