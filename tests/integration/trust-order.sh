# trust-order.sh: STEED's promise that trust states do not depend on the
# order mail is read in. A set of real PGP/MIME messages, signed with gpg
# in GnuPG homes of their own, is opened by bob in several orders, each
# order first with --inspect, with --view, or with --sync against the test
# Dovecot, every run on a fresh trust store and GnuPG home; then every
# message is inspected once more. The final verdicts must be the same in
# every run, and be those of the table in doc/trust.md:
#   alice (her key A pinned before the set): a signed message with her
#   Autocrypt header is known; an unsigned forgery whose Autocrypt header
#   names mallory's key X is key-changed (X, other A) and marks nothing
#   else; her new key B (signed, with its header) is key-changed (B,
#   other A), and --trust accept without a fingerprint takes B, never X;
#   dave: an unsigned message whose header brings his key D is unsigned
#   with D (not "no key known"), his signed message without a header is
#   known once D is, even when it was opened before;
#   erin: the signed message that brings her key is first-contact, the
#   next one (no header) known.
. "$(dirname "$0")/../lib.sh"

[ -n "${STEED_IMAPS_PORT:-}" ] || bail "no test environment (run under tests/env/run)"
DOVE="doveadm -c $STEED_DOVECOT_CONF"
R=to-$$@steed.test
"$STEED_ENV_BIN/add-user" "$R" to-pw || bail "add-user failed"
{ echo "ca-file = $STEED_CA_FILE"
  printf '\n[account to]\nname = Bob Order\naddress = %s\n' "$R"
  echo "imap = imaps://localhost:$STEED_IMAPS_PORT"
  echo "smtp = smtp://localhost:$STEED_SUBMISSION_PORT"
  echo "password = to-pw"; } >"$T_TMP/r.conf"
chmod 600 "$T_TMP/r.conf"

HOMES=
trap 'for h in $HOMES; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$T_TMP"' EXIT

# keygen NAME UID: a GnuPG home $T_TMP/g/NAME with one key; its fingerprint.
keygen() {
	_h=$T_TMP/g/$1
	mkdir -p "$_h" && chmod 700 "$_h"
	HOMES="$HOMES $_h"
	gpg --homedir "$_h" --batch --passphrase '' --quick-gen-key "$2" \
	    future-default default never >/dev/null 2>&1 || return 1
	gpg --homedir "$_h" --with-colons -K 2>/dev/null |
	    awk -F: '/^fpr/ { print $10; exit }'
}
A=$(keygen a "Alice <alice@steed.test>")
B=$(keygen b "Alice <alice@steed.test>")
X=$(keygen x "Alice <alice@steed.test>")	# mallory's, with alice's address
D=$(keygen d "Dave <dave@steed.test>")
E=$(keygen e "Erin <erin@steed.test>")
ok "five keys made with gpg" sh -c "[ ${#A} = 40 ] && [ ${#B} = 40 ] && [ ${#X} = 40 ] && [ ${#D} = 40 ] && [ ${#E} = 40 ]"

crlf() { sed 's/$/\r/'; }
# ac ADDR HOME FPR: an Autocrypt header with the key, folded.
ac() {
	printf 'Autocrypt: addr=%s; prefer-encrypt=mutual; keydata=\n' "$1"
	gpg --homedir "$2" --export-options export-minimal --export "$3" |
	    base64 -w 72 | sed 's/^/ /'
}
# mk NAME FROM [-s HOME FPR] [-a HOME FPR]: message NAME, signed with
# FPR of HOME (PGP/MIME) and/or with an Autocrypt header for FPR.
mk() {
	_n=$1 _from=$2; shift 2
	_sh= _sf= _ah= _af=
	while [ $# -gt 0 ]; do
		case $1 in
		-s) _sh=$2 _sf=$3; shift 3 ;;
		-a) _ah=$2 _af=$3; shift 3 ;;
		esac
	done
	{
		echo "From: <$_from>"
		echo "To: <$R>"
		echo "Subject: order $_n"
		echo "Date: Thu, 03 Dec 2026 12:00:00 +0000"
		echo "Message-ID: <$_n.$$@steed.test>"
		echo "MIME-Version: 1.0"
		[ -n "$_ah" ] && ac "$_from" "$_ah" "$_af"
		if [ -z "$_sh" ]; then
			echo "Content-Type: text/plain; charset=utf-8"
			echo
			echo "message $_n"
		else
			echo "Content-Type: multipart/signed; micalg=pgp-sha256;"
			echo " protocol=\"application/pgp-signature\"; boundary=\"b-$_n\""
			echo
		fi
	} | crlf >"$T_TMP/$_n.eml"
	[ -z "$_sh" ] && return 0
	printf 'Content-Type: text/plain; charset=utf-8\r\n\r\nmessage %s\r\n' \
	    "$_n" >"$T_TMP/$_n.part"
	gpg --homedir "$_sh" --batch --pinentry-mode loopback --passphrase '' \
	    --digest-algo SHA256 -u "$_sf" --armor --detach-sign \
	    <"$T_TMP/$_n.part" >"$T_TMP/$_n.sig" 2>/dev/null || return 1
	{
		printf -- '--b-%s\r\n' "$_n"
		cat "$T_TMP/$_n.part"
		printf '\r\n--b-%s\r\n' "$_n"
		printf 'Content-Type: application/pgp-signature; name="signature.asc"\r\n\r\n'
		crlf <"$T_TMP/$_n.sig"
		printf '\r\n--b-%s--\r\n' "$_n"
	} >>"$T_TMP/$_n.eml"
}
G=$T_TMP/g
mk m0 alice@steed.test -s "$G/a" "$A" -a "$G/a" "$A"	# before the set
mk m1 alice@steed.test -s "$G/a" "$A" -a "$G/a" "$A"
mk m3 alice@steed.test -a "$G/x" "$X"			# the forgery
mk m4 alice@steed.test -s "$G/b" "$B" -a "$G/b" "$B"	# her new key
mk d1 dave@steed.test -a "$G/d" "$D"
mk d2 dave@steed.test -s "$G/d" "$D"
mk e1 erin@steed.test -s "$G/e" "$E" -a "$G/e" "$E"
mk e2 erin@steed.test -s "$G/e" "$E"
SET="m1 m3 m4 d1 d2 e1 e2"

# The verdicts the table gives: "NAME STATE FPR OTHER".
cat >"$T_TMP/want" <<EOF
m1 known $A none
m3 key-changed $X $A
m4 key-changed $B $A
d1 unsigned $D none
d2 known $D none
e1 first-contact $E none
e2 known $E none
EOF

# r DIR ARGS: bob, with his own data (trust store, GnuPG home) in DIR.
r() {
	_d=$1; shift
	XDG_DATA_HOME="$_d" XDG_CACHE_HOME="$_d-c" sm -F "$T_TMP/r.conf" "$@"
}
# verdicts DIR: every message of the set inspected, one line each.
verdicts() {
	_f=
	for _m in $SET; do _f="$_f $T_TMP/$_m.eml"; done
	# shellcheck disable=SC2086
	r "$1" --inspect $_f 2>/dev/null | awk '
	    /^file: / { n = $2; sub(/.*\//, "", n); sub(/\.eml$/, "", n)
		s = f = o = "" }
	    /^trust.state: / { s = $2 } /^trust.fpr: / { f = $2 }
	    /^trust.other-fpr: / { o = $2 }
	    /^$/ { print n, s, f, (o == "" ? "none" : o) }'
}
# save NAMES: the INBOX holds these messages, in this order, only.
save() {
	$DOVE expunge -u "$R" mailbox INBOX all >/dev/null 2>&1
	for _m in "$@"; do
		$DOVE save -u "$R" -m INBOX <"$T_TMP/$_m.eml" || return 1
	done
}

# run N HOW ORDER...: a fresh bob opens alice's first message, then the
# set in ORDER with HOW (inspect, view or sync), then looks at all of it.
run() {
	_dir=$T_TMP/run$1 _how=$2; shift 2
	HOMES="$HOMES $_dir/steedmail/gnupg"
	r "$_dir" --inspect "$T_TMP/m0.eml" >"$_dir.m0" 2>&1
	case $_how in
	inspect|view)
		for _m in "$@"; do
			r "$_dir" --$_how "$T_TMP/$_m.eml" >"$_dir.first.$_m" 2>&1
		done ;;
	sync)
		save "$@" && r "$_dir" --sync INBOX >"$_dir.sync" 2>&1 </dev/null ;;
	esac
	verdicts "$_dir" >"$_dir.final"
	r "$_dir" --trust show alice@steed.test >"$_dir.alice" 2>&1
	r "$_dir" --trust show dave@steed.test >"$_dir.dave" 2>&1
}

# The orders: as written, reversed, and a few shuffled the same way on
# every run of the test.
fwd=$SET
rev=$(echo $SET | tr ' ' '\n' | tac | tr '\n' ' ')
shuf1=$(echo $SET | tr ' ' '\n' | awk 'BEGIN { srand(7) } { print rand(), $0 }' | sort -n | cut -d' ' -f2 | tr '\n' ' ')
shuf2=$(echo $SET | tr ' ' '\n' | awk 'BEGIN { srand(12) } { print rand(), $0 }' | sort -n | cut -d' ' -f2 | tr '\n' ' ')
n=0
for how in inspect view sync; do
	for order in "$fwd" "$rev" "$shuf1" "$shuf2"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		run $n $how $order
		ok "$how first, in the order $order: the verdicts of the table" \
		    sh -c "diff -u '$T_TMP/want' '$T_TMP/run$n.final'"
		ok "$how first ($order): alice's pin A, B waiting, not X" sh -c \
		    "grep -qx 'pinned: $A' '$T_TMP/run$n.alice' && grep -qx 'other: $B' '$T_TMP/run$n.alice' || { cat '$T_TMP/run$n.alice'; false; }"
		ok "$how first ($order): dave's key D pinned, known" sh -c \
		    "grep -qx 'pinned: $D' '$T_TMP/run$n.dave' && grep -qx 'state: known' '$T_TMP/run$n.dave' || { cat '$T_TMP/run$n.dave'; false; }"
	done
done

# What each command showed when it opened a message first.
ok "--view of the message that brings a new key warns on that message" \
    grep -q "trust: key-changed, key $B -- WARNING" "$T_TMP/run6.first.m4"
ok "--view of the forgery warns on the forgery" \
    grep -q "trust: key-changed, key $X -- WARNING" "$T_TMP/run6.first.m3"
ok "--view of alice's genuine mail after the forgery: no warning" \
    sh -c "grep -q 'trust: known, key $A' '$T_TMP/run6.first.m1' && ! grep -q WARNING '$T_TMP/run6.first.m1'"
ok "--view of dave's first message: unsigned, his key named" \
    grep -q "trust: unsigned, key $D" "$T_TMP/run6.first.d1"
ok "--sync processed the set" grep -q "trust: .* processed" "$T_TMP/run9.sync"

# --trust accept without a fingerprint takes the signed new key, never
# the key only the forgery named.
ok "--trust accept alice@steed.test" r "$T_TMP/run1" --trust accept alice@steed.test
r "$T_TMP/run1" --trust show alice@steed.test >"$T_TMP/acc" 2>&1
ok "it pinned B, her new key, not mallory's X" grep -qx "pinned: $B" "$T_TMP/acc"
