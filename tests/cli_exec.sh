#!/usr/bin/env bash
# cli_exec.sh - the one executor (bench/exec.h): every rep is written as it is
# measured, so a sweep or a scenario killed with SIGKILL in the middle of a
# configuration loses at most the rep in flight, and --resume runs only the
# reps that are missing: afterwards every rep index of every configuration is
# in the file exactly once, the lines written before the kill are kept as they
# were, and each summary pools exactly the reps in the file.  After SIGINT a
# scenario's cell from fewer reps than asked carries "[k/K]".  Readers
# (compare) skip rep lines.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_exec.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

lines() { wc -l <"$1" | tr -d ' '; }

# reps_ok FILE REPS CONFIGS: every configuration (algo, threads, note) has rep lines 0..REPS-1
# once each and one summary with reps_done REPS whose reps[] are those rep lines' figures.
reps_ok() {
	python3 - "$@" <<'EOF'
import collections, json, sys
path, reps, configs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = [json.loads(l) for l in open(path)]
key = lambda r: (r["algo"], r["threads"], r["shape"], r.get("note"))
each = collections.defaultdict(list)
sums = collections.defaultdict(list)
for r in rows:
    (each if r.get("kind") == "rep" else sums)[key(r)].append(r)
assert len(sums) == configs, "%d summaries for %d configurations" % (len(sums), configs)
for k, s in sums.items():
    assert len(s) == 1, "%s: %d summaries" % (k, len(s))
    idx = sorted(r["rep"] for r in each[k])
    assert idx == list(range(reps)), "%s: rep lines %s" % (k, idx)
    assert s[0]["reps_done"] == reps, "%s: reps_done %s" % (k, s[0]["reps_done"])
    got = sorted(x["ops_per_sec"] for x in s[0]["reps"])
    want = sorted(r["ops_per_sec"] for r in each[k])
    assert got == want, "%s: the summary's reps %s are not the rep lines' %s" % (k, got, want)
EOF
}

# kill9 FILE N CMD...: start CMD, SIGKILL it once FILE has N lines or more (a rep line is N).
kill9() {
	local f=$1 n=$2
	shift 2
	"$@" >/dev/null 2>&1 &
	local pid=$!
	for _ in $(seq 1000); do [ -s "$f" ] && [ "$(lines "$f")" -ge "$n" ] && break; sleep 0.01; done
	{ kill -9 $pid; wait $pid; } 2>/dev/null
}

# A sweep: 2 algorithms x 2 thread counts, 3 reps: 6 rep lines and 2 summaries per thread count.
SW=(sweep --algo atomic_tree,percpu_hier --shape chain:4 --threads 1..2 --reps 3 --duration-ms 80
    --warmup-ms 5)
kill9 "$tmp/s.jsonl" 3 "$B" "${SW[@]}" --out "$tmp/s.jsonl"
n=$(lines "$tmp/s.jsonl")
cp "$tmp/s.jsonl" "$tmp/s0.jsonl"
"$B" "${SW[@]}" --out "$tmp/s.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
rc=$?
check "sweep killed (SIGKILL) after $n lines, mid-configuration: --resume ends with each rep once, the first $n lines kept" eval \
	'[ $rc -eq 0 ] && [ "$n" -ge 3 ] && [ "$n" -lt 16 ] && reps_ok "$tmp/s.jsonl" 3 4 &&
	 [ "$(head -n "$n" "$tmp/s.jsonl")" = "$(cat "$tmp/s0.jsonl")" ]'
"$B" "${SW[@]}" --out "$tmp/s.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
check "--resume of the finished sweep adds nothing" eval '[ $? -eq 0 ] && [ "$(lines "$tmp/s.jsonl")" -eq 16 ]'
"$B" compare "$tmp/s.jsonl" "$tmp/s.jsonl" >"$tmp/out" 2>"$tmp/err"
check "compare reads the summaries only: 4 rows of 3 reps each, rep lines skipped (not pooled as processes)" eval \
	'[ $? -eq 0 ] && [ "$(grep -c "atomic_tree\|percpu_hier" "$tmp/out")" -ge 4 ] && grep -q " (3) " "$tmp/out" && ! grep -q "[0-9]p)" "$tmp/out"'

# A scenario: its rows are configurations handed to the same executor.
# --wide: the checks read a row's cells on its label's line (the default puts one algorithm a line)
SC=(scenario zswap-store-nolimit --quick --wide --reps 3 --algo atomic_tree,percpu_hier)
kill9 "$tmp/c.jsonl" 5 "$B" "${SC[@]}" --out "$tmp/c.jsonl"
n=$(lines "$tmp/c.jsonl")
cp "$tmp/c.jsonl" "$tmp/c0.jsonl"
"$B" "${SC[@]}" --out "$tmp/c.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
rc=$?
check "scenario killed (SIGKILL) after $n lines: --resume ends with each rep of its 5 rows once, the first $n kept" eval \
	'[ $rc -eq 0 ] && [ "$n" -ge 5 ] && [ "$n" -lt 40 ] && reps_ok "$tmp/c.jsonl" 3 10 &&
	 [ "$(head -n "$n" "$tmp/c.jsonl")" = "$(cat "$tmp/c0.jsonl")" ] &&
	 grep -q "^depth 32 " "$tmp/out" && ! grep -q "reps\]" "$tmp/out"'

# SIGINT: the row in progress shows what it has, marked with how many reps.
"$B" "${SC[@]}" --out "$tmp/i.jsonl" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1000); do [ -s "$tmp/i.jsonl" ] && break; sleep 0.01; done
kill -INT $pid
wait $pid
rc=$?
check "scenario after SIGINT: exit 1, its row's cells marked [k/3], no summary short of reps in the file" eval \
	'[ $rc -eq 1 ] && grep -q "^depth 1 .*\[[12]/3\]" "$tmp/out" && grep -q "^# \[k/K\]" "$tmp/out" &&
	 ! grep -v "\"kind\":\"rep\"" "$tmp/i.jsonl" | grep -q "\"reps_done\":[12],"'

# The other readers: report counts the summaries only; recommend ranks from them.
"$B" report "$tmp/s.jsonl" --out "$tmp/rep" --format markdown >"$tmp/out" 2>"$tmp/err"
check "report reads the 4 summaries of a file with 12 rep lines" eval \
	'[ $? -eq 0 ] && grep -q "^4 results from" "$tmp/rep/report.md"'
"$B" recommend --results "$tmp/s.jsonl" --updates-per-sec 1e6 --reads-per-sec 0 --depth 4 \
	--max-staleness EXACT >"$tmp/out" 2>"$tmp/err"
check "recommend ranks from the summaries of that file" eval \
	'[ $? -eq 0 ] && grep -q "atomic_tree" "$tmp/out"'

# --work-iters: a knob of the configuration (recorded, matched), for the update workload only.
"$B" run --algo empty --shape chain:2 --threads 1 --reps 1 --duration-ms 5 --warmup-ms 0 --work-iters 300 \
	--format json >"$tmp/w.jsonl" 2>"$tmp/err"
check "run --work-iters 300 records work_iters 300" eval '[ $? -eq 0 ] && grep -q "\"work_iters\":300," "$tmp/w.jsonl"'
"$B" compare "$tmp/s.jsonl" "$tmp/s.jsonl" --metric cpu_ns_per_op --wide >"$tmp/out" 2>"$tmp/err"
check "compare --metric cpu_ns_per_op reads every rep's CPU time" eval \
	'[ $? -eq 0 ] && grep -q "metric cpu_ns_per_op (lower is faster)" "$tmp/out" && grep -q " (3) " "$tmp/out"'
BADVAL="--work-iters" bad run --workload charge --work-iters 5
BADVAL="--work-iters" bad run --workload readers --work-iters 5
BADVAL="--work-iters" bad run --work-ns 10 --work-iters 5
BADVAL="-1" bad run --work-iters -1
BADVAL="--work-iters" bad sweep --algo empty --shape chain:2 --threads 1 --workload charge --work-iters 5 --out "$tmp/x.jsonl"
