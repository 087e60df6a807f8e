# SPDX-License-Identifier: MIT
# report_page_check.py PAGE.html RESULTS.jsonl [C2C.json] - run by tests/cli_report.sh on the report
# made from tests/data/report.jsonl (and, given C2C.json, tests/data/c2c.json beside it: then the
# heatmap and the per-class cost table are checked too).  Parses the page (each <figure>: its inline SVG text, PNG links, text and
# table rows with their data-* attributes and cells) and prints one TAP line per check.  One
# process for all of them: starting python3 is slow behind some version managers.
import html.parser
import json
import re
import sys
import traceback


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.figs = {}
        self.cur = None
        self.svgtext = False
        self.td = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.cur = a["id"]
            self.figs[self.cur] = {"svgs": [], "pngs": [], "rows": [], "text": ""}
        if self.cur is None:
            return
        f = self.figs[self.cur]
        if tag == "svg":
            f["svgs"].append("")
        if tag == "a" and a.get("href", "").endswith(".png"):
            f["pngs"].append(a["href"])
        if tag == "tr" and "data-algo" in a:
            f["rows"].append({k[5:]: v for k, v in a.items() if k.startswith("data-")})
            f["rows"][-1]["cells"] = []
        if tag == "td":
            self.td = ""
        if tag == "text":
            self.svgtext = True

    def handle_endtag(self, tag):
        if tag == "figure":
            self.cur = None
        if tag == "text":
            self.svgtext = False
        if self.cur and tag == "td" and self.figs[self.cur]["rows"]:
            self.figs[self.cur]["rows"][-1]["cells"].append(self.td)
            self.td = None

    def handle_data(self, d):
        if self.cur is None:
            return
        f = self.figs[self.cur]
        f["text"] += d
        if self.svgtext and f["svgs"]:
            f["svgs"][-1] += d + "\n"
        if self.td is not None:
            self.td += d


page = Page()
page.feed(open(sys.argv[1], encoding="utf-8").read())
res = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
c2c = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None
ALGOS = ["atomic_tree", "percpu_hier", "rstat_ratelimit"]
checks = []


def find(fid):
    assert fid in page.figs, (fid, sorted(page.figs))
    return page.figs[fid]


def rows(fid):
    return sorted((r["algo"], int(r["threads"])) for r in find(fid)["rows"])


def row_of(f, r, key="threads"):
    hits = [x for x in f["rows"] if x["algo"] == r["algo"] and int(x[key]) == r[key]]
    assert len(hits) == 1, (r["algo"], r[key], f["rows"])
    return hits[0]


def check(name):
    def reg(fn):
        checks.append((name, fn))
        return fn
    return reg


@check("throughput plots: placements on one plot, a series per algorithm and placement, bands "
       "noted, the efficiency plot under it, the PNGs linked")
def _():
    for fid, extra in [("throughput-update-chain-1", ["efficiency"]),
                       ("throughput-update-chain-4", ["efficiency"]),
                       ("throughput-update-chain-16", ["efficiency"]),
                       ("throughput-readers-chain-4-1-reader", ["efficiency", "reads"])]:
        f = find(fid)
        assert len(f["svgs"]) == 1 + len(extra), (fid, len(f["svgs"]))
        t = f["svgs"][0]
        assert "threads (updaters)" in t and "ops/s (sum over updaters)" in t, t
        for a in ALGOS:
            assert a in t, (fid, a)
        assert "Shaded bands: the order-statistic interval of the median ops/s" in f["text"], fid
        # the PNGs are named plot-N in page order, never from the results' text
        assert len(f["pngs"]) == 1 + len(extra) and all(
            re.fullmatch(r"plot-[0-9]+\.png", n) for n in f["pngs"]), f["pngs"]
        assert "ops/s per thread ÷ ops/s at 1 thread" in f["svgs"][1], fid
        assert "linear scaling" in f["svgs"][1], fid
    # compact and list:0,0 share chain:4's plot, each algorithm a line per placement
    t = find("throughput-update-chain-4")["svgs"][0]
    for a in ALGOS:
        assert a + " · compact" in t and a + " · list:0,0" in t, (a, t)
    assert "reads/s (sum over readers)" in find("throughput-readers-chain-4-1-reader")["svgs"][2]


@check("throughput tables: a row per algorithm, thread count and placement, medians and intervals "
       "as the results have them, ratios to the baseline")
def _():
    want = {"throughput-update-chain-4": [(1, "compact"), (2, "compact"), (4, "compact"),
                                          (2, "list:0,0")],
            "throughput-update-chain-1": [(1, "compact"), (2, "compact")],
            "throughput-readers-chain-16-1-reader": [(1, "compact")]}
    for fid, tp in want.items():
        got = sorted((r["algo"], int(r["threads"]), r["placement"]) for r in find(fid)["rows"])
        assert got == sorted((a, t, p) for a in ALGOS for t, p in tp), (fid, got)

    def mega(v):        # 4 significant digits, in millions (every figure here is 1M to 999M)
        v /= 1e6
        return "%.*fM" % (4 - len(str(int(v))), v)
    f = find("throughput-update-chain-4")
    for r in res:
        if r["workload"] == "update" and r["shape"] == "chain:4":
            row = [x for x in f["rows"] if x["algo"] == r["algo"] and int(x["threads"]) ==
                   r["threads"] and x["placement"] == r["placement"]]
            assert len(row) == 1, (r["algo"], r["threads"], r["placement"])
            row = row[0]
            st = r["stats"]["ops_per_sec"]
            assert row["cells"][2] == mega(r["ops_per_sec"]), (row, r["ops_per_sec"])
            assert row["cells"][3] == "[%s, %s]" % (mega(st["lo"]), mega(st["hi"])), (row, st)
            assert row["cells"][7] == "baseline" if r["algo"] == "atomic_tree" else \
                row["cells"][7].endswith("x"), row


@check("one thread count: a table, and in place of the plot the command that would fill it")
def _():
    f = find("throughput-readers-chain-16-1-reader")
    assert not f["svgs"] and not f["pngs"], f
    assert "No plot: every result here has" in f["text"], f["text"]
    assert "a line needs two thread counts" in f["text"], f["text"]
    assert "run `ctrbench sweep --algo atomic_tree,percpu_hier,rstat_ratelimit --workload " \
        "readers --shape chain:16 --threads 1..N" in f["text"], f["text"]


@check("oversubscription said where threads outnumber CPUs")
def _():
    assert "At 4 threads there are more threads than the 2 CPUs" in \
        find("throughput-update-chain-4")["text"]


@check("latency vs depth: p50 and p99 per algorithm, a row per algorithm and depth")
def _():
    f = find("latency-update-update-chain-shapes-2-threads-compact")
    t = f["svgs"][0]
    assert "tree depth (levels)" in t and "update latency, ns" in t, t
    for a in ALGOS:
        assert a + " p50" in t and a + " p99" in t, a
    assert sorted((r["algo"], int(r["depth"])) for r in f["rows"]) == \
        sorted((a, d) for a in ALGOS for d in (1, 4, 16))
    assert "read latency, ns" in \
        find("latency-read-readers-chain-shapes-1-thread-compact-1-reader")["svgs"][0]
    h = find("latency-update-update-chain-shapes-4-threads-compact")
    assert not h["svgs"] and "every result here is at depth 4" in h["text"]


@check("latency table numbers are the results' own (p99 of every row)")
def _():
    f = find("latency-update-update-chain-shapes-2-threads-compact")
    for r in res:
        if r["workload"] == "update" and r["threads"] == 2 and r["placement"] == "compact":
            row = row_of(f, r, "depth")
            assert row["cells"][5] == format(r["update_ns"]["p99"], ",.1f"), (row, r["update_ns"])


@check("cost by distance class: the classes of each run, CPU ns/op and a counted event plotted, "
       "n/a (no PMU) with the reason")
def _():
    f = find("cost-update-chain-4")
    assert len(f["svgs"]) == 2, len(f["svgs"])
    assert "CPU ns per op (task-clock)" in f["svgs"][0] and "context-switches per op" in f["svgs"][1]
    for c in ["no pairs", "numa 1", "same 1", "same 2, numa 4"]:
        assert c in f["svgs"][0], c
    assert sorted((r["algo"], int(r["threads"]), r["placement"]) for r in f["rows"]) == sorted(
        (a, t, p) for a in ALGOS for t, p in [(1, "compact"), (2, "compact"), (2, "list:0,0"),
                                                (4, "compact")])
    assert ("cycles, instructions: n/a (no PMU), not counted in any run here: no PMU (ENOENT: "
            "this CPU or hypervisor exposes no such event)") in f["text"], f["text"]
    for r in f["rows"]:
        assert r["cells"][5] == "n/a (no PMU) [1]" and r["cells"][6] == "n/a (no PMU) [1]", r
    for r in res:
        if r["workload"] == "update" and r["shape"] == "chain:4":
            row = [x for x in f["rows"] if x["algo"] == r["algo"] and int(x["threads"]) ==
                   r["threads"] and x["placement"] == r["placement"]][0]
            assert row["cells"][4] == format(r["cpu_ns_per_op"], ",.1f"), (row, r["cpu_ns_per_op"])
    g = find("cost-readers-chain-16-1-reader")
    assert not g["svgs"] and "n/a (readers)" in g["text"]


@check("read error: bound vs observed, exact algorithms not drawn, 'by time' said")
def _():
    f = find("error-readers-chain-4-compact-1-reader")
    t = f["svgs"][0]
    assert "rstat_ratelimit at rest" in t and "rstat_ratelimit under updates (max)" in t, t
    assert "atomic_tree" not in t, t
    assert "Not drawn: atomic_tree, percpu_hier, exact (bound 0)" in f["text"]
    assert "bounded by time (bound -1)" in f["text"]
    for r in res:
        if r["workload"] == "readers" and r["shape"] == "chain:4":
            row = row_of(f, r)
            assert row["cells"][3] == format(r["read_error_at_rest"], ","), row
            assert row["cells"][4] == format(r["read_error"]["max_abs"], ","), row
            assert row["cells"][2] == ("by time" if r["read_error_bound"] < 0 else "0 (exact)"), row
    e = find("error-update-chain-4-compact")
    assert not e["svgs"] and "no read error was observed" in e["text"]


def sig4(v):       # the report's fmt_sig: 4 significant digits
    return "%.4g" % v


if c2c:
    @check("c2c heatmap: one SVG with its colour-bar title and the CPUs, the PNG linked, the "
           "class table beside it with the line's own figures")
    def _():
        (m,) = c2c["matrices"]
        fid = "c2c-%s-home-%s" % (c2c["op"], m["home_node"])
        f = find(fid)
        assert len(f["svgs"]) == 1 and len(f["pngs"]) == 1 and re.fullmatch(
            r"plot-[0-9]+\.png", f["pngs"][0]), (f["svgs"], f["pngs"])
        t = f["svgs"][0]
        assert c2c["figure"] in t, t
        for cpu in c2c["cpus"]:
            assert "%d\n" % cpu in t, (cpu, t)
        (cl,) = c2c["classes"]
        rows = [r for r in f["rows"] if r["algo"] == "c2c"]
        assert [r["class"] for r in rows] == [cl["class"]], rows
        assert rows[0]["cells"][2:6] == [str(cl["pairs"]), sig4(cl["median_ns"]),
                                         sig4(cl["p10_ns"]), sig4(cl["p90_ns"])], rows
        assert "home node %d (first touch by the main thread, checked with move_pages)" \
            % m["home_node"] in f["text"], f["text"]
        if c2c["events"]["counted"] is False:
            assert "Fill-source events: not counted (%s)" % c2c["events"]["reason"] in f["text"]

    @check("c2c pairs table: every pair with its median and interval")
    def _():
        f = find("c2c-%s-home-%s" % (c2c["op"], c2c["matrices"][0]["home_node"]))
        rows = [r for r in f["rows"] if r["algo"] == "c2c-pair"]
        assert len(rows) == len(c2c["pairs"]), rows
        for r, p in zip(rows, c2c["pairs"]):
            assert (int(r["cpu_a"]), int(r["cpu_b"])) == (p["cpu_a"], p["cpu_b"]), (r, p)
            assert r["cells"][3:5] == [sig4(p["median_ns"]), "[%s, %s]" % (
                sig4(p["lo_ns"]), sig4(p["hi_ns"]))], (r, p)

    @check("per-class cost table: a row per run, ns/op as the results have it, the transfer cost "
           "of its classes or why there is none")
    def _():
        f = find("c2c-cost-" + c2c["op"])
        assert len(f["rows"]) == len(res), (len(f["rows"]), len(res))
        cal = c2c["calibration"]["one_way_ns"]
        for r in res:
            hits = [x for x in f["rows"] if x["algo"] == r["algo"] and int(x["threads"]) ==
                    r["threads"] and x["placement"] == r["placement"] and x["cells"][2] == r["shape"]
                    and x["cells"][1] == r["workload"]]
            assert len(hits) == 1, (r["algo"], r["threads"], r["shape"], hits)
            cells = hits[0]["cells"]
            assert cells[6] == sig4(r["ns_per_op"]), (cells, r["ns_per_op"])
            pairs = {k: v for k, v in r["pairs"].items() if v}
            if not pairs:
                assert cells[7] == "n/a (one thread: no pair)", cells
            elif all(k in cal for k in pairs):
                w = sum(pairs[k] * cal[k] for k in pairs) / sum(pairs.values())
                assert cells[7] == sig4(w) and cells[8] == sig4(r["ns_per_op"] / w), cells
            else:
                missing = [k for k in pairs if k not in cal]
                assert cells[7] == "n/a (c2c measured no %s pair)" % ", ".join(missing), cells


failed = 0
for name, fn in checks:
    try:
        fn()
        print("ok - " + name)
    except Exception:
        failed += 1
        print("not ok - " + name)
        print("".join("#   " + line + "\n" for line in traceback.format_exc().splitlines()[-6:]),
              end="")
sys.exit(1 if failed else 0)
