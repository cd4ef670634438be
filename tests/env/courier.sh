# tests/env/courier.sh: the private Courier IMAP instance (sourced by
# tests/env/run).
#
# Courier IMAP 5.0 as Debian packages it, unpacked by contrib/install-deps
# and run in a namespace of its own (tests/env/nsroot, unpacked.sh):
#   authdaemond        with authuserdb only; what it sees as /etc/courier/
#                      authdaemonrc, userdb.dat and userdbshadow.dat is in
#                      $SE_DIR/courier/root/etc/courier, its socket in
#                      root/run/courier/authdaemon
#   couriertcpd        twice: IMAP with STARTTLS (required before a login)
#                      and IMAPS (couriertls), both on 127.0.0.1, running
#                      imaplogin and imapd with Debian's /etc/courier/imapd
#                      and imapd-ssl settings, changed as below
# $SE_DIR/courier/mail/DOMAIN/USER/Maildir   the users' Maildir++: INBOX,
#                      and INBOX.Sent, INBOX.Trash, INBOX.Drafts (.Sent, ...)
# $SE_DIR/courier/courier.log  what authdaemond, couriertcpd and imapd say
#
# Courier has no SPECIAL-USE: its folders are INBOX.Sent, INBOX.Trash and
# INBOX.Drafts by name only, in the "INBOX." namespace, separator ".".

# se_courier_maildir DIR: an empty Maildir++ at DIR with the usual folders.
se_courier_maildir() {
	local _f
	mkdir -p "$1/cur" "$1/new" "$1/tmp" || return 1
	for _f in Sent Trash Drafts; do
		mkdir -p "$1/.$_f/cur" "$1/.$_f/new" "$1/.$_f/tmp" || return 1
		: >"$1/.$_f/maildirfolder"
	done
	printf 'INBOX.Sent\nINBOX.Trash\nINBOX.Drafts\n' >"$1/courierimapsubscribed"
}

se_courier_setup() {
	local _d _r _u _loc _home _hash
	se_unpacked_need usr/lib/courier/courier-authlib/authdaemond \
		usr/lib/courier/courier/imaplogin usr/bin/imapd usr/sbin/couriertcpd \
		usr/bin/couriertls usr/lib/courier-authlib/libauthuserdb.so.0 \
		usr/lib/courier/courier-authlib/makedatprog etc/courier/imapd \
		etc/courier/imapd-ssl
	_d=$SE_DIR/courier
	_r=$_d/root
	mkdir -p "$_r/etc/courier" "$_r/run/courier/authdaemon" "$_d/mail" ||
		se_fail "cannot create $_r"
	chmod 0750 "$_r/run/courier/authdaemon"
	: >"$_d/courier.log"

	cat >"$_r/etc/courier/authdaemonrc" <<EOF
# authdaemond of the steedmail test environment ($SE_DIR)
authmodulelist="authuserdb"
authmodulelistorig="authuserdb"
daemons=2
authdaemonvar=/run/courier/authdaemon
DEBUG_LOGIN=0
DEFAULTOPTIONS=""
LOGGEROPTS=""
EOF

	# The users, as makeuserdb would write them from /etc/courier/userdb:
	# what is not a password in userdb.dat, the password (crypt(3), SHA-512)
	# in userdbshadow.dat. Mail is stored as SE_MAIL_UID, like Dovecot's.
	: >"$_d/userdb.txt"
	: >"$_d/userdbshadow.txt"
	for _u in alice@steed.test:alice-pw bob@steed.test:bob-pw; do
		_loc=${_u%%@*}
		_home=$_d/mail/steed.test/$_loc
		se_courier_maildir "$_home/Maildir" ||
			se_fail "cannot create the Maildir of ${_u%%:*}"
		_hash=$(openssl passwd -6 "${_u#*:}") || se_fail "openssl passwd failed"
		printf '%s\tuid=%s|gid=%s|home=%s|mail=%s|_=\n' "${_u%%:*}" \
			"$SE_MAIL_UID" "$SE_MAIL_GID" "$_home" "$_home/Maildir" >>"$_d/userdb.txt"
		printf '%s\tsystempw=%s\n' "${_u%%:*}" "$_hash" >>"$_d/userdbshadow.txt"
	done
	chown -R "$SE_MAIL_UID:$SE_MAIL_GID" "$_d/mail"
	chmod 0750 "$_d/mail"
	for _u in userdb userdbshadow; do
		printf '.\n' >>"$_d/$_u.txt"
		"$SE_SERVER_ROOT/usr/lib/courier/courier-authlib/makedatprog" - \
			"$_r/etc/courier/$_u.tmp" "$_r/etc/courier/$_u.dat" \
			<"$_d/$_u.txt" >>"$_d/courier.log" 2>&1 ||
			se_fail "courier: makedatprog could not write $_u.dat" "$_d/courier.log"
		chmod 0600 "$_r/etc/courier/$_u.dat"
	done
	rm -f "$_d/userdbshadow.txt"

	# imaplogin runs couriertls for STARTTLS as the user "courier", which
	# the package would add: here it is in the namespace's /etc/passwd
	# only, with the uid mail is stored as.
	{ cat /etc/passwd; echo "courier:x:$SE_MAIL_UID:$SE_MAIL_GID:Courier mail server:/var/lib/courier:/usr/sbin/nologin"; } \
		>"$_r/etc/passwd"
	{ cat /etc/group; echo "courier:x:$SE_MAIL_GID:"; } >"$_r/etc/group"
	chmod 0644 "$_r/etc/passwd" "$_r/etc/group"

	# couriertls wants the key and the certificate in one file, which it
	# reads as "courier" for STARTTLS.
	cat "$SE_DIR/tls/server.key" "$SE_DIR/tls/server.crt" >"$_r/etc/courier/imapd.pem"
	chown "$SE_MAIL_UID:$SE_MAIL_GID" "$_r/etc/courier/imapd.pem"
	chmod 0600 "$_r/etc/courier/imapd.pem"

	cat >"$_d/init" <<EOF
#!/bin/bash
# pid 1 of Courier's namespace (tests/env/courier.sh): authdaemond and two
# couriertcpd. On TERM they are stopped; when one of them ends, so does
# init, and with it every process left in the namespace.
trap 'kill -TERM \$(jobs -p) 2>/dev/null; wait; exit 0' TERM INT HUP
exec >>"$_d/courier.log" 2>&1
/usr/lib/courier/courier-authlib/authdaemond &
# Debian's settings, then the test environment's.
set -a
prefix=/usr exec_prefix=/usr sbindir=/usr/sbin bindir=/usr/bin
. /etc/courier/imapd
. /etc/courier/imapd-ssl
TLS_CERTFILE=/etc/courier/imapd.pem
TLS_DHPARAMS=
TLS_CACHEFILE=
TLS_VERIFYPEER=NONE
IMAP_STARTTLS=YES
IMAP_TLS_REQUIRED=1
set +a
/usr/sbin/couriertcpd -address=127.0.0.1 -maxprocs=100 -maxperip=100 \\
	-nodnslookup -noidentlookup $SE_COURIER_IMAP_PORT \\
	/usr/lib/courier/courier/imaplogin /usr/bin/imapd Maildir &
IMAP_TLS=1 IMAP_STARTTLS=NO IMAP_TLS_REQUIRED=0 \\
/usr/sbin/couriertcpd -address=127.0.0.1 -maxprocs=100 -maxperip=100 \\
	-nodnslookup -noidentlookup $SE_COURIER_IMAPS_PORT \\
	/usr/bin/couriertls -server -tcpd \\
	/usr/lib/courier/courier/imaplogin /usr/bin/imapd Maildir &
wait -n
echo "init: a server of Courier's exited (status \$?), stopping"
kill -TERM \$(jobs -p) 2>/dev/null
wait
EOF
	chmod 0755 "$_d/init"
}

se_courier_start() {
	se_ns_start courier
}

se_courier_wait() {
	local _pid _p _n
	_pid=$(se_ns_pid courier) ||
		se_fail "courier: its namespace did not start" "$SE_DIR/courier/init.log"
	for _p in "$SE_COURIER_IMAPS_PORT" "$SE_COURIER_IMAP_PORT"; do
		se_wait_tcp "$_p" courier "$SE_DIR/courier/courier.log" "$_pid"
	done
	# Logins go through authdaemond's socket: wait for it too.
	_n=0
	until [ -S "$SE_DIR/courier/root/run/courier/authdaemon/socket" ]; do
		_n=$((_n + 1))
		[ $_n -lt 300 ] || se_fail "courier: authdaemond did not make its socket" \
			"$SE_DIR/courier/courier.log"
		se_alive "$_pid" || se_fail "courier exited" "$SE_DIR/courier/courier.log"
		sleep 0.05
	done
}

se_courier_stop() {
	se_ns_stop courier
}
