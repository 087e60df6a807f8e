#!/usr/bin/env bash
# cli_reproducing.sh - docs/reproducing.md's tables are what scripts/reproducing makes from the
# results files committed in docs/results (so no figure of the page can drift from its data), and
# the check fails when a figure of the page is changed.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_reproducing.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
. tests/tap.sh

scripts/reproducing --check --ctrbench "$B" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "docs/reproducing.md's tables are what its committed results make" eval '[ $rc -eq 0 ] || { cat "$tmp/err" >&2; false; }'
n=$(grep -c '^<!-- scenario ' docs/reproducing.md)
check "docs/reproducing.md has a generated block per results file ($n)" eval \
	'[ "$n" -ge 5 ] && [ "$n" -eq "$(ls docs/results/*.jsonl | wc -l)" ]'
# a figure changed by hand inside a block is caught
awk 'BEGIN { done = 0 } /^<!-- scenario / { inb = 1 } /^<!-- end scenario / { inb = 0 }
     inb && !done && /^depth 1 / { sub(/[0-9]+/, "999999"); done = 1 } { print }' docs/reproducing.md >"$tmp/doc.md"
scripts/reproducing --check --ctrbench "$B" --doc "$tmp/doc.md" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a figure edited in the page: --check exits 1 naming the block" eval \
	'[ $rc -eq 1 ] && grep -q "block .* not what" "$tmp/err" && ! cmp -s "$tmp/doc.md" docs/reproducing.md'
# regenerating the edited copy restores it
scripts/reproducing --ctrbench "$B" --doc "$tmp/doc.md" >"$tmp/out" 2>"$tmp/err"
check "regenerating the edited page gives back the committed one" cmp -s "$tmp/doc.md" docs/reproducing.md
scripts/reproducing --bogus >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a bad argument: exit 2, one line naming it" eval '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "bogus" "$tmp/err"'
