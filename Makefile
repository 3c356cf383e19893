# tdbf — GNU Makefile.  `make help` lists the targets.
#
# Honours PREFIX, DESTDIR, LIBDIR, INCLUDEDIR, BINDIR, MANDIR,
# PKGCONFIGDIR, REDIS_MODULEDIR, CC, AR, NM, OBJDUMP, CPPFLAGS, CFLAGS
# (appended), LDFLAGS.  Cross builds: make CC=aarch64-linux-gnu-gcc lib cli
# module (AR, NM and OBJDUMP follow a TRIPLET-gcc compiler unless given).

# The version has one home, include/tdbf.h (TDBF_VERSION_STRING): the
# shared library's file name, tdbf.pc, the Python package and the Redis
# module's version number all follow it.
VERSION     := $(shell sed -n 's/^\#define TDBF_VERSION_STRING "\(.*\)"/\1/p' include/tdbf.h)
ifeq ($(VERSION),)
$(error no TDBF_VERSION_STRING in include/tdbf.h)
endif
SOVERSION   := 0
PREFIX      ?= /usr/local
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
BINDIR      ?= $(PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR      ?= $(PREFIX)/share/man
# Not under LIBDIR: Redis modules are not multiarch libraries, and
# /usr/lib/redis/modules is where Debian's Redis module packages put them.
REDIS_MODULEDIR ?= $(PREFIX)/lib/redis/modules

CC          ?= cc
# A cross compiler named TRIPLET-gcc comes with TRIPLET-ar, -nm and
# -objdump (Debian's binutils-TRIPLET); the host's may not read its objects.
CROSS_PREFIX := $(patsubst %gcc,%,$(filter %-gcc,$(notdir $(CC))))
ifeq ($(origin AR),default)
AR          := $(CROSS_PREFIX)ar
endif
NM          ?= $(CROSS_PREFIX)nm
OBJDUMP     ?= $(CROSS_PREFIX)objdump
export NM OBJDUMP
WARN        := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASEFLAGS   := -std=c11 $(WARN) -Iinclude
# The library's private headers (designs/ops.h, model/run.h, ...) are on
# the include path of its own objects and of the unit tests (which test
# internals) only: the CLI, the Redis module and the fuzz programs see
# tdbf.h alone, like any program built against the library
# (scripts/check-wall.sh, run by `make test`, names any quoted include
# that crosses the wall).
PRIVATE_INC := -Isrc/lib
OPT         ?= -O2 -g
ALL_CFLAGS  := $(BASEFLAGS) $(CPPFLAGS) $(OPT) $(CFLAGS)
LIB_CFLAGS  := $(ALL_CFLAGS) $(PRIVATE_INC) -fPIC -fvisibility=hidden
SAN_FLAGS   := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# The sanitizer build prefers clang: it can also trap unsigned wrap-around,
# which is never intended in the library outside hashing (hash.c, and the
# inline helpers in hash.h that opt out).
SAN_CC      ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo $(CC))
SAN_UNSIGNED := $(if $(findstring clang,$(SAN_CC)),-fsanitize=unsigned-integer-overflow)

BUILD       ?= build
LIB_SRC     := $(sort $(wildcard src/lib/*/*.c src/lib/*/*/*.c))
# tdbf-lab: the lab's developer commands (bench, demo) and what only they
# use; the rest of src/cli is tdbf (src/cli/README: what goes where).
TDBF_LAB_ONLY := src/cli/lab/tdbf_lab.c src/cli/lab/cmd_bench.c src/cli/lab/cmd_demo.c \
                 $(wildcard src/cli/lab/bench_*.c)
TDBF_LAB_SRC := $(TDBF_LAB_ONLY) $(wildcard src/cli/common/*.c) \
                src/cli/lab/report.c src/cli/lab/timing.c src/cli/lab/workload.c
CLI_SRC     := $(filter-out $(TDBF_LAB_ONLY),$(sort $(wildcard src/cli/*.c src/cli/*/*.c)))
TEST_SRC    := $(sort $(wildcard tests/unit/test_*.c))
TEST_COMMON := $(filter-out $(TEST_SRC),$(wildcard tests/unit/*.c))
LIB_OBJ     := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ     := $(CLI_SRC:%.c=$(BUILD)/%.o)
TDBF_LAB_OBJ := $(TDBF_LAB_SRC:%.c=$(BUILD)/%.o)
TEST_BINS   := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
SAN_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/san/%.o)
SAN_BINS    := $(TEST_SRC:tests/unit/%.c=$(BUILD)/san/tests/%)
# The lab's own tests (tests/lab, built with the lab's files they test).
LAB_TEST_SRC := $(sort $(wildcard tests/lab/test_*.c))
LAB_TEST_LAB := src/cli/lab/infer_eval.c src/cli/lab/workload.c src/cli/common/measure.c
LAB_TEST_BINS := $(LAB_TEST_SRC:tests/lab/%.c=$(BUILD)/tests/lab/%)
SAN_LAB_TEST_BINS := $(LAB_TEST_SRC:tests/lab/%.c=$(BUILD)/san/tests/lab/%)
DEPS        := $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TDBF_LAB_OBJ:.o=.d) $(SAN_LIB_OBJ:.o=.d)

STATIC_LIB  := $(BUILD)/libtdbf.a
SHARED_LIB  := $(BUILD)/libtdbf.so.$(VERSION)
SONAME      := libtdbf.so.$(SOVERSION)
CLI         := $(BUILD)/tdbf
LAB         := $(BUILD)/tdbf-lab
PCFILE      := $(BUILD)/tdbf.pc

LIBS        := -lm
# -pthread: test_fpdecay adds from several threads at once.
TEST_LIBS   := -lcmocka $(LIBS) -pthread

.PHONY: all lib cli lab test san valgrind check check-prefetch check-wall check-layers install uninstall clean help demo

all: lib cli lab module $(PCFILE) ## build libtdbf.a, libtdbf.so, the tdbf CLI, tdbf-lab, tdbf.so (Redis) and tdbf.pc

lib: $(STATIC_LIB) $(SHARED_LIB) ## build the static and shared library

cli: $(CLI) ## build the tdbf command-line tool

lab: $(LAB) ## build tdbf-lab, the developers' benchmarks and demo (not installed)

$(BUILD)/src/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/src/cli/%.o: src/cli/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(STATIC_LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(SHARED_LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) -o $@ $^ $(LIBS)
	ln -sf libtdbf.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libtdbf.so

# The CLI links the static library, like any user could; it sees only tdbf.h.
$(CLI): $(CLI_OBJ) $(STATIC_LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(STATIC_LIB) $(LIBS)

$(LAB): $(TDBF_LAB_OBJ) $(STATIC_LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(TDBF_LAB_OBJ) $(STATIC_LIB) $(LIBS)

# tdbf.pc holds the install paths, so it is remade whenever they change
# (`make` then `make install PREFIX=/opt/tdbf` must not install a pc file
# naming /usr/local): the stamp is rewritten only when its content -- the
# paths -- differs, and the pc file depends on it.  Directories under
# PREFIX are written relative to ${prefix}, so `pkg-config
# --define-prefix` can relocate them.
PC_VARS     := $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(VERSION)
PC_LIBDIR   := $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR := $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

.PHONY: FORCE
$(BUILD)/tdbf.pc.vars: FORCE
	@mkdir -p $(@D)
	@echo '$(PC_VARS)' | cmp -s - $@ || echo '$(PC_VARS)' > $@

$(PCFILE): tdbf.pc.in $(BUILD)/tdbf.pc.vars
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(PC_LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

# ---- Redis module ----------------------------------------------------------
# build/tdbf.so: the module sees only tdbf.h and links libtdbf.a (objects
# already -fPIC); --exclude-libs hides the library's symbols, so the module
# exports RedisModule_OnLoad alone; -z defs makes a symbol defined nowhere
# a link error, not a module redis-server refuses to load.
REDIS_SRC   := $(sort $(wildcard src/redis/*.c))
REDIS_OBJ   := $(REDIS_SRC:%.c=$(BUILD)/%.o)
REDIS_MODULE := $(BUILD)/tdbf.so
DEPS        += $(REDIS_OBJ:.o=.d)

.PHONY: module
module: $(REDIS_MODULE) ## build the Redis module build/tdbf.so

$(BUILD)/src/redis/%.o: src/redis/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(REDIS_MODULE): $(REDIS_OBJ) $(STATIC_LIB)
	$(CC) -shared -Wl,--exclude-libs,ALL -Wl,-z,defs $(LDFLAGS) -o $@ $(REDIS_OBJ) $(STATIC_LIB) $(LIBS)

# Debian's python3 (python3-redis, python3-pytest), not whatever is first on PATH.
PYTHON      ?= /usr/bin/python3
.PHONY: test-redis
test-redis: $(REDIS_MODULE) ## run the Redis module tests against real redis-servers (incl. hostile clients, fuzzed payloads)
	@sh scripts/check-redis-layers.sh $(BUILD)/src/redis && TDBF_MODULE=$(abspath $(REDIS_MODULE)) PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m pytest -q -p no:cacheprovider tests/redis/test_module.py tests/redis/test_hostile.py tests/redis/test_limits.py tests/redis/test_command_docs.py tests/redis/test_replication.py tests/redis/test_cluster.py

.PHONY: test-replication
test-replication: $(REDIS_MODULE) ## primary + 2 replicas (one with its clock 5 h off): digests, answers, full and partial sync, failover
	@TDBF_MODULE=$(abspath $(REDIS_MODULE)) PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m pytest -q -p no:cacheprovider tests/redis/test_replication.py

.PHONY: test-cluster
test-cluster: $(REDIS_MODULE) ## 3 primaries + 3 replicas: 1000 filters, resharding, failover, 8 clients with primary kills
	@TDBF_MODULE=$(abspath $(REDIS_MODULE)) PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m pytest -q -s -p no:cacheprovider tests/redis/test_cluster.py

.PHONY: bench-hostile
bench-hostile: $(REDIS_MODULE) ## what forged chunks, huge filters, ADDAT, bursts and corrupt payloads cost the server
	@PYTHONDONTWRITEBYTECODE=1 $(PYTHON) bench/redis_hostile.py $(abspath $(REDIS_MODULE))

.PHONY: bench-redis
bench-redis: $(REDIS_MODULE) ## redis-benchmark ratios vs SET NX EX, and memory per item
	@TDBF_MODULE=$(abspath $(REDIS_MODULE)) PYTHONDONTWRITEBYTECODE=1 $(PYTHON) bench/redis_bench.py

# ---- Python package (python/: import tdbf) ----------------------------------
# Built with $(PYTHON) (Debian's by default; any CPython >= 3.9 with its
# headers and setuptools: make python PYTHON=python3) into build/python,
# which the tests and the benchmark put on PYTHONPATH.  pip installs it
# there offline (--no-build-isolation --no-index; PEP 668 leaves a --target
# alone).  The extension compiles libtdbf's sources itself, with warnings
# as errors here.
PY_BUILD    := $(BUILD)/python
PY_ENV      := PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 TDBF_WERROR=1
.PHONY: python test-python bench-python
python: ## build the Python package (import tdbf) into build/python (PYTHON=/usr/bin/python3)
	@rm -rf $(PY_BUILD) && mkdir -p $(PY_BUILD)
	@$(PY_ENV) $(PYTHON) -m pip install -q --no-build-isolation --no-index --no-deps \
	  --target $(abspath $(PY_BUILD)) ./python

test-python: python $(CLI) ## pytest on the Python package: properties, errors, threads, leaks, files shared with tdbf dedup
	@TDBF_CLI=$(abspath $(CLI)) PYTHONPATH=$(abspath $(PY_BUILD)) PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

.PHONY: test-fronts
test-fronts: python $(CLI) $(REDIS_MODULE) ## the same options and files through the tool, Python and Redis (tests/fronts/options.tsv, saved filters across fronts)
	@TDBF_MODULE=$(abspath $(REDIS_MODULE)) TDBF_CLI=$(abspath $(CLI)) PYTHONPATH=$(abspath $(PY_BUILD)) \
	  PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m pytest -q -p no:cacheprovider tests/redis/test_fronts.py tests/redis/test_formats.py

bench-python: python ## Python: f.add, f.add_many vs a dict window and a set, keys/s and memory
	@PYTHONPATH=$(abspath $(PY_BUILD)) PYTHONDONTWRITEBYTECODE=1 $(PYTHON) python/bench/bench_dedup.py

# ---- tests -------------------------------------------------------------
# The unit tests link a library of their own, build/check/libtdbf.a: the
# release objects' flags plus TDBF_CHECKS, which compiles the library's
# invariants in (TDBF_ASSERT, src/lib/util/check.h).  The sanitizer, tsan
# and fuzz builds define it too; the release library, the CLI, the module,
# the Debian package and the Python extension never do.  One more compile
# of the library, at the release optimisation, so the tests take as long.
CHECKS      := -DTDBF_CHECKS
CHECK_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/check/%.o)
CHECK_LIB   := $(BUILD)/check/libtdbf.a
DEPS        += $(CHECK_LIB_OBJ:.o=.d)

$(BUILD)/check/src/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(CHECKS) -MMD -MP -c $< -o $@

$(CHECK_LIB): $(CHECK_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tests/%: tests/unit/%.c $(TEST_COMMON) tests/unit/*.h $(CHECK_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CHECKS) $(PRIVATE_INC) -Itests/unit -o $@ $< $(TEST_COMMON) $(TEST_EXTRA) $(CHECK_LIB) $(TEST_LIBS)

$(BUILD)/san/src/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	$(SAN_CC) $(BASEFLAGS) $(CHECKS) $(PRIVATE_INC) $(SAN_FLAGS) $(SAN_UNSIGNED) -MMD -MP -c $< -o $@

# XXH3 and the seed mixer wrap on purpose.
$(BUILD)/san/src/lib/util/hash.o: SAN_UNSIGNED :=

$(BUILD)/san/libtdbf.a: $(SAN_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/san/tests/%: tests/unit/%.c $(TEST_COMMON) tests/unit/*.h $(BUILD)/san/libtdbf.a
	@mkdir -p $(@D)
	$(SAN_CC) $(BASEFLAGS) $(CHECKS) $(PRIVATE_INC) $(SAN_FLAGS) -DTDBF_TEST_SANITIZER=1 -Itests/unit -o $@ $< $(TEST_COMMON) $(TEST_EXTRA) $(BUILD)/san/libtdbf.a $(TEST_LIBS)

test: $(TEST_BINS) $(LAB_TEST_BINS) $(CLI) check-prefetch test-check-prefetch check-wall check-layers ## build and run the unit, property and statistical tests (and the lab's, tests/lab)
	@sh tests/run-unit.sh $(TEST_BINS) $(LAB_TEST_BINS)

check-wall: ## fail if the CLI, the Redis module or the Python extension includes a private header of the library
	@sh scripts/check-wall.sh

check-layers: $(LIB_OBJ) ## fail if a module of src/lib (a layer folder, a design) uses one of a higher layer, or modules use each other in a cycle
	@sh scripts/check-lib-layers.sh $(LIB_OBJ)

check-prefetch: $(LIB_OBJ) ## fail if any design's prefetch callback was optimised away (any architecture: x86 prefetch*, aarch64 prfm, s390x pfd, ppc dcbt, ...)
	@sh scripts/check-prefetch.sh $(LIB_OBJ)

.PHONY: test-check-prefetch
test-check-prefetch: ## check-prefetch.sh passes a kept prefetch and fails a lost one, with CC and every installed cross compiler
	@CC='$(CC)' sh tests/check-prefetch.sh

san: $(SAN_BINS) $(SAN_LAB_TEST_BINS) ## run the unit tests (and the lab's) under ASan+UBSan (smaller sizes)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  sh tests/run-unit.sh $(SAN_BINS) $(SAN_LAB_TEST_BINS)

# The quick binaries under valgrind (memcheck: invalid accesses, leaks).
VALGRIND_BINS := $(filter %/test_api %/test_baselines %/test_tlbf,$(TEST_BINS))
valgrind: $(VALGRIND_BINS) ## run the quick unit tests under valgrind memcheck
	@TDBF_TEST_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
	  sh tests/run-unit.sh $(VALGRIND_BINS)

# The 128-bit helpers' portable path (util/wide.h), which 32-bit targets
# use, forced on this host with TDBF_NO_INT128: a library, CLI and the
# tests that lean on wide products most (index mapping, blocked digits,
# apbf-line's turns), built into $(BUILD)/portable.
PORTABLE_TESTS := test_wide test_api test_apbbf test_apbf_line test_codec
.PHONY: test-portable
test-portable: ## build the library, CLI and some unit tests without unsigned __int128 (TDBF_NO_INT128) and run them
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/portable CPPFLAGS='$(CPPFLAGS) -DTDBF_NO_INT128' \
	  $(BUILD)/portable/tdbf $(PORTABLE_TESTS:%=$(BUILD)/portable/tests/%)
	@sh tests/run-unit.sh $(PORTABLE_TESTS:%=$(BUILD)/portable/tests/%)

check: test test-portable valgrind san ## all test builds

# ThreadSanitizer: the library and the concurrent test (fingerprint decay
# array: lock-free adds and queries from 4 threads), built with clang.
TSAN_FLAGS  := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
TSAN_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/tsan/%.o)
DEPS        += $(TSAN_LIB_OBJ:.o=.d)

$(BUILD)/tsan/src/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	$(SAN_CC) $(BASEFLAGS) $(CHECKS) $(PRIVATE_INC) $(TSAN_FLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tsan/libtdbf.a: $(TSAN_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tsan/tests/%: tests/unit/%.c $(TEST_COMMON) tests/unit/*.h $(BUILD)/tsan/libtdbf.a
	@mkdir -p $(@D)
	$(SAN_CC) $(BASEFLAGS) $(CHECKS) $(PRIVATE_INC) $(TSAN_FLAGS) -DTDBF_TEST_SANITIZER=1 -Itests/unit -o $@ $< $(TEST_COMMON) $(TEST_EXTRA) $(BUILD)/tsan/libtdbf.a $(TEST_LIBS)

# The lab's own tests (tests/lab): paper 002's penalty experiment
# (infer_eval.c, behind tdbf eval tbf / apbf-posterior), built from the
# lab's files and tests/unit's assertion macros.  The unit tests use the
# library only.

$(BUILD)/tests/lab/%: tests/lab/%.c $(LAB_TEST_LAB) src/cli/lab/*.h $(TEST_COMMON) tests/unit/*.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PRIVATE_INC) -Itests/unit -Isrc/cli/lab -o $@ $< $(LAB_TEST_LAB) $(TEST_COMMON) $(STATIC_LIB) $(TEST_LIBS)

$(BUILD)/san/tests/lab/%: tests/lab/%.c $(LAB_TEST_LAB) src/cli/lab/*.h $(TEST_COMMON) tests/unit/*.h $(BUILD)/san/libtdbf.a
	@mkdir -p $(@D)
	$(SAN_CC) $(BASEFLAGS) $(PRIVATE_INC) $(SAN_FLAGS) -DTDBF_TEST_SANITIZER=1 -Itests/unit -Isrc/cli/lab -o $@ $< $(LAB_TEST_LAB) $(TEST_COMMON) $(BUILD)/san/libtdbf.a $(TEST_LIBS)

.PHONY: tsan
tsan: $(BUILD)/tsan/tests/test_fpdecay $(BUILD)/tsan/tests/test_line_threads $(BUILD)/tsan/tests/test_sqf_readers ## run the lock-free FPDECAY, concurrent apbf-line and sqf readers' tests under ThreadSanitizer
	@TSAN_OPTIONS=halt_on_error=1:exitcode=66 sh tests/run-unit.sh $(BUILD)/tsan/tests/test_fpdecay $(BUILD)/tsan/tests/test_line_threads $(BUILD)/tsan/tests/test_sqf_readers

demo: $(LAB) ## run the demo (Zipf stream: APBF and TLBF vs exact windows)
	$(LAB) demo

.PHONY: readme-figures
readme-figures: $(LAB) ## rewrite docs/results.md's demo figures from what tdbf-lab demo prints now (~1 min)
	@$(PYTHON) scripts/readme_figures.py $(LAB) docs/results.md

.PHONY: bench
bench: $(LAB) ## time Bloom, APBF, APBBF, apbf-line: ns/op and single-call latency (windows 1e4, 1e6); CSV in bench/results.csv
	@mkdir -p bench
	$(LAB) bench --csv bench/results.csv

.PHONY: bench-speed
bench-speed: $(LAB) ## docs/results.md's speed tables: windows 1e4..1e8, both errors, the count designs (~20 min, ~4 GB)
	@mkdir -p bench
	$(LAB) bench --windows 1e4,1e6,1e7,1e8 --errors 0.01,0.001 --targets \
	    --designs inline-bloom,bloom,apbf,apbbf-512,apbf-line,apbf-line-64,apbf-line-128,sqf,sqf-64 \
	    --csv bench/results-speed.csv
	@$(PYTHON) scripts/bench_table.py bench/results-speed.csv --error 0.01
	@$(PYTHON) scripts/bench_table.py bench/results-speed.csv --error 0.001

# ---- tdbf dedup and tdbf info: end-to-end tests, throughput -------------
.PHONY: test-cli bench-dedup check-man
test-cli: $(CLI) $(LAB) $(SHARED_LIB) check-man ## run the end-to-end tests of tdbf dedup (input parsing, streaming and stops), info, plan, eval, the texts naming defaults, every command's exit status, the sqf on every command (and check-man)
	@PYTHONDONTWRITEBYTECODE=1 $(PYTHON) tests/cli/test_dedup.py $(CLI); s=$$?; \
	PYTHONDONTWRITEBYTECODE=1 $(PYTHON) tests/cli/test_commands.py $(CLI) || s=1; \
	PYTHONDONTWRITEBYTECODE=1 $(PYTHON) tests/cli/test_sqf.py $(CLI) || s=1; \
	PYTHONDONTWRITEBYTECODE=1 $(PYTHON) tests/cli/test_dedup_input.py $(CLI) || s=1; \
	PYTHONDONTWRITEBYTECODE=1 $(PYTHON) tests/cli/test_dedup_stream.py $(CLI) || s=1; \
	PYTHONDONTWRITEBYTECODE=1 $(PYTHON) tests/cli/test_defaults.py $(CLI) || s=1; \
	PYTHONDONTWRITEBYTECODE=1 $(PYTHON) tests/cli/test_eval.py $(CLI) && exit $$s

check-man: $(CLI) ## check that tdbf(1) lists every option the CLI parses, libtdbf(3) every function of tdbf.h and libtdbf_model(3) every one of tdbf_model.h
	@sh tests/man-pages.sh $(CLI)

bench-dedup: $(CLI) ## lines/s of tdbf dedup vs sort -u and awk on 10^7 lines
	@sh bench/dedup.sh $(CLI)

# ---- tdbf eval: the papers' tables and figures as CSV and PNG -----------
RESULTS     := docs/results
.PHONY: eval
eval: $(CLI) ## run the tdbf eval experiments into docs/results/ (CSV, burst.md) and plot them (PNG)
	@sh scripts/deps.sh plot
	@mkdir -p $(RESULTS)
	$(CLI) eval table2 --csv $(RESULTS)/table2.csv
	$(CLI) eval table3 --csv $(RESULTS)/table3.csv
	$(CLI) eval fig6 --csv $(RESULTS)/fig6.csv
	$(CLI) eval tlbf-slices --csv $(RESULTS)/tlbf_slices.csv
	$(CLI) eval tlbf-bits --csv $(RESULTS)/tlbf_bits.csv
	$(CLI) eval tlbf-fp --csv $(RESULTS)/tlbf_fp.csv
	$(CLI) eval tlbf-faults --csv $(RESULTS)/tlbf_faults.csv
	$(CLI) eval clock-rotating --csv $(RESULTS)/clock_rotating.csv
	$(CLI) eval fpdecay-survival --csv $(RESULTS)/fpdecay_survival.csv
	$(CLI) eval stable --csv $(RESULTS)/stable.csv
	$(CLI) eval tbf --quick --csv $(RESULTS)/tbf_quick.csv
	$(CLI) eval apbf-posterior --quick --csv $(RESULTS)/apbf_posterior_quick.csv
	$(CLI) eval table4 --csv $(RESULTS)/table4.csv
	$(CLI) eval line-model --csv $(RESULTS)/line_model.csv
	$(CLI) eval sqf-model --csv $(RESULTS)/sqf_model.csv --markdown $(RESULTS)/sqf_model.md
	$(CLI) eval compare --csv $(RESULTS)/compare.csv
	PYTHONDONTWRITEBYTECODE=1 $(PYTHON) scripts/plot_results.py $(RESULTS)
	@# last: it fails (exit 1) when tlbf-line, the default, misses its target
	$(CLI) eval burst --csv $(RESULTS)/burst.csv --markdown $(RESULTS)/burst.md

.PHONY: eval-large
eval-large: $(CLI) ## tdbf eval sqf-model --large: the sqf model grid with windows up to 10^8, into docs/results/sqf_model_large.* (~25 min, ~2 GB)
	$(CLI) eval sqf-model --large --csv $(RESULTS)/sqf_model_large.csv --markdown $(RESULTS)/sqf_model_large.md

# ---- fuzzing (libFuzzer, clang) ------------------------------------------
# Two targets: the loader (tests/fuzz/fuzz_load.c) and the command-line
# parsing of tdbf dedup (tests/fuzz/fuzz_cli.c, linking dedup_parse.c, dedup_time.c and
# the common/ helpers it calls, not main).  The library and those files are built with
# coverage, ASan, UBSan and (but for hashing) unsigned-wrap traps.  `make
# fuzz` runs each target FUZZ_SECONDS and fails on a crash, leak, timeout
# or broken property; the corpus keeps growing in build/fuzz/NAME/corpus.
FUZZ_SECONDS ?= 60
FUZZ_CC     ?= clang
FUZZ_FLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_UNSIGNED := -fsanitize=unsigned-integer-overflow
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/fuzz/%.o)
FUZZ_CLI_OBJ := $(patsubst %,$(BUILD)/fuzz/src/cli/%.o,dedup_parse dedup_time \
                  common/diag common/cmdline common/output)
DEPS        += $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_CLI_OBJ:.o=.d)

$(BUILD)/fuzz/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(BASEFLAGS) $(FUZZ_INC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(FUZZ_UNSIGNED) -MMD -MP -c $< -o $@

# The library's objects see its private headers; util.o and dedup_parse.o
# (the CLI's) do not.
$(FUZZ_LIB_OBJ): FUZZ_INC := $(PRIVATE_INC) $(CHECKS)
$(BUILD)/fuzz/src/lib/util/hash.o: FUZZ_UNSIGNED :=

$(BUILD)/fuzz/libtdbf.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/fuzz/fuzz_load: tests/fuzz/fuzz_load.c $(BUILD)/fuzz/libtdbf.a
	$(FUZZ_CC) $(BASEFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/fuzz/libtdbf.a $(LIBS)

$(BUILD)/fuzz/fuzz_cli: tests/fuzz/fuzz_cli.c $(FUZZ_CLI_OBJ) $(BUILD)/fuzz/libtdbf.a
	$(FUZZ_CC) $(BASEFLAGS) -Isrc/cli $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CLI_OBJ) $(BUILD)/fuzz/libtdbf.a $(LIBS)

# The loader's seeds: saved filters of every saveable design, written at
# build time by a program linked with the normal library.
$(BUILD)/fuzz/gen_corpus: tests/fuzz/gen_corpus.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(STATIC_LIB) $(LIBS)

$(BUILD)/fuzz/seeds-load.stamp: $(BUILD)/fuzz/gen_corpus
	rm -rf $(BUILD)/fuzz/seeds/load
	mkdir -p $(BUILD)/fuzz/seeds/load
	$< $(BUILD)/fuzz/seeds/load
	touch $@

.PHONY: fuzz fuzz-load fuzz-cli
fuzz: fuzz-load fuzz-cli ## fuzz the loader and dedup's parsing, FUZZ_SECONDS each (default 60)

fuzz-load: $(BUILD)/fuzz/fuzz_load $(BUILD)/fuzz/seeds-load.stamp
	@sh tests/fuzz/run.sh $< $(FUZZ_SECONDS) $(BUILD)/fuzz/load $(BUILD)/fuzz/seeds/load

fuzz-cli: $(BUILD)/fuzz/fuzz_cli
	@sh tests/fuzz/run.sh $< $(FUZZ_SECONDS) $(BUILD)/fuzz/cli tests/fuzz/corpus/cli

# ---- golden files and other architectures ------------------------------
# tests/unit/golden/: saved filters of every design written on x86-64, with
# the answers and statistics they must give (test_golden checks them on
# every machine).  Rewrite them only for a deliberate format change
# (docs/format.md), and say so in the commit.
GOLDEN_DIR  := tests/unit/golden
.PHONY: golden test-cross test-cross-full test-cross-python
golden: $(BUILD)/tests/test_golden ## rewrite tests/unit/golden/ (saved filters, their answers): only for a deliberate format change
	rm -f $(GOLDEN_DIR)/*.tdbf $(GOLDEN_DIR)/*.expect
	$< --write $(GOLDEN_DIR)

# Cross compilers and qemu-user (scripts/deps.sh cross); each architecture
# builds into build/cross-ARCH/quick/ or full/.  CROSS: one GNU triplet or
# several.
CROSS       ?= s390x-linux-gnu aarch64-linux-gnu i686-linux-gnu
test-cross: ## golden files, codec, API, differential, wide-arithmetic and option-language tests on s390x, aarch64, i686 under qemu, small sizes (~6 min; CROSS=triplet for one)
	@sh scripts/test-cross.sh quick $(CROSS)

test-cross-full: ## every unit test at full size on s390x, aarch64, i686 under qemu (aarch64 ~20 min, s390x and i686 longer; not in CI)
	@sh scripts/test-cross.sh full $(CROSS)

CROSS_PYTHON ?= i686-linux-gnu
test-cross-python: $(CLI) ## the Python extension built -Werror for CROSS_PYTHON (i686 default; also armhf, aarch64, s390x) and its tests under qemu with that architecture's CPython (~6 min; not in CI)
	@sh scripts/test-cross-python.sh $(CROSS_PYTHON)

# ---- install -----------------------------------------------------------
# The installed headers: tdbf.h (the core) and tdbf_model.h (planners,
# models, inference).  The man pages: tdbf(1), libtdbf(3) for tdbf.h,
# libtdbf_model(3) for tdbf_model.h, and one tdbf_*(3) per function, a
# one-line .so link to the page that documents it (its "links:" lines).
HEADERS     := include/tdbf.h include/tdbf_model.h
MAN1        := $(wildcard man/*.1)
MAN3        := $(wildcard man/*.3)
man_links    = $(shell sed -n 's/^\.\\" *links: *//p' man/$(1).3 2>/dev/null)
MAN3_LINKS  := $(call man_links,libtdbf)
MAN3_MODEL_LINKS := $(call man_links,libtdbf_model)

install: all ## install library, headers, CLI, man pages, Redis module and tdbf.pc under $(DESTDIR)$(PREFIX)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
	    $(DESTDIR)$(REDIS_MODULEDIR)
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/libtdbf.a
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/libtdbf.so.$(VERSION)
	ln -sf libtdbf.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libtdbf.so
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/tdbf
	install -m 644 $(PCFILE) $(DESTDIR)$(PKGCONFIGDIR)/tdbf.pc
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	for page in $(MAN3_LINKS); do \
	    echo '.so man3/libtdbf.3' > $(DESTDIR)$(MANDIR)/man3/$$page.3 || exit 1; \
	done
	for page in $(MAN3_MODEL_LINKS); do \
	    echo '.so man3/libtdbf_model.3' > $(DESTDIR)$(MANDIR)/man3/$$page.3 || exit 1; \
	done
	@# Redis (7.0 and later) refuses a module without the execute bit.
	install -m 755 $(REDIS_MODULE) $(DESTDIR)$(REDIS_MODULEDIR)/tdbf.so
	@# A live install by root: refresh the loader's cache, or programs would
	@# not find libtdbf.so.0 in /usr/local/lib until the next ldconfig.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall: ## remove what install put there
	rm -f $(HEADERS:include/%=$(DESTDIR)$(INCLUDEDIR)/%) $(DESTDIR)$(LIBDIR)/libtdbf.a \
	      $(DESTDIR)$(LIBDIR)/libtdbf.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/libtdbf.so $(DESTDIR)$(BINDIR)/tdbf \
	      $(DESTDIR)$(PKGCONFIGDIR)/tdbf.pc $(DESTDIR)$(REDIS_MODULEDIR)/tdbf.so \
	      $(MAN1:man/%=$(DESTDIR)$(MANDIR)/man1/%) \
	      $(MAN3:man/%=$(DESTDIR)$(MANDIR)/man3/%) \
	      $(MAN3_LINKS:%=$(DESTDIR)$(MANDIR)/man3/%.3) \
	      $(MAN3_MODEL_LINKS:%=$(DESTDIR)$(MANDIR)/man3/%.3)
	@# The module directory, if nothing else is in it.
	rmdir $(DESTDIR)$(REDIS_MODULEDIR) 2>/dev/null || true

clean: ## remove build/ (and pip's in-tree build of python/)
	rm -rf $(BUILD) python/build python/tdbf.egg-info

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' Makefile | sed -e 's/:.*## /\t/' | expand -t 12

-include $(DEPS)
