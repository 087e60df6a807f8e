# bash completion for ctrbench (make install puts it in bash-completion's completions folder;
# or `. scripts/ctrbench-completion.bash`).  It asks the binary itself: the commands from
# `ctrbench --help`, each command's flags from `ctrbench CMD --help`, algorithm and scenario names
# from `ctrbench list` and `ctrbench scenario list`, each command's formats and which of its
# values are files from its --help, so it cannot fall behind the program.
_ctrbench()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local bin=${COMP_WORDS[0]} cmd=${COMP_WORDS[1]:-} words

	if [ "$COMP_CWORD" -eq 1 ]; then
		words=$("$bin" --help 2>/dev/null | sed -n 's/^ *\(usage: \)\{0,1\}ctrbench \([a-z][a-z0-9-]*\).*/\2/p' | sort -u)
		COMPREPLY=($(compgen -W "$words --help --version" -- "$cur"))
		return
	fi
	case "$prev" in
	--algo)
		words=$("$bin" list 2>/dev/null | awk '{print $1}')
		# A list: complete the part after the last comma.
		local head=${cur%,*} tail=${cur##*,}
		[ "$head" = "$cur" ] && head= || head="$head,"
		COMPREPLY=($(compgen -P "$head" -W "$words all" -- "$tail"))
		return ;;
	--out|--results|--plan|--configs|--calibration)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--topology)
		# the named layouts (`ctrbench topo --layouts`: each "NAME  part...") and files (XML)
		words=$("$bin" topo --layouts 2>/dev/null | awk '/^[a-z][a-z0-9]*-[0-9]+-[12]s/ {print $1}')
		COMPREPLY=($(compgen -W "$words" -- "$cur") $(compgen -f -- "$cur"))
		return ;;
	--c2c-out)
		COMPREPLY=($(compgen -d -- "$cur"))	# a folder run makes
		return ;;
	--format)
		# the formats this command's --format line names (run: table, csv or json; report: html
		# or markdown), not every command's
		words=$("$bin" "$cmd" --help 2>/dev/null | sed -n 's/^ *--format [A-Z][A-Z]* *//p' |
			grep -oE '\b(table|csv|json|html|markdown)\b' | sort -u)
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return ;;
	--placement)
		COMPREPLY=($(compgen -W "compact scatter ccx numa smt list:" -- "$cur"))
		return ;;
	--workload)
		# the names run's --help lists ("update, charge, readers or store"), so none is left out
		words=$("$bin" run --help 2>/dev/null | sed -n 's/^ *--workload W  *\(.*\) (default.*/\1/p' |
			sed 's/,/ /g; s/ or / /')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return ;;
	esac
	# any other option's value: file names only where its --help line says FILE or DIR (a count,
	# a list or a time has no names to offer); a flag without a value falls through
	if [[ "$prev" == --[a-z]* ]]; then
		local val
		val=$("$bin" "$cmd" --help 2>/dev/null | sed -n "s/^ *$prev \([A-Z][^ ]*\) .*/\1/p" | head -n 1)
		case "$val" in
		'') ;;
		*FILE*|*DIR*) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		*) COMPREPLY=(); return ;;
		esac
	fi
	if [ "$cmd" = scenario ] && [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
		words=$("$bin" scenario list 2>/dev/null | awk 'NR > 1 && !/^#/ {print $1}')
		COMPREPLY=($(compgen -W "list $words" -- "$cur"))
		return
	fi
	if [[ "$cur" == -* ]]; then
		words=$("$bin" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _ctrbench ctrbench
