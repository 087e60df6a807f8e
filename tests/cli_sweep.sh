#!/usr/bin/env bash
# cli_sweep.sh - `ctrbench sweep` and `ctrbench recommend`.
# sweep: one JSON line per configuration; a sweep killed with SIGKILL (and a
# half-written last line) resumes to every configuration exactly once; SIGINT
# stops cleanly; --resume matches every parameter and the build's commit;
# plan files; the progress line only on a terminal.  recommend: on the fixed
# results in tests/data/recommend.jsonl (tests/data/README.md says how they
# were made): the ranking, EXACT rules out the approximate algorithms, looser
# bounds admit them, the depth selection and the cost model.  Bad input: one
# stderr line naming the bad value, exit 2, nothing on stdout, no file made.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_sweep.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
D=tests/data

. tests/tap.sh

# lines FILE: its line count.
lines() { wc -l <"$1" | tr -d ' '; }
# parses FILE N: every line one JSON object, N of them, each configuration once, the file ends in '\n'.
parses() {
	[ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || return 1
	command -v python3 >/dev/null || { [ "$(lines "$1")" -eq "$2" ]; return; }
	python3 - "$1" "$2" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = [(r["algo"], r["workload"], r["shape"], r["threads"], r["placement"], r["duration_ms"],
         r["env"]["commit"]) for r in rows]
assert all(isinstance(r, dict) for r in rows)
assert len(rows) == int(sys.argv[2]), (len(rows), sys.argv[2])
assert len(set(keys)) == len(keys), "a configuration twice"
EOF
}

# Two algorithms x threads 1..2 x compact,scatter: 8 configurations.
SW=(sweep --algo atomic_tree,percpu_hier --workload update --shape chain:4 --threads 1..2
    --placement compact,scatter --reps 1 --warmup-ms 5)
"$B" "${SW[@]}" --duration-ms 20 --out "$tmp/a.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a sweep of 8 configurations: 8 JSON lines, each once, exit 0, quiet when stderr is no terminal" eval \
	'[ $rc -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && parses "$tmp/a.jsonl" 8'
check "the cross product: threads 1 and 2, compact and scatter, both algorithms, verified" eval \
	'[ "$(grep -c "\"threads\":1,.*\"placement\":\"compact\"" "$tmp/a.jsonl")" -eq 2 ] &&
	 [ "$(grep -c "\"threads\":2,.*\"placement\":\"scatter\"" "$tmp/a.jsonl")" -eq 2 ] &&
	 [ "$(grep -c "\"algo\":\"percpu_hier\"" "$tmp/a.jsonl")" -eq 4 ] &&
	 [ "$(grep -c "\"verify\":\"ok\"" "$tmp/a.jsonl")" -eq 8 ] &&
	 [ "$(grep -c "\"sweep\":{\"plan_file\":null,\"plan\":null,\"id\":[1-8]}" "$tmp/a.jsonl")" -eq 8 ]'

cp "$tmp/a.jsonl" "$tmp/a0.jsonl"
"$B" "${SW[@]}" --duration-ms 20 --out "$tmp/a.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--resume of a finished sweep runs nothing and changes nothing" eval \
	'[ $rc -eq 0 ] && cmp -s "$tmp/a.jsonl" "$tmp/a0.jsonl" && [ ! -s "$tmp/err" ]'

# --resume matches every parameter: another duration is another configuration.
"$B" "${SW[@]}" --duration-ms 21 --out "$tmp/a.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--resume with another --duration-ms runs all 8 again, after the first 8" eval \
	'[ $rc -eq 0 ] && parses "$tmp/a.jsonl" 16 && [ "$(head -8 "$tmp/a.jsonl")" = "$(cat "$tmp/a0.jsonl")" ] &&
	 [ "$(grep -c "\"duration_ms\":21," "$tmp/a.jsonl")" -eq 8 ]'
# --events reaches every run and is part of the configuration: with it, all 8 again, each saying why
# an event it asked for has no count where there is none, or counting it.
"$B" "${SW[@]}" --duration-ms 21 --events bounce --out "$tmp/a.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--resume with --events bounce runs all 8 again, each with the events it asked for" eval \
	'[ $rc -eq 0 ] && [ "$(lines "$tmp/a.jsonl")" -eq 24 ] &&
	 [ "$(grep -c "\"events_requested\":\"bounce\"" "$tmp/a.jsonl")" -eq 8 ] &&
	 { [ "$(tail -8 "$tmp/a.jsonl" | grep -c "\"events_unavailable\":{\"" )" -eq 8 ] ||
	   [ "$(tail -8 "$tmp/a.jsonl" | grep -c "\"events_per_op\":{\"" )" -eq 8 ]; }'
head -16 "$tmp/a.jsonl" >"$tmp/a1.jsonl" && mv "$tmp/a1.jsonl" "$tmp/a.jsonl"
# ... and so is another build: lines of another commit do not count.
sed 's/"commit":"[^"]*"/"commit":"0000000-other-build"/' "$tmp/a0.jsonl" >"$tmp/c.jsonl"
"$B" "${SW[@]}" --duration-ms 20 --out "$tmp/c.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--resume over the lines of another commit runs all 8 again" eval \
	'[ $rc -eq 0 ] && parses "$tmp/c.jsonl" 16 && [ "$(grep -c 0000000-other-build "$tmp/c.jsonl")" -eq 8 ]'

# SIGKILL in the middle: nothing finished is lost, --resume completes it.
"$B" "${SW[@]}" --duration-ms 150 --out "$tmp/k.jsonl" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 500); do [ -s "$tmp/k.jsonl" ] && break; sleep 0.02; done
{ kill -9 $pid; wait $pid; } 2>/dev/null	# quiet: the shell would say "Killed"
n=$(lines "$tmp/k.jsonl")
cp "$tmp/k.jsonl" "$tmp/k0.jsonl"
check "killed with SIGKILL after $n of 8: whole lines only" eval '[ "$n" -ge 1 ] && [ "$n" -lt 8 ] && parses "$tmp/k.jsonl" $n'
# What a kill inside write(2) leaves: half a line, no newline.
head -c 100 "$tmp/k0.jsonl" >>"$tmp/k.jsonl"
"$B" "${SW[@]}" --duration-ms 150 --out "$tmp/k.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--resume after the kill: the half line dropped (said once), 8 configurations each once, the first $n kept" eval \
	'[ $rc -eq 0 ] && parses "$tmp/k.jsonl" 8 && [ "$(lines "$tmp/err")" -eq 1 ] &&
	 grep -q "dropped a partial last line of .*(100 bytes" "$tmp/err" &&
	 [ "$(head -n "$n" "$tmp/k.jsonl")" = "$(cat "$tmp/k0.jsonl")" ]'

# SIGINT: the configuration running is not recorded, exit 1, one line.
"$B" "${SW[@]}" --duration-ms 150 --out "$tmp/i.jsonl" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 500); do [ -s "$tmp/i.jsonl" ] && break; sleep 0.02; done
kill -INT $pid
wait $pid
rc=$?
n=$(lines "$tmp/i.jsonl")
check "SIGINT after $n of 8: exit 1, one line saying so, whole lines only" eval \
	'[ $rc -eq 1 ] && [ "$n" -lt 8 ] && parses "$tmp/i.jsonl" $n && [ "$(lines "$tmp/err")" -eq 1 ] &&
	 grep -q "interrupted: $n of 8 configurations.*--resume continues" "$tmp/err"'

# A configuration whose run dies (here killed from outside, as a crash would end it): reported,
# not recorded, the others still run, exit 1.
if command -v pgrep >/dev/null; then
	"$B" sweep --algo atomic_tree --shape chain:2 --threads 1..2 --duration-ms 300 --warmup-ms 0 --reps 1 \
		--out "$tmp/crash.jsonl" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 500); do child=$(pgrep -P $pid) && break; sleep 0.01; done
	kill -9 $child
	wait $pid
	rc=$?
	check "a run that dies: said on stderr, not recorded, the next one runs, exit 1" eval \
		'[ $rc -eq 1 ] && parses "$tmp/crash.jsonl" 1 && grep -q "\"threads\":2," "$tmp/crash.jsonl" &&
		 grep -q "^ctrbench: sweep: atomic_tree update chain:2 --threads 1 --placement compact: run died of signal 9" "$tmp/err"'
fi

# A plan, with the command line overriding one of its lines; the plan kept in every line.
cat >"$tmp/p.plan" <<EOF
# two configurations
algo atomic_tree
shape chain:2

--threads 1..2
duration-ms 500
warmup-ms 0
reps 1
out $tmp/p.jsonl
EOF
"$B" sweep --plan "$tmp/p.plan" --duration-ms 10 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--plan: 2 configurations, --duration-ms on the command line wins, the plan's text in each line" eval \
	'[ $rc -eq 0 ] && parses "$tmp/p.jsonl" 2 && [ "$(grep -c "\"duration_ms\":10," "$tmp/p.jsonl")" -eq 2 ] &&
	 [ "$(grep -c "\"plan_file\":\"$tmp/p.plan\",\"plan\":\"# two configurations\\\\nalgo atomic_tree" "$tmp/p.jsonl")" -eq 2 ]'

# nodes: 1, then one NUMA node's PUs, ..., all the PUs this process may use.
"$B" sweep --algo empty --shape chain:1 --threads nodes --duration-ms 5 --warmup-ms 0 --reps 1 \
	--out "$tmp/n.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--threads nodes starts at 1 and ends at every PU ($(nproc))" eval \
	'[ $rc -eq 0 ] && head -1 "$tmp/n.jsonl" | grep -q "\"threads\":1," &&
	 tail -1 "$tmp/n.jsonl" | grep -q "\"threads\":$(nproc),"'

# The progress line, on a terminal only (script(1) gives the sweep one).
if command -v script >/dev/null; then
	CTRBENCH_PROGRESS= script -qec "$B sweep --algo atomic_tree --shape chain:2 --threads 1..2 --duration-ms 10 --warmup-ms 0 --reps 1 --out $tmp/t.jsonl" \
		/dev/null >"$tmp/out" 2>&1
	check "on a terminal: a progress line redrawn with \\r, done/total, time left, the configuration" eval \
		'grep -q $'"'"'\r'"'"' "$tmp/out" && grep -q "\[1/2\] .* elapsed, ~.* left: atomic_tree update chain:2 --threads 2" "$tmp/out" &&
		 parses "$tmp/t.jsonl" 2'
fi

# Bad input.
BAD_PREFIX=sweep
S=(--algo atomic_tree --shape chain:2 --duration-ms 5 --warmup-ms 0 --reps 1)
printf 'algo atomic_tree\nthreads 1\nbogus 3\n' >"$tmp/bad.plan"
printf 'algo atomic_tree\nthreads\n' >"$tmp/bad2.plan"
BADVAL="'1..'" bad "${S[@]}" --threads 1.. --out "$tmp/x"
BADVAL="a,,b" bad "${S[@]}" --threads 1 --events a,,b --out "$tmp/x"
BADVAL="'0'" bad "${S[@]}" --threads 0 --out "$tmp/x"
BADVAL="'3..2'" bad "${S[@]}" --threads 1,3..2 --out "$tmp/x"
BADVAL="'5000'" bad "${S[@]}" --threads 5000 --out "$tmp/x"
BADVAL="'everywhere'" bad "${S[@]}" --threads 1 --placement compact,everywhere --out "$tmp/x"
BADVAL="needs ';'" bad "${S[@]}" --threads 1 --placement compact,list:0,1 --out "$tmp/x"
BADVAL="--out" bad "${S[@]}" --threads 1
BADVAL="--resume" bad "${S[@]}" --threads 1 --out "$tmp/a.jsonl"
BADVAL="$tmp/bad.plan:3: unknown option 'bogus'" bad --plan "$tmp/bad.plan" --out "$tmp/x"
BADVAL="$tmp/bad2.plan:2: 'threads' needs a value" bad --plan "$tmp/bad2.plan" --out "$tmp/x"
# Every line of a plan is parsed as its flag is on the command line, and a bad one named by
# FILE:LINE, whether or not the command line overrides it: the plan's text goes into every result
# line (these four ran with exit 0 under an override, the unchecked text recorded in each line).
for kv in "threads 0|--threads 1|bad value '0' in --threads" "shape ring:3|--shape chain:2|bad value 'ring:3' in --shape" \
	  "algo nosuch|--algo atomic_tree|unknown algorithm 'nosuch'" "reps abc|--reps 1|bad value 'abc' for --reps"; do
	IFS='|' read -r line flag msg <<<"$kv"
	printf 'algo atomic_tree\nshape chain:2\nthreads 1\nreps 1\n' | grep -v "^${line%% *} " >"$tmp/ov.plan"
	printf '# the bad line\n%s\n' "$line" >>"$tmp/ov.plan"
	BADVAL="$tmp/ov.plan:5: $msg" bad --plan "$tmp/ov.plan" ${flag} --duration-ms 5 --warmup-ms 0 --out "$tmp/x.${line%% *}"
	BADVAL="$tmp/ov.plan:5: $msg" bad --plan "$tmp/ov.plan" --duration-ms 5 --warmup-ms 0 --out "$tmp/x.${line%% *}"
done
check "no plan with a bad line left a results file" eval '! ls "$tmp"/x.* 2>/dev/null'

# The cross-flag check of --options names the plan's line too; an overridden line is checked against
# the algorithms its plan names.
printf 'algo atomic_tree\nshape chain:2\nthreads 1\noptions fence=none\n' >"$tmp/opt.plan"
BADVAL="$tmp/opt.plan:4: bad value 'fence=none' for --options" bad --plan "$tmp/opt.plan" --out "$tmp/x"
BADVAL="$tmp/opt.plan:4: bad value 'fence=none' for --options" bad --plan "$tmp/opt.plan" --algo rstat_force \
	--options fence=update --out "$tmp/x"
printf 'algo rstat_force\nshape chain:2\nthreads 1\noptions fence=none\nreps 1\nduration-ms 5\nwarmup-ms 0\n' >"$tmp/opt2.plan"
"$B" sweep --plan "$tmp/opt2.plan" --algo rstat_llist --options lock=global --out "$tmp/opt2.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a plan's algo and options both overridden: its options checked against its own algorithm, the run goes on" eval \
	'[ $rc -eq 0 ] && parses "$tmp/opt2.jsonl" 1 && grep -q "\"options\":\"lock=global\"" "$tmp/opt2.jsonl"'
# The plan's path goes into every result line (JSON) as --note does: not UTF-8 is bad input (it was
# "out of memory" after creating an empty --out).
printf 'algo atomic_tree\nshape chain:2\nthreads 1\n' >"$tmp/"$'\xff'.plan
BADVAL="bad value for --plan (not UTF-8)" bad --plan "$tmp/"$'\xff'.plan --out "$tmp/x"
printf 'algo atomic_tree\nshape chain:2\nthreads 1\nnote caf\351\n' >"$tmp/latin1.plan"
BADVAL="plan '$tmp/latin1.plan' is not UTF-8 text" bad --plan "$tmp/latin1.plan" --out "$tmp/x"
BADVAL="'nope'" bad "${S[@]}" --threads 1 --workload update,nope --out "$tmp/x"
BADVAL="'chain:0'" bad "${S[@]}" --shape chain:0 --threads 1 --out "$tmp/x"
BADVAL="'bogus'" bad "${S[@]:2}" --algo atomic_tree,bogus --threads 1 --out "$tmp/x"
BADVAL="'fence=none'" bad "${S[@]:2}" --algo rstat_force,empty --options fence=none --threads 1 --out "$tmp/x"
BADVAL="--threads given twice ('1', then '2')" bad "${S[@]}" --threads 1 --threads 2 --out "$tmp/x"
BADVAL="--readers" bad "${S[@]}" --threads 1 --readers 2 --out "$tmp/x"
check "no bad input left a file behind" eval '[ ! -e "$tmp/x" ]'
printf '{"schema":1,"algo":"a","workload":"update","shape":"chain:2","threads":1}\nnot json\n' >"$tmp/garbage.jsonl"
BADVAL="$tmp/garbage.jsonl:2: not JSON" bad "${S[@]}" --threads 1 --out "$tmp/garbage.jsonl" --resume
# --resume never changes a file that is not a sweep's: every complete line is checked and a partial
# tail must look like the start of a result line before anything is cut (all five were cut before).
printf 'my lab notes: run 1 was 12.3 Mops/s, run 2 ...' >"$tmp/notes.txt"
printf '{"a":1}\nprecious tail' >"$tmp/mix.txt"
{ head -c 200 /dev/urandom | tr -d '\n'; printf '\n\213\377\001'; } >"$tmp/bin.dat"	# a binary line, then a tail
printf '{"algo":"x","workload":' >"$tmp/prefix-of-other.txt"; printf 'tail' >>"$tmp/prefix-of-other.txt"
head -c 3000000 /dev/zero | tr '\0' x >"$tmp/big.txt"
for f in notes.txt mix.txt bin.dat prefix-of-other.txt big.txt; do cp "$tmp/$f" "$tmp/$f.orig"; done
BADVAL="notes.txt:1: not a result line" bad "${S[@]}" --threads 1 --out "$tmp/notes.txt" --resume
BADVAL="mix.txt:1: result schema missing" bad "${S[@]}" --threads 1 --out "$tmp/mix.txt" --resume
BADVAL="bin.dat:1: not JSON" bad "${S[@]}" --threads 1 --out "$tmp/bin.dat" --resume
BADVAL="prefix-of-other.txt:1: not a result line" bad "${S[@]}" --threads 1 --out "$tmp/prefix-of-other.txt" --resume
BADVAL="big.txt:1: a line of over 1048576 bytes" bad "${S[@]}" --threads 1 --out "$tmp/big.txt" --resume
check "--resume left every one of them as it was" eval \
	'(for f in notes.txt mix.txt bin.dat prefix-of-other.txt big.txt; do
		cmp -s "$tmp/$f" "$tmp/$f.orig" || { echo "$f changed" >&2; exit 1; }; done)'

# recommend on the fixed results.
R=(recommend --results $D/recommend.jsonl --updates-per-sec 1e6 --reads-per-sec 1e3)
rec() { "$B" "${R[@]}" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# ranked ALGO...: the ranked rows, in order, are exactly these.
ranked() { [ "$(awk '$1 ~ /^[0-9]+$/ { printf "%s ", $2 }' "$tmp/out")" = "$* " ]; }
ruled_out() { sed -n '/^# ruled out:/,/^# not ranked/p' "$tmp/out" | grep -q "^  $1 .*$2"; }
clean() { [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; }

rec --depth 4 --max-staleness EXACT
check "EXACT: the five exact algorithms ranked by CPU s/s" eval \
	'clean && ranked percpu_hier rstat_force locked_tree striped atomic_tree'
check "EXACT rules out each approximate algorithm, with the reason" eval \
	'ruled_out batched_percpu "not exact: off by <= 512 (stated bound)" &&
	 ruled_out percpu_counter "not exact: off by <= 62" && ruled_out rstat_threshold "not exact: off by <= 256" &&
	 ruled_out rstat_ratelimit "not exact: stale by <= 4000 ms (2 x 2000 ms flush period)" &&
	 ruled_out rstat_unified "not exact: stale by <= one flush" &&
	 ruled_out atomic_tree_stock "not exact under updates: reads were off by 65"'
check "baselines are listed apart, never ranked" eval \
	'sed -n "/^# not ranked/,\$p" "$tmp/out" | grep -q "^  empty .*harness floor" &&
	 sed -n "/^# not ranked/,\$p" "$tmp/out" | grep -q "^  shared_atomic .*no hierarchy"'
check "the cost model, the selection rule and the machine are stated" eval \
	'grep -q "^# cost model: CPU seconds per second = U x update CPU ns/op" "$tmp/out" &&
	 grep -q "^# figures: .*never extrapolated" "$tmp/out" &&
	 grep -q "^# caveat: measured on 2 CPUs, 1 NUMA node: contention across CCXs and nodes is not in these figures" "$tmp/out"'
check "depth 4 between the measured 2 and 8: interpolated, with the lines used" eval \
	'grep -A2 "^1 *percpu_hier" "$tmp/out" | grep -q "update: chain:2 compact (line 4), chain:8 compact (line 17) at 2 threads: interpolated between depths 2 and 8"'
rec --depth 8 --max-staleness 5000ms
check "5000ms admits the time- and count-bounded ones: all 11 ranked, depth 8 as measured" eval \
	'clean && [ "$(awk "\$1 ~ /^[0-9]+\$/" "$tmp/out" | wc -l)" -eq 11 ] && ! grep -q "^# ruled out" "$tmp/out" &&
	 grep -q "depth 8 measured" "$tmp/out" && ! grep -q interpolated "$tmp/out"'
rec --depth 16 --max-staleness 1000ms
check "1000ms rules out rstat_ratelimit (up to 4000 ms); depth 16 takes the nearest, 8" eval \
	'clean && ruled_out rstat_ratelimit "more than 1000 ms" && [ "$(awk "\$1 ~ /^[0-9]+\$/" "$tmp/out" | wc -l)" -eq 10 ] &&
	 grep -q "nearest depth 8 (depth 16 not measured, not extrapolated)" "$tmp/out"'
rec --depth 4 --max-staleness 100 --threads 8
check "a count of 100 admits percpu_counter (62), not rstat_threshold (256) nor the time-bounded" eval \
	'clean && ranked percpu_hier percpu_counter rstat_force atomic_tree_stock locked_tree striped atomic_tree &&
	 ruled_out rstat_threshold "stated bound 256 > 100" && ruled_out rstat_ratelimit "not bounded by a count"'
check "--threads 8 beyond the 2 measured: said" eval \
	'grep -q "^# caveat: 8 threads asked for, at most 2 measured" "$tmp/out"'
rec --depth 4 --max-staleness 5000ms --format json
if command -v python3 >/dev/null; then
	check "--format json: one object; costs ascending and equal to U x update + R x read" python3 - "$tmp/out" <<'EOF'
import json, sys
j = json.loads(open(sys.argv[1]).read())
costs = [r["cpu_s_per_s"] for r in j["ranked"]]
assert costs == sorted(costs) and len(costs) == 11, costs
for r in j["ranked"]:
    want = 1e6 * r["update"]["ns"] * 1e-9 + 1e3 * r["read"]["ns"] * 1e-9
    assert abs(r["cpu_s_per_s"] - want) <= 1e-12 * max(1, want), r
    assert r["update"]["method"] == "interpolated" and len(r["update"]["lines"]) == 2
assert {r["algo"] for r in j["not_ranked"]} == {"empty", "shared_atomic"}
assert j["query"]["max_staleness"] == "5000ms" and j["machines"][0]["cpus_online"] == 2
EOF
fi

# A line measured with private work (--work-ns) is another cost: left out, and said, never averaged in.
rec --depth 8 --max-staleness EXACT
grep -E "^[0-9]+ +atomic_tree " "$tmp/out" >"$tmp/plain_row"
python3 - $D/recommend.jsonl >"$tmp/work.jsonl" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
print("\n".join(lines))
for l in lines:
    o = json.loads(l)
    if o["algo"] == "atomic_tree" and o["workload"] == "update" and o["shape"] == "chain:8":
        o["work_ns"], o["cpu_ns_per_op"] = 35000, 35000.0
        print(json.dumps(o))
        break
EOF
"$B" recommend --results "$tmp/work.jsonl" --updates-per-sec 1e6 --reads-per-sec 1e3 --depth 8 \
	--max-staleness EXACT >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a --work-ns line is left out of the figures and the evidence line says so" eval \
	'clean && [ -s "$tmp/plain_row" ] && grep -E "^[0-9]+ +atomic_tree " "$tmp/out" | cmp -s - "$tmp/plain_row" &&
	 grep -q "^# evidence: .*some left out: measured with private work" "$tmp/out"'

# Without --results: a quick sweep on this machine into a file it keeps, and says so: one
# line per libctr algorithm (baselines aside) and workload (update, readers).
NLIB=$("$B" list | awk '$1 != "empty" && $1 != "shared_atomic"' | wc -l)
TMPDIR=$tmp "$B" recommend --updates-per-sec 1e5 --reads-per-sec 1e4 --depth 2 --max-staleness EXACT \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "no --results: measures now into \$TMPDIR, says so, ranks only exact algorithms" eval \
	'[ $rc -eq 0 ] && grep -q "no --results: measuring now" "$tmp/err" &&
	 grep -q "measured just now on this machine" "$tmp/out" && f=$(ls "$tmp"/ctrbench-recommend-*.jsonl) &&
	 parses "$f" $((2 * NLIB)) && grep -q "^1 *percpu_hier\|^1 *atomic_tree \|^1 *rstat_force\|^1 *locked_tree\|^1 *striped\|^1 *atomic_tree_stock" "$tmp/out" &&
	 ! awk "\$1 ~ /^[0-9]+\$/ { print \$2 }" "$tmp/out" | grep -Eq "batched|percpu_counter|ratelimit|threshold|unified|empty|shared"'

BAD_PREFIX=recommend
Q=(--updates-per-sec 1e6 --reads-per-sec 10 --results $D/recommend.jsonl)
BADVAL="'5sec'" bad "${Q[@]}" --depth 4 --max-staleness 5sec
BADVAL="'0ms'" bad "${Q[@]}" --depth 4 --max-staleness 0ms
BADVAL="'-3'" bad "${Q[@]}" --depth 4 --max-staleness -3
BADVAL="--max-staleness" bad "${Q[@]}" --depth 4
BADVAL="'0'" bad "${Q[@]}" --depth 0 --max-staleness EXACT
BADVAL="'deep'" bad "${Q[@]}" --depth deep --max-staleness EXACT
BADVAL="--depth" bad "${Q[@]}" --max-staleness EXACT
BADVAL="'-1'" bad --updates-per-sec -1 --reads-per-sec 1 --depth 2 --max-staleness EXACT --results $D/recommend.jsonl
BADVAL="/no/such.jsonl" bad --updates-per-sec 1 --reads-per-sec 1 --depth 2 --max-staleness EXACT --results /no/such.jsonl
BADVAL="/dev/zero" bad --updates-per-sec 1 --reads-per-sec 1 --depth 2 --max-staleness EXACT --results /dev/zero
BADVAL="'csv'" bad "${Q[@]}" --depth 2 --max-staleness EXACT --format csv
