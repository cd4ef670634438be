# tui-hold.sh: the table of doc/dns.md ("Keys from DNS and the policy")
# cell by cell through the compose screen, in tmux at 80x24, as alice in
# her own home: for each policy (the defaults, fallback = ask, fallback =
# refuse, encrypt = always, encrypt = never) and each answer for a new
# recipient (secure with a key, insecure with a key, no record, bogus, no
# answer), the security line, and what y does: sent (encrypted or in
# clear), asked, refused, held (asked "send in clear anyway?", Enter is
# no; E and P still work), or put in the outbox to wait for DNS, where
# the outbox screen shows why. Then a signed message from the bogus
# address: the sync's lookup pins nothing, and the trust screens (K, W)
# show the bogus answer. hold.sh does the table through -s.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib-tui.sh"

[ -n "${STEED_ENV:-}" ] || bail "no test environment (run under tests/env/run)"
export TZ=UTC
as() { "$STEED_ENV_BIN/as" "$@"; }
u=$$-$(date +%s)
AH=$STEED_ENV/home/alice
G=$T_TMP/g
mkdir -m 700 "$G"
published=
trap 'for r in $published; do "$STEED_ENV_BIN/zone-set" --delete "${r%%:*}" "${r#*:}" TYPE61 >/dev/null 2>&1; done
	for f in "$AH"/data/steedmail/outbox/*.env; do [ -e "$f" ] && grep -q down.test "$f" && rm -f "${f%.env}".*; done
	gpgconf --homedir "$G" --kill all >/dev/null 2>&1; tui_cleanup' EXIT

{ cat "$STEED_DNS_CONF"; printf 'stub-zone:\n\tname: "down.test"\n\tstub-addr: 127.0.0.1@%s\n' "$STEED_DNS_PORT"; } >"$T_TMP/hold.unbound.conf"
conf() {
	_n=$1; shift
	{ for _s; do echo "$_s"; done
	  sed "s|^dns-config = .*|dns-config = $T_TMP/hold.unbound.conf|" "$AH/config/steedmail/config"; } >"$T_TMP/$_n.conf"
	chmod 600 "$T_TMP/$_n.conf"
}
conf default
conf ask "fallback = ask"
conf refuse "fallback = refuse"
conf always "encrypt = always"
conf never "encrypt = never"

as alice steedmail --genkey >"$T_TMP/gen" 2>&1 || bail "alice --genkey: $(cat "$T_TMP/gen")"
key() {
	gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase '' \
	    --quick-gen-key "<$1>" future-default default 1y >/dev/null 2>&1 || return 1
	gpg --homedir "$G" --export-options export-dane --export "<$1>" >"$T_TMP/dane" 2>/dev/null
	_o=$(awk '$2 == "TYPE61" { print $1; exit }' "$T_TMP/dane")
	published="$published $2:$_o._openpgpkey"
	"$STEED_ENV_BIN/zone-set" $3 "$2" "$_o._openpgpkey" TYPE61 \
	    "$(sed -n '/ TYPE61 /,$p' "$T_TMP/dane" | sed '1s/^[^\\]*//')" >"$T_TMP/zs" 2>&1 ||
		{ cat "$T_TMP/zs"; return 1; }
}
# ins POLICY: its insecure recipient (short: the line after sending names
# it, on 80 columns)
ins() { case $1 in ask) echo "ik$$@plain.test" ;; *) echo "i${1%"${1#?}"}$$@plain.test" ;; esac; }
for p in default ask refuse always never; do
	"$STEED_ENV_BIN/add-user" "tsec.$p.$u@steed.test" "pw-$u" >/dev/null || bail "add-user"
	key "tsec.$p.$u@steed.test" steed.test || bail "cannot publish tsec.$p"
	key "$(ins "$p")" plain.test || bail "cannot publish $(ins "$p")"
done
NONE=tnone.$u@steed.test
"$STEED_ENV_BIN/add-user" "$NONE" "pw-$u" >/dev/null || bail "add-user"
BOG=dora$$@broken.test		# short: the question names it
key "$BOG" broken.test --bogus || bail "cannot publish $BOG bogus"
DOWN=tf.$u@down.test

# The scripted editor writes a line and ends.
printf '#!/bin/sh\necho "text of the cell" >>"$1"\n' >"$T_TMP/editor"
chmod +x "$T_TMP/editor"
run_alice() {
	tui_start "$1" env LANG=C.UTF-8 VISUAL= XDG_RUNTIME_DIR= EDITOR="$T_TMP/editor" \
	    TMPDIR="$T_TMP" "$STEED_ENV_BIN/as" alice steedmail -d 1 -F "$T_TMP/$2.conf"
	tui_wait "$1" "sort: date" 30
}
compose() {
	tui_keys "$1" m
	if tui_capture "$1" | grep -q "recall one?" || { sleep 0.3; tui_capture "$1" | grep -q "recall one?"; }; then
		tui_keys "$1" n
	fi
	tui_wait "$1" "| compose" 10 && tui_keys "$1" Enter Enter
}
# secline NAME: the security line as it reads, its second row joined when
# it goes on there.
secline() {
	tui_capture "$1" | awk '/^Security: / { s = substr($0, 11); getline n
		if (substr(n, 1, 10) ~ /^ *$/ && substr(n, 11, 1) != " " && n !~ /^ *sign: /)
			s = s " " substr(n, 11)
		sub(/ *$/, "", s); print s; exit }'
}
# to NAME ADDR: To is ADDR, and every lookup has answered.
to() {
	tui_keys "$1" t; tui_type "$1" "$2"; tui_keys "$1" Enter
	tui_wait "$1" "To:      $2" 10 && sleep 0.2 && tui_gone "$1" "looking up..." 30
}
# reads NAME LINE: the security line is LINE (before " | sign"), or
# starts with it when it is too long for its two rows.
reads() {
	_l=$(secline "$1")
	_l=${_l%% | sign:*}
	[ "$_l" = "$2" ] && return 0
	case $2 in "$_l"*) [ ${#_l} -ge 100 ] && return 0 ;; esac
	echo "the security line reads: $_l"; echo "not: $2"; tui_capture "$1" | sed 's/^/#|/'
	echo "# the end of alice's debug log:"; tail -n 40 "$AH/cache/steedmail/debug.log" 2>/dev/null | sed 's/^/#  /'
	return 1
}
# (alice runs with -d 1: a cell that reads otherwise shows the end of her
# debug log, where a key that could not be taken says why)
# back NAME: the message is gone (sent, queued or discarded): the index.
back() { tui_wait "$1" "sort: date" 30; }
discard() { tui_keys "$1" q; tui_wait "$1" "discard this message?" && tui_keys "$1" y && back "$1"; }
held_count() { ls "$AH/data/steedmail/outbox" 2>/dev/null | grep -c '\.held$'; }

wait_line="waits for DNS: no answer for $DOWN (servfail)"
held_line="held: the DNS answer for $BOG was forged (possible attack)"
for p in default ask refuse always never; do
	run_alice "$p" "$p" >/dev/null || bail "alice's index did not open ($p)"
	# secure, with a key
	compose "$p" >/dev/null; to "$p" "tsec.$p.$u@steed.test" >/dev/null
	if [ "$p" = never ]; then
		ok "secure x never: in clear" reads never "in clear: encrypt = never"
		tui_keys never y
		ok "... y sends it in clear" eval "tui_wait never 'sent in clear: encrypt = never' 60 && back never"
	else
		ok "secure x $p: encrypted, the key DNS-secure" reads "$p" "encrypt: yes (1/1 key: 1 DNS-secure)"
		tui_keys "$p" y
		ok "... y sends it encrypted" eval "tui_wait '$p' 'encrypted to 1 recipient' 60 && back '$p'"
	fi
	# insecure, with a key
	compose "$p" >/dev/null; to "$p" "$(ins "$p")" >/dev/null
	if [ "$p" = never ]; then
		ok "insecure x never: in clear" reads never "in clear: encrypt = never"
		tui_keys never y
		ok "... y sends it in clear" eval "tui_wait never 'sent in clear: encrypt = never' 60 && back never"
	else
		ok "insecure x $p: encrypted, the key marked as from DNS, not DNS-secure" reads "$p" "encrypt: yes (1/1 key: 1 DNS)"
		tui_keys "$p" y
		# (the line's lookup took the key, on first contact: sending
		# takes it from the trust store)
		ok "... y sends it encrypted" eval "tui_wait '$p' 'encrypted to 1 recipient' 60 && back '$p'"
	fi
	# no record
	compose "$p" >/dev/null; to "$p" "$NONE" >/dev/null
	case $p in
	default)
		ok "none x default: in clear, and why" reads default "in clear: no key for $NONE (looked up: DNS none, no Autocrypt seen)"
		tui_keys default y
		ok "... y sends it in clear" eval "tui_wait default 'sent in clear: no key for $NONE' 60 && back default" ;;
	ask)
		ok "none x ask: ask" reads ask "ask: no key for $NONE (looked up: DNS none, no Autocrypt seen)"
		tui_keys ask y
		ok "... y asks" tui_wait ask "no key for $NONE: send in clear? (y/n)"
		tui_keys ask n
		ok "... n: not sent, kept" tui_wait ask "not sent; the message is kept"
		discard ask >/dev/null ;;
	refuse|always)
		[ "$p" = refuse ] && w="cannot be encrypted (fallback = refuse)" || w="must be encrypted (encrypt = always)"
		ok "none x $p: not sent" reads "$p" "not sent: $w, no key for $NONE (looked up: DNS none, no Autocrypt seen)"
		tui_keys "$p" y
		ok "... y: not sent, the message stays" eval "tui_wait '$p' 'not sent: ' && tui_wait '$p' '| compose'"
		discard "$p" >/dev/null ;;
	never)
		ok "none x never: in clear" reads never "in clear: encrypt = never"
		tui_keys never y
		ok "... y sends it in clear" eval "tui_wait never 'sent in clear: encrypt = never' 60 && back never" ;;
	esac
	# bogus
	compose "$p" >/dev/null; to "$p" "$BOG" >/dev/null
	case $p in
	default|ask|refuse)
		ok "bogus x $p: held, the whole sentence" reads "$p" "$held_line"
		tui_keys "$p" y
		ok "... y asks to send in clear anyway, no by default" tui_wait "$p" "forged DNS answer for $BOG: send in clear anyway? (y/N)"
		tui_keys "$p" Enter
		ok "... Enter: not sent, the message kept" eval "tui_wait '$p' 'not sent; the message is kept' && tui_capture '$p' | grep -q 'text of the cell'"
		case $p in
		default)
			# E: always, then never, which sends it in clear
			tui_keys default E
			ok "... E: encrypt always: not sent" eval "tui_wait default 'encrypt: always' && tui_wait default 'not sent: must be encrypted (encryption asked for)' 30"
			tui_keys default E
			ok "... E again: never: in clear, as said" tui_wait default "in clear: encryption turned off" 30
			tui_keys default y
			ok "... y sends it in clear, asking nothing" eval "tui_wait default 'sent in clear: --no-encrypt' 60 && back default" ;;
		ask)
			n=$(ls "$AH/data/steedmail/drafts" 2>/dev/null | wc -l)
			tui_keys ask P
			ok "... P: postponed, encrypted to alice" eval "tui_wait ask 'postponed (encrypted)' 30 && back ask"
			ok "... a draft more" [ "$(ls "$AH/data/steedmail/drafts" | wc -l)" -gt "$n" ] ;;
		*)
			discard "$p" >/dev/null ;;
		esac ;;
	always)
		ok "bogus x always: not sent, the answer named" reads always "not sent: must be encrypted (encrypt = always), no key for $BOG (bogus DNS answer refused)"
		tui_keys always y
		ok "... y: not sent, the message stays" eval "tui_wait always 'not sent: not sent: must be encrypted (encrypt = always)' && tui_wait always '| compose'"
		discard always >/dev/null ;;
	never)
		ok "bogus x never: in clear" reads never "in clear: encrypt = never"
		tui_keys never y
		ok "... y sends it in clear" eval "tui_wait never 'sent in clear: encrypt = never' 60 && back never" ;;
	esac
	# no answer
	compose "$p" >/dev/null; to "$p" "$DOWN" >/dev/null
	h=$(held_count)
	if [ "$p" = never ]; then
		ok "no answer x never: in clear" reads never "in clear: encrypt = never"
		tui_keys never y
		ok "... y sends it in clear" eval "tui_wait never 'sent in clear: encrypt = never' 60 && back never"
	else
		ok "no answer x $p: waits for DNS" reads "$p" "$wait_line"
		tui_keys "$p" y
		ok "... y: held in the outbox, not sent" eval "tui_wait '$p' 'not sent, it stays in the outbox: waits for DNS' 60 && back '$p'"
		ok "... the outbox holds one more, waiting" [ "$(held_count)" = $((h + 1)) ]
	fi
	if [ "$p" = always ]; then
		# the outbox screen: why it waits; r looks again
		tui_keys always w
		ok "the outbox screen: a held message says why it waits" tui_wait always "waits for DNS: no answer for $DOWN"
		tui_keys always Enter
		ok "... Enter: since when, and until when it is looked at again" eval "tui_wait always 'held since' && tui_wait always 'looked at again until'"
		tui_keys always q
		tui_keys always r
		ok "... r looks again: still held, said" tui_wait always "still queued (waits for DNS" 60
		tui_keys always q
	fi
	tui_keys "$p" q
	tui_ended "$p" 20 >/dev/null
done

# --- the sync meets the bogus answer: nothing pinned, the trust screens say so ---
DOVE="doveadm -c $STEED_DOVECOT_CONF"
bfpr=$(gpg --homedir "$G" --with-colons -k "<$BOG>" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
body=$(printf 'Content-Type: text/plain; charset=utf-8\r\n\r\nsigned by dora, %s' "$u")
printf '%s' "$body" | gpg --homedir "$G" --batch --pinentry-mode loopback --passphrase '' \
    -u "$bfpr" --armor --detach-sign --digest-algo SHA256 >"$T_TMP/d.sig" 2>/dev/null
{ printf 'From: Dora <%s>\r\nTo: alice@steed.test\r\nSubject: from dora %s\r\n' "$BOG" "$u"
  printf 'Message-ID: <dora-%s@tui-hold.test>\r\nDate: %s\r\nMIME-Version: 1.0\r\n' "$u" "$(date -R)"
  printf 'Content-Type: multipart/signed; micalg=pgp-sha256; protocol="application/pgp-signature"; boundary="b-%s"\r\n\r\n' "$u"
  printf -- '--b-%s\r\n%s\r\n--b-%s\r\nContent-Type: application/pgp-signature\r\n\r\n' "$u" "$body" "$u"
  sed 's/$/\r/' "$T_TMP/d.sig"; printf -- '--b-%s--\r\n' "$u"; } >"$T_TMP/dora.eml"
$DOVE save -u alice@steed.test -m INBOX <"$T_TMP/dora.eml" || bail "cannot put dora's message"
run_alice k default >/dev/null || bail "alice's index did not open"
ok "the index shows dora's message" tui_wait k "from dora $u" 30
# (bounces of the relayed test mail are there too)
tui_keys k /; tui_type k "from dora"; tui_keys k Enter
skull=$(printf '\342\230\240')
marked() {
	for _ in $(seq 1 100); do
		tui_capture k | grep "from dora $u" | grep -qF "$skull" && return 0
		sleep 0.2
	done
	tui_capture k; return 1
}
ok "... marked, once the sync's trust step has looked its sender up: a bogus DNS answer" marked
tui_keys k K
ok "K: the key screen has a DNS line: the answer bogus, nothing taken" eval "tui_wait k 'answer bogus ($(date -u +%Y-%m-%d)' 30 && tui_wait k 'nothing was taken from it'"
ok "... nothing pinned: no fingerprint shown" eval "! tui_capture k | grep -q '^ *Fingerprint'"
tui_keys k q
tui_keys k W
ok "W: the list marks dora: bogus DNS answer" tui_wait k "bogus DNS answer" 10
tui_keys k q q
tui_ended k 20 >/dev/null
as alice steedmail -F "$T_TMP/default.conf" --trust show "$BOG" >"$T_TMP/show" 2>&1
ok "--trust show: the bogus answer, and no key pinned" sh -c "grep -q '^dns: DNS answer bogus' '$T_TMP/show' && grep -qx 'pinned: none' '$T_TMP/show' && ! grep -q '^key:' '$T_TMP/show' || { cat '$T_TMP/show'; false; }"
