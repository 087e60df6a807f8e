#!/usr/bin/env python3
"""objdump_check.py BINARY [NR_ALGOS] - no indirect call or jump in a timed loop.

The timed loops (bench/loops.c) are instantiated per algorithm so that its update is inlined:
bench_update_<algo>, bench_charge_<algo>, bench_swing_<algo>, bench_read_<algo>.  This reads
`objdump -d BINARY` and checks each of them, and every libctr or harness function they call
directly (ctr_*, __ctr_*, bench_*, followed transitively), for a `call *` or `jmp *`.  Not
followed: bench_worker_phase, which runs when the phase changes (the window opening and
closing, outside the timed operations), and calls through the PLT into libc.
With NR_ALGOS, also checks that each of the four loops has that many instances.
Exit status 0 if none found, 1 (naming function and instruction) otherwise."""
import re
import subprocess
import sys

LOOP = re.compile(r"^bench_(update|charge|swing|read)_(?!window$|look$)[A-Za-z0-9_]+(\.[a-z0-9.]+)?$")
FOLLOW = re.compile(r"^(__)?(ctr|bench)_")
NOT_FOLLOWED = {"bench_worker_phase"}
INDIRECT = re.compile(r"\b(call|jmp)[a-z]*\s+\*")
CALL = re.compile(r"\b(call|jmp)[a-z]*\s+[0-9a-f]+ <([^>+@]+)(\+0x[0-9a-f]+)?>")


def functions(binary):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif not line.strip():
            cur = None
        elif cur:
            funcs[cur].append(line.strip())
    return funcs


def main():
    binary = sys.argv[1]
    funcs = functions(binary)
    roots = sorted(f for f in funcs if LOOP.match(f))
    bad, seen, todo = [], set(), list(roots)
    while todo:
        f = todo.pop()
        if f in seen or f not in funcs:
            continue
        seen.add(f)
        for insn in funcs[f]:
            if INDIRECT.search(insn):
                bad.append("%s: %s" % (f, insn))
            m = CALL.search(insn)
            if m and FOLLOW.match(m.group(2)) and m.group(2) not in NOT_FOLLOWED:
                todo.append(m.group(2))
    if len(sys.argv) > 2:
        want = int(sys.argv[2])
        for kind in ("update", "charge", "swing", "read"):
            n = sum(1 for f in roots if f.startswith("bench_%s_" % kind))
            if n != want:
                bad.append("%d bench_%s_* loop instances, want %d (one per algorithm)" % (n, kind, want))
    print("%d timed loop instances and %d functions they call checked in %s"
          % (len(roots), len(seen) - len(roots), binary))
    for b in bad:
        print("indirect: " + b)
    return 1 if bad or not roots else 0


sys.exit(main())
