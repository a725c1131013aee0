# profcodec: the two commands a user needs are `make run` and `make test`.
# Everything else is here for developers: regen, fuzz, bench, install, clean.

BUILD       ?= build
ASAN_BUILD  ?= build-asan
RELEASE_BUILD ?= build-release
FUZZ_BUILD  ?= build-fuzz
BENCH_BUILD ?= build-bench
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
# make test's sanitize build, beside the fast tree's tests: one job more than the cores. The fast
# tests (Chromium, Python, go tool pprof) leave a core idle part of the time, and the sanitize
# chain (its build, then its tests) is make test's critical path: at -j$(JOBS) the two sides used
# 1.58 of the 2 cores in that phase (a clean clone of 43542b54: 307 s wall, 271.1 + 213.9 s CPU).
SIDE_JOBS   ?= $(shell echo $$(( $(JOBS) + 1 )))
PREFIX      ?= /usr/local
FUZZ_SECONDS ?= 300
FUZZ_TOOLS_BUILD ?= build-fuzz-tools
FUZZ_COMPARE_SECONDS ?= 600
FUZZ_COV_BUILD ?= build-fuzz-cov
FUZZ_COMPARE_JOBS ?= 1
FUZZ_COMPARE_WALL ?= 0
export CTEST_OUTPUT_ON_FAILURE = 1
# A new build tree is configured for Ninja when it is installed (scripts/setup-deps.sh installs it):
# CMake's Makefiles start a cmake process per object to print its line (45 ms of CPU each) and
# scan each target's dependencies in make's recursion: the fast tree's build took 128 s of CPU with
# them, 106 s with Ninja (docs/testing.md). A tree configured before keeps its generator (CMake ignores
# CMAKE_GENERATOR once a tree has a cache); CMAKE_GENERATOR=... in the environment picks another.
PCD_CMAKE = CMAKE_GENERATOR="$${CMAKE_GENERATOR:-$$(command -v ninja >/dev/null 2>&1 && echo Ninja)}" cmake

.PHONY: all setup build run test test-trees test-fast test-asan test-release test-long regen explain fuzz fuzz-tools fuzz-others bench bench-tables bench-fuzz install clean

all: build

# Installs missing Debian packages when run as root; otherwise prints the apt-get line and stops.
setup:
	@scripts/setup-deps.sh --quiet

build: setup
	@$(PCD_CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# Build the command-line tool (only what `run` needs: make test builds the rest), then run
# profcodec on the bundled sample files and show what it finds.
run: setup
	@$(PCD_CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS) --target profcodec-cli
	@scripts/run-samples.sh $(BUILD)/profcodec

# The whole suite, sized to take well under 10 minutes on 2 cores: gcc -O2 (where gcc's warnings
# that only show with optimisation fail), then clang with AddressSanitizer +
# UndefinedBehaviorSanitizer (clang's warnings come from its front end, the same at every -O).
# Warnings are errors in both. The hostile-input sweeps and limits run sized for CI here;
# make test-long runs them in full, and the Release builds.
test: setup test-trees
	@echo "make test: all passed (gcc -O2, clang with ASan+UBSan)"

# Everything make test runs, with the full sweeps (PCD_TEST_LONG=1: every converter on every
# hostile claim, twice the CLI runs and linear-time inputs, four times the mutation sweeps, the
# Python module's damaged inputs and the pictures' --base pairs in full, the wheel built Release),
# and the Release builds with gcc and clang. Run it before a release, when a change touches the
# readers, the limits or the generator, and in fuzz campaigns (beside make fuzz).
test-long: export PCD_TEST_LONG = 1
test-long: setup test-trees test-release
	@echo "make test-long: all passed (the full sweeps; gcc, clang with ASan+UBSan, Release with gcc and clang)"

# The fast tree (gcc): the tests whose point is agreement on every real file, the browsers, the
# packaging and the scripts; test-asan: the C's own tests, hostile inputs, fuzz replays, sweeps and
# the CLI's error paths under the sanitizers, the agreement tests on the small files
# (PCD_TEST_TREE; docs/testing.md says which test runs where, and why).
FAST_CONFIGURE = $(PCD_CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCD_WERROR=ON -DPCD_BENCH=OFF -DPCD_TEST_TREE=fast >/dev/null
ASAN_CONFIGURE = CC=clang $(PCD_CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPCD_SANITIZE=ON -DPCD_WERROR=ON -DPCD_BENCH=OFF \
    -DPCD_TEST_TREE=sanitize >/dev/null
FAST_TESTS = cd $(BUILD) && $(CURDIR)/scripts/cpu-time.sh "make test-fast: the tests" ctest -j$(JOBS) --timeout $(if $(PCD_TEST_LONG),1800,300)
ASAN_TESTS = cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    $(CURDIR)/scripts/cpu-time.sh "make test-asan: the tests" ctest -j$(JOBS) --timeout $(if $(PCD_TEST_LONG),3600,600)
ASAN_BUILD_LOG = $(ASAN_BUILD)/make-test-build.log
ASAN_TEST_LOG = $(ASAN_BUILD)/make-test-tests.log

test-fast:
	@$(FAST_CONFIGURE)
	@scripts/cpu-time.sh "make test-fast: the build" cmake --build $(BUILD) -j$(JOBS)
	@$(FAST_TESTS)

test-asan:
	@$(ASAN_CONFIGURE)
	@scripts/cpu-time.sh "make test-asan: the build" cmake --build $(ASAN_BUILD) -j$(JOBS)
	@$(ASAN_TESTS)

# make test's order: the fast tree's build; then, beside its tests, the sanitize tree's build and,
# as soon as it is done, the sanitize tree's tests, whether the fast tests are done or not. Both
# sides at the same priority: the sanitize build at nice 5 got two thirds of a core beside the fast
# tests and was the first phase's longest step, and the fast tests at nice 5 starved on a machine
# busy with other work (pictures_browser over its 600 s at load 18). The sanitize side's output goes to
# $(ASAN_BUILD_LOG) and $(ASAN_TEST_LOG), printed after the fast tests (the build's last 60 lines
# when it fails). A failure in either fails make test, after both are done.
test-trees:
	@$(FAST_CONFIGURE)
	@$(ASAN_CONFIGURE)
	@scripts/cpu-time.sh "make test-fast: the build" cmake --build $(BUILD) -j$(JOBS)
	@rm -f $(ASAN_TEST_LOG); \
	( scripts/cpu-time.sh "make test-asan: the build, beside the fast tree's tests (its output: $(ASAN_BUILD_LOG))" \
	    cmake --build $(ASAN_BUILD) -j$(SIDE_JOBS) >$(ASAN_BUILD_LOG) 2>&1 || exit 2; \
	  ($(ASAN_TESTS)) >$(ASAN_TEST_LOG) 2>&1 ) & asan=$$!; \
	echo "make test: the sanitize tree builds, then runs its tests, beside the fast tree's tests (printed after them)"; \
	($(FAST_TESTS)); fast=$$?; \
	wait $$asan; asan=$$?; \
	if [ ! -e $(ASAN_TEST_LOG) ]; then tail -n 60 $(ASAN_BUILD_LOG); echo "make test: the sanitize tree's build failed"; \
	else tail -n 1 $(ASAN_BUILD_LOG); cat $(ASAN_TEST_LOG); fi; \
	test $$fast -eq 0 && test $$asan -eq 0

# Release (-O3 -DNDEBUG) builds of everything, tests included, with gcc and with clang, as a
# user's or a distribution's build is made. Built, not run (make test-long).
test-release:
	@for cc in gcc clang; do \
	    CC=$$cc $(PCD_CMAKE) -S . -B $(RELEASE_BUILD)-$$cc -DCMAKE_BUILD_TYPE=Release -DPCD_WERROR=ON >/dev/null && \
	    cmake --build $(RELEASE_BUILD)-$$cc -j$(JOBS) >/dev/null || exit 1; \
	    echo "test-release: $$cc Release build clean"; \
	done

# Regenerate generated/ (with the Python binding, generated/python) and docs/formats/ from
# schemas/ (make test fails if you forget).
regen:
	lua5.4 gen/pcgen.lua -o generated --docs docs/formats --python generated/python

# The schema author's loop (docs/adding-a-format.md): regenerate, rebuild only the tool, and
# explain FILE (an HTML page, OUT (explain.html); TO=text or json: to the terminal, or OUT; ARGS:
# explain's options).
explain:
	@test -n "$(FILE)" || { echo "usage: make explain FILE=path [OUT=explain.html] [TO=html|text|json] [ARGS=...]"; exit 2; }
	@lua5.4 gen/pcgen.lua -o generated --docs docs/formats --python generated/python >/dev/null
	@test -f $(BUILD)/CMakeCache.txt || $(PCD_CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS) --target profcodec-cli >/dev/null
	@$(BUILD)/profcodec explain --to $(or $(TO),html) $(ARGS) $(FILE) \
	    $(if $(OUT),-o $(OUT),$(if $(filter-out html,$(or $(TO),html)),,-o explain.html))

# Run every libFuzzer harness for FUZZ_SECONDS each (default 300); FUZZ_ONLY=mojo picks some.
fuzz: setup
	@CC=clang $(PCD_CMAKE) -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCD_FUZZ=ON -DPCD_SANITIZE=ON -DPCD_WERROR=ON \
	    -DBUILD_TESTING=OFF -DPCD_BUILD_CLI=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS)
	@scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The engine plugins over the generated structure-aware mutators, for anyone's harness (in
# build-fuzz-tools/): libpcdmut_libfuzzer.a (LLVMFuzzerCustomMutator/CustomCrossOver: link it
# with a libFuzzer harness) and pcdmut_afl.so (AFL_CUSTOM_MUTATOR_LIBRARY for afl-fuzz).
fuzz-tools: setup
	@CC=clang $(PCD_CMAKE) -S . -B $(FUZZ_TOOLS_BUILD) -DCMAKE_BUILD_TYPE=Release -DPCD_FUZZ_TOOLS=ON -DBUILD_SHARED_LIBS=OFF \
	    -DBUILD_TESTING=OFF -DPCD_BUILD_CLI=OFF -DPCD_WERROR=ON >/dev/null
	@cmake --build $(FUZZ_TOOLS_BUILD) -j$(JOBS) --target pcdmut_libfuzzer pcdmut_afl
	@echo "fuzz-tools: $(FUZZ_TOOLS_BUILD)/fuzz/libpcdmut_libfuzzer.a and $(FUZZ_TOOLS_BUILD)/fuzz/pcdmut_afl.so (docs/fuzzing.md)"

# Campaigns of `profcodec fuzz` against other readers (fuzz/others/: mprof-report, Go's pprof
# parser, CPython 3.15's binary reader, austin-python's MOJO reader with AUSTIN_PYTHON=checkout),
# FUZZ_OTHERS_SECONDS (1800) each, one after the other; FUZZ_OTHERS=go picks some. Never in make
# test. Figures: fuzz/others/LEDGER.tsv; findings: fuzz/others/findings/, docs/fuzzing.md.
fuzz-others: setup
	@scripts/setup-deps.sh --quiet --fuzz-others
	@$(PCD_CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS) --target profcodec-cli
	@PROFCODEC=$(CURDIR)/$(BUILD)/profcodec fuzz/others/run.sh

# The structure-aware mutators measured (bench/RESULTS.md): round trip, the share of generated and
# mutated files our decoder accepts with the evil kinds off, mutations/s on inputs under 64 KB
# (bench/mutbench.c); then coverage after FUZZ_COMPARE_SECONDS (600) CPU seconds per arm and format,
# structure-aware against byte-level, both arms at once, each stopped when its process has had that
# much CPU time, and counted by replaying its corpus with the byte-level binary
# (scripts/fuzz-compare.sh; FUZZ_COMPARE=mojo picks formats, FUZZ_COMPARE_JOBS=3 runs three formats
# at once, FUZZ_COMPARE_WALL=SECONDS stops a run the machine is too loaded to finish,
# FUZZ_COMPARE_LEVEL=decode and FUZZ_COMPARE_SEEDS=corpus pick the first round's harnesses and seeds), built without
# sanitizers (coverage is the measure, not what a sanitizer would catch).
bench-fuzz: setup
	@$(PCD_CMAKE) -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DPCD_WERROR=ON >/dev/null
	@cmake --build $(BENCH_BUILD) -j$(JOBS) --target mutbench
	@echo "load average: $$(cut -d' ' -f1-3 /proc/loadavg)"
	@$(BENCH_BUILD)/bench/mutbench -n 2000 -g 200 -t 3 $$(find tests/data ../shared/corpus fuzz/corpus -type f -size -64k 2>/dev/null)
	@CC=clang $(PCD_CMAKE) -S . -B $(FUZZ_COV_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCD_FUZZ=ON -DPCD_WERROR=ON \
	    -DBUILD_TESTING=OFF -DPCD_BUILD_CLI=OFF >/dev/null
	@cmake --build $(FUZZ_COV_BUILD) -j$(JOBS) --target $(foreach h,tachyon_v1 moarvm_v3 pprof_gz mojo_v3 mono_v3_0 heph_v0_1 \
	    tachyon_ext moarvm_v3_blocks pprof_gz_ext mojo_v3_asm mono_ext heph_ext,fuzz_$(h) fuzz_$(h)_sa)
	@FUZZ_COMPARE_JOBS=$(FUZZ_COMPARE_JOBS) FUZZ_COMPARE_WALL=$(FUZZ_COMPARE_WALL) \
	    scripts/fuzz-compare.sh $(FUZZ_COV_BUILD) $(FUZZ_COMPARE_SECONDS) $(FUZZ_COMPARE)

# Throughput and memory against the baselines each format names; writes bench/RESULTS.md
# (BENCH=heph: that section only).
bench: setup
	@$(PCD_CMAKE) -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DPCD_WERROR=ON >/dev/null
	@cmake --build $(BENCH_BUILD) -j$(JOBS)
	@scripts/bench.sh $(BENCH_BUILD)

# A fleet's tables (docs/tables.md): FLEET_N copies of a corpus profile through xargs -P2 into
# --to table directories, then one DuckDB query over them all; prints the times.
FLEET_N ?= 1000
bench-tables: setup
	@$(PCD_CMAKE) -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DPCD_WERROR=ON >/dev/null
	@cmake --build $(BENCH_BUILD) -j$(JOBS) --target profcodec-cli
	@bench/tables_fleet.sh $(BENCH_BUILD)/profcodec "" $(FLEET_N) 2

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(BENCH_BUILD) $(RELEASE_BUILD)-gcc $(RELEASE_BUILD)-clang $(FUZZ_TOOLS_BUILD) $(FUZZ_COV_BUILD)
