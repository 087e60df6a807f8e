#!/usr/bin/env bash
# cli_scenario_project.sh - a scenario's projection is its measured run on another machine (issue 27,
# points 7 and 8): shrinker-count projects tree:4x4 with its shrinkers reading a leaf (it projected
# the root of chain:8) and both of the measured table's rows, shrinker=Y and N; every projection's
# header gives nr_stats, the kernel's count of memcg stat items with its source, and slots, the
# modelled machine's CPUs; stat-read-storm projects seed 004's regime, the seed's 10000 readers on
# the measured storm's tree:50x5 (it projected PUs - 20 readers of a 1111-node tree), with the lone
# read beside the posted figures for read=spin and read=mutex.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_scenario_project.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
. tests/tap.sh

# --- shrinker-count: the measured definition, on 96 CPUs in 12 nodes (seed 001's machine) ----------
timeout 120 "$B" scenario shrinker-count --project "pack:1 numa:12 l3:1 core:8 pu:1" --ops 50 \
	>"$tmp/s.out" 2>"$tmp/s.err"
rc=$?
check "shrinker-count --project: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/s.err" ]'
check "shrinker-count --project: the measured shape and reader node (tree:4x4, a leaf), not chain:8" eval \
	'grep -q "on the leaves of tree:4x4" "$tmp/s.out" && grep -q "reading a leaf every 100 us" "$tmp/s.out" &&
	 ! grep -q "chain:8" "$tmp/s.out"'
check "shrinker-count --project: the measured rows, shrinker=Y and N, for designs (a) and (b)" eval \
	'[ "$(grep -cE "^rstat_(force|ratelimit) +[YN] " "$tmp/s.out")" -eq 4 ]'
check "shrinker-count --project: the posted figure beside design (a) only, as measured" eval \
	'grep -qE "^rstat_force +Y .* 248$" "$tmp/s.out" && grep -qE "^rstat_ratelimit +Y .* -$" "$tmp/s.out"'
check "the header: nr_stats, the kernel's count of memcg stat items, with its source; slots the machine's CPUs" eval \
	'grep -q "^# nr_stats 102 (kernel v6.18 mm/memcontrol.c: MEMCG_VMSTAT_SIZE 40" "$tmp/s.out" &&
	 grep -q "; slots 96 (the modelled machine" "$tmp/s.out"'

# --- stat-read-storm: seed 004's 10000 readers on 384 CPUs ---------------------------------------
T384="pack:2 [numa] l3:12 core:8 pu:2"
timeout 300 "$B" scenario stat-read-storm --project "$T384" >"$tmp/r.out" 2>"$tmp/r.err"
rc=$?
check "stat-read-storm --project: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/r.err" ]'
check "stat-read-storm --project: 384 updaters and the seed's 10000 readers of tree:50x5, each its own node" eval \
	'grep -q "384 updaters (one per PU" "$tmp/r.out" && grep -q "10000 readers" "$tmp/r.out" &&
	 grep -q "each reading its own node of tree:50x5 every 100 ms" "$tmp/r.out"'
# each posted row: a lone read, and the storm's figures or the line saying what the model lacks for it
for s in spin mutex; do
	check "stat-read-storm --project: read=$s has a lone read, and the storm or why not" eval \
		'grep -qE "^$s +([0-9]+ +[0-9]+|- +-) +[0-9]+ " "$tmp/r.out" &&
		 { grep -qE "^$s +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ " "$tmp/r.out" ||
		   grep -q "^#   read=$s storm not projected: ." "$tmp/r.out"; }'
done
check "stat-read-storm --project: the posted storm and lone figures beside" eval \
	'[ "$(grep -cE "5-10 ms.* 0.02-0.05 ms$" "$tmp/r.out")" -eq 2 ]'
