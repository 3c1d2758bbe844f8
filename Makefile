# Thin wrapper over Meson. `make demo` and `make check` are the two commands
# the README opens with; both install missing Debian packages first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
MESON      ?= meson

.PHONY: all deps build build-asan demo check test test-asan clean

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
	./$(BUILD)/shrinklab reproduce

test: build
	$(MESON) test -C $(BUILD) --print-errorlogs

test-asan: build-asan
	$(MESON) test -C $(ASAN_BUILD) --print-errorlogs

check: test test-asan

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
