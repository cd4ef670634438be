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
# The interface's actions and default keys (ui/tui-keys.c) in SCREENS.
missing=
for a in $(sed -n 's/^[[:space:]]*\[TA_[A-Z_]*\] = { "\([a-z-]*\)".*/\1/p' \
    ui/tui-keys.c); do
	grep -qE "^\.(It .*Ta )?Ic $a( |$)" doc/steedmail.1 || missing="$missing $a"
done
ok "steedmail(1) names every action of the interface${missing:+; missing:$missing}" \
    test -z "$missing"
if [ -x tests/unit/test-tui-keys ]; then
	tests/unit/test-tui-keys --defaults >"$T_TMP/keys"
	# rows ".It KEY... Ta Ic ACTION Ta ..." after a comment ".\" keys: MAP"
	awk -F ' Ta ' 'NR == FNR { want[$0] = 1; next }
	    /^\.\\" keys: / { map = $0; sub(/.* keys: /, "", map); next }
	    /^\.El/ { map = ""; next }
	    map != "" && /^\.It / {
		keys = substr($1, 5); act = $2; sub(/^Ic /, "", act)
		gsub(/\\&/, "", keys); gsub(/\\-/, "-", keys)
		n = split(keys, k, " ")
		for (i = 1; i <= n; i++) {
			b = map " " k[i] " " act
			if (!(b in want)) print "not bound: " b
			seen[b] = 1
		}
	    }
	    END { for (b in want) if (!(b in seen)) print "not listed: " b }' \
	    "$T_TMP/keys" doc/steedmail.1 >"$T_TMP/keydiff"
	ok "steedmail(1) lists the default keys as they are$(sed 's/^/; /' \
	    "$T_TMP/keydiff" | tr -d '\n')" test ! -s "$T_TMP/keydiff"
else
	t_n=$((t_n + 1))
	echo "ok $t_n - # SKIP the default keys: make tests/unit/test-tui-keys"
fi
# The legend of the indicators: each glyph of src/verdict.c's legend and
# of ui/tui-draw.c, its ASCII form and its meaning, is a row
# ".It UTF8 Ta ASCII Ta MEANING" there.
{
	if [ -x tests/unit/test-verdict ]; then tests/unit/test-verdict --legend
	else echo "test-verdict is not built"; fi
	sed -n 's/^[[:space:]]*\[TG_[A-Z_]*\] =[[:space:]]*{ "[^"]*", "\([^"]*\)", "\([^"]*\)" },.*/\1 \2/p' \
	    ui/tui-draw.c | sed 's/^\([^ ]*\)  */\1 /'
} | sort >"$T_TMP/glyphs"
awk -F ' Ta ' '/^\.\\" glyphs: / { on = 1; next } on && /^\.El/ { on = 0 }
    on && /^\.It / && $2 !~ /^Em / {
	a = $2; gsub(/\\&/, "", a); gsub(/\\-/, "-", a)
	gsub(/\\\(ga/, "`", a); gsub(/\\e/, "\\", a)
	print a " " $3
    }' doc/steedmail.1 | sort >"$T_TMP/legend"
ok "steedmail(1) shows every indicator glyph as verdict.c and tui-draw.c have it" \
    sh -c 'test -s "$1" && diff "$1" "$2"' - "$T_TMP/glyphs" "$T_TMP/legend"
ok "man pages lint clean" mandoc -Tlint -Wwarning doc/steedmail.1 doc/steedmail.conf.5
