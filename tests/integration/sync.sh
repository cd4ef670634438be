# sync.sh: a cold --sync of 4500 messages (every other one with header
# text chosen to be hard on an envelope parser, tests/bench/genmaildir.py
# --hostile), three pipelined FETCH batches, fills the header cache with
# exactly what sync.expected says: the --list output and the cached rows
# (dates, sizes, Message-IDs) of the first 500 UIDs in full, and a SHA-256
# of those of all 4500.
# sync.expected was made with the libetpan FETCH parser that the streaming
# reader (src/imap-fetch.c) replaced; the two must agree, but for the
# sender, which steedmail now reads itself from the From field
# (addr-list.c, as the pager and the trust step do) where it once took
# Dovecot's ENVELOPE: a group's first member, no address for a group
# without members or a bare word, a comment kept in the name. Then: a warm
# sync finds nothing to do, and the session still works after the
# pipelined FETCHes (a flag change goes through on the same run's cache).
# --folders lists the folders with their counts; a sync and an IDLE are
# stopped from another thread (tests/tools/sessiontool, session.h)
# (headers, the trust step) and the next sync goes on where the stopped
# one left off; the session copies and expunges.
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

# --- --folders: LIST and STATUS, INBOX and the special folders first ---------
$DOVE mailbox create -u "$USER_ADDR" Alpha || bail "cannot create Alpha"
for i in 1 2; do
	printf 'From: x@steed.test\nSubject: alpha %s\n\nbody\n' "$i" |
	    $DOVE save -u "$USER_ADDR" -m Alpha || bail "cannot save to Alpha"
done
$DOVE flags add -u "$USER_ADDR" '\Seen' mailbox Alpha uid 1 ||
	bail "cannot flag in Alpha"
unseen=$($DOVE -f flow mailbox status -u "$USER_ADDR" unseen INBOX |
    sed 's/.*unseen=//')
printf 'INBOX\t%s\t%s\nDrafts\t0\t0\nSent\t0\t0\nJunk\t0\t0\nTrash\t0\t0\nAlpha\t1\t2\n' \
    "$unseen" "$N" >"$T_TMP/folders.want"
s --folders >"$T_TMP/folders" 2>"$T_TMP/folders.err"; rc=$?
ok "--folders: exit 0, nothing on standard error" sh -c "[ $rc = 0 ] && [ ! -s '$T_TMP/folders.err' ]"
ok "--folders: name, unseen, total; INBOX, then Drafts, Sent, Junk, Trash, then the others" \
    diff -u "$T_TMP/folders.want" "$T_TMP/folders"
s --folders INBOX >"$T_TMP/folders.bad" 2>&1; rc=$?
ok "--folders takes no operand: 64" test "$rc" = 64

# --- a sync and an IDLE stopped from another thread (session.h) -------------
# tests/tools/sessiontool runs the session on its main thread; a second
# thread sets the cancel flag once 1000 headers are stored.
ST=$PWD/tests/tools/sessiontool
[ -x "$ST" ] || bail "tests/tools/sessiontool is not built"
st() { STEEDMAIL_SYNC_BATCH=500 XDG_CACHE_HOME="$T_TMP/cache2" "$ST" "$T_TMP/sync.conf" "$@"; }
st sync INBOX 1000 >"$T_TMP/st1" 2>&1; rc=$?
ok "a sync stopped by another thread: it says so" sh -c "[ $rc = 0 ] && grep -qx cancelled '$T_TMP/st1' || { cat '$T_TMP/st1'; false; }"
# Dovecot may answer pipelined FETCHes together, so a report can cover
# more than one batch: the sync stops at the first report past 1000 (a
# long fetch starts with a small batch, imap-sync.h's IMAP_SYNC_FIRST).
stopped=$(sed -n "s/^progress fetching headers: \([0-9]*\) $N\$/\1/p" "$T_TMP/st1" | tail -1)
ok "it reported its progress, and stopped at the first report past 1000" sh -c "[ -n '$stopped' ] && [ '$stopped' -ge 1000 ] && [ '$stopped' -lt $N ] && [ \$(sed -n 's/^progress fetching headers: \\([0-9]*\\) .*/\\1/p' '$T_TMP/st1' | awk '\$1 >= 1000' | wc -l) = 1 ] || { cat '$T_TMP/st1'; false; }"
ok "no trust step after a stopped sync" sh -c "! grep -q '^synced\|^trust' '$T_TMP/st1'"
st sync INBOX >"$T_TMP/st2" 2>&1; rc=$?
ok "the next sync fetches only the rest, then does the trust step" sh -c "[ $rc = 0 ] && grep -qx 'synced $((N - ${stopped:-0}))' '$T_TMP/st2' && grep -q '^trust ' '$T_TMP/st2' || { cat '$T_TMP/st2'; false; }"
n2=$(STEEDMAIL_SYNC_BATCH=500 XDG_CACHE_HOME="$T_TMP/cache2" sm -F "$T_TMP/sync.conf" --list INBOX 2>/dev/null | wc -l)
ok "and the cache then holds all $N" test "$n2" = "$N"
st idle INBOX 60 400 >"$T_TMP/st3" 2>&1; rc=$?
ms=$(sed -n 's/^cancelled after \([0-9]*\) ms$/\1/p' "$T_TMP/st3")
ok "IDLE stopped by another thread after 0.4 s returns within 2 s" sh -c "[ $rc = 0 ] && [ -n '$ms' ] && [ '$ms' -ge 400 ] && [ '$ms' -lt 2000 ] || { cat '$T_TMP/st3'; false; }"
# The trust step, stopped after its first message: its resume point moved
# past that message before it was looked at (no message is looked at
# twice, so none can stop every sync), so the next sync checks the other
# two, the one after none.
$DOVE mailbox create -u "$USER_ADDR" Trusty || bail "cannot create Trusty"
for i in 1 2 3; do
	printf 'From: Signer %s <signer%s@steed.test>\r\nSubject: signed %s\r\nMessage-ID: <trusty-%s-%s@steed.test>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/signed; protocol="application/pgp-signature"\r\n\r\nno parts here\r\n' "$i" "$i" "$i" "$i" "$$" |
	    $DOVE save -u "$USER_ADDR" -m Trusty || bail "cannot save to Trusty"
done
sth() { XDG_DATA_HOME="$T_TMP/data3" XDG_CACHE_HOME="$T_TMP/cache3" "$ST" "$T_TMP/sync.conf" "$@"; }
sth sync Trusty 1 trust >"$T_TMP/st4" 2>&1; rc=$?
ok "a trust step stopped by another thread after one message: it says so" sh -c "[ $rc = 0 ] && grep -qx 'synced 3' '$T_TMP/st4' && grep -qx 'trust cancelled' '$T_TMP/st4' && grep -qx 'progress trust: checking messages: 1 3' '$T_TMP/st4' && ! grep -q 'checking messages: 2' '$T_TMP/st4' || { cat '$T_TMP/st4'; false; }"
sth sync Trusty >"$T_TMP/st5" 2>&1; rc=$?
ok "the next sync fetches nothing and checks the two not yet looked at" sh -c "[ $rc = 0 ] && grep -qx 'synced 0' '$T_TMP/st5' && grep -qx 'trust 0 0 2' '$T_TMP/st5' || { cat '$T_TMP/st5'; false; }"
sth sync Trusty >"$T_TMP/st6" 2>&1; rc=$?
ok "the one after that has nothing left to check" sh -c "[ $rc = 0 ] && grep -qx 'trust 0 0 0' '$T_TMP/st6' || { cat '$T_TMP/st6'; false; }"
gpgconf --homedir "$T_TMP/data3/steedmail/gnupg" --kill all >/dev/null 2>&1

# --- copy and expunge through the session ------------------------------------
$DOVE mailbox create -u "$USER_ADDR" Beta || bail "cannot create Beta"
st copy Alpha 2 Beta >"$T_TMP/st7" 2>&1; rc=$?
ok "session_copy: the message is in both folders" sh -c "[ $rc = 0 ] && grep -qx ok '$T_TMP/st7' && [ \$($DOVE search -u '$USER_ADDR' mailbox Beta subject 'alpha 2' | wc -l) = 1 ] && [ \$($DOVE search -u '$USER_ADDR' mailbox Alpha subject 'alpha 2' | wc -l) = 1 ] || { cat '$T_TMP/st7'; false; }"
st copy Alpha 2 Alpha >"$T_TMP/st8" 2>&1; rc=$?
ok "a copy onto its own folder is refused" sh -c "[ $rc = 1 ] && grep -q 'in Alpha already' '$T_TMP/st8'"
STEEDMAIL_SYNC_BATCH=500 XDG_CACHE_HOME="$T_TMP/cache2" sm -F "$T_TMP/sync.conf" --flag 1 +T Alpha >/dev/null 2>&1
st expunge Alpha >"$T_TMP/st9" 2>&1; rc=$?
ok "session_expunge removes what is flagged deleted, and only that" sh -c "[ $rc = 0 ] && [ \$($DOVE search -u '$USER_ADDR' mailbox Alpha all | wc -l) = 1 ] && [ \$($DOVE search -u '$USER_ADDR' mailbox Alpha subject 'alpha 2' | wc -l) = 1 ] || { cat '$T_TMP/st9'; false; }"
