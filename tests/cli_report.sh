#!/usr/bin/env bash
# cli_report.sh - `ctrbench report`: from the fixed results of tests/data/report.jsonl (real runs,
# tests/data/report.README says how they were made) the HTML page holds every plot (inline SVG
# with its axis titles and a series per algorithm, and a PNG copy linked), every table (a row per
# algorithm and thread count or depth, numbers as the results have them), the environment and
# "n/a (no PMU)" with the recorded reason; the Markdown has the tables with mean, stddev and delta
# % against the baseline algorithm; bad input is one stderr line naming the bad value, exit 2, and
# writes nothing; an existing report folder is replaced whole, any other folder is refused, and a
# failure half-way leaves the old report as it was.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_report.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
D=tests/data/report.jsonl
C2C=tests/data/c2c.json

. tests/tap.sh

# run ARGS...: report into $tmp/out and $tmp/err, exit status in $rc.
run() {
	"$B" report "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
clean() { [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; }

# --- HTML from the fixed results -----------------------------------------------------------------
run $D --out "$tmp/r"
check "html: exit 0, the page path on stdout, nothing on stderr" eval \
	'clean && [ "$(cat "$tmp/out")" = "$tmp/r/index.html" ] && [ -s "$tmp/r/index.html" ]'
H=$tmp/r/index.html
# 4 throughput plots (update chain:1, chain:4, chain:16; readers chain:4) with an efficiency plot
# each and a reads/s plot for readers chain:4, 4 latency (update at 1 and 2 threads; update and
# read latency of readers at 1 thread), 6 cost (CPU ns/op and context-switches per op for update
# chain:1, chain:4, chain:16), 1 read error (readers chain:4).
check "20 inline SVG plots, 20 PNG copies, each linked once from the page" eval \
	'[ "$(grep -o "<svg" "$H" | wc -l)" -eq 20 ] && [ "$(ls "$tmp/r"/*.png | wc -l)" -eq 20 ] &&
	 (for f in "$tmp/r"/*.png; do [ "$(grep -o "href=\"${f##*/}\"" "$H" | wc -l)" -eq 1 ] || exit 1;
	 head -c 8 "$f" | od -An -c | grep -q "P   N   G" || exit 1; done)'
check "self-contained: no script, nothing fetched from elsewhere, no SVG file left beside it" eval \
	'! grep -qi "<script" "$H" && ! grep -Eq "(src|href)=\"(https?:)?//" "$H" && ! grep -q "<img" "$H" &&
	 ! ls "$tmp/r"/*.svg >/dev/null 2>&1 && ! grep -q "<?xml" "$H"'
# the plots and tables, one TAP line per check
python3 tests/report_page_check.py "$H" $D
check "the environment: every env field of the results" eval \
	'(for v in "AMD EPYC" "6.18.44-fc-v782" "a697cc4" "gcc 12.2.0" "perf_event_paranoid" \
	 "1 package, 1 NUMA node, 2 L3s, 2 cores, 2 PUs" "33 lines from tests/data/report.jsonl"; do
	 grep -qF "$v" "$H" || { echo "missing: $v" >"$tmp/err"; exit 1; }; done)'

# The update latency table's caption says how it was timed: batches of operations, one sample a
# batch, per op (issue 31: "one operation in 64 timed"); the fixed results record no batch sizes,
# a fresh update run records 1 or 64 (run.c); the readers workload's updaters (its one table,
# captioned twice) are timed one operation in sample_every
check "update latency: timed in batches, not one operation in 64, as the caption says" eval \
	'grep -qF "update latency percentiles (ns; per operation, from batches of operations timed as one sample each (their sizes not recorded))" "$H" &&
	 [ "$(grep -o "update latency percentiles (ns; one operation in 64 timed)" "$H" | wc -l)" -eq 2 ]'
python3 -c '
import json, sys
for k, l in enumerate(open(sys.argv[1])):
    o = json.loads(l)
    if o.get("workload") == "update" and isinstance(o.get("update_ns"), dict):
        o["update_ns"]["batch"] = 64 if k % 2 else 1
    print(json.dumps(o))' $D >"$tmp/batch.jsonl"
run "$tmp/batch.jsonl" --out "$tmp/rb"
check "... and with the sizes recorded, it names them" eval \
	'clean && grep -qF "update latency percentiles (ns; per operation, from batches of 1 / 64 operations timed as one sample each, a size per result)" "$tmp/rb/index.html"'

# scripts/report run by hand takes the registry's order (the colours) from $CTRBENCH_ALGOS, as
# ctrbench report hands it over.
check "the same page again through scripts/report (nothing in it varies but the data)" eval \
	'CTRBENCH_ALGOS=$("$B" list | awk "{print \$1}" | paste -sd, -) \
	 scripts/report $D --out "$tmp/r3" --format html >/dev/null && cmp -s "$H" "$tmp/r3/index.html" &&
	 (for f in "$tmp/r"/plot-*.png; do cmp -s "$f" "$tmp/r3/${f##*/}" || exit 1; done)'
head -20 $D >"$tmp/a.jsonl"
tail -n +21 $D >"$tmp/b.jsonl"
run "$tmp/a.jsonl" - --out "$tmp/split" <"$tmp/b.jsonl"
check "results from several files and stdin (-) make one report" eval \
	'clean && [ "$(grep -o "<svg" "$tmp/split/index.html" | wc -l)" -eq 20 ] &&
	 grep -qF "33 lines from $tmp/a.jsonl (20), &lt;stdin&gt; (13)" "$tmp/split/index.html"'
# The same configurations from another build (the commit changed in a copy): two series each,
# named by the commit, nothing averaged together.
sed 's/"commit":"a697cc4"/"commit":"b0b0b0b"/' $D >"$tmp/other.jsonl"
run $D "$tmp/other.jsonl" --out "$tmp/two"
check "one configuration from two builds: a series per build, named by its commit" eval \
	'clean && grep -qF "atomic_tree [commit a697cc4]" "$tmp/two/index.html" &&
	 grep -qF "atomic_tree [commit b0b0b0b]" "$tmp/two/index.html"'

# --- Markdown ------------------------------------------------------------------------------------
run $D --out "$tmp/md" --format markdown
M=$tmp/md/report.md
check "markdown: exit 0, report.md and no page or plots" eval \
	'clean && [ "$(cat "$tmp/out")" = "$tmp/md/report.md" ] && [ -s "$M" ] &&
	 [ ! -e "$tmp/md/index.html" ] && ! ls "$tmp/md"/*.png >/dev/null 2>&1'
check "markdown: tables with mean, stddev and the ratio to atomic_tree, the numbers recomputed" python3 -c "
import json, statistics, sys
md = open(sys.argv[1]).read(); res = [json.loads(l) for l in open(sys.argv[2])]
assert '| threads | algo' in md and 'ops/s average' in md and '| ratio' in md, md[:500]
def rowof(algo, t, shape, wl='update', pl='compact'):
    r = [x for x in res if x['algo'] == algo and x['threads'] == t and x['shape'] == shape and x['workload'] == wl and x['placement'] == pl]
    assert len(r) == 1; return r[0]
sect = md.split('update · chain:4 · compact, ops/s')[1].split('\n\n')[1]
lines = [l for l in sect.splitlines() if l.startswith('|')]
assert len(lines) == 2 + 9, lines
for a in ['atomic_tree', 'percpu_hier', 'rstat_ratelimit']:
    for t in (1, 2, 4):
        r = rowof(a, t, 'chain:4'); b = rowof('atomic_tree', t, 'chain:4')
        m = statistics.mean(x['ops_per_sec'] for x in r['reps']); sd = statistics.stdev(x['ops_per_sec'] for x in r['reps'])
        bm = statistics.mean(x['ops_per_sec'] for x in b['reps'])
        want = [str(t), a, format(m, ',.0f'), format(sd, ',.0f'), 'baseline' if a == 'atomic_tree' else '%.2fx' % (m / bm)]
        got = [[c.strip() for c in l.strip('|').split('|')] for l in lines if ('| %s ' % a) in l and l.split('|')[1].strip() == str(t)]
        assert len(got) == 1 and got[0][:5] == want, (got, want)
        bsd = statistics.stdev(x['ops_per_sec'] for x in b['reps'])  # seed 003: the stddev's change beside the mean's
        assert got[0][5] == ('baseline' if a == 'atomic_tree' else '%.2fx' % (sd / bsd)), (got[0], sd / bsd)
        assert abs(sd / m - r['stats']['ops_per_sec']['cv']) < 1e-9 * max(1, sd / m)  # the cv ctrbench computed
assert '## ns/op by depth' in md and '| depth 16 |' in md
assert 'n/a (no PMU) [1]' in md and '[1] no PMU (ENOENT: this CPU or hypervisor exposes no such event)' in md
assert 'rstat_ratelimit | by time' in md and 'a697cc4' in md and 'AMD EPYC' in md
" "$M" $D
run $D --out "$tmp/mdb" --format markdown --baseline percpu_hier
check "--baseline percpu_hier: its rows are the baseline, the others' ratios are to it" eval \
	'clean && grep -Eq "^\| +2 \| percpu_hier +\| .*\| baseline \|" "$tmp/mdb/report.md" &&
	 grep -Eq "^\| +2 \| atomic_tree +\| +[0-9,]+ \| +[0-9,]+ \| +0\.[0-9]{2}x \|" "$tmp/mdb/report.md" &&
	 grep -q "over percpu_hier.s (--baseline)" "$tmp/mdb/report.md"'

# --- Inputs that are not result files: one line, exit 2, whatever their size or depth -----------
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$tmp/deep.jsonl"
head -c 3000000 /dev/zero | tr '\0' a >"$tmp/long.jsonl"
BAD_PREFIX=report BADVAL="nested too deep" bad "$tmp/deep.jsonl" --out "$tmp/rx"
BAD_PREFIX=report BADVAL="/dev/zero" bad /dev/zero --out "$tmp/rx"
BAD_PREFIX=report BADVAL="long.jsonl:1: line longer than 1048576 bytes" bad "$tmp/long.jsonl" --out "$tmp/rx"
check "refused inputs leave no report folder" test ! -e "$tmp/rx"

# --- Replacing DIR -------------------------------------------------------------------------------
cp -r "$tmp/r" "$tmp/keep"
run $D --out "$tmp/r" --format markdown
check "an existing report folder is replaced whole (markdown over html: no page or PNG left)" eval \
	'clean && [ -s "$tmp/r/report.md" ] && [ ! -e "$tmp/r/index.html" ] &&
	 ! ls "$tmp/r"/*.png >/dev/null 2>&1 && [ -e "$tmp/r/.ctrbench-report" ]'
mkdir "$tmp/empty"
run $D --out "$tmp/empty" --format markdown
check "an existing empty folder is used" eval 'clean && [ -s "$tmp/empty/report.md" ]'
mkdir "$tmp/mine" && echo precious >"$tmp/mine/notes.txt"
BAD_PREFIX=report BADVAL="$tmp/mine" bad $D --out "$tmp/mine"
check "a folder that is not a report is refused and left as it was" eval \
	'[ "$(ls -A "$tmp/mine")" = notes.txt ] && [ "$(cat "$tmp/mine/notes.txt")" = precious ]'
# gnuplot failing half-way: exit 1, one line, the old report untouched, no temporary folder left.
mkdir "$tmp/bin" && printf '#!/bin/sh\necho "gnuplot: cannot draw" >&2\nexit 3\n' >"$tmp/bin/gnuplot"
chmod +x "$tmp/bin/gnuplot"
(cd "$tmp/keep" && find . -type f -exec md5sum {} + | sort) >"$tmp/before"
PATH="$tmp/bin:$PATH" "$B" report $D --out "$tmp/keep" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "gnuplot fails: exit 1, one line naming it, the old report as it was, nothing left over" eval \
	'[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "gnuplot failed (exit 3): gnuplot: cannot draw" "$tmp/err" &&
	 [ ! -s "$tmp/out" ] && (cd "$tmp/keep" && find . -type f -exec md5sum {} + | sort) | cmp -s - "$tmp/before" &&
	 [ -z "$(ls -A "$tmp" | grep "^\.keep\.")" ]'

# --- Bad input: one line naming the bad value, exit 2, nothing written -------------------------
mkdir "$tmp/o"
O=$tmp/o/r
printf '%s\n{"schema": 1, "algo": "x",\n' "$(head -1 $D)" >"$tmp/trunc.jsonl"
printf '[1, 2]\n' >"$tmp/array.jsonl"
printf '{"schema": 1, "workload": "update", "shape": "chain:2", "threads": 2, "ops_per_sec": 1}\n' >"$tmp/noalgo.jsonl"
printf '{"schema": 1, "algo": "a", "workload": "update", "shape": "chain:2", "threads": "2", "ops_per_sec": 1}\n' >"$tmp/threads.jsonl"
printf '{"schema": 1, "algo": "a", "workload": "update", "shape": "chain:2", "threads": 2, "ops_per_sec": NaN}\n' >"$tmp/nan.jsonl"
printf '{"schema": 1, "algo": "a", "workload": "update", "shape": "chain:2", "threads": 2, "ops_per_sec": 1, "stats": {"ops_per_sec": {"lo": "x"}}}\n' >"$tmp/stats.jsonl"
printf '{"schema": 99, "algo": "a", "workload": "update", "shape": "chain:2", "threads": 2, "ops_per_sec": 1}\n' >"$tmp/schema99.jsonl"
printf '\n\n' >"$tmp/blank.jsonl"
: >"$tmp/empty.jsonl"
printf 'x\n' >"$tmp/afile"
printf '\xff\xfe\n' >"$tmp/latin.jsonl"
export BAD_PREFIX=report
BADVAL="/no/such/file.jsonl" bad /no/such/file.jsonl --out "$O"
BADVAL="$tmp/trunc.jsonl:2: not JSON" bad $D "$tmp/trunc.jsonl" --out "$O"
BADVAL="$tmp/array.jsonl:1: not a JSON object" bad "$tmp/array.jsonl" --out "$O"
BADVAL="noalgo.jsonl:1: field 'algo' is missing" bad "$tmp/noalgo.jsonl" --out "$O"
BADVAL="$tmp/schema99.jsonl:1: result schema 99, this report reads schema 1" bad "$tmp/schema99.jsonl" --out "$O"
BADVAL="threads.jsonl:1: field 'threads' is \"2\", want an integer in [1, 4096]" bad "$tmp/threads.jsonl" --out "$O"
BADVAL="$tmp/nan.jsonl:1: not JSON (NaN is not JSON)" bad "$tmp/nan.jsonl" --out "$O"
BADVAL="stats.jsonl:1: field 'stats.ops_per_sec.lo' is \"x\", want a number" bad "$tmp/stats.jsonl" --out "$O"
BADVAL="'$tmp/empty.jsonl' has no results" bad "$tmp/empty.jsonl" --out "$O"
BADVAL="'$tmp/blank.jsonl' has no results" bad $D "$tmp/blank.jsonl" --out "$O"
BADVAL="$tmp/latin.jsonl: not UTF-8" bad "$tmp/latin.jsonl" --out "$O"
BADVAL="'pdf'" bad $D --out "$O" --format pdf
BADVAL="'nosuch'" bad $D --out "$O" --baseline nosuch
BADVAL="needs --out" bad $D
BADVAL="'--out' needs a value" bad $D --out
BADVAL="'--bogus'" bad $D --out "$O" --bogus
BADVAL="needs a results file" bad --out "$O"
BADVAL="$tmp/o/no/r" bad $D --out "$tmp/o/no/r"
BADVAL="'$tmp/afile' for --out (it exists and is not a folder)" bad $D --out "$tmp/afile"
# c2c lines: a --dry-run plan (nothing measured) and a matrix that is not N x N are refused.
"$B" c2c --topology "pack:1 core:2 pu:2" --dry-run --format json >"$tmp/plan.json"
BADVAL="$tmp/plan.json:1: a c2c --dry-run plan" bad "$tmp/plan.json" --out "$O"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["matrices"][0]["ns"]=[[None]]; print(json.dumps(j))' \
	$C2C >"$tmp/c2cbad.json"
BADVAL="\"matrices[0].ns\" is not a 2 x 2 matrix" bad "$tmp/c2cbad.json" --out "$O"
unset BAD_PREFIX
check "nothing written by any rejected call" eval '[ -z "$(ls -A "$tmp/o")" ] && [ "$(cat "$tmp/afile")" = x ]'

# --- c2c: a heatmap with its class table; with run results, the per-class cost table -----------
run $C2C $D --out "$tmp/c"
check "html with c2c: 21 inline SVG plots (the heatmap too), 21 PNG copies" eval \
	'clean && [ "$(grep -o "<svg" "$tmp/c/index.html" | wc -l)" -eq 21 ] && [ "$(ls "$tmp/c"/*.png | wc -l)" -eq 21 ] &&
	 grep -q "<section id=\"c2c\">" "$tmp/c/index.html"'
python3 tests/report_page_check.py "$tmp/c/index.html" $D $C2C | grep c2c
run $C2C --out "$tmp/c1"
check "html of a c2c file alone: the heatmap and the class table, no run section" eval \
	'clean && [ "$(grep -o "<svg" "$tmp/c1/index.html" | wc -l)" -eq 1 ] &&
	 grep -q "No run results here" "$tmp/c1/index.html" && ! grep -q "<section id=\"throughput\">" "$tmp/c1/index.html"'
run $C2C --out "$tmp/c2" --format markdown
check "markdown of a c2c file alone: the class table, no run tables" eval \
	'clean && grep -q "^## Cache-line transfers between CPUs (c2c)" "$tmp/c2/report.md" &&
	 grep -qE "^\| (smt|ccx|numa|package|remote) +\| .* \| +1 \|" "$tmp/c2/report.md" && ! grep -q "^## Throughput" "$tmp/c2/report.md"'
# Measured here, side by side: the cost table sets shared_atomic's 2-thread ns/op beside the c2c
# class its two threads share (one machine, so the classes match).
if [ "$(nproc)" -ge 2 ]; then
	"$B" c2c --cpus 0,1 --reps 3 --samples 20 --iters 200 --op fetch-add --format json >"$tmp/live-c2c.json" 2>/dev/null
	"$B" run --algo shared_atomic --shape chain:1 --threads 2 --reps 2 --duration-ms 30 --warmup-ms 10 \
		--format json >"$tmp/live-run.jsonl" 2>/dev/null
	run "$tmp/live-c2c.json" "$tmp/live-run.jsonl" --out "$tmp/live"
	check "c2c and run measured here: the cost table has the transfer cost of the run's class" eval \
		'clean && python3 tests/report_page_check.py "$tmp/live/index.html" "$tmp/live-run.jsonl" "$tmp/live-c2c.json" |
		 grep "per-class cost table" | grep -q "^ok" &&
		 python3 -c "
import json, sys
c = json.load(open(sys.argv[1])); r = json.loads(open(sys.argv[2]).readline())
cls = [k for k, v in r[\"pairs\"].items() if v]
assert cls == [c[\"pairs\"][0][\"class\"]], (cls, c[\"pairs\"])
" "$tmp/live-c2c.json" "$tmp/live-run.jsonl"'
else
	ok "c2c and run measured here # SKIP fewer than two CPUs"
fi

# A killed sweep can leave a last line without its newline: skipped, said in one line, the rest reported.
{ head -2 $D; head -1 $D | head -c 100; } >"$tmp/killed.jsonl"
"$B" report "$tmp/killed.jsonl" --out "$tmp/killed" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a partial last line is skipped with one line on stderr, the rest reported" eval \
	'[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "killed.jsonl:3: skipped a partial last line" "$tmp/err" &&
	 [ -s "$tmp/killed/index.html" ]'

# --- Projected lines (ctrbench project): their own section, dashed and labelled ----------------
# Made now by this binary (the field table is this build's): two projections on this machine (the
# report sets the measured chain:4 runs beside them, solid) and a readers one on a synthetic
# 192-PU layout (no measured line may join it).
P=$tmp/projected.jsonl
: >"$P"
for T in 1 2; do
	"$B" project --algo atomic_tree,percpu_hier --shape chain:4 --threads $T --placement compact \
		--ops 200 --format json >>"$P" 2>"$tmp/err"
done
"$B" project --algo percpu_hier,percpu_hier_delegated --workload readers --readers 1 --shape chain:4 \
	--threads 16 --placement scatter --topology "pack:2 [numa] l3:12 core:8 pu:2" --ops 200 --reads 5 \
	--format json >>"$P" 2>"$tmp/err"
run $D "$P" --out "$tmp/proj"
check "projected lines: the report is written, saying how many projected lines it drew" eval \
	'clean && grep -qF "and 6 projected lines (a model" "$tmp/proj/index.html"'
run $D --out "$tmp/noproj"
python3 tests/report_projected_check.py "$tmp/proj/index.html" "$tmp/noproj/index.html" "$P" ||
	{ [ $? -eq 1 ] || nok "report_projected_check.py ran its checks"; }
run $D "$P" --out "$tmp/projmd" --format markdown
check "projected lines, markdown: their own section, every row labelled projected" eval \
	'clean && grep -q "^## Projected (model, not measured)" "$tmp/projmd/report.md" &&
	 [ "$(grep -c "^| [a-z_]* projected (model, calibration Genoa default) " "$tmp/projmd/report.md")" -eq 6 ]'
sed 's/"ns_per_op":{"overlap":[^,]*,/"ns_per_op":{"overlap":"x",/' "$P" | head -1 >"$tmp/badproj.jsonl"
run "$tmp/badproj.jsonl" --out "$tmp/badproj"
check "a projected line off its field table: one line naming the field, exit 2" eval \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "ns_per_op.overlap" "$tmp/err" &&
	 [ ! -e "$tmp/badproj" ]'

# --- The binary's own failures: exit 1 and one line ----------------------------------------------
CTRBENCH_SCRIPTS_DIR=$tmp/none "$B" report $D --out "$O" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "no report script: exit 1, one line naming where it looked and CTRBENCH_SCRIPTS_DIR" eval \
	'[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$tmp/none/report" "$tmp/err" &&
	 grep -q CTRBENCH_SCRIPTS_DIR "$tmp/err" && [ ! -s "$tmp/out" ] && [ ! -e "$O" ]'
mkdir "$tmp/nopython"
PATH=$tmp/nopython "$B" report $D --out "$O" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "no python3: exit 1, one line saying so" eval \
	'[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "report needs python3" "$tmp/err" &&
	 [ ! -s "$tmp/out" ] && [ ! -e "$O" ]'
