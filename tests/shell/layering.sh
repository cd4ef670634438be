# layering.sh: dependencies run one way: ui -> account -> src, ui -> src.
# The engine (src/) includes nothing from ui/ or account/ and no curses;
# account/ includes nothing from ui/.
. "$(dirname "$0")/../lib.sh"

# The batch commands (src/main.c, src/cmd-*.c) are a front end, like ui/:
# they may call account/ (key generation); the engine modules may not.
engine=$(ls src/*.[ch] | grep -v 'src/main\.c\|src/cmd-[^/]*\.c')
bad_src=$(grep -lE '^#include[[:space:]]+[<"](\.\./)?(ui|account)/|^#include[[:space:]]+[<"](n?curses|ncursesw/)' $engine 2>/dev/null)
ok "src/ includes nothing from ui/, account/ or curses${bad_src:+: $bad_src}" test -z "$bad_src"
bad_cmd=$(grep -lE '^#include[[:space:]]+[<"](\.\./)?ui/|^#include[[:space:]]+[<"](n?curses|ncursesw/)' src/main.c src/cmd-*.c 2>/dev/null)
ok "the batch commands include nothing from ui/ or curses${bad_cmd:+: $bad_cmd}" test -z "$bad_cmd"
bad_acct=$(grep -lE '^#include[[:space:]]+[<"](\.\./)?ui/|^#include[[:space:]]+[<"](n?curses)' account/*.[ch] 2>/dev/null)
ok "account/ includes nothing from ui/ or curses${bad_acct:+: $bad_acct}" test -z "$bad_acct"
bad_print=$(grep -lE '\b(printf|puts|fputs|fprintf)\(' $(ls src/*.c | grep -v 'src/main.c\|src/cmd-\|src/xmalloc.c') 2>/dev/null | xargs -r grep -lE '\b(printf|fputs)\((stdout|stderr|")' )
ok "engine modules never print${bad_print:+: $bad_print}" test -z "$bad_print"
