#!/usr/bin/env bash
# cli_topo_layouts.sh - named layouts: `topo --topology genoa-9654-2s` prints CPU 192 as CPU 0's
# SMT sibling (Linux's numbering), both numberings named, the NUMA distances and the cache
# sizes; `topo --layouts` lists every layout with its spec and source; a name is taken wherever
# --topology is (project, c2c); an unknown name is bad input.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_topo_layouts.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

BADVAL="genoa-9654-3s" bad topo --topology genoa-9654-3s
BADVAL="--layouts" bad topo --layouts --topology genoa-9654-2s

# The tree: L3 #0 holds cores 0-7, whose threads are CPUs 0-7 and their siblings 192-199.
"$B" topo --topology genoa-9654-2s >"$tmp/t" 2>"$tmp/err"
rc=$?
check "topo --topology genoa-9654-2s: exit 0, nothing on stderr" test $rc -eq 0 -a ! -s "$tmp/err"
check "the tree puts CPUs 0-7 and 192-199 in L3 #0 (hwloc's L#0-15)" \
	grep -q '^    L3 #0: cores 0-7, CPUs 0-7,192-199 (hwloc PU L#0-15)$' "$tmp/t"
check "package #1 starts at CPU 96 (core 96)" \
	grep -q '^    L3 #12: cores 96-103, CPUs 96-103,288-295 (hwloc PU L#192-207)$' "$tmp/t"
check "says which numbering is which" \
	grep -q "^CPU numbers: Linux's, modelled (first thread of every core, then the siblings); L# is hwloc's logical PU index$" "$tmp/t"
check "prints the cache sizes" grep -q '^caches: L2 1 MiB per core, L3 32 MiB per L3$' "$tmp/t"
check "prints the distances" grep -qE '^ +0 +10 +32$' "$tmp/t"
check "names the distances' source" grep -q '^  source: typical SLIT' "$tmp/t"
check "names the part's source" grep -q '^  source: AMD product page EPYC 9654' "$tmp/t"

# The placement table: CPU 192 is thread 1's under smt, on core 0 (CPU 0's sibling).
"$B" topo --topology genoa-9654-2s --placement smt --threads 2 >"$tmp/p" 2>"$tmp/err"
check "smt placement: CPU 192 on core 0 beside CPU 0, class smt" \
	grep -qE '^ +1 +192 +1 +0 +0 +0 +0$' "$tmp/p"
check "smt placement counts one smt pair" grep -q 'smt 1,' "$tmp/p"
"$B" topo --topology genoa-9654-2s --placement list:0,192 --threads 2 >"$tmp/l" 2>"$tmp/err"
check "list:0,192 takes Linux's numbers: both on core 0" grep -q 'smt 1,' "$tmp/l"

# JSON: the numbering, the layout, caches and distances.
"$B" topo --topology genoa-9654-2s-nps4 --placement smt --threads 2 --format json >"$tmp/j" 2>"$tmp/err"
check "json: layout, caches, 8x8 distances, worker 1 on CPU 192 = hwloc PU 1" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["layout"]["name"] == "genoa-9654-2s-nps4" and j["layout"]["mode"] == "NPS4", j["layout"]
assert j["caches"] == {"l1_bytes": None, "l2_bytes": 1 << 20, "l3_bytes": 32 << 20}, j["caches"]
d = j["distances"]
assert len(d) == 8 and d[0][0] == 10 and d[0][3] == 12 and d[0][4] == 32, d
w = j["placement"]["workers"][1]
assert w["pu"] == 192 and w["hwloc_pu"] == 1 and w["core"] == 0, w
assert "Linux" in j["numbering"]
' "$tmp/j"

# --layouts: every layout once, each with a spec and a source; 40 of them (5 parts x 2 x 4).
"$B" topo --layouts >"$tmp/L" 2>"$tmp/err"
n=$(grep -cE '^[a-z]+-[0-9]+-[12]s' "$tmp/L")
check "--layouts lists 40 layouts (got $n)" test "$n" -eq 40
check "--layouts gives each a spec and a source" \
	test "$(grep -c '^  spec: pack:' "$tmp/L")" -eq 40 -a "$(grep -c '^  source: AMD product page' "$tmp/L")" -eq 40
"$B" topo --layouts --format json >"$tmp/LJ" 2>"$tmp/err"
check "--layouts --format json: 40 lines, each loads" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 40 and len({r["name"] for r in rows}) == 40
' "$tmp/LJ"

# A name is taken wherever --topology is: c2c's plan, the projection's check.
"$B" c2c --topology turin-9965-2s --dry-run >"$tmp/c" 2>"$tmp/err"
check "c2c --topology turin-9965-2s --dry-run plans" test $? -eq 0 -a -s "$tmp/c"
