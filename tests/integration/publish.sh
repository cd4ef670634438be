# publish.sh: steedmail --publish against the Knot DNS server of the test
# environment (dyn.test, signed by Knot, updates signed with TSIG): the
# records sent and found secure, another account's --lookup finding them,
# a wrong key refused with nothing changed, a replaced key asked about and
# published with the old one kept in the trust store's history, the same
# key not sent twice, and no settings: the records for the administrator.
. "$(dirname "$0")/../lib.sh"

zone=$STEED_DYN_ZONE
hash() { printf '%s' "$1" | sha256sum | cut -c1-56; }
owner="$(hash carol)._openpgpkey.$zone"

# A home of carol's own: config, data, cache, GnuPG home.
home=$T_TMP/carol
mkdir -p "$home/config/steedmail" "$home/data" "$home/cache"
chmod 700 "$home" "$home/config" "$home/data" "$home/cache"
conf=$home/config/steedmail/config
base() {
	cat <<EOF
ca-file = $STEED_CA_FILE
dns-config = $STEED_DNS_CONF

[account carol]
name = Carol Example
address = carol@$zone
imap = imaps://localhost:$STEED_IMAPS_PORT
smtp = smtp://localhost:$STEED_SUBMISSION_PORT
password = carol-pw
EOF
}
{ base; echo "dns-update-server = 127.0.0.1:$STEED_KNOT_PORT"
  echo "dns-update-key = $STEED_TSIG_KEY"; } >"$conf"
chmod 600 "$conf"
carol() {
	HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data \
	XDG_CACHE_HOME=$home/cache GNUPGHOME=$home/data/steedmail/gnupg \
	    sm "$@" </dev/null
}
bob() { "$STEED_ENV_BIN/as" bob steedmail "$@" </dev/null; }
# served: what Knot serves for carol's OPENPGPKEY, as hex.
served() {
	drill -t -p "$STEED_KNOT_PORT" @127.0.0.1 "$owner" TYPE61 2>/dev/null |
		awk -v o="$owner." '$1 == o && $3 == "IN" { print $0 }'
}
lookup_field() { awk -F '\t' -v n="$1" '$2 == "OPENPGPKEY" { print $n; exit }' "$2"; }

# Before there is a key: nothing to publish.
carol --publish >"$T_TMP/o0" 2>&1
rc=$?
ok "no key yet: refused, says to run --genkey" sh -c "[ $rc != 0 ] && grep -q 'no key: run steedmail --genkey' '$T_TMP/o0'"

carol --genkey >"$T_TMP/gen" 2>&1 || bail "carol --genkey failed: $(cat "$T_TMP/gen")"
fpr1=$(awk '/^OpenPGP key/ { print $3; exit }' "$T_TMP/gen")
[ -n "$fpr1" ] || bail "no fingerprint in: $(cat "$T_TMP/gen")"
ok "--genkey made the key: one line suggests --publish" sh -c "[ \$(grep -c 'run steedmail --publish' '$T_TMP/gen') = 1 ]"
carol --genkey >"$T_TMP/gen2" 2>&1
ok "--genkey with the key unchanged: no suggestion" sh -c "! grep -q 'publish' '$T_TMP/gen2'"

# A wrong TSIG secret: refused, nothing in the zone.
good_key=$STEED_TSIG_KEY
bad_key="${good_key%:*}:$(printf 'not the secret of the server' | base64)"
{ base; echo "dns-update-server = 127.0.0.1:$STEED_KNOT_PORT"
  echo "dns-update-key = $bad_key"; } >"$conf"
carol --publish --yes >"$T_TMP/o1" 2>&1
rc=$?
ok "a wrong TSIG secret: refused in plain words, exit 77" sh -c "[ $rc = 77 ] && grep -q 'refused the update of $zone (BADSIG\|refused the update of $zone (NOTAUTH' '$T_TMP/o1'"
ok "the secret itself is never shown" sh -c "! grep -qF '${bad_key##*:}' '$T_TMP/o1'"
ok "nothing was changed in the zone" test -z "$(served)"

# The right key: published and secure.
{ base; echo "dns-update-server = 127.0.0.1:$STEED_KNOT_PORT"
  echo "dns-update-key = $good_key"; } >"$conf"
carol --publish --yes >"$T_TMP/o2" 2>&1
rc=$?
ok "--publish: the records it sends, one line each" sh -c "grep -q '^  $owner. 3600 IN OPENPGPKEY (key $fpr1, ' '$T_TMP/o2'"
ok "--publish: exit 0, published: secure" sh -c "[ $rc = 0 ] && grep -qx 'published: secure' '$T_TMP/o2' && grep -qx '$owner. OPENPGPKEY: secure' '$T_TMP/o2'"
ok "Knot serves the record" test -n "$(served)"

bob --lookup "carol@$zone" >"$T_TMP/l1" 2>&1
ok "bob's --lookup: secure, carol's key" sh -c "[ '$(lookup_field 3 "$T_TMP/l1")' = secure ] && [ '$(lookup_field 5 "$T_TMP/l1")' = '$fpr1' ]"

# The same key again: nothing sent.
serial() { drill -p "$STEED_KNOT_PORT" @127.0.0.1 "$zone" SOA 2>/dev/null | awk -v z="$zone." '$1 == z && $4 == "SOA" { print $7; exit }'; }
s1=$(serial)
carol --publish >"$T_TMP/o3" 2>&1
rc=$?
ok "the same key again: says so, sends nothing, exit 0" sh -c "[ $rc = 0 ] && grep -q 'DNS already serves carol@$zone.s key $fpr1 (secure): nothing to send' '$T_TMP/o3' && ! grep -q 'sending' '$T_TMP/o3' && [ '$(serial)' = '$s1' ]"

G="gpg --homedir $home/data/steedmail/gnupg --batch --yes --pinentry-mode loopback --passphrase ''"

# The same key renewed (a later expiry): updated without a question.
sh -c "$G --quick-set-expire $fpr1 3y" >"$T_TMP/g" 2>&1 ||
	bail "gpg --quick-set-expire failed: $(cat "$T_TMP/g")"
old_rr=$(served)
carol --publish >"$T_TMP/o3b" 2>&1
rc=$?
ok "a renewed key: an older copy in DNS, updated without asking" sh -c "[ $rc = 0 ] && grep -q 'DNS has an older copy of key $fpr1 (renewed since): the records will be updated' '$T_TMP/o3b' && grep -qx 'published: secure' '$T_TMP/o3b'"
ok "Knot serves the renewed copy" test -n "$(served)" -a "$(served)" != "$old_rr"
s1=$(serial)

# A new key, made in carol's home and named in the configuration.
sh -c "$G --quick-gen-key 'Carol Example <carol@$zone>' ed25519 sign,cert 1y" >"$T_TMP/g" 2>&1 ||
	bail "gpg --quick-gen-key failed: $(cat "$T_TMP/g")"
fpr2=$(sh -c "$G --with-colons --list-secret-keys carol@$zone" |
	awk -F: -v old="$fpr1" '/^sec/ { p = 1; next }
	p && /^fpr/ { p = 0; if ($10 != old) { print $10; exit } }')
sh -c "$G --quick-add-key $fpr2 cv25519 encr 1y" >"$T_TMP/g" 2>&1 ||
	bail "gpg --quick-add-key failed: $(cat "$T_TMP/g")"
echo "key = $fpr2" >>"$conf"

# No terminal and no --yes: asked, not answered, nothing sent.
carol --publish >"$T_TMP/o4" 2>&1
rc=$?
ok "a replaced key: says what DNS has and what changes" sh -c "grep -q 'DNS has key $fpr1, the account.s key is $fpr2: the records will be replaced' '$T_TMP/o4'"
ok "no terminal and no --yes: nothing sent, non-zero exit" sh -c "[ $rc != 0 ] && grep -q 'nothing sent' '$T_TMP/o4' && [ '$(serial)' = '$s1' ]"

carol --publish --yes >"$T_TMP/o5" 2>&1
rc=$?
ok "with --yes: replaced, published: secure" sh -c "[ $rc = 0 ] && grep -q 'DNS has key $fpr1' '$T_TMP/o5' && grep -qx 'published: secure' '$T_TMP/o5'"
# Bob's home has cached the old answer: a home with an empty cache.
{ echo "dns-config = $STEED_DNS_CONF"; cat "$STEED_ENV/bob.conf"; } >"$T_TMP/bob.conf"
chmod 600 "$T_TMP/bob.conf"
XDG_DATA_HOME=$T_TMP/fresh XDG_CACHE_HOME=$T_TMP/fresh-c sm -F "$T_TMP/bob.conf" \
    --lookup "carol@$zone" >"$T_TMP/l2" 2>&1 </dev/null
ok "a fresh --lookup: secure, the new key" sh -c "[ '$(lookup_field 3 "$T_TMP/l2")' = secure ] && [ '$(lookup_field 5 "$T_TMP/l2")' = '$fpr2' ]"
carol --trust show "carol@$zone" >"$T_TMP/t" 2>&1
ok "the trust store keeps both keys of carol's address" sh -c "grep -q '$fpr1' '$T_TMP/t' && grep -q '$fpr2' '$T_TMP/t'"

carol --publish >"$T_TMP/o6" 2>&1
ok "published again: nothing to send" sh -c "[ $? = 0 ] && grep -q 'key $fpr2 (secure): nothing to send' '$T_TMP/o6'"

# No dns-update settings: what to set, and the records for the administrator.
base >"$conf"
carol --publish >"$T_TMP/o7" 2>"$T_TMP/e7"
rc=$?
ok "no dns-update-*: exit 78, says what to set" sh -c "[ $rc = 78 ] && grep -q 'no dns-update-server and dns-update-key' '$T_TMP/e7'"
carol --dns-records >"$T_TMP/r7" 2>&1
ok "and prints the records --dns-records prints" cmp "$T_TMP/o7" "$T_TMP/r7"

# Leave the zone as found: other tests share it.
kc() { knotc -c "$STEED_KNOT_CONF" "$@" >>"$T_TMP/knotc" 2>&1; }
kc zone-begin "$zone" && kc zone-unset "$zone" "$owner." TYPE61 &&
	kc zone-commit "$zone"
ok "carol's record removed again" test -z "$(served)"
