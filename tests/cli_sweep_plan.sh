#!/usr/bin/env bash
# cli_sweep_plan.sh - `sweep --dry-run` prints the plan (each point's CPUs and NUMA nodes) and
# its time estimate for the machine --topology names, quickly, measuring nothing and writing no
# file; a described machine without --dry-run is bad input.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_sweep_plan.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

BADVAL="genoa-9654-2s" bad sweep --topology genoa-9654-2s --algo all --shape chain:2 --threads 1 \
	--out "$tmp/r.jsonl"
check "refused sweep wrote no file" test ! -e "$tmp/r.jsonl"
BADVAL="genoa-9654-9s" bad sweep --topology genoa-9654-9s --dry-run --algo all --threads 1
BADVAL="list:0,999" bad sweep --topology genoa-9654-2s --dry-run --algo all --threads 1 \
	--placement list:0,999

# The issue's plan: every algorithm, 1..192 threads on a 2 x 96-core Genoa, --out given and
# not written (a run in $tmp would leave it there).
cd "$tmp" || exit 1
t0=$(date +%s%N)
"$OLDPWD/$B" sweep --topology genoa-9654-2s --dry-run --algo all --threads 1..192 --out r.jsonl \
	>plan 2>err
rc=$?
t1=$(date +%s%N)
cd "$OLDPWD" || exit 1
ms=$(( (t1 - t0) / 1000000 ))
echo "# sweep --topology genoa-9654-2s --dry-run --algo all --threads 1..192: $ms ms"
check "dry run: exit 0, nothing on stderr" test $rc -eq 0 -a ! -s "$tmp/err"
# generous: under a second here, 5 s leaves room for a loaded CI machine
check "dry run took under 5 s ($ms ms)" test "$ms" -lt 5000
check "dry run wrote no results file" test ! -e "$tmp/r.jsonl"
check "names the machine" grep -q '^sweep plan (dry run: nothing measured, no file written) on genoa-9654-2s (not this machine)$' "$tmp/plan"
check "counts the configurations (192 points)" grep -qE "^[0-9]+ algorithms x 1 workload x 1 shape x 1 placement x 192 thread counts = [0-9]+ configurations in 192 points$" "$tmp/plan"
check "one row per point, ids 1..192" test "$(grep -cE '^ +[0-9]+ update +chain:8 +compact ' "$tmp/plan")" -eq 192
check "96 threads fill socket 0 (CPUs 0-95, node 0)" grep -qE '^ +96 update +chain:8 +compact +96 0-95 +0:96$' "$tmp/plan"
check "192 threads: one per core, both nodes" grep -qE '^ +192 update +chain:8 +compact +192 0-191 +0:96 1:96$' "$tmp/plan"
check "prints the estimate and says it is planned" \
	sh -c "grep -qE '^estimate: [0-9]+ configurations x 5 reps x 1.45 s = [0-9:]+ of measurement$' '$tmp/plan' &&
	       grep -q 'planned, not measured' '$tmp/plan'"

# NPS4, scatter: the first 8 threads on the 8 nodes.
"$B" sweep --topology genoa-9654-2s-nps4 --dry-run --algo atomic_tree --threads 8 --placement scatter \
	>"$tmp/p4" 2>"$tmp/err"
check "NPS4 scatter: 8 threads, one per node" \
	grep -qE '^ +1 update +chain:8 +scatter +8 .* 0:1 1:1 2:1 3:1 4:1 5:1 6:1 7:1$' "$tmp/p4"
# This machine plans too (no --topology), and the readers get CPUs of their own.
"$B" sweep --dry-run --algo atomic_tree --workload readers --readers 1 --threads 1 >"$tmp/m" 2>"$tmp/err"
check "this machine: readers planned beside the updater" \
	grep -qE '^ +1 readers +chain:8 +compact +1 ' "$tmp/m"
