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

# run ARGS...: compare into $tmp/out and $tmp/err, exit status in $rc.  --wide: the checks read
# the full table, its CI, p and why (cli_verdict.sh checks the default one).
run() {
	"$B" compare --wide "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# row ALGO WORKLOAD: the table row of that configuration.
row() { awk -v a="$1" -v w="$2" '$1 == a && $2 == w' "$tmp/out"; }
clean() { [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; }

# Same numbers (reordered reps, reordered lines, a blank line): no change anywhere, p = 1.
run $D/compare_a.jsonl $D/compare_same.jsonl
check "same numbers: 4 configurations, all no change at p = 1" eval \
	'clean && [ "$(grep -c "1\.000x .*  1  no change" "$tmp/out")" -eq 4 ] &&
	 [ "$(grep -vc "^#" "$tmp/out")" -eq 5 ]'
# the why names what decided: here the test (issue 31: it said "threshold 1.020x" for rows p had
# left unchanged)
check "no change at p = 1: its why names the test, not the threshold" eval \
	'[ "$(grep -c "1\.000x .*  1  no change  *test: p 1 >= alpha 0\.05$" "$tmp/out")" -eq 4 ] &&
	 ! grep "no change" "$tmp/out" | grep -q threshold'
"$B" compare --format json $D/compare_a.jsonl $D/compare_same.jsonl >"$tmp/j" 2>/dev/null
check "... and the JSON's why says so too" eval \
	'[ "$(grep -c "\"why\": *\"test: p 1 >= alpha 0.05\"" "$tmp/j")" -eq 4 ]'
check "the header says the test, its level, the noise threshold and the bootstrap" eval \
	'grep -q "^# changed (faster/slower) when both: Mann-Whitney U two-sided p < 0.05" "$tmp/out" &&
	 grep -q "noise-threshold 1.02x" "$tmp/out" && grep -q "percentile bootstrap of the medians, 2000 resamples" "$tmp/out"'

# percpu_hier twice as fast in B.
run $D/compare_a.jsonl $D/compare_b.jsonl
check "2x ops/s: percpu_hier faster, 2.000x, p 0.00794" eval \
	'clean && row percpu_hier update | grep -q "2\.000x .* 0\.00794  faster"'
check "unchanged atomic_tree: no change (update and readers)" eval \
	'row atomic_tree update | grep -q "1\.000x.*no change" && row atomic_tree readers | grep -q "no change"'
check "the change interval holds 2x" eval \
	'row percpu_hier update | awk "{ for (i = 1; i <= NF; i++) if (\$i ~ /^\[/) { lo = \$i; hi = \$(i + 1) } }
		END { gsub(/[^0-9.]/, \"\", lo); gsub(/[^0-9.]/, \"\", hi); exit !(lo + 0 <= 2 && hi + 0 >= 2) }"'
check "configurations in one file only are listed as such, with the field that differs" eval \
	'row locked_tree update | grep -q "only in A .*algo differs: \"locked_tree\" here, \"striped\" in B" &&
	 row striped update | grep -q "only in B .*algo differs"'
# One field apart: the why gives the flag that pairs them (issue 31: --work-ns on one side)
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l) if l.strip() else None
    if o is not None:
        o["work_ns"] = 35000
        print(json.dumps(o))' $D/compare_a.jsonl >"$tmp/work.jsonl"
run $D/compare_a.jsonl "$tmp/work.jsonl"
check "a side with --work-ns: each unmatched line names work_ns and suggests --ignore work_ns" eval \
	'clean && [ "$(grep -c "only in A .*work_ns differs: 0 here, 35000 in B; --ignore work_ns$" "$tmp/out")" -eq 4 ]'
run --ignore work_ns $D/compare_a.jsonl "$tmp/work.jsonl"
check "... and with it they pair" eval 'clean && ! grep -q "only in" "$tmp/out" && grep -q "no change" "$tmp/out"'
run $D/compare_b.jsonl $D/compare_a.jsonl
check "the other way round: slower, 0.500x" eval \
	'clean && row percpu_hier update | grep -q -- "0\.500x.*slower"'
run --metric update_ns.p50 $D/compare_a.jsonl $D/compare_b.jsonl
check "--metric update_ns.p50: half the latency is faster, 0.500x" eval \
	'clean && row percpu_hier update | grep -q -- "0\.500x.*faster" && grep -q "metric update_ns.p50 (lower is faster)" "$tmp/out"'
run $D/compare_a.jsonl --metric update_ns.p99 $D/compare_b.jsonl
check "--metric update_ns.p99 after the first file" eval \
	'clean && row percpu_hier update | grep -q -- "0\.500x.*faster"'

# --fail-on: exit 1 for CI where a configuration is slower (or changed at all); 0 by default.
run --fail-on slower $D/compare_b.jsonl $D/compare_a.jsonl
rc1=$rc
run --fail-on slower $D/compare_a.jsonl $D/compare_b.jsonl
rc2=$rc
run --fail-on changed $D/compare_a.jsonl $D/compare_b.jsonl
rc3=$rc
run --fail-on changed $D/compare_a.jsonl $D/compare_same.jsonl
check "--fail-on slower: 1 when slower, 0 when only faster; --fail-on changed: 1 when faster, 0 when same" \
	eval '[ $rc1 -eq 1 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 1 ] && [ $rc -eq 0 ]'

# The noise threshold: a 1.5% change that the test finds (p 0.008) is within the default 2%.
python3 -c '
import json, sys
for name, f in (("a", 1.0), ("b", 1.015)):
    with open(sys.argv[1] + "/t" + name + ".jsonl", "w") as out:
        for l in open(sys.argv[2]):
            d = json.loads(l)
            for i, r in enumerate(d["reps"]):
                r["ops_per_sec"] = 1e8 * f * (1 + i * 1e-3)
            out.write(json.dumps(d) + "\n")' "$tmp" $D/compare_a.jsonl
run "$tmp/ta.jsonl" "$tmp/tb.jsonl"
check "a significant 1.5% change is within noise at the default 2% threshold" eval \
	'clean && row percpu_hier update | grep -q "1\.015x .* 0\.00794  within noise  *threshold 1\.020x"'
run --noise-threshold 1 "$tmp/ta.jsonl" "$tmp/tb.jsonl"
check "... and faster with --noise-threshold 1" eval \
	'clean && row percpu_hier update | grep -q "1\.015x .*faster  *threshold 1\.010x"'
run --significance-level 0.001 $D/compare_a.jsonl $D/compare_b.jsonl
check "--significance-level 0.001: 5 reps a side cannot reach it (inconclusive)" eval \
	'clean && row percpu_hier update | grep -q "inconclusive  *too few samples for p < alpha (min p 0.00794)"'

# --calibrate: an A/A pair's noise written; --noise: a later compare honours it.
python3 -c '
import json, sys
f = {"atomic_tree": 1.10, "percpu_hier": 0.95, "locked_tree": 1.0}
for l in open(sys.argv[1]):
    d = json.loads(l)
    for r in d["reps"]:
        r["ops_per_sec"] *= f[d["algo"]]
    print(json.dumps(d))' $D/compare_a.jsonl >"$tmp/aa.jsonl"
run --calibrate "$tmp/noise.json" $D/compare_a.jsonl "$tmp/aa.jsonl"
check "--calibrate: the A/A noise (95th percentile of |log B/A|) is written and said" eval \
	'[ $rc -eq 0 ] && grep -q "A/A noise of 4 configurations" "$tmp/err" &&
	 python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 1.09 < d[\"q95_ratio\"] < 1.1001, d" "$tmp/noise.json"'
run --noise "$tmp/noise.json" --noise-threshold 1 "$tmp/ta.jsonl" "$tmp/tb.jsonl"
check "--noise: a significant 1.5% change is within the calibrated noise (1.100x)" eval \
	'clean && row percpu_hier update | grep -q "within noise  *threshold 1\.100x" && grep -q "(calibration: 1.100x)" "$tmp/out"'
run --noise "$tmp/noise.json" $D/compare_a.jsonl $D/compare_b.jsonl
check "--noise: 2x is still faster" eval 'clean && row percpu_hier update | grep -q "faster"'

# --calibrate writes a new file or over a calibration, nothing else (issue 25: it replaced any
# file, input A included); checked before anything is compared, the file left byte for byte.
# unchanged NAME FILE: FILE is what its copy FILE.keep holds.
unchanged() { cmp -s "$1" "$1.keep"; }
keep() { for f; do cp "$f" "$f.keep"; done; }
cp $D/compare_a.jsonl "$tmp/ca.jsonl"
echo precious >"$tmp/notes.txt"
printf '{"kind": "c2c-calibration", "schema": 1}\n' >"$tmp/c2c.json"
ln -s ca.jsonl "$tmp/link-a.jsonl"
ln -s nowhere "$tmp/dangling.json"
mkdir "$tmp/folder"
keep "$tmp/notes.txt" "$tmp/ca.jsonl" "$tmp/aa.jsonl" "$tmp/c2c.json" "$tmp/noise.json"
BADVAL="'$tmp/notes.txt' for --calibrate (it exists and is not a calibration" \
	bad "$tmp/ca.jsonl" "$tmp/aa.jsonl" --calibrate "$tmp/notes.txt"
BADVAL="'$tmp/ca.jsonl' for --calibrate (it is input A" bad "$tmp/ca.jsonl" "$tmp/aa.jsonl" --calibrate "$tmp/ca.jsonl"
BADVAL="'$tmp/aa.jsonl' for --calibrate (it is input B" bad "$tmp/ca.jsonl" "$tmp/aa.jsonl" --calibrate "$tmp/aa.jsonl"
BADVAL="'$tmp/link-a.jsonl' for --calibrate (it is input A" \
	bad "$tmp/ca.jsonl" "$tmp/aa.jsonl" --calibrate "$tmp/link-a.jsonl"
# even a calibration given as an input (refused before it is read as results)
BADVAL="'$tmp/noise.json' for --calibrate (it is input B" \
	bad "$tmp/ca.jsonl" "$tmp/noise.json" --calibrate "$tmp/noise.json"
BADVAL="'$tmp/c2c.json' for --calibrate (it exists and is not a calibration" \
	bad "$tmp/ca.jsonl" "$tmp/aa.jsonl" --calibrate "$tmp/c2c.json"
BADVAL="'/dev/full' for --calibrate (not a regular file" bad "$tmp/ca.jsonl" "$tmp/aa.jsonl" --calibrate /dev/full
BADVAL="'$tmp/folder' for --calibrate (not a regular file" bad "$tmp/ca.jsonl" "$tmp/aa.jsonl" --calibrate "$tmp/folder"
BADVAL="'$tmp/dangling.json' for --calibrate (a symbolic link to nothing" \
	bad "$tmp/ca.jsonl" "$tmp/aa.jsonl" --calibrate "$tmp/dangling.json"
check "--calibrate refused: notes, inputs A and B, the c2c file and the calibration as input left as they were" \
	eval 'unchanged "$tmp/notes.txt" && unchanged "$tmp/ca.jsonl" && unchanged "$tmp/aa.jsonl" &&
	      unchanged "$tmp/c2c.json" && unchanged "$tmp/noise.json" && [ ! -e "$tmp/nowhere" ] &&
	      [ -z "$(ls -A "$tmp/folder")" ]'

# What may be replaced: a calibration (its kind), one written before the kind was (its members),
# an empty file (mktemp's), through a symbolic link that stays one.
run --calibrate "$tmp/noise.json" $D/compare_a.jsonl "$tmp/aa.jsonl"
check "--calibrate over a calibration compare wrote: replaced, kind compare-calibration" eval \
	'[ $rc -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"kind\"] == \"compare-calibration\", d" "$tmp/noise.json"'
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["kind"]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/noise.json" "$tmp/old-noise.json"
run --calibrate "$tmp/old-noise.json" $D/compare_a.jsonl "$tmp/aa.jsonl"
rc1=$rc
: >"$tmp/empty.json"
run --calibrate "$tmp/empty.json" $D/compare_a.jsonl "$tmp/aa.jsonl"
rc2=$rc
ln -s noise.json "$tmp/link-noise.json"
run --calibrate "$tmp/link-noise.json" $D/compare_b.jsonl $D/compare_a.jsonl
check "--calibrate over an older calibration (no kind), an empty file, a link to a calibration (kept a link)" \
	eval '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc -eq 0 ] && [ -L "$tmp/link-noise.json" ] &&
	      grep -q "compare_b.jsonl" "$tmp/noise.json" && grep -q compare-calibration "$tmp/empty.json" &&
	      grep -q compare-calibration "$tmp/old-noise.json"'

# A write that fails (a file size limit here, a full disk elsewhere): one line, exit 2, the old
# calibration whole and no new or temporary file left; under ASan nothing leaked on that exit.
keep "$tmp/noise.json"
mkdir "$tmp/w"
say=$(ulimit -f 0; trap '' XFSZ; "$B" compare $D/compare_a.jsonl "$tmp/aa.jsonl" --calibrate "$tmp/w/new.json" \
	2>&1 >/dev/null; echo "rc=$?")
say2=$(ulimit -f 0; trap '' XFSZ; "$B" compare $D/compare_a.jsonl "$tmp/aa.jsonl" --calibrate "$tmp/noise.json" \
	2>&1 >/dev/null; echo "rc=$?")
check "--calibrate that cannot be written: one line, exit 2, no file left, the old calibration whole" \
	eval '[ "$(printf "%s\n" "$say" | wc -l)" -eq 2 ] && printf "%s\n" "$say" | grep -q "^ctrbench: cannot write --calibrate .*new.json" &&
	      printf "%s\n" "$say" | grep -qx "rc=2" && [ -z "$(ls -A "$tmp/w")" ] &&
	      [ "$(printf "%s\n" "$say2" | wc -l)" -eq 2 ] && printf "%s\n" "$say2" | grep -qx "rc=2" &&
	      unchanged "$tmp/noise.json" && [ -z "$(ls -A "$tmp" | grep ctrbench-calibration)" ]'

# Several lines (processes) of a configuration on both sides: the process is the sample.  The
# second process's lines are the first's with a note: a line repeated as it is is refused (one
# measurement twice, tests/cli_scenario_out.sh).
{ cat $D/compare_a.jsonl; sed 's/^{/{"note": "second process", /' $D/compare_a.jsonl; } >"$tmp/a2.jsonl"
{ cat $D/compare_b.jsonl; sed 's/^{/{"note": "second process", /' $D/compare_b.jsonl; } >"$tmp/b2.jsonl"
run "$tmp/a2.jsonl" "$tmp/b2.jsonl"
check "two lines a side: processes are the samples (2p), too few for p < 0.05" eval \
	'clean && row percpu_hier update | grep -q "(2p).*(2p).*inconclusive"'

# JSON: one object per configuration.
run --format json $D/compare_a.jsonl $D/compare_b.jsonl
check "--format json: 5 lines, config, ratio, p-value, verdict" eval \
	'clean && [ "$(wc -l <"$tmp/out")" -eq 5 ] &&
	 grep -q "\"algo\":\"percpu_hier\".*\"ratio\":2.0.*\"p_value\":0.0079.*\"verdict\":\"faster\"" "$tmp/out" &&
	 grep -q "\"algo\":\"locked_tree\".*\"b\":null.*\"verdict\":\"only in A\",\"unmatched\":\"algo differs" "$tmp/out" &&
	 grep -q "\"readers\":1" "$tmp/out"'
if command -v python3 >/dev/null; then
	check "--format json parses" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert {r["verdict"] for r in rows} == {"no change", "faster", "only in A", "only in B"}, rows
' "$tmp/out"
fi

# Lines without reps: one sample each, pooled per configuration.
run $D/compare_noreps.jsonl $D/compare_a.jsonl
check "no reps: 3 pooled lines against 5 reps are tested; 1 sample is inconclusive" eval \
	'clean && row atomic_tree update | grep -q "(3).*(5).*  1  no change" &&
	 row percpu_hier update | grep -q "(1).*(5).*inconclusive  *too few samples"'

# Identity: lines that differ in any key or knob of the field table are never pooled or paired
# (the issue's case: rstat_force with read=spin and read=mutex in A; --work-ns and --charge-burst
# in B), and each unmatched line names the field that differs.
Q=(run --algo rstat_force --shape chain:2 --threads 1 --duration-ms 20 --warmup-ms 0 --reps 5 --format json)
{ "$B" "${Q[@]}" --options read=spin && "$B" "${Q[@]}" --options read=mutex &&
  "$B" "${Q[@]}" --workload charge --options read=spin; } >"$tmp/ida.jsonl"
{ "$B" "${Q[@]}" --work-ns 2000 && "$B" "${Q[@]}" &&
  "$B" "${Q[@]}" --workload charge --charge-burst 8 --options read=spin; } >"$tmp/idb.jsonl"
run --format json "$tmp/ida.jsonl" "$tmp/idb.jsonl"
check "identity: 6 configurations, none paired; each names options, work_ns or charge_burst" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 6, rows
assert all(r["verdict"] in ("only in A", "only in B") for r in rows), [r["verdict"] for r in rows]
why = sorted(r["unmatched"].split(" ")[0] for r in rows)
assert set(why) <= {"options", "work_ns", "charge_burst"} and "charge_burst" in why, why
assert all(r["a" if r["verdict"] == "only in A" else "b"]["n"] == 5 for r in rows), rows
' "$tmp/out"
run --format json --ignore work_ns,options "$tmp/ida.jsonl" "$tmp/idb.jsonl"
check "--ignore work_ns,options pairs the update lines (one config, 2 processes a side), not the burst" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pair = [r for r in rows if r["a"] and r["b"]]
assert len(pair) == 1 and pair[0]["a"]["lines"] == 2 and pair[0]["b"]["lines"] == 2, rows
assert pair[0]["unit"] == "process" and "work_ns" not in pair[0]["config"], pair
' "$tmp/out"

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
BADVAL="noalgo.jsonl:1: field 'algo' is missing" bad "$tmp/noalgo.jsonl" $A
BADVAL="$tmp/schema99.jsonl:2: result schema 99, this ctrbench reads schema 1" bad "$tmp/schema99.jsonl" $A
BADVAL="$tmp/noschema.jsonl:1: result schema missing" bad "$tmp/noschema.jsonl" $A
BADVAL="threads.jsonl:1: field 'threads' is \"2\", want an integer in [1, 4096]" bad "$tmp/threads.jsonl" $A
BADVAL="$tmp/metric.jsonl:1: field 'ops_per_sec' is \"fast\", want a number >= 0" bad "$tmp/metric.jsonl" $A
BADVAL="reps.jsonl:1: field 'reps' is {\"ops_per_sec\":1}, want an array" bad "$tmp/reps.jsonl" $A
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
BADVAL="'faster'" bad --fail-on faster $A $A
BADVAL="'0'" bad --significance-level 0 $A $A
BADVAL="'x'" bad --noise-threshold x $A $A
BADVAL="'ops_per_sec'" bad --ignore ops_per_sec $A $A
BADVAL="$tmp/nonoise.json" bad --noise "$tmp/nonoise.json" $A $A

# Real runs of this build, --ignore-algo: one algorithm swapped for another in the same
# configuration is a change (80x here).  "No change" between two real runs is a 5% false-positive
# test by design, so it is checked on the fixed files above, not here.
R=(run --workload update --shape chain:4 --threads 2 --duration-ms 60 --warmup-ms 10 --reps 5 --format json)
"$B" "${R[@]}" --algo atomic_tree >"$tmp/a1.jsonl" && "$B" "${R[@]}" --algo percpu_hier >"$tmp/p.jsonl"
run --ignore-algo "$tmp/a1.jsonl" "$tmp/p.jsonl"
check "atomic_tree swapped for percpu_hier (--ignore-algo): a change" eval \
	'clean && grep -Eq "^\(either\) +update .*(faster|slower)" "$tmp/out"'

# scripts/aa-check writes fixed names into --out DIR and reads its work.txt back: a folder holding
# files it did not make is refused before anything runs, and is left as it was (issue 25, 2).
mkdir "$tmp/aa-notes" && echo "precious" >"$tmp/aa-notes/work.txt"
bash "$(dirname "$0")/../scripts/aa-check" --binary "$B" --out "$tmp/aa-notes" >"$tmp/out" 2>"$tmp/err"
aa_rc=$?
check "aa-check --out refuses a folder of files it did not make (exit 2, one line, untouched)" eval \
	'[ $aa_rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "bad value .*aa-notes.* for --out" "$tmp/err" &&
	 [ "$(ls -A "$tmp/aa-notes")" = work.txt ] && [ "$(cat "$tmp/aa-notes/work.txt")" = precious ]'

# --by machine (issue 30): the sides are the machines the lines were measured on.  One real run,
# and copies of it whose env says another machine (the host fields rewritten, as a cluster's
# other node would write them); a machine's lines from two files (two shards) pool into one side.
"$B" run --algo empty,shared_atomic --threads 1 --duration-ms 30 --reps 2 --format json \
	>"$tmp/m1.jsonl" 2>/dev/null
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
lines = [json.loads(l) for l in open(t + "/m1.jsonl") if l.strip()]
def write(name, lines, machine, host):
    with open(t + "/" + name, "w") as f:
        for o in lines:
            o = json.loads(json.dumps(o))
            if machine is not None:
                o["env"]["machine"] = machine
                o["env"]["hostname"] = host
            f.write(json.dumps(o) + "\n")
genoa = "AMD EPYC 9654 96-Core Processor; 2 packages, 192 cores, 24 L3, 2 nodes; topology 0123456789ab"
write("m2.jsonl", lines, genoa, "genoa01")
write("m2s0.jsonl", lines[:1], genoa, "genoa02")
write("m2s1.jsonl", lines[1:], genoa, "genoa03")
write("m3.jsonl", lines, "Another CPU; 1 packages, 8 cores, 1 L3, 1 nodes; topology ba9876543210", "x")
PY
here=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["env"]["machine"])' "$tmp/m1.jsonl")
run --by machine "$tmp/m1.jsonl" "$tmp/m2.jsonl"
check "--by machine: A is this machine, B the other, both named in the header; every configuration on both" eval \
	'clean && grep -qF "A = $here" "$tmp/out" && grep -qF "B = AMD EPYC 9654" "$tmp/out" &&
	 [ "$(grep -c "^empty \|^shared_atomic " "$tmp/out")" -eq 2 ] && ! grep -q "only in" "$tmp/out"'
"$B" compare --by machine --format json "$tmp/m1.jsonl" "$tmp/m2s0.jsonl" "$tmp/m2s1.jsonl" >"$tmp/j" 2>"$tmp/err"
check "--by machine over shards: genoa's lines from two files (two hosts) are one side; JSON names the machines" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2, rows
for r in rows:
    assert r["a"]["machine"] == sys.argv[2], r["a"]
    assert r["b"]["machine"].startswith("AMD EPYC 9654"), r["b"]
    assert r["a"]["lines"] == 1 and r["b"]["lines"] == 1, r
' "$tmp/j" "$here"
BADVAL="a third machine 'Another CPU"
bad --by machine "$tmp/m1.jsonl" "$tmp/m2.jsonl" "$tmp/m3.jsonl"
BADVAL="every line is of one machine"
bad --by machine "$tmp/m1.jsonl" "$tmp/m1.jsonl"
BADVAL="'cluster' for --by"
bad --by cluster "$tmp/m1.jsonl" "$tmp/m2.jsonl"
BADVAL="not --by machine"
bad --by machine --calibrate "$tmp/cal.json" "$tmp/m1.jsonl" "$tmp/m2.jsonl"
