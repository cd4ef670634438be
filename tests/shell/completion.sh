# completion.sh: the bash and zsh completions in contrib/completion/ offer
# every option of the program and the configuration's account names.
. "$(dirname "$0")/../lib.sh"

# Its own configuration and cache directories, also when run by hand.
export XDG_CONFIG_HOME="$T_TMP/config-home" XDG_CACHE_HOME="$T_TMP/cache-home"

BASH_FILE=contrib/completion/steedmail.bash
ZSH_FILE=contrib/completion/_steedmail

# The completions run "steedmail" from PATH: the one under test.
mkdir -p "$T_TMP/bin"
ln -s "$STEEDMAIL" "$T_TMP/bin/steedmail"
PATH=$T_TMP/bin:$PATH

# complete WORD...: what bash's completion offers for the last WORD, one a
# line, as a Tab after "WORD..." would.
complete_bash() {
	bash --norc --noprofile -c '
		. "$1" || exit 2
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_steedmail steedmail "${COMP_WORDS[COMP_CWORD]}" \
		    "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' complete "$BASH_FILE" "$@"
}
# offers WORD COMPLETION...: the last of COMPLETION... completes to WORD.
offers() {
	_w=$1; shift
	complete_bash "$@" >"$T_TMP/reply"
	cat "$T_TMP/reply"
	grep -qx -- "$_w" "$T_TMP/reply"
}

ok "bash: the file parses" bash -n "$BASH_FILE"
ok "bash: the file registers _steedmail for steedmail" sh -c \
    "bash --norc -c '. $BASH_FILE; complete -p steedmail' | grep -q '_steedmail steedmail'"
ok "bash: 'steedmail --se' completes to --setup" offers --setup steedmail --se
ok "bash: '--se' offers nothing but options starting --se" sh -c \
    "! grep -v '^--se' '$T_TMP/reply' && [ -s '$T_TMP/reply' ]"
fails "bash: 'steedmail --zz' completes to nothing like --setup" offers --setup steedmail --zz

# Every option of the program's tables (ui/cli-main.c: main_cmds and
# main_opts, with -h, --help, -V and --version) and every option the man
# page documents is offered, and none the program does not know.
table_opts() {
	sed -n '/^static const struct main_\(cmd\|opt\) main_\(cmds\|opts\)\[\] = {/,/^};/p' ui/cli-main.c |
	    grep -oE '"--?[A-Za-z][a-z-]*"' | tr -d '"'
	printf '%s\n' --help --version -h -V
}
ok "the option tables of ui/cli-main.c are found" test "$(table_opts | grep -c .)" -gt 40
complete_bash steedmail - >"$T_TMP/all"
missing=
for o in $(table_opts); do
	grep -qx -- "$o" "$T_TMP/all" || missing="$missing $o"
done
ok "bash: every option of ui/cli-main.c is offered${missing:+; missing:$missing}" test -z "$missing"
missing=
for o in $(grep '^\.It' doc/steedmail.1 | grep -oE 'Fl (-[a-z][a-z-]*|[A-Za-z])( |$)' |
    sed 's/^Fl /-/; s/ $//' | sort -u); do
	grep -qx -- "$o" "$T_TMP/all" || missing="$missing $o"
done
ok "bash: every option of steedmail(1) is offered${missing:+; missing:$missing}" test -z "$missing"
n=$(table_opts | grep -c '^--')
ok "bash: no more long options than the program has" sh -c \
    "[ \$(grep -c '^--' '$T_TMP/all') = $n ]"

# Account names, from the configuration (-F, or the default one).
cat >"$T_TMP/config" <<CONF
[account work]
address = alice@steed.test
imap = imaps://imap.steed.test
smtp = smtp://smtp.steed.test
password = s3cret-Value

[account home]
address = bob@steed.test
imap = imap://imap.steed.test:1143
smtp = smtps://smtp.steed.test:1465
password = hunter2
CONF
chmod 600 "$T_TMP/config"
ok "bash: -A completes the account names of -F's file" offers home steedmail -F "$T_TMP/config" -A ""
ok "bash: ... both of them" offers work steedmail -F "$T_TMP/config" -A w
mkdir -p "$XDG_CONFIG_HOME/steedmail"
cp "$T_TMP/config" "$XDG_CONFIG_HOME/steedmail/config"
ok "bash: -A completes the account names of the default configuration" offers work steedmail -A ""
ok "bash: -d completes the debug levels" offers 2 steedmail -d ""

# Folder names from the header cache, when sqlite3 is there to read it.
if command -v sqlite3 >/dev/null 2>&1; then
	mkdir -p "$XDG_CACHE_HOME/steedmail"
	sqlite3 "$XDG_CACHE_HOME/steedmail/home.hcache" \
	    "CREATE TABLE mailbox (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
	    uidvalidity INTEGER NOT NULL); INSERT INTO mailbox VALUES (1, 'INBOX', 1),
	    (2, 'Archive/2026', 1);"
	ok "bash: --list completes the folders of -A's header cache" offers Archive/2026 steedmail -A home --list A
	fails "bash: ... and not another account's" offers Archive/2026 steedmail -A work --list A
else
	echo "ok $((t_n + 1)) # SKIP sqlite3 is not installed"; t_n=$((t_n + 1))
	echo "ok $((t_n + 1)) # SKIP sqlite3 is not installed"; t_n=$((t_n + 1))
fi

# zsh: the file parses; with zsh there, _steedmail is run with compadd and
# its helpers replaced by ones that print what they are given (compadd's
# matching against the word is zsh's, so every candidate is printed).
cat >"$T_TMP/zsh-harness" <<'ZSH'
compadd() {
	while [[ $1 == -* && $1 != -- && $1 != -a ]]; do shift; done
	if [[ $1 == -a ]]; then shift; print -l -- ${(P)1}; return; fi
	[[ $1 == -- ]] && shift
	print -l -- "$@"
}
_describe() { print -l -- ${(P)4}; }
_call_program() { shift; "$@"; }
_files() { print -- _files; }
_message() { :; }
f=$1; shift
words=("$@")
CURRENT=$#words
source "$f"
ZSH
complete_zsh() { zsh -f "$T_TMP/zsh-harness" "$ZSH_FILE" "$@"; }
zoffers() {
	_w=$1; shift
	complete_zsh "$@" >"$T_TMP/reply"
	cat "$T_TMP/reply"
	grep -qx -- "$_w" "$T_TMP/reply"
}
if command -v zsh >/dev/null 2>&1; then
	ok "zsh: _steedmail parses (zsh -n)" zsh -n "$ZSH_FILE"
	ok "zsh: _steedmail declares itself for steedmail" sh -c "head -1 '$ZSH_FILE' | grep -qx '#compdef steedmail'"
	ok "zsh: 'steedmail --se' offers --setup" zoffers --setup steedmail --se
	complete_zsh steedmail - | LC_ALL=C sort >"$T_TMP/zall"
	ok "zsh: the same options as bash" cmp "$T_TMP/zall" "$T_TMP/all"
	ok "zsh: -A completes the account names of -F's file" zoffers home steedmail -F "$T_TMP/config" -A ""
	ok "zsh: -F completes file names" zoffers _files steedmail -F ""
	if command -v sqlite3 >/dev/null 2>&1; then
		ok "zsh: --list completes the folders of -A's header cache" zoffers Archive/2026 steedmail -A home --list ""
	fi
else
	echo "ok $((t_n + 1)) # SKIP zsh is not installed (contrib/install-deps)"; t_n=$((t_n + 1))
fi
# The two files handle the same option arguments.
b=$(sed -n 's/^\t\(-[^)]*\))$/\1/p' "$BASH_FILE" | tr -d '\\\n')
z=$(sed -n 's/^\t\(-[^)]*\))$/\1/p' "$ZSH_FILE" | tr -d '\\\n')
ok "bash and zsh complete the same option arguments" sh -c "[ -n '$b' ] && [ '$b' = '$z' ]"
