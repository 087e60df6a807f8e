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
# preemptions count on neither.  LongAdder warms up WARMUP_MS (default 1000) and then until two
# consecutive 100 ms windows agree within 5% (LongAdderProbe.java; a 300 ms warm-up left 3 of 6
# figures 21-41 ns on a loaded guest, the JIT not done, issue 28), and the line says how long.
# count_stat prints wall ns per read; its CPU figure here is its reader thread's own CPU clock
# at the thread's exit (a preloaded pthread_create wrapper, threadcpu_so below) over its reads:
# not the process's start-up and thread creation, which were about 25% of the process's CPU time
# at 64 and 512 slots (issue 28).  The reader's own life is its reads, but for its start and a
# wait that sleeps (poll) until the run begins.  Both CPU and wall are printed.  LIMITS=1:
# every round also prints ctrbench limits' own rows ("round K limits ..."), so one invocation
# holds the whole table of issue 13.
set -euo pipefail
bin=${1:?usage: run.sh CTRBENCH [ROUNDS]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
dur=${DURATION_MS:-1000}
warmup=${WARMUP_MS:-1000}
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

# threadcpu.so: preloaded into count_stat, it wraps pthread_create so that every thread the program
# starts (count_stat's readers) appends its own CPU clock (CLOCK_THREAD_CPUTIME_ID) at its exit
# to $THREADCPU_OUT, whether it returns or calls pthread_exit (a key's destructor).
threadcpu_so() {
	cat >"$tmp/threadcpu.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct start { void *(*fn)(void *); void *arg; };
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void report(void *unused)
{
	struct timespec ts;
	FILE *f = fopen(getenv("THREADCPU_OUT"), "a");

	(void)unused;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	if (f) {
		fprintf(f, "%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
		fclose(f);
	}
}

static void make_key(void) { pthread_key_create(&key, report); }

static void *trampoline(void *p)
{
	struct start s = *(struct start *)p;

	free(p);
	pthread_setspecific(key, &key);	/* non-NULL: the destructor runs at the thread's exit */
	return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	struct start *s = malloc(sizeof(*s));

	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
		       dlsym(RTLD_NEXT, "pthread_create");
	pthread_once(&once, make_key);
	if (!s)
		return real(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	return real(t, attr, trampoline, s);
}
C
	${CC:-cc} -O2 -shared -fPIC -o "$tmp/threadcpu.so" "$tmp/threadcpu.c" -ldl -lpthread
}

# reader_cpu_ns OUT CMD...: run CMD (its stdout into OUT) and print the CPU ns of the threads it
# started (count_stat's readers: its reads, not the process's start-up), each thread's own clock
# at its exit (threadcpu.so).
reader_cpu_ns() {
	local out=$1
	shift
	rm -f "$tmp/threadcpu.out"
	THREADCPU_OUT="$tmp/threadcpu.out" LD_PRELOAD="$tmp/threadcpu.so" "$@" >"$out"
	awk '{ s += $1 } END { if (NR == 0) exit 1; printf "%d\n", s }' "$tmp/threadcpu.out"
}

[ -z "${PERFBOOK:-}" ] || threadcpu_so

for ((k = 1; k <= rounds; k++)); do
	if command -v java > /dev/null; then
		for t in 1 2; do
			c=$(cpu_ns_per_op --algo striped --shape chain:1 --threads "$t")
			java "$here/LongAdderProbe.java" "$t" "$dur" "$warmup" >"$tmp/la.out"
			j=$(awk '{ print $7 }' "$tmp/la.out")
			w=$(awk '{ print $9 }' "$tmp/la.out")
			awk -v k="$k" -v t="$t" -v c="$c" -v j="$j" -v w="$w" 'BEGIN {
				printf "round %d  striped %d thread(s) %8.3f CPU ns/op  LongAdder %8.3f (warm-up %d ms)" \
				       "  ratio %.3f\n", k, t, c, j, w, c / j }'
		done
	fi
	if [ -n "${PERFBOOK:-}" ] || [ -n "${LIMITS:-}" ]; then
		CTRBENCH_PROGRESS=0 "$bin" limits --rounds 1 --format json > "$tmp/limits.jsonl" 2> /dev/null
	fi
	if [ -n "${LIMITS:-}" ]; then
		python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print("round %s limits  %-32s %8.3f  %-38s %8.3f  ratio %.3f" % (sys.argv[2], r["row"], r["ns"],
          r["limit"], r["limit_ns"], r["ratio"]))' "$tmp/limits.jsonl" "$k"
	fi
	if [ -n "${PERFBOOK:-}" ]; then
		for s in 8 64 512; do
			c=$(limits_ns "percpu_hier read, $s slots")
			reader_cpu_ns "$tmp/cs.out" "$PERFBOOK/count_stat_$s" 1 rperf > "$tmp/cs.time"
			awk -v k="$k" -v s="$s" -v c="$c" '
				FNR == NR { cpu = $1; next }
				/^n_reads:/ { n = $2 }
				/ns\/read/ { wall = $2 / s }
				END { pc = cpu / n / s
				      printf "round %d  percpu_hier read %3d slots %8.3f CPU ns/slot  count_stat %8.3f CPU" \
					     " (%8.3f wall)  ratio %.3f (%.3f to wall)\n", k, s, c, pc, wall, c / pc, c / wall }' \
				"$tmp/cs.time" "$tmp/cs.out"
		done
	fi
done
