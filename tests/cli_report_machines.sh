#!/usr/bin/env bash
# cli_report_machines.sh - issue 30.3-4: the machine in every result line, and one report across
# machines.  One real sweep here; a copy whose env says another machine (the host fields
# rewritten, as a cluster's other node would write them), cut into two shards written by two
# hosts; `report FOLDER` over both: a machine table first (M1, M2, each with its hosts), every
# series one algorithm on one machine, a machine's shards one series, both machines on one plot
# with their own dashes, and scaling efficiency per machine.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_report_machines.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

mkdir -p "$tmp/res/here" "$tmp/res/genoa"
"$B" sweep --algo atomic_tree,percpu_hier --threads 1,2 --shape chain:2 --duration-ms 30 --reps 2 \
	--out "$tmp/res/here/a.jsonl" >/dev/null 2>"$tmp/err"
check "a sweep here: every result line names its machine (env.machine and the host fields)" python3 -c '
import json, sys
n = 0
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("kind"):
        continue
    e = o["env"]
    for k in ("machine", "hostname", "cpu_model", "cpu_vendor", "cpu_family", "cpu_model_number",
              "cpu_stepping", "microcode", "packages", "cores", "l3s", "numa_nodes", "kernel",
              "smt_active", "governor", "boost", "topology_digest"):
        assert k in e, k
    assert isinstance(e["machine"], str) and e["topology_digest"] in e["machine"], e["machine"]
    n += 1
assert n == 4, n
' "$tmp/res/here/a.jsonl"
"$B" schema >"$tmp/schema.json"
check "ctrbench schema lists the machine fields, none of them an identity field" python3 -c '
import json, sys
f = {x["path"]: x for x in json.load(open(sys.argv[1]))["fields"]}
for k in ("env.machine", "env.hostname", "env.cpu_vendor", "env.cpu_family", "env.cpu_model_number",
          "env.cpu_stepping", "env.packages", "env.cores", "env.l3s", "env.topology_digest"):
    assert k in f, k
    assert f[k]["identity"] == "none", (k, f[k]["identity"])
' "$tmp/schema.json"

python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
lines = [l for l in open(t + "/res/here/a.jsonl")]
shards = [open(t + "/res/genoa/shard-%d.jsonl" % i, "w") for i in (0, 1)]
k = 0
for l in lines:
    o = json.loads(l)
    if "env" in o:
        o["env"]["machine"] = ("AMD EPYC 9654 96-Core Processor; 2 packages, 192 cores, 24 L3, "
                               "2 nodes; topology 0123456789ab")
        o["env"]["cpu_model"] = "AMD EPYC 9654 96-Core Processor"
        o["env"]["hostname"] = "genoa0%d" % (k % 2)
    # three times the ops/s, in the summary and in every rep (compare tests the reps)
    if isinstance(o.get("ops_per_sec"), (int, float)):
        o["ops_per_sec"] *= 3
    for r in o.get("reps") or []:
        r["ops_per_sec"] *= 3
    if not o.get("kind"):
        k += 1
    # a configuration's rep lines and its summary stay in one shard, as a shard writes them
    shards[(k - (0 if o.get("kind") else 1)) % 2].write(json.dumps(o) + "\n")
for f in shards:
    f.close()
PY

"$B" report "$tmp/res" --out "$tmp/html" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "report FOLDER over two machines' files: exit 0, the page, nothing on stderr" eval \
	'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(cat "$tmp/out")" = "$tmp/html/index.html" ]'
check "the machine table comes first: two machines, the Genoa (first in the folder) with both its hosts and shards" python3 -c '
import re, sys
page = open(sys.argv[1]).read()
m = page.index("<section id=\"machines\">")
assert m < page.index("<section id=")+1 and m < page.index("Verification"), "not first"
table = page[m:page.index("</section>", m)]
rows = re.findall(r"<tr data-machine=\"(M\d)\">(.*?)</tr>", table)
assert [r[0] for r in rows] == ["M1", "M2"], rows
genoa, here = rows[0][1], rows[1][1]
assert "AMD EPYC 9654" in genoa and "genoa00, genoa01" in genoa, genoa
assert "shard-0.jsonl" in genoa and "shard-1.jsonl" in genoa and "a.jsonl" not in genoa
assert "AMD EPYC 9654" not in here and "a.jsonl" in here
' "$tmp/html/index.html"
check "each plot draws both machines: a series per algorithm and machine, the shards one series" python3 -c '
import sys
page = open(sys.argv[1]).read()
for a in ("atomic_tree", "percpu_hier"):
    for m in ("M1", "M2"):
        assert "%s · %s" % (a, m) in page, (a, m)
    # one series per machine, never one per shard file
    assert "%s [file" % a not in page and "%s #2" % a not in page
assert "the dash the machine" in page
' "$tmp/html/index.html"
check "scaling efficiency is plotted per machine (each from its own 1-thread figure)" eval \
	'grep -q "scaling efficiency vs threads" "$tmp/html/index.html" &&
	 [ "$(grep -o "percpu_hier · M[12]" "$tmp/html/index.html" | sort -u | wc -l)" -eq 2 ]'

"$B" report "$tmp/res/here/a.jsonl" "$tmp/res/genoa" --out "$tmp/md" --format markdown >"$tmp/out" 2>"$tmp/err"
check "markdown: a Machines table with both machines" eval \
	'[ $? -eq 0 ] && grep -q "^## Machines" "$tmp/md/report.md" && grep -q "^| M2 .*AMD EPYC 9654" "$tmp/md/report.md"'

"$B" compare --by machine "$tmp/res/here" "$tmp/res/genoa" >"$tmp/cmp" 2>"$tmp/err"
check "compare --by machine over two folders (one a machine's two shards): B (Genoa, 3x the ops/s) over A per configuration" eval \
	'[ $? -eq 0 ] && [ "$(grep -c "3\.000x" "$tmp/cmp")" -eq 4 ]'

mkdir -p "$tmp/empty"
"$B" report "$tmp/empty" --out "$tmp/r3" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a folder with no results file: exit 2, one line naming it, nothing written" eval \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "$tmp/empty" "$tmp/err" && [ ! -e "$tmp/r3" ]'

