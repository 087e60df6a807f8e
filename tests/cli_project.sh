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
BADVAL="percpu_hier_delegated with 2 readers" bad project --algo percpu_hier_delegated --workload readers \
	--readers 2 --shape chain:2 --threads 8 --topology "$GENOA"
BADVAL="--read-node 9" bad project --algo atomic_tree --shape chain:2 --threads 2 --read-node 9

"$B" project --algo atomic_tree,percpu_hier --shape chain:4 --threads 16 --placement scatter \
	--topology "$GENOA" --ops 200 >"$tmp/out" 2>"$tmp/err"
check "table: labelled projected, with its calibration" grep -q "^# PROJECTED" "$tmp/out"
check "table: calibration source printed" grep -q "^# calibration: default: published Genoa" "$tmp/out"
check "table: atomic_tree 4 transfers per update" awk '$1 == "atomic_tree" && $2 == "4.000" { f = 1 } END { exit !f }' "$tmp/out"
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
types = {"string": str, "integer": int, "number": (int, float), "object": dict}
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
        assert isinstance(v, types[r["type"]]) and not isinstance(v, bool), (r, v)
    assert line["kind"] == "projected" and line["calibration_name"] == "Genoa default"
PY
check "json: readers 0 outside the readers workload" python3 -c '
import json, sys
assert [json.loads(x)["readers"] for x in open(sys.argv[1])] == [0, 0]' "$tmp/out3"

# Reads interleave with updates: a delegated read's mailbox requests are answered by an updater of
# each L3. 48 updaters scattered over 6 L3s of 8 cores (pack:2 l3:3): a percpu_hier read loads the
# 40 slots of the 5 other L3s across CCXs; a delegated one moves 3 lines per other L3's mailbox
# (its post, the answer, the close), 15, when every group answers.
"$B" project --algo percpu_hier,percpu_hier_delegated --workload readers --readers 1 --shape chain:2 \
	--threads 48 --placement scatter --topology "pack:2 [numa] l3:3 core:8 pu:1" --ops 300 --reads 10 \
	--format json >"$tmp/out4" 2>"$tmp/err"
check "delegated reads answered by the L3s' updaters: 15 cross-CCX lines per read, percpu_hier 40" python3 -c '
import json, sys
x = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    t = r["read_transfers"]
    x[r["algo"]] = t["xccx"] + t["xccx_rh"] + t["socket"]
assert abs(x["percpu_hier"] - 40) < 0.01 and abs(x["percpu_hier_delegated"] - 15) < 0.01, x' "$tmp/out4"

printf '{"calibration":{"one_way_ns":{"ccx":50.0,"remote":300.0}}}\n' >"$tmp/c2c.json"
"$B" project --algo atomic_tree --shape chain:1 --threads 2 --placement list:0,8 --topology "$GENOA" \
	--calibration "$tmp/c2c.json" --ops 100 >"$tmp/out" 2>"$tmp/err"
check "calibration file: named and used" grep -q "ccx 50, .*socket 300" "$tmp/out"

"$B" project --validate >"$tmp/out" 2>"$tmp/err"
check "validate: known answers all ok" sh -c "[ \$(grep -c ' ok\$' $tmp/out) -eq 7 ] && ! grep -q FAIL $tmp/out"
check "validate: measured/projected ratios printed" grep -q "^# meas/proj" "$tmp/out"

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
