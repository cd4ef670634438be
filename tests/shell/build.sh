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

touch "$T_TMP/stamp"
sleep 1
make -s install DESTDIR="$T_TMP/dest" prefix=/usr mandir=/usr/share/man datadir=/usr/share >/dev/null 2>&1
ok "make install puts the binary and man pages under DESTDIR" sh -c "[ -x '$T_TMP/dest/usr/bin/steedmail' ] && [ -f '$T_TMP/dest/usr/share/man/man1/steedmail.1' ] && [ -f '$T_TMP/dest/usr/share/man/man5/steedmail.conf.5' ]"
ok "... and the provider files in the data directory" sh -c "[ -f '$T_TMP/dest/usr/share/steedmail/providers/google.xml' ] && [ \$(ls '$T_TMP/dest/usr/share/steedmail/providers' | wc -l) = \$(ls contrib/providers/*.xml | wc -l) ]"
ok "... and the bash and zsh completions where those shells look" sh -c "cmp contrib/completion/steedmail.bash '$T_TMP/dest/usr/share/bash-completion/completions/steedmail' && cmp contrib/completion/_steedmail '$T_TMP/dest/usr/share/zsh/site-functions/_steedmail'"
{
	echo /usr/bin/steedmail
	echo /usr/share/man/man1/steedmail.1
	echo /usr/share/man/man5/steedmail.conf.5
	echo /usr/share/bash-completion/completions/steedmail
	echo /usr/share/zsh/site-functions/_steedmail
	for f in contrib/providers/*.xml; do
		echo "/usr/share/steedmail/providers/${f##*/}"
	done
	echo /usr/share/steedmail/themes/dark
	echo /usr/share/steedmail/themes/light
} | LC_ALL=C sort >"$T_TMP/expected"
(cd "$T_TMP/dest" && find . ! -type d | sed 's/^\.//' | LC_ALL=C sort) >"$T_TMP/installed"
ok "make install installs exactly those files" diff "$T_TMP/expected" "$T_TMP/installed"
ok "make install built nothing under tests/" sh -c "[ -z \"\$(find tests -newer '$T_TMP/stamp' ! -type d ! -path 'tests/fuzz/work/*' | head)\" ]"
ok "make install needs nothing under tests/" sh -c "! make -n install DESTDIR='$T_TMP/dry' | grep 'tests/'"
make -s uninstall DESTDIR="$T_TMP/dest" prefix=/usr mandir=/usr/share/man datadir=/usr/share >/dev/null 2>&1
ok "make uninstall removes them" sh -c "[ -z \"\$(find '$T_TMP/dest' ! -type d)\" ]"

# make dist: the tracked files under steedmail-VERSION/, and the tree it
# unpacks to configures (building it is left to the release check).
if git rev-parse --git-dir >/dev/null 2>&1; then
	v=$(sed -n 's/^#define STEED_VERSION "\(.*\)"/\1/p' src/version.h)
	rm -f "steedmail-$v.tar.gz"
	make -s dist >/dev/null 2>&1 && mv "steedmail-$v.tar.gz" "$T_TMP/"
	ok "make dist makes steedmail-$v.tar.gz" test -f "$T_TMP/steedmail-$v.tar.gz"
	git ls-files | sed "s,^,steedmail-$v/," | LC_ALL=C sort >"$T_TMP/tracked"
	tar tzf "$T_TMP/steedmail-$v.tar.gz" | LC_ALL=C sort >"$T_TMP/packed"
	ok "... holding exactly the tracked files" diff "$T_TMP/tracked" "$T_TMP/packed"
	mkdir -p "$T_TMP/unpacked"
	tar xzf "$T_TMP/steedmail-$v.tar.gz" -C "$T_TMP/unpacked"
	ok "... which unpack to a tree that configures" sh -c "cd '$T_TMP/unpacked/steedmail-$v' && ./configure >/dev/null && make -n steedmail >/dev/null"
else
	echo "ok $((t_n + 1)) # SKIP not a git checkout: make dist needs git ls-files"
	t_n=$((t_n + 1))
fi

# contrib/debian builds with what contrib/install-deps installs to build
# (doc/packaging.md); a library added to one and not the other shows here.
want=$(sed -n '/^BUILD="/,/"/p' contrib/install-deps | tr -d '"' |
    sed 's/^BUILD=//' | tr ' ' '\n' | grep -v -e '^$' -e '^build-essential$' | sort)
have=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' contrib/debian/control |
    sed 's/^Build-Depends://' | tr ',' '\n' | sed 's/[(<].*//; s/^ *//; s/ *$//' |
    grep -v -e '^$' -e '^debhelper-compat' -e '^[A-Z]' | sort)
missing=$(printf '%s\n' "$want" | while read -r p; do
	printf '%s\n' "$have" | grep -qx "$p" || printf ' %s' "$p"; done)
ok "contrib/debian/control build-depends on every build package of install-deps${missing:+; missing:$missing}" \
    test -z "$missing"
ok "contrib/debian/changelog's version is src/version.h's" \
    sh -c "head -1 contrib/debian/changelog | grep -qF \"steedmail (\$(sed -n 's/^#define STEED_VERSION \"\\(.*\\)\"/\\1/p' src/version.h))\""
