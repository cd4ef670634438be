# tui-folders.sh: folder names in the curses interface, in tmux at 80x24
# with LANG=C.UTF-8, against the test Dovecot: Tab completes a folder name
# in the C (copy), s (move) and c (change folder) prompts, names in other
# scripts than Latin included; two folders that share a start show both;
# the copy and the move really reach those folders (read with doveadm);
# the folder screen shows the names decoded, a role beside the folder
# archive-folder names, and in the status bar how each role was found.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
export TZ=UTC

DOVE="doveadm -c $STEED_DOVECOT_CONF"
u=$$$(date +%s)
J="日本語 $u"
B="Bücher $u"
A1="Archiv-Alt $u"
A2="Archiv-Neu $u"
for f in "$J" "$B" "$A1" "$A2"; do
	$DOVE mailbox create -u "$STEED_BOB" "$f" || bail "doveadm cannot create $f"
done
printf 'From: x@steed.test\nSubject: tab-%s\nMessage-ID: <tab-%s@steed.test>\n\nbody\n' "$u" "$u" |
    $DOVE save -u "$STEED_BOB" -m INBOX || bail "doveadm cannot save"

# in FOLDER: within 10 s, the message is in FOLDER on the server.
in_folder() {
	for _ in $(seq 1 50); do
		$DOVE search -u "$STEED_BOB" mailbox "$1" header message-id \
		    "<tab-$u@steed.test>" not deleted | grep -q . && return 0
		sleep 0.2
	done
	return 1
}

# bob's configuration, with the Archive role set to one of them
sed "/^\[account/a archive-folder = $A1" "$STEED_ENV/bob.conf" >"$T_TMP/bob.conf"
chmod 600 "$T_TMP/bob.conf"

tui_start t env XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" \
    HOME="$HOME" LANG=C.UTF-8 "$STEEDMAIL" -F "$T_TMP/bob.conf"
ok "the index shows the message" tui_wait t "tab-$u" 20

# --- C: copy, Tab completes a Japanese name ----------------------------------
tui_keys t C
ok "C asks for a folder" tui_wait t "Copy to folder:"
tui_type t "日本"
tui_keys t Tab
# the first Tab may come before the list: then it says so, and the next
# one completes
if ! tui_wait t "Copy to folder: $J" 3 2>/dev/null; then
	tui_wait t "Tab completes" 10 >/dev/null 2>&1
	tui_keys t Tab
fi
ok "Tab completes 日本 to the whole name" tui_wait t "Copy to folder: $J"
tui_keys t Enter
ok "C: copied to 日本語 on the server" in_folder "$J"
ok "... and still in the INBOX" in_folder INBOX

# --- two names that share a start ---------------------------------------------
tui_keys t C
tui_wait t "Copy to folder:" >/dev/null
tui_type t "Archiv"
tui_keys t Tab
ok "Tab completes as far as both go" tui_wait t "Copy to folder: Archiv-"
tui_keys t Tab
ok "... then shows both" tui_wait t "$A1"
ok "... both" tui_wait t "$A2"
tui_keys t C-u
tui_type t "archiv-n"
tui_keys t Tab
ok "case aside when nothing else starts so" tui_wait t "Copy to folder: $A2"
tui_keys t Escape

# --- s: move, to a German name ---------------------------------------------
tui_keys t s
ok "s asks for a folder" tui_wait t "Move to folder:"
tui_type t "Bü"
tui_keys t Tab
ok "Tab completes Bü" tui_wait t "Move to folder: $B"
tui_keys t Enter
ok "s: moved to Bücher on the server" in_folder "$B"

# --- c: change folder, then the message is there -------------------------------
tui_keys t c
ok "c asks for a folder" tui_wait t "Open folder:"
tui_type t "Büc"
tui_keys t Tab
ok "Tab completes in the c prompt too" tui_wait t "Open folder: $B"
tui_keys t Enter
ok "the index of Bücher shows the moved message" tui_wait t "tab-$u" 20
ok "... under its name, decoded" tui_wait t "| $B"

# --- the folder screen -----------------------------------------------------------
tui_keys t y
ok "the folder screen lists 日本語 decoded" tui_wait t "$J" 20
tui_capture t >"$T_TMP/folders"
ok "... and Bücher" grep -qF "$B" "$T_TMP/folders"
ok "... no modified UTF-7 on the screen" sh -c "! grep -q '&[A-Za-z0-9+,]*-' '$T_TMP/folders'"
ok "the folder archive-folder names is shown with its role" sh -c "grep -qF '$A1  (Archive)' '$T_TMP/folders'"
ok "a folder called by its role has no second name" sh -c "! grep -q 'Trash.*(Trash)' '$T_TMP/folders'"
tui_keys t /
tui_wait t "Folder:" >/dev/null
tui_type t "Trash"
tui_keys t Enter
ok "on Trash, the status bar says how it was found" tui_wait t "Trash folder, marked by the server"
tui_keys t /
tui_wait t "Folder:" >/dev/null
tui_type t "Alt $u"
tui_keys t Enter
ok "on the configured one, that it is configured" tui_wait t "Archive folder, set in the configuration"

tui_keys t q
for f in "$J" "$B" "$A1" "$A2"; do
	$DOVE mailbox delete -s -u "$STEED_BOB" "$f" >/dev/null 2>&1
done
exit 0
