#!/usr/bin/env bash
# cli_limits.sh - ctrbench limits: bad input is refused as everywhere; a short run prints every
# row with both sides measured (positive figures) and ratios consistent with them; the update
# workload's latency is batched where one op is below the timer's resolution, never "0.0".
# Usage: cli_limits.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

BADVAL="'0'" bad limits --rounds 0
BADVAL="'abc'" bad limits --duration-ms abc
BADVAL="xml" bad limits --format xml
BADVAL="extra" bad limits extra
BADVAL="--bogus" bad limits --bogus

"$B" limits --rounds 1 --duration-ms 50 --format json >"$tmp/out" 2>"$tmp/err"
rc=$?
rows_ok() {
	[ $rc -eq 0 ] && python3 - "$tmp/out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
names = [r["row"] for r in rows]
for want in ("empty (harness floor)", "percpu_hier chain:1", "percpu_hier chain:32 per level",
             "percpu_hier read, 512 slots", "rstat_force update chain:1", "striped chain:1, 2 threads"):
    assert want in names, (want, names)
# rstat's update beside its own instructions without the harness (the kernel's fast path)
assert ("rstat_force update chain:1", "add + linked check pairs") in [(r["row"], r["limit"]) for r in rows]
for r in rows:
    assert r["kind"] == "limits" and r["schema"] == 1, r   # what ctrbench report reads them by
    assert r["ns"] > 0 and r["limit_ns"] > 0, r
    assert abs(r["ratio"] - r["ns"] / r["limit_ns"]) <= 1e-3 * r["ratio"] + 1e-4, r
    assert r["ratio_lo"] <= r["ratio"] <= r["ratio_hi"], r
PY
}
check "limits: every row measured, ratio = ctrbench / limit" rows_ok

# The table: 100 columns, each limit under its figure, and the "medians" column the ratio of the
# two medians printed (it showed the per-round median alone beside them: 0.754 / 0.600 as 1.00x).
"$B" limits --rounds 3 --duration-ms 30 >"$tmp/tab" 2>/dev/null
check "limits table: at most 100 columns, medians = figure / limit as printed, per round in its range" \
	python3 - "$tmp/tab" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert all(len(l) <= 100 for l in lines), [l for l in lines if len(l) > 100]
assert lines[0].startswith("ctrbench figure") and "medians" in lines[0] and "per round" in lines[0]
fig, n = None, 0
for l in lines[1:]:
    if l.startswith("#"):
        continue
    m = re.fullmatch(r"(\S.*?)\s+([0-9.]+)", l)
    if m:
        fig = float(m.group(2))
        continue
    m = re.fullmatch(r"  (\S.*?)\s+([0-9.]+)\s+([0-9.]+)x\s+([0-9.]+)x \[([0-9.]+), ([0-9.]+)\]", l)
    assert m and fig, l
    lim, med, q, lo, hi = (float(m.group(k)) for k in range(2, 7))
    # both printed to 3 decimals: the ratio of the printed figures within their rounding
    assert abs(med - fig / lim) <= 0.01 + 0.0005 / lim * fig / lim * 2 + 0.005 * med, (l, fig)
    assert lo <= q <= hi, l
    n += 1
assert n >= 20, n
PY

# empty's op is far below the timer's step: its latency is batched and never reads 0.0.
"$B" run --reps 1 --algo empty --workload update --shape chain:1 --threads 1 --duration-ms 200 \
	--warmup-ms 0 --format json >"$tmp/j"
check "update latency of a sub-resolution op: batched, with its resolution, not 0" python3 - "$tmp/j" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read())
u = j["update_ns"]
assert u["batch"] > 1 and u["resolution_ns"] > 0, u
assert u["resolution_ns"] <= j["timer"]["resolution_ns"] / u["batch"] * 1.0001, (u, j["timer"])
assert u["samples"] > 0 and u["p50"] > 0, u
PY
"$B" run --reps 1 --algo empty --workload update --shape chain:1 --threads 1 --duration-ms 200 \
	--warmup-ms 0 >"$tmp/t"
check "table: batched row says so, no 0.0 latency" sh -c "grep -q 'latency      batched: [0-9]* ops per sample' '$tmp/t' && ! grep -E '^empty ' '$tmp/t' | grep -qE ' 0\.0+ '"
