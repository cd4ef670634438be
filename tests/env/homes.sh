# tests/env/homes.sh: a home of their own for each test identity (sourced
# by tests/env/run; tests/env/as reads the same layout).
#
# $SE_DIR/home/NAME holds everything steedmail and GnuPG keep for NAME:
#   config/steedmail/config   XDG_CONFIG_HOME: NAME's account, with
#                             dns-config pointing at the test zones
#   data/                     XDG_DATA_HOME: trust store, outbox, drafts,
#                             and steedmail's GnuPG home data/steedmail/gnupg
#   cache/                    XDG_CACHE_HOME: header and DNS caches
# GNUPGHOME is data/steedmail/gnupg, so gpg run in the home sees the keys
# steedmail made there. Nothing here starts a process; se_gnupg_stop
# (gnupg.sh) stops the agents of these GnuPG homes at teardown.

# se_home NAME ADDRESS PASSWORD: make NAME's home; its account is ADDRESS.
se_home() {
	local _h _Name
	_h=$SE_DIR/home/$1
	_Name=$(printf '%s' "$1" | sed 's/^./\U&/')
	mkdir -p "$_h/config/steedmail" "$_h/data/steedmail" "$_h/cache" &&
		chmod 0700 "$_h" ||
		se_fail "cannot create the home of $1 ($_h)"
	se_gnupg_home "$_h/data/steedmail/gnupg"
	cat >"$_h/config/steedmail/config" <<EOF
# steedmail configuration of $1 in the test environment $SE_DIR
# (tests/env/homes.sh): the test zones' DNS, the test CA.
dns-config = $SE_DIR/dns/unbound.conf
ca-file = $SE_DIR/ca.pem

[account $1]
name = $_Name Example
address = $2
imap = imaps://localhost:$SE_IMAPS_PORT
smtp = smtp://localhost:$SE_SUBMISSION_PORT
password = $3
EOF
	chmod 0600 "$_h/config/steedmail/config"
}

se_homes_setup() {
	mkdir -p "$SE_DIR/home" || se_fail "cannot create $SE_DIR/home"
	se_home alice alice@steed.test alice-pw
	se_home bob bob@steed.test bob-pw
}
