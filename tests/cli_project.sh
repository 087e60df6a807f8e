#!/usr/bin/env bash
# cli_project.sh - `ctrbench project` (docs/projection.md): bad input, labelled output, JSON
# "kind": "projected", the known-answer validation, and that the benchmark build is untouched by
# the projection: counters/*.o and bench/loops.o built byte-identical with project/ present and
# absent, with no TSan call in them, while the projection's copy has them.
# Usage: cli_project.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

GENOA="pack:2 [numa] l3:12 core:8 pu:2"

BADVAL="nope" bad project --algo nope --shape chain:2 --threads 2 --topology "$GENOA"
BADVAL="chain:0" bad project --algo atomic_tree --shape chain:0 --threads 2 --topology "$GENOA"
BADVAL="pack:x" bad project --algo atomic_tree --shape chain:2 --threads 2 --topology pack:x
BADVAL="--shape" bad project --algo atomic_tree --threads 2
BADVAL="/no/such.json" bad project --algo atomic_tree --shape chain:2 --threads 2 --calibration /no/such.json
BADVAL="sideways" bad project --algo atomic_tree --shape chain:2 --threads 2 --workload sideways
# a workload of the harness's (bench/workload.h) the model does not run: refused by name, not modelled as another
BADVAL="cannot model the store workload" bad project --algo atomic_tree --shape chain:2 --threads 2 --workload store
# reads interleave with reads now (every virtual thread a coroutine): a mailbox design with two readers projects
check "percpu_hier_delegated with 2 readers is projected (reads interleave with reads)" \
	timeout 120 "$B" project --algo percpu_hier_delegated --workload readers --readers 2 --shape chain:2 \
	--threads 8 --topology "$GENOA" --ops 100
BADVAL="--read-node 9" bad project --algo atomic_tree --shape chain:2 --threads 2 --read-node 9

# Issue 25.5: every bad value is refused before the header (it was printed, ~600 bytes, then exit 2).
P=(project --algo atomic_tree --shape chain:1 --threads 2)
BADVAL="unknown placement 'bogus'" bad "${P[@]}" --placement bogus
BADVAL="bad value 'nope=1' for --options" bad "${P[@]}" --options nope=1
BADVAL="bad value 'lockkind=spin' for --options" bad project --algo all --shape chain:1 --threads 2 \
	--options lockkind=spin	# atomic_tree takes no lockkind: all, as run, is every algorithm
BADVAL="'pack:1 core:2 pu:1 garbage'" bad "${P[@]}" --topology "pack:1 core:2 pu:1 garbage"
# topologies topo takes that the model cannot class transfers on: the level they lack, not "options ''?"
BADVAL="topology 'pu:2' has no core level" bad "${P[@]}" --topology pu:2
BADVAL="topology 'core:2 pu:1' has no L3 or package level" bad "${P[@]}" --topology "core:2 pu:1"
# --algo as run and sweep take it: an empty name is refused, all is every libctr algorithm
BADVAL="empty algorithm name in --algo ''" bad project --algo '' --shape chain:1 --threads 2
BADVAL="empty algorithm name in --algo 'atomic_tree,'" bad project --algo atomic_tree, --shape chain:1 --threads 2
BADVAL="algorithm 'striped' given twice" bad project --algo striped,striped --shape chain:1 --threads 2
"$B" project --algo all --shape chain:2 --threads 2 --ops 20 --topology "pack:1 core:2 pu:1" >"$tmp/out" 2>"$tmp/err"
check "--algo all: a row for every libctr algorithm, none for the harness baselines" python3 - "$tmp/out" <<'PY'
import subprocess, sys
rows = [l.split()[0] for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")][1:]
want = ["atomic_tree", "percpu_hier", "rstat_force", "percpu_hier_delegated", "striped", "atomic_tree_stock"]
assert len(rows) >= 10 and all(w in rows for w in want) and not any(r.startswith("baseline") for r in rows), rows
PY
# the modes that take their own configurations refuse an --algo they would not use
BADVAL="--validate projects its own patterns and algorithms: --algo 'atomic_tree' does not apply" \
	bad project --validate --algo atomic_tree
BADVAL="--validate and --against" bad project --validate --against tests/data/compare_a.jsonl
# --readers: at most 16384 (seed 004's storm is 10,000, time-shared on 384 PUs: issue 27.3); a read
# walks every slot, so 100,000 would run for days with no output.  --threads at most run's 4096.
BADVAL="bad value '100000' for --readers" bad project --algo percpu_hier --workload readers --readers 100000 \
	--shape chain:1 --threads 2
BADVAL="bad value '5000' for --threads" bad project --algo percpu_hier --shape chain:1 --threads 5000

# --against reads its file as every results reader does: its schema, no key twice; --algo is honoured.
head -1 tests/data/compare_a.jsonl | sed 's/"ops_per_sec"/"ns_per_op": 30.0, "ops_per_sec"/' >"$tmp/good.jsonl"
sed 's/"schema": 1/"schema": 99/' "$tmp/good.jsonl" >"$tmp/s99.jsonl"
sed 's/"threads": 2/"threads": 2, "threads": 3/' "$tmp/good.jsonl" >"$tmp/dup.jsonl"
A=(--topology "pack:1 core:2 pu:1" --ops 100)
BADVAL="$tmp/s99.jsonl:1: result schema 99" bad project --against "$tmp/s99.jsonl" "${A[@]}"
BADVAL="$tmp/dup.jsonl:1: not JSON (duplicate object key near '\"threads\"')" bad project --against "$tmp/dup.jsonl" "${A[@]}"
BADVAL="of --algo striped" bad project --against "$tmp/good.jsonl" "${A[@]}" --algo striped
BADVAL="empty algorithm name" bad project --against "$tmp/good.jsonl" "${A[@]}" --algo ''
"$B" project --against "$tmp/good.jsonl" "${A[@]}" --algo striped,atomic_tree >"$tmp/out" 2>"$tmp/err"
check "--against --algo: the line of the algorithm named" eval \
	'grep -q "^atomic_tree  *update  *chain:2  *2 " "$tmp/out" && grep -q "^# 1 lines" "$tmp/out" && [ ! -s "$tmp/err" ]'
# --calibration: a c2c --dry-run plan measured nothing; another schema, a key twice
printf '{"dry_run":true,"calibration":{"one_way_ns":{"ccx":50.0}}}\n' >"$tmp/dry.json"
printf '{"schema":99,"calibration":{"one_way_ns":{"ccx":50.0}}}\n' >"$tmp/c99.json"
printf '{"calibration":{"one_way_ns":{"ccx":50.0,"ccx":60.0}}}\n' >"$tmp/cdup.json"
BADVAL="--calibration '$tmp/dry.json': a c2c --dry-run plan (dry_run: true)" bad "${P[@]}" --calibration "$tmp/dry.json"
BADVAL="--calibration '$tmp/c99.json': schema 99" bad "${P[@]}" --calibration "$tmp/c99.json"
BADVAL="--calibration '$tmp/cdup.json': duplicate object key" bad "${P[@]}" --calibration "$tmp/cdup.json"

# No input hangs (issue 25.5): rstat's default lockkind=spin is a test-and-set flag, not a virtual lock;
# a worker's charge run inside the flush that held it spun on it forever, even at 2 threads.  Each
# algorithm under each workload now ends within 20 s (under ASan too): a result, or one line saying
# the model cannot run it (rstat_unified's charge waits for a flush it runs inside).
timeout 20 "$B" project --algo rstat_force --workload charge --shape chain:1 --threads 2 --ops 2 \
	--topology "pack:1 core:2 pu:1" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "rstat_force charge, lockkind=spin, 2 threads: projected, no hang" eval \
	'[ $rc -eq 0 ] && grep -q "^rstat_force " "$tmp/out" && [ ! -s "$tmp/err" ]'
ends=1
for w in update charge readers; do
	for th in 2 3; do
		timeout 20 "$B" project --algo all --workload $w --shape tree:2x2 --threads $th --ops 20 --reads 4 \
			--topology "pack:1 core:2 pu:2" --format json >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 0 ]; then
			[ -s "$tmp/err" ] && { ends=0; echo "#   $w $th: rc 0 with stderr"; }
		elif [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "projection cannot run" "$tmp/err"; then
			ends=0
			echo "#   $w $th: exit $rc: $(head -c 200 "$tmp/err")"
		fi
	done
done
check "every algorithm, every workload, 2 and 3 threads: a result or one line within 20 s" test $ends = 1

"$B" project --algo atomic_tree,percpu_hier --shape chain:4 --threads 16 --placement scatter \
	--topology "$GENOA" --ops 200 >"$tmp/out" 2>"$tmp/err"
check "table: labelled projected, with its calibration" grep -q "^# PROJECTED" "$tmp/out"
check "table: calibration source printed" grep -q "^# calibration: default: published Genoa" "$tmp/out"
# 4 lines a update, each moved: within 1% (a thread left alone at the end keeps its lines a burst)
check "table: atomic_tree 4 transfers per update" awk '$1 == "atomic_tree" && $2 >= 3.96 && $2 <= 4.0 { f = 1 } END { exit !f }' "$tmp/out"
check "table: percpu_hier none" awk '$1 == "percpu_hier" && $2 == "0.000" { f = 1 } END { exit !f }' "$tmp/out"

"$B" project --algo percpu_hier --workload readers --readers 2 --shape chain:2 --threads 8 \
	--topology "$GENOA" --ops 100 --format json >"$tmp/out" 2>"$tmp/err"
check "json: kind projected" python3 -c '
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
assert len(l) == 1 and l[0]["kind"] == "projected" and l[0]["calibration"].startswith("default")
assert l[0]["ns_per_read"]["serial"] >= l[0]["ns_per_read"]["overlap"] > 0
' "$tmp/out"

# The JSON lines follow the projected field table (`ctrbench schema`, projected_fields): every row,
# in its order, with its type, and nothing else.
"$B" schema >"$tmp/schema.json"
"$B" project --algo atomic_tree,percpu_hier --shape chain:4 --threads 16 --placement scatter \
	--topology "$GENOA" --ops 200 --format json >"$tmp/out3" 2>"$tmp/err"
"$B" project --algo atomic_tree,percpu_hier_delegated --workload readers --readers 1 --shape chain:2 \
	--threads 8 --topology "$GENOA" --ops 100 --format json >"$tmp/out2" 2>"$tmp/err"
check "json: every line follows the projected field table, in order" python3 - "$tmp/schema.json" "$tmp/out" "$tmp/out2" "$tmp/out3" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["projected_fields"]
types = {"string": str, "integer": int, "number": (int, float), "object": dict, "array": list, "boolean": bool}
lines = [json.loads(x) for f in sys.argv[2:] for x in open(f)]
assert len(lines) == 5 and rows, (len(lines), len(rows))
for line in lines:
    flat = []
    for k, v in line.items():
        flat.append(k)
        if isinstance(v, dict):
            flat += ["%s.%s" % (k, m) for m in v]
    assert flat == [r["path"] for r in rows], (flat, [r["path"] for r in rows])
    for r in rows:
        head, _, tail = r["path"].partition(".")
        v = line[head][tail] if tail else line[head]
        assert isinstance(v, types[r["type"]]) and (r["type"] == "boolean") == isinstance(v, bool), (r, v)
    assert line["kind"] == "projected" and line["calibration_name"] == "Genoa default"
PY
check "json: readers 0 outside the readers workload" python3 -c '
import json, sys
assert [json.loads(x)["readers"] for x in open(sys.argv[1])] == [0, 0]' "$tmp/out3"

# Reads interleave with updates: a delegated read's mailbox requests are answered by an updater of
# each L3. 48 updaters scattered over 6 L3s of 8 cores (pack:2 l3:3): a percpu_hier read loads the
# 40 slots of the 5 other L3s across CCXs; a delegated one moves 3 lines per other L3's mailbox
# (its post, the answer, the close), 15, when every group answers; a little more where an answer
# meets the next request or an updater's own line traffic (every access interleaves now, issue 27),
# never the 40 of reading the slots across.
"$B" project --algo percpu_hier,percpu_hier_delegated --workload readers --readers 1 --shape chain:2 \
	--threads 48 --placement scatter --topology "pack:2 [numa] l3:3 core:8 pu:1" --ops 300 --reads 10 \
	--format json >"$tmp/out4" 2>"$tmp/err"
check "delegated reads answered by the L3s' updaters: 15-20 cross-CCX lines per read, percpu_hier 40" python3 -c '
import json, sys
x = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    t = r["read_transfers"]
    x[r["algo"]] = t["xccx"] + t["xccx_rh"] + t["socket"]
assert abs(x["percpu_hier"] - 40) < 0.01 and 15 - 0.01 < x["percpu_hier_delegated"] < 20, x' "$tmp/out4"

printf '{"calibration":{"one_way_ns":{"ccx":50.0,"remote":300.0}}}\n' >"$tmp/c2c.json"
"$B" project --algo atomic_tree --shape chain:1 --threads 2 --placement list:0,8 --topology "$GENOA" \
	--calibration "$tmp/c2c.json" --ops 100 >"$tmp/out" 2>"$tmp/err"
check "calibration file: named and used" grep -q "ccx 50, .*socket 300" "$tmp/out"

"$B" project --validate >"$tmp/out" 2>"$tmp/err"
check "validate: known answers all ok" sh -c "[ \$(grep -c ' ok\$' $tmp/out) -eq 7 ] && ! grep -q FAIL $tmp/out"
check "validate: measured/projected ratios printed" grep -q "^# meas/proj" "$tmp/out"

# The harness baselines are projected as the patterns their tables name (bench_baseline_proj_raw,
# handed to the model in proj_config.raw), each its own: shared_atomic one RMW on one word per op,
# handed over once per burst (validate's known answer for one shared atomic, 2% as there), no libctr
# code (an access or so per op); empty no access at all, a hit per op.  Projected as the other, as
# stores (=false-shared: a transfer per op) or refused by name, these fail.
"$B" project --algo shared_atomic,empty --shape chain:1 --threads 2 --topology "$GENOA" --ops 2000 \
	>"$tmp/out" 2>"$tmp/err"
"$B" project --algo shared_atomic,empty --shape chain:1 --threads 2 --topology "$GENOA" --ops 2000 \
	--format json >"$tmp/json" 2>>"$tmp/err"
check "baselines: shared_atomic 1/burst transfers per op and about one access, empty none (their patterns)" \
	python3 - "$tmp/out" "$tmp/json" "$tmp/err" <<'PY'
import json, re, sys
assert not open(sys.argv[3]).read(), open(sys.argv[3]).read()
burst = float(re.search(r"contention: burst ([0-9.]+) RMWs", open(sys.argv[1]).read()).group(1))
r = {l["algo"]: l for l in map(json.loads, open(sys.argv[2]))}
sa, e = r["shared_atomic"], r["empty"]
x = sum(sa["transfers_per_op"].values())
assert abs(x - 1 / burst) <= 0.02 * max(1 / burst, 1), (x, burst)
assert sa["ops"] <= sa["model_accesses"] <= 1.2 * sa["ops"], (sa["model_accesses"], sa["ops"])
assert sum(e["transfers_per_op"].values()) == 0 and e["model_accesses"] == 0, e
assert e["ns_per_op"]["overlap"] == e["ns_per_op"]["serial"] > 0, e["ns_per_op"]
PY
# The update workload runs the timed loop's prepared update (project/inst/ref.c), not add: at
# chain:8 percpu_hier's ref makes 24 accesses an update (8 offsets loaded, 8 adds, each a load and
# a store) where ctr_percpu_hier_add() made 31 (the slot's address formed from the tree every
# time); the tree's creation is spread over 20000 updates and their 2000 of warmup.
"$B" project --algo percpu_hier --shape chain:8 --threads 1 --topology "pack:1 l3:1 core:2 pu:1" --ops 20000 \
	--format json >"$tmp/json" 2>"$tmp/err"
check "update: the model runs the timed loop's ref, 24 accesses an update of percpu_hier at chain:8" \
	python3 - "$tmp/json" <<'PY'
import json, sys
l = json.loads(open(sys.argv[1]).read())
per = l["model_accesses"] / (l["ops"] * 1.1)
assert 24 <= per <= 24.5, per
PY

# The benchmark build does not depend on the projection: once is enough (the plain build).
case $B in
*asan*|*tsan*) ok "benchmark objects unchanged by project/ # SKIP checked with the plain build" ;;
*)
	mkdir -p "$tmp/tree"
	git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/tree" 2>/dev/null
	ln -s "$(readlink -f .deps)" "$tmp/tree/.deps"
	objs="build/obj/bench/loops.o $(ls counters/*.c | sed 's|^|build/obj/|; s|\.c$|.o|')"
	( cd "$tmp/tree" && make -s -j2 $objs build/proj/libctr_proj.o >/dev/null ) &&
		mkdir -p "$tmp/with" && (cd "$tmp/tree" && cp --parents $objs "$tmp/with") &&
		nm "$tmp/tree/build/proj/libctr_proj.o" | grep -q "U proj___tsan_write8"
	check "projection's copy is instrumented" test -s "$tmp/with/build/obj/bench/loops.o"
	rm -rf "$tmp/tree/build" "$tmp/tree/project" "$tmp/tree/bench/cmd-project.c" "$tmp/tree/bench/project.h"
	( cd "$tmp/tree" && make -s -j2 $objs >/dev/null )
	same=1
	for o in $objs; do
		cmp -s "$tmp/with/$o" "$tmp/tree/$o" || { same=0; echo "#   differs: $o"; }
		nm "$tmp/tree/$o" | grep -q __tsan && { same=0; echo "#   TSan calls in $o"; }
	done
	check "benchmark objects byte-identical with and without project/" test $same = 1
	;;
esac
