#!/usr/bin/env bash
# cli_topo.sh - `ctrbench topo`: bad input is one line naming the bad value
# with exit status 2 and nothing on stdout; good input prints the tree, the
# placement table and the pair counts, or the same as one JSON object.
# Prints "ok - ..." / "not ok - ..." per check.  Usage: cli_topo.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

GENOA="pack:2 [numa] l3:12 core:8 pu:2"
NPS4="pack:2 numa:4 l3:3 core:8 pu:2"


BADVAL="list:5-2" bad topo --topology "$GENOA" --placement list:5-2 --threads 2
BADVAL="list:x" bad topo --topology "$GENOA" --placement list:x --threads 2
BADVAL="list:1,,2" bad topo --topology "$GENOA" --placement list:1,,2 --threads 2
BADVAL="list:" bad topo --topology "$GENOA" --placement list: --threads 2
BADVAL="PU 384" bad topo --topology "$GENOA" --placement list:0,384 --threads 2
BADVAL="PU 100000" bad topo --placement list:100000 --threads 1
BADVAL="roundrobin" bad topo --topology "$GENOA" --placement roundrobin --threads 2
BADVAL="pack:x" bad topo --topology pack:x
BADVAL="pack:2 core:4" bad topo --topology "pack:2 core:4"
BADVAL="/no/such/machine.xml" bad topo --topology /no/such/machine.xml
BADVAL="'0'" bad topo --topology "$GENOA" --placement scatter --threads 0
BADVAL="2abc" bad topo --topology "$GENOA" --placement scatter --threads 2abc
BADVAL="5000" bad topo --topology "$GENOA" --placement scatter --threads 5000
BADVAL="csv" bad topo --format csv
# Specs hwloc would take minutes or all memory to build are refused before it sees them.
BADVAL="2147483648 PUs" bad topo --topology 2147483648
BADVAL="2147483648 PUs" bad run --topology 2147483648 --algo atomic_tree --shape chain:2 --threads 1
BADVAL="1000000000 PUs" bad topo --topology "pack:1000 core:1000 pu:1000"
BADVAL="262144 PUs" bad topo --topology "pack:64 core:64 pu:64"
BADVAL="1099511627776 PUs" bad topo --topology "$(printf 'group:2 %.0s' $(seq 40))pu:1"
BADVAL="/dev/zero" bad topo --topology /dev/zero
BADVAL="--bogus" bad topo --bogus
BADVAL="extra" bad topo extra
BADVAL="--threads" bad topo --placement scatter
BADVAL="--threads" bad topo --topology "$GENOA" --threads

# The issue's acceptance: 8 scatter threads on 8 different L3s over both packages, pair counts.
"$B" topo --topology "$GENOA" --placement scatter --threads 8 >"$tmp/t" 2>"$tmp/err"
rc=$?
rows=$(awk '/^thread /{on=1; next} on && /^ *[0-9]+ /{print}' "$tmp/t")
nrows=$(printf '%s\n' "$rows" | grep -c .)
l3s=$(printf '%s\n' "$rows" | awk '{print $4}' | sort -u | wc -l)
pkgs=$(printf '%s\n' "$rows" | awk '{print $6}' | sort -u | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$nrows" -eq 8 ] && [ "$l3s" -eq 8 ] && [ "$pkgs" = "0 1 " ] &&
	grep -q '^pairs (28): same 0, smt 0, ccx 0, numa 12, package 0, remote 16$' "$tmp/t" &&
	grep -q '^2 packages, 2 NUMA nodes, 24 L3s, 192 cores, 384 PUs' "$tmp/t" &&
	grep -q '^    L3 #3: cores 24-31, CPUs 48-63 (hwloc PU L#48-63)$' "$tmp/t" && [ ! -s "$tmp/err" ]; then
	ok "topo scatter 8 on 2-socket Genoa: 8 threads on 8 L3s over both packages, pair counts"
else
	nok "topo scatter 8 on 2-socket Genoa (exit $rc, $nrows rows, $l3s L3s, packages '$pkgs')"
	sed 's/^/#   /' "$tmp/t" "$tmp/err"
fi

# The same as JSON.
"$B" topo --topology "$GENOA" --placement scatter --threads 8 --format json >"$tmp/j"
rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/j" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
j = json.loads(lines[0])
assert j["synthetic"] is True and j["topology"] == "pack:2 [numa] l3:12 core:8 pu:2", j
assert (j["packages"], j["numa_nodes"], j["l3s"], j["cores"], j["pus"], j["smt"]) == (2, 2, 24, 192, 384, 2)
assert [p["package"] for p in j["tree"]] == [0, 1]
for p in j["tree"]:
    assert len(p["numa_nodes"]) == 1 and len(p["numa_nodes"][0]["l3s"]) == 12
    assert p["numa_nodes"][0]["memory_bytes"] is None
l3 = j["tree"][0]["numa_nodes"][0]["l3s"][3]
assert l3["l3"] == 3 and l3["cores"] == list(range(24, 32)) and l3["pus"] == list(range(48, 64)), l3
pl = j["placement"]
assert pl["policy"] == "scatter" and pl["threads"] == 8 and pl["wrapped"] is False
w = pl["workers"]
assert [x["thread"] for x in w] == list(range(8))
assert [x["pu"] for x in w] == [0, 192, 16, 208, 32, 224, 48, 240], w
assert len({x["l3"] for x in w}) == 8 and {x["package"] for x in w} == {0, 1}
assert pl["pairs"] == {"same": 0, "smt": 0, "ccx": 0, "numa": 12, "package": 0, "remote": 16}, pl["pairs"]
PY
then ok "topo --format json: tree, 8 scatter workers on 8 L3s, pair counts"; else nok "topo --format json (exit $rc)"; sed 's/^/#   /' "$tmp/j"; fi

# Every policy places 16 threads on the NPS4 machine; the first PUs are the documented ones.
for want in "compact 0 2 4 6" "scatter 0 192 48 240" "ccx 0 2 4 6" "numa 0 2 4 6" "smt 0 1 2 3" \
	"list:0,2,4-7 0 2 4 5"; do
	set -- $want
	p=$1; shift
	"$B" topo --topology "$NPS4" --placement "$p" --threads 16 >"$tmp/p"
	rc=$?
	got=$(awk '/^thread /{on=1; next} on && /^ *[0-9]+ /{print $2}' "$tmp/p" | head -4 | tr '\n' ' ')
	n=$(awk '/^thread /{on=1; next} on && /^ *[0-9]+ /' "$tmp/p" | wc -l)
	if [ $rc -eq 0 ] && [ "$n" -eq 16 ] && [ "$got" = "$* " ] && grep -q "^placement $p: 16 threads" "$tmp/p"; then
		ok "topo --placement $p on NPS4: 16 rows, starts $*"
	else
		nok "topo --placement $p on NPS4 (exit $rc, $n rows, starts '$got', want '$* ')"
		sed 's/^/#   /' "$tmp/p"
	fi
done

# More threads than PUs wrap around, and the output says so.
"$B" topo --topology "core:2 pu:2" --placement compact --threads 5 >"$tmp/w"
rc=$?
if [ $rc -eq 0 ] && grep -q '^placement compact: 5 threads (wrapped around' "$tmp/w" &&
	grep -q 'same 1,' "$tmp/w" && grep -q 'share a PU' "$tmp/w"; then
	ok "topo wraps 5 threads over 4 PUs and says so"
else
	nok "topo wrap (exit $rc)"; sed 's/^/#   /' "$tmp/w"
fi
"$B" topo --topology "core:2 pu:2" --threads 5 --format json >"$tmp/wj"
if python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["placement"]
assert p["policy"] == "compact" and p["wrapped"] is True and p["pairs"]["same"] == 1, p
assert [w["pu"] for w in p["workers"]] == [0, 2, 1, 3, 0], p
' "$tmp/wj"; then ok "topo --threads alone: compact, wrapped in JSON"; else nok "topo --threads alone"; sed 's/^/#   /' "$tmp/wj"; fi

# This machine: a tree with at least one PU, not synthetic; every policy places on it.
"$B" topo >"$tmp/m"
rc=$?
if [ $rc -eq 0 ] && grep -q '^topology: this machine$' "$tmp/m" && grep -qE '^[0-9]+ packages?, .* [1-9][0-9]* PUs' "$tmp/m"; then
	ok "topo on this machine"; else nok "topo on this machine (exit $rc)"; sed 's/^/#   /' "$tmp/m"; fi
fails=0
for p in compact scatter ccx numa smt list:0; do
	"$B" topo --placement $p --threads 3 --format json >"$tmp/mj" || fails=$((fails + 1))
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["synthetic"] is False and j["pus"] >= 1 and len(j["placement"]["workers"]) == 3
assert sum(j["placement"]["pairs"].values()) == 3
' "$tmp/mj" || fails=$((fails + 1))
done
if [ $fails -eq 0 ]; then ok "every policy places 3 threads on this machine"; else nok "policies on this machine ($fails failures)"; fi

# An lstopo XML export plans like the synthetic string it came from.
if command -v lstopo-no-graphics >/dev/null; then
	lstopo-no-graphics -i "$NPS4" --of xml "$tmp/nps4.xml" 2>/dev/null
	"$B" topo --topology "$tmp/nps4.xml" --placement scatter --threads 16 | sed 1d >"$tmp/x"
	"$B" topo --topology "$NPS4" --placement scatter --threads 16 | sed 1d >"$tmp/s"
	if [ -s "$tmp/x" ] && cmp -s "$tmp/x" "$tmp/s"; then ok "topo --topology FILE.xml plans like the synthetic string"
	else nok "topo --topology FILE.xml"; diff "$tmp/x" "$tmp/s" | sed 's/^/#   /'; fi
else
	ok "topo --topology FILE.xml # SKIP lstopo-no-graphics not installed"
fi
