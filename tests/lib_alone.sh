#!/usr/bin/env bash
# lib_alone.sh - libctr's own tests (tests/unit/, tests/mt/) need libctr and cmocka only, as the
# library needs only what `make print-libs` says: they are built into a scratch build where
# pkg-config finds cmocka alone (no hwloc, jansson, libperf) and the harness's compile flags and
# libraries are replaced by ones that fail any command using them; no compile or link line may
# name a harness library or object, and every test must pass.  Then the same build is shown to
# fail on a test that needs the harness.  Prints "ok - ..." / "not ok - ...".
# Usage: lib_alone.sh [unit]   (unit: build them all, run tests/unit/'s only: a minute, not three)
set -u
cd "$(dirname "$0")/.."

. tests/tap.sh

# pkg-config sees cmocka's .pc file and nothing else (PKG_CONFIG_LIBDIR replaces the default path).
mkdir -p "$tmp/pc"
cp "$(pkg-config --variable=pcfiledir cmocka)/cmocka.pc" "$tmp/pc/"
# A harness flag or library on a libctr test's command line fails that command.
POISON=(PKG_CONFIG_PATH= "BENCH_CFLAGS=-include ctrbench-harness-headers-absent.h"
	BENCH_LIBS=-lctrbench-harness-libs-absent)
lib_make() {
	PKG_CONFIG_LIBDIR=$tmp/pc make --no-print-directory -j"$(nproc)" DEVELOPER=1 V=1 BUILD="$tmp/b" \
		"${POISON[@]}" "$@"
}

bins=() run=()
for s in tests/unit/test_*.c tests/mt/test_*.c; do
	bins+=("$tmp/b/tests/$(basename "$s" .c)")
	[ "${1:-}" = unit ] && [[ $s == tests/mt/* ]] || run+=("$tmp/b/tests/$(basename "$s" .c)")
done

lib_make "${bins[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "libctr's ${#bins[@]} tests build with hwloc, jansson and libperf absent" eval '[ $rc -eq 0 ]'

# Every link line of a test: libctr.a, cmocka, -pthread -lm; no harness object or library.
grep -E -- "-o $tmp/b/tests/test_" "$tmp/out" >"$tmp/links"
check "each of their ${#bins[@]} link lines names libctr.a, cmocka and no harness library or object" eval \
	'[ "$(wc -l <"$tmp/links")" -eq ${#bins[@]} ] &&
	 [ "$(grep -c -- "$tmp/b/libctr.a .*-lcmocka.* -pthread -lm" "$tmp/links")" -eq ${#bins[@]} ] &&
	 ! grep -E -- "-l(hwloc|jansson|perf|pfm|numa)|ctrbench-harness|/obj/(bench|topology|pmu|project)/|/proj/" "$tmp/links"'

scripts/run-tests.sh "${run[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "${#run[@]} of them pass: $(tail -1 "$tmp/out")" eval '[ $rc -eq 0 ]'

# The check can fail: in the same build a harness test (tests/harness/) cannot be made, for
# pkg-config finds none of the harness's libraries there.
lib_make "$tmp/b/tests/test_compare" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a harness test fails to build there, the harness's libraries missing" eval \
	'[ $rc -ne 0 ] && grep -q "libperf, jansson, hwloc or cmocka is missing" "$tmp/err"'
