#!/usr/bin/env bash
# cli_project_model.sh - issue 27's acceptance checks of the projection's model, through the CLI:
#  1. every algorithm `ctrbench list` shows x every workload the model takes x every lockkind the
#     algorithm takes (all discovered from the tool and docs/algorithms.md, no hand list) projects
#     on a small synthetic topology within a wall-time limit: exit 0 and its projected line;
#  2. the same command twice gives the same bytes; --seed changes the jitter and nothing else;
#  3. known answers on one contended line for N = 2..16 threads: it serialises (ns/op at least
#     N x the line's busy time per op, from the transfers the model booked and the calibration it
#     printed), an owner keeps it for `burst` RMWs, and the total is flat or falling;
#  4. one shared atomic from 2 to 192 threads, scatter on 2 x 12 L3s: the total flat or falling;
#  5. the issue's two commands that hung on the default lockkind=spin finish.
# Every projection runs under `timeout`: a hang is a failure, not a stuck test run.
# Usage: cli_project_model.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

# Under the sanitizers every access of the model's is checked: fewer operations there, the same
# configurations (the whole file stays under ~3 minutes on a 2-CPU machine either way).  The known
# answers (KOPS) keep 200 ops a thread: at 100 (6 bursts of 16 RMWs) the window's edges moved
# shared_atomic's compact total from 174.9 to 183.9 M ops/s between N=2 and N=4, past the 5% the
# check allows, where at 200 it is 174.9 to 177.4 (N=192 scatter: 1.4 s under ASan, not 1.0 s).
case $B in
*asan* | *tsan*) SLOW=1 OPS=60 KOPS=200 HOPS=30 LIM=90 ;;
*) SLOW=0 OPS=200 KOPS=200 HOPS=300 LIM=30 ;;
esac

SMALL="pack:1 l3:2 core:2 pu:1"
GENOA1="pack:2 [numa] l3:12 core:8 pu:1"

# ---- 1. the matrix, driven by the registry ----
algos=$("$B" list | awk 'NF { print $1 }')
# the workloads the model takes, as project --help names them ("update (default), charge or readers")
workloads=$("$B" project --help | sed -n 's/^ *--workload W *//p' | tr -c 'a-z\n' ' ' |
	tr ' ' '\n' | grep -vxE 'default|or|' | tr '\n' ' ')
check "project --help names the workloads (found: $workloads)" eval \
	'[ "$(echo $workloads | wc -w)" -ge 3 ] && for w in update charge readers; do echo " $workloads " | grep -q " $w "; done'
# lockkind's values, from the one place that documents them (the registry has no listing of them)
lockvals=$(grep -o 'lockkind=[a-z_|]*' docs/algorithms.md | sed 's/^lockkind=//' | grep '|' | head -1 | tr '|' ' ')
check "docs/algorithms.md documents lockkind's values (found: $lockvals)" test "$(echo $lockvals | wc -w)" -ge 2

# Combinations the model may refuse: each with the one-line reason it gives (exit 2).  The issue
# says every combination must finish, so there are none.
allowed_refusals=()

# Whether algorithm $1 takes the lockkind option, asked of the tool: a bad value of a key it
# takes is refused as a value, a key it does not take as a key.
takes_lockkind() {
	timeout 30 "$B" project --algo "$1" --shape chain:1 --threads 2 --ops 2 --topology "$SMALL" \
		--options lockkind=no-such-kind 2>&1 >/dev/null | grep -q "is not a value .* for lockkind"
}

nr=0 nrl=0
matrix_ok=1
for a in $algos; do
	kinds=("")
	if takes_lockkind "$a"; then
		kinds=()
		for k in $lockvals; do kinds+=("lockkind=$k"); done
		nrl=$((nrl + 1))
	fi
	for w in $workloads; do
		for k in "${kinds[@]}"; do
			nr=$((nr + 1))
			start=$SECONDS
			timeout $LIM "$B" project --algo "$a" --workload "$w" --shape chain:2 --threads 4 --ops $OPS \
				--reads 4 --topology "$SMALL" ${k:+--options "$k"} >"$tmp/m.out" 2>"$tmp/m.err"
			rc=$?
			what="$a --workload $w${k:+ --options $k}"
			if [ $rc -eq 0 ] && grep -q "^$a " "$tmp/m.out" && [ ! -s "$tmp/m.err" ]; then
				[ $((SECONDS - start)) -ge 5 ] && echo "#   $what: $((SECONDS - start)) s"
				continue
			fi
			reason=$(head -1 "$tmp/m.err")
			allowed=0
			if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/m.err")" -eq 1 ] && [ ! -s "$tmp/m.out" ]; then
				for r in "${allowed_refusals[@]}"; do
					case $reason in *"$r"*) allowed=1 ;; esac
				done
			fi
			if [ $allowed = 1 ]; then
				echo "#   refused, as listed: $what: $reason"
			else
				matrix_ok=0
				[ $rc -eq 124 ] && reason="no result in ${LIM} s (timeout)"
				echo "#   $what: exit $rc after $((SECONDS - start)) s: $reason"
			fi
		done
	done
done
check "every algorithm x workload x lockkind projects on '$SMALL', 4 threads, each within $LIM s ($nr projections, $nrl algorithms with a lockkind)" \
	test $matrix_ok = 1
check "the matrix covered the registry: the baselines and at least one algorithm with a lockkind" eval \
	'echo "$algos" | grep -qx shared_atomic && echo "$algos" | grep -qx empty && [ $nrl -ge 1 ]'

# ---- 2. determinism ----
# Readers storming rstat_force's flush lock (lockkind=spin, the default) beside 4 updaters, readers
# pausing between reads so that the jitter has something to act on.
D0=(project --algo rstat_force --workload readers --readers 4 --shape chain:2 --threads 4 --ops $OPS
	--reads 6 --topology "pack:1 l3:2 core:2 pu:2" --options lockkind=spin)
D=("${D0[@]}" --read-interval-us 5)
# model_seconds in the JSON is the model's own wall time, the one figure that is not the model's.
nomodelsecs() { python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l); r.pop("model_seconds", None); print(json.dumps(r))' "$1"; }
for i in 1 2; do
	timeout $LIM "$B" "${D[@]}" >"$tmp/d$i.txt" 2>"$tmp/d$i.err"
	echo "rc $?" >>"$tmp/d$i.txt"
	timeout $LIM "$B" "${D[@]}" --format json >"$tmp/d$i.json" 2>>"$tmp/d$i.err"
done
check "readers on rstat's spin lock twice: the table byte-identical" eval \
	'grep -q "^rstat_force " "$tmp/d1.txt" && cmp "$tmp/d1.txt" "$tmp/d2.txt" && [ ! -s "$tmp/d1.err" ]'
check "readers on rstat's spin lock twice: the JSON line identical (but model_seconds, the model's wall time)" eval \
	'[ -s "$tmp/d1.json" ] && cmp <(nomodelsecs "$tmp/d1.json") <(nomodelsecs "$tmp/d2.json")'

# Where the harness's own allocations put libctr's is not the model's: two algorithms in either
# order, as JSON (whose library hashes with a random seed, shifting the heap between projections),
# give each algorithm the same record.
DA=(project --workload readers --readers 2 --shape chain:4 --threads 4 --ops $OPS --reads 4
	--topology "pack:1 l3:2 core:2 pu:1" --format json)
byalgo() { python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
for r in rs: r.pop("model_seconds", None)
print("\n".join(json.dumps(r, sort_keys=True) for r in sorted(rs, key=lambda r: r["algo"])))' "$1"; }
for i in 1 2 3; do
	timeout $LIM "$B" "${DA[@]}" --algo atomic_tree,rstat_force >"$tmp/o$i.json" 2>&1
done
timeout $LIM "$B" "${DA[@]}" --algo rstat_force,atomic_tree >"$tmp/o4.json" 2>&1
check "atomic_tree,rstat_force as JSON three times and in the other order: every algorithm's record the same" eval \
	'[ "$(wc -l <"$tmp/o1.json")" = 2 ] && for i in 2 3 4; do cmp <(byalgo "$tmp/o1.json") <(byalgo "$tmp/o$i.json") || exit 1; done'

# --seed and the jitter switch, as project --help names them
help=$("$B" project --help 2>&1)
nojit=$(echo "$help" | grep -o -- '--no-jitter' | head -1)
[ -z "$nojit" ] && echo "$help" | grep -qE -- '--jitter +(on|off|0|1)' && nojit="--jitter off"
if echo "$help" | grep -q -- '--seed' && [ -n "$nojit" ]; then
	# the model's own run time, where the table prints it, is left out here: the byte-identical
	# check above is about that one; these are about the seed
	sameseed() { cmp <(grep -v -e 'here (its own cost' "$1") <(grep -v -e 'here (its own cost' "$2"); }
	seedless() { cmp <(grep -v -e seed -e 'here (its own cost' "$1") <(grep -v -e seed -e 'here (its own cost' "$2"); }
	run_seed() { # OUT ARGS...: the table, then the exit status
		local out=$1
		shift
		timeout $LIM "$B" "${D[@]}" "$@" >"$out" 2>&1
		echo "rc $?" >>"$out"
	}
	run_seed "$tmp/s1a" --seed 1
	run_seed "$tmp/s1b" --seed 1
	check "--seed 1 twice: identical (but the model's own run time)" eval 'grep -q "^rstat_force " "$tmp/s1a" && sameseed "$tmp/s1a" "$tmp/s1b"'
	run_seed "$tmp/n1" --seed 1 $nojit
	run_seed "$tmp/n2" --seed 2 $nojit
	# a seed may be printed in the header: it is the one line allowed to differ
	check "$nojit: --seed 1 and --seed 2 identical but a line naming the seed" eval \
		'grep -q "^rstat_force " "$tmp/n1" && seedless "$tmp/n1" "$tmp/n2"'
	# with no pause between reads the jitter has nothing to act on: the seed changes nothing.
	# Two readers, not D0's four: four spinning on the flush lock with no pause starve one of
	# them in the model (a reader on an SMT sibling never wins the line; the run goes on to the
	# 0.1 s of virtual time that declares it STARVED, 11 s of CPU here), and on a loaded CI
	# machine that ran past $LIM s in one of the two runs.
	Z=(project --algo rstat_force --workload readers --readers 2 --shape chain:2 --threads 4 --ops $OPS
		--reads 6 --topology "pack:1 l3:2 core:2 pu:2" --options lockkind=spin)
	for s in 1 2; do
		timeout $LIM "$B" "${Z[@]}" --read-interval-us 0 --seed $s >"$tmp/z$s" 2>&1
		echo "rc $?" >>"$tmp/z$s"
	done
	check "--read-interval-us 0 (nothing to jitter): --seed 1 and --seed 2 identical but a line naming the seed" eval \
		'grep -q "^rstat_force " "$tmp/z1" && seedless "$tmp/z1" "$tmp/z2"'
else
	nok "project --help names --seed and a switch for the readers' jitter (issue 27.3, 27.4)"
fi

# ---- 3. known answers on one line ----
# ka ALGO N PLACEMENT TOPOLOGY: one projection, table and JSON, into $tmp/ka-ALGO-N.{txt,json}
ka() {
	local f="$tmp/ka-$1-$2"
	timeout $LIM "$B" project --algo "$1" --shape chain:1 --threads "$2" --placement "$3" --topology "$4" \
		--ops $KOPS >"$f.txt" 2>"$f.err"
	echo $? >"$f.rc"
	timeout $LIM "$B" project --algo "$1" --shape chain:1 --threads "$2" --placement "$3" --topology "$4" \
		--ops $KOPS --format json >"$f.json" 2>>"$f.err"
}
# The known answer, from the figures the projection printed (its header) and the transfers it
# booked (its JSON): one line serves one access at a time, so over the measured window each op
# keeps it busy for the transfers that brought it (x_k of class k per op, c_k ns each) and, on the
# ops that found it held (1 - sum x_k of them), a hit (an RMW hit for RMWs, a plain hit for stores).
# So the window (virtual_s) is at least all ops x that busy time (less 2%: the window's edges), and
# N threads issuing back to back queue for it: ns/op >= N x busy, less 3% and, where an owner keeps
# the line for a burst, burst / ops more (a thread left alone at the end runs its last burst or so
# uncontended).  RMWs: the model's rule is an owner keeping the line for `burst` RMWs (a calibration
# figure it prints) before a queued request takes it, so sum x_k <= 1/burst and the bound is N x
# (transfer + (burst - 1) x RMW hit) / burst at most.  Stores (=false-shared): one transfer per
# store, as --validate's known answer says.  And the total N / (ns/op) flat or falling with N (5%).
cat >"$tmp/ka.py" <<'PY'
import json, re, sys
kind, files = sys.argv[1], sys.argv[2:]	# rmw, rmw-mix, rmw+burst or store
classes = ["smt", "ccx", "xccx", "xccx_rh", "socket", "dram"]
bad, tput, eff = [], [], []
for f in files:
    txt = open(f + ".txt").read()
    rc = open(f + ".rc").read().strip()
    if rc != "0":
        bad.append("%s: exit %s: %s" % (f.split("/")[-1], rc, open(f + ".err").readline().strip()[:200]))
        continue
    hdr = "\n".join(l for l in txt.splitlines() if l.startswith("#"))
    one = re.search(r"one-way ns:(.*)", hdr).group(1)
    c = {k: float(re.search(r"(?<![a-z_])%s ([0-9.]+)" % k, one).group(1)) for k in classes}
    hit = float(re.search(r"(?<!RMW )hit ([0-9.]+)", hdr).group(1))
    rmw = float(re.search(r"RMW hit ([0-9.]+)", hdr).group(1))
    m = re.search(r"burst[^0-9\n]*([0-9.]+)", hdr)
    burst = float(m.group(1)) if m else None
    r = json.loads(open(f + ".json").readline())
    n, ops = r["threads"], r["ops"]
    x = r["transfers_per_op"]
    xs = sum(x[k] for k in classes)
    lo = r["ns_per_op"]["overlap"]
    busy = sum(x[k] * c[k] for k in classes) + max(0.0, 1 - xs) * (rmw if kind.startswith("rmw") else hit)
    want = n * busy
    tol = 0.03 + (burst / (ops / n) if burst and kind.startswith("rmw") else 0)
    note = "N=%d: %.3f transfers/op, ns/op %.1f..%.1f, N x busy %.1f; window %.0f ns, ops x busy %.0f" % (
        n, xs, lo, r["ns_per_op"]["serial"], want, r["virtual_s"] * 1e9, ops * busy)
    print("#   " + note)
    # 5%: the window's edges, and the model's 4-hit lookahead (sched.c) lets a requester's stall end
    # that much before the owner's last RMW of a burst is done
    if r["virtual_s"] * 1e9 < 0.95 * ops * busy:
        bad.append("the window shorter than its ops x the line's busy time: " + note)
    if lo < (1 - tol) * want:
        bad.append("ns/op below N x the line's busy time (less %.0f%%): %s" % (tol * 100, note))
    if kind == "store" and xs < 0.98:
        bad.append("stores moved the line on under 1 op in 1: " + note)
    if kind == "rmw+burst":
        if burst is None:
            bad.append("no burst figure in the calibration header")
        elif not 0 < xs <= 1.1 / burst:
            bad.append("transfers/op %.3f, not in (0, 1/burst] (burst %g): %s" % (xs, burst, note))
    tput.append((n, n / lo * 1e3 if lo > 0 else float("inf")))
    eff.append((n, n * busy / lo if lo > 0 else float("inf")))
# rmw-mix: where the placement changes the transfer classes with N (scatter: at N=2 every handover
# crosses the socket, at N=4 some stay in a package), the total per unit of the line's busy time
# (N x busy / ns per op, at most 1) is what must not rise; the raw total may, as the classes cheapen
for (n0, t0), (n1, t1) in zip(tput, tput[1:]):
    if kind != "rmw-mix" and t1 > 1.05 * t0:
        bad.append("total rises from N=%d to N=%d: %.1f to %.1f M ops/s" % (n0, n1, t0, t1))
for (n0, e0), (n1, e1) in zip(eff, eff[1:]):
    if e1 > 1.05 * e0:
        bad.append("total per line-busy time rises from N=%d to N=%d: %.3f to %.3f" % (n0, n1, e0, e1))
print("#   total M ops/s: " + ", ".join("N=%d %.1f" % p for p in tput))
print("#   total per line-busy time (N x busy / ns per op): " + ", ".join("N=%d %.3f" % p for p in eff))
for b in bad:
    print("#   " + b)
sys.exit(1 if bad or not tput else 0)
PY
for a in shared_atomic atomic_tree; do
	fs=()
	for n in 2 4 8 16; do
		ka $a $n compact "$GENOA1"
		fs+=("$tmp/ka-$a-$n")
	done
	check "$a chain:1, N = 2, 4, 8, 16 compact on '$GENOA1': the window >= ops x the line's busy time, ns/op >= N x it, at most 1/burst transfers per op, total flat or falling" \
		python3 "$tmp/ka.py" rmw+burst "${fs[@]}"
done
ka "=false-shared" 2 compact "$GENOA1"
if [ "$(cat "$tmp/ka-=false-shared-2.rc")" = 2 ] && grep -q "unknown.*'=false-shared'" "$tmp/ka-=false-shared-2.err"; then
	ok "=false-shared, N = 2..16: one transfer per store, ns/op >= N x transfer # SKIP the CLI does not take the model's patterns as --algo"
else
	fs=("$tmp/ka-=false-shared-2")
	for n in 4 8 16; do
		ka "=false-shared" "$n" compact "$GENOA1"
		fs+=("$tmp/ka-=false-shared-$n")
	done
	check "=false-shared (stores, no burst), N = 2, 4, 8, 16 compact: 1 transfer per op, ns/op >= N x transfer, total flat or falling" \
		python3 "$tmp/ka.py" store "${fs[@]}"
fi

# ---- 4. one shared atomic, 2 to 192 threads scattered over 2 x 12 L3s ----
if [ $SLOW = 1 ]; then NS="2 8 24 96 192"; else NS="2 4 8 16 24 48 96 144 192"; fi
for a in shared_atomic atomic_tree; do
	fs=()
	for n in $NS; do
		ka $a $n scatter "$GENOA1"
		mv "$tmp/ka-$a-$n.txt" "$tmp/sc-$a-$n.txt"; mv "$tmp/ka-$a-$n.json" "$tmp/sc-$a-$n.json"
		mv "$tmp/ka-$a-$n.rc" "$tmp/sc-$a-$n.rc"; mv "$tmp/ka-$a-$n.err" "$tmp/sc-$a-$n.err"
		fs+=("$tmp/sc-$a-$n")
	done
	# the issue's known answer is the shared atomic's total; atomic_tree's update (its ref's loads
	# around the RMW) orders the handovers otherwise, and at N=4 a quarter stay in a package
	if [ $a = shared_atomic ]; then k=rmw w="total ops/s"; else k=rmw-mix w="total per line-busy time"; fi
	check "$a chain:1 scatter on '$GENOA1', N = ${NS// /, }: ns/op >= N x the line's busy time, $w flat or falling (5%)" \
		python3 "$tmp/ka.py" $k "${fs[@]}"
done

# ---- 5. the issue's two commands that hung on the default lockkind=spin ----
start=$SECONDS
timeout 150 "$B" project --algo rstat_force --workload charge --shape chain:1 --threads 20 --placement scatter \
	--topology "pack:2 [numa] l3:5 core:4 pu:2" --work-ns 35000 --ops $HOPS >"$tmp/h1.out" 2>"$tmp/h1.err"
rc=$?
check "rstat_force charge, 20 threads scatter on 80 PUs, --ops $HOPS, lockkind=spin: projected (exit $rc, $((SECONDS - start)) s)" eval \
	'[ $rc -eq 0 ] && grep -q "^rstat_force " "$tmp/h1.out" && [ ! -s "$tmp/h1.err" ]'
# `scenario zswap-store-limit --project` hung on its first row for the same reason (a flush's
# waiter spinning on a flag the single-threaded model could not release).  Its table on the seed's
# 80 PUs is in docs/results/proj-zswap-store-limit.jsonl (depths 1-8 projected, 32 timed out
# after 150 s); even on 24 PUs at --ops 10 it takes the model about 2 minutes here (the convoy of
# 20 flushers over 102 stats per slot at depth 32), too long for this test: the command above is
# the configuration its first row hung on, as the issue found.
