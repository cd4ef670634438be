# tui-outbox.sh: sending and the outbox screen in tmux at 80x24
# (TERM=screen), against the real Postfix and Dovecot. With the MTA
# stopped, alice writes to bob in the compose screen and sends: the message
# line says it is queued and why, the status bar counts it; another is
# queued by `steedmail -s` meanwhile. O lists both with recipient and
# Subject and why they wait, r tries them and says they are still queued.
# Postfix back, r sends them: the list empties, bob gets each once and
# alice's Sent holds one copy of each. Before that, e takes the message
# written in compose back into compose (To, Subject, text as they were);
# its Subject changed, y queues it again: one entry, not two, and bob
# gets only the edited one; e on the command line's message says why not.
# A message the server refuses for good is listed as
# failed with the server's words; Enter shows it in full, d deletes it.
# Both in LANG=C and LANG=C.UTF-8.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

AD=$T_TMP/alice
alice() { XDG_DATA_HOME="$AD" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$STEED_ENV/bob.conf" "$@"; }
# the MTA runs again whatever happens: the tests after this one need it
trap 'postfix -c "$STEED_ENV/postfix" start >/dev/null 2>&1; for h in "$AD" "$T_TMP/bob"; do gpgconf --homedir "$h/steedmail/gnupg" --kill all >/dev/null 2>&1; done; tui_cleanup' EXIT

count() { "$1" --list "$2" 2>/dev/null | grep -cF -- "$3"; }
# arrives WHO FOLDER TEXT N: exactly N such messages within 15 s.
arrives() {
	for _ in $(seq 1 30); do
		[ "$(count "$1" "$2" "$3")" = "$4" ] && return 0
		sleep 0.5
	done
	echo "expected $4 message(s) '$3' in $1's $2; found $(count "$1" "$2" "$3")"
	return 1
}
# stays WHO FOLDER TEXT N: still exactly N after a few more seconds.
stays() { sleep 3; [ "$(count "$1" "$2" "$3")" = "$4" ]; }
queued() { ls "$AD/steedmail/outbox/" 2>/dev/null | grep -c '\.env$'; }
drafts() { ls "$AD/steedmail/outbox/" 2>/dev/null | grep -c '\.draft$'; }
failed() { ls "$AD/steedmail/outbox/failed/" 2>/dev/null | grep -c '\.eml$'; }
port() {	# port up|down: wait for the submission port
	for _ in $(seq 1 50); do
		if (exec 3<>/dev/tcp/127.0.0.1/$STEED_SUBMISSION_PORT) 2>/dev/null; then
			[ "$1" = up ] && return 0
		else
			[ "$1" = down ] && return 0
		fi
		sleep 0.1
	done
	return 1
}
mta() {
	postfix -c "$STEED_ENV/postfix" "$1" >/dev/null 2>&1
	port "$([ "$1" = stop ] && echo down || echo up)"
}
# The editor of the compose screen: it writes the text.
printf '#!/bin/sh\necho "written while the MTA was away" >>"$1"\n' >"$T_TMP/editor"
chmod +x "$T_TMP/editor"
run_alice() {	# run_alice NAME LANG
	tui_start "$1" env XDG_DATA_HOME="$AD" XDG_CACHE_HOME="$T_TMP/alice-c" \
	    LANG="$2" TZ=UTC VISUAL= EDITOR="$T_TMP/editor" TMPDIR="$T_TMP" \
	    "$STEEDMAIL" -F "$STEED_ENV/alice.conf"
}
# pick NAME TEXT [BUT]: the cursor on the outbox's entry holding TEXT
# (and not BUT); entries queued in the same second come in either order.
pick() {
	_i=$(tui_capture "$1" | grep -E '^ ?[A-Z][a-z]{2} [0-9]{2} ' | grep -n -F -- "$2" | grep -v -F -- "${3:-\n}" | head -1 | cut -d: -f1)
	tui_keys "$1" =
	for _ in $(seq 2 "${_i:-1}"); do tui_keys "$1" j; done
}
# row NAME TEXT: the screen's line holding TEXT, and the line below it.
rows() { tui_capture "$1" | grep -A1 -F -- "$2"; }

u=$$-$(date +%s)

for lang in C C.UTF-8; do
	n=t-$(echo "$lang" | tr -dc 'a-zA-Z0-9')
	s="down $lang $u"

	# --- written and sent while the MTA is down: queued ------------------
	mta stop || bail "postfix did not stop"
	run_alice "$n" "$lang"
	tui_wait "$n" "sort: date" 30 >/dev/null || bail "alice's index did not open"
	tui_keys "$n" m
	tui_wait "$n" "| compose" 10 >/dev/null && tui_keys "$n" Enter Enter
	ok "$lang: m: compose, the editor wrote the text" tui_wait "$n" "written while the MTA was away"
	tui_keys "$n" t; tui_type "$n" "$STEED_BOB"; tui_keys "$n" Enter
	tui_keys "$n" s; tui_type "$n" "$s"; tui_keys "$n" Enter
	tui_wait "$n" "Subject: $s" >/dev/null
	tui_keys "$n" y
	ok "$lang: y with the MTA down: queued, and why, and what next" tui_wait "$n" "queued, not sent yet (" 30
	tui_capture "$n" >"$T_TMP/q"
	ok "$lang: ... the server's absence named" has "$T_TMP/q" "Connection refused"
	ok "$lang: the status bar counts the queued message" tui_wait "$n" "outbox: 1 queued" 10
	check "$lang: it is in the outbox" [ "$(queued)" = 1 ]
	# a second one, queued by the command line meanwhile
	echo "queued by another steedmail" | alice -s "cli $s" "$STEED_BOB" >"$T_TMP/o" 2>&1
	[ "$(queued)" = 2 ] || bail "the second message was not queued: $(cat "$T_TMP/o")"
	# O is the index's reverse sort: the outbox is O from the folders
	tui_keys "$n" y
	tui_wait "$n" "| Folders" >/dev/null
	tui_keys "$n" O
	ok "$lang: O opens the outbox screen" tui_wait "$n" "| Outbox"
	tui_capture "$n" | grep -v -F "cli $s" | grep -A1 -F -- "$s" >"$T_TMP/r"
	ok "$lang: it lists the message sent from compose, with its recipient" has "$T_TMP/r" "$STEED_BOB"
	ok "$lang: ... as queued, with the reason of its try" has "$T_TMP/r" "queued: cannot connect"
	rows "$n" "cli $s" >"$T_TMP/r"
	ok "$lang: and the one the command line queued, not tried here yet" has "$T_TMP/r" "queued: not tried yet"

	# --- e: the message from compose goes back into compose ---------------
	check "$lang: compose kept its draft beside the entry" [ "$(drafts)" = 1 ]
	pick "$n" "$s" "cli $s"; tui_keys "$n" e
	ok "$lang: e opens compose on the queued message: its Subject" tui_wait "$n" "Subject: $s" 30
	tui_capture "$n" >"$T_TMP/e"
	ok "$lang: ... its recipient" has "$T_TMP/e" "$STEED_BOB"
	ok "$lang: ... its text" has "$T_TMP/e" "written while the MTA was away"
	check "$lang: it left the outbox meanwhile" [ "$(queued)" = 1 ]
	tui_keys "$n" s; tui_type "$n" " edited"; tui_keys "$n" Enter
	tui_wait "$n" "Subject: $s edited" >/dev/null
	tui_keys "$n" y
	ok "$lang: y queues the edited message" tui_wait "$n" "queued, not sent yet (" 30
	tui_wait "$n" "| Outbox" >/dev/null
	ok "$lang: the outbox lists it once, edited" tui_wait "$n" "$s edited"
	check "$lang: queued once: two entries, not three" [ "$(queued)" = 2 ]
	ok "$lang: ... with one kept draft, the resumed one gone" eval '[ "$(drafts)" = 1 ] && ! ls "$AD/steedmail/drafts/" 2>/dev/null | grep -q "^outbox-"'
	pick "$n" "cli $s"; tui_keys "$n" e
	ok "$lang: e on the command line's message says why not" tui_wait "$n" "queued from the command line: it cannot be edited here"
	check "$lang: ... and it stays queued" [ "$(queued)" = 2 ]
	tui_keys "$n" r
	ok "$lang: r tries them: still queued, the reason said" tui_wait "$n" "2 still queued (" 30
	rows "$n" "cli $s" >"$T_TMP/r"
	ok "$lang: the list says why it waits" sh -c "grep -q 'queued: ' '$T_TMP/r' && ! grep -q 'not tried yet' '$T_TMP/r'"
	check "$lang: nothing left the outbox" [ "$(queued)" = 2 ]

	mta start || bail "postfix did not start again"
	tui_keys "$n" r
	ok "$lang: r with the MTA back: sent" tui_wait "$n" "2 sent" 30
	ok "$lang: the list empties" tui_wait "$n" "The outbox is empty"
	ok "$lang: the status bar no longer counts them" tui_gone "$n" "outbox: 2 queued"
	check "$lang: the outbox directory is empty" [ "$(queued)" = 0 ]
	ok "$lang: bob receives both" eval 'arrives bob INBOX "$s" 2'
	ok "$lang: ... each once, never twice" eval 'stays bob INBOX "$s" 2 && [ "$(count bob INBOX "cli $s")" = 1 ]'
	ok "$lang: ... the edited one, the first version never" eval '[ "$(count bob INBOX "$s edited")" = 1 ]'
	check "$lang: its kept draft left with it" [ "$(drafts)" = 0 ]
	ok "$lang: alice's Sent holds one copy of each" eval 'arrives alice Sent "$s" 2 && [ "$(count alice Sent "cli $s")" = 1 ]'

	# --- refused for good: failed, shown with the server's words ----------
	echo "nobody reads this" | alice -s "refused $lang $u" "nobody@steed.test" >/dev/null 2>&1
	[ "$(failed)" = 1 ] || bail "the refused message is not in outbox/failed"
	tui_keys "$n" G		# read the outbox again
	ok "$lang: the refused message is listed" tui_wait "$n" "refused $lang $u"
	rows "$n" "refused $lang $u" >"$T_TMP/r"
	ok "$lang: ... as failed, with the server's words" has "$T_TMP/r" "failed: "
	ok "$lang: ... its 550" has "$T_TMP/r" "550 5.1.1"
	ok "$lang: the status bar counts it as failed" tui_wait "$n" "outbox: 1 failed"
	tui_keys "$n" Enter
	ok "$lang: Enter shows it in full: the state" tui_wait "$n" "State"
	tui_capture "$n" >"$T_TMP/d"
	ok "$lang: ... the recipient" grep -q "^To *nobody@steed.test" "$T_TMP/d"
	ok "$lang: ... the file it is kept in" has "$T_TMP/d" "outbox/failed/"
	tui_keys "$n" q
	ok "$lang: q goes back to the list" tui_wait "$n" "message 1/1  r send now"
	tui_keys "$n" e
	ok "$lang: e says a queued message cannot be edited" tui_wait "$n" "cannot be edited"
	tui_keys "$n" d
	ok "$lang: d asks first" tui_wait "$n" "Delete the message refused $lang $u"
	tui_keys "$n" n
	check "$lang: n keeps it" [ "$(failed)" = 1 ]
	tui_keys "$n" d
	tui_wait "$n" "Delete the message" >/dev/null
	tui_keys "$n" y
	ok "$lang: y deletes it" tui_wait "$n" "The outbox is empty"
	check "$lang: ... from the disk" [ "$(failed)" = 0 ]
	tui_keys "$n" q
	tui_wait "$n" "| Folders" >/dev/null
	tui_keys "$n" q
	tui_wait "$n" "| INBOX" >/dev/null
	tui_keys "$n" q
	st=$(tui_ended "$n" 10)
	check "$lang: q back to the index, q quits with status 0" [ "$st" = 0 ]
	ok "$lang: nothing on standard error (the sanitizers' reports included)" \
	    sh -c "[ -z \"\$(cat '$T_TMP/tui-$n.err' 2>/dev/null)\" ] || { cat '$T_TMP/tui-$n.err'; exit 1; }"
	tui_stop "$n"
done
