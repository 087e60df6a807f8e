#!/usr/bin/env python3
# help_flags.py - usage cannot drift from the tables the code uses (issue 26.6):
#   commands  every command in main's dispatch table (bench/main.c, read from the source, not
#             from the help) is listed by `ctrbench --help` and answers `ctrbench CMD --help`
#             with its own usage (exit 0, "usage: ctrbench CMD").
#   flags     every long option in a command's option tables (its `struct option` initializers
#             and its *_opt_names arrays, in the command's files: bench/cmd-CMD.c, bench/CMD/*.c
#             and OWNERS below) is named as --flag by `ctrbench CMD --help`.
# Prints one line per command checked; exit 1 with one line per thing missing on stderr.
# Usage: help_flags.py commands|flags CTRBENCH_BINARY [SRCDIR]
import glob
import os
import re
import subprocess
import sys

# Files whose option tables belong to a command their name does not say.
OWNERS = {}

# KNOWN MISSING: flags a parser takes that its help may leave out (none: scenario's --project,
# --calibration and --ops were the last, named since issue 26).
KNOWN_MISSING = set()


def dispatch_table(src):
    text = open(os.path.join(src, "bench/main.c"), encoding="utf-8").read()
    m = re.search(r"bench_cmds\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    if not m:
        sys.exit("help_flags: no bench_cmds[] table in bench/main.c")
    cmds = re.findall(r'\{\s*"([a-z][a-z0-9-]*)",\s*(bench_\w+)\s*,', m.group(1))
    if not cmds:
        sys.exit("help_flags: bench_cmds[] in bench/main.c has no entries")
    return cmds


def help_of(binary, *args):
    p = subprocess.run([binary, *args, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def option_names(path):
    """Every long option name a file's option tables hold."""
    text = open(path, encoding="utf-8").read()
    names = []
    # static const struct option opts[] = { { "algo", required_argument, NULL, 'a' }, ... };
    for m in re.finditer(r"struct option\s+\w+\s*\[[^\]]*\]\s*=\s*\{(.*?)\n\s*\};", text, re.S):
        names += re.findall(r'\{\s*"([a-z][a-z0-9-]*)"\s*,', m.group(1))
    # opts[k] = (struct option){ "plan", required_argument, NULL, SO_PLAN };
    names += re.findall(r'\(struct option\)\s*\{\s*"([a-z][a-z0-9-]*)"', text)
    # static const char *const sweep_opt_names[SO_NR] = { "algo", ... }: a table built from names
    for m in re.finditer(r"\w+_opt_names\s*\[[^\]]*\]\s*=\s*\{(.*?)\};", text, re.S):
        names += re.findall(r'"([a-z][a-z0-9-]*)"', m.group(1))
    return names


def files_of(src, cmd):
    files = glob.glob(os.path.join(src, "bench/cmd-%s.c" % cmd))
    files += sorted(glob.glob(os.path.join(src, "bench/%s/*.c" % cmd)))
    files += [os.path.join(src, f) for f, c in OWNERS.items()
              if c == cmd and os.path.exists(os.path.join(src, f))]
    return files


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("commands", "flags"):
        sys.exit("usage: help_flags.py commands|flags CTRBENCH_BINARY [SRCDIR]")
    mode, binary = sys.argv[1], sys.argv[2]
    src = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(__file__), "..")
    bad = []
    cmds = dispatch_table(src)
    if mode == "commands":
        rc, top, _ = help_of(binary)
        listed = set(re.findall(r"^\s*(?:usage:\s*)?ctrbench ([a-z][a-z0-9-]*)", top, re.M))
        for name, fn in cmds:
            rc, out, err = help_of(binary, name)
            own = rc == 0 and re.search(r"^usage: ctrbench %s\b" % re.escape(name), out, re.M)
            print("%s (%s): %s, %s" % (name, fn, "listed" if name in listed else "NOT listed",
                                       "own --help" if own else "NO own --help"))
            if name not in listed:
                bad.append("ctrbench --help does not list '%s' (main dispatches it to %s)" % (name, fn))
            if not own:
                bad.append("ctrbench %s --help: exit %d, no 'usage: ctrbench %s' (%s)" %
                           (name, rc, name, err.strip()))
    else:
        for name, _ in cmds:
            files = files_of(src, name)
            flags = []
            for f in files:
                flags += ["--" + n for n in option_names(f) if "--" + n not in flags]
            rc, out, _ = help_of(binary, name)
            named = set(re.findall(r"--[a-z][a-z0-9-]*", out))
            missing = [f for f in flags if f not in named and f != "--help"]
            print("%s: %d flags in %s, %d not in its --help%s" %
                  (name, len(flags), " ".join(os.path.relpath(f, src) for f in files) or "no file",
                   len(missing), " (known: %s)" % " ".join(missing) if missing else ""))
            for f in missing:
                if (name, f) not in KNOWN_MISSING:
                    bad.append("ctrbench %s --help does not name %s, which its parser takes" % (name, f))
            for c, f in sorted(KNOWN_MISSING):
                if c == name and f in named:
                    bad.append("ctrbench %s --help names %s now: take it out of KNOWN_MISSING" % (c, f))
    for b in bad:
        print(b, file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
