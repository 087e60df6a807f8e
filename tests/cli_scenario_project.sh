#!/usr/bin/env bash
# cli_scenario_project.sh - a scenario's projection is its measured run on another machine (issue 27,
# points 7 and 8): shrinker-count projects tree:4x4 with its shrinkers reading a leaf (it projected
# the root of chain:8) and both of the measured table's rows, shrinker=Y and N; every projection's
# header gives nr_stats, the kernel's count of memcg stat items with its source, and slots, the
# modelled machine's CPUs; stat-read-storm projects seed 004's regime (readers outnumbering the PUs) on
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

# --- stat-read-storm: seed 004's regime, readers outnumbering the PUs ------------------------------
# The seed's 10000 readers on 384 CPUs take the model many minutes here (every updater's op for
# 300 ms of virtual time): the test projects the same definition on 4 PUs with --readers 40, ten
# readers time-shared per PU, which exercises the scheduler the same way.
T4="pack:1 l3:2 core:2 pu:1"
timeout 300 "$B" scenario stat-read-storm --project "$T4" --readers 40 >"$tmp/r.out" 2>"$tmp/r.err"
rc=$?
check "stat-read-storm --project: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/r.err" ]'
check "stat-read-storm --project: an updater per PU and --readers 40 of tree:50x5, each its own node" eval \
	'grep -q "4 updaters (one per PU" "$tmp/r.out" && grep -q "40 readers" "$tmp/r.out" &&
	 grep -q "each reading its own node of tree:50x5 every 100 ms" "$tmp/r.out"'
# each posted row: a lone read, and the storm's figures
for s in spin mutex; do
	check "stat-read-storm --project: read=$s has a lone read and the storm's mean and max" eval \
		'grep -qE "^$s +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ " "$tmp/r.out"'
done
check "scenario --project --readers on a projection without readers: exit 2, one line naming it" eval \
	'"$B" scenario shrinker-count --project "$T4" --readers 5 >"$tmp/x.out" 2>"$tmp/x.err"; [ $? -eq 2 ] &&
	 [ ! -s "$tmp/x.out" ] && [ "$(wc -l <"$tmp/x.err")" -eq 1 ] && grep -q "readers 5" "$tmp/x.err"'
check "stat-read-storm --project: the posted storm and lone figures beside" eval \
	'[ "$(grep -cE "5-10 ms.* 0.02-0.05 ms$" "$tmp/r.out")" -eq 2 ]'
