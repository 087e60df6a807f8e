# ctrbench - plain Makefile, sources found by wildcard.
#   make            build build/libctr.a and build/ctrbench
#   make test       install what is missing, build, run every test (plain, TSan, ASan+UBSan)
#   make run        install what is missing, build, run the default benchmark
#   make V=1        show the commands
#   make print-libs what a program linking build/libctr.a needs besides it

V ?= 0
Q := $(if $(filter 1,$(V)),,@)
say = $(if $(filter 1,$(V)),,@printf '  %-6s %s\n' $(1) $(2);)

BUILD ?= build
CC ?= gcc
# SAN=thread or SAN=address,undefined builds a sanitizer variant into BUILD (see `test`).
SAN ?=

# libperf is not packaged by Debian 12: scripts/install-deps.sh builds it into .deps/.
export PKG_CONFIG_PATH := $(CURDIR)/.deps/libperf/lib64/pkgconfig:$(CURDIR)/.deps/libperf/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
pc = $(shell PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' pkg-config $(1) 2>/dev/null)

OPT := $(if $(SAN),-O1 -fno-omit-frame-pointer -fsanitize=$(SAN) -DCTR_DEBUG,-O2)
CFLAGS ?= -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -pthread $(OPT) -MMD -MP
LDFLAGS ?=
override LDFLAGS += -pthread $(if $(SAN),-fsanitize=$(SAN))

# What a user of libctr.a links with.
LIBCTR_LIBS := -pthread -lm

LIB_SRC := $(wildcard counters/*.c)
BENCH_SRC := $(wildcard bench/*.c topology/*.c pmu/*.c project/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
# Concurrency tests (tests/test_mt_*.c) run under ThreadSanitizer, the rest under ASan+UBSan.
MT_TEST_SRC := $(filter tests/test_mt_%.c,$(TEST_SRC))
ST_TEST_SRC := $(filter-out $(MT_TEST_SRC),$(TEST_SRC))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIB_OBJ := $(call obj,$(LIB_SRC))
BENCH_OBJ := $(call obj,$(BENCH_SRC))
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
MT_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(MT_TEST_SRC))
ST_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(ST_TEST_SRC))

BENCH_CFLAGS := $(call pc,--cflags libperf jansson hwloc)
BENCH_LIBS := $(call pc,--libs --static libperf) $(call pc,--libs jansson hwloc) -lpfm -lnuma -lm
TEST_CFLAGS := $(call pc,--cflags cmocka)
TEST_LIBS := $(call pc,--libs cmocka)

.PHONY: all lib bench tests test test-plain test-tsan test-asan run deps print-libs clean
all: lib bench
lib: $(BUILD)/libctr.a $(BUILD)/include/ctr.h
bench: $(BUILD)/ctrbench
tests: $(TESTS) $(BUILD)/api_demo

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(CFLAGS) $(EXTRA_DEFS) $(if $(filter counters/%,$<),,$(BENCH_CFLAGS) $(TEST_CFLAGS)) -c -o $@ $<

# Every result records the build: commit and flags, compiled into env.o, rebuilt when they change.
CTRBENCH_COMMIT := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
BUILD_ID := $(CTRBENCH_COMMIT) $(CFLAGS) $(abspath scripts)
$(BUILD)/build-id: FORCE
	@mkdir -p $(dir $@)
	@echo '$(BUILD_ID)' | cmp -s - $@ || echo '$(BUILD_ID)' > $@
$(BUILD)/obj/bench/env.o: $(BUILD)/build-id
$(BUILD)/obj/bench/env.o: EXTRA_DEFS = -DCTRBENCH_COMMIT='"$(CTRBENCH_COMMIT)"' -DCTRBENCH_CFLAGS='"$(CFLAGS)"'
.PHONY: FORCE
# ctrbench report execs scripts/report of this tree ($CTRBENCH_SCRIPTS_DIR overrides it).
$(BUILD)/obj/bench/report_cmd.o: $(BUILD)/build-id
$(BUILD)/obj/bench/report_cmd.o: EXTRA_DEFS = -DCTRBENCH_SCRIPTS_DIR='"$(abspath scripts)"'

# The projection's copy of libctr (docs/projection.md): the same sources compiled again with
# GCC's TSan instrumentation, every symbol renamed proj_*, linked against project/rt.c instead of
# libtsan.  Its own flags: -O2 as the benchmark's, whatever SAN this build is.
PROJ_OBJ := $(patsubst counters/%.c,$(BUILD)/proj/%.o,$(LIB_SRC))
PROJ_LIB := $(BUILD)/proj/libctr_proj.o
$(BUILD)/proj/%.o: counters/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) -g -std=gnu11 -Wall -Wextra -Werror -pthread -O2 -fsanitize=thread -MMD -MP -c -o $@ $<
$(PROJ_LIB): $(PROJ_OBJ) scripts/proj-rename.sh
	$(call say,GEN,$@)scripts/proj-rename.sh $@ $(PROJ_OBJ)

$(BUILD)/libctr.a: $(LIB_OBJ)
	$(call say,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# The public header alone, so the API test sees nothing internal.
$(BUILD)/include/ctr.h: counters/ctr.h
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(BUILD)/ctrbench: $(BENCH_OBJ) $(PROJ_LIB) $(BUILD)/libctr.a
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $(BENCH_OBJ) $(PROJ_LIB) $(BUILD)/libctr.a $(BENCH_LIBS)

# Tests link the library and the harness objects they exercise (not main.c).
TEST_LINK_OBJ := $(filter-out $(BUILD)/obj/bench/main.o,$(BENCH_OBJ)) $(PROJ_LIB)
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TEST_LINK_OBJ) $(BUILD)/libctr.a
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $< $(TEST_LINK_OBJ) $(BUILD)/libctr.a $(TEST_LIBS) $(BENCH_LIBS)

# Written against the public header only, linked as make print-libs says.
$(BUILD)/api_demo: tests/api_demo.c $(BUILD)/include/ctr.h $(BUILD)/libctr.a
	$(call say,CC,$@)$(CC) -std=c11 -Wall -Wextra -Werror -I$(BUILD)/include $(if $(SAN),-fsanitize=$(SAN)) -o $@ $< $(BUILD)/libctr.a $(LIBCTR_LIBS)

print-libs:
	@echo $(LIBCTR_LIBS)

deps:
	$(Q)scripts/install-deps.sh

RUN_TESTS = scripts/run-tests.sh
# Shell tests (tests/cli*.sh) take the ctrbench binary to test as their argument: each runs
# against the plain build and the ASan+UBSan one.
CLI_TESTS := $(wildcard tests/cli*.sh)

test: deps
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)$(MAKE) --no-print-directory BUILD=build/tsan SAN=thread $(MT_TESTS:build/%=build/tsan/%)
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan SAN=address,undefined $(ST_TESTS:build/%=build/asan/%) \
		build/asan/api_demo build/asan/ctrbench
	$(Q)$(RUN_TESTS) $(TESTS) $(BUILD)/api_demo $(CLI_TESTS:%=%@$(BUILD)/ctrbench) \
		$(MT_TESTS:build/%=build/tsan/%) \
		$(ST_TESTS:build/%=build/asan/%) build/asan/api_demo $(CLI_TESTS:%=%@build/asan/ctrbench)

# The default benchmark: its table, then the same over 1 and 2 threads as a sweep, and the report
# page of that sweep (build/run/report/index.html).
RUN_OUT = $(BUILD)/run
run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(BUILD)/ctrbench run --algo all --workload update --shape chain:8 --threads 2 --duration-ms 500
	$(Q)rm -rf $(RUN_OUT) && mkdir -p $(RUN_OUT)
	$(Q)$(BUILD)/ctrbench sweep --algo all --workload update --shape chain:8 --threads 1..2 \
		--placement compact --reps 3 --duration-ms 200 --out $(RUN_OUT)/results.jsonl
	$(Q)$(BUILD)/ctrbench report $(RUN_OUT)/results.jsonl --out $(RUN_OUT)/report
	@echo "results: $(RUN_OUT)/results.jsonl"

clean:
	rm -rf build

# Keep objects of test binaries (make would delete them as intermediates and rebuild each time).
.SECONDARY:

-include $(shell find $(BUILD)/obj $(BUILD)/proj -name '*.d' 2>/dev/null)
