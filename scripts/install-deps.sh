#!/usr/bin/env bash
# install-deps.sh - install the build/test dependencies of ctrbench.
#
#   * Debian packages (via apt-get; sudo is used when not running as root).
#   * libperf (the kernel's tools/lib/perf), which Debian 12 does not
#     package: built from the linux-source-6.1 package into
#     <repo>/.deps/libperf (static libs + headers + pkg-config file).
#
# Consumers use:
#   PKG_CONFIG_PATH=<repo>/.deps/libperf/lib64/pkgconfig \
#       pkg-config --cflags --libs [--static] libperf
#
# The script is idempotent: anything already present is skipped.
#
#   install-deps.sh --browser   only what tests/cli_report_browser.sh needs, and
#                               nothing else: Debian's chromium, and playwright-core
#                               (npm, pinned) into <repo>/.deps/playwright to drive
#                               it.  Opt-in: the build and every other test do
#                               without a browser.
#   install-deps.sh --test      also what the test tier needs beyond the build: Debian's
#                               slurmctld, slurmd, munge and slurm-client, for the
#                               single-node cluster tests/cli_slurm.sh starts (and stops).
#                               Best effort: where they cannot be installed that test
#                               skips, saying so; nothing else of ctrbench needs Slurm.
set -euo pipefail

log() { printf 'install-deps: %s\n' "$*"; }
die() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO_ROOT=$(cd -- "$SCRIPT_DIR/.." && pwd -P)
DEPS_DIR="$REPO_ROOT/.deps"
LIBPERF_PREFIX="$DEPS_DIR/libperf"

APT_PACKAGES=(gcc make pkg-config libhwloc-dev libnuma-dev libpfm4-dev
              libcmocka-dev libjansson-dev gnuplot-nox python3
              tmux man-db clang)  # tmux: the progress test; man-db: man -l; clang: make fuzz

# --test: a Slurm cluster of one node (tests/cli_slurm.sh); never needed to build or run ctrbench
TEST_APT_PACKAGES=(slurmctld slurmd munge slurm-client)

KSRC_PKG=linux-source-6.1
KSRC_TARBALL=/usr/src/linux-source-6.1.tar.xz
KSRC_TOPDIR=linux-source-6.1
# Parts of the kernel tree needed to build tools/lib/perf (and the
# tools/lib/api it links in).  tools/lib/{zalloc,str_error_r}.c are
# compiled into libperf/libapi directly.
KSRC_MEMBERS=(tools/lib/perf tools/lib/api tools/lib/zalloc.c
              tools/lib/str_error_r.c tools/include tools/arch tools/build
              tools/scripts include/uapi)

# --------------------------------------------------------------------------
# apt helpers
# --------------------------------------------------------------------------
SUDO=()
APT_UPDATED=0

pkg_installed() {
    local st
    st=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
    [[ $st == "install ok installed" ]]
}

setup_privileges() {
    if [[ $(id -u) -eq 0 ]]; then
        SUDO=()
    elif command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        log "not root and sudo is not available; run as root:"
        log "  apt-get update && apt-get install -y --no-install-recommends $*"
        die "cannot install packages without root privileges"
    fi
}

# apt_install PKG... : install the given packages (which must be missing).
apt_install() {
    (($# > 0)) || return 0
    if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
        log "apt-get/dpkg not found; please install these packages (or your distribution's equivalents):"
        log "  $*"
        die "unsupported system (no apt-get); install the packages above manually"
    fi
    setup_privileges "$@"
    local apt=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive
               apt-get -o DPkg::Lock::Timeout=300)
    if ((APT_UPDATED == 0)); then
        log "running apt-get update"
        "${apt[@]}" update -q >/dev/null || die "apt-get update failed"
        APT_UPDATED=1
    fi
    log "installing: $*"
    "${apt[@]}" install -y -q --no-install-recommends "$@" \
        || die "apt-get install failed for: $*"
}

# --------------------------------------------------------------------------
# 1. Debian packages
# --------------------------------------------------------------------------
install_packages() {
    local missing=() p
    if ! command -v dpkg-query >/dev/null 2>&1; then
        apt_install "${APT_PACKAGES[@]}"   # prints the list and dies
    fi
    for p in "${APT_PACKAGES[@]}"; do
        pkg_installed "$p" || missing+=("$p")
    done
    if ((${#missing[@]} == 0)); then
        log "all ${#APT_PACKAGES[@]} Debian packages already installed"
        return 0
    fi
    apt_install "${missing[@]}"
    for p in "${missing[@]}"; do
        pkg_installed "$p" || die "package $p is still not installed after apt-get install"
    done
}

# --------------------------------------------------------------------------
# 2. libperf
# --------------------------------------------------------------------------
libperf_prefix_ok() {
    local pfx=$1
    [[ -f $pfx/lib64/libperf.a && -f $pfx/lib64/libapi.a &&
       -f $pfx/include/perf/evsel.h && -f $pfx/lib64/pkgconfig/libperf.pc ]]
}

# write_pc PREFIX VERSION: relocatable .pc (paths derived from ${pcfiledir}),
# so the install can be built in a temp dir and moved into place.
# Only static archives are installed; libperf.a needs libapi.a (fdarray__*),
# so -lapi is part of Libs (not only Libs.private).
write_pc() {
    local pfx=$1 version=$2
    mkdir -p "$pfx/lib64/pkgconfig"
    cat >"$pfx/lib64/pkgconfig/libperf.pc" <<EOF
# Generated by ctrbench scripts/install-deps.sh (kernel tools/lib/perf, static only)
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib64
includedir=\${prefix}/include

Name: libperf
Description: perf library (Linux kernel tools/lib/perf, static build)
Version: $version
Libs: -L\${libdir} -lperf -lapi
Cflags: -I\${includedir}
EOF
}

# Compile, link and run a tiny program against a libperf prefix.
libperf_smoke_test() {
    local pfx=$1 work=$2 cflags libs
    cflags=$(PKG_CONFIG_PATH="$pfx/lib64/pkgconfig" pkg-config --cflags libperf) \
        || return 1
    libs=$(PKG_CONFIG_PATH="$pfx/lib64/pkgconfig" pkg-config --libs --static libperf) \
        || return 1
    cat >"$work/smoke.c" <<'EOF'
#include <stdarg.h>
#include <stdio.h>
#include <perf/core.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
static int quiet(enum libperf_print_level l, const char *f, va_list a)
{ (void)l; (void)f; (void)a; return 0; }
int main(void)
{
    libperf_init(quiet);
    struct perf_thread_map *t = perf_thread_map__new_dummy();
    return t ? (perf_thread_map__put(t), 0) : 1;
}
EOF
    # shellcheck disable=SC2086
    gcc -Wall -Wextra -Werror $cflags "$work/smoke.c" -o "$work/smoke" $libs \
        && "$work/smoke"
}

LIBPERF_TMP=""
cleanup() {
    if [[ -n $LIBPERF_TMP && -d $LIBPERF_TMP ]]; then
        rm -rf -- "$LIBPERF_TMP"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

install_libperf() {
    if pkg-config --exists libperf 2>/dev/null; then
        log "libperf found via pkg-config ($(pkg-config --modversion libperf)); skipping build"
        return 0
    fi
    if libperf_prefix_ok "$LIBPERF_PREFIX"; then
        log "libperf already built in ${LIBPERF_PREFIX#"$REPO_ROOT"/}; skipping build"
        return 0
    fi
    if [[ -e $LIBPERF_PREFIX ]]; then
        die "$LIBPERF_PREFIX exists but is incomplete; remove it and re-run"
    fi

    if [[ ! -f $KSRC_TARBALL ]]; then
        if pkg_installed "$KSRC_PKG"; then
            die "$KSRC_PKG is installed but $KSRC_TARBALL is missing (reinstall $KSRC_PKG)"
        fi
        apt_install "$KSRC_PKG"
        [[ -f $KSRC_TARBALL ]] || die "$KSRC_TARBALL not found after installing $KSRC_PKG"
    fi
    command -v xz >/dev/null 2>&1 || apt_install xz-utils

    local start=$SECONDS
    mkdir -p "$DEPS_DIR"
    # Serialise concurrent runs; re-check once we hold the lock.
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$DEPS_DIR/.install-deps.lock"
        flock 9 || die "cannot lock $DEPS_DIR/.install-deps.lock"
        if libperf_prefix_ok "$LIBPERF_PREFIX"; then
            log "libperf was built by a concurrent run; skipping build"
            return 0
        fi
    fi
    # Leftovers of an interrupted earlier run.
    rm -rf -- "$DEPS_DIR"/.libperf-build.*
    LIBPERF_TMP=$(mktemp -d "$DEPS_DIR/.libperf-build.XXXXXX")
    local src="$LIBPERF_TMP/$KSRC_TOPDIR" stage="$LIBPERF_TMP/prefix"

    log "extracting libperf sources from $KSRC_TARBALL"
    local members=() m
    for m in "${KSRC_MEMBERS[@]}"; do members+=("$KSRC_TOPDIR/$m"); done
    tar -xJf "$KSRC_TARBALL" -C "$LIBPERF_TMP" "${members[@]}" \
        || die "failed to extract kernel sources from $KSRC_TARBALL"

    log "building libperf (make -C tools/lib/perf)"
    local jobs
    jobs=$(nproc 2>/dev/null || echo 2)
    # Keep the caller's environment from leaking into the kernel tools build
    # (O/OUTPUT/srctree change directories, CFLAGS is taken verbatim).
    env -u O -u OUTPUT -u srctree -u CFLAGS -u LDFLAGS -u DESTDIR -u prefix -u V \
        make -C "$src/tools/lib/perf" -j"$jobs" EXTRA_CFLAGS=-O2 \
        >"$LIBPERF_TMP/build.log" 2>&1 || {
            tail -n 30 "$LIBPERF_TMP/build.log" >&2
            die "libperf build failed (make -C tools/lib/perf)"
        }

    log "installing libperf into staging dir"
    env -u O -u OUTPUT -u srctree -u DESTDIR -u V \
        make -C "$src/tools/lib/perf" install_headers prefix="$stage" \
        >>"$LIBPERF_TMP/build.log" 2>&1 || {
            tail -n 30 "$LIBPERF_TMP/build.log" >&2
            die "libperf header install failed"
        }
    mkdir -p "$stage/lib64"
    install -m 644 "$src/tools/lib/perf/libperf.a" "$src/tools/lib/api/libapi.a" "$stage/lib64/" \
        || die "failed to install libperf.a/libapi.a"
    local version
    version=$(sed -n 's/^LIBPERF_VERSION *= *//p; s/^LIBPERF_PATCHLEVEL *= *//p; s/^LIBPERF_EXTRAVERSION *= *//p' \
              "$src/tools/lib/perf/Makefile" | paste -sd. -)
    [[ -n $version ]] || version=0.0.1
    write_pc "$stage" "$version"

    log "checking that a test program links against the staged libperf"
    libperf_smoke_test "$stage" "$LIBPERF_TMP" >>"$LIBPERF_TMP/build.log" 2>&1 || {
        tail -n 30 "$LIBPERF_TMP/build.log" >&2
        die "libperf smoke test (compile/link/run) failed"
    }

    # Atomic publish: the staging dir lives on the same filesystem.
    mv -T -- "$stage" "$LIBPERF_PREFIX" || die "failed to move libperf into $LIBPERF_PREFIX"
    rm -rf -- "$LIBPERF_TMP"
    LIBPERF_TMP=""
    log "libperf $version installed in ${LIBPERF_PREFIX#"$REPO_ROOT"/} ($((SECONDS - start)) s)"
}

# --------------------------------------------------------------------------
# 3. --browser: chromium and playwright-core, for the report screenshot test
# --------------------------------------------------------------------------
# Pinned: the test drives Debian's chromium through the Chrome DevTools
# protocol, which playwright-core speaks; it downloads no browser of its own.
PLAYWRIGHT_VERSION=1.65.1
PLAYWRIGHT_PREFIX="$DEPS_DIR/playwright"

install_browser() {
    local missing=() p
    for p in chromium; do
        pkg_installed "$p" || missing+=("$p")
    done
    # Debian 12's nodejs (18) is enough for playwright-core; keep a newer one if present.
    command -v node >/dev/null 2>&1 || missing+=(nodejs)
    command -v npm >/dev/null 2>&1 || missing+=(npm)
    apt_install "${missing[@]}"
    [[ -x /usr/bin/chromium ]] || die "/usr/bin/chromium is missing after installing chromium"

    local have=""
    if [[ -f $PLAYWRIGHT_PREFIX/node_modules/playwright-core/package.json ]]; then
        have=$(node -p "require('$PLAYWRIGHT_PREFIX/node_modules/playwright-core/package.json').version" \
               2>/dev/null || true)
    fi
    if [[ $have == "$PLAYWRIGHT_VERSION" ]]; then
        log "playwright-core $have already in ${PLAYWRIGHT_PREFIX#"$REPO_ROOT"/}"
        return 0
    fi
    log "installing playwright-core $PLAYWRIGHT_VERSION (npm) into ${PLAYWRIGHT_PREFIX#"$REPO_ROOT"/}"
    mkdir -p "$PLAYWRIGHT_PREFIX"
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$PLAYWRIGHT_PREFIX" --no-audit \
        --no-fund --no-save --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION" >&2 \
        || die "npm install playwright-core@$PLAYWRIGHT_VERSION failed"
    log "chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}'), playwright-core $PLAYWRIGHT_VERSION ready"
}

# --------------------------------------------------------------------------
# 4. --test: Slurm for tests/cli_slurm.sh, best effort
# --------------------------------------------------------------------------
install_test_packages() {
    local missing=() p
    for p in "${TEST_APT_PACKAGES[@]}"; do
        pkg_installed "$p" 2>/dev/null || missing+=("$p")
    done
    if ((${#missing[@]} == 0)); then
        log "the test tier's Slurm packages are installed"
        return 0
    fi
    # a subshell: apt_install dies where it cannot install; the Slurm test then skips
    if ! (apt_install "${missing[@]}"); then
        log "could not install ${missing[*]}: tests/cli_slurm.sh will skip"
    fi
    return 0
}

# --------------------------------------------------------------------------
main() {
    log "repository root: $REPO_ROOT"
    case "${1:-}" in
    "") ;;
    --browser)
        install_browser
        return 0
        ;;
    --test) ;;
    *) die "unknown option '$1' (want no option, --test or --browser)" ;;
    esac
    install_packages
    install_libperf
    [[ ${1:-} == --test ]] && install_test_packages
    log "done. Use: PKG_CONFIG_PATH=$LIBPERF_PREFIX/lib64/pkgconfig"
}

main "$@"
