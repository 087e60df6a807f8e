#!/usr/bin/env bash
# cli_report_limits.sh - `ctrbench report` given ctrbench limits' JSON lines (tests/data/limits.jsonl,
# a real run: tests/data/README.md) beside run results: the HTML page and the Markdown have the
# "Ratio to the limit" section, a row per line with both sides' figures, the ratio and its range
# as the file has them; a limits file alone makes a page of that section; a bad limits line is one
# stderr line naming it, exit 2.  And the lines ctrbench limits writes now are what the report reads.
# Prints "ok - ..." / "not ok - ...".  Usage: cli_report_limits.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}
D=tests/data/report.jsonl
L=tests/data/limits.jsonl

. tests/tap.sh

run() {
	"$B" report "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
clean() { [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; }

# rows_match PAGE FILE: the page's limits figure has one row per line of FILE, in its order, each
# with the file's names, its figures to 4 significant digits and its ratio and range to 2 decimals.
rows_match() {
	python3 - "$1" "$2" <<'PY'
import html.parser, json, sys

class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.fig = None
        self.rows = []
        self.td = None
        self.sections = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "figure":
            self.fig = a.get("id")
        if self.fig == "limits" and tag == "tr" and a.get("data-algo") == "limits":
            self.rows.append({"row": a["data-row"], "limit": a["data-limit"], "cells": []})
        if self.fig == "limits" and tag == "td":
            self.td = ""
    def handle_endtag(self, tag):
        if tag == "figure":
            self.fig = None
        if tag == "td" and self.td is not None:
            self.rows[-1]["cells"].append(self.td)
            self.td = None
    def handle_data(self, d):
        if self.td is not None:
            self.td += d

def sig4(v):
    return "%.4g" % v if abs(v) < 1e4 else format(v, ",.0f")

p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
want = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
assert "limits" in p.sections, p.sections
assert len(p.rows) == len(want) > 0, (len(p.rows), len(want))
for got, w in zip(p.rows, want):
    assert (got["row"], got["limit"]) == (w["row"], w["limit"]), (got, w)
    c = got["cells"]
    assert c == [w["row"], sig4(w["ns"]), w["limit"], sig4(w["limit_ns"]), w["unit"],
                 "%.2fx" % (w["ns"] / w["limit_ns"]), "%.2fx" % w["ratio"], "[%.2f, %.2f]" % (w["ratio_lo"], w["ratio_hi"])], (c, w)
PY
}

run $D $L --out "$tmp/r"
check "html with limits: exit 0, a 'Ratio to the limit' section beside the run sections" eval \
	'clean && grep -q "<section id=\"limits\"><h2>Ratio to the limit</h2>" "$tmp/r/index.html" &&
	 grep -q "<section id=\"throughput\">" "$tmp/r/index.html"'
check "html: a row per limits line, its names, figures, ratio and range as the file has them" \
	rows_match "$tmp/r/index.html" $L

run $D $L --out "$tmp/m" --format markdown
check "markdown: the section with a row per line, each row's ratio as in the file" eval \
	'clean && grep -q "^## Ratio to the limit" "$tmp/m/report.md" &&
	 python3 -c "
import json, sys
md = open(sys.argv[1]).read().split(\"## Ratio to the limit\")[1]
for l in open(sys.argv[2]):
    r = json.loads(l)
    assert any(line.startswith(\"| \" + r[\"row\"]) and \" %s \" % r[\"limit\"] in line and
               \" %.2fx \" % r[\"ratio\"] in line for line in md.splitlines()), r
" "$tmp/m/report.md" $L'

run $L --out "$tmp/alone"
check "a limits file alone: the section and no run section" eval \
	'clean && rows_match "$tmp/alone/index.html" '"$L"' &&
	 grep -q "No run results here: ratios to the limit only" "$tmp/alone/index.html" &&
	 ! grep -q "<section id=\"throughput\">" "$tmp/alone/index.html"'

# bad limits lines: each refused naming the field, nothing written
mkdir -p "$tmp/o"
python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline()); r["ratio"] = r["ratio_hi"] + 1; print(json.dumps(r))' $L >"$tmp/bad1.jsonl"
BADVAL="$tmp/bad1.jsonl:1: \"ratio\"" bad report "$tmp/bad1.jsonl" --out "$tmp/o/x"
python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline()); del r["limit_ns"]; print(json.dumps(r))' $L >"$tmp/bad2.jsonl"
BADVAL="\"limit_ns\" is missing" bad report "$tmp/bad2.jsonl" --out "$tmp/o/x"
check "nothing written by a rejected limits file" eval '[ -z "$(ls -A "$tmp/o")" ]'

# what ctrbench limits writes now is what the report reads
"$B" limits --rounds 1 --duration-ms 20 --format json >"$tmp/live.jsonl" 2>/dev/null
run "$tmp/live.jsonl" --out "$tmp/live"
check "ctrbench limits --format json, made here: the report has its every row" eval \
	'clean && rows_match "$tmp/live/index.html" "$tmp/live.jsonl"'
