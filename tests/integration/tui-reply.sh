# tui-reply.sh: where writing starts, in tmux at 80x24 against the real
# servers, gpg and DNS, with a scripted $EDITOR. alice and bob have keys
# published in the signed zone. bob writes alice encrypted mail; alice's
# r quotes it and her reply reaches bob encrypted, with In-Reply-To; a
# reply to a message holding an encrypted part below its top names the
# part and quotes none of its plaintext; g includes the Cc (not alice),
# L goes to the List-Post address, f forwards as attachment and inline;
# a draft postponed encrypted is listed with its real Subject, recalled
# (R, and through m's question) with its Subject and attachment, and
# copied to the Drafts mailbox; `steedmail mailto:...` opens compose with
# the allowed fields and names the ignored ones.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_ENV:-}" ] || bail "no test environment (run under tests/env/run)"
export TZ=UTC

as() { "$STEED_ENV_BIN/as" "$@"; }
AH=$STEED_ENV/home/alice/data/steedmail/gnupg
BH=$STEED_ENV/home/bob/data/steedmail/gnupg
ADRAFTS=$STEED_ENV/home/alice/data/steedmail/drafts
u=$$-$(date +%s)
skip() { t_n=$((t_n + 1)); echo "ok $t_n - $1 # SKIP $2"; }

# publish: a person's OPENPGPKEY records into the signed zone; they leave
# with the test (the next file in the same environment expects none).
publish() {
	as "$1" steedmail --dns-records 2>/dev/null | while read -r _o _t _in _ty _rd; do
		[ "$_ty" = TYPE61 ] || continue
		"$STEED_ENV_BIN/zone-set" steed.test "$_o" TYPE61 "$_rd" >/dev/null
		echo "$_o" >>"$T_TMP/published"
	done
}
unpublish() {
	[ -s "$T_TMP/published" ] && while read -r _o; do
		"$STEED_ENV_BIN/zone-set" --delete steed.test "$_o" TYPE61 >/dev/null 2>&1
	done <"$T_TMP/published"
	tui_cleanup
}
trap unpublish EXIT
for p in alice bob; do
	as "$p" steedmail --genkey >/dev/null 2>&1
	publish "$p"
done
as alice gpg --list-secret-keys "$STEED_ALICE" >/dev/null 2>&1 || bail "alice has no key"
as bob gpg --list-secret-keys "$STEED_BOB" >/dev/null 2>&1 || bail "bob has no key"

# save FILE: a message into alice's INBOX, as if it had arrived.
save() { doveadm -c "$STEED_DOVECOT_CONF" save -u "$STEED_ALICE" -m INBOX <"$1"; }
# count WHO FOLDER: the messages there.
count() { as "$1" steedmail --list "$2" 2>/dev/null | wc -l; }
# arrived WHO FOLDER N: until FOLDER holds at least N messages.
arrived() {
	for _ in $(seq 1 40); do
		[ "$(count "$1" "$2")" -ge "$3" ] && return 0
		sleep 0.5
	done
	echo "fewer than $3 messages in $1's $2"; return 1
}
# newest WHO FOLDER FILE: the last message there, raw.
newest() {
	_uid=$(as "$1" steedmail --list "$2" 2>/dev/null | tail -1 | cut -f1)
	as "$1" steedmail --fetch "$_uid" "$2" >"$3"
}

# The editor: keeps what it was given, appends a line.
cat >"$T_TMP/ed" <<EOF
#!/bin/sh
cp "\$1" "$T_TMP/seen"
printf 'answer-%s\n' "$u" >>"\$1"
EOF
chmod +x "$T_TMP/ed"

# alice's interface; LANG as given.
run_alice() {
	_n=$1 _l=$2; shift 2
	tui_start "$_n" env -u VISUAL LANG="$_l" EDITOR="$T_TMP/ed" "$STEED_ENV_BIN/as" alice steedmail "$@"
}
# index NAME: back to the index, a compose screen discarded on the way.
index() {
	for _ in 1 2 3 4 5 6; do
		tui_capture "$1" >"$T_TMP/where"
		if grep -q "discard this message?" "$T_TMP/where"; then
			tui_keys "$1" y
		elif grep -q "sort: " "$T_TMP/where"; then
			return 0
		else
			tui_keys "$1" q
		fi
		sleep 0.5
	done
	return 1
}
# subject NAME TEXT: the compose screen shows Subject TEXT.
subject() {
	for _ in $(seq 1 60); do
		tui_capture "$1" | grep -qE "^Subject: +$2" && return 0
		sleep 0.5
	done
	echo "# no Subject: $2 on the screen:" >&2
	tui_capture "$1" | sed 's/^/#|/' >&2
	return 1
}
# edited: the editor has run (the file it saw is kept).
edited() {
	for _ in $(seq 1 60); do [ -s "$T_TMP/seen" ] && return 0; sleep 0.5; done
	return 1
}
# find NAME TEXT: the index's cursor on the message whose line holds TEXT.
find_msg() {
	tui_keys "$1" /
	tui_wait "$1" "Search for:" >/dev/null
	tui_type "$1" "$2"
	tui_keys "$1" Enter
}

# --- the messages -------------------------------------------------------------
n=$(count alice INBOX)
printf 'body line %s\nsecond line\n' "$u" | as bob steedmail -s "secret $u" "$STEED_ALICE" >"$T_TMP/s1" 2>&1 ||
	{ cat "$T_TMP/s1"; bail "bob could not write to alice"; }
arrived alice INBOX $((n + 1)) || bail "bob's message did not arrive"
newest alice INBOX "$T_TMP/secret.eml"
grep -qi 'multipart/encrypted' "$T_TMP/secret.eml" || bail "bob's message is not encrypted"
sid=$(grep -i -m1 '^Message-ID:' "$T_TMP/secret.eml" | sed 's/^[^:]*: *//; s/\r$//')

# bob wraps that message (which alice can decrypt) in a new one to her:
# its plaintext would be decrypted below the top.
as bob gpg --batch --trust-model always --armor --encrypt -r "$STEED_ALICE" -o "$T_TMP/wrap.asc" "$T_TMP/secret.eml" 2>/dev/null
{
	printf 'From: Bob Example <bob@steed.test>\r\nTo: alice@steed.test\r\nSubject: nested %s\r\n' "$u"
	printf 'Date: Thu, 03 Dec 2026 10:00:00 +0000\r\nMessage-ID: <nested-%s@steed.test>\r\nMIME-Version: 1.0\r\n' "$u"
	printf 'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="w"\r\n\r\n'
	printf -- '--w\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n\r\n'
	printf -- '--w\r\nContent-Type: application/octet-stream\r\n\r\n'
	sed 's/$/\r/' "$T_TMP/wrap.asc"
	printf -- '--w--\r\n'
} >"$T_TMP/nested.eml"
save "$T_TMP/nested.eml"
{
	printf 'From: Bob Example <bob@steed.test>\r\nTo: alice@steed.test, carol@steed.test\r\nCc: dave@steed.test\r\n'
	printf 'Subject: group %s\r\nDate: Thu, 03 Dec 2026 10:01:00 +0000\r\nMessage-ID: <group-%s@steed.test>\r\n\r\nto all of you %s\r\n' "$u" "$u" "$u"
} >"$T_TMP/group.eml"
save "$T_TMP/group.eml"
{
	printf 'From: Bob Example <bob@steed.test>\r\nTo: steed-users@steed.test\r\n'
	printf 'List-Id: <steed-users.steed.test>\r\nList-Post: <mailto:steed-users@steed.test?subject=help>\r\n'
	printf 'Subject: list %s\r\nDate: Thu, 03 Dec 2026 10:02:00 +0000\r\nMessage-ID: <list-%s@steed.test>\r\n\r\non the list %s\r\n' "$u" "$u" "$u"
} >"$T_TMP/list.eml"
save "$T_TMP/list.eml"

# --- r: a reply to encrypted mail ---------------------------------------------
run_alice a C.UTF-8
tui_wait a "nested $u" 60 >/dev/null
ok "alice's index is read" tui_wait a "? help" 60
# bob's encrypted message is the newest: the cursor is on it
tui_keys a Enter
ok "it opens decrypted in the pager" tui_wait a "body line $u" 30
rm -f "$T_TMP/seen"
# alice's secret keys gone for a moment: a reply from the pager takes the
# message as it was opened, with no second fetch nor decryption
gpgconf --homedir "$AH" --kill gpg-agent 2>/dev/null
mv "$AH/private-keys-v1.d" "$T_TMP/alice-secret"
tui_keys a r
sleep 1
if tui_capture a | grep -q "not yet: the compose screen"; then
	compose=
	skip "r: the editor gets the attribution and the quote" "no compose screen yet"
else
	compose=1
	edited
	ok "r: the editor gets the attribution and the quote, with no secret key at hand" sh -c "grep -q '^Bob Example <bob@steed.test> wrote:' '$T_TMP/seen' && grep -q '^> body line $u' '$T_TMP/seen'"
	ok "compose: the real Subject, with Re:" subject a "Re: secret $u"
	mv "$T_TMP/alice-secret" "$AH/private-keys-v1.d"
	nb=$(count bob INBOX)
	tui_keys a y
	ok "y sends it" arrived bob INBOX $((nb + 1))
	newest bob INBOX "$T_TMP/re.eml"
	ok "bob receives it encrypted" grep -qi 'multipart/encrypted' "$T_TMP/re.eml"
	ok "with In-Reply-To naming bob's message" grep -qiF "In-Reply-To: $sid" "$T_TMP/re.eml"
	as bob steedmail --view "$T_TMP/re.eml" >"$T_TMP/re.view" 2>&1
	ok "bob decrypts it: the subject, the quote and alice's answer" sh -c "grep -q 'Re: secret $u' '$T_TMP/re.view' && grep -q '> body line $u' '$T_TMP/re.view' && grep -q 'answer-$u' '$T_TMP/re.view'"
fi
[ -d "$T_TMP/alice-secret" ] && mv "$T_TMP/alice-secret" "$AH/private-keys-v1.d"
# a new session for what follows
tui_keys a q q q
tui_stop a
run_alice a C.UTF-8
tui_wait a "nested $u" 60 >/dev/null
tui_wait a "? help" 60 >/dev/null

if [ -n "$compose" ]; then
	# --- r on a message with an encrypted part below its top ------------------
	rm -f "$T_TMP/seen"
	find_msg a "nested $u"
	tui_keys a r
	ok "r on the nested message: the editor opens" edited
	ok "the attribution comes first" grep -q "^Bob Example <bob@steed.test> wrote:" "$T_TMP/seen"
	ok "it names the encrypted part" grep -q "decrypted for reading only: not quoted" "$T_TMP/seen"
	ok "and holds none of its plaintext" sh -c "! grep -q 'body line $u' '$T_TMP/seen'"
	index a

	# --- g: the Cc, not alice herself ------------------------------------------
	find_msg a "group $u"
	tui_keys a g
	subject a "Re: group $u" >/dev/null
	tui_capture a >"$T_TMP/g1"
	ok "g: To bob" grep -qE "^To: .*bob@steed.test" "$T_TMP/g1"
	ok "g: Cc carol and dave" sh -c "grep -E '^Cc: ' '$T_TMP/g1' | grep -q 'carol@steed.test' && grep -E '^Cc: ' '$T_TMP/g1' | grep -q 'dave@steed.test'"
	ok "alice is not among the recipients" sh -c "! grep -E '^(To|Cc): ' '$T_TMP/g1' | grep -q 'alice@steed.test'"
	index a

	# --- L: to the list ---------------------------------------------------------
	find_msg a "list $u"
	tui_keys a L
	subject a "Re: list $u" >/dev/null
	tui_capture a >"$T_TMP/l1"
	ok "L: the reply goes to the List-Post address" grep -qE "^To: +steed-users@steed.test *$" "$T_TMP/l1"
	index a
	find_msg a "list $u"
	tui_keys a g
	subject a "Re: list $u" >/dev/null
	tui_capture a >"$T_TMP/l2"
	ok "g on list mail: the sender, and the list" sh -c "grep -qE '^To: +bob@steed.test' '$T_TMP/l2' && grep -qE '^(To|Cc): .*steed-users@steed.test' '$T_TMP/l2'"
	index a

	# --- f: as attachment, inline -----------------------------------------------
	find_msg a "group $u"
	tui_keys a f
	ok "f asks how to forward" tui_wait a "forward as attachment?"
	tui_keys a y
	ok "y: the message is attached" tui_wait a "forwarded.eml" 30
	ok "with the subject Fwd:" subject a "Fwd: group $u"
	index a
	rm -f "$T_TMP/seen"
	find_msg a "group $u"
	tui_keys a f
	tui_wait a "forward as attachment?" >/dev/null
	tui_keys a n
	edited
	ok "n: inline, the text in the editor" sh -c "grep -q 'Forwarded message' '$T_TMP/seen' && grep -q '^to all of you $u' '$T_TMP/seen'"
	index a
fi
tui_keys a q
tui_ended a 20 >/dev/null
tui_stop a

# --- drafts: postponed encrypted, listed, recalled ----------------------------
rm -rf "$ADRAFTS"
doveadm -c "$STEED_DOVECOT_CONF" expunge -u "$STEED_ALICE" mailbox Drafts all >/dev/null 2>&1
echo "attached $u" >"$T_TMP/note $u.txt"
printf 'draft body %s\n' "$u" | as alice steedmail -s "hidden $u" -a "$T_TMP/note $u.txt" --postpone "$STEED_BOB" >"$T_TMP/p1" 2>"$T_TMP/e1"
d1=$(cat "$T_TMP/p1")
grep -q 'encrypted to your own key' "$T_TMP/e1" || bail "the draft was not kept encrypted: $(cat "$T_TMP/e1")"
grep -q "hidden $u" "$d1" && bail "the draft's subject is readable in its file"

for lang in C.UTF-8 C; do
	run_alice d $lang
	tui_wait d "? help" 60 >/dev/null
	tui_keys d R
	ok "$lang: R lists the postponed draft with its real Subject" tui_wait d "hidden $u" 30
	tui_capture d >"$T_TMP/dl-$lang"
	ok "$lang: with its recipient" grep -q "bob@steed.test" "$T_TMP/dl-$lang"
	ok "$lang: the status bar says what the keys do" grep -q "1 draft  Enter: recall  d: delete  q: back" "$T_TMP/dl-$lang"
	tui_keys d q
	ok "$lang: q goes back to the index" tui_wait d "sort:"
	tui_keys d m
	ok "$lang: m asks first whether to recall it" tui_wait d "1 draft postponed; recall one? (y/n)"
	tui_keys d y
	ok "$lang: y shows the list" tui_wait d "hidden $u"
	tui_keys d q
	tui_wait d "sort:" >/dev/null
	tui_keys d q
	tui_ended d 20 >/dev/null
	tui_stop d
done

# copies: the undeleted messages of alice's Drafts mailbox (with the
# Message-ID of file $1, when given).
copies() {
	if [ -n "${1:-}" ]; then
		_id=$(grep -i -m1 '^Message-ID:' "$1" | sed 's/^[^:]*: *//; s/\r$//')
		doveadm -c "$STEED_DOVECOT_CONF" search -u "$STEED_ALICE" mailbox Drafts undeleted header Message-ID "$_id" 2>/dev/null | wc -l
	else
		doveadm -c "$STEED_DOVECOT_CONF" search -u "$STEED_ALICE" mailbox Drafts undeleted 2>/dev/null | wc -l
	fi
}
# copies_are N [FILE]: until copies says N.
copies_are() {
	for _ in $(seq 1 20); do [ "$(copies "${2:-}")" = "$1" ] && return 0; sleep 0.5; done
	echo "copies in Drafts: $(copies "${2:-}"), not $1"; return 1
}
# draft_file: the one draft file (after the one before is gone).
draft_file() {
	for _ in $(seq 1 40); do
		[ ! -e "$1" ] && ls "$ADRAFTS"/*.eml >/dev/null 2>&1 && { ls "$ADRAFTS"/*.eml | head -1; return 0; }
		sleep 0.5
	done
	return 1
}
if [ -n "$compose" ]; then
	run_alice d C.UTF-8
	tui_wait d "? help" 60 >/dev/null
	tui_keys d R
	tui_wait d "hidden $u" 30 >/dev/null
	tui_keys d Enter
	ok "Enter recalls it into compose with its real Subject" subject d "hidden $u"
	ok "and its attachment" tui_wait d "note $u.txt"
	tui_keys d P
	d2=$(draft_file "$d1")
	ok "P postpones it again: a new file, the old one gone" test -n "$d2"
	ok "kept encrypted" sh -c "grep -qi 'multipart/encrypted' '$d2' && ! grep -q 'hidden $u' '$d2'"
	ok "the Drafts mailbox holds a copy of it" copies_are 1 "$d2"
	ok "flagged \\Draft and \\Seen" sh -c "doveadm -c '$STEED_DOVECOT_CONF' search -u '$STEED_ALICE' mailbox Drafts draft seen undeleted | grep -q ."
	ok "P puts the index back" tui_wait d "sort: " 20
	tui_keys d m
	tui_wait d "recall one?" >/dev/null
	tui_keys d y
	tui_wait d "hidden $u" 30 >/dev/null
	tui_keys d Enter
	ok "m, y, Enter: recalled again, its Subject whole" subject d "hidden $u"
	tui_keys d P
	d3=$(draft_file "$d2")
	ok "postponed again: the new copy in Drafts" copies_are 1 "$d3"
	ok "the old copy is gone from Drafts" copies_are 1
	tui_wait d "sort: " 20 >/dev/null
	tui_keys d R
	tui_wait d "hidden $u" 30 >/dev/null
	tui_keys d Enter
	subject d "hidden $u" >/dev/null
	nb=$(count bob INBOX)
	tui_keys d y
	ok "a recalled draft sent reaches bob" arrived bob INBOX $((nb + 1))
	ok "the draft is gone" sh -c "sleep 1; ! ls '$ADRAFTS'/*.eml >/dev/null 2>&1"
	ok "and so is its copy in Drafts" copies_are 0
	index d
	tui_keys d q
	tui_ended d 20 >/dev/null
	tui_stop d
fi

# --- d deletes a draft, after a question ---------------------------------------
rm -rf "$ADRAFTS"
printf 'x\n' | as alice steedmail -s "doomed $u" --postpone "$STEED_BOB" >"$T_TMP/p2" 2>/dev/null
d2=$(cat "$T_TMP/p2")
run_alice x C
tui_wait x "? help" 60 >/dev/null
tui_keys x R
tui_wait x "doomed $u" 30 >/dev/null
tui_keys x d
ok "d asks before it deletes" tui_wait x "delete the draft to bob@steed.test"
tui_keys x n
ok "n keeps it" test -e "$d2"
tui_keys x d
tui_wait x "delete the draft" >/dev/null
tui_keys x y
ok "y deletes it" sh -c "sleep 1; [ ! -e '$d2' ]"
ok "the list says so" tui_wait x "no postponed drafts"
tui_keys x q q
tui_ended x 20 >/dev/null
tui_stop x

# --- mailto: -----------------------------------------------------------------------
if [ -n "$compose" ]; then
	rm -f "$T_TMP/seen"
	run_alice mt C.UTF-8 "mailto:bob@steed.test?subject=hi%20$u&attach=/etc/passwd&bcc=x@y"
	tui_wait mt "? help" 60 >/dev/null
	ok "mailto: compose opens with To" tui_wait mt "bob@steed.test" 60
	ok "and the Subject" subject mt "hi $u"
	ok "and says what it ignored" tui_wait mt "ignored from the link: attach, bcc"
	tui_capture mt >"$T_TMP/mt"
	ok "nothing attached" sh -c "! grep -q passwd '$T_TMP/mt'"
	index mt
	tui_keys mt q
	tui_ended mt 20 >/dev/null
	tui_stop mt
fi
for h in "$AH" "$BH"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done
exit 0
