#!/usr/bin/env bash
# cli_project_calib.sh - issue 27 (points 2 and 5): the projection's contention calibration.
# Every projection's header names the contention figures (burst, wake-up, pause, mlp, mutex spin),
# each with its source, with the default calibration and with a c2c file's (which has none of them,
# so keeps the defaults).  `project --validate` measures burst, wake-up and pause here
# (bench/calprobe.c) and uses them; its transfer probe is timed over its hops alone and agrees with
# `ctrbench c2c --op load-store` on the same pair (at bfd4747/5b54eab it divided 8,000 hops by
# 16,000 and timed thread creation with them: 135.8 ns for a 249.6 ns hop).
# Prints "ok - ..." / "not ok - ...".  Usage: cli_project_calib.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

# One figure and its source, in parentheses, non-empty.
fig='[0-9]+(\.[0-9]+)? (RMWs|ns)? ?\([^()]+\)'
contention="^#   contention: burst $fig, wake-up $fig, pause $fig, mlp [0-9]+ \([^()]+\), mutex spin $fig\$"
P=(project --algo atomic_tree --shape chain:1 --threads 2 --topology "pack:1 l3:1 core:2 pu:1" --ops 200)

timeout 120 "$B" "${P[@]}" >"$tmp/out" 2>"$tmp/err"
check "header: one contention line with each figure and its source" eval \
	'[ "$(grep -cE "$contention" "$tmp/out")" -eq 1 ]'
check "header: the default contention figures are sourced assumptions" eval \
	'grep -E "$contention" "$tmp/out" | grep -q "burst 16.0 RMWs (assumption: " &&
	 grep -E "$contention" "$tmp/out" | grep -q "mlp 16 (assumption: "'
check "header: the contention line is with the calibration's, before the table" eval \
	'sed -n 4p "$tmp/out" | grep -qE "$contention"'

# A c2c calibration file gives one-way figures only: the contention figures stay the defaults.
timeout 120 "$B" "${P[@]}" --calibration tests/data/c2c.json >"$tmp/out" 2>"$tmp/err"
check "--calibration c2c file: the header keeps the default contention figures" eval \
	'grep -q "^# calibration: tests/data/c2c.json" "$tmp/out" &&
	 grep -E "$contention" "$tmp/out" | grep -q "burst 16.0 RMWs (assumption: .*wake-up 5000 ns (assumption: "'

# c2c's own figure for a pair: the median sample of its load/store ping-pong (one-way ns).
c2c_one_way() {
	timeout 60 "$B" c2c --op load-store --cpus "$1,$2" --reps 1 --samples 30 --events none --format json \
		2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["pairs"][0]["sample_p50_ns"])'
}

if [ "$(nproc)" -lt 2 ]; then
	ok "# SKIP --validate's probes need 2 CPUs (this machine has $(nproc))"
	exit 0
fi
# c2c right before and right after: a guest's vCPUs can move between host cores (this project's
# moved between ~55 and ~250 ns a hop within minutes), so the probe is held to the nearer of the two.
# Before, c2c measures CPUs 0 and 1 (validate's compact pair on a machine of one PU per core); after,
# the pair validate named.
before=$(c2c_one_way 0 1)
timeout 120 "$B" project --validate >"$tmp/out" 2>"$tmp/err"
rc=$?
pair=$(sed -nE 's/^# calibration: this machine: .*ping-pong PU ([0-9]+) <-> PU ([0-9]+) .*/\1 \2/p' "$tmp/out")
[ "$pair" = "0 1" ] || before=
after=$(c2c_one_way ${pair:-0 1})
check "validate: exits 0, known answers exact" eval '[ $rc -eq 0 ] && [ "$(grep -c " ok$" "$tmp/out")" -eq 7 ]'
check "validate: each probe prints its figure" eval \
	'grep -qE "^# probe transfer: PU [0-9]+ <-> PU [0-9]+ \(class [a-z]+\): [0-9.]+ ns one way" "$tmp/out" &&
	 grep -qE "^# probe burst: .*: [0-9.]+ handovers per add \(median of [0-9]+ runs, [0-9.]+-[0-9.]+\), a burst of [0-9.]+ adds per handover, [0-9.]+ ns per add \(SCHED_(FIFO|OTHER)" "$tmp/out" &&
	 grep -qE "^# probe wake-up: .*: ([0-9]+ ns from post to the woken waiter running, the median of [1-9][0-9]* wake-ups|not measured, no post found its waiter asleep .*; wake-up keeps [0-9]+ ns)" "$tmp/out" &&
	 grep -qE "^# probe pause: [0-9.]+ ns per PAUSE" "$tmp/out"'
# Each measured row is projected under the speed figures measured right before and right after its
# run, printed beside it, its band spanning both projections: hits in every row, the hop and the
# burst too in the 2-thread rows.
check "validate: every row prints the hit costs before/after its run, 2-thread rows the hop and burst" python3 - "$tmp/out" <<'PY'
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if re.match(r"(atomic_tree|percpu_hier|striped) +chain:", l)]
assert len(rows) == 7, rows
for r in rows:
    lo, hi = map(float, r[5].split(".."))
    assert 0 < lo <= hi, r
    line = " ".join(r)
    assert re.search(r" hit [0-9.]+/[0-9.]+", line), r
    assert (int(r[2]) > 1) == bool(re.search(r" hop [0-9]+/[0-9]+ burst [0-9.]+/[0-9.]+", line)), r
PY
# (a wake-up the probe could not measure, every post seen before its waiter slept, keeps its default)
check "validate: the calibration uses the probes' figures, sourced to this machine" eval \
	'grep -E "$contention" "$tmp/out" | grep -qE "burst [0-9.]* RMWs \(this machine: handover probe, SCHED_.*wake-up [0-9]* ns \((this machine: futex wake-up probe, |assumption).*pause [0-9.]* ns \(this machine: PAUSE probe, "'
# The figures are what the probes printed, and plausible: a handover on at most every add, a
# burst its inverse, a wake-up slower than a hop and faster than a time slice.
check "validate: the probes' figures are plausible and the calibration's" python3 - "$tmp/out" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
hand, burst = map(float, re.search(r"probe burst: .*?: ([0-9.]+) handovers per add .*? a burst of ([0-9.]+) adds", t).groups())
hop = float(re.search(r"probe transfer: .*?: ([0-9.]+) ns one way", t).group(1))
w = re.search(r"probe wake-up: .*?: ([0-9]+) ns from post", t)
kept = re.search(r"probe wake-up: .*not measured.*; wake-up keeps ([0-9]+) ns", t)
assert bool(w) != bool(kept), "the wake-up probe's line says neither a figure nor why not"
wake = float((w or kept).group(1))
pause = float(re.search(r"probe pause: ([0-9.]+) ns per PAUSE", t).group(1))
cal = re.search(r"contention: burst ([0-9.]+) RMWs .*wake-up ([0-9]+) ns .*pause ([0-9.]+) ns", t)
# the burst is printed to 0.1 and the handovers to 0.001: their product is 1 within both roundings
# (0.018 handovers and a burst of 54.2 on a loaded host: 0.976, the handovers' rounding alone)
assert 0 < hand <= 1 and abs(burst * hand - 1) <= 0.05 * hand + 0.0005 * burst + 0.01, (hand, burst)
assert hop < wake < 3e6, (hop, wake)
assert 0 < pause < 1000, pause
assert abs(float(cal.group(1)) - max(burst, 1)) < 0.05 and float(cal.group(2)) == wake and abs(float(cal.group(3)) - pause) < 0.05, cal.groups()
PY
# The transfer the calibration uses (validation 2's calibration line, in the old code's words too)
# against c2c's: 0.67-1.5x.  The old probe's figure was about half c2c's, every time.  Both are
# measurements on a shared host: one comparison in four fell to 0.51-0.64 on this 2-vCPU Intel
# guest (a probe of 37-40 ns against c2c's 58-74), so up to three tries, each its own probe and
# c2c pair; the old probe's halving fails all three.
cat >"$tmp/ratio.py" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"^# calibration: this machine: .*ping-pong PU (\d+) <-> PU (\d+) \(class \w+\) ([0-9.]+) ns one way", t, re.M)
assert m, "no transfer in validation 2's calibration"
ow = float(m.group(3))
ratios = [ow / float(c) for c in sys.argv[2:4] if c]
print("# probe %.1f ns, c2c before %s, after %s: ratios %s" % (ow, sys.argv[2], sys.argv[3], ratios), file=sys.stderr)
assert any(0.67 <= r <= 1.5 for r in ratios), ratios
PY
transfer_ok() {
	python3 "$tmp/ratio.py" "$tmp/out" "$before" "$after" && return 0
	for _ in 1 2; do
		before=$(c2c_one_way ${pair:-0 1})
		timeout 120 "$B" project --validate >"$tmp/again" 2>/dev/null || return 1
		after=$(c2c_one_way ${pair:-0 1})
		python3 "$tmp/ratio.py" "$tmp/again" "$before" "$after" && return 0
	done
	return 1
}
check "validate: the transfer probe's one-way figure within 0.67-1.5x of c2c's for the same pair (3 tries)" transfer_ok
# Without the privilege for SCHED_FIFO (no CAP_SYS_NICE, RLIMIT_RTPRIO 0) each probe runs
# SCHED_OTHER and says so, in its line and in the source of the figure it sets.
drop=()
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && drop=(setpriv --bounding-set -sys_nice --inh-caps -sys_nice)
if [ "$(id -u)" -ne 0 ] || [ ${#drop[@]} -gt 0 ]; then
	(ulimit -r 0 && timeout 120 "${drop[@]}" "$B" project --validate) >"$tmp/out" 2>"$tmp/err"
	check "validate without SCHED_FIFO: every probe ran SCHED_OTHER and says so" eval \
		'[ "$(grep -c "^# probe .*(SCHED_OTHER, SCHED_FIFO refused: " "$tmp/out")" -eq 4 ] &&
		 grep -E "$contention" "$tmp/out" | grep -q "burst [0-9.]* RMWs (this machine: handover probe, SCHED_OTHER, SCHED_FIFO refused: "'
else
	ok "# SKIP SCHED_OTHER fallback: root without setpriv cannot drop CAP_SYS_NICE here"
fi
