#!/usr/bin/env bash
# cli_validate.sh - issue 18.9: every reader of result lines refuses the same bad lines, from one
# validation (the field table's types and ranges, bench/schema.h BENCH_FIELD_RANGES): compare,
# recommend --results, sweep --resume (leaving the file as it was) and report (which reads the
# table through `ctrbench schema`), each with one line naming file:line:field and exit 2.  compare
# took "threads": 0, -5 and 2^62, which report refused.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_validate.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

good=$(head -1 tests/data/compare_a.jsonl)
# bad NAME FIELD SED-EXPRESSION: the good line with one value changed
cases=(
	"threads-0|threads|s/\"threads\": 2/\"threads\": 0/"
	"threads-neg|threads|s/\"threads\": 2/\"threads\": -5/"
	"threads-2e62|threads|s/\"threads\": 2/\"threads\": 4611686018427387904/"
	"threads-str|threads|s/\"threads\": 2/\"threads\": \"2\"/"
	"threads-frac|threads|s/\"threads\": 2/\"threads\": 2.5/"
	"threads-null|threads|s/\"threads\": 2/\"threads\": null/"
	"no-algo|algo|s/\"algo\": \"atomic_tree\", //"
	"algo-empty|algo|s/\"algo\": \"atomic_tree\"/\"algo\": \"\"/"
	"ops-neg|ops_per_sec|s/\"ops_per_sec\": 41200000.0/\"ops_per_sec\": -1/"
	"nodes-0|nodes|s/\"nodes\": 2/\"nodes\": 0/"
	"duration-0|duration_ms|s/\"duration_ms\": 100/\"duration_ms\": 0/"
	"cpus-str|cpus|s/\"cpus\": 2/\"cpus\": \"two\"/"
	"p50-str|update_ns.p50|s/\"p50\": 40.2/\"p50\": \"fast\"/"
	"baseline-int|baseline|s/\"baseline\": false/\"baseline\": 0/"
	"reps-obj|reps|s/\"reps\": \[.*\], \"env\"/\"reps\": {}, \"env\"/"
	"readers-big|readers|s/\"threads\": 2/\"threads\": 2, \"readers\": 5000/"
	"over1ms|update_ns.over_1ms|s/\"p50\": 40.2/\"p50\": 40.2, \"over_1ms\": 1.5/"
)
S=(sweep --algo atomic_tree --shape chain:2 --threads 1 --reps 1 --duration-ms 5 --warmup-ms 0)
REC=(recommend --updates-per-sec 1e6 --reads-per-sec 10 --depth 2 --max-staleness EXACT)
for c in "${cases[@]}"; do
	IFS='|' read -r name field expr <<<"$c"
	f="$tmp/$name.jsonl"
	# the bad line second: the line number is the bad line's
	{ echo "$good"; echo "$good" | sed "$expr"; } >"$f"
	if cmp -s <(sed -n 1p "$f") <(sed -n 2p "$f"); then
		nok "$name: the case changed nothing (fix its sed expression)"
		continue
	fi
	cp "$f" "$tmp/copy"
	BADVAL="$f:2: field '$field' is" bad compare "$f" tests/data/compare_b.jsonl
	BADVAL="$f:2: field '$field' is" bad "${REC[@]}" --results "$f"
	BADVAL="$f:2: field '$field' is" bad "${S[@]}" --out "$f" --resume
	check "$name: sweep --resume left the file as it was" cmp -s "$f" "$tmp/copy"
	BADVAL="$f:2: field '$field' is" bad report "$f" --out "$tmp/rep-$name"
	check "$name: report wrote no folder" test ! -e "$tmp/rep-$name"
done
# Garbage after a NUL byte: compare took the line up to the NUL.
printf '%s\n%s\0garbage\n' "$good" "$good" >"$tmp/nul.jsonl"
BADVAL="$tmp/nul.jsonl:2: not JSON" bad compare "$tmp/nul.jsonl" tests/data/compare_b.jsonl
BADVAL="$tmp/nul.jsonl:2: not JSON" bad "${REC[@]}" --results "$tmp/nul.jsonl"
BADVAL="$tmp/nul.jsonl:2: not JSON" bad "${S[@]}" --out "$tmp/nul.jsonl" --resume
BADVAL="$tmp/nul.jsonl:2:" bad report "$tmp/nul.jsonl" --out "$tmp/rep-nul"
# The ranges are the table's: `ctrbench schema` says them, and the good fixtures pass.
"$B" schema >"$tmp/schema.json"
check "ctrbench schema gives threads its range [1, 4096]" python3 -c '
import json, sys
f = {x["path"]: x for x in json.load(open(sys.argv[1]))["fields"]}
sys.exit(0 if (f["threads"]["min"], f["threads"]["max"]) == (1, 4096) and f["ops"]["max"] is None else 1)' \
	"$tmp/schema.json"
for d in tests/data/*.jsonl; do
	# a ctrbench limits file is no run result: compare refuses it, naming its kind
	if [ "$d" = tests/data/limits.jsonl ]; then
		BADVAL="$d:1: a 'limits' line, not a run result" bad compare "$d" "$d"
		continue
	fi
	check "$d passes the validation" eval '"$B" compare "$d" "$d" >/dev/null 2>"$tmp/err"'
done
# Not regular files (issue 18.3): a device is never read to its end, a FIFO never waited on (compare,
# recommend and sweep --plan opened a FIFO and waited for a writer forever).
mkfifo "$tmp/fifo"
for f in /dev/zero "$tmp/fifo" "$tmp"; do
	BADVAL="'$f' is not a regular file" bad compare "$f" tests/data/compare_b.jsonl
	BADVAL="'$f' is not a regular file" bad "${REC[@]}" --results "$f"
	BADVAL="'$f'" bad "${S[@]}" --out "$f" --resume	# a folder: 'Is a directory'
	BADVAL="plan '$f' is not a regular file" bad sweep --plan "$f" --out "$tmp/plan.jsonl"
	if [ -d "$f" ]; then
		# report takes a folder as every *.jsonl under it (issue 30): the bad files in this one
		# are read, and the first refused names its file and line; the FIFO is never opened
		BADVAL="$f/" bad report "$f" --out "$tmp/rep-dev"
	else
		BADVAL="'$f' is not a regular file" bad report "$f" --out "$tmp/rep-dev"
	fi
	BADVAL="not a regular file" bad topo --topology "$f"
	BADVAL="--against '$f' is not a regular file" bad project --against "$f"
done
# a folder's *.jsonl that is a FIFO is passed over, never waited on (report and compare --by machine)
mkdir "$tmp/fifodir" && mkfifo "$tmp/fifodir/x.jsonl"
BADVAL="'$tmp/fifodir' is a folder with no .jsonl results file" bad report "$tmp/fifodir" --out "$tmp/rep-ff"
BADVAL="'$tmp/fifodir' is a folder with no .jsonl results file" bad compare --by machine "$tmp/fifodir"
# Found by scripts/adversarial: --noise and --calibration waited on a FIFO; a file holding only a
# line cut short gave two lines (a note, then "has no results"), lab notes one of them; project
# --against printed its header before refusing; a key given twice was read as its last value.
BADVAL="--noise '$tmp/fifo': not a regular file" bad compare tests/data/compare_a.jsonl tests/data/compare_b.jsonl \
	--noise "$tmp/fifo"
BADVAL="--calibration '$tmp/fifo': not a regular file" bad project --validate --calibration "$tmp/fifo"
printf 'my lab notes: run 1 was 12.3 Mops/s' >"$tmp/notes.txt"
printf '{"schema": 1, "algo": "atom' >"$tmp/cut.jsonl"
for f in "$tmp/notes.txt" "$tmp/cut.jsonl"; do
	[ "$f" = "$tmp/notes.txt" ] && want="$f:1: not a result line" || want="'$f' has no results (only a line cut short"
	BADVAL="$want" bad compare "$f" tests/data/compare_b.jsonl
	BADVAL="$want" bad "${REC[@]}" --results "$f"
	BADVAL="${want/\'$f\'/\'$f\'}" bad report "$f" --out "$tmp/rep-cut"
done
BADVAL="holds no result line the projection can take" bad project --against "$tmp/notes.txt" \
	--topology "pack:1 core:2 pu:1"
{ echo "$good"; echo "$good" | sed 's/"threads": 2/"threads": 2, "threads": 3/'; } >"$tmp/dup.jsonl"
cp "$tmp/dup.jsonl" "$tmp/copy"
BADVAL="$tmp/dup.jsonl:2: not JSON (duplicate object key" bad compare "$tmp/dup.jsonl" tests/data/compare_b.jsonl
BADVAL="$tmp/dup.jsonl:2: not JSON (duplicate object key" bad "${REC[@]}" --results "$tmp/dup.jsonl"
BADVAL="$tmp/dup.jsonl:2: not JSON (duplicate object key" bad "${S[@]}" --out "$tmp/dup.jsonl" --resume
check "a key given twice: sweep --resume left the file as it was" cmp -s "$tmp/dup.jsonl" "$tmp/copy"
BADVAL="$tmp/dup.jsonl:2: not JSON (duplicate object key" bad report "$tmp/dup.jsonl" --out "$tmp/rep-dup"
# Issue 18.5 for the C readers too: a line nesting 100,000 arrays is one line naming it, exit 2.
{ echo "$good"; python3 -c 'print("[" * 100000 + "]" * 100000)'; } >"$tmp/deep.jsonl"
cp "$tmp/deep.jsonl" "$tmp/copy"
BADVAL="$tmp/deep.jsonl:2: not JSON" bad compare "$tmp/deep.jsonl" tests/data/compare_b.jsonl
BADVAL="$tmp/deep.jsonl:2: not JSON" bad "${REC[@]}" --results "$tmp/deep.jsonl"
BADVAL="$tmp/deep.jsonl:2: not JSON" bad "${S[@]}" --out "$tmp/deep.jsonl" --resume
check "deep JSON: sweep --resume left the file as it was" cmp -s "$tmp/deep.jsonl" "$tmp/copy"
BADVAL="$tmp/deep.jsonl:2: not a result line (JSON nested too deep)" bad report "$tmp/deep.jsonl" --out "$tmp/rep-deep"
# --noise that is JSON but no calibration: one line, exit 2 (under ASan, LeakSanitizer made it exit 1
# with the calibration still held).
printf '[1,2,3]\n' >"$tmp/arr.json"
BADVAL="bad value '$tmp/arr.json' for --noise" bad compare tests/data/compare_a.jsonl tests/data/compare_b.jsonl \
	--noise "$tmp/arr.json"
