#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/peers/run.sh CTRBENCH [ROUNDS] - ctrbench beside its outside peers, each
# row's two sides run back to back in every round, so a ratio compares figures
# of one moment on a shared machine.  Peers (measurement only; nothing builds
# or tests with them):
#   Java 17 LongAdder (LongAdderProbe.java here; needs `java` on PATH) vs striped
#   perfbook count_stat (built outside the tree, PERFBOOK=/dir holding
#   count_stat_8, count_stat_64, count_stat_512: CodeSamples/count/count_stat.c
#   with NR_THREADS set to 8, 64, 512) vs percpu_hier's read per slot (ctrbench limits)
# Prints one line per row and round: ctrbench, peer, ratio (ctrbench / peer); CPU ns per op on
# both sides for striped vs LongAdder (task-clock; the JVM's thread CPU time), so other load's
# preemptions count on neither.  count_stat prints wall ns per read; its CPU figure here is the
# process's user + system time over its reads (its 240 ms window plus start-up and thread
# creation, so it is a little high: the ratio against it errs in ctrbench's favour by that much,
# and both are printed).  LIMITS=1: every round also prints ctrbench limits' own rows
# ("round K limits ..."), so one invocation holds the whole table of issue 13.
set -euo pipefail
bin=${1:?usage: run.sh CTRBENCH [ROUNDS]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
dur=${DURATION_MS:-1000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cpu_ns_per_op() {	# ctrbench run ... --format csv: the cpu_ns_per_op column (task-clock / ops)
	CTRBENCH_PROGRESS=0 "$bin" run "$@" --workload update --duration-ms "$dur" --warmup-ms 300 --reps 1 \
		--format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cpu_ns_per_op") c = i }
					NR == 2 { print $c }'
}

# limits_ns ROW: the ns of that row in this round's ctrbench limits --format json
limits_ns() {
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["row"] == sys.argv[2]:
        print(r["ns"]); break' "$tmp/limits.jsonl" "$1"
}

for ((k = 1; k <= rounds; k++)); do
	if command -v java > /dev/null; then
		for t in 1 2; do
			c=$(cpu_ns_per_op --algo striped --shape chain:1 --threads "$t")
			j=$(java "$here/LongAdderProbe.java" "$t" "$dur" 300 | awk '{ print $7 }')
			awk -v k="$k" -v t="$t" -v c="$c" -v j="$j" 'BEGIN {
				printf "round %d  striped %d thread(s) %8.3f CPU ns/op  LongAdder %8.3f  ratio %.3f\n",
				       k, t, c, j, c / j }'
		done
	fi
	if [ -n "${PERFBOOK:-}" ] || [ -n "${LIMITS:-}" ]; then
		CTRBENCH_PROGRESS=0 "$bin" limits --rounds 1 --format json > "$tmp/limits.jsonl" 2> /dev/null
	fi
	if [ -n "${LIMITS:-}" ]; then
		python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print("round %s limits  %-32s %8.3f  %-28s %8.3f  ratio %.3f" % (sys.argv[2], r["row"], r["ns"],
          r["limit"], r["limit_ns"], r["ratio"]))' "$tmp/limits.jsonl" "$k"
	fi
	if [ -n "${PERFBOOK:-}" ]; then
		for s in 8 64 512; do
			c=$(limits_ns "percpu_hier read, $s slots")
			{ TIMEFORMAT='%3U %3S'; time "$PERFBOOK/count_stat_$s" 1 rperf > "$tmp/cs.out"; } 2> "$tmp/cs.time"
			awk -v k="$k" -v s="$s" -v c="$c" '
				FNR == NR { cpu = ($1 + $2) * 1e9; next }
				/^n_reads:/ { n = $2 }
				/ns\/read/ { wall = $2 / s }
				END { pc = cpu / n / s
				      printf "round %d  percpu_hier read %3d slots %8.3f CPU ns/slot  count_stat %8.3f CPU" \
					     " (%8.3f wall)  ratio %.3f (%.3f to wall)\n", k, s, c, pc, wall, c / pc, c / wall }' \
				"$tmp/cs.time" "$tmp/cs.out"
		done
	fi
done
