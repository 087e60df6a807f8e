#!/usr/bin/env bash
# cli_scenario_out.sh - scenario's results file has one writer, and its readers refuse what two
# writers leave (issue 25, points 3 and 4): a second scenario on a locked --out refuses in one line
# before measuring; dated default names never collide or append; --from, --resume and compare refuse
# a file that holds a line, or a configuration and rep, twice; --resume drops a partial last line
# itself (saying so) and refuses files of non-result lines or of another command's results,
# changing nothing.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_scenario_out.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
B=$(cd "$(dirname "$B")" && pwd)/$(basename "$B")	# the default-name check runs in another folder
. tests/tap.sh
BAD_PREFIX=scenario

Q=(--quick --reps 1 --duration-ms 20 --warmup-ms 2)
A=(admission-staleness "${Q[@]}" --algo atomic_tree,percpu_hier)	# 2 configurations, 2 lines

# summaries FILE: its summary lines (not rep lines)
summaries() { grep -vc '"kind":"rep"' "$1"; }

# --- one writer per file -------------------------------------------------------------------
# The first holds the lock for its 3 s window (nothing written before it ends); the second, on the
# same --out, new or --resume, refuses at once in one line and measures nothing.
"$B" scenario admission-staleness --quick --reps 1 --warmup-ms 0 --duration-ms 3000 --algo atomic_tree \
	--out "$tmp/lock.jsonl" >"$tmp/first.out" 2>"$tmp/first.err" &
pid=$!
for _ in $(seq 200); do [ -e "$tmp/lock.jsonl" ] && break; sleep 0.05; done
sleep 0.3	# its open and its lock are two calls
BADVAL="lock.jsonl' is being written by another" bad admission-staleness "${Q[@]}" --algo atomic_tree \
	--out "$tmp/lock.jsonl"
BADVAL="lock.jsonl' is being written by another" bad admission-staleness "${Q[@]}" --algo atomic_tree \
	--out "$tmp/lock.jsonl" --resume
# sweep opens its --out through the same code: it refuses the scenario's file too
BAD_PREFIX=sweep BADVAL="lock.jsonl' is being written by another" bad --algo atomic_tree --shape chain:2 \
	--threads 1 --duration-ms 10 --warmup-ms 0 --reps 1 --out "$tmp/lock.jsonl" --resume
check "the refused ones wrote nothing (the first is still measuring)" eval '[ ! -s "$tmp/lock.jsonl" ]'
wait $pid
rc=$?
check "the first completes: exit 0, its one configuration once in the file" eval \
	'[ $rc -eq 0 ] && [ ! -s "$tmp/first.err" ] && [ "$(summaries "$tmp/lock.jsonl")" -eq 1 ] &&
	 grep -q "^# raw results: $tmp/lock.jsonl" "$tmp/first.out"'

# Dated default names: one that exists (this second's, and the next few) is never opened; two
# scenarios started at once each get a new file of their own.
mkdir "$tmp/d"
now=$(date +%s)
for s in 0 1 2 3 4 5 6; do
	echo precious >"$tmp/d/ctrbench-admission-staleness-$(date -d "@$((now + s))" +%Y%m%d-%H%M%S).jsonl"
done
(cd "$tmp/d" && "$B" scenario "${A[@]}" >"$tmp/d1.out" 2>"$tmp/d1.err") & p1=$!
(cd "$tmp/d" && "$B" scenario "${A[@]}" >"$tmp/d2.out" 2>"$tmp/d2.err") & p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check "two default-named scenarios at once: both exit 0, two new files of 2 lines named as --help says, the old ones untouched" eval \
	'"$B" scenario --help | grep -qF " ctrbench-NAME-YYYYMMDD-HHMMSS.jsonl, or -2, -3" &&
	 [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ "$(grep -lx precious "$tmp"/d/* | wc -l)" -eq 7 ] &&
	 [ "$(grep -Lx precious "$tmp"/d/* | wc -l)" -eq 2 ] &&
	 for f in $(grep -Lx precious "$tmp"/d/*); do
		[ "$(summaries "$f")" -eq 2 ] && [[ $f == *-[0-9].jsonl ]] || exit 1
		# the name the help gives (issue 31: it said ctrbench-NAME-DATE.jsonl)
		[[ $(basename "$f") =~ ^ctrbench-admission-staleness-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.jsonl$ ]] || exit 1
		grep -q "^# raw results: $(basename "$f")$" "$tmp/d1.out" "$tmp/d2.out" || exit 1
	 done'

# --- readers refuse a doubled file -----------------------------------------------------------
"$B" scenario "${A[@]}" --out "$tmp/a.jsonl" >"$tmp/a.out" 2>&1
"$B" scenario "${A[@]}" --out "$tmp/b.jsonl" >/dev/null 2>&1
check "two results files of 2 lines" eval '[ "$(summaries "$tmp/a.jsonl")" -eq 2 ] && [ "$(summaries "$tmp/b.jsonl")" -eq 2 ]'
cat "$tmp/a.jsonl" "$tmp/a.jsonl" >"$tmp/aa.jsonl"	# a file appended to itself
cat "$tmp/a.jsonl" "$tmp/b.jsonl" >"$tmp/ab.jsonl"	# what two writers on one file left
cp "$tmp/aa.jsonl" "$tmp/aa.orig"
cp "$tmp/ab.jsonl" "$tmp/ab.orig"
BADVAL="aa.jsonl:3: the same line as line 1 (atomic_tree charge chain:4" bad "${A[@]}" --from "$tmp/aa.jsonl"
BADVAL="aa.jsonl:3: the same line as line 1" bad "${A[@]}" --out "$tmp/aa.jsonl" --resume
BADVAL="ab.jsonl:3: atomic_tree charge chain:4 --threads" bad "${A[@]}" --from "$tmp/ab.jsonl"
check "--from names the configuration and the line it repeats" eval \
	'"$B" scenario "${A[@]}" --from "$tmp/ab.jsonl" 2>&1 | grep -q "again, measured at line 1 too"'
BADVAL="ab.jsonl:3: atomic_tree charge chain:4 --threads" bad "${A[@]}" --out "$tmp/ab.jsonl" --resume
# one configuration measured again by another build (--resume re-runs what another build measured):
# --from shows the later line and says so
{ cat "$tmp/a.jsonl"; sed 's/"commit":"[^"]*"/"commit":"another-build"/' "$tmp/b.jsonl"; } >"$tmp/rebuilt.jsonl"
"$B" scenario "${A[@]}" --from "$tmp/rebuilt.jsonl" >"$tmp/rb.out" 2>"$tmp/rb.err"
rc=$?
check "--from over two builds' lines of one configuration: exit 0, the last shown, said in one line" eval \
	'[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/rb.err")" -eq 1 ] &&
	 grep -q "2 lines measure again a configuration of an earlier line with another build (line 1, ... line 4)" "$tmp/rb.err" &&
	 diff <(grep -v "^# read from" "$tmp/rb.out") <("$B" scenario "${A[@]}" --from "$tmp/b.jsonl" 2>/dev/null | grep -v "^# read from")'
check "--resume left both doubled files as they were" eval \
	'cmp -s "$tmp/aa.jsonl" "$tmp/aa.orig" && cmp -s "$tmp/ab.jsonl" "$tmp/ab.orig"'
BAD_PREFIX=compare BADVAL="aa.jsonl:3: the same line as line 1" bad "$tmp/aa.jsonl" "$tmp/b.jsonl"
BAD_PREFIX=compare BADVAL="aa.jsonl:3: the same line as line 1" bad "$tmp/b.jsonl" "$tmp/aa.jsonl"
# reps: a configuration of 2 reps writes 2 rep lines and a summary; doubled, the rep is named
"$B" scenario admission-staleness --quick --reps 2 --duration-ms 20 --warmup-ms 2 --algo atomic_tree \
	--out "$tmp/r.jsonl" >/dev/null 2>&1
"$B" scenario admission-staleness --quick --reps 2 --duration-ms 20 --warmup-ms 2 --algo atomic_tree \
	--out "$tmp/r2.jsonl" >/dev/null 2>&1
cat "$tmp/r.jsonl" "$tmp/r2.jsonl" >"$tmp/rr.jsonl"
BADVAL="rr.jsonl:4: atomic_tree charge chain:4" bad admission-staleness --quick --reps 2 --duration-ms 20 \
	--warmup-ms 2 --algo atomic_tree --out "$tmp/rr.jsonl" --resume
check "a rep twice is named as the configuration and its rep" eval \
	'"$B" scenario admission-staleness --quick --reps 2 --duration-ms 20 --warmup-ms 2 --algo atomic_tree \
		--out "$tmp/rr.jsonl" --resume 2>&1 | grep -q "rr.jsonl:4: .*, rep 0 again, measured at line 1 too"'

# --- --resume: a partial last line, files that are not this scenario's -----------------------
cp "$tmp/a.jsonl" "$tmp/p.jsonl"
head -n 1 "$tmp/a.jsonl" | head -c 100 >>"$tmp/p.jsonl"	# a writer killed inside its write
"$B" scenario "${A[@]}" --out "$tmp/p.jsonl" --resume >"$tmp/p.out" 2>"$tmp/p.err"
rc=$?
check "--resume drops a partial last line itself, says so once, and goes on" eval \
	'[ $rc -eq 0 ] && [ "$(grep -c "dropped a partial last line of .*p.jsonl. (100 bytes" "$tmp/p.err")" -eq 1 ] &&
	 ! grep -q "remove it" "$tmp/p.err" && cmp -s "$tmp/p.jsonl" "$tmp/a.jsonl" && grep -q "^worst overshoot" "$tmp/p.out"'
printf '{"schema":1,"kind":"note","text":"lab notes: run 1 was odd"}\n' >"$tmp/n.jsonl"
{ cat "$tmp/a.jsonl"; printf 'precious tail'; } >"$tmp/t.jsonl"
"$B" sweep --algo atomic_tree --shape chain:2 --threads 1 --duration-ms 10 --warmup-ms 0 --reps 1 \
	--out "$tmp/s.jsonl" >/dev/null 2>&1
cp "$tmp/a.jsonl" "$tmp/o.jsonl"
for f in n t s o; do cp "$tmp/$f.jsonl" "$tmp/$f.orig"; done
BADVAL="n.jsonl:1: not a result line" bad "${A[@]}" --out "$tmp/n.jsonl" --resume
BADVAL="t.jsonl:3: not a result line" bad "${A[@]}" --out "$tmp/t.jsonl" --resume
BADVAL="s.jsonl:1: a result of another command (no note), not of scenario admission-staleness" \
	bad "${A[@]}" --out "$tmp/s.jsonl" --resume
BADVAL="o.jsonl:1: a result of 'scenario admission-staleness: bursts', not of scenario zswap-store-nolimit" \
	bad zswap-store-nolimit "${Q[@]}" --algo atomic_tree --out "$tmp/o.jsonl" --resume
check "--resume changed none of them" eval \
	'(for f in n t s o; do cmp -s "$tmp/$f.jsonl" "$tmp/$f.orig" || { echo "$f changed" >&2; exit 1; }; done)'
BADVAL="--resume does not apply to subsys-flush-locks" bad subsys-flush-locks --quick --out "$tmp/x.jsonl" --resume
check "no refusal left a file behind" eval '[ ! -e "$tmp/x.jsonl" ]'

# A FIFO as --out with no one reading it: opened write-only it would block forever (the shared
# open made sweep hang so); refused in one line instead, for both writers.
mkfifo "$tmp/fifo"
BADVAL="'$tmp/fifo' for --out: a FIFO with no reader" bad "${A[@]}" --out "$tmp/fifo"
BAD_PREFIX=sweep BADVAL="'$tmp/fifo' for --out: a FIFO with no reader" bad --algo atomic_tree \
	--shape chain:2 --threads 1 --duration-ms 1 --warmup-ms 0 --reps 1 --out "$tmp/fifo"
