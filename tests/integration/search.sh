# search.sh: the full-text index and --search, against the real Dovecot.
# bob's mail: plain text, HTML only (its script left out), an attachment
# by name, one sent in 2023, and one alice encrypted to him with a word
# that is only inside. Once bob has read them (--fetch: the body cache),
# --search finds words, phrases, prefixes, from:, to:, subject:, dates
# and ranges, OR, NOT and groups, and prints --list's very lines; a
# query it cannot read exits 64 saying why; with --offline it never
# connects. Online, plain words are asked of the server too: a message
# delivered and never opened is found (not with --offline), and with
# --all-folders a word in another folder, on a line with its folder. The
# encrypted word is found only with index-decrypted = yes, and is gone
# again when the setting is off. The index survives a kill -9 in the
# middle of a build (intact, resumed), and a file of another schema or
# version, or not a database, is built anew. In tmux at 80x24, B takes
# the same queries and shows the results as a folder of their own: the
# encrypted word with the setting on, from: and a date range, a query
# it cannot read, and --offline where the cached mail answers alone.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
export TZ=UTC LANG=C.UTF-8
DOVE="doveadm -c $STEED_DOVECOT_CONF"

cp "$STEED_ENV/bob.conf" "$T_TMP/bob.conf"
{ echo "index-decrypted = yes"; cat "$STEED_ENV/bob.conf"; } >"$T_TMP/dec.conf"
chmod 600 "$T_TMP"/*.conf
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/bob.conf" "$@"; }
bobdec() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/dec.conf" "$@"; }
AH=$T_TMP/alice/steedmail/gnupg
BH=$T_TMP/bob/steedmail/gnupg
trap 'for h in "$AH" "$BH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT
C=$T_TMP/bob-c/steedmail

alice --genkey >/dev/null 2>&1 || bail "alice --genkey failed"
bob --genkey >/dev/null 2>&1 || bail "bob --genkey failed"
bob --export-key | alice --import-key - >/dev/null 2>&1
alice --export-key | bob --import-key - >/dev/null 2>&1

save() { sed 's/$/\r/' | $DOVE save -u "$STEED_BOB" -m INBOX || bail "doveadm save failed"; }
inbox() { $DOVE search -u "$STEED_BOB" mailbox INBOX all 2>/dev/null | wc -l; }
printf 'From: Dave Miller <dave@plain.test>\nTo: %s\nSubject: Bread order\nDate: Tue, 2 Jan 2024 10:00:00 +0000\nMessage-ID: <bread@plain.test>\n\nThe quick brown fox wants pumpernickel on Friday.\n' "$STEED_BOB" | save
printf 'From: Erin <erin@plain.test>\nTo: %s\nCc: Frank <frank@plain.test>\nSubject: Jam\nDate: Wed, 3 Jan 2024 10:00:00 +0000\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n<html><head><script>var hidden = "scriptword";</script></head><body><p>Orange <b>marmalade</b> &amp; toast, caf&eacute;</p></body></html>\n' "$STEED_BOB" | save
printf 'From: Dave Miller <dave@plain.test>\nTo: %s\nSubject: Figures\nDate: Thu, 4 Jan 2024 10:00:00 +0000\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nsee the sheet\n--b\nContent-Type: application/octet-stream\nContent-Disposition: attachment; filename="budget-forecast.xlsx"\nContent-Transfer-Encoding: base64\n\nAAAA\n--b--\n' "$STEED_BOB" | save
printf 'From: Carol <carol@plain.test>\nTo: %s\nSubject: Old news\nDate: Fri, 15 Dec 2023 10:00:00 +0000\n\nthe brown quick fox of last year\n' "$STEED_BOB" | save
echo "the word only inside is xylophone" | alice -s "Garden plan" --encrypt "$STEED_BOB" >/dev/null 2>&1
for _ in $(seq 1 60); do [ "$(inbox)" -ge 5 ] && break; sleep 0.25; done
[ "$(inbox)" -ge 5 ] || bail "the mail did not arrive"
bob --sync >/dev/null 2>&1 || bail "bob --sync failed"
bob --list >"$T_TMP/list" 2>/dev/null
uid() { grep -F -- "$1" "$T_TMP/list" | cut -f1 | head -1; }
UB=$(uid "Bread order"); UJ=$(uid Jam); UF=$(uid Figures); UO=$(uid "Old news"); UG=$(uid "Garden plan")
[ -n "$UB" ] && [ -n "$UJ" ] && [ -n "$UF" ] && [ -n "$UO" ] && [ -n "$UG" ] || bail "the messages are not listed: $(cat "$T_TMP/list")"
for n in $UB $UJ $UF $UO $UG; do bob --fetch "$n" >/dev/null 2>&1 || bail "bob --fetch $n failed"; done

# found QUERY UID...: --search QUERY prints exactly these UIDs; the index
# alone (--offline), as the server would find some of them too.
found() {
	_q=$1; shift
	bob --offline --search "$_q" >"$T_TMP/s" 2>"$T_TMP/se" || { echo "exit $?"; cat "$T_TMP/se"; return 1; }
	_got=$(cut -f1 "$T_TMP/s" | sort -n | tr '\n' ' ')
	_want=$(printf '%s\n' "$@" | sed '/^$/d' | sort -n | tr '\n' ' ')
	[ "$_got" = "$_want" ] || { echo "$_q: got '$_got', want '$_want'"; cat "$T_TMP/s" "$T_TMP/se"; return 1; }
}

# --- Words, phrases, prefixes, fields ---------------------------------------
ok "a word of the text" found pumpernickel "$UB"
ok "... printed as --list prints it" sh -c "bob() { XDG_DATA_HOME='$T_TMP/bob' XDG_CACHE_HOME='$T_TMP/bob-c' '$STEEDMAIL' -F '$T_TMP/bob.conf' \"\$@\"; }; [ \"\$(bob --search pumpernickel)\" = \"\$(grep -P '^$UB\t' '$T_TMP/list')\" ]"
ok "case and accents do not matter" found "PUMPERNICKEL CAFE" 
ok "... each word must be there (none has both)" found "pumpernickel cafe"
ok "accents: café finds the HTML's caf&eacute;" found "café" "$UJ"
ok "a phrase keeps its order" found '"quick brown fox"' "$UB"
ok "... words in any order" found "quick brown fox" "$UB" "$UO"
ok "a prefix" found "pumper*" "$UB"
ok "HTML as text" found marmalade "$UJ"
ok "... without its script" found scriptword
ok "an attachment's file name" found budget "$UF"
ok "from: a name" found "from:dave" "$UB" "$UF"
ok "from: an address" found "from:erin@plain.test" "$UJ"
ok "to: and Cc" found "to:frank" "$UJ"
ok "subject:" found "subject:jam" "$UJ"
ok "subject: is only the Subject" found "subject:marmalade"
ok "a header word is also a plain word" found "figures" "$UF"

# --- Dates and booleans -----------------------------------------------------------
ok "date: a year" found "fox date:2023" "$UO"
ok "date: a day alone" found "date:2024-01-03" "$UJ"
ok "date: a range" found "date:2024-01-02..2024-01-03" "$UB" "$UJ"
ok "date: open before" found "date:..2023-12" "$UO"
ok "from: with a date range" found "from:dave date:2024-01-03.." "$UF"
ok "OR" found "pumpernickel OR marmalade" "$UB" "$UJ"
ok "NOT and -" found "fox -pumpernickel" "$UO"
ok "... NOT too" found "fox NOT pumpernickel" "$UO"
ok "groups" found "(marmalade OR budget) from:dave" "$UF"

# --- What it refuses, what it never does ----------------------------------------
bob --search '(fox' >/dev/null 2>"$T_TMP/bad"
rc=$?
ok "a query it cannot read: exit 64, saying why" sh -c "[ $rc = 64 ] && grep -q 'a ( is not closed' '$T_TMP/bad'"
bob --search -- '-fox' >/dev/null 2>"$T_TMP/bad"
ok "... a query that only leaves out" has "$T_TMP/bad" "cannot only leave out"
sed 's|^imap = .*|imap = imaps://localhost:1|; /^password/d' "$T_TMP/bob.conf" >"$T_TMP/down.conf"
chmod 600 "$T_TMP/down.conf"
XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/down.conf" --offline --search marmalade >"$T_TMP/down" 2>&1 </dev/null
rc=$?
ok "--offline --search needs neither the server nor a password" sh -c "[ $rc = 0 ] && grep -q Jam '$T_TMP/down' && ! grep -q 'cannot connect\|password' '$T_TMP/down'"
sed 's|^imap = .*|imap = imaps://localhost:1|' "$T_TMP/bob.conf" >"$T_TMP/down2.conf"
chmod 600 "$T_TMP/down2.conf"
XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/down2.conf" --search marmalade >"$T_TMP/down" 2>"$T_TMP/downe" </dev/null
rc=$?
ok "the server out of reach: the cached mail, a warning saying so, 75" sh -c "[ $rc = 75 ] && grep -q Jam '$T_TMP/down' && grep -q 'warning: INBOX: only the cached mail was searched: ' '$T_TMP/downe' || { echo rc $rc; cat '$T_TMP/down' '$T_TMP/downe'; false; }"


# --- Encrypted mail ------------------------------------------------------------
ok "encrypted: its word is not found with index-decrypted off (the default)" found xylophone
ok "... and it is not in the body cache in clear" sh -c "! grep -qa xylophone '$C/bob.bodies' '$C/bob.bodies-wal' 2>/dev/null"
ok "... its outer headers are found" found "from:alice" "$UG"
bobdec --search xylophone >"$T_TMP/x" 2>"$T_TMP/xe"
ok "index-decrypted = yes: the word inside is found" sh -c "[ \"\$(cut -f1 '$T_TMP/x')\" = '$UG' ] || { cat '$T_TMP/x' '$T_TMP/xe'; false; }"
ok "... and the rest as before" sh -c "XDG_DATA_HOME='$T_TMP/bob' XDG_CACHE_HOME='$T_TMP/bob-c' '$STEEDMAIL' -F '$T_TMP/dec.conf' --search marmalade | grep -q Jam"
ok "... the index says one message holds decrypted text" sh -c "[ \"\$(sqlite3 '$C/bob.search' 'SELECT count(*) FROM doc WHERE decrypted = 1')\" = 1 ]"
ok "the setting off again: the index is built anew, without it" found xylophone
ok "... no message in it holds decrypted text" sh -c "[ \"\$(sqlite3 '$C/bob.search' 'SELECT count(*) FROM doc WHERE decrypted = 1')\" = 0 ]"
ok "... the rest is still found" found pumpernickel "$UB"
ok "the index file is mode 0600" sh -c "[ \"\$(stat -c %a '$C/bob.search')\" = 600 ]"

# --- In the interface: B, results as a folder ---------------------------------
# pane NAME CONF [ARGS]: bob's interface at 80x24 with that configuration.
pane() {
	_n=$1 _c=$2; shift 2
	tui_start "$_n" env XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" \
	    HOME="$HOME" "$STEEDMAIL" -F "$T_TMP/$_c.conf" "$@"
}
# search NAME QUERY: B, the query, Enter.
search() {
	tui_keys "$1" B
	tui_wait "$1" "Search the text" >/dev/null
	tui_type "$1" "$2"
	tui_keys "$1" Enter
}
pane d dec
tui_wait d "Bread order" 20 >/dev/null || bail "the index did not show"
search d xylophone
ok "tmux: B finds the word inside the encrypted message (index-decrypted = yes)" tui_wait d '1 found in the cached mail and the server for "xylophone"'
ok "... the results are a folder of their own: one row of five" tui_wait d "1/1 of 5"
ok "... the encrypted message's row" sh -c "tmux -S '$TUI_SOCK' capture-pane -p -t d | grep -q 'Alice Example' && ! tmux -S '$TUI_SOCK' capture-pane -p -t d | grep -q 'Bread order'"
tui_keys d Enter
ok "... and it opens from there, decrypted" tui_wait d "the word only inside is xylophone"
tui_keys d q
tui_wait d "1/1 of 5" >/dev/null
tui_keys d l; tui_wait d "Limit to" >/dev/null; tui_keys d C-u Enter
ok "l and an empty expression show all again" tui_wait d "/5  sort"
search d "from:dave date:2024-01-03.."
ok "B takes the query language: from: and a date range" tui_wait d "1 found in the cached mail for"
ok "... the folder of results holds that message" sh -c "sleep 0.3; tmux -S '$TUI_SOCK' capture-pane -p -t d | grep -q Figures && tmux -S '$TUI_SOCK' capture-pane -p -t d | grep -q '1/1 of 5'"
search d "(fox"
ok "a query it cannot read says why" tui_wait d "search: a ( is not closed"
tui_keys d l; tui_wait d "Limit to" >/dev/null; tui_keys d C-u Enter
tui_wait d "/5  sort" >/dev/null
tui_keys d Home
tui_wait d "INBOX  1/5" >/dev/null
tui_keys d /; tui_wait d "Search for:" >/dev/null; tui_type d xylophone; tui_keys d Enter
ok "/ with a word no header has: found in the text, the cursor on it" tui_wait d "found in the text of 1 message"
ok "... the encrypted message's row (the newest: the last by date)" tui_wait d "INBOX  5/5"
tui_keys d Home
tui_wait d "INBOX  1/5" >/dev/null
tui_keys d n
ok "... n goes to it again" tui_wait d "INBOX  5/5"
tui_keys d l; tui_wait d "Limit to" >/dev/null; tui_type d marmalade; tui_keys d Enter
ok "l with words no header has: the text answers, as a folder" tui_wait d '1 found in the cached mail and the server for "marmalade"'
ok "... of one row" tui_wait d "1/1 of 5"
tui_keys d l; tui_wait d "Limit to" >/dev/null; tui_keys d C-u Enter
ok "... and l with nothing shows all again" tui_wait d "/5  sort"
tui_keys d l; tui_wait d "Limit to" >/dev/null; tui_type d jam; tui_keys d Enter
ok "l with a word of a Subject: the header language, as before" tui_wait d "1/1 of 5"
ok "... no text search" sh -c "! tmux -S '$TUI_SOCK' capture-pane -p -t d | grep -q 'found in the cached'"
tui_keys d l; tui_wait d "Limit to" >/dev/null; tui_keys d C-u; tui_type d '!xylophone'; tui_keys d Enter
ok "l with ! (the header language's not): every row, no text search" tui_wait_re d "[0-9]/5 of 5|INBOX  [0-9]/5  sort"
ok "... none" sh -c "! tmux -S '$TUI_SOCK' capture-pane -p -t d | grep -q 'searching the text\|found in the cached'"
tui_keys d q
tui_ended d >/dev/null
pane o bob --offline
tui_wait o "Bread order" 20 >/dev/null || bail "the offline index did not show"
search o xylophone
ok "index-decrypted off (again): the encrypted word is not found" tui_wait o '0 found in the cached mail for "xylophone"'
search o marmalade
ok "--offline: the cached mail answers alone" tui_wait o '1 found in the cached mail for "marmalade"'
ok "... and the status line says offline" tui_wait o "offline: started with --offline"
tui_keys o q
tui_ended o >/dev/null

# --- Built incrementally, killed, rebuilt -------------------------------------------
# 30,000 stored bodies made straight in the body cache, so that the build
# takes long enough to be killed in the middle.
V=$(sqlite3 "$C/bob.hcache" "SELECT uidvalidity FROM mailbox WHERE name = 'INBOX'")
sqlite3 "$C/bob.bodies" "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 30000)
    INSERT INTO body (mailbox, uidvalidity, uid, stored, size) SELECT 'Bulk', $V, n, 0, 80 FROM c;
    INSERT INTO body_raw (id, raw) SELECT id, CAST('From: bulk' || uid || '@plain.test' || char(13,10) || 'Subject: bulk ' || uid || char(13,10,13,10) || 'filler text number w' || uid || ' and more' || char(13,10) AS BLOB) FROM body WHERE mailbox = 'Bulk';" ||
    bail "cannot fill the body cache"
docs() { sqlite3 "$C/bob.search" "SELECT count(*) FROM doc"; }
# all_indexed: every message of the body cache has its row in the index.
all_indexed() { [ "$(docs)" = "$(sqlite3 "$C/bob.bodies" 'SELECT count(*) FROM body')" ]; }
before=$(docs)
XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" "$STEEDMAIL" -F "$T_TMP/bob.conf" --search pumpernickel >/dev/null 2>&1 &
pid=$!
sleep 0.4
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
mid=$(docs)
diag "killed after indexing $((mid - before)) of 30000"
ok "killed in the middle: the file is intact" sh -c "[ \"\$(sqlite3 '$C/bob.search' 'PRAGMA integrity_check')\" = ok ] && sqlite3 '$C/bob.search' \"INSERT INTO fts (fts) VALUES ('integrity-check')\""
ok "... and it had got part of the way" sh -c "[ $mid -lt $((before + 30000)) ]"
ok "... the next search resumes and finishes it" found pumpernickel "$UB"
ok "... every stored message is indexed once" all_indexed
ok "... a word of the last one is there" sh -c "[ \"\$(sqlite3 '$C/bob.search' \"SELECT d.uid FROM fts JOIN doc d ON d.id = fts.rowid WHERE fts MATCH 'w30000'\")\" = 30000 ]"

sqlite3 "$C/bob.search" "PRAGMA user_version = 7" >/dev/null
ok "an index of another schema version is built anew" found marmalade "$UJ"
ok "... whole" sh -c "[ \"\$(sqlite3 '$C/bob.search' 'PRAGMA user_version')\" = 1 ]"
ok "... every message in it" all_indexed
sqlite3 "$C/bob.search" "PRAGMA user_version = 0" >/dev/null
ok "... of an older one too" found marmalade "$UJ"
rm -f "$C/bob.search-wal" "$C/bob.search-shm"
head -c 8192 /dev/urandom >"$C/bob.search"
ok "... and a file that is not a database" found marmalade "$UJ"
# --- The server asked too: mail never fetched, and every folder -------------------
printf 'From: Gina <gina@plain.test>\nTo: %s\nSubject: Visitor\nDate: Sat, 6 Jan 2024 10:00:00 +0000\n\nthe quokka came by twice\n' "$STEED_BOB" | save
UQ=$($DOVE fetch -u "$STEED_BOB" uid mailbox INBOX subject Visitor | sed -n 's/^uid: *//p')
[ -n "$UQ" ] || bail "the Visitor message is not on the server"
bob --offline --search quokka >"$T_TMP/q" 2>"$T_TMP/qe"; rc=$?
ok "a message delivered and never opened: --offline does not find it" sh -c "[ $rc = 0 ] && [ ! -s '$T_TMP/q' ] || { cat '$T_TMP/q' '$T_TMP/qe'; false; }"
bob --search quokka >"$T_TMP/q" 2>"$T_TMP/qe"; rc=$?
ok "... online, the server finds it: its --list line, exit 0" sh -c "[ $rc = 0 ] && [ \"\$(cut -f1 '$T_TMP/q')\" = '$UQ' ] && grep -q 'Visitor' '$T_TMP/q' || { echo rc $rc; cat '$T_TMP/q' '$T_TMP/qe'; false; }"
ok "... found by the server, not read: still not in the body cache" sh -c "bob() { XDG_DATA_HOME='$T_TMP/bob' XDG_CACHE_HOME='$T_TMP/bob-c' '$STEEDMAIL' -F '$T_TMP/bob.conf' \"\$@\"; }; [ -z \"\$(bob --offline --search quokka)\" ]"
bob --search fox >"$T_TMP/q" 2>&1
ok "online, plain words the index and the server both find: each message once" sh -c "[ \"\$(cut -f1 '$T_TMP/q' | tr '\\n' ' ')\" = '$UB $UO ' ] || { cat '$T_TMP/q'; false; }"
bob --search "pumpernickel OR quokka" >"$T_TMP/q" 2>&1
ok "a query in the language is the index's alone: not the never-opened one" sh -c "[ \"\$(cut -f1 '$T_TMP/q')\" = '$UB' ] || { cat '$T_TMP/q'; false; }"
$DOVE mailbox create -u "$STEED_BOB" Projects 2>/dev/null
$DOVE mailbox status -u "$STEED_BOB" messages Projects >/dev/null || bail "cannot create Projects"
printf 'From: Hal <hal@plain.test>\nTo: %s\nSubject: Burrow plans\n\na wombat dug under the fence\n' "$STEED_BOB" |
    sed 's/$/\r/' | $DOVE save -u "$STEED_BOB" -m Projects || bail "doveadm save failed"
UW=$($DOVE fetch -u "$STEED_BOB" uid mailbox Projects subject Burrow | sed -n 's/^uid: *//p')
bob --search wombat >"$T_TMP/w" 2>&1; rc=$?
ok "a word only in another folder: not in INBOX" sh -c "[ $rc = 0 ] && [ ! -s '$T_TMP/w' ] || { cat '$T_TMP/w'; false; }"
bob --search wombat --all-folders >"$T_TMP/w" 2>"$T_TMP/we"; rc=$?
ok "--all-folders: found in Projects, its folder and UID on the line" sh -c "[ $rc = 0 ] && [ \"\$(cut -f1,2 '$T_TMP/w')\" = \"\$(printf 'Projects\t%s' '$UW')\" ] || { echo rc $rc; cat '$T_TMP/w' '$T_TMP/we'; false; }"
bob --search fox --all-folders >"$T_TMP/w" 2>"$T_TMP/we"; rc=$?
ok "--all-folders: INBOX's matches as --list's lines after 'INBOX<TAB>'" sh -c "[ $rc = 0 ] && grep -qP '^INBOX\t$UB\t.*Bread order' '$T_TMP/w' && grep -qP '^INBOX\t$UO\t' '$T_TMP/w' || { cat '$T_TMP/w' '$T_TMP/we'; false; }"
bob --offline --search wombat --all-folders >"$T_TMP/w" 2>"$T_TMP/we"; rc=$?
ok "--all-folders --offline: Projects never synced nor read: nothing, exit 0" sh -c "[ $rc = 0 ] && [ ! -s '$T_TMP/w' ] || { cat '$T_TMP/w' '$T_TMP/we'; false; }"
bob --search wombat Projects --all-folders >"$T_TMP/w" 2>&1; rc=$?
ok "--all-folders with a FOLDER: 64" test "$rc" = 64

exit 0
