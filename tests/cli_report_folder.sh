#!/usr/bin/env bash
# cli_report_folder.sh - issue 18.9: rewriting a report folder deleted files the user had added
# there.  The report lists what it wrote in its marker (.ctrbench-report); a folder holding
# anything else is refused with one line naming the first such file, exit 2, and nothing changes.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_report_folder.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

D=tests/data/report.jsonl
O="$tmp/rep"
"$B" report "$D" --out "$O" >"$tmp/out" 2>"$tmp/err"
check "a report is written, its marker lists its files" eval \
	'[ -s "$O/index.html" ] && grep -qx index.html "$O/.ctrbench-report" &&
	 [ "$(tail -n +2 "$O/.ctrbench-report" | wc -l)" -eq "$(ls "$O" | wc -l)" ]'
"$B" report "$D" --out "$O" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a folder holding only the report's files is rewritten" eval '[ $rc -eq 0 ] && [ -s "$O/index.html" ]'
echo "my notes" >"$O/notes.txt"
mkdir "$O/zz-mine"
ls -la "$O" >"$tmp/before"
BADVAL="it holds 'notes.txt', which the report there did not write" bad report "$D" --out "$O"
ls -la "$O" >"$tmp/after"
check "refused: the user's file and the old report are as they were" eval \
	'[ "$(cat "$O/notes.txt")" = "my notes" ] && cmp -s "$tmp/before" "$tmp/after"'
rm "$O/notes.txt"
BADVAL="it holds 'zz-mine'" bad report "$D" --out "$O"
rmdir "$O/zz-mine"
# A folder of an earlier report (a marker with no list): its own kinds of file are the report's.
printf 'made by ctrbench report: this folder is replaced whole by the next report written here\n' \
	>"$O/.ctrbench-report"
"$B" report "$D" --out "$O" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "an earlier report's folder (index.html, plots) is rewritten" eval '[ $rc -eq 0 ] && [ -s "$O/index.html" ]'
printf 'made by ctrbench report: this folder is replaced whole by the next report written here\n' \
	>"$O/.ctrbench-report"
echo x >"$O/data.csv"
BADVAL="it holds 'data.csv'" bad report "$D" --out "$O"
