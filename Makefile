# ctrbench - plain Makefile, sources found by wildcard.
#   make            build build/libctr.a and build/ctrbench
#   make test       install what is missing, build, run the quick tier of tests (plain, TSan, ASan+UBSan)
#   make check-long the long tier: the slowest tests, most CLI tests under ASan, the browser test
#   make test-lib   libctr's own tests (tests/unit/, tests/mt/) built and run with libctr and cmocka only
#   make run        install what is missing, build, run the default benchmark
#   make V=1        show the commands
#   make print-libs what a program linking build/libctr.a needs besides it
#   make install    PREFIX=/usr/local (and the GNU directory variables), DESTDIR: ctrbench, its
#                   report script, libctr.a and libctr.so.0, ctr.h, ctr.pc, man pages, completion
#   make man        build/man/ctrbench.1 (from the binary's --help texts) and libctr.3 (from ctr.h)
#   make fuzz       libFuzzer targets, FUZZ_SECONDS (20) each over tests/fuzz/corpus
# CFLAGS and LDFLAGS are the user's and come last; -Werror is on for make test, make run and
# DEVELOPER=1 builds only.

V ?= 0
Q := $(if $(filter 1,$(V)),,@)
say = $(if $(filter 1,$(V)),,@printf '  %-6s %s\n' $(1) $(2);)

BUILD ?= build
# make test and make run build with one job per CPU.
NPROC := $(shell nproc 2>/dev/null || echo 2)
# A plain `make` or `make install` builds with one job per CPU too, unless the user gives -j: a
# serial build of a fresh clone took over a minute here, against 47 s with two jobs.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(NPROC)
endif
CC ?= gcc
# SAN=thread or SAN=address,undefined builds a sanitizer variant into BUILD (see `test`).
SAN ?=

# libperf is not packaged by Debian 12: scripts/install-deps.sh builds it into .deps/.
export PKG_CONFIG_PATH := $(CURDIR)/.deps/libperf/lib64/pkgconfig:$(CURDIR)/.deps/libperf/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
pc = $(shell PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' pkg-config $(1) 2>/dev/null)

OPT := $(if $(SAN),-O1 -fno-omit-frame-pointer -fsanitize=$(SAN) -DCTR_DEBUG,-O2)
# -Werror is for development: `make test`, `make run` and CI pass WERROR=-Werror (and so does
# DEVELOPER=1); a user's plain `make` or `make install` warns without failing on a newer compiler.
ifneq ($(filter test check-long test-build run,$(MAKECMDGOALS)),)
export DEVELOPER := 1
endif
WERROR ?= $(if $(filter 1,$(DEVELOPER)),-Werror)
# The user's CFLAGS come last, so `make CFLAGS=-O3` compiles at -O3.
CFLAGS ?= -g
# CODE_CFLAGS are the flags that shape the code; -Werror does not, so it is kept out of the flags
# file and the build id: `make run`, `make install` and `make test` share their objects (switching
# between them recompiled the whole tree).  An object that compiled with warnings is left out of
# date (its time set to 1970), so a later -Werror build compiles it again and fails as it should.
CODE_CFLAGS = -std=gnu11 -Wall -Wextra -pthread $(OPT) $(CFLAGS)
ALL_CFLAGS = -std=gnu11 -Wall -Wextra $(WERROR) -pthread $(OPT) $(CFLAGS)
LDFLAGS ?=
ALL_LDFLAGS = -pthread $(if $(SAN),-fsanitize=$(SAN)) $(LDFLAGS)

# What a user of libctr.a links with.
LIBCTR_LIBS := -pthread -lm

LIB_SRC := $(wildcard counters/*.c)
BENCH_SRC := $(wildcard bench/*.c bench/c2c/*.c bench/recommend/*.c bench/scenario/*.c topology/*.c pmu/*.c project/*.c)
# The cmocka tests, in tiers by what they link and how long they take (CLI tests: tests/cli*.sh,
# fuzzing: tests/fuzz/):
#   tests/unit/     libctr's own, single-threaded, seconds: link libctr.a and cmocka alone
#   tests/mt/       libctr's own, threads racing, up to minutes: link libctr.a and cmocka alone
#   tests/harness/  the harness's engine, topology, PMU, projection: link its objects too, and so
#                   hwloc, jansson and libperf (tests/lib_alone.sh proves the first two tiers need none)
# Concurrency tests (test_mt_*.c, in any tier) run under ThreadSanitizer, the rest under ASan+UBSan.
UNIT_TEST_SRC := $(wildcard tests/unit/test_*.c)
LIB_MT_TEST_SRC := $(wildcard tests/mt/test_*.c)
LIB_TEST_SRC := $(UNIT_TEST_SRC) $(LIB_MT_TEST_SRC)
HARNESS_TEST_SRC := $(wildcard tests/harness/test_*.c)
TEST_SRC := $(LIB_TEST_SRC) $(HARNESS_TEST_SRC)
MT_TEST_SRC := $(foreach f,$(TEST_SRC),$(if $(filter test_mt_%,$(notdir $(f))),$(f)))
ST_TEST_SRC := $(filter-out $(MT_TEST_SRC),$(TEST_SRC))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIB_OBJ := $(call obj,$(LIB_SRC))
BENCH_OBJ := $(call obj,$(BENCH_SRC))
# Test binaries lie flat in $(BUILD)/tests/, whatever their tier.
test_bin = $(patsubst %.c,$(BUILD)/tests/%,$(notdir $(1)))
TESTS := $(call test_bin,$(TEST_SRC))
LIB_TESTS := $(call test_bin,$(LIB_TEST_SRC))
HARNESS_TESTS := $(call test_bin,$(HARNESS_TEST_SRC))
MT_TESTS := $(call test_bin,$(MT_TEST_SRC))
ST_TESTS := $(call test_bin,$(ST_TEST_SRC))

BENCH_CFLAGS := $(call pc,--cflags libperf jansson hwloc)
BENCH_LIBS := $(call pc,--libs --static libperf) $(call pc,--libs jansson hwloc) -lpfm -lnuma -lm
TEST_CFLAGS := $(call pc,--cflags cmocka)
TEST_LIBS := $(call pc,--libs cmocka)

.PHONY: all lib bench tests lib-tests test test-build deps-test check-long test-lib test-plain test-tsan test-asan run deps print-libs clean install uninstall man fuzz fuzzers
all: lib bench
lib: $(BUILD)/libctr.a $(BUILD)/libctr.so $(BUILD)/include/ctr.h
bench: $(BUILD)/ctrbench
tests: $(TESTS) $(BUILD)/api_demo $(BUILD)/testalgo/ctrbench
# libctr's own tests (tests/unit/, tests/mt/): they need libctr and cmocka only.
lib-tests: $(LIB_TESTS)

# Objects are rebuilt when the flags change (make CFLAGS=-O3 after make), as they are when a
# source changes: $(BUILD)/cflags holds the flags of the last build and changes only with them.
$(BUILD)/cflags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CODE_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || echo '$(CC) $(CODE_CFLAGS) $(ALL_LDFLAGS)' > $@

# The harness needs libperf, jansson, hwloc and cmocka: without them, say how to get them once
# instead of failing on the first missing header.  libctr's own tests need cmocka only.
$(BUILD)/deps-ok:
	@PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' pkg-config --exists libperf jansson hwloc cmocka || \
		{ echo "ctrbench: libperf, jansson, hwloc or cmocka is missing: run 'make deps'" \
		       "(or scripts/install-deps.sh) first" >&2; exit 1; }
	@mkdir -p $(dir $@) && touch $@
$(BUILD)/cmocka-ok:
	@PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' pkg-config --exists cmocka || \
		{ echo "ctrbench: cmocka is missing: run 'make deps' (or scripts/install-deps.sh) first" >&2; exit 1; }
	@mkdir -p $(dir $@) && touch $@

# compile CMD: run it; if it warned (and so had no -Werror), date the object 1970 (see CODE_CFLAGS).
compile = $(1) 2>$@.warn; rc=$$?; cat $@.warn >&2; [ $$rc -eq 0 ] || { rm -f $@.warn; exit $$rc; }; \
	if [ -s $@.warn ]; then touch -d @0 $@; fi; rm -f $@.warn
$(BUILD)/obj/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(call compile,$(CC) $(ALL_CFLAGS) -MMD -MP $(EXTRA_DEFS) $(if $(filter counters/%,$<),,$(if $(filter $(LIB_TEST_SRC),$<),,$(BENCH_CFLAGS)) $(TEST_CFLAGS)) -c -o $@ $<)

# libctr.so: the same sources compiled position-independent, apart from the objects the harness
# links (so the benchmark's hot paths are not built -fPIC).
$(BUILD)/pic/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(call compile,$(CC) $(ALL_CFLAGS) -fPIC -MMD -MP -c -o $@ $<)

# Every result records the build: commit and flags, compiled into env.o, rebuilt when they change.
CTRBENCH_COMMIT := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
BUILD_ID := $(CTRBENCH_COMMIT) $(CODE_CFLAGS) $(abspath scripts)
$(BUILD)/build-id: FORCE
	@mkdir -p $(dir $@)
	@echo '$(BUILD_ID)' | cmp -s - $@ || echo '$(BUILD_ID)' > $@
$(BUILD)/obj/bench/env.o: $(BUILD)/build-id
$(BUILD)/obj/bench/env.o: EXTRA_DEFS = -DCTRBENCH_COMMIT='"$(CTRBENCH_COMMIT)"' -DCTRBENCH_CFLAGS='"$(CODE_CFLAGS)"'
.PHONY: FORCE
# ctrbench report execs scripts/report of this tree ($CTRBENCH_SCRIPTS_DIR overrides it).
$(BUILD)/obj/bench/cmd-report.o: $(BUILD)/build-id
$(BUILD)/obj/bench/cmd-report.o: EXTRA_DEFS = -DCTRBENCH_SCRIPTS_DIR='"$(abspath scripts)"'
# The scenarios read the seeds' figures from this tree's docs/seeds/tables.csv ($CTRBENCH_SEEDS overrides it).
$(BUILD)/obj/bench/seeds.o: $(BUILD)/build-id
$(BUILD)/obj/bench/seeds.o: EXTRA_DEFS = -DCTRBENCH_SEEDS_FILE='"$(abspath docs/seeds/tables.csv)"'

# The projection's copy of libctr (docs/projection.md): the same sources compiled again with
# GCC's TSan instrumentation, every symbol renamed proj_*, linked against project/rt.c instead of
# libtsan.  Its own flags: -O2 as the benchmark's, whatever SAN this build is.
# project/inst/ holds what the model runs of the harness's own loops (ref.c: the timed update's
# prepared update), compiled into that copy the same way, never into the benchmark.
PROJ_OBJ := $(patsubst counters/%.c,$(BUILD)/proj/%.o,$(LIB_SRC)) \
	$(patsubst project/inst/%.c,$(BUILD)/proj/inst/%.o,$(wildcard project/inst/*.c))
PROJ_LIB := $(BUILD)/proj/libctr_proj.o
PROJ_CC = $(CC) -g -std=gnu11 -Wall -Wextra -Werror -pthread -O2 -fsanitize=thread -DCTR_PROJ -MMD -MP -c -o $@ $<
$(BUILD)/proj/%.o: counters/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(PROJ_CC)
$(BUILD)/proj/inst/%.o: project/inst/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(PROJ_CC)
$(PROJ_LIB): $(PROJ_OBJ) scripts/proj-rename.sh
	$(call say,GEN,$@)scripts/proj-rename.sh $@ $(PROJ_OBJ)

$(BUILD)/libctr.a: $(LIB_OBJ)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# The shared library: libctr.so.$(CTR_SO_VERSION) with soname libctr.so.$(CTR_SO_MAJOR), and the
# libctr.so link a build against it uses.  The major number changes when ctr.h breaks callers.
CTR_VERSION := 0.1.0
CTR_SO_MAJOR := 0
CTR_SO_VERSION := $(CTR_VERSION)
LIB_PIC_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(LIB_SRC))
$(BUILD)/libctr.so.$(CTR_SO_VERSION): $(LIB_PIC_OBJ)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libctr.so.$(CTR_SO_MAJOR) -o $@ $^ $(LIBCTR_LIBS)
$(BUILD)/libctr.so: $(BUILD)/libctr.so.$(CTR_SO_VERSION)
	$(Q)ln -sf libctr.so.$(CTR_SO_VERSION) $(BUILD)/libctr.so.$(CTR_SO_MAJOR) && \
		ln -sf libctr.so.$(CTR_SO_VERSION) $@

# The public header alone, so the API test sees nothing internal.
$(BUILD)/include/ctr.h: counters/ctr.h
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(BENCH_OBJ) $(call obj,$(HARNESS_TEST_SRC)): | $(BUILD)/deps-ok
$(call obj,$(LIB_TEST_SRC)): | $(BUILD)/cmocka-ok
$(BUILD)/ctrbench: $(BENCH_OBJ) $(PROJ_LIB) $(BUILD)/libctr.a
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $(BENCH_OBJ) $(PROJ_LIB) $(BUILD)/libctr.a $(BENCH_LIBS)

# libctr's own tests link the library alone, as a user of it does (make print-libs), and cmocka;
# the harness's tests link the harness objects they exercise too (not main.c) and its libraries.
LINK_LIB_TEST = $(call say,LD,$@)mkdir -p $(dir $@) && \
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libctr.a $(TEST_LIBS) $(LIBCTR_LIBS)
$(call test_bin,$(UNIT_TEST_SRC)): $(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(BUILD)/libctr.a
	$(LINK_LIB_TEST)
$(call test_bin,$(LIB_MT_TEST_SRC)): $(BUILD)/tests/%: $(BUILD)/obj/tests/mt/%.o $(BUILD)/libctr.a
	$(LINK_LIB_TEST)
TEST_LINK_OBJ := $(filter-out $(BUILD)/obj/bench/main.o,$(BENCH_OBJ)) $(PROJ_LIB)
$(HARNESS_TESTS): $(BUILD)/tests/%: $(BUILD)/obj/tests/harness/%.o $(TEST_LINK_OBJ) $(BUILD)/libctr.a
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TEST_LINK_OBJ) $(BUILD)/libctr.a $(TEST_LIBS) $(BENCH_LIBS)

# The capability test build (tests/cli_scenario_caps.sh): the registry (counters/ctr.c) and the
# timed loops (bench/loops.c) compiled again with -DCTR_TEST_ALGOS, which adds the test algorithm
# of counters/capread.h to counters/list.h, linked with the normal build's other objects: three
# objects more, and `ctrbench list` of the normal build never shows it.
TESTALGO_OBJ := $(BUILD)/testalgo/counters/ctr.o $(BUILD)/testalgo/counters/capread.o \
	$(BUILD)/testalgo/bench/loops.o
$(BUILD)/testalgo/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(call compile,$(CC) $(ALL_CFLAGS) -MMD -MP -DCTR_TEST_ALGOS $(if $(filter counters/%,$<),,$(BENCH_CFLAGS)) -c -o $@ $<)
$(TESTALGO_OBJ): | $(BUILD)/deps-ok
$(BUILD)/testalgo/ctrbench: $(filter-out $(BUILD)/obj/bench/loops.o,$(BENCH_OBJ)) $(TESTALGO_OBJ) $(PROJ_LIB) \
		$(filter-out $(BUILD)/obj/counters/ctr.o $(BUILD)/obj/counters/capread.o,$(LIB_OBJ))
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(BENCH_LIBS)

# Written against the public header only, linked as make print-libs says.
$(BUILD)/api_demo: tests/api_demo.c $(BUILD)/include/ctr.h $(BUILD)/libctr.a
	$(call say,CC,$@)$(CC) -std=c11 -Wall -Wextra -Werror -I$(BUILD)/include $(if $(SAN),-fsanitize=$(SAN)) -o $@ $< $(BUILD)/libctr.a $(LIBCTR_LIBS)

print-libs:
	@echo $(LIBCTR_LIBS)

# ---- make install: the GNU directory variables; PREFIX is the usual alias of prefix. ----------
PREFIX ?= /usr/local
prefix ?= $(PREFIX)
exec_prefix ?= $(prefix)
bindir ?= $(exec_prefix)/bin
libdir ?= $(exec_prefix)/lib
libexecdir ?= $(exec_prefix)/libexec
includedir ?= $(prefix)/include
datarootdir ?= $(prefix)/share
mandir ?= $(datarootdir)/man
pkgconfigdir ?= $(libdir)/pkgconfig
bashcompdir ?= $(datarootdir)/bash-completion/completions
INSTALL ?= install

MAN_PAGES := $(BUILD)/man/ctrbench.1 $(BUILD)/man/libctr.3
man: $(MAN_PAGES)
$(BUILD)/man/ctrbench.1: $(BUILD)/ctrbench scripts/mkman
	@mkdir -p $(dir $@)
	$(call say,MAN,$@)python3 scripts/mkman ctrbench $(BUILD)/ctrbench $@
$(BUILD)/man/libctr.3: counters/ctr.h scripts/mkman
	@mkdir -p $(dir $@)
	$(call say,MAN,$@)python3 scripts/mkman libctr counters/ctr.h $@

# ctr.pc for pkg-config, with the paths of this install.
$(BUILD)/ctr.pc: Makefile $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)printf '%s\n' 'prefix=$(prefix)' 'libdir=$(libdir)' 'includedir=$(includedir)' '' \
		'Name: ctr' 'Description: libctr, concurrent hierarchical counters' \
		'Version: $(CTR_VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lctr' \
		'Libs.private: $(LIBCTR_LIBS)' >$@

# ctrbench finds its report script in ../libexec/ctrbench beside its own binary, so an install
# works under any prefix and from a DESTDIR staging folder.
install: all man $(BUILD)/ctr.pc
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) \
		$(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man3 \
		$(DESTDIR)$(libexecdir)/ctrbench $(DESTDIR)$(bashcompdir) $(DESTDIR)$(datarootdir)/ctrbench/seeds
	$(INSTALL) -m 755 $(BUILD)/ctrbench $(DESTDIR)$(bindir)/ctrbench
	$(INSTALL) -m 755 scripts/report $(DESTDIR)$(libexecdir)/ctrbench/report
	$(INSTALL) -m 644 $(BUILD)/libctr.a $(DESTDIR)$(libdir)/libctr.a
	$(INSTALL) -m 755 $(BUILD)/libctr.so.$(CTR_SO_VERSION) $(DESTDIR)$(libdir)/
	ln -sf libctr.so.$(CTR_SO_VERSION) $(DESTDIR)$(libdir)/libctr.so.$(CTR_SO_MAJOR)
	ln -sf libctr.so.$(CTR_SO_VERSION) $(DESTDIR)$(libdir)/libctr.so
	$(INSTALL) -m 644 counters/ctr.h $(DESTDIR)$(includedir)/ctr.h
	$(INSTALL) -m 644 $(BUILD)/ctr.pc $(DESTDIR)$(pkgconfigdir)/ctr.pc
	$(INSTALL) -m 644 $(BUILD)/man/ctrbench.1 $(DESTDIR)$(mandir)/man1/ctrbench.1
	$(INSTALL) -m 644 $(BUILD)/man/libctr.3 $(DESTDIR)$(mandir)/man3/libctr.3
	$(INSTALL) -m 644 scripts/ctrbench-completion.bash $(DESTDIR)$(bashcompdir)/ctrbench
	$(INSTALL) -m 644 docs/seeds/tables.csv $(DESTDIR)$(datarootdir)/ctrbench/seeds/tables.csv

uninstall:
	rm -f $(DESTDIR)$(bindir)/ctrbench $(DESTDIR)$(libdir)/libctr.a \
		$(DESTDIR)$(libdir)/libctr.so $(DESTDIR)$(libdir)/libctr.so.$(CTR_SO_MAJOR) \
		$(DESTDIR)$(libdir)/libctr.so.$(CTR_SO_VERSION) $(DESTDIR)$(includedir)/ctr.h \
		$(DESTDIR)$(pkgconfigdir)/ctr.pc $(DESTDIR)$(mandir)/man1/ctrbench.1 \
		$(DESTDIR)$(mandir)/man3/libctr.3 $(DESTDIR)$(bashcompdir)/ctrbench \
		$(DESTDIR)$(libexecdir)/ctrbench/report $(DESTDIR)$(datarootdir)/ctrbench/seeds/tables.csv
	-rmdir $(DESTDIR)$(libexecdir)/ctrbench $(DESTDIR)$(datarootdir)/ctrbench/seeds $(DESTDIR)$(datarootdir)/ctrbench

deps:
	$(Q)scripts/install-deps.sh
# the tiers of tests also get Slurm, for tests/cli_slurm.sh's cluster of one node
deps-test:
	$(Q)scripts/install-deps.sh --test

RUN_TESTS = scripts/run-tests.sh
# Shell tests (tests/cli*.sh) take the ctrbench binary to test as their argument: each runs
# against the plain build and the ASan+UBSan one.
CLI_TESTS := $(wildcard tests/cli*.sh)

# Every check, in two tiers that CI runs both of: `make test` (429 s on a fresh clone of this 2-vCPU
# guest, nothing else running, tests one per CPU at once) and `make check-long` (the rest, 990 s).
ALL_CHECKS := $(TESTS) $(BUILD)/api_demo $(CLI_TESTS:%=%@$(BUILD)/ctrbench) \
	$(MT_TESTS:build/%=build/tsan/%) \
	$(ST_TESTS:build/%=build/asan/%) build/asan/api_demo $(CLI_TESTS:%=%@build/asan/ctrbench) \
	tests/install_test.sh tests/make_rebuild.sh tests/lib_alone.sh tests/make_run.sh
# The long tier: what took longest in a fresh clone's make test here (seconds, under other load):
# TSan's test_mt_rstat 245 and test_mt_charge 125 (both also run plain in make test); the
# projection's model matrix 75 (206 under ASan), the scenario tables 61 (60), the projection 42
# (55), limits' probes 25 (27), the projection docs 20 (40); the browser test, which installs
# Chromium and playwright once (scripts/install-deps.sh --browser, about 350 MB); lib_alone's
# scratch builds 50; make run on a 100-column terminal, 45; and every other CLI test under ASan but the quick ones below.
LONG_CLI := tests/cli_project_model.sh tests/cli_scenario.sh tests/cli_project.sh tests/cli_limits.sh \
	tests/cli_projection_doc.sh tests/cli_report_browser.sh
# CLI tests that run under ASan in make test too: the ones that took under 15 s there.
QUICK_ASAN_CLI := tests/cli_c2c.sh tests/cli_hitm.sh tests/cli_compare.sh tests/cli_exec.sh tests/cli_progress.sh \
	tests/cli_readme.sh tests/cli_recommend.sh tests/cli_report_folder.sh tests/cli_scenario_out.sh \
	tests/cli_scenario_project.sh tests/cli_schema.sh tests/cli_subsys.sh tests/cli_sweep.sh \
	tests/cli_topo.sh tests/cli_validate.sh tests/cli_project_calib.sh tests/cli_hitm.sh
# The harness's concurrency tests under TSan are long too: they need the whole harness built with
# TSan (a minute of compiling), and run plain in make test.
TSAN_HARNESS := $(patsubst build/%,build/tsan/%,$(filter $(HARNESS_TESTS),$(MT_TESTS)))
LONG_CHECKS := build/tsan/tests/test_mt_rstat build/tsan/tests/test_mt_charge $(TSAN_HARNESS) \
	tests/lib_alone.sh tests/make_run.sh \
	$(LONG_CLI:%=%@$(BUILD)/ctrbench) \
	$(filter-out $(QUICK_ASAN_CLI:%=%@build/asan/ctrbench),$(CLI_TESTS:%=%@build/asan/ctrbench))
QUICK_CHECKS := $(filter-out $(LONG_CHECKS),$(ALL_CHECKS))
# One test per CPU at once (scripts/run-tests.sh); RUN_TESTS_JOBS=1 runs them one by one.
RUN_TESTS_JOBS ?= $(NPROC)
export RUN_TESTS_JOBS

# What both tiers run on: the plain build, TSan's and ASan+UBSan's.
test-build: deps-test
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all tests
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) BUILD=build/tsan SAN=thread \
		$(filter-out $(TSAN_HARNESS),$(MT_TESTS:build/%=build/tsan/%))
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) BUILD=build/asan SAN=address,undefined $(ST_TESTS:build/%=build/asan/%) \
		build/asan/api_demo build/asan/ctrbench build/asan/testalgo/ctrbench
test: test-build
	$(Q)$(RUN_TESTS) $(QUICK_CHECKS)
	@echo "make test: the quick tier; make check-long runs the rest ($(words $(LONG_CHECKS)) more, about 17 min, CI runs both)"
check-long: test-build
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) BUILD=build/tsan SAN=thread $(TSAN_HARNESS)
	$(Q)$(RUN_TESTS) $(LONG_CHECKS)

# make test-lib: libctr's own tiers alone (tests/unit/, tests/mt/), built as tests/lib_alone.sh
# builds them, with none of the harness's libraries; LIB_ALONE=unit runs tests/unit/'s only.
LIB_ALONE ?=
test-lib:
	$(Q)$(RUN_TESTS) tests/lib_alone.sh$(if $(LIB_ALONE),@$(LIB_ALONE))

# make fuzz: libFuzzer targets (tests/fuzz/fuzz_*.c) for the result-line reader and the command
# line's parsers, built with clang into build/fuzz (ASan, CTR_DEBUG) and each run FUZZ_SECONDS
# over its committed corpus; CI runs it after make test.
FUZZ_SECONDS ?= 20
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzzers/%,$(FUZZ_SRC))
fuzzers: $(FUZZERS)
$(BUILD)/fuzzers/%: tests/fuzz/%.c $(TEST_LINK_OBJ) $(BUILD)/libctr.a
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(ALL_CFLAGS) $(BENCH_CFLAGS) -fsanitize=fuzzer -Wl,--wrap=die -o $@ $< \
		$(TEST_LINK_OBJ) $(BUILD)/libctr.a $(BENCH_LIBS)
fuzz: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) BUILD=build/fuzz CC=clang WERROR= SAN=address,fuzzer-no-link \
		$(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/fuzzers/%)
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/fuzzers/%)

# The default benchmark, each configuration measured once: a sweep of every algorithm over 1 and 2
# threads into a new dated results file (earlier runs' files are kept), ctrbench limits into a
# limits file of the same date, their Markdown report (build/run/table/report.md) and HTML report
# page (build/run/report/index.html), then the verdict (ctrbench recommend --verdict).
RUN_OUT = $(BUILD)/run
# 3 reps of 200 ms after a 50 ms warm-up: a configuration's windows are never shorter than the
# 200 ms they were; the default 200 ms warm-up made a fresh clone's make run 72 s, over its 60.
RUN_SWEEP = --algo all --workload update --shape chain:8 --threads 1..2 --placement compact \
	--reps 3 --duration-ms 200 --warmup-ms 50
# Beside the sweep, ctrbench limits (one round of 100 ms harness windows, about 5 s): each figure's
# ratio to this machine's physical limit, in its own file and on the report page.
RUN_LIMITS = --rounds 1 --duration-ms 100
# make run ends with the verdict (ctrbench recommend --verdict), every line within 100 columns;
# RUN_WIDE=1 prints the report's full throughput and ratio-to-limit tables before it, as before.
RUN_WIDE =
# (a variable of its own: the sed ranges' commas would split $(if)'s arguments)
RUN_WIDE_TABLES = sed -n '/^\#\# Throughput/,/^\#\# /{/^\#\# [^T]/d;p}' $(RUN_OUT)/table/report.md && \
	sed -n '/^\#\# Ratio to the limit/,/^\#\# /{/^\#\# [^R]/d;p}' $(RUN_OUT)/table/report.md &&
run: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all
	$(Q)mkdir -p $(RUN_OUT) && stamp=$$(date +%Y%m%d-%H%M%S) && out=$(RUN_OUT)/results-$$stamp.jsonl && \
	lim=$(RUN_OUT)/limits-$$stamp.jsonl && \
	$(BUILD)/ctrbench sweep $(RUN_SWEEP) --out $$out && \
	$(BUILD)/ctrbench limits $(RUN_LIMITS) --format json >$$lim.tmp && mv $$lim.tmp $$lim && \
	$(BUILD)/ctrbench report $$out $$lim --out $(RUN_OUT)/table --format markdown >/dev/null && \
	$(if $(RUN_WIDE),$(RUN_WIDE_TABLES)) \
	$(BUILD)/ctrbench report $$out $$lim --out $(RUN_OUT)/report >/dev/null && \
	$(BUILD)/ctrbench recommend --verdict --results $$out && \
	echo "results: $$out (earlier runs: $(RUN_OUT)/results-*.jsonl)" && \
	echo "limits:  $$lim" && \
	echo "tables:  $(RUN_OUT)/table/report.md (make run RUN_WIDE=1 prints them here)" && \
	echo "report:  $(RUN_OUT)/report/index.html"

clean:
	rm -rf build

# Keep objects of test binaries (make would delete them as intermediates and rebuild each time).
.SECONDARY:

-include $(shell find $(BUILD)/obj $(BUILD)/pic $(BUILD)/proj $(BUILD)/testalgo -name "*.d" 2>/dev/null)
