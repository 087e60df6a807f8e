#!/usr/bin/env bash
# cli_verdict.sh - run and recommend --verdict end with a verdict (issue 31, point 1): every line
# of run's table output within 100 columns at COLUMNS=100, exact and approximate designs in
# lists apart (by the bound each algorithm states in the results, never by name), the evidence
# file named, what the machine cannot show, the next commands; --wide restores the full table;
# json output has no verdict. The scenario and compare tables too: within 100 columns by default,
# --wide gives their full tables.
# Usage: cli_verdict.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh
export COLUMNS=100
# an exact design (stated bound 0), one bounded by time, and the harness floor (not ranked)
ALGOS=atomic_tree,rstat_ratelimit,empty
RUN="--algo $ALGOS --duration-ms 20 --warmup-ms 0 --reps 2"

BADVAL="--results" bad recommend --verdict

"$B" run $RUN >"$tmp/out" 2>"$tmp/err"
rc=$?
cp "$tmp/out" "$tmp/run"
check "run: exit 0, nothing on stderr" test $rc -eq 0 -a ! -s "$tmp/err"
check "run: every line within 100 columns" test -z "$(awk 'length > 100' "$tmp/run")"
check "run: the default table has no mean/p90/max columns" \
	grep -qE '^algo +ops/s +ns/op +cpu ns/op +p50 +p99 +verify$' "$tmp/run"
check "run: ends with the verdict" grep -q '^== verdict' "$tmp/run"
check "run: exact and approximate lists" \
	sh -c 'grep -q "^  exact designs" "$1" && grep -q "^  approximate designs" "$1"' _ "$tmp/run"
check "run: what the machine cannot show, and the next command" \
	sh -c 'grep -q "^this machine cannot show: [0-9]* NUMA node" "$1" &&
	       grep -q "^  ctrbench recommend --verdict --results FILE" "$1"' _ "$tmp/run"

"$B" run $RUN --wide >"$tmp/out" 2>"$tmp/err"
check "run --wide: the full table (mean, p90, max)" \
	grep -qE '^algo +ops/s +ns/op +cpu ns/op +mean +p50 +p90 +p99 +max +verify' "$tmp/out"

"$B" run $RUN --format json >"$tmp/res.jsonl" 2>"$tmp/err"
check "run --format json: no verdict, result lines only" \
	sh -c '! grep -q verdict "$1" && python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$1"' \
	_ "$tmp/res.jsonl"

"$B" recommend --verdict --results "$tmp/res.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "recommend --verdict: exit 0, within 100 columns" \
	test $rc -eq 0 -a ! -s "$tmp/err" -a -z "$(awk 'length > 100' "$tmp/out")"
check "recommend --verdict: names the evidence file" grep -qF "evidence: $tmp/res.jsonl (3 results)" "$tmp/out"
check "recommend --verdict: the report command on that file" grep -qF "ctrbench report $tmp/res.jsonl --out DIR" "$tmp/out"
# each design in the list its stated bound puts it in, from the results themselves
lists_ok() {
	python3 - "$tmp/res.jsonl" "$tmp/out" <<'PY'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
text = open(sys.argv[2]).read()
exact = text.split("  exact designs")[1].split("  approximate designs")[0]
approx = text.split("  approximate designs")[1].split("evidence:")[0]
names = lambda block: set(re.findall(r"^    \d+=?\s+(\S+)", block, re.M))
ex, ap = names(exact), names(approx)
want_ex = {l["algo"] for l in lines if not l["baseline"] and l["read_error_bound"] == 0 and not l["read_error_at_rest"]}
want_ap = {l["algo"] for l in lines if not l["baseline"]} - want_ex
assert want_ex and want_ap, (want_ex, want_ap)   # the test needs both kinds
assert ex == want_ex and ap == want_ap, (ex, ap, want_ex, want_ap)
assert "read error:" in approx and "read error:" not in exact
for l in lines:
    if l["baseline"]:
        assert re.search(r"not ranked: .*%s \(harness baseline\)" % l["algo"], text), text
PY
}
check "recommend --verdict: exact and approximate designs apart, by their stated bounds" lists_ok

# The report's summary: exact and approximate designs ranked apart, what the machine cannot show up top
"$B" report "$tmp/res.jsonl" --out "$tmp/rep" >"$tmp/out" 2>"$tmp/err"
summary_ok() {
	python3 - "$tmp/rep/index.html" "$tmp/res.jsonl" <<'PY'
import html, json, re, sys
page = open(sys.argv[1]).read()
s = page[page.index('id="summary"'):page.index("</section>", page.index('id="summary"'))]
assert "<dt>cannot show</dt>" in s and "effects shown" in s, s[:500]
rows = [[html.unescape(re.sub("<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", s, re.S)]
rows = [r for r in rows if len(r) >= 5]
lines = {l["algo"]: l for l in map(json.loads, open(sys.argv[2])) if not l["baseline"]}
kinds = {r[4]: r[3].split(" ")[0] for r in rows}
for a, l in lines.items():
    want = "exact" if l["read_error_bound"] == 0 and not l["read_error_at_rest"] else "approximate"
    assert kinds.get(a) == want, (a, kinds, want)
# each kind ranked apart: each list's first row is rank 1
firsts = {}
for r in rows:
    firsts.setdefault(r[3].split(" ")[0], r[2])
assert set(firsts.values()) == {"1"} and len(firsts) == 2, firsts
PY
}
check "report: summary ranks exact and approximate apart, says what the machine cannot show" summary_ok

# scenario: its default table within 100 columns (a line per algorithm and row), --wide the full one
"$B" scenario worker-scaling --quick --out "$tmp/scn.jsonl" >"$tmp/scn" 2>"$tmp/err"
rc=$?
check "scenario worker-scaling --quick: exit 0, a table" \
	sh -c 'test $1 -eq 0 && grep -qE "^workers +algo +ours$" "$2"' _ $rc "$tmp/scn"
check "scenario: every line within 100 columns" test -z "$(awk 'length > 100' "$tmp/scn")"
check "scenario: every algorithm of the results on a line of its own" python3 - "$tmp/scn" "$tmp/scn.jsonl" <<'PY'
import json, sys
algos = {json.loads(l)["algo"] for l in open(sys.argv[2])}
named = {l.split()[-2] for l in open(sys.argv[1]) if not l.startswith("#") and len(l.split()) >= 2}
assert algos and algos <= named, (algos, named)
PY
"$B" scenario worker-scaling --quick --from "$tmp/scn.jsonl" --wide >"$tmp/out" 2>"$tmp/err"
check "scenario --wide: the full table, the algorithms side by side past 100 columns" \
	sh -c 'test -n "$(awk "length > 100" "$1")" && grep -qE "^workers +rstat_force +rstat_ratelimit" "$1"' \
	_ "$tmp/out"

# compare: the key, both medians, B/A and the verdict by default; --wide adds the CI, p and why
"$B" compare tests/data/compare_a.jsonl tests/data/compare_b.jsonl >"$tmp/cmp" 2>"$tmp/err"
rc=$?
check "compare: exit 0, the narrow header" \
	sh -c 'test $1 -eq 0 && grep -qE "^algo +workload +shape +threads +A median +B median +B/A +verdict$" "$2"' \
	_ $rc "$tmp/cmp"
check "compare: every line within 100 columns" test -z "$(awk 'length > 100' "$tmp/cmp")"
check "compare: the verdicts still there" \
	sh -c 'grep -q " faster$" "$1" && grep -q " only in A$" "$1"' _ "$tmp/cmp"
"$B" compare tests/data/compare_a.jsonl tests/data/compare_b.jsonl --wide >"$tmp/out" 2>"$tmp/err"
check "compare --wide: the full table (placement, settings, 95% CI, p, why), past 100 columns" \
	sh -c 'test -n "$(awk "length > 100" "$1")" &&
	       grep -qE "placement +settings +A median +B median +B/A +95% CI +p +verdict +why$" "$1"' _ "$tmp/out"
