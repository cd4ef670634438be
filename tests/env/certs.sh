# tests/env/certs.sh: test PKI for the environment (sourced by tests/env/run).
#
# Makes, under $SE_DIR:
#   ca.pem / ca.key            test CA (the only one clients should trust)
#   tls/server.crt/.key        signed by the CA for localhost, imap/smtp/mail.steed.test
#                              and IP 127.0.0.1 (used by Dovecot and Postfix)
#   tls/wronghost.crt/.key     signed by the CA, but for wrong.example only
#   tls/untrusted.crt/.key     self-signed (unknown CA), right names
#   tls/web.crt/.key           signed by the CA for the names of the HTTPS
#                              server (web.sh's SE_WEB_HOSTS)
# EC P-256 keys: generated instantly, accepted by every TLS stack we use.

se_certs() {
	local _c _cn _n _newkey
	_c=$SE_DIR/tls
	mkdir -p "$_c" || se_fail "cannot create $_c"
	# Minimal config so the system openssl.cnf plays no part.
	cat >"$_c/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = DNS:localhost, DNS:imap.steed.test, DNS:smtp.steed.test, DNS:mail.steed.test, IP:127.0.0.1
[wronghost]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = DNS:wrong.example
[selfsigned]
basicConstraints = critical, CA:TRUE
keyUsage = critical, digitalSignature, keyCertSign
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
subjectAltName = DNS:localhost, DNS:imap.steed.test, DNS:smtp.steed.test, DNS:mail.steed.test, IP:127.0.0.1
EOF
	# The HTTPS server's names (web.sh).
	{
		printf '[web]\nbasicConstraints = critical, CA:FALSE\n'
		printf 'keyUsage = critical, digitalSignature\n'
		printf 'extendedKeyUsage = serverAuth\nsubjectKeyIdentifier = hash\n'
		printf 'authorityKeyIdentifier = keyid:always\nsubjectAltName = '
		printf '%s\n' "$SE_WEB_HOSTS" | sed 's/^ *//; s/ *$//; s/  */, DNS:/g; s/^/DNS:/'
	} >>"$_c/openssl.cnf"
	_ossl() {
		OPENSSL_CONF=$_c/openssl.cnf openssl "$@" >>"$_c/openssl.log" 2>&1 ||
			se_fail "openssl $1 (test certificates)" "$_c/openssl.log"
	}
	_newkey="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
	# shellcheck disable=SC2086
	_ossl req -config "$_c/openssl.cnf" -x509 $_newkey -days 60 \
		-subj "/O=Steed test/CN=Steed Test CA" -extensions ca \
		-keyout "$SE_DIR/ca.key" -out "$SE_DIR/ca.pem"
	for _n in server wronghost web; do
		case $_n in
		server) _cn=imap.steed.test ;;
		wronghost) _cn=wrong.example ;;
		web) _cn=autoconfig.autoconfig.test ;;
		esac
		# shellcheck disable=SC2086
		_ossl req -config "$_c/openssl.cnf" -new $_newkey \
			-subj "/O=Steed test/CN=$_cn" \
			-keyout "$_c/$_n.key" -out "$_c/$_n.csr"
		_ossl x509 -req -in "$_c/$_n.csr" -CA "$SE_DIR/ca.pem" \
			-CAkey "$SE_DIR/ca.key" -set_serial "0x$(openssl rand -hex 8)" \
			-days 30 -extfile "$_c/openssl.cnf" -extensions "$_n" \
			-out "$_c/$_n.crt"
	done
	# shellcheck disable=SC2086
	_ossl req -config "$_c/openssl.cnf" -x509 $_newkey -days 30 \
		-subj "/O=Untrusted/CN=imap.steed.test" -extensions selfsigned \
		-keyout "$_c/untrusted.key" -out "$_c/untrusted.crt"
	rm -f "$_c"/*.csr
	chmod 0644 "$SE_DIR/ca.pem" "$_c"/*.crt
	chmod 0600 "$SE_DIR/ca.key" "$_c"/*.key
}
