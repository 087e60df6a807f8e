#!/usr/bin/env python3
"""schema_check.py CTRBENCH TMPDIR - the field table (`ctrbench schema`, bench/schema.h) is the
one list every reader and writer of results follows.  Each check loops over the table itself, so
a field added to it is checked with no edit here:
  - the JSON writer writes every field of the table and nothing else;
  - the CSV writer's columns are the table's CSV fields, and every row parses (Python's csv
    module) to as many fields as its header, for every placement form;
  - compare pairs no lines that differ in one identity field (key or knob), and names the field;
    lines that differ only in a run or build field are paired;
  - sweep --resume runs a configuration again when any identity field of its line differs;
  - recommend makes a variant of its own for a knob every workload carries.
Prints TAP-style "ok - ..." / "not ok - ..." lines."""
import csv
import io
import json
import os
import subprocess
import sys

B, TMP = sys.argv[1], sys.argv[2]
failed = 0


def report(ok, name, why=""):
    global failed
    print("%s - %s" % ("ok" if ok else "not ok", name))
    if not ok:
        failed += 1
        for line in str(why).splitlines()[:20]:
            print("#   " + line)


def ctr(*args, check=True):
    p = subprocess.run([B] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if check and p.returncode:
        raise RuntimeError("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def get(o, path):
    for part in path.split("."):
        if not isinstance(o, dict) or part not in o:
            return KeyError
        o = o[part]
    return o


def put(o, path, v):
    parts = path.split(".")
    for part in parts[:-1]:
        o = o.setdefault(part, {})
    o[parts[-1]] = v


def other_value(f, v):
    """A value of f's type that differs from v."""
    if f["type"] == "integer" or isinstance(v, int) and not isinstance(v, bool):
        return (v or 0) + 7
    if f["type"] == "boolean":
        return not v
    if f["type"] == "number":
        return (v or 0) + 0.5
    return (v or "x") + "-other"


def with_other(line, f):
    """A copy of line whose field f holds another value of its type (the default where absent)."""
    cur = get(line, f["path"])
    b = json.loads(json.dumps(line))
    put(b, f["path"], other_value(f, f["default"] if cur is KeyError else cur))
    return b


def identity_fields():
    return [f for f in fields if f["identity"] != "none" and f["path"] != "schema"]


schema = json.loads(ctr("schema").stdout)
fields = schema["fields"]
version = schema["schema"]
report(isinstance(version, int) and len(fields) > 40 and
       all({"path", "type", "identity", "reps", "when", "csv", "default", "doc"} <= set(f)
           for f in fields), "ctrbench schema: version %s, %d fields" % (version, len(fields)))

# --- the JSON writer writes the table ---------------------------------------------------------
RUN = ["run", "--shape", "chain:2", "--threads", "1", "--duration-ms", "10", "--warmup-ms", "0"]
lines = []
for extra in (["--workload", "update", "--reps", "2"], ["--workload", "charge", "--reps", "1"],
              ["--workload", "readers", "--reps", "1"]):
    out = ctr(*(RUN + ["--algo", "atomic_tree,rstat_force", "--format", "json"] + extra)).stdout
    lines += [json.loads(x) for x in out.splitlines()]
paths = {f["path"] for f in fields}
missing, extra = set(), set()
for r in lines:
    for f in fields:
        parts = f["path"].split(".")
        under_null = any(get(r, ".".join(parts[:i])) is None for i in range(1, len(parts)))
        if get(r, f["path"]) is KeyError and f["path"] != "sweep" and not under_null:
            missing.add(f["path"])
    for k in r:
        if k not in paths:
            extra.add(k)
report(not missing and not extra and all(r["schema"] == version for r in lines),
       "every field of the table in every line (update, charge, readers), no other, schema %d"
       % version, "missing %s; not in the table %s" % (sorted(missing), sorted(extra)))

# --- CSV --------------------------------------------------------------------------------------
csv_fields = [f["path"] for f in fields if f["csv"]]
ok, why = True, ""
for placement in ("compact", "scatter", "list:0,1", "list:0-1", "list:1"):
    for workload in ("update", "readers"):
        p = ctr(*(RUN + ["--algo", "atomic_tree,striped", "--workload", workload, "--placement",
                         placement, "--note", 'a "quoted", note', "--format", "csv"]))
        rows = list(csv.reader(io.StringIO(p.stdout)))
        if rows[0] != csv_fields or len(rows) != 3 or any(len(x) != len(rows[0]) for x in rows):
            ok, why = False, "placement %s %s: %s" % (placement, workload, p.stdout)
            break
        row = dict(zip(rows[0], rows[1]))
        if row["placement"] != placement or row["note"] != 'a "quoted", note':
            ok, why = False, "placement %s: fields %s" % (placement, row)
report(ok, "CSV: header = the table's CSV fields; every row as many fields as the header, "
       "placement and a quoted note read back, for compact, scatter, list:0,1, list:0-1, list:1",
       why)

# --- compare ----------------------------------------------------------------------------------
base = lines[0]
a_path = os.path.join(TMP, "a.jsonl")
with open(a_path, "w") as fh:
    fh.write(json.dumps(base) + "\n")


def compare_with(changed):
    b_path = os.path.join(TMP, "b.jsonl")
    with open(b_path, "w") as fh:
        fh.write(json.dumps(changed) + "\n")
    out = ctr("compare", a_path, b_path, "--format", "json").stdout
    return [json.loads(x) for x in out.splitlines()]


bad = []
for f in identity_fields():
    rows = compare_with(with_other(base, f))
    if f["identity"] in ("key", "knob"):
        good = len(rows) == 2 and all(r["verdict"].startswith("only in") and
                                       r.get("unmatched", "").startswith(f["path"] + " differs")
                                       for r in rows)
    else:
        good = len(rows) == 1 and "unmatched" not in rows[0]
    if not good:
        bad.append("%s (%s): %s" % (f["path"], f["identity"], rows))
report(not bad, "compare: a line changed in one key or knob field pairs with nothing and the field "
       "is named; one changed in a run or build field still pairs (every such field of the table)",
       "\n".join(bad))

# --- sweep --resume ---------------------------------------------------------------------------
out = os.path.join(TMP, "sweep.jsonl")
SW = ["sweep", "--algo", "atomic_tree", "--shape", "chain:2", "--threads", "1", "--reps", "1",
      "--duration-ms", "5", "--warmup-ms", "0", "--out", out]
ctr(*SW)
with open(out) as fh:
    line = json.loads(fh.readline())
bad = []
p = ctr(*(SW + ["--resume"]))
with open(out) as fh:
    if len(fh.readlines()) != 1:
        bad.append("an unchanged line was run again")
for f in identity_fields():
    with open(out, "w") as fh:
        fh.write(json.dumps(with_other(line, f)) + "\n")
    ctr(*(SW + ["--resume"]))
    with open(out) as fh:
        n = len(fh.readlines())
    if n != 2:
        bad.append("%s changed: %d lines after --resume, want 2" % (f["path"], n))
report(not bad, "sweep --resume: a line that differs in any identity field of the table is not "
       "that configuration (run again); the same line is", "\n".join(bad))

# --- recommend --------------------------------------------------------------------------------
data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "recommend.jsonl")
with open(data) as fh:
    rec_lines = [json.loads(x) for x in fh if x.strip()]
Q = ["recommend", "--updates-per-sec", "1e6", "--reads-per-sec", "10", "--depth", "2",
     "--max-staleness", "EXACT", "--format", "json", "--results"]


def variants(path):
    d = json.loads(ctr(*(Q + [path])).stdout)
    return sum(len(d[k]) for k in ("ranked", "ruled_out", "not_ranked"))


n0 = variants(data)
bad = []
# work_ns, charge_burst and read_interval_us lines measure something other than the plain cost:
# recommend leaves them out (and says so) rather than making variants of them
plain = {"work_ns", "charge_burst", "read_interval_us"}
for f in fields:
    if f["identity"] != "knob" or f["when"] != "always" or f["path"] in plain:
        continue
    changed = []
    for r in rec_lines:
        changed.append(with_other(r, f) if r["algo"] == "percpu_hier" else r)
    path = os.path.join(TMP, "rec.jsonl")
    changed_lines = changed + [r for r in rec_lines if r["algo"] == "percpu_hier"]
    with open(path, "w") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in changed_lines))
    n = variants(path)
    if n != n0 + 1:
        bad.append("%s: %d variants, want %d" % (f["path"], n, n0 + 1))
report(not bad, "recommend: a knob of the table changed in one algorithm's lines makes a variant "
       "of its own (%d variants before)" % n0, "\n".join(bad))
sys.exit(1 if failed else 0)
