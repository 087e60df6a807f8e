#!/usr/bin/env bash
# cli_help.sh - every subcommand answers --help (exit 0, usage, each option with a value says its
# default or that it is required, one example; every option it lists is one the command takes);
# ctrbench --version, and COMMAND --version for every command; `run` with nothing given runs the
# default benchmark; a command missing several required options names them all at once.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_help.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

# The commands, from main's dispatch table (bench/main.c), not from the help: each is in
# ctrbench --help and has its own --help; and every flag a command's option tables hold is named
# in its --help (tests/help_flags.py).
check "ctrbench --help lists every command main dispatches, each with its own --help" eval \
	'python3 tests/help_flags.py commands "$B" >"$tmp/cmds"'
check "every flag a command's parser takes is named in its --help" eval \
	'python3 tests/help_flags.py flags "$B" >"$tmp/flags"'
cmds=$(sed -n 's/^\([a-z][a-z0-9-]*\) (bench_cmd_[a-z0-9_]*):.*/\1/p' "$tmp/cmds")
check "the dispatch table has the commands" eval '[ "$(echo "$cmds" | wc -w)" -ge 10 ]'
for c in $cmds; do
	"$B" $c --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	# option lines: "  --name VALUE  text"; with a value, the text says its default or required
	undoc=$(grep -E '^  {1,4}--[a-z0-9-]+ [A-Z]' "$tmp/out" | grep -Ev 'default|required' || true)
	check "$c --help: exit 0, usage, an example, a default (or required) for each valued option" eval \
		'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q "^usage: ctrbench $c" "$tmp/out" &&
		 grep -q "^example: ctrbench $c" "$tmp/out" && [ -z "$undoc" ]'
	# each option the help names is taken: given without its value it is refused for that, not
	# as unknown (a flag without a value is taken or refused for what it is, never "unknown")
	unknown=""
	for o in $(grep -oE '^ +--[a-z0-9-]+' "$tmp/out" | tr -d ' ' | grep -v '^--help$'); do
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
# The workloads: run's and sweep's --help list every one the parser takes, as its error names them
# (issue 31: sweep's help and the completion had no store)
"$B" run --workload nosuch --reps 1 >/dev/null 2>"$tmp/err"
wl=$(sed -n "s/.*unknown workload 'nosuch' (want \(.*\))$/\1/p" "$tmp/err")
check "run's and sweep's --help name every workload the parser takes ($wl)" eval \
	'[ -n "$wl" ] && echo "$wl" | grep -q store && "$B" run --help | grep -qF -- "--workload W             $wl (" &&
	 "$B" sweep --help | grep -qF "any of $wl,"'

# recommend's --max-staleness value, one syntax in the usage, its option line and the error for
# a missing option (issue 31: "EXACT|N|P%|T[,...]", "S" and "EXACT|N|P%|T")
syn=$("$B" recommend --help | sed -n 's/^ *--max-staleness \([^ ]*\) \[options\]$/\1/p')
check "recommend: --max-staleness written $syn in its usage, its option line and its error" eval \
	'[ -n "$syn" ] && "$B" recommend --help | grep -qF -- "  --max-staleness $syn  " &&
	 "$B" recommend 2>&1 >/dev/null | grep -qF -- "--max-staleness $syn ("'

# COMMAND --version: every command of the dispatch table gives the same line, status 0 (issue 31:
# four different errors, status 2)
"$B" --version >"$tmp/want" 2>/dev/null
odd=
for c in $cmds; do
	"$B" "$c" --version >"$tmp/out" 2>"$tmp/err" && cmp -s "$tmp/out" "$tmp/want" && [ ! -s "$tmp/err" ] ||
		odd="$odd $c"
done
check "COMMAND --version: the same line as ctrbench --version, for every command" eval \
	'[ -z "$odd" ] && [ "$(echo "$cmds" | wc -w)" -ge 10 ]'

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
srcs=$(find bench project -name '*.c' | sort)
check "no bench_cmd_* function over 80 lines in bench/" eval 'python3 tests/cmd_length.py 80 $srcs >"$tmp/len"'
# ... and no function in bench/ or project/ over 100 (but the known ones cmd_length.py lists).
check "no function over 100 lines in bench/ or project/ (but cmd_length.py's KNOWN_LONG)" eval \
	'python3 tests/cmd_length.py --functions 100 $srcs >"$tmp/len"'
{ echo "int bench_cmd_fake(int argc, char **argv)"; echo "{"; for i in $(seq 80); do echo "	argc++;"; done
  echo "}"; } >"$tmp/fake.c"
check "the length check fails on an 83-line command function" eval \
	'! python3 tests/cmd_length.py 80 "$tmp/fake.c" >/dev/null 2>"$tmp/len_err" && grep -q "bench_cmd_fake is 83 lines" "$tmp/len_err"'
{ echo "static int fake_long(int x)"; echo "{"; for i in $(seq 100); do echo "	x++;"; done
  echo "	return x;"; echo "}"; } >"$tmp/fake_long.c"
check "the length check fails on a 104-line function" eval \
	'! python3 tests/cmd_length.py --functions 100 "$tmp/fake_long.c" >/dev/null 2>"$tmp/len_err" &&
	 grep -q "fake_long is 104 lines" "$tmp/len_err"'

# The help checks can fail: a command in the dispatch table that --help does not list, and a flag
# in a command's option table that its --help does not name (a copy of the sources, edited).
mkdir -p "$tmp/src/bench"
cp bench/*.c "$tmp/src/bench/"
sed -i 's/^\t{ "list", bench_cmd_list, /\t{ "nosuchcmd", bench_cmd_list, "x" },\n&/' "$tmp/src/bench/main.c"
check "the commands check fails on a dispatched command --help does not list" eval \
	'! python3 tests/help_flags.py commands "$B" "$tmp/src" >/dev/null 2>"$tmp/h_err" &&
	 grep -q "does not list .nosuchcmd." "$tmp/h_err"'
sed -i 's/^\t\t{ "format", required_argument, NULL, .f. },/&\n\t\t{ "no-such-flag", no_argument, NULL, 0 },/' \
	"$tmp/src/bench/cmd-topo.c"
check "the flags check fails on a flag a parser takes that its --help does not name" eval \
	'! python3 tests/help_flags.py flags "$B" "$tmp/src" >/dev/null 2>"$tmp/h_err" &&
	 grep -q "topo --help does not name --no-such-flag" "$tmp/h_err"'
