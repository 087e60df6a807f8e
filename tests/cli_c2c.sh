#!/usr/bin/env bash
# cli_c2c.sh - `ctrbench c2c`: bad input is one line naming the bad value with exit status 2 and
# nothing on stdout; --dry-run plans synthetic machines (pairs per class, the estimate) without
# measuring; on this machine a short run prints the class table, the matrix, the intervals and the
# line's home node, and its JSON and CSV carry the same.  Figures are never checked for speed, only
# for being there and consistent with each other.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_c2c.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

GENOA="pack:2 [numa] l3:12 core:8 pu:2"
NPS4="pack:2 numa:4 l3:3 core:8 pu:2"
Q="--samples 20 --iters 200 --reps 3"

BADVAL="'x'" bad c2c --pairs x
BADVAL="per-class:0" bad c2c --pairs per-class:0
BADVAL="sample:" bad c2c --pairs sample:
BADVAL="swap" bad c2c --op swap
BADVAL="node:999" bad c2c --home node:999
BADVAL="remote" bad c2c --home remote
# --home node:K on a synthetic topology: K among its nodes (issue 25: node:5 on 2 nodes passed).
BADVAL="'node:5' for --home (the topology has 2 NUMA nodes: node:0 to node:1)" \
	bad c2c --dry-run --topology "pack:2 numa:1 core:2 pu:1" --home node:5
BADVAL="'node:1' for --home (the topology has 1 NUMA node: node:0)" \
	bad c2c --dry-run --topology "pack:1 core:2 pu:1" --home node:1
# A plan past 524288 pairs (every pair of 1024 CPUs) is refused in one line, at once (issue 25:
# all pairs of 4096 CPUs ran 65 s and wrote 356 MB of JSON).
BIG="pack:4 core:512 pu:2"
BADVAL="'all' for --pairs (8386560 pairs of 4096 CPUs: a plan holds at most 524288" \
	bad c2c --dry-run --topology "$BIG" --format json
BADVAL="'sample:600000' for --pairs (600000 pairs" bad c2c --dry-run --topology "$BIG" --pairs sample:600000
BADVAL="'per-class:600000' for --pairs (602048 pairs" bad c2c --dry-run --topology "$BIG" --pairs per-class:600000
BADVAL="'0'" bad c2c --cpus 0
BADVAL="'0,0'" bad c2c --cpus 0,0
BADVAL="99999" bad c2c --cpus 0,99999
BADVAL="5-2" bad c2c --cpus 5-2
BADVAL="'0'" bad c2c --reps 0
BADVAL="2x" bad c2c --samples 2x
BADVAL="'0'" bad c2c --iters 0
BADVAL="xml" bad c2c --format xml
BADVAL="$GENOA" bad c2c --topology "$GENOA"
BADVAL="pack:x" bad c2c --topology pack:x --dry-run
BADVAL="csv" bad c2c --topology "$GENOA" --dry-run --format csv
BADVAL="no_such_event" bad c2c --events no_such_event,no_such_event
BADVAL="--bogus" bad c2c --bogus
BADVAL="extra" bad c2c extra
BADVAL="--pairs" bad c2c --pairs

# schema_ok FILE: the c2c line in FILE follows the field table (`ctrbench schema`, c2c_fields):
# every row for its kind of line is there with its type (null only where the row allows), none
# of a measured line's rows is in a plan, and no member is there that the table does not list.
"$B" schema >"$tmp/schema.json"
schema_ok() {
	python3 - "$tmp/schema.json" "$1" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
rows = schema["c2c_fields"]
line = json.loads(open(sys.argv[2]).read())
assert line["schema"] == schema["schema"], (line["schema"], schema["schema"])
measured = not line["dry_run"]
types = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict,
         "array": list}
listed = {r["path"] for r in rows}


def values(obj, path):
    """Every value at path ("a[].b": b of each element of a); None where absent."""
    head, _, rest = path.partition(".")
    if head.endswith("[]"):
        arr = obj.get(head[:-2]) if isinstance(obj, dict) else None
        return [v for e in (arr or []) for v in values(e, rest)] if rest else [arr]
    if not isinstance(obj, dict) or head not in obj:
        return [KeyError]
    return values(obj[head], rest) if rest else [obj[head]]


for r in rows:
    want = r["when"] == "always" or measured
    for v in values(line, r["path"]):
        if not want:
            assert v is KeyError, ("a plan has", r["path"])
            continue
        assert v is not KeyError, ("missing", r["path"])
        if v is None:
            assert r["nullable"], ("null", r["path"])
            continue
        t = types[r["type"]]
        assert isinstance(v, t) and not (t is not bool and isinstance(v, bool)), (r["path"], v)


def unlisted(obj, prefix):
    """Members of objects the table describes member by member that it does not list."""
    out = []
    for k, v in obj.items():
        p = prefix + k
        if p not in listed:
            out.append(p)
        elif isinstance(v, dict) and any(x.startswith(p + ".") for x in listed):
            out += unlisted(v, p + ".")
        elif isinstance(v, list) and any(x.startswith(p + "[].") for x in listed):
            for e in v:
                out += unlisted(e, p + "[].")
    return out


extra = unlisted(line, "")
assert not extra, ("not in the table", sorted(set(extra)))
PY
}

# --help names every option and its default.
"$B" c2c --help >"$tmp/h" 2>"$tmp/err"
rc=$?
missing=
for w in --cpus --pairs --home --op --reps --samples --iters --events --topology --dry-run --format \
	"default all" "all (default)" "first-touch (default" "cas (default" "default 5" "default 300" \
	"default 1000" "default bounce" "table (default)" "default this" "default: measure"; do
	grep -qF -- "$w" "$tmp/h" || missing="$missing [$w]"
done
if [ $rc -eq 0 ] && [ -z "$missing" ] && [ ! -s "$tmp/err" ]; then ok "c2c --help names every option and default"
else nok "c2c --help (exit $rc, missing$missing)"; fi

# The issue's acceptance: a 384-CPU machine with all five classes plans 20 pairs with per-class:4.
"$B" c2c --topology "$NPS4" --pairs per-class:4 --dry-run >"$tmp/out" 2>"$tmp/err"
rc=$?
check "c2c --dry-run NPS4 per-class:4: 20 pairs, 4 per class, an estimate" \
	eval '[ $rc -eq 0 ] && grep -q "384 CPUs, pairs per-class:4: 20 pairs" "$tmp/out" &&
	[ "$(awk "/^(smt|ccx|numa|package|remote) /{print \$3}" "$tmp/out" | tr "\n" " ")" = "4 4 4 4 4 " ] &&
	grep -qE "^estimate: [0-9.]+ s \\(100 measurements" "$tmp/out" && [ ! -s "$tmp/err" ]'
# Genoa with one node per package has no "package" class: four classes, 16 pairs.
"$B" c2c --topology "$GENOA" --pairs per-class:4 --dry-run >"$tmp/out" 2>"$tmp/err"
rc=$?
check "c2c --dry-run Genoa per-class:4: four classes present, 16 pairs" \
	eval '[ $rc -eq 0 ] && grep -q "pairs per-class:4: 16 pairs" "$tmp/out" && ! grep -q "^package " "$tmp/out" &&
	grep -qE "^numa +33792 +4$" "$tmp/out"'
# The same CPU twice, as JSON: measured once, said; classes of the pairs on the synthetic topology.
"$B" c2c --topology "$GENOA" --cpus 200,0,2,1,0,16,2 --dry-run --format json >"$tmp/out" 2>"$tmp/err"
rc=$?
check "c2c --dry-run --format json: a list with CPUs twice, classes and plan" \
	eval '[ $rc -eq 0 ] && python3 - "$tmp/out" <<"PY"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
j = json.loads(lines[0])
assert j["kind"] == "c2c" and j["schema"] == 1 and j["dry_run"] is True, j
assert j["topology"] == {"spec": "pack:2 [numa] l3:12 core:8 pu:2", "synthetic": True}
assert j["cpus"] == [0, 1, 2, 16, 200], j["cpus"]
pl = j["plan"]
assert pl["cpus_duplicate"] == [0, 2] and pl["pairs"] == 10, pl
assert pl["pairs_per_class"] == {"smt": 1, "ccx": 2, "numa": 3, "package": 0, "remote": 4}, pl
assert pl["estimate_s"] > 0 and pl["measurements"] == 50, pl
pairs = {(p["cpu_a"], p["cpu_b"]): p["class"] for p in j["pairs"]}
assert pairs[(0, 1)] == "smt" and pairs[(1, 2)] == "ccx" and pairs[(2, 16)] == "numa" and pairs[(16, 200)] == "remote", pairs
assert "classes" not in j and "calibration" not in j, "nothing measured, no figures"
PY'
check "c2c --dry-run --format json follows the field table (ctrbench schema)" schema_ok "$tmp/out"
"$B" c2c --dry-run --topology "pack:2 numa:1 core:2 pu:1" --home node:1 >"$tmp/out" 2>"$tmp/err"
rc1=$?
"$B" c2c --dry-run --topology "$BIG" --pairs per-class:4 >"$tmp/out2" 2>"$tmp/err2"
rc2=$?
"$B" c2c --dry-run --topology "pack:2 core:256 pu:2" >"$tmp/out" 2>"$tmp/err"
rc3=$?
check "c2c --dry-run: node:1 of 2 nodes, per-class:4 of 4096 CPUs, all 523776 pairs of 1024 CPUs" \
	eval '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && grep -q "pairs per-class:4: 8 pairs" "$tmp/out2" &&
	      grep -q "1024 CPUs, pairs all: 523776 pairs" "$tmp/out" && [ ! -s "$tmp/err" ] && [ ! -s "$tmp/err2" ]'
"$B" c2c --topology "$NPS4" --home each --pairs per-class:1 --dry-run >"$tmp/out" 2>"$tmp/err"
check "c2c --dry-run --home each multiplies the plan by the nodes" \
	grep -q "5 pairs x 8 home nodes" "$tmp/out"

# This machine.  Everything below needs two CPUs.
if [ "$(nproc)" -lt 2 ]; then
	ok "c2c on this machine # SKIP fewer than two CPUs"
	exit 0
fi
"$B" c2c --cpus 0,1 $Q >"$tmp/out" 2>"$tmp/err"
rc=$?
check "c2c on this machine: class table, matrix, interval, home node, estimate" \
	eval '[ $rc -eq 0 ] && grep -q "^c2c: op cas .* pairs all: 1 pair, 3 of 3 reps" "$tmp/out" &&
	grep -qE "^line home: node [0-9]+ \\(first touch by the main thread, checked with move_pages\\)" "$tmp/out" &&
	grep -qE "^(smt|ccx|numa|package|remote) +1 +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$tmp/out" &&
	grep -qE "^ +0 +- +[0-9.]+$" "$tmp/out" && grep -qE "^ +1 +[0-9.]+ +-$" "$tmp/out" &&
	grep -qE "^ +0 +1 +[a-z]+ +[0-9.]+ +\\[[0-9.]+, [0-9.]+\\] [0-9]+%" "$tmp/out" &&
	grep -q "estimate" "$tmp/err" && [ "$(grep -c "NUMA node" "$tmp/err")" -le 1 ]'
# Where no PMU counts the fill sources, the reason once on stderr and once in the table.
if grep -q "^events: not counted" "$tmp/out"; then
	check "c2c without a PMU: the reason once in the table, once on stderr" \
		eval '[ "$(grep -c "not counted" "$tmp/out")" -eq 1 ] && [ "$(grep -c "not counted" "$tmp/err")" -eq 1 ]'
else
	ok "c2c events # SKIP this machine counts them"
fi

for op in cas load-store fetch-add; do
	"$B" c2c --cpus 0,1,0 --op $op $Q --format json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "c2c --op $op --format json: shape, matrix symmetric, calibration" \
		eval '[ $rc -eq 0 ] && grep -q "measured once: 0" "$tmp/err" && python3 - "$tmp/out" $op <<"PY"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
j = json.loads(lines[0])
assert j["kind"] == "c2c" and j["schema"] == 1 and j["op"] == sys.argv[2] and j["dry_run"] is False, j
assert j["method"]["reps"] == 3 and j["method"]["reps_done"] == 3 and j["interrupted"] is False
assert j["cpus"] == [0, 1] and j["plan"]["cpus_duplicate"] == [0]
assert len(j["homes"]) == 1 and j["homes"][0]["how"] == "first-touch"
node = j["homes"][0]["node"]
assert isinstance(node, int) and node >= 0, j["homes"]
assert j["events"]["counted"] in (True, False) and (j["events"]["counted"] or j["events"]["reason"])
(p,) = j["pairs"]
assert (p["cpu_a"], p["cpu_b"], p["home_node"]) == (0, 1, node), p
assert len(p["reps_ns"]) == 3 and all(v > 0 for v in p["reps_ns"]), p
assert p["lo_ns"] <= p["median_ns"] <= p["hi_ns"] and sorted(p["reps_ns"])[1] == p["median_ns"], p
(c,) = j["classes"]
assert c["class"] == p["class"] and c["pairs"] == 1 and c["median_ns"] == c["p10_ns"] == c["p90_ns"] == p["median_ns"], c
(m,) = j["matrices"]
assert m["cpus"] == [0, 1] and m["ns"] == [[None, p["median_ns"]], [p["median_ns"], None]], m
cal = j["calibration"]
assert cal["kind"] == "c2c-calibration" and cal["op"] == sys.argv[2], cal
assert cal["one_way_ns"] == {p["class"]: p["median_ns"]} and cal["pairs"] == {p["class"]: 1}, cal
assert cal["home_nodes"] == [node] and cal["machine"]["cpu_model"] == j["env"]["cpu_model"], cal
assert j["env"]["numa_nodes"] is None or (j["numa_single_node"] == (j["env"]["numa_nodes"] == 1))
PY'
	check "c2c --op $op --format json follows the field table (ctrbench schema)" schema_ok "$tmp/out"
done

"$B" c2c --cpus 0,1 $Q --home node:0 --op load-store --format csv >"$tmp/out" 2>"$tmp/err"
rc=$?
check "c2c --format csv --home node:0: a class row, a pair row with its reps" \
	eval '[ $rc -eq 0 ] && python3 - "$tmp/out" <<"PY"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["row"] for r in rows] == ["class", "pair"], rows
c, p = rows
assert c["home_node"] == p["home_node"] == "0" and c["op"] == "load-store" and c["pairs"] == "1", rows
assert (p["cpu_a"], p["cpu_b"]) == ("0", "1") and len(p["reps_ns"].split(";")) == 3, p
assert c["median_ns"] == p["median_ns"] and float(p["lo_ns"]) <= float(p["median_ns"]) <= float(p["hi_ns"]), rows
PY'

# SIGINT stops after the measurement in progress and prints what was measured.
"$B" c2c --cpus 0,1 --samples 200 --iters 1000 --reps 1000 --format json >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "c2c interrupted: exit 1, the JSON of the reps done" \
	eval '[ $rc -eq 1 ] && grep -q "interrupted" "$tmp/err" && python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
assert j[\"interrupted\"] is True and 1 <= j[\"method\"][\"reps_done\"] < 1000, j[\"method\"]
assert len(j[\"pairs\"][0][\"reps_ns\"]) >= j[\"method\"][\"reps_done\"]
" "$tmp/out"'
