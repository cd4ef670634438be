# demo.sh: the README's first command, contrib/demo, does what it says:
# its own servers; alice and bob with keys made and published in DNS
# without a question; alice's INBOX filled (contrib/demo-fill) so that her
# first sync gives every state the demo is there to show (first contact,
# known, key changed, a bogus DNS answer, encrypted and decrypted, escape
# sequences made harmless); the curses interface opens on it, bob joins
# from a second terminal, and q ends it all with no server left behind.
. "$(dirname "$0")/../lib.sh"

D=$T_TMP/d
mkdir -p "$D"
export D
# In the demo: alice's first sync, her list, each message viewed and
# inspected, her trust store, a lookup, bob's list and view.
contrib/demo -- sh -c '
	echo "envdir $STEED_ENV"
	alice --sync >"$D/sync" 2>&1
	alice --list >"$D/list"
	alice --list --sort thread >"$D/thread"
	while IFS="	" read -r uid _; do
		alice --fetch "$uid" >"$D/m.$uid" &&
		alice --view "$D/m.$uid" >"$D/v.$uid" 2>&1 &&
		alice --inspect "$D/m.$uid" >"$D/i.$uid" 2>&1
	done <"$D/list"
	alice --trust list >"$D/trust"
	alice --lookup erin@broken.test >"$D/lookup" 2>&1
	bob --list >"$D/bob.list"
	uid=$(cut -f1 "$D/bob.list" | tail -1)
	bob --fetch "$uid" | bob --view - >"$D/bob.view" 2>&1
	echo "homes $(ls "$STEED_ENV/home" | tr "\n" " ")"
	as alice gpg --list-secret-keys --with-colons | grep "^uid" >"$D/alice.keys"
	as bob gpg --list-secret-keys --with-colons | grep "^uid" >"$D/bob.keys"
' >"$T_TMP/demo.out" 2>&1
rc=$?
out=$T_TMP/demo.out
ok "contrib/demo -- CMD: exit 0" sh -c "[ $rc = 0 ] || { cat '$out'; false; }"
ok "both keys made and published" sh -c "grep -c 'published in DNS (signed zone)' '$out' | grep -qx 2"
ok "alice's first message is encrypted without a question" grep -q '^demo: alice -> bob: steedmail: encrypted to 1 recipient' "$out"
ok "and bob's answer too" grep -q '^demo: bob -> alice: steedmail: encrypted to 1 recipient' "$out"
ok "alice and bob have homes of their own" grep -qx 'homes alice bob ' "$out"
ok "gpg in each home sees that one's secret key, and no other" sh -c "
	[ \$(wc -l <'$D/alice.keys') = 1 ] && grep -q '<alice@steed.test>' '$D/alice.keys' &&
	[ \$(wc -l <'$D/bob.keys') = 1 ] && grep -q '<bob@steed.test>' '$D/bob.keys'"

# uid SUBJECT: the UID of alice's message with this subject.
uid() { awk -F '\t' -v s="$1" '$5 == s { print $1; exit }' "$D/list"; }
# state SUBJECT: its trust.state, as --inspect gives it.
state() { sed -n 's/^trust\.state: //p' "$D/i.$(uid "$1")"; }
is() { [ "$1" = "$2" ] || { echo "got '$1', want '$2'"; false; }; }

ok "alice's first sync finds her mail: 16 from her correspondents and bob's answer" \
	grep -q 'INBOX: 17 new' "$D/sync"
ok "... and its trust step reads the signed and encrypted ones" \
	grep -q 'INBOX: trust: [1-9][0-9]* messages processed' "$D/sync"
ok "the list has every message" sh -c "[ \$(wc -l <'$D/list') = 17 ]"
ok "the dates are spread over the days before" sh -c "[ \$(cut -f3 '$D/list' | cut -c1-10 | sort -u | wc -l) -ge 8 ]"
ok "a plain message: not signed, not encrypted" grep -q 'security: not signed, not encrypted' "$D/v.$(uid 'Lunch on Thursday?')"
ok "carol's first signed message: first contact" is "$(state 'Hello from the archive team')" first-contact
ok "carol's second: known" is "$(state 'Re: Hello from the archive team')" known
ok "dave's first message: first contact" is "$(state 'Invoice 2026-114')" first-contact
ok "dave's second, signed by a new key: key-changed" is "$(state 'New bank details for invoice 2026-114')" key-changed
ok "... which --view shows with a warning" grep -q 'trust: key-changed, key .* WARNING' "$D/v.$(uid 'New bank details for invoice 2026-114')"
ok "alice's trust store: dave key-changed, carol known, bob confirmed by DNSSEC" sh -c "
	grep -q '^dave@steed.test	key-changed	' '$D/trust' && grep -q '^carol@steed.test	known	' '$D/trust' &&
	grep -q '^bob@steed.test	dns-confirmed	' '$D/trust'"
ok "erin's message is signed by a key alice cannot have: unsigned" is "$(state 'My key is in DNS')" unsigned
ok "... because the DNS answer for erin's key is bogus" grep -q '^erin@broken.test	OPENPGPKEY	bogus (possible attack' "$D/lookup"
ok "carol's encrypted message is decrypted and signed" sh -c "f='$D/i.$(uid 'Archive room access')'; grep -qx 'encryption: openpgp' \$f && grep -qx 'decrypted: yes' \$f && grep -qx 'signed: yes' \$f"
ok "... and shows its text" grep -q 'main door' "$D/v.$(uid 'Archive room access')"
b=$(awk -F '\t' '$4 == "Bob Example" { print $1 }' "$D/list")
ok "bob's answer: encrypted and decrypted, signed by bob" grep -q 'security: encrypted (OpenPGP) and decrypted; signed by bob@steed.test' "$D/v.$b"
ok "... its key confirmed by DNSSEC" grep -q '^trust.state: dns-confirmed' "$D/i.$b"
ok "... its protected subject shown, and its text" sh -c "grep -qx 'Subject: Re: Hello from Alice' '$D/v.$b' && grep -q 'it works both ways' '$D/v.$b'"
ok "bob reads alice's message decrypted and signed: his sync found her key in DNS" sh -c "grep -q 'security: encrypted (OpenPGP) and decrypted; signed by alice@steed.test' '$D/bob.view' && grep -q 'trust: dns-confirmed' '$D/bob.view' && grep -q 'nobody asked me about keys' '$D/bob.view'"
ok "five messages in one thread, in order" sh -c "[ \$(grep -c 'Spring release: what is left?' '$D/thread') = 5 ] &&
	grep -n 'Spring release' '$D/thread' | cut -d: -f1 | awk 'NR > 1 && \$1 != p + 1 { exit 1 } { p = \$1 }'"
a=$(uid 'Budget and the files you asked for')
ok "attachments: a name with spaces and accents, decoded" grep -q '"Année 2026 – budget final.pdf"' "$D/v.$a"
ok "... a hostile path shown as a name only" grep -q '"../../etc/passwd"' "$D/v.$a"
ok "... control characters in a name shown escaped" grep -q 'notes^\[\[2J' "$D/v.$a"
h=$D/v.$(uid 'December at the library')
ok "an HTML-only message is shown as text, marked so" sh -c "grep -q 'note: HTML shown as text' '$h' && grep -q 'winter reading club' '$h'"
check "... no tag of it left, its link listed, not followed" sh -c "! sed -n '/HTML shown as text/,\$p' '$h' | grep -q '<[a-zA-Z/]' && grep -q '^\[1\] https://example.org/events' '$h'"
ok "a display name that looks like bob shows mallory's address" grep -qx 'From: "bob@steed.test" <mallory@plain.test>' "$D/v.$(uid 'Quick favour')"
e=$(awk -F '\t' '$5 ~ /Your account/ { print $1 }' "$D/list")
ok "the escape-sequence message is there" test -n "$e"
ok "... --list shows its sender's address, not a name full of escapes" \
    sh -c "awk -F '\t' '\$1 == $e { print \$4 }' '$D/list' | grep -qx 'security@plain.test'"
ok "a display name that looks like bob: --list shows mallory's address" \
    sh -c "awk -F '\t' '\$5 == \"Quick favour\" { print \$4 }' '$D/list' | grep -qx 'mallory@plain.test'"
ok "its subject, name and body reach --view with no ESC, BEL, BS or CR byte" sh -c "
	grep -q 'Your mailbox is full' '$D/v.$e' && ! grep -q \$(printf '[\\033\\007\\010\\r]') '$D/v.$e'"
ok "... and --list shows them escaped too" sh -c "! grep -q \$(printf '[\\033\\007\\010\\r]') '$D/list'"
ok "every --view of the mailbox is free of ESC bytes" sh -c "! cat '$D'/v.* | grep -q \$(printf '\\033')"

envdir=$(sed -n 's/^envdir //p' "$out")
gone() { [ -n "$1" ] && [ ! -e "$1" ] && ! pgrep -f -- "$1" >/dev/null; }
ok "the demo's servers are gone and its directory removed" gone "$envdir"
RF=$T_TMP/runfile
ok "contrib/demo bob with no demo running says so" sh -c "
	STEED_DEMO_RUNFILE='$RF' contrib/demo bob >'$T_TMP/nodemo' 2>&1; [ \$? = 1 ] &&
	grep -qx 'demo: no demo is running (start one with: contrib/demo)' '$T_TMP/nodemo'"

# The demo itself, in a terminal: steedmail's curses interface as alice,
# on her INBOX; bob joins from a second terminal; q ends each, and the
# first q stops every server of the demo.
. tests/lib-tui.sh
TUI_COLS=100 TUI_LINES=30
# rows NAME TEXT...: the screen of NAME shows every TEXT (within 30 s).
rows() {
	_r=$1; shift
	for _t; do tui_wait "$_r" "$_t" 30 || return 1; done
}
# ended NAME STATUS: NAME's command has exited (within 30 s) with STATUS.
ended() {
	_st=$(tui_ended "$1" 30) && [ "$_st" = "$2" ] ||
		{ echo "status '$_st'"; tui_stderr "$1"; false; }
}
# opened NAME TEXT: NAME's screen shows TEXT within 120 s; else what the
# demo said on standard error.
opened() { tui_wait "$1" "$2" 120 || { tui_stderr "$1"; false; }; }
left() {
	[ -n "$1" ] && [ ! -e "$1" ] && [ ! -e "$RF" ] || { ls -d "$1" "$RF"; return 1; }
	! pgrep -a -f -- "$1"
}

tui_start demo env STEED_DEMO_RUNFILE="$RF" "$PWD/contrib/demo"
ok "contrib/demo opens steedmail as alice, on her INBOX" opened demo 'alice@steed.test | INBOX'
ok "... with the rows of her mail" rows demo 'Lunch on Thursday?' \
	'Hello from the archive team' 'New bank details for invoice 2026-114' \
	'My key is in DNS' 'Archive room access' 'Bob Example'
ok "... the lookalike sender shown by its real address" sh -c "tmux -S '$TUI_SOCK' capture-pane -p -t demo | grep -q 'mallory@plain.test *Quick favour'"
ok "... and the escape sequences neither cleared nor moved the screen" sh -c "tmux -S '$TUI_SOCK' capture-pane -p -t demo | head -1 | grep -q 'steedmail | alice@steed.test | INBOX'"
envdir=$(head -n 1 "$RF" 2>/dev/null)
ok "the demo says where it runs, for contrib/demo bob" test -f "$envdir/.steed-env"
tui_start bob env STEED_DEMO_RUNFILE="$RF" "$PWD/contrib/demo" bob
ok "contrib/demo bob joins it: steedmail as bob, on his INBOX" opened bob 'bob@steed.test | INBOX'
ok "... where alice's message is" tui_wait bob 'Alice Example' 30
tui_keys bob q
ok "q ends bob's steedmail (exit 0)" ended bob 0
ok "... and the demo runs on" rows demo 'alice@steed.test | INBOX'
tui_keys demo q
ok "q in alice's index ends the demo (exit 0)" ended demo 0
ok "no process of the demo is left (servers, agents), its directory and run file are gone" left "$envdir"
