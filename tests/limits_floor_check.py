#!/usr/bin/env python3
"""limits_floor_check.py BINARY LOOPS - every `ctrbench limits` row's limit is a floor of what it
bounds, in the one sense that can be tested without a PMU: the limit's timed loop has at most the
instructions per op of the bounded loop (objdump -d of BINARY).

LOOPS is `ctrbench limits --loops`: per row, tab-separated, the row and limit names, the bounded
side's loop (a function) and its n, the limit's loop and its n, what an op is, and 1 (the limit is
a floor: held to at most) or 0 (shown, not a floor: held to more, so the label stays true).

Instructions per op:
- the limit's side, a probe (every probe's loop is branch-free but for a slow path never taken):
  its timed loop (the widest backward jump whose walk holds) walked once,
  forward branches not taken, each inner loop run until it has done n ops (n: levels or slots),
  the path's instructions over its ops.  A harness block on the limit's side (rstat_force's row
  beside percpu_hier) is allowed at n = 1 only, and counted as the bounded side is: at chain:1 a
  block runs its shortest turn (no ancestors to walk).
- the bounded side, an update loop: a harness block (bench/loops.c: BENCH_TPUT_BLOCK / 2 turns
  of its turn counter, each a +1/-1 pair at n levels, 2n ops), its shortest turn: the fewest
  instructions on any path from one count of the turn counter to the next that writes memory
  at least 2n times (every update writes each of its levels once at least), so that no branch's
  path is assumed and the check errs against the limit.  A read loop (ops "sums"): one turn of
  its outer loop is one read of n slots, its shortest path that loads memory n times at least
  (shortest_read: an 8-slot read may be a straight line of its own, out of line).
- what an op is: "stores", an instruction that writes memory, the stack aside (an update writes
  its slot once: a store, a read-modify-write, a lock add); "sums", the adds of loaded slots into
  the sum (the walk's inner loops' trip counts come from them; a read's ops are its n slots);
  "pairs", two ops a loop turn (a +1/-1 pair of compiler barriers, no instruction of its own).
Calls are one instruction (what they run is not counted: on the bounded side that errs against
the limit; on a probe's path a call is refused).

Exit status 0 if every row holds, 1 naming each that does not.  Skipped (status 0, "skipped") on
a sanitized binary: its instrumentation is in the loops."""
import re
import subprocess
import sys

STORE = re.compile(r"^(mov|add|sub|inc|dec|xadd|or|and|xor|xchg|cmpxchg|neg|not)[bwlq]?$")
SUM = re.compile(r"^add[lq]?$")
JUMP = re.compile(r"^(j[a-z]+)$")
PREFIXES = {"lock", "rep", "repz", "repnz", "cs", "ds", "data16", "notrack", "bnd"}


class Insn:
    def __init__(self, line):
        addr, _, rest = line.partition(":")
        self.addr = int(addr, 16)
        self.text = rest.split("#")[0].strip()
        words = self.text.split(None, 1)
        self.prefix = []
        while words and words[0] in PREFIXES:
            self.prefix.append(words[0])
            words = words[1].split(None, 1) if len(words) > 1 else []
        self.mnem = words[0] if words else ""
        self.ops = words[1].strip() if len(words) > 1 else ""
        m = re.match(r"^([0-9a-f]+) <", self.ops)
        self.target = int(m.group(1), 16) if JUMP.match(self.mnem) and m else None

    def operands(self):
        """The operands, split at the commas outside parentheses."""
        out, depth, cur = [], 0, ""
        for ch in self.ops:
            if ch == "," and depth == 0:
                out.append(cur)
                cur = ""
                continue
            depth += ch == "("
            depth -= ch == ")"
            cur += ch
        return [o.strip() for o in out + [cur] if o.strip()]

    def writes_memory(self):
        """A write to memory other than the stack (a spill, or a fence's lock or to the stack top)."""
        ops = self.operands()
        return bool(STORE.match(self.mnem)) and bool(ops) and "(" in ops[-1] and "%rsp" not in ops[-1]

    def is_call(self):
        return self.mnem.startswith("call")

    def is_ret(self):
        return self.mnem.startswith("ret")

    def is_jmp(self):
        return self.mnem == "jmp"


def functions(binary):
    """name -> list of instances, each a list of Insn (a name can be a local symbol twice)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = []
            funcs.setdefault(m.group(1), []).append(cur)
        elif not line.strip():
            cur = None
        elif cur is not None and re.match(r"^\s*[0-9a-f]+:", line):
            ins = Insn(line.strip())
            if ins.mnem:
                cur.append(ins)
    return funcs


def find(funcs, name):
    """The instance of name (or of a clone, name.isra.0 ...): the uninstrumented one."""
    for f, insts in sorted(funcs.items()):
        if f == name or f.startswith(name + "."):
            for insns in insts:
                if not any("tsan" in i.ops or "asan" in i.ops for i in insns):
                    return f, insns
    return None, None


def op_counts(insns, kind):
    """Per instruction, the ops it stands for."""
    ops = []
    for k, ins in enumerate(insns):
        if kind == "stores":
            ops.append(1 if ins.writes_memory() else 0)
        elif kind == "pairs":
            ops.append(2 if ins.target is not None and ins.target <= ins.addr else 0)
        else:
            ops.append(1 if is_sum(insns, k) else 0)
    return ops


def is_sum(insns, k):
    """An add of a loaded slot into the sum: from memory, or from a register loaded just before."""
    ins = insns[k]
    if not SUM.match(ins.mnem) or ins.prefix:
        return False
    ops = ins.operands()
    if len(ops) != 2 or ops[0].startswith("$") or not ops[1].startswith("%"):
        return False
    if "(" in ops[0]:
        return True
    for back in insns[max(0, k - 2):k]:
        b = back.operands()
        if back.mnem.startswith("mov") and len(b) == 2 and "(" in b[0] and b[1] == ops[0]:
            return True
    return False


def index_of(insns, addr):
    for k, ins in enumerate(insns):
        if ins.addr == addr:
            return k
    return None


def walk(insns, kind, n):
    """A probe's timed loop walked once: (instructions, ops, the path's lines) or raises ValueError."""
    ops = op_counts(insns, kind)
    loops = []
    for k, ins in enumerate(insns):
        if ins.target is not None and ins.target <= ins.addr and not ins.is_jmp():
            h = index_of(insns, ins.target)
            if h is not None:
                loops.append((h, k))
    if not loops:
        raise ValueError("no loop")
    # the timed loop: the widest whose walk holds (the others are its inner loops, or paths
    # around it that the walk refuses)
    err = None
    for head, back in sorted(loops, key=lambda hk: hk[0] - hk[1]):
        try:
            return walk_loop(insns, ops, kind, n, head, back)
        except ValueError as e:
            err = err or e
    raise err


def walk_loop(insns, ops, kind, n, head, back):
    total, nops, path, k = 0, 0, [], head
    while True:
        ins = insns[k]
        if ins.is_call():
            raise ValueError("a call on the loop's path: %s" % ins.text)
        if ins.is_ret():
            raise ValueError("a return on the loop's path: %s" % ins.text)
        total += 1
        nops += ops[k]
        path.append(ins.text)
        if k == back:
            break
        if ins.target is not None:
            t = index_of(insns, ins.target)
            if t is None:
                raise ValueError("a jump out of the function on the loop's path: %s" % ins.text)
            if ins.is_jmp():
                if not head <= t <= back or t <= k:
                    raise ValueError("an unconditional jump back on the loop's path: %s" % ins.text)
                k = t
                continue
            if t < k:
                # an inner loop, walked once already: run it until it has done n ops
                body, bops = k - t + 1, sum(ops[t:k + 1])
                if kind == "pairs" or bops == 0 or n % bops:
                    raise ValueError("an inner loop of %d ops a turn, not a divisor of %d: %s" % (bops, n, ins.text))
                total += (n // bops - 1) * body
                nops += (n // bops - 1) * bops
                path.append("(the inner loop above: %d turns)" % (n // bops))
        k += 1
    if kind == "sums":
        nops = n  # one turn of a read loop is one read of its n slots
    if nops == 0:
        raise ValueError("no op on the loop's path")
    return total, nops, path


def successors(insns):
    nxt = []
    for k, ins in enumerate(insns):
        s = []
        if not ins.is_ret() and not ins.is_jmp() and k + 1 < len(insns):
            s.append(k + 1)
        if ins.target is not None:
            t = index_of(insns, ins.target)
            if t is not None:
                s.append(t)
        nxt.append(s)
    return nxt


def turn_counter(insns):
    """The block's turn counter: the register set to BENCH_TPUT_BLOCK / 2 (512) and counted down."""
    regs = set()
    for ins in insns:
        o = ins.operands()
        if ins.mnem.startswith("mov") and len(o) == 2 and o[0] == "$0x200" and o[1].startswith("%"):
            regs.add(o[1])
    marks = [k for k, ins in enumerate(insns)
             if ins.mnem.startswith("sub") and ins.operands()[:1] == ["$0x1"] and ins.operands()[-1] in regs]
    return marks


def shortest_turn(insns, kind, n):
    """The fewest instructions of one turn of a harness block (bench/loops.c: BENCH_TPUT_BLOCK / 2
    turns, each a +1/-1 pair at n levels: 2n ops), over every path from one count of its turn
    counter to the next that writes memory at least 2n times (an update writes each level once at
    least; "pairs": the empty update writes nothing).  A lower bound of what any turn executes.
    (instructions, ops, the path) or raises ValueError."""
    marks = turn_counter(insns)
    if not marks:
        raise ValueError("no turn counter (a register set to 512 and counted down by 1)")
    want = 0 if kind == "pairs" else 2 * n
    writes = [1 if ins.writes_memory() else 0 for ins in insns]
    nxt = successors(insns)
    best = None
    for m in marks:
        # BFS over (instruction, writes so far, capped): every instruction costs one
        start = (m, min(writes[m], want))
        prev = {start: None}
        frontier, found = [start], None
        while frontier and not found:
            new = []
            for k, w in frontier:
                for j in nxt[k]:
                    if j in marks and w >= want:
                        found = (k, w)
                        break
                    st = (j, min(w + writes[j], want))
                    if j not in marks and st not in prev:
                        prev[st] = (k, w)
                        new.append(st)
                if found:
                    break
            frontier = new
        if found:
            path, st = [], found
            while st is not None:
                path.append(insns[st[0]].text)
                st = prev[st]
            if best is None or len(path) < len(best):
                best = path[::-1]
    if not best:
        raise ValueError("no turn of the block writes %d times" % want)
    return len(best), 2 * n, best


def loads_slot(ins):
    """An instruction that reads memory off the stack (a mov or an ALU op from memory; no lea)."""
    ops = ins.operands()
    return (bool(ops) and "(" in ops[0] and "%rsp" not in ops[0] and not ins.mnem.startswith("lea")
            and not ins.mnem.startswith("nop") and not ins.mnem.startswith("prefetch"))


def shortest_read(insns, n, head, back):
    """A read loop on the bounded side: the fewest instructions of one turn of its outer loop, over
    every path (each forward branch taken or not, out-of-line blocks followed back in) that loads
    memory at least n times, since a read of n slots loads each: so no branch's path is assumed
    (a read of 8 slots may have a straight line of its own) and the check errs against the limit.
    Inner loops run as walk_loop runs them, their turns from the sums they add."""
    ops = op_counts(insns, "sums")
    best = None
    # (next instruction, instructions so far, loads so far, path, instructions visited)
    stack = [(head, 0, 0, [], frozenset())]
    while stack:
        k, total, nld, path, seen = stack.pop()
        if k is None or k in seen or best is not None and total >= best[0]:
            continue
        ins = insns[k]
        if ins.is_ret():
            continue
        total, nld, path, seen = total + 1, nld + loads_slot(ins), path + [ins.text], seen | {k}
        if k == back:
            if nld >= n and (best is None or total < best[0]):
                best = (total, path)
            continue
        t = index_of(insns, ins.target) if ins.target is not None else None
        if ins.target is not None and t is None and not ins.is_call():
            continue  # a jump out of the function
        if ins.is_jmp():
            if t == head:
                if nld >= n and (best is None or total < best[0]):
                    best = (total, path)
            else:
                stack.append((t, total, nld, path, seen))
            continue
        if t is not None and not ins.is_call():
            if t < k and t > head and t in seen:
                # an inner loop, walked once already: run it until it has done n sums
                bops = sum(ops[t:k + 1])
                if bops and n % bops == 0:
                    body, reps = k - t + 1, n // bops - 1
                    nl = sum(loads_slot(i) for i in insns[t:k + 1])
                    stack.append((k + 1, total + reps * body, nld + reps * nl,
                                  path + ["(the inner loop above: %d turns)" % (n // bops)], seen))
                continue
            stack.append((t, total, nld, path, seen))
        stack.append((k + 1 if k + 1 < len(insns) else None, total, nld, path, seen))
    if best is None:
        raise ValueError("no turn of the read loop loads %d times" % n)
    return best[0], n, best[1]


def read_loops(insns):
    """A read loop's candidates for its outer loop, widest first (as walk's): backward conditional jumps."""
    loops = [(index_of(insns, i.target), k) for k, i in enumerate(insns)
             if i.target is not None and i.target <= i.addr and not i.is_jmp()]
    loops = [(h, k) for h, k in loops if h is not None]
    if not loops:
        raise ValueError("no loop")
    return sorted(loops, key=lambda hk: hk[0] - hk[1])


def per_op(funcs, name, kind, n, bounded):
    """name's instructions per op: (the function found, the figure, how it was counted)."""
    f, insns = find(funcs, name)
    if not insns:
        raise ValueError("no function %s" % name)
    if kind != "sums" and name.startswith("bench_block_"):
        if not bounded and n != 1:
            raise ValueError("%s: a harness block as a limit is counted at chain:1 only (n = %d)" % (f, n))
        total, nops, path = shortest_turn(insns, kind, n)
        return f, total / nops, "its shortest turn, %d instructions, %d ops: %s" % (total, nops, " ; ".join(path[:40]))
    if bounded and kind != "sums":
        raise ValueError("%s: an update's bounded side is a harness block (bench_block_*)" % f)
    if bounded:
        err = None
        for head, back in read_loops(insns):
            try:
                total, nops, path = shortest_read(insns, n, head, back)
                break
            except ValueError as e:
                err = err or e
        else:
            raise err
        return f, total / nops, "its shortest turn, %d instructions, %d ops: %s" % (total, nops, " ; ".join(path[:40]))
    total, nops, path = walk(insns, kind, n)
    return f, total / nops, "%d instructions, %d ops a turn: %s" % (total, nops, " ; ".join(path[:40]))


def main():
    binary, loops = sys.argv[1], sys.argv[2]
    funcs = functions(binary)
    if any(f.startswith("__asan_") or f.startswith("__tsan_") for f in funcs):
        print("skipped: %s is instrumented by a sanitizer" % binary)
        return 0
    bad, rows = [], 0
    for line in open(loops):
        if not line.strip():
            continue
        row, limit, bfn, bn, lfn, ln, kind, floor = line.rstrip("\n").split("\t")
        rows += 1
        what = "%s | %s" % (row, limit)
        try:
            bf, b, bhow = per_op(funcs, bfn, kind, int(bn), True)
            lf, l, lhow = per_op(funcs, lfn, kind, int(ln), False)
        except ValueError as e:
            bad.append("%s: %s" % (what, e))
            continue
        held = l <= b + 1e-6
        verdict = "floor" if held else "not a floor"
        print("%s: %s %.3f instructions per op, %s %.3f: %s" % (what, lf, l, bf, b, verdict))
        print("  limit:   " + lhow)
        print("  bounded: " + bhow)
        if floor == "1" and not held:
            bad.append("%s: %s has %.3f instructions per op, more than %s's %.3f" % (what, lf, l, bf, b))
        if floor == "0" and held:
            bad.append("%s: labelled not a floor, but %s's %.3f instructions per op are at most %s's %.3f"
                       % (what, lf, l, bf, b))
    print("%d rows checked in %s" % (rows, binary))
    for b in bad:
        print("not a floor: " + b)
    return 1 if bad or not rows else 0


sys.exit(main())
