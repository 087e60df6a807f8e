#!/usr/bin/env bash
# install_test.sh - libctr and ctrbench as a user installs them: `make install` into a staging
# DESTDIR, a program built with pkg-config against the shared library and run, the man pages
# rendered, the staged ctrbench finding its report script, bash completion from the binary's own
# help; and the build's promises to a user: CFLAGS=-O3 compiles at -O3, a build without the
# dependencies says to run make deps.  Run once, from the tree's root (it calls make).
set -u
cd "$(dirname "$0")/.."
B=build/ctrbench
. tests/tap.sh

stage=$tmp/stage
# as a user runs it: not with make test's DEVELOPER=1 (-Werror), which make test exports
env -u DEVELOPER -u WERROR -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -s --no-print-directory install DESTDIR="$stage" PREFIX=/usr >"$tmp/out" 2>"$tmp/err"
check "make install DESTDIR=... PREFIX=/usr" test $? -eq 0
# make test built the tree with -Werror, make install builds it without: nothing is compiled again
# (issue 31: the switch recompiled the whole tree, 12 min niced).  The libraries' objects and the
# harness's are the ones make test built; only the man pages and ctr.pc are new here.
check "make install after make test's build compiles nothing" eval '! grep "^  CC " "$tmp/out"'
check "staged: binary, libctr.a, libctr.so.0 (a link to the versioned file), header, ctr.pc, man pages, completion" eval \
	'[ -x "$stage/usr/bin/ctrbench" ] && [ -f "$stage/usr/lib/libctr.a" ] &&
	 [ -L "$stage/usr/lib/libctr.so.0" ] && [ -f "$(readlink -f "$stage/usr/lib/libctr.so.0")" ] &&
	 [ -f "$stage/usr/include/ctr.h" ] && [ -f "$stage/usr/lib/pkgconfig/ctr.pc" ] &&
	 [ -f "$stage/usr/share/man/man1/ctrbench.1" ] && [ -f "$stage/usr/share/man/man3/libctr.3" ] &&
	 [ -f "$stage/usr/share/bash-completion/completions/ctrbench" ]'
check "libctr.so.0 carries its soname" eval \
	'readelf -d "$stage/usr/lib/libctr.so.0" | grep -q "SONAME.*\[libctr.so.0\]"'

# A program written against the public header, built as its README says, against the .so.
cp tests/api_demo.c "$tmp/prog.c"
export PKG_CONFIG_SYSROOT_DIR=$stage PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig
cc -std=c11 -Wall -Wextra -Werror "$tmp/prog.c" -o "$tmp/prog" $(pkg-config --cflags --libs ctr) \
	>"$tmp/out" 2>"$tmp/err"
check "cc prog.c \$(pkg-config --cflags --libs ctr) builds" test $? -eq 0
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
check "the program is linked against libctr.so.0, not the static library" eval \
	'readelf -d "$tmp/prog" | grep -q "NEEDED.*\[libctr.so.0\]"'
LD_LIBRARY_PATH=$stage/usr/lib "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
check "the program runs against the staged shared library" test $? -eq 0
# README's rpath form: it runs with no LD_LIBRARY_PATH (issue 31: the README said nothing of
# ldconfig or rpath, and a pkg-config build failed at run time)
(export PKG_CONFIG_SYSROOT_DIR=$stage PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig
 cc -std=c11 -Wall -Wextra -Werror "$tmp/prog.c" -o "$tmp/prog-rpath" $(pkg-config --cflags --libs ctr) \
	-Wl,-rpath,"$(pkg-config --variable=libdir ctr)") >"$tmp/out" 2>"$tmp/err"
env -u LD_LIBRARY_PATH "$tmp/prog-rpath" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "README's rpath build runs with no LD_LIBRARY_PATH, against the staged libctr.so.0" eval \
	'[ $rc -eq 0 ] && grep -qF -- "-Wl,-rpath,\$(pkg-config" README.md &&
	 readelf -d "$tmp/prog-rpath" | grep -Eq "(RPATH|RUNPATH).*$stage/usr/lib"'

for page in man1/ctrbench.1 man3/libctr.3; do
	MANWIDTH=100 man -l "$stage/usr/share/man/$page" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "man -l renders $page" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/out")" -gt 20 ] && [ ! -s "$tmp/err" ]'
done
MANWIDTH=100 man -l "$stage/usr/share/man/man1/ctrbench.1" >"$tmp/out" 2>/dev/null
check "ctrbench(1) documents every command with its own --help" eval \
	'(for c in $("$B" --help | sed -n "s/^ *\(usage: \)\{0,1\}ctrbench \([a-z][a-z0-9-]*\).*/\2/p" | sort -u); do
		grep -q "^   $c\$" "$tmp/out" || { echo "no section for $c" >&2; exit 1; }; done)'
# issue 31: the synopsis began "usage:", and the footer's source (the whole --version line) ran
# into the date ("result schema 12026")
check "ctrbench(1): the synopsis is the usage lines without \"usage:\"; the footer's version and date apart" eval \
	'sed -n "/^SYNOPSIS/{n;p;}" "$tmp/out" | grep -Eq "^ +ctrbench COMMAND" &&
	 ! grep -q "usage:" <(sed -n "/^SYNOPSIS/,/^DESCRIPTION/p" "$tmp/out") &&
	 tail -n 1 "$tmp/out" | grep -Eq "^ctrbench [0-9]+\.[0-9]+\.[0-9]+ {2,}[0-9]{4} {2,}CTRBENCH\(1\)$"'
MANWIDTH=100 man -l "$stage/usr/share/man/man3/libctr.3" >"$tmp/out" 2>/dev/null
check "libctr(3) lists the API of ctr.h" eval \
	'(for f in ctr_tree_new ctr_add ctr_read ctr_read_exact ctr_try_charge ctr_read_error_bound; do
		grep -q "$f(" "$tmp/out" || { echo "no $f" >&2; exit 1; }; done)'

# The staged binary runs the staged report script (a stand-in put there says so), not the tree's.
mv "$stage/usr/libexec/ctrbench/report" "$tmp/report.staged"
printf 'import sys\nprint("staged report script", sys.argv[1:])\n' >"$stage/usr/libexec/ctrbench/report"
CTRBENCH_SCRIPTS_DIR= "$stage/usr/bin/ctrbench" report x.jsonl >"$tmp/out" 2>"$tmp/err"
check "the installed ctrbench runs the report script installed beside it" \
	grep -qF "staged report script ['x.jsonl']" "$tmp/out"
mv "$tmp/report.staged" "$stage/usr/libexec/ctrbench/report"
CTRBENCH_SCRIPTS_DIR= "$stage/usr/bin/ctrbench" report --help >"$tmp/out" 2>"$tmp/err"
check "...and the installed script itself runs" grep -q "^usage: ctrbench report" "$tmp/out"

# The scenarios' seed figures: installed in share/ctrbench/seeds, found by the staged binary.
check "the seeds' tables.csv is installed" cmp -s docs/seeds/tables.csv "$stage/usr/share/ctrbench/seeds/tables.csv"
sed -i 's/,depth 1,a_rstat_force,567116,/,depth 1,a_rstat_force,4321,/' "$stage/usr/share/ctrbench/seeds/tables.csv"
CTRBENCH_PROGRESS=0 CTRBENCH_SEEDS= "$stage/usr/bin/ctrbench" scenario zswap-store-limit --quick --wide --algo rstat_force \
	--out "$tmp/sl.jsonl" >"$tmp/out" 2>"$tmp/err"
check "the installed ctrbench reads the seed figures installed beside it (not the tree's)" \
	eval 'grep -A1 "^depth 1 " "$tmp/out" | grep -q "^  seed 000 *4321$"'

# Completion: commands and a command's flags, from the binary.
check "bash completion: commands, run's flags, algorithms, every workload (store was missing), each command's formats, files only for FILE values" bash -c '
	. scripts/ctrbench-completion.bash
	COMP_WORDS=(build/ctrbench sw); COMP_CWORD=1; _ctrbench
	[ "${COMPREPLY[*]}" = sweep ] || { echo "commands: ${COMPREPLY[*]}" >&2; exit 1; }
	COMP_WORDS=(build/ctrbench run --thr); COMP_CWORD=2; _ctrbench
	[ "${COMPREPLY[*]}" = --threads ] || { echo "flags: ${COMPREPLY[*]}" >&2; exit 1; }
	COMP_WORDS=(build/ctrbench run --algo atomic_tree,stri); COMP_CWORD=3; _ctrbench
	[ "${COMPREPLY[*]}" = atomic_tree,striped ] || { echo "algos: ${COMPREPLY[*]}" >&2; exit 1; }
	COMP_WORDS=(build/ctrbench run --workload ""); COMP_CWORD=3; _ctrbench
	[ "${COMPREPLY[*]}" = "update charge readers store" ] || { echo "workloads: ${COMPREPLY[*]}" >&2; exit 1; }
	# each command its own formats; no file names for a count; files for a FILE (issue 31)
	COMP_WORDS=(build/ctrbench run --format ""); COMP_CWORD=3; _ctrbench
	[ "${COMPREPLY[*]}" = "csv json table" ] || { echo "run formats: ${COMPREPLY[*]}" >&2; exit 1; }
	COMP_WORDS=(build/ctrbench report --format ""); COMP_CWORD=3; _ctrbench
	[ "${COMPREPLY[*]}" = "html markdown" ] || { echo "report formats: ${COMPREPLY[*]}" >&2; exit 1; }
	COMP_WORDS=(build/ctrbench run --threads RE); COMP_CWORD=3; _ctrbench
	[ -z "${COMPREPLY[*]}" ] || { echo "a count offered: ${COMPREPLY[*]}" >&2; exit 1; }
	COMP_WORDS=(build/ctrbench scenario --from RE); COMP_CWORD=3; _ctrbench
	[ "${COMPREPLY[*]}" = README.md ] || { echo "a FILE not offered files: ${COMPREPLY[*]}" >&2; exit 1; }'

# A user's CFLAGS win over the default -O2, and a changed flag rebuilds.
make -n V=1 BUILD="$tmp/o3" CFLAGS=-O3 "$tmp/o3/obj/counters/ctr.o" >"$tmp/out" 2>"$tmp/err"
check "make CFLAGS=-O3 compiles at -O3 (the last -O on the line)" eval \
	'[ "$(grep -- " -c -o .*ctr.o" "$tmp/out" | grep -o -- " -O[0-9s]*" | tail -1)" = " -O3" ]'

# No dependencies: one message that says what to run, not a missing header.
PKG_CONFIG_LIBDIR=/nonexistent make -s --no-print-directory BUILD="$tmp/nodeps" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "make without the dependencies says to run make deps" eval \
	'[ $rc -ne 0 ] && grep -q "run .make deps. (or scripts/install-deps.sh) first" "$tmp/err" &&
	 ! grep -q "fatal error" "$tmp/err"'
