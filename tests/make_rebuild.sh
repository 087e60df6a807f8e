#!/usr/bin/env bash
# make_rebuild.sh - the build's promise across make targets: `make test` and `make run` compile
# with -Werror, `make` and `make install` without, and switching between them compiles nothing
# that did not change; a real flag change still recompiles; an object that compiled with warnings
# is compiled again (and fails) under -Werror rather than slipping through.  A copy of the
# Makefile and sources, one or two objects each step: seconds.  Run from anywhere.
set -u
cd "$(dirname "$0")/.."
. tests/tap.sh

src=$tmp/src
mkdir -p "$src"
cp -r Makefile counters scripts "$src"/
b=$src/build
ctr=build/obj/counters/ctr.o
# targets are relative to the copy (BUILD is build/ there); not make test's DEVELOPER=1 (which it
# exports) nor its make flags: each step says its own
run() {
	env -u DEVELOPER -u WERROR -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$src" --no-print-directory "$@" >"$tmp/out" 2>"$tmp/err"
}
cd "$src" || exit 1

run "$ctr"
check "a plain build compiles counters/ctr.c" eval 'grep -q "^  CC .*ctr.o" "$tmp/out" && [ -f "$ctr" ]'
t0=$(stat -c %y "$ctr" 2>/dev/null)
run DEVELOPER=1 "$ctr"
check "the -Werror build (make test, make run) compiles nothing after it" eval \
	'[ -n "$t0" ] && ! grep -q "^  CC " "$tmp/out" && [ "$(stat -c %y "$ctr")" = "$t0" ]'
run "$ctr"
check "and the plain build (make, make install) nothing after that" eval \
	'[ -f "$ctr" ] && ! grep -q "^  CC " "$tmp/out"'
run CFLAGS=-O1 "$ctr"
check "a flag that shapes the code (CFLAGS=-O1) still recompiles" eval 'grep -q "^  CC .*ctr.o" "$tmp/out"'

# A source that warns: built without -Werror it is kept, with its warning shown, but dated 1970,
# so the -Werror build compiles it again and fails on the warning as a clean build would.
printf 'int ctr_zz_warn(void) { int unused; return 0; }\n' >"$src/counters/zz_warn.c"
w=build/obj/counters/zz_warn.o
run "$w"
rc=$?
check "a warning without -Werror: built, the warning shown" eval \
	'[ $rc -eq 0 ] && [ -f "$w" ] && grep -q "unused variable" "$tmp/err"'
check "... and the object left out of date (mtime 0)" test "$(stat -c %Y "$w" 2>/dev/null)" = 0
run DEVELOPER=1 "$w"
rc=$?
check "the -Werror build compiles it again and fails on the warning" eval \
	'[ $rc -ne 0 ] && grep -q "unused variable" "$tmp/err" && grep -q "Werror" "$tmp/err"'
check "no stray warning files left beside the objects" eval '[ -z "$(find "$b" -name "*.warn")" ]'
