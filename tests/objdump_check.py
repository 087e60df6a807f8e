#!/usr/bin/env python3
"""objdump_check.py BINARY [NR_ALGOS] - no indirect call or jump in a timed loop.

The timed loops (bench/loops.c) are instantiated per algorithm so that its update is inlined:
bench_update_<algo>, bench_charge_<algo>, bench_swing_<algo>, bench_read_<algo>.  This reads
`objdump -d BINARY` and checks each of them, and every libctr or harness function they call
directly (ctr_*, __ctr_*, bench_*, followed transitively), for a `call *` or `jmp *`.  Not
followed: bench_worker_phase, which runs when the phase changes (the window opening and
closing, outside the timed operations), and calls through the PLT into libc.
With NR_ALGOS, also checks that each of the four loops has that many instances.
Exit status 0 if none found, 1 (naming function and instruction) otherwise.

objdump_check.py --tight BINARY FUNC MOST PATTERN - FUNC's shortest loop (a backward jump and
what it jumps over) with an instruction matching PATTERN has at most MOST instructions: the update
block of an algorithm whose ref keeps its addresses in registers has no reloads of the tree
between updates.  Skipped (status 0) on a sanitized binary.

objdump_check.py --budget BINARY FUNC PER_LEVEL PER_PAIR - FUNC's every loop (a conditional backward
jump and what it jumps over, nops not counted) is within budget: where its own instructions (those
in no loop nested in it) write a counter (a store, an add or a locked op to memory other than the
stack: a level of an update), they are at most PER_LEVEL per such write; where they write none (the
+1/-1 pair loop around the walks), at most PER_PAIR.  Prints every loop.  Skipped on a sanitized
binary, whose instrumentation is in the loop."""
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


def tightest_loop(insns, pattern):
    """The shortest loop (backward jump) with a line matching pattern: (its length, its lines)."""
    addr = [int(l.split(":")[0], 16) for l in insns]
    best = None
    for i, l in enumerate(insns):
        m = re.search(r"\bj[a-z]+\s+([0-9a-f]+) <", l)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target < addr[i] and target in addr:
            j = addr.index(target)
            if not any(re.search(pattern, x) for x in insns[j:i + 1]):
                continue
            if best is None or i - j + 1 < len(best):
                best = insns[j:i + 1]
    return (len(best), best) if best else (0, [])


NOP = re.compile(r"^[0-9a-f]+:\s+(nop|xchg\s+%ax,%ax|data16|cs nop)")
# a write to memory not on the stack: the last operand is a memory operand
WRITE = re.compile(r"^[0-9a-f]+:\s+(lock\s+)?(mov|add|sub|inc|dec|xadd|cmpxchg|xchg|or|and)[bwlq]?\s+"
                   r"([^,\s]+,)?[^,\s]*\((?!%rsp)[^)]*\)\s*$")


def loops(insns):
    """Every loop: (start, end) indices of a conditional backward jump's target and the jump."""
    addr = [int(l.split(":")[0], 16) for l in insns]
    out = []
    for i, l in enumerate(insns):
        m = re.search(r"\bj(?!mp)[a-z]+\s+([0-9a-f]+) <", l)
        if m:
            target = int(m.group(1), 16)
            if target <= addr[i] and target in addr:
                j = addr.index(target)
                # not a slow path's way back into the loop: its range holds the function's ret
                if not any(re.search(r"\bret", x) for x in insns[j:i + 1]):
                    out.append((j, i))
    return out


def instrumented_or_find(binary, name):
    """(0, None) for a sanitized binary (skipped, said), (1, None) if FUNC is not in it, else (None, (name, insns))."""
    funcs = functions(binary)
    if any(f.startswith("__asan_") or f.startswith("__tsan_") for f in funcs):
        print("skipped: %s is instrumented by a sanitizer" % binary)
        return 0, None
    found = [f for f in funcs if f == name or f.startswith(name + ".")]
    if not found:
        print("no function %s in %s" % (name, binary))
        return 1, None
    return None, (found[0], funcs[found[0]])


def budget(binary, name, per_level, per_pair):
    """--budget: every loop of FUNC within PER_LEVEL instructions a level, PER_PAIR if it has none."""
    rc, f = instrumented_or_find(binary, name)
    if f is None:
        return rc
    found, insns = [f[0]], f[1]
    ls = loops(insns)
    bad = 0
    for (j, i) in ls:
        inner = [(a, b) for (a, b) in ls if (a, b) != (j, i) and j <= a and b <= i]
        own = [insns[k] for k in range(j, i + 1)
               if not any(a <= k <= b for (a, b) in inner) and not NOP.match(insns[k])]
        writes = sum(1 for l in own if WRITE.match(l))
        if writes:
            ok = len(own) <= per_level * writes
            what = "%d instructions, %d levels: %.2f a level (at most %g)" % (
                len(own), writes, len(own) / writes, per_level)
        else:
            ok = len(own) <= per_pair
            what = "%d instructions, no level (at most %d)" % (len(own), per_pair)
        print("%s: loop %s: %s%s" % (found[0], insns[j].split(":")[0], what, "" if ok else " OVER"))
        if not ok:
            bad += 1
            for l in own:
                print("  " + l)
    if not ls:
        print("%s: no loop" % found[0])
        return 1
    return 1 if bad else 0


def tight(binary, name, most, pattern):
    """--tight: FUNC's shortest loop with PATTERN is at most MOST instructions."""
    rc, f = instrumented_or_find(binary, name)
    if f is None:
        return rc
    found = [f[0]]
    n, loop = tightest_loop(f[1], pattern)
    print("%s: shortest loop with /%s/: %d instructions (at most %d wanted)" % (found[0], pattern, n, most))
    for l in loop:
        print("  " + l)
    return 0 if 0 < n <= most else 1


def main():
    if sys.argv[1] == "--budget":
        return budget(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))
    if sys.argv[1] == "--tight":
        return tight(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
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
