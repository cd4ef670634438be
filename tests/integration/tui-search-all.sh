# tui-search-all.sh: X in the index, a search of every folder, in tmux at
# 80x24 against the test Dovecot. A word is in three folders: in INBOX in
# a message read before (the full-text index has it), in Archive in one
# whose headers were synced but which was never opened (only the server's
# SEARCH finds it), and in Réunions (modified UTF-7 on the wire), never
# synced at all (the server alone; no headers cached). The results screen
# shows a row for each with its folder (decoded), the Subjects the cache
# has, folder and UID for the one it has not; the status line counts them.
# Enter opens each in the pager (its text shown), q comes back, and q again
# to the index. A word found nowhere says so and opens no screen; a query
# that cannot be read says why; a query in the language is the index's
# alone. With 500 more folders, the message line counts the folders as
# the search goes, and ^C stops it. In LANG=C the same, the name in ASCII;
# with --offline, the cached mail alone.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
USER_ADDR=xsearch-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"
export TZ=UTC

"$STEED_ENV_BIN/add-user" "$USER_ADDR" xsearch-pw || bail "add-user failed"
home=$($DOVE user -f home "$USER_ADDR") && [ -n "$home" ] || bail "no home"
mkdir -p "$home/Maildir/cur" "$home/Maildir/new" "$home/Maildir/tmp" ||
	bail "cannot create $home"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" || bail "chown failed"

# save FOLDER FROM SUBJECT DATE TEXT: a message into FOLDER, as delivered.
save() {
	printf 'From: %s\nTo: %s\nSubject: %s\nDate: %s\nMessage-ID: <%s@xsearch.test>\n\n%s\n' \
	    "$2" "$USER_ADDR" "$3" "$4" "$(echo "$3" | tr ' ' -)" "$5" |
	    sed 's/$/\r/' | $DOVE save -u "$USER_ADDR" -m "$1" ||
	    bail "doveadm save into $1 failed"
}
for f in Archive Réunions; do
	$DOVE mailbox create -u "$USER_ADDR" "$f" 2>/dev/null
	$DOVE mailbox status -u "$USER_ADDR" messages "$f" >/dev/null ||
		bail "cannot create $f"
done
save INBOX 'Dave Miller <dave@plain.test>' 'Harbor lights' \
    'Tue, 2 Jan 2024 10:00:00 +0000' 'the zeppelin was seen over the harbor'
save INBOX 'Erin <erin@plain.test>' 'Weekly notes' \
    'Wed, 3 Jan 2024 10:00:00 +0000' 'nothing of note this week'
save Archive 'Carol <carol@plain.test>' 'Old photos' \
    'Fri, 15 Dec 2023 10:00:00 +0000' 'an archived zeppelin, painted red'
save Réunions 'Frank <frank@plain.test>' 'Agenda' \
    'Thu, 4 Jan 2024 10:00:00 +0000' 'the zeppelin lands on Tuesday at noon'
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" || bail "chown failed"

cat >"$T_TMP/xs.conf" <<EOF
ca-file = $STEED_CA_FILE
dns-config = $STEED_DNS_CONF

[account xs]
name = Xs
address = $USER_ADDR
imap = imaps://127.0.0.1:$STEED_IMAPS_PORT
smtp = smtp://127.0.0.1:$STEED_SUBMISSION_PORT
password = xsearch-pw
EOF
chmod 0600 "$T_TMP/xs.conf"
H=$T_TMP/home
mkdir -p "$H"
xs() { HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
    XDG_CONFIG_HOME="$H/config" "$STEEDMAIL" -F "$T_TMP/xs.conf" "$@"; }

# INBOX synced and the Harbor message read (body cache, full-text index);
# Archive's headers synced, its message never opened; Réunions untouched.
xs --sync >/dev/null 2>&1 || bail "--sync failed"
xs --sync Archive >/dev/null 2>&1 || bail "--sync Archive failed"
UH=$(xs --list 2>/dev/null | grep -F 'Harbor lights' | cut -f1)
[ -n "$UH" ] || bail "the Harbor message is not listed"
xs --fetch "$UH" >/dev/null 2>&1 || bail "--fetch $UH failed"
ok "before: the cached mail alone finds the word in INBOX only" \
    sh -c "[ \"\$(HOME='$H' XDG_DATA_HOME='$H/data' XDG_CACHE_HOME='$H/cache' '$STEEDMAIL' -F '$T_TMP/xs.conf' --offline --search zeppelin --all-folders | cut -f1)\" = INBOX ]"

tui_start x env HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
    XDG_CONFIG_HOME="$H/config" LANG=C.UTF-8 TZ=UTC "$STEEDMAIL" -F "$T_TMP/xs.conf"
tui_wait x "Weekly notes" 20 >/dev/null || bail "the index did not show"

# xsearch QUERY: X, the query, Enter.
xsearch() {
	tui_keys x X
	tui_wait x "Search every folder for:" >/dev/null || return 1
	tui_type x "$1"
	tui_keys x Enter
}

# --- A word in three folders ---------------------------------------------------
xsearch zeppelin
ok "X: the results screen counts what it found, and where" \
    tui_wait x '3 found in 3 folders for "zeppelin"' 20
tui_capture x >"$T_TMP/found"
row() { grep -F -- "$1" "$T_TMP/found"; }
ok "... the message read before: its folder, sender and Subject" \
    sh -c "grep -F 'Harbor lights' '$T_TMP/found' | grep -F 'INBOX' | grep -qF 'Dave Miller'"
ok "... the one never opened, found by the server: Archive, its Subject from the header cache" \
    sh -c "grep -F 'Old photos' '$T_TMP/found' | grep -qF 'Archive'"
ok "... the folder never synced: its name decoded, and the UID" \
    sh -c "grep -F 'Réunions' '$T_TMP/found' | grep -qE 'UID [0-9]+ \\(headers not fetched yet\\)'"
check "... the wire form of the name is not shown" sh -c "! grep -qF 'R&AOk-unions' '$T_TMP/found'"
check "... the message line says who answered" has "$T_TMP/found" \
    '3 found in the cached mail and the server for "zeppelin"'
check "... the top bar names the search" has "$T_TMP/found" "Search: zeppelin"
check "... the other INBOX message is not there" sh -c "! grep -qF 'Weekly notes' '$T_TMP/found'"
check "... 24 lines, none longer than 80 columns" python3 -c "
import sys
l = open(sys.argv[1], encoding='utf-8').read().split('\n')
sys.exit(0 if len(l) <= 25 and all(len(x) <= 80 for x in l) else 1)" "$T_TMP/found"

# open ROWTEXT: the cursor onto the row holding ROWTEXT, then Enter.
open_row() {
	_l=$(grep -nF -- "$1" "$T_TMP/found" | head -1 | cut -d: -f1)
	[ -n "$_l" ] || return 1
	tui_keys x Home
	_i=2
	while [ "$_i" -lt "$_l" ]; do tui_keys x j; _i=$((_i + 1)); done
	tui_wait x "$((_l - 1))/3  3 found" >/dev/null || return 1
	tui_keys x Enter
}
open_row "Old photos"
ok "Enter on the Archive row opens that message: its text" \
    tui_wait x "an archived zeppelin, painted red" 20
tui_keys x q
ok "q comes back to the results" tui_wait x '3 found in 3 folders for "zeppelin"'
open_row "Réunions"
ok "Enter on the never-synced folder's row opens its message" \
    tui_wait x "the zeppelin lands on Tuesday at noon" 20
tui_keys x q
tui_wait x '3 found in 3 folders for "zeppelin"' >/dev/null
open_row "Harbor lights"
ok "... and the INBOX one, from the body cache" \
    tui_wait x "the zeppelin was seen over the harbor" 20
tui_keys x q
tui_wait x '3 found in 3 folders for "zeppelin"' >/dev/null
tui_keys x q
ok "q on the results goes back to the index" tui_wait_re x "^ INBOX  [0-9]+/2 "

# --- Nothing found, a query that cannot be read ----------------------------------
xsearch quetzalcoatl
ok "a word found nowhere: said on the message line" \
    tui_wait x 'nothing found in any folder for "quetzalcoatl"' 20
check "... and no results screen: still the index" tui_wait_re x "^ INBOX  [0-9]+/2 "
xsearch '(zeppelin'
ok "a query that cannot be read says why" tui_wait x "search: a ( is not closed"
check "... still the index" tui_wait_re x "^ INBOX  [0-9]+/2 "

# --- The query language: the index alone ----------------------------------------
xsearch 'subject:harbor'
ok "a query in the language: the cached mail answers alone" \
    tui_wait x '1 found in the cached mail for "subject:harbor"' 20
check "... one row, INBOX's" tui_wait x '1 found in 1 folder for "subject:harbor"'
tui_keys x q
tui_wait_re x "^ INBOX  [0-9]+/2 " >/dev/null

# --- ^C stops it ------------------------------------------------------------------
# 500 more folders: long enough a search to be stopped in the middle.
$DOVE mailbox create -u "$USER_ADDR" $(seq -f 'Box%03g' 1 500) 2>/dev/null ||
	bail "cannot create the folders"
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$(dirname "$home")" || bail "chown failed"
xsearch zeppelin
ok "a search of 507 folders (Dovecot's 5, ours 502) says how far it is on the message line" \
    tui_wait_re x 'searching 507 folders for "zeppelin"\.\.\. [0-9]+ done \(\^C stops\)' 20
tui_keys x C-c
ok "^C stops it" tui_wait x "search stopped" 20
check "... and opens no results screen" tui_wait_re x "^ INBOX  [0-9]+/2 "
tui_keys x q
ok "steedmail ends" tui_ended x

# --- LANG=C -------------------------------------------------------------------------
tui_start c env HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
    XDG_CONFIG_HOME="$H/config" LANG=C TZ=UTC "$STEEDMAIL" -F "$T_TMP/xs.conf"
tui_wait c "Weekly notes" 20 >/dev/null || bail "the index did not show (LANG=C)"
tui_keys c X
tui_wait c "Search every folder for:" >/dev/null
tui_type c zeppelin
tui_keys c Enter
ok "LANG=C: the same results" tui_wait c '3 found in 3 folders for "zeppelin"' 30
tui_capture c >"$T_TMP/found-c"
ok "... the non-ASCII name drawn with ASCII stand-ins, nothing raw" \
    sh -c "grep -q '^ *R?unions *UID [0-9]' '$T_TMP/found-c' && ! LC_ALL=C grep -q '[^ -~]' '$T_TMP/found-c'"
tui_keys c q
tui_keys c q
check "steedmail ends (LANG=C)" tui_ended c

# --- --offline: the folders the header cache holds, the index alone -----------------
tui_start o env HOME="$H" XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" \
    XDG_CONFIG_HOME="$H/config" LANG=C.UTF-8 TZ=UTC "$STEEDMAIL" --offline -F "$T_TMP/xs.conf"
tui_wait o "Weekly notes" 20 >/dev/null || bail "the index did not show (--offline)"
tui_keys o X
tui_wait o "Search every folder for:" >/dev/null
tui_type o zeppelin
tui_keys o Enter
ok "--offline: the messages opened before (INBOX's, and Archive's above), by the cached mail" \
    tui_wait o '2 found in the cached mail for "zeppelin"' 20
tui_capture o >"$T_TMP/found-o"
check "... their rows, in two folders" sh -c "grep -q 'Archive.*Old photos' '$T_TMP/found-o' &&
    grep -q 'INBOX.*Harbor lights' '$T_TMP/found-o' && grep -qF '2 found in 2 folders for' '$T_TMP/found-o'"
check "... not the never-synced folder's, whose body was never kept" sh -c "! grep -q 'unions' '$T_TMP/found-o'"
check "... under the offline: status line" tui_wait o "offline: started with --offline"
tui_keys o q
tui_keys o q
check "steedmail ends (--offline)" tui_ended o
