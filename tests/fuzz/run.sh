#!/usr/bin/env bash
# run.sh SECONDS FUZZER... - run each libFuzzer binary for SECONDS over its committed corpus
# (tests/fuzz/corpus/NAME: seeds, read only; new inputs go to a scratch folder) and print one TAP
# line each with the executions run; a crash, leak-free abort, timeout or exit fails it, and the
# input that did it is kept in build/fuzz/crashes/NAME/ to be added to the corpus once fixed.
set -u
cd "$(dirname "$0")/../.."
secs=$1
shift
failed=0
for bin in "$@"; do
	name=${bin##*/}
	scratch=$(mktemp -d)
	mkdir -p build/fuzz/crashes/$name
	# leaks: a die() on bad input longjmps out of allocations the real CLI frees by exiting
	ASAN_OPTIONS=detect_leaks=0 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=build/fuzz/crashes/$name/ \
		"$scratch" "tests/fuzz/corpus/$name" >"$scratch.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch.log" | tail -1)
	if [ $rc -eq 0 ] && [ -n "$execs" ]; then
		echo "ok - $name: ${execs} executions in ${secs} s, no crash (corpus tests/fuzz/corpus/$name)"
	else
		echo "not ok - $name: exit $rc after ${execs:-?} executions; inputs in build/fuzz/crashes/$name/"
		grep -E "ERROR|SUMMARY|==[0-9]+==|deadly|exited" "$scratch.log" | head -8 | sed 's/^/#   /'
		failed=1
	fi
	rm -rf "$scratch" "$scratch.log"
done
exit $failed
