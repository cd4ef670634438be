# demo.sh: the README's first command, contrib/demo, does what it says:
# its own servers, two people with keys published in DNS, a first message
# each way, encrypted without being asked; a person's commands work in
# it; and it leaves nothing running behind.
. "$(dirname "$0")/../lib.sh"

out=$T_TMP/demo.out
contrib/demo -- bash -c 'for _ in $(seq 1 20); do
	bob --sync >/dev/null 2>&1; [ -n "$(bob --list 2>/dev/null)" ] && break; sleep 0.5; done
	echo "envdir $STEED_ENV"
	bob --list; uid=$(bob --list | tail -1 | cut -f1)
	bob --fetch "$uid" | bob --view -
	bob --trust list' >"$out" 2>&1
rc=$?
ok "contrib/demo -- CMD: exit 0" sh -c "[ $rc = 0 ] || { cat '$out'; false; }"
ok "both keys made and published" sh -c "grep -c 'published in DNS (signed zone)' '$out' | grep -qx 2"
ok "alice's first message is encrypted without a question" grep -q '^demo: alice -> bob: steedmail: encrypted to 1 recipient' "$out"
ok "bob reads it decrypted and signed by alice" grep -q 'security: encrypted (OpenPGP) and decrypted; signed by alice@steed.test' "$out"
ok "with alice's key confirmed by DNSSEC" grep -q 'trust: dns-confirmed' "$out"
ok "the text arrives" grep -q 'nobody asked me about keys' "$out"
ok "bob's trust store knows alice" grep -q 'alice@steed.test' "$out"
envdir=$(sed -n 's/^envdir //p' "$out")
gone() { [ -n "$1" ] && [ ! -e "$1" ] && ! pgrep -f -- "$1" >/dev/null; }
ok "the demo's servers are gone and its directory removed" gone "$envdir"
