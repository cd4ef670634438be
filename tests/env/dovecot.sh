# tests/env/dovecot.sh: the private Dovecot instance (sourced by tests/env/run).
#
# $SE_DIR/dovecot/dovecot.conf   complete config (nothing from /etc/dovecot)
# $SE_DIR/dovecot/users          passwd-file (passdb and userdb); add-user appends
# $SE_DIR/dovecot/run            base_dir (sockets, master.pid)
# $SE_DIR/dovecot/dovecot.log    all logging
# $SE_DIR/mail/DOMAIN/USER       homes, mail in ~/Maildir

# se_mail_ids: choose the uid/gid mail is stored under (SE_MAIL_UID/GID).
# Dovecot refuses uid 0 for mail users, so as root an existing unprivileged
# account is used (nobody, else dovecot); otherwise the current user.
se_mail_ids() {
	local _u
	if [ "$(id -u)" -eq 0 ]; then
		for _u in nobody dovecot; do
			if id -u "$_u" >/dev/null 2>&1; then
				SE_MAIL_UID=$(id -u "$_u")
				SE_MAIL_GID=$(id -g "$_u")
				return 0
			fi
		done
		se_fail "no unprivileged account (nobody or dovecot) to own the test mailboxes"
	fi
	SE_MAIL_UID=$(id -u)
	SE_MAIL_GID=$(id -g)
}

# se_user_line ADDRESS PASSWORD: the passwd-file line of a mail user.
se_user_line() {
	local _dom _loc
	_dom=${1#*@}
	_loc=${1%@*}
	printf '%s:{PLAIN}%s:%s:%s::%s/mail/%s/%s::\n' "$1" "$2" \
		"$SE_MAIL_UID" "$SE_MAIL_GID" "$SE_DIR" "$_dom" "$_loc"
}

se_dovecot_setup() {
	local _chroot _d _internal_user _login_user
	_d=$SE_DIR/dovecot
	mkdir -p "$_d/run" "$_d/state" "$SE_DIR/mail" || se_fail "cannot create $_d"
	se_user_line alice@steed.test alice-pw >"$_d/users"
	se_user_line bob@steed.test bob-pw >>"$_d/users"
	chmod 0644 "$_d/users"
	chown "$SE_MAIL_UID:$SE_MAIL_GID" "$SE_DIR/mail"
	chmod 0750 "$SE_DIR/mail"

	if [ "$(id -u)" -eq 0 ]; then
		_login_user=dovenull
		_internal_user=dovecot
		id -u dovenull >/dev/null 2>&1 || _login_user=nobody
		id -u dovecot >/dev/null 2>&1 || _internal_user=nobody
		_chroot=login
	else
		_login_user=$(id -un)
		_internal_user=$_login_user
		_chroot=
	fi

	cat >"$_d/dovecot.conf" <<EOF
# Private Dovecot instance of the steedmail test environment.
base_dir = $_d/run
state_dir = $_d/state
instance_name = steed-${SE_DIR##*/}
protocols = imap lmtp
listen = 127.0.0.1
log_path = $_d/dovecot.log
info_log_path = $_d/dovecot.log
debug_log_path = $_d/dovecot.log
log_timestamp = "%Y-%m-%d %H:%M:%S "

default_login_user = $_login_user
default_internal_user = $_internal_user
first_valid_uid = $SE_MAIL_UID
first_valid_gid = $SE_MAIL_GID

ssl = required
ssl_cert = <$SE_DIR/tls/server.crt
ssl_key = <$SE_DIR/tls/server.key
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = yes
auth_mechanisms = plain login oauthbearer xoauth2
auth_failure_delay = 0
auth_cache_size = 0

# Dovecot counts loopback connections as secured, so disable_plaintext_auth
# alone would let LOGIN through without TLS here. This passdb denies every
# IMAP login that did not come over TLS (%{secured} is "TLS" only then;
# Postfix's SASL requests are service smtp and already need TLS there).
passdb {
  driver = passwd-file
  mechanisms = plain login
  deny = yes
  args = username_format=%{if;%{service};eq;imap;%{if;%{secured};eq;TLS;-;%u};-} $_d/users
}
passdb {
  driver = passwd-file
  mechanisms = plain login
  args = scheme=PLAIN username_format=%u $_d/users
}
# OAuth2 (oauth.sh): each token shown is asked about at the test
# authorization server (introspection); it must be active and name the
# user who logs in.
passdb {
  driver = oauth2
  mechanisms = oauthbearer xoauth2
  args = $_d/oauth2.conf.ext
}
userdb {
  driver = passwd-file
  args = username_format=%u $_d/users
}

mail_location = maildir:~/Maildir

namespace inbox {
  inbox = yes
  separator = /
  prefix =
  mailbox Drafts {
    special_use = \Drafts
    auto = subscribe
  }
  mailbox Sent {
    special_use = \Sent
    auto = subscribe
  }
  mailbox Trash {
    special_use = \Trash
    auto = subscribe
  }
  mailbox Junk {
    special_use = \Junk
    auto = subscribe
  }
  # Gmail's, made by a test that wants it (not for every user)
  mailbox "All Mail" {
    special_use = \All
  }
}

protocol imap {
  mail_max_userip_connections = 200
}
protocol lmtp {
  postmaster_address = postmaster@steed.test
}

service imap-login {
  chroot = $_chroot
  inet_listener imap {
    address = 127.0.0.1
    port = $SE_IMAP_PORT
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $SE_IMAPS_PORT
    ssl = yes
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = $SE_LMTP_PORT
  }
}
# No auth penalty (growing delays after failed logins from one IP): the
# tests fail logins on purpose, all from 127.0.0.1.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service auth {
  inet_listener auth-smtp {
    address = 127.0.0.1
    port = $SE_AUTH_PORT
  }
}
EOF
	# A bench of a large mailbox (tests/bench/mailbox.sh) needs more than
	# the imap process's default 256 MB: Dovecot's index of a million
	# messages alone is more.
	if [ -n "${STEED_ENV_IMAP_VSZ_LIMIT:-}" ]; then
		cat >>"$_d/dovecot.conf" <<EOF
service imap {
  vsz_limit = $STEED_ENV_IMAP_VSZ_LIMIT
}
EOF
	fi
	if [ "$(id -u)" -ne 0 ]; then
		cat >>"$_d/dovecot.conf" <<EOF
default_internal_group = $(id -gn)
service anvil {
  chroot =
}
EOF
	fi
}

se_dovecot_start() {
	local _d
	_d=$SE_DIR/dovecot
	se_need dovecot doveconf
	doveconf -c "$_d/dovecot.conf" -n >"$_d/doveconf.out" 2>&1 ||
		se_fail "dovecot: configuration rejected (doveconf)" "$_d/doveconf.out"
	dovecot -c "$_d/dovecot.conf" >>"$_d/dovecot.log" 2>&1 ||
		se_fail "dovecot did not start" "$_d/dovecot.log"
}

se_dovecot_wait() {
	local _d _n _p _pid
	_d=$SE_DIR/dovecot
	_pid=
	_n=0
	while [ $_n -lt 100 ] && ! _pid=$(se_pidfile_pid "$_d/run/master.pid" dovecot); do
		sleep 0.05; _n=$((_n + 1))
	done
	[ -n "$_pid" ] || se_fail "dovecot did not write its pid file" "$_d/dovecot.log"
	for _p in "$SE_IMAPS_PORT" "$SE_IMAP_PORT" "$SE_LMTP_PORT" "$SE_AUTH_PORT"; do
		se_wait_tcp "$_p" dovecot "$_d/dovecot.log" "$_pid"
	done
}

se_dovecot_stop() {
	local _pid
	_pid=$(se_pidfile_pid "$SE_DIR/dovecot/run/master.pid" dovecot) || return 0
	# The master alone takes a second to wind down its children.
	se_stop_tree "$_pid" TERM all
}
