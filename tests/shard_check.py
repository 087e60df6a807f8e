#!/usr/bin/env python3
"""shard_check.py PLAN ONE|- SHARD... - the shards' summary lines, merged, hold the configurations
of PLAN (sweep --dry-run --format json) exactly, each once, with its id in "sweep.id" and every
identity field the plan gives; so does ONE (one sweep of the same options); every (id, rep) of
the rep lines is there once.  Exit 1 with what differs."""
import json
import sys


def flat(o, pre=""):
    for k, v in o.items():
        if isinstance(v, dict):
            yield from flat(v, pre + k + ".")
        else:
            yield pre + k, v


def get(o, path):
    for p in path.split("."):
        o = o.get(p) if isinstance(o, dict) else None
    return o


def lines(paths):
    for p in paths:
        with open(p) as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def configs(plan, paths, what):
    bad, seen, reps = [], {}, {}
    for o in lines(paths):
        cid = get(o, "sweep.id")
        if o.get("kind") == "rep":
            key = (cid, o["rep"])
            reps[key] = reps.get(key, 0) + 1
            continue
        seen[cid] = seen.get(cid, 0) + 1
        if cid not in plan:
            bad.append(f"{what}: id {cid} is not in the plan")
            continue
        for path, v in plan[cid]:
            if get(o, path) != v:
                bad.append(f"{what}: id {cid}: {path} is {get(o, path)!r}, the plan says {v!r}")
    for cid in plan:
        if seen.get(cid, 0) != 1:
            bad.append(f"{what}: id {cid} summarised {seen.get(cid, 0)} times, want once")
        n = plan_reps[cid]
        for r in range(n if n > 1 else 0):
            if reps.get((cid, r), 0) != 1:
                bad.append(f"{what}: id {cid} rep {r} written {reps.get((cid, r), 0)} times, want once")
    return bad


plan, plan_reps = {}, {}
for o in lines([sys.argv[1]]):
    plan[o["id"]] = [(p, v) for p, v in flat(o) if p not in ("kind", "id", "point")]
    plan_reps[o["id"]] = o["reps_requested"]
bad = (configs(plan, [sys.argv[2]], "one sweep") if sys.argv[2] != "-" else []) + \
    configs(plan, sys.argv[3:], "shards")
for b in bad[:20]:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
