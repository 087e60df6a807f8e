#!/usr/bin/env bash
# cli_scenario_caps.sh - a scenario chooses its columns by what an algorithm can do, never by its
# name (issue 26, points 1 and 2): stat-read-storm runs every algorithm that takes read= under each
# strategy and says in one line, before measuring, which ones do not; rstat_llist (no read=) named
# in --algo measures all its rows (it was "not run" when rstat_* got read= by name); and a test
# algorithm with a new name and the capability (counters/capread.h, in the test build
# build/testalgo/ctrbench only: -DCTR_TEST_ALGOS) runs the strategy rows with no edit outside
# counters/.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_scenario_caps.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
T=$(dirname "$B")/testalgo/ctrbench	# the test build beside it (make tests builds it)
. tests/tap.sh

S=(scenario stat-read-storm --quick --reps 1 --duration-ms 50 --warmup-ms 5)

# --- the defect: rstat_llist named, no read= -------------------------------------------------
"$B" "${S[@]}" --algo rstat_llist,rstat_force --out "$tmp/d.jsonl" >"$tmp/d.out" 2>"$tmp/d.err"
rc=$?
check "rstat_llist,rstat_force: exit 0, no row \"not run\"" eval '[ $rc -eq 0 ] && ! grep -q "not run" "$tmp/d.out"'
check "rstat_llist: one line before measuring names it and read=" eval \
	'[ "$(grep -c "rstat_llist does not take read=" "$tmp/d.err")" -eq 1 ] && ! grep -q "cannot run" "$tmp/d.err"'
check "rstat_llist: a row in each of tests 0-2, none in tests 3-5; rstat_force: 4 strategies in test 1" eval \
	'[ "$(grep -c "^rstat_llist  " "$tmp/d.out")" -ge 3 ] && ! grep -q "^rstat_llist .*(1)" "$tmp/d.out" &&
	 [ "$(grep -cE "^rstat_force (spin|mutex|sem|batch) " "$tmp/d.out")" -ge 8 ]'
check "every configuration of the run has its result line" eval \
	'[ "$(grep -vc "\"kind\":\"rep\"" "$tmp/d.jsonl")" -eq 15 ]'

# --- --algo all: the algorithms that take read=, the others left out in one line each ----------
"$B" "${S[@]}" --algo all --format json >"$tmp/a.json" 2>"$tmp/a.err"
rc=$?
check "--algo all: exit 0" eval '[ $rc -eq 0 ]'
python3 - "$tmp/a.json" "$tmp/a.err" "$B" >"$tmp/a.why" 2>&1 <<'PY'
import json, subprocess, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
err = open(sys.argv[2]).read().splitlines()
names = [l.split()[0] for l in subprocess.run([sys.argv[3], "list"], capture_output=True, text=True).stdout.splitlines() if l.strip()]
ran = {l["algo"] for l in lines}
left = {e.split(": ")[1].split()[0] for e in err if "does not take read=" in e and e.endswith("left out")}
assert ran and not (ran & left), (ran, left)
assert ran | left == set(names), (sorted(names), sorted(ran), sorted(left))
# each that ran took every strategy: a line with each read= option
for a in ran:
    opts = {l.get("options", "") for l in lines if l["algo"] == a}
    for s in ("spin", "mutex", "sem", "batch"):
        assert any("read=" + s in o for o in opts), (a, s, opts)
assert len(left) == len([e for e in err if "left out" in e]), err
PY
check "--algo all: each algorithm runs every strategy or is left out in one line naming read=" eval \
	'[ $? -eq 0 ] || { cat "$tmp/a.why" >&2; false; }'

# --- the test build: a new name with the capability runs, with no edit outside counters/ ------
if [ -x "$T" ]; then
	check "the test build lists capread; the normal build does not" eval \
		'"$T" list | grep -q "^capread " && ! "$B" list | grep -q "^capread "'
	"$T" "${S[@]}" --algo capread,atomic_tree >"$tmp/t.out" 2>"$tmp/t.err"
	rc=$?
	check "test build: capread runs stat-read-storm (exit 0, nothing \"not run\")" eval \
		'[ $rc -eq 0 ] && ! grep -q "not run" "$tmp/t.out" && ! grep -q capread "$tmp/t.err"'
	check "capread: every strategy in tests 1 and 2, a subtree row in tests 3-5" eval \
		'[ "$(grep -cE "^capread (spin|mutex|sem|batch) " "$tmp/t.out")" -ge 8 ] &&
		 grep -q "^capread spin root (301 nodes)" "$tmp/t.out"'
	check "atomic_tree beside it: one line, then its rows without a strategy" eval \
		'grep -q "atomic_tree does not take read=" "$tmp/t.err" && grep -qE "^atomic_tree +[0-9]" "$tmp/t.out"'
else
	nok "the test build $T is missing (make tests builds it)"
fi
