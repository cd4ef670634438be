# layering.sh: the folder rule. Dependencies run one way:
#
#   ui/ (front ends: batch commands ui/cli-*.c, curses screens)
#    -> account/ (setup steps) -> src/ (the engine)
#
# src/ includes nothing from ui/ or account/ and no curses; account/
# includes nothing from ui/; no engine or account file prints or opens the
# terminal; the batch commands do not call each other in a circle.
. "$(dirname "$0")/../lib.sh"

# Lines of C with comments and string literals blanked, so that a word in
# a comment ("printf") or a string ("/dev/tty" in a message) is not taken
# for code; #include lines are kept as they are.
code() {
	python3 - "$@" <<'EOF'
import re, sys
for path in sys.argv[1:]:
    text = open(path, encoding='utf-8', errors='replace').read()
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text[i] == '"' and re.search(r'#\s*include\s*$', text[text.rfind('\n', 0, i) + 1:i]):
            j = text.find('"', i + 1)
            j = n if j < 0 else j + 1
            out.append(text[i:j]); i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append('"' + ' ' * (j - i - 1) + '"'); i = j + 1
        elif text[i] == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == '\\' else 1
            out.append("' '"); i = j + 1
        else:
            out.append(text[i]); i += 1
    for k, line in enumerate(''.join(out).split('\n'), 1):
        print('%s:%d:%s' % (path, k, line))
EOF
}

inc_ui='^[^:]*:[0-9]+:#[[:space:]]*include[[:space:]]+[<"](\.\./)?ui/'
inc_acct='^[^:]*:[0-9]+:#[[:space:]]*include[[:space:]]+[<"](\.\./)?account/'
inc_curses='^[^:]*:[0-9]+:#[[:space:]]*include[[:space:]]+[<"](n?curses|ncursesw/|term\.h|panel\.h)'

engine=$(ls src/*.[ch])
bad=$(code $engine | grep -E "$inc_ui|$inc_acct|$inc_curses" | cut -d: -f1,2 | tr '\n' ' ')
ok "src/ includes nothing from ui/, account/ or curses${bad:+: $bad}" test -z "$bad"

bad=$(code account/*.[ch] | grep -E "$inc_ui|$inc_curses" | cut -d: -f1,2 | tr '\n' ' ')
ok "account/ includes nothing from ui/ or curses${bad:+: $bad}" test -z "$bad"

bad=$(ls src/ | grep -vE '\.[ch]$|\.[od]$' | tr '\n' ' ')
ok "src/ holds only engine sources${bad:+: $bad}" test -z "$bad"

# Every way of printing: the stdio calls that write to stdout or stderr
# by themselves, any stdio write naming stdout or stderr, write(2) to
# descriptors 1 and 2, and the terminal device. The one exception is
# xmalloc.c's fatal message (running out of memory ends the program).
print_re='\b(printf|vprintf|puts|putchar|perror|warn|warnx|err|errx|verr|vwarn)[[:space:]]*\(|\b(fprintf|vfprintf|fputs|fputc|putc|fwrite|fflush)[[:space:]]*\([^;]*\b(stdout|stderr)\b|\b(write|dprintf|vdprintf)[[:space:]]*\([[:space:]]*(1|2|STDOUT_FILENO|STDERR_FILENO)[[:space:]]*,|\b(stdout|stderr)\b|"/dev/tty"|ttyname|ctermid|getpass[[:space:]]*\('
# /dev/tty sits in a string, which code() blanks: look for it in the raw file.
files=$(ls src/*.c account/*.c | grep -v '^src/xmalloc\.c$')
bad=$( (code $files | grep -E "$print_re"; grep -nE '/dev/tty' $files | grep -v '^[^:]*:[0-9]*:[[:space:]]*\*\|/\*') | cut -d: -f1,2 | tr '\n' ' ')
ok "engine and account/ never print nor open the terminal${bad:+: $bad}" test -z "$bad"

# The checker checks: a file that prints in each way is caught.
t=$(mktemp -d)
i=0
for line in 'printf("x");' 'puts(s);' 'fprintf(stderr, "x");' \
    'fwrite(p, 1, n, stdout);' 'write(2, p, n);' 'write(STDOUT_FILENO, p, n);' \
    'open("/dev/tty", O_RDWR);' 'fputs(s, stderr);' 'FILE *f = stdout;'; do
	i=$((i + 1))
	printf 'void f(void) {\n\t%s\n}\n' "$line" >"$t/p$i.c"
	n=$( (code "$t/p$i.c" | grep -E "$print_re"; grep -n '/dev/tty' "$t/p$i.c") | wc -l)
	ok "the print check catches: $line" test "$n" -gt 0
done
printf '/* printf("x") in a comment */\nstatic const char *s = "puts(stderr)";\nvoid f(FILE *log) { fprintf(log, "x"); }\n' >"$t/quiet.c"
n=$(code "$t/quiet.c" | grep -cE "$print_re")
ok "the print check ignores comments, strings and log files" test "$n" -eq 0
rm -rf "$t"

# The front ends see the engine through its modules' own headers: no
# library the engine uses underneath (gpgme, libetpan, SQLite, libunbound,
# ldns, GnuTLS, libcurl, expat, jansson), no private header of an engine
# module (NAME-int.h), and none of the wire- and storage-level modules
# that the session, the index and the crypto modules wrap.
inc_lib='^[^:]*:[0-9]+:#[[:space:]]*include[[:space:]]+<(gpgme\.h|libetpan/|sqlite3\.h|unbound\.h|ldns/|gnutls/|curl/|expat\.h|jansson\.h)'
wire='imap-(conn|frame|pre|resp|session|fetch|sync|idle|bodystructure)|net-(tls|https)|smtp-(session|submit)|sasl|dns-(query|cache)|db|trust-db|search-index|[a-z-]+-int'
inc_wire='^[^:]*:[0-9]+:#[[:space:]]*include[[:space:]]+"('"$wire"')\.h"'
bad=$(code ui/*.[ch] | grep -E "$inc_lib" | cut -d: -f1,2 | tr '\n' ' ')
ok "ui/ includes none of the engine's libraries${bad:+: $bad}" test -z "$bad"
bad=$(code ui/*.[ch] | grep -E "$inc_wire" | grep -v '#include "tui-int\.h"' | grep -v '^ui/cli-setup\.c:[0-9]*:#include "net-tls\.h"' | cut -d: -f1,2 | tr '\n' ' ')
ok "ui/ includes no wire-level or private engine header${bad:+: $bad}" test -z "$bad"
# The screens (ui/tui-*) include, of the engine, only the headers that
# declare its modules (src/*.h), and of the system only headers with no
# directory but sys/ (libc, POSIX, curses).
bad=$(code ui/tui*.[ch] | grep -E '^[^:]*:[0-9]+:#[[:space:]]*include' | while IFS= read -r l; do
	h=$(printf '%s\n' "$l" | sed -n 's/.*include[[:space:]]*[<"]\([^">]*\)[">].*/\1/p')
	case $l in
	*'<'*) case $h in */*) case $h in sys/*) ;; *) printf '%s ' "${l%%:#*}" ;; esac ;; esac ;;
	*) case $h in tui*.h|account/setup.h) ;; *) [ -e "src/$h" ] || printf '%s ' "${l%%:#*}" ;; esac ;;
	esac
done)
ok "the screens include only engine modules, libc and curses${bad:+: $bad}" test -z "$bad"
# The checker checks: each kind of include is caught.
t=$(mktemp -d)
printf '#include <gpgme.h>\n' >"$t/l.c"
printf '#include "imap-conn.h"\n#include "crypto-in-int.h"\n' >"$t/w.c"
n=$(code "$t/l.c" | grep -cE "$inc_lib")
ok "the library check catches <gpgme.h>" test "$n" = 1
n=$(code "$t/w.c" | grep -cE "$inc_wire")
ok "the wire check catches imap-conn.h and crypto-in-int.h" test "$n" = 2
rm -rf "$t"

# The batch commands: no curses, and no circle among the front-end files.
# An edge runs from a file to each other file whose non-static functions
# it calls; a function is defined where its name starts a line followed
# by "(" (the return type is on the line before).
bad=$(code ui/cli-*.c ui/cli*.h | grep -E "$inc_curses" | cut -d: -f1,2 | tr '\n' ' ')
ok "the batch commands include no curses${bad:+: $bad}" test -z "$bad"
callgraph() {
	code "$@" | python3 -c '
import re, sys, collections
lines = collections.defaultdict(list)
for l in sys.stdin:
    path, _, text = l.rstrip("\n").split(":", 2)
    lines[path].append(text)
# With MODULES set, the files that share a private header (NAME-int.h)
# are one module, NAME: their calls among themselves are its own.
import os
if os.environ.get("MODULES"):
    merged = collections.defaultdict(list)
    for path, ls in lines.items():
        m = [re.search(r"#\s*include\s*\x22([^\x22/]+)-int\.h\x22", t) for t in ls]
        m = [x.group(1) for x in m if x]
        merged[os.path.join(os.path.dirname(path), m[0]) if m else path] += ls
    lines = merged
defs = {}
for path, ls in lines.items():
    for k, t in enumerate(ls):
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\(", t)
        if m and k > 0 and "static" not in ls[k - 1] and not ls[k - 1].startswith("#"):
            defs[m.group(1)] = path
g = collections.defaultdict(set)
for path, ls in lines.items():
    for name in set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", "\n".join(ls))):
        if name in defs and defs[name] != path:
            g[path].add(defs[name])
seen, stack = {}, []
def visit(n):
    seen[n] = 1; stack.append(n)
    for d in sorted(g[n]):
        if seen.get(d) == 1:
            print(" -> ".join(stack[stack.index(d):] + [d])); sys.exit(0)
        if d not in seen:
            visit(d)
    seen[n] = 2; stack.pop()
for n in sorted(lines):
    if n not in seen:
        visit(n)
'
}
cycle=$(callgraph ui/*.c)
ok "no circle among the front-end files${cycle:+: $cycle}" test -z "$cycle"
# The engine too: a file (or a module of files sharing a private header,
# as crypto-in's) calls no file that calls it back, directly or not.
cycle=$(MODULES=1 callgraph src/*.c)
ok "no circle among the engine's files${cycle:+: $cycle}" test -z "$cycle"
# The checker checks: two files calling each other are a circle.
t=$(mktemp -d)
printf 'int\nfa(void)\n{\n\treturn fb();\n}\n' >"$t/a.c"
printf 'int\nfb(void)\n{\n\treturn 0;\n}\nint\nfc(void)\n{\n\treturn fa();\n}\n' >"$t/b.c"
cycle=$(callgraph "$t/a.c" "$t/b.c")
ok "the circle check finds a circle" test -n "$cycle"
rm -rf "$t"

# The outbox's and the drafts' files are the engine's (outgoing.h, the
# drafts in draft.h): no front-end file includes outbox.h or names their
# directories, and the files of sending, the outbox screen and the drafts
# list list, open, rename or remove no file themselves.
files_re='\b(opendir|readdir|scandir|rename|renameat|unlink|unlinkat|link|fopen|buf_read_file|mkostemp|mkstemp)[[:space:]]*\('
dirs_re='#[[:space:]]*include[[:space:]]+"outbox\.h"|\b(outbox_[a-z_]+|draft_dir|draft_path|paths_data_subdir)[[:space:]]*\('
bad=$(code ui/*.[ch] account/*.[ch] | grep -E "$dirs_re" | cut -d: -f1,2 | tr '\n' ' ')
ok "no front end names the outbox's or the drafts' files${bad:+: $bad}" test -z "$bad"
bad=$( (code ui/tui-outbox.c ui/tui-drafts*.c ui/tui-send.c \
    ui/tui-compose-send.c | grep -E "$files_re|\b(open|stat|access)[[:space:]]*\("
    code ui/cli-send.c | grep -E "$files_re") | cut -d: -f1,2 | tr '\n' ' ')
ok "sending and the outbox and drafts screens touch no file themselves${bad:+: $bad}" test -z "$bad"
# The checker checks: a screen that moves a draft itself is caught.
t=$(mktemp -d)
printf '#include "outbox.h"\nvoid f(void) {\n\tchar *d = outbox_dir(&c);\n\trename(a, b);\n}\n' >"$t/s.c"
n=$(code "$t/s.c" | grep -cE "$dirs_re|$files_re")
ok "the outbox check catches an include, a directory and a rename" test "$n" -eq 3
rm -rf "$t"
