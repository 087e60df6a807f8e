#!/usr/bin/env bash
# cli_recommend.sh - `ctrbench recommend` with its uncertainty, on the fixed 5-rep results in
# tests/data/recommend-reps.jsonl (tests/data/README.md says how they were made): each ranked
# cost has the interval its lines' reps give (recomputed here from the file's stats), the ones
# whose intervals overlap share a rank and are marked tie, each tie names a sweep that runs
# (tried here, shortened) and measures just those; --max-staleness as a fraction of the mean
# value read (P%) and combined with a time (P%,T); a file without readers results names the
# missing measurement and the sweep that adds it.  Bad forms: one line naming the value, exit 2.
# (cli_sweep.sh holds recommend's checks on the 1-rep file: the ranking, EXACT, N, MSms.)
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_recommend.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
D=tests/data
F=$D/recommend-reps.jsonl

. tests/tap.sh

U=1e6 RD=1e3
rec() { "$B" recommend --updates-per-sec $U --reads-per-sec $RD "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
clean() { [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; }
# ranked: the ranked rows' algorithms, in order
ranked() { awk '$1 ~ /^[0-9]+$/ { printf "%s ", $2 }' "$tmp/out"; }
ruled_out() { sed -n '/^# ruled out:/,/^# not ranked/p' "$tmp/out" | grep -qF "  $1 " &&
	      sed -n '/^# ruled out:/,/^# not ranked/p' "$tmp/out" | grep "^  $1 " | grep -qF -- "$2"; }
has_py=$(command -v python3 || true)

# --- intervals and ties ---
rec --results $F --depth 4 --max-staleness 10%,2s
check "every ranked row has an interval of its cost with its coverage (5 reps x 2 figures: 88%)" eval \
	'clean && [ "$(awk "\$1 ~ /^[0-9]+\$/" "$tmp/out" | wc -l)" -ge 5 ] &&
	 ! awk "\$1 ~ /^[0-9]+\$/" "$tmp/out" | grep -v "\[[0-9.e-]*, [0-9.e-]*\] 88%" | grep -q .'
cp "$tmp/out" "$tmp/table"
rec --results $F --depth 4 --max-staleness 10%,2s --format json
cp "$tmp/out" "$tmp/json"
if [ -n "$has_py" ]; then
	check "intervals are U x update + R x read of the lines' stats lo/hi; ties are exactly the overlapping ones" \
		python3 - "$F" "$tmp/json" "$tmp/table" $U $RD <<'EOF'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
j = json.load(open(sys.argv[2]))
table = open(sys.argv[3]).read().splitlines()
U, R = float(sys.argv[4]), float(sys.argv[5])
def st(algo, wl, path):
    o = [l for l in lines if l["algo"] == algo and l["workload"] == wl][0]
    return o["stats"][path]
rows = j["ranked"]
assert len(rows) >= 5, rows
for r in rows:
    u, rd = st(r["algo"], "update", "cpu_ns_per_op"), st(r["algo"], "readers", "read_ns.mean")
    for k, end in (("cpu_s_per_s_lo", "lo"), ("cpu_s_per_s_hi", "hi")):
        want = U * u[end] * 1e-9 + R * rd[end] * 1e-9
        assert abs(r[k] - want) <= 1e-9 * want, (r["algo"], k, r[k], want)
    assert r["cpu_s_per_s_lo"] <= r["cpu_s_per_s"] <= r["cpu_s_per_s_hi"], r
    assert abs(r["coverage"] - u["level"] * rd["level"]) < 1e-12, r
# ranks: a row joins the group before it when its lo is at most the group's highest hi
rank, top, start, want = 0, None, 0, []
for i, r in enumerate(rows):
    if i and r["cpu_s_per_s_lo"] <= top:
        want.append(want[start]); top = max(top, r["cpu_s_per_s_hi"])
    else:
        start = i; want.append(i + 1); top = r["cpu_s_per_s_hi"]
assert [r["rank"] for r in rows] == want, ([r["rank"] for r in rows], want)
for r in rows:
    assert r["tie"] == (want.count(r["rank"]) > 1), r
assert any(r["tie"] for r in rows), "these results have ties (rstat_force's read interval is wide)"
assert any(not r["tie"] for r in rows), "and rows apart"
# the table says the same: rank column, "tie" where tied
trows = [l.split() for l in table if re.match(r"^[0-9]+ ", l)]
assert [(int(t[0]), t[1], "tie" in t) for t in trows] == [(r["rank"], r["algo"], r["tie"]) for r in rows], trows
# one finding per tie group, naming its algorithms, with a sweep of just those and more reps
groups = {}
for r in rows:
    if r["tie"]:
        groups.setdefault(r["rank"], []).append(r["algo"])
assert [(t["rank"], t["algos"]) for t in j["ties"]] == sorted(groups.items()), (j["ties"], groups)
for t in j["ties"]:
    assert len(t["sweep"]) == 1 and t["reps"] > 5, t
    assert ("--algo " + ",".join(t["algos"]) + " --workload update,readers --shape chain:4 --threads 2"
            " --placement compact --reps %d --duration-ms 100 --warmup-ms 20 --out tie-rank%d.jsonl"
            % (t["reps"], t["rank"])) in t["sweep"][0], t
    assert "# tie at rank %d: " % t["rank"] in open(sys.argv[3]).read()
    assert "--max-staleness 10%,2s --results tie-rank" in t["recommend"], t
    # which figures overlap between cost-order neighbours of the group: "sum" when neither alone does
    g = [r for r in rows if r["tie"] and r["rank"] == t["rank"]]
    ov = lambda a, b, k: a[k]["hi_ns"] >= b[k]["lo_ns"] and b[k]["hi_ns"] >= a[k]["lo_ns"]
    u = any(ov(a, b, "update") for a, b in zip(g, g[1:]))
    r_ = any(ov(a, b, "read") for a, b in zip(g, g[1:]))
    assert t["overlap_in"] == ("both" if u and r_ else "update" if u else "read" if r_ else "sum"), t
assert j["no_interval"] is None and j["missing"] is None
EOF
fi

# Two algorithms made equal (striped's lines given atomic_tree's figures): a tie; one made
# ten times dearer: apart.  The figures here are edited copies of measured lines, not measurements.
if [ -n "$has_py" ]; then
	python3 - "$F" "$tmp" <<'EOF'
import json, sys, copy
lines = [json.loads(l) for l in open(sys.argv[1])]
by = {(l["algo"], l["workload"]): l for l in lines}
def write(name, scale):
    out = []
    for l in lines:
        if l["algo"] == "striped":
            src = copy.deepcopy(by[("atomic_tree", l["workload"])])
            src["algo"] = "striped"
            for path in ("cpu_ns_per_op", "read_ns.mean"):
                s = src["stats"][path]
                for k in ("median", "lo", "hi"):
                    s[k] *= scale
            if src["cpu_ns_per_op"] is not None:
                src["cpu_ns_per_op"] *= scale
            if src["read_ns"]:
                src["read_ns"]["mean"] *= scale
            l = src
        out.append(json.dumps(l))
    open(sys.argv[2] + "/" + name, "w").write("\n".join(out) + "\n")
write("equal.jsonl", 1.0)
write("apart.jsonl", 10.0)
EOF
	rec --results "$tmp/equal.jsonl" --depth 4 --max-staleness EXACT
	check "equal figures: the two share a rank, both marked tie, and the tie line names both" eval \
		'clean && [ "$(grep -E "^[0-9]+ +(atomic_tree|striped) " "$tmp/out" | awk "{print \$1}" | sort -u | wc -l)" -eq 1 ] &&
		 [ "$(grep -E "^[0-9]+ +(atomic_tree|striped) .* tie " "$tmp/out" | wc -l)" -eq 2 ] &&
		 grep -Eq "^# tie at rank [0-9]+: .*(atomic_tree.*striped|striped.*atomic_tree)" "$tmp/out"'
	check "a gap of 0 cannot be separated by reps: said, not an estimate" eval \
		'grep "^# tie at rank" "$tmp/out" | grep "striped" | grep -q "even 100 reps may not separate them"'
	rec --results "$tmp/apart.jsonl" --depth 4 --max-staleness EXACT
	check "ten times dearer: striped ranks last, alone, no tie" eval \
		'clean && [ "$(ranked | awk "{print \$NF}")" = striped ] &&
		 ! grep -E "^[0-9]+ +striped " "$tmp/out" | grep -q " tie " && ! grep "^# tie" "$tmp/out" | grep -q striped'
fi

# The sweep a tie names is ready to run: run it, shortened (2 reps of 10 ms), then the recommend it names.
cmd=$(grep -m1 -A1 "^# tie at rank" "$tmp/table" | sed -n 's/^#   ctrbench sweep /sweep /p')
again=$(grep -m1 -A2 "^# tie at rank" "$tmp/table" | sed -n 's/^#   ctrbench recommend /recommend /p')
algos=$(echo "$cmd" | sed 's/.*--algo \([^ ]*\) .*/\1/' | tr , ' ')
cmd=$(echo "$cmd" | sed -e 's/--reps [0-9]*/--reps 2/' -e 's/--duration-ms [0-9]*/--duration-ms 10/' \
	-e 's/--warmup-ms [0-9]*/--warmup-ms 5/' -e "s|--out tie-rank|--out $tmp/tie-rank|")
again=$(echo "$again" | sed "s|--results tie-rank|--results $tmp/tie-rank|")
# shellcheck disable=SC2086
[ -n "$cmd" ] && "$B" $cmd >"$tmp/out" 2>"$tmp/err"
rc=$?
# shellcheck disable=SC2086
[ -n "$again" ] && "$B" $again >"$tmp/out2" 2>"$tmp/err2"
rc2=$?
check "the tie's sweep runs as printed (shortened) and its recommend ranks exactly the tied ones" eval \
	'[ -n "$cmd" ] && [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ -n "$algos" ] &&
	 [ "$(awk "\$1 ~ /^[0-9]+\$/ { print \$2 }" "$tmp/out2" | sort | tr "\n" " ")" = "$(echo $algos | tr " " "\n" | sort | tr "\n" " ")" ]'

# One rep per line: no interval, said, with the sweep that gives intervals.
rec --results $D/recommend.jsonl --depth 4 --max-staleness EXACT
check "1-rep results: each row says 'none (1 rep)', no tie claimed, and the reps sweep is named" eval \
	'clean && ! awk "\$1 ~ /^[0-9]+\$/" "$tmp/out" | grep -v "none (1 rep)" | grep -q . && ! grep -q " tie " "$tmp/out" &&
	 grep -q "^# no interval for percpu_hier, .*: one repetition per line" "$tmp/out" &&
	 grep -q "^#   ctrbench sweep --algo percpu_hier,rstat_force,locked_tree,striped,atomic_tree --workload update,readers --shape chain:2,chain:8 --threads 2 --placement compact --reps 5 " "$tmp/out"'

# --- staleness as a fraction, and combined ---
rec --results $F --depth 4 --max-staleness 1%
check "a tie whose figures do not overlap alone, only their sum, says so" eval \
	'grep "^# tie at rank 1: rstat_force and percpu_hier" "$tmp/out" | grep -q "in the sum only: neither figure"'
check "1% (of 1024, the mean value read at chain:4 with 2 updaters): only the exact ones, the rest say why" eval \
	'clean && [ "$(ranked | tr " " "\n" | sort | tr "\n" " ")" = "atomic_tree locked_tree percpu_hier rstat_force striped " ] &&
	 ruled_out percpu_counter "stated bound 62 > 10.24 (1% of the mean value read, 1024)" &&
	 ruled_out rstat_unified "not bounded by a count: stale by <= one flush" &&
	 ruled_out rstat_unified "(a time too, like 1%,2s, admits it on its observed error)"'
rec --results $F --depth 4 --max-staleness 10%
check "10% (102.4): admits percpu_counter (bound 62), not batched_percpu (256) nor the time-bounded" eval \
	'clean && ranked | grep -qw percpu_counter && ruled_out batched_percpu "stated bound 256 > 102.4" &&
	 ruled_out rstat_unified "not bounded by a count" && ruled_out rstat_ratelimit "not bounded by a count"'
rec --results $F --depth 4 --max-staleness 10%,2s
check "10%,2s: admits rstat_unified (one flush, observed 0); rstat_ratelimit fails both (4000 ms, off by 1975)" eval \
	'clean && ranked | grep -qw rstat_unified && ranked | grep -qw percpu_counter &&
	 ruled_out rstat_ratelimit "observed off by 1975 > 102.4 (10% of the mean value read, 1024)"'
rec --results $F --depth 4 --max-staleness 100%,5s
check "100%,5s: the time holds for rstat_ratelimit (4000 ms) but its observed 1975 > 1024 still rules it out" eval \
	'clean && ruled_out rstat_ratelimit "observed off by 1975 > 1024 (100% of the mean value read, 1024)"'
rec --results $F --depth 4 --max-staleness 10%,1ms
check "10%,1ms: both must hold: rstat_unified's count holds (off by 0) but one flush (2.3 ms measured) > 1 ms" eval \
	'clean && ruled_out rstat_unified "stale by <= one flush (longest measured 2.277 ms): more than 1 ms"'
rec --results $F --depth 4 --max-staleness 1975,5s
check "a count and a time (1975,5s) combine too: rstat_ratelimit admitted at exactly its observed 1975" eval \
	'clean && ranked | grep -qw rstat_ratelimit'
rec --results $F --depth 4 --max-staleness 1975,3s
check "1975,3s: the time rules rstat_ratelimit out (stale by <= 4000 ms: more than 3000 ms)" eval \
	'clean && ruled_out rstat_ratelimit "more than 3000 ms"'
rec --results $F --depth 4 --max-staleness 2s
sed -e 1d -e 's/--max-staleness 2s /--max-staleness 2000ms /' "$tmp/out" >"$tmp/s"
rec --results $F --depth 4 --max-staleness 2000ms
check "2s is 2000ms" eval 'clean && sed 1d "$tmp/out" | cmp -s - "$tmp/s" && [ -s "$tmp/s" ]'

# The mean value read follows the shape: tree:2 with 2 updaters (one per leaf) reads
# 512 x (2 + 1 + 1) / 3 = 682.7 on average, so 9% is 61.44 < 62 where chain:4's 9% is 92.16.
if [ -n "$has_py" ]; then
	python3 - "$F" >"$tmp/tree.jsonl" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["algo"] == "percpu_counter" and o["workload"] == "readers":
        o["shape"] = "tree:2"
    print(json.dumps(o))
EOF
	rec --results "$tmp/tree.jsonl" --depth 4 --max-staleness 9%
	check "9% of a tree:2's mean value read (682.667): percpu_counter's 62 is over" eval \
		'clean && ruled_out percpu_counter "stated bound 62 > 61.44 (9% of the mean value read, 682.667)"'
	rec --results $F --depth 4 --max-staleness 9%
	check "9% of chain:4's (1024): admitted" eval 'clean && ranked | grep -qw percpu_counter'
fi

# --- no readers results: the missing measurement is named, with the sweep that adds it ---
grep '"workload":"update"' $F | grep -E '"algo":"(atomic_tree|percpu_counter)"' >"$tmp/upd.jsonl"
rec --results "$tmp/upd.jsonl" --depth 4 --max-staleness 1%
check "no readers lines: 'no read measurements in FILE: run ... --workload readers ... to get them', not 'none meets'" eval \
	'clean && ! grep -q "none meets" "$tmp/out" &&
	 grep -qF "(no read measurements in $tmp/upd.jsonl: run \`ctrbench sweep --algo atomic_tree,percpu_counter --workload readers --shape chain:4 --threads 2 --placement compact --reps 5 --duration-ms 100 --warmup-ms 20 --out $tmp/upd.jsonl --resume\` to get them)" "$tmp/out"'
rec --results "$tmp/upd.jsonl" --depth 4 --max-staleness 1% --format json
if [ -n "$has_py" ]; then
	check "--format json says the same: missing {workload: readers, file, sweep}" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
m = j["missing"]
assert m["workload"] == "readers" and m["file"] == sys.argv[2] and len(m["sweep"]) == 1, m
assert "--workload readers" in m["sweep"][0] and j["ranked"] == [], j' "$tmp/out" "$tmp/upd.jsonl"
fi
# ... and that sweep, run (shortened), gives recommend what it lacked.
"$B" recommend --updates-per-sec $U --reads-per-sec $RD --results "$tmp/upd.jsonl" --depth 4 --max-staleness 1% >"$tmp/out" 2>&1
cmd=$(sed -n 's/.*run `ctrbench sweep \(.*\)` to get them.*/sweep \1/p' "$tmp/out" |
	sed -e 's/--reps [0-9]*/--reps 1/' -e 's/--duration-ms [0-9]*/--duration-ms 10/' -e 's/--warmup-ms [0-9]*/--warmup-ms 5/')
# shellcheck disable=SC2086
[ -n "$cmd" ] && "$B" $cmd >"$tmp/sw" 2>"$tmp/swerr"
rc=$?
rec --results "$tmp/upd.jsonl" --depth 4 --max-staleness 100
check "the named sweep runs as printed (shortened), appends readers lines, and recommend then ranks" eval \
	'[ -n "$cmd" ] && [ "$(grep -c "\"workload\":\"readers\"" "$tmp/upd.jsonl")" -eq 2 ] &&
	 clean && [ "$(ranked | tr " " "\n" | sort | tr "\n" " ")" = "atomic_tree percpu_counter " ]'
grep '"workload":"readers"' $F >"$tmp/rd.jsonl"
rec --results "$tmp/rd.jsonl" --depth 4 --max-staleness EXACT
check "no update lines: 'no update measurements in FILE', with --workload update" eval \
	'clean && grep -q "^(no update measurements in $tmp/rd.jsonl: run \`ctrbench sweep .* --workload update .*--resume\` to get them)" "$tmp/out"'

# --- bad forms of --max-staleness ---
BAD_PREFIX=recommend
Q=(--updates-per-sec 1e6 --reads-per-sec 10 --results $F --depth 4)
for v in 1%% 0% 101% -1% 1%, ,2s 2x 5sec 1.5s % 0s 86401s 1e2 .5%; do
	BADVAL="bad value '$v' for --max-staleness: '" bad "${Q[@]}" --max-staleness "$v"
done
BADVAL="bad value '1%,2%' for --max-staleness: '2%' is a second fraction" bad "${Q[@]}" --max-staleness 1%,2%
BADVAL="bad value '1%,2s,3ms' for --max-staleness: '3ms' is a second time" bad "${Q[@]}" --max-staleness 1%,2s,3ms
BADVAL="bad value '5,6' for --max-staleness: '6' is a second count" bad "${Q[@]}" --max-staleness 5,6
BADVAL="bad value 'EXACT,2s' for --max-staleness: EXACT stands alone" bad "${Q[@]}" --max-staleness EXACT,2s
BADVAL="bad value '2s,exact' for --max-staleness: EXACT stands alone" bad "${Q[@]}" --max-staleness 2s,exact
BADVAL="bad value '0' for --counter-value" bad "${Q[@]}" --max-staleness 1% --counter-value 0
BADVAL="bad value 'lots' for --counter-value" bad "${Q[@]}" --max-staleness 1% --counter-value lots
BAD_PREFIX=

# --- P% of the user's counter, and what the results did not measure (issue 31) ---
U=2e6 RD=1e4
rec --results $D/recommend.jsonl --depth 4 --max-staleness 1%
check "1% without --counter-value: of the mean value read (1024), rstat_threshold's bound 256 over it" eval \
	'clean && ruled_out rstat_threshold "stated bound 256 > 10.24 (1% of the mean value read, 1024)"'
check "the counters the results do not hold are named as not ranked" eval \
	'grep -qx "# not in the results, so not ranked: percpu_tree, percpu_hier_delegated and rstat_llist (ctrbench sweep --algo with them, then --results)" "$tmp/out"'
rec --results $D/recommend.jsonl --depth 4 --max-staleness 1% --counter-value 1e6
check "1% of --counter-value 1e6: rstat_threshold (bound 256) and batched_percpu (512) ranked, the header says so" eval \
	'clean && ranked | grep -qw rstat_threshold && ranked | grep -qw batched_percpu &&
	 grep -q "^# recommend: .*max staleness 1% (P% of the counter.s value, 1e+06)$" "$tmp/out"'
rec --results $D/recommend.jsonl --depth 4 --max-staleness 1% --counter-value 1e6 --format json
check "... and the JSON's query and not_measured" eval \
	'clean && python3 -c "
import json, sys
o = json.load(open(sys.argv[1]))
assert o[\"query\"][\"counter_value\"] == 1e6, o[\"query\"]
assert o[\"not_measured\"] == [\"percpu_tree\", \"percpu_hier_delegated\", \"rstat_llist\"], o[\"not_measured\"]
" "$tmp/out"'
