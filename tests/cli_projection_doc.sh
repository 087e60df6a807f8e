#!/usr/bin/env bash
# cli_projection_doc.sh - docs/projection.md's projected tables and its fidelity table are what
# `scripts/reproducing --projection` makes from docs/results/proj-*.jsonl, the measured results and
# docs/seeds/tables.csv (issue 27): a figure or a verdict edited by hand is caught, a changed data
# file changes the verdicts it decides, a missing record is said, and the data step (--rerun) writes
# only complete files of its own, never runs a string read from a file.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_projection_doc.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
. tests/tap.sh
BA=$(cd "$(dirname "$B")" && pwd)/$(basename "$B")

scripts/reproducing --projection --check --ctrbench "$B" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "docs/projection.md's generated blocks are what its data files make" eval '[ $rc -eq 0 ] || { cat "$tmp/err" >&2; false; }'
n=$(grep -c '^<!-- projection ' docs/projection.md)
check "a projection block per docs/results/proj-*.jsonl ($n) and one fidelity block" eval \
	'[ "$n" -ge 4 ] && [ "$n" -eq "$(ls docs/results/proj-*.jsonl | wc -l)" ] && [ "$(grep -c "^<!-- fidelity -->" docs/projection.md)" -eq 1 ]'
check "the fidelity block has the summary counts and a row per seed row" eval \
	'grep -Eq "^\*\*[0-9]+ of [0-9]+ measured rows reproduced, [0-9]+ of [0-9]+ projected\.\*\*$" docs/projection.md &&
	 [ "$(grep -c "^| 00[014] | " docs/projection.md)" -ge 20 ]'

# a verdict edited by hand is caught, and regenerating gives the committed page back
awk '/^<!-- fidelity -->/ { inb = 1 } /^<!-- end fidelity/ { inb = 0 }
     inb && !done && /\| does not agree \|/ { sub(/\| does not agree \|/, "| agrees |"); done = 1 } { print }' \
	docs/projection.md >"$tmp/doc.md"
scripts/reproducing --projection --check --ctrbench "$B" --doc "$tmp/doc.md" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a verdict written by hand: --check exits 1 naming the fidelity block" eval \
	'[ $rc -eq 1 ] && grep -q "block fidelity is not what the data files make" "$tmp/err" && ! cmp -s "$tmp/doc.md" docs/projection.md'
scripts/reproducing --projection --ctrbench "$B" --doc "$tmp/doc.md" >"$tmp/out" 2>"$tmp/err"
check "regenerating it gives back the committed page" cmp -s "$tmp/doc.md" docs/projection.md
awk '/^<!-- projection shrinker-count/ { inb = 1 } /^<!-- end projection/ { inb = 0 }
     inb && !done && /^\| shrinker=Y rstat_force \| [0-9]/ { sub(/\| [0-9]+/, "| 999999"); done = 1 } { print }' \
	docs/projection.md >"$tmp/doc2.md"
scripts/reproducing --projection --check --ctrbench "$B" --doc "$tmp/doc2.md" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a projected figure edited: --check exits 1 naming its block" eval \
	'[ $rc -eq 1 ] && grep -q "block shrinker-count is not" "$tmp/err" && ! cmp -s "$tmp/doc2.md" docs/projection.md'

# A copy of the tree's generator and docs: its data files can be changed without touching ours.
T=$tmp/tree
mkdir -p "$T/scripts" && cp scripts/reproducing "$T/scripts/" && cp -r docs "$T/"
run_copy() { (cd "$T" && scripts/reproducing --projection --ctrbench "$BA" "$@") >"$tmp/out" 2>"$tmp/err"; }
field() {	# field ROW-PREFIX N: the Nth |-field of the fidelity row starting with ROW-PREFIX in the copy
	grep -F "$1" "$T/docs/projection.md" | head -1 | awk -F'|' -v n="$2" '{ gsub(/^ +| +$/, "", $n); print $n }'
}
D1='| 000 | store_limit | depth 1 |'
m0=$(field "$D1" 14)
# the verdict follows the data: rstat_force's depth-1 projection set to the posted 567116 ns/store
python3 - "$T/docs/results/proj-zswap-store-limit.jsonl" <<'PY'
import json, sys
p = sys.argv[1]
out = []
for raw in open(p):
    o = json.loads(raw)
    if o.get("kind") == "projected" and o["algo"] == "rstat_force" and o["shape"] == "chain:1":
        o["ns_per_op"]["serial"] = 567116 - 35000
    out.append(json.dumps(o) + "\n")
open(p, "w").writelines(out)
PY
run_copy
check "a data file changed: its table and the verdict it decides change with it (magnitude: '$m0' -> '$(field "$D1" 14)')" eval \
	'[ "$m0" = "does not agree" ] && [ "$(field "$D1" 14)" = agrees ] && grep -q "^| 1 | 567116 (" "$T/docs/projection.md"'
(cd "$T" && scripts/reproducing --projection --check --ctrbench "$BA" --doc "$OLDPWD/docs/projection.md") >"$tmp/out" 2>"$tmp/err"
rc=$?
check "the committed page against the changed data: --check exits 1 naming both blocks" eval \
	'[ $rc -eq 1 ] && grep -q "blocks zswap-store-limit, fidelity are not" "$tmp/err"'

# a command with no record in its file: --check says so; the page says "not projected (why)"
python3 - "$T/docs/results/proj-stat-read-storm.jsonl" <<'PY'
import json, sys
p = sys.argv[1]
keep, skip = [], False
for raw in open(p):
    o = json.loads(raw)
    if o.get("kind") == "command":
        skip = o["argv"][o["argv"].index("--readers") + 1] == "1"
    if not skip:
        keep.append(raw)
open(p, "w").writelines(keep)
PY
(cd "$T" && scripts/reproducing --projection --check --ctrbench "$BA") >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a command missing from its data file: --check exits 1 naming the file" eval \
	'[ $rc -eq 1 ] && grep -q "proj-stat-read-storm.jsonl has no record of" "$tmp/err"'
run_copy
check "... and the page says the row is not projected, and why" eval \
	'grep -q "^| lone reader | 1 | not projected (no record of its command in docs/results/proj-stat-read-storm.jsonl)" "$T/docs/projection.md" &&
	 [ "$(field "| 004 | read_storm | no contention |" 11)" = "not projected (see its table)" ]'

# The data step, with a stand-in ctrbench: its `project` prints one complete line, part of a second,
# then hangs; its `scenario` is the real one (the measured tables of the fidelity table).
# (its line is another algorithm's: rstat_force's lines are the ones cut off)
grep '"kind": *"projected"' docs/results/proj-stat-read-storm.jsonl | head -1 | sed 's/"rstat_force"/"rstat_ratelimit"/' >"$tmp/line.json"
cat >"$tmp/fake" <<EOF
#!/usr/bin/env bash
if [ "\$1" = project ]; then
	cat "$tmp/line.json"; printf '{"kind":"projected","algo":"rstat_'
	exec sleep \${FAKE_SLEEP:-30}
fi
exec "$BA" "\$@"
EOF
chmod +x "$tmp/fake"
cp "$T/docs/results/proj-stat-read-storm.jsonl" "$tmp/before.jsonl"
(cd "$T" && FAKE_SLEEP=2 scripts/reproducing --projection --rerun stat-read-storm --timeout 20 --ctrbench "$tmp/fake") \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 1
check "while the data step runs, the data file is the old one (written only when complete)" \
	cmp -s "$tmp/before.jsonl" "$T/docs/results/proj-stat-read-storm.jsonl"
wait $pid
check "the data step done: a record per command, the complete lines only" eval \
	'[ "$(grep -c "\"kind\": \"command\"" "$T/docs/results/proj-stat-read-storm.jsonl")" -eq 3 ] &&
	 [ "$(grep -c "\"kind\": \"projected\"" "$T/docs/results/proj-stat-read-storm.jsonl")" -eq 3 ] &&
	 ! ls "$T"/docs/results/.proj-* 2>/dev/null'
(cd "$T" && scripts/reproducing --projection --rerun stat-read-storm --timeout 1 --ctrbench "$tmp/fake") >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a command past --timeout: recorded as timed out, its row 'not projected (timed out after 1 s)'" eval \
	'[ $rc -eq 0 ] && grep -q "\"status\": \"timed out\"" "$T/docs/results/proj-stat-read-storm.jsonl" &&
	 grep -q "^| read=spin | 364 | not projected (timed out after 1 s)" "$T/docs/projection.md"'
# a file the script did not write is left as it is
echo '{"kind":"projected","algo":"rstat_force"}' >"$T/docs/results/proj-shrinker-count.jsonl"
cp "$T/docs/results/proj-shrinker-count.jsonl" "$tmp/theirs.jsonl"
(cd "$T" && scripts/reproducing --projection --rerun shrinker-count --timeout 1 --ctrbench "$tmp/fake") >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a data file it did not write: --rerun refuses it (exit 1), the file unchanged" eval \
	'[ $rc -eq 1 ] && grep -q "not a file this script wrote" "$tmp/err" && cmp -s "$tmp/theirs.jsonl" "$T/docs/results/proj-shrinker-count.jsonl"'

# input is data: shell in a data file's strings is printed (or ignored), never run
python3 - "$T/docs/results/proj-shrinker-count.jsonl" "$tmp" <<'PY'
import json, sys
p, t = sys.argv[1:3]
bad = "$(touch %s/MARK1); `touch %s/MARK2`; touch %s/MARK3" % (t, t, t)
open(p, "w").write(json.dumps({"kind": "command", "argv": ["project", bad], "status": "done", "reason": bad,
                               "lines": 1}) + "\n" +
                   json.dumps({"kind": "projected", "algo": bad, "locks": [{"role": bad}]}) + "\n")
PY
run_copy
(cd "$T" && scripts/reproducing --projection --rerun shrinker-count --timeout 1 --ctrbench "$tmp/fake") >>"$tmp/out" 2>>"$tmp/err"
check "shell in a data file's argv, reason, algo and lock role: nothing runs it" eval \
	'! ls "$tmp"/MARK* 2>/dev/null && ! grep -q "MARK" "$T/docs/results/proj-shrinker-count.jsonl"'

# bad arguments: exit 2, one line naming the value
for a in "--rerun stat-read-storm" "--projection --rerun bogus" "--projection --timeout 1x" \
	"--projection --check --rerun all"; do
	scripts/reproducing $a >"$tmp/out" 2>"$tmp/err"
	rc=$?
	v=${a##* }
	check "bad arguments '$a': exit 2, one line naming '$v', nothing on stdout" eval \
		'[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$v" "$tmp/err" && [ ! -s "$tmp/out" ]'
done
