#!/usr/bin/env bash
# cli.sh - ctrbench's command line: bad input is one line naming the bad
# value with exit status 2; good runs verify and print what they promise.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
n=0

. tests/tap.sh


R=(run --workload update --shape chain:2 --threads 1 --duration-ms 10 --warmup-ms 0)
# Numbers as a command line writes them, and each option once (strtol took " 8" and "+8"; the
# last of two --threads silently won).
BADVAL="' 8'" bad run --algo atomic_tree --shape chain:2 --threads ' 8'
BADVAL="'+8'" bad run --algo atomic_tree --shape chain:2 --threads +8
BADVAL="' 2e6'" bad recommend --updates-per-sec ' 2e6' --reads-per-sec 1 --depth 2 --max-staleness EXACT
# Found by scripts/adversarial: a value with a newline made the error two lines; strtod took hex
# (0x10); --version took anything after it.
BADVAL="bad value '8?' for --threads" bad run --algo atomic_tree --shape chain:2 --threads $'8\n'
BADVAL="unknown algorithm 'atomic_tree?'" bad run --algo $'atomic_tree\n' --shape chain:2 --threads 1
BADVAL="'0x10'" bad recommend --updates-per-sec 0x10 --reads-per-sec 1 --depth 2 --max-staleness EXACT
BADVAL="unexpected argument 'extra' after --version" bad --version extra
BADVAL="--threads given twice ('1', then '2')" bad run --algo atomic_tree --shape chain:2 --threads 1 --threads 2
BADVAL="--quick given twice" bad scenario zswap-store-limit --quick --quick
# --options: each fault said apart (a key twice ran with the last; ',,' ran; a bad value was
# called a bad key), and the options recorded as parsed, sorted by key.
OR=(run --algo rstat_force --shape chain:2 --threads 1 --duration-ms 10 --warmup-ms 0 --reps 1)
BADVAL="key 'fence' given twice" bad "${OR[@]}" --options fence=none,fence=update
BADVAL="an empty item in ',,'" bad "${OR[@]}" --options ,,
BADVAL="'maybe' is not a value rstat_force takes for fence" bad "${OR[@]}" --options fence=maybe
BADVAL="key 'bogus' is not one rstat_force takes" bad "${OR[@]}" --options bogus=1
BADVAL="'ticket' is not a value rstat_force takes for lockkind" bad "${OR[@]}" --options lockkind=ticket
# rstat_threshold's reads need memcg's counts: update=plain is refused for it alone
BADVAL="'plain' is not a value rstat_threshold takes for update" bad run --algo rstat_force,rstat_threshold \
	--shape chain:2 --threads 1 --duration-ms 10 --warmup-ms 0 --reps 1 --options update=plain
"$B" "${OR[@]}" --options read=mutex,fence=update --format json >"$tmp/out" 2>"$tmp/err"
check "--options recorded sorted by key (read=mutex,fence=update is fence=update,read=mutex)" \
	grep -q '"options":"fence=update,read=mutex"' "$tmp/out"
"$B" run --algo atomic_tree,rstat_ratelimit --shape chain:2 --threads 1 --duration-ms 10 --warmup-ms 0 \
	--reps 1 --flush-period-ms 10 >"$tmp/out" 2>"$tmp/err"
check "--flush-period-ms on an algorithm with no flusher is said, once" eval \
	'[ "$(grep -c "note: --flush-period-ms 10 changes nothing for atomic_tree (no periodic flusher)" "$tmp/err")" -eq 1 ]'
# A typo in --events fails (it exited 0 listing 'abc' as unknown); --events-lenient counts the rest.
BADVAL="unknown event 'abc'" bad events --events abc
BADVAL="unknown event 'cylces'" bad run --algo atomic_tree --shape chain:2 --threads 1 --events cylces
# The --events grammar: names separated by commas, no blanks.  A blank reached libpfm4 ("bad event
# attributes"), was listed n/a and exited 0, --events-lenient or not, in every command.
for e in ' 8' '8 ' ' cycles' 'cycles, instructions' $'cycles\t'; do
	BADVAL="bad event name '" bad events --events "$e"
	BADVAL="bad event name '" bad events --events "$e" --events-lenient
done
BADVAL="empty event list in --events ''" bad events --events ''
BADVAL="empty event name in --events ','" bad events --events ,
BADVAL="empty event name in --events 'cycles,,'" bad events --events cycles,,
BADVAL="bad event name ' 8' in --events ' 8'" bad run --algo atomic_tree --shape chain:2 --threads 1 --events ' 8'
BADVAL="bad event name ' 8' in --events ' 8'" bad c2c --dry-run --events ' 8'
BADVAL="bad event name ' 8' in --events ' 8'" bad sweep --algo atomic_tree --shape chain:1 --threads 1 --events ' 8' \
	--out "$tmp/ev.jsonl"
# A bad --shape said in words (it said "bad a->shape", a C expression).
BADVAL="bad value 'chain:5000' for --shape (deeper than 4096 levels)" bad run --algo atomic_tree --shape chain:5000 --threads 1
BADVAL="bad value 'ring:3' for --shape (want chain:D" bad run --algo atomic_tree --shape ring:3 --threads 1
"$B" events --events abc,task-clock --events-lenient >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--events-lenient: the unknown name is listed with its reason, the rest counted" eval \
	'[ $rc -eq 0 ] && grep -q "^abc .*unknown event name" "$tmp/out" && grep -q "^task-clock  *ok" "$tmp/out"'
# ctrbench events names the CPU it detected (what /proc/cpuinfo says, on x86) and the bounce preset
# chosen for it, or why there is none; CTRBENCH_CPU stands in for cpuid (a testing input).
"$B" events --events task-clock >"$tmp/out" 2>"$tmp/err"
rc=$?
cpu_vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
cpu_family=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
cpu_model=$(awk -F': ' '/^model[ \t]*:/ { print $2; exit }' /proc/cpuinfo)
if [ -n "$cpu_vendor" ] && [ -n "$cpu_family" ] && [ -n "$cpu_model" ]; then
	cpu_id=$(printf '%s family 0x%x model 0x%02x' "$cpu_vendor" "$cpu_family" "$cpu_model")
	check "events names the CPU detected here ($cpu_id) and its preset or why none" eval \
		'[ $rc -eq 0 ] && head -1 "$tmp/out" | grep -qF "cpu: $cpu_id " &&
		sed -n 2p "$tmp/out" | grep -qE "^preset bounce: ([A-Z][a-z]+ .*, events from the kernel.s tools/perf/pmu-events/arch/x86/|none, no preset for $cpu_id$)"'
else
	ok "events names the CPU # SKIP no vendor_id/cpu family/model in /proc/cpuinfo (not x86)"
fi
CTRBENCH_CPU="AuthenticAMD 0x19 0x11" "$B" events --events bounce >"$tmp/out" 2>"$tmp/err"
rc=$?
check "events with CTRBENCH_CPU=Zen 4: the preset, its six fill columns" eval \
	'[ $rc -eq 0 ] && grep -q "^cpu: AuthenticAMD family 0x19 model 0x11 stepping 0, from CTRBENCH_CPU$" "$tmp/out" &&
	grep -q "^preset bounce: Zen 4, events from the kernel.s tools/perf/pmu-events/arch/x86/amdzen4/cache.json$" "$tmp/out" &&
	[ "$(grep -cE "^fill\.(local_l2|local_ccx|near_cache|far_cache|dram_near|dram_far) " "$tmp/out")" -eq 6 ]'
CTRBENCH_CPU="GenuineIntel 6 1" "$B" events --events bounce --format json >"$tmp/out" 2>"$tmp/err"
rc=$?
check "events on a CPU without a preset: 'no preset for ...', not 'no PMU', for each column" eval \
	'[ $rc -eq 0 ] && python3 - "$tmp/out" <<"PY"
import json, sys
j = json.load(open(sys.argv[1]))
why = "no preset for GenuineIntel family 0x6 model 0x01"
assert j["cpu"]["vendor"] == "GenuineIntel" and j["cpu"]["family"] == 6 and j["cpu"]["model"] == 1, j["cpu"]
assert j["preset"] is None and j["preset_reason"] == why, j
cols = [e for e in j["events"] if e["name"] not in ("cycles", "instructions")]
assert len(cols) == 6 and all(e["reason"] == why for e in cols), cols
PY'
BADVAL="bad CTRBENCH_CPU 'zen4' (want VENDOR FAMILY MODEL" CTRBENCH_CPU=zen4 bad events
# Issue 18.4: a tree that cannot fit is refused before anything is allocated (percpu_hier on
# tree:2047x2048 with 4096 slots started zero-filling 137 GB on a 23 GB machine), run and sweep alike,
# and a sweep writes no --out; --force is the way past it.
BADVAL="percpu_hier on tree:2047x2048 with 4096 slots needs 13" bad run --algo percpu_hier --threads 4096 \
	--shape tree:2047x2048
check "the refusal names the memory available (MemAvailable)" grep -q "GB available (--force to try anyway)" "$tmp/err"
BADVAL="percpu_hier on tree:2047x2048 with 4096 slots needs" bad sweep --algo atomic_tree,percpu_hier \
	--shape chain:2,tree:2047x2048 --threads 1,4096 --reps 1 --duration-ms 10 --out "$tmp/huge.jsonl"
check "a sweep refused for memory writes no --out" test ! -e "$tmp/huge.jsonl"
"$B" "${R[@]}" --algo atomic_tree --reps 1 --force >"$tmp/out" 2>"$tmp/err"
check "--force runs what fits as before" grep -q "^atomic_tree .* ok$" "$tmp/out"
# A thread the system refuses is named with its number (it said only "Resource temporarily
# unavailable"): a 100 GB stack limit makes every thread's stack a mapping the kernel refuses
# (overcommit heuristic, mode 0).
if [ "$(cat /proc/sys/vm/overcommit_memory)" = 0 ]; then
	(ulimit -s 104857600 && exec "$B" "${R[@]}" --algo atomic_tree --reps 1) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "a thread that cannot be created is named: 'cannot create thread 1 of 1: ...', exit 1" eval \
		'[ $rc -eq 1 ] && grep -q "atomic_tree: cannot create thread 1 of 1: Resource temporarily unavailable" "$tmp/err"'
fi
BADVAL=nosuch bad run --algo nosuch --workload update --shape chain:2 --threads 1
BADVAL=nosuch bad run --algo atomic_tree,nosuch --workload update --shape chain:2 --threads 1
BADVAL="chain:0" bad run --algo atomic_tree --workload update --shape chain:0 --threads 1
BADVAL="chain:8x" bad run --algo atomic_tree --workload update --shape chain:8x --threads 1
BADVAL="tree:4x" bad run --algo atomic_tree --workload update --shape tree:4x --threads 1
BADVAL="tree:4x0x2" bad run --algo atomic_tree --workload update --shape tree:4x0x2 --threads 1
BADVAL="star:3" bad run --algo atomic_tree --workload update --shape star:3 --threads 1
BADVAL="'0'" bad run --algo atomic_tree --workload update --shape chain:2 --threads 0
BADVAL="2abc" bad run --algo atomic_tree --workload update --shape chain:2 --threads 2abc
BADVAL="-5" bad run --algo atomic_tree --workload update --shape chain:2 --threads -5
BADVAL="1e3" bad run --algo atomic_tree --workload update --shape chain:2 --threads 1 --duration-ms 1e3
BADVAL="--bogus" bad run --algo atomic_tree --workload update --shape chain:2 --threads 1 --bogus
BADVAL="extra" bad run --algo atomic_tree --workload update --shape chain:2 --threads 1 extra
BADVAL="xml" bad "${R[@]}" --algo atomic_tree --format xml
BADVAL="read" bad run --algo atomic_tree --workload read --shape chain:2 --threads 1
BADVAL="--workload readers" bad run --algo atomic_tree --workload update --shape chain:2 --threads 1 --readers 2
BADVAL="'0'" bad run --algo atomic_tree --workload readers --shape chain:2 --threads 1 --readers 0
BADVAL="'top'" bad run --algo atomic_tree --workload readers --shape chain:2 --threads 1 --read-node top
BADVAL="'2'" bad run --algo atomic_tree --workload readers --shape chain:2 --threads 1 --read-node 2
BADVAL="'-1'" bad run --algo atomic_tree --workload readers --shape chain:2 --threads 1 --read-interval-us -1
BADVAL="--threads" bad run --algo atomic_tree --workload update --shape chain:2 --threads
BADVAL="frobnicate" bad frobnicate
BADVAL="list:5-2" bad "${R[@]}" --algo atomic_tree --placement list:5-2
BADVAL="list:x" bad "${R[@]}" --algo atomic_tree --placement list:x
BADVAL="list:4096" bad "${R[@]}" --algo atomic_tree --placement list:4096
BADVAL="spiral" bad "${R[@]}" --algo atomic_tree --placement spiral
BADVAL="pack:2" bad "${R[@]}" --algo atomic_tree --topology "pack:2 l3:2 core:2 pu:1"
BADVAL="node:9" bad "${R[@]}" --algo atomic_tree --shared-mem node:9
BADVAL="far" bad "${R[@]}" --algo atomic_tree --shared-mem far
BADVAL="a,,b" bad "${R[@]}" --algo atomic_tree --events a,,b
BADVAL="xml" bad events --format xml
BADVAL="1/3" bad "${R[@]}" --algo atomic_tree --sample 1/3
BADVAL="64" bad "${R[@]}" --algo atomic_tree --sample 64
BADVAL="'0'" bad "${R[@]}" --algo atomic_tree --reps 0
BADVAL="--work-ns" bad run --algo atomic_tree --workload readers --shape chain:2 --threads 1 --work-ns 100
BADVAL="'-3'" bad "${R[@]}" --algo atomic_tree --work-ns -3
BADVAL="--charge-burst" bad "${R[@]}" --algo atomic_tree --charge-burst 8
BADVAL="'0'" bad run --algo atomic_tree --workload charge --shape chain:2 --threads 1 --charge-burst 0
BADVAL="mine" bad run --algo atomic_tree --workload readers --shape chain:2 --threads 1 --read-node mine
BADVAL="fence=none" bad "${R[@]}" --algo rstat_force,atomic_tree --options fence=none
BADVAL="fence=sometimes" bad "${R[@]}" --algo rstat_force --options fence=sometimes
BADVAL="read=sometimes" bad "${R[@]}" --algo rstat_force --options read=sometimes
BADVAL="'0'" bad "${R[@]}" --algo rstat_ratelimit --flush-period-ms 0
BADVAL="'-x'" bad run -xy --algo atomic_tree --shape chain:2 --threads 1
BADVAL=",atomic_tree" bad run --algo ,atomic_tree --workload update --shape chain:2 --threads 1
BADVAL="atomic_tree,,locked_tree" bad run --algo atomic_tree,,locked_tree --workload update --shape chain:2 --threads 1
BADVAL="given twice" bad run --algo atomic_tree,atomic_tree --workload update --shape chain:2 --threads 1
BADVAL="chain:5000" bad run --algo atomic_tree --workload update --shape chain:5000 --threads 1
BADVAL="tree:3000x3000" bad run --algo atomic_tree --workload update --shape tree:3000x3000 --threads 1

# list: every algorithm of libctr and both baselines, one a line, name then summary.
"$B" list >"$tmp/list"
nalgos=$(wc -l <"$tmp/list")
for a in empty shared_atomic atomic_tree percpu_hier locked_tree rstat_force rstat_ratelimit \
	rstat_threshold rstat_unified; do
	if grep -qE "^$a +[^ ].{10,}" "$tmp/list"; then ok "list shows $a"; else nok "list shows $a"; fi
done

# The issue's acceptance command: two JSON lines, both verified.
"$B" run --algo atomic_tree,percpu_hier --workload update --shape chain:8 --threads 2 \
	--format json --duration-ms 200 >"$tmp/json"
rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
want = {"algo", "workload", "shape", "nodes", "threads", "duration_ms", "ops", "ops_per_sec",
        "update_ns", "verify", "events"}
for l, algo in zip(lines, ["atomic_tree", "percpu_hier"]):
    j = json.loads(l)
    assert want <= j.keys(), want - j.keys()
    assert j["algo"] == algo and j["verify"] == "ok" and j["shape"] == "chain:8", j
    assert j["nodes"] == 8 and j["threads"] == 2 and j["ops"] > 0 and j["ops_per_sec"] > 0
    assert set(j["update_ns"]) >= {"mean", "p50", "p90", "p99", "max"}
    u = j["update_ns"]
    assert 0 <= u["p50"] <= u["p90"] <= u["p99"] <= u["max"], u
    assert j["events"]["task_clock_ns"] > 0
    # five repetitions by default: medians with intervals, every rep's figures
    assert j["reps_done"] == 5 and len(j["reps"]) == 5, j
    s = j["stats"]["ops_per_sec"]
    assert s["lo"] <= s["median"] <= s["hi"] and abs(s["level"] - 0.9375) < 1e-9, s
    assert j["ops_per_sec"] == s["median"]
PY
then ok "run --format json: two verified lines with the promised fields, medians of 5 reps"; else nok "run --format json (exit $rc)"; cat "$tmp/json" | sed 's/^/#   /'; fi

# readers: rstat_ratelimit reads are visibly stale under updates, rstat_force's are exact at rest,
# and the flush figures are there for the rstat algorithms only.
"$B" run --reps 1 --algo rstat_force,rstat_ratelimit,atomic_tree --workload readers --readers 2 --shape chain:4 \
	--threads 2 --duration-ms 300 --warmup-ms 50 --format json >"$tmp/readers"
rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/readers" <<'PY'
import json, sys
j = {r["algo"]: r for r in map(json.loads, open(sys.argv[1]))}
assert j["rstat_ratelimit"]["read_error"]["max_abs"] > 0, j["rstat_ratelimit"]["read_error"]
assert j["rstat_force"]["read_error_at_rest"] == 0 and j["rstat_force"]["read_error"]["max_abs"] == 0
assert j["atomic_tree"]["flush"] is None and j["rstat_force"]["flush"]["flushes"] > 0
for r in j.values():
    assert r["verify"] == "ok" and r["reads"] > 0 and set(r["read_ns"]) >= {"p50", "p999", "max"}
PY
then ok "readers: ratelimit stale under updates, force exact, flush figures"; else nok "readers workload (exit $rc)"; sed 's/^/#   /' "$tmp/readers"; fi

# options=read=batch: the reader-side figures, per read, in the JSON and the table.
"$B" run --reps 1 --algo rstat_force,rstat_unified --workload readers --readers 16 --shape chain:4 \
	--threads 2 --duration-ms 200 --warmup-ms 20 --options read=batch --format json >"$tmp/batch"
rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/batch" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    f = r["flush"]
    assert r["verify"] == "ok" and r["options"] == "read=batch" and r["read_error_bound"] == 0, r
    # a read is counted as it returns, its flush as it ends: at the window's edges they can differ
    # by the reads in flight (one per reader); every read that needed a flush did one or shared one
    assert 0 < f["reader_flushes"] <= f["flushes"] + r["readers"], f
    assert f["reads_flush"] == f["reader_flushes"] + f["reads_shared"], f
    assert f["reads_flush"] > 0 and f["sem_fallbacks"] == 0 and f["reader_wait_ns"] >= 0, f
    assert abs(f["reader_flushes_per_read"] - f["reader_flushes"] / r["reads"]) < 1e-9, f
    assert f["flushes_per_read"] > 0 and f["lock_wait_ns_per_read"] >= 0, f
    assert abs(f["reader_flushes_per_flush_read"] - f["reader_flushes"] / f["reads_flush"]) < 1e-9, f
PY
then ok "--options read=batch: reader flush figures in the JSON"; else nok "--options read=batch (exit $rc)"; sed 's/^/#   /' "$tmp/batch"; fi
"$B" run --reps 1 --algo rstat_force --workload readers --readers 4 --shape chain:2 --threads 1 \
	--duration-ms 50 --warmup-ms 0 --options read=mutex --wide >"$tmp/mutex"
if grep -qE '^  read flushes +[0-9.e+-]+ flushes/read, lock wait [0-9]+ ns/read; of [0-9]+ reads that needed one [0-9]+ flushed \(1\), 0 were served' "$tmp/mutex"; then
	ok "--options read=mutex: table shows flushes per read and lock wait"
else nok "--options read=mutex table"; sed 's/^/#   /' "$tmp/mutex"; fi

# Every algorithm and baseline runs both workloads on a bushy tree, more threads than CPUs.
for w in update charge readers; do
	"$B" run --reps 1 --algo all --workload $w --shape tree:3x2x2 --threads 5 --duration-ms 50 \
		--warmup-ms 10 --format csv >"$tmp/csv"
	rc=$?
	rows=$(tail -n +2 "$tmp/csv" | wc -l)
	mism=$(grep -c ',mismatch,' "$tmp/csv")
	if [ $rc -eq 0 ] && [ "$rows" -eq "$nalgos" ] && [ "$mism" -eq 0 ] && head -1 "$tmp/csv" | grep -q '^schema,algo,'; then
		ok "run --workload $w on tree:3x2x2 with 5 threads: $rows csv rows, none mismatched"
	else
		nok "run --workload $w (exit $rc, $rows rows, $mism mismatches)"; sed 's/^/#   /' "$tmp/csv"
	fi
done

# charge: some charges are refused, none of the exact algorithms ends over a limit.
"$B" run --reps 1 --algo atomic_tree,locked_tree --workload charge --shape chain:4 --threads 3 \
	--duration-ms 100 --format json >"$tmp/charge"
if python3 - "$tmp/charge" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    assert j["verify"] == "ok" and 0 < j["charge_fail"] < j["ops"] and j["limit_max_over"] <= 0, j
    assert j["sampled_op"] == "try_charge" and j["update_ns"]["samples"] > 0, j
PY
then ok "charge: refusals happen, exact algorithms stay within limits"; else nok "charge workload"; fi

# Placement and events in the JSON: requested and observed PUs, pair classes, no-PMU reasons.
"$B" run --reps 1 --algo atomic_tree --workload update --shape chain:2 --threads 3 --duration-ms 50 \
	--placement scatter --events bounce,task-clock --shared-mem interleave --format json >"$tmp/place"
rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/place" "$(nproc)" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read())
n = int(sys.argv[2])
assert j["placement"] == "scatter" and len(j["cpu_requested"]) == 3 and len(j["cpu_observed"]) == 3
assert all(0 <= c < n for c in j["cpu_requested"] + j["cpu_observed"]), j
assert j["placement_wrapped"] == (3 > n) and sum(j["pairs"].values()) == 3, j["pairs"]
assert j["events"]["task-clock"] > 0 and j["events_per_op"]["task-clock"] > 0
for e in ("cycles", "instructions"):
    # counted where there is a PMU; here (a KVM guest without one) a reason instead
    assert (j["events"][e] is None) == (e in j["events_unavailable"]), j
    assert j["events"][e] is not None or "no PMU" in j["events_unavailable"][e], j
assert j["shared_mem"] == "interleave" and j["bind_failures"] == 0
PY
then ok "run --placement scatter --events bounce: PUs, pairs and event reasons recorded"; else nok "placement/events JSON (exit $rc)"; sed 's/^/#   /' "$tmp/place"; fi

# The table names its columns and verifies.
"$B" run --reps 1 --algo percpu_hier --workload update --shape chain:32 --threads 1 --duration-ms 20 >"$tmp/table"
if grep -q '^algo .*ops/s.*verify' "$tmp/table" && grep -qE '^percpu_hier .* ok$' "$tmp/table"; then
	ok "table output"; else nok "table output"; sed 's/^/#   /' "$tmp/table"; fi

# Interrupted: what was measured is printed, as medians of the reps done, and the exit says so.
"$B" run --algo atomic_tree,percpu_hier --workload update --shape chain:2 --threads 1 --reps 8 \
	--duration-ms 300 --warmup-ms 0 --format json >"$tmp/int" 2>"$tmp/interr" &
pid=$!
sleep 2.5
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 1 ] && grep -q interrupted "$tmp/interr" && python3 - "$tmp/int" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2 and all(1 <= l["reps_done"] < l["reps_requested"] == 8 and l["verify"] == "ok"
                               for l in lines), lines
PY
then ok "SIGINT: the reps already measured are printed, exit 1"; else nok "SIGINT handling (exit $rc)"; cat "$tmp/interr"; fi
# The table says how many of the reps asked for were done (it said "reps 3:", as if 3 were asked).
"$B" run --algo atomic_tree --workload update --shape chain:2 --threads 1 --reps 8 \
	--duration-ms 300 --warmup-ms 0 >"$tmp/int" 2>"$tmp/interr" &
pid=$!
sleep 1.8
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: the table's reps line says K of 8" eval \
	'[ $rc -eq 1 ] && grep -Eq "^  reps +[1-7] of 8: " "$tmp/int" && ! grep -Eq "^  reps +[0-9]+:" "$tmp/int"'
