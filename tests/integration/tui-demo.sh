# tui-demo.sh: the demo's mailbox (contrib/demo-fill) in the curses
# interface, as alice sees it on her first run, at 80x24 in tmux: the
# security and trust marks of the index (first contact, known, key
# changed, bogus DNS answer, confirmed by DNSSEC, encrypted, signed), in
# UTF-8 and in ASCII; an encrypted message opened in the pager, with its
# banner and the bars around its decrypted content; every message in the
# pager, its From line with the sender's address.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_ENV:-}" ] || bail "no test environment (run under tests/env/run)"
contrib/demo-fill >"$T_TMP/fill" 2>&1 || { cat "$T_TMP/fill"; bail "demo-fill failed"; }
export TZ=UTC

tui_start u env LANG=C.UTF-8 "$STEED_ENV_BIN/as" alice steedmail
ok "the demo's INBOX opens" tui_wait u "Archive room access" 30
# the marks come with the trust step, just after the headers
ok "the trust step's marks arrive by themselves" tui_wait u "◆● " 60
tui_wait u "◆✦ " 60 >/dev/null; tui_wait u "? help" 30 >/dev/null
tui_capture u >"$T_TMP/ix"
check "carol's first signed message: signed, first contact" sh -c "grep -F 'Hello from the archive team' '$T_TMP/ix' | head -1 | grep -q '◇☆'"
check "carol's next one: known key" sh -c "grep -F 'Re: Hello from the archive team' '$T_TMP/ix' | grep -q '◇●'"
check "carol's encrypted one: encrypted, known" sh -c "grep -F 'Archive room access' '$T_TMP/ix' | grep -q '◆●'"
check "dave's second key: key changed" sh -c "grep -F 'New bank details' '$T_TMP/ix' | grep -q '◇≠'"
check "erin at broken.test: the DNS answer was bogus" sh -c "grep -F 'My key is in DNS' '$T_TMP/ix' | grep -q '◇☠'"
check "bob's answer: encrypted, key confirmed by DNSSEC" sh -c "grep -F 'Bob Example' '$T_TMP/ix' | grep -q '◆✦'"
check "mallory's display name is shown as his address" sh -c "grep -F 'Quick favour' '$T_TMP/ix' | grep -q 'mallory@plain.test'"
check "the escape-sequence message leaves the screen whole" sh -c "head -1 '$T_TMP/ix' | grep -q '^ steedmail | alice@steed.test | INBOX' && sed -n 23p '$T_TMP/ix' | grep -q '^ INBOX '"

tui_keys u /; tui_wait u "Search for:" >/dev/null; tui_type u "Archive room"; tui_keys u Enter
tui_keys u Enter
ok "the encrypted message opens in the pager" tui_wait u "main door" 30
tui_capture u >"$T_TMP/pg"
ok "... under one line that says it is encrypted and by whom it is signed" grep -q '^encrypted, signed by carol@steed.test; ' "$T_TMP/pg"
ok "... with the margin of decrypted content beside its text" grep -q '^▌ .*main door' "$T_TMP/pg"
tui_keys u S
ok "S: the details, with a bar where the decrypted content begins" tui_wait u '==[' 10
tui_keys u q
ok "q goes back to the index" tui_wait u "sort: date"

# One word for each state, wherever it is shown: the pager's security line
# and status bar, the sender's key screen (K), --inspect and --trust show.
A() { "$STEED_ENV_BIN/as" alice steedmail "$@"; }
A --list >"$T_TMP/list" 2>/dev/null
same_word() {
	subj=$1 word=$2 addr=$3 f=$T_TMP/w.$4
	tui_keys u /; tui_wait u "Search for:" >/dev/null
	tui_type u "$subj"; tui_keys u Enter Enter
	tui_wait u "INBOX: message" 20 >/dev/null
	tui_wait u " | $word | " 10 >/dev/null
	tui_capture u >"$f.pager"
	tui_keys u K
	tui_wait u " $word: " 20 >/dev/null
	tui_capture u >"$f.key"
	tui_keys u q; tui_wait u "INBOX: message" 10 >/dev/null
	tui_keys u q; tui_wait u "sort: date" 10 >/dev/null
	uid=$(awk -F '\t' -v s="$subj" '$5 == s { print $1; exit }' "$T_TMP/list")
	A --fetch "$uid" 2>/dev/null | A --inspect - >"$f.inspect" 2>&1
	A --trust show "$addr" >"$f.show" 2>&1
	grep -q "; $word\$" "$f.pager" &&
	    sed -n 23p "$f.pager" | grep -qF " | $word | " &&
	    sed -n 2p "$f.key" | grep -qF " $word: " &&
	    grep -qx "trust.word: $word" "$f.inspect" &&
	    grep -q "^verdict.line: .*; $word\$" "$f.inspect" &&
	    grep -qx "shown as: $word" "$f.show" ||
	    { head -9 "$f.pager"; sed -n 2p "$f.key"; grep word "$f.inspect";
	      grep shown "$f.show"; false; }
}
ok "carol's second message: known key, in every screen and command" \
    same_word "Re: Hello from the archive team" "known key" carol@steed.test carol
ok "dave's new key: key changed, in every screen and command" \
    same_word "New bank details for invoice 2026-114" "key changed" dave@steed.test dave
ok "bob's answer: key confirmed by DNSSEC, in every screen and command" \
    same_word "Re: Hello from Alice" "key confirmed by DNSSEC" bob@steed.test bob
ok "... and dave's one warning line under it" \
    grep -q '^warning: not the key known for this sender' "$T_TMP/w.dave.pager"
ok "... and bob's message starts within the first 9 rows" \
    sh -c "sed -n 8,9p '$T_TMP/w.bob.pager' | grep -q '^▌ Hello Alice'"
tui_keys u /; tui_wait u "Search for:" >/dev/null
tui_type u "My key is in DNS"; tui_keys u Enter Enter
ok "erin: signed, not checked, with the bogus DNS answer, never unsigned" \
    tui_wait u "signed, not checked: the key is not known yet; bogus DNS answer for broken.test" 20
tui_capture u >"$T_TMP/w.erin"
ok "... nor NOT good" sh -c "! grep -Eq 'NOT good|unsigned' '$T_TMP/w.erin'"
ok "... the status bar in the same words" \
    sh -c "sed -n 23p '$T_TMP/w.erin' | grep -qF 'signed, not checked | bogus DNS answer |'"
tui_keys u q; tui_wait u "sort: date" 10 >/dev/null

# Every message of the demo, newest first (k in the pager): its From line
# shows the sender's address, whole, or says it has none.
tui_keys u End
tui_keys u Enter
tui_wait u "INBOX: message" 30 >/dev/null
n=0 bad=
: >"$T_TMP/froms"
while [ $n -lt 100 ]; do
	tui_capture u >"$T_TMP/one"
	title=$(sed -n 1p "$T_TMP/one")
	from=$(grep -m1 '^  From: ' "$T_TMP/one")
	echo "$title | $from" >>"$T_TMP/froms"
	echo "$from" | grep -Eq '(<[^ <>]+@[^ <>]+>|^  From: [^ <>"]+@[^ <>]+|\(no address\))$' ||
	    bad="$bad; $title: $from"
	n=$((n + 1))
	tui_keys u k
	# until another message is drawn whole: a capture may catch the
	# screen between its clearing and its drawing
	new=$title
	for _ in $(seq 1 50); do
		sleep 0.1
		tui_capture u >"$T_TMP/next"
		new=$(sed -n 1p "$T_TMP/next")
		[ "$new" != "$title" ] && [ -n "$new" ] &&
		    grep -q '^  From: ' "$T_TMP/next" && break
		new=$title
	done
	[ "$new" = "$title" ] && break	# the first message
done
diag "the pager showed the From of $n messages"
ok "the pager shows the address of every message of the demo${bad:+:$bad}" \
    sh -c "[ $n -ge 10 ] && [ -z '$(echo "$bad" | tr -d "'")' ]"
tui_keys u q
tui_wait u "sort: date" >/dev/null
tui_keys u q
st=$(tui_ended u 10)
check "q in the index quits with status 0" [ "$st" = 0 ]
tui_stop u

tui_start c env LANG=C "$STEED_ENV_BIN/as" alice steedmail
ok "LANG=C: the index" tui_wait c "Archive room access" 30
tui_capture c >"$T_TMP/ixc"
check "LANG=C: first contact, key changed, bogus, DNSSEC in ASCII" sh -c "
	grep -F 'Hello from the archive team' '$T_TMP/ixc' | head -1 | grep -q ' Sf ' &&
	grep -F 'New bank details' '$T_TMP/ixc' | grep -q ' SC ' &&
	grep -F 'My key is in DNS' '$T_TMP/ixc' | grep -q ' SB ' &&
	grep -F 'Bob Example' '$T_TMP/ixc' | grep -q ' ED '"
# the same words in ASCII: dave's new key, in the line and the status bar
tui_keys c /; tui_wait c "Search for:" >/dev/null
tui_type c "New bank details"; tui_keys c Enter Enter
ok "LANG=C: dave's message says key changed, as in UTF-8" \
    tui_wait c "signed by dave@steed.test; key changed" 20
tui_capture c >"$T_TMP/davec"
ok "LANG=C: ... its warning, and the status bar in the same words" sh -c "
	grep -q '^warning: not the key known for this sender' '$T_TMP/davec' &&
	sed -n 23p '$T_TMP/davec' | grep -q '^S signed | key changed | '"
tui_keys c q; tui_wait c "sort: date" 10 >/dev/null
tui_keys c q
tui_ended c >/dev/null
