# tests/integration/quirks.sh: the large providers' ways, against the real
# Postfix and Dovecot. Limits said in words, with Postfix's limits lowered
# for the test: a message larger than the SIZE its EHLO names is refused
# before it is uploaded, with both sizes, and kept in the outbox's failed
# messages; too many recipients for one message (452 4.5.3) is said as
# such and the message waits in the outbox. Postfix's settings are put
# back afterwards. And Gmail, which keeps its own copy of sent mail: a
# user whose IMAP server says X-GM-EXT-1 (Dovecot told to, for that user)
# gets no second copy appended to Sent, unless sent-copy = yes.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_POSTFIX_CONF:-}" ] || bail "no test environment (run under tests/env/run)"

pf() { postconf -c "$STEED_POSTFIX_CONF" "$@"; }
size0=$(pf -h message_size_limit)
rcpt0=$(pf -h smtpd_recipient_limit)
restore() {
	pf -e "message_size_limit=$size0" "smtpd_recipient_limit=$rcpt0"
	postfix -c "$STEED_POSTFIX_CONF" reload >/dev/null 2>&1
	rm -rf "$T_TMP"
}
trap restore EXIT
alice() { XDG_DATA_HOME="$T_TMP/alice" XDG_CACHE_HOME="$T_TMP/alice-c" sm -F "$STEED_ENV/alice.conf" "$@"; }
queued() { ls "$T_TMP/alice/steedmail/outbox/" 2>/dev/null | grep -c '\.env$'; }
failed() { ls "$T_TMP/alice/steedmail/outbox/failed/" 2>/dev/null | grep -c '\.eml$'; }
u=$$-$(date +%s)

pf -e message_size_limit=200000 smtpd_recipient_limit=2
postfix -c "$STEED_POSTFIX_CONF" reload >/dev/null 2>&1
sleep 1

head -c 300000 /dev/urandom >"$T_TMP/big.bin"
echo "a large one" | alice -s "big $u" -a "$T_TMP/big.bin" "$STEED_BOB" >"$T_TMP/o" 2>&1
rc=$?
ok "larger than the server's SIZE: refused before the upload, both sizes said" sh -c "[ $rc != 0 ] && grep -q 'the message is 0.4 MB, more than the 0.2 MB the submission server takes (its EHLO said SIZE 200000): make it smaller' '$T_TMP/o'"
ok "... and nothing was uploaded" sh -c "! grep -q 'message file too big\\|size exceeds' '$STEED_POSTFIX_LOG'"
ok "... the message kept among the outbox's failed ones" test "$(failed)" = 1

echo "to three" | alice -s "three $u" -c "$STEED_ALICE" -c carol@steed.test "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "too many recipients: queued, and said in words" sh -c "grep -q '4.5.3' '$T_TMP/o' && grep -q 'that is: too many recipients for one message' '$T_TMP/o' && [ $(queued) = 1 ]"

# --- Gmail keeps its own copy of sent mail ------------------------------------
pf -e "message_size_limit=$size0" "smtpd_recipient_limit=$rcpt0"
postfix -c "$STEED_POSTFIX_CONF" reload >/dev/null 2>&1
"$STEED_ENV_BIN/add-user" gm@steed.test gm-pw >/dev/null 2>&1 || bail "add-user gm"
sed -i 's|^\(gm@steed.test:.*\)::$|\1::userdb_imap_capability=+X-GM-EXT-1|' "$STEED_ENV/dovecot/users"
sed "s/alice/gm/g" "$STEED_ENV/alice.conf" >"$T_TMP/gm.conf"
printf 'sent-copy = yes\n' | cat "$T_TMP/gm.conf" - >"$T_TMP/gm-yes.conf"
chmod 0600 "$T_TMP/gm.conf" "$T_TMP/gm-yes.conf"
gm() { XDG_DATA_HOME="$T_TMP/gm" XDG_CACHE_HOME="$T_TMP/gm-c" sm -F "$T_TMP/gm.conf" "$@"; }
gmyes() { XDG_DATA_HOME="$T_TMP/gm" XDG_CACHE_HOME="$T_TMP/gm-c" sm -F "$T_TMP/gm-yes.conf" "$@"; }
echo "from a Gmail-like account" | gm -d 1 -s "gmail $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
ok "a server saying X-GM-EXT-1: sent, and no copy appended to Sent" sh -c "[ $? = 0 ] && grep -q 'keeps its own copy of sent mail: none appended' '$T_TMP/gm-c/steedmail/debug.log' && [ \$(XDG_DATA_HOME='$T_TMP/gm' XDG_CACHE_HOME='$T_TMP/gm-c' '$STEEDMAIL' -F '$T_TMP/gm.conf' --list Sent 2>/dev/null | grep -c 'gmail $u') = 0 ]"
ok "... and the outbox is empty" sh -c "[ -z \"\$(ls '$T_TMP/gm/steedmail/outbox/' 2>/dev/null | grep '\\.env\$')\" ]"
echo "a copy wanted" | gmyes -s "gmail copy $u" "$STEED_BOB" >"$T_TMP/o" 2>&1
sleep 1
ok "sent-copy = yes: the copy is appended all the same" sh -c "[ \$(XDG_DATA_HOME='$T_TMP/gm' XDG_CACHE_HOME='$T_TMP/gm-c' '$STEEDMAIL' -F '$T_TMP/gm.conf' --list Sent 2>/dev/null | grep -c 'gmail copy $u') = 1 ]"

# --- Gmail's labels are folders; [Gmail]/All Mail is a special one -------------
dove() { doveadm -c "$STEED_DOVECOT_CONF" "$@"; }
dove mailbox create -u gm@steed.test "All Mail" "Alpha label" >/dev/null 2>&1
gm --folders >"$T_TMP/f" 2>&1
ok "\\All (Gmail's All Mail) is listed with the special folders, before the labels" sh -c "awk -F '\t' '{ print \$1 }' '$T_TMP/f' | tr '\n' , | grep -q '^INBOX,Drafts,Sent,All Mail,Junk,Trash,Alpha label,'"
