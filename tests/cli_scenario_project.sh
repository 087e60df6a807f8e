#!/usr/bin/env bash
# cli_scenario_project.sh - a scenario's projection is its measured run on another machine (issue 27,
# points 7 and 8): shrinker-count projects tree:4x4 with seed 001's kswapds, one per node, reading the
# root under a flush mutex (it projected the root of chain:8, then 4 shrinkers reading a leaf) and both
# of the measured table's rows, shrinker=Y and N; every projection's header gives nr_stats, the
# kernel's count of memcg stat items with its source, and slots, the modelled machine's CPUs;
# stat-read-storm projects seed 004's regime (readers outnumbering the PUs, no other load but one
# updater, 1K memcgs: the measured test 2), with the lone read beside the posted figures for
# read=mutex and read=spin.  With --format json, one line per
# projected configuration: project --format json's fields, then the scenario and the table cell it
# stands for, written as each finishes; the table stays the default and unchanged.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_scenario_project.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
. tests/tap.sh

# --- shrinker-count: the measured definition, on 192 CPUs in 12 nodes (seed 001's machine) ---------
timeout 120 "$B" scenario shrinker-count --project "pack:1 numa:12 l3:1 core:8 pu:2" --ops 50 \
	>"$tmp/s.out" 2>"$tmp/s.err"
rc=$?
check "shrinker-count --project: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/s.err" ]'
check "shrinker-count --project: the measured shape, shrinkers and reader node (tree:4x4, 12 kswapds, the root)" eval \
	'grep -q "on the leaves of tree:4x4" "$tmp/s.out" && grep -q "shrinker=Y: 12\$" "$tmp/s.out" &&
	 grep -q "one per node) each reading the root every 5 ms" "$tmp/s.out" && ! grep -q "chain:8" "$tmp/s.out"'
check "shrinker-count --project: the flush lock a mutex, as 001's profile has it, said in the header" eval \
	'grep -q "lockkind=mutex" "$tmp/s.out" && grep -q "__mutex_lock in __cgroup_rstat_lock" "$tmp/s.out"'
check "shrinker-count --project: the measured rows, shrinker=Y and N, for designs (a) and (b)" eval \
	'[ "$(grep -cE "^rstat_(force|ratelimit) +[YN] " "$tmp/s.out")" -eq 4 ]'
check "shrinker-count --project: the posted figure beside design (a) only, as measured" eval \
	'grep -qE "^rstat_force +Y .* 248$" "$tmp/s.out" && grep -qE "^rstat_ratelimit +Y .* -$" "$tmp/s.out"'
check "the header: nr_stats, the kernel's count of memcg stat items, with its source; slots the machine's CPUs" eval \
	'grep -q "^# nr_stats 102 (kernel v6.18 mm/memcontrol.c: MEMCG_VMSTAT_SIZE 40" "$tmp/s.out" &&
	 grep -q "; slots 192 (the modelled machine" "$tmp/s.out"'

# --- stat-read-storm: seed 004's regime, readers outnumbering the PUs ------------------------------
# The seed's 10000 readers on 384 CPUs take the model many minutes here (every updater's op for
# 300 ms of virtual time): the test projects the same definition on 4 PUs with --readers 40, ten
# readers time-shared per PU, which exercises the scheduler the same way.
T4="pack:1 l3:2 core:2 pu:1"
timeout 300 "$B" scenario stat-read-storm --project "$T4" --readers 40 >"$tmp/r.out" 2>"$tmp/r.err"
rc=$?
check "stat-read-storm --project: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/r.err" ]'
check "stat-read-storm --project: --readers 40 of tree:10x100 (1K memcgs), each its own node, one updater" eval \
	'grep -q "40 readers" "$tmp/r.out" && grep -q "each reading its own node of tree:10x100 (1K memcgs, 1011 nodes) every 100 ms" "$tmp/r.out" &&
	 grep -q "no other load but 1 updater on a leaf" "$tmp/r.out"'
# each posted row: a lone read, and the storm's figures
for s in mutex spin; do
	check "stat-read-storm --project: read=$s has the storm's mean, p50, p99 and max, a lone read and their ratio" eval \
		'grep -qE "^$s +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ " "$tmp/r.out"'
done
check "scenario --project --readers on a projection without readers: exit 2, one line naming it" eval \
	'"$B" scenario shrinker-count --project "$T4" --readers 5 >"$tmp/x.out" 2>"$tmp/x.err"; [ $? -eq 2 ] &&
	 [ ! -s "$tmp/x.out" ] && [ "$(wc -l <"$tmp/x.err")" -eq 1 ] && grep -q "readers 5" "$tmp/x.err"'
check "stat-read-storm --project: the posted storm and lone figures beside" eval \
	'[ "$(grep -cE "5-10 ms.* 0.02-0.05 ms$" "$tmp/r.out")" -eq 2 ]'

# --- --format json: a line per projected configuration, the table's cell named -------------------
"$B" schema >"$tmp/schema.json"
# every line: project --format json's fields (projected_fields) in order with their types, then the
# scenario, the row and column of its table, the options the model was given and the configuration's
# work_ns, read_interval_ns and limit_headroom; argv[2]: the scenario
cat >"$tmp/lines.py" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["projected_fields"]
types = {"string": str, "integer": int, "number": (int, float), "object": dict, "array": list}
want = [r["path"] for r in rows] + ["scenario", "row", "column", "options", "work_ns", "read_interval_ns", "limit_headroom"]
text = open(sys.argv[3]).read()
assert text.endswith("\n"), "no complete last line"
lines = [json.loads(x) for x in text.split("\n")[:-1]]
assert lines, "no line"
for o in lines:
    flat = []
    for k, v in o.items():
        flat.append(k)
        if isinstance(v, dict):
            flat += ["%s.%s" % (k, m) for m in v]
    assert flat == want, (flat, want)
    for r in rows:
        head, _, tail = r["path"].partition(".")
        v = o[head][tail] if tail else o[head]
        assert isinstance(v, types[r["type"]]) and not isinstance(v, bool), (r, v)
    assert o["kind"] == "projected" and o["scenario"] == sys.argv[2], o
    assert o["starved"] == 0 and o["ops"] > 0, (o["row"], o["column"], o["starved_why"])
print(len(lines))	# the lines' count, for the caller
PY
T4="pack:1 l3:2 core:2 pu:1"
json_of() {	# json_of NAME ARGS...: the lines of scenario NAME --project T4 ARGS --format json in $tmp/NAME.json
	local name=$1
	shift
	timeout 120 "$B" scenario "$name" --project "$T4" "$@" --format json >"$tmp/$name.json" 2>"$tmp/err"
}
json_of zswap-store-nolimit --ops 20
rc=$?
check "zswap-store-nolimit --format json: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
check "zswap-store-nolimit --format json: every line parses, project's fields in order, then the cell" eval \
	'python3 "$tmp/lines.py" "$tmp/schema.json" zswap-store-nolimit "$tmp/zswap-store-nolimit.json" >/dev/null'
check "zswap-store-nolimit --format json: a line per cell, depth 1-32 x the four designs, once each" python3 - \
	"$tmp/zswap-store-nolimit.json" <<'PY'
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
cols = ["a_rstat_force", "b_rstat_ratelimit", "c_percpu_hier", "d_page_counter"]
cells = [(o["row"], o["column"]) for o in l]
assert cells == [("depth %d" % d, c) for d in (1, 2, 4, 8, 32) for c in cols], cells
for o in l:
    assert o["shape"] == "chain:" + o["row"].split()[1] and o["workload"] == "update" and o["threads"] == 20, o
    assert o["nr_stats"] == 102 and o["placement"] == "scatter" and o["topology"] == "pack:1 l3:2 core:2 pu:1", o
PY
# the figures are the table's: each cell's counter band as the table rounds it
"$B" scenario zswap-store-nolimit --project "$T4" --ops 20 >"$tmp/nolimit.txt" 2>"$tmp/err"
check "zswap-store-nolimit --format json: each line's ns/op band is its cell of the table" python3 - \
	"$tmp/zswap-store-nolimit.json" "$tmp/nolimit.txt" <<'PY'
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
table = {}
for t in open(sys.argv[2]):
    parts = [p.strip() for p in t.split("|")]
    if len(parts) == 13 and parts[0].split()[-1].isdigit():     # "depth D" and 3 cells per design
        table[parts[0].split()[1]] = [parts[1 + 3 * k] for k in range(4)]
assert len(table) == 5 and len(l) == 20, (table, len(l))
for i, o in enumerate(l):
    band = "%.0f..%.0f" % (o["ns_per_op"]["overlap"], o["ns_per_op"]["serial"])
    assert table[o["row"].split()[1]][i % 4] == band, (o["row"], o["column"], band, table[o["row"].split()[1]])
PY

json_of shrinker-count --ops 20
rc=$?
check "shrinker-count --format json: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
check "shrinker-count --format json: every line parses, project's fields in order, then the cell" eval \
	'python3 "$tmp/lines.py" "$tmp/schema.json" shrinker-count "$tmp/shrinker-count.json" >/dev/null'
check "shrinker-count --format json: shrinker=Y and N for designs (a) and (b); Y has the shrinkers, the flush lock" \
	python3 - "$tmp/shrinker-count.json" <<'PY'
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
cells = [(o["row"], o["column"], o["algo"], o["workload"], o["readers"]) for o in l]
assert cells == [("shrinker=Y", "a_rstat_force", "rstat_force", "readers", 12),
                 ("shrinker=Y", "b_rstat_ratelimit", "rstat_ratelimit", "readers", 12),
                 ("shrinker=N", "a_rstat_force", "rstat_force", "update", 0),
                 ("shrinker=N", "b_rstat_ratelimit", "rstat_ratelimit", "update", 0)], cells
assert all(o["shape"] == "tree:4x4" and {"update=memcg", "lockkind=mutex"} <= set(o["options"].split(","))
           for o in l), l
# the row's own lock kind stands: the kernel's queued spinlock is not added beside it
assert all(o["options"].count("lockkind=") == 1 for o in l), [o["options"] for o in l]
assert [k["role"] for k in l[0]["locks"]][0] == "flush lock" and l[0]["reads"] > 0, l[0]["locks"]
PY

json_of stat-read-storm --readers 8
rc=$?
check "stat-read-storm --format json: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ]'
check "stat-read-storm --format json: every line parses, project's fields in order, then the cell" eval \
	'python3 "$tmp/lines.py" "$tmp/schema.json" stat-read-storm "$tmp/stat-read-storm.json" >/dev/null'
check "stat-read-storm --format json: mutex and spin, each its lone read (1 reader) and its storm (--readers 8)" \
	python3 - "$tmp/stat-read-storm.json" <<'PY'
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
cells = [(o["row"], o["column"], o["readers"]) for o in l]
assert cells == [("mutex", "lone read", 1), ("mutex", "storm", 8), ("spin", "lone read", 1), ("spin", "storm", 8)], cells
assert all(o["shape"] == "tree:10x100" and o["threads"] == 1 for o in l), l
assert all("read=" + o["row"] in o["options"].split(",") and o["reads"] > 0 and o["ns_per_read"]["serial"] > 0
           for o in l), l
PY
check "stat-read-storm --project: the flush lock the kernel's queued spinlock (lockkind=qspin), said in the header" \
	eval 'python3 -c "
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
assert all(\"lockkind=qspin\" in o[\"options\"].split(\",\") for o in l), [o[\"options\"] for o in l]
assert \"flush lock\" in [k[\"role\"] for k in l[-1][\"locks\"]], l[-1][\"locks\"]
" "$tmp/stat-read-storm.json" && grep -q "^# the kernel.s flush lock: lockkind=qspin for rstat_force where the row names no lockkind (the kernel.s cgroup_rstat_lock is a spinlock_t, a queued spinlock" "$tmp/r.out"'

# the table stays the default: --format table prints it byte for byte, and no JSON line in it
"$B" scenario zswap-store-nolimit --project "$T4" --ops 20 --format table >"$tmp/table.txt" 2>"$tmp/err"
check "scenario --project: --format table is the default's output, byte for byte, and no JSON in it" eval \
	'cmp -s "$tmp/table.txt" "$tmp/nolimit.txt" && ! grep -q "^{" "$tmp/nolimit.txt" &&
	 grep -q "^# growth depth 32 / depth 1" "$tmp/nolimit.txt"'

# lines as each configuration finishes: stopped after the first of zswap-store-limit's (its forced
# flush on 4 PUs takes the model seconds per depth), the file holds those, each a complete line
"$B" scenario zswap-store-limit --project "$T4" --ops 10 --format json >"$tmp/part.json" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1200); do
	[ "$(wc -l <"$tmp/part.json")" -ge 4 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
check "scenario --project --format json stopped: the lines done before it, each complete, depth 1 first" eval \
	'[ $rc -ne 0 ] && n=$(python3 "$tmp/lines.py" "$tmp/schema.json" zswap-store-limit "$tmp/part.json") &&
	 [ "$n" -ge 4 ] && [ "$n" -lt 20 ] &&
	 [ "$(head -4 "$tmp/part.json" | grep -c "\"row\":\"depth 1\"")" -eq 4 ]'

BADVAL="unknown format 'xml'" bad scenario shrinker-count --project "$T4" --format xml
BADVAL="--format" bad scenario stat-read-storm --project "$T4" --format
