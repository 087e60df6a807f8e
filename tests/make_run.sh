#!/usr/bin/env bash
# make_run.sh - the README's first command as a newcomer sees it: `make run` on a 100-column
# terminal ends with a verdict (the ranking with exact and approximate designs apart, the
# evidence file, what this machine cannot show, the next command) and no line of its output is
# wider than 100 columns.  About 45 s (the sweep), so it is in make check-long.
set -u
cd "$(dirname "$0")/.."
. tests/tap.sh
unset CTRBENCH_PROGRESS	# make run's progress lines are part of what a user sees

COLUMNS=100 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory run >"$tmp/out" 2>&1
rc=$?
check "make run exits 0" test $rc -eq 0
wide=$(awk 'length > 100 { n++ } END { print n + 0 }' "$tmp/out")
check "every line of make run's output fits 100 columns ($wide wider)" eval \
	'[ "$wide" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -gt 20 ]'
res=$(sed -n 's/^results: \([^ ]*\) .*/\1/p' "$tmp/out")
check "the verdict: exact and approximate designs ranked apart" eval \
	'grep -q "^  exact designs" "$tmp/out" && grep -q "^  approximate designs" "$tmp/out"'
check "the verdict names its evidence file, the results file make run wrote" eval \
	'[ -n "$res" ] && [ -f "$res" ] && grep -qF "evidence: $res " "$tmp/out"'
check "it says what this machine cannot show, and the next command" eval \
	'grep -q "^this machine cannot show: " "$tmp/out" && grep -q "^next:" "$tmp/out" &&
	 grep -q "ctrbench recommend .*--results\|--results $res" "$tmp/out"'
