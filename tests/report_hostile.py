# SPDX-License-Identifier: MIT
# report_hostile.py MARKDIR OUTDIR RUN.jsonl PROJ.jsonl C2C.json LIMITS.jsonl - run by
# tests/cli_report_inert.sh.  Rewrites real result lines (a sweep's, with its rep lines, a
# projection's, a c2c line, limits lines) so that every string in them, every string-typed field of
# the table that was null, and a few object keys the report prints (event names, env keys) carry
# what would run a command or make markup if any of it were read as code: a newline, EOD (the end
# of a gnuplot datablock), gnuplot system() and print system(), quotes, HTML, shell
# substitutions, Markdown.  Each string keeps its original value in front and the field's name in
# braces ("atomic_tree{algo}..."), so two lines stay two configurations and the test can find
# every field on the page.  Writes OUTDIR/run.jsonl, proj.jsonl, c2c.jsonl, limits.jsonl, and
# OUTDIR/longtopo.jsonl (a projected line whose topology is a 300-character path) and
# dotdot.jsonl (one whose topology climbs with ..).  The marks the commands would make are
# MARKDIR/MARK* (absolute) and MARK* (relative: wherever gnuplot or a shell runs).
import json
import os
import sys

markdir, out = sys.argv[1], sys.argv[2]


def payload(field):
    m = os.path.join(markdir, "MARK")
    return ("{%s}\nEOD\nsystem(\"touch %s1\")\nsystem(\"touch MARK1\")\nprint system('touch %s2')"
            "\n$d << EOD\n' '' \" \\\" <script>alert(1)</script><b onload=x>&amp; $(touch %s3) "
            "`touch %s4`; touch MARK5 | pipe || ^_{}@&~ *em* [l](javascript:alert(1)) <!-- # h\r\t"
            "@macro \\" % (field, m, m, m, m))


# Strings the report must keep as they are to read the line at all: its kind and the distance
# classes of a c2c line (checked against the list of classes).
KEEP = {"kind", "class"}


def hostile(v, path):
    if isinstance(v, str):
        return v if path.split(".")[-1] in KEEP else v + payload(path)
    if isinstance(v, dict):
        return {k: hostile(x, path + "." + k if path else k) for k, x in v.items()}
    if isinstance(v, list):
        return [hostile(x, path) for x in v]
    return v


def string_fields():
    """The string fields of the result table (ctrbench schema), to fill where a line has null."""
    return [f["path"] for f in json.load(open(os.path.join(out, "schema.json")))["fields"]
            if f["type"] == "string"]


def set_path(r, path, v):
    *head, last = path.split(".")
    for p in head:
        r = r.setdefault(p, {})
    if r.get(last) is None:
        r[last] = v


def lines(path):
    return [json.loads(l) for l in open(path) if l.strip()]


def write(name, rs):
    with open(os.path.join(out, name), "w") as f:
        for r in rs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


strs = string_fields()
run = []
for r in lines(sys.argv[3]):
    r = hostile(r, "")
    for p in strs:
        set_path(r, p, "set" + payload(p))
    # event names and env keys are printed too (a plot's axis, the environment's left column)
    r.setdefault("events_per_op", {})["ev" + payload("event")] = 1.5 + r["threads"]
    r.setdefault("events_unavailable", {})["ev2" + payload("event2")] = "no" + payload("reason")
    r.setdefault("env", {})["key" + payload("envkey")] = "v" + payload("envval")
    r.setdefault("pairs", {})["pk" + payload("pairkey")] = 1
    run.append(r)
write("run.jsonl", run)
proj = [hostile(r, "") for r in lines(sys.argv[4])]
write("proj.jsonl", proj)
write("c2c.jsonl", [hostile(r, "") for r in lines(sys.argv[5])])
write("limits.jsonl", [hostile(r, "") for r in lines(sys.argv[6])])
# point 7: plot files were named from the topology; 300 characters of path is past NAME_MAX
long = "/" + "/".join("dir%03d" % i for i in range(44))
assert len(long) >= 300
write("longtopo.jsonl", [dict(r, topology=long) for r in lines(sys.argv[4])])
write("dotdot.jsonl", [dict(r, topology="../../../../.." + "/.." * 90 + "/etc/x.xml",
                            calibration_name="../../cal/" + "../" * 30)
                       for r in lines(sys.argv[4])])
# the issue's case alone: a placement that closes the bar labels' datablock and runs a command
write("issue.jsonl", [dict(r, placement=(r.get("placement") or "compact") +
                           '\nEOD\nsystem("touch %s")\n' % os.path.join(markdir, "MARK9"))
                      for r in lines(sys.argv[3])])
