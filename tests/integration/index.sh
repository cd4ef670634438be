# index.sh: what a sync stores for the index (the Index API, src/index.h),
# against the test Dovecot: the sender's address beside a display name
# that looks like another address, To and Cc, In-Reply-To, References
# (the parent kept from a field far too long to keep whole), the Date and
# the Content-Type's hints; --list unchanged in form. Then a header cache
# of the schema before (3), with a flag change still pending, is migrated
# by the next --sync: the pending change reaches the server, the old rows
# get what the index needs, nothing is counted as new and the trust
# step's resume point stays.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
command -v sqlite3 >/dev/null 2>&1 || bail "sqlite3 is missing"
USER_ADDR=index-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"

"$STEED_ENV_BIN/add-user" "$USER_ADDR" index-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home/Maildir/cur" "$home/Maildir/new" "$home/Maildir/tmp" ||
	bail "cannot create $home"

# msg N HEADERS...: message N (its Message-ID <N@index.test>) in cur/.
msg() {
	n=$1; shift
	{ for h in "$@"; do printf '%s\r\n' "$h"; done
	  printf 'Message-ID: <%s@index.test>\r\n\r\nbody %s\r\n' "$n" "$n"
	} >"$home/Maildir/cur/170000000$n.M${n}P1.index:2,"
}
msg 1 'From: "alice@bank.example" <mallory@evil.example>' \
    'To: Bob Example <bob@steed.test>, undisclosed-recipients:;' \
    'Cc: =?utf-8?q?Z=C3=B6e?= <zoe@steed.test>' \
    'Subject: Your account' 'Date: Tue, 2 Jan 2024 10:00:00 +0100' \
    'Content-Type: multipart/signed; micalg=pgp-sha256;' \
    ' protocol="application/pgp-signature"; boundary=b'
msg 2 'From: bob@steed.test' 'To: alice@bank.example' \
    'Subject: Re: Your account' 'Date: Wed, 3 Jan 2024 10:00:00 +0000' \
    'In-Reply-To: <1@index.test>' 'References: <1@index.test>' \
    'Content-Type: multipart/mixed; boundary=m'
long='References:'
i=0
while [ $i -lt 400 ]; do long="$long <old.$i.a.rather.long.message.id@index.test>"; i=$((i + 1)); done
msg 3 'From: Carol <carol@steed.test>' 'To: bob@steed.test' \
    'Subject: Re: Re: Your account' 'Date: Thu, 4 Jan 2024 10:00:00 +0000' \
    "$long <2@index.test>" \
    'Content-Type: application/pkcs7-mime; smime-type=enveloped-data'
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" ||
	bail "chown failed"

cat >"$T_TMP/index.conf" <<EOF
ca-file = $STEED_CA_FILE

[account index]
name = Index
address = $USER_ADDR
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = index-pw
EOF
chmod 0600 "$T_TMP/index.conf"
export TZ=UTC
s() { XDG_CACHE_HOME="$T_TMP/cache" sm -F "$T_TMP/index.conf" "$@"; }
HCACHE=$T_TMP/cache/steedmail/index.hcache
q() { sqlite3 -batch "$HCACHE" "$1"; }
row() { q "SELECT $1 FROM message WHERE message_id = '<$2@index.test>'"; }

s --sync >"$T_TMP/sync.out" 2>&1; rc=$?
ok "--sync: exit 0" test "$rc" = 0
ok "three new" grep -q ": 3 new" "$T_TMP/sync.out"
ok "the display name is kept as sent" test "$(row sender 1)" = "alice@bank.example"
ok "... and the address beside it" test "$(row from_addr 1)" = "mallory@evil.example"
ok "To and Cc, decoded, the empty group left out" \
    test "$(row rcpt 1)" = "Bob Example <bob@steed.test>, Zöe <zoe@steed.test>"
ok "a sender without a name: the address in both" \
    test "$(row "sender || ' ' || from_addr" 2)" = "bob@steed.test bob@steed.test"
ok "In-Reply-To and References" \
    test "$(row "in_reply_to || ' ' || refs" 2)" = "<1@index.test> <1@index.test>"
refs3=$(row refs 3)
ok "400 References: the parent is kept, last" \
    sh -c 'case "$1" in *" <2@index.test>") exit 0;; esac; exit 1' - "$refs3"
ok "... with the ids before it that fit in 998 bytes" \
    test "${#refs3}" -le 998 -a "${#refs3}" -gt 900
ok "the Date as a time" test "$(row sent 1)" = 1704186000
ok "hints: signed, attachment, S/MIME encrypted (2, 1, 4+8), the signed and encrypted ones evidence for the trust step (16)" \
    test "$(q "SELECT group_concat(hints, ' ') FROM (SELECT hints FROM message ORDER BY uid)")" = "18 1 28"
ok "nothing is stale after a sync" test "$(q "SELECT count(*) FROM message WHERE stale")" = 0

s --list >"$T_TMP/list" 2>&1; rc=$?
ok "--list: exit 0" test "$rc" = 0
printf '1\t-\tmallory@evil.example\tYour account\n2\t-\tbob@steed.test\tRe: Your account\n3\t-\tCarol\tRe: Re: Your account\n' >"$T_TMP/list.want"
# INTERNALDATE is the file's mtime: all columns but the date.
cut -f 1,2,4,5 "$T_TMP/list" >"$T_TMP/list.got"
ok "--list: UID, flags, from (the name, else the address; the address where the name holds another), subject" \
    diff -u "$T_TMP/list.want" "$T_TMP/list.got"
ok "--list: the date column" sh -c "cut -f 3 '$T_TMP/list' | grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}\$' | grep -qx 3"

# --sort and --limit: the index's orders and search from the command line.
lst() { s --list "$@" 2>"$T_TMP/lst.err" | cut -f 1 | tr '\n' ' '; }
ok "--sort -arrival: newest first" test "$(lst --sort -arrival)" = "3 2 1 "
ok "--sort date: by the Date header" test "$(lst --sort date)" = "1 2 3 "
ok "--limit ~f carol: the sender's name" test "$(lst --limit '~f carol')" = "3 "
ok "--limit ~f evil.example: the address behind a name that looks like another" \
    test "$(lst --limit '~f evil.example')" = "1 "
ok "--limit '!~s re:': what is not a reply" test "$(lst --limit '!~s re:')" = "1 "
s --list --sort sideways >/dev/null 2>"$T_TMP/bad.err"; rc=$?
ok "--sort of an unknown order: 64, and the orders named" \
    sh -c "[ $rc = 64 ] && grep -q 'not an order (arrival, date' '$T_TMP/bad.err'"
s --list --limit '~q x' >/dev/null 2>"$T_TMP/bad.err"; rc=$?
ok "--limit of a bad expression: 64, and why" \
    sh -c "[ $rc = 64 ] && grep -q '^steedmail: --limit ~q x: ' '$T_TMP/bad.err' || { cat '$T_TMP/bad.err'; false; }"
s --sync --sort date >/dev/null 2>"$T_TMP/bad.err"; rc=$?
ok "--sort with another command than --list: 64" test "$rc" = 64

# The same cache as schema 3 had it, with a flag change not yet sent.
uidv=$(q "SELECT uidvalidity FROM mailbox WHERE name = 'INBOX'")
OLD=$T_TMP/old.sqlite
rm -f "$OLD"
sqlite3 -batch "$OLD" "
PRAGMA application_id=1398032451; PRAGMA user_version=3;
CREATE TABLE mailbox (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
 uidvalidity INTEGER NOT NULL, uidnext INTEGER NOT NULL DEFAULT 0,
 highestmodseq INTEGER NOT NULL DEFAULT 0,
 trust_uid INTEGER NOT NULL DEFAULT 0);
CREATE TABLE message (mailbox INTEGER NOT NULL, uid INTEGER NOT NULL,
 flags TEXT NOT NULL, internaldate INTEGER NOT NULL, size INTEGER NOT NULL,
 date TEXT, sender TEXT, subject TEXT, message_id TEXT,
 PRIMARY KEY (mailbox, uid)) WITHOUT ROWID;
CREATE TABLE pending (id INTEGER PRIMARY KEY, mailbox TEXT NOT NULL,
 uidvalidity INTEGER NOT NULL, uid INTEGER NOT NULL,
 add_flags TEXT NOT NULL, remove_flags TEXT NOT NULL);
ATTACH '$HCACHE' AS new;
INSERT INTO mailbox SELECT id, name, uidvalidity, uidnext, highestmodseq,
 trust_uid FROM new.mailbox;
INSERT INTO message SELECT mailbox, uid, flags, internaldate, size, date,
 sender, subject, message_id FROM new.message;
INSERT INTO pending VALUES (1, 'INBOX', $uidv, 2, 'F', '');
" || bail "cannot make the old cache"
trust_uid=$(sqlite3 -batch "$OLD" "SELECT trust_uid FROM mailbox")
rm -f "$HCACHE" "$HCACHE-wal" "$HCACHE-shm"
cp "$OLD" "$HCACHE"

s --sync >"$T_TMP/sync2.out" 2>&1; rc=$?
ok "--sync on a schema 3 cache: exit 0" test "$rc" = 0
ok "... nothing counted as new" grep -q ": 0 new" "$T_TMP/sync2.out"
ok "the cache is schema 11 now" test "$(q 'PRAGMA user_version')" = 11
ok "... the rows it had are marked as stored without the trust step's hints (evuid above them)" test "$(q 'SELECT evuid FROM mailbox')" = 4
ok "... without the trigger that noted new messages (cache_put() does)" test "$(q "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'thread_new'")" = 0
ok "... every message noted for the thread order, none threaded yet (--sync leaves it to the index)" test "$(q 'SELECT (SELECT count(*) FROM thread_todo) = (SELECT count(*) FROM message) AND NOT EXISTS (SELECT 1 FROM thread)')" = 1
ok "... its messages counted" test "$(q 'SELECT nmsg = (SELECT count(*) FROM message WHERE mailbox = mailbox.id) FROM mailbox')" = 1
ok "... and their senders seen" test "$(q 'SELECT count(*) FROM message m WHERE NOT EXISTS (SELECT 1 FROM sender_seen s WHERE s.mailbox = m.mailbox AND s.fkey = m.fkey AND s.name = coalesce(m.sender, '"''"') AND s.addr = coalesce(m.from_addr, '"''"'))')" = 0
ok "the pending flag change reached the server" \
    sh -c "$DOVE fetch -u '$USER_ADDR' flags mailbox INBOX uid 2 | grep -q Flagged"
ok "... and the cache shows it" test "$(q "SELECT flags FROM message WHERE uid = 2")" = F
ok "... and is no longer pending" test "$(q "SELECT count(*) FROM pending")" = 0
ok "the old rows got the address, recipients and hints again" \
    test "$(row "from_addr || '|' || rcpt || '|' || hints || '|' || stale" 1)" = \
    "mallory@evil.example|Bob Example <bob@steed.test>, Zöe <zoe@steed.test>|18|0"
ok "the trust step's resume point stays ($trust_uid)" \
    test "$(q "SELECT trust_uid FROM mailbox")" = "$trust_uid"
s --sync >"$T_TMP/sync3.out" 2>&1; rc=$?
ok "the next --sync: exit 0, nothing to do" sh -c "test $rc = 0 && grep -qi 'nothing changed\|: 0 new, 0 flag' '$T_TMP/sync3.out'"
ok "the same three messages" test "$(q "SELECT count(*) FROM message")" = 3
s --list --sort thread >"$T_TMP/list-thread" 2>&1; rc=$?
ok "--list --sort thread on the migrated cache: exit 0, the three messages" sh -c "test $rc = 0 && test \$(grep -c . '$T_TMP/list-thread') -ge 3"
ok "... the thread order taken in: every message has its row, nothing left to do" test "$(q 'SELECT (SELECT count(*) FROM thread) = 3 AND (SELECT tcount FROM mailbox) = 3 AND NOT EXISTS (SELECT 1 FROM thread_todo) AND NOT EXISTS (SELECT 1 FROM thread_dirty)')" = 1
