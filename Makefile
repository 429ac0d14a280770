# Offload Explorer. `make test` installs what it needs (Debian clang-22/llvm-22, Rust targets)
# and runs every test; `make bench` compares the CLI with the reference tools.
LLVM_BIN ?= /usr/lib/llvm-22/bin
export LLVM_BIN

.PHONY: test deps build unit wasm-core bench fixtures fuzz clean

test: deps build unit wasm-core
	@echo "make test: all passed"

deps:
	@scripts/install-deps.sh

build:
	cargo build --release --workspace

# Unit, integration, round-trip and differential tests (the differential suite prints its seed;
# replay one with OFFLOAD_DIFF_SEED=<seed> make test).
unit:
	cargo test --release --workspace

# The core must build with default features off for the browser.
wasm-core:
	cargo build --release -p offload --no-default-features --target wasm32-unknown-unknown
	cargo build --release -p offload --no-default-features --features zlib,zstd,serde --target wasm32-unknown-unknown


fixtures:
	tests/fixtures/generate.sh

# Every fuzz target for FUZZ_SECONDS each (default 600), on nightly; findings land in
# tests/fuzz_regressions/, which `make test` replays.
fuzz:
	scripts/fuzz.sh

bench: deps build
	python3 scripts/bench.py

clean:
	cargo clean
