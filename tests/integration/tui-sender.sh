# tui-sender.sh: who sent a message, and what its signature covers, as
# the curses interface shows them (issue 24, "Johnny, You Are Fired"), in
# tmux at 80x24 with TERM=screen and LANG=C, against the test servers.
# bob's INBOX holds a From whose display name is padded with 3000 blanks,
# one made of an encoded word that decodes to "Alice <alice@steed.test>",
# one whose name is another address, one whose name turns text around,
# and messages signed by real gpg (tests/crypto/gen.sh) with a part no
# signature covers in each place it can sit, and one signature dated
# years ahead. The index shows the real address (or "no address"), the
# pager's From line the address whole with steedmail's warning under it,
# a bar above each part no signature covers, and the date of the
# signature that does not count.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
command -v gpg >/dev/null 2>&1 || bail "gpg is needed"
export LANG=C LC_ALL=C TZ=UTC

bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$STEED_ENV/bob.conf" "$@"; }
GEN=$T_TMP/gen
BH=$T_TMP/bob/steedmail/gnupg
trap 'for h in "$GEN"/homes/* "$GEN/sm" "$BH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT

start() {
	tui_start "$1" env XDG_DATA_HOME="$T_TMP/bob" \
	    XDG_CACHE_HOME="$T_TMP/bob-c" HOME="$HOME" \
	    "$PWD/steedmail" -F "$STEED_ENV/bob.conf"
}
# open NAME TEXT: find the message whose line shows TEXT, open it.
open_msg() {
	tui_keys "$1" /
	tui_type "$1" "$2"
	tui_keys "$1" Enter
	sleep 0.3
	tui_keys "$1" Enter
}
# whole NAME FILE: the pager's rows, every page of the message, in FILE.
whole() {
	tui_capture "$1" >"$2"
	for _ in 1 2 3; do
		tui_keys "$1" PageDown
		sleep 0.3
		tui_capture "$1" >>"$2"
	done
}
# row NAME TEXT: the index's row that shows TEXT.
row() { tui_capture "$1" | grep -F -- "$2"; }

# --- Mail for bob -----------------------------------------------------------
DOVE="doveadm -c $STEED_DOVECOT_CONF"
home=$($DOVE user -f home "$STEED_BOB") && [ -n "$home" ] || bail "no home for bob"
mkdir -p "$home/Maildir/cur" || bail "cannot create $home/Maildir/cur"
n=0
# put FILE: FILE into bob's INBOX.
put() {
	n=$((n + 1))
	sed 's/\r$//; s/$/\r/' "$1" >"$home/Maildir/cur/17100000$n.M${n}P$$.sender:2,"
}
# msg SUBJECT FROM: a plain message from FROM.
msg() {
	{
		echo "From: $2"
		echo "To: $STEED_BOB"
		echo "Subject: $1"
		echo "Date: Tue, 2 Jan 2024 10:0$n:00 +0000"
		echo "Message-ID: <$1-$$@evil.example>"
		echo ""
		echo "Body of $1."
	} >"$T_TMP/$1.eml"
	put "$T_TMP/$1.eml"
}
msg PADWORD "\"Alice$(printf '%3000s' '')x\" <mallory@evil.example>"
msg ENCWORD "=?utf-8?b?QWxpY2UgPGFsaWNlQHN0ZWVkLnRlc3Q+?="
msg OTHERWORD "\"alice@steed.test\" <mallory@evil.example>"
msg BIDIWORD "\"Bob $(printf '\342\200\256')lieve\" <bob@evil.example>"

ok "gen.sh makes signed messages with real gpg" \
    sh tests/crypto/gen.sh "$GEN" "$GEN/sm"
for m in unsigned-middle unsigned-appended unsigned-after-sig \
    unsigned-in-forward partly-signed signed-future; do
	put "$GEN/$m.eml"
done
chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$home/Maildir/cur" || bail "chown failed"
ok "bob has alice's key" bob --import-key "$GEN/alice.pub"

# --- The index ----------------------------------------------------------------
start ix
ok "the index comes up" tui_wait ix "OTHERWORD" 20
tui_wait ix "Signed in the future" 20 >/dev/null
tui_capture ix >"$T_TMP/index"
ok "a padded name: the index shows the address" \
    sh -c "grep -F PADWORD '$T_TMP/index' | grep -q 'mallory@evil.example'"
ok "an encoded word that decodes to an address: no address" \
    sh -c "grep -F ENCWORD '$T_TMP/index' | grep -qF '(no address)'"
ok "... never alice's address" \
    sh -c "! grep -F ENCWORD '$T_TMP/index' | grep -q 'alice'"
ok "a name that is another address: the real one" \
    sh -c "grep -F OTHERWORD '$T_TMP/index' | grep -q 'mallory@evil.example'"
ok "a name that turns text around: the address" \
    sh -c "grep -F BIDIWORD '$T_TMP/index' | grep -q 'bob@evil.example'"
ok "an ordinary name stays a name" \
    sh -c "grep -F 'Appended' '$T_TMP/index' | grep -q ' Alice '"
ok "no address and another address are drawn marked (red)" sh -c \
    "tmux -S '$TUI_SOCK' capture-pane -e -p -t ix | grep -F ENCWORD | grep -q '31m(no address)'"

# --- The pager: From --------------------------------------------------------
open_msg ix PADWORD
ok "padded name: the pager opens it" tui_wait ix "Body of PADWORD." 20
tui_capture ix >"$T_TMP/pad"
ok "padded name: From shows the name folded and the address whole" \
    grep -qx '  From: Alice x <mallory@evil.example>' "$T_TMP/pad"
tui_keys ix q
tui_gone ix "Body of PADWORD." >/dev/null
open_msg ix ENCWORD
ok "encoded word: the pager opens it" tui_wait ix "Body of ENCWORD." 20
tui_capture ix >"$T_TMP/enc"
ok "encoded word: From shows the text and that it has no address" \
    grep -qx '  From: "Alice <alice@steed.test>" (no address)' "$T_TMP/enc"
ok "encoded word: steedmail's warning, from the first column" \
    grep -q '^warning: From: no address can be read from it, whatever its text says' "$T_TMP/enc"
tui_keys ix q
tui_gone ix "Body of ENCWORD." >/dev/null
open_msg ix OTHERWORD
ok "another address: the pager opens it" tui_wait ix "Body of OTHERWORD." 20
tui_capture ix >"$T_TMP/other"
ok "another address: From shows the real address next to the name" \
    grep -qx '  From: "alice@steed.test" <mallory@evil.example>' "$T_TMP/other"
ok "another address: the warning names both" sh -c \
    "grep -A1 '^warning: From: a name in it holds the address alice@steed.test' '$T_TMP/other' | grep -q 'mallory@evil.example'"
tui_keys ix q
tui_gone ix "Body of OTHERWORD." >/dev/null
open_msg ix BIDIWORD
ok "bidi: the pager opens it" tui_wait ix "Body of BIDIWORD." 20
tui_capture ix >"$T_TMP/bidi"
ok "bidi: the override shown as a placeholder, the address whole" \
    grep -qx '  From: Bob <U+202E>lieve <bob@evil.example>' "$T_TMP/bidi"
ok "bidi: marked" grep -q '^warning: From: a name in it holds characters that turn' "$T_TMP/bidi"
tui_keys ix q
tui_gone ix "Body of BIDIWORD." >/dev/null

# --- The pager: parts no signature covers -------------------------------------
# mark FILE WORD PART: the pager's rows in FILE have a bar saying part
# PART is not signed, right above its part line and its text WORD.
mark() {
	grep -B2 "^  UNSIGNED-$2:" "$1" | head -3 | tr '\n' '|' | grep -qF \
	    "security of part $3: not signed, not encrypted|part $3: text/plain"
}
for m in "Partly signed|partly|1|NOT signed" "Middle|middle|1|FIRST" \
    "Middle|middle|3|MIDDLE" "Appended|appended|2|APPENDED" \
    "After the signature|aftersig|3|AFTERSIG" \
    "Fwd: signed|forward|2.2|FORWARDED"; do
	subj=${m%%|*}; rest=${m#*|}; f=${rest%%|*}; rest=${rest#*|}
	part=${rest%%|*}; word=${rest#*|}
	open_msg ix "$subj"
	tui_wait ix "INBOX: message" 20 >/dev/null
	whole ix "$T_TMP/$f.pager"
	tui_keys ix q
	tui_wait ix "sort: date" 10 >/dev/null
	if [ "$word" = "NOT signed" ]; then
		ok "$subj: the first part, unsigned, has its bar" grep -q \
		    '^security of part 1: not signed, not encrypted' "$T_TMP/$f.pager"
		continue
	fi
	ok "$subj: the unsigned part $part has its bar above it" \
	    mark "$T_TMP/$f.pager" "$word" "$part"
done
ok "the signed part has a good signature's bar" \
    grep -q '^security of part 2: good signature (OpenPGP) by alice@example.org' "$T_TMP/middle.pager"

# --- The pager: a signature dated years ahead ----------------------------------
open_msg ix "Signed in the future"
ok "the future signature: the pager opens it" tui_wait ix "INBOX: message" 20
tui_wait ix "the meeting is at noon" 20 >/dev/null
tui_capture ix >"$T_TMP/future"
ok "the message's line names the date and says it was not checked" \
    grep -q "^signed, not checked: it is dated $(date -u -d '+1094 days' +%Y)-" "$T_TMP/future"
ok "never called good" sh -c "! grep -qi 'good sig' '$T_TMP/future'"
tui_keys ix q
tui_stop ix
exit 0
