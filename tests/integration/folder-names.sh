# folder-names.sh: folders named in other scripts than Latin, on the real
# Dovecot: their names are modified UTF-7 on the wire (RFC 3501 5.1.3) and
# UTF-8 everywhere else. --folders shows them decoded, --sync, --list and
# --fetch open them, --move and --delete put messages in them, and
# doveadm, reading Dovecot's side, finds the messages where steedmail put
# them. A folder the server will not count is listed with "?" and said.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

bob() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$STEED_ENV/bob.conf" "$@"; }
dove() { doveadm -c "$STEED_DOVECOT_CONF" "$@"; }
save() { printf 'From: x@steed.test\nSubject: %s\n\nbody of %s\n' "$2" "$2" | dove save -u "$STEED_BOB" -m "$1"; }
count() { dove search -u "$STEED_BOB" mailbox "$1" subject "$2" | wc -l; }
uid() { bob --list "$1" 2>/dev/null | grep -F -- "$2" | cut -f1 | head -1; }

u=$$-$(date +%s)
B="Bücher $u"
J="日本語 $u"
R="Ру́сский/Entwürfe $u"
dove mailbox create -u "$STEED_BOB" "$B" || bail "doveadm cannot create $B"
dove mailbox create -u "$STEED_BOB" "$J" || bail "doveadm cannot create $J"
dove mailbox create -u "$STEED_BOB" "$R" || bail "doveadm cannot create $R"

bob --folders >"$T_TMP/f" 2>"$T_TMP/e"; rc=$?
ok "--folders: exit 0" [ "$rc" = 0 ]
ok "--folders: Bücher shown decoded" grep -qF -- "$B	" "$T_TMP/f"
ok "--folders: 日本語 shown decoded" grep -qF -- "$J	" "$T_TMP/f"
ok "--folders: a child folder shown decoded" grep -qF -- "$R	" "$T_TMP/f"
ok "--folders: no modified UTF-7 left" sh -c "! grep -q '&[A-Za-z0-9+,]*-' '$T_TMP/f'"

# Dovecot marks no folder \Archive: listing the folders looks for one by
# name, asking NAMESPACE, whose answer the guard below libetpan lets
# through for that command
bob -d 2 --folders >"$T_TMP/f2" 2>"$T_TMP/e2"; rc=$?
ok "--folders with NAMESPACE asked: exit 0, nothing on standard error" sh -c "[ $rc = 0 ] && [ ! -s '$T_TMP/e2' ]"
ok "... NAMESPACE was sent and answered" sh -c "grep -q 'NAMESPACE' '$T_TMP/bob-c/steedmail/debug.log' && grep -q 'Archive folder: none (none found)' '$T_TMP/bob-c/steedmail/debug.log'"
ok "... the Trash role found by its special use" grep -q 'Trash folder: Trash (marked by the server)' "$T_TMP/bob-c/steedmail/debug.log"

# --- sync and fetch ------------------------------------------------------
save "$B" "in-b $u"
bob --sync "$B" >"$T_TMP/o" 2>&1; rc=$?
ok "--sync Bücher: exit 0" sh -c "[ $rc = 0 ]"
bob --list "$B" >"$T_TMP/l" 2>&1
ok "--list Bücher: the message Dovecot holds" grep -qF "in-b $u" "$T_TMP/l"
ub=$(uid "$B" "in-b $u")
bob --fetch "$ub" "$B" >"$T_TMP/m" 2>&1
ok "--fetch from Bücher: the message" grep -qF "body of in-b $u" "$T_TMP/m"

# --- move into and out of them --------------------------------------------
save INBOX "to-j $u"
bob --sync INBOX >/dev/null 2>&1
ui=$(uid INBOX "to-j $u")
bob --move "$ui" "$J" >"$T_TMP/o" 2>&1; rc=$?
ok "--move to 日本語: exit 0" sh -c "[ $rc = 0 ]"
ok "--move to 日本語: Dovecot has it there" [ "$(count "$J" "to-j $u")" = 1 ]
ok "--move to 日本語: and no longer in INBOX" [ "$(count INBOX "to-j $u")" = 0 ]
bob --sync "$J" >/dev/null 2>&1
uj=$(uid "$J" "to-j $u")
ok "--list 日本語: the moved message" [ -n "$uj" ]
bob --move "$uj" "$R" "$J" >"$T_TMP/o" 2>&1; rc=$?
ok "--move from 日本語 to Ру́сский/Entwürfe: exit 0" sh -c "[ $rc = 0 ]"
ok "--move: Dovecot has it in the child folder" [ "$(count "$R" "to-j $u")" = 1 ]

# a name that is not UTF-8 never reaches the server
bob --sync "$(printf 'B\374cher')" >"$T_TMP/o" 2>&1; rc=$?
ok "--sync of a name that is not UTF-8: refused, said" sh -c "[ $rc != 0 ] && grep -q 'not valid UTF-8' '$T_TMP/o'"
# a literal "&" is "&-" on the wire
A="R&D $u"
dove mailbox create -u "$STEED_BOB" "$A" || bail "doveadm cannot create $A"
save "$A" "in-a $u"
bob --sync "$A" >"$T_TMP/o" 2>&1; rc=$?
ok "--sync of a name with &: exit 0" sh -c "[ $rc = 0 ]"
bob --list "$A" >"$T_TMP/l" 2>&1
ok "--list of a name with &: its message" grep -qF "in-a $u" "$T_TMP/l"

# --- roles set in the configuration, to folders named in UTF-8 -------------
sed "/^\[account/a sent-folder = $B\ntrash-folder = $J" "$STEED_ENV/bob.conf" >"$T_TMP/roles.conf"
chmod 600 "$T_TMP/roles.conf"
rb() { XDG_DATA_HOME="$T_TMP/bob" XDG_CACHE_HOME="$T_TMP/bob-c" sm -F "$T_TMP/roles.conf" "$@"; }
rb --check-config >"$T_TMP/cc" 2>&1
ok "--check-config names the configured Sent" grep -qxF "    Sent: \"$B\" (sent-folder)" "$T_TMP/cc"
ok "... and Trash" grep -qxF "    Trash: \"$J\" (trash-folder)" "$T_TMP/cc"
ok "... and says the others are the server's" grep -qxF "    Drafts, Archive: as the server marks them, else by name" "$T_TMP/cc"
echo "to alice" | rb -s "sent-b $u" --no-encrypt "$STEED_ALICE" >"$T_TMP/o" 2>&1; rc=$?
ok "-s with sent-folder set: exit 0" sh -c "[ $rc = 0 ]"
ok "... its copy is in Bücher on the server" sh -c "for i in \$(seq 1 30); do [ \$(doveadm -c '$STEED_DOVECOT_CONF' search -u '$STEED_BOB' mailbox '$B' subject 'sent-b $u' | wc -l) = 1 ] && exit 0; sleep 0.3; done; exit 1"
ok "... and not in Sent" [ "$(count Sent "sent-b $u")" = 0 ]
save INBOX "del-j $u"
rb --sync INBOX >/dev/null 2>&1
ud=$(uid INBOX "del-j $u")
rb --delete "$ud" >"$T_TMP/o" 2>&1; rc=$?
ok "--delete with trash-folder set: exit 0" sh -c "[ $rc = 0 ]"
ok "... the message went to 日本語" [ "$(count "$J" "del-j $u")" = 1 ]
ok "... not to Trash" [ "$(count Trash "del-j $u")" = 0 ]

# --- a folder the server will not count ------------------------------------
X="Unreadable $u"
dove mailbox create -u "$STEED_BOB" "$X" || bail "doveadm cannot create $X"
xp=$(dove mailbox path -u "$STEED_BOB" "$X" 2>/dev/null)
diag "path of $X: $xp"
if [ -n "$xp" ] && [ -d "$xp" ]; then
	chmod 000 "$xp"
	bob --folders >"$T_TMP/f" 2>"$T_TMP/e"; rc=$?
	chmod 700 "$xp"
	diag "$(cat "$T_TMP/e")"
	ok "--folders with one folder uncountable: exit 0" [ "$rc" = 0 ]
	ok "--folders: the others are listed" grep -qF -- "$J	" "$T_TMP/f"
	ok "--folders: the uncountable one is listed with ?" grep -qF -- "$X	?	?" "$T_TMP/f"
	ok "--folders: and said on standard error" grep -qF "folder $X not counted" "$T_TMP/e"
else
	ok "# SKIP doveadm mailbox path gives no directory" true
fi

dove mailbox delete -s -u "$STEED_BOB" "$R" "$B" "$J" "$A" "$X" >/dev/null 2>&1
exit 0
