# tests/env/gnupg.sh: GnuPG homes of the test identities (sourced by
# tests/env/run). One short GNUPGHOME per identity under $SE_DIR/g/, empty
# keyrings; tests may add more homes there, teardown handles all of them.

# se_gnupg_home DIR: create a GNUPGHOME suitable for unattended tests.
se_gnupg_home() {
	mkdir -p "$1" && chmod 0700 "$1" || se_fail "cannot create GnuPG home $1"
	cat >"$1/gpg-agent.conf" <<'EOF'
allow-loopback-pinentry
EOF
	cat >"$1/gpg.conf" <<'EOF'
no-greeting
EOF
}

se_gnupg_setup() {
	se_need gpg gpgconf
	mkdir -p "$SE_DIR/g" && chmod 0700 "$SE_DIR/g" || se_fail "cannot create $SE_DIR/g"
	se_gnupg_home "$SE_DIR/g/alice"
	se_gnupg_home "$SE_DIR/g/bob"
}

# se_gnupg_stop: stop the agents (and dirmngr, keyboxd, scdaemon) of every
# home under $SE_DIR/g and of the identities' homes (homes.sh), and remove
# socket directories gpg may have put under /run/user/UID.
se_gnupg_stop() {
	local _h _sd
	for _h in "$SE_DIR"/g/*/ "$SE_DIR"/home/*/data/steedmail/gnupg/; do
		[ -d "$_h" ] || continue
		_h=${_h%/}
		gpgconf --homedir "$_h" --kill all >/dev/null 2>&1
		_sd=$(gpgconf --homedir "$_h" --list-dirs socketdir 2>/dev/null)
		case $_sd in
		"$_h") ;;
		/run/user/*) gpgconf --homedir "$_h" --remove-socketdir >/dev/null 2>&1 ;;
		esac
	done
}
