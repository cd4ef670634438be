# tests/env/exim.sh: the private Exim instance (sourced by tests/env/run).
#
# Exim 4.96 as Debian packages it (exim4-daemon-light), unpacked by
# contrib/install-deps (it conflicts with Postfix) and run in a namespace of
# its own (tests/env/nsroot, unpacked.sh), beside Postfix: submission with
# STARTTLS and with implicit TLS on 127.0.0.1, AUTH PLAIN and LOGIN only
# after TLS, mail for the environment's users at steed.test handed to
# Dovecot over LMTP, like Postfix's. What Exim sees as
#   /etc/exim4/exim4.conf   is $SE_DIR/exim/root/etc/exim4/exim4.conf (the
#                           whole configuration, written here; Debian's
#                           split configuration is not used)
#   /etc/exim4/steed-users  the users and their passwords (ADDRESS: PASSWORD)
#   /var/spool/exim4        $SE_DIR/exim/root/var/spool/exim4
# $SE_DIR/exim/log/mainlog, rejectlog, paniclog   Exim's logs
#
# Exim runs as "Debian-exim", in the namespace's /etc/passwd only, with the
# uid mail is stored as.

se_exim_setup() {
	local _d _r _u
	se_unpacked_need usr/sbin/exim4
	_d=$SE_DIR/exim
	_r=$_d/root
	mkdir -p "$_r/etc/exim4/steed-tls" "$_r/var/spool/exim4" "$_r/run/exim4" \
		"$_d/log" || se_fail "cannot create $_r"
	{ cat /etc/passwd; echo "Debian-exim:x:$SE_MAIL_UID:$SE_MAIL_GID:Exim:/var/spool/exim4:/usr/sbin/nologin"; } \
		>"$_r/etc/passwd"
	{ cat /etc/group; echo "Debian-exim:x:$SE_MAIL_GID:"; } >"$_r/etc/group"
	chmod 0644 "$_r/etc/passwd" "$_r/etc/group"
	chown "$SE_MAIL_UID:$SE_MAIL_GID" "$_r/var/spool/exim4" "$_r/run/exim4" "$_d/log"
	chmod 0750 "$_r/var/spool/exim4"

	cp "$SE_DIR/tls/server.crt" "$SE_DIR/tls/server.key" "$_r/etc/exim4/steed-tls/"
	chown "$SE_MAIL_UID:$SE_MAIL_GID" "$_r/etc/exim4/steed-tls/server.key"
	chmod 0600 "$_r/etc/exim4/steed-tls/server.key"

	: >"$_r/etc/exim4/steed-users"
	for _u in alice@steed.test:alice-pw bob@steed.test:bob-pw; do
		printf '%s: %s\n' "${_u%%:*}" "${_u#*:}" >>"$_r/etc/exim4/steed-users"
	done
	chown "root:$SE_MAIL_GID" "$_r/etc/exim4/steed-users"
	chmod 0640 "$_r/etc/exim4/steed-users"

	cat >"$_r/etc/exim4/exim4.conf" <<EOF
# Private Exim instance of the steedmail test environment ($SE_DIR,
# tests/env/exim.sh).
primary_hostname = smtp.steed.test
qualify_domain = steed.test
domainlist local_domains = steed.test

local_interfaces = <; 127.0.0.1
daemon_smtp_ports = $SE_EXIM_SUBMISSION_PORT : $SE_EXIM_SUBMISSIONS_PORT
tls_on_connect_ports = $SE_EXIM_SUBMISSIONS_PORT
tls_advertise_hosts = *
tls_certificate = /etc/exim4/steed-tls/server.crt
tls_privatekey = /etc/exim4/steed-tls/server.key
tls_require_ciphers = NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2

log_file_path = $_d/log/%slog
log_selector = +smtp_protocol_error +smtp_syntax_error +tls_peerdn
spool_directory = /var/spool/exim4
never_users = root
host_lookup =
rfc1413_hosts =
keep_environment =
smtp_banner = \$smtp_active_hostname ESMTP Exim steed test
# Fast feedback for tests.
queue_run_max = 1
retry_data_expire = 1h
ignore_bounce_errors_after = 1m
timeout_frozen_after = 1h
message_size_limit = 50M

acl_smtp_rcpt = acl_check_rcpt
acl_smtp_mail = acl_check_mail

begin acl

# No MAIL before AUTH (and so before TLS).
acl_check_mail:
  deny    !authenticated = *
          message = 5.7.0 authentication required
  accept

# Only the environment's users at steed.test receive mail.
acl_check_rcpt:
  deny    !authenticated = *
          message = 5.7.0 authentication required
  deny    !domains = +local_domains
          message = 5.7.1 relay not permitted
  deny    !verify = recipient
          message = 5.1.1 no such user
  accept

begin routers

dovecot_users:
  driver = accept
  domains = +local_domains
  condition = \${lookup{\$local_part@\$domain}lsearch{/etc/exim4/steed-users}{yes}{no}}
  transport = dovecot_lmtp

begin transports

dovecot_lmtp:
  driver = smtp
  protocol = lmtp
  hosts = 127.0.0.1
  port = $SE_LMTP_PORT
  allow_localhost

begin retry

*   *   F,10m,30s

begin authenticators

plain:
  driver = plaintext
  public_name = PLAIN
  server_prompts = :
  server_advertise_condition = \${if def:tls_in_cipher}
  server_condition = \${if and{{!eq{\$auth2}{}}{eq{\$auth3}{\${lookup{\$auth2}lsearch{/etc/exim4/steed-users}{\$value}fail}}}}}
  server_set_id = \$auth2

login:
  driver = plaintext
  public_name = LOGIN
  server_prompts = <| Username:: | Password::
  server_advertise_condition = \${if def:tls_in_cipher}
  server_condition = \${if and{{!eq{\$auth1}{}}{eq{\$auth2}{\${lookup{\$auth1}lsearch{/etc/exim4/steed-users}{\$value}fail}}}}}
  server_set_id = \$auth1
EOF
	chmod 0644 "$_r/etc/exim4/exim4.conf"

	cat >"$_d/init" <<EOF
#!/bin/bash
# pid 1 of Exim's namespace (tests/env/exim.sh): the Exim daemon in the
# foreground, with a queue runner every 10 s. On TERM it is stopped; when
# it ends, so does init, and with it every process left in the namespace.
trap 'kill -TERM \$(jobs -p) 2>/dev/null; wait; exit 0' TERM INT HUP
exec >>"$_d/log/init.log" 2>&1
/usr/sbin/exim4 -bV >/dev/null || { echo "init: exim -bV failed"; exit 1; }
/usr/sbin/exim4 -bdf -q10s -oP /run/exim4/exim.pid &
wait \$!
echo "init: exim exited with status \$?"
EOF
	chmod 0755 "$_d/init"
}

se_exim_start() {
	se_ns_start exim
}

se_exim_wait() {
	local _pid _p
	_pid=$(se_ns_pid exim) || se_fail "exim: its namespace did not start" "$SE_DIR/exim/init.log"
	for _p in "$SE_EXIM_SUBMISSION_PORT" "$SE_EXIM_SUBMISSIONS_PORT"; do
		se_wait_tcp "$_p" exim "$SE_DIR/exim/log/init.log" "$_pid"
	done
}

se_exim_stop() {
	se_ns_stop exim
}
