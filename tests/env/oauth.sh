# tests/env/oauth.sh: the OAuth2 authorization server of the test
# environment (sourced by tests/env/run): oauth.py on
# 127.0.0.1:$SE_OAUTH_PORT with the test CA's server certificate (it
# names 127.0.0.1), state in memory, files under $SE_DIR/oauth. Dovecot's
# oauth2 passdb asks it about every token (introspection), so IMAP and,
# through Dovecot's SASL, Postfix submission take its access tokens.
# oauth.py's header says what it serves and how a test drives it.

se_oauth_setup() {
	mkdir -p "$SE_DIR/oauth" || se_fail "cannot create $SE_DIR/oauth"
	: >"$SE_DIR/oauth/requests.log"
	# Dovecot's auth process reads this file and asks the server.
	cat >"$SE_DIR/dovecot/oauth2.conf.ext" <<EOF2
introspection_mode = post
introspection_url = https://127.0.0.1:$SE_OAUTH_PORT/introspect
tls_ca_cert_file = $SE_DIR/ca.pem
username_attribute = email
active_attribute = active
active_value = true
EOF2
	chmod 0644 "$SE_DIR/dovecot/oauth2.conf.ext"
	chmod 0755 "$SE_DIR/oauth"
}

se_oauth_start() {
	se_need python3
	se_python "$SE_BIN/oauth.py" "$SE_OAUTH_PORT" "$SE_DIR/oauth" \
	    "$SE_DIR/tls/server.crt" "$SE_DIR/tls/server.key" \
	    >"$SE_DIR/oauth/oauth.log" 2>&1 &
}

se_oauth_wait() {
	local _n _pid
	_n=0
	while [ $_n -lt 100 ] && ! _pid=$(se_pidfile_pid "$SE_DIR/oauth/oauth.pid" python); do
		sleep 0.05; _n=$((_n + 1))
	done
	[ -n "$_pid" ] || se_fail "oauth.py did not start" "$SE_DIR/oauth/oauth.log"
	se_wait_tcp "$SE_OAUTH_PORT" oauth.py "$SE_DIR/oauth/oauth.log" "$_pid"
}

se_oauth_stop() {
	local _pid
	_pid=$(se_pidfile_pid "$SE_DIR/oauth/oauth.pid" python) || return 0
	se_stop_tree "$_pid"
}
