# hold.sh: the table of doc/dns.md ("Keys from DNS and the policy"),
# cell by cell, through steedmail -s as alice (her own home): what DNS
# answers for a recipient nobody knows a key for (secure with a key,
# insecure with a key, no record, bogus, no answer) against each policy
# (the defaults, fallback = ask with nobody to ask, fallback = refuse,
# encrypt = always, encrypt = never). For each: the exit status, the line
# on standard error, and what alice's Sent mailbox got (encrypted, in
# clear, nothing) or what her outbox holds. Every recipient is a new one,
# so that no cell decides from what another one left in the trust store.
# tui-hold.sh does the same through the compose screen.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_ENV:-}" ] || bail "no test environment (run under tests/env/run)"
as() { "$STEED_ENV_BIN/as" "$@"; }
u=$$-$(date +%s)
AH=$STEED_ENV/home/alice
G=$T_TMP/g
mkdir -m 700 "$G"
published=
# the records and the held messages of this test leave with it
cleanup() {
	for r in $published; do
		"$STEED_ENV_BIN/zone-set" --delete "${r%%:*}" "${r#*:}" TYPE61 >/dev/null 2>&1
	done
	for f in "$AH"/data/steedmail/outbox/*.env; do
		[ -e "$f" ] && grep -q "down.test" "$f" && rm -f "${f%.env}".*
	done
	gpgconf --homedir "$G" --kill all >/dev/null 2>&1
	rm -rf "$T_TMP"
}
trap cleanup EXIT

# --- DNS: the test zones, and down.test, whose server refuses to answer ------
# (NSD is not authoritative for it: REFUSED, which the resolver turns into
# SERVFAIL, at once)
{ cat "$STEED_DNS_CONF"; printf 'stub-zone:\n\tname: "down.test"\n\tstub-addr: 127.0.0.1@%s\n' "$STEED_DNS_PORT"; } >"$T_TMP/hold.unbound.conf"
# conf NAME SETTING...: alice's own configuration with these settings and
# the DNS above, as $T_TMP/NAME.conf
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
policies="default ask refuse always never"

as alice steedmail --genkey >"$T_TMP/gen" 2>&1 || bail "alice --genkey: $(cat "$T_TMP/gen")"

# key ADDR ZONE [--bogus]: a new key for ADDR, published in ZONE.
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
for p in $policies; do
	"$STEED_ENV_BIN/add-user" "sec.$p.$u@steed.test" "pw-$u" >/dev/null || bail "add-user"
	key "sec.$p.$u@steed.test" steed.test || bail "cannot publish sec.$p"
	key "ins.$p.$u@plain.test" plain.test || bail "cannot publish ins.$p"
done
NONE=none.$u@steed.test
"$STEED_ENV_BIN/add-user" "$NONE" "pw-$u" >/dev/null || bail "add-user"
BOG=bog.$u@broken.test
key "$BOG" broken.test --bogus || bail "cannot publish $BOG bogus"
DOWN=f.$u@down.test

# The answers are what the rows say.
look() { as alice steedmail -F "$T_TMP/default.conf" --lookup "$1" 2>/dev/null | awk -F '\t' '$2 == "OPENPGPKEY" { print $3; exit }'; }
ok "row secure: sec.default's answer is secure" [ "$(look "sec.default.$u@steed.test")" = secure ]
ok "row insecure: ins.default's answer is insecure" [ "$(look "ins.default.$u@plain.test")" = insecure ]
ok "row none: $NONE has no record, proven" sh -c "case '$(look "$NONE")' in none*) exit 0;; esac; exit 1"
ok "row bogus: $BOG's answer is bogus" sh -c "case '$(look "$BOG")' in bogus*) exit 0;; esac; exit 1"
ok "row no answer: $DOWN's lookup fails" sh -c "case '$(look "$DOWN")' in servfail*) exit 0;; esac; exit 1"

# --- the cells ----------------------------------------------------------------
sent_count() { as alice steedmail --list Sent 2>/dev/null | grep -c .; }
held_count() { ls "$AH/data/steedmail/outbox" 2>/dev/null | grep -c '\.held$'; }
# cell POLICY ROW ADDR: alice sends to ADDR, without a terminal (nobody to
# ask); $T_TMP/c.POLICY.ROW has standard error, .rc the status, .got what
# Sent got ("encrypted", "clear" or "nothing") and .held the outbox's
# held messages that came with it.
cell() {
	_f=$T_TMP/c.$1.$2
	_s=$(sent_count) _h=$(held_count)
	echo "body $1 $2 $u" | setsid -w "$STEED_ENV_BIN/as" alice steedmail \
	    -F "$T_TMP/$1.conf" -s "cell $1 $2 $u" "$3" >"$_f.out" 2>"$_f"
	echo $? >"$_f.rc"
	echo nothing >"$_f.got"
	# -s returns once the copy is in Sent
	if [ "$(sent_count)" -gt "$_s" ]; then
		_uid=$(as alice steedmail --list Sent 2>/dev/null | cut -f1 | sort -n | tail -1)
		as alice steedmail --fetch "$_uid" Sent >"$_f.eml" 2>/dev/null
		if grep -qi '^content-type: multipart/encrypted' "$_f.eml"; then
			echo encrypted >"$_f.got"
		elif grep -q "body $1 $2 $u" "$_f.eml"; then
			echo clear >"$_f.got"
		else
			echo unknown >"$_f.got"
		fi
	fi
	echo $(($(held_count) - _h)) >"$_f.held"
	diag "$1 x $2: exit $(cat "$_f.rc"), $(cat "$_f.got"), held $(cat "$_f.held"): $(tr '\n' '|' <"$_f")"
}
# is POLICY ROW STATUS GOT HELD LINE: the cell's outcome; LINE is one
# whole line standard error must have (with "steedmail: " before it).
is() {
	_f=$T_TMP/c.$1.$2
	[ "$(cat "$_f.rc")" = "$3" ] || { echo "exit $(cat "$_f.rc"), not $3"; cat "$_f"; return 1; }
	[ "$(cat "$_f.got")" = "$4" ] || { echo "Sent got $(cat "$_f.got"), not $4"; return 1; }
	[ "$(cat "$_f.held")" = "$5" ] || { echo "$(cat "$_f.held") held, not $5"; return 1; }
	grep -qxF -- "steedmail: $6" "$_f" || { echo "no line \"steedmail: $6\" in:"; cat "$_f"; return 1; }
	! grep -q '^steedmail: sent in clear' "$_f" || [ "$4" = clear ] || { echo "says sent in clear:"; cat "$_f"; return 1; }
}

for p in $policies; do
	cell "$p" secure "sec.$p.$u@steed.test"
	cell "$p" insecure "ins.$p.$u@plain.test"
	cell "$p" none "$NONE"
	cell "$p" bogus "$BOG"
	cell "$p" failed "$DOWN"
done

never_line="sent in clear: encrypt = never"
refused_none="not sent, it cannot be encrypted: no key for $NONE"
held_line="held: the DNS answer for $BOG was forged (possible attack); nothing was sent (--no-encrypt sends it in clear)"
wait_line="queued, not sent: waits for DNS: no answer for $DOWN (servfail); it is never sent in clear because DNS failed: steedmail --flush looks again, for 2 days (dns-wait)"

for p in default ask refuse always; do
	ok "secure x $p: encrypted" is "$p" secure 0 encrypted 0 "encrypted to 1 recipient"
	ok "insecure x $p: encrypted, the key marked as from an unsigned zone" \
	    is "$p" insecure 0 encrypted 0 "encrypted to 1 recipient (ins.$p.$u@plain.test: key from DNS, dns-insecure)"
	ok "failed x $p: waits in the outbox (0), nothing sent" is "$p" failed 0 nothing 1 "$wait_line"
done
ok "none x default: in clear, and said" is default none 0 clear 0 "sent in clear: no key for $NONE"
ok "none x ask, nobody to ask: not sent (69)" is ask none 69 nothing 0 "$refused_none (fallback = ask, but nobody could be asked: there is no terminal)"
ok "none x refuse: not sent (69)" is refuse none 69 nothing 0 "$refused_none (fallback = refuse)"
ok "none x always: not sent (69)" is always none 69 nothing 0 "$refused_none (encrypt = always)"
for p in default ask refuse; do
	ok "bogus x $p: held, nothing sent (69)" is "$p" bogus 69 nothing 0 "$held_line"
done
ok "bogus x always: not sent (69), the forged answer named" is always bogus 69 nothing 0 "not sent, it cannot be encrypted: $BOG: the DNS answer for it was forged (possible attack) (encrypt = always)"
for r in secure insecure none bogus failed; do
	ok "$r x never: in clear, nothing looked up" is never "$r" 0 clear 0 "$never_line"
done
ok "bogus, --no-encrypt: in clear, as asked" sh -c "echo 'by hand $u' | setsid -w '$STEED_ENV_BIN/as' alice steedmail -F '$T_TMP/default.conf' -s 'by hand' --no-encrypt '$BOG' 2>&1 | grep -qx 'steedmail: sent in clear: --no-encrypt'"

# The held ones: --flush looks again (still no answer): kept, 75.
setsid -w "$STEED_ENV_BIN/as" alice steedmail -F "$T_TMP/default.conf" --flush >"$T_TMP/flush" 2>&1
echo $? >"$T_TMP/flush.rc"
ok "--flush: the four waiting messages looked at again, kept (75)" sh -c "[ \$(cat '$T_TMP/flush.rc') = 75 ] && [ \$(grep -c ': waits for DNS: no answer for $DOWN (servfail); held since .*; it stays in the outbox' '$T_TMP/flush') = 4 ] || { cat '$T_TMP/flush'; false; }"
