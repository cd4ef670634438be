# build.sh: configure names a missing library and its Debian package;
# make install and uninstall honour DESTDIR and the prefix.
. "$(dirname "$0")/../lib.sh"

# A pkg-config that pretends one module is not installed.
hide() {
	cat >"$T_TMP/pkg-config" <<PC
#!/bin/sh
for a; do [ "\$a" = "$1" ] && exit 1; done
exec pkg-config "\$@"
PC
	chmod +x "$T_TMP/pkg-config"
	mkdir -p "$T_TMP/tree"
	cp configure Makefile.in "$T_TMP/tree/"
	(cd "$T_TMP/tree" && PKG_CONFIG="$T_TMP/pkg-config" ./configure 2>&1 >/dev/null)
}
for pair in libetpan:libetpan-dev gpgme:libgpgme-dev libunbound:libunbound-dev \
    sqlite3:libsqlite3-dev gnutls:libgnutls28-dev expat:libexpat1-dev; do
	mod=${pair%%:*} pkg=${pair#*:}
	msg=$(hide "$mod" | tail -1)
	ok "missing $mod: configure names $mod and $pkg" sh -c "case '$msg' in *'$mod not found'*'$pkg'*) exit 0;; esac; echo 'got: $msg'; exit 1"
done

# ncurses also ships ncursesw6-config, which configure falls back to.
msg=$(hide ncursesw)
ok "ncursesw found through ncursesw6-config when pkg-config lacks it" sh -c "[ -z '$msg' ] && grep -q lncursesw '$T_TMP/tree/Makefile'"

(cd "$T_TMP/tree" && ./configure --prefix=/opt/sm --mandir=/opt/sm/man --enable-debug >/dev/null)
ok "configure honours --prefix and --enable-debug" sh -c "grep -q '^prefix.*= /opt/sm$' '$T_TMP/tree/Makefile' && grep -q '^CFLAGS.*-O0 -g3' '$T_TMP/tree/Makefile'"
(cd "$T_TMP/tree" && CFLAGS=-O1 ./configure --enable-sanitizers >/dev/null)
ok "configure honours CFLAGS and --enable-sanitizers" sh -c "grep -q '^CFLAGS.*-O1 -fsanitize=address,undefined' '$T_TMP/tree/Makefile'"
ok "configure refuses an unknown option" sh -c "cd '$T_TMP/tree' && ! ./configure --with-bogus 2>/dev/null"

make -s install DESTDIR="$T_TMP/dest" prefix=/usr mandir=/usr/share/man datadir=/usr/share >/dev/null 2>&1
ok "make install puts the binary and man pages under DESTDIR" sh -c "[ -x '$T_TMP/dest/usr/bin/steedmail' ] && [ -f '$T_TMP/dest/usr/share/man/man1/steedmail.1' ] && [ -f '$T_TMP/dest/usr/share/man/man5/steedmail.conf.5' ]"
ok "... and the provider files in the data directory" sh -c "[ -f '$T_TMP/dest/usr/share/steedmail/providers/google.xml' ] && [ \$(ls '$T_TMP/dest/usr/share/steedmail/providers' | wc -l) = \$(ls contrib/providers/*.xml | wc -l) ]"
make -s uninstall DESTDIR="$T_TMP/dest" prefix=/usr mandir=/usr/share/man datadir=/usr/share >/dev/null 2>&1
ok "make uninstall removes them" sh -c "[ -z \"\$(find '$T_TMP/dest' -type f)\" ]"
