# SPDX-License-Identifier: MIT
# report_projected_check.py WITH.html WITHOUT.html PROJECTED.jsonl - run by tests/cli_report.sh.
# WITH.html is the report of tests/data/report.jsonl and PROJECTED.jsonl (ctrbench project lines,
# kind "projected"); WITHOUT.html the report of report.jsonl alone.  Reads every plot's legend
# entries from the inline SVG gnuplot drew (the entry's <text> and whether its sample line has a
# stroke-dasharray) and prints TAP lines: in the projected section every series is either
# "ALGO projected (model, calibration NAME)" drawn dashed, NAME a calibration of the input, or
# "ALGO measured" drawn solid, and every projected line's algorithm and calibration is drawn;
# outside it, every plot is exactly the one the report without projected lines draws (no
# projected series joins a measured plot).
import json
import re
import sys

PROJ = re.compile(r"^(\S+) projected \(model, calibration (.+)\)$")
MEAS = re.compile(r"^(\S+) measured$")
failed = 0


def check(ok, name, detail=""):
    global failed
    print(("ok - " if ok else "not ok - ") + name)
    if not ok:
        failed += 1
        for line in str(detail).splitlines()[:20]:
            print("#   " + line)


def entries(page):
    """(in_projected_section, title, dashed) of every titled legend entry, in page order."""
    out = []
    sec = [(m.start(), m.group(1)) for m in re.finditer(r'<section id="([^"]+)"', page)]
    parts = re.split(r'(<g id="[^"]*gnuplot_plot_\d+"[^>]*>)', page)
    pos = 0
    for i, part in enumerate(parts):
        if i % 2 == 1:
            body = parts[i + 1]
            t = re.search(r"<text>(.*?)</text>", body, re.S)
            # the entry's own sample line: the first path with a colour stroke in its body
            path = re.search(r"<path stroke='rgb\([^']*\)'([^>]*)/>", body)
            where = [name for start, name in sec if start <= pos]
            if t and path:
                dash = re.search(r"stroke-dasharray='([^']*)'", path.group(1))
                out.append((bool(where) and where[-1] == "projected", t.group(1).strip(),
                            bool(dash and dash.group(1).strip())))
        pos += len(part)
    return out


with_ = open(sys.argv[1], encoding="utf-8").read()
without = open(sys.argv[2], encoding="utf-8").read()
lines = [json.loads(x) for x in open(sys.argv[3]) if x.strip()]
cals = {l["calibration_name"] for l in lines}
want = {(l["algo"], l["calibration_name"]) for l in lines}

e = entries(with_)
inside = [x for x in e if x[0]]
bad = [x for x in inside
       if not ((PROJ.match(x[1]) and x[2] and PROJ.match(x[1]).group(2) in cals) or
               (MEAS.match(x[1]) and not x[2]))]
check(inside and not bad, "projected section: %d series, each dashed and labelled projected "
      "(model, calibration NAME), or solid and labelled measured" % len(inside), bad)
drawn = {(PROJ.match(x[1]).group(1), PROJ.match(x[1]).group(2)) for x in inside if PROJ.match(x[1])}
check(drawn == want, "projected section: every projected line's algorithm and calibration drawn",
      "want %s, drawn %s" % (sorted(want), sorted(drawn)))
check(any(MEAS.match(x[1]) for x in inside),
      "projected section: the measured runs of a projection made on this machine beside it, solid")
outside = [x[1:] for x in e if not x[0]]
base = [x[1:] for x in entries(without)]
check(outside == base and not any("projected" in t for t, _ in outside),
      "outside the projected section the plots are those of the report without projected lines "
      "(%d series)" % len(base), "with: %s\nwithout: %s" % (outside[:8], base[:8]))
m = re.search(r'<section id="projected">.*?</section>', with_, re.S)
rows = re.findall(r'<tr data-algo="[^"]*" data-threads="\d+" data-kind="projected">', m.group(0)) if m else []
check(len(rows) == len(lines), "projected section: a table row per projected line (%d)" % len(rows))
sys.exit(1 if failed else 0)
