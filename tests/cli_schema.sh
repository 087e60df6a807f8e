#!/usr/bin/env bash
# cli_schema.sh - `ctrbench schema` and the field table behind every reader and writer of
# results: tests/schema_check.py loops over the table (JSON and CSV writers, compare's matching,
# sweep --resume, recommend's variants); then --help and bad input of the command.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_schema.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh
BAD_PREFIX=schema

# its checks print themselves; a crash of the script is a failure of its own, not fewer checks
python3 tests/schema_check.py "$B" "$tmp" || nok "tests/schema_check.py ran to its end (exit $?)"
"$B" schema --help >"$tmp/out" 2>"$tmp/err"
rc=$?
check "schema --help: exit 0, names the default format" eval \
	'[ $rc -eq 0 ] && grep -q "json (default" "$tmp/out"'
"$B" schema --format table >"$tmp/out" 2>"$tmp/err"
check "schema --format table: a row per field" eval \
	'[ "$(grep -c "^ops_per_sec " "$tmp/out")" -eq 1 ] && grep -q "^# result schema " "$tmp/out"'
check "schema --format table: the projected line's fields, after the c2c line's" eval \
	'grep -q "^# projected line (kind projected" "$tmp/out" && grep -q "^ns_per_op.serial " "$tmp/out"'
"$B" schema >"$tmp/out" 2>"$tmp/err"
check "schema: projected_fields, kind first" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["projected_fields"]
assert p[0]["path"] == "kind" and "transfers_per_op.xccx" in [r["path"] for r in p]' "$tmp/out"
BADVAL="'xml'" bad --format xml
BADVAL="'extra'" bad extra
BADVAL="--bogus" bad --bogus
