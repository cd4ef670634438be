# tests/env/dns.sh: the private NSD instance and its zones (sourced by
# tests/env/run and tests/env/zone-set).
#
# Layout under $SE_DIR/dns:
#   nsd.conf, nsd.log, nsd.pid, nsd.ctl      the NSD instance (control socket,
#                                            no TLS keys needed for a local socket)
#   zones/ZONE.src                           zone source: one record per line,
#                                            absolute owner names; edited by zone-set
#   zones/ZONE.mode                          signed | unsigned | broken
#   zones/ZONE.bogus                         (broken) names served with other
#                                            data than was signed (zone-set --bogus)
#   zones/ZONE.zone                          what NSD serves (signed/tampered output)
#   keys/ZONE/K*                             DNSSEC keys (ED25519 KSK + ZSK)
#   trust-anchors                            DS records of the signed zones
#   unbound.conf                             client (libunbound) configuration

# Records tampered with after signing broken.test, so validation fails.
SE_BROKEN_A=www.broken.test
SE_BROKEN_TXT=bad.broken.test

# se_zone_build ZONE: produce zones/ZONE.zone from zones/ZONE.src.
se_zone_build() {
	local _exp _inc _mode _z _zd
	_z=$1
	_zd=$SE_DIR/dns/zones
	_mode=$(cat "$_zd/$_z.mode") || return 1
	case $_mode in
	unsigned)
		cp "$_zd/$_z.src" "$_zd/$_z.zone.new" || return 1
		;;
	signed|broken)
		# Inception an hour back: tolerate clock skew between steps.
		_inc=$(date -u -d '-1 hour' +%Y%m%d%H%M%S)
		_exp=$(date -u -d '+30 days' +%Y%m%d%H%M%S)
		# shellcheck disable=SC2046
		(cd "$SE_DIR/dns/keys/$_z" &&
		 ldns-signzone -o "$_z" -i "$_inc" -e "$_exp" \
			-f "$_zd/$_z.zone.new" "$_zd/$_z.src" $(cat keys)) \
			>"$_zd/$_z.sign.log" 2>&1 || {
			cat "$_zd/$_z.sign.log" >&2
			return 1
		}
		if [ "$_mode" = broken ]; then
			# Change data of signed records; their RRSIGs no longer match.
			# Names zone-set --bogus put in ZONE.bogus ("owner<TAB>rdata")
			# are served with that other rdata.
			touch "$_zd/$_z.bogus"
			awk -F '\t' -v OFS='\t' -v a="$SE_BROKEN_A." -v t="$SE_BROKEN_TXT." \
			    -v bl="$_zd/$_z.bogus" '
				BEGIN {
					while ((getline l < bl) > 0) {
						split(l, f, "\t"); bogus[tolower(f[1])] = f[2]
					}
				}
				(tolower($1) in bogus) && $4 !~ /^(RRSIG|NSEC|NSEC3)$/ {
					$5 = bogus[tolower($1)]
				}
				$1 == a && $4 == "A"   { $5 = "127.0.0.2" }
				$1 == t && $4 == "TXT" { $5 = "\"tampered after signing\"" }
				$4 == "SRV" && $1 ~ /^_/ { split($5, f, " "); $5 = f[1] " " f[2] " " f[3] + 1 " " f[4] }
				{ print }' "$_zd/$_z.zone.new" >"$_zd/$_z.zone.tmp" &&
			mv "$_zd/$_z.zone.tmp" "$_zd/$_z.zone.new" || return 1
		fi
		;;
	*) return 1 ;;
	esac
	mv "$_zd/$_z.zone.new" "$_zd/$_z.zone"
}

# se_zone_serial_src ZONE: serial in the zone source.
se_zone_serial_src() {
	awk '$4 == "SOA" { print $7; exit }' "$SE_DIR/dns/zones/$1.src"
}

# se_zone_serial_served ZONE: serial NSD currently answers with.
se_zone_serial_served() {
	drill -p "$SE_DNS_PORT" @127.0.0.1 "$1" SOA 2>/dev/null |
		awk -v z="$1." 'tolower($1) == z && $4 == "SOA" { print $7; exit }'
}

# se_zone_wait ZONE SERIAL: wait (up to ~10 s) until NSD serves SERIAL.
se_zone_wait() {
	local _n
	_n=0
	while [ $_n -lt 200 ]; do
		[ "$(se_zone_serial_served "$1")" = "$2" ] && return 0
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}

# se_zone_new ZONE MODE: write the initial source of ZONE (records from
# stdin, SOA and NS added here) and make keys when MODE needs them.
se_zone_new() {
	local _k _kd _s _z _zd
	_z=$1
	_zd=$SE_DIR/dns/zones
	{
		printf '%s.\t300\tIN\tSOA\tns.%s. hostmaster.%s. 1 3600 600 86400 60\n' "$_z" "$_z" "$_z"
		printf '%s.\t300\tIN\tNS\tns.%s.\n' "$_z" "$_z"
		printf 'ns.%s.\t300\tIN\tA\t127.0.0.1\n' "$_z"
		cat
	} >"$_zd/$_z.src"
	echo "$2" >"$_zd/$_z.mode"
	if [ "$2" != unsigned ]; then
		_kd=$SE_DIR/dns/keys/$_z
		mkdir -p "$_kd"
		(cd "$_kd" &&
		 _k=$(ldns-keygen -a ED25519 -k "$_z") &&
		 _s=$(ldns-keygen -a ED25519 "$_z") &&
		 echo "$_k $_s" >keys &&
		 cat "$_k.ds" >>"$SE_DIR/dns/trust-anchors") >>"$SE_DIR/dns/keygen.log" 2>&1 ||
			se_fail "ldns-keygen for $_z" "$SE_DIR/dns/keygen.log"
	fi
	se_zone_build "$_z" 2>>"$SE_DIR/dns/keygen.log" ||
		se_fail "building zone $_z (ldns-signzone)" "$SE_DIR/dns/keygen.log"
}

se_dns_setup() {
	local _d _h _n
	_d=$SE_DIR/dns
	mkdir -p "$_d/zones" "$_d/keys" "$_d/xfr" || se_fail "cannot create $_d"
	: >"$_d/trust-anchors"
	_h=127.0.0.1

	se_zone_new steed.test signed <<EOF
steed.test.	60	IN	MX	10 mail.steed.test.
steed.test.	60	IN	TXT	"steed test zone (signed)"
imap.steed.test.	60	IN	A	$_h
smtp.steed.test.	60	IN	A	$_h
mail.steed.test.	60	IN	A	$_h
_imaps._tcp.steed.test.	60	IN	SRV	0 1 $SE_IMAPS_PORT imap.steed.test.
_imap._tcp.steed.test.	60	IN	SRV	0 1 $SE_IMAP_PORT imap.steed.test.
_submissions._tcp.steed.test.	60	IN	SRV	0 1 $SE_SUBMISSIONS_PORT smtp.steed.test.
_submission._tcp.steed.test.	60	IN	SRV	0 1 $SE_SUBMISSION_PORT smtp.steed.test.
_pop3s._tcp.steed.test.	60	IN	SRV	0 0 0 .
_pop3._tcp.steed.test.	60	IN	SRV	0 0 0 .
EOF
	se_zone_new plain.test unsigned <<EOF
plain.test.	60	IN	TXT	"plain test zone (unsigned)"
www.plain.test.	60	IN	A	$_h
mail.plain.test.	60	IN	A	$_h
_imaps._tcp.plain.test.	60	IN	SRV	0 1 $SE_IMAPS_PORT mail.plain.test.
_submissions._tcp.plain.test.	60	IN	SRV	0 1 $SE_SUBMISSIONS_PORT mail.plain.test.
EOF
	se_zone_new broken.test broken <<EOF
broken.test.	60	IN	TXT	"broken test zone (signed, then tampered)"
ok.broken.test.	60	IN	A	$_h
$SE_BROKEN_A.	60	IN	A	$_h
$SE_BROKEN_TXT.	60	IN	TXT	"original"
_imaps._tcp.broken.test.	60	IN	SRV	0 1 $SE_IMAPS_PORT imap.steed.test.
_submissions._tcp.broken.test.	60	IN	SRV	0 1 $SE_SUBMISSIONS_PORT smtp.steed.test.
EOF

	# The autoconfig test domain (web.sh): names of the HTTPS server, no
	# SRV records; the hostile ones have the test servers' MX host.
	{
		for _n in $SE_WEB_HOSTS; do
			printf '%s.\t60\tIN\tA\t%s\n' "$_n" "$_h"
		done
		for _n in $SE_WEB_HOSTILE; do
			printf '%s.%s.\t60\tIN\tMX\t10 mail.steed.test.\n' "$_n" "$SE_WEB_ZONE"
		done
	} >"$_d/$SE_WEB_ZONE.records"
	se_zone_new "$SE_WEB_ZONE" signed <"$_d/$SE_WEB_ZONE.records"

	cat >"$_d/nsd.conf" <<EOF
# Private NSD instance of the steedmail test environment.
server:
	ip-address: 127.0.0.1
	port: $SE_DNS_PORT
	do-ip4: yes
	do-ip6: no
	username: ""
	chroot: ""
	zonesdir: "$_d/zones"
	database: ""
	zonelistfile: "$_d/zone.list"
	xfrdfile: "$_d/xfrd.state"
	xfrdir: "$_d/xfr"
	pidfile: "$_d/nsd.pid"
	logfile: "$_d/nsd.log"
	verbosity: 1
	server-count: 1
	reuseport: no
	hide-version: yes
	refuse-any: no
	xfrd-reload-timeout: 0

remote-control:
	control-enable: yes
	control-interface: "$_d/nsd.ctl"

zone:
	name: "steed.test"
	zonefile: "steed.test.zone"
zone:
	name: "plain.test"
	zonefile: "plain.test.zone"
zone:
	name: "broken.test"
	zonefile: "broken.test.zone"
zone:
	name: "$SE_WEB_ZONE"
	zonefile: "$SE_WEB_ZONE.zone"
EOF

	cat >"$_d/unbound.conf" <<EOF
# libunbound configuration for clients of the steedmail test environment:
# ub_ctx_config(ctx, "$_d/unbound.conf") is all a client needs.
server:
	verbosity: 0
	use-syslog: no
	do-ip6: no
	do-not-query-localhost: no
	local-zone: "test." nodefault
	trust-anchor-file: "$_d/trust-anchors"
	val-log-level: 2

stub-zone:
	name: "steed.test"
	stub-addr: 127.0.0.1@$SE_DNS_PORT
stub-zone:
	name: "plain.test"
	stub-addr: 127.0.0.1@$SE_DNS_PORT
stub-zone:
	name: "broken.test"
	stub-addr: 127.0.0.1@$SE_DNS_PORT
stub-zone:
	name: "$SE_WEB_ZONE"
	stub-addr: 127.0.0.1@$SE_DNS_PORT
# Served by Knot (knot.sh), which signs it; its key joins trust-anchors
# once Knot has made it.
stub-zone:
	name: "$SE_DYN_ZONE"
	stub-addr: 127.0.0.1@$SE_KNOT_PORT
EOF
	chmod 0644 "$_d/unbound.conf" "$_d/trust-anchors"
}

se_nsd_start() {
	local _d
	_d=$SE_DIR/dns
	se_need nsd nsd-control ldns-keygen ldns-signzone drill
	nsd-checkconf "$_d/nsd.conf" >"$_d/nsd.log" 2>&1 ||
		se_fail "nsd: configuration rejected (nsd-checkconf)" "$_d/nsd.log"
	nsd -c "$_d/nsd.conf" >>"$_d/nsd.log" 2>&1 ||
		se_fail "nsd did not start" "$_d/nsd.log"
}

# Second half of the start, so the servers can start in parallel.
se_nsd_wait() {
	local _d _n _pid _z
	_d=$SE_DIR/dns
	_pid=
	_n=0
	while [ $_n -lt 100 ] && ! _pid=$(se_pidfile_pid "$_d/nsd.pid" nsd); do
		sleep 0.05; _n=$((_n + 1))
	done
	[ -n "$_pid" ] || se_fail "nsd did not write its pid file" "$_d/nsd.log"
	se_wait_tcp "$SE_DNS_PORT" nsd "$_d/nsd.log" "$_pid"
	for _z in steed.test plain.test broken.test "$SE_WEB_ZONE"; do
		se_zone_wait "$_z" "$(se_zone_serial_src "$_z")" ||
			se_fail "nsd does not serve zone $_z" "$_d/nsd.log"
	done
}

se_nsd_stop() {
	local _d _pid
	_d=$SE_DIR/dns
	_pid=$(se_pidfile_pid "$_d/nsd.pid" nsd) || return 0
	se_stop_tree "$_pid"
}
