#!/usr/bin/env bash
# run-tests.sh TEST... - run cmocka binaries, shell tests and plain programs;
# count the cases each reports and end with one line "N passed, N failed".
#   cmocka binaries (CMOCKA_MESSAGE_OUTPUT=TAP) and *.sh tests print TAP
#   "ok ..." / "not ok ..." lines, one per case
#   a program that prints neither counts as one case: exit status 0 passes
#   TEST@ARG runs TEST with ARG (tests/cli.sh@build/asan/ctrbench)
# A binary that crashes or exits non-zero without saying why counts one failure more.
set -u
export CMOCKA_MESSAGE_OUTPUT=TAP
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=0 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 ${UBSAN_OPTIONS:-}"

passed=0 failed=0
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
for t in "$@"; do
	log="$logdir/log"
	start=$(date +%s.%N)
	prog=${t%%@*} arg=()
	[ "$prog" != "$t" ] && arg=("${t#*@}")
	case "$prog" in
	*.sh) bash "$prog" "${arg[@]}" >"$log" 2>&1 ;;
	*) "$prog" "${arg[@]}" >"$log" 2>&1 ;;
	esac
	rc=$?
	secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ $rc -eq 0 ] && [[ "$prog" != *.sh ]]; then
		p=1
	fi
	# A non-zero exit that no case accounts for (a crash, a sanitizer report) is a failure too.
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	if [ "$f" -eq 0 ] && [ "$p" -eq 0 ]; then f=1; fi
	passed=$((passed + p)) failed=$((failed + f))
	if [ "$f" -eq 0 ]; then
		printf 'PASS %-40s %4d case(s) %6ss\n' "$t" "$p" "$secs"
	else
		printf 'FAIL %-40s %4d passed, %d failed, exit %d, %ss\n' "$t" "$p" "$f" $rc "$secs"
		sed 's/^/    | /' "$log" | tail -40
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
