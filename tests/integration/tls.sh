# tests/integration/tls.sh: the secure connection layer, driven by tests/tools/nettest.
# Logins to the real Dovecot and Postfix over implicit TLS and STARTTLS;
# then refusals: wrong password, wrong host, unknown authority, wrong pin,
# no STARTTLS, injected bytes, PREAUTH, each against tests/tools/fakesrv.py,
# whose log must show that no login and no password was ever sent; and
# answers after login past the bounds of the guard below libetpan.
. "$(dirname "$0")/../lib.sh"

NT=$PWD/tests/tools/nettest
FS=$PWD/tests/tools/fakesrv.py
[ -x "$NT" ] || bail "tests/tools/nettest is not built (make tests/tools/nettest)"
[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"

H=$STEED_HOST
PW=$STEED_ALICE_PASS
FAKE_PW=fake-secret-pw

# fp CERT [plain]: SHA-256 of CERT as "AB:CD:..." (or 64 lower-case hex).
fp() {
	local f
	f=$(openssl x509 -in "$1" -noout -fingerprint -sha256 | sed 's/.*=//')
	if [ "${2:-}" = plain ]; then echo "$f" | tr -d : | tr A-F a-f; else echo "$f"; fi
}

# conf NAME tls|plain IMAP-PORT SMTP-PORT PASSWORD [LINE...]: write a
# configuration with one account, print its file name.
conf() {
	local f=$T_TMP/$1.conf s= line
	[ "$2" = tls ] && s=s
	{
		echo "[account t]"
		echo "address = $STEED_ALICE"
		echo "imap = imap$s://$H:$3"
		echo "smtp = smtp$s://$H:$4"
		[ -n "$5" ] && echo "password = $5"
		shift 5
		for line; do echo "$line"; done
	} >"$f"
	chmod 600 "$f"
	echo "$f"
}

# fake MODE [CERT KEY]: start fakesrv; sets FPORT, FLOG and FPID.
fake() {
	local mode=$1 portf
	shift
	FLOG=$T_TMP/fake.$mode.$t_n.log
	portf=$T_TMP/fake.port
	: >"$FLOG"
	: >"$portf"
	python3 "$FS" "$mode" "$FLOG" "$@" --timeout 30 >"$portf" &
	FPID=$!
	for _ in $(seq 100); do
		[ -s "$portf" ] && break
		sleep 0.05
	done
	FPORT=$(cat "$portf")
	[ -n "$FPORT" ] || bail "fakesrv $mode did not start"
}

# fake_done: wait for the fake server to finish with its one connection.
fake_done() { wait "$FPID" 2>/dev/null; }

# sane: the last run had no sanitizer report (a refusal exits 1 anyway).
sane() {
	if grep -qE 'Sanitizer|runtime error' "$T_TMP/run.out"; then
		echo "sanitizer report"
		return 1
	fi
}

# works PROTO CONF [TEXT]: nettest succeeds (and prints TEXT).
works() {
	"$NT" "$1" "$2" >"$T_TMP/run.out" 2>&1
	local rc=$?
	cat "$T_TMP/run.out"
	[ $rc -eq 0 ] && sane || return 1
	[ -z "${3:-}" ] || has "$T_TMP/run.out" "$3"
}

# refuses PROTO CONF TEXT: nettest fails, and says TEXT.
refuses() {
	if "$NT" "$1" "$2" >"$T_TMP/run.out" 2>&1; then
		cat "$T_TMP/run.out"
		echo "nettest succeeded"
		return 1
	fi
	cat "$T_TMP/run.out"
	sane || return 1
	has "$T_TMP/run.out" "$3" || { echo "expected: $3"; return 1; }
}

# nopw LOG: the fake server got no login command and no password, in
# clear or in base64 (alone, or as the SASL PLAIN message).
nopw() {
	local plain b64
	plain=$(printf '\0%s\0%s' "$STEED_ALICE" "$FAKE_PW" | base64 -w0)
	b64=$(printf '%s' "$FAKE_PW" | base64 -w0)
	sed 's/^/log: /' "$1"
	if grep -qiE '^[^ ]+ (LOGIN|AUTHENTICATE)( |$)|^AUTH( |$)' "$1"; then
		echo "a login command reached the server"
		return 1
	fi
	if grep -qF -e "$FAKE_PW" -e "$plain" -e "$b64" "$1"; then
		echo "the password reached the server"
		return 1
	fi
}

# --- Real servers ---------------------------------------------------------

CA="ca-file = $STEED_CA_FILE"
c=$(conf imaps tls "$STEED_IMAPS_PORT" "$STEED_SUBMISSIONS_PORT" "$PW" "$CA")
ok "IMAPS login to Dovecot with the test CA" works imap "$c" "ok imap logged in"
ok "IMAPS session reports capabilities after login" works imap "$c" "IDLE"
ok "SMTPS (implicit TLS) login to Postfix" works smtp "$c" "ok smtp logged in"

# By name: SNI and the DNS name in the certificate; "localhost" may give
# ::1 first, where nothing listens, so the next address must be tried.
c=$(conf byname tls "$STEED_IMAPS_PORT" "$STEED_SUBMISSIONS_PORT" "$PW" "$CA")
sed -i "s|://$H:|://localhost:|" "$c"
ok "IMAPS login by host name (localhost)" works imap "$c" "ok imap logged in to localhost"
ok "SMTPS login by host name (localhost)" works smtp "$c" "ok smtp logged in to localhost"

c=$(conf starttls plain "$STEED_IMAP_PORT" "$STEED_SUBMISSION_PORT" "$PW" "$CA")
ok "IMAP STARTTLS login to Dovecot" works imap "$c" "ok imap logged in"
ok "submission STARTTLS login to Postfix" works smtp "$c" "ok smtp logged in"

c=$(conf badpw-tls tls "$STEED_IMAPS_PORT" "$STEED_SUBMISSIONS_PORT" wrong-pw "$CA")
ok "IMAPS wrong password refused with the server's words" refuses imap "$c" \
    "IMAP login as $STEED_ALICE refused: [AUTHENTICATIONFAILED] Authentication failed."
ok "SMTPS wrong password refused with the server's words" refuses smtp "$c" \
    "SMTP login as $STEED_ALICE refused: 535 5.7.8"
c=$(conf badpw-st plain "$STEED_IMAP_PORT" "$STEED_SUBMISSION_PORT" wrong-pw "$CA")
ok "IMAP STARTTLS wrong password refused" refuses imap "$c" \
    "IMAP login as $STEED_ALICE refused: [AUTHENTICATIONFAILED]"
ok "submission STARTTLS wrong password refused" refuses smtp "$c" \
    "SMTP login as $STEED_ALICE refused: 535"

SERVER_FP=$(fp "$STEED_SERVER_CERT")
c=$(conf system tls "$STEED_IMAPS_PORT" "$STEED_SUBMISSIONS_PORT" "$PW")
ok "system store does not trust the test CA (IMAPS)" refuses imap "$c" \
    "TLS certificate of $H not trusted: signed by an unknown authority (SHA-256 $SERVER_FP)"
ok "system store does not trust the test CA (SMTPS)" refuses smtp "$c" \
    "signed by an unknown authority (SHA-256 $SERVER_FP)"
c=$(conf system-st plain "$STEED_IMAP_PORT" "$STEED_SUBMISSION_PORT" "$PW")
ok "system store does not trust the test CA (IMAP STARTTLS)" refuses imap "$c" \
    "signed by an unknown authority (SHA-256 $SERVER_FP)"
ok "system store does not trust the test CA (submission STARTTLS)" refuses smtp "$c" \
    "signed by an unknown authority (SHA-256 $SERVER_FP)"

c=$(conf pinned tls "$STEED_IMAPS_PORT" "$STEED_SUBMISSIONS_PORT" "$PW" \
    "cert-fingerprint = $SERVER_FP")
ok "pinned server certificate accepted without any CA (IMAPS)" works imap "$c" "ok imap"
ok "pinned server certificate accepted without any CA (SMTPS)" works smtp "$c" "ok smtp"

c=$(conf pwcmd plain "$STEED_IMAP_PORT" "$STEED_SUBMISSION_PORT" "" "$CA" \
    "password-command = printf '%s\\n' '$PW'; echo second line")
ok "password from password-command" works imap "$c" "ok imap"
c=$(conf pwcmd-fail plain "$STEED_IMAP_PORT" "$STEED_SUBMISSION_PORT" "" "$CA" \
    "password-command = exit 4")
ok "failing password-command: exit status in the message" refuses imap "$c" \
    "password-command for account t failed (exit status 4)"

closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
c=$(conf closed tls "$closed" "$closed" "$PW" "$CA")
ok "closed port: plain-words cause" refuses imap "$c" \
    "cannot connect to $H:$closed: Connection refused"

# --- Certificates that must be refused (fake server over TLS) ------------

WRONG_FP=$(fp "$STEED_WRONGHOST_CERT")
UNTRUSTED_FP=$(fp "$STEED_UNTRUSTED_CERT")

fake tls-cert "$STEED_WRONGHOST_CERT" "$STEED_WRONGHOST_KEY"
c=$(conf wronghost tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "certificate for another host refused, fingerprint shown" refuses imap "$c" \
    "TLS certificate of $H is for wrong.example, not $H (SHA-256 $WRONG_FP)"
fake_done
ok "wrong host: no password sent" nopw "$FLOG"

fake tls-cert "$STEED_UNTRUSTED_CERT" "$STEED_UNTRUSTED_KEY"
c=$(conf untrusted tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "certificate of an unknown authority refused, fingerprint shown" refuses imap "$c" \
    "TLS certificate of $H not trusted: signed by an unknown authority (SHA-256 $UNTRUSTED_FP)"
fake_done
ok "unknown authority: no password sent" nopw "$FLOG"

fake tls-cert "$STEED_UNTRUSTED_CERT" "$STEED_UNTRUSTED_KEY"
c=$(conf pin-right tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA" \
    "cert-fingerprint = $(fp "$STEED_UNTRUSTED_CERT" plain)")
ok "pin of the right fingerprint accepts the self-signed certificate" works imap "$c" "ok imap"
fake_done
ok "pinned: the login went over that TLS connection" grep -q "AUTHENTICATE PLAIN" "$FLOG"

fake tls-cert "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf pin-wrong tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA" \
    "cert-fingerprint = $(fp "$STEED_UNTRUSTED_CERT" plain)")
ok "wrong pin refused even though the CA vouches for the certificate" refuses imap "$c" \
    "TLS certificate of $H does not match the pinned fingerprint (server sent SHA-256 $SERVER_FP)"
fake_done
ok "wrong pin: no password sent" nopw "$FLOG"

# --- Lying servers before TLS ---------------------------------------------

fake imap-nostarttls
c=$(conf nostarttls plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP server without STARTTLS refused" refuses imap "$c" \
    "server $H does not offer STARTTLS; refusing to send the password in clear"
fake_done
ok "IMAP without STARTTLS: no password sent" nopw "$FLOG"

fake smtp-nostarttls
c=$(conf smtp-nostarttls plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "SMTP server without STARTTLS refused" refuses smtp "$c" \
    "server $H does not offer STARTTLS; refusing to send the password in clear"
fake_done
ok "SMTP without STARTTLS: no password sent" nopw "$FLOG"

# CAPABILITY answered OK without a CAPABILITY line, then a literal
# announced and the connection closed, both before STARTTLS: said, and
# nothing more (libetpan's own CAPABILITY died on the first; its literal
# reader went on for ever on the second; steedmail's own reader takes no
# literal before login)
quick() {	# quick PROTO CONF TEXT: nettest ends within 20 s, saying TEXT
	timeout 20 "$NT" "$1" "$2" >"$T_TMP/run.out" 2>&1
	[ $? -ne 124 ] || { echo "nettest still running after 20 s"; return 1; }
	cat "$T_TMP/run.out"
	sane && has "$T_TMP/run.out" "$3"
}
fake imap-nocaps
c=$(conf imap-nocaps plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP: CAPABILITY answered with none: said, no crash" quick imap "$c" "sent no capabilities"
fake_done
fake imap-literal-close
c=$(conf imap-literal-close plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP: a literal announced before login: refused, said at once" quick imap "$c" "sent a malformed answer to CAPABILITY: a literal before login"
fake_done
ok "... and no password sent" nopw "$FLOG"

# a greeting line that never ends, before STARTTLS: dropped after 16 kB
# (libetpan kept a line until its end: this one would fill the memory)
fake imap-endless
c=$(conf imap-endless plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP: a greeting that never ends: refused, said at once" quick imap "$c" "sent a malformed greeting: a line longer than 16384 bytes"
fake_done
endless_cut() {
	sent=$(sed -n 's/^# sent \([0-9]*\) bytes.*/\1/p' "$FLOG")
	echo "the fake server got $sent bytes out"
	[ -n "$sent" ] && [ "$sent" -lt $((64 * 1024 * 1024)) ]
}
ok "... after a few kB of it, not the 256 MB the server had" endless_cut

# an EHLO reply with a tab after an unknown AUTH mechanism: read to its
# end (libetpan's own reader spins there for ever), so the missing
# STARTTLS is said at once
fake smtp-ehlo-tab
c=$(conf smtp-ehlo-tab plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ehlo_tab() {
	timeout 20 "$NT" smtp "$c" >"$T_TMP/run.out" 2>&1
	[ $? -ne 124 ] || { echo "nettest still running after 20 s"; return 1; }
	cat "$T_TMP/run.out"
	sane && has "$T_TMP/run.out" "does not offer STARTTLS"
}
ok "SMTP: a tab in EHLO's AUTH line is read through, STARTTLS missing said" ehlo_tab
fake_done
ok "... and no password sent" nopw "$FLOG"

fake imap-inject "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf inject plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP bytes injected after STARTTLS refused" refuses imap "$c" \
    "server $H sent data before the TLS handshake; possible injection attack"
fake_done
ok "IMAP injection: no password sent" nopw "$FLOG"

fake smtp-inject "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf smtp-inject plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "SMTP bytes injected after STARTTLS refused" refuses smtp "$c" \
    "server $H sent data before the TLS handshake; possible injection attack"
fake_done
ok "SMTP injection: no password sent" nopw "$FLOG"

fake imap-preauth
c=$(conf preauth plain "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "PREAUTH greeting before STARTTLS refused" refuses imap "$c" \
    "server $H greeted with PREAUTH before TLS; refusing"
fake_done
ok "PREAUTH: no password sent" nopw "$FLOG"

# --- Lying servers after login ---------------------------------------------

# guarded CONF TEXT: nettest imap-list ends within 20 s, saying TEXT, with
# no sanitizer report, and its memory stayed small (the guard below
# libetpan, src/imap-frame.c, ended the connection before libetpan took
# what the server announced)
guarded() {
	/usr/bin/time -f %M -o "$T_TMP/rss" timeout 20 "$NT" imap-list "$1" \
	    >"$T_TMP/run.out" 2>&1
	local rc=$? rss
	cat "$T_TMP/run.out"
	[ $rc -ne 124 ] || { echo "nettest still running after 20 s"; return 1; }
	sane && has "$T_TMP/run.out" "$2" || return 1
	rss=$(tail -1 "$T_TMP/rss")
	echo "largest resident size: $rss kB"
	# libetpan holds a line of up to 16 MiB while it grows (doubling),
	# and AddressSanitizer keeps freed memory a while: some 140 MB with
	# the sanitizers, 40 without; past the bound it would hold the fake
	# server's 256 MB and more
	[ -n "$rss" ] && [ "$rss" -lt 200000 ]
}

fake imap-hugeliteral "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf hugeliteral tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP: a literal of 4 GB announced after login: the connection ends, said in words" \
    guarded "$c" "the server $H sent a literal of 4294967296 bytes (more than 256 MB) in its answer to LIST; connection closed"
fake_done

fake imap-longline "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf longline tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP: a LIST line that never ends after login: the connection ends, said in words" \
    guarded "$c" "the server $H sent a line longer than 16 MB in its answer to LIST; connection closed"
fake_done
longline_cut() {
	sent=$(sed -n 's/^# sent \([0-9]*\) bytes.*/\1/p' "$FLOG")
	echo "the fake server got $sent bytes out"
	[ -n "$sent" ] && [ "$sent" -lt $((64 * 1024 * 1024)) ]
}
ok "... after some 16 MB of it, not the 256 MB the server had" longline_cut

# a reply whose response code breaks the grammar in a way libetpan's
# parser reads through a NULL on (found by the imap-session campaign):
# checked before libetpan reads it
fake imap-permanentflags "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf permanentflags tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP: '[PERMANENTFLAGS (' at a reply's end after login: the connection ends, said in words" \
    guarded "$c" "the server $H sent a malformed status response (a flag expected) in its answer to LIST; connection closed"
fake_done

# --- The other ways of logging in -----------------------------------------

fake imap-login "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf imap-login tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "IMAP server without AUTH=PLAIN: LOGIN over TLS" works imap "$c" "ok imap"
fake_done
ok "LOGIN was what was sent" grep -q "^1 LOGIN " "$FLOG"

fake smtp-login "$STEED_SERVER_CERT" "$STEED_SERVER_KEY"
c=$(conf smtp-login tls "$FPORT" "$FPORT" "$FAKE_PW" "$CA")
ok "SMTP server with only AUTH LOGIN: AUTH LOGIN over TLS" works smtp "$c" "ok smtp"
fake_done
ok "AUTH LOGIN was what was sent" grep -q "^AUTH LOGIN$" "$FLOG"

exit 0
