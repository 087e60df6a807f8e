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

# Every algorithm's prepared update (issue 28): none uses CTR_REF_WRAP, the ref of add's arguments
# (ctr_internal.h; a line that invokes it, not a comment naming it), whose loop reloaded the tree's fields after every locked op or call; the
# baselines (bench/baselines.h) may.  And the check can fail: a header that uses it, found.
no_generic_ref() {
	grep -lE '^[[:space:]]*CTR_REF_(WRAP|GENERIC)[[:space:]]*\(' "$1"/*.h | grep -v '/ctr_internal\.h$' |
		sed 's/^/generic ref: /'
	return 0
}
no_generic_ref counters >"$tmp/out"
check "no algorithm header uses the generic ref (CTR_REF_WRAP)" eval '! [ -s "$tmp/out" ]'
mkdir -p "$tmp/hdr"
printf '#include "ctr_internal.h"\nCTR_REF_WRAP(ctr_foo_ref, ctr_foo_add)\n' >"$tmp/hdr/foo.h"
no_generic_ref "$tmp/hdr" >"$tmp/out"
check "... and finds one that does" eval 'grep -q "^generic ref: .*/foo.h" "$tmp/out"'

# Every throughput block within a budget of instructions a level (objdump_check.py --budget: a
# loop's own instructions per counter write; PER_PAIR for the +1/-1 pair loop around the walks,
# which writes none).  Counted on this build (GCC 12 -O2, x86-64), the reason for each in words: a
# budget a little over today's count fails on a reload of the tree's fields, a multiply or a
# walk's setup put back into the loop.  Not on a sanitized build.
#   algorithm		PER_LEVEL PER_PAIR  why
BUDGETS='
empty			1	2	no level: the loop counter and its branch
shared_atomic		2	2	a lock add, half the loop test
atomic_tree		5	4	walk level: offset load, lock add, step, compare, branch; one level: a lock add each
percpu_hier		3	4	walk of 4 a step: offset load and one add to memory a level, a step, compare, branch per 4
locked_tree		8	8	walk level 5 (offset load, add to memory, step, compare, branch); one level: lock and unlock calls
rstat_force		38	8	not this ref: its fast path is held to 12 a pair above; today count of its slow-path loops
rstat_ratelimit		38	8	as rstat_force
rstat_threshold		36	8	as rstat_force
rstat_unified		38	8	as rstat_force
batched_percpu		9	8	load, add, two batch compares, store, loop test
percpu_counter		13	8	s32 load and sign-extend, add, two batch compares, store, walk step and test
atomic_tree_stock	10	20	stock lock, scan of its 8 slots (no level), the consume or refill store
striped			12	4	ncells load and compare, cells and cell loads, lock add, the adder offset, walk step
percpu_tree		13	10	load, add, store, xor and mask test of the batch crossing, offset load, walk step
percpu_hier_delegated	11	8	walk level: offset load, add to memory; the mailbox load and phase test per update
rstat_llist		11	8	as rstat_force
capread			5	4	atomic_tree
'
over=0 missing=0
for a in $("$B" list | awk '{ print $1 }'); do
	line=$(printf '%s\n' "$BUDGETS" | awk -v a="$a" '$1 == a')
	if [ -z "$line" ]; then
		echo "no budget: $a" >>"$tmp/budget"
		missing=$((missing + 1))
		continue
	fi
	set -- $line
	python3 tests/objdump_check.py --budget "$B" "bench_block_$a" "$2" "$3" >>"$tmp/budget" 2>&1 ||
		over=$((over + 1))
done
check "every algorithm's update block within its budget of instructions a level" eval \
	'[ $over -eq 0 ] && [ $missing -eq 0 ] && grep -Eq " a level |skipped: .* sanitizer" "$tmp/budget"'
[ $over -eq 0 ] && [ $missing -eq 0 ] || cat "$tmp/budget" >&2

# The check can fail: the pair that reloads the tree after each update (reload.c above) against
# percpu_hier's budget, 3 a level.
python3 tests/objdump_check.py --budget "$tmp/reload" bench_block_fake 3 4 >"$tmp/out" 2>&1
rc=$?
check "... and fails on a block over its budget, naming the loop" eval \
	'[ $rc -eq 1 ] && grep -q "^bench_block_fake: loop .* OVER" "$tmp/out"'
