#!/usr/bin/env bash
# cli_hitm.sh - run --c2c (bench/hitm.c, docs/events.md "Which line bounced"): where perf c2c cannot
# record, the run says why in one line, measures as without it and exits 0 with its results
# intact; the layout map it writes beside them names every tree's regions; its folder is a new
# one, never overwritten.  This machine has no load-sampling PMU (a KVM guest): with perf hidden
# (PATH without it) the reason is "no perf on PATH"; with a FAKE perf on PATH (a script made
# here, which only notes that it ran) it is found and the PMU check refuses, so it never runs.
# Where a PMU exists the second case only checks what holds anywhere.
# Usage: cli_hitm.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
B=$(cd "$(dirname "$B")" && pwd)/$(basename "$B")

. tests/tap.sh

RUN=(run --algo atomic_tree,percpu_hier,shared_atomic --shape chain:3 --threads 2 --duration-ms 30
	--warmup-ms 0 --reps 1 --format json)
SYSFS=/sys/bus/event_source/devices

mkdir -p "$tmp/nobin" "$tmp/bin"
check "the run without --c2c: three result lines" eval \
	'"$B" "${RUN[@]}" >"$tmp/plain.jsonl" 2>"$tmp/plain.err" && [ "$(wc -l <"$tmp/plain.jsonl")" -eq 3 ]'

# perf hidden: PATH names an empty folder (ctrbench is run by its path)
PATH=$tmp/nobin "$B" "${RUN[@]}" --c2c --c2c-out "$tmp/c2c" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--c2c without perf: exit 0" test $rc -eq 0
check "... the reason in one line: no perf on PATH" eval \
	'[ "$(grep -c "not recorded" "$tmp/err")" -eq 1 ] &&
	 grep -qx "ctrbench: c2c: not recorded: no perf on PATH" "$tmp/err"'
check "... the results intact: three result lines, each verified, as without --c2c" python3 -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert [x["algo"] for x in a] == [x["algo"] for x in b] == ["atomic_tree", "percpu_hier", "shared_atomic"], (a, b)
assert all(x["verify"] == "ok" for x in a), [x["verify"] for x in a]
assert all(x["ops"] > 0 for x in a)
' "$tmp/out" "$tmp/plain.jsonl"
check "... says where the layout map is" grep -qF "layout map of every tree measured: $tmp/c2c/layout.jsonl" "$tmp/err"
check "... the map: every algorithm, every node of atomic_tree's chain at its level, shared_atomic's word" \
	python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert {r["algo"] for r in rows} == {"atomic_tree", "percpu_hier", "shared_atomic"}
for r in rows:
    assert r["kind"] == "layout" and r["len"] >= 1 and r["what"], r
    assert int(r["line"], 16) == int(r["addr"], 16) & ~63, r
    assert r["level"] == -1 if r["node"] < 0 else r["level"] >= 1, r
at = sorted((r["node"], r["level"]) for r in rows if r["algo"] == "atomic_tree" and r["what"] == "the shared atomic")
assert at == [(0, 1), (1, 2), (2, 3)], at
ph = {(r["slot"], r["node"]) for r in rows if r["algo"] == "percpu_hier" and r["what"] == "the slot'"'"'s count"}
slots = {s for s, n in ph}
assert {n for s, n in ph} == {0, 1, 2} and 0 in slots and 1 in slots, ph
sa = [r for r in rows if r["algo"] == "shared_atomic" and r["what"] == "the shared atomic"]
assert len(sa) == 1 and sa[0]["node"] == -1 and sa[0]["slot"] == -1, sa
# regions of one tree do not overlap
for algo in ("atomic_tree", "percpu_hier", "shared_atomic"):
    rs = sorted((int(r["addr"], 16), r["len"]) for r in rows if r["algo"] == algo)
    assert all(a + l <= b for (a, l), (b, _) in zip(rs, rs[1:])), algo
' "$tmp/c2c/layout.jsonl"

# a FAKE perf, found on PATH: it only notes that it ran
cat >"$tmp/bin/perf" <<FAKE
#!/bin/sh
# FAKE perf of tests/cli_hitm.sh: not perf; notes that it ran
echo "\$@" >>"$tmp/fake-perf-ran"
exit 1
FAKE
chmod +x "$tmp/bin/perf"
PATH=$tmp/bin:$PATH "$B" "${RUN[@]}" --c2c --c2c-out "$tmp/c2c2" >"$tmp/out2" 2>"$tmp/err2"
rc=$?
check "--c2c with a fake perf on PATH: exit 0, three result lines, one reason, not 'no perf'" eval \
	'[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/out2")" -eq 3 ] && [ "$(grep -c "not recorded" "$tmp/err2")" -eq 1 ] &&
	 ! grep -q "no perf on PATH" "$tmp/err2"'
if [ ! -e "$SYSFS/ibs_op" ] && [ ! -e "$SYSFS/cpu/events/mem-loads" ]; then
	check "... here, no PMU: the reason names what is missing, and perf never ran" eval \
		'grep -qx "ctrbench: c2c: not recorded: no load-sampling PMU (no $SYSFS/ibs_op or cpu/events/mem-loads)" \
			"$tmp/err2" && [ ! -e "$tmp/fake-perf-ran" ]'
fi

# the folder is new, never overwritten; --c2c-out needs --c2c
BADVAL="$tmp/c2c"
bad run --algo atomic_tree --duration-ms 10 --warmup-ms 0 --reps 1 --c2c --c2c-out "$tmp/c2c"
check "... the existing folder's map untouched" eval '[ "$(wc -l <"$tmp/c2c/layout.jsonl")" -gt 3 ]'
BADVAL="--c2c-out needs --c2c"
bad run --algo atomic_tree --c2c-out "$tmp/c2c3"
check "... and made no folder" test ! -e "$tmp/c2c3"
BADVAL="--c2c-out"
bad run --algo atomic_tree --c2c --c2c-out ''
