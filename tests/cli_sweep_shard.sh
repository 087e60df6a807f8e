#!/usr/bin/env bash
# cli_sweep_shard.sh - `sweep --dry-run --format json` writes the configurations, one line each
# with its id; `sweep --configs FILE --shard I/N --out DIR` runs shard I of them into
# DIR/shard-I-of-N.jsonl.  The 4 shards merged hold the same configurations (ids and identity
# fields) as one sweep of the same options, each once; a shard rerun with --resume measures
# nothing more; bad input is refused with one line, nothing written.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_sweep_shard.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

opts=(--algo empty,shared_atomic,atomic_tree,percpu_hier --threads 1,2 --shape chain:2
	--duration-ms 20 --warmup-ms 10 --reps 2)
"$B" sweep "${opts[@]}" --dry-run --format json >"$tmp/c.jsonl" 2>"$tmp/err"
check "dry run json: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/err"
check "dry run json: 8 configurations" test "$(wc -l <"$tmp/c.jsonl")" -eq 8
"$B" sweep "${opts[@]}" --out "$tmp/one.jsonl" >/dev/null 2>"$tmp/err"
check "one sweep of the same options" test $? -eq 0
for i in 1 2 3 4; do
	"$B" sweep --configs "$tmp/c.jsonl" --shard "$i/4" --out "$tmp/sh" >/dev/null 2>"$tmp/err"
	check "shard $i/4 runs" test $? -eq 0
done
check "each shard wrote its own file" test "$(ls "$tmp/sh" | tr '\n' ' ')" = \
	"shard-1-of-4.jsonl shard-2-of-4.jsonl shard-3-of-4.jsonl shard-4-of-4.jsonl "
check "merged shards = one sweep = the plan (ids, identity fields, each once, every rep once)" \
	python3 tests/shard_check.py "$tmp/c.jsonl" "$tmp/one.jsonl" "$tmp"/sh/shard-*.jsonl
size=$(cat "$tmp"/sh/*.jsonl | wc -c)
"$B" sweep --configs "$tmp/c.jsonl" --shard 2/4 --out "$tmp/sh" --resume >/dev/null 2>"$tmp/err"
check "a shard rerun with --resume measures nothing more" test $? -eq 0 -a "$(cat "$tmp"/sh/*.jsonl | wc -c)" -eq "$size"
# a shard of 3 over 8 configurations: positions [(I-1)M/N, IM/N): ids 1-2, 3-5, 6-8
"$B" sweep --configs "$tmp/c.jsonl" --shard 2/3 --out "$tmp/sh3" >/dev/null 2>"$tmp/err"
check "shard 2/3 takes ids 3 to 5" grep -q "configurations 3 to 5 of 8" "$tmp/err"

# The default benchmark (make run's RUN_SWEEP: every algorithm, chain:8, 1 and 2 threads), with
# shorter windows and one rep (run fields: what is compared is ids and identity fields).
def=(--algo all --workload update --shape chain:8 --threads 1..2 --placement compact
	--reps 1 --duration-ms 10 --warmup-ms 5)
"$B" sweep "${def[@]}" --dry-run --format json >"$tmp/d.jsonl" 2>"$tmp/err"
"$B" sweep "${def[@]}" --out "$tmp/d-one.jsonl" >/dev/null 2>>"$tmp/err"
for i in 1 2 3 4; do
	"$B" sweep --configs "$tmp/d.jsonl" --shard "$i/4" --out "$tmp/dsh" >/dev/null 2>>"$tmp/err"
done
check "the default benchmark: its 4 shards merged = one sweep of it = its plan ($(wc -l <"$tmp/d.jsonl") configurations)" \
	python3 tests/shard_check.py "$tmp/d.jsonl" "$tmp/d-one.jsonl" "$tmp"/dsh/shard-*.jsonl

BADVAL="0/4" bad sweep --configs "$tmp/c.jsonl" --shard 0/4 --out "$tmp/x"
BADVAL="5/4" bad sweep --configs "$tmp/c.jsonl" --shard 5/4 --out "$tmp/x"
BADVAL="2" bad sweep --configs "$tmp/c.jsonl" --shard 2 --out "$tmp/x"
BADVAL="--algo" bad sweep --configs "$tmp/c.jsonl" --algo empty --out "$tmp/x"
BADVAL="--shard" bad sweep --algo empty --shape chain:2 --threads 1 --shard 1/2 --out "$tmp/x"
BADVAL="yaml" bad sweep "${opts[@]}" --dry-run --format yaml
BADVAL="--format" bad sweep "${opts[@]}" --format json --out "$tmp/x.jsonl"
check "refusals wrote nothing" test ! -e "$tmp/x" -a ! -e "$tmp/x.jsonl"
mkdir "$tmp/other" && echo mine >"$tmp/other/notes.txt"
BADVAL="notes.txt" bad sweep --configs "$tmp/c.jsonl" --shard 1/4 --out "$tmp/other"
check "a folder sweep did not write is left as it was" test "$(ls "$tmp/other")" = notes.txt
sed 's/"batch":0/"batch":7/' "$tmp/c.jsonl" >"$tmp/edited.jsonl"
BADVAL="batch" bad sweep --configs "$tmp/edited.jsonl" --shard 1/1 --out "$tmp/y"
sed 's/"charge_burst":0/"charge_burst":3/' "$tmp/c.jsonl" >"$tmp/edited.jsonl"
BADVAL="charge_burst" bad sweep --configs "$tmp/edited.jsonl" --shard 1/1 --out "$tmp/y"
head -3 "$tmp/c.jsonl" >"$tmp/dup.jsonl"; head -1 "$tmp/c.jsonl" >>"$tmp/dup.jsonl"
BADVAL="twice" bad sweep --configs "$tmp/dup.jsonl" --out "$tmp/y"
echo 'not json' >"$tmp/junk.jsonl"
BADVAL="junk.jsonl:1" bad sweep --configs "$tmp/junk.jsonl" --out "$tmp/y"
check "refused plans made no folder" test ! -e "$tmp/y"

# ctrbench slurm without Slurm: the script and the sbatch line; bad input refused, nothing written
"$B" slurm "$tmp/c.jsonl" --out "$tmp/fleet" --nodes-per-type 4 --constraint "genoa,it's" >"$tmp/out" 2>"$tmp/err"
check "slurm writes the script and prints a line per type" sh -c "[ \$(grep -c '^sbatch --array=1-4 ' '$tmp/out') -eq 2 ] &&
	test -x '$tmp/fleet/ctrbench.sbatch' && cmp -s '$tmp/c.jsonl' '$tmp/fleet/configs.jsonl'"
check "a user's value is quoted for the shell in the printed line" grep -qF "'--constraint=it'\\''s'" "$tmp/out"
check "the script holds no value of the user's" sh -c "! grep -q \"genoa\\|$tmp\" '$tmp/fleet/ctrbench.sbatch'"
"$B" slurm "$tmp/c.jsonl" --out "$tmp/fleet" --nodes-per-type 4 >/dev/null 2>&1
check "its own folder, the same plan: written again" test $? -eq 0
BADVAL="$tmp/fleet" bad slurm "$tmp/edited.jsonl" --out "$tmp/fleet" --nodes-per-type 4
BADVAL="notes.txt" bad slurm "$tmp/c.jsonl" --out "$tmp/other"
BADVAL="0" bad slurm "$tmp/c.jsonl" --out "$tmp/z" --nodes-per-type 0
BADVAL="5" bad slurm "$tmp/c.jsonl" --out "$tmp/z" --nodes-per-type 4 --shard 5
BADVAL="junk.jsonl:1" bad slurm "$tmp/junk.jsonl" --out "$tmp/z"
check "refused slurm runs made no folder" test ! -e "$tmp/z"
