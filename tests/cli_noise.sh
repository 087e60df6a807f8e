#!/usr/bin/env bash
# cli_noise.sh - the "host" object of result lines and the cause a NOISY row names (bench/noise.h).
# A fake /proc (CTRBENCH_PROC_ROOT) whose stat is a FIFO fed by a writer that advances the
# counters by the same step at every read, 70% of it steal: the shares over any interval are
# that step's, whatever the timing.  CTRBENCH_NOISY_CV=-1 flags every row of two reps NOISY.
# Usage: cli_noise.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

RUN=(run --algo atomic_tree --shape chain:2 --duration-ms 20 --warmup-ms 0 --reps 2)
ONE=(--threads 1)

fake=$tmp/proc
mkdir -p "$fake/self"
echo "3.40 2.00 1.00 2/200 4242" >"$fake/loadavg"
# our own utime + stime stays put: every busy jiffy is another process's
echo "4242 (ctr bench) R 1 4242 4242 0 -1 4194304 100 0 0 0 40 20 0 0 20 0 3 0 99 1 1" >"$fake/self/stat"
mkfifo "$fake/stat"
(
	# a reader that closes early must not end the writer (SIGPIPE): the write fails, the loop goes on
	trap '' PIPE
	i=0
	while :; do
		i=$((i + 1))
		# per step: user +10, idle +20, steal +70 of 100 jiffies
		printf 'cpu  %d 0 0 %d 0 0 0 %d 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n' $((10 * i)) $((20 * i)) \
			$((70 * i)) >"$fake/stat" 2>/dev/null
	done
) &
writer=$!
trap 'kill $writer 2>/dev/null; rm -rf "$tmp"' EXIT

# host: the fake's figures; noise_cause null where the row is not noisy
CTRBENCH_PROC_ROOT=$fake CTRBENCH_NOISY_CV=1e9 timeout 60 "$B" "${RUN[@]}" "${ONE[@]}" --format json \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "json: host has the fake /proc's load, steal 70%, others 10%, no iowait; no cause unless noisy" \
	eval '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && python3 - "$tmp/out" <<'"'PY'"'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 1, lines
h = lines[0]["host"]
assert h["load1_start"] == 3.4 and h["load1_end"] == 3.4, h
assert abs(h["steal"] - 0.7) < 1e-9 and abs(h["others"] - 0.1) < 1e-9 and h["iowait"] == 0, h
assert h["seconds"] > 0 and h["noise_cause"] is None, h
PY'

CTRBENCH_PROC_ROOT=$fake CTRBENCH_NOISY_CV=-1 timeout 60 "$B" "${RUN[@]}" "${ONE[@]}" --format json \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "json: a noisy row's host.noise_cause names the steal" eval \
	'[ $rc -eq 0 ] && python3 - "$tmp/out" <<'"'PY'"'
import json, sys
l = json.loads(open(sys.argv[1]).readline())
assert l["stats"]["ops_per_sec"]["noisy"] is True, l["stats"]
assert l["host"]["noise_cause"] == "steal 70% (the hypervisor ran other guests)", l["host"]
PY'

CTRBENCH_PROC_ROOT=$fake CTRBENCH_NOISY_CV=-1 timeout 60 "$B" "${RUN[@]}" "${ONE[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "table: the NOISY row, then a line naming its cause, under 100 columns" eval \
	'[ $rc -eq 0 ] && grep -q "^atomic_tree .* NOISY$" "$tmp/out" &&
	 grep -qx "  noisy        likely cause: steal 70% (the hypervisor ran other guests)" "$tmp/out" &&
	 [ "$(grep "likely cause" "$tmp/out" | awk "{ print length }")" -le 100 ]'

# more threads than CPUs: the configuration is the cause, whatever the host did
cpus=$(nproc)
CTRBENCH_PROC_ROOT=$fake CTRBENCH_NOISY_CV=-1 timeout 60 "$B" "${RUN[@]}" --threads $((cpus + 1)) \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "table: more threads than CPUs named before the steal" eval \
	'[ $rc -eq 0 ] && grep -q "likely cause: more threads ($((cpus + 1))) than CPUs ($cpus)" "$tmp/out"'

# a /proc that cannot be read: null figures, no error
CTRBENCH_PROC_ROOT=$tmp/none CTRBENCH_NOISY_CV=-1 timeout 60 "$B" "${RUN[@]}" "${ONE[@]}" --format json \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "json: an unreadable /proc gives null figures, exit 0, and says the cause is unknown" eval \
	'[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && python3 - "$tmp/out" <<'"'PY'"'
import json, sys
h = json.loads(open(sys.argv[1]).readline())["host"]
assert all(h[k] is None for k in ("load1_start", "load1_end", "steal", "iowait", "others")), h
assert h["seconds"] > 0 and h["noise_cause"].startswith("unknown"), h
PY'

# the real /proc: figures of the right type and range (their values are this host's)
timeout 60 "$B" "${RUN[@]}" "${ONE[@]}" --format json >"$tmp/out" 2>"$tmp/err"
rc=$?
check "json: this host's figures are numbers in range" eval \
	'[ $rc -eq 0 ] && python3 - "$tmp/out" <<'"'PY'"'
import json, sys
h = json.loads(open(sys.argv[1]).readline())["host"]
assert h["load1_start"] >= 0 and h["load1_end"] >= 0 and h["seconds"] > 0, h
for k in ("steal", "iowait", "others"):
    assert h[k] is None or 0 <= h[k] <= 1, (k, h)
PY'

export CTRBENCH_NOISY_CV=lots
BADVAL="'lots'" bad "${RUN[@]}" "${ONE[@]}" --format json
