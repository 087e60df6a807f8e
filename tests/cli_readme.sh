#!/usr/bin/env bash
# cli_readme.sh - README.md's example block leaves nothing untracked in the tree: every file or
# folder a command of it writes (after --out, or a shell redirection) is under results/ (made by
# its first line, ignored by git) or build/; and every command it names is one ctrbench has.
# (issue 31: the examples left 7 untracked files in the repository's root.)
# Prints "ok - ..." / "not ok - ...".  Usage: cli_readme.sh [CTRBENCH_BINARY]
set -u
cd "$(dirname "$0")/.."
B=${1:-build/ctrbench}

. tests/tap.sh

# the first ```sh block after the "build/ctrbench list" line: the examples
python3 - README.md >"$tmp/writes" 2>"$tmp/err" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"```sh\n((?:.*\n)*?)```", text[text.index("build/ctrbench list") - 200:])
block = m.group(1).replace("\\\n", " ")
for line in block.splitlines():
    cmd = line.split("#")[0]
    for w in re.findall(r"(?:--out\s+|>\s*)(\S+)", cmd):
        print("write", w)
    for c in re.findall(r"build/ctrbench\s+([a-z][a-z0-9-]*)", cmd):
        print("command", c)
PY
check "README's example block parsed: it writes files" eval 'grep -q "^write " "$tmp/writes" && [ ! -s "$tmp/err" ]'
outside=$(sed -n 's/^write //p' "$tmp/writes" | grep -Ev '^(results|build)/' | tr '\n' ' ')
check "every file README's examples write is under results/ or build/ (outside: ${outside:-none})" \
	test -z "$outside"
check "README's examples make results/ first, and git ignores it" eval \
	'grep -q "^mkdir -p results " README.md && git check-ignore -q results/a.jsonl'
unknown=""
for c in $(sed -n 's/^command //p' "$tmp/writes" | sort -u); do
	"$B" "$c" --help >/dev/null 2>&1 || unknown="$unknown $c"
done
check "every command README's examples run answers --help (unknown:${unknown:- none})" \
	eval '[ -z "$unknown" ] && grep -q "^command " "$tmp/writes"'
