# bash completion for steedmail(1).
#
# The options are read from "steedmail --help", so they are never out of
# step with the program; account names from "steedmail --check-config"
# (which reads only the configuration); folder names from the account's
# header cache, with sqlite3(1) if it is installed. Nothing here goes to
# the network.

# _steedmail_opts CMD: every long and short option CMD's --help names.
_steedmail_opts()
{
	"$1" --help 2>/dev/null |
	    tr -s ' \t,[]|' '\n\n\n\n\n\n' |
	    grep -xE -- '--[a-z][a-z-]*|-[A-Za-z]' | LC_ALL=C sort -u
}

# _steedmail_accounts CMD [-F FILE]: the account names of the configuration.
_steedmail_accounts()
{
	"$@" --check-config 2>/dev/null |
	    sed -n 's/^[* ] \([^ ][^ ]*\) <.*/\1/p'
}

# _steedmail_folders ACCOUNT: the folders in that account's header cache.
_steedmail_folders()
{
	local db
	db=${XDG_CACHE_HOME:-$HOME/.cache}/steedmail/$1.hcache
	[ -n "$1" ] && [ -r "$db" ] && command -v sqlite3 >/dev/null 2>&1 ||
	    return 0
	sqlite3 -readonly "$db" 'SELECT name FROM mailbox ORDER BY name' \
	    2>/dev/null
}

_steedmail()
{
	local cur prev cmd i w conf=() account= acmd
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=${COMP_WORDS[0]}
	command -v "$cmd" >/dev/null 2>&1 || cmd=steedmail

	# -F and -A given earlier on the line.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		-F) conf=(-F "${COMP_WORDS[i+1]}") ;;
		-F?*) conf=(-F "${w#-F}") ;;
		-A) account=${COMP_WORDS[i+1]} ;;
		-A?*) account=${w#-A} ;;
		esac
	done
	acmd=("$cmd" "${conf[@]}")

	COMPREPLY=()
	case $prev in
	-F|-a|--reply|--forward|--forward-inline|--resume|--view|--inspect|\
	--import-key|--import-setup)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	-A|--dns-records)
		COMPREPLY=($(compgen -W "$(_steedmail_accounts "${acmd[@]}")" \
		    -- "$cur"))
		return 0 ;;
	-d)
		COMPREPLY=($(compgen -W '1 2 3' -- "$cur"))
		return 0 ;;
	--sort)
		COMPREPLY=($(compgen -W 'arrival date from subject size thread
		    -arrival -date -from -subject -size -thread' -- "$cur"))
		return 0 ;;
	--trust)
		COMPREPLY=($(compgen -W 'list show verify accept reject forget
		    export import' -- "$cur"))
		return 0 ;;
	--sync|--list|--idle)
		if [[ $cur != -* ]]; then
			[ -n "$account" ] || account=$(_steedmail_accounts \
			    "${acmd[@]}" | head -n 1)
			local IFS=$'\n'
			COMPREPLY=($(compgen -W "$(_steedmail_folders \
			    "$account")" -- "$cur"))
			return 0
		fi ;;
	-s|-c|-b|--timeout|--part|--limit|--name|--address|--imap|--smtp|\
	--password-command|--pin|--lookup)
		return 0 ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_steedmail_opts "$cmd")" -- "$cur"))
	fi
	return 0
}

complete -F _steedmail steedmail
