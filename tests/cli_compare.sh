#!/usr/bin/env bash
# cli_compare.sh - `ctrbench compare A B`: the fixed files under tests/data give
# "no change" for the same numbers and a change where one algorithm is twice as
# fast; configurations in one file only are listed as such; lines without reps
# are one sample; bad input is one stderr line naming the bad value, exit 2,
# nothing on stdout.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_compare.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
D=tests/data

. tests/tap.sh
BAD_PREFIX=compare

# run ARGS...: compare into $tmp/out and $tmp/err, exit status in $rc.
run() {
	"$B" compare "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# row ALGO WORKLOAD: the table row of that configuration.
row() { awk -v a="$1" -v w="$2" '$1 == a && $2 == w' "$tmp/out"; }
clean() { [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; }

# Same numbers (reordered reps, reordered lines, a blank line): no change anywhere, decided by Mann-Whitney.
run $D/compare_a.jsonl $D/compare_same.jsonl
check "same numbers: 4 configurations, all no change by Mann-Whitney" eval \
	'clean && [ "$(grep -c "no change  *Mann-Whitney p=1$" "$tmp/out")" -eq 4 ] &&
	 [ "$(grep -vc "^#" "$tmp/out")" -eq 5 ]'
check "the header says bootstrap, its resamples and seed, and the tests" eval \
	'grep -q "^# 95% CI of the change: percentile bootstrap of the medians, 2000 resamples" "$tmp/out" &&
	 grep -q "seed 0x" "$tmp/out" && grep -q "^# verdict: Mann-Whitney U" "$tmp/out" &&
	 grep -q "non-overlapping order-statistic intervals" "$tmp/out"'

# percpu_hier twice as fast in B.
run $D/compare_a.jsonl $D/compare_b.jsonl
check "2x ops/s: percpu_hier faster, +100.0%, Mann-Whitney" eval \
	'clean && row percpu_hier update | grep -q "+100.0%.*faster  *Mann-Whitney p=0.0079"'
check "unchanged atomic_tree: no change (update and readers)" eval \
	'row atomic_tree update | grep -q "+0.0%.*no change" && row atomic_tree readers | grep -q "no change"'
check "the change interval holds +100%" eval \
	'row percpu_hier update | grep -q "\[+[0-9.]*%, +[0-9.]*%\]" &&
	 row percpu_hier update | awk "{ for (i = 1; i <= NF; i++) if (\$i ~ /^\[/) { lo = \$i; hi = \$(i + 1) } }
		END { gsub(/[^0-9.+-]/, \"\", lo); gsub(/[^0-9.+-]/, \"\", hi); exit !(lo + 0 <= 100 && hi + 0 >= 100) }"'
check "configurations in one file only are listed as such" eval \
	'row locked_tree update | grep -q "only in A" && row striped update | grep -q "only in B"'
run $D/compare_b.jsonl $D/compare_a.jsonl
check "the other way round: slower, -50.0%" eval \
	'clean && row percpu_hier update | grep -q -- "-50.0%.*slower"'
run --metric update_ns.p50 $D/compare_a.jsonl $D/compare_b.jsonl
check "--metric update_ns.p50: half the latency is faster, -50.0%" eval \
	'clean && row percpu_hier update | grep -q -- "-50.0%.*faster" && grep -q "metric update_ns.p50 (lower is faster)" "$tmp/out"'
run $D/compare_a.jsonl --metric update_ns.p99 $D/compare_b.jsonl
check "--metric update_ns.p99 after the first file" eval \
	'clean && row percpu_hier update | grep -q -- "-50.0%.*faster"'

# JSON: one object per configuration.
run --format json $D/compare_a.jsonl $D/compare_b.jsonl
check "--format json: 5 lines, verdicts and tests" eval \
	'clean && [ "$(wc -l <"$tmp/out")" -eq 5 ] &&
	 grep -q "\"algo\":\"percpu_hier\".*\"change_pct\":100.0.*\"verdict\":\"faster\",\"test\":\"mann-whitney\"" "$tmp/out" &&
	 grep -q "\"algo\":\"locked_tree\".*\"b\":null.*\"verdict\":\"only in A\"" "$tmp/out" &&
	 grep -q "\"resamples\":2000" "$tmp/out" && grep -q "\"readers\":1" "$tmp/out"'
if command -v python3 >/dev/null; then
	check "--format json parses" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert {r["verdict"] for r in rows} == {"no change", "faster", "only in A", "only in B"}, rows
' "$tmp/out"
fi

# Lines without reps: one sample each, pooled per configuration.
run $D/compare_noreps.jsonl $D/compare_a.jsonl
check "no reps: 3 pooled lines decide by intervals, 1 sample is inconclusive" eval \
	'clean && row atomic_tree update | grep -q "(3).*(5).*no change  *intervals 75.0%/93.8%" &&
	 row percpu_hier update | grep -q "(1).*(5).*inconclusive  *none (< 2 reps)"'


A=$D/compare_a.jsonl
head -2 $A >"$tmp/trunc.jsonl"
printf '{"schema": 1, "algo": "x", "workload": "update"\n' >>"$tmp/trunc.jsonl"
printf '[1, 2]\n' >"$tmp/array.jsonl"
printf '{"schema": 1, "workload": "update", "shape": "chain:2", "threads": 2, "ops_per_sec": 1}\n' >"$tmp/noalgo.jsonl"
printf '{"schema": 1, "algo": "a", "workload": "update", "shape": "chain:2", "threads": "2", "ops_per_sec": 1}\n' >"$tmp/threads.jsonl"
{ head -1 $D/compare_a.jsonl; printf '{"schema": 99, "algo": "a"}\n'; } >"$tmp/schema99.jsonl"
printf '{"algo": "a", "workload": "update", "shape": "chain:2", "threads": 2, "ops_per_sec": 1}\n' >"$tmp/noschema.jsonl"
printf '{"schema": 1, "algo": "a", "workload": "update", "shape": "chain:2", "threads": 2, "ops_per_sec": "fast"}\n' >"$tmp/metric.jsonl"
printf '{"schema": 1, "algo": "a", "workload": "update", "shape": "chain:2", "threads": 2, "reps": {"ops_per_sec": 1}}\n' >"$tmp/reps.jsonl"
printf '{"schema": 1, "algo": "a", "workload": "update", "shape": "chain:2", "threads": 2, "reps": [{"ops_per_sec": 1}, {"ops_per_sec": []}]}\n' >"$tmp/rep1.jsonl"
: >"$tmp/empty.jsonl"

BADVAL="/no/such/file.jsonl" bad /no/such/file.jsonl $A
BADVAL="/no/such/b.jsonl" bad $A /no/such/b.jsonl
BADVAL="$tmp/trunc.jsonl:3" bad $A "$tmp/trunc.jsonl"
BADVAL="$tmp/array.jsonl:1" bad "$tmp/array.jsonl" $A
BADVAL="\"algo\" is missing" bad "$tmp/noalgo.jsonl" $A
BADVAL="$tmp/schema99.jsonl:2: result schema 99, this ctrbench reads schema 1" bad "$tmp/schema99.jsonl" $A
BADVAL="$tmp/noschema.jsonl:1: result schema missing" bad "$tmp/noschema.jsonl" $A
BADVAL="\"threads\" is not an integer" bad "$tmp/threads.jsonl" $A
BADVAL="$tmp/metric.jsonl:1: ops_per_sec is not a number" bad "$tmp/metric.jsonl" $A
BADVAL="\"reps\" is not an array" bad "$tmp/reps.jsonl" $A
BADVAL="reps[1].ops_per_sec" bad "$tmp/rep1.jsonl" $A
BADVAL="$tmp/empty.jsonl" bad "$tmp/empty.jsonl" $A
BADVAL="'ops'" bad --metric ops $A $A
BADVAL="'update_ns.p90'" bad --metric update_ns.p90 $A $A
BADVAL="'csv'" bad --format csv $A $A
BADVAL="--bogus" bad --bogus $A $A
BADVAL="--metric" bad $A $A --metric
BADVAL="two files" bad $A
BADVAL="two files" bad
BADVAL="'extra'" bad $A $A extra

# Real runs of this build, --ignore-algo: one algorithm swapped for another in the same
# configuration is a change (80x here).  "No change" between two real runs is a 5% false-positive
# test by design, so it is checked on the fixed files above, not here.
R=(run --workload update --shape chain:4 --threads 2 --duration-ms 60 --warmup-ms 10 --reps 5 --format json)
"$B" "${R[@]}" --algo atomic_tree >"$tmp/a1.jsonl" && "$B" "${R[@]}" --algo percpu_hier >"$tmp/p.jsonl"
run --ignore-algo "$tmp/a1.jsonl" "$tmp/p.jsonl"
check "atomic_tree swapped for percpu_hier (--ignore-algo): a change" eval \
	'clean && grep -Eq "^\(either\) +update .*(faster|slower)" "$tmp/out"'
