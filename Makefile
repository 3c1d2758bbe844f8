# Thin wrapper over Meson. `make demo` and `make check` are the two commands
# the README opens with; both install missing Debian packages first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
MESON      ?= meson

.PHONY: all deps build build-asan demo check test test-asan clean check-fuzz

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@test -f $(BUILD)/build.ninja || $(MESON) setup $(BUILD)
	ninja -C $(BUILD)

build-asan: deps
	@test -f $(ASAN_BUILD)/build.ninja || \
		$(MESON) setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Dbuildtype=debug
	ninja -C $(ASAN_BUILD)

demo: build
	./$(BUILD)/shrinklab slabinfo --cpus 4 520 192 776 576
	./$(BUILD)/shrinklab slabinfo --cpus 2 8 16 32 64 96 128 192 256 512 1024 2048 4096 8192

test: build
	$(MESON) test -C $(BUILD) --print-errorlogs

test-asan: build-asan
	$(MESON) test -C $(ASAN_BUILD) --print-errorlogs

check: test test-asan

# Differential fuzzing (clang + libFuzzer) for FUZZ_TIME seconds over a copy
# of tests/fuzz/corpus (the source tree is never written).
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 60

check-fuzz: deps
	@test -f $(FUZZ_BUILD)/build.ninja || \
		CC=clang $(MESON) setup $(FUZZ_BUILD) -Dfuzz=true -Db_lundef=false
	ninja -C $(FUZZ_BUILD)
	rm -rf $(FUZZ_BUILD)/fuzz-corpus $(FUZZ_BUILD)/fuzz-artifacts
	mkdir -p $(FUZZ_BUILD)/fuzz-corpus $(FUZZ_BUILD)/fuzz-artifacts
	cp tests/fuzz/corpus/* $(FUZZ_BUILD)/fuzz-corpus/
	./$(FUZZ_BUILD)/tests/fuzz/fuzz_ops -max_total_time=$(FUZZ_TIME) -max_len=600 \
		-artifact_prefix=$(FUZZ_BUILD)/fuzz-artifacts/ $(FUZZ_BUILD)/fuzz-corpus

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
