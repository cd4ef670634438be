# tui-compose.sh: the compose screen in tmux at 80x24 (TERM=screen),
# against the real servers and gpg, with a scripted $EDITOR. alice (keys
# for her and bob, bob's published in DNS) writes to bob: m opens the
# editor at once, t and s fill the headers, the security line says
# "encrypt: yes", an attachment named "my report é.txt" goes along, y
# sends, and bob decrypts it with the name and the text. To an address
# without a key the line says why; with fallback = ask, answering n keeps
# the message in compose. Escape does not drop a message; Ctrl-C in the
# editor, an editor that stops itself and one that fails lose nothing; P
# postpones, encrypted; the screen reads well in LANG=C.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_ENV:-}" ] || bail "no test environment (run under tests/env/run)"
export TZ=UTC
as() { "$STEED_ENV_BIN/as" "$@"; }
AH=$STEED_ENV/home/alice
# the keys this test publishes leave with it: the next file in the same
# environment starts without them
published=
trap 'for o in $published; do "$STEED_ENV_BIN/zone-set" --delete steed.test "$o" TYPE61 >/dev/null 2>&1; done; tui_cleanup' EXIT
u=$$-$(date +%s)

arrives() {
	for _ in $(seq 1 40); do
		as bob steedmail --list INBOX 2>/dev/null | grep -qF -- "$1" && return 0
		sleep 0.5
	done
	echo "no '$1' in bob's INBOX"; return 1
}
# shown NAME FILE: the screen into FILE.
shown() { tui_capture "$1" >"$2"; }

# --- keys: both have one, bob's is published in DNS ---------------------------
as alice steedmail --genkey >"$T_TMP/ga" 2>&1 || bail "alice --genkey: $(cat "$T_TMP/ga")"
as bob steedmail --genkey >"$T_TMP/gb" 2>&1 || bail "bob --genkey: $(cat "$T_TMP/gb")"
as bob steedmail --dns-records >"$T_TMP/rec" 2>&1 || bail "bob --dns-records"
awk '!/^;/ && $4 == "TYPE61" { print $1; print $5, $6, $7; exit }' "$T_TMP/rec" >"$T_TMP/rr"
published="$published $(sed -n 1p "$T_TMP/rr")"
"$STEED_ENV_BIN/zone-set" steed.test "$(sed -n 1p "$T_TMP/rr")" TYPE61 \
    "$(sed -n 2p "$T_TMP/rr")" >"$T_TMP/zs" 2>&1 || bail "zone-set: $(cat "$T_TMP/zs")"

# --- the scripted editor ------------------------------------------------------
# It appends $T_TMP/say (if there is one) to the file, then does what
# $T_TMP/then says: wait (until killed), stop (SIGSTOP itself, then go
# on), fail (exit 3), or nothing.
cat >"$T_TMP/editor" <<EOF
#!/bin/sh
[ -f "$T_TMP/say" ] && cat "$T_TMP/say" >>"\$1"
case "\$(cat "$T_TMP/then" 2>/dev/null)" in
wait) echo \$\$ >"$T_TMP/waiting"; sleep 60 ;;
stop) kill -STOP \$\$; echo "after the stop" >>"\$1" ;;
fail) exit 3 ;;
esac
exit 0
EOF
chmod +x "$T_TMP/editor"
say() { printf '%s\n' "$1" >"$T_TMP/say"; echo "${2:-}" >"$T_TMP/then"; }

# alice's interface in LANG (C.UTF-8 unless given)
run_alice() {
	tui_start "$1" env LANG="${2:-C.UTF-8}" VISUAL= XDG_RUNTIME_DIR= EDITOR="$T_TMP/editor" \
	    TMPDIR="$T_TMP" "$STEED_ENV_BIN/as" alice steedmail
	tui_wait "$1" "sort: date" 30
}
# compose NAME: m (no to its question when drafts wait), the screen is
# compose's; its questions for To and Subject answered empty, so the
# editor opens.
compose() {
	tui_keys "$1" m
	if [ -n "$(ls "$AH/data/steedmail/drafts" 2>/dev/null)" ]; then
		tui_wait "$1" "recall one?" && tui_keys "$1" n
	fi
	tui_wait "$1" "| compose" 10 && tui_keys "$1" Enter Enter
}

say "Hello Bob $u"
run_alice c1 >/dev/null || bail "alice's index did not open"
compose c1 >/dev/null
ok "m, To and Subject left empty: compose, the editor ran and wrote the text" tui_wait c1 "Hello Bob $u"
shown c1 "$T_TMP/s1"
ok "the header rows, in order" sh -c "sed -n '2,7p' '$T_TMP/s1' | cut -c1-9 | tr -d ' ' | tr '\n' ' ' | grep -qx 'From: To: Cc: Bcc: Subject: Security: '"
ok "From is alice's account" grep -q "^From: *Alice Example <alice@steed.test>" "$T_TMP/s1"
ok "no recipient yet, and the security line says so" grep -q "^Security: (no recipient yet)" "$T_TMP/s1"
ok "the status bar names the keys" grep -q "y:send P:postpone e:edit" "$T_TMP/s1"
ok "the text file is gone after the editor" sh -c "! ls '$T_TMP'/steedmail-* >/dev/null 2>&1"

tui_keys c1 t
tui_type c1 "bob@"; tui_keys c1 Enter
ok "an address that does not read is said, the prompt stays" tui_wait c1 "not a valid address: bob@"
tui_keys c1 C-u; tui_type c1 "Bob Example <bob@steed.test>"; tui_keys c1 Enter
ok "t: To takes \"Name <addr>\", kept as the address" tui_wait c1 "To:      bob@steed.test"
tui_keys c1 s; tui_type c1 "compose $u"; tui_keys c1 Enter
ok "s: the subject" tui_wait c1 "Subject: compose $u"
ok "the security line: encrypt: yes, bob's key from DNS" tui_wait c1 "encrypt: yes" 30
ok "... with sign and the protocol" tui_wait c1 "| sign: yes | OpenPGP"
tui_gone c1 "looking up..." 30 >/dev/null

# an attachment whose name has a space and a non-ASCII letter
printf 'report of %s\n' "$u" >"$T_TMP/my report é.txt"
tui_keys c1 a; tui_wait c1 "Attach file:" >/dev/null
tui_type c1 "$T_TMP/my rep"; tui_keys c1 Tab
ok "a: Tab completes the path" tui_wait c1 "my report é.txt"
tui_keys c1 Enter
ok "the attachment is listed: index, name, type, size" eval "tui_wait c1 'Attachments (1):' && tui_capture c1 | grep -q '^ *1 my report é.txt  *text/plain  *[0-9]* bytes'"
tui_keys c1 a; tui_wait c1 "Attach file:" >/dev/null
tui_type c1 "$T_TMP/say"; tui_keys c1 Enter
tui_wait c1 "Attachments (2):" >/dev/null
tui_keys c1 N; tui_wait c1 "Shown name:" >/dev/null; tui_keys c1 C-u
tui_type c1 "notes.txt"; tui_keys c1 Enter
tui_keys c1 T; tui_wait c1 "Type:" >/dev/null; tui_keys c1 C-u
tui_type c1 "text/x-note"; tui_keys c1 Enter
ok "N and T: the second is renamed and typed" eval "tui_wait c1 'notes.txt' && tui_capture c1 | grep -q '^ *2 notes.txt  *text/x-note'"
tui_keys c1 D
ok "D: the selected one is removed" eval "tui_wait c1 'Attachments (1):' && ! tui_capture c1 | grep -q notes.txt"

tui_keys c1 Escape
ok "Escape asks before the message goes" tui_wait c1 "discard this message? (y/n)"
tui_keys c1 n
ok "... and n keeps it, all of it" eval "tui_wait c1 'Subject: compose $u' && tui_capture c1 | grep -q 'my report é.txt' && tui_capture c1 | grep -q 'Hello Bob $u'"

tui_keys c1 y
ok "y: sent, and back to the index" eval "tui_wait c1 'sent' 60 && tui_wait c1 'sort: date'"
# raw NAME: the pane's terminal is curses' again (raw, no echo): gpg may
# have had it during the send (pinentry), and keys typed before it is back
# would be read as a line.
raw() {
	_tty=$(tui_tmux display -p -t "$1" "#{pane_tty}")
	for _ in $(seq 1 100); do
		stty -a -F "$_tty" | grep -q -- '-icanon' && return 0
		sleep 0.1
	done
	echo "the terminal is still in line mode"; return 1
}
ok "after the send, the terminal is the interface's again" raw c1
# its Subject is protected: the one message from alice in bob's INBOX
arrives "Alice Example" >/dev/null
uid=$(as bob steedmail --list INBOX 2>/dev/null | awk -F '\t' '$4 == "Alice Example" { u = $1 } END { print u }')
as bob steedmail --fetch "$uid" INBOX >"$T_TMP/got.eml" 2>&1
as bob steedmail --view "$T_TMP/got.eml" >"$T_TMP/view" 2>&1
decrypts() {
	grep -q 'decrypted' "$T_TMP/view" && grep -qF "Hello Bob $u" "$T_TMP/view" &&
	    grep -qF 'my report é.txt' "$T_TMP/view" && return 0
	echo "uid $uid:"; cat "$T_TMP/view"; return 1
}
ok "bob decrypts it, with the text and the attachment" decrypts
ok "the message on the wire is encrypted" sh -c "grep -q 'BEGIN PGP MESSAGE' '$T_TMP/got.eml' && ! grep -qF 'Hello Bob $u' '$T_TMP/got.eml'"

# --- Ctrl-C, a stopped editor, a failing one: nothing is lost -------------------
# Ctrl-C on the terminal goes to its foreground process group: steedmail
# and the editor, and here also the harness's shell, which would take the
# pane with it; so steedmail is seen to ignore SIGINT while the editor
# runs, and the editor gets its SIGINT from kill.
say "before ctrl-c $u" wait
rm -f "$T_TMP/waiting"
tui_keys c1 m Enter Enter
for _ in $(seq 1 50); do [ -s "$T_TMP/waiting" ] && break; sleep 0.1; done
ed=$(cat "$T_TMP/waiting" 2>/dev/null)
sm=$(ps -o ppid= -p "${ed:-1}" | tr -d ' ')
sigign() { [ -n "$sm" ] && [ $((0x$(awk '/^SigIgn/ { print $2 }' /proc/"$sm"/status) & 2)) -ne 0 ]; }
ok "while the editor runs, steedmail ignores SIGINT" sigign
kill -INT $(pgrep -P "$ed") "$ed"
ok "the editor killed by SIGINT: steedmail stays, in compose" tui_wait c1 "| compose"
ok "... and the text written before it is kept" tui_wait c1 "before ctrl-c $u"
say "stopped $u" stop
tui_keys c1 e
ok "an editor that stops itself is continued, not waited on for ever" tui_wait c1 "after the stop"
ok "... the text of both runs is there" eval "tui_capture c1 | grep -q 'before ctrl-c $u' && tui_capture c1 | grep -q 'stopped $u'"
say "failed $u" fail
tui_keys c1 e
ok "an editor that fails: its status, the text kept" tui_wait c1 "the editor failed (status 3); the text is kept"
ok "... with what it wrote" tui_wait c1 "failed $u"
say "" ""
tui_keys c1 C-z
ok "Ctrl-Z on the screen: still there afterwards" tui_wait c1 "failed $u"

# --- postpone: encrypted to alice, since bob has a key ----------------------------
tui_keys c1 t; tui_type c1 "bob@steed.test"; tui_keys c1 Enter
tui_keys c1 s; tui_type c1 "postponed $u"; tui_keys c1 Enter
tui_wait c1 "Subject: postponed $u" >/dev/null
ndrafts() { ls "$AH/data/steedmail/drafts" 2>/dev/null | wc -l; }
before=$(ndrafts)
tui_keys c1 P
ok "P: postponed, encrypted, and back to the index" eval "tui_wait c1 'postponed (encrypted)' 30 && tui_wait c1 'sort: date'"
ok "a draft file more in alice's drafts" sh -c "[ \$(ls '$AH/data/steedmail/drafts' | wc -l) -eq $((before + 1)) ]"
tui_keys c1 q
tui_ended c1 20 >/dev/null

# --- no key, and fallback = ask ------------------------------------------------
say "to nobody $u" ""
sed -i '1i fallback = ask' "$AH/config/steedmail/config"
run_alice c2 >/dev/null
compose c2 >/dev/null
printf 'alias team Team <bob@steed.test>, ccuser@steed.test\nalias teachers <t@steed.test>\n' >"$AH/config/steedmail/aliases"
tui_keys c2 t; tui_type c2 "tea"; tui_keys c2 Tab
candidates() { tui_capture c2 | sed -n 23p | grep -q "team" && tui_capture c2 | sed -n 23p | grep -q "teachers"; }
ok "Tab with several candidates names them above the prompt" eval "tui_wait c2 'teachers' && candidates"
tui_type c2 "m"; tui_keys c2 Tab
ok "Tab completes an alias" tui_wait c2 "To: team"
tui_keys c2 Enter
ok "... which becomes its addresses when accepted" tui_wait c2 "To:      bob@steed.test, ccuser@steed.test"
tui_keys c2 t C-u
tui_type c2 "nokey@steed.test"; tui_keys c2 Enter
ok "no key: the line names the address and why" eval "tui_wait c2 'nokey@steed.test: no key' 30"
tui_gone c2 "looking up..." 30 >/dev/null
tui_keys c2 y
ok "fallback = ask: sending asks, naming the address" tui_wait c2 "no key for nokey@steed.test: send in clear? (y/n)"
tui_keys c2 n
ok "n: not sent, still in compose with everything" eval "tui_wait c2 'not sent; the message is kept' && tui_capture c2 | grep -q 'To:      nokey@steed.test' && tui_capture c2 | grep -q 'to nobody $u'"
tui_keys c2 q; tui_wait c2 "discard this message?" >/dev/null; tui_keys c2 y
tui_keys c2 q
tui_ended c2 20 >/dev/null
sed -i '1d' "$AH/config/steedmail/config"

# --- a reply to encrypted mail that cannot be encrypted --------------------------
# bob writes to alice encrypted; her reply gets a Cc without a key (ccuser
# has a mailbox, no key): it must be encrypted and cannot, so sending asks
# to go in clear without the quote, and bob gets it so.
"$STEED_ENV_BIN/add-user" ccuser@steed.test ccuser-pw >/dev/null 2>&1 || bail "add-user ccuser"
as alice steedmail --dns-records >"$T_TMP/reca" 2>&1 || bail "alice --dns-records"
awk '!/^;/ && $4 == "TYPE61" { print $1; print $5, $6, $7; exit }' "$T_TMP/reca" >"$T_TMP/rra"
published="$published $(sed -n 1p "$T_TMP/rra")"
"$STEED_ENV_BIN/zone-set" steed.test "$(sed -n 1p "$T_TMP/rra")" TYPE61 \
    "$(sed -n 2p "$T_TMP/rra")" >"$T_TMP/zs" 2>&1 || bail "zone-set: $(cat "$T_TMP/zs")"
echo "the secret plan $u" | as bob steedmail -s "secret $u" --encrypt alice@steed.test >"$T_TMP/bs" 2>&1 ||
	bail "bob's encrypted mail: $(cat "$T_TMP/bs")"
say "my answer $u" ""
run_alice c4 >/dev/null
tui_wait c4 "Bob Example" 30 >/dev/null
tui_keys c4 r
ok "r on bob's encrypted mail: compose, with his text quoted" eval "tui_wait c4 '| compose' 30 && tui_wait c4 '> the secret plan $u' && tui_wait c4 'my answer $u'"
ok "... the reply is encrypted" tui_wait c4 "encrypt: yes" 30
tui_keys c4 c; tui_type c4 "ccuser@steed.test"; tui_keys c4 Enter
ok "a Cc without a key: the line says it cannot go, and why" eval "tui_wait c4 'ccuser@steed.test: no key' 30 && tui_wait c4 'not sent' 30"
tui_gone c4 "looking up..." 30 >/dev/null
tui_keys c4 y
ok "y asks to send in clear without the quote" tui_wait c4 "cannot encrypt to ccuser@steed.test: send in clear WITHOUT the quote? (y/n)"
tui_keys c4 n
ok "n: not sent, the quote still there" eval "tui_wait c4 'not sent; the message is kept' && tui_capture c4 | grep -qF '> the secret plan $u'"
tui_keys c4 y
tui_wait c4 "WITHOUT the quote?" >/dev/null
tui_keys c4 y
ok "y: sent, back to the index" eval "tui_wait c4 'sent' 60 && tui_wait c4 'Bob Example'"
for _ in $(seq 1 40); do
	uid=$(as bob steedmail --list INBOX 2>/dev/null | awk -F '\t' -v s="Re: secret $u" 'index($0, s) { print $1; exit }')
	[ -n "$uid" ] && break; sleep 0.5
done
as bob steedmail --fetch "${uid:-0}" INBOX >"$T_TMP/re.eml" 2>&1
noquote() {
	grep -qF "my answer $u" "$T_TMP/re.eml" && ! grep -q 'PGP MESSAGE' "$T_TMP/re.eml" &&
	    ! grep -qF "secret plan" "$T_TMP/re.eml" && ! grep -q 'wrote:' "$T_TMP/re.eml" && return 0
	echo "uid ${uid:-none}:"; cat "$T_TMP/re.eml"; return 1
}
ok "bob gets it in clear, with the answer and without a word of the quote" noquote
tui_keys c4 q
tui_ended c4 20 >/dev/null

# --- LANG=C: every row readable ------------------------------------------------
say "plain $u" ""
run_alice c3 C >/dev/null
compose c3 >/dev/null
tui_keys c3 t; tui_type c3 "bob@steed.test, nokey@steed.test"; tui_keys c3 Enter
tui_keys c3 a; tui_type c3 "$T_TMP/my report"; tui_keys c3 Tab Enter
tui_wait c3 "Attachments (1):" >/dev/null
shown c3 "$T_TMP/s3"
ok "LANG=C: the headers and the text" sh -c "grep -q '^To: *bob@steed.test, nokey@steed.test' '$T_TMP/s3' && grep -q 'plain $u' '$T_TMP/s3'"
ok "LANG=C: the attachment's name, its letter shown as a placeholder" grep -q '^ *1 my report .*txt  *text/plain' "$T_TMP/s3"
ok "LANG=C: nothing but printable ASCII on the screen" sh -c "! LC_ALL=C grep -q '[^ -~]' '$T_TMP/s3'"
tui_keys c3 q; tui_wait c3 "discard this message?" >/dev/null; tui_keys c3 y
tui_keys c3 q
tui_ended c3 20 >/dev/null

# --- m as mutt asks: To, the security line, Subject, then the editor ---------
say "asked first $u" ""
run_alice c5 >/dev/null
tui_keys c5 m
if [ -n "$(ls "$AH/data/steedmail/drafts" 2>/dev/null)" ]; then
	tui_wait c5 "recall one?" >/dev/null && tui_keys c5 n
fi
# asking NAME WORD: the message line (the last row) asks for WORD
asking() {
	for _ in $(seq 1 100); do
		tui_capture "$1" | tail -1 | grep -q "^$2:" && return 0
		sleep 0.1
	done
	tui_capture "$1" | tail -2 >&2; return 1
}
ok "m asks for To first, on the compose screen" asking c5 To
tui_capture c5 >"$T_TMP/s4"
ok "... and the editor has not run yet" sh -c "! grep -q 'asked first $u' '$T_TMP/s4'"
tui_type c5 "bob@steed.test"; tui_keys c5 Enter
ok "To answered: the security line says encrypt, before Subject is asked" \
    tui_wait c5 "encrypt: yes" 30
tui_capture c5 >"$T_TMP/s5"
ok "... and the text is still not written" sh -c "! grep -q 'asked first $u' '$T_TMP/s5'"
ok "then Subject is asked" asking c5 Subject
tui_type c5 "asked $u"; tui_keys c5 Enter
ok "then the editor runs and writes the text" tui_wait c5 "asked first $u" 20
tui_capture c5 >"$T_TMP/s7"
ok "... To and Subject are the answers" sh -c "grep -q '^To: *bob@steed.test' '$T_TMP/s7' && grep -q '^Subject: asked $u' '$T_TMP/s7'"
tui_keys c5 q; tui_wait c5 "discard this message?" >/dev/null; tui_keys c5 y
tui_wait c5 "sort: date" >/dev/null
# Escape at To: nothing more is asked, the compose screen stays
tui_keys c5 m
if [ -n "$(ls "$AH/data/steedmail/drafts" 2>/dev/null)" ]; then
	tui_wait c5 "recall one?" >/dev/null && tui_keys c5 n
fi
tui_wait c5 "| compose" 10 >/dev/null
tui_keys c5 Escape
sleep 1
tui_capture c5 >"$T_TMP/s6"
ok "Escape at To: the compose screen stays, and no editor ran" sh -c "grep -q 'y:send P:postpone' '$T_TMP/s6' && ! grep -q 'asked first $u' '$T_TMP/s6'"
tui_keys c5 q; tui_wait c5 "discard this message?" >/dev/null; tui_keys c5 y
tui_keys c5 q
tui_ended c5 20 >/dev/null
# --- many recipients at 80 columns: every row broken after a word ------------
# Five recipients, four without a key, long addresses: the To field, the
# security line and each recipient's row go on below themselves, and
# every address and every "why" is read whole (no word is cut at the
# edge), in UTF-8 and in LANG=C.
long="bob@steed.test, carol.has.a.rather.long.address@plain.test, wren@broken.test, erin.somebody@steed.test, Frank Longname <frank.longname.again@plain.test>"
for lang in C.UTF-8 C; do
	n=w$(echo "$lang" | tr -dc 'A-Z0-9')
	run_alice "$n" "$lang" >/dev/null || bail "alice's index did not open ($lang)"
	tui_keys "$n" m
	if [ -n "$(ls "$AH/data/steedmail/drafts" 2>/dev/null)" ]; then
		tui_wait "$n" "recall one?" >/dev/null && tui_keys "$n" n
	fi
	tui_wait "$n" "| compose" 10 >/dev/null
	tui_type "$n" "$long"; tui_keys "$n" Enter
	tui_wait "$n" "frank.longname.again@plain.test: no key" 30 >/dev/null
	tui_gone "$n" "looking up..." 30 >/dev/null
	tui_capture "$n" >"$T_TMP/wide-$n"
	whole=yes
	for a in carol.has.a.rather.long.address@plain.test wren@broken.test \
	    erin.somebody@steed.test frank.longname.again@plain.test; do
		[ "$(grep -c "^ *$a: no key (looked up: DNS" "$T_TMP/wide-$n")" = 1 ] || whole="no: $a"
	done
	ok "$lang: each recipient without a key has its own row, the address whole" sh -c "[ '$whole' = yes ] || { echo '$whole'; cat '$T_TMP/wide-$n'; false; }"
	ok "$lang: what a row does not hold goes on below it, after a word" sh -c "grep -qx '  *none, no Autocrypt seen)' '$T_TMP/wide-$n' && grep -qx '  *Autocrypt seen)' '$T_TMP/wide-$n' || { cat '$T_TMP/wide-$n'; false; }"
	ok "$lang: the security line names every recipient without a key, each whole" sh -c "sed -n '/^Security:/,/sign: yes/p' '$T_TMP/wide-$n' | tr -s ' \n' ' ' | grep -q 'no key for carol.has.a.rather.long.address@plain.test, wren@broken.test, erin.somebody@steed.test, frank.longname.again@plain.test' || { cat '$T_TMP/wide-$n'; false; }"
	ok "$lang: the To field goes on a second row, ending at a word" sh -c "grep -q '^To: *bob@steed.test, carol.has.a.rather.long.address@plain.test,\$' '$T_TMP/wide-$n' && grep -Eq '^ +wren@broken.test, erin.somebody@steed.test, (…|\\.\\.\\.)\$' '$T_TMP/wide-$n' || { cat '$T_TMP/wide-$n'; false; }"
	tui_keys "$n" Escape; sleep 0.3
	tui_keys "$n" q; tui_wait "$n" "discard this message?" >/dev/null; tui_keys "$n" y
	tui_wait "$n" "sort: date" >/dev/null
	tui_keys "$n" q
	tui_ended "$n" 20 >/dev/null
done
exit 0
