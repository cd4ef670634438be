# tui-query.sh: query-command in the curses interface, in tmux against the
# test Dovecot, with a small khard-like script as the address book (a line
# of text, then ADDRESS<TAB>NAME<TAB>OTHER lines; it sleeps first, as a
# slow address book would): compose's Tab completion asks it on a thread
# of its own, typing goes on meanwhile, its answer joins the candidates
# and Tab completes to it; Q lists what it answers, and Enter writes to
# the address under the cursor.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

ADDR=query-$$@steed.test
DOVE="doveadm -c $STEED_DOVECOT_CONF"
"$STEED_ENV_BIN/add-user" "$ADDR" query-pw || bail "add-user failed"
printf 'From: Carol <carol@steed.test>\nTo: %s\nSubject: query one\n\nbody\n' \
    "$ADDR" | $DOVE save -u "$ADDR" -m INBOX || bail "cannot save"

# the address book: what it was asked, then its answer after a second
cat >"$T_TMP/book" <<EOF2
#!/bin/sh
echo "\$1" >>'$T_TMP/asked'
sleep 1
echo "Searching address book... 2 found"
case "\$1" in
z*|Z*) printf 'zed@far.test\tZed Farquhar\twork\n' ;;
ann*) printf 'ann@one.test\tAnn One\thome\nann.two@two.test\tAnn Two\t\n'
	echo 'not-an-address	Bad' ;;
esac
EOF2
chmod +x "$T_TMP/book"
cat >"$T_TMP/q.conf" <<EOF2
ca-file = $STEED_CA_FILE
query-command = $T_TMP/book %s
[account q]
address = $ADDR
imap = imaps://localhost:$STEED_IMAPS_PORT
smtp = smtp://localhost:$STEED_SUBMISSION_PORT
password = query-pw
EOF2
chmod 600 "$T_TMP/q.conf"

tui_start q env LANG=C.UTF-8 VISUAL= EDITOR=true XDG_DATA_HOME="$T_TMP/data" \
    XDG_CACHE_HOME="$T_TMP/cache" TMPDIR="$T_TMP" "$STEEDMAIL" -F "$T_TMP/q.conf"
tui_wait q "query one" 30 >/dev/null || bail "the index did not open"
tui_wait q "? help" 10 >/dev/null

# --- compose: Tab ----------------------------------------------------------
tui_keys q m
ok "m: compose, asking To" tui_wait q "| compose" 10
tui_wait q "To:" 5 >/dev/null
tui_type q "ze"; tui_keys q Tab
ok "Tab with nothing known locally asks query-command" \
    tui_wait q 'asking query-command for "ze"' 5
tui_type q "d"
ok "... and typing goes on while it runs" tui_wait q "To: zed" 2
check "... the query runs with what was typed, as one word" \
    sh -c "sleep 0.5; grep -qx ze '$T_TMP/asked'"
ok "its answer joins the candidates when it comes" \
    tui_wait q "Zed Farquhar <zed@far.test>" 5
# the line says zed now: a second query, for "zed"
tui_keys q Tab
tui_wait q 'asking query-command for "zed"' 5 >/dev/null
sleep 2
tui_keys q Tab
ok "Tab completes to the address the query found" \
    tui_wait q "Zed Farquhar <zed@far.test>" 5
tui_keys q Enter
ok "... which becomes the recipient" tui_wait_re q "^ *To: *zed@far.test" 5
# then m asks for the Subject: Escape stops asking
for _ in $(seq 1 50); do
	tui_capture q | tail -1 | grep -q '^Subject:' && break
	sleep 0.1
done
tui_keys q Escape
tui_keys q q
tui_wait q "discard this message" 5 >/dev/null && tui_keys q y
tui_wait q "query one" 10 >/dev/null

# --- Q ---------------------------------------------------------------------
tui_keys q Q
ok "Q asks what to look up" tui_wait q "Query:" 5
tui_type q "ann"; tui_keys q Enter
ok "the query screen says it is looking" tui_wait q "looking up..." 5
ok "... then lists the matches, name and the third column" \
    tui_wait q "2 matches (Searching address book... 2 found)" 10
tui_capture q >"$T_TMP/qs"
ok "... each address with its name and note" \
    sh -c "grep -q 'ann@one.test.*Ann One.*home' '$T_TMP/qs' && grep -q 'ann.two@two.test.*Ann Two' '$T_TMP/qs'"
check "... and no line without an address" sh -c "! grep -q not-an-address '$T_TMP/qs'"
tui_keys q Down Enter
ok "Enter writes to the address under the cursor" \
    tui_wait_re q "To: .*ann.two@two.test" 10
tui_keys q q
tui_wait q "discard this message" 5 >/dev/null && tui_keys q y
tui_keys q q
tui_keys q q
st=$(tui_ended q 10)
ok "steedmail quits" test "$st" = 0
