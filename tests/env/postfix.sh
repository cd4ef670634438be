# tests/env/postfix.sh: the private Postfix instance (sourced by tests/env/run).
#
# $SE_DIR/postfix            config_directory (main.cf, master.cf)
# $SE_DIR/postfix-queue      queue_directory (root-owned, as Postfix wants)
# $SE_DIR/postfix-data       data_directory (owned by the postfix user)
# (not below the config directory: "postfix check" wants that all root-owned)
# $SE_DIR/postfix/maillog    maillog_file (written by postlogd)
#
# Only the two submission services listen (STARTTLS and implicit TLS); AUTH
# goes to Dovecot, mail for steed.test goes to Dovecot's LMTP port.

# se_postfix_users: the recipients Postfix accepts, from Dovecot's users.
se_postfix_users() {
	awk -F: '{ print tolower($1) " OK" }' "$SE_DIR/dovecot/users" \
	    >"$SE_DIR/postfix/vmailbox.new" &&
	    mv "$SE_DIR/postfix/vmailbox.new" "$SE_DIR/postfix/vmailbox"
}

se_postfix_setup() {
	local _p
	_p=$SE_DIR/postfix
	if [ "$(id -u)" -ne 0 ]; then
		se_fail "postfix: the test environment must run as root (Postfix's master daemon cannot run unprivileged)"
	fi
	id -u postfix >/dev/null 2>&1 ||
		se_fail "postfix: system user 'postfix' is missing (is the postfix package installed?)"
	getent group postdrop >/dev/null 2>&1 ||
		se_fail "postfix: system group 'postdrop' is missing (is the postfix package installed?)"
	mkdir -p "$_p" "$_p-queue" "$_p-data" || se_fail "cannot create $_p"
	chmod 0755 "$_p" "$_p-queue"
	chown postfix "$_p-data"
	chmod 0700 "$_p-data"
	: >"$_p/maillog"

	cat >"$_p/main.cf" <<EOF
# Private Postfix instance of the steedmail test environment.
compatibility_level = 3.6
queue_directory = $_p-queue
data_directory = $_p-data
mail_owner = postfix
setgid_group = postdrop
maillog_file = $_p/maillog
maillog_file_prefixes = $SE_DIR

myhostname = smtp.steed.test
mydomain = steed.test
myorigin = \$mydomain
mydestination =
local_recipient_maps =
local_transport = error:5.1.1 local delivery is disabled
alias_maps =
alias_database =
relayhost =
biff = no
append_dot_mydomain = no

inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.1/32
disable_dns_lookups = yes
smtp_host_lookup = native
lmtp_host_lookup = native
smtpd_peername_lookup = no

virtual_mailbox_domains = steed.test
virtual_transport = lmtp:inet:127.0.0.1:$SE_LMTP_PORT
# The users Dovecot knows, so an unknown one is refused at RCPT (5.1.1)
# instead of bouncing later; add-user rewrites it and reloads Postfix.
virtual_mailbox_maps = texthash:$SE_DIR/postfix/vmailbox

# Fast feedback for tests.
smtpd_error_sleep_time = 0
in_flow_delay = 0
queue_run_delay = 10s
minimal_backoff_time = 5s
maximal_backoff_time = 30s
delay_warning_time = 0
message_size_limit = 52428800

smtpd_banner = \$myhostname ESMTP steed test
smtpd_tls_chain_files = $SE_DIR/tls/server.key, $SE_DIR/tls/server.crt
smtpd_tls_security_level = may
smtpd_tls_auth_only = yes
smtpd_tls_loglevel = 1
smtp_tls_security_level = none
lmtp_tls_security_level = none

smtpd_sasl_type = dovecot
smtpd_sasl_path = inet:127.0.0.1:$SE_AUTH_PORT
smtpd_sasl_auth_enable = no
smtpd_sasl_security_options = noanonymous
smtpd_sasl_tls_security_options = noanonymous
broken_sasl_auth_clients = no
smtpd_relay_restrictions = permit_sasl_authenticated, reject_unauth_destination
smtpd_recipient_restrictions = permit_sasl_authenticated, reject
EOF

	cat >"$_p/master.cf" <<EOF
# service type  private unpriv  chroot  wakeup  maxproc command + args
127.0.0.1:$SE_SUBMISSION_PORT inet n - n - - smtpd
  -o syslog_name=postfix/submission
  -o smtpd_tls_security_level=encrypt
  -o smtpd_tls_auth_only=yes
  -o smtpd_sasl_auth_enable=yes
  -o smtpd_client_restrictions=
  -o smtpd_recipient_restrictions=permit_sasl_authenticated,reject
  -o smtpd_relay_restrictions=permit_sasl_authenticated,reject
127.0.0.1:$SE_SUBMISSIONS_PORT inet n - n - - smtpd
  -o syslog_name=postfix/submissions
  -o smtpd_tls_wrappermode=yes
  -o smtpd_tls_security_level=encrypt
  -o smtpd_sasl_auth_enable=yes
  -o smtpd_client_restrictions=
  -o smtpd_recipient_restrictions=permit_sasl_authenticated,reject
  -o smtpd_relay_restrictions=permit_sasl_authenticated,reject
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
virtual   unix  -       n       n       -       -       virtual
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
EOF
	# Postfix waits up to two seconds when main.cf or master.cf is very
	# new (guarding against half-written files); make them look settled.
	touch -d '-1 minute' "$_p/main.cf" "$_p/master.cf"
}

se_postfix_start() {
	local _p
	_p=$SE_DIR/postfix
	se_need postfix postconf
	# "postfix start" also runs the integrity checks and creates the queue
	# directories; its output goes to the log, problems show up there.
	postconf -c "$_p" -n >/dev/null 2>"$_p/start.log"
	if [ -s "$_p/start.log" ]; then
		se_fail "postfix: configuration problem (postconf)" "$_p/start.log"
	fi
	postfix -c "$_p" start >>"$_p/start.log" 2>&1 || {
		# Without a terminal on stderr, early fatal errors only go to
		# syslog; rerun the check on a pseudo terminal to see them.
		if command -v script >/dev/null 2>&1; then
			script -qc "postfix -c '$_p' check" /dev/null >>"$_p/start.log" 2>&1
		fi
		cat "$_p/maillog" >>"$_p/start.log" 2>/dev/null
		se_fail "postfix did not start" "$_p/start.log"
	}
}

se_postfix_wait() {
	local _n _p _pid
	_p=$SE_DIR/postfix
	_pid=
	_n=0
	while [ $_n -lt 100 ] && ! _pid=$(se_pidfile_pid "$_p-queue/pid/master.pid" master); do
		sleep 0.05; _n=$((_n + 1))
	done
	[ -n "$_pid" ] || se_fail "postfix master did not write its pid file" "$_p/maillog"
	se_wait_tcp "$SE_SUBMISSION_PORT" postfix "$_p/maillog" "$_pid"
	se_wait_tcp "$SE_SUBMISSIONS_PORT" postfix "$_p/maillog" "$_pid"
	if grep -E 'fatal|panic' "$_p/maillog" >/dev/null 2>&1; then
		se_fail "postfix logged a fatal error" "$_p/maillog"
	fi
}

se_postfix_stop() {
	local _p _pid _tree
	_p=$SE_DIR/postfix
	_pid=$(se_pidfile_pid "$_p-queue/pid/master.pid" master) || return 0
	_tree=$(se_tree "$_pid" | tr '\n' ' ')
	postfix -c "$_p" abort >>"$_p/start.log" 2>&1
	# shellcheck disable=SC2086
	se_wait_gone 50 $_tree && return 0
	se_stop_tree "$_pid" KILL
}
