# tests/integration/env-smoke.sh: the test environment itself works.
#
# Checks the servers tests/env/run starts, with independent clients
# (python's imaplib/smtplib through tests/tools/mailcheck.py, and
# tests/tools/dnsq), before any steedmail test relies on them.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_ENV:-}" ] || bail "STEED_ENV not set: run inside tests/env/run"

MC="python3 tests/tools/mailcheck.py"
DNSQ=tests/tools/dnsq
[ -x "$DNSQ" ] || bail "$DNSQ not built"
tag=smoke-$$-$(date +%s)

# --- environment description -------------------------------------------

env_complete() {
	local v missing=
	for v in STEED_ENV STEED_ENV_BIN STEED_HOST STEED_IMAPS_PORT STEED_IMAP_PORT \
		STEED_SUBMISSION_PORT STEED_SUBMISSIONS_PORT STEED_LMTP_PORT \
		STEED_DNS_PORT STEED_CA_FILE STEED_DNS_CONF STEED_DNS_TA \
		STEED_ZONE_SECURE STEED_ZONE_INSECURE STEED_ZONE_BOGUS \
		STEED_ALICE STEED_ALICE_PASS STEED_BOB STEED_BOB_PASS \
		STEED_GNUPGHOME_ALICE STEED_GNUPGHOME_BOB STEED_MAILDIR_ROOT \
		STEED_DOVECOT_LOG STEED_POSTFIX_LOG STEED_NSD_LOG \
		STEED_WRONGHOST_CERT STEED_WRONGHOST_KEY \
		STEED_UNTRUSTED_CERT STEED_UNTRUSTED_KEY; do
		[ -n "${!v:-}" ] || missing="$missing $v"
	done
	[ -z "$missing" ] || { echo "missing:$missing"; return 1; }
	for v in STEED_CA_FILE STEED_DNS_CONF STEED_DNS_TA STEED_WRONGHOST_CERT \
		STEED_UNTRUSTED_CERT STEED_DOVECOT_LOG STEED_POSTFIX_LOG STEED_NSD_LOG; do
		[ -s "${!v}" ] || { echo "$v: ${!v} missing or empty"; return 1; }
	done
}
ok "env.sh exports every documented variable" env_complete

certs_as_expected() {
	openssl verify -CAfile "$STEED_CA_FILE" "$STEED_WRONGHOST_CERT" || return 1
	openssl x509 -in "$STEED_WRONGHOST_CERT" -noout -ext subjectAltName |
		grep -q 'DNS:wrong.example' || return 1
	! openssl verify -CAfile "$STEED_CA_FILE" "$STEED_UNTRUSTED_CERT"
}
ok "wrong-host cert is CA-signed, untrusted cert is not" certs_as_expected

# --- IMAP (Dovecot) ----------------------------------------------------

ok "IMAPS CAPABILITY lists IDLE CONDSTORE QRESYNC MOVE SPECIAL-USE" \
	$MC imap-caps "$STEED_ALICE" "$STEED_ALICE_PASS" \
	IDLE CONDSTORE QRESYNC MOVE SPECIAL-USE
ok "IMAPS certificate is valid for imap.steed.test" \
	$MC tls-name "$STEED_IMAPS_PORT" imap.steed.test
ok "IMAPS certificate is not valid for other.example" \
	$MC tls-name --expect-fail "$STEED_IMAPS_PORT" other.example
ok "LOGIN without STARTTLS is refused" \
	$MC imap-login --expect refused plain "$STEED_ALICE" "$STEED_ALICE_PASS"
ok "LOGIN after STARTTLS works" \
	$MC imap-login starttls "$STEED_ALICE" "$STEED_ALICE_PASS"
ok "LOGIN over IMAPS works" \
	$MC imap-login imaps "$STEED_BOB" "$STEED_BOB_PASS"
ok "IMAP LOGIN with a wrong password is refused" \
	$MC imap-login --expect refused imaps "$STEED_ALICE" wrong-pw
ok "LIST (SPECIAL-USE) shows \\Sent \\Drafts \\Trash \\Junk" \
	$MC imap-special "$STEED_ALICE" "$STEED_ALICE_PASS" \
	'\Sent' '\Drafts' '\Trash' '\Junk'

# --- submission (Postfix) ----------------------------------------------

ok "submission offers STARTTLS but no AUTH before it" \
	$MC smtp-ehlo --has starttls --lacks auth plain
ok "submission offers AUTH PLAIN LOGIN after STARTTLS" \
	$MC smtp-ehlo --has auth starttls
ok "SMTP certificate is valid for smtp.steed.test" \
	$MC tls-name "$STEED_SUBMISSIONS_PORT" smtp.steed.test

id1="<$tag-starttls@steed.test>"
ok "alice submits to bob (STARTTLS, AUTH)" \
	$MC send --auth "$STEED_ALICE" "$STEED_ALICE_PASS" \
	starttls "$STEED_ALICE" "$STEED_BOB" "$id1"
id2="<$tag-smtps@steed.test>"
ok "alice submits to bob (implicit TLS, AUTH)" \
	$MC send --auth "$STEED_ALICE" "$STEED_ALICE_PASS" \
	smtps "$STEED_ALICE" "$STEED_BOB" "$id2"
ok "STARTTLS submission arrives in bob's INBOX" \
	$MC wait-msg "$STEED_BOB" "$STEED_BOB_PASS" "$id1"
ok "implicit-TLS submission arrives in bob's INBOX" \
	$MC wait-msg "$STEED_BOB" "$STEED_BOB_PASS" "$id2"
ok "submission without AUTH is refused" \
	$MC send --expect refused starttls "$STEED_ALICE" "$STEED_BOB" \
	"<$tag-noauth@steed.test>"
ok "SMTP AUTH with a wrong password is refused" \
	$MC smtp-auth --expect refused starttls "$STEED_ALICE" wrong-pw
ok "SMTP AUTH with a wrong password is refused (implicit TLS)" \
	$MC smtp-auth --expect refused smtps "$STEED_BOB" wrong-pw

added_user_works() {
	"$STEED_ENV_BIN/add-user" "carol-$$@steed.test" carol-pw &&
	$MC imap-login imaps "carol-$$@steed.test" carol-pw &&
	$MC send --auth "carol-$$@steed.test" carol-pw \
		smtps "carol-$$@steed.test" "$STEED_BOB" "<$tag-carol@steed.test>" &&
	$MC wait-msg "$STEED_BOB" "$STEED_BOB_PASS" "<$tag-carol@steed.test>"
}
ok "add-user: new user logs in and sends" added_user_works

# --- DNS (NSD + libunbound) --------------------------------------------

# dq NAME TYPE: validated lookup through the environment's unbound.conf.
dq() { "$DNSQ" -c "$STEED_DNS_CONF" "$1" "$2"; }

# dns_expect NAME TYPE STATUS RCODE [HEX]: first line has status and rcode
# (and, if given, some record equals HEX).
dns_expect() {
	local out
	out=$(dq "$1" "$2") || return 1
	printf '%s\n' "$out"
	printf '%s\n' "$out" | head -n 1 | grep -q "^status=$3 rcode=$4 " || return 1
	[ -z "${5:-}" ] || printf '%s\n' "$out" | sed 1d | grep -qx "$5"
}

# hex of an SRV record: priority weight port target.
srv_hex() {
	printf '%04x%04x%04x' "$1" "$2" "$3"
	local l
	for l in $(printf '%s' "$4" | tr '.' ' '); do
		printf '%02x' "${#l}"
		printf '%s' "$l" | od -An -tx1 | tr -d ' \n'
	done
	printf '00\n'
}

ok "imap.steed.test A is secure" \
	dns_expect imap.steed.test A secure NOERROR 7f000001
ok "_imaps._tcp.steed.test SRV is secure, names the IMAPS port" \
	dns_expect _imaps._tcp.steed.test SRV secure NOERROR \
	"$(srv_hex 0 1 "$STEED_IMAPS_PORT" imap.steed.test)"
ok "_submission._tcp.steed.test SRV is secure, names the submission port" \
	dns_expect _submission._tcp.steed.test SRV secure NOERROR \
	"$(srv_hex 0 1 "$STEED_SUBMISSION_PORT" smtp.steed.test)"
ok "_submissions._tcp.steed.test SRV names the implicit-TLS port" \
	dns_expect _submissions._tcp.steed.test SRV secure NOERROR \
	"$(srv_hex 0 1 "$STEED_SUBMISSIONS_PORT" smtp.steed.test)"
ok "_imap._tcp.steed.test SRV names the STARTTLS port" \
	dns_expect _imap._tcp.steed.test SRV secure NOERROR \
	"$(srv_hex 0 1 "$STEED_IMAP_PORT" imap.steed.test)"
ok "nonexistent name in steed.test: NXDOMAIN, secure" \
	dns_expect "nx-$$.steed.test" A secure NXDOMAIN
ok "plain.test answers are insecure" \
	dns_expect www.plain.test A insecure NOERROR 7f000001
ok "plain.test TXT is insecure" \
	dns_expect plain.test TXT insecure NOERROR

bogus_with_reason() {
	local out
	out=$(dq "$1" "$2") || return 1
	printf '%s\n' "$out"
	printf '%s\n' "$out" | head -n 1 | grep -q '^status=bogus ' &&
	printf '%s\n' "$out" | grep -q '^why_bogus=.'
}
ok "tampered A record in broken.test is bogus, with a reason" \
	bogus_with_reason "$STEED_BOGUS_A" A
ok "tampered TXT record in broken.test is bogus" \
	bogus_with_reason "$STEED_BOGUS_TXT" TXT
ok "untouched record in broken.test is still secure" \
	dns_expect ok.broken.test A secure NOERROR 7f000001
ok "stub zones given on the command line work too" \
	"$DNSQ" -a "$STEED_DNS_TA" -s "steed.test@127.0.0.1@$STEED_DNS_PORT" \
	mail.steed.test A

zone_set_txt() {
	local n="txt-$$"
	"$STEED_ENV_BIN/zone-set" steed.test "$n" TXT '"first value"' &&
	dns_expect "$n.steed.test" TXT secure NOERROR \
		"$(printf '\013first value' | od -An -tx1 | tr -d ' \n')" &&
	"$STEED_ENV_BIN/zone-set" steed.test "$n" TXT '"second"' &&
	dns_expect "$n.steed.test" TXT secure NOERROR \
		"$(printf '\006second' | od -An -tx1 | tr -d ' \n')" &&
	dq "$n.steed.test" TXT | head -n 1 | grep -q ' count=1$' &&
	"$STEED_ENV_BIN/zone-set" --delete steed.test "$n" TXT &&
	dns_expect "$n.steed.test" TXT secure NXDOMAIN
}
ok "zone-set adds, replaces and deletes a TXT record (secure)" zone_set_txt

# --- GnuPG -------------------------------------------------------------

gpg_keygen() {
	local t0 t1
	t0=$(date +%s%N)
	GNUPGHOME=$STEED_GNUPGHOME_ALICE gpg --batch --passphrase '' \
		--quick-gen-key "Alice <$STEED_ALICE>" ed25519 || return 1
	t1=$(date +%s%N)
	echo "key generation took $(( (t1 - t0) / 1000000 )) ms"
	[ $(( (t1 - t0) / 1000000 )) -lt 3000 ] &&
	GNUPGHOME=$STEED_GNUPGHOME_ALICE gpg --batch --list-secret-keys "$STEED_ALICE"
}
ok "gpg generates a key in alice's GNUPGHOME quickly" gpg_keygen

# In the home itself, or (when /run/user/UID exists) in gpg's per-home
# socket directory there, which teardown removes.
agent_socket_private() {
	local s
	s=$(GNUPGHOME=$STEED_GNUPGHOME_ALICE gpgconf --list-dirs agent-socket)
	echo "agent socket: $s"
	case $s in
	"$STEED_GNUPGHOME_ALICE"/S.gpg-agent) return 0 ;;
	/run/user/"$(id -u)"/gnupg/d.*/S.gpg-agent) return 0 ;;
	*) return 1 ;;
	esac
}
ok "gpg-agent socket is private to alice's GNUPGHOME" agent_socket_private

openpgpkey_published() {
	local out h rd want
	out=$(GNUPGHOME=$STEED_GNUPGHOME_ALICE gpg --export-options export-dane \
		--export "$STEED_ALICE") || return 1
	h=$(printf '%s\n' "$out" | awk '$2 == "TYPE61" { print $1; exit }')
	rd=$(printf '%s\n' "$out" | sed -n '/ TYPE61 /,$p' | sed '1s/^[^ ]* TYPE61 //')
	want=$(printf '%s\n' "$rd" | tr -d '()\t ' | sed 1d | tr -d '\n' | tr 'A-F' 'a-f')
	[ -n "$h" ] && [ -n "$want" ] || { echo "no TYPE61 record in: $out"; return 1; }
	"$STEED_ENV_BIN/zone-set" steed.test "$h._openpgpkey" TYPE61 "$rd" &&
	dns_expect "$h._openpgpkey.steed.test" OPENPGPKEY secure NOERROR "$want"
}
ok "zone-set publishes gpg's export-dane OPENPGPKEY, seen secure" openpgpkey_published

# --- logs --------------------------------------------------------------

no_server_errors() {
	! grep -iE 'fatal|panic' "$STEED_POSTFIX_LOG" &&
	! grep -E 'Fatal:|Panic:' "$STEED_DOVECOT_LOG" &&
	! grep -E 'error:' "$STEED_NSD_LOG"
}
ok "no fatal errors in the server logs" no_server_errors
