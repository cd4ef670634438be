# tests/integration/testhosts.sh: tests/tools/testhosts.so lets steedmail
# reach the test servers by the names of the test zones.
#
# Without it imap.steed.test does not resolve on this machine; through
# with_test_hosts (tests/lib.sh) steedmail logs in to Dovecot at
# imap.steed.test with the certificate verified for that name, and names
# not listed still go to the real resolver.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_ENV:-}" ] || bail "STEED_ENV not set: run inside tests/env/run"
[ -f "$T_TESTHOSTS" ] || bail "$T_TESTHOSTS not built"

# conf FILE IMAP-HOST: alice's account with her IMAP server named IMAP-HOST.
conf() {
	cat >"$1" <<EOC
ca-file = $STEED_CA_FILE

[account alice]
name = Alice Example
address = $STEED_ALICE
imap = imaps://$2
smtp = smtps://smtp.steed.test:$STEED_SUBMISSIONS_PORT
password = $STEED_ALICE_PASS
EOC
	chmod 600 "$1"
}
conf "$T_TMP/good.conf" imap.steed.test:$STEED_IMAPS_PORT
conf "$T_TMP/usual.conf" imap.steed.test
conf "$T_TMP/wrong.conf" imap.plain.test:$STEED_IMAPS_PORT

# getent ahostsv4 asks getaddrinfo(), as steedmail does.
resolves_local() {
	"$@" getent ahostsv4 imap.steed.test | grep '^127\.0\.0\.1 '
}
fails "imap.steed.test does not resolve without testhosts" \
	getent ahostsv4 imap.steed.test
ok "imap.steed.test resolves to 127.0.0.1 through testhosts" \
	resolves_local with_test_hosts
ok "names not listed go to the real resolver (localhost)" \
	with_test_hosts getent ahostsv4 localhost
fails "a name not listed stays unknown (imap.plain.test)" \
	with_test_hosts getent ahostsv4 imap.plain.test

fails "steedmail cannot reach imap.steed.test without testhosts" \
	sm -F "$T_TMP/good.conf" --folders
folders_inbox() {
	with_test_hosts sm -F "$T_TMP/good.conf" --folders >"$T_TMP/folders" &&
		grep '^INBOX' "$T_TMP/folders"
}
ok "steedmail lists the folders at imap.steed.test, certificate verified" \
	folders_inbox

# The usual port 993 of a listed name goes to the test Dovecot.
usual_port() {
	with_test_hosts sm -F "$T_TMP/usual.conf" --folders >"$T_TMP/usual" &&
		grep '^INBOX' "$T_TMP/usual"
}
ok "imaps://imap.steed.test (port 993) reaches the test server" usual_port

# A listed name that the certificate does not cover is still refused.
refused_cert() {
	! STEED_TEST_HOSTS=imap.plain.test with_test_hosts \
	    sm -F "$T_TMP/wrong.conf" --folders >"$T_TMP/wrong" 2>&1 &&
		grep -i certificate "$T_TMP/wrong"
}
ok "imap.plain.test resolved but not in the certificate: refused" \
	refused_cert
