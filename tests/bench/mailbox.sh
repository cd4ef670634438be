# tests/bench/mailbox.sh: the bench's INBOX of N messages (sourced by
# tests/bench/run and tests/bench/tui.sh; see doc/bench.md).
#
#   bench_mailbox_env N       before tests/env/run start: a Dovecot that can
#                             serve N messages (the imap processes' vsz_limit
#                             raised to BENCH_IMAP_VSZ, 4G, from
#                             BENCH_LARGE, 500000, messages on)
#   bench_mailbox_fill HOME N fill HOME/Maildir with N messages of
#                             genmaildir.py and let Dovecot index them; sets
#                             MB_GEN_S, MB_LINK_S, MB_INDEX_S (seconds of
#                             writing, of linking from the cache, of
#                             doveadm index) and MB_FROM ("generated" or
#                             "kept": written by an earlier run)
#   bench_mailbox_keep HOME N after the warm-up, keep Dovecot's index of
#                             HOME/Maildir with the kept messages (once)
#
# Below BENCH_LARGE messages the mailbox is written afresh on every run,
# as it always was. From BENCH_LARGE on (or at any size with BENCH_CACHE=DIR)
# it is written once into BENCH_CACHE (/var/tmp/steedmail-bench), in
# N-GENERATOR/ (GENERATOR: the start of genmaildir.py's SHA-256, so a
# changed generator makes a new one), and each run gets hard links to the
# message files (Dovecot only renames or removes them, never writes into
# them) and copies of Dovecot's index files, which it writes in place.
# BENCH_CACHE=0 writes afresh at any size. Needs DOVEADM,
# STEED_MAIL_UID/GID (tests/env's env.sh), GEN, say, die, now and since.

# shellcheck shell=bash disable=SC2034  # MB_* are read by the sourcing script
BENCH_LARGE=${BENCH_LARGE:-500000}

bench_mailbox_env() {
	if [ "$1" -ge "$BENCH_LARGE" ]; then
		export STEED_ENV_IMAP_VSZ_LIMIT="${BENCH_IMAP_VSZ:-4G}"
	fi
}

# The cache directory of N messages, or nothing when N is written afresh.
mb_dir() {
	local base=${BENCH_CACHE:-} sum
	case $base in
	0) return 0 ;;
	'') [ "$1" -ge "$BENCH_LARGE" ] || return 0
	    base=/var/tmp/steedmail-bench ;;
	esac
	sum=$(sha256sum "$GEN" | cut -c1-12) || return 1
	printf '%s/%s-%s\n' "$base" "$1" "$sum"
}

# Dovecot's own files in a Maildir (index, cache, log, uid list).
mb_index_files() {
	find "$1" -maxdepth 1 -type f -name 'dovecot*' -printf '%f\n'
}

mb_index() {
	local t0
	say "letting Dovecot index the mailbox"
	t0=$(now)
	$DOVEADM index -u "$USER_ADDR" INBOX || die "doveadm index failed"
	MB_INDEX_S=$(since "$t0")
}

# mb_make DIR N: write the N messages of DIR (under its lock).
mb_make() {
	local dir=$1 n=$2 tmp
	rm -rf "$dir"
	tmp=$dir.new.$$
	rm -rf "$tmp"
	mkdir -p "$tmp" || die "cannot create $tmp"
	say "writing $n messages into $dir (once; later runs reuse them)"
	python3 "$GEN" "$tmp/Maildir" "$n" || die "the generator failed"
	# The links share the files' owner: give them the mail uid now.
	chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$tmp/Maildir" ||
		die "chown of $tmp failed"
	printf 'messages %s\ngenerator %s\nowner %s:%s\nwritten %s\n' "$n" \
	    "$(sha256sum "$GEN" | cut -d' ' -f1)" "$STEED_MAIL_UID" \
	    "$STEED_MAIL_GID" "$(date '+%Y-%m-%d %H:%M')" >"$tmp/complete"
	mv "$tmp" "$dir" || die "cannot move $tmp to $dir"
}

bench_mailbox_fill() {
	local home=$1 n=$2 dir t0 f
	MB_GEN_S=0 MB_LINK_S=0 MB_INDEX_S=0 MB_FROM=generated
	dir=$(mb_dir "$n") || die "cannot name the mailbox cache"
	if [ -z "$dir" ]; then
		say "writing $n messages into $home/Maildir"
		t0=$(now)
		python3 "$GEN" "$home/Maildir" "$n" || die "the generator failed"
		chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$home" ||
			die "chown of $home failed"
		MB_GEN_S=$(since "$t0")
		mb_index
		return 0
	fi

	mkdir -p "$(dirname "$dir")" && chmod 0700 "$(dirname "$dir")" ||
		die "cannot create $(dirname "$dir")"
	# One writer at a time; a bench that finds it half written waits.
	exec 8>"$dir.lock" || die "cannot open $dir.lock"
	flock 8 || die "cannot lock $dir.lock"
	t0=$(now)
	if [ ! -f "$dir/complete" ]; then
		mb_make "$dir" "$n"
		MB_GEN_S=$(since "$t0")
		t0=$(now)
	else
		MB_FROM=kept
	fi
	say "linking the $n messages of $dir into $home/Maildir"
	rm -rf "$home/Maildir"
	# cp -a keeps the directories' mtimes, which Dovecot's index records.
	cp -al "$dir/Maildir" "$home/Maildir" 2>/dev/null || {
		say "no hard links into $home (another file system?): copying"
		rm -rf "$home/Maildir"
		cp -a "$dir/Maildir" "$home/Maildir" || die "cannot copy $dir/Maildir"
	}
	if [ -d "$dir/index" ]; then
		# Real copies, never links: Dovecot writes into these.
		for f in $(mb_index_files "$dir/index"); do
			rm -f "$home/Maildir/$f"
			cp -a "$dir/index/$f" "$home/Maildir/$f" || die "cannot copy $f"
		done
	fi
	chown "$STEED_MAIL_UID:$STEED_MAIL_GID" "$home" ||
		die "chown of $home failed"
	if ! grep -qx "owner $STEED_MAIL_UID:$STEED_MAIL_GID" "$dir/complete"; then
		chown -R "$STEED_MAIL_UID:$STEED_MAIL_GID" "$home/Maildir" ||
			die "chown of $home/Maildir failed"
	fi
	flock -u 8
	exec 8>&-
	MB_LINK_S=$(since "$t0")
	mb_index
}

bench_mailbox_keep() {
	local home=$1 dir f tmp
	dir=$(mb_dir "$2") || return 0
	[ -n "$dir" ] && [ -f "$dir/complete" ] && [ ! -d "$dir/index" ] || return 0
	tmp=$dir/index.new.$$
	rm -rf "$tmp"
	mkdir "$tmp" || { say "cannot keep Dovecot's index in $dir"; return 0; }
	for f in $(mb_index_files "$home/Maildir"); do
		cp -a "$home/Maildir/$f" "$tmp/$f" ||
			{ say "cannot keep $f"; rm -rf "$tmp"; return 0; }
	done
	mv "$tmp" "$dir/index" || rm -rf "$tmp"
	say "kept Dovecot's index of the mailbox in $dir/index"
}
