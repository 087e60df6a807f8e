#!/usr/bin/env bash
# cli_report_inert.sh - a results file is data to `ctrbench report`, never code.  Real lines (a
# sweep's, with its rep lines, a projection's, tests/data/c2c.json, tests/data/limits.jsonl) are
# rewritten by tests/report_hostile.py so that every string carries a newline, EOD, gnuplot
# system(), quotes, HTML, shell substitutions and Markdown; one file's name carries them too.  The
# HTML and Markdown reports of them: exit 0, no MARK file made anywhere, every string shown as
# text (tests/report_inert_check.py).  Plot files are named plot-N, not from the results (a
# 300-character topology, one of ..); a configuration twice in one file is refused in one line.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_report_inert.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

run() {
	"$B" report "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
clean() { [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; }
# no MARK* anywhere a command could have made one: the scratch folder (the reports, their
# temporary folders, the marks' own folder), this tree's top, $TMPDIR's top
nomark() {
	! find "$tmp" . -maxdepth 1 -name 'MARK*' | grep -q . &&
	! find "$tmp" -name 'MARK*' | grep -q . &&
	! find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'MARK*' 2>/dev/null | grep -q .
}

mkdir "$tmp/h"
"$B" schema >"$tmp/h/schema.json" &&
"$B" sweep --algo atomic_tree,percpu_hier --shape chain:1,chain:2 --threads 1,2 --reps 2 \
	--duration-ms 20 --warmup-ms 0 --out "$tmp/sweep.jsonl" >/dev/null 2>"$tmp/err" &&
for T in 1 2; do
	"$B" project --algo atomic_tree,percpu_hier --shape chain:2 --threads $T --ops 50 \
		--topology "pack:1 core:2 pu:1" --format json || exit 1
done >"$tmp/proj.jsonl" 2>>"$tmp/err" &&
python3 tests/report_hostile.py "$tmp" "$tmp/h" "$tmp/sweep.jsonl" "$tmp/proj.jsonl" \
	tests/data/c2c.json tests/data/limits.jsonl
check "real lines made (sweep with rep lines, project) and rewritten" eval \
	'[ $? -eq 0 ] && grep -q "\"kind\": \"rep\"" "$tmp/h/run.jsonl" && [ -s "$tmp/h/proj.jsonl" ] &&
	 [ -s "$tmp/h/c2c.jsonl" ] && [ -s "$tmp/h/limits.jsonl" ]'
# the same runs under a file name of the same kind: the same configuration from two files is two
# runs compared, each series named by its file (which then reaches the plots' keys)
odd=$tmp/h/"f'q\"<b>\$(touch MARK6)\`touch MARK7\`;x
EOD
system(\"touch MARK8\").jsonl"
cp "$tmp/h/run.jsonl" "$odd"

# The issue's case first: only the placement is hostile, so nothing else stops the report early.
run "$tmp/h/issue.jsonl" --out "$tmp/issue"
check "a placement holding a newline, EOD and system(): no command ran" nomark
check "a placement holding a newline, EOD and system(): exit 0, the page shows it" eval \
	'clean && grep -qF "system(&quot;touch $tmp/MARK9&quot;)" "$tmp/issue/index.html"'

# Every field the report prints, by the name report_hostile.py put in braces after its value.
FIELDS="algo workload shape placement options note shared_mem verify read_node limit_levels
timer.source events_source env.cpu_model env.commit env.kernel env.topology event event2 reason
envkey envval pairkey topology calibration calibration_name op figure row limit unit"
ALL=("$tmp/h/run.jsonl" "$odd" "$tmp/h/proj.jsonl" "$tmp/h/c2c.jsonl" "$tmp/h/limits.jsonl")

run "${ALL[@]}" --out "$tmp/html"
check "html of hostile results: exit 0, the page path, nothing on stderr" eval \
	'clean && [ "$(cat "$tmp/out")" = "$tmp/html/index.html" ]'
check "html: no command ran (no MARK file in the scratch folder, here, or \$TMPDIR)" nomark
check "html: plots drawn (throughput, latency, cost bars, projected, heatmap), each a plot-N.png" eval \
	'[ "$(grep -o "<svg" "$tmp/html/index.html" | wc -l)" -ge 10 ] &&
	 ! ls "$tmp/html" | grep -Evq "^(index\.html|plot-[0-9]+\.png)$"'
check "html: every string shown as text, no markup from the data" \
	python3 tests/report_inert_check.py html "$tmp/html/index.html" $FIELDS
check "html: the payload shows HTML-escaped in the source" eval \
	'grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" "$tmp/html/index.html" &&
	 grep -qF "&lt;b onload=x&gt;" "$tmp/html/index.html"'

run "${ALL[@]}" --out "$tmp/md" --format markdown
check "markdown of hostile results: exit 0, the path, nothing on stderr" eval \
	'clean && [ "$(cat "$tmp/out")" = "$tmp/md/report.md" ]'
check "markdown: no command ran" nomark
check "markdown: every string one line, no HTML, code, link or extra cell from the data" \
	python3 tests/report_inert_check.py markdown "$tmp/md/report.md" \
	algo workload shape placement options env.cpu_model env.commit envkey envval event2 \
	reason topology calibration_name op row limit unit

# point 7: plot files are named by index, never from the results (a topology is a path)
run "$tmp/h/longtopo.jsonl" --out "$tmp/long"
check "a projected line with a 300-character topology path: exit 0, plot-N.png files" eval \
	'clean && ls "$tmp/long" | grep -Eq "^plot-[0-9]+\.png$" &&
	 ! ls "$tmp/long" | grep -Evq "^(index\.html|plot-[0-9]+\.png)$" &&
	 grep -qF "dir043" "$tmp/long/index.html"'
ls -A "$tmp" >"$tmp/before"
run "$tmp/h/dotdot.jsonl" --out "$tmp/dots" --format html
check "a topology and a calibration name of ../..: written inside --out only" eval \
	'clean && ! ls "$tmp/dots" | grep -Evq "^(index\.html|plot-[0-9]+\.png)$" &&
	 [ "$(ls -A "$tmp" | grep -vx dots | grep -vx out | grep -vx err)" = "$(grep -vx out "$tmp/before" | grep -vx err)" ] &&
	 ! find / -xdev -newer "$tmp/before" -name "x.xml*" 2>/dev/null | grep -q .'

# point 3, the reader's side: a configuration twice in one file is two writers' doubling
grep -v '"kind"' "$tmp/sweep.jsonl" | head -1 >"$tmp/one.jsonl"
cat "$tmp/one.jsonl" "$tmp/one.jsonl" >"$tmp/twice.jsonl"
run "$tmp/twice.jsonl" --out "$tmp/dup"
check "one configuration twice in one file: exit 2, one line naming file:line, the other line and the configuration" eval \
	'[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	 grep -qF "$tmp/twice.jsonl:2: the same configuration and run as line 1 (algo atomic_tree," "$tmp/err" &&
	 grep -qF "threads 1" "$tmp/err" && [ ! -e "$tmp/dup" ]'
cat "$tmp/sweep.jsonl" "$tmp/sweep.jsonl" >"$tmp/doubled.jsonl"
run "$tmp/doubled.jsonl" --out "$tmp/dup"
check "a sweep's file written twice (rep lines and summaries): exit 2 at the first doubled rep line" eval \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	 grep -qF "$tmp/doubled.jsonl:$(( $(wc -l <"$tmp/sweep.jsonl") + 1 )): the same configuration and run as line 1 (" "$tmp/err" &&
	 grep -qF ", rep 0)" "$tmp/err" && [ ! -e "$tmp/dup" ]'
run "$tmp/one.jsonl" "$tmp/one.jsonl" --out "$tmp/dup"
check "one file given twice: exit 2, one line" eval \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "is given twice" "$tmp/err" &&
	 [ ! -e "$tmp/dup" ]'
cp "$tmp/one.jsonl" "$tmp/one-again.jsonl"
run "$tmp/one.jsonl" "$tmp/one-again.jsonl" --out "$tmp/two"
check "the same configuration from two files: two runs compared, exit 0" eval \
	'clean && grep -qF "atomic_tree [file $tmp/one-again.jsonl]" "$tmp/two/index.html"'
sed 's/"note":null/"note":"second run"/' "$tmp/one.jsonl" >"$tmp/note2.jsonl"
cat "$tmp/one.jsonl" "$tmp/note2.jsonl" >"$tmp/tworuns.jsonl"
run "$tmp/tworuns.jsonl" --out "$tmp/tworuns"
check "one configuration from two runs in one file (another note): both reported, exit 0" eval \
	'clean && grep -qF "atomic_tree [note second run]" "$tmp/tworuns/index.html"'
check "no command ran in any of it" nomark
