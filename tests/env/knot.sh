# tests/env/knot.sh: the private Knot DNS instance, a server that accepts
# dynamic updates (RFC 2136) signed with a TSIG key and signs its zone
# itself (sourced by tests/env/run). steedmail --publish is tested here.
#
# Layout under $SE_DIR/knot:
#   knot.conf, knot.log, knot.pid, knot.sock  the instance (control socket)
#   tsig                                      the update key, nsupdate's -y
#                                             form: hmac-sha256:NAME:BASE64
#   zones/dyn.test.zone                       the zone as first loaded
#   db/                                       keys (KASP), journal, timers
#
# The zone dyn.test is signed by Knot (one ED25519 key signing everything,
# made at first load); once it is served signed, its DNSKEY is added to
# the trust anchors of the clients (dns/trust-anchors), and dns.sh's
# unbound.conf has the stub zone that sends its questions here.

SE_DYN_ZONE=dyn.test
SE_TSIG_NAME=steed-update.

se_knot_setup() {
	local _d _secret
	_d=$SE_DIR/knot
	mkdir -p "$_d/zones" "$_d/db" || se_fail "cannot create $_d"
	_secret=$(openssl rand -base64 32) || se_fail "openssl rand"
	SE_TSIG_KEY="hmac-sha256:$SE_TSIG_NAME:$_secret"
	printf '%s\n' "$SE_TSIG_KEY" >"$_d/tsig"
	chmod 0644 "$_d/tsig"

	cat >"$_d/zones/$SE_DYN_ZONE.zone" <<EOF
$SE_DYN_ZONE.	300	IN	SOA	ns.$SE_DYN_ZONE. hostmaster.$SE_DYN_ZONE. 1 3600 600 86400 60
$SE_DYN_ZONE.	300	IN	NS	ns.$SE_DYN_ZONE.
ns.$SE_DYN_ZONE.	300	IN	A	127.0.0.1
$SE_DYN_ZONE.	60	IN	TXT	"updatable test zone (signed by Knot)"
EOF

	cat >"$_d/knot.conf" <<EOF
# Private Knot DNS instance of the steedmail test environment.
server:
    rundir: "$_d"
    pidfile: "$_d/knot.pid"
    listen: 127.0.0.1@$SE_KNOT_PORT
    background-workers: 1
    udp-workers: 1
    tcp-workers: 1

database:
    storage: "$_d/db"

log:
  - target: "$_d/knot.log"
    any: info

control:
    listen: "$_d/knot.sock"

key:
  - id: $SE_TSIG_NAME
    algorithm: hmac-sha256
    secret: $_secret

acl:
  - id: update
    key: $SE_TSIG_NAME
    action: update

policy:
  - id: test
    algorithm: ed25519
    single-type-signing: on
    dnskey-ttl: 60
    zone-max-ttl: 3600
    propagation-delay: 0
    nsec3: off

zone:
  - domain: $SE_DYN_ZONE
    storage: "$_d/zones"
    file: "$SE_DYN_ZONE.zone"
    zonefile-sync: -1
    zonefile-load: difference-no-serial
    journal-content: all
    dnssec-signing: on
    dnssec-policy: test
    acl: update
EOF
}

se_knot_start() {
	local _d
	_d=$SE_DIR/knot
	se_need knotd knotc
	knotc -c "$_d/knot.conf" conf-check >"$_d/knot.log" 2>&1 ||
		se_fail "knot: configuration rejected (knotc conf-check)" "$_d/knot.log"
	knotd -c "$_d/knot.conf" -d >>"$_d/knot.log" 2>&1 ||
		se_fail "knotd did not start" "$_d/knot.log"
}

# se_knot_wait: wait until Knot serves dyn.test signed, then trust its key.
se_knot_wait() {
	local _d _n _pid _ta
	_d=$SE_DIR/knot
	_pid=
	_n=0
	while [ $_n -lt 100 ] && ! _pid=$(se_pidfile_pid "$_d/knot.pid" knotd); do
		sleep 0.02; _n=$((_n + 1))
	done
	[ -n "$_pid" ] || se_fail "knotd did not write its pid file" "$_d/knot.log"
	se_wait_tcp "$SE_KNOT_PORT" knotd "$_d/knot.log" "$_pid"
	_n=0
	while [ $_n -lt 200 ]; do
		_ta=$(drill -p "$SE_KNOT_PORT" @127.0.0.1 "$SE_DYN_ZONE" DNSKEY 2>/dev/null |
			awk -v z="$SE_DYN_ZONE." 'tolower($1) == z && $4 == "DNSKEY" && $5 == 257')
		[ -n "$_ta" ] && break
		se_alive "$_pid" || se_fail "knotd exited" "$_d/knot.log"
		sleep 0.02
		_n=$((_n + 1))
	done
	[ -n "$_ta" ] || se_fail "knotd does not serve $SE_DYN_ZONE signed" "$_d/knot.log"
	printf '%s\n' "$_ta" >>"$SE_DIR/dns/trust-anchors"
}

se_knot_stop() {
	local _pid
	_pid=$(se_pidfile_pid "$SE_DIR/knot/knot.pid" knotd) || return 0
	se_stop_tree "$_pid"
}
