# servers-smoke.sh: everyday mail on Dovecot, Cyrus and Courier alike: a
# sync and a list of INBOX show what another client appended, and --flag,
# --move and --delete change the server's mailboxes, each checked with
# that other client (tests/tools/imapcheck.py, Python's imaplib).
#
# steed-env-servers asks tests/run for Cyrus and Courier beside Dovecot:
# steed-env-servers: cyrus courier
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_ENV:-}" ] || bail "STEED_ENV not set: run inside tests/env/run"

IC="python3 tests/tools/imapcheck.py"
u=$$-$(date +%s)

# The folders each server has: Dovecot's at the top, separator "/";
# Cyrus's (Debian's settings: no altnamespace, no unixhierarchysep) and
# Courier's below INBOX, separator ".".
trash_of() { case $1 in dovecot) echo Trash ;; *) echo INBOX.Trash ;; esac; }
prefix_of() { case $1 in dovecot) echo "" ;; *) echo INBOX. ;; esac; }

# mail SUBJECT: a small message.
mail() {
	printf 'From: Carol Example <carol@steed.test>\nTo: alice@steed.test\nSubject: %s\nDate: %s\nMessage-ID: <%s@steed.test>\n\nHello.\n' \
		"$1" "$(date -R)" "$(echo "$1" | tr ' ' -)"
}

# has_flag S FOLDER UID FLAG: the server S has FLAG on UID, as imapcheck sees.
has_flag() {
	$IC --server "$1" flags "$2" | awk -v u="$3" -v f="$4" \
		'$1 == u { for (i = 2; i <= NF; i++) if ($i == f) found = 1 } END { exit !found }'
}
lacks_flag() {
	$IC --server "$1" flags "$2" | awk -v u="$3" '$1 == u { seen = 1 } END { exit !seen }' &&
		! has_flag "$@"
}
# found S FOLDER TEXT: a message with TEXT in its subject is in FOLDER.
found() { [ -n "$($IC --server "$1" search "$2" "$3")" ]; }
gone() { [ -z "$($IC --server "$1" search "$2" "$3")" ]; }
# synced CONF: the number --sync INBOX prints ("3 messages").
synced() { sm -F "$1" --sync INBOX 2>"$T_TMP/sync.err" | sed 's/ .*//'; }
# same A B: two strings are equal (for ok).
same() { [ "$1" = "$2" ] || { echo "expected '$2', got '$1'"; return 1; }; }
# listed CONF TEXT: steedmail's --list of INBOX has TEXT.
listed() { sm -F "$1" --list INBOX 2>&1 | tee "$T_TMP/list.out" | grep -qF -- "$2"; }
# uid_of CONF TEXT: the UID --list shows for TEXT.
uid_of() { sm -F "$1" --list INBOX 2>/dev/null | grep -F -- "$2" | cut -f1 | head -1; }

for s in dovecot cyrus courier; do
	case $s in
	cyrus) port=${STEED_CYRUS_IMAPS_PORT:-} ;;
	courier) port=${STEED_COURIER_IMAPS_PORT:-} ;;
	*) port=$STEED_IMAPS_PORT ;;
	esac
	if [ -z "$port" ]; then
		t_n=$((t_n + 1))
		echo "ok $t_n - $s: everyday mail # SKIP $s not started (STEED_ENV_SERVERS=all)"
		continue
	fi
	diag "--- $s"
	export XDG_DATA_HOME=$T_TMP/$s-data XDG_CACHE_HOME=$T_TMP/$s-cache
	conf=$(server_account "smoke-$s" "$s") || bail "server_account $s failed"
	trash=$(trash_of "$s")
	moved=$(prefix_of "$s")Moved-$u
	$IC --server "$s" clear INBOX "$trash" >/dev/null 2>&1
	ok "$s: a folder made by another client" $IC --server "$s" create "$moved"
	for i in 1 2 3; do
		mail "smoke$i $s $u" >"$T_TMP/m$i.eml"
	done
	ok "$s: three messages appended by another client" \
		$IC --server "$s" append INBOX "$T_TMP/m1.eml"
	$IC --server "$s" append INBOX "$T_TMP/m2.eml" >/dev/null
	$IC --server "$s" append INBOX "$T_TMP/m3.eml" >/dev/null

	ok "$s: --sync INBOX counts 3 messages" \
		same "$(synced "$conf")" 3
	ok "$s: --list INBOX shows them" \
		eval 'listed "$conf" "smoke1 $s $u" && listed "$conf" "smoke2 $s $u" && listed "$conf" "smoke3 $s $u"'

	u1=$(uid_of "$conf" "smoke1 $s $u")
	u2=$(uid_of "$conf" "smoke2 $s $u")
	u3=$(uid_of "$conf" "smoke3 $s $u")
	[ -n "$u1" ] && [ -n "$u2" ] && [ -n "$u3" ] || bail "$s: no UIDs in --list"

	ok "$s: --flag +FS" sm -F "$conf" --flag "$u1" +FS INBOX
	ok "$s: the server has \\Flagged and \\Seen on it" \
		eval 'has_flag "$s" INBOX "$u1" "\\Flagged" && has_flag "$s" INBOX "$u1" "\\Seen"'
	ok "$s: --flag -F" sm -F "$conf" --flag "$u1" -- -F INBOX
	ok "$s: the server no longer has \\Flagged, still \\Seen" \
		eval 'lacks_flag "$s" INBOX "$u1" "\\Flagged" && has_flag "$s" INBOX "$u1" "\\Seen"'

	ok "$s: --move to $moved" sm -F "$conf" --move "$u2" "$moved" INBOX
	ok "$s: the message is in $moved and no longer in INBOX" \
		eval 'found "$s" "$moved" "smoke2 $s $u" && gone "$s" INBOX "smoke2 $s $u"'

	# Courier has no SPECIAL-USE: its Trash is found by name, INBOX.Trash
	# below the personal namespace "INBOX.".
	ok "$s: --delete" sm -F "$conf" --delete "$u3" INBOX
	ok "$s: the message is in $trash and no longer in INBOX" \
		eval 'found "$s" "$trash" "smoke3 $s $u" && gone "$s" INBOX "smoke3 $s $u"'
	ok "$s: --sync INBOX after the changes counts what is left" \
		same "$(synced "$conf")" \
		"$($IC --server "$s" count INBOX)"

	# Folders whose names are not ASCII, made by another client (sent
	# in modified UTF-7), used by the names a person types.
	books=$(prefix_of "$s")Bücher
	nihongo=$(prefix_of "$s")日本語
	$IC --server "$s" create "$books" >/dev/null || bail "$s: cannot create $books"
	$IC --server "$s" create "$nihongo" >/dev/null || bail "$s: cannot create $nihongo"
	ok "$s: --move to $books" sm -F "$conf" --move "$u1" "$books" INBOX
	ok "$s: the message is in $books on the server" \
		eval 'found "$s" "$books" "smoke1 $s $u" && gone "$s" INBOX "smoke1 $s $u"'
	mail "nihon $s $u" >"$T_TMP/m4.eml"
	$IC --server "$s" append "$nihongo" "$T_TMP/m4.eml" >/dev/null
	ok "$s: --sync $nihongo counts what another client put there" \
		eval 'sm -F "$conf" --sync "$nihongo" 2>&1 | grep -qx "1 message"'
	ok "$s: --list $nihongo shows it" \
		eval 'sm -F "$conf" --list "$nihongo" 2>&1 | grep -qF "nihon $s $u"'
	ok "$s: --folders lists both by their names" \
		eval 'sm -F "$conf" --folders >"$T_TMP/f" 2>&1 && grep -qF "$books" "$T_TMP/f" && grep -qF "$nihongo" "$T_TMP/f"'

	# Sent: found by special use (Dovecot, Cyrus) or by name below the
	# namespace (Courier's INBOX.Sent); the copy of -s goes there.
	sent=$(prefix_of "$s")Sent
	echo "hello from $s" | sm -F "$conf" -s "sent $s $u" "$STEED_BOB" \
	    >"$T_TMP/sent.out" 2>&1
	ok "$s: -s sends, and says nothing of a missing Sent" \
		eval '! grep -qi "not yet saved\|no .*Sent" "$T_TMP/sent.out" || { cat "$T_TMP/sent.out"; false; }'
	ok "$s: the copy is in $sent on the server" found "$s" "$sent" "sent $s $u"

	conf=$(server_account "smoke-$s-starttls" "$s" alice starttls) ||
		bail "server_account $s starttls failed"
	ok "$s: --sync INBOX over IMAP with STARTTLS" \
		same "$(synced "$conf")" "$($IC --server "$s" count INBOX)"
done

[ "$t_n" -gt 0 ] || bail "no checks ran"
