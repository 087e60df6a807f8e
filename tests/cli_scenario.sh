#!/usr/bin/env bash
# cli_scenario.sh - `ctrbench scenario`: the list names all eight; every
# scenario's --quick form runs, exits 0 and prints the seed's rows and columns
# (the seed's four designs first, then the rest of the suite), and its raw
# results file holds one whole JSON line per algorithm and row, every one
# verified; an interrupted scenario leaves only whole lines; bad input is one
# stderr line naming the bad value, exit 2.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_scenario.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh
BAD_PREFIX=scenario

SEED4="rstat_force rstat_ratelimit percpu_hier atomic_tree"
ALL=$("$B" list | awk '$1 != "empty" && $1 != "shared_atomic" { print $1 }' | tr '\n' ' ')

# scn NAME ARGS...: run a quick scenario into $tmp/NAME.{out,err,jsonl}; status in $rc.
# --wide: the checks below read the full table, the algorithms side by side (cli_verdict.sh the default).
scn() {
	local name=$1
	shift
	"$B" scenario "$name" --quick --wide --out "$tmp/$name.jsonl" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
}

# table_ok NAME CORNER ROWS...: the header row starts with CORNER and names the
# seed's four designs first, then every other algorithm once; each of ROWS
# (a label) is a row with one cell per algorithm.
table_ok() {
	local name=$1 corner=$2
	shift 2
	python3 - "$tmp/$name.out" "$corner" "$SEED4" "$ALL" "$@" <<'PY'
import sys
path, corner, seed4, allalgos = sys.argv[1:5]
rows = sys.argv[5:]
lines = [l.rstrip("\n") for l in open(path) if not l.startswith("#")]
head = [l for l in lines if l.startswith(corner + " ")]
assert len(head) == 1, "header '%s' found %d times" % (corner, len(head))
cols = head[0][len(corner):].split()
want = seed4.split()
assert cols[:4] == want, "first columns %s, want %s" % (cols[:4], want)
assert sorted(cols) == sorted(allalgos.split()), "columns %s" % cols
for r in rows:
    # a label can begin another ("false rejects", "false rejects % of ..."): count the cells too
    hit = [l for l in lines if l.startswith(r + " ") and len(l[len(r):].split()) == len(cols)]
    assert len(hit) == 1, "row '%s' found %d times" % (r, len(hit))
    cells = hit[0][len(r):].split()
    assert len(cells) == len(cols), "row '%s': %d cells for %d columns" % (r, len(cells), len(cols))
    assert "FAIL" not in cells and "not" not in cells, "row '%s': %s" % (r, cells)
PY
}

# raw_ok NAME N: N lines, each one whole JSON object of this scenario, verified.
raw_ok() {
	python3 - "$tmp/$1.jsonl" "$1" "$2" <<'PY'
import json, sys
path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(path).read().split("\n")
assert lines[-1] == "", "the file does not end in a newline"
lines = [json.loads(l) for l in lines[:-1]]
# with --reps above 1 each rep is a line of its own as measured (bench/exec.h), then the summary
objs = [o for o in lines if "kind" not in o]
reps = [o for o in lines if o.get("kind") == "rep"]
assert len(objs) + len(reps) == len(lines), "a line neither a summary nor a rep"
assert len(objs) == n, "%d summary lines, want %d" % (len(objs), n)
want = sum(o["reps_done"] for o in objs if o["reps_done"] > 1)
assert len(reps) == want, "%d rep lines, want %d (the summaries' reps_done)" % (len(reps), want)
for o in objs:
    assert o["note"].startswith("scenario %s: " % name), o["note"]
    assert o["verify"] in ("ok", "n/a"), (o["algo"], o["verify"])
PY
}

check_scn() {
	local name=$1 what=$2
	if [ $rc -eq 0 ] && [ ! -s "$tmp/$name.err" ]; then
		ok "$name --quick runs ($what)"
	else
		nok "$name --quick runs: exit $rc"
		sed 's/^/#   /' "$tmp/$name.err" | head -20
	fi
}

N=$(echo $ALL | wc -w)

"$B" scenario list >"$tmp/list" 2>"$tmp/list.err"; rc=$?
check "scenario list: exit 0, nothing on stderr" eval '[ $rc -eq 0 ] && [ ! -s "$tmp/list.err" ]'
for s in zswap-store-limit zswap-store-nolimit zswap-load-latency worker-scaling shrinker-count \
	 stat-read-storm stat-read-pressure admission-staleness subsys-flush-locks; do
	grep -q "^$s " "$tmp/list" || nok "scenario list names $s"
done
check "scenario list names all nine, under a header, with a footnote" eval \
	'[ "$(grep -Evc "^(scenario |#)" "$tmp/list")" -eq 9 ] && head -n 1 "$tmp/list" | grep -q "^scenario .* time (--quick) " &&
	 tail -n 1 "$tmp/list" | grep -q "^# time: "'
# each a time, the full run's and --quick's, from its planning pass ("own" for one without a plan)
check "scenario list gives each its time and --quick's (issue 31)" eval \
	'[ "$(grep -Ev "^(scenario |#)" "$tmp/list" | cut -c49-62 | sed "s/ *$//" |
	      grep -Ec "^([0-9.]+[smh] \([0-9.]+[smh]\)|own \(own\))$")" -eq 9 ] &&
	 grep -q "^subsys-flush-locks .* own (own) " "$tmp/list" && grep -q "^zswap-store-limit .*[0-9][smh] (" "$tmp/list"'

scn zswap-store-limit
check_scn zswap-store-limit "$(wc -l <"$tmp/zswap-store-limit.jsonl") results"
check "zswap-store-limit: depths 1-32 x algorithms" \
	table_ok zswap-store-limit ns/store "depth 1" "depth 2" "depth 4" "depth 8" "depth 32"
check "zswap-store-limit: one raw line per depth and algorithm" raw_ok zswap-store-limit $((5 * N))
check "zswap-store-limit: store workload, the seed's 80 CPUs as slots, limits not hit (headroom 2)" eval 'grep -q "\"workload\":\"store\"" "$tmp/zswap-store-limit.jsonl" && grep -q "\"slots\":80," "$tmp/zswap-store-limit.jsonl" && grep -q "\"limit_headroom\":2" "$tmp/zswap-store-limit.jsonl"'

scn zswap-store-nolimit
check_scn zswap-store-nolimit "update path"
check "zswap-store-nolimit: depths 1-32 x algorithms" \
	table_ok zswap-store-nolimit ns/store "depth 1" "depth 2" "depth 4" "depth 8" "depth 32"
check "zswap-store-nolimit: update workload, one line per depth and algorithm" raw_ok zswap-store-nolimit $((5 * N))

scn zswap-load-latency
check_scn zswap-load-latency "percentiles"
rows=()
for d in 2 4 8 32; do for p in p50 p90 p95 p99 avg; do rows+=("depth $d $p"); done; done
check "zswap-load-latency: depth x p50/p90/p95/p99/avg rows" table_ok zswap-load-latency ns/load "${rows[@]}"
check "zswap-load-latency: one raw line per depth and algorithm" raw_ok zswap-load-latency $((4 * N))

scn worker-scaling
check_scn worker-scaling "capped"
# Capped rows say what ran; a capped row that repeats the one above is not run again.
P=$(nproc)
labels=()
prev=
for w in 10 20 40 50 80; do
	t=$((w < P ? w : P))
	l=$w
	[ $t -ne $w ] && l="$w (ran $t)"
	[ "$t" = "$prev" ] && l="$l="
	labels+=("$l")
	prev=$t
done
check "worker-scaling: 10/20/40/50/80 rows labelled by what ran" table_ok worker-scaling workers "${labels[@]}"
distinct=$(for w in 10 20 40 50 80; do echo $((w < P ? w : P)); done | sort -u | wc -l)
check "worker-scaling: one run per distinct worker count" raw_ok worker-scaling $((distinct * N))

scn shrinker-count
check_scn shrinker-count "flush lock"
check "shrinker-count: shrinker=Y/N rows of 001's figures" table_ok shrinker-count shrinker \
	"Y osq_lock % cycles" "Y contended acq/s" "Y lock wait s/s" "Y flushes/s" "Y count p99 ns" "Y count time flushing %" \
	"N osq_lock % cycles" "N contended acq/s" "N lock wait s/s" "N flushes/s"
check "shrinker-count: osq_lock is n/a, never a number" \
	awk '/^Y osq_lock/ { for (i = 5; i <= NF; i++) if ($i != "n/a") exit 1 }' "$tmp/shrinker-count.out"
check "shrinker-count: rstat_force flushes with shrinker=Y" \
	awk '/^Y flushes\/s/ { exit !($3 > 0) }' "$tmp/shrinker-count.out"
check "shrinker-count: raw lines for Y and N" raw_ok shrinker-count $((2 * N))

scn stat-read-storm
check_scn stat-read-storm "reader strategies"
check "stat-read-storm: every strategy for rstat_force and rstat_unified, both tests, a lone reader, subtree sizes" \
	python3 - "$tmp/stat-read-storm.out" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("rstat_")]
# test rows end in the verify column; the slowdown table's rows (storm vs lone) do not
test = [r for r in rows if r[-1] in ("ok", "FAIL", "n/a")]
slow = [r for r in rows if r[-1] not in ("ok", "FAIL", "n/a")]
for a in ("rstat_force", "rstat_unified"):
    for s in ("spin", "mutex", "sem", "batch"):
        hit = [r for r in test if r[0] == a and r[1] == s and len(r) == 14]
        # spin: the lone reader (test 0) and tests 1 and 2; the others tests 1 and 2
        assert len(hit) == (3 if s == "spin" else 2), (a, s, len(hit))
        assert all(r[-1] == "ok" for r in hit), hit
        sl = [r for r in slow if r[0] == a and r[1] == s]
        assert len(sl) == 1 and float(sl[0][4]) > 0, (a, s, sl)
    sub = [r for r in test if r[0] == a and len(r) > 14]
    assert [r[2] for r in sub] == ["root", "top-level", "leaf"] and all(r[-1] == "ok" for r in sub), sub
# the seed's figures beside the mutex and spin rows: 004's 100-500x
assert [r[-1] for r in slow if r[1] in ("spin", "mutex")] == ["100-500"] * 4, slow
PY
# flush/rd = flushes a reader did / reads that needed one, from the algorithm's own counts: 1 by
# construction for rstat_force's spin (every such read flushes itself); batch serves readers that arrive during a
# flush with the next one, and 100 readers woken together every 100 ms arrive together.  The
# deterministic form (64 queued readers, exact counts) is in test_mt_rstat.
check "stat-read-storm: batch does fewer flushes per read than spin" python3 - \
	"$tmp/stat-read-storm.out" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("rstat_force ")]
rows = [r for r in rows if len(r) == 14 and r[-1] == "ok"]	# the test rows, not the slowdown table
spin = [float(r[9]) for r in rows if r[1] == "spin" and r[9] != "n/a"]
batch = [float(r[9]) for r in rows if r[1] == "batch" and r[9] != "n/a"]
assert spin and batch, rows
assert min(batch) < min(spin), "rstat_force: batch %s flushes/read, spin %s" % (batch, spin)
PY
check "stat-read-storm: raw lines" raw_ok stat-read-storm 24

# 003: one reader, 10,000 reads: average and stddev over the reps, their deltas against the first column.
scn stat-read-pressure --reps 2
check_scn stat-read-pressure "one reader"
check "stat-read-pressure: 003's average, stddev and both deltas, one raw line per algorithm" eval \
	'table_ok stat-read-pressure "10000 reads" "average ms" "stddev ms" "average delta %" "stddev delta %" "read p99 ns" &&
	 raw_ok stat-read-pressure $N &&
	 awk "/^average delta %/ { exit !(\$4 == \"+0.0%\") }" "$tmp/stat-read-pressure.out"'

scn admission-staleness
check_scn admission-staleness "bursts"
check "admission-staleness: rows of false rejects and overshoot" table_ok admission-staleness admission \
	"refused % (audited)" "audited attempts" "false rejects" "false rejects % of refusals" "worst overshoot (pages)"
check "admission-staleness: one raw line per algorithm, bursts recorded" raw_ok admission-staleness $N
check "admission-staleness: charge bursts of 64" grep -q '"charge_burst":64' "$tmp/admission-staleness.jsonl"

scn subsys-flush-locks
check_scn subsys-flush-locks "two subsystems, both lock modes"
check "subsys-flush-locks: seed 001's lock rows per subsystem, both lock modes, verified" python3 - \
	"$tmp/subsys-flush-locks.out" "$tmp/subsys-flush-locks.jsonl" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1]) if not l.startswith("#")]
assert lines[0].split()[-2:] == ["lock=global", "lock=per-tree"], lines[0]
for sub in ("memory", "io"):
    for row in ("contended acq/s", "lock wait s/s", "reads/s"):
        hit = [l for l in lines if l.startswith("%s %s " % (sub, row))]
        assert len(hit) == 1, (sub, row)
        cells = hit[0][len(sub) + len(row) + 2:].split()
        assert len(cells) == 2 and all(float(c) >= 0 for c in cells), hit[0]
assert [l.split()[1:] for l in lines if l.startswith("verify ")] == [["ok", "ok"]], lines[-1]
objs = [json.loads(l) for l in open(sys.argv[2])]
assert [o["options"] for o in objs] == ["subsys=2,lock=global", "subsys=2,lock=per-tree"], objs
for o in objs:
    assert o["verify"] == "ok" and [s["name"] for s in o["subsys"]] == ["memory", "io"], o
    assert all(s["reads"] > 0 and s["lock_acquisitions"] >= s["reads"] for s in o["subsys"]), o
PY
BADVAL="--algo" bad subsys-flush-locks --quick --algo rstat_llist

# --format json: the raw lines on stdout, nothing else.
"$B" scenario admission-staleness --quick --algo atomic_tree,rstat_ratelimit --format json >"$tmp/j" 2>"$tmp/je"
rc=$?
check "--format json prints one JSON line per algorithm" python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert [o["algo"] for o in objs] == ["atomic_tree", "rstat_ratelimit"], objs
assert objs[1]["flush_period_ms"] == 6, objs[1]["flush_period_ms"]
' "$tmp/j"

# Interrupted: exit 1, and the raw file holds whole lines only, each a finished measurement.
"$B" scenario zswap-store-nolimit --algo atomic_tree --reps 1 --duration-ms 300 --warmup-ms 0 \
	--out "$tmp/int.jsonl" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
for _ in $(seq 100); do
	[ -s "$tmp/int.jsonl" ] && break
	sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit 1, said so, and only whole lines written" python3 - "$tmp/int.jsonl" "$rc" \
	"$tmp/int.err" <<'PY'
import json, sys
path, rc, err = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
assert rc == 1, "exit %d" % rc
assert "interrupted" in err, err
text = open(path).read()
assert text.endswith("\n") and 1 <= text.count("\n") < 5, repr(text[-80:])
for l in text.splitlines():
    json.loads(l)
PY

BADVAL="spiral" bad spiral
BADVAL="xml" bad zswap-store-limit --format xml
BADVAL="'0'" bad stat-read-storm --readers 0
BADVAL="--work-ns" bad stat-read-storm --work-ns 100
BADVAL="bogus" bad zswap-store-limit --algo atomic_tree,bogus
BADVAL="$tmp/no/such/dir/x.jsonl" bad zswap-store-limit --quick --out "$tmp/no/such/dir/x.jsonl"
BADVAL="'extra'" bad zswap-store-limit extra
BADVAL="--quick" bad list --quick
BADVAL="--readers" bad admission-staleness --quick --readers 5
BADVAL="--no-cap" bad stat-read-storm --quick --no-cap
# A results file is never overwritten; a write that fails is a failed run.
echo '{"earlier":"results"}' >"$tmp/kept.jsonl"
BADVAL="$tmp/kept.jsonl" bad admission-staleness --quick --algo atomic_tree --out "$tmp/kept.jsonl"
check "an --out holding results is left as it was" grep -qx '{"earlier":"results"}' "$tmp/kept.jsonl"
# (a file size limit of 0 makes every write fail, as a full disk would: the output files' cats
# run outside it, and the status comes back on stderr, which is a pipe)
{ (ulimit -f 0; trap '' XFSZ; "$B" scenario admission-staleness --quick --algo atomic_tree \
	--out "$tmp/full.jsonl"; echo "rc=$?" >&2) 2>&1 1>&3 3>&- | cat >"$tmp/full.err"; } 3>&1 |
	cat >"$tmp/full.out"
rc=$(sed -n 's/^rc=//p' "$tmp/full.err")
BADVAL="'/dev/full' is not a regular file" bad admission-staleness --quick --algo atomic_tree --out /dev/full
check "a results file that cannot be written: exit 1, said once, not claimed" eval \
	'[ $rc -eq 1 ] && [ "$(grep -c "writing results" "$tmp/full.err")" -eq 1 ] && ! grep -q "raw results" "$tmp/full.out"'
# --warmup-ms 0 is kept, not taken for "not given"
"$B" scenario admission-staleness --quick --algo atomic_tree --warmup-ms 0 --format json >"$tmp/w0" 2>&1
check "--warmup-ms 0 is what runs" grep -q '"warmup_ms":0,' "$tmp/w0"

# --resume: the configurations already in --out (every identity field of the field table equal)
# are read back, not run; the rest run and are appended.  The same file twice: nothing runs and the
# table is the same; half of it: the other half runs.
R=(zswap-load-latency --quick --algo atomic_tree,percpu_hier --out "$tmp/res.jsonl")
"$B" scenario "${R[@]}" >"$tmp/res1.txt" 2>/dev/null
n=$(wc -l <"$tmp/res.jsonl")
"$B" scenario "${R[@]}" --resume >"$tmp/res2.txt" 2>"$tmp/res2.err"
rc=$?
check "--resume on a finished --out: nothing run, every row read back ($n), the same table" eval \
	'[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/res.jsonl")" -eq "$n" ] && [ "$n" -ge 4 ] &&
	 grep -q -- "--resume: $n configurations taken" "$tmp/res2.err" &&
	 diff <(grep -v "^# raw\|date:" "$tmp/res1.txt") <(grep -v "^# raw\|date:" "$tmp/res2.txt") >/dev/null'
head -n $((n / 2)) "$tmp/res.jsonl" >"$tmp/half.jsonl"
"$B" scenario zswap-load-latency --quick --algo atomic_tree,percpu_hier --out "$tmp/half.jsonl" --resume \
	>/dev/null 2>"$tmp/res3.err"
rc=$?
check "--resume on half of it: the other half runs and is appended" eval \
	'[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/half.jsonl")" -eq "$n" ] &&
	 grep -q -- "--resume: $((n / 2)) configurations taken" "$tmp/res3.err"'
BADVAL="--resume needs --out" bad worker-scaling --quick --resume

# The seeds' figures under each row, read at run time from tables.csv (docs/seeds/tables.csv of the
# tree the binary was built from, or $CTRBENCH_SEEDS): every seed cell is the file's figure, and
# ours/seed is our cell over it, where the two are one quantity: with --work-ns standing in for the
# seed's compression; without, no ours/seed row (issue 31: ratios of 1e-3, the counter's cost over
# a store's) and a note that says why.
cat >"$tmp/seedrows.py" <<'PY'
import csv, sys
out, seeds, ratios = sys.argv[1], sys.argv[2], sys.argv[3] == "ratios"
fig = {}
for r in csv.reader(l for l in open(seeds) if not l.startswith("#")):
    if r[0] == "store_limit":
        fig[(r[2], r[3])] = float(r[4])
lines = open(out).read().split("\n")
cols = [l for l in lines if l.startswith("ns/store ")][0].split()[1:]
design = {"rstat_force": "a_rstat_force", "rstat_ratelimit": "b_rstat_ratelimit",
          "percpu_hier": "c_percpu_hier", "atomic_tree": "d_page_counter"}
seen = 0
assert ratios == any(l.startswith("  ours/seed") for l in lines), "ours/seed rows"
for i, l in enumerate(lines):
    if not l.startswith("  seed 000"):
        continue
    row = lines[i - 1].split()
    label, ours = " ".join(row[:2]), row[2:]
    seed = l.split()[2:]
    if ratios:
        assert lines[i + 1].startswith("  ours/seed"), lines[i + 1]
        ratio = lines[i + 1].split()[1:]
    for k, a in enumerate(cols):
        if a not in design:
            assert seed[k] == "-" and (not ratios or ratio[k] == "-"), (label, a)
            continue
        want = fig[(label, design[a])]
        assert float(seed[k]) == want, (label, a, seed[k], want)
        if ratios:
            got = float(ours[k].rstrip("~")) / want
            # cells: 3 significant digits below 1, one decimal from 1 (scn_fmt)
            assert abs(float(ratio[k]) - got) <= max(0.01 * got, 0.05 if got >= 1 else 0), (label, a, ratio[k], got)
        seen += 1
assert seen == 5 * 4, seen
PY
check "zswap-store-limit: under each depth, seed 000's figure from tables.csv; no ours/seed, said why" eval \
	'python3 "$tmp/seedrows.py" "$tmp/zswap-store-limit.out" docs/seeds/tables.csv none &&
	 grep -q "so no ours/seed: a ratio of unlike quantities" "$tmp/zswap-store-limit.out"'
"$B" scenario zswap-store-limit --quick --wide --work-ns 35000 --algo rstat_force,rstat_ratelimit,percpu_hier,atomic_tree \
	--out "$tmp/work.jsonl" >"$tmp/work.out" 2>"$tmp/work.err"
rc=$?
check "... and with --work-ns 35000 standing in for the compression, ours/seed under each" eval \
	'[ $rc -eq 0 ] && python3 "$tmp/seedrows.py" "$tmp/work.out" docs/seeds/tables.csv ratios &&
	 grep -q "work-ns 35000 ns of private work stands in for it" "$tmp/work.out"'
check "zswap-store-limit: wall and CPU time, refusal share, seed 000's flush-calls table" eval \
	'grep -q "^depth 32 wall " "$tmp/zswap-store-limit.out" && grep -q "^depth 32 refused % " "$tmp/zswap-store-limit.out" &&
	 grep -q "^depth 32 before ratelimit .* 198977 *281017 *1.412$" "$tmp/zswap-store-limit.out" &&
	 grep -q "the seed.s unit is kernel CPU time per zswap store" "$tmp/zswap-store-limit.out" &&
	 grep -q "^# seed 000.s machine: .*CPU count 80" "$tmp/zswap-store-limit.out"'
check "shrinker-count: seed 001's figures beside rstat_force" eval \
	'grep -A1 "^Y contended acq/s" "$tmp/shrinker-count.out" | grep -q "^  seed 001 *248 *- "'
# $CTRBENCH_SEEDS names the file; a missing one is said in the header and no figure is shown.
sed 's/^store_limit,\(.*\),depth 1,a_rstat_force,567116,/store_limit,\1,depth 1,a_rstat_force,1234,/' \
	docs/seeds/tables.csv >"$tmp/seeds.csv"
CTRBENCH_SEEDS="$tmp/seeds.csv" "$B" scenario zswap-store-limit --quick --wide --from "$tmp/zswap-store-limit.jsonl" \
	>"$tmp/seeds.out" 2>&1
check "\$CTRBENCH_SEEDS: its figures are the ones shown" eval \
	'grep -A1 "^depth 1 " "$tmp/seeds.out" | grep -q "^  seed 000 *1234 "'
CTRBENCH_SEEDS="$tmp/none.csv" "$B" scenario zswap-store-limit --quick --wide --from "$tmp/zswap-store-limit.jsonl" \
	>"$tmp/noseeds.out" 2>&1
rc=$?
check "a missing seeds file: said in the header, no seed rows, the table still printed" eval \
	'[ $rc -eq 0 ] && grep -q "^# seed figures: .*none.csv not found" "$tmp/noseeds.out" &&
	 ! grep -q "^  seed" "$tmp/noseeds.out" && grep -q "^depth 32 " "$tmp/noseeds.out"'

# --from FILE: the tables from a results file, nothing measured: the same table as the run printed.
for s in zswap-store-limit stat-read-storm shrinker-count; do
	"$B" scenario $s --quick --wide --from "$tmp/$s.jsonl" >"$tmp/$s.from" 2>"$tmp/$s.from.err"
	rc=$?
	check "--from: $s's table from its results equals the one its run printed" eval \
		'[ $rc -eq 0 ] && [ ! -s "$tmp/$s.from.err" ] &&
		 diff <(grep -v "^# raw results\|^# read from\|^# this machine\|^# the machine that" "$tmp/$s.out") \
		      <(grep -v "^# raw results\|^# read from\|^# this machine\|^# the machine that" "$tmp/$s.from")'
done
"$B" scenario zswap-store-limit --quick --wide --reps 2 --from "$tmp/zswap-store-limit.jsonl" >"$tmp/miss.out" 2>"$tmp/miss.err"
rc=$?
check "--from with other options: exit 1, 'not run' cells, said on stderr" eval \
	'[ $rc -eq 1 ] && grep -q "^depth 1 .*not run" "$tmp/miss.out" && grep -q "not in" "$tmp/miss.err"'
BADVAL="--from" bad zswap-store-limit --quick --from "$tmp/zswap-store-limit.jsonl" --out "$tmp/x.jsonl"
BADVAL="$tmp/nofile.jsonl" bad zswap-store-limit --quick --from "$tmp/nofile.jsonl"
# The seed's CPU count is the slots by default (080 CPUs for 000, 96 for 001, 384 for 004); --slots sets it.
check "default slots: 96 for shrinker-count, 384 for stat-read-storm" eval \
	'grep -q "\"slots\":96," "$tmp/shrinker-count.jsonl" && grep -q "\"slots\":384," "$tmp/stat-read-storm.jsonl"'
"$B" scenario admission-staleness --quick --algo atomic_tree --slots 8 --format json >"$tmp/s8" 2>&1
check "--slots 8 is what runs" grep -q '"slots":8,' "$tmp/s8"
BADVAL="--limit-headroom" bad stat-read-storm --quick --limit-headroom 2
BADVAL="'0'" bad zswap-store-limit --quick --slots 0
check "zswap-store-limit: the rstat algorithms of rstat.c run memcg's update, the others no options" python3 -c '
import json, sys
for o in map(json.loads, open(sys.argv[1])):
    want = "update=memcg" if o["algo"] in ("rstat_force", "rstat_ratelimit", "rstat_threshold", "rstat_unified") else None
    assert o["options"] == want, (o["algo"], o["options"])
' "$tmp/zswap-store-limit.jsonl"
