#!/usr/bin/env bash
# cli_subsys.sh - `ctrbench scenario subsys-flush-locks` (bench/scenario/subsys_flush_locks.c): its table, its lines as
# result lines of the field table (`ctrbench schema`: every field, nothing else but "subsys"'s
# members), read by compare, rep lines and summaries as the executor writes them, and --from
# rebuilding the table from the file alone.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_subsys.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh
BAD_PREFIX="scenario subsys-flush-locks"

"$B" schema >"$tmp/schema.json" 2>"$tmp/err"
check "ctrbench schema has the subsys field" python3 -c '
import json, sys
f = [r for r in json.load(open(sys.argv[1]))["fields"] if r["path"] == "subsys"]
assert len(f) == 1 and f[0]["type"] == "array" and f[0]["default"] is None, f' "$tmp/schema.json"

# one rep: a summary line per lock mode
"$B" scenario subsys-flush-locks --quick --out "$tmp/one.jsonl" >"$tmp/one.out" 2>"$tmp/one.err"
rc=$?
check "--quick: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/one.err" ]'
check "--quick: seed 001's lock rows per subsystem, both lock modes, verified" python3 - "$tmp/one.out" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]) if not l.startswith("#")]
assert lines[0].split()[-2:] == ["lock=global", "lock=per-tree"], lines[0]
for sub in ("memory", "io"):
    for row in ("contended acq/s", "lock wait s/s", "lock acquisitions/s", "reads/s", "read p99 ns"):
        hit = [l for l in lines if l.startswith("%s %s " % (sub, row))]
        assert len(hit) == 1, (sub, row)
        cells = hit[0][len(sub) + len(row) + 2:].split()
        assert len(cells) == 2 and all(float(c) >= 0 for c in cells), hit[0]
assert len([l for l in lines if l.startswith("memory updates Mops/s ")]) == 1
assert not [l for l in lines if l.startswith("io updates")]
assert [l.split()[1:] for l in lines if l.startswith("verify ")] == [["ok", "ok"]], lines[-1]
PY

# the schema check: each line has every field of the table (null only under a null parent), no
# member the table lacks, and the per-subsystem figures
cat >"$tmp/lines.py" <<'PY'
import json, sys
fields = json.load(open(sys.argv[1]))["fields"]
paths = {f["path"] for f in fields}
objs = [json.loads(l) for l in open(sys.argv[2])]
reps = int(sys.argv[3])


def get(o, path):
    for part in path.split("."):
        if not isinstance(o, dict) or part not in o:
            return KeyError
        o = o[part]
    return o


def under_null(o, path):
    parts = path.split(".")
    return any(get(o, ".".join(parts[:i])) is None for i in range(1, len(parts)))


rep = [o for o in objs if o.get("kind") == "rep"]
summ = [o for o in objs if "kind" not in o]
assert len(rep) == (2 * reps if reps > 1 else 0) and len(summ) == 2, (len(rep), len(summ))
for o in objs:
    miss = [f["path"] for f in fields
            if get(o, f["path"]) is KeyError and f["path"] != "sweep" and not under_null(o, f["path"])]
    extra = [k for k in o if k not in paths and k not in ("kind", "rep")]
    assert not miss and not extra, (miss, extra)
    assert o["workload"] == "readers" and o["shape"] == "tree:4x4", o
    assert o["readers"] == 2 * o["threads"] and o["slots"] == o["threads"], o
    assert o["verify"] == "ok" and o["reps_requested"] == reps, o
    assert o["note"].startswith("scenario subsys-flush-locks: lock="), o["note"]
    assert o["options"] == "subsys=2," + o["note"].split(": ")[1], o
    assert [s["name"] for s in o["subsys"]] == ["memory", "io"], o["subsys"]
    assert all(s["reads"] > 0 and s["lock_acquisitions"] >= s["reads"] for s in o["subsys"]), o["subsys"]
    # a summary's reads are the median of the reps', its subsys the rep details_from_rep names
    assert o["reads"] == sum(s["reads"] for s in o["subsys"]) or o["reps_done"] > 1, o
    assert o["update_ns"] is None and o["flush"]["flushes"] > 0, o
for o in summ:
    assert o["reps_done"] == reps and (o["stats"] is None) == (reps == 1), o
    assert reps == 1 or (abs(o["stats"]["reads"]["median"] - o["reads"]) <= 1 and
                         not [k for k in o["stats"] if k.startswith("update_ns")] and
                         all(r["update_ns"] is None for r in o["reps"])), o["stats"]
assert [o["options"] for o in summ] == ["subsys=2,lock=global", "subsys=2,lock=per-tree"]
PY
check "one rep: a line per lock mode, every field of the table, the subsystems' figures" \
	python3 "$tmp/lines.py" "$tmp/schema.json" "$tmp/one.jsonl" 1
"$B" compare "$tmp/one.jsonl" "$tmp/one.jsonl" --format json >"$tmp/out" 2>"$tmp/err"
rc=$?
check "compare reads the lines (the field table's checks): both lock modes paired" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert sys.argv[2] == "0" and len(rows) == 2 and all("unmatched" not in r for r in rows), rows' "$tmp/out" $rc

# K reps: rep lines as they come, then the summaries (bench_summarize), as the executor writes them
"$B" scenario subsys-flush-locks --quick --reps 2 --out "$tmp/two.jsonl" >"$tmp/two.out" 2>"$tmp/two.err"
rc=$?
check "--reps 2: exit 0, median [min, max] cells" eval \
	'[ $rc -eq 0 ] && [ ! -s "$tmp/two.err" ] && grep -q "^memory reads/s .*\[.*\]" "$tmp/two.out"'
check "--reps 2: four rep lines, then two summaries with their intervals" \
	python3 "$tmp/lines.py" "$tmp/schema.json" "$tmp/two.jsonl" 2

# --from: the same table from the file, measuring nothing
for f in one two; do
	"$B" scenario subsys-flush-locks --from "$tmp/$f.jsonl" >"$tmp/$f.from" 2>"$tmp/err"
	rc=$?
	check "--from ($f): exit 0, the measured table again" eval \
		'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
		 diff <(grep -v "^#" "$tmp/$f.out") <(grep -v "^#" "$tmp/$f.from") >&2'
done
grep -v '"lock=per-tree"\|lock=per-tree"' "$tmp/one.jsonl" >"$tmp/half.jsonl"
"$B" scenario subsys-flush-locks --from "$tmp/half.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--from a file with one lock mode: exit 1, its column not run, said once" eval \
	'[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^verify .*ok .*not run" "$tmp/out"'
"$B" run --algo atomic_tree --shape chain:2 --threads 1 --duration-ms 5 --warmup-ms 0 --format json \
	>"$tmp/other.jsonl" 2>/dev/null
BADVAL="no subsys-flush-locks results" bad --from "$tmp/other.jsonl"
