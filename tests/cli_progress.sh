#!/usr/bin/env bash
# cli_progress.sh - feedback on long work: on a terminal (tmux), `scenario --quick` and
# `run --reps 3` show what they measure, how far they are and the time left, on one line of
# stderr rewritten in place; off a terminal one line per finished configuration.
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
	echo "ok - # SKIP no tmux (scripts/install-deps.sh installs it)"
	exit 0
fi
screen "$B" scenario worker-scaling --quick --out "$tmp/scn.jsonl"
check "scenario --quick on a terminal: [done/total], elapsed, time left, what runs now" eval \
	'grep -Eq "^\[[0-9]+/[0-9]+\] [0-9]+:[0-9]{2} elapsed, ~[0-9]+:[0-9]{2} left: [a-z_]+ · scenario worker-scaling" "$tmp/screen" &&
	 grep -q "^EXIT=0" "$tmp/screen"'
screen "$B" run --algo atomic_tree,percpu_hier --shape chain:2 --threads 1 --reps 3 --duration-ms 300
check "run --reps 3 on a terminal: the rep of the algorithm measured now and the time left" eval \
	'grep -Eq "^\[[0-5]/6\] [0-9]+:[0-9]{2} elapsed, ~[0-9]+:[0-9]{2} left: (atomic_tree|percpu_hier), rep [1-3] of 3" "$tmp/screen" &&
	 grep -q "^EXIT=0" "$tmp/screen"'

# Off a terminal: one line per configuration once the work has run a second, none before.
"$B" run --algo atomic_tree,percpu_hier --shape chain:2 --threads 1 --reps 3 --duration-ms 300 \
	>"$tmp/out" 2>"$tmp/err"
check "run off a terminal: one line per configuration, nothing rewritten in place" eval \
	'[ "$(grep -c "done atomic_tree (3 reps)$" "$tmp/err")" -eq 1 ] &&
	 [ "$(grep -c "done percpu_hier (3 reps)$" "$tmp/err")" -eq 1 ] && ! grep -q $'"'"'\r'"'"' "$tmp/err"'
"$B" run --algo atomic_tree --shape chain:2 --threads 1 --reps 1 --duration-ms 20 >"$tmp/out" 2>"$tmp/err"
check "a run under a second says nothing on stderr" test ! -s "$tmp/err"
CTRBENCH_PROGRESS=0 "$B" run --algo atomic_tree,percpu_hier --shape chain:2 --threads 1 --reps 3 \
	--duration-ms 300 >"$tmp/out" 2>"$tmp/err"
check "CTRBENCH_PROGRESS=0: no progress at all" test ! -s "$tmp/err"
