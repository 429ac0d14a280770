# Offload Explorer. `make serve` builds the web page and serves it; `make test` installs what it
# needs (Debian clang-22/llvm-22, Chromium, Firefox ESR, WebKitGTK's driver, Rust targets, Trunk,
# wasm-bindgen, geckodriver, npm tools) and runs every test; `make bench` compares the CLI with
# the reference tools.
LLVM_BIN ?= /usr/lib/llvm-22/bin
export LLVM_BIN
# Project-local web tools (wasm-opt from npm) and cargo-installed ones (trunk, wasm-bindgen)
# come first on PATH.
export PATH := $(CURDIR)/tools/web/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

# `make serve`: where the page is served, and the public URL it is built for.
HOST ?= 127.0.0.1
PORT ?= 8080
PUBLIC_URL ?= /
DIST ?= dist
# The end-to-end tests serve the release build from a sub-path, as a static host would.
E2E_PUBLIC_URL ?= /some/sub/path/
E2E_DIST ?= target/e2e-dist
# The engines other than Chromium that e2e-engines drives (e2e/engines/), and geckodriver.
ENGINES ?= firefox webkit
GECKODRIVER ?= $(HOME)/.cargo/bin/geckodriver
# WebKitGTK's MiniBrowser needs a display: a virtual one, as large as the window it is given.
XVFB_RUN ?= xvfb-run -a -s "-screen 0 1600x1200x24"


.PHONY: test deps lint build unit disasm-agreement wasm-core python-test bench fixtures fuzz clean \
	serve web web-deps web-test-deps samples web-test e2e e2e-site e2e-engines

test: deps lint build unit disasm-agreement wasm-core python-test web-test e2e e2e-engines
	@echo "make test: all passed"

deps:
	@scripts/install-deps.sh

# Formatting (rustfmt.toml) and clippy with warnings as errors: the workspace natively, the web
# page's browser code for wasm32, and the fuzz crate (its own workspace, checked on stable).
lint:
	cargo fmt --all -- --check
	cargo fmt --manifest-path fuzz/Cargo.toml --all -- --check
	cargo clippy --release --workspace --all-targets -- -D warnings
	cargo clippy --release -p offload-www --all-targets --target wasm32-unknown-unknown -- -D warnings
	cargo clippy --manifest-path fuzz/Cargo.toml --all-targets -- -D warnings

build:
	cargo build --release --workspace

# Unit, integration, round-trip and differential tests (the differential suite prints its seed;
# replay one with OFFLOAD_DIFF_SEED=<seed> make test). Includes the web page's browser-free
# logic (www: model, reducer, geometry), which builds natively.
unit:
	cargo test --release --workspace
	# The core alone, with the pure-Rust zstd (ruzstd) of its default features: the workspace run
	# has libzstd in (the CLI's zstd-c feature), so the codec and the bad-input catalogue run again.
	cargo test --release -p offload --lib --test bad_input

# How many instruction texts of `offload disasm` equal llvm-objdump 22's, per processor: over the
# code objects compiled for each family in tests/disasm/ (held to tests/disasm/agreement.txt),
# then over a ROCm wheel from PyPI (printed; skipped offline). `make bench` runs four (GFX8 too).
disasm-agreement:
	cargo test --release -p offload --test disasm_agreement -- --nocapture
	python3 scripts/disasm_agreement.py --quick

# The core must build with default features off for the browser.
wasm-core:
	cargo build --release -p offload --no-default-features --target wasm32-unknown-unknown
	cargo build --release -p offload --no-default-features --features zlib,zstd,serde --target wasm32-unknown-unknown

# The Python wheel (maturin from PyPI) installed into a fresh virtual environment, and its pytest
# suite (python/tests/): the module against the CLI's --json, `offload doctor` on real GPU
# wheels and fake machines, a Dask LocalCluster scan (scripts/python-test.sh).
python-test:
	scripts/python-test.sh

fixtures:
	tests/fixtures/generate.sh
	@scripts/copy-samples.sh

# Every fuzz target for FUZZ_SECONDS each (default 600), on nightly; findings land in
# tests/fuzz_regressions/, which `make test` replays.
fuzz:
	scripts/fuzz.sh

# The CLI against clang-offload-bundler, large wheels from PyPI (list, kernels, fit, sizes; cuobjdump
# on the same library), then the page in Chromium on the same bundle (and a 1 GiB host file):
# times and peak memory, printed, never asserted. Each step's output is kept
# in target/bench/ and, once every step has passed, written with the date, machine and commit
# to docs/benchmarks.md (scripts/bench.py capture / report).
bench: deps build web-test-deps
	@rm -rf target/bench && mkdir -p target/bench
	python3 scripts/bench.py capture target/bench/cli.md -- python3 scripts/bench.py
	python3 scripts/bench.py capture target/bench/packages.md -- python3 scripts/bench_packages.py
	python3 scripts/bench.py capture target/bench/remote.md -- python3 scripts/bench_remote.py
	python3 scripts/bench.py capture target/bench/remote-stream.md -- python3 scripts/bench_remote_stream.py
	python3 scripts/bench.py capture target/bench/disasm.md -- python3 scripts/disasm_agreement.py
	python3 scripts/bench.py capture target/bench/disasm-pressure.md -- python3 scripts/disasm_pressure.py
	trunk build --offline --release --public-url $(E2E_PUBLIC_URL) --dist $(E2E_DIST)
	@python3 scripts/bench.py capture target/bench/web-size.txt -- node scripts/web-size.mjs $(E2E_DIST)
	E2E_DIST=$(CURDIR)/$(E2E_DIST) E2E_BASE=$(E2E_PUBLIC_URL) \
		python3 scripts/bench.py capture target/bench/packages-page.md -- python3 scripts/bench_packages.py --page
	E2E_DIST=$(CURDIR)/$(E2E_DIST) E2E_BASE=$(E2E_PUBLIC_URL) python3 scripts/bench.py capture target/bench/code-view.md -- python3 scripts/bench_code_view.py
	cd e2e && E2E_DIST=$(CURDIR)/$(E2E_DIST) E2E_BASE=$(E2E_PUBLIC_URL) \
		python3 $(CURDIR)/scripts/bench.py capture $(CURDIR)/target/bench/browser.md -- node bench.mjs
	cd e2e && E2E_DIST=$(CURDIR)/$(E2E_DIST) E2E_BASE=$(E2E_PUBLIC_URL) GECKODRIVER=$(GECKODRIVER) \
		python3 $(CURDIR)/scripts/bench.py capture $(CURDIR)/target/bench/engines.md -- $(XVFB_RUN) node engines/bench.mjs
	python3 scripts/bench.py report target/bench docs/benchmarks.md

# ---------------------------------------------------------------- web page --
web-deps:
	@scripts/install-web-deps.sh

web-test-deps:
	@scripts/install-web-deps.sh --test

samples:
	@scripts/copy-samples.sh

# Release build of the page into $(DIST) for $(PUBLIC_URL), then its gzipped transfer size.
web: web-deps
	trunk build --offline --release --public-url $(PUBLIC_URL) --dist $(DIST)
	@node scripts/web-size.mjs $(DIST)

serve: web
	@node scripts/serve.mjs $(DIST) --host $(HOST) --port $(PORT) --base $(PUBLIC_URL)

# The page's state and components in headless Chromium, then in headless Firefox ESR
# (wasm-bindgen-test-runner, see .cargo/config.toml and www/webdriver.json).
web-test: web-test-deps
	CHROMEDRIVER=/usr/bin/chromedriver cargo test -p offload-www --target wasm32-unknown-unknown
	GECKODRIVER=$(GECKODRIVER) cargo test -p offload-www --target wasm32-unknown-unknown

# The release build served from a sub-path, driven in Chromium (e2e/tests/, playwright-core).
e2e: e2e-site
	cd e2e && E2E_DIST=$(CURDIR)/$(E2E_DIST) E2E_BASE=$(E2E_PUBLIC_URL) OFFLOAD=$(CURDIR)/target/release/offload \
		node --test --test-concurrency=1 tests/

# The same build in Firefox ESR (geckodriver, headless) and WebKitGTK (WebKitWebDriver and
# MiniBrowser, under Xvfb), driven by selenium-webdriver (e2e/engines/); ENGINES= picks them.
e2e-engines: e2e-site
	@for engine in $(ENGINES); do \
		echo "e2e-engines: $$engine"; \
		(cd e2e && E2E_ENGINE=$$engine E2E_DIST=$(CURDIR)/$(E2E_DIST) E2E_BASE=$(E2E_PUBLIC_URL) \
			OFFLOAD=$(CURDIR)/target/release/offload GECKODRIVER=$(GECKODRIVER) \
			$(XVFB_RUN) node --test --test-concurrency=1 engines/) || exit 1; \
	done

# The release build for the end-to-end tests (built once per make run).
e2e-site: web-test-deps build
	trunk build --offline --release --public-url $(E2E_PUBLIC_URL) --dist $(E2E_DIST)
	@node scripts/web-size.mjs $(E2E_DIST)

clean:
	cargo clean
	rm -rf $(DIST) test-output
