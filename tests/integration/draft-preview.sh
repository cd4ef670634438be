# draft-preview.sh: the compose screen's security line (draft_preview(),
# through tests/tools/previewtool) against the real servers, DNS and gpg.
# bob's key in the signed zone: "encrypt: yes" with DNS-secure; alice's
# key known to bob from her mail's Autocrypt header; an address without a
# key: the reason, what was looked up; without the network: only what is
# known (the DNS cache counts); fallback = ask: "ask"; a reply to
# encrypted mail that cannot be encrypted: "not sent"; a bogus answer in
# broken.test: the message held, and said; bob's key changed: counted and
# named; twenty recipients with keys known, and how long that takes.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_ENV:-}" ] || bail "no test environment (run under tests/env/run)"
PT=$PWD/tests/tools/previewtool
[ -x "$PT" ] || bail "no tests/tools/previewtool (make check builds it)"
u=$$
# People of this test's own, so that no other test's keys or trust store
# are touched: alice and bob with fresh mailboxes and homes in $T_TMP.
AL=alice.v$u@steed.test BO=bob.v$u@steed.test
G=$T_TMP/g O=$T_TMP/o
mkdir -p -m 700 "$G" "$O"
trap 'for h in "$G"/* "$T_TMP"/*/steedmail/gnupg; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT
# conf NAME ADDR SETTING...: $T_TMP/NAME.conf, the test home's settings
# (DNS of the test zones, the CA) for ADDR, the settings first.
conf() {
	_n=$1 _a=$2; shift 2
	{ for _s; do echo "$_s"; done
	  sed "s/^address = .*/address = $_a/; s/^password = .*/password = pw-$u/" \
	    "$STEED_ENV/home/alice/config/steedmail/config"; } >"$T_TMP/$_n.conf"
	chmod 600 "$T_TMP/$_n.conf"
}
for a in "$AL" "$BO"; do
	"$STEED_ENV_BIN/add-user" "$a" "pw-$u" >/dev/null || bail "cannot add $a"
done
conf alice "$AL"
conf bob "$BO"
conf ask "$AL" "fallback = ask"
conf never "$AL" "encrypt = never"
# as_ WHO CMD...: CMD in WHO's data and cache directories.
as_() { _w=$1; shift; XDG_DATA_HOME="$T_TMP/$_w" XDG_CACHE_HOME="$T_TMP/$_w-c" "$@"; }
alice() { as_ alice sm -F "$T_TMP/alice.conf" "$@"; }
bob() { as_ bob sm -F "$T_TMP/bob.conf" "$@"; }
# pv NAME WHO[:CONF] ARGS...: previewtool as WHO (with CONF.conf, else
# WHO's) into $T_TMP/NAME.
pv() {
	_n=$1 _w=${2%%:*} _c=${2#*:}; shift 2
	as_ "$_w" "$PT" -F "$T_TMP/$_c.conf" "$@" >"$O/$_n" 2>"$O/$_n.err" ||
		{ cat "$O/$_n.err"; return 1; }
}
# says NAME LINE: the output NAME has exactly the line LINE.
says() { grep -qxF -- "$2" "$O/$1" || { echo "# no \"$2\" in:"; sed 's/^/# /' "$O/$1"; return 1; }; }
ggpg() { _h=$1; shift; mkdir -p -m 700 "$_h" && gpg --homedir "$_h" --batch --yes --pinentry-mode loopback --passphrase '' "$@" >/dev/null 2>&1; }
# publish ZONE < RECORDS: the TYPE61 lines of --dns-records into ZONE.
publish() {
	while read -r _o _t _in _ty _rd; do
		[ "$_ty" = TYPE61 ] || continue
		"$STEED_ENV_BIN/zone-set" "$1" "$_o" TYPE61 "$_rd" >/dev/null || return 1
	done
}
arrives() {
	for _ in $(seq 1 40); do
		"$1" --list INBOX 2>/dev/null | grep -qF -- "$2" && return 0
		sleep 0.25
	done
	echo "no '$2' in $1's INBOX"; return 1
}

alice --genkey >/dev/null 2>&1 || bail "alice --genkey"
bob --genkey >/dev/null 2>&1 || bail "bob --genkey"
bob --dns-records 2>/dev/null | publish steed.test || bail "cannot publish bob's key"

# --- bob's key from the signed zone ---------------------------------------------
pv bob alice "$BO"
ok "bob's key in DNSSEC-signed DNS: encrypt" says bob "action: encrypt"
ok "the line counts it as DNS-secure" says bob "line: encrypt: yes (1/1 key: 1 DNS-secure)"
ok "bob's origin is DNS-secure" says bob "rcpt $BO: key yes, origin DNS-secure, state dns-confirmed"
ok "alice has a key: it would be signed" says bob "sign: yes"
pv bobns alice --nosign "$BO"
ok "--nosign: an encrypted message is still signed inside (crypto-out.h)" says bobns "sign: yes"

# --- an address without a key ------------------------------------------------
nk=nokey.$u@steed.test
pv nokey alice "$nk"
ok "no key: sent in clear, with what was looked up" says nokey "line: in clear: no key for $nk (looked up: DNS none, no Autocrypt seen)"
ok "... and the detail per recipient" says nokey "why $nk: looked up: DNS none, no Autocrypt seen"
pv nokeyns alice --nosign "$nk"
ok "--nosign in clear: not signed" says nokeyns "sign: no"
pv two alice "$BO" "$nk" other.$u@plain.test
ok "several without a key: named in one line, the details per recipient" says two "line: in clear: no key for $nk, other.$u@plain.test"
ok "keys: 1 of 3" says two "keys: 1/3"
ok "plain.test is unsigned: the answer counts as none there too" says two "why other.$u@plain.test: looked up: DNS none, no Autocrypt seen"

# --- without the network -------------------------------------------------------
pv nodns alice --no-dns never.$u@steed.test
ok "--no-dns: an address never looked up is said so" says nodns "line: in clear: no key for never.$u@steed.test (DNS not looked up, no Autocrypt seen)"
pv nodns2 alice --no-dns "$nk"
ok "--no-dns: the DNS cache's answer still counts" says nodns2 "why $nk: looked up: DNS none, no Autocrypt seen"
pv nodns3 alice --no-dns "$BO"
ok "--no-dns: bob's key is in the trust store" says nodns3 "line: encrypt: yes (1/1 key: 1 DNS-secure)"

# --- fallback = ask, a reply to encrypted mail, encrypt = never ----------------
pv ask alice:ask "$BO" "$nk"
ok "fallback = ask: the line asks, naming who has no key" says ask "line: ask: no key for $nk (looked up: DNS none, no Autocrypt seen)"
ok "... action ask" says ask "action: ask"
pv ask2 alice:ask "$BO"
ok "fallback = ask, every key known: encrypt" says ask2 "action: encrypt"
pv reply alice --reply-encrypted "$nk"
ok "a reply to encrypted mail without a key: not sent, and why" says reply "line: not sent: must be encrypted (reply to encrypted mail), no key for $nk (looked up: DNS none, no Autocrypt seen)"
ok "... must" says reply "must: yes"
pv reply2 alice:ask --reply-encrypted "$nk"
ok "... whatever fallback says" says reply2 "action: refuse"
pv never alice:never "$BO"
ok "encrypt = never: in clear, and why" says never "line: in clear: encrypt = never"
pv off alice --never "$BO"
ok "encryption turned off for this message: in clear" says off "line: in clear: encryption turned off"

# --- a bogus answer ----------------------------------------------------------------
ggpg "$G/dave" --quick-gen-key "Dave <dave.$u@broken.test>" future-default default 1y
gpg --homedir "$G/dave" --export-options export-dane --export "dave.$u@broken.test" >"$T_TMP/dave.dane" 2>/dev/null
"$STEED_ENV_BIN/zone-set" --bogus broken.test \
    "$(awk '$2 == "TYPE61" { print $1; exit }' "$T_TMP/dave.dane")._openpgpkey" \
    TYPE61 "$(sed -n '/ TYPE61 /,$p' "$T_TMP/dave.dane" | sed '1s/^[^\\]*//')" >/dev/null ||
	bail "cannot publish dave's key bogus"
pv bogus alice "dave.$u@broken.test" "$nk"
ok "a bogus answer: held, not in clear, and said in the line" says bogus "line: held: the DNS answer for dave.$u@broken.test was forged (possible attack)"
ok "... its action is hold, whatever the other recipient" says bogus "action: hold"
ok "... and in the detail" says bogus "why dave.$u@broken.test: looked up: DNS bogus answer refused, no Autocrypt seen"

# --- Autocrypt: alice's key reaches bob with her mail ----------------------------
echo "hello $u" | alice -s "ac $u" "$BO" >"$O/ac.send" 2>&1 || { cat "$O/ac.send"; bail "alice cannot send"; }
# (encrypted: its Subject is protected, "..." outside)
arrives bob "Alice Example" || bail "alice's mail did not arrive"
bob --sync >/dev/null 2>&1
pv ac bob "$AL"
ok "alice's key from her Autocrypt header" says ac "line: encrypt: yes (1/1 key: 1 Autocrypt)"

# --- bob's key changes: counted and named, the pinned key still used ----------------
BH=$T_TMP/bob/steedmail/gnupg
gpgconf --homedir "$BH" --kill all >/dev/null 2>&1
mv "$BH" "$G/bob-old"
echo "new key $u" | bob -s "newkey $u" --sign "$AL" >"$O/nk.send" 2>&1 || { cat "$O/nk.send"; bail "bob cannot send"; }
arrives alice "newkey $u" || bail "bob's mail did not arrive"
alice --sync >/dev/null 2>&1
pv changed alice "$BO" "$nk"
ok "a changed key is counted" says changed "changed: 1"
ok "... shown per recipient" says changed "rcpt $BO: key yes, origin DNS-secure, state key-changed"
ok "... and named in the line" says changed "line: in clear: no key for $nk (looked up: DNS none, no Autocrypt seen); $BO: key changed"

# --- a revoked key: counted, named, not used ------------------------------------
ggpg "$G/rv" --quick-gen-key "Rv <rv.$u@plain.test>" future-default default 1y
gpg --homedir "$G/rv" --export --armor "rv.$u@plain.test" >"$T_TMP/rv.asc" 2>/dev/null
alice --import-key "$T_TMP/rv.asc" >/dev/null 2>&1 || bail "cannot import rv's key"
pv rv1 alice --no-dns "rv.$u@plain.test"
ok "rv's imported key: encrypt" says rv1 "line: encrypt: yes (1/1 key: 1 imported)"
rvf=$(gpg --homedir "$G/rv" --with-colons -k "rv.$u@plain.test" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
sed 's/^:-----/-----/' "$G/rv/openpgp-revocs.d/$rvf.rev" | gpg --homedir "$G/rv" --batch --import >/dev/null 2>&1
gpg --homedir "$G/rv" --export --armor "rv.$u@plain.test" >"$T_TMP/rv.asc" 2>/dev/null
alice --import-key "$T_TMP/rv.asc" >/dev/null 2>&1 || bail "cannot import rv's revocation"
pv rv2 alice --no-dns "rv.$u@plain.test" "$BO"
ok "revoked: in clear, and the line says so" says rv2 "line: in clear: rv.$u@plain.test: key revoked; $BO: key changed"
ok "... counted" says rv2 "revoked: 1"
ok "... and why per recipient" says rv2 "why rv.$u@plain.test: the key $rvf is revoked; DNS not looked up, no Autocrypt seen"

# --- twenty recipients with keys known ----------------------------------------------
for i in $(seq 1 20); do
	ggpg "$G/many" --quick-gen-key "P$i <p$i.$u@plain.test>" future-default default 1y
	set -- "$@" "p$i.$u@plain.test"
done
gpg --homedir "$G/many" --export --armor >"$T_TMP/many.asc" 2>/dev/null
alice --import-key "$T_TMP/many.asc" >/dev/null 2>&1 || bail "cannot import the twenty keys"
pv many alice --no-dns --repeat 10 "$@"
ok "twenty imported keys: encrypt" says many "line: encrypt: yes (20/20 keys: 20 imported)"
diag "twenty recipients: $(grep '^first:' "$O/many"), $(grep '^again:' "$O/many") each after"
