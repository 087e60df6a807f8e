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

# rstat's update block through its ref (counters/rstat.h): a +1/-1 pair is the slot's load, add
# and store and the linked mark's compare and branch, twice, and the block's count: 12
# instructions, no reload of the tree's fields after the link call it might make (GCC reloaded
# five and multiplied once per update before the ref).  Not on a sanitized build: its
# instrumentation is in the loop.
LINKED='cmp\s+%\w+,(0x0)?\(%\w+\)'
python3 tests/objdump_check.py --tight "$B" bench_block_rstat_force 12 "$LINKED" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "rstat_force's update block is 12 instructions a pair, nothing reloaded" eval \
	'[ $rc -eq 0 ] && grep -Eq "12 instructions|skipped: .* sanitizer" "$tmp/out"'

# The check can fail: the same pair with the tree's pointer reloaded after a possible call.
cat >"$tmp/reload.c" <<'C'
struct area { long slot; int next; };
struct tree { struct area **cpu; };
__attribute__((noipa)) void link_slow(struct tree *t) { t->cpu[0]->next = 0; }
__attribute__((noipa)) void bench_block_fake(struct tree *t)
{
	for (int i = 0; i < 512; i++) {
		*(volatile long *)&t->cpu[0]->slot += 1;
		if (*(volatile int *)&t->cpu[0]->next == -1)
			link_slow(t);
		*(volatile long *)&t->cpu[0]->slot -= 1;
		if (*(volatile int *)&t->cpu[0]->next == -1)
			link_slow(t);
	}
}
int main(void) { return 0; }
C
${CC:-gcc} -O2 -o "$tmp/reload" "$tmp/reload.c"
python3 tests/objdump_check.py --tight "$tmp/reload" bench_block_fake 12 'cmp' >"$tmp/out" 2>"$tmp/err"
rc=$?
check "... and fails on a block that reloads the tree after each update" eval \
	'[ $rc -eq 1 ] && grep -Eq "bench_block_fake: shortest loop .*: (1[3-9]|[2-9][0-9]) instructions" "$tmp/out"'

# Every throughput block starts a 64-byte line (bench/loops.c): its loop's offset in the line,
# on which a core's speed of a one-cycle loop can depend, is then its own code's, not moved by
# code elsewhere in the binary.  One block per algorithm, and the check fails on one that is not.
blocks_aligned() {
	nm "$1" | awk -v want="$2" '$3 ~ /^bench_block_/ { n++; if (substr($1, length($1) - 1) !~ /^[048c]0$/) { print "unaligned: " $3 " at " $1; bad++ } }
		END { print n " blocks"; exit (bad || n < want) }'
}
blocks_aligned "$B" "$n" >"$tmp/out"
rc=$?
check "every algorithm's throughput block starts a 64-byte line" eval \
	'[ $rc -eq 0 ] && ! grep -q unaligned "$tmp/out"'
# The check can fail: a block one byte past a line.
cat >"$tmp/una.c" <<'C'
__asm__(".text\n.p2align 6\n.byte 0x90\n.globl bench_block_fake\nbench_block_fake: ret\n");
int main(void) { return 0; }
C
${CC:-gcc} -O2 -o "$tmp/una" "$tmp/una.c"
blocks_aligned "$tmp/una" 1 >"$tmp/out"
rc=$?
check "... and fails on a block that does not, naming it" eval \
	'[ $rc -ne 0 ] && grep -q "^unaligned: bench_block_fake" "$tmp/out"'
