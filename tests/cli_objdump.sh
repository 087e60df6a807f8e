#!/usr/bin/env bash
# cli_objdump.sh - "no indirect call in a timed loop", proved on the binary: objdump of every
# timed loop instance (one per algorithm and loop, bench/loops.c) and of what it calls has no
# `call *` or `jmp *` (tests/objdump_check.py); and the check fails on an object that has one.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_objdump.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

n=$("$B" list | wc -l)
python3 tests/objdump_check.py "$B" "$n" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "no call * or jmp * in the $((4 * n)) timed loop instances of $B, nor in what they call" eval \
	'[ $rc -eq 0 ] && grep -q "^$((4 * n)) timed loop instances" "$tmp/out"'

# The check can fail: a loop that calls through a pointer, as the harness would without the
# per-algorithm instances (and one that tail-calls through one).
cat >"$tmp/fake.c" <<'C'
typedef void (*fn)(long *);
struct algo { fn add; };
void bench_update_fake(const struct algo *a, long *v, int n)
{
	for (int i = 0; i < n; i++)
		a->add(v);
	*v += n;
}
void bench_read_fake2(const struct algo *a, long *v)
{
	a->add(v);
}
int main(void) { return 0; }
C
${CC:-gcc} -O2 -o "$tmp/fake" "$tmp/fake.c"
python3 tests/objdump_check.py "$tmp/fake" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "the check fails on a loop with an indirect call, naming it" eval \
	'[ $rc -eq 1 ] && grep -q "^indirect: bench_update_fake: .*call.*\*" "$tmp/out" &&
	 grep -q "^indirect: bench_read_fake2: .*jmp.*\*" "$tmp/out"'
python3 tests/objdump_check.py "$B" "$((n + 1))" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "... and when an algorithm has no loop instance of its own" eval \
	'[ $rc -eq 1 ] && grep -q "loop instances, want $((n + 1))" "$tmp/out"'
