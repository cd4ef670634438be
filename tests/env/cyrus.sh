# tests/env/cyrus.sh: the private Cyrus IMAP instance (sourced by tests/env/run).
#
# Cyrus IMAP 3.6 as Debian packages it, unpacked by contrib/install-deps and
# run in a namespace of its own (tests/env/nsroot, unpacked.sh). What Cyrus
# sees as
#   /etc/imapd.conf    is $SE_DIR/cyrus/root/etc/imapd.conf: Debian's own
#                      with the changes below (servername, TLS, logins
#                      from a sasldb, mailboxes made at the first login)
#   /etc/cyrus.conf    $SE_DIR/cyrus/root/etc/cyrus.conf: IMAP (STARTTLS)
#                      and IMAPS on 127.0.0.1, idled, nothing else
#   /etc/sasldb2       the users, alice@steed.test and bob@steed.test
#   /var/lib/cyrus, /var/spool/cyrus, /run/cyrus
#                      $SE_DIR/cyrus/root/var/..., root/run/cyrus
# $SE_DIR/cyrus/cyrus.log  everything Cyrus logs (to syslog, which here is
#                      tests/env/syslog-sink.py on the namespace's /dev/log)
# $SE_DIR/cyrus/master.log  the master's own stdout and stderr
#
# Cyrus runs as the user mail is stored as (SE_MAIL_UID, "nobody" as root).

se_cyrus_setup() {
	local _d _r _user _k _pw
	se_unpacked_need usr/lib/cyrus/bin/master usr/lib/cyrus/bin/imapd \
		etc/imapd.conf usr/sbin/saslpasswd2
	_d=$SE_DIR/cyrus
	_r=$_d/root
	_user=$(se_user_name "$SE_MAIL_UID")
	[ -n "$_user" ] || se_fail "cyrus: no account name for uid $SE_MAIL_UID"
	mkdir -p "$_r/etc/steed-tls" "$_r/var/lib/cyrus" \
		"$_r/var/spool/cyrus/mail" "$_r/var/spool/cyrus/news" \
		"$_r/var/spool/sieve" "$_r/run/cyrus/proc" "$_r/run/cyrus/lock" \
		"$_r/run/cyrus/socket" || se_fail "cannot create $_r"
	# What Debian's makedirs (run by the package) makes in configdirectory:
	# without socket/, imapd cannot talk to idled, and IDLE polls once a
	# minute.
	for _k in db proc socket log msg user quota lock; do
		mkdir -p "$_r/var/lib/cyrus/$_k" && chmod 0700 "$_r/var/lib/cyrus/$_k" ||
			se_fail "cannot create $_r/var/lib/cyrus/$_k"
	done
	chown -R "$SE_MAIL_UID:$SE_MAIL_GID" "$_r/var/lib/cyrus" \
		"$_r/var/spool/cyrus" "$_r/var/spool/sieve" "$_r/run/cyrus"
	chmod 0750 "$_r/var/lib/cyrus" "$_r/var/spool/cyrus"
	: >"$_d/cyrus.log"
	: >"$_d/master.log"

	# The environment's server certificate; the key readable by Cyrus's
	# user only.
	cp "$SE_DIR/tls/server.crt" "$SE_DIR/tls/server.key" "$_r/etc/steed-tls/"
	chown "$SE_MAIL_UID:$SE_MAIL_GID" "$_r/etc/steed-tls/server.key"
	chmod 0600 "$_r/etc/steed-tls/server.key"

	# Debian's imapd.conf without the options set below, then those.
	_k='servername|cyrus_user|allowplaintext|sasl_pwcheck_method|sasl_auxprop_plugin'
	_k="$_k|sasl_sasldb_path|sasl_mech_list|virtdomains|tls_server_cert|tls_server_key"
	_k="$_k|tls_versions|autocreate_[a-z_]*|xlist-[a-z]*|imapidlepoll"
	{
		grep -v -E "^($_k):" "$SE_SERVER_ROOT/etc/imapd.conf"
		cat <<EOF

# The steedmail test environment's changes ($SE_DIR, tests/env/cyrus.sh)
servername: imap.steed.test
cyrus_user: $_user
# Logins as alice@steed.test, each domain's mailboxes apart.
virtdomains: userid
sasl_pwcheck_method: auxprop
sasl_auxprop_plugin: sasldb
sasl_sasldb_path: /etc/sasldb2
sasl_mech_list: PLAIN LOGIN
# No password without TLS (LOGINDISABLED before STARTTLS).
allowplaintext: no
tls_server_cert: /etc/steed-tls/server.crt
tls_server_key: /etc/steed-tls/server.key
tls_versions: tls1_2 tls1_3
# A user's INBOX and these folders, with their special use, are made at
# the first login.
autocreate_quota: 0
autocreate_inbox_folders: Drafts | Sent | Trash | Junk
autocreate_subscribe_folders: Drafts | Sent | Trash | Junk
xlist-drafts: Drafts
xlist-sent: Sent
xlist-trash: Trash
xlist-junk: Junk
EOF
	} >"$_r/etc/imapd.conf"

	cat >"$_r/etc/cyrus.conf" <<EOF
# Private Cyrus instance of the steedmail test environment ($SE_DIR).
START {
	recover		cmd="ctl_cyrusdb -r"
}
SERVICES {
	imap		cmd="imapd" listen="127.0.0.1:$SE_CYRUS_IMAP_PORT" prefork=0 maxchild=100
	imaps		cmd="imapd -s" listen="127.0.0.1:$SE_CYRUS_IMAPS_PORT" prefork=0 maxchild=100
}
EVENTS {
	checkpoint	cmd="ctl_cyrusdb -c" period=30
}
DAEMON {
	idled		cmd="idled"
}
EOF

	# The users: SASL's sasldb, user alice in the realm steed.test is what
	# a login as alice@steed.test asks for.
	for _pw in alice:alice-pw bob:bob-pw; do
		printf '%s' "${_pw#*:}" | "$SE_SERVER_ROOT/usr/sbin/saslpasswd2" -p -c \
			-f "$_r/etc/sasldb2" -u steed.test "${_pw%%:*}" \
			>>"$_d/master.log" 2>&1 ||
			se_fail "cyrus: saslpasswd2 could not add ${_pw%%:*}" "$_d/master.log"
	done
	chown "$SE_MAIL_UID:$SE_MAIL_GID" "$_r/etc/sasldb2"
	chmod 0600 "$_r/etc/sasldb2"

	cat >"$_d/init" <<EOF
#!/bin/bash
# pid 1 of Cyrus's namespace (tests/env/cyrus.sh): a syslog reader, then
# the master. On TERM both are stopped; when the master ends, so does
# init, and with it every process left in the namespace.
trap 'kill -TERM \$(jobs -p) 2>/dev/null; wait; exit 0' TERM INT HUP
$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || command -v python3) "$SE_BIN/syslog-sink.py" /dev/log "$_d/cyrus.log" &
n=0
while [ ! -S /dev/log ] && [ \$n -lt 200 ]; do sleep 0.01; n=\$((n + 1)); done
/usr/lib/cyrus/bin/master -C /etc/imapd.conf -M /etc/cyrus.conf \\
	-p /run/cyrus/master.pid -L "$_d/master.log" &
wait \$!
echo "init: the master exited with status \$?"
EOF
	chmod 0755 "$_d/init"
}

se_cyrus_start() {
	se_ns_start cyrus
}

se_cyrus_wait() {
	local _pid _p
	_pid=$(se_ns_pid cyrus) || se_fail "cyrus: its namespace did not start" "$SE_DIR/cyrus/init.log"
	for _p in "$SE_CYRUS_IMAPS_PORT" "$SE_CYRUS_IMAP_PORT"; do
		se_wait_tcp "$_p" cyrus "$SE_DIR/cyrus/cyrus.log" "$_pid"
	done
}

se_cyrus_stop() {
	se_ns_stop cyrus
}
