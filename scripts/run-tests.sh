#!/usr/bin/env bash
# run-tests.sh TEST... - run cmocka binaries, shell tests and plain programs;
# count the cases each reports and end with one line "N passed, N failed".
#   cmocka binaries (CMOCKA_MESSAGE_OUTPUT=TAP) and *.sh tests print TAP
#   "ok ..." / "not ok ..." lines, one per case
#   a program that prints neither counts as one case: exit status 0 passes
#   TEST@ARG runs TEST with ARG (tests/cli.sh@build/asan/ctrbench)
# A binary that crashes or exits non-zero without saying why counts one failure more.
# RUN_TESTS_JOBS=N runs N tests at once (default 1); each test's lines are printed whole when
# it ends, so the order is that of their ends.  The tests measure nothing they assert on, so
# two on two CPUs only run slower each; make test gives one job per CPU.  The concurrency tests
# (test_mt_* binaries) run alone: more threads than cores, they spin while another test holds the
# CPUs (test_mt_rstat took 102 s beside other tests, 2 s alone).
set -u
export CMOCKA_MESSAGE_OUTPUT=TAP
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=0 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 ${UBSAN_OPTIONS:-}"
jobs=${RUN_TESTS_JOBS:-1}
case $jobs in '' | *[!0-9]* | 0) echo "run-tests.sh: bad RUN_TESTS_JOBS '$jobs'" >&2; exit 2 ;; esac

logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
tests=("$@")

# run_one I: run test I; its output goes to I.log, then "passed failed rc secs" to I.res (last,
# by a rename, so a present I.res means the test has ended).
run_one() {
	local t=${tests[$1]} log=$logdir/$1.log start rc secs p f
	start=$(date +%s.%N)
	local prog=${t%%@*} arg=()
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
	echo "$p $f $rc $secs" >"$logdir/$1.tmp" && mv "$logdir/$1.tmp" "$logdir/$1.res"
}

passed=0 failed=0
declare -A shown=()
# report: print every ended test not yet printed.
report() {
	local i p f rc secs
	for i in "${!tests[@]}"; do
		[ -z "${shown[$i]:-}" ] && [ -f "$logdir/$i.res" ] || continue
		shown[$i]=1
		read -r p f rc secs <"$logdir/$i.res"
		passed=$((passed + p)) failed=$((failed + f))
		if [ "$f" -eq 0 ]; then
			printf 'PASS %-40s %4d case(s) %6ss\n' "${tests[$i]}" "$p" "$secs"
		else
			printf 'FAIL %-40s %4d passed, %d failed, exit %d, %ss\n' "${tests[$i]}" "$p" "$f" "$rc" "$secs"
			sed 's/^/    | /' "$logdir/$i.log" | tail -40
		fi
	done
}

for i in "${!tests[@]}"; do
	if [ "$jobs" -eq 1 ] || [[ "$(basename "${tests[$i]%%@*}")" == test_mt_* ]]; then
		wait
		report
		run_one "$i"
	else
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n
			report
		done
		run_one "$i" &
	fi
	report
done
wait
report
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
