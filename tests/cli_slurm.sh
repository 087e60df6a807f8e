#!/usr/bin/env bash
# cli_slurm.sh - a real Slurm cluster of this one node (slurmctld, slurmd and munged started here,
# everything under a scratch folder, stopped on exit; their logs kept in build/slurm-test-logs/
# when a check fails): `ctrbench slurm PLAN --submit` runs a 4-shard plan of a small sweep and
# the merged shards hold every configuration once; then one shard's task is cancelled (scancel)
# mid-run and resubmitted (--submit --shard I): every rep is there exactly once.
# Needs root (the daemons run as root) and Debian's slurmctld, slurmd, munge and slurm-client
# (scripts/install-deps.sh installs them); without them it skips, saying why.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_slurm.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
B=$(realpath "$B")
. tests/tap.sh

for p in slurmctld slurmd munged sbatch squeue scancel sinfo; do
	if ! command -v "$p" >/dev/null; then
		echo "ok # skip: no $p (scripts/install-deps.sh installs slurmctld slurmd munge slurm-client)"
		exit 0
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	echo "ok # skip: the single-node cluster runs its daemons as root"
	exit 0
fi

t0=$(date +%s)
C=$tmp/cluster
mkdir -p "$C/munge" "$C/state" "$C/spool" "$C/logs"
chmod 700 "$C/munge"
failed=0
stop_cluster() {
	local f
	for f in "$C/slurmd.pid" "$C/slurmctld.pid" "$C/munge/munged.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 0.5
	for f in "$C/slurmd.pid" "$C/slurmctld.pid" "$C/munge/munged.pid"; do
		[ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	if [ "$failed" -ne 0 ] || grep -q '^not ok' "$tmp/results" 2>/dev/null; then
		rm -rf build/slurm-test-logs && mkdir -p build/slurm-test-logs &&
			cp -r "$C/logs" "$C/slurm.conf" "$tmp/fleet" "$tmp/kill" build/slurm-test-logs/ 2>/dev/null
		echo "# the daemons' logs and the jobs' folders: build/slurm-test-logs/"
	fi
	rm -rf "$tmp"
}
trap stop_cluster EXIT
# every check also goes to $tmp/results, for the exit trap to see whether one failed
exec > >(tee "$tmp/results")

free_port() {
	python3 -c 'import socket,random
while True:
    p = random.randint(20000, 40000)
    s = socket.socket()
    try:
        s.bind(("", p)); s.close(); print(p); break
    except OSError:
        pass'
}
host=$(hostname -s)
mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
ctld_port=$(free_port)
d_port=$(free_port)
while [ "$d_port" = "$ctld_port" ]; do d_port=$(free_port); done
dd if=/dev/urandom of="$C/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$C/munge/munge.key"
cat >"$C/slurm.conf" <<CONF
ClusterName=ctrtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$C/munge/sock
CredType=cred/munge
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/logs/slurmctld.log
SlurmdLogFile=$C/logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=ctrtest Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$C/slurm.conf
munged --force -S "$C/munge/sock" --key-file="$C/munge/munge.key" --pid-file="$C/munge/munged.pid" \
	--log-file="$C/logs/munged.log" --seed-file="$C/munge/seed" 2>>"$C/logs/start.err"
slurmctld -c -i 2>>"$C/logs/start.err"
slurmd 2>>"$C/logs/start.err"
up=0
for _ in $(seq 1 60); do
	if sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then up=1; break; fi
	sleep 0.5
done
check "the single-node cluster is up (sinfo: idle, $(( $(date +%s) - t0 )) s)" test $up -eq 1
[ $up -eq 1 ] || { failed=1; exit 1; }

# How long a --submit may follow its jobs.  A sanitizer build shares the 2 CPUs with the other
# long tests (check-long): in one CI run of the ASan build, beside cli_scenario.sh's ASan tables,
# one shard's two 30 ms runs took 236.6 s where the other three took 0.3-0.4 s, and the 120 s
# follower gave up on it.
case $B in
*asan* | *tsan*) LIM=480 ;;
*) LIM=120 ;;
esac

# A 4-shard plan of a small sweep, through Slurm, and waited for.
"$B" sweep --algo empty,shared_atomic,atomic_tree,percpu_hier --threads 1,2 --shape chain:2 \
	--duration-ms 30 --warmup-ms 10 --reps 2 --dry-run --format json >"$tmp/plan.jsonl"
t1=$(date +%s)
timeout "$LIM" "$B" slurm "$tmp/plan.jsonl" --out "$tmp/fleet" --nodes-per-type 4 --submit >"$tmp/out" 2>"$tmp/err"
check "slurm --submit: exit 0 ($(( $(date +%s) - t1 )) s)" test $? -eq 0
check "it printed the sbatch line" grep -q '^sbatch --array=1-4 .*ctrbench.sbatch' "$tmp/out"
check "it showed progress per shard" grep -qE '^ctrbench: slurm: job [0-9]+: 1/4 .* 4/4 done 2/2$' "$tmp/err"
check "four shard files" test "$(ls "$tmp/fleet/results/any" | wc -l)" -eq 4
check "merged: every configuration once, every rep once, as the plan says" \
	python3 tests/shard_check.py "$tmp/plan.jsonl" - "$tmp"/fleet/results/any/*.jsonl
check "each task's log is kept" test "$(ls "$tmp/fleet/logs" | wc -l)" -eq 4

# The same, shard 1 slower; its task cancelled once its first rep is written, then resubmitted.
"$B" sweep --algo empty,shared_atomic,atomic_tree,percpu_hier --threads 1,2 --shape chain:2 \
	--duration-ms 150 --warmup-ms 10 --reps 6 --dry-run --format json >"$tmp/plan2.jsonl"
timeout "$LIM" "$B" slurm "$tmp/plan2.jsonl" --out "$tmp/kill" --nodes-per-type 4 --submit >"$tmp/out" 2>"$tmp/err" &
follower=$!
f1=$tmp/kill/results/any/shard-1-of-4.jsonl
for _ in $(seq 1 $((LIM * 10 / 4))); do	# a quarter of the follower's limit: 30 s, 120 s under a sanitizer
	grep -q '"kind":"rep"' "$f1" 2>/dev/null && break
	sleep 0.1
done
job=$(squeue -h -r -t RUNNING -o '%F %K' | awk '$2 == 1 { print $1 "_1" }')
check "shard 1 is running and has written a rep (job $job)" test -n "$job" -a -s "$f1"
scancel "$job"
wait "$follower"
rc=$?
check "the follower says shard 1 ended short (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'shard 1/4 ended short' '$tmp/err'"
before=$(grep -c '"kind":"rep"' "$f1")
check "the cancelled shard kept what it measured ($before rep lines, short of 12)" test "$before" -gt 0 -a "$before" -lt 12
timeout "$LIM" "$B" slurm "$tmp/plan2.jsonl" --out "$tmp/kill" --nodes-per-type 4 --submit --shard 1 >"$tmp/out" 2>"$tmp/err"
check "resubmitted shard 1: exit 0" test $? -eq 0
check "it ran only array task 1" grep -q '^sbatch --array=1 ' "$tmp/out"
check "after the kill and the resubmission: every configuration once, every rep once" \
	python3 tests/shard_check.py "$tmp/plan2.jsonl" - "$tmp"/kill/results/any/*.jsonl
echo "# the Slurm test took $(( $(date +%s) - t0 )) s"
