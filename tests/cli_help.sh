#!/usr/bin/env bash
# cli_help.sh - every subcommand answers --help (exit 0, usage, each option with a value says its
# default or that it is required, one example; every option it lists is one the command takes);
# ctrbench --version; `run` with nothing given runs the default benchmark; a command missing
# several required options names them all at once.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_help.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

# The commands, from the top-level usage.
cmds=$("$B" --help | sed -n 's/^ *\(usage:\)\? *ctrbench \([a-z][a-z0-9]*\).*/\2/p' | sort -u)
check "ctrbench --help lists the commands" eval '[ "$(echo "$cmds" | wc -w)" -ge 10 ]'
for c in $cmds; do
	"$B" $c --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	# option lines: "  --name VALUE  text"; with a value, the text says its default or required
	undoc=$(grep -E '^  {1,4}--[a-z-]+ [A-Z]' "$tmp/out" | grep -Ev 'default|required' || true)
	check "$c --help: exit 0, usage, an example, a default (or required) for each valued option" eval \
		'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q "^usage: ctrbench $c" "$tmp/out" &&
		 grep -q "^example: ctrbench $c" "$tmp/out" && [ -z "$undoc" ]'
	# each option the help names is taken: given without its value it is refused for that, not
	# as unknown (a flag without a value is taken or refused for what it is, never "unknown")
	unknown=""
	for o in $(grep -oE '^ +--[a-z-]+' "$tmp/out" | tr -d ' ' | grep -v '^--help$'); do
		[ "$c" = scenario ] && set -- "$c" list "$o" || set -- "$c" "$o"
		# run's flags without a value (--force) would start the default benchmark: a bad --reps
		# after it ends it once the flag was taken
		[ "$c" = run ] && set -- "$@" --reps 0
		if "$B" "$@" </dev/null 2>&1 >/dev/null | grep -q "unknown option '$o'"; then
			unknown="$unknown $o"
		fi
	done
	check "$c: every option its --help lists is one it takes" eval '[ -z "$unknown" ]'
done

"$B" --version >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--version: the version and the commit" eval \
	'[ $rc -eq 0 ] && grep -Eq "^ctrbench [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{7}" "$tmp/out"'

# run with nothing missing: the default benchmark (every algorithm, chain:8, 2 threads); short
# windows here so the test stays quick.
"$B" run --duration-ms 5 --warmup-ms 0 --reps 1 --format json >"$tmp/out" 2>"$tmp/err"
rc=$?
check "run with no --algo, --shape or --threads: every algorithm on chain:8 from 2 threads" eval \
	'[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq "$("$B" list | wc -l)" ] &&
	 [ "$(grep -c "\"shape\":\"chain:8\",\"nodes\":8,\"depth\":8,\"threads\":2," "$tmp/out")" -eq "$(wc -l <"$tmp/out")" ]'

BADVAL="sweep needs --algo, --shape, --threads and --out FILE" bad sweep
BADVAL="sweep needs --shape and --threads" bad sweep --algo all --out "$tmp/x"
BADVAL="recommend needs --updates-per-sec U, --reads-per-sec R, --depth D and --max-staleness" bad recommend
BADVAL="recommend needs --depth D and --max-staleness" bad recommend --updates-per-sec 1 --reads-per-sec 1

# Each command function parses, then calls the engine: none over 80 lines (tests/cmd_length.py),
# and the check fails on one that is longer.
check "no bench_cmd_* function over 80 lines in bench/" eval 'python3 tests/cmd_length.py 80 bench/*.c >"$tmp/len"'
{ echo "int bench_cmd_fake(int argc, char **argv)"; echo "{"; for i in $(seq 80); do echo "	argc++;"; done
  echo "}"; } >"$tmp/fake.c"
check "the length check fails on an 83-line command function" eval \
	'! python3 tests/cmd_length.py 80 "$tmp/fake.c" >/dev/null 2>"$tmp/len_err" && grep -q "bench_cmd_fake is 83 lines" "$tmp/len_err"'
