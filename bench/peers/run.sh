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
# preemptions count on neither.
set -euo pipefail
bin=${1:?usage: run.sh CTRBENCH [ROUNDS]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
dur=${DURATION_MS:-1000}

cpu_ns_per_op() {	# ctrbench run ... --format csv: the cpu_ns_per_op column (task-clock / ops)
	"$bin" run "$@" --workload update --duration-ms "$dur" --warmup-ms 300 --reps 1 --format csv |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cpu_ns_per_op") c = i } NR == 2 { print $c }'
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
	if [ -n "${PERFBOOK:-}" ]; then
		for s in 8 64 512; do
			c=$("$bin" limits --rounds 1 --format json 2> /dev/null |
			    awk -v s="$s" -F'"ns":' 'index($0, "read, " s " slots\",\"limit") { split($2, a, ","); print a[1] }')
			p=$("$PERFBOOK/count_stat_$s" 1 rperf | awk -v s="$s" '/ns\/read/ { print $2 / s }')
			awk -v k="$k" -v s="$s" -v c="$c" -v p="$p" 'BEGIN {
				printf "round %d  percpu_hier read %3d slots %8.3f ns/slot  count_stat %8.3f  ratio %.3f\n",
				       k, s, c, p, c / p }'
		done
	fi
done
