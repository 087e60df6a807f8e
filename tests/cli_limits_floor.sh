#!/usr/bin/env bash
# cli_limits_floor.sh - every ctrbench limits row's limit is a floor of what it bounds, in the one
# sense that can be tested without a PMU: objdump of the limit's timed loop has at most the
# instructions per op of the bounded loop (tests/limits_floor_check.py, rows from `limits
# --loops`), and a row labelled "not a floor" is not one; the check fails on a probe longer than
# its bounded loop, and on a label that no longer holds.  Not on a sanitized build: its
# instrumentation is in the loops (the fakes are checked there too).
# Prints "ok - ..." / "not ok - ...".  Usage: cli_limits_floor.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

"$B" limits --loops >"$tmp/loops" 2>"$tmp/err"
rc=$?
rows=$(wc -l <"$tmp/loops")
check "limits --loops: a line per row, its two loops named, nothing on stderr" eval \
	'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$rows" -ge 20 ] &&
	 awk -F"\t" "NF != 8 || \$3 == \"?\" || \$5 == \"?\" || (\$8 != 0 && \$8 != 1) { exit 1 }" "$tmp/loops"'
# the rows of issue 28 are there, each labelled a floor
check "... with the straight-line, unrolled-read and private-line rows, floors" eval \
	'grep -qP "^percpu_hier chain:8 per level\tstraight-line stores 8, per level\t.*\t1$" "$tmp/loops" &&
	 grep -qP "^percpu_hier chain:32 per level\tstraight-line stores 32, per level\t.*\t1$" "$tmp/loops" &&
	 grep -qP "^atomic_tree chain:8 per level\tstraight-line lock adds 8, per level\t.*\t1$" "$tmp/loops" &&
	 grep -qP "^percpu_hier read, 512 slots\tcount_stat unrolled read, 512 slots\t.*\t1$" "$tmp/loops" &&
	 grep -qP "^striped chain:1, 2 threads\t2 threads, private padded atomics\t.*\t1$" "$tmp/loops"'

python3 tests/limits_floor_check.py "$B" "$tmp/loops" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "every row's limit is a floor of its bounded loop, instructions per op (or a sanitized build)" eval \
	'[ $rc -eq 0 ] && { grep -q "^$rows rows checked" "$tmp/out" || grep -q "^skipped: .* sanitizer" "$tmp/out"; }'

# The check can fail.  A bounded block as bench/loops.c's (512 turns of a +1/-1 pair) and
# probes: one a load longer per op than the block, one as short, one shorter.
cat >"$tmp/fake.c" <<'C'
#include <stdint.h>
__attribute__((noinline)) void bench_block_fake(volatile int64_t *v)
{
	for (unsigned i = 0; i < 512; i++) {
		*v += 1;
		*v -= 1;
	}
}
__attribute__((noinline)) void lim_fake_long(volatile int64_t *x, uint64_t n)
{
	for (uint64_t i = n / 2; i; i--) {
		*x += 1;
		(void)x[8];
		*x -= 1;
		(void)x[8];
	}
}
__attribute__((noinline)) void lim_fake_short(volatile int64_t *x, uint64_t n)
{
	for (uint64_t i = n / 4; i; i--) {
		*x += 1;
		*x -= 1;
		*x += 1;
		*x -= 1;
	}
}
int main(void) { return 0; }
C
${CC:-gcc} -O2 -o "$tmp/fake" "$tmp/fake.c"
printf 'fake row\tfake long limit\tbench_block_fake\t1\tlim_fake_long\t1\tstores\t1\n' >"$tmp/long"
python3 tests/limits_floor_check.py "$tmp/fake" "$tmp/long" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "the check fails on a probe with more instructions per op than its bounded loop, naming it" eval \
	'[ $rc -eq 1 ] && grep -q "^not a floor: fake row | fake long limit: lim_fake_long has 5.000 instructions per op, more than bench_block_fake" "$tmp/out"'
printf 'fake row\tfake short limit\tbench_block_fake\t1\tlim_fake_short\t1\tstores\t1\n' >"$tmp/short"
python3 tests/limits_floor_check.py "$tmp/fake" "$tmp/short" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "... and passes the same block's shorter probe" eval \
	'[ $rc -eq 0 ] && grep -q "lim_fake_short 3.500 instructions per op, bench_block_fake 4.000: floor" "$tmp/out"'
printf 'fake row\tfake short limit\tbench_block_fake\t1\tlim_fake_short\t1\tstores\t0\n' >"$tmp/label"
python3 tests/limits_floor_check.py "$tmp/fake" "$tmp/label" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "... and fails a row labelled not a floor whose probe is one" eval \
	'[ $rc -eq 1 ] && grep -q "^not a floor: fake row | fake short limit: labelled not a floor" "$tmp/out"'
