# exim-smoke.sh: submission through Exim, run beside Postfix: what it offers
# before and after TLS (Python's smtplib through tests/tools/mailcheck.py,
# pointed at Exim's ports), and steedmail sending through it with STARTTLS
# and with implicit TLS, the mail arriving in Dovecot (tests/tools/imapcheck.py).
#
# steed-env-servers asks tests/run for Exim:
# steed-env-servers: exim
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_ENV:-}" ] || bail "STEED_ENV not set: run inside tests/env/run"
if [ -z "${STEED_EXIM_SUBMISSION_PORT:-}" ]; then
	echo "ok 1 - exim: submission # SKIP exim not started (STEED_ENV_SERVERS=all)"
	exit 0
fi

u=$$-$(date +%s)
# mc ARGS: mailcheck.py with Exim's ports in place of Postfix's.
mc() {
	STEED_SUBMISSION_PORT=$STEED_EXIM_SUBMISSION_PORT \
	STEED_SUBMISSIONS_PORT=$STEED_EXIM_SUBMISSIONS_PORT \
		python3 tests/tools/mailcheck.py "$@"
}
# arrives SUBJECT: wait up to 15 s for SUBJECT in bob's INBOX on Dovecot.
arrives() {
	for _ in $(seq 1 30); do
		[ -n "$(python3 tests/tools/imapcheck.py --user bob search INBOX "$1")" ] && return 0
		sleep 0.5
	done
	echo "no message '$1' in bob's INBOX after 15 s"
	tail -5 "$STEED_EXIM_LOG"
	return 1
}

ok "exim: STARTTLS offered, AUTH not before it" \
	mc smtp-ehlo --has starttls --lacks auth plain
ok "exim: AUTH after STARTTLS" mc smtp-ehlo --has auth starttls
ok "exim: implicit TLS with the environment's certificate" \
	mc tls-name "$STEED_EXIM_SUBMISSIONS_PORT" smtp.steed.test
ok "exim: AUTH PLAIN with alice's password" mc smtp-auth starttls "$STEED_ALICE" "$STEED_ALICE_PASS"
ok "exim: a wrong password is refused" mc smtp-auth --expect refused starttls "$STEED_ALICE" wrong-pw
ok "exim: no mail without AUTH" mc send --expect refused starttls "$STEED_ALICE" "$STEED_BOB" "<$u-noauth@steed.test>"

# alice's account with Exim as the submission server.
conf=$(server_account exim-alice dovecot alice) || bail "server_account failed"
sed "s|^smtp = .*|smtp = smtp://localhost:$STEED_EXIM_SUBMISSION_PORT|" "$conf" >"$T_TMP/starttls.conf"
sed "s|^smtp = .*|smtp = smtps://localhost:$STEED_EXIM_SUBMISSIONS_PORT|" "$conf" >"$T_TMP/smtps.conf"
chmod 0600 "$T_TMP/starttls.conf" "$T_TMP/smtps.conf"

ok "exim: steedmail -s through STARTTLS submission" \
	eval 'echo "Hello Bob." | sm -F "$T_TMP/starttls.conf" -s "exim starttls $u" "$STEED_BOB"'
ok "exim: that message is in bob's INBOX" arrives "exim starttls $u"
ok "exim: steedmail -s through implicit TLS" \
	eval 'echo "Hello again." | sm -F "$T_TMP/smtps.conf" -s "exim smtps $u" "$STEED_BOB"'
ok "exim: that message is in bob's INBOX too" arrives "exim smtps $u"
