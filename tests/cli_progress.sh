#!/usr/bin/env bash
# cli_progress.sh - feedback on long work: on a terminal (tmux), `scenario --quick` and
# `run --reps 3` show what they measure, how far they are and the time left, on one line of
# stderr rewritten in place; off a terminal one line per finished rep round, with counts and time
# left of what this process measures (a resumed sweep's reused configurations out of both);
# sweep's closing line; `project` streams its rows and keeps them on SIGINT.
# Usage: cli_progress.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
. tests/tap.sh
unset CTRBENCH_PROGRESS

# screen CMD...: run CMD in a detached tmux pane, capture the pane every 0.2 s until it ends, and
# keep every distinct screen line in $tmp/screen.
screen() {
	local sock=$tmp/tmux.sock
	: >"$tmp/screen"
	tmux -S "$sock" new-session -d -x 220 -y 20 "$* >/dev/null; echo EXIT=\$?; sleep 30"
	for _ in $(seq 1 300); do
		tmux -S "$sock" capture-pane -p >>"$tmp/screen" 2>/dev/null
		grep -q '^EXIT=' "$tmp/screen" && break
		sleep 0.2
	done
	tmux -S "$sock" kill-server 2>/dev/null
}

if ! command -v tmux >/dev/null; then
	echo "ok - # SKIP no tmux (scripts/install-deps.sh installs it): nothing on a terminal checked"
else
	screen "$B" scenario worker-scaling --quick --out "$tmp/scn.jsonl"
	check "scenario --quick on a terminal: [done/total], elapsed, time left, what runs now" eval \
		'grep -Eq "^\[[0-9]+/[0-9]+\] [0-9]+:[0-9]{2} elapsed, ~[0-9]+:[0-9]{2} left: [a-z_]+ · scenario worker-scaling" "$tmp/screen" &&
		 grep -q "^EXIT=0" "$tmp/screen"'
	screen "$B" run --algo atomic_tree,percpu_hier --shape chain:2 --threads 1 --reps 3 --duration-ms 300
	check "run --reps 3 on a terminal: the rep of the algorithm measured now and the time left" eval \
		'grep -Eq "^\[[0-5]/6\] [0-9]+:[0-9]{2} elapsed, ~[0-9]+:[0-9]{2} left: (atomic_tree|percpu_hier), rep [1-3] of 3" "$tmp/screen" &&
		 grep -q "^EXIT=0" "$tmp/screen"'
fi

# Off a terminal: one line per finished rep round (every algorithm measured once more) once the
# work has run a second, none before; CTRBENCH_PROGRESS=1 prints them from the start.
"$B" run --algo atomic_tree,percpu_hier --shape chain:2 --threads 1 --reps 2 --duration-ms 300 \
	>"$tmp/out" 2>"$tmp/err"
check "run off a terminal, past its first second: the last rep round's line, nothing rewritten in place" eval \
	'grep -Eq "^ctrbench: rep 2/2: 4/4, [0-9]+:[0-9]{2} left$" "$tmp/err" &&
	 ! grep -q $'"'"'\r'"'"' "$tmp/err"'
CTRBENCH_PROGRESS=1 "$B" run --algo atomic_tree,percpu_hier --shape chain:2 --threads 1 --reps 3 \
	--duration-ms 20 --warmup-ms 0 >"$tmp/out" 2>"$tmp/err"
check "CTRBENCH_PROGRESS=1: one line per rep round (not per algorithm), each with its counts" eval \
	'[ "$(grep -c "^ctrbench: rep " "$tmp/err")" -eq 3 ] &&
	 grep -Eq "^ctrbench: rep 1/3: 2/6, [0-9]+:[0-9]{2} left$" "$tmp/err" &&
	 grep -Eq "^ctrbench: rep 2/3: 4/6, " "$tmp/err" &&
	 grep -Eq "^ctrbench: rep 3/3: 6/6, 0:00 left$" "$tmp/err"'
"$B" run --algo atomic_tree --shape chain:2 --threads 1 --reps 1 --duration-ms 20 >"$tmp/out" 2>"$tmp/err"
check "a run under a second says nothing on stderr" test ! -s "$tmp/err"
CTRBENCH_PROGRESS=0 "$B" run --algo atomic_tree,percpu_hier --shape chain:2 --threads 1 --reps 3 \
	--duration-ms 300 >"$tmp/out" 2>"$tmp/err"
check "CTRBENCH_PROGRESS=0: no progress at all" test ! -s "$tmp/err"

# A resumed sweep counts only what it measures: the configurations read back are in neither the
# done count nor the total, and the time left is the mean of the measurements timed in this
# process (here at least two of 300 ms to go: not 0:00, which reused ones counted as free gave).
SW=(sweep --algo atomic_tree,percpu_hier --shape chain:2 --duration-ms 300 --warmup-ms 0 --reps 2)
CTRBENCH_PROGRESS=1 "$B" "${SW[@]}" --threads 1 --out "$tmp/r.jsonl" >"$tmp/out" 2>"$tmp/err"
check "sweep off a terminal: one line per rep round, naming the configuration, and a closing line" eval \
	'[ "$(grep -c "^ctrbench: rep " "$tmp/err")" -eq 2 ] &&
	 grep -q "^ctrbench: rep 1/2 of update chain:2 --threads 1 --placement compact: 2/4, " "$tmp/err" &&
	 grep -Eq "^ctrbench: sweep: 2 of 2 configurations: 2 measured now, 0 already there, 0 failed, in [0-9.]+ s$" "$tmp/err" \
	 && grep -qx "ctrbench: sweep: in '"'"'$tmp/r.jsonl'"'"'" "$tmp/err"'
CTRBENCH_PROGRESS=1 "$B" "${SW[@]}" --threads 1..2 --out "$tmp/r.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
first=$(grep -m1 "^ctrbench: rep " "$tmp/err")
check "resumed sweep: its first line counts only the new configurations, with time left from them" eval \
	'[[ "$first" == "ctrbench: rep 1/2 of update chain:2 --threads 2 --placement compact: 2/4, "* ]] &&
	 [[ "$first" =~ ", "[0-9]+:[0-9]{2}" left"$ ]] && [[ "$first" != *", 0:00 left" ]]'
check "resumed sweep's closing line: measured now, already there, failed, seconds, the file" eval \
	'grep -q "^ctrbench: rep 2/2 of update chain:2 --threads 2 --placement compact: 4/4, 0:00 left$" "$tmp/err" &&
	 grep -Eq "^ctrbench: sweep: 4 of 4 configurations: 2 measured now, 2 already there, 0 failed, in [0-9.]+ s$" "$tmp/err"'

# A configuration half done (its rep lines there, no summary): only the reps it lacks count.
SW=(sweep --algo atomic_tree,percpu_hier --shape chain:2 --threads 1 --duration-ms 20 --warmup-ms 0 --reps 3)
CTRBENCH_PROGRESS=0 "$B" "${SW[@]}" --out "$tmp/h.jsonl" >"$tmp/out" 2>"$tmp/err"
grep '"kind":"rep","rep":[01],' "$tmp/h.jsonl" >"$tmp/h2.jsonl"
CTRBENCH_PROGRESS=1 "$B" "${SW[@]}" --out "$tmp/h2.jsonl" --resume >"$tmp/out" 2>"$tmp/err"
check "resuming reps 1-2 of 3: one round to run, 2/2 measurements" eval \
	'[ "$(grep -c "^ctrbench: rep " "$tmp/err")" -eq 1 ] &&
	 grep -q "^ctrbench: rep 3/3 of update chain:2 --threads 1 --placement compact: 2/2, 0:00 left$" "$tmp/err" &&
	 grep -q ": 2 measured now, 0 already there, 0 failed, " "$tmp/err"'
CTRBENCH_PROGRESS=0 "$B" "${SW[@]}" --out "$tmp/q.jsonl" >"$tmp/out" 2>"$tmp/err"
check "CTRBENCH_PROGRESS=0: sweep off a terminal says nothing" test ! -s "$tmp/err"

# project streams: each row is on stdout as its projection ends, and a SIGINT keeps the rows
# printed (whole lines).  shared_atomic projects in a fraction of the others' time: its line is
# there long before the process ends.
P=(project --algo shared_atomic,atomic_tree,percpu_hier --shape chain:4 --threads 2
   --topology "pack:1 core:4 pu:1" --ops 3000000)
for fmt in json table; do
	"$B" "${P[@]}" --format $fmt >"$tmp/p.$fmt" 2>"$tmp/perr" &
	pid=$!
	for _ in $(seq 400); do grep -q "shared_atomic" "$tmp/p.$fmt" && break; sleep 0.05; done
	kill -0 $pid 2>/dev/null
	running=$?
	kill -INT $pid
	wait $pid
	rc=$?
	case $fmt in
	json) whole='python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$tmp/p.json" &&
		     head -1 "$tmp/p.json" | grep -q "\"algo\":\"shared_atomic\""' ;;
	table) whole='grep -q "^shared_atomic  " "$tmp/p.table" && [ "$(tail -c1 "$tmp/p.table" | od -An -c | tr -d " ")" = "\n" ]' ;;
	esac
	check "project --format $fmt: the first row out while it runs; SIGINT: exit 1, said once, the rows printed kept whole" eval \
		'[ $running -eq 0 ] && [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/perr")" -eq 1 ] &&
		 grep -q "^ctrbench: project: interrupted: the rows printed are kept" "$tmp/perr" && '"$whole"
done
