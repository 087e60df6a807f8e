#!/usr/bin/env python3
# cmd_length.py - "each command function parses, then calls the engine" (issue 12): no
# bench_cmd_* function in FILES is longer than MAX lines, from its signature line to its
# closing brace (the kernel's and this project's style: the brace alone on its line).
# Prints each command function's length; exit 1 naming the first one over.
# Usage: cmd_length.py MAX FILE...
import re, sys

limit, over = int(sys.argv[1]), []
for path in sys.argv[2:]:
    lines = open(path).read().split("\n")
    start = name = None
    for i, line in enumerate(lines):
        m = re.match(r"^int (bench_cmd_\w+)\(", line)
        if start is None and m and i + 1 < len(lines) and lines[i + 1] == "{":
            start, name = i, m.group(1)
        elif start is not None and line == "}":
            n = i - start + 1
            print("%s %s %d" % (path, name, n))
            if n > limit:
                over.append("%s: %s is %d lines (at most %d)" % (path, name, n, limit))
            start = None
if over:
    print(over[0], file=sys.stderr)
    sys.exit(1)
