# docs.sh: the man pages document every option and every setting.
. "$(dirname "$0")/../lib.sh"

missing=
for s in $(sm --help-config | awk '{print $2}' | sort -u); do
	grep -qE "^\.It Ic $s( |$)" doc/steedmail.conf.5 || missing="$missing $s"
done
ok "steedmail.conf(5) documents every setting${missing:+; missing:$missing}" test -z "$missing"
missing=
for o in $(sm --help | grep -oE -- '--[a-z][a-z-]+|-[A-Za-z]\b' | sort -u); do
	grep -qE -- "^\.It (.* )?Fl ${o#-}( |$)" doc/steedmail.1 || missing="$missing $o"
done
ok "steedmail(1) documents every option${missing:+; missing:$missing}" test -z "$missing"
ok "man pages lint clean" mandoc -Tlint -Wwarning doc/steedmail.1 doc/steedmail.conf.5
