# Thin wrapper over Meson. `make demo` and `make check` are the two commands
# the README opens with; both install missing Debian packages first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
# check-tsan's torture is bounded by work: operations per design. -d all
# checks that every race point was reached, and the rarest (IX_UNIT_ERASED,
# a unit freed with its last list) came about once per 2500 operations of
# indexed: at 15000 one CI run in three missed it (2026-12-01), at 40000 a
# run expects 16 hits. 40000: 5 s per design under TSan, about 100 s for
# nobitmap (it calls every shrinker of every cgroup).
# `make torture` (long runs by hand) is bounded by time: seconds per design.
TSAN_TORTURE_OPS ?= 40000
TORTURE_SECONDS ?= 60
TORTURE_SEED ?= $(shell date +%s)
# Extra torture options for every run below (e.g. --readers-no-stats).
TORTURE_ARGS ?=
MESON      ?= meson

.PHONY: all deps build build-asan build-tsan demo readme-table check test test-asan check-install check-readme-install check-guides \
	check-tsan check-fuzz torture clean kernel-lab kernel-reproduce check-kernel \
	check-pressure-kernel

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@test -f $(BUILD)/build.ninja || $(MESON) setup $(BUILD)
	ninja -C $(BUILD)

build-asan: deps
	@test -f $(ASAN_BUILD)/build.ninja || \
		$(MESON) setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Dbuildtype=debug -Ddebug_checks=true
	ninja -C $(ASAN_BUILD)

# The demo builds the lab alone (meson's shrinklab target and what it links:
# about 60 of the build's 230 targets, no test binaries), runs every seed
# experiment with every design side by side, and ends with a decision table
# per experiment (docs/guides/LAB.md says how to read one).
demo: deps
	@test -f $(BUILD)/build.ninja || $(MESON) setup $(BUILD)
	$(MESON) compile -C $(BUILD) shrinklab
	./$(BUILD)/shrinklab reproduce

# README.md's result table: shrinklab's decision table of xarray-2026-vm at
# the thread's scale, put between the README's markers (the test
# readme_result_table checks it is the tool's). About a minute.
readme-table: deps
	@test -f $(BUILD)/build.ninja || $(MESON) setup $(BUILD)
	$(MESON) compile -C $(BUILD) shrinklab
	scripts/readme-table.py ./$(BUILD)/shrinklab README.md

test: build
	$(MESON) test -C $(BUILD) --print-errorlogs

test-asan: build-asan
	$(MESON) test -C $(ASAN_BUILD) --print-errorlogs

# Everything CI runs: plain and ASan+UBSan suites (unit, semantics per design,
# differential, fuzz corpus replay, short torture per design), the installed
# library, the TSan build, a bounded libFuzzer run, then the kernel designs
# (check-kernel, below). `make check CHECK_KERNEL=no` runs the userspace part
# alone.
CHECK_KERNEL ?= yes
check: test test-asan check-install check-readme-install check-tsan check-fuzz \
	$(if $(filter no,$(CHECK_KERNEL)),,check-kernel check-pressure-kernel)

# The library as users install it: `meson install --destdir` into
# $(BUILD)/install-check/stage, then the examples (C and C++, shared and
# -static) built with pkg-config against that copy and run, the exported
# symbols of the installed libraries, and the installed shrinklab
# (scripts/check-install.sh says what each step proves).
check-install: build
	MESON=$(MESON) scripts/check-install.sh $(BUILD)

# The README's "Install and use" block as a new user pastes it: in a copy of
# the tree with a scratch HOME, its lines as they stand build, install, then
# build and run the README's example against the installed library
# (scripts/check-readme-install.sh). Its cost, 2026-12-01, ccache off, load
# 12.9-14.4 on 2 cores: 177 s of wall, 37 s of CPU (235 build steps).
check-readme-install: deps
	scripts/check-readme-install.sh $(BUILD)/readme-install

# Every C block of docs/guides/ compiled with the project's warning flags by
# gcc and clang against the public headers (tests/docs/check_guide_c.py says
# how a fragment names its context); the test guides_c_blocks_compile of
# `make test` runs the same.
check-guides: deps
	python3 tests/docs/check_guide_c.py . $(BUILD)/guide-c gcc clang

# ThreadSanitizer (gcc): the multi-threaded unit and semantic suites, then a
# short torture run of every design (a design that does not take the run's
# options is reported as skipped). src/base/rcu.h annotates liburcu;
# tests/tsan.supp names only liburcu's own modules.
build-tsan: deps
	@test -f $(TSAN_BUILD)/build.ninja || \
		CC=gcc $(MESON) setup $(TSAN_BUILD) -Db_sanitize=thread -Dbuildtype=debugoptimized -Ddebug_checks=true
	ninja -C $(TSAN_BUILD)

# The tests that run threads against each other (the single-threaded suites
# gain nothing from TSan and would take too long under it), and the examples,
# whose workers fill one cache from a thread per tenant.
TSAN_TESTS = test_xarray_threads test_xarray_threads_small test_rcu test_rcu_thread_life \
	test_completion test_list_lru test_reclaim test_shrinker_info_array \
	test_shrinker_info_flat test_shrinker_info_grow test_shrinker_info_indexed \
	test_cgroup_life_readers test_races 'test_semantics[xarray]' \
	'test_semantics[array-ondemand]' 'test_semantics[indexed]' example_tenant_cache \
	example_tenant_cache_cxx test_page_counter test_reclaimer example_pressure_cache

# The TSan build has race points: torture and the threaded tests run with
# window widening (docs/design/RACES.md), and -d all checks every point was hit.
check-tsan: build-tsan
	$(MESON) test -C $(TSAN_BUILD) --print-errorlogs $(TSAN_TESTS)
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp" \
		./$(TSAN_BUILD)/tests/torture $(TORTURE_ARGS) --ops $(TSAN_TORTURE_OPS) -s $(TORTURE_SEED) -d all
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp" \
		./$(TSAN_BUILD)/tests/torture $(TORTURE_ARGS) --ops 15000 -s $(TORTURE_SEED) -d all --nokmem --nodes 3
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp" \
		./$(TSAN_BUILD)/tests/torture $(TORTURE_ARGS) --ops 15000 -s $(TORTURE_SEED) -d all --nonslab-ids

# Long torture runs (not part of check): every design, then the option
# variants, in the normal build; then every design in the ASan+UBSan build,
# whose race points widen the windows (docs/design/RACES.md), with ids past every
# size class too (--id-base: the ballast of tests/stress/torture/run.c); then the differential
# test with --long (200 seeds x 1000 steps per group instead of check's 20 x 400).
torture: build build-asan
	./$(BUILD)/tests/torture $(TORTURE_ARGS) -t $(TORTURE_SECONDS) -s $(TORTURE_SEED) -d all
	./$(BUILD)/tests/torture $(TORTURE_ARGS) -t $(TORTURE_SECONDS) -s $(TORTURE_SEED) -d all --units kmalloc
	./$(BUILD)/tests/torture $(TORTURE_ARGS) -t $(TORTURE_SECONDS) -s $(TORTURE_SEED) -d all --nokmem
	./$(BUILD)/tests/torture $(TORTURE_ARGS) -t $(TORTURE_SECONDS) -s $(TORTURE_SEED) -d all --nonslab-ids
	./$(ASAN_BUILD)/tests/torture $(TORTURE_ARGS) -t $(TORTURE_SECONDS) -s $(TORTURE_SEED) -d all
	./$(ASAN_BUILD)/tests/torture $(TORTURE_ARGS) -t $(TORTURE_SECONDS) -s $(TORTURE_SEED) -d all --nokmem
	./$(ASAN_BUILD)/tests/torture $(TORTURE_ARGS) -t $(TORTURE_SECONDS) -s $(TORTURE_SEED) -d all \
		--id-base 131136
	./$(ASAN_BUILD)/tests/torture $(TORTURE_ARGS) -t $(TORTURE_SECONDS) -s $(TORTURE_SEED) -d flat \
		--expand-batch 4096 --id-base 524352
	./$(BUILD)/tests/test_differential --long --seed $(TORTURE_SEED)

# Differential fuzzing (clang + libFuzzer): tests/fuzz/run_fuzz.sh runs one
# fuzzer per design set (xarray, array, indexed), one after the other, for
# FUZZ_TIME seconds each, over copies of tests/fuzz/corpus, and prints each
# one's executions per second (an execution runs every design of its set).
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 30

check-fuzz: deps
	@test -f $(FUZZ_BUILD)/build.ninja || \
		CC=clang $(MESON) setup $(FUZZ_BUILD) -Dfuzz=true -Db_lundef=false -Ddebug_checks=true
	ninja -C $(FUZZ_BUILD)
	tests/fuzz/run_fuzz.sh ./$(FUZZ_BUILD)/tests/fuzz/fuzz_ops $(FUZZ_BUILD) $(FUZZ_TIME) \
		tests/fuzz/corpus

# The kernel lab (kernel/README.md): our designs as patches on Debian's
# linux-source-6.12, built and booted in QEMU. kernel-lab runs the experiments
# at the issue's geometry, then the same experiments in the model at the same
# geometry (shrinklab kernel), and prints each kernel design beside the same
# design in the model; then the workloads with objects under real reclaim
# (klab work: containers, the reviewers' tests, pods; every design, 3
# interleaved boots, full geometry, a verdict table each, the model beside the
# containers table: hours); check-kernel is the CI part (checkpatch, every
# design built and booted with a short experiment, the cgroup selftests
# against mainline's baseline, a debug-kernel torture). Both install the
# Debian packages they need and keep the source and build trees in
# $$KLAB_CACHE (default /var/cache/libshrinker).
kernel-lab:
	kernel/klab lab
	kernel/klab work --geometry full --boots 3

# The seeds' tables on real kernels beside the seeds' and the model's figures,
# with a verdict per seed claim for each (hours: docs/design/KERNEL-LAB.md, "Seed tables").
kernel-reproduce:
	kernel/klab reproduce

# On 6.12, the stable fixes built and booted; on 7.3, checkpatch and W=1 per
# patch of every series only (kernel/ci-7.3.tsv: no 7.3 kernel is built in CI
# yet; the cold cost of one is in docs/results/2026-12-02/kernel-7.3.md).
check-kernel:
	kernel/klab check --base 6.12
	kernel/klab check --base 7.3

# The reclaimer under a real kernel's memory.high (docs/guides/PRESSURE.md): the
# installed library's static pressure_cache example in a cgroup v2 of the
# lab's mainline guest (the image check-kernel builds), with and without
# its reclaimer; about 2 minutes of TCG. `make check` runs it after
# check-kernel, which builds the image; alone it needs the image in
# $$KLAB_CACHE. The Meson test of the same program skips on hosts without a
# cgroup v2 memory controller.
check-pressure-kernel: build
	MESON=$(MESON) scripts/check-pressure-guest.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
